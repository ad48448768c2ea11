"""Schema rules in words: the one place a regex, a length or a type is put into English.

Messages (``schema.validate``) and the reference (``eti_print.reference``) both
say constraints through these functions, so a field reads the same in an
error as in ``eti-print schema`` and ``docs/reference.md``.
"""

from __future__ import annotations

from typing import Any

#: Patterns the shipped schemas use, in words.  Any other pattern is shown quoted.
PATTERNS: dict[str, str] = {
    r"^[a-z0-9]+(-[a-z0-9]+)*$": "lowercase words joined by hyphens",
    r"^[a-z0-9-]+(\.[a-z0-9_-]+)+$": "a list of a data file, FILE.KEY (e.g. events.events)",
    r"^[a-z_][a-z0-9_]*$": "a field name: lowercase letters, digits and underscores, "
                           "not starting with a digit",
    r"^[a-z0-9_]+$": "lowercase letters, digits and underscores",
    r"^#[0-9A-Fa-f]{6}$": "a color #RRGGBB (e.g. #1F3A5F)",
    r"^[^#]+\.(csv|tsv|xlsx)(#.+)?$": "a spreadsheet in cards/: NAME.csv, NAME.tsv, "
                                      "NAME.xlsx or NAME.xlsx#Sheet",
    r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*\.j2$": "a template path ending in .j2 "
                                              "(e.g. reference/rules.j2)",
    r"^(-|[0-9]+|\+[0-9]+)$": "'-', a whole number or +N (e.g. 3, +1)",
    r"^[a-z]+$": "lowercase letters only",
    r"^[IVX]+$": "a Roman numeral of I, V and X (e.g. IV)",
    r"^[A-Z]$": "one capital letter",
    r"^.+\.(ttf|TTF)$": "a TrueType file (NAME.ttf)",
    r"^\s*-?[0-9.]+\s*,\s*-?[0-9.]+\s*$": "two numbers X,Y in millimetres (e.g. 0.5,-1)",
}

TYPES = {"string": "text", "integer": "whole number", "number": "number",
         "float": "decimal number", "boolean": "true or false", "list": "list",
         "dict": "mapping"}


def pattern(regex: str) -> str:
    """A pattern in words: ``lowercase words joined by hyphens``, else the pattern quoted."""
    return PATTERNS.get(regex) or f"text matching the pattern '{regex}'"


def must_match(regex: str) -> str:
    """The message of a failed pattern: ``must be lowercase words joined by hyphens``."""
    words = PATTERNS.get(regex)
    return f"must be {words}" if words else f"must match the pattern '{regex}'"


def type_words(rtype: Any) -> str:
    """``text``, ``whole number``, ``text or mapping``..."""
    if isinstance(rtype, (list, tuple)):
        return " or ".join(TYPES.get(t, t) for t in rtype)
    if rtype is None:
        return "anything"
    return TYPES.get(rtype, rtype)


def _types(rules: dict[str, Any]) -> tuple[str, ...]:
    rtype = rules.get("type")
    if isinstance(rtype, (list, tuple)):
        return tuple(rtype)
    return (rtype,) if rtype else ()


def unit(rules_or_value: Any) -> str:
    """What a length rule counts: characters of a string, items of anything else."""
    if isinstance(rules_or_value, str):
        return "characters"
    if isinstance(rules_or_value, dict):
        types = _types(rules_or_value)
        if types and all(t == "string" for t in types):
            return "characters"
    return "items"


def length(rules: dict[str, Any]) -> str | None:
    """``at most 230 characters``, ``2 to 5 items``... or None."""
    lo, hi = rules.get("minlength"), rules.get("maxlength")
    if rules.get("empty") is False and "string" in _types(rules) and not lo:
        lo = 1
    what = unit(rules)
    if lo and hi is not None:
        return f"exactly {hi} {what}" if lo == hi else f"{lo} to {hi} {what}"
    if hi is not None:
        return f"at most {hi} {what}"
    if lo:
        if lo == 1:
            return "not empty"
        return f"at least {lo} {what}"
    if rules.get("empty") is False:
        return "not empty"
    return None


def bounds(rules: dict[str, Any]) -> str | None:
    lo, hi = rules.get("min"), rules.get("max")
    if lo is not None and hi is not None:
        return f"from {lo} to {hi}"
    if lo is not None:
        return f"at least {lo}"
    if hi is not None:
        return f"at most {hi}"
    return None


def constraints(rules: dict[str, Any]) -> list[str]:
    """Every constraint of one field's rules, in words, required/optional last."""
    out: list[str] = []
    if "allowed" in rules:
        out.append("one of " + ", ".join(map(str, rules["allowed"])))
    if isinstance(rules.get("regex"), str):
        out.append(pattern(rules["regex"]))
    for said in (length(rules), bounds(rules)):
        if said:
            out.append(said)
    if rules.get("nullable"):
        out.append("may be null")
    out.append("optional" if rules.get("required") is False else "required")
    return out
