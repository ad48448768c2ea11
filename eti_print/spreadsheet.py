"""Spreadsheet data files: CSV, TSV and XLSX sheets read as a list of a data file.

A pack.yaml ``data:`` entry ``{name: projects, file: projects.csv, list: projects}``
makes the sheet's rows the list ``projects.projects`` of a data file named
``projects``, checked by ``cards/schemas/projects.yaml`` like the YAML file.

- The first row names the fields; a dotted header (``stats.move``) is a field
  of a nested mapping.
- Every cell converts to the type the schema gives its field, strictly:
  an integer field reads ``10`` and refuses ``ten`` and ``10.5``; a boolean
  reads true/false (any case) and yes/no; a list field is comma-separated; an
  xlsx number is an integer only when it is a whole number.
- An empty cell is an absent field (a required list field is an empty list);
  a blank row is skipped.
- Every problem is located by row, column letter and header
  (``cards/projects.csv:7:D (difficulty): ...``,
  ``cards/decks.xlsx#Projects!D7 (difficulty): ...``), also for schema
  problems found later: the Document's location table maps each row and cell.

Input is hostile: the file is size-capped before reading, rows, columns and
cells are capped, text must be UTF-8 (with or without BOM), xlsx external
links are not followed and a formula without a cached value is an error.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import InputError, Problem
from .yamlload import Document, Path_, format_path, read_capped

MAX_FILE_BYTES = 4 * 1024 * 1024
#: Most bytes an xlsx may hold unpacked (a zip bomb stops here).
MAX_UNPACKED_BYTES = 64 * 1024 * 1024
MAX_ROWS = 10_000
MAX_COLS = 200
MAX_CELL_CHARS = 10_000

SUFFIXES = (".csv", ".tsv", ".xlsx")

_INT_RE = re.compile(r"^[-+]?[0-9]+$")
_FLOAT_RE = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_HEADER_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")
_TRUE = {"true", "yes"}
_FALSE = {"false", "no"}


def column_letter(n: int) -> str:
    """1 -> A, 27 -> AA."""
    out = ""
    while n:
        n, rem = divmod(n - 1, 26)
        out = chr(65 + rem) + out
    return out


@dataclass(frozen=True)
class CellProblem(Problem):
    """A Problem in a sheet: sorted by file, row and column like any other, shown at its
    cell (``cards/projects.csv:7:E (difficulty): ...``)."""

    cell: str | None = None

    def __str__(self) -> str:
        return str(Problem(self.message, self.cell, None, None, self.field, self.hint,
                           self.subject))


@dataclass
class SheetDocument(Document):
    """A Document read from a sheet: problems name the row, column letter and header."""

    #: "csv" (``file:ROW:COL (header)``) or "xlsx" (``file#Sheet!COLROW (header)``)
    style: str = "csv"
    headers: dict[int, str] = field(default_factory=dict)

    def cell(self, row: int, col: int | None) -> str:
        """Where a cell (or, without ``col``, a row) is, as messages show it."""
        if col is None:
            return f"{self.path}:{row}" if self.style == "csv" else f"{self.path}!{row}:{row}"
        letter = column_letter(col)
        header = self.headers.get(col)
        named = f" ({header})" if header else ""
        if self.style == "csv":
            return f"{self.path}:{row}:{letter}{named}"
        return f"{self.path}!{letter}{row}{named}"

    def problem(self, path: Path_, message: str, *, key: bool = False,
                hint: str | None = None) -> Problem:
        row, col = self.where(path, key=key)
        if row is None:
            return Problem(message, self.path, None, None, format_path(path) or None, hint)
        exact = tuple(path) in self.locations
        # a cell's own problem needs no field path: the header names it
        shown = None if exact and col is not None else (format_path(path) or None)
        return CellProblem(message, self.path, row, col, shown, hint, cell=self.cell(row, col))


def _problem(doc: SheetDocument, row: int, col: int | None, message: str,
             hint: str | None = None) -> Problem:
    return CellProblem(message, doc.path, row, col, None, hint, cell=doc.cell(row, col))


# -- reading the raw cells -------------------------------------------------------------

def _csv_rows(raw: bytes, shown: str, tab: bool) -> list[list[Any]]:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise InputError(Problem(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} on line "
                                 f"{line})", shown, hint="save the sheet as CSV UTF-8 "
                                 "(Excel: 'CSV UTF-8 (Comma delimited)')")) from None
    if "\x00" in text:
        raise InputError(Problem("the file holds NUL characters (not a text CSV file)", shown))
    if tab:
        dialect: Any = csv.excel_tab
    else:
        try:
            dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t")
        except csv.Error:
            dialect = csv.excel
    rows = []
    try:
        reader = csv.reader(io.StringIO(text, newline=""), dialect, strict=True)
        for row in reader:
            if len(rows) > MAX_ROWS:
                raise InputError(Problem(f"too many rows (the limit is {MAX_ROWS})", shown))
            if len(row) > MAX_COLS and any(v.strip() for v in row[MAX_COLS:]):
                raise InputError(Problem(f"too many columns (the limit is {MAX_COLS})", shown,
                                         reader.line_num))
            rows.append(row)
    except csv.Error as exc:
        raise InputError(Problem(f"CSV syntax error: {exc}", shown,
                                 reader.line_num or None)) from None
    return rows


def _xlsx_rows(path: Path, raw: bytes, shown: str, sheet: str | None) -> list[list[Any]]:
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            unpacked = sum(info.file_size for info in z.infolist())
    except zipfile.BadZipFile:
        raise InputError(Problem("not an xlsx workbook (not a zip file)", shown)) from None
    if unpacked > MAX_UNPACKED_BYTES:
        raise InputError(Problem(f"workbook unpacks to {unpacked} bytes; the limit is "
                                 f"{MAX_UNPACKED_BYTES}", shown))
    import warnings

    import openpyxl
    from openpyxl.xml import DEFUSEDXML
    if not DEFUSEDXML:  # openpyxl guards against XML entity bombs only with defusedxml
        raise InputError(Problem("reading xlsx needs the defusedxml package "
                                 "(pip install defusedxml)", shown))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = openpyxl.load_workbook(io.BytesIO(raw), read_only=True, data_only=True,
                                            keep_links=False)
            formulas = openpyxl.load_workbook(io.BytesIO(raw), read_only=True,
                                              data_only=False, keep_links=False)
    except Exception as exc:  # openpyxl raises many kinds on a broken file
        raise InputError(Problem(f"cannot read the workbook: {exc}", shown)) from None
    try:
        names = values.sheetnames
        if sheet is None:
            name = names[0]
        elif sheet in names:
            name = sheet
        else:
            raise InputError(Problem(f"no sheet {sheet!r} in the workbook",
                                     shown.split("#")[0], hint="sheets are "
                                     + ", ".join(names)))
        rows = []
        # a column past the cap is read (to refuse it), and no further; a sheet that says
        # it is wider is refused before its rows are read
        declared = values[name].max_column
        if isinstance(declared, int) and declared > MAX_COLS:
            raise InputError(Problem(f"the sheet is {declared} columns wide (the limit is "
                                     f"{MAX_COLS})", shown))
        wide = MAX_COLS + 1
        pairs = zip(values[name].iter_rows(values_only=True, max_col=wide),
                    formulas[name].iter_rows(values_only=True, max_col=wide))
        for number, (row, frow) in enumerate(pairs, start=1):
            if number > MAX_ROWS + 1:
                raise InputError(Problem(f"too many rows (the limit is {MAX_ROWS})", shown))
            row = list(row)
            if len(row) > MAX_COLS and not _empty(row[MAX_COLS]):
                raise InputError(Problem(f"too many columns (the limit is {MAX_COLS})", shown))
            for c, value in enumerate(row):
                raw_value = frow[c] if c < len(frow) else None
                if value is None and isinstance(raw_value, str) and raw_value.startswith("="):
                    row[c] = _Formula(raw_value)
            rows.append(row)
        return rows
    finally:
        values.close()
        formulas.close()


class _Formula(str):
    """A formula cell with no cached value (the workbook was never recalculated)."""


# -- the schema's view of a column -----------------------------------------------------

def _item_fields(fields: dict[str, Any], list_key: str) -> dict[str, Any] | None:
    rules = fields.get(list_key)
    if not isinstance(rules, dict) or rules.get("type") != "list":
        return None
    item = rules.get("schema")
    if not isinstance(item, dict) or item.get("type") != "dict":
        return None
    sub = item.get("schema")
    return sub if isinstance(sub, dict) else None


def _field(fields: dict[str, Any], dotted: str) -> dict[str, Any] | None:
    node: Any = {"schema": fields}
    for part in dotted.split("."):
        sub = node.get("schema") if isinstance(node, dict) else None
        if not isinstance(sub, dict) or part not in sub:
            return None
        node = sub[part]
    return node if isinstance(node, dict) else None


def _convert(value: Any, rules: dict[str, Any]) -> tuple[Any, str | None]:
    """A cell's value as the schema's type, or an error message."""
    kind = rules.get("type", "string")
    if isinstance(value, _Formula):
        return None, f"formula {value} has no cached value (open and save the workbook " \
                     "in a spreadsheet program, or type the value)"
    if isinstance(value, str) and len(value) > MAX_CELL_CHARS:
        return None, f"cell is longer than {MAX_CELL_CHARS} characters"
    shown = repr(value)
    if kind == "list":
        item = rules.get("schema") if isinstance(rules.get("schema"), dict) else {}
        if not isinstance(value, str):
            value = _text(value)
        out = []
        for part in value.split(","):
            one, error = _convert(part.strip(), item)
            if error:
                return None, f"item {part.strip()!r}: {error}"
            out.append(one)
        return out, None
    if kind == "integer":
        if isinstance(value, bool):
            return None, f"must be an integer (got {shown})"
        if isinstance(value, int):
            return value, None
        if isinstance(value, float):
            if value.is_integer():
                return int(value), None
            return None, f"must be an integer (got {value!r})"
        if isinstance(value, str) and _INT_RE.match(value.strip()):
            return int(value.strip(), 10), None
        return None, f"must be an integer (got {shown})"
    if kind in ("float", "number"):
        if isinstance(value, bool):
            return None, f"must be a number (got {shown})"
        if isinstance(value, (int, float)):
            return (float(value) if kind == "float" else value), None
        if isinstance(value, str):
            text = value.strip()
            if _INT_RE.match(text) and kind == "number":
                return int(text, 10), None
            if _FLOAT_RE.match(text):
                return float(text), None
        return None, f"must be a number (got {shown})"
    if kind == "boolean":
        if isinstance(value, bool):
            return value, None
        if isinstance(value, str):
            text = value.strip().lower()
            if text in _TRUE:
                return True, None
            if text in _FALSE:
                return False, None
        return None, f"must be true or false (or yes or no) (got {shown})"
    if kind == "string":
        if isinstance(value, bool):
            return None, f"must be text (got {shown})"
        return _text(value), None
    return None, f"a field of type {kind} cannot be read from a spreadsheet cell"


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not isinstance(value, _Formula)
                             and not value.strip())


# -- a sheet as a Document -------------------------------------------------------------

def split_ref(file: str) -> tuple[str, str | None]:
    """``decks.xlsx#Projects`` -> (``decks.xlsx``, ``Projects``)."""
    if "#" in file:
        name, sheet = file.split("#", 1)
        return name, sheet or None
    return file, None


