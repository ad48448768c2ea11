from pathlib import Path

import pytest

from eti_print.errors import InputError
from eti_print.yamlload import MAX_DEPTH, load, loads


def messages(text: str) -> list[str]:
    with pytest.raises(InputError) as info:
        loads(text, "f.yaml")
    return [str(p) for p in info.value.problems]


def test_yaml_12_scalars_keep_strings_and_decimal_numbers():
    data = loads("a: NO\nb: 010\nc: yes\nd: true\ne: 0o10\nf: 1.5\ng: ~\nh: '5'\n").data
    assert data == {"a": "NO", "b": 10, "c": "yes", "d": True, "e": 8, "f": 1.5,
                    "g": None, "h": "5"}


def test_locations_of_values_and_keys():
    doc = loads("top:\n  - name: x\n    level: 6\n")
    assert doc.where(("top", 0, "level")) == (3, 12)
    assert doc.where(("top", 0, "level"), key=True) == (3, 5)
    assert doc.where(("top", 0, "missing")) == (2, 5)


def test_duplicate_keys_cite_both_lines():
    assert messages("a: 1\nb: 2\na: 3\n") == [
        "f.yaml:3:1: a: duplicate key 'a' (first defined at line 1)"]


def test_tabs_in_indentation():
    assert messages("a:\n\t- 1\n") == [
        "f.yaml:2:1: tab character in indentation; YAML indents with spaces"]


def test_empty_file_and_comment_only_file():
    assert messages("") == ["f.yaml:1:1: file is empty"]
    assert messages("# nothing\n") == ["f.yaml:1:1: file is empty"]


def test_syntax_error_is_located():
    assert messages("a: [1, 2\nb: 3\n")[0].startswith("f.yaml:2:")


def test_python_tags_are_refused():
    assert "not allowed" in messages("a: !!python/object/apply:os.system ['true']\n")[0]


def test_alias_bomb_hits_the_node_budget():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev = f"*a{i-1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    assert "too large" in messages("\n".join(lines) + "\n")[0]


def test_nesting_limit():
    text = "a: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n"
    assert "nesting is deeper" in messages(text)[0]


def test_merge_keys_refused():
    assert "merge keys" in messages("base: &b {x: 1}\nc:\n  <<: *b\n")[0]


def test_control_characters_refused():
    assert messages("a: b\x07c\n") == ["f.yaml:1:5: control character U+0007 is not allowed"]


def test_bad_utf8_is_located(tmp_path: Path):
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"a: 1\nb: caf\xe9\n")
    with pytest.raises(InputError) as info:
        load(path, "bad.yaml")
    assert str(info.value) == ("bad.yaml:2:7: not valid UTF-8 (byte 0xe9) "
                               "(hint: save the file as UTF-8)")


def test_missing_file(tmp_path: Path):
    with pytest.raises(InputError) as info:
        load(tmp_path / "nope.yaml", "cards/nope.yaml")
    assert str(info.value) == "cards/nope.yaml: file not found"
