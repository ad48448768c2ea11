"""Sheets that survive real printers and real scissors, checked on what the build writes.

* A cut up to 1 mm off its line shows the card's own colour: rasterised, the band
  outside every trim matches the colour just inside it, on every card sheet of
  every pack.
* No mark comes within 5 mm of a paper edge (from the PDF's content streams).
* ``--duplex glue`` and ``fold`` register: the back raster mirrored (glue) or the
  page folded (fold) puts every card's back on its front within 0.1 mm.
* Every PDF tells the print dialog to print at actual size, with the right flip.
"""

from __future__ import annotations

import math
import types
from pathlib import Path

import pikepdf
import pytest
from pypdf import PdfReader
from reportlab.lib.colors import Color

from eti_print.imposition import Rect, SheetSpec, back_slots, front_slots
from eti_print.jobs.decks import sheet_spec
from eti_print.options import PrintOptions
from eti_print.pack import Pack
from eti_print.pdfwriter import DocInfo
from eti_print.render.faces import Face, Op
from eti_print.render.sheets import Deck, impose
from eti_print.sheets import load_sheets
from eti_print.units import PAPER, mm

from conftest import BUILDS, PACKS, build_options, built_name, pdfs_of
from pdfcheck import placements

pdfium = pytest.importorskip("pypdfium2")

#: Every card sheet of every pack: (PDF, sheet setting).
CARD_SHEETS = {
    "eti": (("eti-cards.pdf", "card"), ("eti-player-aids.pdf", "card")),
    "sci-tech": (("sci-tech-markers.pdf", "marker"),),
    "mad-scientists": (("mad-scientists-counters.pdf", "chit"),),
}
#: The modes the raster test cuts: each paper, and a fold sheet.
RASTER_MODES = [(pack, mode) for pack in CARD_SHEETS for mode in ("a4-long", "letter-short")
                ] + [("eti", "a4-fold")]
DPI = 100
#: Colour difference (0-255, any channel) that counts as another colour.
NEIGHBOUR = 48
#: The share of an edge's points that may differ (art of the card's own in its bleed).
STRAY = 0.15


def _spec(pack: str, sheet: str, options: PrintOptions) -> SheetSpec:
    ctx = types.SimpleNamespace(sheets=load_sheets(Pack.open(PACKS[pack])), options=options)
    return sheet_spec(ctx, sheet)


def _edges(trim: Rect, step: float = mm(1)):
    """Per edge, (inside, [outside]) points along it, clear of the corners: 0.4 mm inside
    the trim, and 0.5 and 0.85 mm outside (a cut up to 1 mm off)."""
    for edge in ("left", "right", "bottom", "top"):
        length = trim.h if edge in ("left", "right") else trim.w
        points, u = [], mm(1.5)
        while u <= length - mm(1.5):
            def at(d: float, u: float = u, edge: str = edge) -> tuple[float, float]:
                return {"left": (trim.x - d, trim.y + u), "right": (trim.right + d, trim.y + u),
                        "bottom": (trim.x + u, trim.y - d),
                        "top": (trim.x + u, trim.top + d)}[edge]
            points.append((at(-mm(0.4)), [at(mm(0.5)), at(mm(0.85))]))
            u += step
        yield edge, points


