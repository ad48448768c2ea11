"""A pack's own schemas checked as strictly as its data.

Every rule of a field in ``cards/schemas/*.yaml`` must be of the kind the rule
takes: a ``type`` cerberus knows, ``min``/``max`` that are finite numbers of
the field's own type (an integer field's limits are whole numbers),
``minlength``/``maxlength`` that are counts, true/false flags, a list of
scalars for ``allowed``, and a ``regex`` that RE2 compiles.  RE2 runs in time
linear in the text, so a pattern such as ``^(a+)+$`` cannot hang a build; a
pattern that needs backtracking (a backreference, a lookaround) is refused
with its reason.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any

import re2

from . import limits

#: The field types a schema may give.
TYPES = ("string", "integer", "number", "float", "boolean", "list", "dict")
#: The longest regex a schema may give.
MAX_REGEX = 500

_NUMERIC = {"integer", "number", "float"}
_FLAGS = ("required", "nullable", "empty")


def _options() -> re2.Options:
    options = re2.Options()
    options.max_mem = 8 << 20           # the compiled automaton's memory
    options.log_errors = False          # errors are reported, located, by the caller
    return options


@lru_cache(maxsize=256)
def linear_regex(pattern: str):
    """``pattern`` compiled by RE2 (linear time); raises ``re2.error`` if RE2 cannot."""
    return re2.compile(pattern, options=_options())


def _types(rules: dict[str, Any]) -> set[str]:
    kind = rules.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_rule(key: str, value: Any, rules: dict[str, Any]) -> tuple[str, str | None] | None:
    """What is wrong with one rule of a field (``key: value`` among ``rules``), as
    (message, hint), or None when it is sound."""
    types = _types(rules)
    if key == "type":
        kinds = value if isinstance(value, list) else [value]
        bad = [k for k in kinds if not isinstance(k, str) or k not in TYPES]
        if bad or not kinds:
            return (f"unknown type {_short(bad[0] if bad else value)}",
                    "types are " + ", ".join(TYPES) + " (or a list of them)")
    elif key in ("min", "max"):
        if not types & _NUMERIC:
            return (f"{key} applies to integer and number fields",
                    f"use {key}length for the length of a string or list")
        whole = types <= {"integer"}
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
            return (f"{key} must be {'a whole number' if whole else 'a number'} "
                    f"(got {_short(value)})", None)
        low, high = limits.bounds("integer")
        if isinstance(value, float) and not math.isfinite(value) or not low <= value <= high:
            return f"{key} must be {limits.shown('integer')} (got {_short(value)})", None
    elif key in ("minlength", "maxlength"):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10 ** 6:
            return f"{key} must be a whole number from 0 to 1000000 (got {_short(value)})", None
        if not types & {"string", "list", "dict"}:
            return (f"{key} applies to string, list and dict fields",
                    "use min and max for the value of a number")
    elif key in _FLAGS:
        if not isinstance(value, bool):
            return f"{key} must be true or false (got {_short(value)})", None
    elif key == "allowed":
        if not isinstance(value, list) or not value or not all(
                isinstance(v, (str, int, float)) for v in value):
            return (f"allowed must be a list of strings or numbers (got {_short(value)})",
                    None)
    elif key == "regex":
        return _regex_problem(value)
    elif key in ("schema", "keysrules", "valuesrules"):
        if not isinstance(value, dict):
            return f"{key} must be a mapping of rules (got {_short(value)})", None
    elif key == "description":
        if not isinstance(value, str):
            return f"description must be text (got {_short(value)})", None
    return None


def _regex_problem(pattern: Any) -> tuple[str, str | None] | None:
    if not isinstance(pattern, str):
        return f"regex must be text (got {_short(pattern)})", None
    if len(pattern) > MAX_REGEX:
        return f"regex is {len(pattern)} characters long (at most {MAX_REGEX})", None
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"invalid regex {_short(pattern)}: {exc}", None
    try:
        linear_regex(pattern)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        return (f"regex {_short(pattern)} needs backtracking ({reason})",
                "regexes run on RE2, in linear time: no backreferences or lookarounds")
    return None
