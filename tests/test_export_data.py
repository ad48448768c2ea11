"""``export data`` and ``import data``: YAML -> sheet -> YAML keeps every byte, a changed
cell changes exactly its line, and a bad sheet never overwrites good data."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import openpyxl
import pytest

from eti_print.cli import main
from eti_print.dataset import load_dataset
from eti_print.errors import InputError
from eti_print.export.data import export_data, import_data
from eti_print.pack import Pack

ROOT = Path(__file__).resolve().parents[1]
PACKS = {"eti": ROOT, "mad-scientists": ROOT / "packs" / "mad-scientists",
         "sci-tech": ROOT / "packs" / "sci-tech"}


def copy_pack(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True)
    for name in ("cards", "templates", "fonts"):
        if (src / name).is_dir():
            shutil.copytree(src / name, dst / name)
    shutil.copy(src / "pack.yaml", dst / "pack.yaml")
    return dst


@pytest.mark.parametrize("fmt", ["xlsx", "csv"])
@pytest.mark.parametrize("pack", sorted(PACKS))
def test_round_trip_keeps_every_byte(tmp_path, pack, fmt):
    root = copy_pack(PACKS[pack], tmp_path / pack)
    files = export_data(load_dataset(Pack.open(root)), fmt)
    assert files
    for name, data in files:
        sheet = tmp_path / name
        sheet.write_bytes(data)
        target = root / "cards" / f"{Path(name).stem}.yaml"
        before = target.read_bytes()
        report = import_data(str(sheet), str(target), str(root))
        assert report.startswith("unchanged:"), report
        assert target.read_bytes() == before, name


def _edit(data: bytes, cells: dict[str, object]) -> bytes:
    book = openpyxl.load_workbook(io.BytesIO(data))
    for ref, value in cells.items():
        book.active[ref] = value
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_one_cell_changes_one_line(tmp_path):
    root = copy_pack(ROOT, tmp_path / "eti")
    files = dict(export_data(load_dataset(Pack.open(root)), "xlsx"))
    sheet = tmp_path / "projects.xlsx"
    sheet.write_bytes(_edit(files["projects.xlsx"], {"E3": 135}))   # row 3: second project
    target = root / "cards" / "projects.yaml"
    before = target.read_text().splitlines()
    assert import_data(str(sheet), str(target), str(root)).startswith("wrote")
    after = target.read_text().splitlines()
    assert len(before) == len(after)
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert changed == [("    difficulty: 130", "    difficulty: 135")]
    project = load_dataset(Pack.open(root)).by_id("projects.projects")["solid-rocket-propellants"]
    assert project["difficulty"] == 135


def test_list_cell_and_emptied_cell(tmp_path):
    root = copy_pack(ROOT, tmp_path / "eti")
    files = dict(export_data(load_dataset(Pack.open(root)), "csv"))
    text = files["projects.csv"].decode()
    text = text.replace("chemistry,II,130,20,10,staffing,", "chemistry,II,130,20,10,"
                        "\"staffing, analysis\",", 1)
    text = text.replace(',"Stronger than steel, lighter than cork, and it comes in avocado."',
                        ",", 1)
    sheet = tmp_path / "projects.csv"
    sheet.write_text(text)
    target = root / "cards" / "projects.yaml"
    before = target.read_text()
    import_data(str(sheet), str(target), str(root))
    after = target.read_text()
    assert "    upgrades: [staffing, analysis]\n" in after
    assert "avocado" in before and "avocado" not in after
    assert len(after.splitlines()) == len(before.splitlines()) - 1


@pytest.mark.parametrize("cells,message", [
    ({"E3": "ten"}, "projects.xlsx!E3 (difficulty): must be an integer (got 'ten')"),
    ({"E3": 5}, "projects.xlsx!E3 (difficulty): must be at least 10 (got 5)"),
    ({"B3": "Synthetic Polymers"}, "duplicate"),
])
def test_bad_sheet_never_overwrites(tmp_path, cells, message):
    root = copy_pack(ROOT, tmp_path / "eti")
    files = dict(export_data(load_dataset(Pack.open(root)), "xlsx"))
    sheet = tmp_path / "projects.xlsx"
    sheet.write_bytes(_edit(files["projects.xlsx"], cells))
    target = root / "cards" / "projects.yaml"
    before = target.read_bytes()
    with pytest.raises(InputError) as info:
        import_data(str(sheet), str(target), str(root))
    assert any(message in str(p) for p in info.value.problems), info.value.problems
    assert target.read_bytes() == before
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]


def test_xlsx_has_descriptions_drop_downs_and_frozen_header(tmp_path):
    files = dict(export_data(load_dataset(Pack.open(ROOT)), "xlsx"))
    book = openpyxl.load_workbook(io.BytesIO(files["projects.xlsx"]))
    ws = book["projects"]
    assert [c.value for c in ws[1]] == ["id", "name", "field", "level", "difficulty", "defense",
                                        "fame", "upgrades", "flavor"]
    assert ws.freeze_panes == "A2"
    assert ws["D1"].comment.text == "Tech level, I (simplest) to V (toughest)."
    (dv,) = ws.data_validations.dataValidation
    assert dv.formula1 == '"I,II,III,IV,V"' and str(dv.sqref).startswith("D2:")


def test_cli_export_and_import(tmp_path, capsys):
    root = copy_pack(PACKS["mad-scientists"], tmp_path / "ms")
    out = tmp_path / "out"
    assert main(["export", "data", str(root), "--format", "csv", "--out", str(out)]) == 0
    assert (out / "data" / "chits.csv").is_file()
    assert main(["import", "data", str(out / "data" / "chits.csv"), "--into",
                 str(root / "cards" / "chits.yaml"), "--pack", str(root)]) == 0
    assert "unchanged: cards/chits.yaml" in capsys.readouterr().out
    assert main(["export", "data", str(root), "--format", "jpg"]) == 2
    assert main(["export", "tts", str(root), "--format", "xlsx"]) == 2
    assert main(["import", "data", str(out / "data" / "chits.csv"), "--into",
                 "elsewhere.yaml", "--pack", str(root)]) == 2


def test_removed_column_removes_the_field(tmp_path):
    root = copy_pack(PACKS["mad-scientists"], tmp_path / "ms")
    files = dict(export_data(load_dataset(Pack.open(root)), "csv"))
    lines = files["chits.csv"].decode().splitlines()
    header = lines[0].split(",")
    assert header[1] == "listed_as"
    # drop the listed_as column (only two chits have it)
    rows = list(__import__("csv").reader(lines))
    rows = [r[:1] + r[2:] for r in rows]
    out = io.StringIO()
    __import__("csv").writer(out).writerows(rows)
    sheet = tmp_path / "chits.csv"
    sheet.write_text(out.getvalue())
    target = root / "cards" / "chits.yaml"
    before = target.read_text()
    import_data(str(sheet), str(target), str(root))
    after = target.read_text()
    removed = [a for a in before.splitlines() if a not in after.splitlines()]
    assert len(removed) == 2 and all("listed_as:" in a for a in removed)
    chits = load_dataset(Pack.open(root)).items("chits.chits")
    assert not any("listed_as" in c for c in chits)


def test_rows_added_and_removed(tmp_path):
    root = copy_pack(PACKS["mad-scientists"], tmp_path / "ms")
    files = dict(export_data(load_dataset(Pack.open(root)), "csv"))
    lines = files["chits.csv"].decode().splitlines()
    target = root / "cards" / "chits.yaml"
    before = target.read_text()
    # the last chit removed, a new one appended: the pack's count check (75) must still hold
    new = "Gamma Cannon,,,U,1,4,2,Gun,gun,"
    sheet = tmp_path / "chits.csv"
    sheet.write_text("\n".join(lines[:-1] + [new]) + "\n")
    last = lines[-1].split(",")[0]
    assert import_data(str(sheet), str(target), str(root)).startswith("wrote")
    chits = load_dataset(Pack.open(root)).items("chits.chits")
    assert chits[-1] == {"name": "Gamma Cannon", "type": "U", "move": "1", "range": "4",
                         "defense": "2", "notes": ["Gun"], "icon": "gun"}
    assert last not in [c["name"] for c in chits]
    after = target.read_text().splitlines()
    old = before.splitlines()
    gone = [n for n, line in enumerate(old) if f"name: {last}," in line]
    assert len(gone) == 1
    assert after[:gone[0]] == old[:gone[0]]          # every row before it: the same bytes
    assert after[gone[0]:] == old[gone[0] + 1:] + [
        '  - {name: Gamma Cannon, type: U, move: "1", range: "4", defense: "2", notes: [Gun], '
        'icon: gun}']


def test_import_refuses_a_file_that_is_not_a_list(tmp_path):
    from eti_print.errors import UsageError
    root = copy_pack(ROOT, tmp_path / "eti")
    sheet = tmp_path / "game.csv"
    sheet.write_text("id\nx\n")
    with pytest.raises(UsageError, match="not a list data file"):
        import_data(str(sheet), str(root / "cards" / "game.yaml"), str(root))
