"""Schemas kept as data: cerberus schemas in ``cards/schemas/*.yaml``.

A schema file has a ``description`` and a ``schema`` (a cerberus schema of the
data file's top-level mapping).  Each field carries a one-line
``description``, shown by ``eti-print schema`` (``reference.py``); fields are required unless
they say ``required: false``; unknown keys are errors.  Validation is strict:
``True`` is not an integer and nothing is coerced.  Every error is located by
file, line, column and field path.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import cerberus
from cerberus import TypeDefinition
from cerberus import errors as cerr
from cerberus.schema import DefinitionSchema

from . import schema_rules, words
from .errors import InputError, Problem
from .suggest import did_you_mean
from .tracking import fingerprint, key_of
from .yamlload import Document, format_path, load

#: eti-print's own schemas (pack.yaml, sheet and board settings), kept as data too.
BUILTIN_SCHEMAS = Path(__file__).resolve().parent / "schemas"

#: Keys a schema field may use (a deliberately small subset of cerberus).
RULES = {"type", "schema", "allowed", "regex", "min", "max", "minlength", "maxlength",
         "required", "nullable", "empty", "keysrules", "valuesrules", "description"}


class StrictValidator(cerberus.Validator):
    """Cerberus with strict numbers (booleans are not integers or numbers) and regexes run
    on RE2, a linear-time engine: no pattern from a pack can backtrack for ever."""

    types_mapping = dict(cerberus.Validator.types_mapping)
    types_mapping["integer"] = TypeDefinition("integer", (int,), (bool,))
    types_mapping["number"] = TypeDefinition("number", (int, float), (bool,))
    types_mapping["float"] = TypeDefinition("float", (float,), ())

    def _validate_type(self, data_type, field, value):
        # cerberus's own rule, and no field of any type takes nan or an infinity
        before = len(self._errors)
        super()._validate_type(data_type, field, value)
        if isinstance(value, float) and not math.isfinite(value) and len(self._errors) == before:
            self._error(field, cerr.BAD_TYPE)
    _validate_type.__doc__ = cerberus.Validator._validate_type.__doc__

    def _validate_regex(self, pattern, field, value):
        """{'type': 'string'}"""
        if isinstance(value, str) and not schema_rules.linear_regex(pattern).fullmatch(value):
            self._error(field, cerr.REGEX_MISMATCH)


class _Checked(DefinitionSchema):
    """A schema whose rules ``_rules`` has already checked one by one
    (``schema_rules.check_rule``: every key of ``RULES``, its value's type and range,
    nested rules recursively), so cerberus' own self-check against its meta-schema,
    which costs more than validating all of a pack's data, would find nothing more."""

    def validate(self, schema: Any = None) -> None:
        return None


@cache
def _valid() -> Any:
    from .diskcache import Persistent
    return Persistent("valid", 16384)


_RULES_KEYS: dict[int, tuple[Any, str]] = {}


def _rules_key(schema: Schema) -> str:
    """A content hash of a schema's rules (once per schema object)."""
    found = _RULES_KEYS.get(id(schema))
    if found is None or found[0] is not schema:
        if len(_RULES_KEYS) >= 256:
            _RULES_KEYS.clear()
        found = _RULES_KEYS[id(schema)] = (schema, key_of(schema.cerberus))
    return found[1]


def _validator(fields: dict[str, Any]) -> StrictValidator:
    """A validator of ``fields`` (checked by ``_rules``), built once per schema."""
    validator = StrictValidator()
    validator.schema = _Checked(validator, fields)
    return validator


@dataclass(frozen=True)
class Schema:
    """One data file's schema: its description, the raw tree and the cerberus form."""

    name: str
    description: str
    fields: dict[str, Any]      # as written, with descriptions
    cerberus: dict[str, Any]    # normalised for the validator
    source: str
    validator: cerberus.Validator  # built once: cerberus checks the schema itself on creation


