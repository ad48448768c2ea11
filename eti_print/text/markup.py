"""The one markup parser: card text and documents, read by lxml, strictly.

The internal card-text markup (``<b>``, ``<i>``, ``<br/>``,
``<icon name="slug"/>``) and document markup (``render/document``) are both
XML, read here in three steps:

1. ``vet`` looks at every ``<`` and ``&`` before any parser does: a ``<``
   must start a whole tag (``<name ...>``, ``</name>``), DOCTYPE and entity
   declarations, CDATA sections and processing instructions are refused, and
   an ``&`` must start one of ``ENTITIES``, a numeric one naming a printable
   character.  These are the messages users see most (``x<y``, ``R&D``), in
   our words and with their position.
2. lxml parses it, hardened as the SVG reader in ``art/svg.py`` is: entities
   are not resolved, no DTD is loaded or validated, nothing is fetched from
   the network, and the huge-tree limits stay on (256 levels of nesting, 10 MB
   of text in one node).  Card text is a fragment, parsed wrapped in a root
   ``<_>`` that no markup can open or close (``<_`` is refused in step 1).
   Its well-formedness errors (mismatched or unclosed tags, repeated
   attributes...) are reworded.  Characters XML may not hold (C0 controls,
   lone surrogates, U+FFFE/U+FFFF) and ``]]>`` are text like any other: they
   pass through lxml in stand-ins and the fonts judge them later.
3. ``Tree`` indexes where each element's tags are written, so every element
   has the line of its ``<`` (lxml's ``sourceline`` is the line of the start
   tag's ``>``, a different line when a tag spans lines) and its written
   start tag, for messages and to tell ``<br/>`` from ``<br></br>``.

``inline_runs`` then reads an element's text, children and tails as inline
markup into ``Run``s, checking the whitelist; ``parse`` does all of it for
card text.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Callable, Collection, Iterator
from functools import lru_cache

from lxml import etree

from .. import limits
from ..errors import fail
from .runs import _ART_ID_RE, ALLOWED_TAGS, BREAK, Run

#: The entities both levels of markup accept (XML's own five and numeric ones).
ENTITIES = "&amp; &lt; &gt; &quot; &apos; &#NNN; &#xHHH;"
_ENTITY_RE = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));")
_ALLOWED_HINT = f"allowed tags are {ALLOWED_TAGS}; entities are {ENTITIES}"
_ENTITY_HINT = f"entities are {ENTITIES}; write &amp; for a literal '&'"
_STRAY_HINT = ("write &lt; for a literal '<' (text from YAML data is escaped for you); "
               'tags look like <name attr="value">')
INLINE_TAGS = ("b", "i", "br", "icon")
ROOT = "_"             # the root a fragment is parsed in; markup cannot write it

_SPECIAL_RE = re.compile(r"[<&]")
# what may follow a '<': a whole tag, up to its '>' (quoted values may hold '>')
_TAG_START_RE = re.compile(r"</?[A-Za-z][^<>\"']*(?:\"[^\"<]*\"[^<>\"']*|'[^'<]*'[^<>\"']*)*>")
_REFUSED = (
    ("<!doctype", "DOCTYPE and entity declarations are not allowed",
     "remove the <!DOCTYPE ...> block"),
    ("<!entity", "DOCTYPE and entity declarations are not allowed",
     "remove the <!ENTITY ...> declaration"),
    ("<![cdata[", "CDATA sections are not allowed",
     "write &lt; and &amp; for a literal '<' and '&'"),
    ("<?", "processing instructions are not allowed", "remove the <?...?>"),
)
#: Characters XML may not hold, carried through lxml in stand-ins.
_FORBIDDEN_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_WS_TRANS = str.maketrans({"\n": " ", "\r": " ", "\t": " "})
_SPACE_RE = re.compile(r"\s*")
# a tag of markup lxml found well-formed: quoted values may hold '>'
_TAG_RE = re.compile(r"<(/?)[^\s/>]+(?:[^>\"']|\"[^\"]*\"|'[^']*')*>")
_XML_NS = "{http://www.w3.org/XML/1998/namespace}"
_POSITION_RE = re.compile(r",? line -?\d+, column -?\d+\s*$")


class MarkupError(Exception):
    """A markup problem: ``message`` and ``hint``, at ``line`` (1-based) or
    character ``pos`` of the markup when known."""

    def __init__(self, message: str, hint: str = _ALLOWED_HINT, *, pos: int | None = None,
                 line: int | None = None, kind: str = "markup", name: str = ""):
        super().__init__(message)
        self.name = name
        self.message = message
        self.hint = hint
        self.pos = pos
        self.line = line
        self.kind = kind


def printable(code: int) -> bool:
    """Whether a numeric entity may name this code point."""
    return not (code > 0x10FFFF or 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF)
                or (code < 32 and code not in (9, 10, 13)) or 0x7F <= code < 0xA0)


def vet(text: str, position: Callable[[int], str]) -> None:
    """Refuse any ``<`` that starts no tag and any ``&`` that starts no allowed entity.

    ``position(pos)`` words where character ``pos`` is, for the message.
    """
    for m in _SPECIAL_RE.finditer(text):
        pos = m.start()
        if text[pos] == "&":
            e = _ENTITY_RE.match(text, pos)
            if e is None:
                bad = re.match(r"&[^\s&<;]{0,12};?", text[pos:]).group(0)
                raise MarkupError(f"bad entity {bad!r} {position(pos)}", _ENTITY_HINT, pos=pos,
                                  kind="entity")
            if not e.group(1):
                code = int(e.group(2)) if e.group(2) else int(e.group(3), 16)
                if not printable(code):
                    raise MarkupError(f"entity {e.group(0)!r} is not a printable character",
                                      _ENTITY_HINT, pos=pos, kind="entity")
        elif _TAG_START_RE.match(text, pos) is None:
            head = text[pos:pos + 9].lower()
            for prefix, message, hint in _REFUSED:
                if head.startswith(prefix):
                    raise MarkupError(f"{message} ({position(pos)})", hint, pos=pos,
                                      kind="refused")
            raise MarkupError(f"stray '<' {position(pos)}", _STRAY_HINT + "; " + _ALLOWED_HINT,
                              pos=pos, kind="stray")


def _smuggle(text: str) -> tuple[str, dict[int, str] | None]:
    """Replace characters XML may not hold with private-use stand-ins not in ``text``."""
    found = sorted(set(_FORBIDDEN_RE.findall(text)))
    if not found:
        return text, None
    spare = (chr(c) for c in range(0xF0000, 0x10FFFE) if chr(c) not in text)
    there: dict[int, str] = {}
    back: dict[int, str] = {}
    for ch in found:
        stand_in = next(spare)
        there[ord(ch)] = stand_in
        back[ord(stand_in)] = ch
    return text.translate(there), back


_local = threading.local()


def _parser() -> etree.XMLParser:
    """This thread's parser (lxml parsers must not be shared between threads)."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = etree.XMLParser(
            resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
            huge_tree=False, remove_comments=True, remove_pis=False, collect_ids=False)
    return parser


