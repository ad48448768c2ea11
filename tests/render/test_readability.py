"""Readable everywhere (pack.yaml's text:), and no stroke near a cut: measured on the PDFs
every pack builds, and refused in layouts with the file, line and box named."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from pdfgeometry import Stroke, is_bold, strokes, text_runs

from eti_print.colour import luminance, to_hex
from eti_print.dataset import load_dataset
from eti_print.imposition import front_slots
from eti_print.jobs.decks import sheet_spec
from eti_print.pack import Pack
from eti_print.pipeline import load_checked
from eti_print.readability import BOLD_BELOW, LIGHT_MIN_SIZE, MIN_SIZE, rules
from eti_print.units import mm

from conftest import BUILDS, PACKS, build_options, edit, line_of, pdfs_of, problems

MODES = [(pack, mode) for pack, modes in BUILDS.items() for mode in modes]
LIGHT = 0.45      # ink this light (WCAG luminance) is only readable on a darker ground


@functools.cache
def _rules(pack: str):
    """The pack's text floors (read once per pack: the tests only read them)."""
    return rules(load_dataset(Pack.open(PACKS[pack]), checks=False))


@pytest.mark.parametrize(("pack", "mode"), MODES, ids=[f"{p}-{m}" for p, m in MODES])
def test_smallest_text_of_every_page_of_every_output_meets_the_pack_minimum(
        session_build, pack, mode):
    floors = _rules(pack)
    folder = session_build(pack, mode)
    for name in pdfs_of(pack, mode):
        runs = text_runs(folder / name)
        assert runs, f"{name} prints no text"
        pages = {r.page for r in runs}
        for page in sorted(pages):
            here = [r for r in runs if r.page == page]
            smallest = min(here, key=lambda r: r.size)
            assert smallest.size >= floors.min_size - 0.01, \
                f"{name} page {page + 1}: text at {smallest.size:.2f} pt"
            light = [r for r in here if luminance(to_hex(r.fill)) > LIGHT]
            if light:
                least = min(light, key=lambda r: r.size)
                assert least.size >= floors.light_min_size - 0.01, \
                    f"{name} page {page + 1}: light text at {least.size:.2f} pt ({least.font})"
                thin = [r for r in light if r.size < BOLD_BELOW - 0.01 and not is_bold(r.font)]
                assert not thin, (f"{name} page {page + 1}: light text at {thin[0].size:.2f} pt "
                                  f"in {thin[0].font}")


def test_the_pack_minimum_defaults_to_6_and_6_5_points():
    for pack in PACKS:
        floors = _rules(pack)
        assert (floors.min_size, floors.light_min_size) == (MIN_SIZE, LIGHT_MIN_SIZE) == (6, 6.5)


def test_a_layout_below_the_minimum_fails_validate_naming_file_line_and_box(pack_copy: Path):
    layout = pack_copy / "templates/layouts/project.yaml"
    text = layout.read_text(encoding="utf-8")
    start = text.index("  fame_label:")
    at = text.index("    min_size: 6pt", start)
    layout.write_text(text[:at] + "    min_size: 5pt" + text[at + len("    min_size: 6pt"):],
                      encoding="utf-8")
    line = text[:at].count("\n") + 1
    found = problems(pack_copy)
    assert found == [f"templates/layouts/project.yaml:{line}: boxes.fame_label.min_size: text "
                     "box 'fame_label' may print at 5 pt, below the pack's minimum text size of "
                     "6 pt (hint: give the box room (or its text fewer words) and a min_size of "
                     "at least 6pt)"]


def test_a_fixed_size_below_the_minimum_fails_too(pack_copy: Path):
    layout = pack_copy / "templates/layouts/event.yaml"
    edit(layout, "    size: 6.8pt\n    min_size: 6pt\n    align: center\n    valign: bottom",
         "    size: 5.5pt\n    align: center\n    valign: bottom")
    found = problems(pack_copy)
    assert len(found) == 1
    assert found[0].startswith(f"templates/layouts/event.yaml:{line_of(layout, 'size: 5.5pt')}: "
                               "boxes.flavor.size: text box 'flavor' may print at 5.5 pt")


def test_light_text_on_a_dark_ground_needs_the_light_minimum(pack_copy: Path):
    """The endgame back's footer is gold on navy: 6.2 pt passes the 6 pt floor but not the
    6.5 pt one for light on dark, told apart by the colours behind the box."""
    layout = pack_copy / "templates/layouts/endgame-back.yaml"
    text = layout.read_text(encoding="utf-8")
    start = text.index("  footer:")
    at = text.index("    min_size: 7pt", start)
    layout.write_text(text[:at] + "    min_size: 6.2pt" + text[at + 17:], encoding="utf-8")
    found = problems(pack_copy)
    assert len(found) == 1
    line = text[:at].count("\n") + 1
    assert found[0].startswith(f"templates/layouts/endgame-back.yaml:{line}: "
                               "boxes.footer.min_size: ")
    assert "text box 'footer' prints light on dark and may print at 6.2 pt, below the pack's " \
           "minimum of 6.5 pt for light text on a dark ground in 10 cards" in found[0]


