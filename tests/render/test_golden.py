"""Raster golden images of a few sheets, compared with a tolerance.

Regenerate with ``python -m pytest tests/render/test_golden.py --update-golden``
after an intended change of the look, and look at the new PNGs before
committing them.  On a mismatch a diff image is written beside the test's
temporary output.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pdfium = pytest.importorskip("pypdfium2")
Image = pytest.importorskip("PIL.Image")
ImageChops = pytest.importorskip("PIL.ImageChops")

GOLDEN = Path(__file__).parent / "golden"
DPI = 40
#: Mean absolute difference per channel (0-255) that still counts as equal:
#: absorbs anti-aliasing differences between rasteriser builds.
TOLERANCE = 1.5
#: (The first research sheet keeps a slot for the scale check: research takes 11 sheets.)
PAGES = {"research-front": 0, "research-back": 1, "projects-front": 22, "events-front": 32,
         "agendas-back": 39, "endgame-front": 42}


@pytest.fixture(scope="module")
def sheet_images(session_build, tmp_path_factory):
    out = tmp_path_factory.mktemp("golden")             # diff images go here
    pdf = pdfium.PdfDocument(str(session_build("eti") / "eti-cards.pdf"))
    images = {name: pdf[index].render(scale=DPI / 72).to_pil().convert("RGB")
              for name, index in PAGES.items()}
    pdf.close()
    return images, out


@pytest.mark.parametrize("name", sorted(PAGES))
def test_sheet_matches_golden(name, sheet_images, update_golden):
    images, out = sheet_images
    image = images[name]
    golden = GOLDEN / f"{name}.png"
    if update_golden or not golden.exists():
        if not update_golden:
            pytest.fail(f"no golden image {golden.name}; run with --update-golden")
        GOLDEN.mkdir(exist_ok=True)
        image.save(golden, optimize=True)
        return
    expected = Image.open(golden).convert("RGB")
    assert image.size == expected.size
    diff = ImageChops.difference(image, expected)
    histogram = diff.histogram()
    total = sum(value * count for i, count in enumerate(histogram) for value in [i % 256])
    mean = total / (image.size[0] * image.size[1] * 3)
    if mean > TOLERANCE:
        diff.point(lambda v: min(255, v * 8)).save(out / f"{name}-diff.png")
    assert mean <= TOLERANCE, f"{name} differs from its golden image by {mean:.2f} " \
                              f"(diff image: {out / (name + '-diff.png')})"
