"""The duplex calibration sheet: structure, embedded fonts, and that it reads true."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest
from pypdf import PdfReader

from eti_print.calibrate import STEP, STEPS, Scale, calibration_pdf, render_calibration, scales
from eti_print.errors import InputError
from eti_print.fonts import FontSet, load_fonts
from eti_print.imposition import (
    Rect,
    SheetSpec,
    back_slots,
    bounding,
    flip,
    front_slots,
    registered,
)
from eti_print.pack import Pack
from eti_print.units import PAPER, mm, to_mm


@pytest.fixture(scope="module")
def fonts() -> FontSet:
    return load_fonts(Pack.open(None))


@pytest.fixture(scope="module")
def a4_pdf(fonts: FontSet, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cal") / "calibration-a4.pdf"
    assert render_calibration(path, "a4", fonts) == path
    return path


def test_two_pages_of_the_right_size(a4_pdf: Path, fonts: FontSet, tmp_path: Path) -> None:
    reader = PdfReader(a4_pdf)
    assert len(reader.pages) == 2
    for page in reader.pages:
        assert float(page.mediabox.width) == pytest.approx(PAPER["a4"][0], abs=0.01)
        assert float(page.mediabox.height) == pytest.approx(PAPER["a4"][1], abs=0.01)
    letter = tmp_path / "letter.pdf"
    render_calibration(letter, "letter", fonts)
    assert [float(p.mediabox.width) for p in PdfReader(letter).pages] == [612.0, 612.0]


def test_instructions_are_text(a4_pdf: Path) -> None:
    reader = PdfReader(a4_pdf)
    front = " ".join(reader.pages[0].extract_text().split())
    for words in ("Duplex calibration", "100 %", "actual size", "flipping on the long edge",
                  "hold the sheet up to a light",
                  "eti-print build --duplex long --back-offset X,Y", "--back-offset 1.5,-0.5",
                  "eti-print calibrate --paper a4 --duplex long --back-offset X,Y",
                  "back offset X = 0 mm, Y = 0 mm",
                  "100 mm", "4 in"):
        assert words.lower() in front.lower(), words
    back = " ".join(reader.pages[1].extract_text().split())
    assert "BACK" in back and "this way up" in back
    assert "back offset X = 0 mm, Y = 0 mm" in back


def test_every_font_is_embedded(a4_pdf: Path) -> None:
    reader = PdfReader(a4_pdf)
    seen = 0
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            descriptor = font["/FontDescriptor"].get_object()
            assert "/FontFile2" in descriptor, font["/BaseFont"]
            assert "Helvetica" not in str(font["/BaseFont"])
            seen += 1
    assert seen >= 2


def test_output_is_deterministic(fonts: FontSet) -> None:
    assert calibration_pdf("letter", fonts) == calibration_pdf("letter", fonts)


def test_back_offset_is_printed_on_both_pages(fonts: FontSet, tmp_path: Path) -> None:
    path = render_calibration(tmp_path / "c.pdf", "a4", fonts, back_offset=(mm(1.5), mm(-0.5)))
    reader = PdfReader(path)
    for page in reader.pages:
        assert "X = +1.5 mm, Y = -0.5 mm" in " ".join(page.extract_text().split())


def test_bad_arguments(fonts: FontSet) -> None:
    with pytest.raises(InputError, match="unknown paper 'a3'"):
        calibration_pdf("a3", fonts)
    with pytest.raises(InputError, match="calibration needs a flip, long, short or glue"):
        calibration_pdf("a4", fonts, duplex="none")


# --- the scales read true --------------------------------------------------------

def reading(scale: Scale, spec: SheetSpec, drift: tuple[float, float]) -> float:
    """What a person reads: the value of the pair that coincides best under ``drift``."""
    def gap(i: int) -> float:
        landed = flip(scale.back[i].bounds().translated(*drift), spec)
        front = scale.front[i]
        return abs(front.x1 - landed.x) if scale.axis == "x" else abs(front.y1 - landed.y)
    best = min(range(len(scale.front)), key=gap)
    return scale.values[best]


def spec_for(paper: str, duplex: str, offset: tuple[float, float]) -> SheetSpec:
    return SheetSpec.fit(PAPER[paper], (mm(63.5), mm(88.9)), mm(3), duplex=duplex,
                         back_offset=offset)


HALF_STEPS = [-10, -7, -3, -1, 0, 2, 5, 9, 10]


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("duplex", ["long", "short"])
def test_reading_is_the_back_offset_that_compensates(paper: str, duplex: str) -> None:
    for kx, ky in itertools.product(HALF_STEPS, HALF_STEPS[::2]):
        drift = (kx * STEP, ky * STEP)
        sheet = scales(PAPER[paper], duplex)
        plain = spec_for(paper, duplex, (0.0, 0.0))
        centre = [s for s in sheet if s.station == "center"]
        read = {s.axis: reading(s, plain, drift) for s in centre}
        # every station reads the same for a pure shift
        for s in sheet:
            assert reading(s, plain, drift) == pytest.approx(read[s.axis], abs=1e-9)
        assert (read["x"], read["y"]) == pytest.approx((-drift[0], -drift[1]), abs=1e-9)
        # using the reading as --back-offset puts every card back behind its front
        fixed = spec_for(paper, duplex, (read["x"], read["y"]))
        for f, b in zip(front_slots(fixed), back_slots(fixed)):
            assert registered(f.trim, b.trim, fixed, drift=drift)
        # and a re-print with that offset reads 0 everywhere
        for s in scales(PAPER[paper], duplex, (read["x"], read["y"])):
            assert reading(s, fixed, drift) == pytest.approx(0.0, abs=1e-9)


def test_reprint_reading_adds_to_the_offset() -> None:
    drift = (mm(2.5), mm(-1.5))
    first = (mm(1.0), mm(0.5))  # a wrong guess
    spec = spec_for("a4", "long", first)
    centre = {s.axis: reading(s, spec, drift)
              for s in scales(PAPER["a4"], "long", first) if s.station == "center"}
    total = (first[0] + centre["x"], first[1] + centre["y"])
    assert total == pytest.approx((-drift[0], -drift[1]), abs=1e-9)


def test_in_between_drift_reads_to_the_nearest_half_step() -> None:
    spec = spec_for("a4", "long", (0.0, 0.0))
    for drift_mm in (0.2, -1.3, 3.7):
        for s in scales(PAPER["a4"], "long"):
            value = reading(s, spec, (mm(drift_mm), mm(drift_mm)))
            assert abs(to_mm(value) + drift_mm) <= 0.25 + 1e-9


def test_scale_range_and_labels() -> None:
    sheet = scales(PAPER["a4"])
    assert len(sheet) == 10
    assert {s.station for s in sheet} == {"center", "top left", "top right", "bottom left",
                                          "bottom right"}
    for s in sheet:
        assert len(s.front) == len(s.back) == len(s.values) == 2 * STEPS + 1
        assert sorted(round(to_mm(v), 6) for v in s.values) == [
            k / 2 for k in range(-10, 11)]


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("duplex", ["long", "short"])
def test_scales_stay_apart_and_inside_the_printable_area(paper: str, duplex: str) -> None:
    page = Rect(0, 0, *PAPER[paper]).inset(mm(10))
    sheet = scales(PAPER[paper], duplex)
    boxes = []
    for s in sheet:
        front = bounding(line.bounds() for line in s.front)
        back = bounding(line.bounds() for line in s.back)
        assert page.contains(front) and page.contains(back)
        boxes.append(front.outset(mm(2)))
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b)


def test_glue_calibrates_a_sheet_fed_again_by_hand(fonts: FontSet) -> None:
    # glue backs are laid out as for a long-edge flip: the same scales, other words
    assert scales(PAPER["a4"], "glue") == scales(PAPER["a4"], "long")
    reader = PdfReader(io.BytesIO(calibration_pdf("a4", fonts, duplex="glue")))
    text = " ".join(reader.pages[0].extract_text().split())
    assert "put the sheet back in the tray turned over on its long edge" in text
    assert "--duplex glue --back-offset X,Y" in text
    prefs = reader.trailer["/Root"]["/ViewerPreferences"]
    assert (prefs["/PrintScaling"], prefs["/Duplex"]) == ("/None", "/Simplex")
    long_prefs = PdfReader(io.BytesIO(calibration_pdf("a4", fonts))).trailer["/Root"][
        "/ViewerPreferences"]
    assert long_prefs["/Duplex"] == "/DuplexFlipLongEdge"
