"""Drawing fitted text on a reportlab canvas.

A text block is one reportlab text object.  Its pieces (in TrueType fonts: ``fit`` sets
text in nothing else) are written as the text object's ``setFont``, ``setTextOrigin`` and
``textOut`` would write them, without their per-call bookkeeping (a font look-up per
call, the string's width, the object's state saved and restored): the same font calls in
the same order (``splitString`` gives each new character its subset code,
``getSubsetInternalName`` names a subset on first use), and the same operators, byte for
byte.
"""

from __future__ import annotations

from typing import Any

from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase import pdfmetrics

from .fitting import Fitted


def draw(canvas: Any, fitted: Fitted, x: float, y: float) -> None:
    """Draw ``fitted`` with its box's bottom-left corner at (``x``, ``y``)."""
    if not fitted.lines:
        return
    style = fitted.style
    canvas.saveState()
    tx = canvas.beginText()
    tx.setFillColor(style.color)
    if style.tracking:
        tx.setCharSpace(style.tracking)
    code, doc, escape = tx._code, canvas._doc, canvas._escape
    origin = "1 0 0 1 {} Tm" if canvas.bottomup else "1 0 0 -1 {} Tm"
    size_and_leading = f"{fp_str(fitted.size)} Tf {fp_str(fitted.leading)} TL"
    current = font = None
    subset_now = -1
    placed_icons: list[tuple[str, float, float]] = []
    for ln in fitted.lines:
        base = y + ln.baseline
        for p in ln.pieces:
            if p.icon is not None:
                placed_icons.append((p.icon, x + p.x + (p.width - fitted.icon_size) / 2,
                                     base + fitted.icon_rise))
                continue
            if p.font != current:
                current = p.font
                font = pdfmetrics.getFont(current)
                subset_now = -1
            code.append(origin.format(fp_str(x + p.x, base)))
            shown = []
            for subset, text in font.splitString(p.text, doc):
                if subset != subset_now:
                    shown.append(f"{font.getSubsetInternalName(subset, doc)} {size_and_leading}")
                    subset_now = subset
                shown.append(f"({escape(text)}) Tj")
            code.append(" ".join(shown))
    canvas.drawText(tx)
    canvas.restoreState()
    color = style.icon_color if style.icon_color is not None else style.color
    for name, ix, iy in placed_icons:
        canvas.saveState()
        fitted.icons.draw(canvas, name, ix, iy, fitted.icon_size, fitted.icon_size, color=color)
        canvas.restoreState()
