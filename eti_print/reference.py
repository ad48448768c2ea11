"""The designer's reference: ``eti-print schema`` and ``docs/reference.md``.

Everything here is read from the specs the checkers use, so it cannot drift:

* data files and ``pack.yaml``, ``sheets.yaml``, ``fonts.yaml`` and a game's
  settings (E.T.I.'s ``boards.yaml``): their cerberus schemas (``schema.py``),
  with the counts and other checks ``pack.yaml`` sets on each list, located;
* layouts: the box types of ``specs/boxes.yaml``, which ``layout.py`` checks
  every layout against;
* the document markup: ``render/document/elements.py`` (what each element holds,
  its attributes) with ``specs/documents.yaml`` saying each in words;
* the ranges of values and the budgets of a build: ``specs/limits.yaml``
  (``limits.py``), which every check of a number reads;
* the two markup levels and the template names and filters:
  ``specs/markup.yaml`` and ``specs/templates.yaml``, checked against the code by
  ``tests/test_reference.py``.

A kind is a ``Section`` of nested ``Entry``s; ``text`` renders it for the
terminal and ``markdown`` for ``docs/reference.md``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from . import words
from .errors import UsageError

SPECS = Path(__file__).resolve().parent / "specs"
#: The kinds that are not data files, in the order they are listed.
KINDS = ("pack", "layout", "sheets", "fonts", "boards", "documents", "markup", "templates",
         "limits")
ALIASES = {"references": "documents", "layouts": "layout", "document": "documents",
           "template": "templates", "filters": "templates", "budgets": "limits"}


@dataclass
class Entry:
    """One field, property, element or name: what it is, its constraints, what it means."""

    name: str
    kind: str = ""
    notes: list[str] = field(default_factory=list)
    description: str = ""
    children: list[Entry] = field(default_factory=list)


@dataclass
class Section:
    kind: str
    title: str
    description: str
    entries: list[Entry]


@cache
def spec(name: str) -> dict[str, Any]:
    """One of the reference's own spec files (``specs/NAME.yaml``)."""
    return yaml.safe_load((SPECS / f"{name}.yaml").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------
# Schemas (data files, pack.yaml, sheets, fonts, game settings)


def _checks_by_list(manifest: Any) -> dict[str, list[str]]:
    """What pack.yaml's ``checks:`` say of each list, in words, with their lines."""
    out: dict[str, list[str]] = {}
    for i, check in enumerate((manifest.data or {}).get("checks") or []):
        if not isinstance(check, dict):
            continue
        line, _ = manifest.where(("checks", i))
        at = f"({manifest.path}:{line})"
        key = check.get("key")
        if "count" in check and "equals" in check:
            if "sum" in check:
                said = f"its items' {check['sum']} adds up to exactly {check['equals']} {at}"
            else:
                said = f"exactly {check['equals']} items {at}"
            out.setdefault(check["count"], []).append(said)
        for kind, said in (("unique", f"each item's {key} is unique"),
                           ("ref", f"each item's {key} names an id of {check.get('to')}"),
                           ("art", f"each item's {key} names art in templates/art/"),
                           ("allowed", f"each item's {key} is one of "
                                       + ", ".join(map(str, check.get("values") or []))),
                           ("file", f"each item's {key} names a file in "
                                    f"{check.get('base') or 'the pack'}")):
            if kind in check:
                out.setdefault(check[kind], []).append(f"{said} {at}")
    return out


def _schema_entries(fields: dict[str, Any], checks: dict[str, list[str]],
                    prefix: str) -> list[Entry]:
    return [_schema_entry(name, rules, checks, f"{prefix}.{name}" if prefix else name)
            for name, rules in fields.items()]


def _schema_entry(name: str, rules: dict[str, Any], checks: dict[str, list[str]],
                  ref: str) -> Entry:
    rtype = rules.get("type")
    entry = Entry(name, words.type_words(rtype), words.constraints(rules),
                  str(rules.get("description", "")))
    entry.notes.extend(checks.get(ref, []))
    sub = rules.get("schema")
    types = rtype if isinstance(rtype, list) else [rtype]
    if isinstance(sub, dict):
        if "list" in types:
            entry.children.append(_item_entry("each item", sub, checks, ref))
        else:
            entry.children.extend(_schema_entries(sub, checks, ref))
    for key, label in (("keysrules", "each key"), ("valuesrules", "each value")):
        if isinstance(rules.get(key), dict):
            entry.children.append(_item_entry(label, rules[key], checks, ref))
    return entry


def _item_entry(label: str, rules: dict[str, Any], checks: dict[str, list[str]],
                ref: str) -> Entry:
    item = _schema_entry(label, dict(rules, required=None), checks, "")
    item.notes = [n for n in item.notes if n not in ("required", "optional")]
    sub = rules.get("schema")
    rtype = rules.get("type")
    types = rtype if isinstance(rtype, list) else [rtype]
    if isinstance(sub, dict) and "dict" in types:
        item.children = _schema_entries(sub, checks, ref)
    return item


def schema_section(kind: str, title: str, schema: Any,
                   checks: dict[str, list[str]] | None = None,
                   prefix: str = "") -> Section:
    return Section(kind, title, schema.description,
                   _schema_entries(schema.fields, checks or {}, prefix))


# ---------------------------------------------------------------------------
# Layouts, documents, markup, templates


def _prop_entry(prop: Any) -> Entry:
    kinds = {"length": "length", "colour": "colour", "number": "number",
             "integer": "whole number", "boolean": "true or false", "text": "template",
             "markup": "markup", "font": "font role", "art": "art id",
             "dash": "number or list of numbers", "choice": "text"}
    notes = []
    if prop.allowed:
        notes.append("one of " + ", ".join(prop.allowed))
    if prop.type == "length":
        notes.append("with a unit, may be negative" if prop.signed else "with a unit")
    if prop.limit:
        from . import limits
        notes.append(limits.shown(prop.limit))
    if prop.required:
        notes.append("required")
    elif prop.default is not None:
        default = str(prop.default).lower() if isinstance(prop.default, bool) else prop.default
        notes.append(f"default {default}")
    else:
        notes.append("optional")
    return Entry(prop.name, kinds.get(prop.type, prop.type), notes, prop.description)


def layout_section() -> Section:
    from .layout import (
        BOX_TYPES,
        COMMON_PROPS,
        LAYOUT_DESCRIPTION,
        LAYOUT_KEY_DESCRIPTIONS,
    )
    keys = [Entry(name, "mapping" if name == "boxes" else "text",
                  ["required"] if name == "boxes" else ["optional"], text)
            for name, text in LAYOUT_KEY_DESCRIPTIONS.items()]
    common = Entry("every box", "", [], "Properties every box type takes.",
                   [_prop_entry(p) for p in COMMON_PROPS.values()])
    types = [Entry(name, "box type", [], t.description, [_prop_entry(p) for p in t.props.values()])
             for name, t in BOX_TYPES.items()]
    intro = (f"{LAYOUT_DESCRIPTION} Any string property holding {{{{ or {{% is a template "
             f"evaluated per card (see templates). Lengths take a unit: mm, cm, in or pt.")
    return Section("layout", "templates/layouts/NAME.yaml", intro, keys + [common] + types)


def documents_section(extra: dict[str, Any] | None = None) -> Section:
    from .render.document.elements import _ONLY_IN as ONLY_IN
    from .render.document.elements import BLOCKS, CHILDREN, EMPTY, INLINE, SPECS
    said = spec("documents")
    holds = {BLOCKS: "block elements", INLINE: "inline markup", EMPTY: "nothing (<x/>)"}
    entries = []
    for tag, element in SPECS.items():
        text = said["elements"][tag]
        notes = ["holds " + (", ".join(f"<{c}>" for c in element.children)
                             if element.content == CHILDREN else holds[element.content])]
        if element.top_level:
            notes.append("only directly inside <document>")
        if tag in ONLY_IN:
            notes.append("only inside " + " or ".join(f"<{p}>" for p in ONLY_IN[tag]))
        attrs = [Entry(a, "attribute", ["required" if a in element.required else "optional"],
                       text["attrs"][a]) for a in element.attrs]
        entries.append(Entry(f"<{tag}>", "element", notes, text["description"], attrs))
    for tag, text in (extra or {}).items():
        entries.append(Entry(f"<{tag}>", "element", ["added by the pack's game"], text))
    return Section("documents", "documents: templates (document markup)",
                   " ".join(said["description"].split()), entries)


def markup_section() -> Section:
    said = spec("markup")
    short = said["shorthand"]
    inline = said["inline"]
    entries = [
        Entry("shorthand", "card text", [], short["description"],
              [Entry(form, "", [], text) for form, text in short["forms"].items()]),
        Entry("inline markup", "XML", [], inline["description"],
              [Entry(f"<{tag}>", "tag", [], text) for tag, text in inline["tags"].items()]
              + [Entry("entities", "", [], inline["entities"])]),
    ]
    return Section("markup", "card text and inline markup",
                   " ".join(said["description"].split()), entries)


def limits_section() -> Section:
    """The ranges of values and the budgets of ``specs/limits.yaml``."""
    from . import limits
    values = [Entry(name, "range", [limits.shown(name)], spec["description"])
              for name, spec in limits.VALUES.items()]
    budgets = [Entry(name, "budget", [f"at most {spec['max']:,}".replace(",", " ")],
                     spec["description"]) for name, spec in limits.BUDGETS.items()]
    return Section("limits", "the ranges of values and the budgets of a build",
                   " ".join(limits.DESCRIPTION.split()),
                   [Entry("ranges", "", [], "Every such value outside its range is an error "
                          "naming its file, line and field.", values),
                    Entry("budgets", "", [], "What one build may spend; past a budget the "
                          "build stops with a message naming what ran over.", budgets)])


def templates_section(game: Any = None) -> Section:
    said = dict(spec("templates"))
    groups = [("variables", "names every template sees"),
              ("job_names", "names of what a template draws"),
              ("filters", "filters, beside jinja2's own")]
    if game is not None and game.template_help():
        said["game"] = game.template_help()
        groups.insert(1, ("game", f"names the {game.name} game adds"))
    entries = [Entry(title, "", [], "", [Entry(name, "", [], text)
                                         for name, text in said[key].items()])
               for key, title in groups]
    return Section("templates", "jinja2 templates", " ".join(said["description"].split())
                   + " The pack's game may add names of its own.", entries)


# ---------------------------------------------------------------------------
# A pack's kinds


@dataclass
class PackKinds:
    """The kinds one pack has: its data files and the fixed ones."""

    pack: Any
    manifest: Any
    data: dict[str, Path]          # data file name -> its schema file
    game: Any

    @classmethod
    def open(cls, where: str | None) -> PackKinds:
        from .dataset import load_manifest
        from .pack import Pack
        pack = Pack.open(where)
        from .games import manifest_schema
        manifest = load_manifest(pack, manifest_schema)
        data = {}
        for entry in manifest.data["data"]:
            name = entry["name"] if isinstance(entry, dict) else entry
            data[name] = pack.cards_dir / "schemas" / f"{name}.yaml"
        game = None
        if manifest.data.get("rules"):
            from .games import get_game
            game = get_game(manifest.data["rules"])
        return cls(pack, manifest, data, game)

    def kinds(self) -> list[str]:
        fixed = [k for k in KINDS if k != "boards" or self.settings()]
        return list(self.data) + [k for k in fixed if k not in self.data]

    def settings(self) -> dict[str, tuple[str, Path]]:
        return self.game.settings_schemas() if self.game is not None else {}

    def section(self, kind: str) -> Section:
        from .schema import builtin_schema, load_schema
        if kind in self.data:
            path = self.data[kind]
            if not path.is_file():
                raise UsageError(f"{kind}: no schema {self.pack.display(path)}")
            return schema_section(kind, f"cards/{kind}.yaml",
                                  load_schema(path, self.pack.display(path)),
                                  _checks_by_list(self.manifest), kind)
        kind = ALIASES.get(kind, kind)
        if kind == "pack":
            return schema_section("pack", "pack.yaml", builtin_schema("pack"))
        if kind == "sheets":
            return schema_section("sheets", "templates/sheets.yaml", builtin_schema("sheets"))
        if kind == "fonts":
            return schema_section("fonts", "fonts/fonts.yaml", builtin_schema("fonts"))
        if kind in self.settings():
            file, schema = self.settings()[kind]
            return schema_section(kind, file, builtin_schema(schema.stem, schema.parent))
        if kind == "layout":
            return layout_section()
        if kind == "documents":
            extra = self.game.document_element_help() if self.game is not None else {}
            return documents_section(extra)
        if kind == "markup":
            return markup_section()
        if kind == "templates":
            return templates_section(self.game)
        if kind == "limits":
            return limits_section()
        import difflib
        close = difflib.get_close_matches(kind, self.kinds(), n=1)
        raise UsageError(f"no kind {kind!r}" + (f" (did you mean {close[0]}?)" if close else "")
                         + f"; kinds are {', '.join(self.kinds())}")

    def summary(self, kind: str) -> str:
        if kind in self.data:
            path = self.data[kind]
            from .schema import load_schema
            said = load_schema(path, self.pack.display(path)).description if path.is_file() \
                else "(no schema)"
            return f"cards/{kind}.yaml: {said}"
        if kind in self.settings():
            return f"{self.settings()[kind][0]}: the {self.game.name} game's settings"
        return SUMMARIES[kind]


SUMMARIES = {
    "pack": "pack.yaml: the data files, the checks and every output",
    "layout": "templates/layouts/*.yaml: box types, properties, defaults, extends, when, repeat",
    "sheets": "templates/sheets.yaml: piece sizes, bleed and crop marks",
    "fonts": "fonts/fonts.yaml: font roles and their files",
    "documents": "the document markup of rules references: elements and attributes",
    "markup": "card text: the shorthand and the inline markup",
    "templates": "template variables and filters",
    "limits": "the range of every number a pack gives and the budgets of a build",
}


# ---------------------------------------------------------------------------
# Rendering


def _head(entry: Entry) -> str:
    said = "; ".join(x for x in (entry.kind, *entry.notes) if x)
    return f"{entry.name}: {said}" if said else entry.name


def text(section: Section) -> str:
    """A kind for the terminal: ``name: type; constraints`` and its description below."""
    lines = [*_wrap(f"{section.title}: {section.description}", ""), ""]

    def walk(entries: list[Entry], depth: int) -> None:
        for entry in entries:
            pad = "  " * depth
            lines.append(pad + _head(entry))
            if entry.description:
                lines.extend(_wrap(entry.description, pad + "    "))
            walk(entry.children, depth + 1)

    walk(section.entries, 0)
    return "\n".join(lines).rstrip()


def _wrap(text: str, indent: str, width: int = 88) -> list[str]:
    import textwrap
    if not text:
        return []
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent,
                         break_on_hyphens=False, break_long_words=False)


