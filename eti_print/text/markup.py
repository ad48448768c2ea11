"""The internal markup: a tiny whitelisted language read strictly into runs."""

from __future__ import annotations

import re
from functools import lru_cache

from ..errors import fail
from .runs import _ALLOWED_HINT, _ART_ID_RE, BREAK, Run

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
                                   "art ids are lowercase slugs such as threat-spy")
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
