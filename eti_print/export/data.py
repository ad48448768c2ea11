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


def list_key(schema: Any) -> str | None:
    """The one list field of a list data file's schema, else None."""
    fields = schema.fields
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
