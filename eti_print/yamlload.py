"""Strict YAML loading that remembers where every value came from.

pyyaml's own loaders fail open: duplicate keys silently keep the last value,
``NO`` becomes False and ``010`` becomes 8, and aliases can expand without
bound.  This loader composes with pyyaml's safe composer and builds plain
Python values itself, so it can

- resolve scalars by the YAML 1.2 core schema (only ``true``/``false`` are
  booleans, ``010`` is the integer 10, ``0o10`` is 8),
- reject duplicate keys (citing both lines), merge keys and custom tags,
- bound the number of nodes built (alias bombs) and the nesting depth,
- and record the line and column of every value and key for error messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .errors import InputError, Problem

MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_NODES = 200_000
MAX_DEPTH = 48

Path_ = tuple  # a value's path: keys and list indexes from the document root

_INT_RE = re.compile(r"^[-+]?[0-9]+$")
_OCT_RE = re.compile(r"^0o[0-7]+$")
_HEX_RE = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT_RE = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_INF_RE = re.compile(r"^[-+]?\.(inf|Inf|INF)$")
_NAN_RE = re.compile(r"^\.(nan|NaN|NAN)$")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAB_INDENT_RE = re.compile(r"^[ \t]*\t", re.MULTILINE)
#: The first characters a number of the core schema can start with (``_INT_RE``...).
_NUMBER_START = frozenset("+-.0123456789")

_STD = "tag:yaml.org,2002:"
_ALLOWED_TAGS = {_STD + t for t in ("str", "int", "float", "bool", "null", "map", "seq")}


_PLAIN = "?plain"


# libyaml's parser (when pyyaml was built with it) is ~10x faster; the node
# tree and error marks it produces are the same.
_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Composer(_Base):  # type: ignore[misc, valid-type]
    """Composes nodes only; implicit resolution is left to ``_scalar``.

    pyyaml's YAML 1.1 resolvers are bypassed: a plain scalar composes with the
    marker tag ``?plain`` and ``_scalar`` resolves it by the 1.2 core schema.
    """

    def resolve(self, kind, value, implicit):  # type: ignore[override]
        if kind is ScalarNode and implicit[0]:
            return _PLAIN
        return super().resolve(kind, value, implicit)


@dataclass
class Document:
    """A loaded YAML file: its value, and where each part of it was written."""

    data: Any
    path: str
    locations: dict[Path_, tuple[int, int]] = field(default_factory=dict)
    key_locations: dict[Path_, tuple[int, int]] = field(default_factory=dict)

    def where(self, path: Path_, *, key: bool = False) -> tuple[int | None, int | None]:
        """Line and column of the value at ``path`` (or its key), else its nearest parent's."""
        table = self.key_locations if key else self.locations
        probe = tuple(path)
        while True:
            if probe in table:
                return table[probe]
            if key and probe in self.locations:
                return self.locations[probe]
            if not probe:
                return (None, None)
            probe = probe[:-1]

    def problem(self, path: Path_, message: str, *, key: bool = False,
                hint: str | None = None) -> Problem:
        line, col = self.where(path, key=key)
        return Problem(message, self.path, line, col, format_path(path) or None, hint)


