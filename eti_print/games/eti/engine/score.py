"""Standard and safe submissions: the total of a research queue and how it came about."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .cards import DEFAULT_DECK, Card, Deck, _port
from .rules import Rules

_VERBS = {0: "zeroes", 2: "doubles", 3: "triples"}


@dataclass(frozen=True)
class Destruction:
    """A threat (by queue index) that destroyed a numeric card (by queue index)."""

    threat: int
    card: int


@dataclass(frozen=True)
class Attachment:
    """A multiplier and the numeric card it applies to (None: no effect)."""

    multiplier: int
    target: int | None


@dataclass(frozen=True)
class Contribution:
    """A surviving numeric card and what it adds to the total after multipliers."""

    card: int
    value: int


@dataclass(frozen=True)
class Score:
    """A standard submission, resolved: the total and how it came about.

    Indexes are positions in ``order`` (port = index + 1).
    """

    order: tuple[Card, ...]
    total: int
    destroyed: tuple[Destruction, ...]
    ignored: tuple[int, ...]        # threats the company is immune to
    harmless: tuple[int, ...]       # threats with nothing left to destroy
    attachments: tuple[Attachment, ...]
    contributions: tuple[Contribution, ...]

    def formula(self) -> str:
        """The total the way the rulebook writes it: ``10 + 40 x 2 x 3 = 250``."""
        factors: dict[int, list[int]] = {}
        for a in self.attachments:
            if a.target is not None:
                factors.setdefault(a.target, []).append(self.order[a.multiplier].value)
        terms = [" x ".join(str(n) for n in [self.order[c.card].value, *factors.get(c.card, [])])
                 for c in self.contributions]
        return f"{' + '.join(terms) or '0'} = {self.total}"

    def describe(self, deck: Deck = DEFAULT_DECK) -> list[str]:
        """Short lines saying what each threat and multiplier did, in port order.

        Threats are called by ``deck``'s printed names.
        """
        def at(index: int) -> str:
            return f"{deck.label(self.order[index])} ({_port(index)})"

        events: list[tuple[int, str]] = []
        for d in self.destroyed:
            events.append((d.threat, f"{at(d.threat)} destroys {at(d.card)}"))
        for i in self.ignored:
            events.append((i, f"{at(i)} is ignored (immune)"))
        for i in self.harmless:
            events.append((i, f"{at(i)} has nothing left to destroy"))
        for a in self.attachments:
            if a.target is None:
                line = f"{at(a.multiplier)} has no effect (no number before it)"
            else:
                factor = self.order[a.multiplier].value
                verb = _VERBS.get(factor)
                line = (f"{at(a.multiplier)} {verb} {at(a.target)}" if verb else
                        f"{at(a.multiplier)} multiplies {at(a.target)} by {factor}")
            events.append((a.multiplier, line))
        return [line for _, line in sorted(events)]

def score(queue: Sequence[Card], immune: Iterable[str] = frozenset(),
          deck: Deck = DEFAULT_DECK) -> Score:
    """Resolve a standard submission of ``queue`` (data port 1 first).

    ``immune`` names threats of ``deck`` (ids or printed names).

    Threats resolve one by one from port 1: each one the company is not immune
    to destroys the highest numeric card later in the queue that is still
    there (the nearest on ties); threats never touch multipliers or threats.
    Then each multiplier applies to the closest surviving numeric card before
    it; multipliers stack (x2 x2 = x4) and one with no numeric card before it
    does nothing.
    """
    cards = tuple(queue)
    immunities = deck.immunities(immune)
    alive = [card.kind == "number" for card in cards]
    destroyed: list[Destruction] = []
    ignored: list[int] = []
    harmless: list[int] = []
    for i, card in enumerate(cards):
        if card.kind != "threat":
            continue
        if card.threat in immunities:
            ignored.append(i)
            continue
        target = _threat_target(cards, alive, i)
        if target is None:
            harmless.append(i)
        else:
            alive[target] = False
            destroyed.append(Destruction(i, target))
    attachments, product = _attach_multipliers(cards, alive)
    contributions = tuple(Contribution(i, cards[i].value * product[i])
                          for i in range(len(cards)) if alive[i])
    return Score(cards, sum(c.value for c in contributions), tuple(destroyed), tuple(ignored),
                 tuple(harmless), attachments, contributions)


def _threat_target(cards: Sequence[Card], alive: Sequence[bool], threat: int) -> int | None:
    """The highest surviving numeric card after ``threat``, the nearest on ties."""
    later = [j for j in range(threat + 1, len(cards)) if alive[j]]
    return max(later, key=lambda j: (cards[j].value, -j), default=None)


def _attach_multipliers(cards: Sequence[Card], alive: Sequence[bool]
                        ) -> tuple[tuple[Attachment, ...], list[int]]:
    """Each multiplier's target, and the product of factors each card receives."""
    product = [1] * len(cards)
    attachments: list[Attachment] = []
    last: int | None = None
    for i, card in enumerate(cards):
        if alive[i]:
            last = i
        elif card.kind == "multiplier":
            attachments.append(Attachment(i, last))
            if last is not None:
                product[last] *= card.value
    return tuple(attachments), product


def safe_score(n_cards: int, rules: Rules = Rules()) -> int:
    """A safe submission: every face-down card is worth ``rules.safe_value``."""
    if n_cards < 0:
        raise ValueError(f"number of cards must be >= 0 (got {n_cards})")
    return n_cards * rules.safe_value