def test_light_text_below_7_pt_must_be_bold(pack_copy: Path):
    """6.8 pt passes both floors, but gold on navy in the thin label face below 7 pt is
    refused at the box's font; in the bold title face it passes."""
    layout = pack_copy / "templates/layouts/endgame-back.yaml"
    text = layout.read_text(encoding="utf-8")
    start = text.index("  footer:")
    end = text.index("    text:", start)
    block = text[start:end].replace("size: 7pt", "size: 6.8pt")
    layout.write_text(text[:start] + block + text[end:], encoding="utf-8")
    found = problems(pack_copy)
    assert len(found) == 1
    line = text[:start].count("\n") + block[:block.index("font:")].count("\n") + 1
    assert found[0].startswith(f"templates/layouts/endgame-back.yaml:{line}: boxes.footer.font: ")
    assert "prints light on dark at 6.8 pt in a regular face: light text below 7 pt must " \
           "be bold" in found[0]
    layout.write_text(text[:start] + block.replace("font: label", "font: title")
                      + text[end:], encoding="utf-8")
    from eti_print.pipeline import validate
    assert "OK" in validate(str(pack_copy), cache=None)


def test_a_pack_may_raise_its_minimum(pack_copy: Path):
    edit(pack_copy / "pack.yaml", "\nchecks:\n", "\ntext: {min_size: 7pt}\nchecks:\n")
    found = problems(pack_copy)
    assert found and all("below the pack's minimum text size of 7 pt" in p for p in found)
    assert any("boxes.fame_label.min_size" in p for p in found)


def test_a_bad_minimum_is_located(pack_copy: Path):
    edit(pack_copy / "pack.yaml", "\nchecks:\n", "\ntext: {min_size: tiny}\nchecks:\n")
    found = problems(pack_copy)
    assert any(p.startswith(f"pack.yaml:{line_of(pack_copy / 'pack.yaml', 'tiny')}")
               and "text.min_size" in p for p in found)


@pytest.mark.parametrize("size", ["poker", "mini", "chit"])
def test_the_scaffold_meets_the_minimum_on_every_card(tmp_path: Path, size: str):
    """``eti-print new``'s starter cards, smallest sizes included, print no text below
    6 pt and no light text below 6.5 pt."""
    from eti_print.newpack import new_pack
    from eti_print.options import PrintOptions
    from eti_print.pipeline import build
    new_pack(tmp_path / "mine", size)
    build(str(tmp_path / "mine"), tmp_path / "out", PrintOptions(), cache=None)
    runs = [r for pdf in (tmp_path / "out").glob("*.pdf") for r in text_runs(pdf)]
    assert runs
    assert min(r.size for r in runs) >= MIN_SIZE - 0.01
    assert min(r.size for r in runs if luminance(to_hex(r.fill)) > LIGHT) >= LIGHT_MIN_SIZE - 0.01


# ---------------------------------------------------------------------------
# No stroke near a cut


def _near_edge(stroke: Stroke, trim, reach: float) -> bool:
    """Whether a stroke runs along one of the trim's edges within ``reach`` (plus half its
    width), over some of the edge's length."""
    half = stroke.width / 2
    x0, x1 = sorted((stroke.x0, stroke.x1))
    y0, y1 = sorted((stroke.y0, stroke.y1))
    left, right, bottom, top = trim.x, trim.x + trim.w, trim.y, trim.y + trim.h
    if y1 - y0 < 0.01:                                   # horizontal
        overlap = min(x1, right) - max(x0, left)
        return overlap > 0.5 and any(abs(y0 - e) < reach + half for e in (bottom, top))
    if x1 - x0 < 0.01:                                   # vertical
        overlap = min(y1, top) - max(y0, bottom)
        return overlap > 0.5 and any(abs(x0 - e) < reach + half for e in (left, right))
    return False


@pytest.mark.parametrize("mode", ["ink-saver", "a4-long"])
def test_no_card_face_strokes_within_1_5_mm_of_a_trim(session_build, mode):
    """The ink-saver once outlined every card on its cut line: neighbours made a 0.89 mm
    line centred on the cut, so any error left one edge bare and the other doubled."""
    folder = session_build("eti", mode)
    name = next(n for n in pdfs_of("eti", mode) if "cards" in n)
    spec = sheet_spec(load_checked(None, build_options("eti", mode)), "card")
    trims = [slot.trim for slot in front_slots(spec)]
    found = [s for s in strokes(folder / name) if s.depth > 0]
    assert found, "the card faces draw no strokes at all"
    near = [(s, t) for s in found for t in trims if _near_edge(s, t, mm(1.5))]
    assert not near, f"{len(near)} strokes near a trim, the first on page {near[0][0].page + 1}"


def test_the_edge_test_sees_a_stroke_on_the_cut():
    from eti_print.imposition import Rect
    trim = Rect(10, 10, 180, 252)
    assert _near_edge(Stroke(0, 10.6, 12, 10.6, 200, 1.2, 1), trim, mm(1.5))
    assert _near_edge(Stroke(0, 20, 262 - 4, 150, 262 - 4, 0.5, 1), trim, mm(1.5))
    assert not _near_edge(Stroke(0, 20, 262 - 5, 150, 262 - 5, 0.5, 1), trim, mm(1.5))
    assert not _near_edge(Stroke(0, 10, 0, 10, 8, 0.3, 0), trim, mm(1.5))   # a crop mark