def format_path(path: Path_) -> str:
    """``('projects', 7, 'level')`` -> ``projects[7].level``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _mark(node: Node) -> tuple[int, int]:
    return (node.start_mark.line + 1, node.start_mark.column + 1)


def _scalar(node: ScalarNode) -> Any:
    value = node.value
    if node.tag != _PLAIN and node.tag not in _ALLOWED_TAGS:
        raise _Located(node, f"tag {node.tag!r} is not allowed")
    if node.tag != _PLAIN:
        return _explicit(node)
    if value in ("", "~", "null", "Null", "NULL"):
        return None
    if value in ("true", "True", "TRUE"):
        return True
    if value in ("false", "False", "FALSE"):
        return False
    if value[0] not in _NUMBER_START:       # most values: no pattern below can match
        return value
    if _INT_RE.match(value):
        return _whole(node, value, 10)
    if _OCT_RE.match(value):
        return _whole(node, value[2:], 8)
    if _HEX_RE.match(value):
        return _whole(node, value[2:], 16)
    if _FLOAT_RE.match(value):
        return float(value)
    if _INF_RE.match(value):
        return float("-inf") if value.startswith("-") else float("inf")
    if _NAN_RE.match(value):
        return float("nan")
    return value


def _whole(node: ScalarNode, digits: str, base: int) -> int:
    """A whole number within the ``integer`` range of specs/limits.yaml, its digits
    counted before Python converts them (a 5000-digit number is refused, not parsed)."""
    from . import limits
    low, high = limits.bounds("integer")
    if len(digits.lstrip("+-0").replace("_", "")) > 20 or not low <= int(digits, base) <= high:
        raise _Located(node, f"the number {digits[:20]}{'...' if len(digits) > 20 else ''} is "
                             f"out of range (whole numbers are {limits.shown('integer')})")
    return int(digits, base)


def _explicit(node: ScalarNode) -> Any:
    """A quoted scalar or one with an explicit standard tag."""
    value, tag = node.value, node.tag
    if tag == _STD + "str":
        return value
    resolved = _scalar(ScalarNode(_PLAIN, value, node.start_mark, node.end_mark))
    wanted = {_STD + "int": int, _STD + "float": float, _STD + "bool": bool,
              _STD + "null": type(None)}[tag]
    if wanted is float and isinstance(resolved, int) and not isinstance(resolved, bool):
        return float(resolved)
    if type(resolved) is not wanted:
        raise _Located(node, f"{value!r} is not a valid {tag.rsplit(':', 1)[-1]}")
    return resolved


class _Located(Exception):
    def __init__(self, node: Node, message: str):
        super().__init__(message)
        self.node = node
        self.message = message


class _Builder:
    def __init__(self, doc: Document, problems: list[Problem]):
        self.doc = doc
        self.problems = problems
        self.nodes = 0

    def build(self, node: Node, path: Path_, depth: int) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise _Located(node, f"document is too large (more than {MAX_NODES} values, "
                                 "perhaps through aliases)")
        if depth > MAX_DEPTH:
            raise _Located(node, f"nesting is deeper than {MAX_DEPTH} levels")
        mark = node.start_mark
        self.doc.locations.setdefault(path, (mark.line + 1, mark.column + 1))
        if isinstance(node, ScalarNode):
            return _scalar(node)
        if isinstance(node, SequenceNode):
            if node.tag not in (_STD + "seq",):
                raise _Located(node, f"tag {node.tag!r} is not allowed")
            return [self.build(item, path + (i,), depth + 1) for i, item in enumerate(node.value)]
        if isinstance(node, MappingNode):
            if node.tag not in (_STD + "map",):
                raise _Located(node, f"tag {node.tag!r} is not allowed")
            out: dict[Any, Any] = {}
            seen: dict[Any, tuple[int, int]] = {}
            key_locations = self.doc.key_locations
            for key_node, value_node in node.value:
                if key_node.tag == _STD + "merge" or (
                        isinstance(key_node, ScalarNode) and key_node.value == "<<"
                        and not key_node.style):
                    raise _Located(key_node, "merge keys ('<<') are not supported; "
                                             "write the fields out")
                if not isinstance(key_node, ScalarNode):
                    raise _Located(key_node, "mapping keys must be plain scalars")
                key = _scalar(key_node)
                if not isinstance(key, (str, int)) or isinstance(key, bool):
                    key = key_node.value
                if key in seen:
                    first = seen[key]
                    line, col = _mark(key_node)
                    self.problems.append(Problem(
                        f"duplicate key {key!r} (first defined at line {first[0]})",
                        self.doc.path, line, col, format_path(path + (key,)) or None))
                    continue
                here = path + (key,)
                seen[key] = key_locations[here] = _mark(key_node)
                out[key] = self.build(value_node, here, depth + 1)
            return out
        raise _Located(node, "unsupported YAML node")


def _precheck(text: str, shown: str, problems: list[Problem]) -> None:
    if not _TAB_INDENT_RE.search(text) and not _CONTROL_RE.search(text):
        return                   # nothing to find: the line-by-line walk only locates it
    for number, line in enumerate(text.split("\n"), start=1):
        indent = len(line) - len(line.lstrip(" \t"))
        if "\t" in line[:indent]:
            problems.append(Problem("tab character in indentation; YAML indents with spaces",
                                    shown, number, line.index("\t") + 1))
        bad = _CONTROL_RE.search(line)
        if bad:
            problems.append(Problem(f"control character U+{ord(bad.group()):04X} is not allowed",
                                    shown, number, bad.start() + 1))


def _syntax_hint(message: str, text: str, mark: Any) -> str | None:
    """The commonest trap in card text: an unquoted ``: `` inside a value
    (``text: Draw 2 cards: then discard``) starts a mapping YAML does not allow there."""
    if "mapping values are not allowed" not in message or mark is None:
        return None
    lines = text.splitlines()
    if not 0 <= mark.line < len(lines):
        return None
    key, sep, value = lines[mark.line].strip().partition(": ")
    if not sep or not value or value[0] in "\"'":
        return 'a ": " inside a value needs the value in quotes'
    if key.startswith("- "):
        key = "- " + key[2:].strip()
    quoted = value.strip().replace("\\", "\\\\").replace('"', '\\"')
    return f'a ": " inside a value needs the value in quotes: {key}: "{quoted}"'


def loads(text: str, shown: str = "<string>") -> Document:
    """Parse YAML text strictly; raise InputError naming ``shown`` on any problem."""
    problems: list[Problem] = []
    _precheck(text, shown, problems)
    if problems:
        raise InputError(problems)
    doc = Document(None, shown)
    if not text.strip() or all(not ln.strip() or ln.lstrip().startswith("#")
                               for ln in text.splitlines()):
        raise InputError(Problem("file is empty", shown, 1, 1))
    loader = _Composer(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = exc.problem or exc.context or "invalid YAML"
        raise InputError(Problem(f"YAML syntax error: {message}", shown,
                                 mark.line + 1 if mark else None,
                                 mark.column + 1 if mark else None,
                                 hint=_syntax_hint(message, text, mark))) from None
    except yaml.YAMLError as exc:
        raise InputError(Problem(f"YAML syntax error: {exc}", shown)) from None
    finally:
        loader.dispose()
    if node is None:
        raise InputError(Problem("file is empty", shown, 1, 1))
    try:
        doc.data = _Builder(doc, problems).build(node, (), 0)
    except _Located as exc:
        line, col = _mark(exc.node)
        problems.append(Problem(exc.message, shown, line, col))
    except RecursionError:
        problems.append(Problem(f"nesting is deeper than {MAX_DEPTH} levels", shown))
    if problems:
        raise InputError(problems)
    return doc


def read_capped(path: Path, shown: str, limit: int) -> bytes:
    """A file's bytes through the one gate (``files.read``): a regular file of at most
    ``limit`` bytes, never a FIFO, a device or a folder, never a last symlink (callers
    resolve their path inside the pack first)."""
    from .files import read
    return read(path, shown, limit)


def load(path: Path, shown: str | None = None) -> Document:
    """Read and parse a YAML file strictly (UTF-8, size-capped)."""
    shown = shown or str(path)
    raw = read_capped(path, shown, MAX_FILE_BYTES)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(Problem(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
                                 shown, line, col, hint="save the file as UTF-8")) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    from .diskcache import documents
    key = documents.key(raw, shown)
    doc = _from_plain(documents.get(key), shown)
    if doc is None:
        doc = loads(text, shown)          # a file with problems raises: never kept
        documents.put(key, (doc.data, doc.path, doc.locations, doc.key_locations))
    return doc


def _from_plain(found: Any, shown: str) -> Document | None:
    """A ``Document`` from what ``load`` kept (``diskcache.Documents``), or None when
    it is absent or not of that shape."""
    if (type(found) is not tuple or len(found) != 4 or found[1] != shown
            or type(found[2]) is not dict or type(found[3]) is not dict):
        return None
    return Document(found[0], shown, found[2], found[3])
