"""Saddle-stitch imposition: page pairs for a folded booklet, and where they go.

A booklet of ``n`` pages is printed two pages to a side on sheets folded once
and nested, so the page count is padded to a multiple of four ``m`` with
blank pages at the end (the back cover is page ``m``).  Sheet ``k`` (0-based,
the outermost first) carries on its front ``(m - 2k, 2k + 1)`` and on its back
``(2k + 2, m - 2k - 1)``, left page first.

The order assumes the sheet is turned over about its vertical centre line
(for a landscape sheet: "flip on short edge").  A printer flipping on the long
edge turns the back side upside down, so ``back_rotated`` says when to rotate
back sides by 180 degrees to make up for it.
"""

from __future__ import annotations

from dataclasses import dataclass

Pair = tuple[int | None, int | None]


def padded_count(n_pages: int) -> int:
    """``n_pages`` rounded up to a multiple of four (at least four)."""
    if isinstance(n_pages, bool) or not isinstance(n_pages, int) or n_pages < 1:
        raise ValueError(f"a booklet needs at least one page (got {n_pages!r})")
    return -(-n_pages // 4) * 4


def saddle_stitch_order(n_pages: int) -> list[Pair]:
    """The (left, right) page numbers of each sheet side, in print order.

    Page numbers are 1-based, as printed on the pages; ``None`` is a blank
    added to reach a multiple of four.  Sides alternate front, back, front,
    back...: ``saddle_stitch_order(8)`` is ``[(8, 1), (2, 7), (6, 3), (4, 5)]``.
    """
    m = padded_count(n_pages)

    def page(p: int) -> int | None:
        return p if p <= n_pages else None

    sides: list[Pair] = []
    for k in range(m // 4):
        sides.append((page(m - 2 * k), page(2 * k + 1)))
        sides.append((page(2 * k + 2), page(m - 2 * k - 1)))
    return sides


@dataclass(frozen=True)
class SheetSide:
    """One printed side: its pages (left, right), and whether it is drawn upside down."""

    left: int | None
    right: int | None
    back: bool
    rotated: bool


def back_rotated(duplex: str) -> bool:
    """Whether back sides must be rotated 180 degrees for the printer's flip edge.

    Landscape sheets folded in the middle read right when the sheet turns
    about its short edge; a long-edge flip turns the back upside down.  A
    booklet cannot be glued or folded from two-up sides, so ``glue`` and
    ``fold`` print as ``none``: the stack fed through again.
    """
    if duplex not in ("long", "short", "glue", "fold", "none"):
        raise ValueError(f"duplex is long, short, glue, fold or none (got {duplex!r})")
    return duplex == "long"


def sheet_sides(n_pages: int, duplex: str = "short") -> list[SheetSide]:
    """Sheet sides in the order they are printed.

    With a duplex printer every front is followed by its back.  With
    ``duplex="none"`` every front comes first, then every back in the same
    sheet order, so the stack can be turned over and fed again.
    """
    order = saddle_stitch_order(n_pages)
    rotate = back_rotated(duplex)
    sides = [SheetSide(left, right, i % 2 == 1, rotate and i % 2 == 1)
             for i, (left, right) in enumerate(order)]
    if duplex in ("glue", "fold", "none"):
        return [s for s in sides if not s.back] + [s for s in sides if s.back]
    return sides


def two_up(sheet: tuple[float, float], page: tuple[float, float]
           ) -> tuple[tuple[float, float], tuple[float, float]]:
    """Bottom-left corners of the left and right page on a landscape sheet.

    The pair is centred on the sheet, meeting at the fold; it must fit.
    """
    sw, sh = sheet
    pw, ph = page
    if 2 * pw > sw + 1e-6 or ph > sh + 1e-6:
        raise ValueError(f"two {pw:.1f} x {ph:.1f} pt pages do not fit a "
                         f"{sw:.1f} x {sh:.1f} pt sheet")
    x0 = (sw - 2 * pw) / 2
    y0 = (sh - ph) / 2
    return (x0, y0), (x0 + pw, y0)
