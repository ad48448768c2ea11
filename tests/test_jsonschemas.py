"""JSON Schemas for editors (``eti-print schema --json-schema DIR``): valid draft 2020-12
schemas that accept every shipped file and refuse broken ones."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from eti_print.cli import main
from eti_print.yamlload import load

from conftest import ROOT

jsonschema = pytest.importorskip("jsonschema")

PACKS = {"eti": ROOT, "sci-tech": ROOT / "packs/sci-tech",
         "mad-scientists": ROOT / "packs/mad-scientists"}


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, Path]:
    out = {}
    for name in PACKS:
        folder = tmp_path_factory.mktemp(name)
        assert main(["schema", name, "--json-schema", str(folder)]) == 0
        out[name] = folder
    return out


def validator(folder: Path, name: str):
    schema = json.loads((folder / name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(folder: Path, name: str, data) -> list[str]:
    return [e.message for e in validator(folder, name).iter_errors(data)]


@pytest.mark.parametrize("pack", list(PACKS))
def test_every_shipped_file_validates(written, pack):
    folder = written[pack]
    mapping = json.loads((folder / "yaml-schemas.json").read_text())["yaml.schemas"]
    assert {Path(p).name for p in mapping} >= {"pack.schema.json", "layout.schema.json",
                                               "fonts.schema.json"}
    checked = 0
    for schema_path, globs in mapping.items():
        v = validator(folder, Path(schema_path).name)
        for pattern in globs:
            for path in sorted(PACKS[pack].glob(pattern)):
                found = [f"{'/'.join(map(str, e.path))}: {e.message}"
                         for e in v.iter_errors(load(path).data)]
                assert not found, (path, found)
                checked += 1
    assert checked >= 5


def test_every_schema_is_written(written, capsys):
    names = {p.name for p in written["eti"].glob("*.schema.json")}
    assert {"pack.schema.json", "layout.schema.json", "sheets.schema.json", "fonts.schema.json",
            "boards.schema.json", "data-events.schema.json",
            "data-projects.schema.json"} <= names
    assert "boards.schema.json" not in {p.name for p in written["sci-tech"].iterdir()}


def test_a_broken_layout_is_refused(written):
    folder = written["eti"]
    layout = load(ROOT / "templates/layouts/event.yaml").data
    assert errors(folder, "layout.schema.json", layout) == []
    box = next(name for name, b in layout["boxes"].items() if b.get("type") == "rect")
    unknown = copy.deepcopy(layout)
    unknown["boxes"][box]["opacity"] = 0.5                # no box type has it
    assert errors(folder, "layout.schema.json", unknown)
    other = copy.deepcopy(layout)
    other["boxes"][box]["font"] = "body"                  # a text box's property
    assert errors(folder, "layout.schema.json", other)
    no_unit = copy.deepcopy(layout)
    no_unit["boxes"][box]["width"] = "57.5"
    assert errors(folder, "layout.schema.json", no_unit)
    bad_type = copy.deepcopy(layout)
    bad_type["boxes"][box]["type"] = "circle"
    assert errors(folder, "layout.schema.json", bad_type)
    templated = copy.deepcopy(layout)
    templated["boxes"][box]["width"] = "{{ card.width }}mm"
    assert errors(folder, "layout.schema.json", templated) == []


def test_broken_data_and_pack_yaml_are_refused(written):
    folder = written["eti"]
    events = load(ROOT / "cards/events.yaml").data
    wrong_type = copy.deepcopy(events)
    wrong_type["events"][0]["title"] = 5
    assert errors(folder, "data-events.schema.json", wrong_type)
    too_long = copy.deepcopy(events)
    too_long["events"][0]["text"] = "x" * 231
    assert errors(folder, "data-events.schema.json", too_long)
    unknown = copy.deepcopy(events)
    unknown["events"][0]["colour"] = "#FFFFFF"
    assert errors(folder, "data-events.schema.json", unknown)
    pack = load(ROOT / "pack.yaml").data
    bad_slug = dict(pack, slug="E.T.I.")
    assert errors(folder, "pack.schema.json", bad_slug)
    missing = {k: v for k, v in pack.items() if k != "data"}
    assert errors(folder, "pack.schema.json", missing)
    fonts = load(ROOT / "fonts/fonts.yaml").data
    assert errors(folder, "fonts.schema.json", {"fonts": {"body": {"bold": "x.ttf"}}})
    assert errors(folder, "fonts.schema.json", fonts) == []


def test_json_schema_option_takes_no_kind(tmp_path, capsys):
    assert main(["schema", "eti", "events", "--json-schema", str(tmp_path)]) == 2
    assert "give no KIND" in capsys.readouterr().err
    assert main(["schema", "eti", "--json-schema", str(tmp_path / "out")]) == 0
    assert "yaml-language-server" in capsys.readouterr().out
