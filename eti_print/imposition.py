"""Print-sheet geometry: where every card, back, crop mark and board tile goes.

This module owns the arithmetic of sheets and nothing else (no drawing except
the crop-mark stroke): card grids centred on the paper, per-card bleed, crop
marks, duplex back placement with a printer-drift offset, and generic grids
for tokens (boards larger than the paper are tiled by ``imposition_tiling``).
Every size is in points and every coordinate is a PDF coordinate (origin
bottom-left, y up).

Decisions, each one tested in ``tests/test_imposition.py``:

* The grid is centred on the paper.  Symmetric margins make the duplex mirror
  land every back exactly behind its front.
* A card's bleed reaches ``bleed`` past its trim on the grid's outer edges and
  ``min(bleed, gutter / 2)`` towards a neighbour, so neighbours' bleeds never
  overlap (with gutter 0 abutting cards share their cut line).
* Crop marks sit in the margins on the extension of every cut line, at both
  ends, starting ``mark_offset`` outside the grid's bleed.  Where a margin is
  too narrow for the full ``mark_length`` the marks on that edge are shortened
  to what fits on the paper (the ink of the square cap included); if less than
  ``MIN_MARK`` fits, that edge gets no marks and ``unmarked_edges`` names it so
  the build can warn.  ``SheetSpec.fit`` never chooses such a layout.
* Backs: on a portrait sheet a long-edge flip mirrors left-right and a
  short-edge flip mirrors top-bottom (backs stay upright); landscape sheets
  swap the two.  ``duplex="none"`` puts each back where its front is (for
  cutting out and gluing).  ``back_offset`` moves every back by (dx, dy) in
  the back page's own coordinates: x to the right and y up as you look at the
  back.  It compensates a printer's drift: a printer that shifts backs by d
  needs ``back_offset = -d``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from reportlab.pdfgen.canvas import Canvas

from .errors import fail
from .units import mm, show_mm

DUPLEX_MODES: tuple[str, ...] = ("long", "short", "none")

DEFAULT_MARK_LENGTH = mm(3)
DEFAULT_MARK_OFFSET = mm(0.5)
DEFAULT_MARK_STROKE = 0.3
#: Thinner strokes vanish on laser prints.
MIN_MARK_STROKE = 0.25
#: Shorter marks are too short to line a paper trimmer up with.
MIN_MARK = mm(1.5)
#: Most home printers cannot print closer than about 4-5 mm to the paper edge;
#: trim lines must print.
DEFAULT_MIN_MARGIN = mm(5)
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
    (raised if needed so crop marks of at least ``MIN_MARK`` fit) between the
    paper edge and the trim of the outermost cards.  Explicit ``cols``/``rows``
    only have to fit on the paper with their bleed.  ``edge_clearance`` is
    the printer's unprintable border: crop marks stay that far from the paper
    edge (default 0: marks may run to the edge).  ``where`` names the file the
    spec came from, for error messages.
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
    edge_clearance: float = 0.0
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
        if self.mark_offset < self.mark_stroke / 2:
            raise bad(f"crop mark offset must be at least half the stroke "
                      f"({self.mark_stroke / 2:g} pt) so no ink enters the bleed",
                      name="mark_offset")
        if self.duplex not in DUPLEX_MODES:
            raise bad(f"unknown duplex mode {self.duplex!r}", "duplex is long, short or none",
                      name="duplex")
        if len(self.back_offset) != 2 or not all(finite(v) for v in self.back_offset):
            raise bad(f"back offset must be two lengths (got {self.back_offset!r})",
                      name="back_offset")
        for name in ("cols", "rows"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise bad(f"{name} must be a whole number, 0 for as many as fit "
                          f"(got {value!r})", name=name)

        pw, ph = self.paper
        cw, ch = self.card
        margin = max(self.min_margin,
                     self.bleed + self.mark_offset + MIN_MARK + self.mark_stroke / 2
                     + self.edge_clearance)
        if self.cols == 0:
            object.__setattr__(self, "cols", _fits(pw - 2 * margin, cw, self.gutter))
        if self.rows == 0:
            object.__setattr__(self, "rows", _fits(ph - 2 * margin, ch, self.gutter))
        def size(w: float, h: float) -> str:
            return f"{show_mm(w)[:-3]} x {show_mm(h)}"

        if self.cols == 0 or self.rows == 0:
            raise bad(f"a {size(cw, ch)} card with {show_mm(self.bleed)} bleed does not fit on "
                      f"{size(pw, ph)} paper inside {show_mm(margin)} margins",
                      "use a smaller card, less bleed or bigger paper")
        need = self.grid_bleed_size
        if need[0] > pw + EPS or need[1] > ph + EPS:
            raise bad(f"{self.cols} x {self.rows} cards of {size(cw, ch)} with "
                      f"{show_mm(self.bleed)} bleed need {size(*need)}, but the paper is "
                      f"{size(pw, ph)}",
                      "use smaller cards, less bleed or gutter, or fewer columns/rows")

    @classmethod
    def fit(cls, paper: tuple[float, float], card: tuple[float, float], bleed: float = 0.0,
            gutter: float = 0.0, min_margin: float = DEFAULT_MIN_MARGIN,
            **options: object) -> SheetSpec:
        """The spec with as many columns and rows as fit (``options``: other fields)."""
        return cls(paper=paper, card=card, bleed=bleed, gutter=gutter, min_margin=min_margin,
                   **options)  # type: ignore[arg-type]

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
    def grid(self) -> Rect:
        """The trimmed grid, centred on the paper."""
        w, h = self.grid_size
        return Rect((self.paper[0] - w) / 2, (self.paper[1] - h) / 2, w, h)

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
        long_flip = self.duplex == "long"
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


def _mark_lengths(spec: SheetSpec, slots: list[Slot]) -> dict[str, float]:
    """Per edge, how long its marks are (0: no room for a useful mark)."""
    b = bounding(s.bleed for s in slots)
    pw, ph = spec.paper
    off, cap = spec.mark_offset, spec.mark_stroke / 2 + spec.edge_clearance
    rooms = {
        "top": ph - (b.top + off),
        "bottom": b.y - off,
        "left": b.x - off,
        "right": pw - (b.right + off),
    }
    shortest = min(MIN_MARK, spec.mark_length)
    lengths = {}
    for edge, room in rooms.items():
        length = min(spec.mark_length, room - cap)
        lengths[edge] = length if length >= shortest - EPS else 0.0
    return lengths


def unmarked_edges(spec: SheetSpec, slots: list[Slot] | None = None) -> list[str]:
    """Edges (``top``, ``bottom``, ``left``, ``right``) too narrow for crop marks."""
    lengths = _mark_lengths(spec, slots if slots is not None else front_slots(spec))
    return [edge for edge, length in lengths.items() if length <= 0]


def crop_marks(spec: SheetSpec, slots: list[Slot] | None = None) -> list[Line]:
    """Crop marks for ``slots`` (default: the front slots).

    Every distinct cut line gets a mark at both of its ends, drawn from the
    grid outwards: vertical cuts at the top and bottom, horizontal cuts at the
    left and right.  Order: top, bottom (left to right), left, right (bottom
    to top).
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
    return lines


