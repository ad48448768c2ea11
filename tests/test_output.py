"""Atomic writes, reproducible builds and SOURCE_DATE_EPOCH."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eti_print.errors import UsageError
from eti_print.output import atomic_path, source_date_epoch, write_bytes


def test_write_replaces_atomically(tmp_path: Path):
    target = tmp_path / "a.pdf"
    write_bytes(target, b"first")
    write_bytes(target, b"second")
    assert target.read_bytes() == b"second"
    assert [p.name for p in tmp_path.iterdir()] == ["a.pdf"]


def test_failure_mid_write_keeps_previous_file(tmp_path: Path):
    target = tmp_path / "a.pdf"
    write_bytes(target, b"good")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"half a PD")
            raise RuntimeError("disk full")
    assert target.read_bytes() == b"good"
    assert [p.name for p in tmp_path.iterdir()] == ["a.pdf"]


def test_symlinked_output_is_replaced_not_written_through(tmp_path: Path):
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"precious")
    out = tmp_path / "out"
    out.mkdir()
    (out / "eti-cards.pdf").symlink_to(outside)
    write_bytes(out / "eti-cards.pdf", b"%PDF")
    assert outside.read_bytes() == b"precious"
    assert not (out / "eti-cards.pdf").is_symlink()


def test_killed_build_never_truncates_the_previous_output(tmp_path: Path):
    target = tmp_path / "big.pdf"
    write_bytes(target, b"previous good output")
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from eti_print.output import atomic_path\n"
        f"with atomic_path(Path({str(target)!r})) as tmp:\n"
        "    tmp.write_bytes(b'partial')\n"
        "    os.kill(os.getpid(), 9)\n"
    )
    result = subprocess.run([sys.executable, "-c", script])
    assert result.returncode != 0
    assert target.read_bytes() == b"previous good output"


@pytest.mark.parametrize("value,expected", [(None, 0), ("", 0), ("1700000000", 1700000000)])
def test_source_date_epoch(monkeypatch, value, expected):
    if value is None:
        monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    else:
        monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    assert source_date_epoch() == expected


@pytest.mark.parametrize("value", ["yesterday", "-5", "1.5", "99999999999999"])
def test_bad_source_date_epoch_is_a_usage_error(monkeypatch, value):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    with pytest.raises(UsageError):
        source_date_epoch()


def _cli_build(out: Path, cwd: Path, env: dict[str, str]) -> bytes:
    subprocess.run([sys.executable, "-m", "eti_print.cli", "build", "--quiet", "--out", str(out)],
                   cwd=cwd, env={**os.environ, **env}, check=True)
    return b"".join((out / name).read_bytes() for name in sorted(os.listdir(out)))


@pytest.mark.cold
def test_builds_are_reproducible_across_cwd_hash_seed_and_time_zone(tmp_path: Path,
                                                                   session_build):
    """A CLI build in a new process, another folder, hash seed and time zone writes the
    same bytes as the session's in-process build."""
    (tmp_path / "b").mkdir()
    env = {"PYTHONHASHSEED": "4242", "TZ": "Pacific/Kiritimati"}
    assert os.environ.get("PYTHONHASHSEED") != "4242" and os.environ.get("TZ") != env["TZ"]
    reference = session_build("eti")
    first = b"".join((reference / name).read_bytes() for name in sorted(os.listdir(reference)))
    second = _cli_build(tmp_path / "out2", tmp_path / "b", env)
    assert first == second


@pytest.mark.parametrize("epoch, date", [("1700000000", "D:20231114"),
                                         ("1234567890", "D:20090213")])
def test_source_date_epoch_sets_the_pdf_date(tmp_path: Path, monkeypatch, epoch, date):
    from pypdf import PdfReader

    from eti_print.options import PrintOptions
    from eti_print.pipeline import build
    monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
    build("sci-tech", tmp_path, PrintOptions())
    for pdf in tmp_path.glob("*.pdf"):
        assert PdfReader(pdf).metadata["/CreationDate"].startswith(date), pdf.name


def test_bad_source_date_epoch_exits_2(tmp_path: Path):
    result = subprocess.run([sys.executable, "-m", "eti_print.cli", "build", "--out",
                             str(tmp_path)], env={**os.environ, "SOURCE_DATE_EPOCH": "soon"},
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "SOURCE_DATE_EPOCH" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("value", ["17¹", "١٧٠٠", "１７"])
def test_a_non_ascii_digit_in_source_date_epoch_is_a_usage_error(monkeypatch, value):
    """str.isdigit() takes superscripts and other scripts' digits; int() does not."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    with pytest.raises(UsageError, match="SOURCE_DATE_EPOCH"):
        source_date_epoch()


def test_a_set_goes_in_whole_the_last_file_last(tmp_path: Path):
    from eti_print.output import write_set
    out = tmp_path / "out"
    write_set(out, [("a.pdf", b"old a"), ("m.json", b"old m")])
    written = write_set(out, [("a.pdf", b"new a"), ("m.json", b"new m")])
    assert [p.name for p in written] == ["a.pdf", "m.json"]
    assert sorted(p.name for p in out.iterdir()) == ["a.pdf", "m.json"]   # no staging left
    assert (out / "a.pdf").read_bytes() == b"new a" and (out / "m.json").read_bytes() == b"new m"


def test_a_failure_while_staging_leaves_the_previous_set_whole(tmp_path: Path):
    from eti_print.output import staged, write_set
    out = tmp_path / "out"
    write_set(out, [("a.pdf", b"old a"), ("m.json", b"old m")])
    with pytest.raises(RuntimeError):
        with staged(out) as stage:
            stage.write("a.pdf", b"new a")
            raise RuntimeError("the second file failed")
    assert (out / "a.pdf").read_bytes() == b"old a"
    assert sorted(p.name for p in out.iterdir()) == ["a.pdf", "m.json"]


def test_a_folder_in_the_way_is_found_before_any_file_moves(tmp_path: Path):
    from eti_print.errors import InputError
    from eti_print.output import write_set
    out = tmp_path / "out"
    write_set(out, [("a.pdf", b"old a")])
    (out / "b.pdf").mkdir()
    with pytest.raises(InputError) as info:
        write_set(out, [("a.pdf", b"new a"), ("b.pdf", b"b")])
    assert str(info.value.problems[0]).startswith(f"{out / 'b.pdf'}: a folder is where")
    assert (out / "a.pdf").read_bytes() == b"old a"
    assert not list(out.glob(".eti-print-staging-*"))


def test_an_output_folder_that_is_a_file_is_a_problem_naming_it(tmp_path: Path):
    from eti_print.errors import InputError
    from eti_print.output import write_set
    (tmp_path / "out").write_text("not a folder")
    with pytest.raises(InputError) as info:
        write_set(tmp_path / "out", [("a.pdf", b"a")])
    assert str(tmp_path / "out") in str(info.value.problems[0])
