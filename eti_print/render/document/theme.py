"""How a document looks, and icons drawn once per document."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from reportlab.lib.colors import Color, HexColor

from ...fonts import Family
from ...text import TextStyle
from ..replay import define, keyed

#: Every style a theme made, one object per distinct value in the process: text set once
#: (``flowables.RichText``) is found again by its style's identity, which costs nothing
#: to hash, in this document and in the next build of the same one.
_STYLES: dict[TextStyle, TextStyle] = {}
_STYLES_MAX = 4096


@dataclass(frozen=True)
class Theme:
    """How a document looks: page, fonts and colours.  Sizes in points."""

    page: tuple[float, float]
    margins: tuple[float, float, float, float]     # top, right, bottom, left
    body: Family
    heading: Family
    label: Family
    ink: Color = HexColor("#1E2430")
    accent: Color = HexColor("#1E2430")     # headings, table heads, cover
    rule: Color = HexColor("#C9A227")       # rules and highlights
    alert: Color = HexColor("#A8322A")      # h3, ordered-list numbers, end nodes
    panel: Color = HexColor("#F4EEDF")      # notes, zebra rows, cover text
    muted: Color = HexColor("#5A5F67")
    paper: Color = HexColor("#FFFFFF")
    cover: Color | None = HexColor("#1E2430")   # the cover's panel; None: plain paper
    size: float = 9.5
    leading: float = 1.38

    @property
    def frame(self) -> tuple[float, float, float, float]:
        """The text area (x, y, width, height)."""
        top, right, bottom, left = self.margins
        return (left, bottom, self.page[0] - left - right, self.page[1] - top - bottom)

    def style(self, family: Family | None = None, size: float | None = None,
              color: Color | None = None, **kw: Any) -> TextStyle:
        # one style for every paragraph or cell that asks the same (a style is immutable)
        key = (family, size, color, tuple(kw.items()))
        made = self.__dict__.setdefault("_styles", {})
        style = made.get(key)
        if style is None:
            kw.setdefault("icon_scale", 1.35)
            style = TextStyle(family=family or self.body, size=size or self.size,
                              leading=kw.pop("leading", self.leading),
                              color=color or self.ink, **kw)
            if len(_STYLES) >= _STYLES_MAX:
                _STYLES.clear()
            style = made[key] = _STYLES.setdefault(style, style)
        return style


# ---------------------------------------------------------------------------
# Icons drawn once per document


class _OnCanvas:
    """What a ``FormIcons`` keeps of one canvas: its forms by (art id, colour) and what
    each name shows, numbered from the canvas's first, and the replay they go through."""

    def __init__(self) -> None:
        self.names: dict[tuple[str, str], str] = {}
        self.meanings: dict[str, tuple[str, str]] = {}
        self.replay: Any = None


class FormIcons:
    """An art library whose drawings go into the PDF once, as forms, and are reused.

    Wraps anything with ``get(art_id, ...)`` returning a drawing with
    ``width``/``height`` and ``draw(canvas, art_id, x, y, w, h, color)``.  Each canvas
    numbers its forms from ``icon0``, in first-use order, however many canvases a plan
    was drawn on before (``watch`` draws a kept plan again): the very names a fresh
    build gives.
    """

    def __init__(self, art: Any):
        self.art = art
        self._on: weakref.WeakKeyDictionary[Any, _OnCanvas] = weakref.WeakKeyDictionary()

    def _canvas(self, canvas: Any) -> _OnCanvas:
        found = self._on.get(canvas)
        if found is None:
            found = self._on[canvas] = _OnCanvas()
        return found

    def meaning(self, canvas: Any, name: str) -> tuple[str, str] | None:
        """What form ``name`` on ``canvas`` shows (None: not one of these forms)."""
        return self._canvas(canvas).meanings.get(name)

    def replay_on(self, canvas: Any, replay: Any) -> None:
        """Draw this library's forms on ``canvas`` through ``replay`` (a
        ``render.replay.FormReplay``; None: drawn afresh from now on)."""
        self._canvas(canvas).replay = replay

    def get(self, art_id: str, *args: Any, **kwargs: Any) -> Any:
        return self.art.get(art_id, *args, **kwargs)

    def form(self, canvas: Any, art_id: str, color: Any = None) -> str:
        """The name of the form of ``art_id`` in ``color`` on ``canvas``, defined there on
        first use (through the canvas's replay, if it has one)."""
        on = self._canvas(canvas)
        key = (art_id, "" if color is None else
               (color if isinstance(color, str) else color.hexval()))
        name = on.names.get(key)
        if name is None:
            name = f"icon{len(on.names)}"
            on.meanings[name] = key
            drawing = self.art.get(art_id)
            dw, dh = float(drawing.width), float(drawing.height)
            define(canvas, on.replay, ("icon",) + key, name, (0, 0, dw, dh),
                   lambda: self.art.draw(canvas, art_id, 0, 0, dw, dh, color),
                   remake=(art_id, color))
            on.names[key] = name
        return name

    def draw(self, canvas: Any, art_id: str, x: float, y: float, width: float, height: float,
             color: Any = None) -> None:
        drawing = self.art.get(art_id)
        dw, dh = float(drawing.width), float(drawing.height)
        name = self.form(canvas, art_id, color)
        scale = min(width / dw, height / dh)
        canvas.saveState()
        canvas.translate(x + (width - dw * scale) / 2, y + (height - dh * scale) / 2)
        canvas.scale(scale, scale)
        canvas.doForm(name)
        canvas.restoreState()


# A page's record (render.replay) holds only in the world it was made in: its art
# library's content and its theme (write.py), so a page is keyed without them.
keyed(FormIcons, "icons")
keyed(Theme, "theme")