def draw_crop_marks(canvas: Canvas, lines: list[Line], stroke: float = DEFAULT_MARK_STROKE) -> None:
    """Stroke ``lines`` in pure black ink (K only: crisp on any printer), square caps."""
    if not lines:
        return
    canvas.saveState()
    canvas.setStrokeColorCMYK(0, 0, 0, 1)
    canvas.setLineWidth(max(stroke, MIN_MARK_STROKE))
    canvas.setLineCap(2)
    canvas.setDash([], 0)
    path = canvas.beginPath()
    for line in lines:
        path.moveTo(line.x1, line.y1)
        path.lineTo(line.x2, line.y2)
    canvas.drawPath(path, stroke=1, fill=0)
    canvas.restoreState()


def grid(paper: tuple[float, float], item_w: float, item_h: float, gap: float = 0.0,
         margin: float = DEFAULT_MIN_MARGIN, bleed: float = 0.0,
         **options: object) -> SheetSpec:
    """A sheet of as many ``item_w`` x ``item_h`` items (tokens, chits) as fit.

    The same centred grid as cards (``gap`` is the gutter), so ``front_slots``,
    ``back_slots`` and ``crop_marks`` apply unchanged to two-sided items.
    """
    return SheetSpec.fit(paper, (item_w, item_h), bleed=bleed, gutter=gap,
                         min_margin=margin, **options)
