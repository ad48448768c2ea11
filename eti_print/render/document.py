"""A small document renderer: a strict XML-like language in, a paged PDF out.

Packs write prose as jinja2 templates that render *document markup*: a
whitelisted block language whose text is the card-text markup of ``text.py``
(``<b>``, ``<i>``, ``<br/>``, ``<icon name=".."/>``, five entities).  This
module knows nothing of any game; it reads the markup strictly, turns it
into reportlab platypus flowables, places them on pages itself and draws
the pages, one after the other or imposed two-up as a saddle-stitched
booklet (``imposition_booklet``).

Block elements::

    <document title=".." header=".." subject="..">   the root, exactly one
    <cover>blocks</cover>          a page of its own, no running header
    <h1 short=".." toc="no">       section (new outline entry, running header)
    <h2> <h3>                      sub-headings (h2 in the outline)
    <p style="lead|small|caption|center">
    <ul><li>..</li></ul>  <ol><li>..</li></ol>
    <note title="..">blocks</note> <box title="..">blocks</box>
    <keep>blocks</keep>            kept on one page when it fits one
    <table widths="1 4 12mm" header="1"><tr fill="#hex" color="#hex">
        <th>..</th><td align="right" span="2">..</td></tr></table>
    <toc depth="2"/>  <pagebreak/>  <spacer height="4mm"/>
    <art name="art-id" height="30mm" color="#hex"/>
    <flowchart columns="3"><node id=".." col="1" row="0" kind="start|box|decision|end|note"
        width="1.2">..</node><edge from=".." to=".." label="YES" exit="right" enter="top"/>
    </flowchart>

A renderer may register more block elements (``Custom``) that draw
anything it likes.  Nothing a template writes reaches reportlab's Paragraph
markup (which embeds local files named in ``<img>`` and drops text that does
not fit): text is set by ``text.fit`` and drawn by ``text.draw``.  Content
that fits no page is an ``InputError`` naming the element, never dropped.
"""

from __future__ import annotations

import bisect
import io
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Mapping, Sequence

from reportlab.lib.colors import Color, HexColor
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Flowable, Table, TableStyle

from ..errors import InputError, Problem
from ..fonts import Family
from ..imposition_booklet import sheet_sides, two_up
from ..pdfwriter import DocInfo, new_canvas
from ..text import Fitted, Line, Run, TextStyle, fit, font_metrics, parse
from ..units import to_points

__all__ = [
    "Custom", "DocInfo", "Document", "ElementSpec", "Node", "Page", "Rendered", "Theme",
    "build", "paginate", "parse_document", "render", "write_pdf",
]

BIG = 100_000.0
_EPS = 1e-6

# ---------------------------------------------------------------------------
# The element whitelist

BLOCKS = "blocks"      # content: block elements
INLINE = "inline"      # content: text markup (text.parse)
EMPTY = "empty"        # self-closing
CHILDREN = "children"  # content: the listed child elements only


@dataclass(frozen=True)
class ElementSpec:
    """What one element may hold and which attributes it takes."""

    content: str
    attrs: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    children: tuple[str, ...] = ()
    top_level: bool = False       # only directly inside <document>


SPECS: dict[str, ElementSpec] = {
    "document": ElementSpec(BLOCKS, ("title", "header", "subject", "author", "keywords")),
    "cover": ElementSpec(BLOCKS, (), top_level=True),
    "h1": ElementSpec(INLINE, ("short", "toc")),
    "h2": ElementSpec(INLINE, ("short", "toc")),
    "h3": ElementSpec(INLINE, ()),
    "p": ElementSpec(INLINE, ("style",)),
    "ul": ElementSpec(CHILDREN, (), children=("li",)),
    "ol": ElementSpec(CHILDREN, ("start",), children=("li",)),
    "li": ElementSpec(INLINE, ("label",)),
    "note": ElementSpec(BLOCKS, ("title",)),
    "box": ElementSpec(BLOCKS, ("title",)),
    "keep": ElementSpec(BLOCKS, ()),
    "table": ElementSpec(CHILDREN, ("widths", "header", "size"), children=("tr",)),
    "tr": ElementSpec(CHILDREN, ("fill", "color"), children=("th", "td")),
    "th": ElementSpec(INLINE, ("align", "span")),
    "td": ElementSpec(INLINE, ("align", "span")),
    "toc": ElementSpec(EMPTY, ("depth",), top_level=True),
    "pagebreak": ElementSpec(EMPTY, (), top_level=True),
    "spacer": ElementSpec(EMPTY, ("height",), required=("height",)),
    "art": ElementSpec(EMPTY, ("name", "width", "height", "color"), required=("name", "height")),
    "flowchart": ElementSpec(CHILDREN, ("columns", "size", "gap"), children=("node", "edge")),
    "node": ElementSpec(INLINE, ("id", "col", "row", "width", "kind"),
                        required=("id", "col", "row")),
    "edge": ElementSpec(EMPTY, ("from", "to", "label", "exit", "enter"), required=("from", "to")),
}
#: Elements only allowed inside a particular parent.
_ONLY_IN = {"li": ("ul", "ol"), "tr": ("table",), "th": ("tr",), "td": ("tr",),
            "node": ("flowchart",), "edge": ("flowchart",)}
PARAGRAPH_STYLES = ("lead", "small", "caption", "center")
NODE_KINDS = ("start", "box", "decision", "end", "note")
SIDES = ("top", "bottom", "left", "right")


@dataclass
class Node:
    """One parsed element; ``runs`` holds the text of inline elements."""

    tag: str
    attrs: dict[str, str]
    line: int
    children: list["Node"] = field(default_factory=list)
    runs: list[Run] | None = None

    def text(self) -> str:
        """The plain text of an inline element (icons dropped)."""
        if not self.runs:
            return ""
        return " ".join("".join(r.text if r.kind == "text" else " " for r in self.runs
                                if r.kind != "icon").split())


@dataclass(frozen=True)
class Custom:
    """A block element added by a renderer: its spec and how it becomes flowables."""

    spec: ElementSpec
    build: Callable[[Node, "Builder"], list[Flowable]]


# ---------------------------------------------------------------------------
# Parsing

_TAG_RE = re.compile(
    r"<(/?)([A-Za-z][A-Za-z0-9_-]*)"
    r"((?:\s+[A-Za-z][A-Za-z0-9_-]*\s*=\s*(?:\"[^\"<>]*\"|'[^'<>]*'))*)"
    r"\s*(/?)>")
_ATTR_RE = re.compile(r"\s+([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(?:\"([^\"<>]*)\"|'([^'<>]*)')")
_ENTITY_RE = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
_HEX_RE = re.compile(r"^#[0-9A-Fa-f]{6}$")
_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

Locate = Callable[[int, str], tuple[str | None, int | None]]


class _Source:
    """The rendered markup and how to point at a line of it."""

    def __init__(self, text: str, where: str | None, locate: Locate | None):
        self.text = text
        self.where = where
        self.locate = locate
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_right(self._starts, pos)

    def line_text(self, line: int) -> str:
        start = self._starts[line - 1]
        end = self._starts[line] - 1 if line < len(self._starts) else len(self.text)
        return self.text[start:end]

    def problem(self, message: str, line: int, snippet: str = "", hint: str | None = None,
                field: str | None = None) -> Problem:
        path, at = self.where, line
        if self.locate is not None:
            found = self.locate(line, self.line_text(line) if 0 < line <= len(self._starts)
                                else snippet)
            if found[0] is None and snippet:
                found = self.locate(line, snippet)
            if found[0] is not None:
                path, at = found
            else:
                at = None
                message += f" (line {line} of the rendered document)"
        return Problem(message, path, at, None, field, hint)

    def error(self, message: str, line: int, snippet: str = "", hint: str | None = None,
              field: str | None = None) -> InputError:
        return InputError(self.problem(message, line, snippet, hint, field))