def _mismatch(msg: str, line: int, names: Collection[str]) -> MarkupError | None:
    m = re.match(r"Opening and ending tag mismatch: (\S+) line (-?\d+) and (\S+?),? ", msg + " ")
    if m is None:
        return None
    opened, opened_line, closed = m.group(1), int(m.group(2)), m.group(3)
    for name, at in ((opened, opened_line), (closed, line)):
        if name not in names and name != ROOT:
            return MarkupError(f"markup tag <{name}> is not allowed", line=at, kind="unknown",
                               name=name)
    if opened == ROOT or (closed in INLINE_TAGS and opened not in INLINE_TAGS):
        return MarkupError(f"</{closed}> closes a tag that was never opened", line=line,
                           kind="mismatch")
    if opened == "br":
        return MarkupError("write <br/>, not <br>", line=opened_line, kind="mismatch")
    if opened == "icon":
        return MarkupError('write <icon name="art-id"/>, not <icon ...>', line=opened_line,
                           kind="mismatch")
    if closed == ROOT or (opened in INLINE_TAGS and closed not in INLINE_TAGS):
        return MarkupError(f"<{opened}> is never closed", line=opened_line, kind="unclosed")
    if opened in INLINE_TAGS:
        return MarkupError(f"</{closed}> does not match the open <{opened}>", line=line,
                           kind="mismatch")
    return MarkupError(f"<{opened}> is never closed (found </{closed}> on line {line})",
                       line=opened_line, kind="unclosed")


