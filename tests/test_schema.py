"""Schemas as data: strict types, located messages, the field reference."""

from pathlib import Path

import pytest

from eti_print.schema import pack_reference as schema_reference
from eti_print.schema import load_schema

from conftest import edit, line_of, problems


def test_level_out_of_range_is_reported_compiler_style(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "level: III", "level: 6")
    line = line_of(f, "level: 6")
    assert (f"cards/projects.yaml:{line}:12: projects[2].level: must be one of I, II, III, "
            f"IV, V (got 6)") in problems(pack_copy)


def test_true_is_not_an_integer(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "defense: 10", "defense: true")
    line = line_of(f, "defense: true")
    assert (f"cards/projects.yaml:{line}:14: projects[0].defense: must be of type integer "
            f"(got True)") in problems(pack_copy)


def test_quoted_number_is_not_coerced(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "difficulty: 70", 'difficulty: "70"')
    assert any("projects[0].difficulty: must be of type integer (got '70')" in p
               for p in problems(pack_copy))


def test_unknown_field_points_at_the_key(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "    fame: 10\n", "    fame: 10\n    glory: 5\n")
    line = line_of(f, "glory: 5")
    assert f"cards/projects.yaml:{line}:5: projects[0].glory: unknown field" in problems(pack_copy)


def test_missing_field_points_at_the_item(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "    fame: 10\n", "")
    line = line_of(f, "id: synthetic-polymers")
    assert f"cards/projects.yaml:{line}:5: projects[0]: required field 'fame' is missing" \
        in problems(pack_copy)


def test_no_to_boolean_stays_a_string(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "level: I\n", "level: NO\n")
    assert any("projects[0].level: must be one of I, II, III, IV, V (got 'NO')" in p
               for p in problems(pack_copy))


def test_duplicate_key_in_data(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "    fame: 10\n", "    fame: 10\n    fame: 20\n")
    line = line_of(f, "fame: 20")
    assert (f"cards/projects.yaml:{line}:5: projects[0].fame: duplicate key 'fame' "
            f"(first defined at line {line - 1})") in problems(pack_copy)


def test_missing_data_file(pack_copy: Path):
    (pack_copy / "cards/events.yaml").unlink()
    assert any(p.startswith("pack.yaml:") and "file not found: events.yaml" in p
               for p in problems(pack_copy))


def test_empty_data_file(pack_copy: Path):
    (pack_copy / "cards/events.yaml").write_text("")
    assert "cards/events.yaml:1:1: file is empty" in problems(pack_copy)


def test_every_schema_field_has_a_description(shipped):
    for path in sorted((shipped.cards_dir / "schemas").glob("*.yaml")):
        load_schema(path, path.name)  # raises on a field without a description


def test_schema_without_description_is_refused(pack_copy: Path):
    f = pack_copy / "cards/schemas/threats.yaml"
    text = f.read_text()
    import re
    f.write_text(re.sub(r"description: [^\n,}]+", "type: string", text, count=2))
    assert any("every field needs a one-line 'description'" in p or "schema" in p
               for p in problems(pack_copy))


def test_schema_reference_describes_fields():
    text = schema_reference(None, "projects")
    assert text.startswith("projects.yaml:")
    assert "difficulty: integer" in text and "level: string (one of I, II, III, IV, V)" in text


def test_schema_reference_unknown_kind():
    from eti_print.errors import UsageError
    with pytest.raises(UsageError):
        schema_reference(None, "nope")