def miscut_colours(pdf: Path, spec: SheetSpec) -> list[str]:
    """The card edges where a cut 1 mm outside the trim would show another colour than
    the card's edge: more than ``STRAY`` of the points along that edge differ (a star
    of a card's own art may sit in its bleed; a neighbour's colour fills the band)."""
    slots = front_slots(spec) + (back_slots(spec) if spec.duplex == "fold" else [])
    edges = [list(_edges(slot.trim)) for slot in slots]     # the same on every page
    #: per pixel grid (x scale, y scale, height): each slot's edges in pixels
    in_pixels: dict[tuple[float, float, int], list] = {}
    found = []
    with pikepdf.open(pdf) as reader:
        held_on = [{(round(x, 1), round(y, 1)) for _, (x, y), _ in placements(page)}
                   for page in reader.pages]
    doc = pdfium.PdfDocument(str(pdf))
    try:
        for n in range(len(doc)):
            page = doc[n]
            w, h = page.get_size()
            image = page.render(scale=DPI / 72).to_pil().convert("RGB")
            px, grid = image.load(), (image.width / w, image.height / h, image.height)
            if grid not in in_pixels:
                sx, sy, height = grid

                def pixel(p: tuple[float, float]) -> tuple[int, int]:
                    return int(p[0] * sx), int(height - p[1] * sy)

                in_pixels[grid] = [[(edge, [(pixel(inside), [pixel(p) for p in out])
                                            for inside, out in points])
                                    for edge, points in slot_edges] for slot_edges in edges]
            for slot, slot_edges in zip(slots, in_pixels[grid]):
                if (round(slot.trim.x, 1), round(slot.trim.y, 1)) not in held_on[n]:
                    continue    # no card here
                for edge, points in slot_edges:
                    stray = []
                    for inside, out in points:
                        own = px[inside]
                        for p in out:
                            other = px[p]
                            if own != other and max(abs(own[0] - other[0]),
                                                    abs(own[1] - other[1]),
                                                    abs(own[2] - other[2])) > NEIGHBOUR:
                                stray.append((own, other))
                    if len(stray) > STRAY * 2 * len(points):
                        found.append(f"page {n + 1}, card {slot.index + 1}, {edge} edge: "
                                     f"{len(stray)} of {2 * len(points)} points, e.g. "
                                     f"{stray[0][1]} beside {stray[0][0]}")
    finally:
        doc.close()
    return found


@pytest.mark.parametrize("pack, mode", RASTER_MODES)
def test_a_miscut_shows_only_the_cards_own_colour(session_build, pack: str, mode: str) -> None:
    options = build_options(pack, mode)
    for name, sheet in CARD_SHEETS[pack]:
        pdf = session_build(pack, mode) / built_name(name, pack, mode)
        spec = _spec(pack, sheet, options)
        assert PdfReader(pdf).pages[0].mediabox.width == pytest.approx(spec.paper[0])
        found = miscut_colours(pdf, spec)
        assert not found, f"{pdf.name}: " + "; ".join(found[:5])


def test_the_raster_check_sees_a_neighbours_colour(tmp_path: Path) -> None:
    # abutting cards (no gutter): a cut 1 mm off shows the next card
    spec = SheetSpec.fit(PAPER["a4"], (mm(63.5), mm(88.9)), bleed=mm(3), gutter=0.0,
                         edge_clearance=0.0, duplex="none")
    pdf = tmp_path / "abutting.pdf"
    pdf.write_bytes(_impose([_deck("d", spec.per_sheet, 0)], spec))
    assert miscut_colours(pdf, spec)


# --- marks clear of the paper edge ----------------------------------------------------

def page_lines(page) -> list[tuple[float, float, float]]:
    """(x, y, line width) in page coordinates of every point of every line drawn in the
    page's own content (a pikepdf page: the marks, fold line and page furniture; cards
    are forms)."""
    points = []
    stack = [((1.0, 0.0, 0.0, 1.0, 0.0, 0.0), 1.0)]
    for operands, operator in pikepdf.parse_content_stream(page, "q Q cm w m l"):
        op = str(operator)
        ctm, width = stack[-1]
        if op == "q":
            stack.append(stack[-1])
        elif op == "Q":
            stack.pop()
        elif op == "cm":
            a, b, c, d, e, f = (float(v) for v in operands)
            A, B, C, D, E, F = ctm
            stack[-1] = ((a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D,
                          e * A + f * C + E, e * B + f * D + F), width)
        elif op == "w":
            stack[-1] = (ctm, float(operands[0]) * math.hypot(ctm[0], ctm[1]))
        elif op in ("m", "l"):
            x, y = float(operands[0]), float(operands[1])
            A, B, C, D, E, F = ctm
            points.append((x * A + y * C + E, x * B + y * D + F, width))
    return points


MARK_MODES = [(pack, mode) for pack in BUILDS for mode in ("a4-long", "letter-short")
              ] + [("eti", "a4-fold")]


