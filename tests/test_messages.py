"""Messages that say what was meant: "did you mean" for names, the quoting hint for
YAML text, where a count is set; and the command-line conventions (-q/-v anywhere,
print defaults in pack.yaml)."""

from __future__ import annotations

from pathlib import Path

from eti_print.cli import main
from eti_print.suggest import did_you_mean, nearest

from conftest import copy_pack, edit, line_of, problems


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
