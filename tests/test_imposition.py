"""Sheet geometry as numbers: grids, bleed, duplex registration, crop marks, tiling."""

from __future__ import annotations

import io
import itertools
import math

import pytest
from reportlab.pdfgen.canvas import Canvas

from eti_print.errors import InputError
from eti_print.imposition import (
    DEFAULT_MARK_STROKE,
    MARK_HALO,
    MIN_MARK,
    REGISTER_TOLERANCE,
    Line,
    Rect,
    SheetSpec,
    Slot,
    back_rect,
    back_slots,
    bounding,
    crop_marks,
    flip,
    front_slots,
    grid,
    registered,
    unmarked_edges,
)
from eti_print.imposition_tiling import Tiling, page_map_label, tile
from eti_print.render.marks import draw_crop_marks
from eti_print.units import PAPER, mm, to_mm

POKER = (mm(63.5), mm(88.9))
BLEED = mm(3)
PAPERS = ["a4", "letter"]
GUTTER = mm(4)
#: (cols, rows, landscape) of poker cards with 4 mm gutters
POKER_GRID = {"a4": (3, 3, False), "letter": (4, 2, True)}


def poker(paper: str = "a4", **options: object) -> SheetSpec:
    """Poker cards as a build imposes them: 4 mm gutters, the paper turned if that fits more."""
    options = {"gutter": GUTTER, "rotate": True, **options}
    return SheetSpec.fit(PAPER[paper], POKER, bleed=BLEED, **options)  # type: ignore[arg-type]


# --- Rect ----------------------------------------------------------------

def test_rect_helpers() -> None:
    r = Rect(10, 20, 30, 40)
    assert (r.right, r.top, r.center) == (40, 60, (25, 40))
    assert r.inset(5) == Rect(15, 25, 20, 30)
    assert r.outset(5) == Rect(5, 15, 40, 50)
    assert r.expanded(1, 2, 3, 4) == Rect(9, 18, 34, 46)
    assert r.mirrored_x(100) == Rect(60, 20, 30, 40)
    assert r.mirrored_y(100) == Rect(10, 40, 30, 40)
    assert r.mirrored_x(100).mirrored_x(100) == r
    assert r.almost_equal(Rect(10 + 1e-7, 20, 30, 40))
    assert not r.almost_equal(Rect(10.01, 20, 30, 40))
    assert r.overlaps(Rect(39, 59, 5, 5))
    assert not r.overlaps(Rect(40, 20, 5, 5))  # touching is not overlapping
    assert r.intersection(Rect(30, 50, 20, 20)) == Rect(30, 50, 10, 10)
    assert bounding([r, Rect(0, 0, 1, 1)]) == Rect(0, 0, 40, 60)
    assert Line(0, 0, 0, 5).meets(Rect(-1, 5, 2, 2))
    assert not Line(0, 0, 0, 5).meets(Rect(-1, 5.1, 2, 2))


# --- the card grid ---------------------------------------------------------

@pytest.mark.parametrize("paper", PAPERS)
def test_poker_nine_on_a4_eight_on_letter_landscape_centred(paper: str) -> None:
    spec = poker(paper)
    assert (spec.cols, spec.rows, spec.landscape) == POKER_GRID[paper]
    m = spec.margins
    assert m.left == pytest.approx(m.right, abs=1e-6)
    assert m.top == pytest.approx(m.bottom, abs=1e-6)
    slots = front_slots(spec)
    assert len(slots) == spec.per_sheet
    for slot in slots:
        assert slot.trim.w == pytest.approx(mm(63.5), abs=1e-9)
        assert slot.trim.h == pytest.approx(mm(88.9), abs=1e-9)
        assert Rect(0, 0, *spec.paper).contains(slot.bleed)
    g = bounding(s.trim for s in slots)
    assert g.almost_equal(spec.grid)
    assert g.x == pytest.approx(spec.paper[0] - g.right, abs=1e-6)
    assert g.y == pytest.approx(spec.paper[1] - g.top, abs=1e-6)


