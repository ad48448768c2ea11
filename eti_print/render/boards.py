"""Gameboards: six company boards and the alien board, drawn from the database.

Board layouts are data (``templates/boards/board-*.yaml``, the same layout
engine as the cards); sizes, data ports, tiling and token size are settings
(``templates/boards/boards.yaml``, schema ``eti_print/schemas/boards.yaml``).
Every value printed on a board comes from the database: trait tracks and
their space labels, threats, rule constants, the data bank's range.

A board larger than the paper is cut into equal sheets (``imposition.tile``)
that share a glue strip.  Each board is drawn once into a PDF form and
placed, clipped, on each of its sheets.  Assembly: cut every sheet along its
crop marks; a sheet's left and top strips (when it has a neighbour there) are
glue strips, hatched and labelled, that slide under the neighbouring sheet
until that sheet's edge meets the dashed line.

Decisions:

* Data ports: port 1 is the top-left port and the numbers run clockwise
  (rulebook: "Start at '1' and fill clockwise"): six ports along the top
  from left to right, one down the right side, six back along the bottom
  from right to left, one up the left side.  The top-left corner holds the
  company logo ("the space provided at the top left of the gameboard").
* Data bank: the green tokens "light up" the banked total.  Two rows of
  lamps: hundreds (100 up to the highest project difficulty, rounded up) and
  tens (10-90).  One token in each row shows any total in steps of 10 up to
  the hardest project; a bank that reaches a project's difficulty claims it,
  so no realistic total needs more.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from typing import Any, Sequence, TYPE_CHECKING

from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import Canvas

from ..colour import contrast_ratio, mix, readable
from ..errors import InputError, Problem
from ..imposition import (EPS, MIN_MARK_STROKE, Line, Rect, Tile, Tiling, draw_crop_marks,
                          page_map_label, tile)
from ..layout import Layout, LayoutLibrary
from ..schema import load_checked
from ..text import TextStyle, fit_markup, draw as draw_text
from ..units import mm, paper_size, to_mm, to_points
from ..yamlload import Document
from .faces import Face, FaceResolver, draw_face
from .cards import DocsView
from ..pdfwriter import DocInfo, new_canvas

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context, Output, Progress

BOARD_FOLDER = "templates/boards"
NAVY = "#1E2430"
CREAM = "#F4EEDF"
#: Number tab of a data port: width and height (points).
TAB = (mm(16), mm(7))
#: Where the next port lies, as the arrow printed on a port's tab.
ARROWS = {(1, 0): "→", (-1, 0): "←", (0, 1): "↓", (0, -1): "↑"}


# ---------------------------------------------------------------------------
# Settings


@dataclass(frozen=True)
class Port:
    """A data port: ``number`` from 1, its rectangle in points from the board's
    top-left corner (y down, as layouts measure), and the side of its tab."""

    number: int
    x: float
    y: float
    w: float
    h: float
    tab: str

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)

    def overlaps(self, other: "Port") -> bool:
        return (min(self.x + self.w, other.x + other.w) - max(self.x, other.x) > EPS
                and min(self.y + self.h, other.y + other.h) - max(self.y, other.y) > EPS)

    def tab_rect(self) -> tuple[float, float, float, float]:
        """The number tab (x, y, w, h), attached outside the port on its ``tab`` side."""
        tw, th = TAB
        cx, cy = self.center
        if self.tab == "below":
            return (cx - tw / 2, self.y + self.h, tw, th)
        if self.tab == "above":
            return (cx - tw / 2, self.y - th, tw, th)
        if self.tab == "left":
            return (self.x - tw, cy - th / 2, tw, th)
        return (self.x + self.w, cy - th / 2, tw, th)


@dataclass(frozen=True)
class BoardSpec:
    kind: str                    # "company" or "alien"
    title: str
    layout: str
    width: float
    height: float
    bleed: float
    ports: tuple[Port, ...] = ()
    line: int | None = None      # where the board is defined in boards.yaml


@dataclass(frozen=True)
class BoardSettings:
    source: str
    margin: float
    overlap: float
    mark_length: float
    mark_offset: float
    mark_stroke: float
    token_diameter: float
    token_cell: float
    token_slot: float
    boards: dict[str, BoardSpec]
    turn: tuple[dict[str, str], ...]
    invasion: tuple[dict[str, str], ...]
    badge_diameter: float
    standee: tuple[float, float, float]   # width, panel height, foot height
    doc: Document = field(repr=False, compare=False, default=None)  # type: ignore[assignment]


_SETTINGS_CACHE: dict[tuple[str, bytes], BoardSettings] = {}


def load_board_settings(pack: Any) -> BoardSettings:
    """``templates/boards/boards.yaml``, validated, lengths in points.

    Parsed once per distinct file content (boards and tokens both read it).
    """
    path = pack.resolve("boards.yaml", BOARD_FOLDER, field="board settings")
    key = (str(path), path.read_bytes())
    cached = _SETTINGS_CACHE.get(key)
    if cached is None:
        cached = _load_board_settings(pack, path)
        if len(_SETTINGS_CACHE) > 16:
            _SETTINGS_CACHE.clear()
        _SETTINGS_CACHE[key] = cached
    return cached


def _load_board_settings(pack: Any, path: Any) -> BoardSettings:
    shown = pack.display(path)
    doc = load_checked(path, shown, "boards")
    data = doc.data

    def pt(*keys: Any) -> float:
        value: Any = data
        for key in keys:
            value = value[key]
        line, _ = doc.where(tuple(keys))
        return to_points(value, where=shown, line=line, field=".".join(map(str, keys)))

    boards: dict[str, BoardSpec] = {}
    for kind, raw in data["boards"].items():
        ports: list[Port] = []
        if raw.get("ports"):
            if "port" not in raw:
                raise InputError(doc.problem(("boards", kind), "a board with ports needs 'port' "
                                             "(the size of a port)"))
            pw, ph = pt("boards", kind, "port", "width"), pt("boards", kind, "port", "height")
            for n, entry in enumerate(raw["ports"]):
                ports.append(Port(n + 1, pt("boards", kind, "ports", n, "x"),
                                  pt("boards", kind, "ports", n, "y"), pw, ph, entry["tab"]))
        line, _ = doc.where(("boards", kind))
        spec = BoardSpec(kind, raw["title"], raw["layout"], pt("boards", kind, "width"),
                         pt("boards", kind, "height"), pt("boards", kind, "bleed"),
                         tuple(ports), line)
        if spec.width <= 0 or spec.height <= 0:
            raise InputError(doc.problem(("boards", kind), "width and height must be above 0"))
        boards[kind] = spec
    marks = data["tiling"].get("crop_marks") or {}
    stroke = pt("tiling", "crop_marks", "stroke") if "stroke" in marks else 0.3
    if stroke < MIN_MARK_STROKE:
        raise InputError(doc.problem(("tiling", "crop_marks", "stroke"),
                                     "crop marks thinner than 0.25pt vanish on a laser print"))
    settings = BoardSettings(
        source=shown,
        margin=pt("tiling", "margin"),
        overlap=pt("tiling", "overlap"),
        mark_length=pt("tiling", "crop_marks", "length") if "length" in marks else mm(3),
        mark_offset=pt("tiling", "crop_marks", "offset") if "offset" in marks else mm(0.5),
        mark_stroke=stroke,
        token_diameter=pt("token", "diameter"),
        token_cell=pt("token", "cell"),
        token_slot=pt("token", "slot"),
        boards=boards,
        turn=tuple(dict(s) for s in data["turn"]),
        invasion=tuple(dict(s) for s in data["invasion"]),
        badge_diameter=pt("pieces", "badge", "diameter"),
        standee=(pt("pieces", "standee", "width"), pt("pieces", "standee", "panel"),
                 pt("pieces", "standee", "foot")),
        doc=doc,
    )
    if settings.token_diameter > settings.token_cell:
        raise InputError(doc.problem(("token", "diameter"), "a token must fit its cell"))
    return settings


def port_problems(spec: BoardSpec, data_ports: int, card: tuple[float, float],
                  where: str) -> list[Problem]:
    """What is wrong with a board's data ports: count, size, place, overlap."""
    problems = []
    field_name = f"boards.{spec.kind}.ports"
    if len(spec.ports) != data_ports:
        problems.append(Problem(f"the board has {len(spec.ports)} data ports, the game "
                                f"{data_ports} (cards/game.yaml data_ports)", where, spec.line,
                                field=field_name))
    for port in spec.ports:
        if port.w + EPS < card[0] or port.h + EPS < card[1]:
            problems.append(Problem(
                f"port {port.number} is {to_mm(port.w):.1f} x {to_mm(port.h):.1f} mm; a card "
                f"({to_mm(card[0]):.1f} x {to_mm(card[1]):.1f} mm) does not fit", where,
                spec.line, field=field_name))
        if port.x < -EPS or port.y < -EPS or port.x + port.w > spec.width + EPS \
                or port.y + port.h > spec.height + EPS:
            problems.append(Problem(f"port {port.number} lies outside the board", where,
                                    spec.line, field=field_name))
    for i, a in enumerate(spec.ports):
        for b in spec.ports[i + 1:]:
            if a.overlaps(b):
                problems.append(Problem(f"ports {a.number} and {b.number} overlap", where,
                                        spec.line, field=field_name))
    return problems