def _syntax(exc: etree.XMLSyntaxError, names: Collection[str]) -> MarkupError:
    """lxml's well-formedness error in our words."""
    E = etree.ErrorTypes
    msg = _POSITION_RE.sub("", exc.msg or "")
    line = exc.lineno if exc.lineno and exc.lineno > 0 else None
    code = exc.code
    if code == E.ERR_TAG_NAME_MISMATCH:
        found = _mismatch(msg, line or 1, names)
        if found is not None:
            return found
    if code == E.ERR_TAG_NOT_FINISHED:
        m = re.match(r"Premature end of data in tag (\S+) line (\d+)", msg)
        if m is not None:
            return MarkupError(f"<{m.group(1)}> is never closed", line=int(m.group(2)),
                               kind="unclosed")
    if code == E.ERR_ATTRIBUTE_REDEFINED:
        m = re.match(r"Attribute (\S+) redefined", msg)
        name = m.group(1) if m else "?"
        return MarkupError(f"attribute {name!r} is given twice", line=line, kind="attribute")
    if code == E.ERR_LT_IN_ATTRIBUTE:
        return MarkupError("an attribute value holds a '<'", "write &lt; for a literal '<'",
                           line=line, kind="attribute")
    if code == E.ERR_DOCUMENT_END:
        return MarkupError("nothing may follow the end of the markup", line=line,
                           kind="trailing")
    if code in (E.ERR_DOCUMENT_EMPTY, E.ERR_DOCUMENT_START):
        return MarkupError("the markup holds no element", line=line, kind="start")
    if "Excessive depth" in msg:
        return MarkupError(f"markup nests more than {MAX_NESTING} elements deep",
                           "flatten the markup", line=line, kind="depth")
    if "amespace" in msg:
        return MarkupError(f"namespaces are not allowed ({msg})", line=line, kind="namespace")
    return MarkupError(f"malformed tag ({msg})", _STRAY_HINT, line=line, kind="syntax")


#: How deeply markup may nest (``markup_depth`` of specs/limits.yaml): the builders
#: that walk it recurse, and Python's stack is not a limit to meet by luck.
MAX_NESTING = limits.budget("markup_depth")


