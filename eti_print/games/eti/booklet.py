"""What E.T.I.'s templates see of the rules engine.

The rules reference booklet is a ``documents:`` entry (``templates/booklet/
*.j2``) and the player aids a deck (``templates/layouts/aid-*.yaml``); both
are generic job types.  Every number a worked example prints is computed
here by the rules engine (``RulesView``, a template global of every E.T.I.
template), so the booklet follows the cards when a designer edits them.
The game adds one element to the document language, ``<cards>``
(``cards_element.py``, imported only where a document is laid out).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import engine

if TYPE_CHECKING:  # pragma: no cover
    from ...context import Context


# ---------------------------------------------------------------------------
# What the templates see: the engine's results, never re-derived


def _times(text: str) -> str:
    return text.replace(" x ", " × ")


def card_label(card: engine.Card, names: dict[str, str] | None = None) -> str:
    """How a card is named in the booklet: ``50``, ``×2``, ``Data Virus`` (threats.yaml)."""
    if card.kind == "multiplier":
        return f"×{card.value}"
    if card.kind == "threat" and names and card.threat in names:
        return names[card.threat]
    return card.label


@dataclass(frozen=True)
class Example:
    """A research queue and its standard submission, scored by the engine."""

    cards: tuple[engine.Card, ...]
    immune: tuple[str, ...] = ()
    moved: tuple[int, ...] = ()        # ports (1-based) of cards moved by swaps
    swaps: int = 0
    names: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def tokens(self) -> str:
        return " ".join(c.token for c in self.cards)

    @property
    def labels(self) -> list[str]:
        return [card_label(c, self.names) for c in self.cards]

    @property
    def score(self) -> engine.Score:
        return engine.score(self.cards, self.immune)

    @property
    def total(self) -> int:
        return self.score.total

    @property
    def formula(self) -> str:
        """``10 × 2 + 20 × 3 = 80``."""
        return _times(self.score.formula())

    @property
    def destroyed(self) -> list[dict[str, Any]]:
        return [{"threat": card_label(self.cards[d.threat], self.names),
                 "threat_port": d.threat + 1,
                 "card": card_label(self.cards[d.card], self.names), "card_port": d.card + 1}
                for d in self.score.destroyed]

    @property
    def harmless(self) -> list[dict[str, Any]]:
        return [{"threat": card_label(self.cards[i], self.names), "port": i + 1}
                for i in self.score.harmless]

    @property
    def attachments(self) -> list[dict[str, Any]]:
        return [{"multiplier": card_label(self.cards[a.multiplier], self.names),
                 "port": a.multiplier + 1,
                 "card": None if a.target is None else card_label(self.cards[a.target], self.names),
                 "card_port": None if a.target is None else a.target + 1}
                for a in self.score.attachments]

    def move(self, port: int, to: int) -> Example:
        """The queue after moving the card at ``port`` to ``to`` by adjacent swaps."""
        n = len(self.cards)
        if not (1 <= port <= n and 1 <= to <= n):
            raise ValueError(f"ports are 1 to {n} (got {port} and {to})")
        cards = list(self.cards)
        card = cards.pop(port - 1)
        cards.insert(to - 1, card)
        lo, hi = sorted((port, to))
        return Example(tuple(cards), self.immune, tuple(range(lo, hi + 1)),
                       self.swaps + hi - lo, self.names)

    def best(self, swaps: int) -> Example:
        """The best order within ``swaps`` adjacent swaps (engine.best_order)."""
        found = engine.best_order(self.cards, swaps, self.immune)
        moved = tuple(k + 1 for k, p in enumerate(found.positions) if p != k)
        return Example(found.order, self.immune, moved, found.swaps_used, self.names)


class RulesView:
    """The rules engine, as the templates call it (numbers in, numbers out)."""

    def __init__(self, db: Any):
        self.db = db

    @property
    def rules(self) -> engine.Rules:
        return self.db.rules

    @property
    def names(self) -> dict[str, str]:
        return {t.id: t.name for t in self.db.threats}

    # research
    def example(self, tokens: str, immune: Sequence[str] = ()) -> Example:
        return Example(engine.parse_queue(str(tokens).split()),
                       tuple(engine.normalize_threat(t) for t in immune), names=self.names)

    def safe(self, cards: int) -> int:
        return engine.safe_score(cards, self.rules)

    def cards_dealt(self, staffing_cards: int, same_field_projects: int) -> int:
        return engine.cards_dealt(staffing_cards, ["f"] * same_field_projects, "f")

    def placed(self, filled: int, dealt: int) -> tuple[int, int]:
        return engine.place_in_ports(filled, dealt, self.rules)

    # the data bank
    def bank(self, bank: int, total: int) -> int:
        return engine.bank_findings(bank, total)

    def switch(self, bank: int, cards: int) -> int:
        return engine.switch(bank, cards, self.rules)

    def scooped(self, bank: int, cards: int = 0) -> int:
        return engine.scooped(bank, cards, self.rules)

    def carry(self, bank: int, difficulty: int, same_field: bool = False) -> int:
        return engine.carry_over(bank, difficulty, same_field)

    # game length, projects, votes
    def threshold(self, players: int, length: str) -> int:
        return engine.threshold(players, self.db.length(length).multiplier)

    def must_reveal_by(self, players: int, length: str) -> int:
        return engine.must_reveal_by(players, self.db.length(length).multiplier)

    def drawable(self, levels: Iterable[int]) -> list[int]:
        return list(engine.drawable_levels(levels))

    def votes(self, levels: Sequence[int], trait: str | None = None,
              upgrades: Sequence[Sequence[str]] | None = None) -> int:
        ups = list(upgrades or [()] * len(levels))
        return engine.votes([engine.VaultProject(f"p{i}", level_number=lv,
                                                 upgrades=tuple(ups[i]))
                             for i, lv in enumerate(levels)], trait)

    # the invasion
    def entry(self, project: str, side: str, defense: int | None = None,
              fame: int | None = None) -> engine.VaultProject:
        """A project of the database in a vault, optionally with changed values."""
        p = self._project(project)
        return engine.VaultProject(p.name, p.defense if defense is None else defense,
                                   p.fame if fame is None else fame, side, p.level_number,
                                   p.field, p.upgrades)

    def _project(self, project: str) -> Any:
        for p in self.db.projects:
            if project in (p.id, p.name):
                return p
        raise ValueError(f"the booklet names a project {project!r} that is not in "
                         f"cards/projects.yaml")

    def defense(self, project: engine.VaultProject) -> int:
        return engine.endgame_defense(project, self.rules)

    def defense_total(self, vault: Sequence[engine.VaultProject]) -> int:
        return engine.defense_total(vault, self.rules)

    def attack(self, tokens: str, immune: Sequence[str], tactics: Sequence[str],
               base: int = 0) -> engine.Attack:
        return engine.attack(engine.parse_queue(str(tokens).split()), immune, tactics, base,
                             self.rules)

    def attack_value(self, token: str, immune: bool, tactic: bool) -> int:
        card = engine.parse_card(token)
        threat = card.threat or "spy"
        return engine.attack_value(card, [threat] if immune else [],
                                   [threat] if tactic else [], self.rules)

    def mashes(self, projects: int, companies: int) -> int:
        return engine.mash_cards(projects, companies, self.rules)

    def resolve(self, vault: Sequence[engine.VaultProject], attack_total: int) -> engine.Outcome:
        return engine.resolve_company(vault, attack_total, self.rules)

    def winner(self, outcomes: dict[str, engine.Outcome]) -> engine.Verdict:
        return engine.winner(outcomes)


def deck_composition(db: Any) -> list[dict[str, Any]]:
    """Each kind of research card with its count and share of the deck."""
    total = sum(e.count for e in db.research)
    rows = []
    for e in db.research:
        rows.append({"kind": e.kind, "card": e.card, "label": e.card.label, "token": e.card.token,
                     "threat": e.threat, "count": e.count,
                     "percent": f"{100 * e.count / total:.1f}"})
    return rows


def deck_totals(db: Any) -> list[dict[str, Any]]:
    total = sum(e.count for e in db.research)
    out = []
    for kind in engine.KINDS:
        n = sum(e.count for e in db.research if e.kind == kind)
        out.append({"kind": kind, "count": n, "percent": f"{100 * n / total:.1f}"})
    return out


class ModelView:
    """The database as templates see it: without the dataset or the settings files, and so
    without any path.  The sandbox lets templates call public methods, and a ``Path`` has
    ``read_text``; nothing reachable from a template may lead to the file system.

    A view rather than a copy: a copy would read every field at once, and the build cache
    records each field a template reads (``eti_print.cache``).
    """

    HIDDEN = frozenset({"dataset", "board_settings"})

    def __init__(self, db: Any):
        object.__setattr__(self, "_db", db)

    def __getattr__(self, name: str) -> Any:
        if name in ModelView.HIDDEN:
            raise AttributeError(name)
        return getattr(object.__getattribute__(self, "_db"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the database is read-only in templates")


def template_database(db: Any) -> Any:
    return ModelView(db)


def template_globals(ctx: Context) -> dict[str, Any]:
    """What every template of an E.T.I. pack sees besides the base names.

    Each name reads only what it shows, when a template uses it, so a card's
    faces depend on no more of the data than they print (the build cache).
    """
    db = template_database(ctx.model)
    return {
        "db": db,
        "rules": RulesView(db),
        "constants": db.rules,
        "game": {"data_ports": db.data_ports, "lengths": db.lengths,
                 "free_upgrades": db.free_upgrades},
        "fields": {f.id: f for f in db.fields},
        "threats": {t.id: t for t in db.threats},
        "traits": {t.id: t for t in db.human_traits + db.alien_traits},
    }


def booklet_context(ctx: Context) -> dict[str, Any]:
    """The booklet's own names (``context: booklet``): its tables and deck mix."""
    db = template_database(ctx.model)
    return {
        "projects_by_field": [(f, [p for p in db.projects if p.field == f.id])
                              for f in db.fields],
        "composition": deck_composition(db),
        "composition_totals": deck_totals(db),
        "deck_size": sum(e.count for e in db.research),
        "reconstructed": reconstructed_notes(ctx),
    }