def _unescape(value: str) -> str:
    def sub(m: re.Match) -> str:
        if m.group(1):
            return _NAMED[m.group(1)]
        code = int(m.group(2)) if m.group(2) else int(m.group(3), 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF or code < 32:
            raise ValueError(f"entity {m.group(0)!r} is not a printable character")
        return chr(code)
    if "&" in value and re.search(r"&(?![A-Za-z]+;|#[0-9]+;|#x[0-9A-Fa-f]+;)", value):
        raise ValueError("a literal '&' must be written &amp;")
    return _ENTITY_RE.sub(sub, value)


def _blank_comments(text: str) -> str:
    """Comments become spaces (newlines kept, so line numbers stay right)."""
    return _COMMENT_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def parse_document(markup: str, *, where: str | None = None, locate: Locate | None = None,
                   custom: Mapping[str, Custom] | None = None) -> Node:
    """Parse document markup strictly into a tree rooted at ``<document>``.

    ``where`` names the source in messages; ``locate(line, text)`` may map a
    line of the rendered markup back to a template file and line.  Unknown
    elements or attributes, misplaced elements, text outside a paragraph and
    bad inline markup are ``InputError``s.
    """
    specs = dict(SPECS)
    for name, c in (custom or {}).items():
        if name in SPECS:
            raise ValueError(f"custom element <{name}> would replace a built-in one")
        specs[name] = c.spec
    src = _Source(str(markup), where, locate)
    text = _blank_comments(src.text)
    parser = _Parser(src, text, specs)
    return parser.run()


class _Parser:
    def __init__(self, src: _Source, text: str, specs: Mapping[str, ElementSpec]):
        self.src = src
        self.text = text
        self.specs = specs
        self.pos = 0

    def fail(self, message: str, pos: int, snippet: str = "", hint: str | None = None
             ) -> InputError:
        return self.src.error(message, self.src.line(pos), snippet, hint)

    def run(self) -> Node:
        self.skip_space()
        t = _TAG_RE.match(self.text, self.pos)
        if t is None or t.group(2) != "document" or t.group(1):
            raise self.fail("document markup must start with <document>", self.pos,
                            hint="wrap the whole booklet in <document title=\"..\">...</document>")
        root = self.element(None)
        self.skip_space()
        if self.pos < len(self.text):
            raise self.fail("nothing may follow </document>", self.pos,
                            self.text[self.pos:self.pos + 20])
        return root

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def element(self, parent: Node | None) -> Node:
        start = self.pos
        t = _TAG_RE.match(self.text, start)
        if t is None:
            near = self.text[start:start + 30].split("\n")[0]
            raise self.fail(f"malformed tag near {near!r}", start, near,
                            "tags look like <name attr=\"value\">; write &lt; for a literal '<'")
        closing, name, raw_attrs, selfclose = t.groups()
        shown = t.group(0)
        if closing:
            raise self.fail(f"{shown} closes an element that is not open", start, shown)
        spec = self.specs.get(name)
        if spec is None:
            raise self.fail(f"unknown element <{name}>", start, shown,
                            "elements are " + ", ".join(sorted(self.specs)))
        ptag = parent.tag if parent is not None else None
        if name == "document" and parent is not None:
            raise self.fail("<document> may only be the root", start, shown)
        if name in _ONLY_IN and ptag not in _ONLY_IN[name]:
            raise self.fail(f"<{name}> belongs inside <{'> or <'.join(_ONLY_IN[name])}>",
                            start, shown)
        if spec.top_level and ptag != "document":
            raise self.fail(f"<{name}> may only appear at the top level of the document",
                            start, shown)
        line = self.src.line(start)
        attrs: dict[str, str] = {}
        for a in _ATTR_RE.finditer(raw_attrs):
            key = a.group(1)
            value = a.group(2) if a.group(2) is not None else a.group(3)
            if key not in spec.attrs:
                allowed = ", ".join(spec.attrs) if spec.attrs else "none"
                raise self.fail(f"<{name}> has no attribute {key!r}", start, shown,
                                f"attributes of <{name}>: {allowed}")
            if key in attrs:
                raise self.fail(f"attribute {key!r} given twice on <{name}>", start, shown)
            try:
                attrs[key] = _unescape(value)
            except ValueError as exc:
                raise self.fail(f"<{name} {key}=..>: {exc}", start, shown) from None
        missing = [k for k in spec.required if k not in attrs]
        if missing:
            raise self.fail(f"<{name}> needs the attribute {missing[0]!r}", start, shown)
        node = Node(name, attrs, line)
        self.pos = t.end()
        if selfclose:
            if spec.content == INLINE:
                node.runs = []
            return node
        if spec.content == EMPTY:
            raise self.fail(f"write <{name} .../>: it holds no content", start, shown)
        if spec.content == INLINE:
            end = self.text.find(f"</{name}>", self.pos)
            if end < 0:
                raise self.fail(f"<{name}> is never closed", start, shown)
            inner = self.text[self.pos:end]
            try:
                node.runs = parse(inner)
            except InputError as exc:
                p = exc.problems[0]
                inner_line = line + self.text.count("\n", start, self.pos)
                bad = re.search(r"<(?!/?(?:b|i)>|br/>|icon\s)[^>]*>|&(?!amp;|lt;|gt;|quot;|#)",
                                inner)
                if bad is not None:
                    inner_line = self.src.line(self.pos + bad.start())
                raise self.src.error(f"in <{name}>: {p.message}", inner_line,
                                     bad.group(0) if bad else "", p.hint) from None
            self.pos = end + len(name) + 3
            return node
        # element content
        while True:
            self.skip_space()
            if self.pos >= len(self.text):
                raise self.fail(f"<{name}> is never closed", start, shown)
            if self.text.startswith(f"</{name}>", self.pos):
                self.pos += len(name) + 3
                return node
            if self.text[self.pos] != "<":
                stray = self.text[self.pos:self.pos + 40].split("<")[0].strip()
                where = {"document": "the document", "note": "a note", "box": "a box",
                         "keep": "<keep>", "cover": "the cover"}.get(name, f"<{name}>")
                raise self.fail(f"text {stray[:30]!r} directly inside {where}", self.pos, stray,
                                "put text in <p>, <li>, a heading or a table cell")
            t2 = _TAG_RE.match(self.text, self.pos)
            if t2 is not None and t2.group(1):
                raise self.fail(f"<{name}> is never closed (found {t2.group(0)} on line "
                                f"{self.src.line(self.pos)})", start, shown)
            child_name = t2.group(2) if t2 is not None else None
            if spec.content == CHILDREN and child_name is not None \
                    and child_name not in spec.children and child_name in self.specs:
                raise self.fail(f"<{name}> may only hold <{'>, <'.join(spec.children)}>, "
                                f"not <{child_name}>", self.pos, t2.group(0))
            if spec.content == BLOCKS and child_name in _ONLY_IN:
                raise self.fail(f"<{child_name}> belongs inside "
                                f"<{'> or <'.join(_ONLY_IN[child_name])}>", self.pos,
                                t2.group(0))
            if spec.content == BLOCKS and child_name in ("document",):
                raise self.fail("<document> may only be the root", self.pos, t2.group(0))
            node.children.append(self.element(node))


# ---------------------------------------------------------------------------
# Theme


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
        kw.setdefault("icon_scale", 1.35)
        return TextStyle(family=family or self.body, size=size or self.size,
                         leading=kw.pop("leading", self.leading), color=color or self.ink, **kw)


# ---------------------------------------------------------------------------
# Icons drawn once per document


class FormIcons:
    """An art library whose drawings go into the PDF once, as forms, and are reused.

    Wraps anything with ``get(art_id, ...)`` returning a drawing with
    ``width``/``height`` and ``draw(canvas, art_id, x, y, w, h, color)``.
    """

    def __init__(self, art: Any):
        self.art = art
        self._names: dict[tuple[int, str, str], str] = {}

    def get(self, art_id: str, *args: Any, **kwargs: Any) -> Any:
        return self.art.get(art_id, *args, **kwargs)

    def draw(self, canvas: Any, art_id: str, x: float, y: float, width: float, height: float,
             color: Any = None) -> None:
        drawing = self.art.get(art_id)
        dw, dh = float(drawing.width), float(drawing.height)
        key = (id(canvas), art_id, "" if color is None else
               (color if isinstance(color, str) else color.hexval()))
        name = self._names.get(key)
        if name is None:
            name = f"icon{len(self._names)}"
            canvas.beginForm(name, 0, 0, dw, dh)
            self.art.draw(canvas, art_id, 0, 0, dw, dh, color)
            canvas.endForm()
            self._names[key] = name
        scale = min(width / dw, height / dh)
        canvas.saveState()
        canvas.translate(x + (width - dw * scale) / 2, y + (height - dh * scale) / 2)
        canvas.scale(scale, scale)
        canvas.doForm(name)
        canvas.restoreState()


# ---------------------------------------------------------------------------
# Flowables


def _colour(value: str, where: "Builder", node: Node, attr: str) -> Color:
    if not _HEX_RE.match(value):
        raise where.error(node, f"<{node.tag} {attr}=..> must be a colour #RRGGBB "
                          f"(got {value!r})")
    return HexColor(value)


class Where:
    """Where a flowable came from; located lazily, only when there is a problem."""

    def __init__(self, src: "_Source", line: int, what: str):
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
                 bullet: Callable[[Any, float, float, "RichText"], None] | None = None,
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
        try:
            fitted = fit(self.runs, text_width, BIG, self.style, self.icons)
        except InputError as exc:
            if self.source is None:
                raise
            raise InputError([self.source.problem(p.message, p.hint)
                              for p in exc.problems]) from None
        # baselines measured down from the top of the text
        self._lines = tuple(replace(ln, baseline=BIG - ln.baseline) for ln in fitted.lines)
        self._fitted = fitted
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

    def _part(self, lines: tuple[Line, ...], first: bool) -> "RichText":
        part = RichText([], self.style, self.icons, indent=self.indent,
                        bullet=self.bullet if first else None, min_lines=1)
        offset = lines[0].baseline - self._ascent
        part._lines = tuple(replace(ln, baseline=ln.baseline - offset) for ln in lines)
        part._fitted = self._fitted
        part._for_width = self._for_width
        part.spaceBefore = self.spaceBefore if first else 0.0
        part.spaceAfter = 0.0 if first else self.spaceAfter
        part.source = self.source
        return part

    def draw(self) -> None:
        if not self._lines or self._fitted is None:
            return
        from ..text import draw as draw_text
        h = self.height
        lines = tuple(replace(ln, baseline=h - ln.baseline) for ln in self._lines)
        draw_text(self.canv, replace(self._fitted, lines=lines, height=h), self.indent, 0)
        if self.bullet is not None:
            self.bullet(self.canv, 0, h - self._lines[0].baseline, self)


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


class Stack(Flowable, _Located):
    """Blocks stacked in a panel (note, box) or bare (keep), split between blocks."""

    def __init__(self, children: list[Flowable], *, pad: float = 0.0, fill: Color | None = None,
                 bar: Color | None = None, stroke: Color | None = None,
                 title: RichText | None = None, keep: bool = False, page_height: float = BIG,
                 space_before: float = 0.0, space_after: float = 0.0, gap: float = 0.0):
        super().__init__()
        self.children = children
        self.pad = pad
        self.fill = fill
        self.bar = bar
        self.stroke = stroke
        self.title = title
        self.keep = keep
        self.page_height = page_height
        self.spaceBefore = space_before
        self.spaceAfter = space_after
        self.gap = gap
        self._placed: list[tuple[Flowable, float, float]] = []   # child, top, height
        self.open_top = False
        self.open_bottom = False

    def _items(self) -> list[Flowable]:
        return ([self.title] if self.title is not None else []) + self.children

    def _inner(self, aw: float) -> float:
        return aw - 2 * self.pad - (3 if self.bar is not None else 0)

    def _gap(self, prev: Flowable | None, child: Flowable) -> float:
        if prev is None:
            return 0.0
        return max(self.gap, prev.getSpaceAfter(), child.getSpaceBefore())

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        inner = self._inner(aw)
        y = 0.0 if self.open_top else self.pad
        placed = []
        prev = None
        for child in self._items():
            y += self._gap(prev, child)
            _, h = child.wrap(inner, BIG)
            placed.append((child, y, h))
            y += h
            prev = child
        y += 0.0 if self.open_bottom else self.pad
        self._placed = placed
        self.width, self.height = aw, y
        return aw, y

    def split(self, aw: float, ah: float) -> list[Flowable]:
        w, h = self.wrap(aw, ah)
        if self.keep and h <= self.page_height + _EPS:
            return []
        items = self._items()
        inner = self._inner(aw)
        top = 0.0 if self.open_top else self.pad
        room = ah - top - 1.0
        used = 0.0
        first: list[Flowable] = []
        for i, child in enumerate(items):
            gap = self._gap(first[-1] if first else None, child)
            _, ch = child.wrap(inner, BIG)
            if used + gap + ch <= room + _EPS:
                first.append(child)
                used += gap + ch
                continue
            parts = child.split(inner, room - used - gap) if room - used - gap > 0 else []
            if parts and len(parts) > 1:
                head, tail = parts[0], parts[1:]
                rest = list(tail) + list(items[i + 1:])
                first.append(head)
            else:
                rest = list(items[i:])
            break
        else:
            return []
        if not first or (self.title is not None and first == [self.title]):
            return []
        title = first[0] if self.title is not None and first and first[0] is self.title else None
        a = self._clone([c for c in first if c is not title], title)
        a.open_bottom = True
        b = self._clone([c for c in rest if c is not self.title], None)
        b.open_top = True
        b.spaceBefore = 0.0
        a.spaceAfter = 0.0
        return [a, b]

    def _clone(self, children: list[Flowable], title: RichText | None) -> "Stack":
        s = Stack(children, pad=self.pad, fill=self.fill, bar=self.bar, stroke=self.stroke,
                  title=title, keep=False, page_height=self.page_height,
                  space_before=self.spaceBefore, space_after=self.spaceAfter, gap=self.gap)
        s.open_top, s.open_bottom = self.open_top, self.open_bottom
        s.source = self.source
        return s

    def draw(self) -> None:
        c = self.canv
        w, h = self.width, self.height
        if self.fill is not None or self.stroke is not None:
            c.saveState()
            if self.fill is not None:
                c.setFillColor(self.fill)
            if self.stroke is not None:
                c.setStrokeColor(self.stroke)
                c.setLineWidth(0.6)
            c.rect(0, 0, w, h, stroke=int(self.stroke is not None),
                   fill=int(self.fill is not None))
            c.restoreState()
        if self.bar is not None:
            c.saveState()
            c.setFillColor(self.bar)
            c.rect(0, 0, 3, h, stroke=0, fill=1)
            c.restoreState()
        x = self.pad + (3 if self.bar is not None else 0)
        for child, y, ch in self._placed:
            child.drawOn(c, x, h - y - ch)


class DocTable(Table, _Located):
    """A table that keeps short tables whole and never leaves a row or two behind."""

    KEEP_ROWS = 9      # tables with at most this many body rows are not split
    MIN_ROWS = 3       # rows on each side of a split

    page_height: float = BIG

    groups: frozenset[int] = frozenset()   # rows that head a group: never last on a page

    def split(self, aw: float, ah: float) -> list[Flowable]:
        head = self.repeatRows if isinstance(self.repeatRows, int) else len(self.repeatRows)
        rows = len(self._cellvalues)
        body = rows - head
        _, h = self.wrap(aw, ah)
        if body <= self.KEEP_ROWS and h <= self.page_height + _EPS:
            return []
        heights = list(self._rowHeights)
        tops = [0.0]
        for rh in heights:
            tops.append(tops[-1] + rh)
        header = tops[head]

        def fits(n: int) -> bool:          # the first n rows on this page
            return tops[n] <= ah + _EPS

        def good(n: int) -> bool:
            return (n - head >= self.MIN_ROWS and rows - n >= self.MIN_ROWS
                    and (n - 1) not in self.groups and (n - 2) not in self.groups)
        candidates = [n for n in range(head + 1, rows) if fits(n)]
        if not candidates:
            return []
        chosen = next((n for n in reversed(candidates) if good(n)), None)
        if chosen is None:
            # no split that pleases; if it must split (taller than a page), take the best
            if header + sum(heights[head:]) <= self.page_height + _EPS:
                return []
            chosen = next((n for n in reversed(candidates) if (n - 1) not in self.groups),
                          candidates[-1])
        parts = super().split(aw, tops[chosen] + 0.01)
        groups = self.groups
        for i, part in enumerate(parts):
            part.source = self.source
            part.page_height = self.page_height
            shift = 0 if i == 0 else chosen - head
            part.groups = frozenset(g - shift for g in groups if g - shift >= head)
        return parts


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


class CoverPage(Stack):
    """A page of its own: full-page panel, content centred vertically."""

    def __init__(self, children: list[Flowable], theme: Theme):
        super().__init__(children)
        self.theme = theme

    def draw(self) -> None:
        t = self.theme
        c = self.canv
        pw, ph = t.page
        inset = min(t.margins) * 0.6
        c.saveState()
        if t.cover is not None:
            c.setFillColor(t.cover)
            c.roundRect(inset, inset, pw - 2 * inset, ph - 2 * inset, 10, stroke=0, fill=1)
        else:
            c.setStrokeColor(t.accent)
            c.setLineWidth(2)
            c.roundRect(inset, inset, pw - 2 * inset, ph - 2 * inset, 10, stroke=1, fill=0)
        c.setStrokeColor(t.rule)
        c.setLineWidth(1.5)
        c.roundRect(inset + 6, inset + 6, pw - 2 * inset - 12, ph - 2 * inset - 12, 7,
                    stroke=1, fill=0)
        c.restoreState()
        x = t.frame[0]
        top = (ph + self.height) / 2
        for child, y, ch in self._placed:
            child.drawOn(c, x, top - y - ch)


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
        from ..text import draw as draw_text, fit as fit_runs
        c = self.canv
        self.text.drawOn(c, 0, 0)
        number = str(self.pages.get(self.key, ""))
        f = fit_runs([Run.of(number)], 30, self.height + 4, replace(self.number_style,
                                                                     align="right"))
        lines = self.text._lines or ()
        if not lines:
            return
        base = self.height - lines[-1].baseline
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


# ---------------------------------------------------------------------------
# Flowcharts


@dataclass
class _FNode:
    node: Node
    id: str
    col: float
    row: int
    span: float
    kind: str
    text: RichText | None = None
    x: float = 0.0       # centre
    y: float = 0.0       # centre (from the top of the chart)
    w: float = 0.0
    h: float = 0.0

    def port(self, side: str) -> tuple[float, float]:
        if side == "top":
            return (self.x, self.y - self.h / 2)
        if side == "bottom":
            return (self.x, self.y + self.h / 2)
        if side == "left":
            return (self.x - self.w / 2, self.y)
        return (self.x + self.w / 2, self.y)


class Flowchart(Flowable, _Located):
    """Boxes and decision diamonds on a grid, joined by orthogonal arrows."""

    ROW_GAP = 13.0
    MIN_SCALE = 0.85

    def __init__(self, nodes: list[_FNode], edges: list[tuple[str, str, str, str | None,
                                                                   str | None, Node]],
                 columns: int, theme: Theme, icons: Any, size: float, gap: float,
                 builder: "Builder"):
        super().__init__()
        self.nodes = {n.id: n for n in nodes}
        self.order = nodes
        self.edges = edges
        self.columns = columns
        self.theme = theme
        self.icons = icons
        self.size = size
        self.gap = gap
        self.builder = builder
        self.spaceBefore = 4.0
        self.spaceAfter = 8.0
        self._paths: list[tuple[list[tuple[float, float]], str | None, Node]] = []

    def _ink(self, kind: str) -> Color:
        return self.theme.panel if kind in ("start", "end") else self.theme.ink

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        t = self.theme
        colw = aw / self.columns
        rows: dict[int, float] = {}
        for n in self.order:
            n.w = n.span * colw - self.gap
            style = t.style(t.heading if n.kind == "start" else t.body,
                            size=self.size + (1.5 if n.kind == "start" else 0),
                            color=self._ink(n.kind), align="center", leading=1.22)
            n.text = RichText(n.node.runs or [], style, self.icons)
            n.text.source = self.builder.where(n.node)
            if n.kind == "decision":
                tw = n.w * 0.64
                _, th = n.text.wrap(tw, BIG)
                n.h = max(th / 0.36 + 2, 36)
            else:
                _, th = n.text.wrap(n.w - 10, BIG)
                n.h = th + (8 if n.kind != "start" else 11)
            rows[n.row] = max(rows.get(n.row, 0.0), n.h)
        y = 0.0
        tops: dict[int, float] = {}
        for r in sorted(rows):
            tops[r] = y
            y += rows[r] + self.ROW_GAP
        height = y - self.ROW_GAP
        for n in self.order:
            n.x = (n.col + 0.5) * colw
            n.y = tops[n.row] + rows[n.row] / 2
        self._paths = [(self._route(*e[:2], e[3], e[4]), e[2], e[5]) for e in self.edges]
        self.natural = height
        # a chart a little too tall for the room left is drawn a little smaller
        self.scale = 1.0
        if height > ah and height * self.MIN_SCALE <= ah:
            self.scale = ah / height
        self.width, self.height = aw, height * self.scale
        return aw, self.height

    def _route(self, a_id: str, b_id: str, exit: str | None, enter: str | None
               ) -> list[tuple[float, float]]:
        a, b = self.nodes[a_id], self.nodes[b_id]
        below = b.y - b.h / 2 > a.y + a.h / 2 - _EPS
        if exit is None:
            exit = "bottom" if below and abs(a.x - b.x) < a.w / 2 else (
                "right" if b.x > a.x else "left" if b.x < a.x else "bottom")
        if enter is None:
            enter = "top" if below else ("left" if b.x > a.x else "right")
        p, q = a.port(exit), b.port(enter)
        pts = [p]
        if exit in ("top", "bottom") and enter in ("top", "bottom"):
            if abs(p[0] - q[0]) > _EPS:
                mid = (p[1] + q[1]) / 2
                pts += [(p[0], mid), (q[0], mid)]
        elif exit in ("left", "right") and enter in ("top", "bottom"):
            pts.append((q[0], p[1]))
        elif exit in ("top", "bottom") and enter in ("left", "right"):
            pts.append((p[0], q[1]))
        elif exit == enter:
            # same side: out, along, back in
            out = (max(p[0], q[0]) + 8) if exit == "right" else (min(p[0], q[0]) - 8)
            pts += [(out, p[1]), (out, q[1])]
        else:
            if abs(p[1] - q[1]) > _EPS:
                mid = (p[0] + q[0]) / 2
                pts += [(mid, p[1]), (mid, q[1])]
        pts.append(q)
        return pts

    def draw(self) -> None:
        c = self.canv
        if self.scale != 1.0:
            c.saveState()
            c.translate(self.width * (1 - self.scale) / 2, 0)
            c.scale(self.scale, self.scale)
            try:
                self._draw()
            finally:
                c.restoreState()
        else:
            self._draw()

    def _draw(self) -> None:
        c = self.canv
        t = self.theme
        h = self.natural

        def Y(y: float) -> float:
            return h - y

        c.saveState()
        c.setStrokeColor(t.ink)
        c.setFillColor(t.ink)
        c.setLineWidth(0.9)
        for pts, label, _ in self._paths:
            path = c.beginPath()
            path.moveTo(pts[0][0], Y(pts[0][1]))
            for x, y in pts[1:]:
                path.lineTo(x, Y(y))
            c.drawPath(path, stroke=1, fill=0)
            (x1, y1), (x2, y2) = pts[-2], pts[-1]
            ang = math.atan2(Y(y2) - Y(y1), x2 - x1)
            size = 5.0
            tip = (x2, Y(y2))
            head = c.beginPath()
            head.moveTo(*tip)
            head.lineTo(tip[0] - size * math.cos(ang - 0.42), tip[1] - size * math.sin(ang - 0.42))
            head.lineTo(tip[0] - size * math.cos(ang + 0.42), tip[1] - size * math.sin(ang + 0.42))
            head.close()
            c.drawPath(head, stroke=0, fill=1)
        c.restoreState()
        for pts, label, _ in self._paths:
            if label:
                self._label(label, pts)
        for n in self.order:
            self._node(n, Y(n.y))

    def _label(self, label: str, pts: list[tuple[float, float]]) -> None:
        c = self.canv
        t = self.theme
        (x1, y1), (x2, y2) = pts[0], pts[1]
        h = self.natural
        size = self.size - 0.5
        width = c.stringWidth(label, t.label.regular, size) + 6
        if abs(y1 - y2) < _EPS:      # leaves sideways: label above the line
            x = x1 + (6 if x2 > x1 else -6 - width)
            y = h - y1 + 2.5
        else:                         # leaves downwards: label beside the line
            x = x1 + 3
            y = h - y1 - 3 - size
        c.saveState()
        c.setFillColor(t.paper)
        c.rect(x, y - 1.5, width, size + 2, stroke=0, fill=1)
        c.setFillColor(t.alert)
        c.setFont(t.label.regular, size)
        c.drawString(x + 3, y + 0.5, label)
        c.restoreState()

    def _node(self, n: _FNode, cy: float) -> None:
        c = self.canv
        t = self.theme
        x0, y0 = n.x - n.w / 2, cy - n.h / 2
        c.saveState()
        c.setLineWidth(1.0)
        c.setStrokeColor(t.accent)
        if n.kind == "decision":
            c.setFillColor(t.panel)
            c.setStrokeColor(t.rule)
            c.setLineWidth(1.4)
            p = c.beginPath()
            p.moveTo(n.x, y0 + n.h)
            p.lineTo(x0 + n.w, cy)
            p.lineTo(n.x, y0)
            p.lineTo(x0, cy)
            p.close()
            c.drawPath(p, stroke=1, fill=1)
        elif n.kind == "start":
            c.setFillColor(t.accent)
            c.roundRect(x0, y0, n.w, n.h, n.h / 2, stroke=0, fill=1)
        elif n.kind == "end":
            c.setFillColor(t.alert)
            c.roundRect(x0, y0, n.w, n.h, 6, stroke=0, fill=1)
        elif n.kind == "note":
            c.setDash([2, 2])
            c.setStrokeColor(t.muted)
            c.setFillColor(t.paper)
            c.rect(x0, y0, n.w, n.h, stroke=1, fill=1)
        else:
            c.setFillColor(t.paper)
            c.roundRect(x0, y0, n.w, n.h, 3, stroke=1, fill=1)
        c.restoreState()
        text = n.text
        assert text is not None
        tw = text.width
        text.drawOn(c, n.x - tw / 2, cy - text.height / 2)


# ---------------------------------------------------------------------------
# Building flowables from the tree


class Builder:
    """Turns a parsed tree into flowables, with the theme and any custom elements."""

    def __init__(self, theme: Theme, icons: Any, custom: Mapping[str, Custom] | None,
                 where: str | None, locate: Locate | None, markup: str = ""):
        self.theme = theme
        self.icons = icons
        self.custom = dict(custom or {})
        self.src = _Source(markup, where, locate)
        self.pages: dict[str, int] = {}
        self.headings: list[Heading] = []
        self._count = 0
        self._on_cover = False

    # -- errors ------------------------------------------------------------
    def problem(self, node: Node, message: str, hint: str | None = None) -> Problem:
        snippet = ""
        if 0 < node.line <= len(self.src._starts):
            snippet = self.src.line_text(node.line)
        return self.src.problem(message, node.line, snippet, hint)

    def error(self, node: Node, message: str, hint: str | None = None) -> InputError:
        return InputError(self.problem(node, message, hint))

    def where(self, node: Node) -> Where:
        return Where(self.src, node.line, f"<{node.tag}>")

    def located(self, flowable: Flowable, node: Node) -> Flowable:
        flowable.source = self.where(node)  # type: ignore[attr-defined]
        return flowable

    # -- attribute helpers ---------------------------------------------------
    def length(self, node: Node, attr: str, default: float | None = None) -> float:
        raw = node.attrs.get(attr)
        if raw is None:
            if default is None:
                raise self.error(node, f"<{node.tag}> needs {attr}")
            return default
        try:
            return to_points(raw)
        except InputError as exc:
            p = exc.problems[0]
            raise self.error(node, f"<{node.tag} {attr}=..>: {p.message}", p.hint) from None

    def number(self, node: Node, attr: str, default: float, low: float, high: float) -> float:
        raw = node.attrs.get(attr)
        if raw is None:
            return default
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not (low <= value <= high):
            raise self.error(node, f"<{node.tag} {attr}=..> must be a number from {low:g} to "
                             f"{high:g} (got {raw!r})")
        return value

    def choice(self, node: Node, attr: str, options: Sequence[str], default: str) -> str:
        value = node.attrs.get(attr, default)
        if value not in options:
            raise self.error(node, f"<{node.tag} {attr}=..> must be one of "
                             f"{', '.join(options)} (got {value!r})")
        return value

    def colour(self, node: Node, attr: str) -> Color | None:
        raw = node.attrs.get(attr)
        return None if raw is None else _colour(raw, self, node, attr)

    # -- text --------------------------------------------------------------
    @property
    def ink(self) -> Color:
        return self.theme.panel if self._dark_cover else self.theme.ink

    @property
    def _dark_cover(self) -> bool:
        return self._on_cover and self.theme.cover is not None

    def text(self, node: Node, style: TextStyle, **kw: Any) -> RichText:
        flow = RichText(node.runs or [], style, self.icons, **kw)
        flow.source = self.where(node)
        return flow

    # -- blocks ------------------------------------------------------------
    def document(self, root: Node) -> list[Flowable]:
        self.info = {k: root.attrs.get(k, "") for k in SPECS["document"].attrs}
        self._toc_entries = self._collect_headings(root)
        return self.blocks(root.children)

    def _collect_headings(self, root: Node) -> list[tuple[Node, str]]:
        found: list[tuple[Node, str]] = []

        def walk(nodes: list[Node]) -> None:
            for n in nodes:
                if n.tag in ("h1", "h2"):
                    self._count += 1
                    key = f"sec{self._count}"
                    n.attrs.setdefault("_key", key)
                    found.append((n, key))
                elif n.tag in ("note", "box", "keep"):
                    walk(n.children)
        walk(root.children)
        return found

    def blocks(self, nodes: list[Node]) -> list[Flowable]:
        out: list[Flowable] = []
        for node in nodes:
            out.extend(self.block(node))
        return out

    def block(self, node: Node) -> list[Flowable]:
        t = self.theme
        tag = node.tag
        if tag in self.custom:
            return [self.located(f, node) for f in self.custom[tag].build(node, self)]
        if tag in ("h1", "h2", "h3"):
            return [self.heading(node)]
        if tag == "p":
            style = self.choice(node, "style", PARAGRAPH_STYLES + ("body",), "body")
            size = {"lead": t.size + 1.5, "small": t.size - 1.5, "caption": t.size - 1.5}.get(
                style, t.size)
            st = t.style(size=size, color=t.muted if style == "caption" and not self._on_cover
                         else self.ink, align="center" if style == "center" or self._on_cover
                         else "left")
            return [self.text(node, st, space_after=size * 0.55)]
        if tag in ("ul", "ol"):
            return self.listing(node)
        if tag in ("note", "box"):
            return [self.panel(node)]
        if tag == "keep":
            kids = self.blocks(node.children)
            s = Stack(kids, keep=True, page_height=t.frame[3],
                      space_before=kids[0].getSpaceBefore() if kids else 0.0,
                      space_after=kids[-1].getSpaceAfter() if kids else 0.0)
            return [self.located(s, node)]
        if tag == "table":
            return [self.table(node)]
        if tag == "toc":
            return self.toc(node)
        if tag == "pagebreak":
            return [PageBreak()]
        if tag == "spacer":
            return [Gap(self.length(node, "height"))]
        if tag == "art":
            name = node.attrs["name"]
            if not _ID_RE.match(name):
                raise self.error(node, f"<art name=..> must be an art id (got {name!r})")
            try:
                self.icons.get(name)
            except InputError as exc:
                raise InputError([self.problem(node, p.message, p.hint)
                                  for p in exc.problems]) from None
            h = self.length(node, "height")
            w = self.length(node, "width", h)
            return [self.located(ArtBlock(self.icons, name, w, h, self.colour(node, "color")),
                                 node)]
        if tag == "cover":
            self._on_cover = True
            try:
                kids = self.blocks(node.children)
            finally:
                self._on_cover = False
            cover = CoverPage(kids, t)
            return [PageBreak(), self.located(cover, node), PageBreak()]
        if tag == "flowchart":
            return [self.flowchart(node)]
        raise self.error(node, f"<{tag}> cannot stand here")  # pragma: no cover

    def heading(self, node: Node) -> Flowable:
        t = self.theme
        level = int(node.tag[1])
        if level == 1:
            style = t.style(t.heading, size=26 if self._on_cover else 19,
                            color=t.panel if self._dark_cover else t.accent,
                            leading=1.1, align="center" if self._on_cover else "left")
            space = (0.0 if self._on_cover else 14.0, 6.0)
            rule = None if self._on_cover else t.rule
        elif level == 2:
            style = t.style(t.heading, size=17 if self._on_cover else 13.5,
                            color=t.rule if self._dark_cover else t.accent,
                            leading=1.15, align="center" if self._on_cover else "left")
            space, rule = (10.0, 3.5), None
        else:
            if self._on_cover:
                style = t.style(t.label, size=8.5, color=t.rule, leading=1.2, upper=True,
                                tracking=0.4, align="center")
            else:
                style = t.style(t.heading, size=10.5, color=t.alert, leading=1.2)
            space, rule = (7.0, 2.5), None
        key = node.attrs.get("_key", "")
        title = node.text()
        in_toc = level <= 2 and node.attrs.get("toc", "yes") != "no" and not self._on_cover
        flow = Heading(node.runs or [], style, self.icons, level=level, key=key, title=title,
                       short=node.attrs.get("short", title), in_toc=in_toc, rule=rule,
                       space_before=space[0], space_after=space[1])
        flow.source = self.where(node)
        if level <= 2 and key:
            self.headings.append(flow)
        return flow

    def listing(self, node: Node) -> list[Flowable]:
        t = self.theme
        ordered = node.tag == "ol"
        start = int(self.number(node, "start", 1, 1, 999)) if ordered else 1
        out: list[Flowable] = []
        indent = 15.0 if ordered else 11.0
        for i, li in enumerate(node.children):
            label = li.attrs.get("label", f"{start + i}" if ordered else "")
            out.append(self.text(li, t.style(color=self.ink), indent=indent,
                                 bullet=self._bullet(label), space_after=2.2))
        if out:
            out[-1].spaceAfter = 6.0
        return out

    def _bullet(self, label: str) -> Callable[[Any, float, float, RichText], None]:
        t = self.theme

        def draw(canvas: Any, x: float, baseline: float, flow: RichText) -> None:
            canvas.saveState()
            if label:
                canvas.setFillColor(t.alert)
                canvas.setFont(t.heading.regular, flow.style.size)
                canvas.drawString(x, baseline, label)
            else:
                canvas.setFillColor(t.rule)
                s = flow.style.size * 0.36
                canvas.rect(x + 2, baseline + flow.style.size * 0.22, s, s, stroke=0, fill=1)
            canvas.restoreState()
        return draw

    def panel(self, node: Node) -> Flowable:
        t = self.theme
        title = None
        if "title" in node.attrs:
            runs = [Run.of(node.attrs["title"])]
            title = RichText(runs, t.style(t.label, size=7.5, color=t.alert, upper=True,
                                           tracking=0.5), self.icons, space_after=2)
            title.source = self.where(node)
        kids = self.blocks(node.children)
        if kids:
            kids[-1].spaceAfter = 0
        if node.tag == "note":
            s = Stack(kids, pad=7, fill=t.panel, bar=t.rule, title=title, page_height=t.frame[3],
                      space_before=4, space_after=9, gap=3)
        else:
            s = Stack(kids, pad=8, fill=None, stroke=t.accent, title=title,
                      page_height=t.frame[3], space_before=4, space_after=9, gap=3)
        return self.located(s, node)

    def widths(self, node: Node, total: float, columns: int) -> list[float]:
        raw = node.attrs.get("widths")
        if raw is None:
            return [total / columns] * columns
        parts = raw.split()
        if len(parts) != columns:
            raise self.error(node, f"<table widths=..> gives {len(parts)} widths for "
                             f"{columns} columns")
        fixed = 0.0
        weights: list[float | None] = []
        values: list[float] = []
        for part in parts:
            if re.fullmatch(r"[0-9]+(\.[0-9]+)?", part):
                weights.append(float(part))
                values.append(0.0)
            else:
                try:
                    v = to_points(part)
                except InputError as exc:
                    raise self.error(node, f"<table widths=..>: {exc.problems[0].message}") \
                        from None
                weights.append(None)
                values.append(v)
                fixed += v
        share = sum(w for w in weights if w is not None)
        rest = total - fixed
        if rest < -_EPS or (share and rest <= 0):
            raise self.error(node, f"<table widths=..> are wider than the page's "
                             f"{total:.0f} pt")
        return [values[i] if w is None else rest * w / share for i, w in enumerate(weights)]

    def table(self, node: Node) -> Flowable:
        t = self.theme
        rows = node.children
        if not rows:
            raise self.error(node, "<table> has no rows")
        header = int(self.number(node, "header", 1, 0, len(rows)))
        size = self.length(node, "size", t.size - 1.0)

        def span(cell: Node) -> int:
            return int(self.number(cell, "span", 1, 1, 99))
        columns = max(sum(span(c) for c in r.children) for r in rows)
        total = t.frame[2]
        widths = self.widths(node, total, columns)
        pad = 3.5
        data: list[list[Any]] = []
        cmds: list[tuple] = [
            ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
            ("FONTNAME", (0, 0), (-1, -1), t.body.regular),
            ("LEFTPADDING", (0, 0), (-1, -1), pad),
            ("RIGHTPADDING", (0, 0), (-1, -1), pad),
            ("TOPPADDING", (0, 0), (-1, -1), 2.6),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 3.2),
            ("LINEBELOW", (0, -1), (-1, -1), 0.8, t.accent),
        ]
        if header:
            cmds += [("BACKGROUND", (0, 0), (-1, header - 1), t.accent),
                     ("LINEBELOW", (0, header - 1), (-1, header - 1), 1.2, t.rule)]
        if len(rows) > header:
            cmds.append(("ROWBACKGROUNDS", (0, header), (-1, -1), [t.panel, t.paper]))
        groups = set()
        for r, row in enumerate(rows):
            fill = self.colour(row, "fill")
            if fill is not None and r >= header:
                groups.add(r)
            ink = self.colour(row, "color")
            if fill is not None:
                cmds.append(("BACKGROUND", (0, r), (-1, r), fill))
            cells: list[Any] = []
            col = 0
            for cell in row.children:
                n = span(cell)
                align = self.choice(cell, "align", ("left", "center", "right"), "left")
                head = cell.tag == "th" or r < header
                if head:
                    style = t.style(t.label, size=size - 1.5, color=ink or (
                        t.panel if r < header else t.accent), upper=True, tracking=0.3,
                        align=align, leading=1.15, min_size=min(size - 1.5, 5.0))
                else:
                    style = t.style(size=size, color=ink or t.ink, align=align, leading=1.25)
                cells.append(self.text(cell, style))
                if n > 1:
                    cmds.append(("SPAN", (col, r), (col + n - 1, r)))
                    cells.extend([""] * (n - 1))
                col += n
            if col != columns:
                raise self.error(row, f"this row has {col} columns, the table has {columns}")
            data.append(cells)
        table = DocTable(data, colWidths=widths, repeatRows=header, style=TableStyle(cmds),
                         hAlign="LEFT", spaceBefore=3, spaceAfter=9)
        table.page_height = t.frame[3]
        table.groups = frozenset(groups)
        return self.located(table, node)

    def toc(self, node: Node) -> list[Flowable]:
        t = self.theme
        depth = int(self.number(node, "depth", 1, 1, 2))
        out: list[Flowable] = []
        for h, key in self._toc_entries:
            level = int(h.tag[1])
            if level > depth or h.attrs.get("toc", "yes") == "no":
                continue
            if level == 1:
                style = t.style(t.heading, size=11, color=t.accent, leading=1.2)
                number = t.style(t.heading, size=11, color=t.accent)
            else:
                style = t.style(size=t.size - 0.5, color=t.ink, leading=1.3)
                number = t.style(size=t.size - 0.5, color=t.ink)
            out.append(TocLine(h.runs or [], style, number, key, level, self.pages, t.rule,
                               self.icons))
        return out

    def flowchart(self, node: Node) -> Flowable:
        t = self.theme
        columns = int(self.number(node, "columns", 3, 1, 8))
        size = self.length(node, "size", t.size - 2.0)
        gap = self.length(node, "gap", 10.0)
        nodes: list[_FNode] = []
        edges = []
        ids: set[str] = set()
        for child in node.children:
            if child.tag == "node":
                nid = child.attrs["id"]
                if nid in ids:
                    raise self.error(child, f"two flowchart nodes are called {nid!r}")
                ids.add(nid)
                col = self.number(child, "col", 0, 0, columns - 1)
                row = int(self.number(child, "row", 0, 0, 99))
                span = self.number(child, "width", 1, 0.3, columns)
                kind = self.choice(child, "kind", NODE_KINDS, "box")
                nodes.append(_FNode(child, nid, col, row, span, kind))
            else:
                exit_ = child.attrs.get("exit")
                enter = child.attrs.get("enter")
                for side in (exit_, enter):
                    if side is not None and side not in SIDES:
                        raise self.error(child, f"edge sides are {', '.join(SIDES)} "
                                         f"(got {side!r})")
                edges.append((child.attrs["from"], child.attrs["to"], child.attrs.get("label"),
                              exit_, enter, child))
        for e in edges:
            for end in e[:2]:
                if end not in ids:
                    raise self.error(e[5], f"edge names an unknown node {end!r}",
                                     "nodes are " + ", ".join(sorted(ids)))
        chart = Flowchart(nodes, edges, columns, t, self.icons, size, gap, self)
        return self.located(chart, node)