class Tree:
    """Markup parsed by lxml, with where each element's tags are written."""

    def __init__(self, text: str, root: etree._Element, back: dict[int, str] | None):
        self.text = text
        self.root = root
        self._back = back
        self._starts: list[int] | None = None
        self.elements = list(root.iter())
        index: list[list] = []
        stack: list[int] = []
        for m in _TAG_RE.finditer(text):
            if m.group(1):
                if stack:
                    index[stack.pop()][3] = m.end()
            else:
                single = m.group(0).endswith("/>")
                index.append([m.start(), m.end(), single, m.end()])
                if not single:
                    stack.append(len(index) - 1)
                    if len(stack) > MAX_NESTING + 1:    # the fragment's root is one more
                        raise MarkupError(f"markup nests more than {MAX_NESTING} elements "
                                          "deep", "flatten the markup",
                                          line=self.line_at(m.start()), kind="depth")
        if len(index) != len(self.elements):   # pragma: no cover - lxml read other tags
            raise MarkupError("the markup's tags cannot be told apart", kind="syntax")
        self._index = {el: rec for el, rec in zip(self.elements, index)}
        for el in self.elements if "xmlns" in text else ():
            if el.nsmap:
                raise MarkupError("namespace declarations (xmlns) are not allowed",
                                  line=self.line(el), kind="namespace")

    def line_at(self, pos: int) -> int:
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return bisect.bisect_right(self._starts, pos)

    def line(self, el: etree._Element) -> int:
        """The line of the element's ``<``."""
        return self.line_at(self._index[el][0])

    def shown(self, el: etree._Element) -> str:
        """The element's start tag as written."""
        start, end = self._index[el][:2]
        return self.restore(self.text[start:end])

    def self_closing(self, el: etree._Element) -> bool:
        return self._index[el][2]

    def text_line(self, el: etree._Element) -> int:
        """The line where the element's text (after its start tag) starts."""
        return self.line_at(_SPACE_RE.match(self.text, self._index[el][1]).end())

    def tail_line(self, el: etree._Element) -> int:
        """The line where the element's tail (after its end) starts."""
        return self.line_at(_SPACE_RE.match(self.text, self._index[el][3]).end())

    def source(self, el: etree._Element) -> str | None:
        """The element as written, its start tag to its end tag; None where characters
        the parser cannot take stand in the text for what was written."""
        if self._back is not None:
            return None
        start, _, _, end = self._index[el]
        return self.text[start:end]

    def restore(self, value: str) -> str:
        return value if self._back is None else value.translate(self._back)

    def attrs(self, el: etree._Element) -> Iterator[tuple[str, str]]:
        """The attributes as written (names shown as in markup), values unescaped."""
        for key, value in el.attrib.items():
            if key.startswith(_XML_NS):
                key = "xml:" + key[len(_XML_NS):]
            yield key, self.restore(value)


def parse_tree(text: str, *, fragment: bool, position: Callable[[int], str],
               names: Collection[str] = INLINE_TAGS) -> Tree:
    """Vet ``text`` and parse it with lxml; a fragment is parsed inside a ``<_>`` root.

    ``names`` are the element names the markup may use, for messages about
    tags that are not well-formed.

    Raises ``MarkupError``: ``pos`` is a character of ``text``, ``line`` a line of it.
    """
    vet(text, position)
    if fragment:
        text = f"<{ROOT}>{text}</{ROOT}>"
    # the one sequence XML forbids in text that vetted markup may hold
    text, back = _smuggle(text.replace("]]>", "]]&gt;"))
    try:
        root = etree.fromstring(text, _parser())
    except etree.XMLSyntaxError as exc:
        raise _syntax(exc, names) from None
    except ValueError as exc:   # pragma: no cover - vetted markup has no declaration
        raise MarkupError(f"cannot parse: {exc}", kind="syntax") from None
    info = root.getroottree().docinfo
    if info.doctype or info.internalDTD is not None or info.externalDTD is not None:
        raise MarkupError("DOCTYPE and entity declarations are not allowed", line=1,
                          kind="refused")   # pragma: no cover - refused by vet already
    return Tree(text, root, back)


Fail = Callable[[etree._Element, str, str], Exception]


#: The runs of inline markup, by the element as written (``Tree.source``): a document
#: sets the same paragraphs build after build (``watch``), and an element's runs are a
#: function of what is written between its tags.  Cleared when full.
_INLINE: dict[str, tuple[Run, ...]] = {}
_INLINE_MAX = 20_000


def inline_runs(tree: Tree, el: etree._Element, fail_at: Fail) -> list[Run]:
    """The inline markup inside ``el`` as runs; ``fail_at(element, message, hint)``
    makes the exception raised for a problem with one of its elements.  (Plain
    functions, not nested ones: a recursive closure is a reference cycle, holding
    the parsed tree until the cyclic collector runs, which a build rests.)"""
    source = tree.source(el)
    known = _INLINE.get(source) if source is not None else None
    if known is not None:
        return list(known)
    runs: list[Run] = []
    _walk(tree, el, False, False, runs, fail_at)
    if source is not None:
        if len(_INLINE) >= _INLINE_MAX:
            _INLINE.clear()
        _INLINE[source] = tuple(runs)
    return runs


