"""Budgets for pack templates: CPU time per render and the size of what they build.

A template from a pack may loop for ever without printing anything, square a
number until it fills memory, or ask for a string a billion characters wide.
``templating.py`` hooks these checks into its sandbox:

* ``watchdog()`` gives one render ``template_seconds`` of CPU time
  (``specs/limits.yaml``).  In the main thread a virtual-time timer
  (``setitimer(ITIMER_VIRTUAL)``) interrupts any Python loop (its handler
  installed once for many renders inside a ``session()``); elsewhere, and
  as a second line, the sandbox's hooks (calls, attribute lookups, operators)
  and the items of ``range`` check the clock (one in ``TICKS`` of them reads it).
* ``check_binop``, ``check_call`` and the ``FILTERS`` refuse, before the
  string or number exists, a ``*``/``+`` result over ``template_chars``
  characters, an integer over ``template_int_digits`` digits, a ``format``,
  ``%``, ``center``, ``indent``, ``ljust``/``rjust``/``zfill`` or ``replace``
  whose width or result is over ``template_chars``.

The errors are ``SecurityError``s: ``templating.py`` reports them located at
the template and, through the face resolver, the card.
"""

from __future__ import annotations

import math
import re
import signal
import string
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from jinja2 import filters as jfilters
from jinja2.exceptions import SecurityError
from jinja2.sandbox import safe_range

from . import limits

SECONDS = float(limits.budget("template_seconds"))
CHARS = limits.budget("template_chars")
LOOP = limits.budget("template_loop")
INT_BITS = int(limits.budget("template_int_digits") * math.log2(10))

_state = threading.local()
_NUMBER_RE = re.compile(r"\d+")
_PERCENT_RE = re.compile(r"%[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")


class TemplateTimeout(SecurityError):
    """A render ran past its CPU budget."""


def _timeout() -> TemplateTimeout:
    return TemplateTimeout(f"the template ran for more than {SECONDS:g} s of CPU time "
                           "(an endless or huge loop?)")


def _on_alarm(signum: int, frame: Any) -> None:
    if getattr(_state, "deadline", None) is None:
        return
    if frame is not None and frame.f_lineno is None:
        # an instruction of a template's code without a line: jinja2 cannot place an
        # exception raised there (its traceback rewrite fails with a TypeError that
        # would stand for the timeout), so the timer rings again a moment later
        signal.setitimer(signal.ITIMER_VIRTUAL, 0.001)
        return
    raise _timeout()


#: Templates that have run out of time or memory once: rendering them again (for the
#: next card) fails at once the same way instead of spending the budget again.
_SPENT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _can_time() -> bool:
    """Whether a virtual-time timer can interrupt renders here (the main thread only)."""
    return threading.current_thread() is threading.main_thread() \
        and hasattr(signal, "setitimer")


@contextmanager
def session() -> Iterator[None]:
    """Many renders under one installed timer handler (a face's, a board's): each render
    still gets its own ``template_seconds``, its timer set as it starts and cleared as it
    ends; only the handler, which costs more to install and restore than a short
    template costs to render, is installed once.  Re-entrant."""
    if getattr(_state, "session", False) or not _can_time():
        yield
        return
    try:
        previous = signal.signal(signal.SIGVTALRM, _on_alarm)
    except (ValueError, OSError):          # not allowed here: each render tries alone
        yield
        return
    _state.session = True
    try:
        yield
    finally:
        _state.session = False
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous or signal.SIG_DFL)


@contextmanager
def watchdog(template: Any = None) -> Iterator[None]:
    """One render's CPU budget (re-entrant: an include inside a render shares it)."""
    if getattr(_state, "deadline", None) is not None:
        yield
        return
    if template is not None and template in _SPENT:
        raise _SPENT[template]()
    _state.deadline = time.process_time() + SECONDS
    installed = getattr(_state, "session", False)       # the handler is in place
    timer = installed or _can_time()
    previous = None
    if timer:
        try:
            if not installed:
                previous = signal.signal(signal.SIGVTALRM, _on_alarm)
            signal.setitimer(signal.ITIMER_VIRTUAL, SECONDS)
        except (ValueError, OSError):      # not allowed here: the hooks still check
            timer = False
    try:
        yield
    except (TemplateTimeout, MemoryError) as exc:
        if template is not None:
            _SPENT[template] = type(exc) if isinstance(exc, MemoryError) else _timeout
        raise
    finally:
        _state.deadline = None
        if timer:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            if not installed:
                signal.signal(signal.SIGVTALRM, previous or signal.SIG_DFL)


#: The hooks read the clock once in this many calls: reading it (a system call) cost
#: 0.8 us a hook, a twentieth of a one-card rebuild, and a render's budget is seconds.
TICKS = 16


def tick() -> None:
    """The hooks' check of the clock (where no timer can interrupt)."""
    deadline = getattr(_state, "deadline", None)
    if deadline is None:
        return
    _state.ticks = ticks = getattr(_state, "ticks", 0) + 1
    if not ticks % TICKS and time.process_time() > deadline:
        raise _timeout()


