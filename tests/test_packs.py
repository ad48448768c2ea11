"""Packs other than E.T.I.: any pack folder builds and validates, generic checks,
boards and documents, a new deck type from YAML alone, located errors."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from eti_print.cli import main
from eti_print.dataset import CHECK_KINDS, load_dataset
from eti_print.errors import InputError
from eti_print.options import PrintOptions
from eti_print.pack import Pack
from eti_print.pipeline import build, jobs
from eti_print.pipeline import load_checked as load_context
from eti_print.pipeline import validate as validate_pack

from conftest import edit, line_of
from pdfcheck import pdf_text

REPO = Path(__file__).resolve().parents[1]
PACKS = REPO / "packs"
BUNDLED = ("sci-tech", "mad-scientists")


def copy_bundled(name: str, dest: Path) -> Path:
    shutil.copytree(PACKS / name, dest)
    return dest


def problems_of(excinfo) -> list[str]:
    return [str(p) for p in excinfo.value.problems]


# ---------------------------------------------------------------------------
# Every bundled pack: builds, validates, is deterministic, embeds its fonts


@pytest.fixture(scope="module")
def built(session_build) -> dict[str, Path]:
    return {name: session_build(name) for name in BUNDLED}


EXPECTED_FILES = {
    "sci-tech": {"sci-tech-markers.pdf", "sci-tech-rules-reference.pdf",
                 "sci-tech-manifest.json"},
    "mad-scientists": {"mad-scientists-counters.pdf", "mad-scientists-boards.pdf",
                       "mad-scientists-rules-reference.pdf", "mad-scientists-manifest.json"},
}


@pytest.mark.parametrize("name", BUNDLED)
def test_outputs_are_named_after_the_pack(built, name):
    assert {p.name for p in built[name].iterdir()} == EXPECTED_FILES[name]


@pytest.mark.parametrize("name", BUNDLED)
def test_validate_summarises_the_pack(name):
    summary = validate_pack(str(PACKS / name))
    assert ": OK - " in summary and "1 document" in summary
    if name == "mad-scientists":
        assert "76 chits" in summary and "1 board" in summary
    else:
        assert "30 markers" in summary


@pytest.mark.parametrize("name", BUNDLED)
def test_manifest_lists_every_file_with_its_hash(built, name):
    import json
    manifest = json.loads((built[name] / f"{name}-manifest.json").read_text())
    assert manifest["slug"] == name
    for entry in manifest["files"]:
        data = (built[name] / entry["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"]
    kinds = {entry["kind"] for entry in manifest["files"]}
    assert "reference" in kinds and "cards" in kinds


def test_eti_builds_through_the_generic_job_types():
    ctx = load_context(None, PrintOptions())
    assert [job.key for job in jobs(ctx)] == ["decks", "boards", "pieces", "documents"]
    assert all(job.name.startswith("eti_print.jobs.") for job in jobs(ctx))
    sci = load_context("sci-tech", PrintOptions())
    assert [job.key for job in jobs(sci)] == ["decks", "documents"]


# ---------------------------------------------------------------------------
# The command line on pack folders and bundled names


def test_cli_builds_a_bundled_pack_by_name_into_output(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)      # no ./sci-tech here: the bundled pack is used
    assert main(["build", "sci-tech", "--quiet"]) == 0
    assert (tmp_path / "output" / "sci-tech-markers.pdf").is_file()
    assert main(["validate", "mad-scientists"]) == 0
    assert "Mad Scientists: OK" in capsys.readouterr().out


def test_pack_open_resolves_bundled_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert Pack.open("sci-tech").root == (PACKS / "sci-tech").resolve()
    # a folder of that name in the current directory wins over the bundled pack
    local = copy_bundled("sci-tech", tmp_path / "sci-tech")
    assert Pack.open("sci-tech").root == local.resolve()


def test_cli_subprocess_build_with_out(tmp_path):
    out = tmp_path / "st"
    result = subprocess.run([sys.executable, "-m", "eti_print.cli", "build",
                             str(PACKS / "mad-scientists"), "--out", str(out), "--quiet",
                             "--paper", "letter"], capture_output=True, text=True,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(
        name.replace(".", "-letter.") for name in EXPECTED_FILES["mad-scientists"])


def _cli_error(args, capsys) -> list[str]:
    code = main(args)
    err = capsys.readouterr().err
    assert code == 1, err
    # progress lines ("rendering ...") come first on stderr; then the problems
    return [line for line in err.splitlines() if not line.startswith("rendering ")]


@pytest.mark.parametrize("name,file,old,new", [
    ("sci-tech", "cards/fields.yaml", "    markers: 6\n    action: playing an Edict card",
     "    markers: [6\n    action: playing an Edict card"),
    ("mad-scientists", "cards/chits.yaml", '{name: Robots, type: U, move: "2"',
     '{name: Robots, type: U, move: "2}'),
])
def test_broken_yaml_is_reported_with_file_and_line(tmp_path, capsys, name, file, old, new):
    pack = copy_bundled(name, tmp_path / name)
    edit(pack / file, old, new)
    lines = _cli_error(["build", str(pack), "--out", str(tmp_path / "out")], capsys)
    assert lines[0].startswith(f"{file}:"), lines
    line = int(lines[0].split(":")[1])
    assert abs(line - line_of(pack / file, new.splitlines()[0].strip())) <= 2
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name,file,old,new,needle", [
    ("sci-tech", "templates/layouts/marker-level-1.yaml", "    tracking: 1.1pt",
     "    trackking: 1.1pt", "trackking"),
    ("mad-scientists", "templates/layouts/chit.yaml", "    size: 11pt", "    size: 11qt", "11qt"),
    ("mad-scientists", "templates/layouts/board.yaml", "    stroke_width: 1.2pt",
     "    stroke_width: 1.2pt\n    colour: red", "colour"),
])
def test_broken_layout_is_reported_with_file_and_line(tmp_path, capsys, name, file, old, new,
                                                      needle):
    pack = copy_bundled(name, tmp_path / name)
    edit(pack / file, old, new)
    lines = _cli_error(["build", str(pack), "--out", str(tmp_path / "out")], capsys)
    assert lines[0].startswith(f"{file}:{line_of(pack / file, needle)}:"), lines


def test_broken_data_value_is_reported_with_file_and_line(tmp_path, capsys):
    pack = copy_bundled("mad-scientists", tmp_path / "ms")
    edit(pack / "cards/chits.yaml", '{name: Mutants, type: U, move: "2"',
         '{name: Mutants, type: U, move: "two"')
    lines = _cli_error(["validate", str(pack)], capsys)
    line = line_of(pack / "cards/chits.yaml", "name: Mutants")
    assert lines[0].startswith(f"cards/chits.yaml:{line}:"), lines
    assert "move" in lines[0]


def test_reference_template_errors_name_the_template_line(tmp_path, capsys):
    pack = copy_bundled("sci-tech", tmp_path / "st")
    template = pack / "templates/reference/rules.j2"
    edit(template, "<h2 toc=\"no\">Advocacy</h2>", "<h2 toc=\"no\">Advocacy</h2>\n<blink>!</blink>")
    lines = _cli_error(["build", str(pack), "--out", str(tmp_path / "out")], capsys)
    assert lines[0].startswith(f"templates/reference/rules.j2:{line_of(template, '<blink>')}:"), \
        lines
    assert "blink" in lines[0]


def test_reference_longer_than_its_page_limit_fails(tmp_path, capsys):
    pack = copy_bundled("sci-tech", tmp_path / "st")
    edit(pack / "pack.yaml", "    size: 7.9", "    size: 14")
    lines = _cli_error(["build", str(pack), "--out", str(tmp_path / "out")], capsys)
    assert lines[0].startswith(f"pack.yaml:{line_of(pack / 'pack.yaml', 'pages: 1')}:"), lines
    assert "more than 1" in lines[0]


# ---------------------------------------------------------------------------
# Declarative checks: allowed and file


def test_check_kinds_include_allowed_and_file():
    assert {"count", "unique", "ref", "art", "allowed", "file"} <= set(CHECK_KINDS)


def test_allowed_check_reports_the_value_with_its_line(tmp_path):
    pack = copy_bundled("mad-scientists", tmp_path / "ms")
    edit(pack / "cards/chits.yaml", "{name: Zombies, type: U,", "{name: Zombies, type: Z,")
    with pytest.raises(InputError) as info:
        load_dataset(Pack.open(pack))
    found = [p for p in problems_of(info) if "not allowed" in p]
    line = line_of(pack / "cards/chits.yaml", "name: Zombies")
    assert len(found) == 1 and found[0].startswith(f"cards/chits.yaml:{line}:")
    assert "type 'Z' is not allowed" in found[0] and "allowed: B, U, M, S" in found[0]


def test_allowed_check_compares_types_strictly(tmp_path):
    pack = copy_bundled("sci-tech", tmp_path / "st")
    edit(pack / "pack.yaml", "{allowed: fields.fields, key: markers, values: [6]}",
         "{allowed: fields.fields, key: markers, values: ['6']}")
    with pytest.raises(InputError) as info:
        load_dataset(Pack.open(pack))
    assert sum("markers 6 is not allowed" in p for p in problems_of(info)) == 5


def test_allowed_check_needs_values(tmp_path):
    pack = copy_bundled("sci-tech", tmp_path / "st")
    edit(pack / "pack.yaml", ", values: [6]}", "}")
    with pytest.raises(InputError) as info:
        load_dataset(Pack.open(pack))
    [message] = problems_of(info)
    assert message.startswith("pack.yaml:") and "needs values" in message


def test_allowed_check_on_list_values(tmp_path):
    pack = copy_bundled("mad-scientists", tmp_path / "ms")
    edit(pack / "pack.yaml", "  - {art: chits.chits, key: icon}",
         "  - {art: chits.chits, key: icon}\n"
         "  - {allowed: chits.chits, key: notes, values: [Troops, Gun]}")
    with pytest.raises(InputError) as info:
        load_dataset(Pack.open(pack))
    bad = {p.split("notes ")[1].split(" is not")[0] for p in problems_of(info)}
    assert "'Stealth'" in bad and "'Troops'" not in bad and "'Gun'" not in bad


def test_file_check_finds_missing_and_escaping_files(tmp_path):
    pack = copy_bundled("sci-tech", tmp_path / "st")
    (pack / "fonts/RoutedGothic-LICENSE-OFL.txt").unlink()
    edit(pack / "cards/credits.yaml", "file: fonts/OpenSans-COPYRIGHT.txt",
         "file: ../../etc/passwd")
    with pytest.raises(InputError) as info:
        load_dataset(Pack.open(pack))
    messages = problems_of(info)
    credits = pack / "cards/credits.yaml"
    assert any(m.startswith(f"cards/credits.yaml:{line_of(credits, 'Routed Gothic')}:")
               and "file not found" in m for m in messages), messages
    assert any(m.startswith(f"cards/credits.yaml:{line_of(credits, 'etc/passwd')}:")
               and "'..'" in m for m in messages), messages


def test_file_check_refuses_absolute_paths_and_symlinks_out(tmp_path):
    pack = copy_bundled("sci-tech", tmp_path / "st")
    outside = tmp_path / "secret.txt"
    outside.write_text("x")
    os.symlink(outside, pack / "fonts/link.txt")
    edit(pack / "cards/credits.yaml", "file: fonts/OpenSans-COPYRIGHT.txt",
         "file: fonts/link.txt")
    edit(pack / "cards/credits.yaml", "file: fonts/RoutedGothic-LICENSE-OFL.txt",
         f"file: {outside}")
    with pytest.raises(InputError) as info:
        load_dataset(Pack.open(pack))
    messages = " | ".join(problems_of(info))
    assert "leads outside the pack" in messages and "absolute path" in messages


def test_file_check_base_folder(tmp_path):
    pack = copy_bundled("sci-tech", tmp_path / "st")
    edit(pack / "pack.yaml", "{file: credits.fonts, key: file}",
         "{file: credits.fonts, key: file, base: fonts}")
    with pytest.raises(InputError) as info:      # now fonts/fonts/...: not found
        load_dataset(Pack.open(pack))
    assert len(problems_of(info)) == 3
    for old in ("fonts/OpenSans-LICENSE", "fonts/OpenSans-COPYRIGHT", "fonts/RoutedGothic"):
        edit(pack / "cards/credits.yaml", f"file: {old}", f"file: {old[len('fonts/'):]}")
    load_dataset(Pack.open(pack))


def test_a_check_with_two_kinds_is_refused(tmp_path):
    pack = copy_bundled("sci-tech", tmp_path / "st")
    edit(pack / "pack.yaml", "{unique: fields.fields, key: id}",
         "{unique: fields.fields, file: fields.fields, key: id}")
    with pytest.raises(InputError) as info:
        load_dataset(Pack.open(pack))
    [message] = problems_of(info)
    assert "exactly one of count, unique, ref, art, allowed, file" in message


# ---------------------------------------------------------------------------
# A new deck type: data, schema, layouts and a deck entry - no Python


GADGETS = """\
gadgets:
  - {id: death-ray, name: Death Ray Mk II, power: 9, quip: Mostly harmless.}
  - {id: shrink-beam, name: Shrink Beam, power: 3, quip: Now in travel size.}
  - {id: cloning-vat, name: Cloning Vat, power: 5, quip: Twice the genius.}
