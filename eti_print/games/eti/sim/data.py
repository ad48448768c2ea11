"""What a simulated game reads: the database's cards, tracks and card effects as plain values.

``SimData.of(db)`` is built once per run and shipped to every worker: tuples
of frozen values only, so it pickles small and no game can change it.  The
card effects come from the ``effect:`` mapping of each event, agenda and
endgame card (``cards/events.yaml``, ``cards/agendas.yaml``,
``cards/endgame.yaml``); nothing in the simulator names a card.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .. import engine

HUMAN_TRAITS = ("staffing", "creativity", "security", "analysis")
ALIEN_OF = {"staffing": "eti", "creativity": "intel", "security": "tactics",
            "analysis": "brutality"}


@dataclass(frozen=True)
class SimProject:
    id: str
    name: str
    field: str
    level_number: int
    difficulty: int
    defense: int
    fame: int
    upgrades: tuple[str, ...]


@dataclass(frozen=True)
class SimCard:
    """An event, agenda or endgame card: its id, kind and declared effect."""

    id: str
    name: str
    kind: str                      # event type (immediate/choice/vote/held), agenda, human, alien
    effect: Mapping[str, Any]
    vote: str | None = None
    ufos: int = 0

    def get(self, key: str, default: Any = None) -> Any:
        return self.effect.get(key, default)


@dataclass(frozen=True)
class SimData:
    research: tuple[engine.Card, ...]
    projects: tuple[SimProject, ...]
    tracks: Mapping[str, tuple[int, ...]]       # trait id -> value at each space
    lengths: Mapping[str, int]                  # length id -> multiplier
    players: tuple[int, int]
    free_upgrades: int
    rules: engine.Rules
    deck: engine.Deck
    events: tuple[SimCard, ...]
    agendas: Mapping[str, SimCard]
    humans: tuple[SimCard, ...]
    aliens: tuple[SimCard, ...]
    per_card: tuple[float, ...]                 # mean standard total per card, by queue length

    @classmethod
    def of(cls, db: Any) -> SimData:
        ds = db.dataset
        events = tuple(SimCard(e["id"], e["title"], e["type"], _frozen(e.get("effect", {})),
                               e.get("vote"))
                       for e in ds.items("events.events"))
        agendas = {a["id"]: SimCard(a["id"], a["name"], "agenda", _frozen(a.get("effect", {})))
                   for a in ds.items("agendas.agendas")}
        endgame = ds.docs["endgame"].data
        humans = tuple(SimCard(e["id"], e["name"], "human", _frozen(e.get("effect", {})))
                       for e in endgame["human"])
        aliens = tuple(SimCard(e["id"], e["name"], "alien", _frozen(e.get("effect", {})),
                               ufos=e["ufos"])
                       for e in endgame["alien"])
        return cls(
            research=tuple(db.research_cards),
            projects=tuple(SimProject(p.id, p.name, p.field, p.level_number, p.difficulty,
                                      p.defense, p.fame, p.upgrades) for p in db.projects),
            tracks=MappingProxyType({t.id: tuple(s.value for s in t.spaces)
                                     for t in db.human_traits + db.alien_traits}),
            lengths=MappingProxyType({g.id: g.multiplier for g in db.lengths}),
            players=db.players, free_upgrades=db.free_upgrades, rules=db.rules, deck=db.deck,
            events=events, agendas=MappingProxyType(agendas), humans=humans,
            aliens=tuple(sorted(aliens, key=lambda a: a.ufos)),
            per_card=_per_card(tuple(db.research_cards), db.data_ports, db.deck))

    def alien(self, alien_id: str) -> SimCard:
        for card in self.aliens:
            if card.id == alien_id:
                return card
        raise ValueError(f"unknown alien {alien_id!r} (aliens are "
                         f"{', '.join(a.id for a in self.aliens)})")

    def value(self, trait: str, upgrades: int) -> int:
        """A track's value after ``upgrades``; upgrades beyond the last space are lost."""
        spaces = self.tracks[trait]
        return spaces[max(0, min(upgrades, len(spaces) - 1))]


def _per_card(cards: tuple[engine.Card, ...], ports: int, deck: engine.Deck,
              samples: int = 300) -> tuple[float, ...]:
    """Mean standard total per card of a random n-card queue (no swaps, no immunity),
    for n = 0 to ``ports``: what a policy expects of cards it has not seen."""
    import random
    rng = random.Random(1965)
    means = [0.0]
    for n in range(1, ports + 1):
        total = sum(engine.score(rng.sample(cards, n), (), deck).total for _ in range(samples))
        means.append(total / samples / n)
    return tuple(means)


def _frozen(effect: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(effect))


#: The data a worker process plays with: set before the pool forks (``runner``).
CURRENT: list[SimData] = []
