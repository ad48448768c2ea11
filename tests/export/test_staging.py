"""An export's files land together after one sync, or not at all."""

from __future__ import annotations

import pytest

from eti_print.errors import UsageError
from eti_print.export.staging import StagedExport


def test_commit_moves_every_file_and_removes_the_packs_stale_ones(tmp_path):
    folder = tmp_path / "png"
    folder.mkdir()
    (folder / "eti-09-gone-001-front.png").write_bytes(b"old")
    (folder / "other-01-deck-001-front.png").write_bytes(b"another pack")
    (folder / "eti-01-deck-001-front.png").write_bytes(b"previous")
    with StagedExport(tmp_path, "png", "eti") as staged:
        staged.add("eti-01-deck-001-front.png", b"new")
        staged.add("index.csv", b"file\n")
        assert (folder / "eti-01-deck-001-front.png").read_bytes() == b"previous"
        written = staged.commit()
    assert [p.name for p in written] == ["eti-01-deck-001-front.png", "index.csv"]
    assert (folder / "eti-01-deck-001-front.png").read_bytes() == b"new"
    assert not (folder / "eti-09-gone-001-front.png").exists()
    assert (folder / "other-01-deck-001-front.png").read_bytes() == b"another pack"
    assert sorted(p.name for p in folder.iterdir()) == [
        "eti-01-deck-001-front.png", "index.csv", "other-01-deck-001-front.png"]


def test_a_failed_export_leaves_the_last_good_one(tmp_path):
    folder = tmp_path / "tts"
    folder.mkdir()
    (folder / "eti-tts.json").write_bytes(b"good")
    with pytest.raises(RuntimeError):
        with StagedExport(tmp_path, "tts", "eti") as staged:
            staged.add("eti-tts.json", b"half")
            raise RuntimeError("rasteriser failed")
    assert [p.name for p in folder.iterdir()] == ["eti-tts.json"]
    assert (folder / "eti-tts.json").read_bytes() == b"good"


def test_a_killed_exports_staging_folder_is_cleared_by_the_next(tmp_path):
    left = tmp_path / "pdf" / ".staging-abc123"
    left.mkdir(parents=True)
    (left / "eti-01-deck.pdf").write_bytes(b"partial")
    with StagedExport(tmp_path, "pdf", "eti") as staged:
        staged.add("eti-01-deck.pdf", b"%PDF")
        staged.commit()
    assert [p.name for p in (tmp_path / "pdf").iterdir()] == ["eti-01-deck.pdf"]


def test_refuses_names_outside_its_folder_and_symlinked_folders(tmp_path):
    with StagedExport(tmp_path, "png", "eti") as staged:
        with pytest.raises(ValueError):
            staged.add("../escape.png", b"x")
    assert list((tmp_path / "png").iterdir()) == []      # nothing committed, nothing left
    (tmp_path / "real").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "png").symlink_to(tmp_path / "real")
    with pytest.raises(UsageError):
        StagedExport(tmp_path / "out", "png", "eti")
