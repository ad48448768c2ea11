"""How text is set (``TextStyle``) and what fonts measure."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any, Protocol

from reportlab.lib.colors import Color, black
from reportlab.pdfbase import pdfmetrics

from ..fonts import Family


class IconDrawer(Protocol):
    """What ``fit``/``draw`` need of an art library (``art.ArtLibrary``)."""

    def get(self, art_id: str, where: str | None = None, line: int | None = None,
            field: str | None = None) -> Any: ...

    def draw(self, canvas: Any, art_id: str, x: float, y: float, width: float,
             height: float, color: Any = None) -> None: ...


_ALIGNS = ("left", "center", "right", "justify")
_VALIGNS = ("top", "middle", "bottom")


@dataclass(frozen=True)
class TextStyle:
    """How a box's text is set.  Sizes are points; ``leading`` is a ratio of the size."""

    family: Family
    size: float
    min_size: float | None = None          # None: the text may not shrink
    leading: float = 1.2
    color: Color = black
    align: str = "left"                    # left | center | right | justify
    valign: str = "top"                    # top | middle | bottom
    icon_color: Color | None = None        # None: the text colour
    tracking: float = 0.0                  # extra space after every character (pt)
    upper: bool = False
    icon_scale: float = 1.0                # inline icon height as a multiple of cap height
    wrap: bool = True                      # False: never wrap (labels); shrink to fit instead

    def __post_init__(self) -> None:
        if not (self.size > 0 and math.isfinite(self.size)):
            raise ValueError(f"text size must be positive, got {self.size!r}")
        if self.min_size is not None and not (0 < self.min_size <= self.size):
            raise ValueError(f"min_size must be between 0 and the size {self.size}, "
                             f"got {self.min_size!r}")
        if not self.leading > 0:
            raise ValueError(f"leading must be positive, got {self.leading!r}")
        if self.align not in _ALIGNS:
            raise ValueError(f"align must be one of {', '.join(_ALIGNS)}, got {self.align!r}")
        if self.valign not in _VALIGNS:
            raise ValueError(f"valign must be one of {', '.join(_VALIGNS)}, got {self.valign!r}")
        if not self.icon_scale > 0:
            raise ValueError(f"icon_scale must be positive, got {self.icon_scale!r}")
        if not (math.isfinite(self.tracking) and self.tracking > -0.2 * self.smallest):
            raise ValueError(f"tracking must be more than -0.2 x the minimum size, "
                             f"got {self.tracking!r}")

    @property
    def smallest(self) -> float:
        return self.min_size if self.min_size is not None else self.size


@dataclass(frozen=True)
class FontMetrics:
    """Vertical metrics of a family as fractions of the size."""

    ascent: float
    descent: float      # positive: depth below the baseline
    cap_height: float


@cache
def font_metrics(family: Family) -> FontMetrics:
    """Ascent, descent and cap height of ``family`` (largest over its faces)."""
    asc = desc = cap = 0.0
    for name in {family.regular, family.bold, family.italic, family.bold_italic}:
        face = pdfmetrics.getFont(name).face
        asc = max(asc, face.ascent / 1000.0)
        desc = max(desc, -face.descent / 1000.0)
        cap = max(cap, (getattr(face, "capHeight", 0) or face.ascent * 0.93) / 1000.0)
    return FontMetrics(asc, desc, cap)


_WIDTHS: dict[tuple[str, str], float] = {}
_WIDTHS_CAP = 200_000


def _unit_width(font: str, text: str) -> float:
    """Width of ``text`` in ``font`` at 1 pt (cached)."""
    key = (font, text)
    w = _WIDTHS.get(key)
    if w is None:
        if len(_WIDTHS) >= _WIDTHS_CAP:
            _WIDTHS.clear()
        w = pdfmetrics.getFont(font).stringWidth(text, 1.0)
        _WIDTHS[key] = w
    return w


def text_width(text: str, font: str, size: float, tracking: float = 0.0) -> float:
    """Advance width of ``text`` in a registered font at ``size``, with tracking."""
    return _unit_width(font, text) * size + tracking * len(text)


def _display_font(name: str) -> str:
    return name[4:] if name.startswith("eti-") else name
