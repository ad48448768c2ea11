"""The first sheet of a boards file: the scale check and what the file holds.

A board sheet is covered by its board to the margins, so no 25 mm square fits
beside it; the file starts with a sheet of its own, printed on plain paper
first: the scale check, how to print, and every board with its sheets and
pages (and, for a tiled board, how the sheets go together).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from ..imposition import DEFAULT_EDGE_CLEARANCE
from ..sheets import ScaleCheck
from ..units import mm
from .scale import draw_scale_check

#: The cover's text sizes (points) and its margin.
TITLE_SIZE, BODY_SIZE = 16, 9
MARGIN = mm(15)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cover_lines(boards: Sequence[Any], tilings: Sequence[Any]) -> list[str]:
    """One line per board: its sheets and the pages they are on (the cover is page 1)."""
    lines, page = [], 2
    for board, tiling in zip(boards, tilings):
        n = tiling.pages
        pages = f"page {page}" if n == 1 else f"pages {page}-{page + n - 1}"
        how = f"{n} sheets, {tiling.cols} x {tiling.rows}" if n > 1 else "1 sheet"
        lines.append(f"<b>{_escape(board.title)}</b>: {pages}, {how}")
        page += n
    return lines


def draw_cover(canvas: Canvas, text: Any, title: str, boards: Sequence[Any],
               tilings: Sequence[Any], scale: ScaleCheck, font: str) -> None:
    """The cover on the current page (the first board's paper) and ``showPage``."""
    pw, ph = tilings[0].paper
    x, w = MARGIN, pw - 2 * MARGIN
    top = ph - MARGIN
    text.draw(canvas, f"<b>{_escape(title)}</b>", x, top - mm(9), w, mm(9), role="title",
              size=TITLE_SIZE, align="left", valign="top")
    top -= mm(13)
    check_y = top - scale.size
    draw_scale_check(canvas, scale, x, check_y, font)
    intro = ("Print this sheet first, on plain paper, at 100\u00a0% (actual size, fit to "
             "page off), and measure the square. When it is right, print the other "
             "sheets with the same settings. Cut each sheet on its crop marks; on a board "
             "of several sheets, glue each hatched strip under its neighbour (the map on "
             "each sheet shows where it goes).")
    left = x + mm(65)
    text.draw(canvas, intro, left, check_y, pw - MARGIN - left, scale.size, role="body",
              size=BODY_SIZE, align="left", valign="middle")
    top = check_y - mm(8)
    lines = cover_lines(boards, tilings)
    room = top - max(MARGIN, DEFAULT_EDGE_CLEARANCE)
    each = min(mm(6), room / max(1, len(lines)))
    for line in lines:
        text.draw(canvas, line, x, top - each, w, each, role="body", size=BODY_SIZE,
                  align="left", valign="top")
        top -= each
    canvas.showPage()
