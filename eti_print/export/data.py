"""``export data``: every list data file of a pack as a spreadsheet.

A list data file is one whose schema has a single top-level field, a list of
mappings (``projects.projects``); its items become the rows of
``data/NAME.csv`` or ``data/NAME.xlsx`` (one sheet, named NAME), columns in
schema order, nested fields as dotted headers (``stats.move``), list fields as
comma-separated cells.  The xlsx carries each field's description as a comment
on its header, a drop-down of the allowed values where the schema gives them,
and a frozen header row.  ``eti_print.spreadsheet`` reads either back
(``data: [{name: projects, file: projects.csv, list: projects}]``), and
``import data`` writes one back into its YAML file.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from ..errors import InputError, Problem
from ..spreadsheet import MAX_ROWS, column_letter, columns

FORMATS = ("csv", "xlsx")


#: Top-level fields about a data file rather than rows of it: a file's notes of what
#: this edition designed (``reconstructed:``) do not stop it being a list file.
META_FIELDS = ("reconstructed",)


def list_key(schema: Any) -> str | None:
    """The one list field of a list data file's schema, else None."""
    fields = {k: v for k, v in schema.fields.items() if k not in META_FIELDS}
    if len(fields) != 1:
        return None
    (key,) = fields
    return key if columns(fields, key) else None


def _cell(value: Any, name: str, where: str) -> Any:
    if value is None:
        return None
    if isinstance(value, list):
        parts = []
        for one in value:
            if isinstance(one, (dict, list)) or "," in str(one):
                raise InputError(Problem(f"{name}: a list item {one!r} cannot be written in a "
                                         "comma-separated cell", where))
            parts.append(_cell(one, name, where))
        return ", ".join("true" if p is True else "false" if p is False else str(p)
                         for p in parts)
    if isinstance(value, dict):
        raise InputError(Problem(f"{name}: a mapping cannot be written in one cell", where))
    return value


def _get(item: dict[str, Any], dotted: str) -> Any:
    node: Any = item
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def table(items: list[Any], schema: Any, key: str, where: str) -> tuple[list[str], list[list]]:
    """The header and the rows of cells (None for empty) of a list's items."""
    cols = columns(schema.fields, key)
    header = [name for name, _ in cols]
    rows = []
    for item in items:
        if not isinstance(item, dict):
            raise InputError(Problem("every item must be a mapping", where))
        rows.append([_cell(_get(item, name), name, where) for name in header])
    return header, rows


def to_csv(header: list[str], rows: list[list]) -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if v is None else "true" if v is True else "false" if v is False
                         else v for v in row])
    return out.getvalue().encode("utf-8")


def to_xlsx(header: list[str], rows: list[list], schema: Any, key: str, title: str) -> bytes:
    import openpyxl
    from openpyxl.comments import Comment
    from openpyxl.worksheet.datavalidation import DataValidation
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = title[:31]
    rules = dict(columns(schema.fields, key))
    sheet.append(header)
    for c, name in enumerate(header, start=1):
        cell = sheet.cell(row=1, column=c)
        described = rules[name].get("description")
        if described:
            cell.comment = Comment(str(described), "eti-print")
        sheet.column_dimensions[column_letter(c)].width = max(10, min(40, len(name) + 4))
    for r, row in enumerate(rows, start=2):
        for c, value in enumerate(row, start=1):
            if value is None:
                continue
            cell = sheet.cell(row=r, column=c, value=value)
            if isinstance(value, str) and value.startswith("="):
                cell.data_type = "s"   # text, never a formula
    last = max(len(rows) + 1, 2)
    for c, name in enumerate(header, start=1):
        field = rules[name]
        allowed = field.get("allowed")
        if allowed is None and field.get("type") == "boolean":
            allowed = ["true", "false"]
        if not allowed or field.get("type") == "list":
            continue
        listed = ",".join(str(v) for v in allowed)
        if len(listed) > 250 or any("," in str(v) or '"' in str(v) for v in allowed):
            continue
        dv = DataValidation(type="list", formula1=f'"{listed}"', allow_blank=True)
        dv.error = f"{name} must be one of {', '.join(map(str, allowed))}"
        sheet.add_data_validation(dv)
        dv.add(f"{column_letter(c)}2:{column_letter(c)}{max(last, MAX_ROWS + 1)}")
    sheet.freeze_panes = "A2"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def export_data(ds: Any, fmt: str) -> list[tuple[str, bytes]]:
    """``(file name, bytes)`` for every list data file of a loaded Dataset."""
    if fmt not in FORMATS:
        from ..errors import UsageError
        raise UsageError(f"--format must be csv or xlsx for export data (got {fmt!r})")
    files = []
    for name, doc in ds.docs.items():
        schema = ds.schemas.get(name)
        key = list_key(schema) if schema else None
        if key is None or not isinstance(doc.data, dict):
            continue
        header, rows = table(doc.data.get(key) or [], schema, key, doc.path)
        if fmt == "csv":
            data = to_csv(header, rows)
        else:
            data = to_xlsx(header, rows, schema, key, name)
        files.append((f"{name}.{fmt}", data))
    return files


