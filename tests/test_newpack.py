"""``eti-print new``: a one-deck pack that validates and builds the first time, for every
card size, one- or two-sided, with YAML, CSV or XLSX data; and the defaults it rests on
(bundled fonts, standard sheets, an optional back)."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from eti_print.cli import main
from eti_print.newpack import sizes
from eti_print.units import PAPER

from conftest import edit

WORKTREE = Path(__file__).resolve().parents[1]
CARDS = 20
_FACE_RE = re.compile(rb"/FormXob\.face\d+ Do")


def new(tmp_path: Path, *args: str, name: str = "mygame") -> Path:
    folder = tmp_path / name
    assert main(["new", str(folder), *args]) == 0
    return folder


def build(pack: Path, *args: str) -> Path:
    out = pack / "output"
    assert main(["build", str(pack), "--out", str(out), "--quiet", *args]) == 0
    return out


def placements(pdf: Path) -> list[int]:
    """How many card faces each page of ``pdf`` draws."""
    return [len(_FACE_RE.findall(page.get_contents().get_data()))
            for page in PdfReader(str(pdf)).pages]


def test_new_then_build_in_the_folder_writes_a_pdf(tmp_path):
    """The README's loop, as a user types it: ``new mygame && cd mygame && build``."""
    env = dict(os.environ, PYTHONPATH=str(WORKTREE))
    run = subprocess.run([sys.executable, "-m", "eti_print", "new", "mygame"], cwd=tmp_path,
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "eti-print build" in run.stdout
    run = subprocess.run([sys.executable, "-m", "eti_print", "build"], cwd=tmp_path / "mygame",
                         env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "bundled E.T.I." not in run.stderr        # it built the pack it stands in
    pdf = tmp_path / "mygame" / "output" / "mygame-cards.pdf"
    assert sum(placements(pdf)[0::2]) == CARDS       # fronts, each followed by its backs


@pytest.mark.parametrize("sided", ["--two-sided", "--one-sided"])
@pytest.mark.parametrize("size", sorted(sizes()))
def test_every_size_validates_and_builds_the_first_time(tmp_path, capsys, size, sided):
    pack = new(tmp_path, "--size", size, sided)
    capsys.readouterr()
    assert main(["validate", str(pack)]) == 0
    assert capsys.readouterr().out.startswith(f"Mygame: OK - 1 data files, {CARDS} cards")
    pdf = build(pack) / "mygame-cards.pdf"
    reader = PdfReader(str(pdf))
    setting = sizes()[size]
    for page in reader.pages:   # A4, turned when that fits more cards (mini: 18, not 16)
        assert sorted((float(page.mediabox.width), float(page.mediabox.height))) == \
            pytest.approx(sorted(PAPER["a4"]), abs=0.01)
    # every face form is the card's trim plus its bleed on each side
    forms = reader.pages[0]["/Resources"]["/XObject"]
    mm = 72 / 25.4
    for form in forms.values():
        x0, y0, x1, y1 = (float(v) for v in form.get_object()["/BBox"])
        assert (x1 - x0, y1 - y0) == pytest.approx(
            ((setting.width + 2 * setting.bleed) * mm, (setting.height + 2 * setting.bleed) * mm),
            abs=0.01)
    counts = placements(pdf)
    if sided == "--two-sided":
        fronts, backs = counts[0::2], counts[1::2]
        assert sum(fronts) == sum(backs) == CARDS
        assert fronts == backs
    else:
        assert sum(counts) == CARDS
        # the cards fill the sheets in order: every sheet between the first (its bottom
        # right slots kept for the scale check) and the last is full
        assert all(c == max(counts) for c in counts[1:-1])
        assert counts[-1] <= max(counts) and len(counts) <= math.ceil(CARDS / 2) + 1


@pytest.mark.parametrize("data", ["csv", "xlsx"])
def test_spreadsheet_data_builds_the_same_cards(tmp_path, data):
    pack = new(tmp_path, "--data", data)
    assert (pack / "cards" / f"deck.{data}").is_file()
    assert not (pack / "cards" / "deck.yaml").exists()
    assert f"file: deck.{data}" in (pack / "pack.yaml").read_text()
    pdf = build(pack) / "mygame-cards.pdf"
    assert sum(placements(pdf)[0::2]) == CARDS
    if data == "xlsx":   # each header says what its column holds
        from openpyxl import load_workbook
        header = load_workbook(pack / "cards" / "deck.xlsx").active[1]
        assert [c.value for c in header] == ["title", "number", "text"]
        assert header[0].comment.text == "The card's name, printed at the top."
        assert "leave the cell empty" in header[2].comment.text


def test_the_pack_needs_no_fonts_sheets_or_other_files(tmp_path):
    pack = new(tmp_path, "--one-sided")
    files = sorted(p.relative_to(pack).as_posix() for p in pack.rglob("*") if p.is_file()
                   and not p.relative_to(pack).as_posix().startswith((".schemas/", ".vscode/")))
    assert files == ["cards/deck.yaml", "cards/schemas/deck.yaml", "pack.yaml",
                     "templates/layouts/front.yaml"]     # beside the editors' schemas
    text = (pack / "pack.yaml").read_text()
    assert "back:" not in text.replace("`back: NAME`", "")


def test_every_line_of_the_files_written_is_taught(tmp_path):
    """Each file written opens with comments saying what it is for."""
    pack = new(tmp_path)
    for rel in ("pack.yaml", "cards/deck.yaml", "cards/schemas/deck.yaml",
                "templates/layouts/front.yaml", "templates/layouts/back.yaml"):
        lines = (pack / rel).read_text().splitlines()
        assert lines[0].startswith("# "), rel
        assert sum(line.lstrip().startswith("#") for line in lines) >= 3, rel


def test_an_existing_folder_that_is_not_empty_is_refused(tmp_path, capsys):
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    assert main(["new", str(folder)]) == 2
    err = capsys.readouterr().err
    assert err == f"eti-print: error: {folder} exists and is not empty; give a new or empty " \
                  "folder\n"
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    # an empty folder is fine
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["new", str(empty)]) == 0


def test_an_unknown_size_is_a_usage_error(tmp_path, capsys):
    assert main(["new", str(tmp_path / "x"), "--size", "jumbo"]) == 2
    err = capsys.readouterr().err
    assert "unknown card size 'jumbo'; sizes are poker, " in err
    assert not (tmp_path / "x").exists()


def test_the_game_is_named_after_its_folder(tmp_path):
    pack = new(tmp_path, name="space-pirates")
    text = (pack / "pack.yaml").read_text()
    assert "name: Space Pirates\n" in text and "slug: space-pirates\n" in text


def test_a_folder_name_yaml_would_misread_is_quoted(tmp_path, capsys):
    pack = new(tmp_path, name="#1: the game")
    text = (pack / "pack.yaml").read_text()
    assert 'name: "#1: The Game"\n' in text and "slug: 1-the-game\n" in text
    capsys.readouterr()
    assert main(["validate", str(pack)]) == 0
    assert capsys.readouterr().out.startswith("#1: The Game: OK")


# -- validate names every missing piece ---------------------------------------------------

def _no_title_on_one_card(pack: Path) -> None:
    edit(pack / "cards/deck.yaml", "  - title: Dynamo\n    number", "  - number")


def _no_title_anywhere(pack: Path) -> None:
    """No card has a title, and the schema and checks do not ask for one: the layout
    that prints it says so."""
    path = pack / "cards" / "deck.yaml"
    path.write_text(re.sub(r"  - title: .*\n    number", "  - number", path.read_text()))
    edit(pack / "cards/schemas/deck.yaml", "        title:\n", "        unused:\n")
    edit(pack / "cards/schemas/deck.yaml", "          type: string\n          empty: false\n",
         "          type: string\n          required: false\n          empty: false\n")
    edit(pack / "pack.yaml", "key: title}", "key: number}")


@pytest.mark.parametrize("break_it, expected", [
    (lambda p: (p / "pack.yaml").unlink(), r"^pack\.yaml: file not found$"),
    (lambda p: (p / "cards/deck.yaml").unlink(),
     r"^pack\.yaml:\d+: data\[0\]: file not found: deck\.yaml$"),
    (lambda p: (p / "cards/schemas/deck.yaml").unlink(),
     r"^pack\.yaml:\d+: data\[0\]: file not found: cards/schemas/deck\.yaml \(hint: "),
    (lambda p: (p / "templates/layouts/front.yaml").unlink(),
     r"^pack\.yaml:\d+: decks\[0\]\.front: no layout 'front' \(no templates/layouts/front\.yaml\)"),
    (lambda p: (p / "templates/layouts/back.yaml").unlink(),
     r"^pack\.yaml:\d+: decks\[0\]\.back: no layout 'back' \(no templates/layouts/back\.yaml\)"),
    (_no_title_on_one_card,
     r"^cards/deck\.yaml:\d+:\d+: cards\[3\]: required field 'title' is missing$"),
    (_no_title_anywhere, r"^templates/layouts/front\.yaml:\d+: boxes\.title\.text: .*'title'"),
], ids=["pack.yaml", "data", "schema", "front", "back", "field", "field-in-layout"])
def test_validate_names_each_missing_piece(tmp_path, capsys, break_it, expected):
    pack = new(tmp_path)
    assert main(["validate", str(pack)]) == 0
    capsys.readouterr()
    break_it(pack)
    assert main(["validate", str(pack)]) == 1
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert "Traceback" not in captured.err
    assert re.match(r"^eti-print: \d+ problems? found$", lines[-1]), lines
    assert any(re.search(expected, line) for line in lines[:-1]), lines
    assert len(lines) <= 3, lines      # one line per missing piece, not one per card


def test_validate_names_a_missing_field_in_a_spreadsheet(tmp_path, capsys):
    pack = new(tmp_path, "--data", "csv")
    capsys.readouterr()
    path = pack / "cards" / "deck.csv"
    path.write_text("\n".join(line.split(",", 1)[1] for line in path.read_text().splitlines())
                    + "\n")
    assert main(["validate", str(pack)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines() == [
        "cards/deck.csv:1: no column for the required field 'title' (hint: the first row "
        "names the fields: add a title column)", "eti-print: 1 problem found"]


# -- the defaults ---------------------------------------------------------------------------

def test_a_pack_with_its_own_fonts_uses_only_those(tmp_path, capsys):
    pack = new(tmp_path)
    capsys.readouterr()
    (pack / "fonts").mkdir()
    assert main(["validate", str(pack)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("fonts/fonts.yaml: file not found"), err


def test_a_packs_sheets_add_to_and_override_the_standard_ones(tmp_path, capsys):
    pack = new(tmp_path)
    capsys.readouterr()
    (pack / "templates" / "sheets.yaml").write_text(
        "sheets:\n"
        "  poker: {width: 2in, height: 3in, bleed: 2mm}\n"
        "  huge: {width: 5in, height: 7in, bleed: 3mm}\n")
    pdf = build(pack) / "mygame-cards.pdf"
    form = next(iter(PdfReader(str(pdf)).pages[0]["/Resources"]["/XObject"].values()))
    x0, y0, x1, y1 = (float(v) for v in form.get_object()["/BBox"])
    bleed = 2 * 72 / 25.4
    assert (x1 - x0, y1 - y0) == pytest.approx((144 + 2 * bleed, 216 + 2 * bleed), abs=0.01)
    # a standard setting the pack does not override is still there
    edit(pack / "pack.yaml", "sheet: poker", "sheet: bridge")
    build(pack)
    edit(pack / "pack.yaml", "sheet: bridge", "sheet: brige")
    assert main(["validate", str(pack)]) == 1
    err = capsys.readouterr().err
    assert "unknown sheet setting 'brige'" in err and "huge" in err and "tarot" in err


@pytest.mark.parametrize("duplex", ["long", "short", "none"])
def test_a_one_sided_deck_imposes_no_backs_in_any_duplex_mode(tmp_path, duplex):
    pack = new(tmp_path, "--one-sided")
    counts = placements(build(pack, "--duplex", duplex) / "mygame-cards.pdf")
    assert counts == [8, 9, 3]        # the first sheet's last slot: the scale check


def test_exports_of_a_one_sided_deck_have_fronts_only(tmp_path):
    pytest.importorskip("pypdfium2")
    pack = new(tmp_path, "--one-sided", "--size", "mini")
    out = tmp_path / "export"
    for kind in ("pdf", "png", "tts"):
        assert main(["export", kind, str(pack), "--out", str(out), "--quiet"]) == 0
    pdfs = list((out / "pdf").glob("*.pdf"))
    assert len(pdfs) == 1 and len(PdfReader(str(pdfs[0])).pages) == CARDS
    pngs = sorted(p.name for p in (out / "png").glob("*.png"))
    assert len(pngs) == CARDS and all(name.endswith("-front.png") for name in pngs)
    assert (out / "tts" / "mygame-01-cards-back.jpg").is_file()


def test_the_help_names_every_standard_size(capsys):
    with pytest.raises(SystemExit):
        main(["new", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for size in sizes():
        assert re.search(rf"\b{re.escape(size)}\b", out), size


def test_a_part_without_a_back_gets_blank_backs_beside_parts_with_one(tmp_path):
    pack = new(tmp_path)
    edit(pack / "pack.yaml", "    items: [deck.cards]    # the cards: every item of the list "
         "`cards` in deck\n    # The front of every card: templates/layouts/front.yaml.\n"
         "    front: front\n", "    parts:\n      - {items: [deck.cards], front: front, "
         "back: back}\n      - {cards: [{title: Extra, number: 21}], front: front}\n")
    edit(pack / "pack.yaml", "\n    back: back\n", "\n")
    counts = placements(build(pack) / "mygame-cards.pdf")
    # 21 cards, every front sheet with its backs; the first keeps a slot for the scale check
    assert counts == [8, 8, 9, 9, 4, 4]



def test_new_wires_in_the_json_schemas_for_editors(tmp_path):
    """``.vscode/settings.json`` maps the JSON Schemas ``new`` wrote onto the pack's files,
    and each file of the new pack passes its schema (what yaml-language-server checks)."""
    import glob
    import json

    import jsonschema
    import yaml

    from eti_print.newpack import new_pack
    pack = tmp_path / "game"
    new_pack(pack)
    mapping = json.loads((pack / ".vscode/settings.json").read_text())["yaml.schemas"]
    checked = set()
    for schema_path, patterns in mapping.items():
        schema = json.loads((pack / schema_path).read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        for pattern in patterns:
            for file in glob.glob(str(pack / pattern)):
                jsonschema.validate(yaml.safe_load(open(file, encoding="utf-8")), schema)
                checked.add(str(__import__("pathlib").Path(file).relative_to(pack)))
    assert {"pack.yaml", "cards/deck.yaml", "templates/layouts/front.yaml",
            "templates/layouts/back.yaml"} <= checked
    layout = json.loads((pack / ".schemas/layout.schema.json").read_text())
    broken = yaml.safe_load((pack / "templates/layouts/front.yaml").read_text())
    next(iter(broken["boxes"].values()))["colr"] = "#000000"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, layout)
