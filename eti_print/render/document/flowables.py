"""Flowables for text: rich text, headings, contents lines, art and gaps."""

from __future__ import annotations

import hashlib
import math
import weakref
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from reportlab.lib.colors import Color
from reportlab.platypus.flowables import Flowable

from ...errors import InputError, Problem
from ...text import Fitted, Line, Run, TextStyle, fit, font_metrics
from ...text import draw as draw_text
from ...text.fitting import Piece
from ..replay import keyed
from .locate import _Source

BIG = 100_000.0
_EPS = 1e-6

#: Text already set, by (runs, width, style): the fitted text and its lines.  The style
#: is keyed by identity (themes make one object per distinct style, ``theme._STYLES``),
#: and each entry holds its style, so an identity is never reused while its entry lives.  A document
#: repeats itself (a table's "–", its numbers, a name in every row), and the same
#: runs in the same style at the same width set the same way: ``text.fit`` is a function
#: of them (and of the fonts, registered once per process), and what it returns is
#: immutable.  Text without inline icons is kept for the process (a rebuild in ``watch``
#: sets again only the text an edit changed), capped like ``text``'s own caches; text
#: with icons also depends on the art library, so it is kept per library (a document has
#: its own, ``theme.FormIcons``) and only as long as that library.
_Set = tuple[Fitted, tuple[Line, ...], TextStyle]
_TEXT: dict[tuple, _Set] = {}
_TEXT_MAX = 8192
_WITH_ICONS: weakref.WeakKeyDictionary[Any, dict[tuple, _Set]] = weakref.WeakKeyDictionary()


def _kept_for(runs: tuple[Run, ...], icons: Any
              ) -> dict[tuple, _Set] | None:
    if not any(r.kind == "icon" for r in runs):
        if len(_TEXT) >= _TEXT_MAX:
            _TEXT.clear()
        return _TEXT
    if icons is None:
        return None
    try:
        memo = _WITH_ICONS.get(icons)
        if memo is None:
            memo = _WITH_ICONS[icons] = {}
    except TypeError:      # a library that cannot be weakly referenced: nothing kept
        return None
    return memo


class Where:
    """Where a flowable came from; located lazily, only when there is a problem."""

    def __init__(self, src: _Source, line: int, what: str):
        self.src = src
        self.line = line
        self.what = what

    def problem(self, message: str, hint: str | None = None) -> Problem:
        return self.src.problem(message, self.line, "", hint)


class _Located:
    """Where a flowable came from, for overflow messages."""

    source: Where | None = None


