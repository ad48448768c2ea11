"""Board tiling: a board larger than the paper cut into equal, overlapping sheets.

The arithmetic only (``render.tiles`` draws the sheets): how many sheets a
board needs each way, where each sheet's part of the board lands on the
paper, which sheets neighbour which, and the glue strip two neighbours
share.  Sizes in points, PDF coordinates (origin bottom-left, y up); rows
count from the top of the board.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import fail
from .imposition import EPS, Rect
from .units import show_mm

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


def _layout(board_w: float, board_h: float, paper: tuple[float, float], margin: float,
            overlap: float) -> Tiling:
    pw, ph = paper
    cols, tw = _split(board_w, pw - 2 * margin, overlap)
    rows, th = _split(board_h, ph - 2 * margin, overlap)
    placed = Rect((pw - tw) / 2, (ph - th) / 2, tw, th)
    tiles = []
    for row in range(rows):
        for col in range(cols):
            page = row * cols + col
            area = Rect(col * (tw - overlap), board_h - row * (th - overlap) - th, tw, th)
            tiles.append(Tile(
                page, row, col, area, placed,
                left=page - 1 if col > 0 else None,
                right=page + 1 if col < cols - 1 else None,
                above=page - cols if row > 0 else None,
                below=page + cols if row < rows - 1 else None))
    return Tiling((board_w, board_h), paper, margin, overlap, rows, cols, tuple(tiles))


def tile(board_w: float, board_h: float, paper_w: float, paper_h: float, margin: float,
         overlap: float) -> Tiling:
    """Cut a board into the fewest pages, each part inside the page margins.

    Adjacent tiles share a strip exactly ``overlap`` wide (the glue strip);
    all tiles are the same size and centred on their pages.  Tries the paper
    portrait and landscape; picks fewer pages, then less waste (the area
    printed twice), then portrait.  A board that fits inside the margins of
    one page is one page, without overlap.
    """
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
    options = [_layout(board_w, board_h, paper, margin, overlap)
               for paper in ((short, long_), (long_, short))]

    def cost(t: Tiling) -> tuple[int, float, bool]:
        printed = t.pages * t.tiles[0].area.w * t.tiles[0].area.h
        return (t.pages, round(printed - board_w * board_h, 6), t.landscape)

    return min(options, key=cost)


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