"""
GADGET_SCHEMA = """\
description: Gadgets, a deck added to the pack in YAML only.
schema:
  gadgets:
    type: list
    description: The gadgets.
    schema:
      type: dict
      description: One gadget.
      schema:
        id: {type: string, regex: "^[a-z0-9]+(-[a-z0-9]+)*$", description: "Id."}
        name: {type: string, description: "Name."}
        power: {type: integer, min: 1, max: 10, description: "Power."}
        quip: {type: string, description: "A line of text."}
"""
GADGET_FRONT = """\
description: Gadget front.
boxes:
  ground: {type: rect, bleed: true, fill: "#335577"}
  name: {type: text, x: 3mm, y: 3mm, width: 44mm, height: 10mm, font: title, size: 14pt,
         color: "#FFFFFF", text: "{{ card.name }}"}
  power: {type: text, x: 3mm, y: 14mm, width: 44mm, height: 8mm, font: body, size: 10pt,
          color: "#FFFFFF", text: "Power {{ card.power }}"}
  quip: {type: text, x: 3mm, y: 24mm, width: 44mm, height: 20mm, font: body, size: 8pt,
         color: "#FFFFFF", text: "<i>{{ card.quip }}</i>"}
"""
GADGET_BACK = """\
description: Gadget back.
boxes:
  ground: {type: rect, bleed: true, fill: "#112233"}
  mark: {type: text, x: 3mm, y: 30mm, width: 44mm, height: 10mm, font: title, size: 12pt,
         align: center, color: "#FFFFFF", text: GADGET}
