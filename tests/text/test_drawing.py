"""Drawing fitted text (text/drawing.py): the operators reportlab's own text object
writes, byte for byte, and the same subset codes."""

from __future__ import annotations

import pytest
from reportlab.lib.colors import HexColor

from eti_print.fonts import Family, load_fonts
from eti_print.pack import Pack
from eti_print.pdfwriter import DocInfo, new_canvas
from eti_print.text import TextStyle, draw, fit, parse


@pytest.fixture(scope="module")
def family() -> Family:
    return load_fonts(Pack.open(None))["body"]


def _reportlab(canvas, fitted, x: float, y: float) -> None:
    """The text object's own calls, as text.draw made them before its fast path."""
    if not fitted.lines:
        return
    style = fitted.style
    canvas.saveState()
    tx = canvas.beginText()
    tx.setFillColor(style.color)
    if style.tracking:
        tx.setCharSpace(style.tracking)
    current = None
    for ln in fitted.lines:
        for p in ln.pieces:
            if p.font != current:
                tx.setFont(p.font, fitted.size, fitted.leading)
                current = p.font
            tx.setTextOrigin(x + p.x, y + ln.baseline)
            tx.textOut(p.text)
    canvas.drawText(tx)
    canvas.restoreState()


def _drawn(family: Family, markup: str, how, tracking: float = 0.0) -> tuple[bytes, list]:
    """The page's content and every font's subset codes, after drawing ``markup`` twice
    (the second time, with every character already coded) with ``how``."""
    canvas = new_canvas((300, 300), family.regular, DocInfo("drawing"))
    style = TextStyle(family, 11, color=HexColor("#2a4d69"), tracking=tracking)
    fitted = fit(parse(markup), 200, 200, style)
    how(canvas, fitted, 10, 20)
    how(canvas, fitted, 10, 120)
    code = "\n".join(canvas._code).encode()
    return code, sorted(canvas._doc.fontMapping.items())


@pytest.mark.parametrize("markup", [
    "Plain words over a few lines, long enough that the box wraps them once or twice.",
    "Über <b>Café</b> and <i>naïve</i> — “quoted” <b><i>ĳ Ω</i></b> (a) \\ back",
    "",
])
def test_truetype_text_is_the_text_objects_operators(family, markup):
    assert _drawn(family, markup, draw) == _drawn(family, markup, _reportlab)
    assert _drawn(family, markup, draw, 0.4) == _drawn(family, markup, _reportlab, 0.4)