@pytest.mark.parametrize("pack, mode", MARK_MODES)
def test_no_mark_within_5mm_of_a_paper_edge(session_build, pack: str, mode: str) -> None:
    folder = session_build(pack, mode)
    checked = 0
    for name in pdfs_of(pack, mode):
        if "rules-reference" in name:
            continue    # a document, not a sheet to cut
        with pikepdf.open(folder / name) as reader:
            for n, page in enumerate(reader.pages, 1):
                x0, y0, x1, y1 = (float(v) for v in page.mediabox)
                w, h = x1 - x0, y1 - y0
                for x, y, stroke in page_lines(page):
                    reach = mm(5) + stroke / 2 - 1e-6
                    assert reach <= x <= w - reach and reach <= y <= h - reach, (
                        f"{name} page {n}: a line at ({x / mm(1):.2f}, {y / mm(1):.2f}) mm "
                        f"is within 5 mm of the paper edge")
                    checked += 1
    assert checked


# --- viewer preferences ----------------------------------------------------------------

@pytest.mark.parametrize("pack, mode", [("eti", "a4-long"), ("eti", "letter-short"),
                                        ("eti", "a4-fold"), ("sci-tech", "a4-none")])
def test_every_pdf_prints_at_actual_size_with_its_flip(session_build, pack: str,
                                                       mode: str) -> None:
    duplex = BUILDS[pack][mode].get("duplex", "long")
    folder = session_build(pack, mode)
    for name in pdfs_of(pack, mode):
        prefs = PdfReader(folder / name).trailer["/Root"][
            "/ViewerPreferences"]
        assert prefs["/PrintScaling"] == "/None", name
        sheets = any(kind in name for kind in ("cards", "player-aids", "markers", "counters"))
        expected = {"long": "/DuplexFlipLongEdge", "short": "/DuplexFlipShortEdge"}.get(
            duplex, "/Simplex") if sheets else "/Simplex"
        assert prefs["/Duplex"] == expected, name


# --- glue and fold register ---------------------------------------------------------------

def _colour(deck: int, card: int, side: int) -> Color:
    """A colour of its own for every card side."""
    return Color((40 + 20 * card) / 255, (60 + 90 * side) / 255, (30 + 50 * deck) / 255)


def _face(spec: SheetSpec, colour: Color) -> Face:
    w, h = spec.card
    b = spec.bleed
    return Face(w, h, b, (Op("rect", -b, -b, w + 2 * b, h + 2 * b,
                             (colour, None, 0, 0, False, None)),))


def _deck(name: str, count: int, number: int, spec: SheetSpec | None = None) -> Deck:
    spec = spec or SheetSpec.fit(PAPER["a4"], (mm(63.5), mm(88.9)), bleed=mm(3))
    cards = tuple((_face(spec, _colour(number, i, 0)), _face(spec, _colour(number, i, 1)))
                  for i in range(count))
    return Deck(name, name.title(), cards)


def _impose(decks: list[Deck], spec: SheetSpec) -> bytes:
    from eti_print.fonts import load_fonts
    fonts = load_fonts(Pack.open(None))
    data, _ = impose(decks, spec, None, DocInfo("registration"), fonts["body"].regular,
                     file="test.pdf")
    return data


#: The coarse raster a colour is first looked for in: every ``_COARSE``-th pixel.
_COARSE = 8


def _mask_box(image, want: tuple[int, int, int]) -> tuple[int, int, int, int] | None:
    """The pixel bounding box of the pixels within 2 levels of ``want``."""
    from PIL import Image, ImageChops
    mask = ImageChops.difference(image, Image.new("RGB", image.size, want)).convert("L")
    return mask.point(lambda v: 255 if v <= 2 else 0).getbbox()


