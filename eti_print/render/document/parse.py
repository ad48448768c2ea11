"""Reading document markup strictly into a tree of ``Node``s.

The markup is read by the one parser of ``text.markup`` (lxml, hardened),
the same that reads card text, so both levels accept the same entities and
refuse the same things; this module checks the tree against the element
whitelist of ``elements.py`` and reads inline elements with
``text.markup.inline_runs``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from lxml import etree

from ...errors import InputError
from ...text.markup import INLINE_TAGS, MarkupError, Tree, inline_runs, parse_tree, vet
from .elements import _ONLY_IN, BLOCKS, CHILDREN, EMPTY, INLINE, SPECS, Custom, ElementSpec, Node
from .locate import Locate, _Source

_COMMENT_RE = re.compile(r"<!--.*?-->", re.S)
_ROOT_RE = re.compile(r"\s*<document[\s/>]")
_SPACE_RE = re.compile(r"\s*")
_TAG_HINT = 'tags look like <name attr="value">; write &lt; for a literal \'<\''
_PLACES = {"document": "the document", "note": "a note", "box": "a box", "keep": "<keep>",
           "cover": "the cover"}


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

    def position(pos: int) -> str:
        line = src.line(pos)
        column = pos - src._starts[line - 1]
        shown = src.line_text(line)
        left = max(0, column - 20)
        near = ("..." if left else "") + shown[left:column + 20].strip() + \
            ("..." if column + 20 < len(shown) else "")
        return f"at column {column + 1} in {near!r}"

    def located(exc: MarkupError) -> InputError:
        line = exc.line if exc.line is not None else src.line(exc.pos or 0)
        message, hint = exc.message, exc.hint
        if exc.kind == "trailing":
            message, hint = "nothing may follow </document>", None
        elif exc.kind == "unknown":
            message = f"unknown element <{exc.name}>"
            hint = "elements are " + ", ".join(sorted(specs))
        elif exc.kind not in ("stray", "entity", "refused"):
            hint = _TAG_HINT if exc.kind == "syntax" else None
        snippet = src.line_text(line) if 0 < line <= len(src._starts) else ""
        return src.error(message, line, snippet, hint)

    start = _SPACE_RE.match(text).end()
    if _ROOT_RE.match(text) is None:
        if text.startswith(("<!", "<?"), start):   # a DOCTYPE, say: refused as such
            try:
                vet(text, position)
            except MarkupError as exc:
                raise located(exc) from None
        raise src.error("document markup must start with <document>", src.line(start),
                        text[start:start + 30].split("\n")[0],
                        'wrap the whole booklet in <document title="..">...</document>')
    try:
        tree = parse_tree(text, fragment=False, position=position,
                          names=set(specs) | set(INLINE_TAGS))
    except MarkupError as exc:
        raise located(exc) from None
    return _Reader(src, tree, specs).element(tree.root, None)


class _Reader:
    """Checks the parsed tree against the whitelist, building ``Node``s."""

    def __init__(self, src: _Source, tree: Tree, specs: Mapping[str, ElementSpec]):
        self.src = src
        self.tree = tree
        self.specs = specs

    def fail(self, message: str, line: int, snippet: str = "", hint: str | None = None
             ) -> InputError:
        return self.src.error(message, line, snippet, hint)

    def stray(self, text: str | None, name: str, line: int) -> None:
        if text is None or not text.strip():
            return
        stray = self.tree.restore(text).lstrip()[:40].strip()
        where = _PLACES.get(name, f"<{name}>")
        raise self.fail(f"text {stray[:30]!r} directly inside {where}", line, stray,
                        "put text in <p>, <li>, a heading or a table cell")

    def element(self, el: etree._Element, parent: Node | None) -> Node:
        tree = self.tree
        name = el.tag
        line = tree.line(el)
        spec = self.specs.get(name)
        if spec is None:
            raise self.fail(f"unknown element <{name}>", line, tree.shown(el),
                            "elements are " + ", ".join(sorted(self.specs)))
        ptag = parent.tag if parent is not None else None
        if name == "document" and parent is not None:
            raise self.fail("<document> may only be the root", line, tree.shown(el))
        if name in _ONLY_IN and ptag not in _ONLY_IN[name]:
            raise self.fail(f"<{name}> belongs inside <{'> or <'.join(_ONLY_IN[name])}>",
                            line, tree.shown(el))
        if spec.top_level and ptag != "document":
            raise self.fail(f"<{name}> may only appear at the top level of the document",
                            line, tree.shown(el))
        attrs: dict[str, str] = {}
        for key, value in tree.attrs(el):
            if key not in spec.attrs:
                allowed = ", ".join(spec.attrs) if spec.attrs else "none"
                raise self.fail(f"<{name}> has no attribute {key!r}", line, tree.shown(el),
                                f"attributes of <{name}>: {allowed}")
            attrs[key] = value
        missing = [k for k in spec.required if k not in attrs]
        if missing:
            raise self.fail(f"<{name}> needs the attribute {missing[0]!r}", line, tree.shown(el))
        node = Node(name, attrs, line)
        if tree.self_closing(el):
            if spec.content == INLINE:
                node.runs = []
            return node
        if spec.content == EMPTY:
            raise self.fail(f"write <{name} .../>: it holds no content", line, tree.shown(el))
        if spec.content == INLINE:
            node.runs = inline_runs(tree, el, lambda child, message, hint: self.fail(
                f"in <{name}>: {message}", tree.line(child), tree.shown(child), hint))
            return node
        # element content
        self.stray(el.text, name, tree.text_line(el))
        for child in el:
            cname = child.tag
            cline = tree.line(child)
            if spec.content == CHILDREN and cname not in spec.children \
                    and cname in self.specs:
                raise self.fail(f"<{name}> may only hold <{'>, <'.join(spec.children)}>, "
                                f"not <{cname}>", cline, tree.shown(child))
            if spec.content == BLOCKS and cname in _ONLY_IN:
                raise self.fail(f"<{cname}> belongs inside <{'> or <'.join(_ONLY_IN[cname])}>",
                                cline, tree.shown(child))
            if spec.content == BLOCKS and cname == "document":
                raise self.fail("<document> may only be the root", cline, tree.shown(child))
            node.children.append(self.element(child, node))
            self.stray(child.tail, name, tree.tail_line(child))
        return node
