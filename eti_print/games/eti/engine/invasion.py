"""The endgame invasion: vaulted projects, attack cards, defense, which projects
a company discards to survive, and the winner."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from .cards import DEFAULT_DECK, Card, Deck
from .game import MAX_TECH_LEVEL
from .rules import Rules


class Defender(Protocol):
    """A project in a human vault at the invasion."""

    @property
    def name(self) -> str: ...

    @property
    def defense(self) -> int: ...

    @property
    def fame(self) -> int: ...

    @property
    def side(self) -> str: ...


TOP_SECRET = "top-secret"
PUBLIC_DOMAIN = "public-domain"
SIDES = (TOP_SECRET, PUBLIC_DOMAIN)


@dataclass(frozen=True)
class VaultProject:
    """A claimed project and the vault it went to: enough for votes and the invasion."""

    name: str
    defense: int = 0
    fame: int = 0
    side: str = TOP_SECRET
    level_number: int = 1
    field: str = ""
    upgrades: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.side not in SIDES:
            raise ValueError(f"vault side must be {' or '.join(SIDES)} (got {self.side!r})")
        if self.defense < 0 or self.fame < 0:
            raise ValueError(f"{self.name}: defense and fame must be >= 0")
        if not 1 <= self.level_number <= MAX_TECH_LEVEL:
            raise ValueError(f"{self.name}: tech level must be 1 to {MAX_TECH_LEVEL}")


@dataclass(frozen=True)
class AttackLine:
    """One attack card, what it is worth, and why."""

    card: Card
    value: int
    reason: str


@dataclass(frozen=True)
class Attack:
    """The attack against one company: its cards plus the brutality base."""

    lines: tuple[AttackLine, ...]
    base: int

    @property
    def total(self) -> int:
        return self.base + sum(line.value for line in self.lines)


def attack_value(card: Card, human_immune: Iterable[str], alien_tactics: Iterable[str],
                 rules: Rules = Rules(), deck: Deck = DEFAULT_DECK) -> int:
    """What one attack card is worth against one company (threats named as in ``deck``)."""
    return _attack_line(card, deck.immunities(human_immune), deck.immunities(alien_tactics),
                        rules).value


def _attack_line(card: Card, immune: frozenset[str], tactics: frozenset[str],
                 rules: Rules) -> AttackLine:
    if card.kind == "number":
        return AttackLine(card, card.value, "face value")
    if card.kind == "multiplier":
        if card.value not in rules.multiplier_attack:
            raise ValueError(f"the rules give no attack value for {card.token}")
        value = rules.multiplier_attack[card.value]
        return AttackLine(card, value, f"{card.token} counts as {value}")
    tactic, is_immune = card.threat in tactics, card.threat in immune
    reason = (f"{'an' if tactic else 'not an'} alien tactic, "
              f"company {'immune' if is_immune else 'not immune'}")
    return AttackLine(card, rules.threat_attack.value(tactic, is_immune), reason)


def attack(cards: Iterable[Card], human_immune: Iterable[str], alien_tactics: Iterable[str],
           brutality_base: int = 0, rules: Rules = Rules(), deck: Deck = DEFAULT_DECK) -> Attack:
    """The total attack against one company: its attack cards plus the brutality base.

    ``human_immune`` and ``alien_tactics`` name threats of ``deck``.
    """
    if brutality_base < 0:
        raise ValueError(f"brutality base attack must be >= 0 (got {brutality_base})")
    immune, tactics = deck.immunities(human_immune), deck.immunities(alien_tactics)
    return Attack(tuple(_attack_line(card, immune, tactics, rules) for card in cards),
                  brutality_base)


def mash_cards(alien_projects: int, companies: int, rules: Rules = Rules()) -> int:
    """Extra attack cards from project mashes: one per pair, at most one per company."""
    return min(alien_projects // rules.mash_projects, companies * rules.mash_max_per_company)


def endgame_defense(project: Defender, rules: Rules = Rules()) -> int:
    """A project's defense in the invasion: top secret projects gain a bonus."""
    return project.defense + (rules.top_secret_defense if project.side == TOP_SECRET else 0)