class BudgetRange:
    """``range`` for templates: at most ``template_loop`` items, the clock checked as it
    goes (nested loops that print nothing still stop); its length and items read like a
    range's."""

    def __init__(self, *args: int):
        self._items = safe_range(*args)
        if len(self._items) > LOOP:
            raise SecurityError(f"range of {len(self._items)} items (at most {LOOP})")

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index: Any) -> Any:
        return self._items[index]

    def __contains__(self, value: Any) -> bool:
        return value in self._items

    def __iter__(self) -> Iterator[int]:
        return _ticking(self._items)

    def __reversed__(self) -> Iterator[int]:
        return _ticking(reversed(self._items))


def _ticking(items: Any) -> Iterator[int]:
    for n, i in enumerate(items):
        if not n & 1023:
            tick()
        yield i


def _too_long(what: str, size: int) -> SecurityError:
    return SecurityError(f"{what} would build {size} characters (at most {CHARS})")


def _int_too_big(what: str) -> SecurityError:
    return SecurityError(f"{what} would make a number of more than "
                         f"{limits.budget('template_int_digits')} digits")


def _bits(x: Any) -> int:
    return abs(x).bit_length() if isinstance(x, int) else 0


def check_binop(operator_: str, left: Any, right: Any) -> None:
    """Refuse an operator whose result would be over budget, before it is computed."""
    tick()
    if operator_ == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, (str, list, tuple)) and isinstance(times, int) \
                    and len(seq) * times > CHARS:
                raise _too_long("'*'", len(seq) * times)
        if isinstance(left, int) and isinstance(right, int) \
                and _bits(left) + _bits(right) > INT_BITS:
            raise _int_too_big(f"{_short(left)} * {_short(right)}")
    elif operator_ == "**":
        if isinstance(left, (int, float)) and isinstance(right, (int, float)) \
                and abs(left) > 1 and right > 0 \
                and (isinstance(left, int) and isinstance(right, int)
                     and right * max(_bits(left), 1) > INT_BITS):
            raise _int_too_big(f"{_short(left)} ** {_short(right)}")
    elif operator_ == "+":
        if isinstance(left, (str, list, tuple)) and isinstance(right, type(left)) \
                and len(left) + len(right) > CHARS:
            raise _too_long("'+'", len(left) + len(right))
    elif operator_ == "%":
        if isinstance(left, str):
            check_percent(left)


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 20 else f"a {_bits(x)}-bit number"


def check_percent(template: str) -> None:
    """``'%8d' % x`` and ``| format``: no width or precision over budget, none from ``*``."""
    for m in _PERCENT_RE.finditer(template):
        for part in m.groups():
            if part == "*":
                raise SecurityError("'%' formatting with a '*' width is not allowed")
            if part and (len(part) > 9 or int(part) > CHARS):
                raise _too_long("'%' formatting", int(part[:12]))


def check_format(template: str) -> None:
    """``str.format``: every field's width and precision within budget, none nested."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return                           # str.format itself reports the mistake
    for _text, _name, spec, _conv in fields:
        if not spec:
            continue
        if "{" in spec:
            raise SecurityError("format fields with nested widths are not allowed")
        for number in _NUMBER_RE.findall(spec):
            if len(number) > 9 or int(number) > CHARS:
                raise _too_long("format", int(number[:12]))


_WIDTH_METHODS = {"center", "ljust", "rjust", "zfill", "expandtabs"}


def check_call(obj: Any, args: tuple, kwargs: dict) -> None:
    """A method call on a string whose result would be over budget, refused first."""
    tick()
    obj = getattr(obj, "__wrapped__", obj)      # the sandbox wraps str.format
    owner = getattr(obj, "__self__", None)
    name = getattr(obj, "__name__", "")
    if not isinstance(owner, str):
        return
    if name in ("format", "format_map"):
        check_format(owner)
    elif name in _WIDTH_METHODS:
        width = args[0] if args else kwargs.get("width", kwargs.get("tabsize", 0))
        if isinstance(width, int) and width * (8 if name == "expandtabs" else 1) > CHARS:
            raise _too_long(f"{name}({width})", width)
    elif name == "replace" and len(args) >= 2 and isinstance(args[1], str):
        old = args[0] if isinstance(args[0], str) else ""
        size = len(owner) + (len(owner) + 1) * len(args[1]) if not old else \
            len(owner) + owner.count(old) * max(len(args[1]) - len(old), 0)
        if size > CHARS:
            raise _too_long("replace", size)


def _format(value: Any, *args: Any, **kwargs: Any) -> str:
    check_percent(str(value))
    return jfilters.do_format(value, *args, **kwargs)


def _center(value: Any, width: int = 80) -> str:
    if isinstance(width, int) and width > CHARS:
        raise _too_long(f"center({width})", width)
    return jfilters.do_center(value, width)


def _indent(value: Any, width: Any = 4, first: bool = False, blank: bool = False) -> str:
    size = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
    lines = str(value).count("\n") + 1
    if size * lines > CHARS:
        raise _too_long(f"indent({width!r})", size * lines)
    return jfilters.do_indent(value, width, first, blank)


def _replace(eval_ctx: Any, value: Any, old: Any, new: Any, count: Any = None) -> Any:
    check_call(str(value).replace, (str(old), str(new)), {})
    return jfilters.do_replace(eval_ctx, value, old, new, count)


_replace.jinja_pass_arg = jfilters.do_replace.jinja_pass_arg  # type: ignore[attr-defined]

#: Filters that replace jinja2's own: each checks the size of its result first.
FILTERS = {"format": _format, "center": _center, "indent": _indent, "replace": _replace}
