"""The designers' shorthand (``**bold**``, ``*italic*``, ``:art-id:``) to the internal markup."""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup, escape

from .markup import MarkupError, parse_runs
from .runs import _ART_ID_RE

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


def plain(value: Any) -> str:
    """The plain text of shorthand or markup: no tags, icons dropped, breaks as spaces."""
    markup = value if isinstance(value, Markup) else rich(value)
    try:
        runs = parse_runs(str(markup))
    except MarkupError as exc:
        raise ValueError(exc.message) from None
    text = "".join(r.text if r.kind == "text" else " " for r in runs if r.kind != "icon")
    return " ".join(text.split())
