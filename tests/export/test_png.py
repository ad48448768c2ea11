"""The streaming PNG writer: a page rasterised band by band decodes to exactly the pixels
of pdfium's whole-page render, tagged sRGB at its resolution."""

from __future__ import annotations

import io

import pypdfium2 as pdfium
import pytest
from PIL import Image
from reportlab.lib.colors import Color
from reportlab.pdfgen import canvas

from eti_print.export import png
from eti_print.export.faces import srgb_profile


def _page_pdf() -> bytes:
    """Anti-aliased curves, thin strokes, text and a transparent fill on an odd page size,
    so every band edge cuts through shapes."""
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=(187.3, 133.7))
    pdf.setFillColor(Color(0.9, 0.85, 0.7))
    pdf.rect(0, 0, 187.3, 133.7, fill=1, stroke=0)
    for i in range(9):
        pdf.setStrokeColor(Color(i / 9, 0.2, 1 - i / 9))
        pdf.setLineWidth(0.3 + i * 0.37)
        pdf.circle(30 + i * 17.3, 66.85, 11 + i * 3.1, stroke=1, fill=0)
    pdf.setFillColor(Color(0.1, 0.4, 0.8, alpha=0.5))
    pdf.ellipse(12.5, 8.3, 170.1, 60.2, stroke=0, fill=1)
    pdf.setFillColor(Color(0, 0, 0))
    pdf.setFont("Helvetica", 9.3)
    pdf.drawString(14.2, 110.9, "Band edges never show: Quantum Lab 42")
    pdf.showPage()
    pdf.save()
    return buffer.getvalue()


@pytest.mark.parametrize("band_bytes", [1, 3 * 4 * 780, png.BAND_BYTES])
def test_banded_png_has_the_whole_page_renders_pixels(monkeypatch, band_bytes):
    """One row, a few rows or the whole page per band: the same pixels as one render."""
    monkeypatch.setattr(png, "BAND_BYTES", band_bytes)
    doc = pdfium.PdfDocument(_page_pdf())
    page = doc[0]
    scale = 300 / 72
    whole = page.render(scale=scale * (1 - 1e-9), rev_byteorder=True, prefer_bgrx=True)
    expected = whole.to_pil().convert("RGB")
    size, data = png.page_png(page, scale, 300)
    with Image.open(io.BytesIO(data)) as image:
        assert image.mode == "RGB" and image.size == size == expected.size
        assert image.tobytes() == expected.tobytes()
        assert image.info["icc_profile"] == srgb_profile()
        assert image.info["dpi"] == pytest.approx((300, 300), abs=0.01)


def test_image_png_keeps_every_pixel_and_has_no_resolution_unless_asked():
    source = Image.effect_noise((301, 203), 60).convert("RGB")
    with Image.open(io.BytesIO(png.image_png(source))) as image:
        assert image.tobytes() == source.tobytes()
        assert "dpi" not in image.info and image.info["icc_profile"] == srgb_profile()


def test_writer_refuses_partial_rows_and_missing_rows():
    writer = png.PngWriter(4, 2, None)
    with pytest.raises(ValueError, match="whole rows"):
        writer.add(b"\0" * 13)
    writer.add(b"\0" * 12)
    with pytest.raises(ValueError, match="1 rows written of 2"):
        writer.finish()