def clockwise(ports: Sequence[Port], width: float, height: float) -> bool:
    """Do the ports run clockwise around the board's centre, in number order?

    Angles are measured on the page (y down), so clockwise is increasing
    angle; the sequence may wrap once.
    """
    cx, cy = width / 2, height / 2
    angles = [math.atan2(p.center[1] - cy, p.center[0] - cx) for p in ports]
    total = 0.0
    for a, b in zip(angles, angles[1:]):
        step = (b - a) % (2 * math.pi)
        if step <= EPS or step >= math.pi:
            return False
        total += step
    return total < 2 * math.pi


# ---------------------------------------------------------------------------
# The data bank


def bank_track(max_total: int, step: int = 10) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The data bank's lamps: (tens, hundreds).

    Tens are 10..90; hundreds run from 100 to ``max_total`` rounded up to a
    hundred, so one token in each row shows any total in steps of ``step``
    up to ``max_total``.
    """
    tens = tuple(range(step, 100, step))
    top = max(100, int(math.ceil(max_total / 100.0)) * 100)
    return tens, tuple(range(100, top + 1, 100))


def bank_tokens(total: int, hundreds: Sequence[int]) -> tuple[int, ...]:
    """The lamps lit for ``total``: at most one hundreds and one tens lamp."""
    if total < 0 or total % 10:
        raise ValueError(f"a bank holds a whole number of tens (got {total})")
    h, tens = divmod(total, 100)
    if h * 100 > (max(hundreds) if hundreds else 0):
        raise ValueError(f"{total} is more than the data bank shows")
    return tuple(v for v in (h * 100, tens) if v)


# ---------------------------------------------------------------------------
# Colours


def palette(colour: str) -> dict[str, str]:
    """A company colour and what goes with it: ``ink`` (text on the colour),
    ``text`` (the colour, dark enough to read on cream), ``soft`` (a pale tint
    for panels on cream) and ``deep`` (a darker shade)."""
    text = colour
    while contrast_ratio(text, CREAM) < 4.5:   # WCAG AA for small text on cream
        text = mix(text, "#000000", 0.2)
    return {
        "colour": colour,
        "ink": readable(colour, NAVY, "#FFFFFF"),
        "text": text,
        "soft": mix(colour, CREAM, 0.84),
        "deep": mix(colour, "#000000", 0.25),
    }


# ---------------------------------------------------------------------------
# Board contexts: what a board layout's templates see


def _r(points: float) -> float:
    """Points to millimetres, rounded for templates (``{{ x }}mm``)."""
    return round(to_mm(points), 3)


def _port_entries(ports: Sequence[Port]) -> list[dict[str, Any]]:
    entries = []
    for k, port in enumerate(ports):
        arrow = ""
        if k + 1 < len(ports):
            nx, ny = ports[k + 1].center
            dx, dy = nx - port.center[0], ny - port.center[1]
            direction = (int(math.copysign(1, dx)), 0) if abs(dx) > abs(dy) else \
                (0, int(math.copysign(1, dy)))
            arrow = ARROWS[direction]
        tx, ty, tw, th = port.tab_rect()
        entries.append({"n": port.number, "x": _r(port.x), "y": _r(port.y), "w": _r(port.w),
                        "h": _r(port.h), "tab": port.tab, "tab_x": _r(tx), "tab_y": _r(ty),
                        "tab_w": _r(tw), "tab_h": _r(th), "arrow": arrow,
                        # the number sits left of the arrow, or centred without one
                        "num_w": _r(tw * 0.62) if arrow else _r(tw)})
    return entries


def _traits(traits: Sequence[Any], others: Sequence[Any]) -> tuple[list[dict], list[dict]]:
    names = {t.id: t.name for t in others}
    rows, spaces = [], []
    for t, trait in enumerate(traits):
        rows.append({"id": trait.id, "name": trait.name, "icon": trait.icon,
                     "gives": trait.gives, "summary": trait.summary,
                     "counterpart": names.get(trait.counterpart, trait.counterpart),
                     "spaces": [{"value": s.value, "label": s.label} for s in trait.spaces]})
        for j, space in enumerate(trait.spaces):
            spaces.append({"t": t, "j": j, "label": space.label, "value": space.value,
                           "start": j == 0})
    return rows, spaces


def _steps(ctx: "Context", steps: Sequence[dict[str, str]], rules: dict[str, Any],
           settings: BoardSettings, key: str) -> list[dict[str, str]]:
    out = []
    for n, step in enumerate(steps):
        note = step.get("note", "")
        if "{{" in note or "{%" in note:
            line, _ = settings.doc.where((key, n, "note"))
            note = str(ctx.env.render_string(note, {"rules": rules}, where=settings.source,
                                             line=line, field=f"{key}[{n}].note"))
        out.append({"n": n + 1, "step": step["step"], "note": note})
    return out


def board_context(ctx: "Context", settings: BoardSettings, spec: BoardSpec,
                  company: Any = None) -> dict[str, Any]:
    """Everything a board layout's templates can use."""
    ds, db = ctx.dataset, ctx.model

    def lookup(list_ref: str, item_id: Any) -> Any:
        found = ds.by_id(list_ref).get(item_id)
        if found is None:
            raise ValueError(f"no {item_id!r} in {list_ref}")
        return found

    rules = dict(ds.docs["game"].data["rules"])
    human, human_spaces = _traits(db.human_traits, db.alien_traits)
    alien, alien_spaces = _traits(db.alien_traits, db.human_traits)
    max_difficulty = max((p.difficulty for p in db.projects), default=100)
    tens, hundreds = bank_track(max_difficulty)
    context: dict[str, Any] = {
        "data": DocsView(ds.docs),
        "lookup": lookup,
        "pack": {"name": ds.config["name"], "slug": ds.slug},
        "board": {"kind": spec.kind, "title": spec.title, "width": _r(spec.width),
                  "height": _r(spec.height)},
        "ports": _port_entries(spec.ports),
        "token": {"diameter": _r(settings.token_diameter), "slot": _r(settings.token_slot)},
        "rules": rules,
        "free_upgrades": db.free_upgrades,
        "data_ports": db.data_ports,
        "threats": [{"id": t.id, "name": t.name, "icon": t.icon} for t in db.threats],
        "traits": human if spec.kind == "company" else alien,
        "spaces": human_spaces if spec.kind == "company" else alien_spaces,
        "human_traits": human,
        "alien_traits": alien,
        "bank": {"tens": list(tens), "hundreds": list(hundreds), "max": max_difficulty,
                 "scoop_cap": db.rules.scoop_cap},
        "lengths": [{"name": g.name, "multiplier": g.multiplier} for g in db.lengths],
        "turn": _steps(ctx, settings.turn, rules, settings, "turn"),
        "invasion": _steps(ctx, settings.invasion, rules, settings, "invasion"),
    }
    if company is not None:
        context["company"] = {"id": company.id, "name": company.name, "logo": company.logo,
                              "motto": company.motto, **palette(company.colour)}
    return context