# ---------------------------------------------------------------------------
# Pages


@dataclass
class Page:
    """One page: what sits where, and what the running header shows."""

    number: int
    items: list[tuple[Flowable, float, float]] = field(default_factory=list)
    cover: bool = False
    section: str = ""
    anchors: list[tuple[Heading, float]] = field(default_factory=list)


def _overflow(f: Flowable, message: str) -> InputError:
    s: Where | None = getattr(f, "source", None)
    hint = "split it into smaller pieces, or shorten it"
    if s is None:
        return InputError(Problem(f"{type(f).__name__} {message}", hint=hint))
    return InputError(s.problem(f"{s.what} {message}", hint))


def paginate(flowables: Sequence[Flowable], theme: Theme) -> list[Page]:
    """Place every flowable on pages; raise if one cannot be placed.

    Every flowable (or every part of a split one) ends up on exactly one
    page, so nothing is dropped silently.  Headings stay with what follows.
    """
    x0, y0, fw, fh = theme.frame
    pages: list[Page] = []
    queue = list(reversed(flowables))
    section = ""
    page = Page(1)
    y = y0 + fh          # the cursor: top of the free space
    guard = 0

    def finish() -> None:
        nonlocal page, y
        pages.append(page)
        page = Page(len(pages) + 1, section=section)
        y = y0 + fh

    def place(f: Flowable, top: float, h: float) -> None:
        nonlocal y, section
        first = not page.items
        page.items.append((f, x0, top - h))
        for heading, offset in _headings_in(f):
            page.anchors.append((heading, top - offset))
            if heading.level == 1:
                section = heading.short
                if first and offset == 0:   # the running header names the section at the top
                    page.section = section
        y = top - h - f.getSpaceAfter()

    while queue:
        guard += 1
        if guard > 200_000:  # pragma: no cover - a flowable that keeps splitting
            raise InputError(Problem("the document does not settle into pages"))
        f = queue.pop()
        if isinstance(f, PageBreak):
            if page.items:
                finish()
            continue
        if isinstance(f, CoverPage):
            if page.items:
                finish()
            f.wrap(theme.page[0] - 2 * x0, theme.page[1])
            page.cover = True
            page.items.append((f, 0.0, 0.0))
            finish()
            continue
        space = f.getSpaceBefore() if page.items else 0.0
        avail = y - y0 - space
        _, h = f.wrap(fw, avail)
        need = h
        if getattr(f, "keepWithNext", False):
            need = h + _following(queue, fw, f.getSpaceAfter(), 3.2 * theme.size * theme.leading)
        if need <= avail + _EPS:
            place(f, y - space, h)
            continue
        if h > avail + _EPS and avail > 0:
            parts = f.split(fw, avail)
            if len(parts) > 1:
                queue.extend(reversed(parts))
                continue
        if page.items:
            finish()
            queue.append(f)
            continue
        if h > fh + _EPS:
            raise _overflow(f, f"is {h:.0f} pt tall and does not fit on a page "
                            f"({fh:.0f} pt)")
        # it fits an empty page but wants a neighbour it cannot have: place it anyway
        place(f, y, h)
    if page.items or not pages:
        pages.append(page)
    return pages


