"""Spreadsheet data files (eti_print/spreadsheet.py): CSV, TSV and XLSX rows typed by the
schema, every problem located by row, column and header, and the same cards as YAML."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from eti_print.dataset import load_dataset
from eti_print.errors import InputError
from eti_print.export.data import export_data
from eti_print.pack import Pack

from conftest import csv_chits_pack
from pdfcheck import pdf_text

ROOT = Path(__file__).resolve().parents[1]

SCHEMA = """description: Test rows.
schema:
  things:
    type: list
    description: The things.
    schema:
      type: dict
      description: One thing.
      schema:
        id: {type: string, description: "Id."}
        difficulty: {type: integer, required: false, description: "Difficulty."}
        weight: {type: float, required: false, description: "Weight."}
        secret: {type: boolean, required: false, description: "Secret."}
        tags:
          type: list
          required: false
          description: Tags.
          schema: {type: string, allowed: [red, blue], description: "A tag."}
        upgrades:
          type: list
          description: Required list.
          schema: {type: string, description: "An upgrade."}
        stats:
          type: dict
          required: false
          description: Nested.
          schema:
            move: {type: integer, description: "Move."}
            range: {type: integer, required: false, description: "Range."}
        count: {type: integer, required: false, min: 1, description: "Copies."}
"""


def make_pack(tmp_path: Path, file: str, content: bytes | None = None) -> Path:
    root = tmp_path / "pack"
    (root / "cards" / "schemas").mkdir(parents=True)
    (root / "cards" / "schemas" / "things.yaml").write_text(SCHEMA)
    (root / "pack.yaml").write_text(
        "name: Test\nslug: test\ndata:\n"
        f"  - {{name: things, file: '{file}', list: things}}\n")
    if content is not None:
        (root / "cards" / file.split("#")[0]).write_bytes(content)
    return root


def load(root: Path):
    return load_dataset(Pack.open(root), checks=False)


def problems(root: Path) -> list[str]:
    with pytest.raises(InputError) as info:
        load(root)
    return [str(p) for p in info.value.problems]


def test_csv_rows_typed_by_schema(tmp_path):
    root = make_pack(tmp_path, "things.csv", (
        b"id,difficulty,weight,secret,tags,upgrades,stats.move,stats.range,count\n"
        b"a,10,1.5,TRUE,\"red, blue\",x,2,,3\n"
        b"b,,,no,,,1,4,\n"))
    things = load(root).docs["things"].data["things"]
    assert things == [
        {"id": "a", "difficulty": 10, "weight": 1.5, "secret": True, "tags": ["red", "blue"],
         "upgrades": ["x"], "stats": {"move": 2}, "count": 3},
        {"id": "b", "secret": False, "upgrades": [], "stats": {"move": 1, "range": 4}},
    ]


@pytest.mark.parametrize("text,delimiter", [(";", ";"), ("\t", "\t")])
def test_csv_dialect_sniffed(tmp_path, text, delimiter):
    body = f"id{delimiter}difficulty{delimiter}upgrades\na{delimiter}10{delimiter}x\n"
    root = make_pack(tmp_path, "things.csv", body.encode())
    assert load(root).docs["things"].data["things"] == [
        {"id": "a", "difficulty": 10, "upgrades": ["x"]}]


def test_tsv_and_bom(tmp_path):
    root = make_pack(tmp_path, "things.tsv",
                     "\ufeffid\tupgrades\nsemi;colon, here\tx\n".encode("utf-8"))
    assert load(root).docs["things"].data["things"] == [
        {"id": "semi;colon, here", "upgrades": ["x"]}]


def test_every_cell_problem_reported_at_once(tmp_path):
    root = make_pack(tmp_path, "things.csv", (
        b"id,difficulty,secret,upgrades\n"
        b"a,ten,maybe,x\n"
        b"b,10.5,1,x\n"
        b"c,10,true,x\n"))
    assert problems(root) == [
        "cards/things.csv:2:B (difficulty): must be an integer (got 'ten')",
        "cards/things.csv:2:C (secret): must be true or false (or yes or no) (got 'maybe')",
        "cards/things.csv:3:B (difficulty): must be an integer (got '10.5')",
        "cards/things.csv:3:C (secret): must be true or false (or yes or no) (got '1')",
    ]


def test_schema_problems_point_at_the_cell(tmp_path):
    root = make_pack(tmp_path, "things.csv", (
        b"id,tags,count,upgrades\n"
        b"a,red,1,x\n"
        b"b,\"red, green\",0,x\n"))
    found = problems(root)
    assert "cards/things.csv:3:B (tags): must be one of red, blue (got 'green')" in found
    assert "cards/things.csv:3:C (count): must be at least 1 (got 0)" in found
    assert len(found) == 2


def test_missing_required_field_points_at_the_row(tmp_path):
    root = make_pack(tmp_path, "things.csv", b"id,difficulty,upgrades\na,1,x\n,2,x\n")
    assert problems(root) == ["cards/things.csv:3: things[1]: required field 'id' is missing"]


def test_headers_checked(tmp_path):
    root = make_pack(tmp_path, "things.csv",
                     b"id,colour,id,stats.speed,upgrades\na,1,2,3,x\n")
    found = problems(root)
    assert found[0].startswith("cards/things.csv:1:B (colour): unknown field 'colour'")
    assert found[1] == "cards/things.csv:1:C (id): duplicate header 'id' (first in column A)"
    assert found[2].startswith("cards/things.csv:1:D (stats.speed): unknown field")


def test_value_without_header(tmp_path):
    root = make_pack(tmp_path, "things.csv", b"id,,upgrades\na,oops,x\n")
    assert problems(root) == ["cards/things.csv:2:B: a value in a column with no header"]


def test_not_utf8_refused(tmp_path):
    root = make_pack(tmp_path, "things.csv", "id,upgrades\ncaf\u00e9,x\n".encode("latin-1"))
    (found,) = problems(root)
    assert found.startswith("cards/things.csv: not valid UTF-8 (byte 0xe9 on line 2)")
    assert "CSV UTF-8" in found


def test_size_cap_before_reading(tmp_path, monkeypatch):
    import eti_print.spreadsheet as sp
    monkeypatch.setattr(sp, "MAX_FILE_BYTES", 10)
    root = make_pack(tmp_path, "things.csv", b"id,upgrades\na,x\n")
    assert problems(root) == ["cards/things.csv: file is too large (16 bytes; the limit is 10)"]


def test_row_cap(tmp_path, monkeypatch):
    import eti_print.spreadsheet as sp
    monkeypatch.setattr(sp, "MAX_ROWS", 2)
    root = make_pack(tmp_path, "things.csv", b"id,upgrades\na,x\nb,x\nc,x\nd,x\n")
    assert problems(root) == ["cards/things.csv: too many rows (the limit is 2)"]


def test_cell_cap(tmp_path, monkeypatch):
    import eti_print.spreadsheet as sp
    monkeypatch.setattr(sp, "MAX_CELL_CHARS", 3)
    root = make_pack(tmp_path, "things.csv", b"id,upgrades\nabcd,x\n")
    assert problems(root) == ["cards/things.csv:2:A (id): cell is longer than 3 characters"]


def test_column_cap(tmp_path, monkeypatch):
    import eti_print.spreadsheet as sp
    monkeypatch.setattr(sp, "MAX_COLS", 2)
    root = make_pack(tmp_path, "things.csv", b"id,upgrades\na,x,,\nb,x,,y\n")
    assert problems(root) == ["cards/things.csv:3: too many columns (the limit is 2)"]


def test_xlsx_column_cap(tmp_path, monkeypatch):
    import eti_print.spreadsheet as sp
    monkeypatch.setattr(sp, "MAX_COLS", 2)
    root = make_pack(tmp_path, "book.xlsx#Things", _xlsx([["id", "upgrades"],
                                                          ["a", "x", None, "far"]]))
    assert problems(root) == ["cards/book.xlsx#Things: the sheet is 4 columns wide (the limit "
                              "is 2)"]


def test_blank_rows_skipped(tmp_path):
    root = make_pack(tmp_path, "things.csv", b"id,upgrades\na,x\n,\n\nb,y\n,\n")
    doc = load(root).docs["things"]
    assert doc.data["things"] == [{"id": "a", "upgrades": ["x"]}, {"id": "b", "upgrades": ["y"]}]
    assert doc.where(("things", 1, "id")) == (5, 1)


def test_file_confined_to_the_pack(tmp_path):
    root = make_pack(tmp_path, "../../outside.csv")
    (tmp_path / "outside.csv").write_text("id,upgrades\na,x\n")
    (found,) = problems(root)
    assert "'..' in '../../outside.csv' is not allowed" in found


def test_symlink_out_of_the_pack_refused(tmp_path):
    root = make_pack(tmp_path, "things.csv")
    (tmp_path / "outside.csv").write_text("id,upgrades\na,x\n")
    (root / "cards" / "things.csv").symlink_to(tmp_path / "outside.csv")
    (found,) = problems(root)
    assert "leads outside the pack" in found


def test_old_plain_names_still_work_and_bad_entries_refused(tmp_path):
    root = make_pack(tmp_path, "things.txt")
    found = problems(root)
    assert any("data[0].file" in p and "must be a spreadsheet in cards/" in p for p in found)


def _xlsx(rows, formula=None, sheet="Things") -> bytes:
    import io

    import openpyxl
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "First"
    ws.append(["nothing"])
    ws = book.create_sheet(sheet)
    for row in rows:
        ws.append(row)
    if formula:
        ws[formula[0]] = formula[1]
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_xlsx_sheet_typed_and_located(tmp_path):
    root = make_pack(tmp_path, "book.xlsx#Things", _xlsx([
        ["id", "difficulty", "weight", "secret", "upgrades", "stats.move"],
        ["a", 10.0, 2, True, "x, y", 3],
        [7, 10.5, "heavy", "yes", None, 1],
    ]))
    found = problems(root)
    assert found == [
        "cards/book.xlsx#Things!B3 (difficulty): must be an integer (got 10.5)",
        "cards/book.xlsx#Things!C3 (weight): must be a number (got 'heavy')",
    ]


def test_xlsx_values(tmp_path):
    root = make_pack(tmp_path, "book.xlsx#Things", _xlsx([
        ["id", "difficulty", "weight", "secret", "upgrades", "stats.move"],
        ["a", 10.0, 2, True, "x, y", 3],
        [7, None, None, "No", None, 1],
    ]))
    assert load(root).docs["things"].data["things"] == [
        {"id": "a", "difficulty": 10, "weight": 2.0, "secret": True, "upgrades": ["x", "y"],
         "stats": {"move": 3}},
        {"id": "7", "secret": False, "upgrades": [], "stats": {"move": 1}},
    ]


def test_xlsx_formula_without_cached_value(tmp_path):
    root = make_pack(tmp_path, "book.xlsx#Things", _xlsx(
        [["id", "difficulty", "upgrades"], ["a", None, "x"]], formula=("B2", "=1+2")))
    (found,) = problems(root)
    assert found.startswith("cards/book.xlsx#Things!B2 (difficulty): formula =1+2 has no "
                            "cached value")


def test_xlsx_unknown_sheet(tmp_path):
    root = make_pack(tmp_path, "book.xlsx#Nope", _xlsx([["id"]]))
    (found,) = problems(root)
    assert found == "cards/book.xlsx: no sheet 'Nope' in the workbook (hint: sheets are " \
                    "First, Things)"


def test_xlsx_not_a_zip(tmp_path):
    root = make_pack(tmp_path, "book.xlsx", b"id,upgrades\n")
    assert problems(root) == ["cards/book.xlsx: not an xlsx workbook (not a zip file)"]


def test_xlsx_zip_bomb_refused(tmp_path, monkeypatch):
    import eti_print.spreadsheet as sp
    monkeypatch.setattr(sp, "MAX_UNPACKED_BYTES", 1000)
    root = make_pack(tmp_path, "book.xlsx", _xlsx([["id", "upgrades"], ["a", "x"]]))
    (found,) = problems(root)
    assert "workbook unpacks to" in found


# -- same cards, same bytes ----------------------------------------------------------------

SHEETS = ("research", "projects", "events")


def _copy_eti(tmp_path: Path) -> Path:
    root = tmp_path / "eti"
    root.mkdir(parents=True)
    for name in ("cards", "templates", "fonts"):
        shutil.copytree(ROOT / name, root / name)
    shutil.copy(ROOT / "pack.yaml", root / "pack.yaml")
    return root


def _as_sheets(root: Path, fmt: str, workbook: bool = False) -> None:
    ds = load_dataset(Pack.open(root))
    files = dict(export_data(ds, fmt))
    text = (root / "pack.yaml").read_text()
    for name in SHEETS:
        (root / "cards" / f"{name}.{fmt}").write_bytes(files[f"{name}.{fmt}"])
        (root / "cards" / f"{name}.yaml").unlink()
        ref = f"{name}.{fmt}#{name}" if workbook else f"{name}.{fmt}"
        entry = f"{{name: {name}, file: '{ref}', list: {name}}}"
        text, n = __import__("re").subn(rf"(?<=[\[ ]){name}(?=,)", entry, text, count=1)
        assert n == 1
    (root / "pack.yaml").write_text(text)


#: The build date of the yaml and sheet builds compared below.
EPOCH = "1000000000"


@pytest.fixture(scope="module")
def yaml_build(tmp_path_factory) -> Path:
    """The E.T.I. pack's build with the sheets' three files as rows only: a file's notes
    of what this edition designed (its top-level `reconstructed:`, which the booklet's
    colophon prints) have no place in a sheet of rows.  Built once for both formats."""
    from eti_print.options import PrintOptions
    from eti_print.pipeline import build
    tmp_path = tmp_path_factory.mktemp("yaml-build")
    yaml_pack = _copy_eti(tmp_path / "a")
    for name in SHEETS:
        path = yaml_pack / "cards" / f"{name}.yaml"
        path.write_text(re.sub(r"(?ms)^reconstructed:\n.*?\n\n", "", path.read_text()))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SOURCE_DATE_EPOCH", EPOCH)
        build(yaml_pack, tmp_path / "out-yaml", PrintOptions())
    return tmp_path / "out-yaml"


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_same_cards_same_bytes(tmp_path, monkeypatch, fmt, yaml_build):
    """The same rows as sheets build the same bytes as the YAML without its notes."""
    from eti_print.options import PrintOptions
    from eti_print.pipeline import build
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    sheet_pack = _copy_eti(tmp_path / "b")
    _as_sheets(sheet_pack, fmt, workbook=fmt == "xlsx")
    assert "{name: projects, file:" in (sheet_pack / "pack.yaml").read_text()
    assert not (sheet_pack / "cards" / "projects.yaml").exists()
    build(sheet_pack, tmp_path / "out-sheet", PrintOptions())
    pdfs = sorted(p.name for p in yaml_build.glob("*.pdf"))
    assert "eti-cards.pdf" in pdfs and "eti-rules-reference.pdf" in pdfs
    assert pdfs == sorted(p.name for p in (tmp_path / "out-sheet").glob("*.pdf"))
    for name in pdfs:
        assert (yaml_build / name).read_bytes() == \
               (tmp_path / "out-sheet" / name).read_bytes(), name


def test_mad_scientists_chits_csv_beside_the_yaml(tmp_path, session_build):
    """packs/mad-scientists/cards/chits.csv is the chit list as a sheet: it reads as exactly
    the YAML's chits, and a pack naming it instead builds the same counter sheet."""
    from eti_print.options import PrintOptions
    from eti_print.pipeline import build
    shipped = ROOT / "packs" / "mad-scientists"
    ds = load_dataset(Pack.open(shipped))
    files = dict(export_data(ds, "csv"))
    assert (shipped / "cards" / "chits.csv").read_bytes() == files["chits.csv"], \
        "chits.csv is stale: eti-print export data mad-scientists, copy data/chits.csv"
    sheet_pack = csv_chits_pack(tmp_path / "ms")
    sheet_ds = load_dataset(Pack.open(sheet_pack))
    assert sheet_ds.docs["chits"].data == ds.docs["chits"].data
    built = session_build("mad-scientists")             # the shipped pack, PrintOptions()
    build(sheet_pack, tmp_path / "out-csv", PrintOptions())
    pdfs = sorted(p.name for p in built.glob("*.pdf"))
    assert "mad-scientists-counters.pdf" in pdfs
    for name in pdfs:
        assert (built / name).read_bytes() == (tmp_path / "out-csv" / name).read_bytes(), name