class RichText(Flowable, _Located):
    """Text markup set with ``text.fit``: splits between lines, never drops any."""

    def __init__(self, runs: Sequence[Run], style: TextStyle, icons: Any = None, *,
                 space_before: float = 0.0, space_after: float = 0.0, indent: float = 0.0,
                 bullet: Callable[[Any, float, float, RichText], None] | None = None,
                 keep_with_next: bool = False, min_lines: int = 2):
        super().__init__()
        self.runs = list(runs)
        self.style = style
        self.icons = icons
        self.spaceBefore = space_before
        self.spaceAfter = space_after
        self.indent = indent
        self.bullet = bullet
        self.keepWithNext = keep_with_next
        self.min_lines = min_lines
        self._lines: tuple[Line, ...] | None = None
        self._fitted: Fitted | None = None
        self._for_width: float | None = None
        m = font_metrics(style.family)
        self._ascent = m.ascent * style.size
        self._descent = m.descent * style.size
        self._lead = style.leading * style.size

    def _fit(self, width: float) -> None:
        if self._for_width is not None and abs(self._for_width - width) < _EPS:
            return
        text_width = width - self.indent
        if text_width <= 0:
            raise InputError(self._where(f"no room for text ({width:.1f} pt wide)"))
        runs = tuple(self.runs)
        key = (runs, text_width, id(self.style))
        memo = _kept_for(runs, self.icons)
        done = memo.get(key) if memo is not None else None
        if done is None:
            try:
                fitted = fit(runs, text_width, BIG, self.style, self.icons)
            except InputError as exc:
                if self.source is None:
                    raise
                raise InputError([self.source.problem(p.message, p.hint)
                                  for p in exc.problems]) from None
            if memo is _TEXT:      # no icons to draw: the library is not kept alive
                fitted = replace(fitted, icons=None)
            # baselines measured from the top of the text, up (so negative): drawn
            # from the top, they need no second copy (``draw``)
            done = (fitted, tuple(replace(ln, baseline=ln.baseline - BIG)
                                  for ln in fitted.lines), self.style)
            if memo is not None:
                memo[key] = done
        self._fitted, self._lines, _ = done
        self._for_width = width

    def _where(self, message: str) -> Problem:
        return self.source.problem(message) if self.source else Problem(message)

    def height_of(self, n: int) -> float:
        if n <= 0:
            return 0.0
        return self._ascent + (n - 1) * self._lead + self._descent

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        self._fit(aw)
        self.width = aw
        self.height = self.height_of(len(self._lines or ()))
        return aw, self.height

    def split(self, aw: float, ah: float) -> list[Flowable]:
        self._fit(aw)
        lines = self._lines or ()
        n = len(lines)
        k = 0
        while k < n and self.height_of(k + 1) <= ah + _EPS:
            k += 1
        low = min(self.min_lines, n)
        if k < low or n - k < low or k >= n:
            return []
        return [self._part(lines[:k], first=True), self._part(lines[k:], first=False)]

    def _part(self, lines: tuple[Line, ...], first: bool) -> RichText:
        part = RichText([], self.style, self.icons, indent=self.indent,
                        bullet=self.bullet if first else None, min_lines=1)
        offset = -lines[0].baseline - self._ascent
        part._lines = tuple(replace(ln, baseline=ln.baseline + offset) for ln in lines)
        part._fitted = self._fitted
        part._for_width = self._for_width
        part.spaceBefore = self.spaceBefore if first else 0.0
        part.spaceAfter = 0.0 if first else self.spaceAfter
        part.source = self.source
        return part

    def draw(self) -> None:
        if not self._lines or self._fitted is None:
            return
        h = self.height
        # the lines' baselines are below the top (negative): drawn from the top at h
        draw_text(self.canv, replace(self._fitted, lines=self._lines, height=h), self.indent, h)
        if self.bullet is not None:
            self.bullet(self.canv, 0, h + self._lines[0].baseline, self)

    def _drawn_from(self) -> tuple:
        """What drawing reads (``render.replay`` keys a page by it): the lines as fitted,
        and all else of the fitted text, its height and indent, the bullet and its size.
        Not the width it was last wrapped to: a table wraps its cells again as it draws
        them, to a width a float's last bit apart, and the lines stay as fitted."""
        f = self._fitted
        fitted = None if f is None else (f.size, f.leading, f.width, f.style, f.icons,
                                          f.cap_height, f.icon_size)
        return (self.indent, self.height, _lines_key(self._lines or ()), fitted,
                self.bullet, self.style.size, vars(self).get("hAlign"))


class Heading(RichText):
    """A heading: kept with what follows, recorded for the outline and contents."""

    def __init__(self, runs: Sequence[Run], style: TextStyle, icons: Any, *, level: int,
                 key: str, title: str, short: str, in_toc: bool, rule: Color | None,
                 space_before: float, space_after: float):
        super().__init__(runs, style, icons, space_before=space_before, space_after=space_after,
                         keep_with_next=True)
        self.level = level
        self.key = key
        self.title = title
        self.short = short
        self.in_toc = in_toc
        self.rule = rule

    def split(self, aw: float, ah: float) -> list[Flowable]:
        return []

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        w, h = super().wrap(aw, ah)
        if self.rule is not None:
            self.height = h + 5
        return w, self.height

    def draw(self) -> None:
        if self.rule is not None:
            self.canv.saveState()
            self.canv.setStrokeColor(self.rule)
            self.canv.setLineWidth(1.2)
            self.canv.line(0, 1, self.width, 1)
            self.canv.restoreState()
            self.canv.saveState()
            self.canv.translate(0, 5)
            self.height -= 5
            try:
                super().draw()
            finally:
                self.height += 5
                self.canv.restoreState()
        else:
            super().draw()

    def _drawn_from(self) -> tuple:
        return (super()._drawn_from(), self.rule, self.width)    # the rule's length