def _md(text: str) -> str:
    return text.replace("<", "&lt;").replace("*", "\\*").replace("_", "\\_")


def markdown(section: Section) -> str:
    """A kind for ``docs/reference.md``: a heading and a nested list."""
    lines = [f"## `{section.kind}`: {_md(section.title)}", "", _md(section.description), ""]

    def walk(entries: list[Entry], depth: int) -> None:
        for entry in entries:
            said = "; ".join(x for x in (entry.kind, *entry.notes) if x)
            head = f"**{_md(entry.name)}**" + (f" ({_md(said)})" if said else "")
            desc = f": {_md(entry.description)}" if entry.description else ""
            lines.append(f"{'  ' * depth}- {head}{desc}")
            walk(entry.children, depth + 1)

    walk(section.entries, 0)
    return "\n".join(lines).rstrip() + "\n"


def listing(kinds: PackKinds) -> str:
    rows = [(k, kinds.summary(k)) for k in kinds.kinds()]
    width = max(len(k) for k, _ in rows)
    return "\n".join([f"kinds of the pack at {kinds.pack.root} (eti-print schema [PACK] KIND):"]
                     + [f"  {k.ljust(width)}  {s}" for k, s in rows])


REGENERATE = "python -m eti_print schema eti --markdown > docs/reference.md"


