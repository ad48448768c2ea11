"""JSON Schemas for editors: ``eti-print schema --json-schema DIR``.

yaml-language-server (VS Code's YAML extension, and other editors) completes
keys and marks errors inline from a JSON Schema.  These are made from the same
specs the checkers use: the cerberus schemas of pack.yaml, the data files,
sheets, fonts and the game's settings (``schema.py``), and the box types of
``specs/boxes.yaml`` for layouts.  They are draft 2020-12.  They help while
typing; ``eti-print validate`` stays the judge (it also knows the checks
across files, the templates and the art).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DRAFT = "https://json-schema.org/draft/2020-12/schema"
_TYPES = {"string": "string", "integer": "integer", "number": "number", "float": "number",
          "boolean": "boolean", "list": "array", "dict": "object"}
#: A template in a string: evaluated per card, so any text may follow.
TEMPLATE = {"type": "string", "pattern": r"\{[{%]"}
LENGTH = {"type": "string",
          "pattern": r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*([mM][mM]|[cC][mM]|"
                     r"[iI][nN]|[pP][tT])\s*$"}


def _anchored(regex: str) -> str:
    """cerberus matches a whole value; a JSON Schema pattern may match anywhere."""
    return f"^(?:{regex})$"


def field_schema(rules: dict[str, Any]) -> dict[str, Any]:
    """One cerberus field (normalised, as ``Schema.cerberus``) as a JSON Schema."""
    out: dict[str, Any] = {}
    description = (rules.get("meta") or {}).get("description")
    if description:
        out["description"] = description
    rtype = rules.get("type")
    types = [rtype] if isinstance(rtype, str) else list(rtype or [])
    json_types = [_TYPES[t] for t in types if t in _TYPES]
    if rules.get("nullable"):
        json_types.append("null")
    if json_types:
        out["type"] = json_types[0] if len(json_types) == 1 else json_types
    if "allowed" in rules:
        if "list" in types:
            out.setdefault("items", {})["enum"] = list(rules["allowed"])
        else:
            out["enum"] = list(rules["allowed"])
    if isinstance(rules.get("regex"), str):
        out["pattern"] = _anchored(rules["regex"])
    for rule, by_type in (("minlength", {"string": "minLength", "list": "minItems",
                                         "dict": "minProperties"}),
                          ("maxlength", {"string": "maxLength", "list": "maxItems",
                                         "dict": "maxProperties"})):
        if rule in rules:
            for t in types or ("string", "list"):
                if t in by_type:
                    out[by_type[t]] = rules[rule]
    if rules.get("empty") is False:
        for t, key in (("string", "minLength"), ("list", "minItems"), ("dict", "minProperties")):
            if t in types:
                out.setdefault(key, 1)
    if "min" in rules:
        out["minimum"] = rules["min"]
    if "max" in rules:
        out["maximum"] = rules["max"]
    sub = rules.get("schema")
    if isinstance(sub, dict):
        if "list" in types:
            out["items"] = {**field_schema(sub), **out.get("items", {})}
        else:
            out.update(object_schema(sub))
    if isinstance(rules.get("keysrules"), dict):
        names = field_schema(rules["keysrules"])
        out["propertyNames"] = {k: v for k, v in names.items() if k != "description"}
    if isinstance(rules.get("valuesrules"), dict):
        out["additionalProperties"] = field_schema(rules["valuesrules"])
    return out


def object_schema(fields: dict[str, Any]) -> dict[str, Any]:
    """A mapping of fields: its properties, the required ones, nothing else."""
    out: dict[str, Any] = {
        "properties": {name: field_schema(rules) for name, rules in fields.items()},
        "additionalProperties": False,
    }
    required = [name for name, rules in fields.items() if rules.get("required", True)]
    if required:
        out["required"] = required
    return out


def file_schema(schema: Any, title: str) -> dict[str, Any]:
    """The JSON Schema of one YAML file checked by a cerberus ``Schema``."""
    return {"$schema": DRAFT, "title": title, "description": schema.description,
            "type": "object", **object_schema(schema.cerberus)}


def _range(limit: str | None) -> dict[str, Any]:
    """A number's range of specs/limits.yaml as JSON Schema bounds."""
    if limit is None:
        return {}
    from .limits import bounds
    low, high = bounds(limit)
    return {"minimum": low, "maximum": high}


def _prop(prop: Any) -> dict[str, Any]:
    kind = prop.type
    if kind == "length":
        body: dict[str, Any] = {"anyOf": [LENGTH, TEMPLATE]}
    elif kind == "colour":
        body = {"anyOf": [{"type": "string", "pattern": r"^(#[0-9A-Fa-f]{6}|none|)$"},
                          TEMPLATE]}
    elif kind in ("number", "integer"):
        body = {"anyOf": [{"type": kind, **_range(prop.limit)}, TEMPLATE]}
    elif kind == "boolean":
        body = {"type": "boolean"}
    elif kind == "dash":
        body = {"anyOf": [{"type": "number", "minimum": 0},
                          {"type": "array", "items": {"type": "number", "minimum": 0}}]}
    elif kind == "choice":
        body = {"enum": list(prop.allowed)}
    elif kind in ("text", "markup"):
        body = {"type": ["string", "number"]}
    else:                                   # font, art
        body = {"type": "string"}
    default = prop.default
    said = prop.description + (f" Default: {default}." if default is not None else "")
    return {"description": said, **body}


