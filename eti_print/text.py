"""Card text: shorthand, the internal markup, and typesetting into boxes.

Three layers:

1. ``rich(shorthand)`` turns the designers' shorthand (``**bold**``,
   ``*italic*``, ``:art-id:``, newline) into the internal markup, escaping
   everything else, so ``R&D <Alpha>`` prints as itself.
2. The internal markup is a tiny whitelisted language: ``<b>``, ``<i>``,
   ``<br/>``, ``<icon name="slug"/>`` and the entities ``&amp; &lt; &gt;
   &quot; &#NNN;``.  ``parse()`` reads it with a strict hand-written parser
   into a list of ``Run``s; anything else is an ``InputError``.
3. ``fit()`` breaks runs into lines for a box, shrinking the size in 0.25 pt
   steps down to the style's minimum; if nothing fits it raises
   ``OverflowProblem`` naming the overflow.  ``draw()`` puts a ``Fitted``
   on a reportlab canvas with the registered (embedded, subset) fonts.

Nothing is ever clipped, squashed or dropped silently.  reportlab's Paragraph
is deliberately not used (it embeds local files named in ``<img>``, fails
unlocated on ``x<y`` and drops text that does not fit its frame).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable, Protocol, Sequence

from markupsafe import Markup, escape
from reportlab.lib.colors import Color, black
from reportlab.pdfbase import pdfmetrics

from .errors import InputError, Problem, fail
from .fonts import Family, missing_glyphs

__all__ = [
    "ALLOWED_TAGS", "BREAK", "Fitted", "IconDrawer", "Line", "OverflowProblem", "Piece",
    "Run", "TextStyle", "draw", "fit", "fit_markup", "font_metrics", "icon", "measure_line",
    "parse", "plain", "rich", "text_width",
]

SOFT_HYPHEN = "\u00ad"
#: Size steps when shrinking text to fit (points).
STEP = 0.25
#: An inline icon's advance width as a multiple of its height (the icon is
#: drawn centred in it, leaving 10% of side bearing on each side).
ICON_ADVANCE = 1.2
_EPS = 1e-6

# ---------------------------------------------------------------------------
# Runs


@dataclass(frozen=True, slots=True)
class Run:
    """One piece of parsed text.

    ``kind`` is ``"text"`` (``text`` with ``bold``/``italic``), ``"icon"``
    (``icon`` is the art id) or ``"break"`` (a forced line break).
    """

    kind: str = "text"
    text: str = ""
    bold: bool = False
    italic: bool = False
    icon: str | None = None

    @staticmethod
    def of(text: str, bold: bool = False, italic: bool = False) -> "Run":
        return Run("text", text, bold, italic)

    @staticmethod
    def art(name: str, bold: bool = False, italic: bool = False) -> "Run":
        return Run("icon", "", bold, italic, name)


BREAK = Run("break")

ALLOWED_TAGS = '<b>, <i>, <br/>, <icon name="art-id"/>'
_ALLOWED_HINT = f"allowed tags are {ALLOWED_TAGS}; entities are &amp; &lt; &gt; &quot; &#NNN;"

_ART_ID_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")

# ---------------------------------------------------------------------------
# Shorthand -> markup

# `\*`, `\:`, `\\` are literal characters; a backslash-n is a line break (so a
# break can be written in a plain YAML scalar too).  An inline icon is
# `:slug:` whose slug starts with a letter, so "1:2:3" and "Note: x" stay text.
_SHORT_RE = re.compile(
    r"(?P<esc>\\[*:\\n])"
    r"|(?P<nl>\n)"
    r"|(?P<stars>\*+)"
    r"|(?P<icon>:[a-z][a-z0-9]*(?:-[a-z0-9]+)*:)"
)
_ESCAPED = {"\\*": "&#42;", "\\:": "&#58;", "\\\\": "&#92;"}


def rich(shorthand: Any) -> Markup:
    """Card-text shorthand to the internal markup (a ``Markup``).

    ``**bold**``, ``*italic*``, ``***both***``, ``:art-id:`` (an inline icon),
    a newline (a blank line in a folded YAML scalar) or a literal ``\\n`` for a
    line break; ``\\*`` and ``\\:`` for literal characters.  Everything else is
    escaped.  An asterisk only opens emphasis before a non-space and closes it
    after one, and unpaired asterisks stay literal (``5 * 3``).  Idempotent:
    a ``Markup`` is returned unchanged.
    """
    if isinstance(shorthand, Markup):
        return shorthand
    if shorthand is None or isinstance(shorthand, bool):
        raise TypeError(f"rich expects text, got {shorthand!r}")
    if not isinstance(shorthand, str):
        if isinstance(shorthand, (int, float)):
            shorthand = str(shorthand)
        else:
            raise TypeError(f"rich expects text, got {type(shorthand).__name__}")
    raw = shorthand.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ").strip()
    if not raw:
        return Markup("")

    # Tokens: ("text", s) | ("br",) | ("icon", name) | ("delim", kind, index)
    tokens: list[list[Any]] = []
    delims: list[list[Any]] = []   # [token_index, kind, can_open, can_close, partner]
    pos = 0
    for m in _SHORT_RE.finditer(raw):
        if m.start() > pos:
            tokens.append(["text", str(escape(raw[pos:m.start()]))])
        pos = m.end()
        if m.group("esc"):
            esc = m.group("esc")
            if esc == "\\n":
                tokens.append(["br"])
            else:
                tokens.append(["text", _ESCAPED[esc]])
        elif m.group("nl"):
            tokens.append(["br"])
        elif m.group("icon"):
            tokens.append(["icon", m.group("icon")[1:-1]])
        else:
            stars = m.group("stars")
            before = raw[m.start() - 1] if m.start() > 0 else " "
            after = raw[m.end()] if m.end() < len(raw) else " "
            can_open, can_close = not after.isspace(), not before.isspace()
            if len(stars) > 3 or not (can_open or can_close):
                tokens.append(["text", str(escape(stars))])
                continue
            if len(stars) == 3:
                kinds = ("i", "b") if can_close and not can_open else ("b", "i")
            else:
                kinds = ("b",) if len(stars) == 2 else ("i",)
            for kind in kinds:
                tokens.append(["delim", kind, len(delims)])
                delims.append([len(tokens) - 1, kind, can_open, can_close, None])
    if pos < len(raw):
        tokens.append(["text", str(escape(raw[pos:]))])

    # Pair delimiters per kind; unpaired ones print as asterisks.
    stacks: dict[str, list[int]] = {"b": [], "i": []}
    for n, d in enumerate(delims):
        stack = stacks[d[1]]
        if d[3] and stack:
            opener = stack.pop()
            delims[opener][4] = n
            d[4] = opener
        elif d[2]:
            stack.append(n)

    out: list[str] = []
    depth = {"b": 0, "i": 0}
    shown = (False, False)   # (bold, italic) tags currently open in ``out``

    def sync() -> None:
        nonlocal shown
        want = (depth["b"] > 0, depth["i"] > 0)
        if want == shown:
            return
        if shown[1]:
            out.append("</i>")
        if shown[0] and not want[0]:
            out.append("</b>")
        if want[0] and not shown[0]:
            out.append("<b>")
        if want[1]:
            out.append("<i>")
        shown = want

    for tok in tokens:
        if tok[0] == "delim":
            d = delims[tok[2]]
            if d[4] is None:
                sync()
                out.append("*" if d[1] == "i" else "**")
            elif d[4] > tok[2]:
                depth[d[1]] += 1
            else:
                depth[d[1]] -= 1
            continue
        sync()
        if tok[0] == "text":
            out.append(tok[1])
        elif tok[0] == "br":
            out.append("<br/>")
        else:
            out.append(f'<icon name="{tok[1]}"/>')
    depth = {"b": 0, "i": 0}
    sync()
    return Markup("".join(out))


def icon(name: str) -> Markup:
    """The markup of one inline icon (for templates: ``{{ 'star' | icon }}``)."""
    if not isinstance(name, str) or not _ART_ID_RE.match(name):
        raise ValueError(f"{name!r} is not an art id (lowercase letters, digits and dashes)")
    return Markup(f'<icon name="{name}"/>')


# ---------------------------------------------------------------------------
# The strict markup parser

_TAG_RE = re.compile(
    r"<(/?)([A-Za-z][A-Za-z0-9_.:-]*)"
    r"((?:\s+[^\s=/<>\"']+\s*=\s*(?:\"[^\"<>]*\"|'[^'<>]*'))*)"
    r"\s*(/?)>"
)
_ATTR_RE = re.compile(r"\s+([^\s=/<>\"']+)\s*=\s*(?:\"([^\"<>]*)\"|'([^'<>]*)')")
_ENTITY_RE = re.compile(r"&(?:(amp|lt|gt|quot)|#([0-9]{1,7}));")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"'}
_SPECIAL_RE = re.compile(r"[<&]")
_WS_TRANS = str.maketrans({"\n": " ", "\r": " ", "\t": " "})


class _MarkupError(Exception):
    def __init__(self, message: str, hint: str = _ALLOWED_HINT):
        super().__init__(message)
        self.message = message
        self.hint = hint


def _excerpt(markup: str, pos: int) -> str:
    start = max(0, pos - 15)
    snippet = markup[start:pos + 20]
    return ("..." if start else "") + snippet + ("..." if pos + 20 < len(markup) else "")


@lru_cache(maxsize=2048)
def _parse(markup: str) -> tuple[Run, ...]:
    runs: list[Run] = []
    stack: list[str] = []
    bold = italic = 0

    def add_text(text: str) -> None:
        if not text:
            return
        text = text.translate(_WS_TRANS)
        b, i = bold > 0, italic > 0
        if runs and runs[-1].kind == "text" and runs[-1].bold == b and runs[-1].italic == i:
            runs[-1] = Run("text", runs[-1].text + text, b, i)
        else:
            runs.append(Run("text", text, b, i))

    pos = 0
    n = len(markup)
    while pos < n:
        m = _SPECIAL_RE.search(markup, pos)
        if m is None:
            add_text(markup[pos:])
            break
        add_text(markup[pos:m.start()])
        pos = m.start()
        if markup[pos] == "&":
            e = _ENTITY_RE.match(markup, pos)
            if e is None:
                bad = re.match(r"&[^\s&<;]{0,12};?", markup[pos:]).group(0)
                raise _MarkupError(
                    f"bad entity {bad!r} at character {pos + 1} in {_excerpt(markup, pos)!r}",
                    "entities are &amp; &lt; &gt; &quot; &#NNN;; write &amp; for a literal '&'")
            if e.group(1):
                add_text(_NAMED[e.group(1)])
            else:
                code = int(e.group(2))
                if (code > 0x10FFFF or 0xD800 <= code <= 0xDFFF
                        or (code < 32 and code not in (9, 10, 13)) or 0x7F <= code < 0xA0):
                    raise _MarkupError(f"entity {e.group(0)!r} is not a printable character",
                                       "entities are &amp; &lt; &gt; &quot; &#NNN;")
                add_text(chr(code))
            pos = e.end()
            continue
        t = _TAG_RE.match(markup, pos)
        if t is None:
            raise _MarkupError(
                f"stray '<' at character {pos + 1} in {_excerpt(markup, pos)!r}",
                "write &lt; for a literal '<' (card text in YAML is escaped for you); "
                + _ALLOWED_HINT)
        closing, name, attrs, selfclose = t.group(1), t.group(2), t.group(3), t.group(4)
        shown = t.group(0)
        attributes = [(a.group(1), a.group(2) if a.group(2) is not None else a.group(3))
                      for a in _ATTR_RE.finditer(attrs)]
        if name not in ("b", "i", "br", "icon"):
            raise _MarkupError(f"markup tag <{name}> is not allowed (in {shown!r})")
        if closing and (attributes or selfclose or name in ("br", "icon")):
            raise _MarkupError(f"malformed closing tag {shown!r}")
        if name in ("b", "i"):
            if attributes:
                raise _MarkupError(f"tag <{name}> takes no attributes (in {shown!r})")
            if selfclose:
                raise _MarkupError(f"tag <{name}> cannot be self-closing (in {shown!r})")
            if closing:
                if not stack:
                    raise _MarkupError(f"</{name}> closes a tag that was never opened")
                if stack[-1] != name:
                    raise _MarkupError(f"</{name}> does not match the open <{stack[-1]}>")
                stack.pop()
                if name == "b":
                    bold -= 1
                else:
                    italic -= 1
            else:
                stack.append(name)
                if name == "b":
                    bold += 1
                else:
                    italic += 1
        elif name == "br":
            if attributes:
                raise _MarkupError(f"tag <br/> takes no attributes (in {shown!r})")
            if not selfclose:
                raise _MarkupError(f"write <br/>, not {shown!r}")
            runs.append(BREAK)
        else:  # icon
            if not selfclose:
                raise _MarkupError(f'write <icon name="art-id"/>, not {shown!r}')
            names = [a for a in attributes if a[0] == "name"]
            others = sorted({a[0] for a in attributes if a[0] != "name"})
            if others:
                raise _MarkupError(f"attribute {others[0]!r} is not allowed on <icon> "
                                   f"(in {shown!r}); <icon> takes only name")
            if len(names) != 1:
                raise _MarkupError(f"<icon> needs exactly one name attribute (in {shown!r})")
            value = names[0][1]
            if not _ART_ID_RE.match(value):
                raise _MarkupError(f"icon name {value!r} is not an art id",
                                   "art ids are lowercase slugs such as card-icon")
            runs.append(Run("icon", "", bold > 0, italic > 0, value))
        pos = t.end()
    if stack:
        raise _MarkupError(f"<{stack[-1]}> is never closed")
    return tuple(runs)


def parse(markup: str, *, where: str | None = None, line: int | None = None,
          field: str | None = None) -> list[Run]:
    """Parse the internal markup into runs, strictly.

    Any tag, attribute or entity outside the whitelist, unbalanced tags or a
    stray ``<`` is an ``InputError`` located at ``where:line: field``.
    Whitespace characters become spaces (breaks are ``<br/>`` only).
    """
    try:
        return list(_parse(str(markup)))
    except _MarkupError as exc:
        raise fail(exc.message, path=where, line=line, field=field, hint=exc.hint) from None


def plain(value: Any) -> str:
    """The plain text of shorthand or markup: no tags, icons dropped, breaks as spaces."""
    markup = value if isinstance(value, Markup) else rich(value)
    try:
        runs = _parse(str(markup))
    except _MarkupError as exc:
        raise ValueError(exc.message) from None
    text = "".join(r.text if r.kind == "text" else " " for r in runs if r.kind != "icon")
    return " ".join(text.split())


# ---------------------------------------------------------------------------
# Styles and metrics


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


@lru_cache(maxsize=None)
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


@lru_cache(maxsize=None)
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
            icons.get(name, where=where, line=line, field=field)
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


# ---------------------------------------------------------------------------
# Drawing


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
