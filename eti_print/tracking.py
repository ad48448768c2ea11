"""What a renderer reads, recorded for the build cache (``cache.py``).

While a job or a deck is computed through a ``cache.BuildCache``, every read it
makes of the pack goes through one of these routes, and each read becomes a
*dependency* ``(kind, name)`` whose value (a content hash) is checked before an
entry is reused:

=====================  ===========================================================
``("doc", NAME)``      ``Dataset.docs[NAME]`` (``TrackedDocs``): the parsed value
``("db", ATTR)``       an attribute of the game's model (``_database_class``)
``("file", PATH)``     a layout file (``LayoutLibrary.get``, its ``extends`` chain
                       too) or a template file (``templating.PackLoader``, on load
                       and on every reuse of the compiled template)
``("art", DIR, ID)``   an art id (``ArtLibrary.get``/``tinted``/``path_of``): its
                       file names and bytes
``("dir", FOLDER)``    a listing (``ArtLibrary.ids``, ``LayoutLibrary.names``)
=====================  ===========================================================

The libraries call ``read`` (a no-op unless a cache is recording), so a read
of a layout or an art file costs one function call when nothing records.
Everything else a job reads (pack.yaml, the schemas, fonts, sheet settings,
any other file under ``templates/``) is in the entry's global key.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import fractions
import hashlib
import inspect
import marshal
import os
import types
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePath
from typing import Any

from .files import digest

#: The recorder of the entry being computed (``BuildCache._run`` sets it), or None.
ACTIVE: Any = None


def read(key: tuple) -> None:
    """A resource read by a renderer (see the module doc); recorded if a cache records."""
    if ACTIVE is not None:
        ACTIVE.read(key)


def read_files(paths: tuple[str, ...]) -> None:
    if ACTIVE is not None:
        for path in paths:
            ACTIVE.read(("file", path))


def fingerprint(value: Any) -> str:
    """A content hash of a parsed value (dicts in order, dataclasses by every field);
    ``Untrackable`` for a value holding an object of a type it does not know."""
    h = hashlib.sha256()
    _feed(value, h.update, 0)
    return h.hexdigest()


def key_of(value: Any) -> str:
    """``fingerprint(value)``, or for an untrackable value a key no other value has
    (its entry is a miss, never a stale hit)."""
    try:
        return fingerprint(value)
    except Untrackable:
        return "untrackable:" + os.urandom(16).hex()


def _feed(value: Any, put: Callable[[bytes], None], depth: int, lenient: bool = False) -> None:
    """Feed ``value``'s content to ``put``; an unknown object is ``Untrackable``, or with
    ``lenient`` (a name for display, never a cache key) its type and repr."""
    if depth > 200:
        raise RecursionError("value too deep to fingerprint")
    if isinstance(value, ObjectView | MappingView):
        value = object.__getattribute__(value, "_model")   # the model itself, unrecorded
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        put(repr(value).encode("utf-8", "surrogatepass"))
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        put(b"D" + type(value).__qualname__.encode() + b"(")
        for f in dataclasses.fields(value):
            put(f.name.encode() + b"=")
            _feed(getattr(value, f.name), put, depth + 1, lenient)
            put(b",")
        put(b")")
    elif type(value) in (dict, list) and (plain := _plain(value)) is not None:
        put(b"M" + plain)
    elif isinstance(value, Mapping):
        put(b"{")
        for k, v in value.items():
            _feed(k, put, depth + 1, lenient)
            put(b":")
            _feed(v, put, depth + 1, lenient)
            put(b",")
        put(b"}")
    elif isinstance(value, (list, tuple)):
        put(b"[" if isinstance(value, list) else b"(")
        for v in value:
            _feed(v, put, depth + 1, lenient)
            put(b",")
        put(b"]")
    elif isinstance(value, (set, frozenset)):
        put(b"S" + repr(sorted(repr(v) for v in value)).encode())
    elif isinstance(value, _BY_REPR):      # values whose repr is their whole content
        put(b"R" + type(value).__qualname__.encode() + repr(value).encode())
    elif isinstance(value, enum.Enum):
        put(b"E" + type(value).__qualname__.encode() + value.name.encode())
    else:
        # An object of a type this does not know: its repr may name only its address,
        # which a later object can have too, so it has no sound fingerprint.  The
        # caller depends on something coarser instead (``cache``: the whole model).
        if not lenient:
            raise Untrackable(type(value).__qualname__)
        put(b"?" + type(value).__qualname__.encode() + repr(value).encode())


#: Types whose repr holds their whole value (never an address).
_BY_REPR = (datetime.date, datetime.time, datetime.timedelta, decimal.Decimal,
            fractions.Fraction, complex, range, PurePath)


def _plain(value: dict | list) -> bytes | None:
    """A dict or list of plain data (what YAML parses to) as bytes, in one C call:
    ``marshal`` format 2 (no references, so how the parts are shared does not count),
    which tells every type apart and keeps dicts in order; None if it holds anything
    else (a set, whose order ``marshal`` would not fix, or any other object)."""
    try:
        data = marshal.dumps(value, 2)
    except ValueError:
        return None
    # sets marshal in their iteration order: fingerprint those by sorted reprs (_feed);
    # a set or frozenset's type code is "<" or ">" (looked for only if one is there)
    if (b"<" in data or b">" in data) and _has_set(value):
        return None
    return data


def _has_set(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (set, frozenset)):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
            stack.extend(item)
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return False


#: Largest file hashed whole for a cache key; a larger one counts by size and time.
DIGEST_CAP = 64 * 1024 * 1024


def files_hash(root: Path, parts: tuple[str, ...]) -> str:
    """SHA-256 over the names and contents of the files under ``parts`` of ``root``."""
    h = hashlib.sha256()
    for part in parts:
        base = root / part
        paths = [base] if base.is_file() else (
            sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else [])
        for path in paths:
            h.update(path.relative_to(root).as_posix().encode() + b"\0")
            h.update(digest(path, DIGEST_CAP))   # never more than a cap; no FIFO opened
    return h.hexdigest()


#: Suffix of template files: read only through the template loader (``("file", ...)``).
TEMPLATE_SUFFIX = ".j2"


def global_hash(root: Path, tracked: tuple[str, ...]) -> str:
    """What every entry of a pack depends on: pack.yaml, the schemas, the fonts and
    every file under ``templates/`` but those reached through a tracked route: the
    folders ``tracked`` (the layouts', the art's) and the template files."""
    h = hashlib.sha256(files_hash(root, ("pack.yaml", "cards/schemas", "fonts")).encode())
    base = root / "templates"
    paths = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []
    for path in paths:
        rel = path.relative_to(root).as_posix()
        if rel.endswith(TEMPLATE_SUFFIX) or any(rel.startswith(t.rstrip("/") + "/")
                                                for t in tracked):
            continue
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        h.update(digest(path, DIGEST_CAP))
    return h.hexdigest()


def listing(folder: Path) -> str:
    """A hash of the names in ``folder`` (a ``("dir", ...)`` dependency)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        names = ["\0missing"]
    return hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape")).hexdigest()


