"""What E.T.I.'s templates see of the rules engine, and the booklet's ``<cards>`` element.

The rules reference booklet is a ``documents:`` entry (``templates/booklet/
*.j2``) and the player aids a deck (``templates/layouts/aid-*.yaml``); both
are generic job types.  Every number a worked example prints is computed
here by the rules engine (``RulesView``, a template global of every E.T.I.
template), so the booklet follows the cards when a designer edits them.
The game adds one element to the document language::

    <cards queue="arson 50 20 x0 30 spy" mode="score|attack|plain"
           immune="spy" tactics="spy" base="5" highlight="1 2"/>

a row of small research cards in data-port order, scored by the engine:
destroyed cards crossed out with a red arrow from their threat, gold arrows
from each multiplier to the card it multiplies, ignored threats marked
immune, highlighted ports framed in gold (``mode="attack"``: each card's
attack value under it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reportlab.lib.colors import Color, HexColor
from reportlab.platypus import Flowable

from ...render.document import EMPTY, Builder, Custom, ElementSpec, Node
from . import engine

if TYPE_CHECKING:  # pragma: no cover
    from ...context import Context

NAVY = HexColor("#1E2430")
CREAM = HexColor("#F4EEDF")
GOLD = HexColor("#C9A227")
RUST = HexColor("#A8322A")
GREY = HexColor("#5A5F67")
CARD_BLUE = HexColor("#1F3A5F")

# ---------------------------------------------------------------------------
# What the templates see: the engine's results, never re-derived


def _mix(colour: Color, white: float) -> Color:
    """``colour`` mixed with ``white`` parts of white (0 to 1)."""
    return Color(colour.red + (1 - colour.red) * white, colour.green + (1 - colour.green) * white,
                 colour.blue + (1 - colour.blue) * white)


def _times(text: str) -> str:
    return text.replace(" x ", " × ")


def _label(card: engine.Card, names: dict[str, str] | None = None) -> str:
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
        return [_label(c, self.names) for c in self.cards]

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
        return [{"threat": _label(self.cards[d.threat], self.names),
                 "threat_port": d.threat + 1,
                 "card": _label(self.cards[d.card], self.names), "card_port": d.card + 1}
                for d in self.score.destroyed]

    @property
    def harmless(self) -> list[dict[str, Any]]:
        return [{"threat": _label(self.cards[i], self.names), "port": i + 1}
                for i in self.score.harmless]

    @property
    def attachments(self) -> list[dict[str, Any]]:
        return [{"multiplier": _label(self.cards[a.multiplier], self.names),
                 "port": a.multiplier + 1,
                 "card": None if a.target is None else _label(self.cards[a.target], self.names),
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


# ---------------------------------------------------------------------------
# <cards>: a row of small research cards


CARDS_SPEC = ElementSpec(EMPTY, ("queue", "mode", "immune", "tactics", "highlight", "base"),
                         required=("queue",))
MODES = ("score", "attack", "plain")


class CardRow(Flowable):
    """Research cards in data-port order, annotated with what happened to them."""

    CARD_W = 34.0
    CARD_H = 45.0
    GAP = 8.0
    LABEL = 6.0          # the cards' names, ports and IMMUNE: the pack's minimum text size

    def __init__(self, cards: Sequence[engine.Card], mode: str, art: Any, fonts: Any,
                 score: engine.Score | None = None, attack: engine.Attack | None = None,
                 immune: Sequence[str] = (), highlight: Sequence[int] = (),
                 names: dict[str, str] | None = None):
        super().__init__()
        self.names = names or {}
        self.cards = list(cards)
        self.mode = mode
        self.art = art
        self.fonts = fonts
        self.score = score
        self.attack = attack
        self.immune = set(immune)
        self.highlight = set(highlight)
        self.spaceBefore = 4.0
        self.spaceAfter = 6.0
        self.keepWithNext = True      # a diagram stays with the text that explains it
        self.above = 0.0
        self.below = 0.0

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        n = len(self.cards)
        self.gap = self.GAP
        self.cw = self.CARD_W
        need = n * self.cw + (n - 1) * self.gap
        if need > aw:
            scale = aw / need
            self.cw *= scale
            self.gap *= scale
        self.ch = self.cw * self.CARD_H / self.CARD_W
        self.above = 0.0
        self.below = 12.0      # port numbers
        if self.mode == "score" and self.score is not None:
            spans = [abs(a.multiplier - a.target) for a in self.score.attachments
                     if a.target is not None]
            if spans:
                self.above = min(28.0, 13.0 + 4.0 * max(spans))
            if self.score.destroyed:
                self.below = 24.0
        if self.mode == "attack":
            self.below = 20.0
        self.width = aw
        self.height = self.above + self.ch + self.below
        return aw, self.height

    def _x(self, i: int) -> float:
        n = len(self.cards)
        row = n * self.cw + (n - 1) * self.gap
        return (self.width - row) / 2 + i * (self.cw + self.gap)

    def draw(self) -> None:
        c = self.canv
        y0 = self.below
        score = self.score if self.mode == "score" else None
        destroyed = {d.card for d in score.destroyed} if score else set()
        ignored = set(score.ignored) if score else set()
        for i, card in enumerate(self.cards):
            self._card(c, self._x(i), y0, card, i, faded=i in destroyed or i in ignored)
            if i in destroyed:
                self._strike(c, self._x(i), y0)
            if i in ignored:
                self._immune(c, self._x(i), y0)
        title = self.fonts["title"].regular
        label = self.fonts["label"].regular
        if score is not None:
            for d in score.destroyed:
                self._arc(c, d.threat, d.card, up=False, text="", colour=RUST)
            for a in score.attachments:
                if a.target is not None:
                    self._arc(c, a.multiplier, a.target, up=True,
                              text=f"×{self.cards[a.multiplier].value}", colour=GOLD)
        c.saveState()
        for i in range(len(self.cards)):
            x = self._x(i) + self.cw / 2
            if self.mode == "attack" and self.attack is not None:
                c.setFillColor(RUST)
                c.setFont(title, 11)
                c.drawCentredString(x, 7, str(self.attack.lines[i].value))
            elif not (score is not None and score.destroyed):
                c.setFillColor(GREY)
                c.setFont(label, self.LABEL)
                c.drawCentredString(x - 2.5, 2, "PORT")
                c.setFont(title, 7.5)
                c.drawString(x - 2.5 + c.stringWidth("PORT", label, self.LABEL) / 2 + 2.5, 2,
                             str(i + 1))
        c.restoreState()

    def _card(self, c: Any, x: float, y: float, card: engine.Card, i: int,
              faded: bool = False) -> None:
        """One small research card; ``faded`` ones (destroyed, ignored) are washed out.

        Washing out mixes the colours with white instead of using transparency:
        transparency inside nested PDF forms loses its graphics states.
        """
        w, h = self.cw, self.ch

        def ink(colour: Color) -> Color:
            return _mix(colour, 0.62) if faded else colour
        c.saveState()
        if i + 1 in self.highlight:
            c.setFillColor(GOLD)
            c.roundRect(x - 2.4, y - 2.4, w + 4.8, h + 4.8, 4.8, stroke=0, fill=1)
        c.setFillColor(ink(CARD_BLUE))
        c.roundRect(x, y, w, h, 3, stroke=0, fill=1)
        c.setFillColor(ink(CREAM))
        c.roundRect(x + 1.6, y + 1.6, w - 3.2, h - 3.2, 2, stroke=0, fill=1)
        disc = {"number": CARD_BLUE, "multiplier": GOLD, "threat": RUST}[card.kind]
        r = w * 0.37
        cx, cy = x + w / 2, y + h * 0.55
        c.setFillColor(ink(disc))
        c.circle(cx, cy, r, stroke=0, fill=1)
        c.setStrokeColor(CREAM)
        c.setLineWidth(0.6)
        c.circle(cx, cy, r - 1.6, stroke=1, fill=0)
        # washed-out cards keep their value legible: dark on a light disc
        face = disc if faded else CREAM
        if card.kind == "threat":
            s = r * 1.15
            self.art.draw(c, f"threat-{card.threat}", cx - s / 2, cy - s / 2, s, s, face)
        else:
            text = f"×{card.value}" if card.kind == "multiplier" else str(card.value)
            font = self.fonts["title"].regular
            size = r * (0.95 if len(text) <= 2 else 0.8)
            c.setFillColor(face)
            c.setFont(font, size)
            c.drawCentredString(cx, cy - size * 0.36, text)
        # the card's name at the pack's minimum size, in a bold condensed face; left out
        # when a long row has shrunk the cards below it (the disc still says the kind)
        name = _label(card, self.names).upper() if card.kind == "threat" else (
            "MULTIPLIER" if card.kind == "multiplier" else "VALUE")
        font = self.fonts["title"].regular
        width = c.stringWidth(name, font, self.LABEL)
        if width <= w - 5:
            spacing = min(0.3, (w - 6 - width) / len(name)) if w - 6 > width else 0.0
            c.setFillColor(GREY if faded else CARD_BLUE)    # washed out, still read
            c.setFont(font, self.LABEL)
            c.drawString(cx - (width + spacing * (len(name) - 1)) / 2, y + 4.4, name,
                         charSpace=spacing)
        c.restoreState()

    def _immune(self, c: Any, x: float, y: float) -> None:
        c.saveState()
        c.setFillColor(NAVY)
        c.setFont(self.fonts["title"].regular, 6.5)
        c.drawCentredString(x + self.cw / 2, y + self.ch - 7.6, "IMMUNE")
        c.restoreState()

    def _strike(self, c: Any, x: float, y: float) -> None:
        w, h = self.cw, self.ch
        c.saveState()
        c.setStrokeColor(RUST)
        c.setLineWidth(1.3)
        c.setLineCap(1)
        c.line(x + 2.5, y + 2.5, x + w - 2.5, y + h - 2.5)
        c.line(x + 2.5, y + h - 2.5, x + w - 2.5, y + 2.5)
        c.restoreState()

    def _arc(self, c: Any, src: int, dst: int, up: bool, text: str, colour: Color) -> None:
        """A curved arrow from card ``src`` to card ``dst``, over or under the row."""
        x1 = self._x(src) + self.cw / 2
        x2 = self._x(dst) + self.cw / 2
        span = abs(dst - src)
        room = (self.above if up else self.below) - 4
        lift = min(7.0 + 4.0 * span, room)
        sign = 1 if up else -1
        base = self.below + self.ch + 1.5 if up else self.below - 1.5
        x1 += 3 * (1 if x2 > x1 else -1)
        x2 -= 3 * (1 if x2 > x1 else -1)
        peak = base + sign * lift
        c.saveState()
        c.setStrokeColor(colour)
        c.setFillColor(colour)
        c.setLineWidth(1.3)
        p = c.beginPath()
        p.moveTo(x1, base)
        p.curveTo(x1, peak, x2, peak, x2, base + sign * 3.5)
        c.drawPath(p, stroke=1, fill=0)
        tip = (x2, base)
        s = 4.2
        head = c.beginPath()
        head.moveTo(*tip)
        head.lineTo(tip[0] - s * 0.55, tip[1] + sign * s)
        head.lineTo(tip[0] + s * 0.55, tip[1] + sign * s)
        head.close()
        c.drawPath(head, stroke=0, fill=1)
        if text:
            # the label sits on top of the arc
            font = self.fonts["title"].regular
            tw = c.stringWidth(text, font, 7.5)
            tx = (x1 + x2) / 2
            ty = base + sign * lift * 0.75 - 2.6
            c.setFillColor(HexColor("#FFFFFF"))
            c.rect(tx - tw / 2 - 1.5, ty - 1.8, tw + 3, 8.4, stroke=0, fill=1)
            c.setFillColor(NAVY)
            c.setFont(font, 7.5)
            c.drawCentredString(tx, ty, text)
        c.restoreState()


def cards_element(ctx: Context) -> Custom:
    def build(node: Node, b: Builder) -> list[Flowable]:
        mode = b.choice(node, "mode", MODES, "score")
        deck = ctx.model.deck           # the pack's threats and multipliers
        try:
            cards = engine.parse_queue(node.attrs["queue"].split(), deck)
            immune = [deck.normalize_threat(t) for t in node.attrs.get("immune", "").split()]
            tactics = [deck.normalize_threat(t) for t in node.attrs.get("tactics", "").split()]
        except ValueError as exc:
            raise b.error(node, f"<cards>: {exc}") from None
        if not cards:
            raise b.error(node, "<cards queue=..> names no cards")
        highlight = []
        for part in node.attrs.get("highlight", "").split():
            if not part.isdigit() or not 1 <= int(part) <= len(cards):
                raise b.error(node, f"<cards highlight=..> names ports 1 to {len(cards)} "
                              f"(got {part!r})")
            highlight.append(int(part))
        base = int(b.number(node, "base", 0, 0, 10_000))
        score = engine.score(cards, immune, deck)
        attack = engine.attack(cards, immune, tactics, base, ctx.model.rules, deck) \
            if mode == "attack" else None
        names = {t.id: t.name for t in ctx.model.threats}
        return [CardRow(cards, mode, b.icons, ctx.fonts, score, attack, immune, highlight, names)]
    return Custom(CARDS_SPEC, build)
