"""Messages that say what was meant: "did you mean" for names, the quoting hint for
YAML text, where a count is set; and the command-line conventions (-q/-v anywhere,
print defaults in pack.yaml)."""

from __future__ import annotations

from pathlib import Path

import pytest

from eti_print.cli import main
from eti_print.suggest import did_you_mean, nearest

from conftest import ROOT, copy_pack, edit, line_of, problems


def test_nearest_name_or_none() -> None:
    assert nearest("biuld", ["build", "validate", "watch"]) == "build"
    assert nearest("Title", ["title", "text"]) == "title"
    assert nearest("zzzz", ["build", "validate"]) is None
    assert did_you_mean("pgn", ["pdf", "png"]) == "did you mean png?"


def test_a_mistyped_command_suggests_the_nearest_and_exits_2(capsys) -> None:
    assert main(["biuld"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'biuld'" in err and err.rstrip().endswith("did you mean build?")


def test_a_mistyped_export_kind_suggests_the_nearest(capsys) -> None:
    assert main(["export", "pgn"]) == 2
    assert "did you mean png?" in capsys.readouterr().err


def test_an_unknown_data_field_suggests_the_nearest_allowed_field(tmp_path: Path) -> None:
    pack = copy_pack(tmp_path / "pack")
    events = pack / "cards/events.yaml"
    edit(events, "    title: The Great Blackout", "    titel: The Great Blackout")
    line = line_of(events, "titel: The Great Blackout")
    found = [p for p in problems(pack) if "unknown field" in p]
    assert found, problems(pack)
    assert found[0].startswith(f"cards/events.yaml:{line}:")
    assert "events[0].titel: unknown field (hint: did you mean title?)" in found[0]


def test_an_unknown_pack_yaml_key_suggests_the_nearest(tmp_path: Path) -> None:
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "pack.yaml", "decks:", "deks:")
    assert any("deks: unknown field (hint: did you mean decks?)" in p for p in problems(pack))


def test_an_unknown_icon_in_card_text_suggests_the_nearest_art(tmp_path: Path) -> None:
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "cards/events.yaml", ":threat-arson:", ":threat-arsn:")
    found = [p for p in problems(pack) if "threat-arsn" in p]
    assert found and "did you mean threat-arson?" in found[0], found


def test_an_unknown_font_role_suggests_the_nearest(tmp_path: Path) -> None:
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "templates/layouts/agenda-back.yaml", "font: label", "font: lable")
    found = [p for p in problems(pack) if "unknown font 'lable'" in p]
    assert found and "(hint: did you mean label?)" in found[0], problems(pack)
    assert found[0].startswith("templates/layouts/agenda-back.yaml:")


def test_a_mistyped_font_file_suggests_the_nearest(tmp_path: Path) -> None:
    pack = copy_pack(tmp_path / "pack")
    fonts = pack / "fonts/fonts.yaml"
    name = next(p.name for p in sorted((pack / "fonts").glob("*.ttf")))
    typo = name.replace(".ttf", "x.ttf")
    edit(fonts, name, typo)
    found = [p for p in problems(pack) if f"file not found: {typo}" in p]
    assert found and f"did you mean {name}?" in found[0], problems(pack)


def test_a_deck_naming_a_missing_layout_suggests_the_nearest(tmp_path: Path) -> None:
    pack = copy_pack(tmp_path / "pack")
    manifest = pack / "pack.yaml"
    edit(manifest, "front: event", "front: evnt")
    line = line_of(manifest, "front: evnt")
    found = [p for p in problems(pack) if "evnt" in p]
    assert found == [f"pack.yaml:{line}: decks[3].front: no layout 'evnt' (no "
                     f"templates/layouts/evnt.yaml) (hint: did you mean event?)"] \
        or (found and found[0].startswith(f"pack.yaml:{line}:")
            and "no layout 'evnt'" in found[0] and "did you mean event?" in found[0]), found


