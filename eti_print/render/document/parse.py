"""Reading document markup strictly into a tree of ``Node``s."""

from __future__ import annotations

import re
from typing import Mapping

from ...errors import InputError
from ...text import parse
from .elements import _ONLY_IN, BLOCKS, CHILDREN, EMPTY, INLINE, SPECS, Custom, ElementSpec, Node
from .locate import Locate, _Source

_TAG_RE = re.compile(
    r"<(/?)([A-Za-z][A-Za-z0-9_-]*)"
    r"((?:\s+[A-Za-z][A-Za-z0-9_-]*\s*=\s*(?:\"[^\"<>]*\"|'[^'<>]*'))*)"
    r"\s*(/?)>")
_ATTR_RE = re.compile(r"\s+([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(?:\"([^\"<>]*)\"|'([^'<>]*)')")
_ENTITY_RE = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)


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