def _headings_in(f: Flowable, offset: float = 0.0) -> Iterator[tuple["Heading", float]]:
    """Headings in ``f`` (itself, or inside a stack), with their distance from its top."""
    if isinstance(f, Heading):
        yield f, offset
    elif isinstance(f, Stack) and not isinstance(f, CoverPage):
        for child, y, _ in f._placed:
            yield from _headings_in(child, offset + y)


def _splittable(f: Flowable) -> bool:
    """Whether ``f`` may start at the foot of a page and go on over the leaf."""
    if isinstance(f, Heading):
        return False
    if isinstance(f, DocTable):
        head = f.repeatRows if isinstance(f.repeatRows, int) else len(f.repeatRows)
        return len(f._cellvalues) - head > DocTable.KEEP_ROWS
    if isinstance(f, Stack):
        return not f.keep
    return isinstance(f, (RichText, Table))


def _following(queue: list[Flowable], width: float, gap: float, want: float) -> float:
    """Height a heading must find room for below it: what follows, up to ``want``.

    Unsplittable blocks count whole (and bring what they keep with in turn);
    splittable ones count up to ``want``.
    """
    total = 0.0
    full = want
    for nxt in reversed(queue):
        if isinstance(nxt, (PageBreak, Heading, CoverPage)):
            break
        _, nh = nxt.wrap(width, BIG)
        total += max(gap, nxt.getSpaceBefore())
        if not _splittable(nxt):
            total += nh
            if not getattr(nxt, "keepWithNext", False):
                return total
            want, gap = full, nxt.getSpaceAfter()
            continue
        total += min(nh, want)
        if nh >= want:
            break
        want -= nh
        gap = nxt.getSpaceAfter()
    return total