def test_an_unquoted_colon_in_card_text_gets_a_quoting_hint(tmp_path: Path, capsys) -> None:
    pack = copy_pack(tmp_path / "pack")
    events = pack / "cards/events.yaml"
    text = events.read_text(encoding="utf-8")
    old = next(line for line in text.splitlines() if line.startswith("    title: "))
    edit(events, old, "    title: Draw 2 cards: then discard")
    line = line_of(events, "Draw 2 cards: then discard")
    assert main(["validate", str(pack)]) == 1
    err = capsys.readouterr().err
    assert f"cards/events.yaml:{line}:" in err and "YAML syntax error: mapping values" in err
    assert ('(hint: a ": " inside a value needs the value in quotes: '
            'title: "Draw 2 cards: then discard")') in err


# --- -q and -v anywhere -----------------------------------------------------------


def _sci_tech(tmp_path: Path, print_section: str = "") -> Path:
    from conftest import PACKS
    pack = copy_pack(tmp_path / "st", Path(PACKS["sci-tech"]))
    if print_section:
        with open(pack / "pack.yaml", "a", encoding="utf-8") as f:
            f.write(print_section)
    return pack


def test_quiet_anywhere_prints_nothing_on_success(tmp_path: Path, capsys) -> None:
    pack = _sci_tech(tmp_path)
    for argv in (["-q", "validate", str(pack)], ["validate", "-q", str(pack)],
                 ["validate", str(pack), "--quiet"],
                 ["build", str(pack), "--out", str(tmp_path / "o"), "-q"]):
        assert main(argv) == 0, argv
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err == "", argv


def test_verbose_anywhere_says_where_each_print_option_is_set(tmp_path: Path, capsys) -> None:
    pack = _sci_tech(tmp_path, "print: {paper: letter}\n")
    line = line_of(pack / "pack.yaml", "print: {paper: letter}")
    assert main(["build", str(pack), "--duplex", "short", "--out", str(tmp_path / "o"),
                 "-v"]) == 0
    out = capsys.readouterr().out
    assert (f"print options: paper letter (pack.yaml:{line}), duplex short (the command line), "
            "back_offset 0,0 (the default), ink_saver no (the default)") in out.splitlines()


def test_verbose_lists_every_problem(tmp_path: Path, capsys) -> None:
    from eti_print.errors import PROBLEM_CAP
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "cards/projects.yaml", "    fame: ", "    fam: ", count=-1)
    assert main(["validate", str(pack)]) == 1
    short = capsys.readouterr().err.splitlines()
    assert len(short) == PROBLEM_CAP + 2 and short[-2].startswith("... and ")
    assert main(["validate", str(pack), "-v"]) == 1
    full = capsys.readouterr().err.splitlines()
    assert len(full) > PROBLEM_CAP + 2 and not any(x.startswith("... and ") for x in full)
    assert full[-1] == short[-1]


def test_quiet_and_verbose_together_is_a_usage_error(capsys) -> None:
    assert main(["validate", "-q", "-v"]) == 2
    assert "-q and -v do not go together" in capsys.readouterr().err


# --- print defaults in pack.yaml --------------------------------------------------


def _options(out: Path, slug: str = "sci-tech") -> dict:
    import json
    manifest = min(out.glob(f"{slug}-manifest*.json"), key=lambda p: len(p.name))
    return json.loads(manifest.read_text(encoding="utf-8"))["options"]


def test_pack_yaml_print_defaults_apply(tmp_path: Path) -> None:
    pack = _sci_tech(tmp_path, 'print: {paper: letter, duplex: short, back_offset: "0.5,-1", '
                               'ink_saver: true}\n')
    assert main(["build", str(pack), "--out", str(tmp_path / "o"), "-q"]) == 0
    assert _options(tmp_path / "o") == {"paper": "letter", "duplex": "short",
                                        "back_offset_mm": [0.5, -1.0], "ink_saver": True,
                                        "booklet": False}


