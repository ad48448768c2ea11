"""Fitting runs into a box: the largest size at which every line fits."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from reportlab.pdfbase import pdfmetrics

from ..errors import InputError, Problem, fail
from ..fonts import missing_glyphs
from .breaking import _SPACE, _break_lines, _layout, _prepare, _Prepared
from .markup import parse
from .runs import _EPS, ICON_ADVANCE, SOFT_HYPHEN, STEP, Run
from .style import IconDrawer, TextStyle, _display_font, _unit_width, font_metrics

# ---------------------------------------------------------------------------
# Fitting


@dataclass(frozen=True, slots=True)
class Piece:
    """Something drawn on a line: text in one font, or an inline icon.

    ``x`` is from the box's left edge; an icon's drawn box is
    ``(x + icon_x, baseline, icon_size, icon_size)``.
    """

    x: float
    width: float
    text: str = ""
    font: str | None = None
    icon: str | None = None


@dataclass(frozen=True, slots=True)
class Line:
    pieces: tuple[Piece, ...]
    baseline: float        # from the box's bottom edge
    width: float           # the set width (the box width when justified)
    last: bool             # last line of its paragraph (never justified)

    @property
    def text(self) -> str:
        """The line's text; an icon shows as U+FFFC."""
        return "".join(p.text if p.icon is None else "\ufffc" for p in self.pieces)


@dataclass(frozen=True)
class Fitted:
    """Text set in a box: the size chosen and every line's pieces."""

    lines: tuple[Line, ...]
    size: float
    leading: float         # points
    width: float
    height: float
    style: TextStyle
    icons: Any = field(default=None, compare=False, repr=False)
    cap_height: float = 0.0
    icon_size: float = 0.0

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)

    @property
    def icon_rise(self) -> float:
        """Icon bottom above the baseline: 0 at cap height (icon_scale 1); a larger
        icon is centred on the caps, so padded art lines up with the letters."""
        return (self.cap_height - self.icon_size) / 2

    @property
    def shrunk(self) -> bool:
        return self.size < self.style.size - _EPS

    @property
    def extent(self) -> tuple[float, float]:
        """(bottom, top) of the set text from the box's bottom edge: the last
        line's descender depth and the first line's ascender height."""
        if not self.lines:
            return (0.0, 0.0)
        m = font_metrics(self.style.family)
        return (self.lines[-1].baseline - m.descent * self.size,
                self.lines[0].baseline + m.ascent * self.size)


class OverflowProblem(InputError):
    """Text that does not fit its box even at the minimum size.

    ``kind`` is ``"word"`` (an unbreakable word wider than the box),
    ``"width"`` (a line of unwrapped text wider than the box) or ``"height"``;
    ``needed`` and ``available`` are the points compared.
    """

    def __init__(self, problem: Problem, kind: str, needed: float, available: float):
        super().__init__(problem)
        self.kind = kind
        self.needed = needed
        self.available = available


def _sizes(style: TextStyle) -> tuple[float, ...]:
    return _size_steps(style.size, style.smallest)


@lru_cache(maxsize=256)
def _size_steps(top: float, low: float) -> tuple[float, ...]:
    steps = int(math.floor((top - low) / STEP + 1e-9))
    sizes = [round(top - k * STEP, 6) for k in range(steps + 1)]
    if sizes[-1] > low + 1e-9:
        sizes.append(low)
    return tuple(sizes)


@cache
def _font_chars(font: str) -> frozenset[str]:
    return frozenset(map(chr, pdfmetrics.getFont(font).face.charToGlyph))


def _check_glyphs(runs: Sequence[Run], style: TextStyle, where, line, field) -> None:
    by_font: dict[str, list[str]] = {}
    for run in runs:
        if run.kind == "text":
            font = style.family.face(run.bold, run.italic)
            by_font.setdefault(font, []).append(run.text.upper() if style.upper else run.text)
    problems = []
    for font, texts in by_font.items():
        text = "".join(texts)
        if SOFT_HYPHEN in text:
            text += "-"
        lacking = set(text).difference(_font_chars(font))
        if not lacking:
            continue
        missing = missing_glyphs(font, "".join(lacking))
        if missing:
            seen = sorted(missing, key=text.index)
            shown = ", ".join(f"{ch!r} (U+{ord(ch):04X})" for ch in seen[:12])
            if len(seen) > 12:
                shown += f" and {len(seen) - 12} more"
            problems.append(Problem(f"font {_display_font(font)} has no glyph for {shown}",
                                    where, line, None, field,
                                    "use characters the font covers, or a font role that has them"))
    if problems:
        raise InputError(problems)


