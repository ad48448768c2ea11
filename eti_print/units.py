"""Lengths: the one place a unit string (``"63.5mm"``) becomes points.

Everything inside eti-print measures in points (1/72 inch).  Units appear only
at the data and command-line boundary and are converted here.  A bare number
is an error, never a guess: a silently assumed unit prints every card at the
wrong size.  Paper sizes live here too, computed from their defining lengths
so A4 is exactly 210 x 297 mm.
"""

from __future__ import annotations

import math
import re

from . import limits
from .errors import fail

POINTS_PER_INCH = 72.0
POINTS_PER_MM = POINTS_PER_INCH / 25.4

_FACTORS = {"mm": POINTS_PER_MM, "cm": 10 * POINTS_PER_MM, "in": POINTS_PER_INCH, "pt": 1.0}
_UNIT_HINT = "give a unit: mm, cm, in or pt"
_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_LENGTH = re.compile(rf"({_NUMBER})\s*([A-Za-z]+)")
_BARE = re.compile(_NUMBER)


def mm(x: float) -> float:
    """``x`` millimetres in points."""
    return x * POINTS_PER_MM


def inch(x: float) -> float:
    """``x`` inches in points."""
    return x * POINTS_PER_INCH


def to_mm(points: float) -> float:
    """``points`` in millimetres (for messages and printed instructions)."""
    return points / POINTS_PER_MM


def show_mm(points: float) -> str:
    """A length for a person to read: ``"63.5 mm"`` (at most 2 decimals)."""
    text = f"{to_mm(points):.2f}".rstrip("0").rstrip(".")
    return f"{'0' if text == '-0' else text} mm"


#: Paper sizes (width, height) in points, portrait.
PAPER: dict[str, tuple[float, float]] = {
    "a4": (mm(210), mm(297)),
    "letter": (inch(8.5), inch(11)),
}


def paper_size(name: str, where: str | None = None, line: int | None = None,
               field: str | None = None) -> tuple[float, float]:
    """The portrait (width, height) of a named paper; unknown names are errors."""
    try:
        return PAPER[str(name).strip().lower()]
    except KeyError:
        raise fail(f"unknown paper {name!r}", path=where, line=line, field=field,
                   hint="paper is " + " or ".join(sorted(PAPER))) from None


def to_points(value: object, where: str | None = None, line: int | None = None,
              field: str | None = None, signed: bool = False, limit: str = "length") -> float:
    """Parse ``"63.5mm"``, ``"2.5in"``, ``"12pt"`` or ``"0.3cm"`` to points.

    Negative lengths are errors unless ``signed`` (offsets); infinities, NaN,
    bare numbers, unknown units and lengths outside the range ``limit`` of
    ``specs/limits.yaml`` (any length: 2 m either way) are always errors,
    located at ``where:line`` / ``field``.
    """
    if type(value) is str:
        known = _PARSED.get((value, signed, limit))
        if known is not None:
            return known

    def bad(message: str, hint: str = _UNIT_HINT) -> Exception:
        return fail(message, path=where, line=line, field=field, hint=hint)

    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise bad(f"a length must be text like \"3mm\" (got {value!r})")
    if isinstance(value, (int, float)):
        raise bad(f"the length {value!r} has no unit", f'{_UNIT_HINT}, as in "{value}mm"')
    text = value.strip()
    if len(text) > 64:
        raise bad(f"not a length: {text[:20]!r}... ({len(text)} characters)",
                  f'{_UNIT_HINT}, as in "3mm"')
    if _BARE.fullmatch(text):
        raise bad(f"the length {value!r} has no unit", f'{_UNIT_HINT}, as in "{text}mm"')
    match = _LENGTH.fullmatch(text)
    if match is None:
        raise bad(f"not a length: {value!r}", f'{_UNIT_HINT}, as in "3mm"')
    number, unit = match.groups()
    factor = _FACTORS.get(unit.lower())
    if factor is None:
        raise bad(f"unknown unit {unit!r} in {value!r}")
    points = float(number) * factor
    if not math.isfinite(points):
        raise bad(f"the length {value!r} is too large", "give an ordinary length")
    if points < 0 and not signed:
        raise bad(f"the length {value!r} is negative", "lengths are 0 or more")
    limits.length(points, limit, where, line, field, written=text)
    points += 0.0  # turns -0.0 into 0.0
    if type(value) is str and len(_PARSED) < _PARSED_MAX:
        _PARSED[(value, signed, limit)] = points
    return points


#: Lengths already parsed (a layout writes the same few thousands of times), by
#: (text, signed, limit); only lengths that passed every check.
_PARSED: dict[tuple[str, bool, str], float] = {}
_PARSED_MAX = 65536


def to_offset(value: object, where: str | None = None, line: int | None = None,
              field: str | None = None) -> tuple[float, float]:
    """Parse a signed ``"X,Y"`` pair such as ``"1.5mm,-0.5mm"`` (``--back-offset``)."""
    if not isinstance(value, str) or value.count(",") != 1:
        raise fail(f"an offset is two lengths 'X,Y' (got {value!r})", path=where, line=line,
                   field=field, hint='as in "1.5mm,-0.5mm"; each needs a unit: mm, cm, in or pt')
    x, y = value.split(",")
    return (to_points(x, where, line, field, signed=True),
            to_points(y, where, line, field, signed=True))