#: Every field of a line and of a piece, as a key writes them.
_PIECE = Piece.__slots__
_LINE = tuple(f for f in Line.__slots__ if f != "pieces")
#: The key of a text's lines (``RichText._drawn_from``) by their identity: unchanged text
#: is set into the very lines ``_TEXT`` keeps, build after build, so a page's key reads
#: them once.  Each entry holds its lines, so no other takes their identity while it
#: lives.  Cleared when full.
_LINE_KEYS: dict[int, tuple[tuple[Line, ...], bytes]] = {}
_LINE_KEYS_MAX = 8192


def _lines_key(lines: tuple[Line, ...]) -> bytes:
    found = _LINE_KEYS.get(id(lines))
    if found is None:
        plain = tuple((tuple(tuple(getattr(p, f) for f in _PIECE) for p in ln.pieces),
                       *(getattr(ln, f) for f in _LINE)) for ln in lines)
        if len(_LINE_KEYS) >= _LINE_KEYS_MAX:
            _LINE_KEYS.clear()
        # repr: every float written exactly, every text quoted
        found = _LINE_KEYS[id(lines)] = (lines, hashlib.blake2b(
            repr(plain).encode("utf-8", "surrogatepass"), digest_size=20).digest())
    return found[1]


# How a page's record is keyed (render.replay): a flowable by what its drawing reads; where
# it came from is never drawn; a text style once per drawing.
keyed(RichText, RichText._drawn_from)
keyed(Heading, Heading._drawn_from)
keyed(Where, "where")
keyed(TextStyle)


class ArtBlock(Flowable, _Located):
    def __init__(self, art: Any, name: str, width: float, height: float,
                 color: Color | None, space_after: float = 6.0):
        super().__init__()
        self.art = art
        self.name = name
        self.w = width
        self.h = height
        self.color = color
        self.spaceAfter = space_after

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        self.width = aw
        self.height = self.h
        return aw, self.h

    def draw(self) -> None:
        w = min(self.w, self.width)
        self.art.draw(self.canv, self.name, (self.width - w) / 2, 0, w, self.h, self.color)


class Gap(Flowable):
    def __init__(self, height: float):
        super().__init__()
        self.h = height

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        return aw, min(self.h, ah)

    def draw(self) -> None:
        pass


class PageBreak(Flowable):
    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        return aw, 0.0

    def draw(self) -> None:
        pass


class TocLine(Flowable):
    """One line of the contents: title, dotted leader, page number."""

    def __init__(self, runs: Sequence[Run], style: TextStyle, number_style: TextStyle,
                 key: str, level: int, pages: dict[str, int], leader: Color, icons: Any):
        super().__init__()
        self.text = RichText(runs, style, icons, indent=14 * (level - 1))
        self.number_style = number_style
        self.key = key
        self.level = level
        self.pages = pages
        self.leader = leader
        self.spaceBefore = 5.0 if level == 1 else 0.5
        self.spaceAfter = 0.5
        self.link = True

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        _, h = self.text.wrap(aw - 40, ah)
        self.width, self.height = aw, h
        return aw, h

    def draw(self) -> None:
        c = self.canv
        self.text.drawOn(c, 0, 0)
        number = str(self.pages.get(self.key, ""))
        f = fit([Run.of(number)], 30, self.height + 4, replace(self.number_style,
                                                                     align="right"))
        lines = self.text._lines or ()
        if not lines:
            return
        base = self.height + lines[-1].baseline   # baselines are negative: below the top
        draw_text(c, replace(f, lines=tuple(replace(ln, baseline=base) for ln in f.lines)),
                  self.width - 30, 0)
        end = self.text.indent + max(ln.width for ln in lines[-1:]) + 4
        start = math.ceil(end / 4) * 4
        stop = self.width - 32
        if stop > start:
            # dotted leader: one dashed line with round caps, zero-length dashes
            c.saveState()
            c.setStrokeColor(self.leader)
            c.setLineWidth(0.9)
            c.setLineCap(1)
            c.setDash([0, 4])
            c.line(start, base + 1.5, stop, base + 1.5)
            c.restoreState()
        if self.link and self.key in self.pages:
            c.linkRect("", self.key, (0, 0, self.width, self.height), relative=1, thickness=0)
