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