# ---------------------------------------------------------------------------
# Resolving


@dataclass(frozen=True)
class Layer:
    """A run of consecutive layout boxes drawn together.

    ``shared`` names a run whose boxes never mention ``company``: it is the
    same on every company board, resolved once and drawn once as a PDF form.
    """

    shared: str | None
    face: Face


@dataclass(frozen=True)
class Board:
    """One board to print: its spec, a title for bookmarks and its resolved layers."""

    id: str
    title: str
    spec: BoardSpec
    layers: tuple[Layer, ...]

    @property
    def face(self) -> Face:
        """The whole board as one face (every layer's operations in order)."""
        first = self.layers[0].face
        return Face(first.width, first.height, first.bleed,
                    tuple(op for layer in self.layers for op in layer.face.ops))


def board_layouts(ctx: "Context") -> LayoutLibrary:
    return LayoutLibrary(ctx.pack, folder=BOARD_FOLDER)


def _mentions(box: Any, name: str) -> bool:
    """Does any template of ``box`` use the variable ``name``?"""
    return any(isinstance(v, str) and ("{{" in v or "{%" in v) and name in v
               for v in box.props.values())


def resolve_layers(ctx: "Context", spec: BoardSpec, layout: Layout, context: dict[str, Any],
                   what: str, cache: dict[str, Face] | None = None,
                   varying: str = "company") -> tuple[Layer, ...]:
    """Resolve ``layout`` box by box into layers.

    Boxes whose templates never mention ``varying`` come out the same for
    every board; with a ``cache`` they are resolved once and grouped into
    shared layers.
    """
    resolver = FaceResolver(ctx.env, ctx.fonts, ctx.art, spec.width,
                            spec.height, spec.bleed,
                            ink_saver=ctx.options.ink_saver)
    runs: list[tuple[str | None, list[Any]]] = []
    problems: list[Problem] = []
    for box in layout.boxes:
        shared = cache is not None and not _mentions(box, varying)
        key = f"{layout.name}:{box.name}" if shared else None
        try:
            if key is not None and key in cache:  # type: ignore[operator]
                ops = cache[key].ops  # type: ignore[index]
            else:
                face = resolver.resolve(Layout(layout.name, (box,), layout.source), context, what)
                if key is not None:
                    cache[key] = face  # type: ignore[index]
                ops = face.ops
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        if runs and (runs[-1][0] is not None) == shared:
            runs[-1][1].extend(ops)
        else:
            runs.append((f"{layout.name}:{box.name}" if shared else None, list(ops)))
    if problems:
        raise InputError(problems)
    return tuple(Layer(key, Face(spec.width, spec.height, spec.bleed, tuple(ops)))
                 for key, ops in runs)


