"""What a face's inline templates rendered, kept by the values they read.

A layout property is rendered for every card, board space and repetition, and
most renders repeat one already made: ``{{ token.slot }}mm`` reads the same
value on every space of a board, ``{{ lookup('fields.fields', card.field).colour }}``
one of eight fields on 130 cards.  A render is a pure function of the names it
reads (the sandbox is immutable, and every global and filter a template can
call is a function of its arguments), so ``RenderMemo`` keeps each result under
the values read:

* the names a template could read are a superset found by a regular expression
  (every identifier outside attribute position, inside strings too);
* a name used only as ``name.attr`` (constant attributes) of a plain ``dict``
  is told by those attributes' values, any other name by its value;
* plain values (text, numbers, booleans, null) by type and value, a float by
  its ``repr`` (``-0.0`` prints apart from ``0.0``), lists, tuples and dicts
  of them by content (in order), a function by its code,
  globals, defaults and what it closes over (``lookup`` is made anew for every
  card), anything else by identity, and the entry holds those objects so that
  no new object can take their place;
* a template that includes or imports another file, or tests identity
  (``sameas``), is always rendered, and an error is never kept (the next card
  renders again and fails alike).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from types import FunctionType
from typing import Any

#: Every identifier, and the words of a template never remembered: those by which it
#: reads another file, and ``sameas``, the one test of identity.
_NAME = re.compile(r"[^\W\d]\w*")
_NEVER = frozenset({"include", "import", "extends", "from", "sameas"})
#: An identifier outside attribute position, and the attribute read of it, if any.
_USE = re.compile(r"(?<![\w.])([^\W\d]\w*)(?:\s*\.\s*([^\W\d]\w*))?")
#: Attributes a dict has of its own: ``card.items`` is the method, not the key.
_DICT_ATTRS = frozenset(dir(dict))
_PLAIN = (str, int, float, bool, type(None))
_ABSENT = object()
_MAX = 8192
#: Most items of a list or dict told by content (a bigger one is told by identity).
_CONTENT_ITEMS = 2000

#: One name a template reads: (name, the attributes it reads of it, or None for all).
Reads = tuple[tuple[str, "tuple[str, ...] | None"], ...]


def reads(source: str) -> Reads | None:
    """The names ``source`` could read, each with the attributes it is read through
    (None: the name's whole value); None if the template is never remembered."""
    if not _NEVER.isdisjoint(_NAME.findall(source)):
        return None
    found: dict[str, set[str] | None] = {}
    for m in _USE.finditer(source):
        name, attr = m.group(1), m.group(2)
        attrs = found.setdefault(name, set())
        if attrs is None:
            continue
        if attr is None or attr in _DICT_ATTRS:
            found[name] = None
        else:
            attrs.add(attr)
    out = [(name, None if attrs is None else tuple(sorted(attrs)))
           for name, attrs in sorted(found.items())]
    return tuple(out)


class _Content:
    """A list's, tuple's or dict's content as a key, its hash worked out once."""

    __slots__ = ("value", "hash")

    def __init__(self, value: tuple):
        self.value = value
        self.hash = hash(value)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, _Content) and self.hash == other.hash
                                 and self.value == other.value)


def _content(value: Any, budget: list[int]) -> Any:
    """Plain values, and lists, tuples and dicts (in order) of them, as a key; None for
    anything else or past ``budget`` items."""
    kind = type(value)
    if kind is float:
        return (kind, repr(value))
    if kind in _PLAIN:
        return (kind, value)
    if kind not in (list, tuple, dict):
        return None
    budget[0] -= len(value)
    if budget[0] < 0:
        return None
    items = []
    for item in (value.items() if kind is dict else value):
        frozen = _content(item, budget) if kind is not dict else (
            _content(item[0], budget), _content(item[1], budget))
        if frozen is None or kind is dict and None in frozen:
            return None
        items.append(frozen)
    return (kind, tuple(items))


class RenderMemo:
    """Rendered inline templates of one resolver, by source and the values read."""

    def __init__(self) -> None:
        self._reads: dict[str, Reads | None] = {}
        self._kept: dict[tuple, tuple[tuple, str]] = {}
        self._contents: dict[int, tuple[Any, _Content | None]] = {}
        self._interned: dict[tuple, _Content] = {}

    def text(self, source: str, context: dict[str, Any], render: Callable[[], str]) -> str:
        """What ``source`` renders to in ``context``: kept, or ``render()`` now."""
        names = self._reads.get(source, _ABSENT)
        if names is _ABSENT:
            names = self._reads[source] = reads(source)
        if names is None:
            return render()
        held: list[Any] = []
        parts = []
        told = self._told
        for name, attrs in names:
            value = context.get(name, _ABSENT)
            if attrs is not None and type(value) is dict:
                parts.append((".", tuple(told(value.get(a, _ABSENT), held) for a in attrs)))
            else:
                parts.append(told(value, held))
        key = (source, tuple(parts))
        hit = self._kept.get(key)
        if hit is not None and len(hit[0]) == len(held) and all(
                a is b for a, b in zip(hit[0], held)):
            return hit[1]
        text = render()
        if len(self._kept) >= _MAX:
            self._kept.clear()
            self._contents.clear()
            self._interned.clear()
        self._kept[key] = (tuple(held), text)
        return text

    def _told(self, value: Any, held: list[Any]) -> Any:
        """``value`` as a part of a key; what it is told by identity goes in ``held``."""
        kind = type(value)
        if kind is float:
            return (kind, repr(value))
        if kind in _PLAIN:
            return (kind, value)
        if kind in (list, tuple, dict):
            # by content (the spaces of every board of a for_each entry are alike), worked out once
            # per object and kept with it
            known = self._contents.get(id(value))
            if known is None or known[0] is not value:
                frozen = _content(value, [_CONTENT_ITEMS])
                if frozen is not None:      # one key object for equal contents
                    frozen = self._interned.setdefault(frozen, _Content(frozen))
                known = self._contents[id(value)] = (value, frozen)
            if known[1] is not None:
                return known[1]
        elif kind is FunctionType and not value.__kwdefaults__:
            # a closure made anew for every card (``lookup``) acts alike while its code,
            # globals, defaults and the objects it closes over are the same
            try:
                cells = tuple(self._told(cell.cell_contents, held)
                              for cell in value.__closure__ or ())
            except ValueError:                 # an empty cell
                cells = None
            if cells is not None:
                held.extend((value.__code__, value.__globals__))
                return ("fn", id(value.__code__), id(value.__globals__), cells,
                        tuple(self._told(d, held) for d in value.__defaults__ or ()))
        held.append(value)
        return id(value)