def _box(image, coarse, colour: Color, scale: float) -> tuple[float, float, float, float] | None:
    """The bounding box (points, page coordinates) of the pixels of ``colour``: found
    first in ``coarse`` (``_sampled(image)``), then to the pixel in ``image`` around it.
    A true edge lies within one coarse pixel outside the coarse box (the first sample
    inside is less than a coarse pixel past it); the window takes two."""
    want = tuple(round(v * 255) for v in colour.rgb())
    near = _mask_box(coarse, want)
    if near is None:
        return None
    sx, sy = image.width / coarse.width, image.height / coarse.height
    window = (max(0, math.floor((near[0] - 2) * sx)), max(0, math.floor((near[1] - 2) * sy)),
              min(image.width, math.ceil((near[2] + 2) * sx)),
              min(image.height, math.ceil((near[3] + 2) * sy)))
    found = _mask_box(image.crop(window), want)
    if found is None:
        return None
    left, upper = found[0] + window[0], found[1] + window[1]
    right, lower = found[2] + window[0], found[3] + window[1]
    h = image.height
    return (left / scale, (h - lower) / scale, right / scale, (h - upper) / scale)


def _sampled(image):
    """Every ``_COARSE``-th pixel of ``image``, colours exact (nearest neighbour)."""
    from PIL import Image
    return image.resize((image.width // _COARSE, image.height // _COARSE), Image.NEAREST)


def _registration(paper: str, duplex: str) -> list[float]:
    """Per card: how far (mm) its back lands from its front once glued or folded."""
    from PIL import ImageOps
    card = (mm(63.5), mm(88.9))
    spec = SheetSpec.fit(PAPER[paper], card, bleed=mm(3.175), gutter=mm(4), rotate=True,
                         duplex=duplex)
    decks = [_deck("first", spec.per_sheet, 0, spec), _deck("second", 2, 1, spec)]
    data = _impose(decks, spec)
    doc = pdfium.PdfDocument(data)
    scale = 400 / 72
    errors = []
    try:
        pages = [doc[i].render(scale=scale).to_pil().convert("RGB") for i in range(len(doc))]
    finally:
        doc.close()
    per_deck = 1 if duplex == "fold" else 2
    assert len(pages) == per_deck * len(decks)
    for d, deck in enumerate(decks):
        front = pages[d * per_deck]
        back = front if duplex == "fold" else pages[d * per_deck + 1]
        # glue: the back sheet turned over on its long edge; fold: the page folded
        turned = ImageOps.mirror(back) if spec.mirror_axis == "x" else ImageOps.flip(back)
        front_coarse, turned_coarse = _sampled(front), _sampled(turned)
        for i in range(len(deck.cards)):
            f = _box(front, front_coarse, _colour(d, i, 0), scale)
            b = _box(turned, turned_coarse, _colour(d, i, 1), scale)
            assert f is not None and b is not None, (deck.id, i)
            # mirrored raster: the box's edges, in the mirrored page's coordinates
            errors.append(max(abs(p - q) for p, q in zip(f, b)) / mm(1))
    return errors


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("duplex", ["glue", "fold"])
def test_glue_and_fold_register_to_a_tenth_of_a_millimetre(paper: str, duplex: str) -> None:
    errors = _registration(paper, duplex)
    assert errors and max(errors) <= 0.1, errors


def test_glue_puts_each_back_sheet_after_its_front_and_fold_shares_the_page() -> None:
    card = (mm(63.5), mm(88.9))
    glue = SheetSpec.fit(PAPER["a4"], card, bleed=mm(3), gutter=mm(4), duplex="glue")
    assert glue.mirror_axis == "x"
    for f, b in zip(front_slots(glue), back_slots(glue)):
        assert b.trim.almost_equal(f.trim.mirrored_x(glue.paper[0]))
    fold = SheetSpec.fit(PAPER["a4"], card, bleed=mm(3), gutter=mm(4), duplex="fold",
                         rotate=True)
    assert (fold.landscape, fold.per_sheet) == (True, 4)
    line = fold.fold_line
    assert line is not None and line.vertical and line.x1 == pytest.approx(fold.paper[0] / 2)
    for f, b in zip(front_slots(fold), back_slots(fold)):
        assert f.bleed.right < line.x1 < b.bleed.x
        assert not line.meets(f.bleed) and not line.meets(b.bleed)