def resolve_boards(ctx: "Context", settings: BoardSettings) -> list[Board]:
    """Every board of the game, resolved (all templates and text fitted)."""
    db = ctx.model
    layouts = board_layouts(ctx)
    card = ctx.sheets.get("card").width, ctx.sheets.get("card").height
    problems: list[Problem] = []
    for kind in ("company", "alien"):
        if kind not in settings.boards:
            problems.append(Problem(f"no '{kind}' board", settings.source, field="boards"))
    if problems:
        raise InputError(problems)
    company_spec = settings.boards["company"]
    problems.extend(port_problems(company_spec, db.data_ports, card, settings.source))
    if problems:
        raise InputError(problems)
    boards: list[Board] = []
    jobs: list[tuple[str, str, BoardSpec, Any]] = [
        (f"company-{c.id}", f"{c.name} - company gameboard", company_spec, c)
        for c in db.companies]
    jobs.append(("alien", settings.boards["alien"].title, settings.boards["alien"], None))
    shared: dict[str, Face] = {}
    for board_id, title, spec, company in jobs:
        try:
            layout = layouts.get(spec.layout, where=settings.source, line=spec.line,
                                 field_name=f"boards.{spec.kind}.layout")
            context = board_context(ctx, settings, spec, company)
            layers = resolve_layers(ctx, spec, layout, context, f"board {board_id}",
                                    shared if company is not None else None)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        boards.append(Board(board_id, title, spec, layers))
    if problems:
        raise InputError(problems)
    return boards


