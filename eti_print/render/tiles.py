"""Boards larger than the paper, drawn sheet by sheet: tiles, glue strips, marks, page map.

A board is drawn once into a PDF form; ``draw_tiled`` places it, clipped, on
each sheet of its tiling (``imposition_tiling.tile``).  Assembly: cut every sheet
along its crop marks; a sheet's left and top strips (when it has a neighbour
there) are glue strips, hatched and labelled, that slide under the
neighbouring sheet until that sheet's edge meets the dashed line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import Canvas

from ..imposition import (
    CUT_TOLERANCE,
    DEFAULT_EDGE_CLEARANCE,
    DEFAULT_MARK_STROKE,
    MARK_HALO,
    MIN_MARK,
    MIN_MARK_STROKE,
    Line,
    Rect,
)
from ..imposition_tiling import Tile, Tiling, page_map_label
from ..text import TextStyle, fit_markup
from ..text import draw as draw_text
from ..units import mm
from .board_cover import draw_cover
from .marks import draw_crop_marks
from .scale import Footprint, draw_scale_check, find_spot

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context

NAVY = "#1E2430"


#: How far a tile prints past a cut line that covers a neighbour's glue strip (its
#: right and bottom edges): a cut up to this far outside the line shows the board.
COVER_BLEED = mm(2)
#: The glue strip stays blank (the board only, no hatching) this far from the line the
#: covering sheet's edge is laid on, so a sheet laid up to that far off shows no hatching.
GLUE_CLEAR = mm(2)


def edge_bleeds(t: Tile, bleed: float) -> tuple[float, float, float, float]:
    """(left, bottom, right, top): how far the tile prints past each cut line: ``bleed``
    on the board's outer edges, ``COVER_BLEED`` where it covers a neighbour's glue strip
    (right, below), nothing where its own glue strip slides under a neighbour."""
    return (bleed if t.left is None else 0.0,
            bleed if t.below is None else min(bleed, COVER_BLEED) if bleed else COVER_BLEED,
            bleed if t.right is None else min(bleed, COVER_BLEED) if bleed else COVER_BLEED,
            bleed if t.above is None else 0.0)


def drawn_rect(tiling: Tiling, t: Tile, bleed: float) -> Rect:
    """The part of the page a tile prints: its area plus ``edge_bleeds``."""
    return t.placed.expanded(*edge_bleeds(t, bleed))


def tile_crop_marks(tiling: Tiling, t: Tile, bleed: float, length: float,
                    offset: float, clearance: float = DEFAULT_EDGE_CLEARANCE,
                    stroke: float = DEFAULT_MARK_STROKE) -> list[Line]:
    """Marks on the extension of the tile's four cut lines, outside its trim.

    Where the tile prints no bleed (a cut towards a neighbouring sheet) a mark starts
    ``offset`` past the cut; across a bleed it starts ``CUT_TOLERANCE`` past the cut,
    in the bleed (cut off with it; the 8 mm board margin holds no full mark past a
    3 mm bleed ``clearance`` from the paper edge).  No mark comes within ``clearance``
    of the paper edge; a mark shorter than ``MIN_MARK`` is left out.
    """
    p = t.placed
    pw, ph = tiling.paper
    cap = clearance + (max(stroke, MIN_MARK_STROKE) + MARK_HALO) / 2 + 0.01

    def start(past: float) -> float:
        return max(offset, CUT_TOLERANCE) if past > 0 else offset

    left_b, bottom_b, right_b, top_b = edge_bleeds(t, bleed)
    s_top, s_bottom = start(top_b), start(bottom_b)
    s_left, s_right = start(left_b), start(right_b)

    def room(available: float) -> float:
        value = min(length, available - cap)
        return value if value + 1e-6 >= MIN_MARK else 0.0

    top, bottom = room(ph - p.top - s_top), room(p.y - s_bottom)
    left, right = room(p.x - s_left), room(pw - p.right - s_right)
    lines = []
    for x in (p.x, p.right):
        if top:
            lines.append(Line(x, p.top + s_top, x, p.top + s_top + top))
        if bottom:
            lines.append(Line(x, p.y - s_bottom, x, p.y - s_bottom - bottom))
    for y in (p.y, p.top):
        if left:
            lines.append(Line(p.x - s_left, y, p.x - s_left - left, y))
        if right:
            lines.append(Line(p.right + s_right, y, p.right + s_right + right, y))
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

    def __init__(self, ctx: Context):
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


def draw_tile_page(canvas: Canvas, form: str, board: Any, tiling: Tiling, t: Tile,
                   settings: Any, text: _Text, hatches: dict[tuple, str]) -> None:
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
                                            settings.mark_offset,
                                            stroke=settings.mark_stroke),
                    settings.mark_stroke)
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


def hatched_part(side: str, strip: Rect) -> Rect:
    """The hatched part of a glue strip: all of it but ``GLUE_CLEAR`` next to the line the
    covering sheet's edge is laid on (the strip's inner edge)."""
    if side == "left":
        return Rect(strip.x, strip.y, strip.w - GLUE_CLEAR, strip.h)
    return Rect(strip.x, strip.y + GLUE_CLEAR, strip.w, strip.h - GLUE_CLEAR)


def _draw_glue_strip(canvas: Canvas, side: str, strip: Rect, neighbour: int, tiling: Tiling,
                     text: _Text, hatches: dict[tuple, str]) -> None:
    hatched = hatched_part(side, strip)
    canvas.saveState()
    canvas.translate(hatched.x, hatched.y)
    canvas.doForm(hatches[(round(hatched.w, 3), round(hatched.h, 3))])
    canvas.restoreState()
    # the line the neighbour's cut edge is laid on: marked in the margins only, so the
    # GLUE_CLEAR next to it shows nothing but the board
    canvas.saveState()
    canvas.setStrokeColor(HexColor(NAVY))
    canvas.setLineWidth(0.6)
    pw, ph = tiling.paper
    edge = DEFAULT_EDGE_CLEARANCE + 0.35   # no ink in the border a printer leaves blank
    if side == "left":
        x = strip.right
        canvas.line(x, strip.top + mm(1), x, min(ph - edge, strip.top + mm(6)))
        canvas.line(x, strip.y - mm(1), x, max(edge, strip.y - mm(6)))
    else:
        y = strip.y
        canvas.line(strip.x - mm(1), y, max(edge, strip.x - mm(6)), y)
        canvas.line(strip.right + mm(1), y, min(pw - edge, strip.right + mm(6)), y)
    canvas.restoreState()
    label = f"GLUE - SHEET {neighbour + 1} COVERS THIS STRIP UP TO THE LINE MARKED AT ITS ENDS"
    strip = hatched   # the label stays clear of the line too
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


def _draw_page_map(canvas: Canvas, board: Any, tiling: Tiling, t: Tile, d: Rect,
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


def draw_tiled(canvas: Canvas, ctx: Context, boards: Sequence[Any], forms: Sequence[str],
               tilings: Sequence[Any], marks: Any, cover: str | None = None) -> int:
    """Every board form on its tile pages (glue strips, marks, page map, bookmarks).

    ``boards`` need ``id`` and ``title``; ``marks`` is what ``draw_tile_page``
    reads the glue-strip and mark settings from; ``cover``, a title, puts the
    scale check beside the first board when it is one sheet with room for it, else
    with the file's contents on a first sheet of their own (``board_cover``).
    Returns the page count.
    """
    text = _Text(ctx)
    spot = None          # a first board on one sheet with room beside it takes the check
    if cover is not None and tilings and not tilings[0].tiled:
        d = drawn_rect(tilings[0], tilings[0].tiles[0], boards[0].spec.bleed)
        spot = find_spot(tilings[0].paper, Footprint(ctx.sheets.scale).size,
                         [d.outset(mm(5))], DEFAULT_EDGE_CLEARANCE)     # board and marks
    if cover is not None and tilings and spot is None:
        canvas.setPageSize(tilings[0].paper)
        draw_cover(canvas, text, cover, boards, tilings, ctx.sheets.scale,
                   ctx.fonts["body"].regular)
    hatches: dict[tuple, str] = {}
    for tiling in tilings:
        for t in tiling.tiles:
            for side, strip, _ in glue_strips(tiling, t):
                hatched = hatched_part(side, strip)
                _hatch_form(canvas, hatched.w, hatched.h, hatches)
    pages = 1 if cover is not None and tilings and spot is None else 0
    for board, form, tiling in zip(boards, forms, tilings):
        key = f"board-{board.id}"
        for t in tiling.tiles:
            canvas.setPageSize(tiling.paper)
            if t.page == 0:
                canvas.bookmarkPage(key)
                sheets = f"{tiling.pages} sheets" if tiling.pages > 1 else "1 sheet"
                canvas.addOutlineEntry(f"{board.title} ({sheets})", key, level=0)
            draw_tile_page(canvas, form, board, tiling, t, marks, text, hatches)
            if spot is not None and pages == 0:
                draw_scale_check(canvas, ctx.sheets.scale, *spot, ctx.fonts["body"].regular)
            canvas.showPage()
            pages += 1
    return pages