# ---------------------------------------------------------------------------
# Drawing


@dataclass
class Rendered:
    data: bytes
    pages: int                       # document pages (A5)
    sheets: int | None               # printed sheet sides when imposed
    headings: list[tuple[int, str, int]]   # (level, title, page)


def _decorate(c: Canvas, page: Page, theme: Theme, header: str) -> None:
    if page.cover:
        return
    t = theme
    pw, ph = t.page
    top, right, bottom, left = t.margins
    c.saveState()
    yline = ph - top + 9
    c.setStrokeColor(t.rule)
    c.setLineWidth(0.8)
    c.line(left, yline, pw - right, yline)
    c.setFillColor(t.accent)
    c.setFont(t.label.regular, 6.8)
    c.drawString(left, yline + 4, header.upper())
    if page.section:
        c.setFillColor(t.alert)
        c.drawRightString(pw - right, yline + 4, page.section.upper())
    number = str(page.number)
    c.setFont(t.heading.regular, 9)
    c.setFillColor(t.accent)
    yb = bottom - 20
    odd = page.number % 2 == 1
    w = c.stringWidth(number, t.heading.regular, 9)
    c.setStrokeColor(t.rule)
    c.setLineWidth(0.8)
    if odd:
        c.drawRightString(pw - right, yb, number)
        c.line(pw - right - w - 24, yb + 3, pw - right - w - 5, yb + 3)
    else:
        c.drawString(left, yb, number)
        c.line(left + w + 5, yb + 3, left + w + 24, yb + 3)
    c.restoreState()


