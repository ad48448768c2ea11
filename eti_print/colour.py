"""Colours: one luminance (WCAG 2 relative luminance), one contrast rule, one mixer.

Every choice of a readable ink (the ``contrast`` template filter, ``ink_on``,
board palettes, the ink-saver's dark text) goes through ``readable``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from reportlab.lib.colors import Color

_HEX_RE = re.compile(r"^#([0-9A-Fa-f]{6})$")
NAVY = "#1E2430"
CREAM = "#F4EEDF"
WHITE = "#FFFFFF"


def rgb(colour: Any) -> tuple[float, float, float]:
    """``#RRGGBB`` or a reportlab ``Color`` as (r, g, b) in 0..1."""
    if isinstance(colour, Color):
        return (colour.red, colour.green, colour.blue)
    match = _HEX_RE.match(str(colour))
    if not match:
        raise ValueError(f"a colour must be #RRGGBB (got {colour!r})")
    h = match.group(1)
    return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]


def to_hex(channels: Sequence[float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(v * 255))):02X}" for v in channels)


def luminance(colour: Any) -> float:
    """WCAG 2 relative luminance, 0 (black) to 1 (white)."""
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb(colour)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(a: Any, b: Any) -> float:
    """WCAG contrast ratio of two colours, 1 to 21."""
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def readable(background: Any, dark: str = NAVY, light: str = WHITE) -> str:
    """Whichever of ``dark`` and ``light`` has the higher contrast on ``background``."""
    return dark if contrast_ratio(background, dark) >= contrast_ratio(background, light) \
        else light


def ink_on(colour: Any) -> str:
    """Cream or navy, whichever reads better on ``colour``."""
    return readable(colour, NAVY, CREAM)


def blend(a: Any, b: Any, amount: float) -> tuple[float, float, float]:
    """``a`` moved ``amount`` (0..1) of the way to ``b``, as (r, g, b) in 0..1."""
    return tuple(x + (y - x) * amount for x, y in zip(rgb(a), rgb(b)))  # type: ignore[return-value]


def mix(a: Any, b: Any, amount: float) -> str:
    """``blend``, as ``#RRGGBB``."""
    return to_hex(blend(a, b, amount))
