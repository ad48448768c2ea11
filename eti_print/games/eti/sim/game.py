"""One whole game of E.T.I., seeded and pure: set-up, turns, findings and the reveal.

``play.play(Game(data, players, length, alien, seed, policies, alien_policy))``
returns a ``Result``.  Every random draw comes from the game's own ``random.Random``
and every choice from a policy (``policies``), so one seed is one game; with
``log=True`` the game also writes what happened, line by line, identical on
replay.  The rulebook's arithmetic is the rules engine's (``engine``):
standard scores and the exact swap search, the data bank (findings, scoops,
carry-over), drawable tech levels, votes, and the whole invasion.  Events
resolve by their declared effects (``effects``), the invasion in ``invasion``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .. import engine
from .data import HUMAN_TRAITS, SimCard, SimData, SimProject

#: A game that has not ended by then is stopped (it never happens with the shipped data).
MAX_TURNS = 120


@dataclass
class Company:
    seat: int
    policy: Any                 # a human policy of ``policies``: every choice it makes
    alien: bool = False
    endgame: SimCard | None = None
    base: dict[str, int] = field(default_factory=lambda: dict.fromkeys(HUMAN_TRAITS, 0))
    immune: list[str] = field(default_factory=list)
    ports: list[engine.Card] = field(default_factory=list)
    bank: int = 0
    project: SimProject | None = None
    last_field: str | None = None
    vault: list[tuple[SimProject, str]] = field(default_factory=list)
    fame_tokens: dict[int, int] = field(default_factory=dict)     # vault index -> fame
    held: list[SimCard] = field(default_factory=list)
    free: tuple[str, ...] = ()
    revealed: bool = False
    seen: int = 0              # ports seen by an event beyond analysis (this hand)
    deal_delta: int = 0        # this turn's change to research cards dealt
    immune_all: bool = False   # this turn
    needs_project: bool = False

    def upgrades(self, trait: str) -> int:
        return self.base[trait] + sum(p.upgrades.count(trait) for p, _ in self.vault)

    def field_count(self, field_id: str) -> int:
        return sum(1 for p, _ in self.vault if p.field == field_id)

    def top_secret_count(self) -> int:
        return sum(1 for _, side in self.vault if side == engine.TOP_SECRET)

    def known(self) -> int:
        return self._analysis + self.seen

    _analysis: int = 0

    def defense_now(self, game: Game) -> int:
        return engine.defense_total(game.defenders(self), game.data.rules)

    def fame_estimate(self, game: Game) -> int:
        return sum(engine.endgame_fame(p, game.data.rules) for p in game.defenders(self))


@dataclass(frozen=True)
class Result:
    """What a finished game tells the statistics (plain values only)."""

    players: int
    length: str
    alien: str
    alien_seat: int
    winner: int | None          # seat of the winning human; None: the alien won
    turns: int
    claimed: tuple[str, ...]    # project ids claimed before the reveal (a hidden alien's too)
    events: tuple[str, ...]     # event ids drawn
    winner_fame: int
    policies: tuple[str, ...]
    free: tuple[tuple[str, ...], ...]   # each seat's free upgrades, sorted
    survivors: int
    log: tuple[str, ...] = ()


@lru_cache(maxsize=4096)
def _best(cards: tuple[engine.Card, ...], swaps: int, immune: frozenset[str],
          deck: engine.Deck) -> int:
    # Swaps only matter around a multiplier or a threat the company is not immune to;
    # without either, every order totals the same (a shortcut, not a heuristic).
    if swaps and any(c.kind == "multiplier" or (c.kind == "threat" and c.threat not in immune)
                     for c in cards):
        return engine.best_order(cards, swaps, immune, deck).total
    return engine.score(cards, immune, deck).total


class Game:
    def __init__(self, data: SimData, players: int, length: str, alien: str, seed: int,
                 policies: Sequence[Callable[[], Any]], alien_policy: Any,
                 log: bool = False) -> None:
        """``policies``: the human policies' kinds (``policies.POLICIES`` values), one
        made for each seat; ``alien_policy`` makes the alien's choices."""
        lo, hi = data.players
        if not lo <= players <= hi:
            raise ValueError(f"players must be {lo} to {hi} (got {players})")
        self.data = data
        self.rng = random.Random(seed)
        self.players, self.length = players, length
        self.mult = data.lengths[length]
        self.threshold = engine.threshold(players, self.mult)
        self.must = engine.must_reveal_by(players, self.mult)
        self.alien_card = data.alien(alien)
        self.log: list[str] | None = [] if log else None
        self.alien_policy = alien_policy
        # Policies go round the table from a seat drawn per game, so no seat always
        # gets the same policy and seat advantage is not a policy's advantage.
        offset = self.rng.randrange(len(policies))
        self.companies = [Company(s, policies[(s + offset) % len(policies)]())
                          for s in range(players)]
        self.piles: dict[int, list[SimProject]] = {}
        self.center: list[SimProject] = []
        self.claimed: list[str] = []
        self.drawn_events: list[str] = []
        self.president = 0
        self.turn = 0
        self.revealed = False
        self.countdown = 0

    # -- helpers the policies read -------------------------------------------
    def say(self, text: str) -> None:
        if self.log is not None:
            self.log.append(text)

    def name(self, c: Company) -> str:
        return f"seat {c.seat + 1}" + (" (alien)" if c.revealed else "")

    def distance(self, c: Company) -> int:
        """Seats clockwise from the ISSA president (0: the president)."""
        return (c.seat - self.president) % self.players

    def clockwise(self, start: int | None = None) -> list[Company]:
        first = self.president if start is None else start
        return [self.companies[(first + i) % self.players] for i in range(self.players)]

    def humans(self) -> list[Company]:
        return [c for c in self.companies if not c.revealed]

    def value(self, c: Company, trait: str) -> int:
        return self.data.value(trait, c.upgrades(trait))

    def data_year(self) -> int:
        return 1964 + self.turn

    def cards_for(self, c: Company) -> int:
        per = self.data.agendas["conduct-research"].get("per_field_project", 1)
        fields = [p.field for p, _ in self.vault_of(c)] * per
        return max(0, engine.cards_dealt(self.value(c, "staffing"), fields, c.project.field)
                   + c.deal_delta)

    def vault_of(self, c: Company) -> list[tuple[SimProject, str]]:
        return c.vault

    def free_projects(self, c: Company) -> list[SimProject]:
        return [p for p in self.center if p is not c.project]

    def expected_attack(self) -> float:
        card = self.alien_card
        cards = self.mult + card.get("attack_cards", 0)
        return cards * 24 + 10 + card.get("brutality", 0) + \
            (15 if card.get("threats_as_tactics") else 0)

    def per_card(self, n: int) -> float:
        table = self.data.per_card
        return table[min(max(n, 1), len(table) - 1)]

    def immunities(self, c: Company) -> frozenset[str]:
        if c.immune_all:
            return frozenset(self.data.deck.threats)
        return frozenset(c.immune)

    def estimate(self, c: Company) -> float:
        """A policy's estimate of a standard submission: exact on known ports, mean beyond."""
        n = len(c.ports)
        known = min(c.known(), n)
        unknown = n - known
        exact = _best(tuple(c.ports[:known]), 0, self.immunities(c),
                      self.data.deck) if known else 0
        return exact + unknown * self.per_card(n)

    def best_total(self, c: Company, extra_swaps: int = 0,
                   immune: frozenset[str] | None = None) -> int:
        return _best(tuple(c.ports), self.value(c, "creativity") + extra_swaps,
                     self.immunities(c) if immune is None else immune, self.data.deck)

    def defenders(self, c: Company) -> list[engine.VaultProject]:
        return [engine.VaultProject(p.name, p.defense, p.fame + c.fame_tokens.get(i, 0), side,
                                    p.level_number, p.field, p.upgrades)
                for i, (p, side) in enumerate(c.vault)]

    # -- state changes --------------------------------------------------------
    def sync(self, c: Company) -> None:
        """Immunities follow the Security track: pick new ones at once; lose the last ones."""
        c._analysis = self.value(c, "analysis")
        want = self.value(c, "security")
        while len(c.immune) > want:
            lost = c.immune.pop()
            self.say(f"  {self.name(c)} loses its {self.data.deck.name(lost)} immunity")
        while len(c.immune) < want:
            choices = [t for t in self.data.deck.threats if t not in c.immune]
            if not choices:
                break
            pick = c.policy.immunity(self, c, choices)
            c.immune.append(pick)
            self.say(f"  {self.name(c)} becomes immune to {self.data.deck.name(pick)}")

    def draw_project(self, levels: Sequence[int]) -> SimProject | None:
        available = [lv for lv in sorted(self.piles) if self.piles[lv]]
        allowed = [lv for lv in levels if lv in available]
        if not allowed:
            fallback = engine.fallback_level(available, levels)
            if fallback is None:
                return None
            allowed = [fallback]
        return self.piles[allowed[-1]].pop()

    def deal(self, c: Company, count: int) -> None:
        placed, lost = engine.place_in_ports(len(c.ports), count, self.data.rules)
        for _ in range(placed):
            if not self.draw:
                self._reshuffle()
            if self.draw:
                c.ports.append(self._draw_card())
        for _ in range(lost):
            if self.draw:
                self.discard.append(self._draw_card())

    def _draw_card(self) -> engine.Card:
        """The top card of a shuffled pile: a uniformly random one of those left."""
        pile = self.draw
        i = self.rng.randrange(len(pile))
        pile[i], pile[-1] = pile[-1], pile[i]
        return pile.pop()

    def clear_ports(self, c: Company) -> None:
        self.discard.extend(c.ports)
        c.ports = []
        c.seen = 0

    def _reshuffle(self) -> None:
        """Discards go back into the deck; dealing draws at random, so it is shuffled."""
        self.draw.extend(self.discard)
        self.discard = []

    def put_in_vault(self, c: Company, p: SimProject, side: str | None = None) -> None:
        side = side or c.policy.vault_side(self, c, p)
        c.vault.append((p, side))
        self.sync(c)
        where = "top secret" if side == engine.TOP_SECRET else "public domain"
        self.say(f"  {self.name(c)} claims {p.name} ({where})")

    def scoop(self, c: Company, banked: int) -> None:
        """``c`` was scooped: bank ``banked`` more, keep at most the cap (or a held card's)."""
        cap = self.data.rules.scoop_cap
        card = next((h for h in c.held if h.get("when") == "scooped"), None)
        if card is not None and c.bank + banked > cap:
            cap = max(cap, card.get("amount", cap))
            c.held.remove(card)
            self.say(f"  {self.name(c)} plays {card.name}")
        before = c.bank
        c.bank = min(c.bank + banked, cap)
        self.say(f"  {self.name(c)} is scooped on {c.project.name}: bank {before} + {banked}"
                 f" -> {c.bank}")
        c.project = None
        c.needs_project = True

    def claim_now(self, c: Company) -> None:
        """``c`` claims its current project; everyone else on it is scooped."""
        p = c.project
        c.bank = engine.claim()
        c.project = None
        c.needs_project = True
        c.last_field = p.field
        self.center.remove(p)
        self.put_in_vault(c, p)
        if not c.revealed:
            self.claimed.append(p.id)
            self.to_draw.append(c)
        for o in self.companies:
            if o is not c and o.project is p:
                o.last_field = p.field
                self.scoop(o, engine.safe_score(len(o.ports), self.data.rules))
                self.clear_ports(o)
