"""Print-sheet geometry: where every card, back, crop mark and board tile goes.

This module owns the arithmetic of sheets and nothing else (no drawing except
the crop-mark stroke): card grids centred on the paper, per-card bleed, crop
marks, duplex back placement with a printer-drift offset, and generic grids
for tokens (boards larger than the paper are tiled by ``imposition_tiling``).
Every size is in points and every coordinate is a PDF coordinate (origin
bottom-left, y up).

Decisions, each one tested in ``tests/test_imposition.py``:

* The grid is centred on the paper (with ``duplex="fold"``, on its first
  half).  Symmetric margins make the duplex mirror land every back exactly
  behind its front.  ``SheetSpec.fit(rotate=True)`` turns the paper when that
  fits more (poker cards on Letter: eight landscape, not six portrait).
* A card's bleed reaches ``bleed`` past its trim on the grid's outer edges and
  ``min(bleed, gutter / 2)`` towards a neighbour, so neighbours' bleeds never
  overlap (with gutter 0 abutting cards share their cut line).  With a gutter
  of ``2 * CUT_TOLERANCE`` or more a cut that far off shows the card's own
  colour.
* Crop marks never come within ``edge_clearance`` (5 mm) of the paper edge:
  home printers leave their outer 3-6 mm blank.  In the margins they sit on
  the extension of every cut line, at both ends, starting ``mark_offset``
  outside the grid's bleed, shortened to what fits (if less than
  ``MIN_MARK`` fits, that margin gets none).  In every gutter wide enough,
  each cut line crossing it is marked across it (corner crosses, as
  protograf's grid marks), so a line whose margins have no room is marked at
  the gutters nearest its ends; no mark enters a trim.  ``unmarked_edges``
  names the edges whose lines end unmarked; ``SheetSpec.fit`` never chooses
  such a layout.
* Backs: on a portrait sheet a long-edge flip mirrors left-right and a
  short-edge flip mirrors top-bottom (backs stay upright); landscape sheets
  swap the two.  ``glue`` lays backs out as ``long`` does (printed one-sided,
  glued back to back); ``fold`` mirrors them about the fold line across the
  middle of the sheet, on the same page; ``none`` puts each back where its
  front is.  ``back_offset`` moves every back by (dx, dy) in the back page's
  own coordinates: x to the right and y up as you look at the back.  It
  compensates a printer's drift: a printer that shifts backs by d needs
  ``back_offset = -d`` (``fold`` cannot drift and ignores it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from .errors import InputError, fail
from .units import mm, show_mm

#: long/short: a duplex printer flips the sheet on that edge; glue: backs laid out as
#: for a long-edge flip, each back sheet right after its front, printed one-sided and
#: glued back to back; fold: fronts and backs side by side on one sheet, mirrored about
#: a fold line; none: each back where its front is, every back sheet after the fronts.
DUPLEX_MODES: tuple[str, ...] = ("long", "short", "glue", "fold", "none")


DEFAULT_MARK_LENGTH = mm(3)
DEFAULT_MARK_OFFSET = mm(0.5)
DEFAULT_MARK_STROKE = 0.3
#: A mark's white halo is this much wider than its stroke (half each side).
MARK_HALO = 0.6
#: Thinner strokes vanish on laser prints.
MIN_MARK_STROKE = 0.25
#: Shorter marks are too short to line a paper trimmer up with.
MIN_MARK = mm(1.5)
#: Most home printers cannot print closer than about 4-5 mm to the paper edge;
#: trim lines must print.
DEFAULT_MIN_MARGIN = mm(5)
#: Nothing of a mark comes closer than this to a paper edge: home printers leave
#: their outer 3-6 mm blank.
DEFAULT_EDGE_CLEARANCE = mm(5)
#: How far a cut may miss its line and still show only the card's own colour: the
#: gutter between two cards is at least twice this, each card's bleed filling its half.
CUT_TOLERANCE = mm(1)
#: Geometry comparisons: far below anything a printer resolves.
EPS = 1e-6
#: Two sides are in register when they agree within this.
REGISTER_TOLERANCE = mm(0.01)


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle: lower-left corner (x, y), width, height."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def top(self) -> float:
        return self.y + self.h

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)

    def inset(self, d: float) -> Rect:
        return Rect(self.x + d, self.y + d, self.w - 2 * d, self.h - 2 * d)

    def outset(self, d: float) -> Rect:
        return self.inset(-d)

    def expanded(self, left: float, bottom: float, right: float, top: float) -> Rect:
        """Grown by a different amount on each side (negative shrinks)."""
        return Rect(self.x - left, self.y - bottom, self.w + left + right, self.h + bottom + top)

    def translated(self, dx: float, dy: float) -> Rect:
        return Rect(self.x + dx, self.y + dy, self.w, self.h)

    def mirrored_x(self, page_w: float) -> Rect:
        """Mirrored left-right on a page ``page_w`` wide."""
        return Rect(page_w - self.x - self.w, self.y, self.w, self.h)

    def mirrored_y(self, page_h: float) -> Rect:
        """Mirrored top-bottom on a page ``page_h`` high."""
        return Rect(self.x, page_h - self.y - self.h, self.w, self.h)

    def almost_equal(self, other: Rect, tol: float = EPS) -> bool:
        return (abs(self.x - other.x) <= tol and abs(self.y - other.y) <= tol
                and abs(self.w - other.w) <= tol and abs(self.h - other.h) <= tol)

    def contains(self, other: Rect, tol: float = EPS) -> bool:
        return (other.x >= self.x - tol and other.y >= self.y - tol
                and other.right <= self.right + tol and other.top <= self.top + tol)

    def overlaps(self, other: Rect, tol: float = EPS) -> bool:
        """True if the two share an area (touching edges do not count)."""
        return (min(self.right, other.right) - max(self.x, other.x) > tol
                and min(self.top, other.top) - max(self.y, other.y) > tol)

    def intersection(self, other: Rect) -> Rect | None:
        x0, y0 = max(self.x, other.x), max(self.y, other.y)
        x1, y1 = min(self.right, other.right), min(self.top, other.top)
        if x1 - x0 <= EPS or y1 - y0 <= EPS:
            return None
        return Rect(x0, y0, x1 - x0, y1 - y0)


def bounding(rects: Iterable[Rect]) -> Rect:
    """The smallest rectangle holding all of ``rects`` (at least one)."""
    items = list(rects)
    if not items:
        raise ValueError("bounding() of no rectangles")
    x0 = min(r.x for r in items)
    y0 = min(r.y for r in items)
    return Rect(x0, y0, max(r.right for r in items) - x0, max(r.top for r in items) - y0)


@dataclass(frozen=True)
class Line:
    """A straight line from (x1, y1) to (x2, y2)."""

    x1: float
    y1: float
    x2: float
    y2: float

    @property
    def length(self) -> float:
        return math.hypot(self.x2 - self.x1, self.y2 - self.y1)

    @property
    def vertical(self) -> bool:
        return abs(self.x1 - self.x2) <= EPS

    def bounds(self) -> Rect:
        x0, y0 = min(self.x1, self.x2), min(self.y1, self.y2)
        return Rect(x0, y0, abs(self.x2 - self.x1), abs(self.y2 - self.y1))

    def meets(self, rect: Rect) -> bool:
        """True if this (axis-aligned) line touches the closed ``rect``."""
        b = self.bounds()
        return (b.x <= rect.right and b.right >= rect.x
                and b.y <= rect.top and b.top >= rect.y)


@dataclass(frozen=True)
class Slot:
    """One place on a sheet: ``index`` in reading order, the card's trim and bleed."""

    index: int
    col: int
    row: int
    trim: Rect
    bleed: Rect