def test_the_command_line_overrides_pack_yaml(tmp_path: Path) -> None:
    pack = _sci_tech(tmp_path, 'print: {paper: letter, duplex: short, back_offset: "0.5,-1"}\n')
    assert main(["build", str(pack), "--out", str(tmp_path / "o"), "-q", "--paper", "a4",
                 "--duplex", "none", "--back-offset", "0,0", "--ink-saver"]) == 0
    assert _options(tmp_path / "o") == {"paper": "a4", "duplex": "none",
                                        "back_offset_mm": [0.0, 0.0], "ink_saver": True,
                                        "booklet": False}


def test_without_either_the_built_in_defaults_apply(tmp_path: Path) -> None:
    pack = _sci_tech(tmp_path)
    assert main(["build", str(pack), "--out", str(tmp_path / "o"), "-q"]) == 0
    assert _options(tmp_path / "o") == {"paper": "a4", "duplex": "long",
                                        "back_offset_mm": [0.0, 0.0], "ink_saver": False,
                                        "booklet": False}


def test_a_bad_print_default_is_located_in_pack_yaml(tmp_path: Path, capsys) -> None:
    pack = _sci_tech(tmp_path, 'print:\n  paper: legal\n  back_offset: "30,0"\n')
    manifest = pack / "pack.yaml"
    assert main(["validate", str(pack)]) == 1
    err = capsys.readouterr().err
    assert f"pack.yaml:{line_of(manifest, 'paper: legal')}:" in err
    assert "print.paper: must be one of a4, letter (got 'legal')" in err
    edit(manifest, "paper: legal", "paper: letter")
    assert main(["build", str(pack), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert (f"pack.yaml:{line_of(manifest, 'back_offset')}: print.back_offset: back offset "
            "must be within 20 mm") in err


# --- output names carry the paper ---------------------------------------------------


def test_output_names_carry_a_paper_other_than_a4() -> None:
    from eti_print.options import PrintOptions
    assert PrintOptions().output_name("eti", "cards") == "eti-cards.pdf"
    assert PrintOptions(paper="letter").output_name("eti", "cards") == "eti-cards-letter.pdf"
    assert PrintOptions(paper="letter", ink_saver=True).output_name("eti", "manifest", "json") \
        == "eti-manifest-letter-ink-saver.json"


def test_a4_and_letter_builds_sit_side_by_side(tmp_path: Path) -> None:
    pack = _sci_tech(tmp_path)
    out = tmp_path / "o"
    assert main(["build", str(pack), "--out", str(out), "-q"]) == 0
    assert main(["build", str(pack), "--out", str(out), "-q", "--paper", "letter"]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "sci-tech-manifest-letter.json", "sci-tech-manifest.json", "sci-tech-markers-letter.pdf",
        "sci-tech-markers.pdf", "sci-tech-rules-reference-letter.pdf",
        "sci-tech-rules-reference.pdf"]
    assert _options(out)["paper"] == "a4"
    import json
    letter = json.loads((out / "sci-tech-manifest-letter.json").read_text(encoding="utf-8"))
    assert letter["options"]["paper"] == "letter"
    assert {f["file"] for f in letter["files"]} == {"sci-tech-markers-letter.pdf",
                                                   "sci-tech-rules-reference-letter.pdf"}


def test_a_count_check_says_where_its_number_is_set(tmp_path: Path) -> None:
    pack = copy_pack(tmp_path / "pack")
    events = pack / "cards/events.yaml"
    text = events.read_text(encoding="utf-8")
    start = text.index("  - id: the-great-blackout")
    end = text.index("  - id: ", start + 1)
    events.write_text(text[:start] + text[end:], encoding="utf-8")
    line = line_of(pack / "pack.yaml", "{count: events.events, equals: 25}")
    found = [p for p in problems(pack) if "expected 25" in p]
    assert found and found[0].endswith(f"events: has 24 cards; expected 25 "
                                       f"(set at pack.yaml:{line})"), found


# --- progress: a bar on a terminal, plain lines elsewhere ----------------------------


class _Terminal:
    """A stream that says it is a terminal, keeping what is written to it."""

    def __init__(self) -> None:
        import io
        self.buffer = io.StringIO()

    def write(self, text: str) -> int:
        return self.buffer.write(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return True


def test_progress_is_plain_lines_when_not_a_terminal() -> None:
    import io

    from eti_print.progress import Reporter, advance, start
    stream = io.StringIO()
    reporter = Reporter(stream)
    assert not reporter.tty
    start(reporter, 3, "faces")
    reporter("rendering png/a-*.png (3 cards, 3 distinct faces)")
    advance(reporter, 3)
    reporter.close()
    assert stream.getvalue() == "rendering png/a-*.png (3 cards, 3 distinct faces)\n"
    start(None, 3, "faces")     # no reporter, or one that does not count: nothing happens
    advance(print)


def test_export_png_on_a_terminal_draws_a_bar_over_every_face(tmp_path: Path) -> None:
    from eti_print.export import export
    from eti_print.progress import Reporter
    pack = _sci_tech(tmp_path)
    terminal = _Terminal()
    reporter = Reporter(terminal)
    assert reporter.tty
    export("png", str(pack), tmp_path / "o", progress=reporter)
    reporter.close()
    shown = terminal.buffer.getvalue()
    assert "\r" in shown and "rendering png/sci-tech-01-markers-*.png" in shown
    assert "card faces" in shown and "/10 " in shown      # 10 distinct faces in all
    assert "rendering png/sci-tech-01-markers-*.png (30 cards" not in shown   # details off
    assert shown.endswith("\r")                # the bar is taken off the terminal at the end


@pytest.mark.cold
def test_build_on_a_terminal_counts_its_jobs(tmp_path: Path) -> None:
    from eti_print.options import PrintOptions
    from eti_print.pipeline import build
    from eti_print.progress import Reporter
    pack = _sci_tech(tmp_path)
    terminal = _Terminal()
    reporter = Reporter(terminal)
    build(str(pack), tmp_path / "o", PrintOptions(), progress=reporter, cache=None)
    reporter.close()
    shown = terminal.buffer.getvalue()
    assert "rendering sci-tech-markers.pdf" in shown and "/2 " in shown and "jobs" in shown


def test_validate_checks_the_pack_yaml_print_defaults_as_build_does(tmp_path: Path,
                                                                    capsys) -> None:
    pack = _sci_tech(tmp_path, 'print: {back_offset: "30,0"}\n')
    assert main(["validate", str(pack)]) == 1
    assert "print.back_offset: back offset must be within 20 mm" in capsys.readouterr().err


def test_a_mistyped_field_in_a_template_suggests_the_nearest(tmp_path: Path) -> None:
    pack = copy_pack(tmp_path / "pack")
    layout = pack / "templates/layouts/event.yaml"
    edit(layout, 'text: "{{ card.title }}"', 'text: "{{ card.titel }}"')
    found = [p for p in problems(pack) if "titel" in p]
    assert found and found[0].startswith(f"templates/layouts/event.yaml:"
                                         f"{line_of(layout, 'card.titel')}:"), found
    assert "names available here: card," in found[0]
    assert "did you mean card.title" in found[0], found


def test_a_mistyped_name_in_a_template_suggests_the_nearest(tmp_path: Path) -> None:
    pack = copy_pack(tmp_path / "pack")
    layout = pack / "templates/layouts/event.yaml"
    edit(layout, 'text: "{{ card.title }}"', 'text: "{{ crad.title }}"')
    found = [p for p in problems(pack) if "crad" in p]
    assert found and "did you mean card?" in found[0], found


def test_a_mistyped_data_file_in_pack_yaml_suggests_the_nearest(tmp_path: Path) -> None:
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "pack.yaml", "items: [events.events]", "items: [evnts.events]")
    line = line_of(pack / "pack.yaml", "items: [evnts.events]")
    found = [p for p in problems(pack) if "no data file 'evnts'" in p]
    assert found and found[0].startswith(f"pack.yaml:{line}:"), problems(pack)
    assert found[0].endswith("(hint: did you mean events?)")


def test_python_m_eti_print_suggests_a_command_and_exits_2(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    result = subprocess.run([sys.executable, "-m", "eti_print", "biuld"], cwd=tmp_path,
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 2
    assert result.stderr.rstrip().endswith("did you mean build?") and "Traceback" not in \
        result.stderr


def test_validate_verbose_adds_the_print_options(tmp_path: Path, capsys) -> None:
    pack = _sci_tech(tmp_path, "print: {duplex: none}\n")
    assert main(["-v", "validate", str(pack)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Sci-Tech") or ": OK" in out[0]
    assert out[1].startswith("print options: paper a4 (the default), duplex none (pack.yaml:")


def test_a_mistyped_box_property_and_layout_key_suggest_the_nearest(tmp_path: Path) -> None:
    pack = copy_pack(tmp_path / "pack")
    layout = pack / "templates/layouts/agenda-back.yaml"
    edit(layout, "font: label", "fnot: label")
    edit(layout, "boxes:", "boxs:")
    assert [p for p in problems(pack) if "boxs" in p] == [
        "templates/layouts/agenda-back.yaml:3:1: boxs: unknown layout key 'boxs' "
        "(hint: did you mean boxes?)"]
    edit(layout, "boxs:", "boxes:")
    assert any("no property 'fnot'" in p and "(hint: did you mean font?)" in p
               for p in problems(pack)), problems(pack)


def test_calibrate_takes_the_paper_and_offset_of_the_pack_it_stands_in(
        tmp_path: Path, monkeypatch, capsys) -> None:
    pack = _sci_tech(tmp_path, 'print: {paper: letter, back_offset: "0.5,-1"}\n')
    line = line_of(pack / "pack.yaml", "print: {paper: letter")
    monkeypatch.chdir(pack)
    assert main(["calibrate", "--out", str(tmp_path / "o"), "-v"]) == 0
    out = capsys.readouterr().out
    assert (f"print options: paper letter (pack.yaml:{line}), duplex long (the default), "
            f"back_offset 0.5,-1 "
            f"(pack.yaml:{line})") in out
    assert (tmp_path / "o/calibration-letter.pdf").is_file()
    assert main(["calibrate", "--out", str(tmp_path / "o"), "--paper", "a4", "-v"]) == 0
    assert "paper a4 (the command line)" in capsys.readouterr().out
    monkeypatch.chdir(tmp_path)                  # no pack.yaml here or above: built in
    assert main(["calibrate", "--out", str(tmp_path / "o"), "-v"]) == 0
    assert ("paper a4 (the default), duplex long (the default), back_offset 0,0 (the default)"
            in capsys.readouterr().out)


def test_a_data_file_pack_yaml_does_not_list_is_named(tmp_path, capsys):
    """A file in cards/ that pack.yaml's data: does not name is read by nothing: validate
    and build say so (a spreadsheet twin of a listed file, chits.csv, is not one)."""
    import shutil

    from eti_print.cli import main
    pack = tmp_path / "ms"
    shutil.copytree(ROOT / "packs" / "mad-scientists", pack)
    assert main(["validate", str(pack)]) == 0
    assert "note:" not in capsys.readouterr().out            # chits.csv beside chits.yaml
    (pack / "cards" / "gadgets.yaml").write_text("gadgets: []\n")
    assert main(["validate", str(pack)]) == 0
    out = capsys.readouterr().out
    assert ("note: cards/gadgets.yaml is in cards/ but not in pack.yaml's data: list, so "
            "nothing reads it") in out
    assert main(["build", str(pack), "--out", str(tmp_path / "out")]) == 0
    assert "note: cards/gadgets.yaml" in capsys.readouterr().out
