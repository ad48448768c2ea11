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


#: The files of ``_broken``'s three problems.
BROKEN = {"templates/layouts/event.yaml", "templates/layouts/token-face.yaml",
          "templates/booklet/turn.j2"}


def _broken(tmp_path) -> str:
    """A copy of E.T.I. with a problem in the decks (drawn here), one in the tokens and
    one in the booklet (children)."""
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "templates/layouts/event.yaml", "    size: 14pt", "    size: 14qq")
    edit(pack / "templates/layouts/token-face.yaml", "width: 3.2mm", "width: 3.2qq")
    edit(pack / "templates/booklet/turn.j2", "Each turn is one year of work.",
         "Each turn is {{ no_such_name }}.")
    return str(pack)


def test_problems_of_jobs_here_and_in_children_are_all_reported(tmp_path, monkeypatch):
    pack = _broken(tmp_path)
    split = _problems(pack, True, monkeypatch)
    assert split == _problems(pack, False, monkeypatch)
    assert BROKEN <= {p.split(":", 1)[0] for p in split}, split


def test_a_crash_in_a_child_runs_its_job_here_and_surfaces(monkeypatch):
    from eti_print.jobs import boards
    monkeypatch.setattr(boards, "resolve", _boom)
    monkeypatch.setattr(forked, "idle_core", lambda: True)
    ctx = load_checked(None, PrintOptions())
    with pytest.raises(RuntimeError, match="a bug in a job"):
        render(ctx)


def _boom(ctx):
    raise RuntimeError("a bug in a job")


# -- the command line's build cache (BuildCache(once=True)) -----------------------------


def _counting_forks(monkeypatch) -> list[int]:
    """A list that grows by one for each child forked (by forked.py or the build cache)."""
    from eti_print import cache as cache_module
    forks: list[int] = []
    real = forked.start_child
    for module in (forked, cache_module):
        monkeypatch.setattr(module, "start_child", lambda work: forks.append(1) or real(work))
    return forks


def _cached(pack: str | None, once: bool, monkeypatch) -> tuple[dict[str, str], list[str], int]:
    """A first build through a new cache: digests, progress lines, children forked."""
    from eti_print import cache as cache_module
    forks = _counting_forks(monkeypatch)
    cache = cache_module.BuildCache(workers=2 if once else 1, once=once)
    lines: list[str] = []
    outputs = render(load_checked(pack, PrintOptions(), cache), lines.append)
    return {o.name: hashlib.sha256(o.data).hexdigest() for o in outputs}, lines, len(forks)


def test_a_one_build_cache_forks_its_first_build_and_makes_the_same_bytes(monkeypatch):
    """The command line's cache (one build, entries on disk) uses both cores the first
    time, where a watch cache forks only what ran here before: the same files and
    progress lines as one process."""
    alone, alone_lines, none = _cached(None, False, monkeypatch)
    split, split_lines, forks = _cached(None, True, monkeypatch)
    assert none == 0 and forks == 3                 # boards, pieces, documents
    assert list(split) == list(alone) and split == alone
    assert split_lines == alone_lines and "rendering eti-boards.pdf" in split_lines


def test_a_one_build_cache_reports_the_problems_of_every_child(tmp_path, monkeypatch):
    """A job that fails here does not hide the problems the children find."""
    from eti_print.cache import BuildCache
    pack = _broken(tmp_path)
    found = []
    for cache in (BuildCache(workers=2, once=True), BuildCache(workers=1)):
        with pytest.raises(InputError) as err:
            render(load_checked(pack, PrintOptions(), cache))
        found.append([str(p) for p in err.value.problems])
    assert found[0] == found[1]
    assert BROKEN <= {p.split(":", 1)[0] for p in found[0]}


# -- validate on both cores ------------------------------------------------------------


def _validated(pack: str | None, split: bool, monkeypatch, cache=None) -> str | list[str]:
    """validate's report (or its problems) with the jobs split or in one process."""
    from eti_print.pipeline import _validate
    forks = _counting_forks(monkeypatch)
    monkeypatch.setattr(forked, "idle_core", lambda: split)
    try:
        found: str | list[str] = _validate(pack, cache, False)
    except InputError as err:
        found = [str(p) for p in err.problems]
    assert (len(forks) == 3) == split, forks          # boards, pieces, documents
    return found


def test_a_split_validate_reports_what_one_process_reports(tmp_path, monkeypatch):
    from eti_print.cache import BuildCache
    from eti_print.diskcache import EntryStore
    alone = _validated(None, False, monkeypatch)
    assert "OK" in alone and _validated(None, True, monkeypatch) == alone
    # the command line's cache: the children's summaries are kept on disk by this process
    store = EntryStore(tmp_path / "cache")
    assert _validated(None, True, monkeypatch, BuildCache(workers=2, once=True, disk=store)) \
        == alone
    again = BuildCache(workers=2, once=True, disk=store)
    assert _validated(None, False, monkeypatch, again) == alone     # all read back: no fork
    assert not again._summaries.keys() - {"eti_print.jobs.decks", "eti_print.jobs.boards",
                                          "eti_print.jobs.pieces", "eti_print.jobs.documents"}


def test_a_split_validate_reports_every_problem_of_every_job(tmp_path, monkeypatch):
    from eti_print.cache import BuildCache
    pack = _broken(tmp_path)
    alone = _validated(pack, False, monkeypatch)
    assert BROKEN <= {p.split(":", 1)[0] for p in alone}
    assert _validated(pack, True, monkeypatch) == alone
    assert _validated(pack, True, monkeypatch, BuildCache(workers=2, once=True)) == alone