class _Recorder:
    """Records dependencies into every open entry (a deck inside an output)."""

    def __init__(self, values: Callable[[tuple], str]):
        self.values = values
        self.stack: list[dict[tuple, str]] = []

    def read(self, key: tuple) -> None:
        if not self.stack:
            return
        if key in self.stack[-1]:
            return
        value = self.values(key)
        for deps in self.stack:
            deps.setdefault(key, value)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Nothing is recorded in the block (a derived value read as itself)."""
        stack, self.stack = self.stack, []
        try:
            yield
        finally:
            self.stack = stack

    def replay(self, deps: Mapping[tuple, str]) -> None:
        """A reused entry's dependencies count as read by the entries around it."""
        for outer in self.stack:
            for key, value in deps.items():
                outer.setdefault(key, value)


class TrackedDocs(dict):
    """``Dataset.docs`` that records which data files are read."""

    def __init__(self, docs: Mapping[str, Any], recorder: _Recorder):
        super().__init__(docs)
        self._recorder = recorder

    def _all(self) -> None:
        for name in dict.keys(self):
            self._recorder.read(("doc", name))

    def __getitem__(self, name: str) -> Any:
        value = dict.__getitem__(self, name)
        self._recorder.read(("doc", name))
        return value

    def get(self, name: str, default: Any = None) -> Any:
        if dict.__contains__(self, name):
            return self[name]
        return default

    # Names come from pack.yaml (part of every global key); values are reads.
    def __iter__(self):
        return iter(list(dict.keys(self)))

    def values(self):  # type: ignore[override]
        self._all()
        return dict.values(self)

    def items(self):  # type: ignore[override]
        self._all()
        return dict.items(self)

    def copy(self) -> dict:  # type: ignore[override]
        self._all()
        return dict(dict.items(self))

    def __reduce_ex__(self, protocol: int):  # copy.copy / deepcopy / pickle
        self._all()
        return (dict, (dict(dict.items(self)),))

    def __or__(self, other):  # type: ignore[override]
        self._all()
        return dict(dict.items(self)) | other

    def setdefault(self, *args):  # type: ignore[override]
        raise TypeError("the dataset is read-only while rendering")

    def pop(self, *args):  # type: ignore[override]
        raise TypeError("the dataset is read-only while rendering")