@pytest.mark.parametrize("paper, side, top", [("a4", 5.75, 11.15), ("letter", 6.7, 17.05)])
def test_poker_margins_in_mm(paper: str, side: float, top: float) -> None:
    m = poker(paper).margins
    assert to_mm(m.left) == pytest.approx(side, abs=1e-9)
    assert to_mm(m.top) == pytest.approx(top, abs=1e-9)


def test_nine_on_letter_breaks_a_rule() -> None:
    # portrait Letter holds three rows only with gutters under 2 mm (a 1 mm miscut shows
    # the neighbour) or margins under 5 mm (the outer trims in the unprintable border)
    assert poker("letter", rotate=False).per_sheet == 6
    narrow = SheetSpec(PAPER["letter"], POKER, BLEED, gutter=mm(2), cols=3, rows=3)
    assert to_mm(narrow.margins.top) == pytest.approx(4.35)


def test_slots_in_reading_order_and_abutting() -> None:
    slots = front_slots(poker())
    assert [(s.index, s.row, s.col) for s in slots] == [
        (i, i // 3, i % 3) for i in range(9)]
    assert slots[0].trim.top > slots[3].trim.top  # row 0 is at the top
    for a, b in zip(slots, slots[1:]):
        if a.row == b.row:
            assert b.trim.x == pytest.approx(a.trim.right + GUTTER, abs=1e-9)
    assert slots[3].trim.top + GUTTER == pytest.approx(slots[0].trim.y, abs=1e-9)


def test_bleed_only_on_the_grid_outside_when_cards_abut() -> None:
    slots = front_slots(poker(gutter=0.0, edge_clearance=0.0))
    centre = slots[4]
    assert centre.bleed == centre.trim
    corner = slots[0]
    assert corner.bleed.almost_equal(corner.trim.expanded(BLEED, 0, 0, BLEED))
    last = slots[8]
    assert last.bleed.almost_equal(last.trim.expanded(0, BLEED, BLEED, 0))
    for a, b in itertools.combinations(slots, 2):
        assert not a.bleed.overlaps(b.bleed)
    assert bounding(s.bleed for s in slots).almost_equal(
        poker(gutter=0.0, edge_clearance=0.0).grid.outset(BLEED))


def test_gutter_shares_the_space_between_cards() -> None:
    spec = poker(gutter=mm(4))
    slots = front_slots(spec)
    assert slots[1].trim.x - slots[0].trim.right == pytest.approx(mm(4))
    centre = slots[4]
    assert centre.bleed.almost_equal(centre.trim.outset(mm(2)))
    for a, b in itertools.combinations(slots, 2):
        assert not a.bleed.overlaps(b.bleed)
    wide = front_slots(poker(gutter=mm(10)))
    assert wide[4].bleed.almost_equal(wide[4].trim.outset(BLEED))


def test_fit_counts() -> None:
    assert (poker("a4").cols, poker("a4").rows) == (3, 3)
    landscape = SheetSpec.fit((PAPER["a4"][1], PAPER["a4"][0]), POKER, BLEED, gutter=GUTTER)
    assert (landscape.cols, landscape.rows) == (4, 2)
    bridge = SheetSpec.fit(PAPER["a4"], (mm(57.15), mm(88.9)), BLEED, gutter=GUTTER)
    assert (bridge.cols, bridge.rows) == (3, 3)
    tarot = SheetSpec.fit(PAPER["letter"], (mm(69.85), mm(120.65)), BLEED, gutter=GUTTER)
    assert (tarot.cols, tarot.rows) == (2, 2)


def test_explicit_cols_and_rows() -> None:
    spec = SheetSpec(PAPER["a4"], POKER, BLEED, cols=2, rows=1)
    assert spec.per_sheet == 2
    assert spec.margins.left == pytest.approx(spec.margins.right)


def test_too_many_cards_is_an_error() -> None:
    with pytest.raises(InputError) as info:
        SheetSpec(PAPER["a4"], POKER, BLEED, cols=4, rows=3, where="templates/sheets.yaml")
    assert str(info.value) == (
        "templates/sheets.yaml: 4 x 3 cards of 63.5 x 88.9 mm with 3 mm bleed need "
        "260 x 272.7 mm, but the paper is 210 x 297 mm (hint: use smaller cards, less bleed "
        "or gutter, or fewer columns/rows)")


def test_card_bigger_than_paper_is_an_error() -> None:
    with pytest.raises(InputError) as info:
        SheetSpec.fit(PAPER["a4"], (mm(300), mm(88.9)), BLEED)
    assert str(info.value) == (
        "a 300 x 88.9 mm card with 3 mm bleed does not fit on 210 x 297 mm paper inside "
        "5 mm margins (hint: use a smaller card, less bleed or bigger paper)")


@pytest.mark.parametrize("options, words", [
    ({"mark_stroke": 0.2}, "stroke must be at least 0.25 pt"),
    ({"duplex": "sideways"}, "unknown duplex mode 'sideways'"),
    ({"bleed": -1.0}, "bleed must be 0 or more"),
    ({"gutter": math.nan}, "gutter must be 0 or more"),
    ({"mark_offset": 0.1}, "crop mark offset must be at least half the stroke"),
    ({"mark_length": 0.0}, "crop mark length must be more than 0"),
    ({"cols": -1}, "cols must be a whole number"),
    ({"rows": 2.5}, "rows must be a whole number"),
    ({"back_offset": (math.inf, 0.0)}, "back offset must be two lengths"),
    ({"card": (0.0, 10.0)}, "card size must be two positive lengths"),
])
def test_bad_specs(options: dict[str, object], words: str) -> None:
    args: dict[str, object] = {"paper": PAPER["a4"], "card": POKER, "bleed": BLEED}
    args.update(options)
    with pytest.raises(InputError) as info:
        SheetSpec(**args)  # type: ignore[arg-type]
    assert words in str(info.value)


# --- duplex ------------------------------------------------------------------

@pytest.mark.parametrize("paper", PAPERS)
@pytest.mark.parametrize("duplex", ["long", "short", "none"])
def test_every_back_registers_with_its_front(paper: str, duplex: str) -> None:
    spec = poker(paper, duplex=duplex)
    fronts, backs = front_slots(spec), back_slots(spec)
    assert [(b.index, b.col, b.row) for b in backs] == [(f.index, f.col, f.row) for f in fronts]
    for f, b in zip(fronts, backs):
        assert registered(f.trim, b.trim, spec)
        assert registered(f.bleed, b.bleed, spec)
        assert b.trim.w == f.trim.w and b.trim.h == f.trim.h


def test_long_edge_mirrors_columns() -> None:
    spec = poker(duplex="long")
    fronts, backs = front_slots(spec), back_slots(spec)
    for b in backs:
        twin = fronts[b.row * 3 + (2 - b.col)]
        assert b.trim.almost_equal(twin.trim)
        assert b.bleed.almost_equal(twin.bleed)
        assert b.trim.x == pytest.approx(spec.paper[0] - fronts[b.index].trim.right, abs=1e-9)


def test_short_edge_reverses_rows() -> None:
    spec = poker("a4", duplex="short")
    fronts, backs = front_slots(spec), back_slots(spec)
    for b in backs:
        twin = fronts[(2 - b.row) * 3 + b.col]
        assert b.trim.almost_equal(twin.trim)
        assert b.bleed.almost_equal(twin.bleed)


def test_none_puts_backs_where_fronts_are() -> None:
    spec = poker(duplex="none")
    for f, b in zip(front_slots(spec), back_slots(spec)):
        assert b.trim == f.trim and b.bleed == f.bleed


def test_landscape_swaps_long_and_short() -> None:
    paper = (PAPER["a4"][1], PAPER["a4"][0])
    long_ = SheetSpec.fit(paper, POKER, BLEED, duplex="long")
    short = SheetSpec.fit(paper, POKER, BLEED, duplex="short")
    assert (long_.mirror_axis, short.mirror_axis) == ("y", "x")
    assert (poker(duplex="long").mirror_axis, poker(duplex="short").mirror_axis) == ("x", "y")
    r = front_slots(long_)[0].trim
    assert back_rect(r, long_) == r.mirrored_y(paper[1])
    assert back_rect(r, short) == r.mirrored_x(paper[0])
    for spec in (long_, short):
        for f, b in zip(front_slots(spec), back_slots(spec)):
            assert registered(f.trim, b.trim, spec)


def test_registration_is_checked_to_a_hundredth_of_a_millimetre() -> None:
    spec = poker()
    f, b = front_slots(spec)[0], back_slots(spec)[0]
    assert registered(f.trim, b.trim.translated(mm(0.009), 0), spec)
    assert not registered(f.trim, b.trim.translated(mm(0.011), 0), spec)
    assert not registered(f.trim, back_slots(spec)[1].trim, spec)
    assert REGISTER_TOLERANCE == pytest.approx(mm(0.01))


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_back_offset_moves_backs_by_exactly_the_offset(duplex: str) -> None:
    offset = (mm(1.5), mm(-0.75))
    plain = poker(duplex=duplex)
    shifted = poker(duplex=duplex, back_offset=offset)
    for p, s, f in zip(back_slots(plain), back_slots(shifted), front_slots(shifted)):
        assert s.trim.x - p.trim.x == pytest.approx(offset[0], abs=1e-9)
        assert s.trim.y - p.trim.y == pytest.approx(offset[1], abs=1e-9)
        assert s.bleed.almost_equal(p.bleed.translated(*offset))
        # fronts never move
        assert f.trim == front_slots(plain)[f.index].trim
        # drawn offset, perfect printer: out of register
        assert not registered(f.trim, s.trim, shifted)
        # a printer drifting by -offset is exactly compensated
        assert registered(f.trim, s.trim, shifted, drift=(-offset[0], -offset[1]))
        # the same drift without compensation misregisters
        assert not registered(f.trim, p.trim, plain, drift=(-offset[0], -offset[1]))


def test_flip_is_its_own_inverse() -> None:
    for duplex in ("long", "short", "none"):
        spec = poker(duplex=duplex)
        r = Rect(12.5, 30.25, 100, 44)
        assert flip(flip(r, spec), spec).almost_equal(r)


# --- crop marks ----------------------------------------------------------------

def cut_lines(slots: list[Slot]) -> tuple[set[float], set[float]]:
    xs = {round(v, 6) for s in slots for v in (s.trim.x, s.trim.right)}
    ys = {round(v, 6) for s in slots for v in (s.trim.y, s.trim.top)}
    return xs, ys


def check_marks(spec: SheetSpec, slots: list[Slot], lines: list[Line]) -> None:
    """Every cut line marked towards both of its ends; no ink in any trim, in a
    margin's bleed, or within ``edge_clearance`` (5 mm) of the paper edge."""
    printable = Rect(0, 0, *spec.paper).inset(spec.edge_clearance)
    half = (spec.mark_stroke + MARK_HALO) / 2
    xs, ys = cut_lines(slots)
    grid_bleed = bounding(s.bleed for s in slots)
    middle = bounding(s.trim for s in slots).center
    for x in xs:
        at = [(ln.y1 + ln.y2) / 2 for ln in lines if ln.vertical and round(ln.x1, 6) == x]
        assert at and min(at) < middle[1] < max(at), x
    for y in ys:
        at = [(ln.x1 + ln.x2) / 2 for ln in lines if not ln.vertical and round(ln.y1, 6) == y]
        assert at and min(at) < middle[0] < max(at), y
    for ln in lines:
        ink = ln.bounds().outset(half)  # square caps, stroke width and halo
        assert printable.contains(ink, tol=1e-9), ln
        assert MIN_MARK - 1e-9 <= ln.length <= spec.mark_length + 1e-9
        for s in slots:
            assert not ink.overlaps(s.trim, tol=0), ln
        if not ink.overlaps(grid_bleed, tol=0):   # in a margin
            gap = (ln.y1 - grid_bleed.top if ln.y1 > grid_bleed.top
                   else grid_bleed.y - ln.y1) if ln.vertical else (
                  ln.x1 - grid_bleed.right if ln.x1 > grid_bleed.right
                  else grid_bleed.x - ln.x1)
            assert gap == pytest.approx(spec.mark_offset, abs=1e-9)
    assert spec.mark_stroke >= 0.25


@pytest.mark.parametrize("paper", PAPERS)
@pytest.mark.parametrize("gutter", [0.0, mm(2), mm(8)])
def test_crop_marks_on_every_cut_line(paper: str, gutter: float) -> None:
    spec = poker(paper, gutter=gutter)
    slots = front_slots(spec)
    lines = crop_marks(spec, slots)
    check_marks(spec, slots, lines)
    xs, ys = cut_lines(slots)
    assert len(xs) == (spec.cols + 1 if gutter == 0 else 2 * spec.cols)
    assert len(ys) == (spec.rows + 1 if gutter == 0 else 2 * spec.rows)
    assert unmarked_edges(spec) == []


def test_crop_mark_lengths_a4_and_letter() -> None:
    halo = to_mm((DEFAULT_MARK_STROKE + MARK_HALO) / 2)
    a4 = poker("a4")
    lines = crop_marks(a4)
    grid = a4.grid
    margin = {round(to_mm(ln.length), 6) for ln in lines
              if ln.vertical and (ln.y1 > grid.top or ln.y1 < grid.y)}
    # 11.15 mm margin - 3 mm bleed - 0.5 mm offset - 5 mm clearance - stroke and halo
    assert margin == {round(11.15 - 3 - 0.5 - 5 - halo - to_mm(0.01), 6)}
    # the 5.75 mm side margins have no room: the gutters carry those marks, 3 mm long
    assert not [ln for ln in lines if not ln.vertical and ln.x2 < grid.x]
    inside = {round(to_mm(ln.length), 6) for ln in lines if grid.contains(ln.bounds())}
    assert inside == {3.0}
    letter = poker("letter")
    assert {round(to_mm(ln.length), 6) for ln in crop_marks(letter)} == {3.0}


def test_wide_gutters_get_a_mark_from_each_side() -> None:
    spec = poker(gutter=mm(8))
    slots = front_slots(spec)
    y = slots[0].trim.top
    across = sorted((ln.x1, ln.x2) for ln in crop_marks(spec)
                    if not ln.vertical and ln.y1 == y
                    and slots[0].trim.right < ln.x1 < slots[1].trim.x)
    right, left = slots[0].trim.right, slots[1].trim.x
    assert across == [pytest.approx((right + mm(0.5), right + mm(3.5))),
                      pytest.approx((left - mm(3.5), left - mm(0.5)))]


def test_crop_marks_for_back_slots_with_offset() -> None:
    spec = poker("a4", back_offset=(mm(0.5), mm(-1)))
    slots = back_slots(spec)
    check_marks(spec, slots, crop_marks(spec, slots))
    # backs moved 2 mm towards the edge: the marks that would come too near go
    far = poker("a4", back_offset=(mm(2), mm(-1)))
    clear = Rect(0, 0, *far.paper).inset(mm(5))
    lines = crop_marks(far, back_slots(far))
    assert lines and all(clear.contains(ln.bounds()) for ln in lines)


def test_edge_without_room_gets_no_marks() -> None:
    # 5 mm bleed on letter: 1.35 mm from the bleed to the paper edge
    spec = SheetSpec(PAPER["letter"], POKER, bleed=mm(5), cols=3, rows=3)
    assert unmarked_edges(spec) == ["top", "bottom"]
    lines = crop_marks(spec)
    assert lines and all(not ln.vertical for ln in lines)
    assert len(lines) == 2 * 4
    # fit never chooses such a layout
    fitted = SheetSpec.fit(PAPER["letter"], POKER, bleed=mm(5))
    assert (fitted.cols, fitted.rows) == (3, 2)
    assert unmarked_edges(fitted) == []


def test_edge_clearance_keeps_marks_off_the_unprintable_border() -> None:
    spec = SheetSpec(PAPER["letter"], POKER, BLEED, cols=3, rows=3, edge_clearance=mm(4.2))
    assert unmarked_edges(spec) == ["top", "bottom"]
    a4 = poker("a4", edge_clearance=mm(4.2))
    for ln in crop_marks(a4):
        ink = ln.bounds().outset(a4.mark_stroke / 2)
        assert Rect(0, 0, *a4.paper).inset(mm(4.2)).contains(ink, tol=1e-9)
    assert (poker("letter", edge_clearance=mm(4.2)).rows) == 2


def test_draw_crop_marks_black_square_caps() -> None:
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=PAPER["a4"], invariant=1, pageCompression=0)
    spec = poker()
    draw_crop_marks(canvas, crop_marks(spec), spec.mark_stroke)
    canvas.showPage()
    canvas.save()
    data = buffer.getvalue()
    assert b"0 0 0 1 K" in data
    assert b"2 J" in data
    assert b".3 w" in data


# --- generic grids -------------------------------------------------------------

def test_token_grid() -> None:
    spec = grid(PAPER["a4"], mm(25), mm(25), gap=mm(2), margin=mm(10))
    assert (spec.cols, spec.rows) == (7, 10)
    m = spec.margins
    assert m.left == pytest.approx(m.right) and m.top == pytest.approx(m.bottom)
    assert m.left >= mm(10) and m.top >= mm(10)
    slots = front_slots(spec)
    assert slots[1].trim.x - slots[0].trim.right == pytest.approx(mm(2))
    for f, b in zip(slots, back_slots(spec)):
        assert registered(f.trim, b.trim, spec)
    check_marks(spec, slots, crop_marks(spec, slots))


def test_token_grid_short_edge_and_bleed() -> None:
    spec = grid(PAPER["letter"], mm(19), mm(19), gap=mm(3), margin=mm(8), bleed=mm(1),
                duplex="short")
    for f, b in zip(front_slots(spec), back_slots(spec)):
        assert registered(f.bleed, b.bleed, spec)


# --- board tiling --------------------------------------------------------------

def min_pieces(board: float, room: float, overlap: float) -> int:
    n = 1
    while n * room - (n - 1) * overlap < board - 1e-9:
        n += 1
    return n


def check_tiling(t: Tiling, board: tuple[float, float], paper: tuple[float, float],
                 margin: float, overlap: float) -> None:
    bw, bh = board
    pw, ph = t.paper
    assert sorted(t.paper) == sorted(paper)
    assert t.pages == t.rows * t.cols == len(t.tiles)
    assert [x.page for x in t.tiles] == list(range(t.pages))
    printable = Rect(0, 0, pw, ph).inset(margin)
    for x in t.tiles:
        assert printable.contains(x.placed, tol=1e-9)
        assert x.placed.w == pytest.approx(x.area.w) and x.placed.h == pytest.approx(x.area.h)
        assert Rect(0, 0, bw, bh).contains(x.area, tol=1e-9)
    # fewest pages: no orientation does better
    best = min(min_pieces(bw, a - 2 * margin, overlap) * min_pieces(bh, b - 2 * margin, overlap)
               for a, b in (paper, paper[::-1]))
    assert t.pages == best
    # overlaps are exactly the glue strip
    for x in t.tiles:
        if x.right is not None:
            y = t.tiles[x.right]
            assert y.left == x.page and (y.row, y.col) == (x.row, x.col + 1)
            shared = x.area.intersection(y.area)
            assert shared is not None
            assert to_mm(shared.w) == pytest.approx(to_mm(overlap), abs=1e-9)
            assert shared.h == pytest.approx(x.area.h)
            strip = t.strip(x, "right")
            assert strip is not None
            on_board = strip.translated(x.area.x - x.placed.x, x.area.y - x.placed.y)
            assert on_board.almost_equal(shared)
        if x.below is not None:
            y = t.tiles[x.below]
            assert y.above == x.page and (y.row, y.col) == (x.row + 1, x.col)
            shared = x.area.intersection(y.area)
            assert shared is not None
            assert to_mm(shared.h) == pytest.approx(to_mm(overlap), abs=1e-9)
            strip = t.strip(y, "above")
            assert strip is not None
            on_board = strip.translated(y.area.x - y.placed.x, y.area.y - y.placed.y)
            assert on_board.almost_equal(shared)
    # reassembling (dropping overlaps) gives the whole board, and covers it exactly
    row0 = [x for x in t.tiles if x.row == 0]
    col0 = [x for x in t.tiles if x.col == 0]
    width = sum(x.area.w for x in row0) - (len(row0) - 1) * overlap
    height = sum(x.area.h for x in col0) - (len(col0) - 1) * overlap
    assert abs(to_mm(width) - to_mm(bw)) < 0.1 and abs(to_mm(height) - to_mm(bh)) < 0.1
    assert bounding(x.area for x in t.tiles).almost_equal(Rect(0, 0, bw, bh))
    assert min(x.area.x for x in t.tiles) == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize("paper", PAPERS)
@pytest.mark.parametrize("board", [(500, 400), (600, 600), (300, 200), (190, 400), (1000, 280)])
def test_board_tiling(paper: str, board: tuple[float, float]) -> None:
    size = (mm(board[0]), mm(board[1]))
    t = tile(*size, *PAPER[paper], mm(10), mm(10))
    check_tiling(t, size, PAPER[paper], mm(10), mm(10))


def test_500_by_400_on_a4_uses_six_portrait_pages() -> None:
    t = tile(mm(500), mm(400), *PAPER["a4"], mm(10), mm(10))
    assert (t.pages, t.rows, t.cols, t.landscape) == (6, 2, 3, False)
    # equal tiles: (500 + 2 * 10) / 3 wide, (400 + 10) / 2 high
    assert to_mm(t.tiles[0].area.w) == pytest.approx(520 / 3)
    assert to_mm(t.tiles[0].area.h) == pytest.approx(205)
    assert t.tiles[0].area.top == pytest.approx(mm(400))  # sheet 1 is the top left


def test_board_that_fits_is_one_untiled_page() -> None:
    t = tile(mm(180), mm(250), *PAPER["a4"], mm(10), mm(10))
    assert (t.pages, t.tiled, t.landscape) == (1, False, False)
    only = t.tiles[0]
    assert only.area == Rect(0, 0, mm(180), mm(250))
    assert only.placed.x == pytest.approx((PAPER["a4"][0] - mm(180)) / 2)
    assert (only.left, only.right, only.above, only.below) == (None, None, None, None)
    assert page_map_label(t, only) == "sheet 1 of 1"
    wide = tile(mm(270), mm(180), *PAPER["a4"], mm(10), mm(10))
    assert (wide.pages, wide.landscape) == (1, True)


def test_tiling_is_deterministic() -> None:
    args = (mm(500), mm(400), *PAPER["letter"], mm(8), mm(12))
    assert tile(*args) == tile(*args)


def test_page_map_labels() -> None:
    t = tile(mm(350), mm(500), *PAPER["a4"], mm(10), mm(10))
    assert (t.rows, t.cols) == (2, 2)
    assert [page_map_label(t, x) for x in t.tiles] == [
        "sheet 1 of 4 - top left corner of the board",
        "sheet 2 of 4 - glue to the right of sheet 1",
        "sheet 3 of 4 - glue below sheet 1",
        "sheet 4 of 4 - glue to the right of sheet 3 and below sheet 2",
    ]


def test_tiling_errors() -> None:
    with pytest.raises(InputError, match="leave no room"):
        tile(mm(500), mm(400), *PAPER["a4"], mm(100), mm(10))
    with pytest.raises(InputError, match="board size must be more than 0"):
        tile(0, mm(400), *PAPER["a4"], mm(10), mm(10))
    with pytest.raises(InputError, match="margin and overlap must be 0 or more"):
        tile(mm(500), mm(400), *PAPER["a4"], mm(10), -1)


def test_seams_move_off_what_they_must_not_cross() -> None:
    from eti_print.imposition_tiling import SEAM_CLEARANCE, seam_conflicts, seams
    equal = tile(mm(510), mm(370), *PAPER["a4"], mm(8), mm(10))
    assert [round(to_mm(x), 6) for x in seams(equal)[0]] == [260.0]
    port = Rect(mm(240), mm(100), mm(22), mm(40))
    assert seam_conflicts(equal, [("port[2]", port)]) == [
        "the seam 260 mm from the left crosses port[2]"]
    moved = tile(mm(510), mm(370), *PAPER["a4"], mm(8), mm(10),
                 avoid_x=[(port.x, port.right)], avoid_y=[(port.y, port.top)])
    assert moved.pages == equal.pages
    (x,), _ = seams(moved)
    assert x >= port.right + SEAM_CLEARANCE - 1e-6
    assert seam_conflicts(moved, [("port[2]", port)]) == []
    room = (moved.paper[0] - 2 * mm(8), moved.paper[1] - 2 * mm(8))
    for t in moved.tiles:
        assert t.area.w <= room[0] + 1e-6 and t.area.h <= room[1] + 1e-6
        assert Rect(0, 0, *moved.paper).contains(t.placed.outset(mm(3)))
    # neighbours still share exactly one glue strip
    left, right = moved.tiles[0], moved.tiles[1]
    assert left.area.right - right.area.x == pytest.approx(mm(10))


def _nearest_free_seams(board, room, overlap, n, avoid):
    """The seam rule of ``imposition_tiling._seams`` worked out pairwise: every edge of
    every widened interval tried against every other interval."""
    from eti_print.imposition import EPS
    from eti_print.imposition_tiling import SEAM_CLEARANCE
    if n <= 1:
        return []
    wide = [(a - SEAM_CLEARANCE, b + SEAM_CLEARANCE) for a, b in avoid]
    length = (board + (n - 1) * overlap) / n
    out, previous = [], overlap
    for c in range(1, n):
        preferred = c * (length - overlap) + overlap
        low = max(previous + EPS, board - (n - c) * (room - overlap))
        high = previous - overlap + room
        free = [v for v in [preferred] + [v for a, b in wide for v in (a, b)]
                if low - EPS <= v <= high + EPS and not any(a < v < b for a, b in wide)]
        chosen = min(free, key=lambda v: (abs(v - preferred), v)) if free else preferred
        out.append(chosen)
        previous = chosen
    return out


@pytest.mark.parametrize("seed", range(6))
def test_seams_go_to_the_nearest_free_place_however_many_boxes(seed) -> None:
    """Hundreds of boxes (a company board guards 250): the seams the tiling picks are
    those of trying every edge against every box."""
    import random

    from eti_print.imposition_tiling import _blocked, _seams
    rnd = random.Random(seed)
    for _ in range(200):
        board, room = rnd.uniform(mm(200), mm(1200)), rnd.uniform(mm(120), mm(280))
        overlap = rnd.choice([0.0, mm(10), rnd.uniform(0, mm(30))])
        n = rnd.randint(1, 6)
        avoid = []
        for _ in range(rnd.choice([0, 1, 5, 40, 250])):
            a = rnd.choice([rnd.uniform(-10, board), board / 2, room - overlap])
            avoid.append((a, a + rnd.choice([rnd.uniform(0.5, mm(30)), mm(4)])))
        assert _seams(board, room, overlap, n, _blocked(avoid)) == \
            _nearest_free_seams(board, room, overlap, n, avoid)


def test_a_tiling_asked_again_is_the_same_and_minus_zero_is_not_zero() -> None:
    args = (mm(510), mm(418), *PAPER["a4"], mm(8), mm(10))
    avoid = [(mm(240), mm(262)), (0.0, mm(5))]
    first = tile(*args, avoid_x=avoid, avoid_y=avoid)
    assert tile(*args, avoid_x=list(avoid), avoid_y=avoid) is first
    assert tile(*args, avoid_x=[(mm(240), mm(262)), (-0.0, mm(5))], avoid_y=avoid) \
        is not first