# ---------------------------------------------------------------------------
# Tiling and drawing


def board_tiling(settings: BoardSettings, spec: BoardSpec, paper: tuple[float, float]) -> Tiling:
    return tile(spec.width, spec.height, paper[0], paper[1], settings.margin, settings.overlap)


def drawn_rect(tiling: Tiling, t: Tile, bleed: float) -> Rect:
    """The part of the page a tile prints: its area plus bleed on the board's outer edges."""
    p = t.placed
    return p.expanded(bleed if t.left is None else 0.0, bleed if t.below is None else 0.0,
                      bleed if t.right is None else 0.0, bleed if t.above is None else 0.0)


def tile_crop_marks(tiling: Tiling, t: Tile, bleed: float, length: float,
                    offset: float) -> list[Line]:
    """Marks on the extension of the tile's four cut lines, outside what it prints."""
    d = drawn_rect(tiling, t, bleed)
    p = t.placed
    pw, ph = tiling.paper

    def room(available: float) -> float:
        return max(0.0, min(length, available))

    lines = []
    top, bottom = room(ph - d.top - offset), room(d.y - offset)
    left, right = room(d.x - offset), room(pw - d.right - offset)
    for x in (p.x, p.right):
        if top:
            lines.append(Line(x, d.top + offset, x, d.top + offset + top))
        if bottom:
            lines.append(Line(x, d.y - offset, x, d.y - offset - bottom))
    for y in (p.y, p.top):
        if left:
            lines.append(Line(d.x - offset, y, d.x - offset - left, y))
        if right:
            lines.append(Line(d.right + offset, y, d.right + offset + right, y))
    return lines