# -- import data: a sheet back into its YAML file ---------------------------------------

#: ruamel.yaml indent settings tried in turn: the first that reproduces the file as it
#: is (before any change) is used, so unchanged rows keep their bytes.
_INDENTS = ((2, 4, 2), (2, 2, 0), (4, 4, 2), (2, 2, 2), (4, 6, 4))


def _ruamel(indent: tuple[int, int, int]) -> Any:
    from ruamel.yaml import YAML
    y = YAML()
    y.preserve_quotes = True
    y.width = 4096
    y.indent(mapping=indent[0], sequence=indent[1], offset=indent[2])
    return y


def _dump(y: Any, data: Any) -> str:
    out = io.StringIO()
    y.dump(data, out)
    return out.getvalue()


def _kind(value: Any) -> str:
    if isinstance(value, bool) or type(value).__name__ == "ScalarBoolean":
        return "bool"
    for kind in (int, float, str):
        if isinstance(value, kind):
            return kind.__name__
    return type(value).__name__


def _same(old: Any, new: Any, *, lenient: bool = False) -> bool:
    """Values equal with their types (``1`` is not ``True``, ``1`` is not ``1.0``);
    ``lenient``: an empty list equals an absent field."""
    if isinstance(old, dict) and isinstance(new, dict):
        if lenient:
            old = {k: v for k, v in old.items() if v != []}
            new = {k: v for k, v in new.items() if v != []}
        return old.keys() == new.keys() and all(_same(old[k], new[k], lenient=lenient)
                                                for k in old)
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(_same(a, b, lenient=lenient)
                                            for a, b in zip(old, new))
    return _kind(old) == _kind(new) and old == new


