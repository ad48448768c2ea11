"""--ink-saver: a light variant of every output, with no full-bleed colour, never overwriting."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

pdfium = pytest.importorskip("pypdfium2")
ImageStat = pytest.importorskip("PIL.ImageStat")

from eti_print.imposition import front_slots
from eti_print.jobs.decks import sheet_spec
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked as load_context

DPI = 50
OUTPUTS = ["eti-cards", "eti-boards", "eti-tokens", "eti-rules-reference", "eti-player-aids"]


@pytest.fixture(scope="module")
def out(tmp_path_factory, session_build) -> Path:
    """The plain and the ink-saver build side by side, as one output folder holds them."""
    out = tmp_path_factory.mktemp("ink")
    for mode in ("a4-long", "ink-saver"):
        for path in session_build("eti", mode).iterdir():
            shutil.copy2(path, out / path.name)
    return out


def _pages(path: Path, scale: float = DPI / 72) -> list:
    doc = pdfium.PdfDocument(str(path))
    try:
        return [doc[i].render(scale=scale).to_pil().convert("RGB") for i in range(len(doc))]
    finally:
        doc.close()


def _coverage(image) -> float:
    """Mean ink coverage, 0 (white paper) to 1 (black everywhere)."""
    return 1 - ImageStat.Stat(image.convert("L")).mean[0] / 255


def test_output_names_are_decided_in_one_place():
    saver = PrintOptions(ink_saver=True)
    assert saver.output_name("eti", "cards") == "eti-cards-ink-saver.pdf"
    assert saver.output_name("eti", "manifest", "json") == "eti-manifest-ink-saver.json"
    assert PrintOptions().output_name("eti", "cards") == "eti-cards.pdf"


def test_every_output_has_an_ink_saver_variant_beside_it(out):
    names = {p.name for p in out.iterdir()}
    normal = json.loads((out / "eti-manifest.json").read_text())
    saver = json.loads((out / "eti-manifest-ink-saver.json").read_text())
    assert saver["options"]["ink_saver"] is True
    assert [f["file"] for f in saver["files"]] == [f["file"].replace(".pdf", "-ink-saver.pdf")
                                                   for f in normal["files"]]
    for f in normal["files"] + saver["files"]:
        assert f["file"] in names
        assert hashlib.sha256((out / f["file"]).read_bytes()).hexdigest() == f["sha256"]
    for name in OUTPUTS:
        assert f"{name}.pdf" in names and f"{name}-ink-saver.pdf" in names


def test_card_sheets_have_no_full_bleed_colour(out):
    """The bleed around the card grid is coloured normally and white in the variant."""
    spec = sheet_spec(load_context(None, PrintOptions()), "card")
    slots = front_slots(spec)
    scale = DPI / 72

    def bleed_band(image) -> list:
        # the strip between the trim and the bleed edge, left of the first column
        s = slots[0]
        page_h = spec.paper[1]
        x0, x1 = s.bleed.x * scale + 1, s.trim.x * scale - 1
        y0 = (page_h - s.trim.top) * scale + 2
        y1 = (page_h - s.trim.y) * scale - 2
        return image.crop((int(x0), int(y0), int(x1), int(y1)))

    normal = _pages(out / "eti-cards.pdf")
    saver = _pages(out / "eti-cards-ink-saver.pdf")
    for page in range(0, len(normal), 2):
        assert _coverage(bleed_band(normal[page])) > 0.3, page
        band = bleed_band(saver[page])
        assert band.convert("L").getextrema()[0] >= 235, page       # white, no colour
        assert _coverage(band) < 0.02, page


def test_cards_use_far_less_ink(out):
    normal = sum(map(_coverage, _pages(out / "eti-cards.pdf")))
    saver = sum(map(_coverage, _pages(out / "eti-cards-ink-saver.pdf")))
    assert saver < 0.35 * normal


@pytest.mark.parametrize("name", [
    "eti-cards", "eti-boards", "eti-tokens", "eti-player-aids", "eti-rules-reference"])
def test_no_page_of_an_ink_saver_output_is_heavily_inked(out, name):
    normal = _pages(out / f"{name}.pdf", 20 / 72)
    saver = _pages(out / f"{name}-ink-saver.pdf", 20 / 72)
    assert len(saver) == len(normal)
    for i, page in enumerate(saver):
        assert _coverage(page) <= max(0.25, 0.6 * _coverage(normal[i])), f"{name} page {i + 1}"
    if name == "eti-rules-reference":
        # Mostly text, which keeps its ink; the full-page cover is what goes.
        assert _coverage(saver[0]) < 0.3 * _coverage(normal[0])
    else:
        assert sum(map(_coverage, saver)) < 0.75 * sum(map(_coverage, normal))
