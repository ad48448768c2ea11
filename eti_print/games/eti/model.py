"""The E.T.I. database as typed, frozen values, built from a validated Dataset.

Quantities are expanded here and only here (``Database.research_cards``).
Nothing in this module reads files; ``load_database`` calls the dataset loader.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...dataset import Dataset
from ...pack import Pack
from . import engine

ROMAN = ("I", "II", "III", "IV", "V")


def roman_to_int(level: str) -> int:
    return ROMAN.index(level) + 1


@dataclass(frozen=True)
class Field:
    id: str
    name: str
    colour: str
    icon: str


@dataclass(frozen=True)
class Threat:
    id: str
    name: str
    icon: str


@dataclass(frozen=True)
class TraitSpace:
    value: int
    label: str


@dataclass(frozen=True)
class Trait:
    id: str
    name: str
    icon: str
    counterpart: str
    gives: str
    summary: str
    spaces: tuple[TraitSpace, ...]
    side: str  # "human" or "alien"

    def value(self, upgrades: int) -> int:
        """What the track gives after ``upgrades`` upgrades (capped at its last space)."""
        return self.spaces[min(upgrades, len(self.spaces) - 1)].value


@dataclass(frozen=True)
class Company:
    id: str
    name: str
    colour: str
    logo: str
    motto: str


@dataclass(frozen=True)
class ResearchEntry:
    """One kind of research card and how many copies the deck has."""

    kind: str
    value: int
    threat: str | None
    count: int

    @property
    def card(self) -> engine.Card:
        if self.kind == "threat":
            return engine.Card("threat", 0, self.threat)
        return engine.Card(self.kind, self.value, None)


@dataclass(frozen=True)
class Project:
    id: str
    name: str
    field: str
    level: str
    difficulty: int
    defense: int
    fame: int
    upgrades: tuple[str, ...]
    flavor: str = ""

    @property
    def level_number(self) -> int:
        return roman_to_int(self.level)


@dataclass(frozen=True)
class Event:
    id: str
    title: str
    type: str
    text: str
    vote: str | None = None
    flavor: str = ""


@dataclass(frozen=True)
class Agenda:
    id: str
    name: str
    icon: str
    text: str


@dataclass(frozen=True)
class AgendaCard:
    company: str
    agenda: str


@dataclass(frozen=True)
class Endgame:
    id: str
    name: str
    text: str
    side: str            # "human" or "alien"
    ufos: int = 0


@dataclass(frozen=True)
class GameLength:
    id: str
    name: str
    multiplier: int


@dataclass(frozen=True)
class Component:
    id: str
    name: str
    count: int
    kind: str
    stock: str
    deck: str | None = None
    note: str = ""


@dataclass(frozen=True)
class Database:
    title: str
    players: tuple[int, int]
    start_year: int
    free_upgrades: int
    data_ports: int
    tech_levels: tuple[str, ...]
    lengths: tuple[GameLength, ...]
    rules: engine.Rules
    fields: tuple[Field, ...]
    threats: tuple[Threat, ...]
    deck: engine.Deck               # the threats and multipliers the engine reads cards by
    human_traits: tuple[Trait, ...]
    alien_traits: tuple[Trait, ...]
    companies: tuple[Company, ...]
    research: tuple[ResearchEntry, ...]
    projects: tuple[Project, ...]
    events: tuple[Event, ...]
    agendas: tuple[Agenda, ...]
    agenda_cards: tuple[AgendaCard, ...]
    endgame: tuple[Endgame, ...]
    components: tuple[Component, ...]
    dataset: Dataset = field(compare=False, repr=False)
    #: templates/boards/boards.yaml (``boards.BoardSettings``), read with the data
    board_settings: Any = field(default=None, compare=False, repr=False)

    #: Values worked out from the fields that a build cache tracks as themselves
    #: (``tracking._database_class``): a reader depends on the value, not on every
    #: field it comes from.
    DERIVED = ("max_difficulty",)

    @property
    def max_difficulty(self) -> int:
        """The largest project difficulty (100 with no projects): how far a data bank's
        lamps reach (``boards.bank_reach``)."""
        return max((p.difficulty for p in self.projects), default=100)

    @property
    def research_cards(self) -> list[engine.Card]:
        """The research deck with every copy, in file order."""
        return [entry.card for entry in self.research for _ in range(entry.count)]

    def field_by_id(self, field_id: str) -> Field:
        return next(f for f in self.fields if f.id == field_id)

    def trait(self, trait_id: str) -> Trait:
        return next(t for t in self.human_traits + self.alien_traits if t.id == trait_id)

    def project(self, name_or_id: str) -> Project:
        return next(p for p in self.projects if name_or_id in (p.id, p.name))

    def length(self, length_id: str) -> GameLength:
        return next(g for g in self.lengths if g.id == length_id)

    @property
    def human_endgame(self) -> tuple[Endgame, ...]:
        return tuple(e for e in self.endgame if e.side == "human")

    @property
    def alien_endgame(self) -> tuple[Endgame, ...]:
        return tuple(e for e in self.endgame if e.side == "alien")


def _trait(item: dict[str, Any], side: str) -> Trait:
    return Trait(item["id"], item["name"], item["icon"], item["counterpart"], item["gives"],
                 item["summary"], tuple(TraitSpace(s["value"], s["label"]) for s in item["spaces"]),
                 side)


def build_deck(ds: Dataset) -> engine.Deck:
    """What the engine reads research cards by: the threats of ``threats.yaml`` (ids
    and printed names, in file order) and the multipliers ``research.yaml`` holds.

    Never fails: a threat that is malformed or clashes with an earlier one, or
    a multiplier no token can name (x10), is left out here; the schemas and
    checks report it.
    """
    pairs: list[tuple[str, str]] = []
    for t in ds.items("threats.threats"):
        candidate = pairs + [(t.get("id"), t.get("name"))] if isinstance(t, dict) else pairs
        try:
            engine.Deck.of(candidate, ())
        except (AttributeError, TypeError, ValueError):
            continue
        pairs = candidate
    factors = [r.get("value", 0) for r in ds.items("research.research")
               if isinstance(r, dict) and r.get("kind") == "multiplier"]
    return engine.Deck.of(pairs, [f for f in engine.MULTIPLIER_FACTORS if f in factors])


def build_database(ds: Dataset) -> Database:
    """Typed values from a dataset that has passed its schemas and checks."""
    game = ds.docs["game"].data["game"]
    traits = ds.docs["traits"].data
    endgame = ds.docs["endgame"].data
    deck = build_deck(ds)
    return Database(
        title=game["title"],
        players=(game["players"]["min"], game["players"]["max"]),
        start_year=game["start_year"],
        free_upgrades=game["free_upgrades"],
        data_ports=game["data_ports"],
        tech_levels=tuple(game["tech_levels"]),
        lengths=tuple(GameLength(g["id"], g["name"], g["multiplier"]) for g in game["lengths"]),
        rules=engine.Rules.from_mapping(ds.docs["game"].data["rules"], game["data_ports"]),
        fields=tuple(Field(f["id"], f["name"], f["colour"], f["icon"])
                     for f in ds.items("fields.fields")),
        threats=tuple(Threat(t["id"], t["name"], t["icon"]) for t in ds.items("threats.threats")),
        deck=deck,
        human_traits=tuple(_trait(t, "human") for t in traits["human"]),
        alien_traits=tuple(_trait(t, "alien") for t in traits["alien"]),
        companies=tuple(Company(c["id"], c["name"], c["colour"], c["logo"], c["motto"])
                        for c in ds.items("companies.companies")),
        research=tuple(ResearchEntry(r["kind"], r.get("value", 0), r.get("threat"), r["count"])
                       for r in ds.items("research.research")),
        projects=tuple(Project(p["id"], p["name"], p["field"], p["level"], p["difficulty"],
                               p["defense"], p["fame"], tuple(p["upgrades"]), p.get("flavor", ""))
                       for p in ds.items("projects.projects")),
        events=tuple(Event(e["id"], e["title"], e["type"], e["text"], e.get("vote"),
                           e.get("flavor", ""))
                     for e in ds.items("events.events")),
        agendas=tuple(Agenda(a["id"], a["name"], a["icon"], a["text"])
                      for a in ds.items("agendas.agendas")),
        agenda_cards=tuple(AgendaCard(c["company"], c["agenda"])
                           for c in ds.items("agendas.cards")),
        endgame=tuple([Endgame(e["id"], e["name"], e["text"], "human") for e in endgame["human"]]
                      + [Endgame(e["id"], e["name"], e["text"], "alien", e["ufos"])
                         for e in endgame["alien"]]),
        components=tuple(Component(c["id"], c["name"], c["count"], c["kind"], c["stock"],
                                   c.get("deck"), c.get("note", ""))
                         for c in ds.items("components.components")),
        dataset=ds,
    )


def load_database(pack: Pack | None = None) -> Database:
    """Load, validate and check the E.T.I. database (the shipped one by default)."""
    from ...options import PrintOptions
    from ...pipeline import load_checked
    return load_checked(str(pack.root) if pack else None, PrintOptions()).model