def _draw_page(c: Canvas, page: Page, theme: Theme, header: str) -> None:
    _decorate(c, page, theme, header)
    for f, x, y in page.items:
        f.drawOn(c, x, y)


def write_pdf(pages: list[Page], theme: Theme, info: DocInfo, header: str, *,
              booklet: tuple[tuple[float, float], str] | None = None) -> tuple[bytes, int | None]:
    """Draw ``pages``; with ``booklet=(sheet size, duplex)`` impose them two-up.

    Returns the PDF and, when imposed, the number of sheet sides.
    """
    buffer = io.BytesIO()
    size = theme.page if booklet is None else booklet[0]
    # the initial font would otherwise be Helvetica, referenced but never embedded
    c = new_canvas(buffer, size, theme.body.regular, info)
    outline: list[tuple[Heading, str]] = []
    if booklet is None:
        for page in pages:
            _draw_page(c, page, theme, header)
            for h, top in page.anchors:
                if h.level <= 2 and h.key:
                    c.bookmarkHorizontal(h.key, 0, top + 4)
                    outline.append((h, h.key))
            c.showPage()
        sides = None
    else:
        sheet, duplex = booklet
        for page in pages:
            c.beginForm(f"page{page.number}", 0, 0, *theme.page)
            _draw_page(c, page, theme, header)
            c.endForm()
        left_at, right_at = two_up(sheet, theme.page)
        by_number = {p.number: p for p in pages}
        order = sheet_sides(len(pages), duplex)
        for side in order:
            c.saveState()
            if side.rotated:
                c.translate(sheet[0], sheet[1])
                c.rotate(180)
            for number, at in ((side.left, left_at), (side.right, right_at)):
                if number is None:
                    continue
                c.saveState()
                c.translate(*at)
                c.doForm(f"page{number}")
                c.restoreState()
            c.restoreState()
            for number in (side.left, side.right):
                if number is None:
                    continue
                for h, _ in by_number[number].anchors:
                    if h.level <= 2 and h.key:
                        c.bookmarkPage(h.key)
                        outline.append((h, h.key))
            c.showPage()
        sides = len(order)
        # outline entries in reading order, whatever the sheet order
        rank = {h.key: i for i, (h, _) in enumerate(
            (h, top) for p in pages for h, top in p.anchors)}
        outline.sort(key=lambda e: rank.get(e[1], 0))
    last = 0
    for h, key in outline:
        level = min(h.level - 1, last + 1)
        c.addOutlineEntry(h.title, key, level=level, closed=level > 0)
        last = level
    c.showOutline()
    c.save()
    return buffer.getvalue(), sides


