"""The reference (``eti-print schema``, ``docs/reference.md``): complete, in words, and
made from the specs the checkers use, so that it cannot drift."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from eti_print import words
from eti_print.cli import main
from eti_print.reference import KINDS, REGENERATE, command, reference_markdown, spec

from conftest import ROOT, edit, line_of, problems

DOC = Path(__file__).resolve().parent.parent / "docs" / "reference.md"


# -- docs/reference.md ------------------------------------------------------------

def test_committed_reference_is_up_to_date():
    fresh = reference_markdown(str(ROOT)).rstrip() + "\n"
    assert DOC.read_text(encoding="utf-8") == fresh, \
        f"docs/reference.md is stale: regenerate it with {REGENERATE}"


def test_reference_covers_every_kind():
    text = DOC.read_text(encoding="utf-8")
    for kind in KINDS + ("events", "projects"):
        assert f"## `{kind}`" in text


# -- the command line ---------------------------------------------------------------

def test_schema_takes_pack_like_every_command(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert main(["schema", "."]) == 0
    out = capsys.readouterr().out
    for kind in KINDS + ("events",):
        assert f"\n  {kind} " in out
    assert main(["schema", ".", "events"]) == 0
    assert capsys.readouterr().out.startswith("cards/events.yaml: ")
    assert main(["schema", "sci-tech", "fields"]) == 0
    assert "exactly 5 items (pack.yaml:10)" in capsys.readouterr().out
    # the old spelling still works
    assert main(["schema", "fields", "--pack", "sci-tech"]) == 0
    assert "exactly 5 items (pack.yaml:10)" in capsys.readouterr().out


def test_markdown_of_one_kind(capsys):
    assert main(["schema", "eti", "layout", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("## `layout`") and "- **rect** (box type)" in out


def test_every_kind_is_described(capsys):
    for kind in KINDS + ("references",):
        assert main(["schema", "eti", kind]) == 0, kind
        assert capsys.readouterr().out.strip()
    assert main(["schema", "sci-tech", "boards"]) == 2     # no game, no game settings
    assert main(["schema", "eti", "layuot"]) == 2
    assert "did you mean layout?" in capsys.readouterr().err


def test_pack_yaml_is_described_not_refused():
    text = command(str(ROOT), "pack")
    assert text.startswith("pack.yaml: ")
    assert "slug: text; lowercase words joined by hyphens; at most 40 characters; required" \
        in text
    assert "equals: whole number; at least 0; optional" in text


def test_constraints_are_in_words_with_counts_where_they_are_set():
    text = command(str(ROOT), "events")
    line = line_of(ROOT / "pack.yaml", "{count: events.events, equals: 25}")
    assert f"exactly 25 items (pack.yaml:{line})" in text
    assert "text: text; 1 to 230 characters; required" in text
    assert "id: text; lowercase words joined by hyphens; required" in text
    assert "items (got" not in text and "^[a-z" not in text
    research = command(str(ROOT), "research")
    assert "its items' count adds up to exactly 90 (pack.yaml:" in research
    assert "each item's threat names an id of threats.threats (pack.yaml:" in research


def test_layout_reference_has_every_box_type_property_and_default():
    from eti_print.layout import BOX_PROPS
    text = command(str(ROOT), "layout")
    for key in ("extends", "boxes", "when", "repeat", "step", "step_y"):
        assert f"\n{key}: " in text or f"\n  {key}: " in text, key
    for box_type, props in BOX_PROPS.items():
        assert f"\n{box_type}: box type" in text
        for prop in props:
            assert re.search(rf"\n  {prop}: ", text), (box_type, prop)
    assert "stroke_width: length; with a unit; default 0.5pt" in text
    assert "size: length; with a unit; 1 pt to 500 pt; default 9pt" in text
    assert "align: text; one of left, center, right, justify; default left" in text


# -- the specs agree with the code ----------------------------------------------------

def test_box_defaults_are_the_renderers():
    from eti_print.layout import default
    assert default("rect", "stroke_width") == 0.5
    assert default("line", "stroke") == "#000000"
    assert default("text", "size") == 9.0 and default("text", "leading") == 1.2
    assert default("text", "color") == "#1A1A1A" and default("text", "icon_color") is None


def test_layout_checker_uses_the_spec(pack_copy):
    from eti_print.layout import BOX_TYPES
    assert "opacity" not in BOX_TYPES["rect"].props
    layout = pack_copy / "templates/layouts/event.yaml"
    edit(layout, "type: rect", "type: rect\n    opacity: 0.5")
    found = problems(pack_copy)
    assert any("rect boxes have no property 'opacity'" in p for p in found), found


def test_document_spec_matches_the_element_whitelist():
    from eti_print.render.document.elements import SPECS
    said = spec("documents")["elements"]
    assert list(said) == list(SPECS)
    for tag, element in SPECS.items():
        assert set(said[tag]["attrs"]) == set(element.attrs), tag


def test_markup_spec_matches_the_parser():
    from eti_print.text.markup import ENTITIES, INLINE_TAGS
    said = spec("markup")["inline"]
    assert tuple(said["tags"]) == INLINE_TAGS
    assert said["entities"].startswith(ENTITIES)


def test_template_spec_matches_the_context_and_filters(tmp_path):
    from jinja2.filters import FILTERS

    from eti_print.scope import base_context
    from eti_print.templating import TemplateEnv
    ctx = SimpleNamespace(
        dataset=SimpleNamespace(docs={}, config={"name": "x"}, slug="x"),
        options=SimpleNamespace(paper="a4", duplex="long", ink_saver=False, booklet=False),
        game=None)
    said = spec("templates")
    assert set(base_context(ctx)) == set(said["variables"])
    env = TemplateEnv(tmp_path)
    from eti_print.template_budget import FILTERS as CHECKED  # jinja2's own, size-checked
    ours = {name for name, f in env.env.filters.items() if FILTERS.get(name) is not f}
    assert ours - set(CHECKED) == set(said["filters"])


def test_fonts_schema_matches_the_font_loader():
    from eti_print.fonts import FACES
    from eti_print.schema import builtin_schema
    faces = builtin_schema("fonts").fields["fonts"]["valuesrules"]["schema"]
    assert tuple(faces) == FACES


def test_every_shipped_pattern_is_said_in_words():
    found = set()
    for path in list(ROOT.rglob("schemas/*.yaml")) + list((ROOT / "eti_print").rglob("*.yaml")):
        if "tests" in path.parts:
            continue
        found |= set(re.findall(r"regex: *'([^']*)'", path.read_text(encoding="utf-8")))
        found |= set(re.findall(r'regex: *"([^"]*)"', path.read_text(encoding="utf-8")))
    assert found and found <= set(words.PATTERNS), found - set(words.PATTERNS)


# -- the messages ---------------------------------------------------------------------

def test_missing_schema_is_named_by_the_schema_file(pack_copy):
    (pack_copy / "cards/schemas/events.yaml").unlink()
    found = problems(pack_copy)
    assert any("file not found: cards/schemas/events.yaml" in p for p in found), found
    assert not any("file not found: events.yaml" in p for p in found)


def test_string_limit_counts_characters(pack_copy):
    edit(pack_copy / "cards/events.yaml", "flavor: ", "flavor: " + "x" * 130 + " ")
    found = problems(pack_copy)
    assert any("must have at most 120 characters (got" in p for p in found), found
    assert not any("items (got" in p for p in found)


def test_pattern_messages_are_in_words(pack_copy):
    edit(pack_copy / "cards/events.yaml", "- id: the-great-blackout", "- id: The_Great_Blackout")
    found = problems(pack_copy)
    assert any("must be lowercase words joined by hyphens (got 'The_Great_Blackout')" in p
               for p in found), found
    assert not any("[a-z0-9]" in p for p in found)


def test_an_unknown_pattern_is_shown_quoted():
    assert words.must_match("^x+$") == "must match the pattern '^x+$'"
    assert words.pattern("^x+$") == "text matching the pattern '^x+$'"


def test_count_check_says_where_the_count_is_set(pack_copy):
    text = (pack_copy / "cards/events.yaml").read_text(encoding="utf-8")
    last = text.rindex("\n  - id: ")
    (pack_copy / "cards/events.yaml").write_text(text[:last] + "\n", encoding="utf-8")
    line = line_of(pack_copy / "pack.yaml", "{count: events.events, equals: 25}")
    found = problems(pack_copy)
    assert any(f"has 24 cards; expected 25 (set at pack.yaml:{line})" in p for p in found), found


@pytest.mark.parametrize("value, said", [
    ({"type": "string", "maxlength": 230}, "at most 230 characters"),
    ({"type": "list", "maxlength": 3}, "at most 3 items"),
    ({"type": "string", "empty": False}, "not empty"),
    ({"type": "list", "minlength": 2, "maxlength": 2}, "exactly 2 items"),
])
def test_lengths_in_words(value, said):
    assert words.length(value) == said


def test_the_games_template_names_are_described():
    from eti_print.games import get_game
    from eti_print.options import PrintOptions
    from eti_print.pipeline import load_checked
    game = get_game("eti")
    ctx = load_checked(str(ROOT), PrintOptions(paper="a4"))
    assert set(game.template_globals(ctx)) == set(game.template_help())
    text = command(str(ROOT), "templates")
    assert "names the eti game adds" in text and "\n  constants\n" in text
