"""forked: a cold build's jobs split between this process and forked children give
what one process gives: the same bytes, the same problems, the same progress lines."""

from __future__ import annotations

import hashlib

import pytest

from eti_print import forked
from eti_print.errors import InputError
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked, render

from conftest import copy_pack, edit

pytestmark = [pytest.mark.cold, pytest.mark.skipif(not hasattr(__import__("os"), "fork"),
                                                   reason="no os.fork here")]


def _built(pack: str | None, split: bool, monkeypatch) -> tuple[dict[str, str], list[str]]:
    monkeypatch.setattr(forked, "idle_core", lambda: split)
    lines: list[str] = []
    outputs = render(load_checked(pack, PrintOptions()), lines.append)
    return {o.name: hashlib.sha256(o.data).hexdigest() for o in outputs}, lines


def test_split_jobs_make_the_bytes_and_lines_one_process_makes(monkeypatch):
    alone, alone_lines = _built(None, False, monkeypatch)
    split, split_lines = _built(None, True, monkeypatch)
    assert list(split) == list(alone)               # the same files, in the same order
    assert split == alone
    assert split_lines == alone_lines and "rendering eti-boards.pdf" in split_lines


def _problems(pack: str, split: bool, monkeypatch) -> list[str]:
    monkeypatch.setattr(forked, "idle_core", lambda: split)
    ctx = load_checked(pack, PrintOptions())
    with pytest.raises(InputError) as err:
        render(ctx)
    return [str(p) for p in err.value.problems]


def test_problems_of_jobs_here_and_in_children_are_all_reported(tmp_path, monkeypatch):
    pack = copy_pack(tmp_path / "pack")
    # one in the decks (drawn here), one in the tokens and one in a board (children)
    edit(pack / "templates/layouts/event.yaml", "    size: 14pt", "    size: 14qq")
    edit(pack / "templates/layouts/token-face.yaml", "width: 3.2mm", "width: 3.2qq")
    edit(pack / "templates/booklet/turn.j2", "Each turn is one year of work.",
         "Each turn is {{ no_such_name }}.")
    split = _problems(str(pack), True, monkeypatch)
    assert split == _problems(str(pack), False, monkeypatch)
    files = {p.split(":", 1)[0] for p in split}
    assert {"templates/layouts/event.yaml", "templates/layouts/token-face.yaml",
            "templates/booklet/turn.j2"} <= files, split


def test_a_crash_in_a_child_runs_its_job_here_and_surfaces(monkeypatch):
    from eti_print.jobs import boards
    monkeypatch.setattr(boards, "resolve", _boom)
    monkeypatch.setattr(forked, "idle_core", lambda: True)
    ctx = load_checked(None, PrintOptions())
    with pytest.raises(RuntimeError, match="a bug in a job"):
        render(ctx)


def _boom(ctx):
    raise RuntimeError("a bug in a job")
