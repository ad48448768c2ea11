"""Drawing fitted text on a reportlab canvas."""

from __future__ import annotations

from typing import Any

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
    current = None
    placed_icons: list[tuple[str, float, float]] = []
    for ln in fitted.lines:
        base = y + ln.baseline
        for p in ln.pieces:
            if p.icon is not None:
                placed_icons.append((p.icon, x + p.x + (p.width - fitted.icon_size) / 2,
                                     base + fitted.icon_rise))
                continue
            if p.font != current:
                tx.setFont(p.font, fitted.size, fitted.leading)
                current = p.font
            tx.setTextOrigin(x + p.x, base)
            tx.textOut(p.text)
    canvas.drawText(tx)
    canvas.restoreState()
    color = style.icon_color if style.icon_color is not None else style.color
    for name, ix, iy in placed_icons:
        canvas.saveState()
        fitted.icons.draw(canvas, name, ix, iy, fitted.icon_size, fitted.icon_size, color=color)
        canvas.restoreState()