# ---------------------------------------------------------------------------
# All of it


@dataclass
class Document:
    """A parsed document ready to lay out."""

    root: Node
    builder: Builder
    flowables: list[Flowable]

    @property
    def info(self) -> dict[str, str]:
        return self.builder.info


def build(markup: str, theme: Theme, icons: Any, *, where: str | None = None,
          locate: Locate | None = None, custom: Mapping[str, Custom] | None = None) -> Document:
    """Parse ``markup`` and build its flowables (no pages yet)."""
    root = parse_document(markup, where=where, locate=locate, custom=custom)
    builder = Builder(theme, icons if isinstance(icons, FormIcons) else FormIcons(icons),
                      custom, where, locate, str(markup))
    flowables = builder.document(root)
    return Document(root, builder, flowables)


def render(markup: str, theme: Theme, icons: Any, *, where: str | None = None,
           locate: Locate | None = None, custom: Mapping[str, Custom] | None = None,
           booklet: tuple[tuple[float, float], str] | None = None) -> Rendered:
    """Markup to PDF bytes: parse, build, paginate, fill the contents, draw."""
    doc = build(markup, theme, icons, where=where, locate=locate, custom=custom)
    pages = paginate(doc.flowables, theme)
    for page in pages:
        for f, _, _ in page.items:
            if isinstance(f, TocLine):
                f.link = booklet is None   # links cannot live inside imposed page forms
    headings = []
    for page in pages:
        for h, _ in page.anchors:
            doc.builder.pages[h.key] = page.number
            headings.append((h.level, h.title, page.number))
    info = doc.info
    data, sides = write_pdf(pages, theme, DocInfo(info.get("title", ""), info.get("subject", ""),
                                                  info.get("author", ""),
                                                  info.get("keywords", "")),
                            info.get("header") or info.get("title", ""), booklet=booklet)
    return Rendered(data, len(pages), sides, headings)


