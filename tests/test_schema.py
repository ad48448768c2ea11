"""Schemas as data: strict types, located messages, the field reference."""

from pathlib import Path

import pytest

from eti_print.reference import command as schema_reference
from eti_print.schema import load_schema

from conftest import problems


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
    assert text.startswith("cards/projects.yaml: ")
    assert "difficulty: whole number; from 10 to 990; required" in text
    assert "level: text; one of I, II, III, IV, V; required" in text


def test_schema_reference_unknown_kind():
    from eti_print.errors import UsageError
    with pytest.raises(UsageError):
        schema_reference(None, "nope")