def _add_text(tree: Tree, runs: list[Run], text: str | None, bold: bool,
              italic: bool) -> None:
    if not text:
        return
    text = tree.restore(text).translate(_WS_TRANS)
    if runs and runs[-1].kind == "text" and runs[-1].bold == bold \
            and runs[-1].italic == italic:
        runs[-1] = Run("text", runs[-1].text + text, bold, italic)
    else:
        runs.append(Run("text", text, bold, italic))


def _walk(tree: Tree, parent: etree._Element, bold: bool, italic: bool, runs: list[Run],
          fail_at: Fail) -> None:
    _add_text(tree, runs, parent.text, bold, italic)
    for child in parent:
        name = child.tag
        shown = tree.shown(child)
        attributes = list(tree.attrs(child))
        single = tree.self_closing(child)
        if name not in INLINE_TAGS:
            raise fail_at(child, f"markup tag <{name}> is not allowed (in {shown!r})",
                          _ALLOWED_HINT)
        if name in ("b", "i"):
            if attributes:
                raise fail_at(child, f"tag <{name}> takes no attributes (in {shown!r})",
                              _ALLOWED_HINT)
            if single:
                raise fail_at(child, f"tag <{name}> cannot be self-closing (in {shown!r})",
                              _ALLOWED_HINT)
            _walk(tree, child, bold or name == "b", italic or name == "i", runs, fail_at)
        elif name == "br":
            if attributes:
                raise fail_at(child, f"tag <br/> takes no attributes (in {shown!r})",
                              _ALLOWED_HINT)
            if not single:
                raise fail_at(child, f"write <br/>, not {shown!r}", _ALLOWED_HINT)
            runs.append(BREAK)
        else:  # icon
            if not single:
                raise fail_at(child, f'write <icon name="art-id"/>, not {shown!r}',
                              _ALLOWED_HINT)
            others = sorted(k for k, _ in attributes if k != "name")
            if others:
                raise fail_at(child, f"attribute {others[0]!r} is not allowed on <icon> "
                              f"(in {shown!r}); <icon> takes only name", _ALLOWED_HINT)
            if not attributes:
                raise fail_at(child, f"<icon> needs exactly one name attribute "
                              f"(in {shown!r})", _ALLOWED_HINT)
            value = attributes[0][1]
            if not _ART_ID_RE.match(value):
                raise fail_at(child, f"icon name {value!r} is not an art id",
                              "art ids are lowercase slugs such as card-icon")
            runs.append(Run("icon", "", bold, italic, value))
        _add_text(tree, runs, child.tail, bold, italic)


def _excerpt(markup: str, pos: int) -> str:
    start = max(0, pos - 15)
    snippet = markup[start:pos + 20]
    return ("..." if start else "") + snippet + ("..." if pos + 20 < len(markup) else "")


@lru_cache(maxsize=2048)
def parse_runs(markup: str) -> tuple[Run, ...]:
    """Card-text markup as runs; raises ``MarkupError``."""
    if "<" not in markup and "&" not in markup:   # plain text: as lxml would read it
        text = markup.replace("\r\n", "\n").translate(_WS_TRANS)
        return (Run("text", text),) if text else ()
    tree = parse_tree(markup, fragment=True,
                      position=lambda pos: f"at character {pos + 1} in "
                                           f"{_excerpt(markup, pos)!r}")
    return tuple(inline_runs(tree, tree.root, lambda el, message, hint: MarkupError(
        message, hint, line=tree.line(el))))


def parse(markup: str, *, where: str | None = None, line: int | None = None,
          field: str | None = None) -> list[Run]:
    """Parse the internal markup into runs, strictly.

    Any tag, attribute or entity outside the whitelist, unbalanced tags or a
    stray ``<`` is an ``InputError`` located at ``where:line: field``.
    Whitespace characters become spaces (breaks are ``<br/>`` only).
    """
    try:
        return list(parse_runs(str(markup)))
    except MarkupError as exc:
        raise fail(exc.message, path=where, line=line, field=field, hint=exc.hint) from None
