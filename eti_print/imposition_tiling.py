"""Board tiling: a board larger than the paper cut into equal, overlapping sheets.

The arithmetic only (``render.tiles`` draws the sheets): how many sheets a
board needs each way, where each sheet's part of the board lands on the
paper, which sheets neighbour which, and the glue strip two neighbours
share.  Sizes in points, PDF coordinates (origin bottom-left, y up); rows
count from the top of the board.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .errors import fail
from .imposition import EPS, Rect
from .units import mm, show_mm

SIDES = ("left", "right", "above", "below")


@dataclass(frozen=True)
class Tile:
    """One page of a tiled board.

    ``area`` is the part of the board it shows (board coordinates, origin at
    the board's bottom-left); ``placed`` is where that part is drawn on the
    page (same size).  ``row`` 0 is the top of the board.  Neighbours are page
    indices or None.
    """

    page: int
    row: int
    col: int
    area: Rect
    placed: Rect
    left: int | None = None
    right: int | None = None
    above: int | None = None
    below: int | None = None

    def neighbour(self, side: str) -> int | None:
        return {"left": self.left, "right": self.right,
                "above": self.above, "below": self.below}[side]


@dataclass(frozen=True)
class Tiling:
    """A board cut into pages; ``paper`` is the orientation actually used."""

    board: tuple[float, float]
    paper: tuple[float, float]
    margin: float
    overlap: float
    rows: int
    cols: int
    tiles: tuple[Tile, ...]

    @property
    def pages(self) -> int:
        return len(self.tiles)

    @property
    def tiled(self) -> bool:
        return self.pages > 1

    @property
    def landscape(self) -> bool:
        return self.paper[0] > self.paper[1]

    def strip(self, tile: Tile, side: str) -> Rect | None:
        """The glue strip on ``side`` of ``tile`` in page coordinates (None if no neighbour).

        It shows the same part of the board as the facing strip of the neighbour.
        """
        if tile.neighbour(side) is None:
            return None
        p, o = tile.placed, self.overlap
        return {"left": Rect(p.x, p.y, o, p.h),
                "right": Rect(p.right - o, p.y, o, p.h),
                "above": Rect(p.x, p.top - o, p.w, o),
                "below": Rect(p.x, p.y, p.w, o)}[side]


def _split(board: float, room: float, overlap: float) -> tuple[int, float]:
    """Pieces along one axis and the length of each (equal pieces)."""
    if board <= room + EPS:
        return 1, board
    n = int(math.ceil((board - overlap) / (room - overlap) - 1e-9))
    return n, (board + (n - 1) * overlap) / n


#: A seam keeps this far from anything it must not cross (a cut that far off still
#: misses it).
SEAM_CLEARANCE = mm(2)


def _seams(board: float, room: float, overlap: float, n: int,
           blocked: Sequence[tuple[float, float]]) -> list[float]:
    """Where the ``n - 1`` seams of one axis go: the covering piece's cut, measured from
    the start of the axis.  Piece ``c`` covers [seam(c) - overlap, seam(c + 1)], no
    longer than ``room``.  Each seam goes where equal pieces put it, or else to the
    nearest place ``SEAM_CLEARANCE`` clear of every interval to avoid (``blocked``: those
    intervals widened by the clearance, ``_union``) that keeps every piece inside
    ``room`` (left where it is if there is none: ``seam_conflicts``)."""
    if n <= 1:
        return []
    length = (board + (n - 1) * overlap) / n
    seams: list[float] = []
    previous = overlap          # the first piece starts at 0
    starts = [a for a, _ in blocked]
    # every edge of the blocked union, in order (no edge lies inside another interval)
    edges = [v for a, b in blocked for v in (a, b)]
    for c in range(1, n):
        preferred = c * (length - overlap) + overlap
        low = max(previous + EPS, board - (n - c) * (room - overlap))
        high = previous - overlap + room
        # the free places: where equal pieces put the seam, unless it is blocked, and the
        # edges inside [low, high]; the nearest (then the lowest) is chosen
        inside = bisect_left(starts, preferred) - 1
        free = [] if inside >= 0 and preferred < blocked[inside][1] else [preferred]
        free = [v for v in free if low - EPS <= v <= high + EPS]
        first = bisect_left(edges, low - EPS)
        last = bisect_right(edges, high + EPS)
        here = bisect_left(edges, preferred, first, last)
        if here < last:                  # the nearest edge at or above the preferred place
            free.append(edges[here])
        if here > first:                 # below it: the nearest, and of equal ones the lowest
            k = here - 1
            while k > first and preferred - edges[k - 1] == preferred - edges[k]:
                k -= 1
            free.append(edges[k])
        chosen = min(free, key=lambda v: (abs(v - preferred), v)) if free else preferred
        seams.append(chosen)
        previous = chosen
    return seams


def _union(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """Open intervals merged where they overlap, in order; two that only touch stay
    apart, since the point they share lies inside neither."""
    merged: list[tuple[float, float]] = []
    for a, b in sorted(intervals):
        if merged and a < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _blocked(avoid: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """The places a seam must not fall: each interval widened by ``SEAM_CLEARANCE``."""
    return _union([(a - SEAM_CLEARANCE, b + SEAM_CLEARANCE) for a, b in avoid])


class _Crossings:
    """How many of one axis's intervals each seam comes within ``SEAM_CLEARANCE`` of,
    counted by bisection: those that start before it less those that end at or before
    it (an interval ends after it starts)."""

    def __init__(self, avoid: Iterable[tuple[float, float]]):
        pairs = [(a - SEAM_CLEARANCE, b + SEAM_CLEARANCE) for a, b in avoid]
        self.lows = sorted(a for a, _ in pairs)
        self.highs = sorted(b for _, b in pairs)

    def __call__(self, seams: Iterable[float]) -> int:
        return sum(bisect_left(self.lows, x) - bisect_right(self.highs, x) for x in seams)


def _spans(board: float, overlap: float, seams: list[float]) -> list[tuple[float, float]]:
    """(start, length) of each piece along one axis, from its seams."""
    starts = [0.0] + [v - overlap for v in seams]
    ends = seams + [board]
    return [(a, b - a) for a, b in zip(starts, ends)]


def _layout(board_w: float, board_h: float, paper: tuple[float, float], margin: float,
            overlap: float, blocked_x: Sequence[tuple[float, float]] = (),
            blocked_down: Sequence[tuple[float, float]] = (), extra: tuple[int, int] = (0, 0)
            ) -> Tiling:
    """One candidate tiling; ``blocked_x`` and ``blocked_down`` (``_blocked``) are the
    places a seam must not fall, x and measured down from the board's top edge."""
    pw, ph = paper
    cols, _ = _split(board_w, pw - 2 * margin, overlap)
    rows, _ = _split(board_h, ph - 2 * margin, overlap)
    cols, rows = cols + (extra[0] if cols > 1 else 0), rows + (extra[1] if rows > 1 else 0)
    xs = _spans(board_w, overlap, _seams(board_w, pw - 2 * margin, overlap, cols, blocked_x))
    # rows count from the top: seams measured down from the board's top edge
    ys = _spans(board_h, overlap, _seams(board_h, ph - 2 * margin, overlap, rows,
                                         blocked_down))
    tiles = []
    for row in range(rows):
        for col in range(cols):
            page = row * cols + col
            (x0, tw), (y0, th) = xs[col], ys[row]
            area = Rect(x0, board_h - y0 - th, tw, th)
            placed = Rect((pw - tw) / 2, (ph - th) / 2, tw, th)
            tiles.append(Tile(
                page, row, col, area, placed,
                left=page - 1 if col > 0 else None,
                right=page + 1 if col < cols - 1 else None,
                above=page - cols if row > 0 else None,
                below=page + cols if row < rows - 1 else None))
    return Tiling((board_w, board_h), paper, margin, overlap, rows, cols, tuple(tiles))


#: Tilings already worked out, by the exact bits of their arguments: the boards of a
#: ``for_each`` entry often guard the same boxes, and the check stage and the drawing
#: ask for the same tilings.  A tiling is a pure function of its arguments.
_TILINGS: dict[bytes, Tiling] = {}
_TILINGS_MAX = 64


def tile(board_w: float, board_h: float, paper_w: float, paper_h: float, margin: float,
         overlap: float, avoid_x: Sequence[tuple[float, float]] = (),
         avoid_y: Sequence[tuple[float, float]] = ()) -> Tiling:
    """Cut a board into the fewest pages, each part inside the page margins.

    Adjacent tiles share a strip exactly ``overlap`` wide (the glue strip);
    all tiles are the same size and centred on their pages.  Tries the paper
    portrait and landscape; picks fewer pages, then less waste (the area
    printed twice), then portrait.  A board that fits inside the margins of
    one page is one page, without overlap.  Seams (the covering sheet's cut)
    keep clear of the board x ranges ``avoid_x`` and y ranges ``avoid_y``
    (board coordinates, y up) where the pieces' room allows: the pieces are
    then no longer equal.
    """
    flat = [board_w, board_h, paper_w, paper_h, margin, overlap, len(avoid_x),
            *(v for pair in avoid_x for v in pair), *(v for pair in avoid_y for v in pair)]
    # floats only, told by their bits (0.0 apart from -0.0); anything else is not kept
    key = array("d", flat).tobytes() if all(type(v) is float for v in flat[:6]) and all(
        type(v) is float for v in flat[7:]) else None
    found = _TILINGS.get(key) if key is not None else None
    if found is None:
        found = _tile(board_w, board_h, paper_w, paper_h, margin, overlap, avoid_x, avoid_y)
        if key is not None:
            if len(_TILINGS) >= _TILINGS_MAX:
                _TILINGS.clear()
            _TILINGS[key] = found
    return found


def _tile(board_w: float, board_h: float, paper_w: float, paper_h: float, margin: float,
          overlap: float, avoid_x: Sequence[tuple[float, float]],
          avoid_y: Sequence[tuple[float, float]]) -> Tiling:
    values = (board_w, board_h, paper_w, paper_h, margin, overlap)
    if not all(math.isfinite(v) for v in values):
        raise fail("board tiling needs finite sizes")
    if board_w <= 0 or board_h <= 0:
        raise fail(f"board size must be more than 0 (got {show_mm(board_w)} x {show_mm(board_h)})")
    if margin < 0 or overlap < 0:
        raise fail("board margin and overlap must be 0 or more")
    short, long_ = sorted((paper_w, paper_h))
    room = short - 2 * margin
    if room <= overlap + EPS:
        raise fail(f"a {show_mm(margin)} margin and {show_mm(overlap)} glue strip leave no room "
                   f"for the board on {show_mm(short)} x {show_mm(long_)} paper",
                   hint="use a smaller margin or overlap")
    extras = [(0, 0)] + ([(1, 0), (0, 1), (1, 1)] if avoid_x or avoid_y else [])
    # the places a seam must not fall, worked out once for every candidate
    blocked_x = _blocked(avoid_x)
    blocked_down = _blocked([(board_h - b, board_h - a) for a, b in avoid_y])
    options = [_layout(board_w, board_h, paper, margin, overlap, blocked_x, blocked_down,
                       extra)
               for extra in extras for paper in ((short, long_), (long_, short))]
    across_x, across_y = _Crossings(avoid_x), _Crossings(avoid_y)
    crossed = []
    for t in options:
        xs, ys = seams(t)
        crossed.append(across_x(xs) + across_y(ys))
    clean = any(c == 0 for c in crossed)

    def cost(n: int) -> tuple[int, int, int, float, bool]:
        # an extra row or column of sheets only if it clears every seam
        t = options[n]
        printed = sum(x.area.w * x.area.h for x in t.tiles)
        first = crossed[n] if clean else 0
        return (first, t.pages, crossed[n], round(printed - board_w * board_h, 6),
                t.landscape)

    return options[min(range(len(options)), key=cost)]


def seams(tiling: Tiling) -> tuple[list[float], list[float]]:
    """The board x of every vertical seam and the board y of every horizontal one:
    where the covering sheet's cut edge lies (its right edge, its bottom edge)."""
    xs = sorted({t.area.right for t in tiling.tiles if t.right is not None})
    ys = sorted({t.area.y for t in tiling.tiles if t.below is not None})
    return xs, ys


def seam_conflicts(tiling: Tiling, boxes: Sequence[tuple[str, Rect]]) -> list[str]:
    """Every ``(name, rect)`` box (board coordinates) a seam crosses or comes within
    ``SEAM_CLEARANCE`` of, as ``"the seam 250.4 mm from the left crosses port[2]"``."""
    xs, ys = seams(tiling)
    found = []
    for x in xs:
        for name, r in boxes:
            if r.x - SEAM_CLEARANCE < x < r.right + SEAM_CLEARANCE:
                found.append(f"the seam {show_mm(x)} from the left crosses {name}")
    for y in ys:
        for name, r in boxes:
            if r.y - SEAM_CLEARANCE < y < r.top + SEAM_CLEARANCE:
                found.append(f"the seam {show_mm(tiling.board[1] - y)} from the top "
                             f"crosses {name}")
    return found


def page_map_label(tiling: Tiling, tile: Tile) -> str:
    """``"sheet 2 of 4 - glue to the right of sheet 1"`` (sheets count from 1)."""
    head = f"sheet {tile.page + 1} of {tiling.pages}"
    if not tiling.tiled:
        return head
    parts = []
    if tile.left is not None:
        parts.append(f"to the right of sheet {tile.left + 1}")
    if tile.above is not None:
        parts.append(f"below sheet {tile.above + 1}")
    if not parts:
        return f"{head} - top left corner of the board"
    return f"{head} - glue {' and '.join(parts)}"
