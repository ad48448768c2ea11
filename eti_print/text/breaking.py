"""Runs to paragraphs of unbreakable chunks, and greedy line breaking."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..fonts import Family
from .runs import _EPS, ICON_ADVANCE, SOFT_HYPHEN, Run
from .style import _WIDTHS, FontMetrics, TextStyle, _unit_width, font_metrics

# ---------------------------------------------------------------------------
# Preparation: runs -> paragraphs of unbreakable chunks
#
# Every width is linear in the size (a * size + b: glyph widths scale, tracking
# does not), so a text is measured once and line breaking at any size is
# arithmetic.  Every boundary between two chunks is a break opportunity: a
# space (dropped at a break), a soft hyphen (shows '-' at a break), or the
# point after '/', a dash, or a hyphen between letters.

_SPACE, _SOFT, _AFTER = 1, 2, 3


@dataclass(slots=True)
class _Chunk:
    frags: list                       # [(font, text, unit width)]; an icon is (None, art_id, w)
    a: float = 0.0
    b: float = 0.0
    before: int = 0                   # 0 | _SPACE | _SOFT | _AFTER: the boundary before it
    space_font: str | None = None     # the font of the space before it
    sa: float = 0.0                   # that space's width: sa * size + sb
    sb: float = 0.0
    ha: float = 0.0                   # the hyphen shown if a line breaks after it (soft)
    hb: float = 0.0

    def text(self) -> str:
        """The chunk as shown in messages (icons as ``:art-id:``)."""
        return "".join(t if f is not None else f":{t}:" for f, t, _ in self.frags)


@dataclass(slots=True)
class _Prepared:
    paragraphs: list                  # list[list[_Chunk]]
    icons: tuple[str, ...]
    metrics: FontMetrics
    prefixes: list                    # per paragraph: see _prefix


# break after '/', em and en dashes; after '-' between two letters; at soft hyphens
_INWORD_RE = re.compile(r"(?<=[/\u2014\u2013])(?=[^\s])|(?<=[^\W\d_]-)(?=[^\W\d_])|\u00ad")
_MAY_BREAK = re.compile(r"[/\u2014\u2013\u00ad-]").search


def _prepare(runs: Sequence[Run], style: TextStyle) -> _Prepared:
    return _prepare_cached(tuple(runs), style.family, style.tracking, style.upper,
                           style.icon_scale)


@lru_cache(maxsize=1024)
def _prepare_cached(runs: tuple[Run, ...], family: Family, tracking: float, upper: bool,
                    icon_scale: float) -> _Prepared:
    metrics = font_metrics(family)
    icon_a = metrics.cap_height * icon_scale * ICON_ADVANCE
    para: list[_Chunk] = []
    paragraphs: list[list[_Chunk]] = [para]
    cur: _Chunk | None = None       # the chunk text is glued to, if any
    pending = 0                     # the boundary before the next chunk
    pending_font: str | None = None
    icons: list[str] = []
    widths = _WIDTHS

    def new_chunk() -> _Chunk:
        nonlocal cur, pending, pending_font
        if para and pending == _SPACE:
            c = _Chunk([], 0.0, 0.0, _SPACE, pending_font, _unit_width(pending_font, " "),
                       tracking)
        else:
            c = _Chunk([], before=pending if para else 0)
        para.append(c)
        cur, pending, pending_font = c, 0, None
        return c

    def add_text(font: str, text: str) -> None:
        c = cur if cur is not None else new_chunk()
        w = widths.get((font, text))
        if w is None:
            w = _unit_width(font, text)
        frags = c.frags
        if frags and frags[-1][0] == font:
            last = frags[-1]
            frags[-1] = (font, last[1] + text, last[2] + w)
        else:
            frags.append((font, text, w))
        c.a += w
        if tracking:
            c.b += tracking * len(text)

    for run in runs:
        kind = run.kind
        if kind == "break":
            para = []
            paragraphs.append(para)
            cur, pending, pending_font = None, 0, None
            continue
        if kind == "icon":
            c = cur if cur is not None else new_chunk()
            c.frags.append((None, run.icon, icon_a))
            c.a += icon_a
            if run.icon not in icons:
                icons.append(run.icon)
            continue
        font = family.face(run.bold, run.italic)
        text = run.text.upper() if upper else run.text
        for n, word in enumerate(text.split(" ")):
            if n:   # a space came before this word
                cur = None
                if pending != _SPACE:
                    pending, pending_font = _SPACE, font
            if not word:
                continue
            if not _MAY_BREAK(word):
                add_text(font, word)
                continue
            start = 0
            for b in _INWORD_RE.finditer(word):
                part = word[start:b.start()]
                if part:
                    add_text(font, part)
                soft = b.group(0) == SOFT_HYPHEN
                start = b.end()
                if cur is not None and cur.frags and start < len(word):
                    if soft:
                        last_font = next((f for f, _, _ in reversed(cur.frags) if f), font)
                        cur.ha = _unit_width(last_font, "-")
                        cur.hb = tracking
                    cur = None
                    pending = _SOFT if soft else _AFTER
            if start < len(word):
                add_text(font, word[start:])
    # trailing breaks only waste height
    while len(paragraphs) > 1 and not paragraphs[-1]:
        paragraphs.pop()
    if paragraphs == [[]]:
        paragraphs = []
    return _Prepared(paragraphs, tuple(icons), metrics, [_prefix(p) for p in paragraphs])


def _prefix(para: list[_Chunk]) -> tuple[list[float], list[float], list[tuple[float, float]]]:
    """Prefix sums of (glue + chunk) widths: PA (per pt of size), PB (fixed, from
    tracking) and, when there is tracking, the (PA, PB) pairs to bisect."""
    pa, pb = [0.0], [0.0]
    a = b = 0.0
    for c in para:
        if c.before == _SPACE:
            a += c.sa
            b += c.sb
        a += c.a
        b += c.b
        pa.append(a)
        pb.append(b)
    return pa, pb, (list(zip(pa, pb)) if b else None)


def _break_lines(para: list[_Chunk], prefix, size: float, width: float,
                 limit: int, wrap: bool = True) -> list[tuple[int, int, float, bool]] | None:
    """Greedy (first-fit) lines of one paragraph: (start, end, width, hyphenated).

    Each line takes as many chunks as fit, found by bisecting the prefix sums
    (O(lines x log chunks)).  None when a chunk is wider than the box or there
    are more than ``limit`` lines.
    """
    if not para:
        return [(0, 0, 0.0, False)]
    pa, pb, pab = prefix
    lines: list[tuple[int, int, float, bool]] = []
    n = len(para)
    room = width + _EPS
    if not wrap:
        w = pa[n] * size + pb[n]
        return [(0, n, w, False)] if w <= room and limit >= 1 else None
    i = 0
    while i < n:
        first = para[i]
        ga, gb = (first.sa, first.sb) if first.before == _SPACE else (0.0, 0.0)
        base_a, base_b = pa[i] + ga, pb[i] + gb
        if pab is not None:
            j = bisect_right(pab, room + base_a * size + base_b, i + 1,
                             key=lambda t: t[0] * size + t[1]) - 1
        else:
            j = bisect_right(pa, room / size + base_a, i + 1) - 1
        if j <= i:
            return None                       # chunk i alone is wider than the box
        hyph = False
        if j < n and para[j].before == _SOFT:
            # the line ends at a soft hyphen: the hyphen must fit too
            while True:
                tail = para[j - 1]
                w = (pa[j] - base_a) * size + (pb[j] - pb[i] - gb) + tail.ha * size + tail.hb
                if w <= room:
                    hyph = True
                    break
                if j - 1 <= i:
                    return None
                j -= 1
                if para[j].before != _SOFT:
                    break
        w = (pa[j] - base_a) * size + (pb[j] - base_b)
        lines.append((i, j, w, hyph))
        if len(lines) > limit:
            return None
        i = j
    return lines


def _layout(prep: _Prepared, size: float, width: float, height: float,
            leading: float, wrap: bool = True) -> list[tuple[int, list]] | None:
    """All lines at ``size`` as (paragraph index, line tuple), or None if they don't fit."""
    m = prep.metrics
    lead = leading * size
    body = (m.ascent + m.descent) * size
    if body > height + _EPS:
        return None
    limit = int((height + _EPS - body) // lead) + 1 if lead > 0 else 1 << 30
    out: list[tuple[int, list]] = []
    for k, para in enumerate(prep.paragraphs):
        lines = _break_lines(para, prep.prefixes[k], size, width, limit - len(out), wrap)
        if lines is None:
            return None
        out.extend((k, ln) for ln in lines)
        if len(out) > limit:
            return None
    return out