def glue_strips(tiling: Tiling, t: Tile) -> list[tuple[str, Rect, int]]:
    """The strips of ``t`` that slide under a neighbour: (side, rect, neighbour page)."""
    out = []
    for side in ("left", "above"):
        strip = tiling.strip(t, side)
        neighbour = t.neighbour(side)
        if strip is not None and neighbour is not None:
            out.append((side, strip, neighbour))
    return out


class _Text:
    """Small helper: fitted text in the pack's fonts (never a built-in font)."""

    def __init__(self, ctx: "Context"):
        self.ctx = ctx
        self.cache: dict[tuple, Any] = {}

    def draw(self, canvas: Canvas, markup: str, x: float, y: float, w: float, h: float,
             role: str = "label", size: float = 6.5, color: str = NAVY, align: str = "left",
             valign: str = "middle", backdrop: str | None = None) -> None:
        """Fit and draw; ``backdrop`` paints a rounded box behind a centred single line."""
        key = (markup, w, h, role, size, color, align, valign)
        fitted = self.cache.get(key)
        if fitted is None:
            style = TextStyle(family=self.ctx.fonts[role], size=size, min_size=min(size, 5.0),
                              color=HexColor(color), align=align, valign=valign)
            fitted = fit_markup(markup, w, h, style, self.ctx.art,
                                where="boards", field="page map")
            self.cache[key] = fitted
        if backdrop is not None and fitted.lines:
            line = fitted.lines[0]
            pad = mm(1.5)
            lw = max(ln.width for ln in fitted.lines)
            top = line.baseline + fitted.cap_height
            bottom = fitted.lines[-1].baseline
            canvas.saveState()
            canvas.setFillColor(HexColor(backdrop))
            canvas.roundRect(x + (w - lw) / 2 - pad, y + bottom - pad, lw + 2 * pad,
                             top - bottom + 2 * pad, mm(1), stroke=0, fill=1)
            canvas.restoreState()
        draw_text(canvas, fitted, x, y)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def draw_tile_page(canvas: Canvas, form: str, board: Board, tiling: Tiling, t: Tile,
                   settings: BoardSettings, text: _Text, hatches: dict[tuple, str]) -> None:
    """One sheet: its part of the board, glue strips, crop marks and page map.

    ``hatches`` are the glue-strip forms by strip size (``_hatch_form``).
    """
    spec = board.spec
    d = drawn_rect(tiling, t, spec.bleed)
    # the board, clipped to this sheet's part
    canvas.saveState()
    clip = canvas.beginPath()
    clip.rect(d.x, d.y, d.w, d.h)
    canvas.clipPath(clip, stroke=0, fill=0)
    canvas.translate(t.placed.x - t.area.x, t.placed.y - t.area.y)
    canvas.doForm(form)
    canvas.restoreState()

    # glue strips: hatched, labelled, with the line the neighbour's edge meets
    for side, strip, neighbour in glue_strips(tiling, t):
        _draw_glue_strip(canvas, side, strip, neighbour, tiling, text, hatches)

    draw_crop_marks(canvas, tile_crop_marks(tiling, t, spec.bleed, settings.mark_length,
                                            settings.mark_offset), settings.mark_stroke)
    if tiling.tiled:
        _draw_page_map(canvas, board, tiling, t, d, text)