_JINJA_RE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}")


def _line_pattern(line: str) -> tuple[Any, int] | None:
    """A template line as a regex with its jinja parts as wildcards, and its literal length."""
    parts = _JINJA_RE.split(line.strip())
    literal = sum(len(p.strip()) for p in parts)
    if literal < 4 or "{{" in "".join(parts) or "{%" in "".join(parts):
        return None
    return re.compile(".*?".join(re.escape(p) for p in parts), re.S), literal


def template_locator(env: Any, prefix: str) -> Callable[[int, str], tuple[str | None, int | None]]:
    """Map a line of rendered markup back to a template file and line.

    Markup errors come from a template's literal text (data is escaped), so
    the rendered line is matched against the lines of the templates under
    ``prefix`` that the render read, their ``{{ }}``/``{% %}`` parts as
    wildcards; the line with the most literal text wins.  Failing that, the
    offending snippet is searched for.
    """
    cache: dict[str, list[tuple[str, Any]]] = {}

    def lines_of(shown: str) -> list[tuple[str, Any]]:
        if shown not in cache:
            name = shown[len(env.template_dir) + 1:]
            try:
                text, _, _ = env.loader.get_source(env.env, name)
            except Exception:   # pragma: no cover - it loaded a moment ago
                text = ""
            cache[shown] = [(line, _line_pattern(line)) for line in text.splitlines()]
        return cache[shown]

    def locate(line: int, snippet: str) -> tuple[str | None, int | None]:
        wanted = snippet.strip()
        if not wanted:
            return (None, None)
        files = [(s, lines_of(s)) for s in sorted(env.loader.files) if s.startswith(prefix)]
        best: tuple[int, str, int] | None = None
        for shown, lines in files:
            for k, (_, pattern) in enumerate(lines):
                if pattern is not None and pattern[0].fullmatch(wanted):
                    if best is None or pattern[1] > best[0]:
                        best = (pattern[1], shown, k + 1)
        if best is not None:
            return (best[1], best[2])
        for shown, lines in files:
            for k, (text, _) in enumerate(lines):
                if wanted in text:
                    return (shown, k + 1)
        return (None, None)
    return locate

