"""jobs.decks: a build without a build cache, or with the command line's one-build
cache (its decks kept on disk), lets its resolved faces go once their forms are drawn,
so they are not held while the PDF is saved (a build's memory peak); through a build
cache a later build of the process reuses (watch) they are kept."""

from __future__ import annotations

import weakref

import pytest

from eti_print.cache import BuildCache
from eti_print.diskcache import EntryStore
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked, render
from eti_print.render import sheets

pytestmark = pytest.mark.cold


def _faces_alive_at_save(monkeypatch, cache: BuildCache | None) -> list[tuple[int, int]]:
    """For each cards PDF saved: (faces its forms were drawn from, of them still alive)."""
    from reportlab.pdfgen.canvas import Canvas
    drawn: list[weakref.ref] = []
    seen: list[tuple[int, int]] = []
    add, save = sheets.FormCache.add, Canvas.getpdfdata

    def adding(self, face):
        drawn.append(weakref.ref(face))
        return add(self, face)

    def saving(self):
        if drawn:
            seen.append((len(drawn), sum(ref() is not None for ref in drawn)))
            drawn.clear()
        return save(self)

    monkeypatch.setattr(sheets.FormCache, "add", adding)
    monkeypatch.setattr(Canvas, "getpdfdata", saving)
    from eti_print import forked
    monkeypatch.setattr(forked, "idle_core", lambda: False)   # the decks drawn here
    render(load_checked(None, PrintOptions(), cache))
    return seen


def test_without_a_cache_the_faces_go_before_the_pdf_is_saved(monkeypatch):
    saved = _faces_alive_at_save(monkeypatch, None)
    cards, aids = saved[:2]                       # the decks job's PDFs come first
    assert cards[0] == 366 and aids[0] == 14      # 183 fronts and backs; 7 aids, 2 sides
    assert cards[1] == aids[1] == 0, saved


def test_through_a_build_cache_the_faces_are_kept_for_the_next_rebuild(monkeypatch):
    saved = _faces_alive_at_save(monkeypatch, BuildCache(workers=1))
    assert saved[:2] == [(366, 366), (14, 14)], saved


def test_the_command_lines_one_build_cache_lets_the_faces_go_too(monkeypatch, tmp_path):
    cache = BuildCache(workers=1, once=True, disk=EntryStore(tmp_path))
    saved = _faces_alive_at_save(monkeypatch, cache)
    cards, aids = saved[:2]
    assert cards[0] == 366 and aids[0] == 14
    assert cards[1] == aids[1] == 0, saved
    # and the decks it let go are on disk: a new process's cache reuses them
    again = BuildCache(workers=1, once=True, disk=EntryStore(tmp_path))
    ctx = load_checked(None, PrintOptions(), again)
    from eti_print import forked
    monkeypatch.setattr(forked, "idle_core", lambda: False)
    render(ctx)
    assert "eti-cards.pdf" in again.stats.outputs_reused, again.stats
