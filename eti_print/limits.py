"""The limits on values and the budgets of a build: ``specs/limits.yaml`` as code.

Every number a pack gives goes through one of these checks at the boundary
where it is read (a layout, pack.yaml, a data count) and before any
arithmetic: it must be of the right type, finite and within its stated range.
The budgets (template time and string sizes, art elements and pixels, pages,
markup depth, memory) are read here too and enforced by the modules that own
the work.  Lengths are points here, as everywhere inside eti-print.
"""

from __future__ import annotations

import math
import resource
from pathlib import Path
from typing import Any

from .errors import InputError, Problem

SPEC_FILE = Path(__file__).resolve().parent / "specs" / "limits.yaml"
_POINTS_PER_MM = 72.0 / 25.4


def _load() -> tuple[str, dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    import yaml
    # libyaml's safe loader where pyyaml has it: the same values, parsed ~10x faster
    raw = yaml.load(SPEC_FILE.read_text(encoding="utf-8"),
                    Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    return raw["description"], raw["values"], raw["budgets"]


_SPEC: dict[str, Any] = {}


def _spec(name: str) -> Any:
    return __getattr__(name)


def __getattr__(name: str) -> Any:
    """``DESCRIPTION``, ``VALUES`` and ``BUDGETS``, read from the spec on first use (a
    command the persistent cache answers never needs them, nor yaml)."""
    if name in ("DESCRIPTION", "VALUES", "BUDGETS"):
        if not _SPEC:
            _SPEC.update(zip(("DESCRIPTION", "VALUES", "BUDGETS"), _load()))
        return _SPEC[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def budget(name: str) -> int:
    """A budget's figure (``budget("pages")`` -> 3000)."""
    return _spec("BUDGETS")[name]["max"]


def bounds(name: str) -> tuple[float, float]:
    """A value limit's (min, max); lengths in points."""
    spec = _spec("VALUES")[name]
    if "max_mm" in spec:
        return spec["min_mm"] * _POINTS_PER_MM, spec["max_mm"] * _POINTS_PER_MM
    if "max_pt" in spec:
        return spec["min_pt"], spec["max_pt"]
    return spec["min"], spec["max"]


def shown(name: str) -> str:
    """A limit's range for a person: ``"0.5 to 5"``, ``"1 mm to 1500 mm"``."""
    spec = _spec("VALUES")[name]
    if "max_mm" in spec:
        return f"{_num(spec['min_mm'])} mm to {_num(spec['max_mm'])} mm"
    if "max_pt" in spec:
        return f"{_num(spec['min_pt'])} pt to {_num(spec['max_pt'])} pt"
    return f"{_num(spec['min'])} to {_num(spec['max'])}"


def _num(x: float) -> str:
    return f"{x:g}" if abs(x) < 1e6 else f"{x:.0e}".replace("e+", "e")


def _problem(message: str, where: str | None, line: int | None, field: str | None,
             hint: str | None = None) -> InputError:
    return InputError(Problem(message, where, line, field=field, hint=hint))


def _describe(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) or abs(value) < 10 ** 30 else \
        f"a {len(str(abs(value)))}-digit number" if abs(value) < 10 ** 4000 else "a huge number"
    return text if len(text) <= 40 else text[:37] + "..."


def number(value: Any, name: str, where: str | None = None, line: int | None = None,
           field: str | None = None, integer: bool = False) -> float | int:
    """``value`` as a number within the limit ``name``: the type (a bool is no number; a
    string only where a template produced it), finiteness and range, else a located
    InputError."""
    kind = "a whole number" if integer else "a number"
    if isinstance(value, str):
        text = value.strip()
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            raise _problem(f"must be {kind}, {shown(name)} (got {text[:40]!r})", where,
                           line, field) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or (integer and not isinstance(value, int)):
        raise _problem(f"must be {kind}, {shown(name)} (got {_describe(value)})", where,
                       line, field)
    if isinstance(value, float) and not math.isfinite(value):
        raise _problem(f"must be a finite number, {shown(name)} (got {value!r})", where,
                       line, field)
    low, high = bounds(name)
    if not low <= value <= high:
        raise _problem(f"must be {shown(name)} (got {_describe(value)})", where, line, field,
                       _spec("VALUES")[name]["description"].rstrip("."))
    return value


def length(points: float, name: str, where: str | None = None, line: int | None = None,
           field: str | None = None, written: Any = None) -> float:
    """A length in points within the limit ``name`` (``written`` is shown in the message)."""
    low, high = bounds(name)
    if not math.isfinite(points) or not low <= points <= high:
        got = written if written is not None else f"{points:g}pt"
        raise _problem(f"the length must be {shown(name)} (got {str(got)[:40]})", where, line,
                       field, _spec("VALUES")[name]["description"].rstrip("."))
    return points


def dash(value: Any, where: str | None = None, line: int | None = None,
         field: str | None = None) -> tuple[float, ...]:
    """A dash pattern: one number (on and off alike) or a list of numbers, in points."""
    if value is None or value == "none" or value is False:
        return ()
    items = value if isinstance(value, list) else [value]
    most = _spec("VALUES")["dash"]["items"]
    if not items or len(items) > most:
        raise _problem(f"a dash is 1 to {most} lengths in points (got {len(items)})", where,
                       line, field)
    found = tuple(float(number(v, "dash", where, line, field)) for v in items)
    if not any(found):
        raise _problem("a dash of only zeros draws nothing", where, line, field,
                       "give on and off lengths in points, as in [2, 1]")
    return found if isinstance(value, list) else (found[0], found[0])


def count(value: Any, where: str | None = None, line: int | None = None,
          field: str | None = None) -> int:
    """A copy count (a deck's or pieces' count field, pieces' copies)."""
    return int(number(value, "copies", where, line, field, integer=True))


def cap(total: int, name: str, what: str, where: str | None = None,
        field: str | None = None) -> None:
    """Refuse ``total`` over the budget ``name`` (``what`` names the thing counted)."""
    most = budget(name)
    if total > most:
        raise _problem(f"{what}: {total} is over the limit of {most}", where, None, field,
                       _spec("BUDGETS")[name]["description"])


# -- the process ----------------------------------------------------------------------

TOO_BIG = ("too big: the build needed more memory than its limit of {mb} MB (a huge "
           "image, text size, board or loop in the pack?)")


def limit_memory() -> int:
    """Put a soft address-space limit on this process (the ``memory_mb`` budget, or the
    hard limit already in force if lower): past it allocation raises MemoryError, which
    the CLI reports as ``too big`` instead of the machine swapping.  Returns the limit in
    MB (0 where the platform has none)."""
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (AttributeError, OSError, ValueError):   # not on this platform
        return 0
    want = budget("memory_mb") * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    if soft != resource.RLIM_INFINITY and soft <= want:
        return soft // (1024 * 1024)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    except (OSError, ValueError):
        return 0
    return want // (1024 * 1024)


_later = False


def limit_memory_later() -> None:
    """``limit_memory`` when the work begins (``begin_work``): not at all for a command
    the persistent cache answers, which reads one entry and writes files, and so never
    reads the spec (nor imports yaml)."""
    global _later
    _later = True


def begin_work() -> None:
    """The work of a build or validate begins: the memory limit, if it was put off."""
    global _later
    if _later:
        _later = False
        limit_memory()


def memory_message() -> str:
    """The message for a MemoryError: which limit the build ran into."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (AttributeError, OSError, ValueError):
        soft = resource.RLIM_INFINITY
    mb = budget("memory_mb") if soft == resource.RLIM_INFINITY else soft // (1024 * 1024)
    return TOO_BIG.format(mb=mb)