def _hatch_form(canvas: Canvas, w: float, h: float, forms: dict[tuple, str]) -> str:
    """A form of a ``w`` x ``h`` glue strip: white and grey hatching (one per size)."""
    key = (round(w, 3), round(h, 3))
    name = forms.get(key)
    if name is None:
        name = f"glue{len(forms)}"
        canvas.beginForm(name, 0, 0, w, h)
        canvas.saveState()
        clip = canvas.beginPath()
        clip.rect(0, 0, w, h)
        canvas.clipPath(clip, stroke=0, fill=0)
        canvas.setStrokeColor(HexColor("#FFFFFF"))
        canvas.setLineWidth(1.6)
        canvas.setDash([], 0)
        step = mm(3)
        path = canvas.beginPath()
        k = 0.0
        while k <= w + h:
            path.moveTo(k, 0)
            path.lineTo(k - h, h)
            k += step
        canvas.drawPath(path, stroke=1, fill=0)
        canvas.setStrokeColor(HexColor("#7A808C"))
        canvas.setLineWidth(0.4)
        canvas.drawPath(path, stroke=1, fill=0)
        canvas.restoreState()
        canvas.endForm()
        forms[key] = name
    return name


def _draw_glue_strip(canvas: Canvas, side: str, strip: Rect, neighbour: int, tiling: Tiling,
                     text: _Text, hatches: dict[tuple, str]) -> None:
    canvas.saveState()
    canvas.translate(strip.x, strip.y)
    canvas.doForm(hatches[(round(strip.w, 3), round(strip.h, 3))])
    canvas.restoreState()
    # the line the neighbour's cut edge is laid on, extended into the margins
    canvas.saveState()
    canvas.setStrokeColor(HexColor(NAVY))
    canvas.setLineWidth(0.6)
    canvas.setDash([3, 2], 0)
    pw, ph = tiling.paper
    inset = 0.3  # half the line inside the strip: the neighbour's edge hides it
    if side == "left":
        x = strip.right - inset
        canvas.line(x, strip.y, x, strip.top)
        canvas.setDash([], 0)
        canvas.line(x, strip.top + mm(1), x, min(ph, strip.top + mm(6)))
        canvas.line(x, strip.y - mm(1), x, max(0.0, strip.y - mm(6)))
    else:
        y = strip.y + inset
        canvas.line(strip.x, y, strip.right, y)
        canvas.setDash([], 0)
        canvas.line(strip.x - mm(1), y, max(0.0, strip.x - mm(6)), y)
        canvas.line(strip.right + mm(1), y, min(pw, strip.right + mm(6)), y)
    canvas.restoreState()
    label = f"GLUE - SHEET {neighbour + 1} COVERS THIS STRIP UP TO THE DASHED LINE"
    canvas.saveState()
    if side == "left":
        canvas.translate(strip.x + strip.w / 2, strip.y + strip.h / 2)
        canvas.rotate(90)
        w, h = min(strip.h - mm(20), mm(150)), strip.w - mm(3)
        text.draw(canvas, label, -w / 2, -h / 2, w, h, size=7, align="center",
                  backdrop="#FFFFFF")
    else:
        w, h = min(strip.w - mm(20), mm(150)), strip.h - mm(3)
        text.draw(canvas, label, strip.x + (strip.w - w) / 2, strip.y + (strip.h - h) / 2, w,
                  h, size=7, align="center", backdrop="#FFFFFF")
    canvas.restoreState()


def _draw_page_map(canvas: Canvas, board: Board, tiling: Tiling, t: Tile, d: Rect,
                   text: _Text) -> None:
    """In the roomier of the sheet's top and bottom margins (the board's bleed
    makes one of them narrower): a small map of the sheets, this one filled,
    and where it goes."""
    pw, ph = tiling.paper
    cell_w, cell_h = mm(4), mm(2.4)
    map_h = max(tiling.rows * cell_h, mm(3))
    below, above = d.y, ph - d.top
    if below >= above:
        y0 = max(0.0, (below - map_h) / 2)
    else:
        y0 = d.top + (above - map_h) / 2
    label = (f"<b>{_escape(board.title)}</b>  -  {page_map_label(tiling, t)}.  "
             "Cut on the crop marks; print at 100 %.")
    text_w = mm(175)
    x0 = (pw - (tiling.cols * cell_w + mm(3) + text_w)) / 2
    canvas.saveState()
    canvas.setLineWidth(0.4)
    canvas.setStrokeColor(HexColor(NAVY))
    for other in tiling.tiles:
        cx = x0 + other.col * cell_w
        cy = y0 + (tiling.rows - 1 - other.row) * cell_h
        canvas.setFillColor(HexColor(NAVY if other.page == t.page else "#FFFFFF"))
        canvas.rect(cx, cy, cell_w, cell_h, stroke=1, fill=1)
    canvas.restoreState()
    text.draw(canvas, label, x0 + tiling.cols * cell_w + mm(3), y0, text_w, map_h,
              role="body", size=6.5, align="left", valign="middle")