class Untrackable(Exception):
    """A value the cache cannot fingerprint soundly (an object it does not know)."""


#: The dependency on the whole model: every data file (``("db", WHOLE)``).  A model
#: read by a route the view cannot tell apart (a method it does not own, an object
#: it cannot fingerprint) depends on all the data it could have been built from.
WHOLE = "*"


def model_view(model: Any, recorder: _Recorder, dataset: Any) -> Any:
    """A recording view of a game's ``model`` (never the model itself, never a swapped
    class): a ``Mapping`` model records each key read, any other model each attribute
    read.  ``dataset`` stands in for the model's own ``dataset`` attribute, if any."""
    if model is None:
        return None
    if isinstance(model, Mapping):
        return MappingView(model, recorder)
    return ObjectView(model, recorder, dataset)


class MappingView(Mapping):
    """A game model that is a mapping (a plain dict): each key read is the dependency
    ``("db", ("key", KEY))``; listing the keys is ``("db", ("keys",))``."""

    __slots__ = ("_model", "_recorder")

    def __init__(self, model: Mapping, recorder: _Recorder) -> None:
        self._model = model
        self._recorder = recorder

    def __getitem__(self, key: Any) -> Any:
        try:
            self._recorder.read(("db", ("key", key)))
        except TypeError:                  # an unhashable key: the whole model
            self._recorder.read(("db", WHOLE))
        return self._model[key]

    def __iter__(self):
        self._recorder.read(("db", ("keys",)))
        return iter(self._model)

    def __len__(self) -> int:
        self._recorder.read(("db", ("keys",)))
        return len(self._model)

    def __contains__(self, key: Any) -> bool:
        self._recorder.read(("db", ("keys",)))
        return key in self._model

    def __getattr__(self, name: str) -> Any:
        # any other route into the model (a method of a dict subclass, say)
        self._recorder.read(("db", WHOLE))
        return getattr(self._model, name)


class ObjectView:
    """A game model that is an object (E.T.I.'s dataclass): each attribute read is the
    dependency ``("db", NAME)``, the attribute's value.  A property's value is the
    dependency, not what it is worked out from (the largest project difficulty: an edit
    that leaves it alone leaves its readers alone); a method of the model's class runs
    on this view, so what it reads is recorded; anything else callable is the whole
    model.  ``isinstance`` sees the model's class."""

    __slots__ = ("_model", "_recorder", "_dataset")

    def __init__(self, model: Any, recorder: _Recorder, dataset: Any) -> None:
        object.__setattr__(self, "_model", model)
        object.__setattr__(self, "_recorder", recorder)
        object.__setattr__(self, "_dataset", dataset)

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # noqa: D105 - isinstance(view, Model) holds
        return type(object.__getattribute__(self, "_model"))

    def __getattr__(self, name: str) -> Any:
        model = object.__getattribute__(self, "_model")
        recorder = object.__getattribute__(self, "_recorder")
        if name.startswith("__") and name.endswith("__"):
            return getattr(model, name)          # the class's own machinery, not data
        if name == "dataset" and hasattr(model, "dataset"):
            return object.__getattribute__(self, "_dataset")   # reads of it are recorded
        try:
            static = inspect.getattr_static(type(model), name)
        except AttributeError:
            static = None
        if isinstance(static, types.FunctionType) and name not in getattr(model, "__dict__", {}):
            return types.MethodType(static, self)   # its reads go through this view
        value = getattr(model, name)
        if isinstance(static, (staticmethod, classmethod)):
            return value                         # no instance state
        if callable(value) and not isinstance(static, property) \
                and not dataclasses.is_dataclass(value):
            recorder.read(("db", WHOLE))
        else:
            recorder.read(("db", name))
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise TypeError("the game's model is read-only while rendering")

    def __repr__(self) -> str:
        return f"<recording view of {object.__getattribute__(self, '_model')!r}>"