def _fresh(value: Any, like: Any = None) -> Any:
    """A plain value as a ruamel node styled like ``like`` (the value it replaces, or the
    row before a new one): flow style (``[a, b]``, ``{k: v}``) and quotes as it had."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import (
        DoubleQuotedScalarString,
        ScalarString,
        SingleQuotedScalarString,
    )
    if isinstance(value, list):
        seq = CommentedSeq(_fresh(v) for v in value)
        flow = like.fa.flow_style() if isinstance(like, CommentedSeq) else True
        if flow:
            seq.fa.set_flow_style()
        return seq
    if isinstance(value, dict):
        m = CommentedMap()
        for k, v in value.items():
            m[k] = _fresh(v, like.get(k) if isinstance(like, dict) else None)
        if isinstance(like, CommentedMap) and like.fa.flow_style():
            m.fa.set_flow_style()
        return m
    if isinstance(value, str) and isinstance(like, ScalarString) and \
            type(like) in (DoubleQuotedScalarString, SingleQuotedScalarString):
        return type(like)(value)   # "1" stays "1", not '1'
    return value


def _merge(old: Any, new: dict[str, Any]) -> None:
    """Update ruamel mapping ``old`` to hold ``new``'s values, touching only what changed.
    A key the row does not have is removed (the sheet is the data: a missing column is an
    absent field), but an empty list stays (an empty cell reads as no list)."""
    for key, value in new.items():
        if key in old and isinstance(old[key], dict) and isinstance(value, dict):
            _merge(old[key], value)
        elif key not in old or not _same(old[key], value):
            old[key] = _fresh(value, old.get(key))
    for key in list(old):
        if key not in new and not (isinstance(old[key], list) and not old[key]):
            del old[key]


def import_data(sheet_arg: str, into: str, pack_arg: str | None = None) -> str:
    """``import data FILE --into cards/NAME.yaml``: the sheet's rows replace the list of
    the YAML data file, unchanged rows byte for byte; nothing is written unless the
    result passes the schema and the pack's checks."""
    import time
    from pathlib import Path

    from ..dataset import load_dataset, run_checks
    from ..errors import UsageError
    from ..files import read
    from ..output import write_bytes
    from ..pack import Pack
    from ..schema import load_schema, validate
    from ..spreadsheet import SUFFIXES, load_sheet, split_ref
    from ..yamlload import MAX_FILE_BYTES, loads
    started = time.perf_counter()
    pack = Pack.open(pack_arg)
    file, sheet = split_ref(sheet_arg)
    source = Path(file)
    if source.suffix.lower() not in SUFFIXES:
        raise UsageError(f"{file} is not a .csv, .tsv or .xlsx file")
    target = Path(into)
    if target.suffix != ".yaml":
        raise UsageError(f"--into must name a data file cards/NAME.yaml (got {into!r})")
    if not target.is_absolute() and not target.exists() and (pack.root / target).exists():
        target = pack.root / target
    target = target.resolve()
    if target.parent != pack.cards_dir.resolve() or not target.is_file():
        raise UsageError(f"--into must name an existing data file in {pack.cards_dir} "
                         f"(got {into!r})")
    name = target.stem
    schema_path = pack.cards_dir / "schemas" / f"{name}.yaml"
    if not schema_path.is_file():
        raise UsageError(f"no schema {pack.display(schema_path)} for {name}.yaml")
    schema = load_schema(schema_path, pack.display(schema_path))
    key = list_key(schema)
    if key is None:
        raise UsageError(f"{name}.yaml is not a list data file (its schema has more than "
                         "one top-level field, or no list of mappings)")
    shown = sheet_arg
    doc = load_sheet(source, file, sheet, key, schema.fields)
    problems = validate(doc, schema)
    if problems:
        raise InputError(problems)
    # the pack's own checks, with the imported rows in place of the file's
    from ..games import manifest_schema
    ds = load_dataset(pack, checks=False, schema_for=manifest_schema)
    original = ds.docs.get(name)
    ds.docs[name] = doc
    problems = run_checks(ds)
    if problems:
        raise InputError(problems)
    text = read(target, pack.display(target), MAX_FILE_BYTES).decode("utf-8")   # the gate
    # the file as the pack loaded it (unless the pack reads this data from a sheet)
    current = original
    if current is None or current.path != pack.display(target):
        current = loads(text, pack.display(target))
    if isinstance(current.data, dict) and _same(current.data.get(key), doc.data[key],
                                                lenient=True):
        return (f"unchanged: {pack.display(target)} ({len(doc.data[key])} rows from {shown}) "
                f"in {time.perf_counter() - started:.2f} s")
    y, tree = None, None
    for indent in _INDENTS:
        candidate = _ruamel(indent)
        loaded = candidate.load(text)
        if _dump(candidate, loaded) == text:
            y, tree = candidate, loaded
            break
    if y is None:
        y = _ruamel(_INDENTS[0])
        tree = y.load(text)
    if not isinstance(tree, dict) or not isinstance(tree.get(key), list):
        raise InputError(Problem(f"{key!r} is not a list in this file", pack.display(target)))
    items = tree[key]
    rows = doc.data[key]
    for index, row in enumerate(rows):
        if index < len(items):
            _merge(items[index], row)
        else:
            items.append(_fresh(row, items[-1] if len(items) else None))
    while len(items) > len(rows):
        del items[len(rows)]
    out = _dump(y, tree)
    # what ruamel wrote must read back (strictly) as exactly the sheet's rows
    check = loads(out, pack.display(target))
    if not isinstance(check.data, dict) or not _same(check.data.get(key), rows,
                                                          lenient=True):
        raise InputError(Problem("the YAML written would not read back as the sheet's rows; "
                                 "nothing was written", pack.display(target)))
    problems = validate(check, schema)
    if problems:
        raise InputError(problems)
    changed = out != text
    if changed:
        write_bytes(target, out.encode("utf-8"))
    return (f"{'wrote' if changed else 'unchanged:'} {pack.display(target)} ({len(rows)} rows "
            f"from {shown}) in {time.perf_counter() - started:.2f} s")