def layout_schema() -> dict[str, Any]:
    """Layouts: every box property of every type, each type refusing the others'."""
    from .layout import BOX_PROPS, BOX_TYPES, COMMON_PROPS, LAYOUT_DESCRIPTION
    props: dict[str, Any] = {name: _prop(p) for name, p in COMMON_PROPS.items()}
    for box in BOX_TYPES.values():
        for name, p in box.props.items():
            props.setdefault(name, _prop(p))
    box = {
        "type": "object",
        "description": "One box; its type says which properties it takes.",
        "properties": props,
        "additionalProperties": False,
        "allOf": [{"if": {"properties": {"type": {"const": name}}, "required": ["type"]},
                   "then": {"propertyNames": {"enum": sorted(BOX_PROPS[name])},
                            "description": BOX_TYPES[name].description}}
                  for name in BOX_TYPES],
    }
    from .layout import LAYOUT_KEY_DESCRIPTIONS as keys
    return {
        "$schema": DRAFT, "title": "eti-print layout", "description": LAYOUT_DESCRIPTION,
        "type": "object",
        "properties": {
            "description": {"type": "string", "description": keys["description"]},
            "extends": {"type": "string", "pattern": r"^[a-z0-9]+(-[a-z0-9]+)*$",
                        "description": keys["extends"]},
            "boxes": {"type": "object", "description": keys["boxes"],
                      "additionalProperties": box},
        },
        "required": ["boxes"],
        "additionalProperties": False,
    }


def pack_schemas(where: str | None) -> dict[str, tuple[dict[str, Any], list[str]]]:
    """Every JSON Schema of a pack, by file name: (the schema, the pack files it is for)."""
    from .reference import PackKinds
    from .schema import builtin_schema, load_schema
    kinds = PackKinds.open(where)
    pack = kinds.pack
    out: dict[str, tuple[dict[str, Any], list[str]]] = {
        "pack.schema.json": (file_schema(builtin_schema("pack"), "pack.yaml"), ["pack.yaml"]),
        "layout.schema.json": (layout_schema(), ["templates/layouts/*.yaml"]),
        "sheets.schema.json": (file_schema(builtin_schema("sheets"), "sheets.yaml"),
                               ["templates/sheets.yaml"]),
        "fonts.schema.json": (file_schema(builtin_schema("fonts"), "fonts.yaml"),
                              ["fonts/fonts.yaml"]),
    }
    for kind, (file, schema_path) in kinds.settings().items():
        schema = builtin_schema(schema_path.stem, schema_path.parent)
        out[f"{kind}.schema.json"] = (file_schema(schema, file), [file])
    sheets = {e["name"] for e in kinds.manifest.data["data"] if isinstance(e, dict)}
    for name, path in kinds.data.items():
        if not path.is_file():
            continue
        schema = load_schema(path, pack.display(path))
        files = [] if name in sheets else [f"cards/{name}.yaml"]
        out[f"data-{name}.schema.json"] = (file_schema(schema, f"cards/{name}.yaml"), files)
    return out


def write_schema_files(where: str | None, folder: Path) -> dict[Path, list[str]]:
    """Write every JSON Schema of a pack into ``folder``; return each file written with
    the pack files (globs) it is for."""
    from .output import write_text
    folder.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, (schema, files) in pack_schemas(where).items():
        write_text(folder / name, json.dumps(schema, indent=2) + "\n")
        written[folder / name] = files
    return written


def yaml_schemas(written: dict[Path, list[str]], key: Any = None) -> str:
    """The ``yaml.schemas`` editor setting (JSON) mapping schema files onto pack files;
    ``key(path)`` names each schema file (default: its absolute path)."""
    mapping = {(key(path) if key else str(path.resolve())): files
               for path, files in written.items() if files}
    return json.dumps({"yaml.schemas": mapping}, indent=2) + "\n"


def write_json_schemas(where: str | None, folder: Path) -> str:
    """Write every JSON Schema of a pack into ``folder``, and ``yaml-schemas.json``, the
    ``yaml.schemas`` setting that maps them onto the pack's files."""
    from .output import write_text
    schemas = write_schema_files(where, folder)
    write_text(folder / "yaml-schemas.json", yaml_schemas(schemas))
    return (f"wrote {len(schemas)} JSON Schemas to {folder}; for yaml-language-server, add "
            f"the \"yaml.schemas\" of {folder / 'yaml-schemas.json'} to your editor's "
            f"settings, or start a file with "
            f"# yaml-language-server: $schema={(folder / 'layout.schema.json').resolve()}")