def load_sheet(path: Path, shown: str, sheet: str | None, list_key: str,
               fields: dict[str, Any]) -> SheetDocument:
    """Read one sheet as a Document ``{list_key: [row, ...]}`` typed by ``fields``
    (a schema's raw top-level fields); raise every problem together."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(Problem(f"not a spreadsheet ({path.suffix or 'no suffix'}); data "
                                 "sheets are .csv, .tsv or .xlsx", shown))
    xlsx = suffix == ".xlsx"
    if sheet is not None and not xlsx:
        raise InputError(Problem("only an xlsx workbook has sheets (#name)", shown))
    raw = read_capped(path, shown, MAX_FILE_BYTES)
    if xlsx:
        where = f"{shown}#{sheet}" if sheet else shown
        rows = _xlsx_rows(path, raw, where, sheet)
    else:
        where = shown
        rows = _csv_rows(raw, shown, tab=suffix == ".tsv")
    doc = SheetDocument(None, where, style="xlsx" if xlsx else "csv")
    item_fields = _item_fields(fields, list_key)
    if item_fields is None:
        raise InputError(Problem(f"the schema has no list of mappings {list_key!r} for the "
                                 "sheet's rows", where, hint="list: names a list field of the "
                                 "schema whose items are mappings"))
    while rows and all(_empty(v) for v in rows[-1]):
        rows.pop()
    if not rows:
        raise InputError(Problem("the sheet is empty (it needs a header row)", where))
    problems: list[Problem] = []
    header = rows[0]
    while header and _empty(header[-1]):
        header = header[:-1]
    if len(header) > MAX_COLS:
        raise InputError(Problem(f"too many columns (the limit is {MAX_COLS})", where))
    columns: dict[int, tuple[str, dict[str, Any]]] = {}
    seen: dict[str, int] = {}
    for c, name in enumerate(header, start=1):
        if _empty(name):
            continue
        name = _text(name).strip()
        doc.headers[c] = name
        if not _HEADER_RE.match(name):
            problems.append(_problem(doc, 1, c, f"header {name!r} is not a field name"))
            continue
        if name in seen:
            problems.append(_problem(doc, 1, c, f"duplicate header {name!r} (first in column "
                                                f"{column_letter(seen[name])})"))
            continue
        seen[name] = c
        rules = _field(item_fields, name)
        if rules is None or rules.get("type") == "dict":
            problems.append(_problem(doc, 1, c, f"unknown field {name!r}", hint="fields are "
                                     + ", ".join(_leaf_names(item_fields))))
            continue
        columns[c] = (name, rules)
    # a required field with no column is one problem, not one per row
    heads = {name.split(".", 1)[0] for name in seen}
    for name, rules in item_fields.items():
        if (isinstance(rules, dict) and rules.get("required", True) is not False
                and rules.get("type") not in ("list", "dict") and name not in heads):
            problems.append(_problem(doc, 1, None, f"no column for the required field "
                                     f"{name!r}", hint=f"the first row names the fields: add "
                                     f"a {name} column"))
    items: list[dict[str, Any]] = []
    doc.locations[()] = (1, None)
    doc.locations[(list_key,)] = (1, None)
    doc.key_locations[(list_key,)] = (1, None)
    for r, row in enumerate(rows[1:], start=2):
        if all(_empty(v) for v in row):
            continue   # a blank row separates, it is not an item
        index = len(items)
        item: dict[str, Any] = {}
        doc.locations[(list_key, index)] = (r, None)
        for c, value in enumerate(row, start=1):
            if _empty(value):
                continue
            if c not in columns:
                if c not in doc.headers:
                    problems.append(_problem(doc, r, c, "a value in a column with no header"))
                continue
            name, rules = columns[c]
            converted, error = _convert(value, rules)
            if error:
                problems.append(_problem(doc, r, c, error))
                continue
            _put(doc, item, (list_key, index), name, converted, r, c)
        for c, (name, rules) in columns.items():
            if (rules.get("type") == "list" and rules.get("required", True) is not False
                    and (c > len(row) or _empty(row[c - 1])) and "." not in name):
                item[name] = []
                doc.locations[(list_key, index, name)] = (r, c)
        items.append(item)
    if problems:
        raise InputError(problems)
    doc.data = {list_key: items}
    return doc


def _put(doc: SheetDocument, item: dict[str, Any], base: tuple, dotted: str, value: Any,
         row: int, col: int) -> None:
    parts = dotted.split(".")
    node = item
    path = base
    for part in parts[:-1]:
        path = path + (part,)
        node = node.setdefault(part, {})
        doc.locations.setdefault(path, (row, col))
    path = path + (parts[-1],)
    node[parts[-1]] = value
    doc.locations[path] = (row, col)
    doc.key_locations[path] = (row, col)
    if isinstance(value, list):
        for n in range(len(value)):
            doc.locations[path + (n,)] = (row, col)


def _leaf_names(fields: dict[str, Any], prefix: str = "") -> list[str]:
    out = []
    for name, rules in fields.items():
        if isinstance(rules, dict) and rules.get("type") == "dict" and isinstance(
                rules.get("schema"), dict):
            out.extend(_leaf_names(rules["schema"], f"{prefix}{name}."))
        else:
            out.append(prefix + name)
    return out


def columns(fields: dict[str, Any], list_key: str) -> list[tuple[str, dict[str, Any]]]:
    """The sheet columns of a list data file, in schema order, with each one's rules."""
    item_fields = _item_fields(fields, list_key) or {}
    return [(name, _field(item_fields, name) or {}) for name in _leaf_names(item_fields)]