def fit(runs: Sequence[Run], width: float, height: float, style: TextStyle,
        icons: IconDrawer | None = None, *, where: str | None = None,
        line: int | None = None, field: str | None = None) -> Fitted:
    """Set ``runs`` in a ``width`` x ``height`` box.

    Tries ``style.size``, then smaller sizes in 0.25 pt steps down to
    ``style.min_size``; the largest size at which every line fits the width
    and all lines fit the height wins.  Raises ``OverflowProblem`` if nothing
    fits, ``InputError`` for glyphs the font lacks or unknown icons.
    ``where``/``line``/``field`` locate the box in messages.
    """
    runs = list(runs)
    _check_glyphs(runs, style, where, line, field)
    prep = _prepare(runs, style)
    if prep.icons:
        if icons is None:
            raise fail(f"inline icon :{prep.icons[0]}: but no art is available here",
                       path=where, line=line, field=field)
        for name in prep.icons:
            art = icons.get(name, where=where, line=line, field=field)
            if getattr(art, "raster", False):   # art.RasterArt
                raise fail(f"inline icon :{name}: is a {art.kind} image ({art.shown}); inline "
                           "icons take the text's colour, so they must be SVG", path=where,
                           line=line, field=field, hint="draw the icon as SVG, or place the "
                           "picture with an art box")
    if not prep.paragraphs:
        return Fitted((), style.size, style.leading * style.size, width, height, style, icons,
                      prep.metrics.cap_height * style.size,
                      prep.metrics.cap_height * style.size * style.icon_scale)
    if not (width > 0 and height > 0):
        raise fail(f"text box has no room ({width:.1f} x {height:.1f} pt)",
                   path=where, line=line, field=field)
    sizes = _sizes(style)
    layout = _layout(prep, sizes[0], width, height, style.leading, style.wrap)
    chosen = 0
    if layout is None:
        last = _layout(prep, sizes[-1], width, height, style.leading, style.wrap)
        if last is None:
            raise _overflow(prep, sizes[-1], width, height, style, where, line, field)
        # fits at the smallest: binary search the largest size that fits
        lo, hi, layout, chosen = 0, len(sizes) - 1, last, len(sizes) - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            trial = _layout(prep, sizes[mid], width, height, style.leading, style.wrap)
            if trial is None:
                lo = mid
            else:
                hi, layout, chosen = mid, trial, mid
    return _assemble(prep, layout, sizes[chosen], width, height, style, icons)


def _overflow(prep: _Prepared, size: float, width: float, height: float, style: TextStyle,
              where, line, field) -> OverflowProblem:
    at = f"at the minimum size {size:g} pt" if style.min_size is not None and \
        style.min_size < style.size else f"at {size:g} pt (no min_size to shrink to)"
    hint = "shorten the text, enlarge the box or lower its min_size"
    widest, widest_w = None, 0.0
    for para in prep.paragraphs:
        for c in para:
            w = c.a * size + c.b
            if w > widest_w:
                widest, widest_w = c, w
    if widest is not None and widest_w > width + _EPS:
        word = widest.text()
        if len(word) > 23:
            word = word[:20] + "..."
        return OverflowProblem(
            Problem(f"word {word!r} is {widest_w:.1f} pt wide, box is {width:.1f} pt {at}",
                    where, line, None, field, hint), "word", widest_w, width)
    m = prep.metrics
    lead = style.leading * size
    count = 0
    for para, prefix in zip(prep.paragraphs, prep.prefixes):
        if not style.wrap:
            w = prefix[0][-1] * size + prefix[1][-1]
            if w > width + _EPS:
                shown = "".join((" " if i and c.before == _SPACE else "") + c.text()
                                for i, c in enumerate(para))
                if len(shown) > 23:
                    shown = shown[:20] + "..."
                return OverflowProblem(
                    Problem(f"line {shown!r} is {w:.1f} pt wide, box is {width:.1f} pt {at}",
                            where, line, None, field,
                            "shorten the text, widen the box, lower its min_size "
                            "or let it wrap"), "width", w, width)
        lines = _break_lines(para, prefix, size, width, 1 << 30)
        if lines is None:   # a word with its soft hyphen is wider than the box
            return OverflowProblem(
                Problem(f"text does not fit the box width {width:.1f} pt {at}",
                        where, line, None, field, hint), "word", width, width)
        count += len(lines)
    needed = (count - 1) * lead + (m.ascent + m.descent) * size
    return OverflowProblem(
        Problem(f"text does not fit: needs {needed:.1f} pt of height ({count} lines), "
                f"box has {height:.1f} pt {at}", where, line, None, field, hint),
        "height", needed, height)


