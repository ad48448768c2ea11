"""The scale check: the first sheet of every file a build writes (and the calibration
sheet) has a 25 mm square, measured from the PDF's own geometry: 25.0 +- 0.05 mm on
each side, 5 mm or more from every paper edge, clear of every piece drawn on the
sheet (a card's, token's or board's form, bleed included), every mark and every
other filled box."""

from __future__ import annotations

from pathlib import Path

import pikepdf
import pytest
from pdfgeometry import Box, read

from eti_print.calibrate import calibration_pdf
from eti_print.units import mm

from conftest import BUILDS, pdfs_of

#: Every pack on both papers (a fold build of E.T.I. too: its card sheets keep a slot).
MODES = [(pack, mode) for pack in BUILDS for mode in ("a4-long", "letter-short")
         ] + [("eti", "a4-fold"), ("eti", "a4-none")]
SIZE = mm(25)
TOLERANCE = mm(0.05)


def scale_square(path: Path) -> tuple[Box, list[str]]:
    """The first page's scale square, and what is wrong with where it is (read from the
    first page's own content and the boxes of the forms it draws: all the check uses)."""
    geometry = read(path, pages=1, max_depth=0)
    with pikepdf.open(path) as pdf:
        x0, y0, x1, y1 = (float(v) for v in pdf.pages[0].mediabox)
    squares = [b for b in geometry.fills if b.page == 0 and b.depth == 0
               and abs(b.width - SIZE) <= TOLERANCE and abs(b.height - SIZE) <= TOLERANCE]
    assert len(squares) == 1, f"{path.name}: {len(squares)} 25 mm squares on its first page"
    square = squares[0]
    wrong = []
    edge = min(square.x0 - x0, square.y0 - y0, x1 - square.x1, y1 - square.y1)
    if edge < mm(5) - 1e-6:
        wrong.append(f"{edge / mm(1):.2f} mm from the paper edge")
    wrong += [f"over a piece at {f}" for f in geometry.forms
              if f.page == 0 and f.depth == 0 and f.overlaps(square)]
    wrong += [f"over a filled box {f}" for f in geometry.fills
              if f.page == 0 and f.depth == 0 and f.overlaps(square)
              and not (square.x0 - 1e-6 <= f.x0 and f.x1 <= square.x1 + 1e-6
                       and square.y0 - 1e-6 <= f.y0 and f.y1 <= square.y1 + 1e-6)]
    wrong += [f"a mark or line crosses it: {s}" for s in geometry.strokes
              if s.page == 0 and s.depth == 0 and _crosses(s, square)]
    return square, wrong


def _crosses(s, box: Box) -> bool:
    """Whether the stroked segment ``s`` (its width included) meets ``box``: the segment
    clipped to the box grown by half the width (Liang-Barsky)."""
    half = s.width / 2
    lo, hi = 0.0, 1.0
    dx, dy = s.x1 - s.x0, s.y1 - s.y0
    for p, q in ((-dx, s.x0 - (box.x0 - half)), (dx, (box.x1 + half) - s.x0),
                 (-dy, s.y0 - (box.y0 - half)), (dy, (box.y1 + half) - s.y0)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
    return lo <= hi


@pytest.mark.parametrize("pack, mode", MODES)
def test_the_first_sheet_of_every_output_has_a_25_mm_scale_square(session_build, pack: str,
                                                                 mode: str) -> None:
    out = session_build(pack, mode)
    names = pdfs_of(pack, mode)
    assert names
    for name in names:
        square, wrong = scale_square(out / name)
        assert not wrong, f"{name}: {wrong}"
        assert abs(square.width - SIZE) <= TOLERANCE and abs(square.height - SIZE) <= TOLERANCE


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_calibration_sheet_has_one_too(tmp_path: Path, paper: str) -> None:
    path = tmp_path / f"calibration-{paper}.pdf"
    path.write_bytes(calibration_pdf(paper))
    _, wrong = scale_square(path)
    assert not wrong


def test_a_board_with_room_beside_it_takes_the_check_on_its_own_sheet(tmp_path: Path) -> None:
    """A one-sheet board that leaves room (6 x 4 in on A4): no sheet of its own for the
    check, which sits beside the board, clear of it and its marks."""
    from test_packs import _add_board, copy_bundled

    from eti_print.options import PrintOptions
    from eti_print.pipeline import build
    pack = copy_bundled("sci-tech", tmp_path / "pack")
    _add_board(pack, "6in", "4in")
    build(str(pack), tmp_path / "out", PrintOptions())
    path = tmp_path / "out" / "sci-tech-boards.pdf"
    with pikepdf.open(path) as pdf:
        assert len(pdf.pages) == 1
    _, wrong = scale_square(path)
    assert not wrong


def test_the_check_sees_a_square_over_a_card(tmp_path: Path) -> None:
    """A square drawn over a card's form is caught."""
    from reportlab.pdfgen.canvas import Canvas
    path = tmp_path / "bad.pdf"
    canvas = Canvas(str(path), pagesize=(mm(210), mm(297)), invariant=1)
    canvas.beginForm("card", 0, 0, mm(63.5), mm(88.9))
    canvas.rect(0, 0, mm(63.5), mm(88.9), fill=1)
    canvas.endForm()
    canvas.saveState()
    canvas.translate(mm(20), mm(20))
    canvas.doForm("card")
    canvas.restoreState()
    canvas.rect(mm(30), mm(30), SIZE, SIZE, fill=1, stroke=0)
    canvas.showPage()
    canvas.save()
    _, wrong = scale_square(path)
    assert any("over a piece" in w for w in wrong)


def test_a_line_across_the_square_is_caught_and_one_beside_it_is_not():
    from pdfgeometry import Stroke
    box = Box(0, 100, 100, 170, 170, 0)
    assert _crosses(Stroke(0, 90, 90, 180, 180, 0.3, 0), box)
    assert not _crosses(Stroke(0, 90, 175, 180, 175, 0.3, 0), box)
    assert not _crosses(Stroke(0, 90, 105, 105, 90, 0.3, 0), box)   # past the corner


def test_a_pack_sets_its_own_scale_check_and_a_bad_size_is_located(pack_copy: Path):
    from eti_print.pack import Pack
    from eti_print.sheets import load_sheets

    from conftest import edit, problems
    sheets = pack_copy / "templates" / "sheets.yaml"
    edit(sheets, "sheets:\n", "scale_check: {size: 1in, label: One inch.}\nsheets:\n")
    check = load_sheets(Pack.open(str(pack_copy))).scale
    assert check.size == pytest.approx(72) and check.label == "One inch."
    edit(sheets, "size: 1in", "size: 5mm")
    found = problems(pack_copy)
    assert any(p.startswith("templates/sheets.yaml:4") and "scale_check.size" in p
               and "10 to 50 mm" in p for p in found), found