def endgame_fame(project: Defender, rules: Rules = Rules()) -> int:
    """A surviving project's fame: public domain projects gain a bonus."""
    return project.fame + (rules.public_domain_fame if project.side == PUBLIC_DOMAIN else 0)


def defense_total(vault: Iterable[Defender], rules: Rules = Rules()) -> int:
    """A company's whole defense in the invasion, bonuses included."""
    return sum(endgame_defense(p, rules) for p in vault)


@dataclass(frozen=True)
class Outcome:
    """How one company fares against the attack."""

    survived: bool
    attack: int
    defense: int
    discarded: tuple[Defender, ...]
    kept: tuple[Defender, ...]
    fame: int


def resolve_company(vault: Sequence[Defender], attack_total: int,
                    rules: Rules = Rules()) -> Outcome:
    """Survive the attack by discarding projects, keeping as much fame as possible.

    A company survives iff its whole defense meets or beats the attack.  Then
    it discards projects whose defense (bonuses included) meets or beats the
    attack; of all such choices this keeps the most fame (public domain
    bonuses included).  Ties keep the most defense, then the earliest
    projects, so the answer is stable.  Destroyed companies lose everything.
    """
    projects = tuple(vault)
    defense = defense_total(projects, rules)
    if defense < attack_total:
        return Outcome(False, attack_total, defense, projects, (), 0)
    kept = _most_famous_within(projects, defense - max(attack_total, 0), rules)
    return Outcome(True, attack_total, defense,
                   tuple(p for i, p in enumerate(projects) if i not in kept),
                   tuple(projects[i] for i in kept), sum(endgame_fame(projects[i], rules)
                                                         for i in kept))


def _most_famous_within(projects: tuple[Defender, ...], room: int,
                        rules: Rules) -> tuple[int, ...]:
    """Indexes of the projects to keep: most fame with kept defense <= ``room``.

    A 0/1 knapsack over kept defense, exact.  Discarding the rest then covers
    the attack, since total defense - kept defense >= attack.
    """
    # kept defense -> (fame, kept indexes); one entry per reachable defense sum.
    best: dict[int, tuple[int, tuple[int, ...]]] = {0: (0, ())}
    for i, project in enumerate(projects):
        weight, fame = endgame_defense(project, rules), endgame_fame(project, rules)
        for used, (have, chosen) in list(best.items()):
            if used + weight <= room:
                candidate = (have + fame, chosen + (i,))
                current = best.get(used + weight)
                if current is None or _better_keep(candidate, current):
                    best[used + weight] = candidate
    _, (_, chosen) = max(best.items(), key=lambda item: (item[1][0], item[0],
                                                          _earliest(item[1][1])))
    return chosen


def _better_keep(a: tuple[int, tuple[int, ...]], b: tuple[int, tuple[int, ...]]) -> bool:
    return (a[0], _earliest(a[1])) > (b[0], _earliest(b[1]))


def _earliest(chosen: tuple[int, ...]) -> tuple[int, ...]:
    """A key under which sets holding earlier projects compare greater."""
    return tuple(-i for i in chosen)


@dataclass(frozen=True)
class Verdict:
    """Who wins: one company, a tie for the final ISSA president to break, or the alien."""

    companies: tuple[str, ...]

    @property
    def alien_wins(self) -> bool:
        return not self.companies

    @property
    def tie(self) -> bool:
        return len(self.companies) > 1


def winner(outcomes: Mapping[str, Outcome]) -> Verdict:
    """The surviving company with the most fame (ties: all of them); none: the alien."""
    survivors = {company: o.fame for company, o in outcomes.items() if o.survived}
    if not survivors:
        return Verdict(())
    top = max(survivors.values())
    return Verdict(tuple(company for company, fame in survivors.items() if fame == top))