@dataclass(frozen=True)
class Margins:
    left: float
    right: float
    top: float
    bottom: float


def _fits(length: float, item: float, gutter: float) -> int:
    """How many ``item``s with ``gutter`` between them fit in ``length``."""
    if length + EPS < item:
        return 0
    return int(math.floor((length + gutter) / (item + gutter) + 1e-9))


@dataclass(frozen=True)
class SheetSpec:
    """A sheet of equal cards (or any items) in a grid centred on the paper.

    ``cols``/``rows`` of 0 mean "as many as fit" while keeping ``min_margin``
    between the paper edge and the trim of the outermost cards; where two or
    more fit and the gutter carries marks, the cut lines are marked in the
    gutters, else the margin is raised so marks of at least ``MIN_MARK`` fit
    outside the bleed.  Explicit ``cols``/``rows`` only have to fit on the
    paper with their bleed.  ``edge_clearance`` is the printer's unprintable
    border: no mark comes closer to the paper edge (default 5 mm).  ``where``
    names the file the spec came from, for error messages.
    """

    paper: tuple[float, float]
    card: tuple[float, float]
    bleed: float = 0.0
    gutter: float = 0.0
    cols: int = 0
    rows: int = 0
    mark_length: float = DEFAULT_MARK_LENGTH
    mark_offset: float = DEFAULT_MARK_OFFSET
    mark_stroke: float = DEFAULT_MARK_STROKE
    duplex: str = "long"
    back_offset: tuple[float, float] = (0.0, 0.0)
    min_margin: float = DEFAULT_MIN_MARGIN
    edge_clearance: float = DEFAULT_EDGE_CLEARANCE
    where: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        def bad(message: str, hint: str | None = None, name: str | None = None) -> Exception:
            return fail(message, path=self.where, field=name, hint=hint)

        def finite(value: object) -> bool:
            return (isinstance(value, (int, float)) and not isinstance(value, bool)
                    and math.isfinite(value))

        for name, pair in (("paper", self.paper), ("card", self.card)):
            if len(pair) != 2 or not all(finite(v) and v > 0 for v in pair):
                raise bad(f"{name} size must be two positive lengths (got {pair!r})", name=name)
        for name in ("bleed", "gutter", "mark_offset", "min_margin", "edge_clearance"):
            value = getattr(self, name)
            if not finite(value) or value < 0:
                raise bad(f"{name} must be 0 or more (got {value!r})", name=name)
        if not finite(self.mark_length) or self.mark_length <= 0:
            raise bad(f"crop mark length must be more than 0 (got {self.mark_length!r})",
                      name="mark_length")
        if not finite(self.mark_stroke) or self.mark_stroke < MIN_MARK_STROKE:
            raise bad(f"crop mark stroke must be at least {MIN_MARK_STROKE} pt "
                      f"(got {self.mark_stroke!r})", "thinner lines vanish on laser prints",
                      name="mark_stroke")
        if self.mark_offset < (self.mark_stroke + MARK_HALO) / 2:
            raise bad(f"crop mark offset must be at least half the stroke and its halo "
                      f"({(self.mark_stroke + MARK_HALO) / 2:g} pt) so no ink enters the bleed",
                      name="mark_offset")
        if self.duplex not in DUPLEX_MODES:
            raise bad(f"unknown duplex mode {self.duplex!r}",
                      "duplex is " + ", ".join(DUPLEX_MODES[:-1]) + " or " + DUPLEX_MODES[-1],
                      name="duplex")
        if len(self.back_offset) != 2 or not all(finite(v) for v in self.back_offset):
            raise bad(f"back offset must be two lengths (got {self.back_offset!r})",
                      name="back_offset")
        for name in ("cols", "rows"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise bad(f"{name} must be a whole number, 0 for as many as fit "
                          f"(got {value!r})", name=name)

        if self.duplex == "fold":   # registered by construction: no drift to correct
            object.__setattr__(self, "back_offset", (0.0, 0.0))
        area = self.area
        cw, ch = self.card
        base = max(self.min_margin, self.edge_clearance)
        # margins wide enough for a mark outside the bleed, clear of the paper edge
        marked = max(base, self.bleed + self.mark_offset + MIN_MARK
                     + (self.mark_stroke + MARK_HALO) / 2
                     + self.edge_clearance)

        def count(length: float, item: float) -> int:
            # marks in the gutters free the margins of marks, if two or more fit
            n = _fits(length - 2 * base, item, self.gutter)
            if n >= 2 and self.gutter_marks:
                return n
            return _fits(length - 2 * marked, item, self.gutter)

        if self.cols == 0:
            object.__setattr__(self, "cols", count(area.w, cw))
        if self.rows == 0:
            object.__setattr__(self, "rows", count(area.h, ch))

        def size(w: float, h: float) -> str:
            return f"{show_mm(w)[:-3]} x {show_mm(h)}"

        if self.cols == 0 or self.rows == 0:
            raise bad(f"a {size(cw, ch)} card with {show_mm(self.bleed)} bleed does not fit on "
                      f"{size(area.w, area.h)} paper inside {show_mm(base)} margins",
                      "use a smaller card, less bleed or bigger paper")
        need = self.grid_bleed_size
        if need[0] > area.w + EPS or need[1] > area.h + EPS:
            raise bad(f"{self.cols} x {self.rows} cards of {size(cw, ch)} with "
                      f"{show_mm(self.bleed)} bleed need {size(*need)}, but the paper is "
                      f"{size(area.w, area.h)}",
                      "use smaller cards, less bleed or gutter, or fewer columns/rows")

    @classmethod
    def fit(cls, paper: tuple[float, float], card: tuple[float, float], bleed: float = 0.0,
            gutter: float = 0.0, min_margin: float = DEFAULT_MIN_MARGIN,
            rotate: bool = False, **options: object) -> SheetSpec:
        """The spec with as many columns and rows as fit (``options``: other fields).

        With ``rotate`` the paper may also be turned (portrait to landscape or back)
        when that fits more cards; on a tie it stays as given.
        """
        spec = cls(paper=paper, card=card, bleed=bleed, gutter=gutter, min_margin=min_margin,
                   **options)  # type: ignore[arg-type]
        if not rotate:
            return spec
        try:
            turned = cls(paper=(paper[1], paper[0]), card=card, bleed=bleed, gutter=gutter,
                         min_margin=min_margin, **options)  # type: ignore[arg-type]
        except InputError:
            return spec
        return turned if turned.per_sheet > spec.per_sheet else spec

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def landscape(self) -> bool:
        return self.paper[0] > self.paper[1]

    @property
    def grid_size(self) -> tuple[float, float]:
        """Width and height of the trimmed grid."""
        return (self.cols * self.card[0] + (self.cols - 1) * self.gutter,
                self.rows * self.card[1] + (self.rows - 1) * self.gutter)

    @property
    def grid_bleed_size(self) -> tuple[float, float]:
        w, h = self.grid_size
        return (w + 2 * self.bleed, h + 2 * self.bleed)

    @property
    def area(self) -> Rect:
        """Where the front grid goes: the whole paper, or with ``duplex="fold"`` the
        first half of it (the left half of a landscape sheet, the top half of a
        portrait one), the backs filling the other half."""
        pw, ph = self.paper
        if self.duplex != "fold":
            return Rect(0, 0, pw, ph)
        if self.landscape:
            return Rect(0, 0, pw / 2, ph)
        return Rect(0, ph / 2, pw, ph / 2)

    @property
    def fold_line(self) -> Line | None:
        """With ``duplex="fold"`` the fold, across the middle of the paper (1 mm more
        than ``edge_clearance`` clear of the paper edges); else None."""
        if self.duplex != "fold":
            return None
        pw, ph = self.paper
        c = self.edge_clearance + mm(1)
        if self.landscape:
            return Line(pw / 2, c, pw / 2, ph - c)
        return Line(c, ph / 2, pw - c, ph / 2)

    @property
    def gutter_marks(self) -> bool:
        """Is the gutter wide enough to carry marks (``MIN_MARK`` long, ``mark_offset``
        clear of both trims)?"""
        return self.gutter + EPS >= 2 * self.mark_offset + MIN_MARK

    @property
    def grid(self) -> Rect:
        """The trimmed grid, centred on the paper (on its half with ``duplex="fold"``)."""
        w, h = self.grid_size
        a = self.area
        return Rect(a.x + (a.w - w) / 2, a.y + (a.h - h) / 2, w, h)

    @property
    def margins(self) -> Margins:
        """Paper edge to the trim of the outermost cards, on each side."""
        g = self.grid
        return Margins(g.x, self.paper[0] - g.right, self.paper[1] - g.top, g.y)

    @property
    def mirror_axis(self) -> str | None:
        """The axis a duplex flip mirrors: ``"x"``, ``"y"`` or None."""
        if self.duplex == "none":
            return None
        if self.duplex == "fold":
            return "x" if self.landscape else "y"
        long_flip = self.duplex in ("long", "glue")
        return "x" if long_flip != self.landscape else "y"


def front_slots(spec: SheetSpec) -> list[Slot]:
    """Every slot of the sheet in reading order (rows from the top, left to right)."""
    g = spec.grid
    cw, ch = spec.card
    inner = min(spec.bleed, spec.gutter / 2)
    slots = []
    for row in range(spec.rows):
        for col in range(spec.cols):
            trim = Rect(g.x + col * (cw + spec.gutter),
                        g.top - row * (ch + spec.gutter) - ch, cw, ch)
            bleed = trim.expanded(
                spec.bleed if col == 0 else inner,
                spec.bleed if row == spec.rows - 1 else inner,
                spec.bleed if col == spec.cols - 1 else inner,
                spec.bleed if row == 0 else inner)
            slots.append(Slot(len(slots), col, row, trim, bleed))
    return slots


def flip(rect: Rect, spec: SheetSpec) -> Rect:
    """The place on the other side of the sheet that ``rect`` lies behind.

    Its own inverse: maps front-page coordinates to back-page coordinates and
    back again.
    """
    axis = spec.mirror_axis
    if axis == "x":
        return rect.mirrored_x(spec.paper[0])
    if axis == "y":
        return rect.mirrored_y(spec.paper[1])
    return rect


def back_rect(front: Rect, spec: SheetSpec) -> Rect:
    """Where to draw, on the back sheet, what must land behind ``front``."""
    return flip(front, spec).translated(*spec.back_offset)


def back_slots(spec: SheetSpec) -> list[Slot]:
    """For each front slot (same index, col and row), where its back is drawn."""
    return [Slot(s.index, s.col, s.row, back_rect(s.trim, spec), back_rect(s.bleed, spec))
            for s in front_slots(spec)]


def registered(front: Rect, back: Rect, spec: SheetSpec,
               drift: tuple[float, float] = (0.0, 0.0)) -> bool:
    """Does ``back`` (drawn on the back page) land behind ``front`` within 0.01 mm?

    ``drift`` is where the printer actually puts the back side relative to
    where it was drawn, in back-page coordinates.
    """
    landed = flip(back.translated(*drift), spec)
    return front.almost_equal(landed, REGISTER_TOLERANCE)


def _distinct(values: Iterable[float]) -> list[float]:
    out: list[float] = []
    for v in sorted(values):
        if not out or v - out[-1] > EPS:
            out.append(v)
    return out


def _home(spec: SheetSpec, b: Rect) -> Rect:
    """The part of the paper a grid bounded by ``b`` lies in: the paper, or with
    ``duplex="fold"`` the half of it (marks never cross the fold)."""
    area = spec.area
    return area if area.contains(b) or spec.duplex != "fold" else flip(area, spec)


def _mark_lengths(spec: SheetSpec, slots: list[Slot]) -> dict[str, float]:
    """Per edge, how long its marks in the margin are (0: no room for a useful mark
    ``edge_clearance`` clear of the paper edge or the fold)."""
    b = bounding(s.bleed for s in slots)
    home = _home(spec, b)
    # (a hundredth of a point to spare: the limit is never crossed by rounding)
    off, cap = spec.mark_offset, (spec.mark_stroke + MARK_HALO) / 2 + spec.edge_clearance + 0.01
    rooms = {
        "top": home.top - (b.top + off),
        "bottom": b.y - off - home.y,
        "left": b.x - off - home.x,
        "right": home.right - (b.right + off),
    }
    shortest = min(MIN_MARK, spec.mark_length)
    lengths = {}
    for edge, room in rooms.items():
        length = min(spec.mark_length, room - cap)
        lengths[edge] = length if length >= shortest - EPS else 0.0
    return lengths


def _gaps(spans: Iterable[tuple[float, float]], least: float) -> list[tuple[float, float]]:
    """The gutters (at least ``least`` wide) between consecutive (start, end) spans."""
    ordered = sorted({(round(a, 6), round(b, 6)): (a, b) for a, b in spans}.values())
    return [(ordered[i][1], ordered[i + 1][0]) for i in range(len(ordered) - 1)
            if ordered[i + 1][0] - ordered[i][1] + EPS >= least]


def _gutters(spec: SheetSpec, slots: list[Slot]) -> tuple[list[tuple[float, float]],
                                                           list[tuple[float, float]]]:
    """(vertical gutters as x ranges, horizontal gutters as y ranges) wide enough for marks."""
    least = 2 * spec.mark_offset + MIN_MARK
    return (_gaps(((s.trim.x, s.trim.right) for s in slots), least),
            _gaps(((s.trim.y, s.trim.top) for s in slots), least))


def unmarked_edges(spec: SheetSpec, slots: list[Slot] | None = None) -> list[str]:
    """Edges (``top``, ``bottom``, ``left``, ``right``) whose cut lines end unmarked:
    no room for a mark in that margin and no gutter across those cut lines."""
    slots = slots if slots is not None else front_slots(spec)
    lengths = _mark_lengths(spec, slots)
    columns, rows = _gutters(spec, slots)
    return [edge for edge, length in lengths.items()
            if length <= 0 and not (rows if edge in ("top", "bottom") else columns)]


def crop_marks(spec: SheetSpec, slots: list[Slot] | None = None) -> list[Line]:
    """Crop marks for ``slots`` (default: the front slots).

    Every distinct cut line is marked at both of its ends.  In the margins, where
    a mark fits ``edge_clearance`` clear of the paper edge: vertical cuts at the
    top and bottom, horizontal cuts at the left and right, drawn from the grid
    outwards.  In every gutter (as protograf's grid marks): each cut line that
    crosses it is marked across it, ``mark_offset`` clear of both trims, so the
    marks form crosses at the card corners and each line is marked at the
    gutters nearest its ends when the margins have no room.  Order: top, bottom
    (left to right), left, right (bottom to top), then the vertical gutters (left
    to right), then the horizontal ones (bottom to top).
    """
    slots = slots if slots is not None else front_slots(spec)
    b = bounding(s.bleed for s in slots)
    off = spec.mark_offset
    lengths = _mark_lengths(spec, slots)
    xs = _distinct(v for s in slots for v in (s.trim.x, s.trim.right))
    ys = _distinct(v for s in slots for v in (s.trim.y, s.trim.top))
    lines: list[Line] = []
    if lengths["top"]:
        lines += [Line(x, b.top + off, x, b.top + off + lengths["top"]) for x in xs]
    if lengths["bottom"]:
        lines += [Line(x, b.y - off, x, b.y - off - lengths["bottom"]) for x in xs]
    if lengths["left"]:
        lines += [Line(b.x - off, y, b.x - off - lengths["left"], y) for y in ys]
    if lengths["right"]:
        lines += [Line(b.right + off, y, b.right + off + lengths["right"], y) for y in ys]
    columns, rows = _gutters(spec, slots)
    for x0, x1 in columns:
        lines += [Line(a, y, b, y) for a, b in _across(spec, x0, x1) for y in ys]
    for y0, y1 in rows:
        lines += [Line(x, a, x, b) for a, b in _across(spec, y0, y1) for x in xs]
    # backs moved by --back-offset may bring a mark too near the edge: it goes
    clear = Rect(0, 0, *spec.paper).inset(spec.edge_clearance)
    half = (spec.mark_stroke + MARK_HALO) / 2
    return _inside(lines, clear, half)


def _inside(lines: list[Line], clear: Rect, half: float) -> list[Line]:
    """The lines whose bounds, ``half`` wider each way, ``clear`` contains: what
    ``clear.contains(line.bounds().outset(half))`` tells, the same arithmetic inline."""
    d = -half                         # outset(half) is inset(-half)
    x0, y0 = clear.x - EPS, clear.y - EPS
    x1, y1 = clear.right + EPS, clear.top + EPS
    out = []
    for ln in lines:
        bx, by = min(ln.x1, ln.x2) + d, min(ln.y1, ln.y2) + d
        if bx >= x0 and by >= y0 and bx + (abs(ln.x2 - ln.x1) - 2 * d) <= x1 \
                and by + (abs(ln.y2 - ln.y1) - 2 * d) <= y1:
            out.append(ln)
    return out


def _across(spec: SheetSpec, a: float, b: float) -> list[tuple[float, float]]:
    """The marks across a gutter from ``a`` to ``b``: one from side to side if it is no
    longer than ``mark_length``, else one ``mark_length`` long from each side."""
    off, length = spec.mark_offset, spec.mark_length
    span = b - a - 2 * off
    if span <= length + EPS:
        return [(a + off, b - off)]
    each = min(length, span / 2 - off)
    if each + EPS < MIN_MARK:
        middle = (a + b) / 2
        return [(middle - length / 2, middle + length / 2)]
    return [(a + off, a + off + each), (b - off - each, b - off)]


def grid(paper: tuple[float, float], item_w: float, item_h: float, gap: float = 0.0,
         margin: float = DEFAULT_MIN_MARGIN, bleed: float = 0.0,
         **options: object) -> SheetSpec:
    """A sheet of as many ``item_w`` x ``item_h`` items (tokens, chits) as fit.

    The same centred grid as cards (``gap`` is the gutter), so ``front_slots``,
    ``back_slots`` and ``crop_marks`` apply unchanged to two-sided items.
    """
    return SheetSpec.fit(paper, (item_w, item_h), bleed=bleed, gutter=gap,
                         min_margin=margin, **options)