def _normalise(fields: dict[str, Any], doc: Document, path: tuple,
               problems: list[Problem]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, rules in fields.items():
        here = path + (name,)
        if not isinstance(rules, dict):
            problems.append(doc.problem(here, "a field's rules must be a mapping"))
            continue
        if not isinstance(rules.get("description"), str) or not rules["description"].strip():
            problems.append(doc.problem(here, "every field needs a one-line 'description'",
                                        key=True))
        out[name] = _rules(rules, doc, here, problems)
        out[name].setdefault("required", True)
    return out


def _rules(rules: dict[str, Any], doc: Document, path: tuple,
           problems: list[Problem]) -> dict[str, Any]:
    norm: dict[str, Any] = {}
    for key, value in rules.items():
        if key not in RULES:
            problems.append(doc.problem(path + (key,), f"unknown schema rule {key!r}", key=True,
                                        hint="rules are " + ", ".join(sorted(RULES))))
            continue
        problem = schema_rules.check_rule(key, value, rules)
        if problem:
            message, hint = problem
            problems.append(doc.problem(path + (key,), message, hint=hint))
            continue
        if key == "description":
            norm["meta"] = {"description": value}
        elif key == "schema" and isinstance(value, dict):
            if rules.get("type") == "list":
                norm["schema"] = _rules(value, doc, path + (key,), problems)
            else:
                norm["schema"] = _normalise(value, doc, path + (key,), problems)
        elif key in ("keysrules", "valuesrules") and isinstance(value, dict):
            norm[key] = _rules(value, doc, path + (key,), problems)
        else:
            norm[key] = value
    return norm


def load_schema(path: Path, shown: str) -> Schema:
    doc = load(path, shown)
    problems: list[Problem] = []
    data = doc.data
    if not isinstance(data, dict) or not isinstance(data.get("schema"), dict):
        raise InputError(doc.problem((), "a schema file needs a 'schema' mapping"))
    if not isinstance(data.get("description"), str):
        problems.append(doc.problem(("description",), "a schema file needs a 'description'"))
    extra = set(data) - {"description", "schema"}
    for key in sorted(extra, key=str):
        problems.append(doc.problem((key,), f"unknown key {key!r}", key=True))
    fields = _normalise(data["schema"], doc, ("schema",), problems)
    validator = None
    if not problems:
        try:
            validator = _validator(fields)
        except cerberus.SchemaError as exc:
            problems.append(doc.problem(("schema",), f"invalid schema: {exc}"))
    if problems or validator is None:
        raise InputError(problems)
    return Schema(path.stem, data.get("description", ""), data["schema"], fields, shown,
                  validator)


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _field_rules(schema: dict[str, Any], schema_path: tuple) -> dict[str, Any]:
    node: Any = schema
    for part in schema_path[:-1]:
        if not isinstance(node, dict) or part not in node:
            return {}
        node = node[part]
    return node if isinstance(node, dict) else {}


def _message(error: cerr.ValidationError, schema: dict[str, Any]) -> tuple[str, bool]:
    """A message for one cerberus error, and whether it is about the key itself."""
    rule, constraint, value = error.rule, error.constraint, error.value
    code = error.code
    if rule == "type":
        allowed = _field_rules(schema, tuple(error.schema_path)).get("allowed")
        if allowed:  # "must be one of I..V (got 6)" says more than "must be a string"
            rule, constraint = "allowed", allowed
    if code == cerr.REQUIRED_FIELD.code:
        return "required field is missing", False
    if code == cerr.UNKNOWN_FIELD.code:
        return "unknown field", True
    if rule == "type":
        return f"must be of type {constraint} (got {_describe(value)})", False
    if rule == "allowed":
        if isinstance(value, list):
            bad = [v for v in value if v not in constraint]
            return (f"must be one of {', '.join(map(str, constraint))} "
                    f"(got {', '.join(map(_describe, bad))})"), False
        return f"must be one of {', '.join(map(str, constraint))} (got {_describe(value)})", False
    if rule == "regex":
        return f"{words.must_match(constraint)} (got {_describe(value)})", False
    if rule == "min":
        return f"must be at least {constraint} (got {_describe(value)})", False
    if rule == "max":
        return f"must be at most {constraint} (got {_describe(value)})", False
    if rule == "minlength":
        return f"must have at least {constraint} {words.unit(value)} (got {len(value)})", False
    if rule == "maxlength":
        return f"must have at most {constraint} {words.unit(value)} (got {len(value)})", False
    if rule == "empty":
        return "must not be empty", False
    if rule == "nullable":
        return "must not be null", False
    return f"fails rule {rule!r} ({constraint!r})", False


def _leaves(errors: list[cerr.ValidationError]):
    for error in errors:
        if error.is_group_error or error.is_logic_error:
            yield from _leaves(error.child_errors or [])
        else:
            yield error


def validate(doc: Document, schema: Schema) -> list[Problem]:
    """Check a loaded data file against its schema; return located problems."""
    if not isinstance(doc.data, dict):
        return [doc.problem((), "the file must hold a mapping of keys to values")]
    # a value this schema passed in any process (by content: the parsed value and the
    # rules) passes again; only a pass is kept, so problems are always found afresh
    # (with the caches off, as ``--no-cache``, nothing is kept: no key is computed)
    from .diskcache import enabled
    key = hashlib.sha256(f"{fingerprint(doc.data)}\0{_rules_key(schema)}".encode()
                         ).hexdigest() if enabled() else None
    if key is not None and _valid().get(key):
        return []
    validator = schema.validator
    # no rule of ``RULES`` normalises (no defaults, coercion or renaming), so the
    # document is validated as it is, without cerberus' copy of it
    if validator.validate(doc.data, normalize=False):
        if key is not None:
            _valid().keep(key, True)
        return []
    problems = []
    for error in _leaves(list(validator._errors)):
        path = tuple(error.document_path)
        message, on_key = _message(error, schema.cerberus)
        if error.code == cerr.REQUIRED_FIELD.code:
            line, col = doc.where(path[:-1])
            problems.append(Problem(f"required field {path[-1]!r} is missing", doc.path, line,
                                    col, format_path(path[:-1]) or None))
            continue
        hint = None
        if error.code == cerr.UNKNOWN_FIELD.code:
            hint = did_you_mean(path[-1], _allowed_keys(schema.cerberus, path[:-1]))
        problems.append(doc.problem(path, message, key=on_key, hint=hint))
    return problems


def _allowed_keys(fields: dict[str, Any], path: tuple) -> list[str]:
    """The field names the schema allows in the mapping at ``path`` of a document."""
    node: Any = {"type": "dict", "schema": fields}
    for part in path:
        if not isinstance(node, dict):
            return []
        if isinstance(part, int):          # an item of a list: the list's item rules
            node = node.get("schema")
        elif isinstance(node.get("schema"), dict) and node.get("type") != "list":
            node = node["schema"].get(part)
        else:
            node = node.get("valuesrules")
    if not isinstance(node, dict) or not isinstance(node.get("schema"), dict):
        return []
    return [str(k) for k in node["schema"]]


@cache
def builtin_schema(name: str, folder: Path = BUILTIN_SCHEMAS) -> Schema:
    """One of eti-print's own schemas (or a game's, from its ``folder``), loaded once per
    process (cerberus checks a schema on every Validator it builds, so reloading it on
    each build is slow)."""
    path = folder / f"{name}.yaml"
    shown = f"eti_print/{path.relative_to(BUILTIN_SCHEMAS.parent).as_posix()}" \
        if path.is_relative_to(BUILTIN_SCHEMAS.parent) else str(path)
    return load_schema(path, shown)


def load_checked(path: Path, shown: str, schema_name: str,
                 folder: Path = BUILTIN_SCHEMAS) -> Document:
    """Load a settings file and check it against a built-in schema; raise every problem."""
    doc = load(path, shown)
    problems = validate(doc, builtin_schema(schema_name, folder))
    if problems:
        raise InputError(problems)
    return doc


_MERGED: dict[tuple[str, str], Schema] = {}


def with_sections(core: Schema, extra: Schema) -> Schema:
    """``core`` with ``extra``'s top-level fields added (a game's own pack.yaml sections),
    one validator built once per pair."""
    key = (core.source, extra.source)
    found = _MERGED.get(key)
    if found is None:
        cerberus_form = {**core.cerberus, **extra.cerberus}
        found = _MERGED[key] = Schema(core.name, core.description,
                                      {**core.fields, **extra.fields}, cerberus_form,
                                      core.source, _validator(cerberus_form))
    return found