def reference_markdown(where: str | None = None) -> str:
    """The whole reference of a pack (``docs/reference.md`` is E.T.I.'s)."""
    kinds = PackKinds.open(where)
    order = [k for k in kinds.kinds() if k not in kinds.data] + list(kinds.data)
    parts = ["# eti-print reference", "",
             f"Generated from the specs the checkers use; do not edit. Regenerate with "
             f"`{REGENERATE}` (`tests/test_reference.py` fails when this file is stale). "
             f"The same text, for any pack: `eti-print schema [PACK] [KIND]`.", "",
             "Kinds: " + ", ".join(f"`{k}`" for k in order) + ".", ""]
    for kind in order:
        parts.append(markdown(kinds.section(kind)))
    return "\n".join(parts)


# ---------------------------------------------------------------------------
# The command


def _is_pack(arg: str) -> bool:
    from .pack import bundled_pack
    path = Path(arg)
    if (path / "pack.yaml").is_file() or arg in (".", "..") or "/" in arg or os.sep in arg:
        return True
    return not path.exists() and bundled_pack(arg) is not None


def split_args(first: str | None, second: str | None,
               pack_option: str | None) -> tuple[str | None, str | None]:
    """``schema [PACK] [KIND]`` (or the old ``schema [KIND] --pack PACK``): (pack, kind).
    One argument is a pack when it is a pack folder, a path or a bundled pack's name."""
    if pack_option is not None:
        if second is not None:
            raise UsageError("give the pack once: eti-print schema [PACK] [KIND]")
        return pack_option, first
    if second is not None or first is None:
        return first, second
    return (first, None) if _is_pack(first) else (None, first)


def command(where: str | None, kind: str | None, *, as_markdown: bool = False) -> str:
    """``eti-print schema``: one kind, or the list of kinds (``--markdown``: all of them)."""
    kinds = PackKinds.open(where)
    if kind is None:
        return reference_markdown(where).rstrip() if as_markdown else listing(kinds)
    section = kinds.section(kind)
    return markdown(section).rstrip() if as_markdown else text(section)