def _assemble(prep: _Prepared, layout, size: float, width: float, height: float,
              style: TextStyle, icons) -> Fitted:
    m = prep.metrics
    lead = style.leading * size
    n = len(layout)
    cap = m.cap_height * size
    if style.valign == "top":
        first = height - m.ascent * size
    elif style.valign == "bottom":
        first = m.descent * size + (n - 1) * lead
    else:
        # centre the caps (cap top of the first line to the last baseline),
        # keeping ascenders and descenders inside the box
        block = (n - 1) * lead + cap
        first = (height + block) / 2 - cap
        first = min(first, height - m.ascent * size)
        first = max(first, m.descent * size + (n - 1) * lead)
    isize = cap * style.icon_scale
    iw = isize * ICON_ADVANCE
    tracking = style.tracking
    align = style.align
    lines: list[Line] = []
    for idx, (k, (start, end, natural, hyph)) in enumerate(layout):
        para = prep.paragraphs[k]
        last = end >= len(para)
        if end > start:
            tail = para[end - 1]
            ends_text = hyph or tail.frags[-1][0] is not None
            if hyph:
                natural += tail.ha * size + tail.hb
        else:
            ends_text = False
        visible = natural - (tracking if ends_text and tracking else 0.0)
        spaces = sum(1 for ci in range(start + 1, end) if para[ci].before == _SPACE)
        extra = 0.0
        if align == "justify" and not last and spaces and natural < width:
            extra = (width - natural) / spaces
            x, set_width = 0.0, width
        else:
            x = (width - visible) / 2 if align == "center" else \
                width - visible if align == "right" else 0.0
            set_width = visible
        # pieces: [x, width, text, font, icon]; same-font neighbours merge unless
        # a stretched (justified) space separates them
        pieces: list[list] = []
        cur: list | None = None
        for ci in range(start, end):
            c = para[ci]
            if ci > start and c.before == _SPACE:
                sw = c.sa * size + c.sb
                if cur is not None and cur[3] == c.space_font:
                    cur[2] += " "
                    cur[1] += sw
                else:
                    cur = [x, sw, " ", c.space_font, None]
                    pieces.append(cur)
                x += sw
                if extra:
                    x += extra
                    cur = None
            for font, t, uw in c.frags:
                if font is None:
                    pieces.append([x, iw, "", None, t])
                    x += iw
                    cur = None
                    continue
                w = uw * size + tracking * len(t) if tracking else uw * size
                if cur is not None and cur[3] == font:
                    cur[2] += t
                    cur[1] += w
                else:
                    cur = [x, w, t, font, None]
                    pieces.append(cur)
                x += w
        if hyph:
            font = next((f for f, _, _ in reversed(para[end - 1].frags) if f),
                        style.family.regular)
            w = _unit_width(font, "-") * size + tracking
            if cur is not None and cur[3] == font:
                cur[2] += "-"
                cur[1] += w
            else:
                pieces.append([x, w, "-", font, None])
        lines.append(Line(tuple(Piece(*p) for p in pieces), first - idx * lead, set_width, last))
    return Fitted(tuple(lines), size, lead, width, height, style, icons, cap, isize)


def fit_markup(markup: str, width: float, height: float, style: TextStyle,
               icons: IconDrawer | None = None, where: str | None = None,
               line: int | None = None, field: str | None = None) -> Fitted:
    """``parse`` then ``fit``."""
    runs = parse(markup, where=where, line=line, field=field)
    return fit(runs, width, height, style, icons, where=where, line=line, field=field)


def measure_line(runs: Iterable[Run], style: TextStyle, size: float | None = None) -> float:
    """The natural width of ``runs`` set on one line (breaks ignored, spaces collapsed)."""
    size = style.size if size is None else size
    prep = _prepare([r for r in runs if r.kind != "break"], style)
    total = 0.0
    for para in prep.paragraphs:
        for i, c in enumerate(para):
            if i and c.before == _SPACE:
                total += c.sa * size + c.sb
            total += c.a * size + c.b
    if style.tracking and total:
        total -= style.tracking
    return total
