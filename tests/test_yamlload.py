import marshal
from pathlib import Path

import pytest

from eti_print import diskcache, yamlload
from eti_print.diskcache import PACK_PARTS
from eti_print.errors import InputError
from eti_print.yamlload import MAX_DEPTH, load, loads

from conftest import ROOT


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


# -- the parsed-document cache (diskcache.Documents) ---------------------------------

PACK_ROOTS = (ROOT, ROOT / "packs" / "sci-tech", ROOT / "packs" / "mad-scientists")


def _yaml_files(root: Path) -> list[Path]:
    found = []
    for part in PACK_PARTS:
        base = root / part
        found += [base] if base.is_file() else sorted(base.rglob("*.yaml"))
    return found


def _same(cached: yamlload.Document, fresh: yamlload.Document) -> None:
    """Equal in every way a caller sees: values with their types (``repr`` tells 1,
    1.0 and True apart, and a list from a tuple), order, and every location."""
    assert repr(cached.data) == repr(fresh.data)
    assert cached.path == fresh.path
    assert list(cached.locations.items()) == list(fresh.locations.items())
    assert list(cached.key_locations.items()) == list(fresh.key_locations.items())
    for path in list(fresh.locations) + list(fresh.key_locations):
        assert cached.where(path) == fresh.where(path)
        assert cached.where(path, key=True) == fresh.where(path, key=True)
        assert str(cached.problem(path, "m", key=True)) == str(fresh.problem(path, "m", key=True))


def _entries(folder: Path) -> list[Path]:
    return sorted(p for p in (folder / "documents").rglob("*") if p.is_file())


@pytest.fixture
def store(tmp_path: Path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(diskcache.ENV_DIR, str(folder))
    return folder


def _no_parse(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("parsed although the document was kept")
    monkeypatch.setattr(yamlload, "loads", refuse)


@pytest.mark.parametrize("root", PACK_ROOTS, ids=lambda r: r.name)
def test_a_kept_document_equals_a_fresh_parse(root: Path, store: Path, monkeypatch):
    files = _yaml_files(root)
    assert len(files) > 5
    shown = [f"{root.name}/{p.relative_to(root).as_posix()}" for p in files]
    fresh = [yamlload.loads(p.read_bytes().decode("utf-8").removeprefix("\ufeff"), s)
             for p, s in zip(files, shown)]
    first = [load(p, s) for p, s in zip(files, shown)]
    assert len(_entries(store)) == len(set(shown))
    _no_parse(monkeypatch)
    for path, name, parsed, kept_before in zip(files, shown, fresh, first):
        kept = load(path, name)
        _same(kept, parsed)
        _same(kept_before, parsed)
        assert kept.data is not kept_before.data or kept.data is None


def test_the_shown_name_is_part_of_the_key(tmp_path: Path, store: Path):
    path = tmp_path / "a.yaml"
    path.write_text("a:\n  b: 1\n")
    assert str(load(path, "one.yaml").problem(("a", "b"), "m")) == "one.yaml:2:6: a.b: m"
    assert str(load(path, "two.yaml").problem(("a", "b"), "m")) == "two.yaml:2:6: a.b: m"
    assert len(_entries(store)) == 2


def test_a_torn_or_altered_entry_is_a_miss(tmp_path: Path, store: Path, monkeypatch):
    path = tmp_path / "a.yaml"
    path.write_text("a: [1, 2.5, true, '3']\n")
    fresh = load(path, "a.yaml")
    entry, = _entries(store)
    whole = entry.read_bytes()
    forged = diskcache.hashlib.sha256(diskcache.FORMAT + b"junk").digest() + b"junk"
    other = marshal.dumps(({"a": "forged"}, "b.yaml", {}, {}))
    wrong_shape = diskcache.hashlib.sha256(diskcache.FORMAT + other).digest() + other
    for broken in (whole[:len(whole) // 2], whole[:-1] + bytes([whole[-1] ^ 1]), b"",
                   forged, wrong_shape):
        entry.write_bytes(broken)
        _same(load(path, "a.yaml"), fresh)          # parsed afresh ...
        assert entry.read_bytes() == whole          # ... and kept again


def test_a_file_with_problems_is_never_kept(tmp_path: Path, store: Path):
    path = tmp_path / "bad.yaml"
    path.write_text("a: 1\nb: 2\na: 3\n")
    for _ in range(2):
        with pytest.raises(InputError) as info:
            load(path, "bad.yaml")
        assert [str(p) for p in info.value.problems] == [
            "bad.yaml:3:1: a: duplicate key 'a' (first defined at line 1)"]
    assert _entries(store) == []


def test_no_cache_keeps_and_reads_nothing(tmp_path: Path, store: Path, monkeypatch):
    path = tmp_path / "a.yaml"
    path.write_text("a: 1\n")
    monkeypatch.setattr(diskcache, "_enabled", False)
    assert load(path, "a.yaml").data == {"a": 1}
    assert _entries(store) == []