def test_problems_sort_by_row_and_column(tmp_path):
    from eti_print.errors import combine
    rows = "".join(f"t{n},{'ten' if n in (3, 10) else n},x\n" for n in range(2, 12))
    root = make_pack(tmp_path, "things.csv", ("id,difficulty,upgrades\n" + rows).encode())
    with pytest.raises(InputError) as info:
        load(root)
    shown = [str(p) for p in combine(info.value.problems)]
    assert shown == ["cards/things.csv:3:B (difficulty): must be an integer (got 'ten')",
                     "cards/things.csv:10:B (difficulty): must be an integer (got 'ten')"]


@pytest.mark.long
def test_watch_rebuilds_a_pack_whose_deck_is_a_spreadsheet(tmp_path):
    """Saving a CSV deck triggers a rebuild that prints the new cell; a bad cell is reported
    with its row and column and the last good output stays."""
    import queue
    import threading

    from eti_print.options import PrintOptions
    from eti_print.watch import watch
    pack = csv_chits_pack(tmp_path / "ms")
    out = tmp_path / "out"
    reports: queue.Queue = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(target=lambda: watch(str(pack), out, PrintOptions(), stop_event=stop,
                                                   on_build=reports.put, debounce_ms=200,
                                                   step_ms=30), daemon=True)
    thread.start()
    try:
        first = reports.get(timeout=120)
        assert first.ok, first.problems
        sheet = pack / "cards" / "chits.csv"
        sheet.write_text(sheet.read_text().replace("Super Agents,", "Mega Agents,", 1))
        report = reports.get(timeout=120)
        assert report.ok and report.changes == ["cards/chits.csv"], report.problems
        assert "mad-scientists-counters.pdf" in report.written
        text = pdf_text(out / "mad-scientists-counters.pdf")
        assert "Mega Agents" in text or "MEGA AGENTS" in text
        good = (out / "mad-scientists-counters.pdf").read_bytes()
        sheet.write_text(sheet.read_text().replace(",3,1,3,", ",three,1,3,", 1))
        report = reports.get(timeout=120)
        assert not report.ok
        assert any(p.startswith("cards/chits.csv:3:E (move)") for p in report.problems), \
            report.problems
        assert (out / "mad-scientists-counters.pdf").read_bytes() == good
    finally:
        stop.set()
        thread.join(timeout=30)
