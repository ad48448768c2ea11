"""Where a sheet's label goes: a strip of margin a printer prints, clear of every mark.

Every card sheet says what it is (file, deck, "sheet n of m", FRONT or BACK,
paper) in a line of small text in its top or bottom margin.  The strip lies
``edge_clearance`` or more from the paper edge (home printers leave their
outer 3-6 mm blank), stops ``LABEL_GAP`` short of the nearest bleed, and
runs between the marks that cross that margin, so no text touches a mark or
a card.  Every size is in points, in PDF coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence

from .imposition import EPS, Line, Rect, SheetSpec, Slot, bounding
from .units import mm

#: Space kept between the label and any bleed or mark.
LABEL_GAP = mm(0.5)
#: The smallest label text, in points, and the strip height it needs.
LABEL_MIN_SIZE = 6.0
LABEL_MIN_HEIGHT = LABEL_MIN_SIZE * 1.2


def _free_runs(x0: float, x1: float, blocked: Sequence[tuple[float, float]]
               ) -> list[tuple[float, float]]:
    """The parts of [x0, x1] outside every ``blocked`` interval."""
    runs, start = [], x0
    for a, b in sorted(blocked):
        if a > start + EPS:
            runs.append((start, min(a, x1)))
        start = max(start, b)
    if x1 > start + EPS:
        runs.append((start, x1))
    return [(a, b) for a, b in runs if b - a > EPS]


def label_strips(spec: SheetSpec, slots: Sequence[Slot], marks: Sequence[Line]) -> list[Rect]:
    """Every strip of margin a label could use, at least ``LABEL_MIN_HEIGHT`` high,
    widest first: below and above the grid, between the marks that cross it
    (``slots``: every slot drawn on the page; ``marks``: its marks and fold line)."""
    pw, ph = spec.paper
    b = bounding(s.bleed for s in slots)
    c = spec.edge_clearance
    bands = [(c, b.y - LABEL_GAP), (b.top + LABEL_GAP, ph - c)]
    strips = []
    for y0, y1 in bands:
        if y1 - y0 + EPS < LABEL_MIN_HEIGHT:
            continue
        band = Rect(c, y0, pw - 2 * c, y1 - y0)
        blocked = [(m.bounds().x - LABEL_GAP - spec.mark_stroke,
                    m.bounds().right + LABEL_GAP + spec.mark_stroke)
                   for m in marks if m.meets(band.outset(spec.mark_stroke + LABEL_GAP))]
        blocked += [(s.bleed.x - LABEL_GAP, s.bleed.right + LABEL_GAP) for s in slots
                    if s.bleed.overlaps(band)]
        strips += [Rect(a, y0, z - a, y1 - y0) for a, z in _free_runs(band.x, band.right,
                                                                        blocked)]
    return sorted(strips, key=lambda r: (-r.w, r.y))
