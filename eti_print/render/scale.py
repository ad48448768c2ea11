"""The scale check on the first sheet of every file: a square of a known size (25 mm
unless ``scale_check:`` in sheets.yaml says otherwise) with a label beside it, so a
player can measure the first sheet out of the printer before printing the rest.

The square's outer edge is the measure: a black frame drawn inwards from it (K ink
only), so a ruler laid along any side reads the size exactly.  The label stands to
its right, in lines of ``LABEL_SIZE`` black text.  Every job finds the square a
place of its own on its first sheet (``Footprint`` gives the room it needs): in the
printable area, clear of every piece's bleed and every mark.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from ..imposition import EPS, Line, Rect, Slot, bounding
from ..sheets import ScaleCheck
from ..units import mm

#: The frame's width, drawn inside the square's edge.
FRAME = mm(0.5)
#: Space between the square and its label.
GAP = mm(2)
#: The label's width beside the square, and its text size (above every pack minimum).
LABEL_W = mm(30)
LABEL_SIZE = 6.5
#: Space kept between the scale check and anything else on the sheet.
CLEAR = mm(1.5)


@dataclass(frozen=True)
class Footprint:
    """The room the scale check takes: the square, the gap and the label."""

    check: ScaleCheck

    @property
    def size(self) -> tuple[float, float]:
        return self.check.size + GAP + LABEL_W, self.check.size

    def rect(self, x: float, y: float) -> Rect:
        return Rect(x, y, *self.size)


def draw_scale_check(canvas: Canvas, check: ScaleCheck, x: float, y: float, font: str,
                     bold: str | None = None, ink: Any = None) -> Rect:
    """The square with its lower left corner at (x, y) and its label, in black ink (K
    only) or ``ink`` (a colour, on a dark ground); the square's rect."""
    s = check.size
    canvas.saveState()
    if ink is None:
        canvas.setFillColorCMYK(0, 0, 0, 1)
    else:
        canvas.setFillColor(ink)
    path = canvas.beginPath()
    path.rect(x, y, s, s)
    path.rect(x + FRAME, y + FRAME, s - 2 * FRAME, s - 2 * FRAME)
    canvas.drawPath(path, stroke=0, fill=1, fillMode=0)      # even-odd: a frame
    size = f"{s / mm(1):g} mm"
    canvas.setFont(bold or font, 9)
    canvas.drawCentredString(x + s / 2, y + s / 2 - 3, size)
    font = bold if ink is not None and bold else font      # light on dark: bold
    canvas.setFont(font, LABEL_SIZE)
    lines = wrap(check.label, canvas, font, LABEL_SIZE, LABEL_W)
    leading = LABEL_SIZE * 1.2
    top = y + s / 2 + leading * len(lines) / 2 - LABEL_SIZE * 0.8
    for n, line in enumerate(lines):
        canvas.drawString(x + s + GAP, top - n * leading, line)
    canvas.restoreState()
    return Rect(x, y, s, s)


def wrap(text: str, canvas: Canvas, font: str, size: float, width: float) -> list[str]:
    """``text`` in lines no wider than ``width``, broken at plain spaces only (a no-break
    space keeps ``100 %`` together)."""
    lines: list[str] = []
    for word in text.split(" "):
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and canvas.stringWidth(joined, font, size) <= width:
            lines[-1] = joined
        else:
            lines.append(word)
    return lines


def find_spot(paper: tuple[float, float], size: tuple[float, float],
              taken: Sequence[Rect], clearance: float) -> tuple[float, float] | None:
    """The lower left corner of a ``size`` rect inside the paper less ``clearance``
    that keeps ``CLEAR`` from every rect of ``taken``, or None: tried at the corners of
    the printable area first (bottom left, bottom right, top left, top right), then
    beside every taken rect."""
    w, h = size
    area = Rect(0, 0, *paper).inset(clearance)
    xs = [area.x, area.right - w] + [r.right + CLEAR for r in taken] + \
         [r.x - CLEAR - w for r in taken]
    ys = [area.y, area.top - h] + [r.top + CLEAR for r in taken] + \
         [r.y - CLEAR - h for r in taken]
    for y in ys:
        for x in xs:
            spot = Rect(x, y, w, h)
            if not area.contains(spot, EPS):
                continue
            if any(spot.overlaps(r.outset(CLEAR - EPS)) for r in taken):
                continue
            return x, y
    return None


def reserve(slots: Sequence[Slot], size: tuple[float, float]
            ) -> tuple[frozenset[int], tuple[float, float]] | None:
    """The fewest slots in the bottom right corner of a grid whose trims (and the
    gutters between them) hold a ``size`` rect with ``CLEAR`` round it: their indices and
    the rect's lower left corner, centred in them; None if the whole grid is too small."""
    w, h = size
    xs = sorted({round(s.trim.x, 4) for s in slots}, reverse=True)
    ys = sorted({round(s.trim.y, 4) for s in slots})
    shapes = sorted(((c, r) for c in range(1, len(xs) + 1) for r in range(1, len(ys) + 1)),
                    key=lambda cr: (cr[0] * cr[1], cr[1]))
    for cols, rows in shapes:
        chosen = [s for s in slots if round(s.trim.x, 4) >= xs[cols - 1]
                  and round(s.trim.y, 4) <= ys[rows - 1]]
        region = bounding(s.trim for s in chosen)
        if region.w + EPS >= w + 2 * CLEAR and region.h + EPS >= h + 2 * CLEAR:
            return (frozenset(s.index for s in chosen),
                    (region.x + (region.w - w) / 2, region.y + (region.h - h) / 2))
    return None


def clear_of(lines: Sequence[Line], spot: Rect) -> list[Line]:
    """``lines`` less those that come within ``CLEAR`` of the scale check (the marks
    across gutters inside the slots it takes: their cut lines are marked elsewhere)."""
    keep = spot.outset(CLEAR)
    return [ln for ln in lines if not ln.meets(keep)]
