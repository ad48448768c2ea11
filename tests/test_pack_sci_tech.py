"""The Sci-Tech pack: thirty two-sided markers registered like cards, and the
one-page rules reference."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader

from eti_print.dataset import load_dataset
from eti_print.options import PrintOptions
from eti_print.pack import Pack
from eti_print.pipeline import build
from eti_print.units import inch, mm

from conftest import BUILDS, built_name
from pdfcheck import placements

PACK = Path(__file__).resolve().parents[1] / "packs" / "sci-tech"
FIELDS = ("Attack", "Edict", "Flare", "Moon", "Power")
MARKER = (inch(3), inch(1))
TOL = mm(0.01)


@pytest.fixture(scope="module")
def built(session_build) -> dict[str, Path]:
    return {mode: session_build("sci-tech", mode) for mode in BUILDS["sci-tech"]}


def flipped(origin, paper, duplex):
    """Where a back drawn at ``origin`` lands on the front page after the flip."""
    x, y = origin
    w, h = MARKER
    if duplex == "none":
        return (x, y)
    if (duplex == "long") != (paper[0] > paper[1]):   # landscape swaps the flips
        return (paper[0] - x - w, y)
    return (x, paper[1] - y - h)


def marker_text(textpage, origin) -> str:
    x, y = origin
    return " ".join(textpage.get_text_bounded(x, y, x + MARKER[0], y + MARKER[1]).split())


def test_data_has_thirty_markers_six_per_field():
    ds = load_dataset(Pack.open(PACK))
    fields = ds.items("fields.fields")
    assert [f["name"] for f in fields] == list(FIELDS)
    assert [f["markers"] for f in fields] == [6] * 5
    assert len({f["colour"] for f in fields}) == 5


@pytest.mark.parametrize("key", ["a4-long", "letter-short", "a4-none"])
def test_thirty_markers_each_with_both_sides(built, key):
    reader = PdfReader(built[key] / built_name("sci-tech-markers.pdf", "sci-tech", key))
    # 3 x 7 on a landscape sheet, 2.5 mm gutters (portrait holds 2 x 10)
    per_sheet = {"a4-long": 21, "letter-short": 21, "a4-none": 21}[key]
    kept = 2          # the first sheet's two bottom right slots: the 25 mm scale check
    sheets = -(-(30 + kept) // per_sheet)
    assert len(reader.pages) == 2 * sheets
    drawn = [len(placements(p)) for p in reader.pages]
    assert sum(drawn) == 60
    assert drawn[0] == per_sheet - kept


@pytest.mark.parametrize("key,duplex", [("a4-long", "long"), ("letter-short", "short")])
def test_each_level_2_side_is_behind_its_level_1_side(built, key, duplex):
    """Front and back pages alternate; every back lands on its front within 0.01 mm
    after the flip, and names the same field at Level 2."""
    path = built[key] / built_name("sci-tech-markers.pdf", "sci-tech", key)
    reader = PdfReader(path)
    pdf = pdfium.PdfDocument(str(path))
    seen: Counter = Counter()
    for i in range(0, len(reader.pages), 2):
        fronts, backs = placements(reader.pages[i]), placements(reader.pages[i + 1])
        assert len(fronts) == len(backs)
        paper = tuple(float(v) for v in reader.pages[i].mediabox[2:])
        front_text, back_text = pdf[i].get_textpage(), pdf[i + 1].get_textpage()
        for front, back in zip(fronts, backs):
            landed = flipped(back[1], paper, duplex)
            assert abs(landed[0] - front[1][0]) <= TOL and abs(landed[1] - front[1][1]) <= TOL
            # the clip holds the whole trim: the marker is 3 x 1 in exactly
            cx, cy, cw, ch = front[2]
            fx, fy = front[1]
            assert cx <= fx + 1e-3 and cy <= fy + 1e-3
            assert cx + cw >= fx + MARKER[0] - 1e-3 and cy + ch >= fy + MARKER[1] - 1e-3
            one = marker_text(front_text, front[1])
            two = marker_text(back_text, back[1])
            field = re.match(r"^([A-Z]+) SCI-TECH", one)
            assert field, one
            name = field.group(1)
            assert "LEVEL 1" in one and "LEVEL 2" not in one, one
            assert two.startswith(f"{name} SCI-TECH"), (one, two)
            assert "LEVEL 2" in two and "LEVEL 1" not in two, two
            seen[name.title()] += 1
    assert seen == Counter({f: 6 for f in FIELDS})


def test_duplex_none_puts_backs_where_their_fronts_are(built):
    reader = PdfReader(built["a4-none"] / "sci-tech-markers.pdf")
    # two front sheets, then two back sheets
    assert [p[1] for p in placements(reader.pages[0])] == \
        [p[1] for p in placements(reader.pages[2])]


def test_marker_forms_are_three_by_one_inch(built):
    reader = PdfReader(built["a4-long"] / "sci-tech-markers.pdf")
    forms = reader.pages[0]["/Resources"]["/XObject"]
    faces = [f.get_object() for name, f in forms.items() if "face" in name]
    assert faces
    for form in faces:
        x0, y0, x1, y1 = (float(v) for v in form["/BBox"])
        bleed = -x0
        assert x1 - bleed == pytest.approx(MARKER[0], abs=TOL)
        assert (y1 - bleed) == pytest.approx(MARKER[1], abs=TOL)


def test_sides_look_different_and_markers_of_a_field_look_alike(built):
    """One front and one back design per field: ten faces, none shared by both sides."""
    reader = PdfReader(built["a4-long"] / "sci-tech-markers.pdf")
    fronts = {p[0] for i in (0, 2) for p in placements(reader.pages[i])}
    backs = {p[0] for i in (1, 3) for p in placements(reader.pages[i])}
    assert len(fronts) == 5 and len(backs) == 5 and not fronts & backs


def test_rules_reference_is_one_page_with_every_section(built):
    for key in ("a4-long", "letter-short"):
        path = built[key] / built_name("sci-tech-rules-reference.pdf", "sci-tech", key)
        reader = PdfReader(path)
        assert len(reader.pages) == 1
        text = " ".join(reader.pages[0].extract_text().split())
        for heading in ("Markers and setup", "Advancement", "Wielding Sci-Tech", "Advocacy",
                        "Trading Sci-Tech"):
            assert heading in text, heading
        for phrase in ("HIGHER", "SAME OR HIGHER", "re-wield", "every other player discards",
                       "No one advances more than one level from a single deal",
                       "Bryan Bowe"):
            assert phrase in text, phrase
        ds = load_dataset(Pack.open(PACK))
        for field in ds.items("fields.fields"):
            action = field["action"]
            assert (action[:1].upper() + action[1:]) in text, action
            assert " ".join(field["wield"].split()[:6]) in text


def test_data_drives_the_markers(tmp_path):
    """Renaming a field in the data renames both sides of its markers."""
    import shutil
    pack = shutil.copytree(PACK, tmp_path / "st")
    path = pack / "cards/fields.yaml"
    path.write_text(path.read_text().replace("name: Moon", "name: Comet"))
    build(str(pack), tmp_path / "out", PrintOptions())
    reader = PdfReader(tmp_path / "out/sci-tech-markers.pdf")
    text = " ".join(" ".join(p.extract_text().split()) for p in reader.pages)
    assert text.count("COMET") == 12 and "MOON" not in text


def _art_ids(ink_saver: bool) -> set[str]:
    """Art ids drawn on the markers' faces (both sides)."""
    from eti_print.jobs.decks import resolve_deck, sheet_spec
    from eti_print.pipeline import load_checked as load_context
    from eti_print.render.faces import FaceResolver
    ctx = load_context(str(PACK), PrintOptions(ink_saver=ink_saver))
    spec = sheet_spec(ctx, "marker")
    resolver = FaceResolver(ctx.env, ctx.fonts, ctx.art, spec.card[0], spec.card[1],
                            spec.bleed, ink_saver=ink_saver)
    problems: list = []
    deck = resolve_deck(ctx, ctx.dataset.config["decks"][0], resolver, problems)
    assert not problems
    return {op.args[0] for pair in deck.cards for face in pair for op in face.ops
            if op.kind == "art"}


def test_ink_saver_leaves_the_sky_out():
    """Layouts see `ink_saver`: an ink-saver build leaves out the starfield and
    the warp rays, and keeps the icons and stars."""
    full, saver = _art_ids(False), _art_ids(True)
    assert {"starfield", "warp", "star"} <= full
    assert "starfield" not in saver and "warp" not in saver
    assert {"star", "field-edict", "field-moon"} <= saver
