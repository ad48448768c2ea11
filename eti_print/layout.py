"""Card layouts kept as data: ``templates/layouts/NAME.yaml``.

A layout is a list of named boxes drawn in order on a card whose origin is the
top-left corner of the trim, y pointing down (as a designer measures).  Each
box has a type (``rect``, ``ellipse``, ``line``, ``text``, ``art``), a
position and size given with units, and the properties its type accepts.  Any
string property containing ``{{`` is a jinja2 template evaluated per card.
A layout may ``extends`` another: boxes with the same name merge (the child's
properties win), new boxes are drawn after the parent's.  ``when`` skips a box
for cards where it renders empty or false.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from . import limits, tracking
from .errors import InputError, Problem
from .files import exists
from .pack import Pack, confine
from .suggest import did_you_mean
from .units import to_points
from .yamlload import Document, load

#: The box types, kept as data: every type's properties with type, default and a
#: one-line description (``eti-print schema layout`` and the JSON Schemas show it).
SPEC_FILE = Path(__file__).resolve().parent / "specs" / "boxes.yaml"


@dataclass(frozen=True)
class PropSpec:
    """One box property as ``specs/boxes.yaml`` gives it."""

    name: str
    type: str
    description: str
    default: Any = None
    required: bool = False
    signed: bool = False
    allowed: tuple[str, ...] = ()
    limit: str | None = None        # a range of specs/limits.yaml


@dataclass(frozen=True)
class BoxSpec:
    """One box type: what it draws and its own properties (beside ``COMMON_PROPS``)."""

    name: str
    description: str
    props: dict[str, PropSpec]


def _specs() -> tuple[str, dict[str, str], dict[str, PropSpec], dict[str, BoxSpec]]:
    # libyaml's safe loader where pyyaml has it: the same values, parsed ~10x faster
    raw = yaml.load(SPEC_FILE.read_text(encoding="utf-8"),
                    Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))

    def props(table: dict[str, Any]) -> dict[str, PropSpec]:
        return {name: PropSpec(name, p["type"], p["description"], p.get("default"),
                               bool(p.get("required")), bool(p.get("signed")),
                               tuple(p.get("allowed", ())), p.get("limit"))
                for name, p in table.items()}
    types = {name: BoxSpec(name, t["description"], props(t["props"]))
             for name, t in raw["types"].items()}
    return raw["description"], dict(raw["keys"]), props(raw["common"]), types


LAYOUT_DESCRIPTION, LAYOUT_KEY_DESCRIPTIONS, COMMON_PROPS, BOX_TYPES = _specs()
COMMON = set(COMMON_PROPS)
BOX_PROPS: dict[str, set[str]] = {name: COMMON | set(spec.props)
                                  for name, spec in BOX_TYPES.items()}
LENGTHS = {name for spec in (COMMON_PROPS, *(t.props for t in BOX_TYPES.values()))
           for name, p in spec.items() if p.type == "length"}
SIGNED = {name for name, p in COMMON_PROPS.items() if p.signed}
LAYOUT_KEYS = set(LAYOUT_KEY_DESCRIPTIONS)


def prop_spec(box_type: str, prop: str) -> PropSpec:
    return BOX_TYPES[box_type].props.get(prop) or COMMON_PROPS[prop]


@cache
def default(box_type: str, prop: str) -> Any:
    """A property's default as the renderer uses it: lengths in points, ``none`` as None,
    None too where the default is a rule in words (``the text colour``)."""
    spec = prop_spec(box_type, prop)
    value = spec.default
    if value == "none":
        return None
    if spec.type == "length" and isinstance(value, str):
        try:
            return to_points(value)
        except InputError:
            return None          # "the box's width": worked out by the renderer
    if spec.type == "colour" and isinstance(value, str) and not value.startswith("#"):
        return None
    return value


_HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")


def check_value(box_type: str, prop: str, value: Any, where: str | None = None,
                line: int | None = None, field: str | None = None) -> Any:
    """A property's value checked against its type and limit (``specs/boxes.yaml``,
    ``specs/limits.yaml``) and converted: lengths to points, numbers to floats, a dash
    to its list of lengths.  Called on every value a layout writes and again on what a
    template renders; anything else is a located InputError."""
    spec = prop_spec(box_type, prop)
    kind = spec.type

    def bad(message: str, hint: str | None = None) -> InputError:
        return InputError(Problem(message, where, line, field=field, hint=hint))

    if kind == "length":
        return to_points(value, where=where, line=line, field=field,
                         signed=spec.signed, limit=spec.limit or "length")
    if kind in ("number", "integer"):
        return limits.number(value, spec.limit or kind, where, line, field,
                             integer=kind == "integer")
    if kind == "dash":
        return list(limits.dash(value, where, line, field))
    if kind == "choice":
        if value not in spec.allowed:
            raise bad(f"must be one of {', '.join(spec.allowed)} (got {_short(value)})",
                      did_you_mean(value, spec.allowed) if isinstance(value, str) else None)
        return value
    if kind == "boolean":
        if not isinstance(value, bool):
            raise bad(f"must be true or false (got {_short(value)})")
        return value
    if kind == "colour":
        if value is None or value == "none" or (isinstance(value, str) and _HEX.match(value)):
            return value
        raise bad(f"colour must be #RRGGBB or none (got {_short(value)})")
    if kind in ("font", "art") and not isinstance(value, str):
        raise bad(f"must name a {kind} (got {_short(value)})")
    if kind == "text" and not isinstance(value, (str, int, float, bool)) or \
            kind == "markup" and (isinstance(value, bool) or not isinstance(
                value, (str, int, float))):
        raise bad(f"must be text (got {_short(value)})")
    return value


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def is_template(value: Any) -> bool:
    """Whether a property is a jinja2 template, evaluated per card."""
    return isinstance(value, str) and ("{{" in value or "{%" in value)


@dataclass(frozen=True)
class Box:
    """One named box, its properties as written (lengths already in points)."""

    name: str
    type: str
    props: dict[str, Any]
    source: str                 # layout file, for messages
    lines: dict[str, int]       # property -> line in that file
    line: int | None = None

    def line_of(self, prop: str) -> int | None:
        return self.lines.get(prop, self.line)


@dataclass(frozen=True)
class Layout:
    name: str
    boxes: tuple[Box, ...]
    source: str


@dataclass
class LayoutLibrary:
    """Loads layouts once per build, resolving ``extends`` with cycle detection."""

    pack: Pack
    folder: str = "templates/layouts"   # pack-relative folder of the layout files
    _cache: dict[str, Layout] = field(default_factory=dict)
    _files: dict[str, tuple[str, ...]] = field(default_factory=dict)   # name -> its chain

    def names(self) -> list[str]:
        """The layouts of the pack: the names of ``templates/layouts/*.yaml``."""
        tracking.read(("dir", self.folder))
        try:
            return sorted(p.stem for p in (self.pack.root / self.folder).glob("*.yaml"))
        except OSError:
            return []

    def get(self, name: str, where: str | None = None, line: int | None = None,
            field_name: str | None = None) -> Layout:
        if name not in self._cache:
            self._cache[name] = self._load(name, (), where, line, field_name)
        tracking.read_files(self._files.get(name, ()))   # the build cache: what a job read
        return self._cache[name]

    def _load(self, name: str, chain: tuple[str, ...], where: str | None, line: int | None,
              field_name: str | None) -> Layout:
        if name in chain:
            raise InputError(Problem("layouts extend each other in a cycle: "
                                     + " -> ".join(chain + (name,)), where, line,
                                     field=field_name))
        if isinstance(name, str) and not chain and "/" not in name \
                and not exists(self.pack.root / self.folder / f"{name}.yaml"):
            known = self.names()
            near = did_you_mean(name, known)
            raise InputError(Problem(
                f"no layout {name!r} (no {self.folder}/{name}.yaml)", where, line,
                field=field_name, hint=near or ("layouts are " + ", ".join(known) if known
                                                else f"write {self.folder}/{name}.yaml")))
        # named in full (templates/layouts/NAME.yaml): a missing layout says where it goes
        path = confine(self.pack.root, f"{self.folder}/{name}.yaml", where=where,
                       line=line, field=field_name)
        shown = self.pack.display(path)
        own = f"{self.folder}/{name}.yaml"
        self._files[name] = (own,)
        doc = load(path, shown)
        problems: list[Problem] = []
        if not isinstance(doc.data, dict):
            raise InputError(doc.problem((), "a layout is a mapping with 'boxes'"))
        for key in doc.data:
            if key not in LAYOUT_KEYS:
                problems.append(doc.problem(
                    (key,), f"unknown layout key {key!r}", key=True,
                    hint=did_you_mean(key, LAYOUT_KEYS)
                    or "layout keys are " + ", ".join(sorted(LAYOUT_KEYS))))
        boxes: dict[str, Box] = {}
        parent = doc.data.get("extends")
        if parent is not None:
            pline, _ = doc.where(("extends",))
            if not isinstance(parent, str):
                problems.append(doc.problem(("extends",), "must name a layout"))
            else:
                # a parent is read once, however many layouts extend it (a parent in
                # the cache loaded without a cycle, so none runs through it)
                base = self._cache.get(parent)
                if base is None:
                    base = self._cache[parent] = self._load(parent, chain + (name,), shown,
                                                            pline, "extends")
                for box in base.boxes:
                    boxes[box.name] = box
                self._files[name] = (own,) + self._files.get(parent, ())
        raw = doc.data.get("boxes")
        if not isinstance(raw, dict):
            problems.append(doc.problem(("boxes",), "must map box names to boxes"))
            raw = {}
        for box_name, props in raw.items():
            try:
                boxes[box_name] = _box(doc, box_name, props, boxes.get(box_name))
            except InputError as exc:
                problems.extend(exc.problems)
        if problems:
            raise InputError(problems)
        return Layout(name, tuple(boxes.values()), shown)


def _box(doc: Document, name: str, props: Any, base: Box | None) -> Box:
    here = ("boxes", name)
    if not isinstance(props, dict):
        raise InputError(doc.problem(here, "a box is a mapping of properties"))
    merged: dict[str, Any] = dict(base.props) if base else {}
    lines: dict[str, int] = dict(base.lines) if base else {}
    source = doc.path
    problems: list[Problem] = []
    box_type = props.get("type", base.type if base else None)
    if not isinstance(box_type, str) or box_type not in BOX_PROPS:
        raise InputError(doc.problem(here + ("type",), f"unknown box type {_short(box_type)}",
                                     hint=isinstance(box_type, str)
                                     and did_you_mean(box_type, BOX_PROPS)
                                     or "types are " + ", ".join(BOX_PROPS)))
    allowed = BOX_PROPS[box_type]
    for key, value in props.items():
        line, _ = doc.where(here + (key,), key=True)
        if key not in allowed:
            problems.append(doc.problem(here + (key,), f"{box_type} boxes have no property "
                                        f"{key!r}", key=True,
                                        hint=did_you_mean(key, allowed)
                                        or "accepted: " + ", ".join(sorted(allowed))))
            continue
        spec = BOX_TYPES[box_type].props.get(key)
        if spec is not None and spec.type == "choice" and value not in spec.allowed:
            # read as written, never templated: a value the renderer cannot draw stops here
            problems.append(doc.problem(here + (key,), f"{key} must be one of "
                                        f"{', '.join(spec.allowed)} (got {value!r})",
                                        hint=did_you_mean(str(value), spec.allowed)
                                        or ("a choice is written as it is, not as a template"
                                            if is_template(value) else None)))
            continue
        if not is_template(value) and key != "type":
            try:
                value = check_value(box_type, key, value, doc.path, line,
                                    f"boxes.{name}.{key}")
            except InputError as exc:
                problems.extend(exc.problems)
                continue
        merged[key] = value
        lines[key] = line or 0
    if base and base.type != box_type:
        merged = {k: v for k, v in merged.items() if k in allowed}
    for key, spec in COMMON_PROPS.items():
        if spec.required and key != "type" and key not in merged \
                and not (box_type == "rect" and merged.get("bleed")):
            problems.append(doc.problem(here, f"box needs {key!r}"))
    for key, spec in BOX_TYPES[box_type].props.items():
        if spec.required and key not in merged:
            article = "an" if box_type[0] in "aeiou" else "a"
            problems.append(doc.problem(here, f"{article} {box_type} box needs {key!r}"))
    if problems:
        raise InputError(problems)
    box_line, _ = doc.where(here, key=True)
    if base is not None:
        source = doc.path if props else base.source
    return Box(name, box_type, merged, source, lines, box_line)