"""


def test_a_new_deck_type_needs_yaml_and_a_layout_only(tmp_path):
    pack = copy_bundled("sci-tech", tmp_path / "pack")
    (pack / "cards/gadgets.yaml").write_text(GADGETS)
    (pack / "cards/schemas/gadgets.yaml").write_text(GADGET_SCHEMA)
    (pack / "templates/layouts/gadget.yaml").write_text(GADGET_FRONT)
    (pack / "templates/layouts/gadget-back.yaml").write_text(GADGET_BACK)
    with (pack / "templates/sheets.yaml").open("a") as f:
        f.write("  mini:\n    width: 50mm\n    height: 70mm\n    bleed: 3mm\n")
    edit(pack / "pack.yaml", "data: [fields, credits]", "data: [fields, credits, gadgets]")
    edit(pack / "pack.yaml", "\ndocuments:", """
  - id: gadgets
    title: Gadget cards
    items: [gadgets.gadgets]
    front: gadget
    back: gadget-back
    sheet: mini
    output: gadgets

documents:""")
    out = tmp_path / "out"
    report = build(str(pack), out, PrintOptions())
    assert "sci-tech-gadgets.pdf: 2 pages (3 gadgets)" in report
    text = pdf_text(out / "sci-tech-gadgets.pdf")
    for name, quip in (("Death Ray Mk II", "Mostly harmless."), ("Shrink Beam", "travel size"),
                       ("Cloning Vat", "Twice the genius.")):
        assert name in text and quip in text
    assert "Power 9" in text and "GADGET" in text
    # the pack's own outputs are still there
    assert (out / "sci-tech-markers.pdf").is_file()


# ---------------------------------------------------------------------------
# Generic boards


def _add_board(pack: Path, width: str, height: str, extra: str = "") -> None:
    (pack / "templates/layouts/tiny-board.yaml").write_text(
        "description: A test board.\n"
        "boxes:\n"
        "  ground: {type: rect, bleed: true, fill: '#223344'}\n"
        "  cell:\n"
        "    type: rect\n"
        "    repeat: 4\n"
        "    step: 0mm\n"
        "    x: \"{{ (i % 2) * board.width / 2 }}mm\"\n"
        "    y: \"{{ (i // 2) * board.height / 2 }}mm\"\n"
        "    width: \"{{ board.width / 2 }}mm\"\n"
        "    height: \"{{ board.height / 2 }}mm\"\n"
        "    fill: \"{{ '#EEEEEE' if i in (0, 3) else '#999999' }}\"\n"
        "  title: {type: text, x: 5mm, y: 5mm, width: 60mm, height: 10mm, font: title,\n"
        "          size: 12pt, text: \"{{ board.title }} {{ board.width_in }}in\"}\n")
    edit(pack / "pack.yaml", "\ndocuments:",
         f"\nboards:\n  - {{id: tiny, title: Tiny board, layout: tiny-board, width: {width}, "
         f"height: {height}{extra}}}\n\ndocuments:")


def test_a_board_that_fits_is_one_page(tmp_path):
    pack = copy_bundled("sci-tech", tmp_path / "pack")
    _add_board(pack, "6in", "4in")
    out = tmp_path / "out"
    build(str(pack), out, PrintOptions())
    reader = PdfReader(out / "sci-tech-boards.pdf")
    assert len(reader.pages) == 1          # the scale check beside the board: room enough
    assert "Tiny board 6.0in" in pdf_text(out / "sci-tech-boards.pdf")
    assert [o.title for o in reader.outline] == ["Tiny board (1 sheet)"]


def test_a_big_board_is_tiled_with_a_page_map(tmp_path):
    pack = copy_bundled("sci-tech", tmp_path / "pack")
    _add_board(pack, "350mm", "350mm", ", overlap: 12mm, output: big")
    out = tmp_path / "out"
    build(str(pack), out, PrintOptions(paper="a4"))
    text = pdf_text(out / "sci-tech-big.pdf")
    reader = PdfReader(out / "sci-tech-big.pdf")
    assert len(reader.pages) == 5          # the scale check's sheet, then 2 x 2
    assert "sheet 1 of 4" in text and "sheet 4 of 4" in text and "GLUE" in text


def test_board_errors_are_located_in_pack_yaml(tmp_path, capsys):
    pack = copy_bundled("sci-tech", tmp_path / "pack")
    _add_board(pack, "6in", "4in")
    edit(pack / "pack.yaml", "layout: tiny-board", "layout: no-such-board")
    lines = _cli_error(["build", str(pack), "--out", str(tmp_path / "out")], capsys)
    assert lines[0].startswith(f"pack.yaml:{line_of(pack / 'pack.yaml', 'no-such-board')}:")
    edit(pack / "pack.yaml", "layout: no-such-board", "layout: tiny-board")
    edit(pack / "pack.yaml", "width: 6in", "width: 6 inches")
    lines = _cli_error(["build", str(pack), "--out", str(tmp_path / "out")], capsys)
    assert lines[0].startswith(f"pack.yaml:{line_of(pack / 'pack.yaml', '6 inches')}:")


# ---------------------------------------------------------------------------
# The wheel: what `pip install .` puts on a machine, and what it then builds


def _pip(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
                          capture_output=True, text=True, timeout=600, cwd=cwd)


@pytest.fixture(scope="module")
def wheel(shared_folder) -> Path:
    """The project's wheel, built by pip once per session (offline: the build backend
    from the local index, or the one installed here)."""
    import importlib.util

    def make(folder: Path) -> None:
        isolation = [] if importlib.util.find_spec("hatchling") is None \
            else ["--no-build-isolation"]
        done = _pip("wheel", "--no-deps", "-q", *isolation, "-w", str(folder), str(REPO))
        if done.returncode != 0:
            if "hatchling" in done.stderr and "No matching distribution" in done.stderr:
                pytest.skip("the build backend (hatchling) is not available")
            raise AssertionError(f"pip wheel failed:\n{done.stderr}")

    [found] = shared_folder("wheel", make).glob("eti_print-*.whl")
    return found


@pytest.fixture(scope="module")
def site(wheel, shared_folder) -> Path:
    """The wheel installed, non-editable, into a folder of its own (``pip --target``)."""
    def make(folder: Path) -> None:
        done = _pip("install", "--no-deps", "--no-index", "-q", "--target", str(folder),
                    str(wheel))
        assert done.returncode == 0, done.stderr
    return shared_folder("site", make)


def _installed(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python ARGS`` with the installed copy first on the path (before the checkout)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


def test_the_wheel_holds_each_font_once_and_the_licence(wheel):
    import zipfile
    with zipfile.ZipFile(wheel) as whl:
        names = whl.namelist()
        fonts: dict[str, list[str]] = {}
        for name in names:
            if name.lower().endswith((".ttf", ".otf")):
                fonts.setdefault(hashlib.sha256(whl.read(name)).hexdigest(), []).append(name)
    twice = [found for found in fonts.values() if len(found) > 1]
    assert not twice, twice
    assert len(fonts) == len(list((REPO / "fonts").glob("*.ttf")))
    dist_info = {n for n in names if n.split("/")[0].endswith(".dist-info")}
    assert any(n.endswith("/LICENSE") for n in dist_info), sorted(dist_info)
    # the packs are there, their fonts' licences beside them; nothing built came along
    for name in ("eti_print/_pack/pack.yaml", "eti_print/_pack/fonts/fonts.yaml",
                 "eti_print/packs/sci-tech/pack.yaml",
                 "eti_print/packs/mad-scientists/fonts/RoutedGothic-LICENSE-OFL.txt"):
        assert name in names
    assert not [n for n in names if "/output/" in n or n.endswith(".pyc")]
    [metadata] = [n for n in dist_info if n.endswith("/METADATA")]
    with zipfile.ZipFile(wheel) as whl:
        meta = whl.read(metadata).decode()
    for line in ("Project-URL: Homepage, https://github.com/eti-print/eti-print",
                 "Project-URL: Issues, https://github.com/eti-print/eti-print/issues",
                 "Classifier: License :: OSI Approved :: MIT License",
                 "Classifier: Topic :: Games/Entertainment :: Board Games"):
        assert line in meta.splitlines(), line


def test_an_installed_eti_print_builds_the_pack_it_stands_in(site, tmp_path):
    """After a non-editable install, a build in an edited copy of the checkout prints
    the edited card, not the copy installed beside the package."""
    from conftest import copy_pack
    pack = copy_pack(tmp_path / "my-eti", REPO)
    edit(pack / "cards/events.yaml", "title: Laboratory Fire", "title: Laboratory Flood")
    (pack / "cards/deep").mkdir()
    out = tmp_path / "out"
    done = _installed(site, "-m", "eti_print", "build", "--quiet", "--out", str(out),
                      cwd=pack / "cards" / "deep")
    assert done.returncode == 0, done.stderr
    assert done.stderr == "" and done.stdout == ""
    text = pdf_text(out / "eti-cards.pdf")
    assert "Laboratory Flood" in text and "Laboratory Fire" not in text


def test_an_installed_eti_print_has_every_bundled_pack_and_its_fonts(site, tmp_path):
    script = ("import sys, eti_print\n"
              "from eti_print.cli import main\n"
              "print(eti_print.__file__)\n"
              "sys.exit(main(['validate', 'sci-tech']) or main(['validate', 'mad-scientists'])"
              " or main(['schema', 'events']))\n")
    done = _installed(site, "-c", script, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert Path(lines[0]).resolve() == (site / "eti_print" / "__init__.py").resolve()
    assert any(line.startswith("Sci-Tech") and ": OK" in line for line in lines)
    assert any(line.startswith("Mad Scientists") and ": OK" in line for line in lines)
    # no pack.yaml in tmp_path or above it: the installed E.T.I. pack, said in one line
    assert done.stderr.splitlines() == [
        f"eti-print: no pack.yaml here or above; using the bundled E.T.I. pack at "
        f"{(site / 'eti_print' / '_pack').resolve()}"]


def test_an_installed_eti_print_makes_a_new_pack_that_builds(site, tmp_path):
    """``new`` from the wheel: the scaffold, the standard sheets and the bundled fonts
    are all inside the installed package."""
    done = _installed(site, "-m", "eti_print", "new", "mygame", "--size", "mini", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = _installed(site, "-m", "eti_print", "build", "--quiet", cwd=tmp_path / "mygame")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    text = pdf_text(tmp_path / "mygame" / "output" / "mygame-cards.pdf")
    assert "Acorn" in text and "Tundra" in text
