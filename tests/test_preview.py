"""preview: one card side as a PNG at its exact print size; guides; finding a card."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

pdfium = pytest.importorskip("pypdfium2")
from PIL import Image  # noqa: E402

from eti_print.cli import main  # noqa: E402
from eti_print.options import PrintOptions  # noqa: E402
from eti_print.pipeline import load_checked  # noqa: E402
from eti_print.preview import Sides, cards, find_card, side_pdf  # noqa: E402


def _px(mm: float, dpi: int) -> int:
    """Pixels of ``mm`` at ``dpi``, rounded up as a rasteriser covers a partial pixel."""
    return math.ceil(round(mm / 25.4 * dpi, 6))


@pytest.mark.parametrize("dpi", [300, 150])
def test_png_is_the_cards_exact_pixel_size(tmp_path: Path, dpi: int, capsys):
    out = tmp_path / "card.png"
    assert main(["preview", "laboratory-fire", "--dpi", str(dpi), "--out", str(out)]) == 0
    assert "events card 2 'Laboratory Fire' (cards/events.yaml:" in capsys.readouterr().out
    with Image.open(out) as image:
        # poker: 63.5 x 88.9 mm trim, 3 mm bleed on every side (templates/sheets.yaml)
        assert image.size == (_px(63.5 + 6, dpi), _px(88.9 + 6, dpi))
        assert image.mode == "RGB"
        assert round(image.info["dpi"][0]) == dpi


def test_other_sheet_size_and_the_back(tmp_path: Path):
    out = tmp_path / "marker.png"
    assert main(["preview", "sci-tech", "markers:7", "--back", "--out", str(out)]) == 0
    from eti_print.pack import Pack
    from eti_print.sheets import load_sheets
    setting = load_sheets(Pack.open("sci-tech")).get("marker")
    with Image.open(out) as image:
        assert image.size == (math.ceil(round((setting.width + 2 * setting.bleed) / 72 * 300, 6)),
                              math.ceil(round((setting.height + 2 * setting.bleed) / 72 * 300,
                                              6)))


def test_guides_change_the_trim_line_and_not_the_middle(tmp_path: Path):
    plain, guided = tmp_path / "plain.png", tmp_path / "guided.png"
    assert main(["preview", "computer-crash", "--out", str(plain)]) == 0
    assert main(["preview", "computer-crash", "--guides", "--out", str(guided)]) == 0
    bleed = 3 / 25.4 * 300          # px from the image's edge to the trim
    with Image.open(plain) as a, Image.open(guided) as b:
        assert a.size == b.size
        w, h = a.size
        on_trim = [(round(bleed), y) for y in range(h // 3, 2 * h // 3, 37)]
        assert all(a.getpixel(p) != b.getpixel(p) for p in on_trim)
        # the trim line is red
        r, g, bl = b.getpixel(on_trim[0])
        assert r > 150 and g < 100 and bl < 100


def test_the_face_holds_the_cards_title_and_guides_name_the_boxes():
    ctx = load_checked(None, PrintOptions())
    side = Sides(ctx).side(find_card(cards(ctx), "laboratory-fire"))
    assert {o.name for o in side.outlines} >= {"title", "text", "flavor"}
    title = next(o for o in side.outlines if o.name == "title")
    assert 0 < title.x and 0 < title.w < side.face.width
    for guides, expect in ((False, False), (True, True)):
        doc = pdfium.PdfDocument(side_pdf(ctx, [side], guides))
        try:
            text = doc[0].get_textpage().get_text_range()
        finally:
            doc.close()
        assert "Laboratory Fire" in text
        assert ("flavor" in text) is expect     # the box labels are drawn only with guides


def test_card_lookup_by_id_deck_id_and_position():
    ctx = load_checked(None, PrintOptions())
    found = cards(ctx)
    assert find_card(found, "laboratory-fire").address == "events:2"
    assert find_card(found, "events:laboratory-fire").number == 2
    # research entries carry counts: position 17 is the first copy of the second entry
    assert find_card(found, "research:17").number == 17
    assert find_card(found, "research:16").number == 1
    card = find_card(found, "events:2")
    assert card.file == "cards/events.yaml" and card.line and card.label == "Laboratory Fire"


@pytest.mark.parametrize("spec, message", [
    ("laboratory-fir", "no card 'laboratory-fir' (did you mean laboratory-fire"),
    ("evnts:2", "no deck 'evnts' (did you mean events?)"),
    ("events:99", "deck 'events' has cards 1 to 25 (got 99)"),
    ("events:computer-crsh", "no card 'computer-crsh' in deck 'events' "
                             "(did you mean computer-crash?)"),
])
def test_unknown_card_is_a_command_line_error_with_did_you_mean(spec, message, capsys):
    assert main(["preview", spec]) == 2
    err = capsys.readouterr().err
    assert err.startswith("eti-print: error: ") and message in err
    assert "Traceback" not in err


def test_bad_dpi_and_bad_data(tmp_path: Path, capsys):
    assert main(["preview", "computer-crash", "--dpi", "5"]) == 2
    assert "--dpi must be between" in capsys.readouterr().err
    from conftest import copy_pack, edit
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "cards/events.yaml", "id: computer-crash", "id: Computer-Crash")
    assert main(["preview", str(pack), "computer-crash"]) == 1
    assert "cards/events.yaml:" in capsys.readouterr().err


def test_default_output_name(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["preview", "eti", "computer-crash", "--back", "--guides"]) == 0
    assert (tmp_path / "output/preview/eti-events-003-back-guides.png").is_file()


def test_the_safe_zone_is_3mm_unless_the_sheet_says_otherwise(tmp_path: Path):
    from eti_print.pack import Pack
    from eti_print.units import mm

    from conftest import copy_pack, edit
    pack = copy_pack(tmp_path / "sci-tech", Pack.open("sci-tech").root)
    ctx = load_checked(str(pack), PrintOptions())
    card = find_card(cards(ctx), "markers:1")
    assert Sides(ctx).setting(card).safe == pytest.approx(mm(3))
    sheets = pack / "templates" / "sheets.yaml"
    text = sheets.read_text()
    head, _, tail = text.partition("  marker:\n")
    sheets.write_text(head + "  marker:\n    safe: 1.5mm\n" + tail)
    ctx = load_checked(str(pack), PrintOptions())
    assert Sides(ctx).setting(find_card(cards(ctx), "markers:1")).safe == pytest.approx(mm(1.5))
    edit(sheets, "safe: 1.5mm", "safe: wide")
    assert main(["preview", str(pack), "markers:1", "--out", str(tmp_path / "x.png")]) == 1
