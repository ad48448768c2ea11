"""Inline templates printed without jinja2: one value in one tag, maybe between text.

Most of a pack's inline templates are one expression: ``{{ card.title }}``,
``{{ token.slot }}mm``, ``{{ ports[i].y + 22 }}mm``, ``{{ card.flavor | default('') }}``.
Compiling one with jinja2 costs about 2 ms in a fresh process (parse, code
generation, ``compile``); printing it here costs microseconds.  ``value``
returns the very markup jinja2 would print, or None whenever anything might
differ, and the template then goes through jinja2 with its errors and limits.

What is printed here:

* plain text around the tag, with no brace (no other tag can begin or end
  there) and no line break (jinja2 drops a last one), printed as it is;
* a name of the context followed by keys (``.key``, of a plain ``dict``, never
  one of the dict type's own attributes) and indexes (``[0]``, ``[i]``: a
  whole number from 0, of a plain list or tuple): text or a number, escaped
  as autoescape does; with ``| default('text')`` or ``| default(3)`` when only
  its last step is missing;
* numbers (``3``, ``2.5``) and such values joined by ``+ - * / // %``, unary
  ``-``/``+`` and parentheses, with jinja2's precedence, evaluated in jinja2's
  order by Python's own operators, the sandbox's budget checked for the
  operators it intercepts (``template_budget.check_binop``).

Anything else (a missing or null value, text in arithmetic, a name jinja2
reads as a constant or operator, a division by zero, a budget exceeded) is
None.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from jinja2.exceptions import SecurityError
from markupsafe import Markup, escape

from . import template_budget

#: Text, one ``{{ ... }}`` (maybe with ``| default(...)``), text.
_SHAPE = re.compile(r"([^{}\n\r]*)\{\{([^{}'\"|~\n\r]*?)"
                    r"(?:\|\s*default\((?:'([^'\\{}\n\r]*)'|(0|[1-9][0-9]*))\)\s*)?\}\}"
                    r"([^{}\n\r]*)")
_TOKEN = re.compile(r"\s*(?:(?P<num>(?:0|[1-9][0-9]*)(?:\.[0-9]+)?)(?![\w.])"
                    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<op>//|[-+*/%()\[\].]))")
#: Names jinja2 reads as constants or operators, never as a variable.
KEYWORDS = frozenset({"and", "or", "not", "in", "is", "if", "else", "true", "false", "none",
                      "True", "False", "None"})
#: Most characters one render here may print (as ``templating.MAX_OUTPUT``).
MAX_OUTPUT = 2_000_000
_MISSING = object()
_NUMBER = (int, float)


class _Unsure(Exception):
    """Anything this module does not print as jinja2 would: jinja2 renders it."""


def value(source: str, context: Mapping[str, Any]) -> Markup | None:
    """What jinja2 prints for ``source`` in ``context``, or None (see the module doc)."""
    m = _SHAPE.fullmatch(source)
    if m is None or not isinstance(context, dict):
        return None
    before, expr, default_text, default_number, after = m.groups()
    tokens = _tokens(expr) if expr[:1] not in "-+" else None   # {{- is whitespace control
    if tokens is None:
        return None
    try:
        if default_text is not None or default_number is not None:
            result = _chain(tokens, context, defaulted=True)
            if result is _MISSING:
                result = default_text if default_text is not None else int(default_number)
        else:
            parser = _Parser(tokens, context)
            result = parser.sum()
            if parser.at < len(tokens):
                return None
    except _Unsure:
        return None
    except (ArithmeticError, SecurityError):
        return None     # jinja2 reports it, located
    if type(result) not in (str, int, float) or (
            type(result) is str and len(result) > MAX_OUTPUT - len(before) - len(after)):
        return None
    return Markup(before + str(escape(result)) + after)


def _tokens(expr: str) -> list[tuple[str, str]] | None:
    found = []
    at, end = 0, len(expr.rstrip())
    while at < end:
        m = _TOKEN.match(expr, at)
        if m is None:
            return None
        kind = m.lastgroup
        found.append((kind, m.group(kind)))
        at = m.end()
    return found or None


def _chain(tokens: list[tuple[str, str]], context: dict[str, Any], defaulted: bool) -> Any:
    """A whole expression that is one name with keys and indexes (for ``default``)."""
    parser = _Parser(tokens, context)
    found = parser.chain(defaulted)
    if parser.at < len(tokens):
        raise _Unsure
    return found


class _Parser:
    """Recursive descent over jinja2's grammar for these expressions, evaluating."""

    def __init__(self, tokens: list[tuple[str, str]], context: dict[str, Any]):
        self.tokens = tokens
        self.context = context
        self.at = 0

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _take(self, op: str) -> bool:
        token = self._peek()
        if token is not None and token == ("op", op):
            self.at += 1
            return True
        return False

    def sum(self) -> Any:
        left = self.product()
        while True:
            if self._take("+"):
                right = _number(self.product())
                template_budget.check_binop("+", _number(left), right)
                left = left + right
            elif self._take("-"):
                left = _number(left) - _number(self.product())
            else:
                return left

    def product(self) -> Any:
        left = self.unary()
        while True:
            if self._take("*"):
                right = _number(self.unary())
                template_budget.check_binop("*", _number(left), right)
                left = left * right
            elif self._take("//"):
                left = _number(left) // _number(self.unary())
            elif self._take("/"):
                left = _number(left) / _number(self.unary())
            elif self._take("%"):
                right = _number(self.unary())
                template_budget.check_binop("%", _number(left), right)
                left = left % right
            else:
                return left

    def unary(self) -> Any:
        if self._take("-"):
            return -_number(self.unary())
        if self._take("+"):
            return +_number(self.unary())
        token = self._peek()
        if token is None:
            raise _Unsure
        if token == ("op", "("):
            self.at += 1
            inner = self.sum()
            if not self._take(")"):
                raise _Unsure
            return inner
        if token[0] == "num":
            self.at += 1
            return float(token[1]) if "." in token[1] else int(token[1])
        return self.chain(False)

    def chain(self, defaulted: bool) -> Any:
        """A name and its keys and indexes; _MISSING if only the last step is missing
        and ``defaulted``."""
        token = self._peek()
        if token is None or token[0] != "name" or token[1] in KEYWORDS:
            raise _Unsure
        self.at += 1
        found = self.context.get(token[1], _MISSING)
        if found is _MISSING:
            raise _Unsure       # a global, or undefined: jinja2 decides
        while True:
            if self._take("."):
                key = self._peek()
                if key is None or key[0] != "name" or key[1].startswith("_") \
                        or type(found) is not dict or hasattr(dict, key[1]):
                    raise _Unsure
                self.at += 1
                found = found.get(key[1], _MISSING)
            elif self._take("["):
                index = self._peek()
                if index is None or not self._index(index) or type(found) not in (list, tuple):
                    raise _Unsure
                self.at += 1
                if not self._take("]"):
                    raise _Unsure
                at = int(index[1]) if index[0] == "num" else self.context.get(index[1])
                if type(at) is not int or at < 0:
                    raise _Unsure
                found = found[at] if at < len(found) else _MISSING
            else:
                return found
            if found is _MISSING:
                following = self._peek()
                if not defaulted or following in (("op", "."), ("op", "[")):
                    raise _Unsure    # undefined: jinja2's located error
                return _MISSING

    @staticmethod
    def _index(token: tuple[str, str]) -> bool:
        return (token[0] == "num" and "." not in token[1]) or (
            token[0] == "name" and token[1] not in KEYWORDS)


def _number(found: Any) -> Any:
    if type(found) not in _NUMBER:
        raise _Unsure
    return found