def render_boards(ctx: "Context", progress: "Progress" = None) -> list["Output"]:
    from ..context import Output
    settings = load_board_settings(ctx.pack)
    boards = resolve_boards(ctx, settings)
    name = f"{ctx.slug}-boards{'-ink-saver' if ctx.options.ink_saver else ''}.pdf"
    if progress:
        progress(f"rendering {name}")
    data, pages = impose_boards(ctx, settings, boards)
    # keyed like the materials list (cards/components.yaml)
    counts = {"company-gameboards": sum(1 for b in boards if b.spec.kind == "company"),
              "alien-gameboard": sum(1 for b in boards if b.spec.kind == "alien")}
    return [Output(name, data, pages, "boards", "cardstock or heavy paper", counts)]


def impose_boards(ctx: "Context", settings: BoardSettings, boards: Sequence[Board],
                  invariant: bool = True) -> tuple[bytes, int]:
    """All boards, each tiled onto sheets of the chosen paper; (PDF bytes, pages)."""
    paper = paper_size(ctx.options.paper)
    buffer = io.BytesIO()
    info = DocInfo(f"{ctx.title} - boards",
                   f"{ctx.title}: print-and-play gameboards, {ctx.options.paper.upper()}: "
                   f"{len(boards) - 1} company boards and the alien board, tiled with "
                   f"{to_mm(settings.overlap):g} mm glue strips",
                   keywords=", ".join(b.title for b in boards))
    canvas = new_canvas(buffer, paper, ctx.fonts["body"].regular, info, invariant)
    forms = []
    layer_forms: dict[str, str] = {}
    ink_saver = ctx.options.ink_saver
    art = ctx.art
    for board in boards:
        b = board.spec.bleed
        for layer in board.layers:
            if layer.shared is not None and layer.shared not in layer_forms:
                name = f"layer{len(layer_forms)}"
                canvas.beginForm(name, -b, -b, board.spec.width + b, board.spec.height + b)
                draw_face(canvas, layer.face, art, ink_saver)
                canvas.endForm()
                layer_forms[layer.shared] = name
    for n, board in enumerate(boards):
        name = f"board{n}"
        b = board.spec.bleed
        canvas.beginForm(name, -b, -b, board.spec.width + b, board.spec.height + b)
        for layer in board.layers:
            if layer.shared is not None:
                canvas.doForm(layer_forms[layer.shared])
            else:
                draw_face(canvas, layer.face, art, ink_saver)
        canvas.endForm()
        forms.append(name)
    tilings = [board_tiling(settings, board.spec, paper) for board in boards]
    pages = draw_tiled(canvas, ctx, boards, forms, tilings, settings)
    canvas.save()
    return buffer.getvalue(), pages


def draw_tiled(canvas: Canvas, ctx: "Context", boards: Sequence[Any], forms: Sequence[str],
               tilings: Sequence[Any], marks: Any) -> int:
    """Every board form on its tile pages (glue strips, marks, page map, bookmarks).

    ``boards`` need ``id`` and ``title``; ``marks`` is what ``draw_tile_page``
    reads the glue-strip and mark settings from.  Returns the page count.
    """
    text = _Text(ctx)
    hatches: dict[tuple, str] = {}
    for tiling in tilings:
        for t in tiling.tiles:
            for _, strip, _ in glue_strips(tiling, t):
                _hatch_form(canvas, strip.w, strip.h, hatches)
    pages = 0
    for board, form, tiling in zip(boards, forms, tilings):
        key = f"board-{board.id}"
        for t in tiling.tiles:
            canvas.setPageSize(tiling.paper)
            if t.page == 0:
                canvas.bookmarkPage(key)
                sheets = f"{tiling.pages} sheets" if tiling.pages > 1 else "1 sheet"
                canvas.addOutlineEntry(f"{board.title} ({sheets})", key, level=0)
            draw_tile_page(canvas, form, board, tiling, t, marks, text, hatches)
            canvas.showPage()
            pages += 1
    return pages