def reconstructed_notes(ctx: Context) -> list[tuple[str, str, str]]:
    """Every data file's ``reconstructed:`` notes as (file, field, note), in the order of
    pack.yaml's data files: what this edition designed where the rulebook prints nothing.
    A note may be one string for the whole file, a list of strings, or field -> note;
    the entries of a list file may carry their own (``events[3].reconstructed``), each
    note printed once with how many entries it covers."""
    notes: list[tuple[str, str, str]] = []
    for name, doc in ctx.dataset.docs.items():
        if not isinstance(doc.data, dict):
            continue
        value = doc.data.get("reconstructed")
        if isinstance(value, str):
            notes.append((name, "", value))
        elif isinstance(value, list):
            notes.extend((name, "", str(v)) for v in value)
        elif isinstance(value, dict):
            notes.extend((name, str(k), str(v)) for k, v in value.items())
        for key, entries in doc.data.items():
            if not isinstance(entries, list):
                continue
            per_entry = Counter(str(e["reconstructed"]) for e in entries
                                if isinstance(e, dict) and e.get("reconstructed"))
            for note, n in per_entry.items():
                share = f"all {n}" if n == len(entries) else f"{n} of the {len(entries)}"
                notes.append((name, key, f"{note} ({share} {key})"))
    return notes
