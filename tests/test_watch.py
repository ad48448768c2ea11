"""watch: rebuild on save through the cache; errors reported, last good output kept."""

from __future__ import annotations

import hashlib
import json
import os
import queue
import threading
from datetime import date
from pathlib import Path

import pytest

from eti_print.cache import BuildCache, TrackedDocs, _Recorder, fingerprint
from eti_print.cli import main
from eti_print.options import PrintOptions, PrintRequest
from eti_print.pipeline import draw, report, resolve, summarize
from eti_print.pipeline import load_checked as load_context
from eti_print.watch import _filter, rebuild, watch

from conftest import PACK_PARTS, ROOT, copy_pack, edit, line_of

#: Every test here is of the build cache, or compares with a build made afresh.
pytestmark = pytest.mark.cold

WAIT = 120   # seconds; a cold first build on a busy CI machine is slow


def _digests(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.iterdir())
            if not p.name.startswith(".")}


# -- the watcher ---------------------------------------------------------------------


@pytest.mark.long
def test_watch_rebuilds_on_save_and_survives_an_invalid_edit(pack_copy, tmp_path):
    out = tmp_path / "out"
    reports: queue.Queue = queue.Queue()
    stop = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            watch(str(pack_copy), out, PrintOptions(), stop_event=stop, on_build=reports.put,
                  debounce_ms=200, step_ms=30)
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        first = reports.get(timeout=WAIT)
        assert first.ok, first.problems
        assert "eti-cards.pdf" in first.written and "eti-manifest.json" in first.written
        before = _digests(out)

        # a one-card edit: the cards PDF (and the reference that prints event texts) change
        edit(pack_copy / "cards/events.yaml", "highest filled data port.",
             "highest occupied data port.")
        report = reports.get(timeout=WAIT)
        assert report.ok, report.problems
        assert report.changes == ["cards/events.yaml"]
        assert "eti-cards.pdf" in report.written
        assert "eti-boards.pdf" in report.unchanged
        after = _digests(out)
        assert after["eti-cards.pdf"] != before["eti-cards.pdf"]
        assert after["eti-boards.pdf"] == before["eti-boards.pdf"]

        # an invalid edit: reported with file:line, nothing written
        edit(pack_copy / "cards/projects.yaml", "level: III", "level: 6")
        line = line_of(pack_copy / "cards/projects.yaml", "level: 6")
        report = reports.get(timeout=WAIT)
        assert not report.ok
        assert any(p.startswith(f"cards/projects.yaml:{line}:") for p in report.problems), \
            report.problems
        assert _digests(out) == after

        # fixed again: builds again
        edit(pack_copy / "cards/projects.yaml", "level: 6", "level: III")
        report = reports.get(timeout=WAIT)
        assert report.ok, report.problems
        assert _digests(out) == after          # the same data as before the invalid edit
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not thread.is_alive()
    assert not errors


def test_watch_ignores_output_folder_and_editor_files(tmp_path):
    root = tmp_path / "pack"
    out = root / "output"
    accept = _filter(root, out)
    assert accept(None, str(root / "pack.yaml"))
    assert accept(None, str(root / "cards" / "events.yaml"))
    assert accept(None, str(root / "templates" / "layouts" / "event.yaml"))
    assert accept(None, str(root / "templates" / "booklet" / "turn.j2"))
    assert accept(None, str(root / "templates" / "art" / "ufo.svg"))
    assert accept(None, str(root / "fonts" / "OpenSans-Regular.ttf"))
    assert not accept(None, str(out / "eti-cards.pdf"))
    assert not accept(None, str(out / "cards" / "x.yaml"))
    assert not accept(None, str(root / "cards" / ".events.yaml.swp"))
    assert not accept(None, str(root / "cards" / "events.yaml~"))
    assert not accept(None, str(root / "README.md"))
    assert not accept(None, str(root / ".git" / "index"))


# -- rebuilds through the cache ---------------------------------------------------------


def _restore(pack: Path) -> None:
    """Every file of ``pack`` as the shipped pack has it again (files edited, added or
    removed by a test)."""
    for part in PACK_PARTS:
        mine, shipped = pack / part, ROOT / part
        if shipped.is_file():
            if mine.read_bytes() != shipped.read_bytes():
                mine.write_bytes(shipped.read_bytes())
            continue
        for path in sorted(mine.rglob("*"), reverse=True):
            if not (shipped / path.relative_to(mine)).exists():
                path.unlink() if path.is_file() or path.is_symlink() else path.rmdir()
        for path in shipped.rglob("*"):
            target = mine / path.relative_to(shipped)
            if path.is_dir():
                target.mkdir(exist_ok=True)
            elif not target.is_file() or target.read_bytes() != path.read_bytes():
                target.write_bytes(path.read_bytes())


@pytest.fixture(scope="session")
def _warm_cache(tmp_path_factory):
    """One copy of the pack built through one cache, for the ``warm`` tests (session
    scope: under xdist a worker's tests of this module need not run together)."""
    root = tmp_path_factory.mktemp("warm")
    pack, out, cache = copy_pack(root / "pack"), root / "out", BuildCache(workers=1)
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert report.ok, report.problems
    return pack, out, cache, _digests(out)


@pytest.fixture
def warm(_warm_cache):
    """A copy of the pack, its output and a cache warm from building it.  Shared by the
    tests that take it, one after another: after each, the pack is the shipped one
    again, rebuilt through the cache to the very output of the first build (a test
    sees a cache warm on the pack it is given, as watch's is after its first build)."""
    pack, out, cache, first = _warm_cache
    yield pack, out, cache
    _restore(pack)
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert report.ok, report.problems
    assert _digests(out) == first


def test_a_failed_rebuild_keeps_the_last_good_output(warm):
    pack, out, cache = warm
    before = _digests(out)
    (pack / "cards/events.yaml").write_text("events: [\n", encoding="utf-8")
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert not report.ok
    assert report.problems[0].startswith("cards/events.yaml:")
    assert "kept the last good output" in report.summary()
    assert _digests(out) == before


def test_nothing_is_rendered_again_for_a_comment(warm):
    pack, out, cache = warm
    edit(pack / "cards/events.yaml", "\n", "\n# a comment\n")
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert report.ok and report.rendered == []
    assert report.written == ["eti-manifest.json"]      # its data hash covers every byte
    assert cache.stats.resources_reused and cache.stats.decks_resolved == []


def test_the_board_seams_are_checked_again_only_when_what_they_read_changed(warm,
                                                                         monkeypatch):
    """The seams check (the check stage's dearest rule) is kept by the cache: a data edit
    no board reads checks nothing again, and a port moved under a seam is reported at
    once, the last good output kept."""
    from eti_print.jobs import board_seams
    pack, out, cache = warm
    runs = []
    real = board_seams.check
    monkeypatch.setattr(board_seams, "check", lambda ctx: runs.append(1) or real(ctx))
    edit(pack / "cards/events.yaml", "highest filled data port.", "highest occupied data port.")
    assert rebuild(str(pack), out, PrintOptions(), cache).ok
    assert runs == []
    before = _digests(out)
    edit(pack / "templates/boards/boards.yaml", "- {x: 188mm, y: 10mm, tab: below}",
         "- {x: 200mm, y: 10mm, tab: below}")
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert runs == [1] and not report.ok
    assert any("on A4 the seam 260 mm from the left crosses port[2] in 6 boards" in p
               for p in report.problems), report.problems
    assert _digests(out) == before
    report = rebuild(str(pack), out, PrintOptions(), cache)      # a problem is not kept
    assert runs == [1, 1] and not report.ok


def test_a_one_card_edit_resolves_only_its_deck(warm):
    pack, out, cache = warm
    edit(pack / "cards/events.yaml", "highest filled data port.", "highest occupied data port.")
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert report.ok
    assert cache.stats.decks_resolved == ["events"]
    assert sorted(cache.stats.decks_reused) == ["agendas", "endgame", "player-aids", "projects",
                                                "research"]
    assert "eti-cards.pdf" in report.rendered
    assert "eti-boards.pdf" not in report.written
    # and of the cards PDF's forms only that card's face is drawn again; the others
    # come from the records of the last drawing (render/replay.py)
    drawn, forms = cache.stats.forms_drawn["eti-cards.pdf"]
    assert drawn == 1 and forms > 100
    # the rules reference, whose event table shows the card, draws none of its art again,
    # and of its pages only the table's and the contents (whose links are drawn each time)
    drawn, forms = cache.stats.forms_drawn["eti-rules-reference.pdf"]
    assert drawn == 0 and forms > 20
    drawn, pages = cache.stats.pages_drawn["eti-rules-reference.pdf"]
    assert drawn <= 3 and pages == 27


def test_the_boards_depend_on_the_largest_project_difficulty_not_on_every_project(warm,
                                                                                  tmp_path):
    """The boards read one value of the projects, the largest difficulty (the data bank's
    reach): a project's flavour leaves them alone, a new largest difficulty draws them
    again, byte for byte a fresh build."""
    from eti_print.pipeline import build
    pack, out, cache = warm
    edit(pack / "cards/projects.yaml", "it comes in avocado.", "it comes in teal.")
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert report.ok and "eti-cards.pdf" in report.rendered
    assert "eti-boards.pdf" not in report.rendered
    edit(pack / "cards/projects.yaml", "difficulty: 400", "difficulty: 410")
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert report.ok and "eti-boards.pdf" in report.rendered
    build(str(pack), tmp_path / "fresh", PrintOptions(), cache=None)
    assert (out / "eti-boards.pdf").read_bytes() == \
        (tmp_path / "fresh" / "eti-boards.pdf").read_bytes()


def test_a_layout_edit_redraws_only_the_forms_of_the_faces_it_changes(warm):
    """Resources are loaded afresh after a layout edit, but the art draws alike (its
    content key), so the records of the last drawing still hold for the other decks."""
    pack, out, cache = warm
    edit(pack / "templates/layouts/event.yaml", "size: 14pt", "size: 13pt")
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert report.ok and not cache.stats.resources_reused
    drawn, forms = cache.stats.forms_drawn["eti-cards.pdf"]
    assert drawn == 25 and forms > 100                  # the 25 event faces


EDITS = [
    ("cards/events.yaml", "highest filled data port.", "highest occupied data port."),
    ("cards/projects.yaml", "it comes in avocado.", "it comes in teal."),
    ("cards/research.yaml", "{kind: number, value: 10, count: 16}\n  - {kind: number, value: 20, "
     "count: 16}", "{kind: number, value: 10, count: 17}\n  - {kind: number, value: 20, "
     "count: 15}"),
    ("cards/companies.yaml", "We carry the weight of tomorrow.", "We carry tomorrow."),
    ("cards/fields.yaml", "name: Chemistry,", "name: Alchemy,"),
    ("cards/game.yaml", "start_year: 1965", "start_year: 1966"),
    ("cards/traits.yaml", 'label: "3 cards"', 'label: "three cards"'),
    ("cards/agendas.yaml", "name: Conduct Research", "name: Do Research"),
    ("templates/layouts/event.yaml", "size: 14pt", "size: 13pt"),
    ("templates/booklet/turn.j2", "Each turn is one year of work.", "Each turn is a year."),
    ("templates/art/threat-spy.svg", 'cx="34" cy="58" r="11"', 'cx="34" cy="58" r="10"'),
    ("fonts/fonts.yaml", "regular: routed-gothic-wide.ttf", "regular: routed-gothic.ttf"),
]


def _fresh(folder: Path) -> None:
    """After each of ``EDITS``, applied one after another to a copy of the pack, a
    fresh (uncached) build: the SHA-256 of every PDF it makes (``fresh.json``), and
    what ``validate`` without a cache reports (``validated.json``: its summary,
    formatted from the very plans the build drew)."""
    pack = copy_pack(folder / "pack")
    found, validated = [], []
    for path, old, new in EDITS:
        edit(pack / path, old, new)
        ctx = load_context(str(pack), PrintRequest())     # as validate loads it
        plans = resolve(ctx)
        validated.append(report(ctx, [(job, summarize(job, plan)) for job, plan in plans]))
        found.append({o.name: hashlib.sha256(o.data).hexdigest() for o in draw(ctx, plans)})
    (folder / "fresh.json").write_text(json.dumps(found), encoding="utf-8")
    (folder / "validated.json").write_text(json.dumps(validated), encoding="utf-8")


@pytest.fixture(scope="session")
def fresh_builds(shared_folder) -> list[dict[str, str]]:
    """The SHA-256 of every PDF a fresh build makes after each of ``EDITS`` (``_fresh``):
    computed once per session (for all xdist workers), shared by the tests below."""
    return json.loads((shared_folder("watch-fresh-builds", _fresh) / "fresh.json").read_text())


@pytest.fixture(scope="session")
def fresh_validates(shared_folder) -> list[str]:
    """What ``validate`` without a cache reports after each of ``EDITS`` (``_fresh``)."""
    folder = shared_folder("watch-fresh-builds", _fresh)
    return json.loads((folder / "validated.json").read_text())


@pytest.mark.long
def test_the_persistent_cache_gives_what_fresh_builds_give(pack_copy, tmp_path, fresh_builds):
    """The persistent build cache (diskcache.py) after edits, and after an edit undone:
    each build through it, stored or read back, is byte for byte a fresh build."""
    from eti_print.diskcache import DiskCache
    from eti_print.pipeline import build
    store = DiskCache(tmp_path / "cache")

    def built(name: str) -> dict[str, str]:
        out = tmp_path / name
        build(str(pack_copy), out, PrintOptions(), cache=None, store=store)
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in out.iterdir()
                if p.suffix == ".pdf"}

    for n, ((path, old, new), fresh) in enumerate(zip(EDITS[:2], fresh_builds, strict=False)):
        edit(pack_copy / path, old, new)
        assert built(f"stored{n}") == fresh, f"stored after editing {path}"
        assert built(f"read{n}") == fresh, f"read back after editing {path}"
    path, old, new = EDITS[1]
    edit(pack_copy / path, new, old)                       # undone: the first state again
    assert built("undone") == fresh_builds[0]
    assert len([p for p in (store.folder / "builds").rglob("*") if p.is_file()]) == 2


@pytest.mark.long
def test_job_entries_on_disk_give_what_fresh_builds_give(pack_copy, tmp_path, fresh_builds,
                                                         fresh_validates):
    """The build cache's entries kept on disk (diskcache.EntryStore), read back by a cold
    build (a cache with nothing in memory, as a new process has) after edits to every
    kind of input: byte for byte a fresh build, reusing what the edit did not touch."""
    from eti_print.diskcache import EntryStore
    from eti_print.pipeline import build, validate
    store = EntryStore(tmp_path / "cache")

    def built(name: str) -> tuple[dict[str, str], BuildCache]:
        cache = BuildCache(workers=1, disk=store)
        out = tmp_path / name
        build(str(pack_copy), out, PrintOptions(), cache=cache)
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in out.iterdir()
                if p.suffix == ".pdf"}, cache

    built("first")
    reused = set()
    for n, ((path, old, new), fresh, summary) in enumerate(zip(EDITS, fresh_builds,
                                                               fresh_validates, strict=True)):
        edit(pack_copy / path, old, new)
        found, cache = built(f"edit{n}")
        assert found == fresh, f"stale after editing {path}"
        assert cache.stats.outputs_rendered, path               # the edit is drawn afresh
        reused.update(cache.stats.outputs_reused)
        # validate reads the summaries back: the same report as without the cache
        assert validate(str(pack_copy), cache=BuildCache(workers=1, disk=store)) == summary, \
            path
    assert {"eti-boards.pdf", "eti-cards.pdf", "eti-tokens.pdf"} <= reused
    again, cache = built("again")                                # nothing changed: all read
    assert again == fresh_builds[-1] and cache.stats.outputs_rendered == []


@pytest.mark.long
@pytest.mark.parametrize("workers", [1, 2])
def test_cached_rebuilds_are_byte_identical_to_fresh_builds(pack_copy, tmp_path, workers,
                                                            fresh_builds):
    """After edits to every kind of input, what the cache reuses is exactly what a
    fresh build makes (the dependency tracking misses nothing)."""
    cache = BuildCache(workers=workers)
    out = tmp_path / "out"
    assert rebuild(str(pack_copy), out, PrintOptions(), cache).ok
    # two workers: the first edits (a deck in the parent, the other jobs in forked
    # children) show the forked path sound; one worker goes through every edit
    edits = EDITS if workers == 1 else EDITS[:3]
    for (path, old, new), fresh in zip(edits, fresh_builds[:len(edits)], strict=True):
        edit(pack_copy / path, old, new)
        report = rebuild(str(pack_copy), out, PrintOptions(), cache)
        assert report.ok, (path, report.problems)
        cached = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in out.iterdir()
                  if p.suffix == ".pdf"}
        assert cached.keys() == fresh.keys()
        for name in fresh:
            assert cached[name] == fresh[name], f"{name} is stale after editing {path}"
        assert report.rendered, path


def test_an_undone_edit_rebuilt_in_a_child_is_a_fresh_builds_bytes(pack_copy, tmp_path):
    """Undone, an edit brings back a state whose plan the cache kept: the forked child
    draws that plan again, byte for byte what a build without a cache makes."""
    from eti_print.pipeline import build
    cache = BuildCache(workers=2)
    out = tmp_path / "out"
    assert rebuild(str(pack_copy), out, PrintOptions(), cache).ok
    path, old, new = EDITS[0]
    edit(pack_copy / path, old, new)
    assert rebuild(str(pack_copy), out, PrintOptions(), cache).ok
    edit(pack_copy / path, new, old)
    assert rebuild(str(pack_copy), out, PrintOptions(), cache).ok
    assert "eti-rules-reference.pdf" in cache.stats.outputs_rendered
    build(str(pack_copy), tmp_path / "fresh", PrintOptions(), cache=None)
    cached, fresh = _digests(out), _digests(tmp_path / "fresh")
    assert {n: d for n, d in cached.items() if n.endswith(".pdf")} == \
        {n: d for n, d in fresh.items() if n.endswith(".pdf")}


def test_booklet_pages_drawn_from_their_records_are_a_fresh_builds_bytes(pack_copy, tmp_path):
    """Imposed, a document's pages are forms: after a one-event edit they come from the
    records of the last drawing but the one that shows the event, byte for byte what a
    build without a cache makes."""
    from eti_print.pipeline import build
    options = PrintOptions(booklet=True)
    cache = BuildCache(workers=1)
    out = tmp_path / "out"
    assert rebuild(str(pack_copy), out, options, cache).ok
    path, old, new = EDITS[0]
    edit(pack_copy / path, old, new)
    assert rebuild(str(pack_copy), out, options, cache).ok
    drawn, pages = cache.stats.pages_drawn["eti-rules-reference.pdf"]
    assert drawn <= 2 and pages == 27
    build(str(pack_copy), tmp_path / "fresh", options, cache=None)
    cached, fresh = _digests(out), _digests(tmp_path / "fresh")
    assert {n: d for n, d in cached.items() if n.endswith(".pdf")} == \
        {n: d for n, d in fresh.items() if n.endswith(".pdf")}


def test_ink_saver_watch_writes_variants(pack_copy, tmp_path):
    report = rebuild(str(pack_copy), tmp_path, PrintOptions(ink_saver=True), BuildCache(workers=1))
    assert report.ok
    assert all("-ink-saver" in name for name in report.written)
    assert "eti-manifest-ink-saver.json" in report.written


# -- dependency tracking ---------------------------------------------------------------


def test_tracked_docs_record_what_is_read():
    recorder = _Recorder(lambda key: "v")
    docs = TrackedDocs({"a": 1, "b": 2, "c": 3}, recorder)
    deps: dict = {}
    recorder.stack.append(deps)
    assert list(docs) == ["a", "b", "c"] and "b" in docs and len(docs) == 3
    assert deps == {}
    assert docs["a"] == 1 and docs.get("b") == 2 and docs.get("zz") is None
    assert set(deps) == {("doc", "a"), ("doc", "b")}
    dict(docs.items())
    assert set(deps) == {("doc", "a"), ("doc", "b"), ("doc", "c")}


def test_database_reads_are_recorded_per_attribute():
    cache = BuildCache(workers=1)
    ctx = load_context(None, PrintOptions())
    cache.begin(ctx)
    try:
        tracked = cache.tracked(ctx)
        deps: dict = {}
        cache._recorder.stack.append(deps)
        assert tracked.model.project("string-theory").name == "String Theory"
        assert isinstance(tracked.model, type(ctx.model))
        assert set(deps) == {("db", "projects")}
        tracked.model.dataset.items("fields.fields")
        assert ("doc", "fields") in deps
    finally:
        cache._recorder.stack.clear()
        cache.end()


def test_each_job_depends_on_the_layouts_templates_and_art_it_read(warm):
    """A job's entry lists the layout, template and art files it used, not every file
    under templates/: the booklet does not depend on the card layouts, the cards not on
    the booklet's templates."""
    pack, out, cache = warm
    deps = {name: entries[0].deps for name, entries in cache._outputs.items()}
    decks, documents = deps["eti_print.jobs.decks"], deps["eti_print.jobs.documents"]
    assert ("file", "templates/layouts/event.yaml") in decks
    assert ("art", "templates/art", "threat-spy") in decks
    assert not any(k[0] == "file" and k[1].endswith(".j2") for k in decks)
    assert ("file", "templates/booklet/turn.j2") in documents
    assert ("file", "templates/layouts/event.yaml") not in documents
    assert ("file", "templates/layouts/event.yaml") not in deps["eti_print.jobs.pieces"]


def test_entries_on_disk_are_checked_and_bounded(tmp_path):
    """diskcache.EntryStore: the newest fresh candidate wins, a torn value is a miss,
    and the folder's bound counts its files."""
    from eti_print.diskcache import CANDIDATES, DiskCache, EntryStore
    store = EntryStore(tmp_path / "c")
    for n in range(CANDIDATES + 2):
        store.put("outputs", "job", "k", {("doc", "a"): str(n)}, f"value {n}")
    assert store.get("outputs", "job", "k", lambda d: d[("doc", "a")] == "9") == \
        ({("doc", "a"): "9"}, "value 9")
    assert store.get("outputs", "job", "k", lambda d: d[("doc", "a")] == "0") is None  # gone
    assert store.get("outputs", "job", "other key", lambda d: True) is None
    values = [p for p in (tmp_path / "c" / "entries").rglob("*") if p.is_file()]
    for path in values:
        path.write_bytes(path.read_bytes()[:10])                 # every file torn
    assert store.get("outputs", "job", "k", lambda d: True) is None
    DiskCache(tmp_path / "c", max_bytes=0).prune()
    assert not [p for p in (tmp_path / "c" / "entries").rglob("*") if p.is_file()]


def test_fingerprint_sees_every_field_and_order():
    assert fingerprint({"a": 1, "b": 2}) != fingerprint({"b": 2, "a": 1})
    assert fingerprint([1, "1"]) != fingerprint([1, 1])
    assert fingerprint((1,)) != fingerprint([1])
    # parsed data (dicts and lists of plain values) in one C call, every type told apart
    assert fingerprint({"a": [1, 2]}) != fingerprint({"a": (1, 2)})
    assert fingerprint({"n": 1}) != fingerprint({"n": True}) != fingerprint({"n": 1.0})
    assert fingerprint({1: "x"}) != fingerprint({"1": "x"})
    assert fingerprint({"when": date(1965, 1, 1)}) != fingerprint({"when": date(1966, 1, 1)})
    # ... and neither how its strings are shared nor the order of a set counts
    shared = "x" * 3
    assert fingerprint([shared, shared]) == fingerprint(["xxx", "".join(["x", "xx"])])
    value = [{"s": {"<b>", "c", "a", "d", "e", "f"}}]       # another hash seed, another order
    import subprocess
    import sys
    there = subprocess.run([sys.executable, "-c", "from eti_print.tracking import fingerprint; "
                            f"print(fingerprint({value!r}))"], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": "7"}, check=True).stdout.strip()
    assert there == fingerprint(value)
    ctx = load_context(None, PrintOptions())
    assert fingerprint(ctx.model.rules) == fingerprint(load_context(None, PrintOptions())
                                                         .model.rules)


# -- command line ----------------------------------------------------------------------


def test_cli_watch_ctrl_c_exits_cleanly(monkeypatch, tmp_path, capsys):
    import eti_print.watch as watch_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(watch_module, "watch", interrupted)
    assert main(["watch", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert "stopped watching" in captured.err and "Traceback" not in captured.err


def test_cli_watch_prints_reports(monkeypatch, tmp_path, capsys):
    import eti_print.watch as watch_module
    from eti_print.watch import BuildReport

    def fake(pack, out, options, on_build=None, **kwargs):
        on_build(BuildReport(True, 0.25, ["cards/events.yaml"], ["eti-cards.pdf"]))
        on_build(BuildReport(False, 0.1, ["cards/events.yaml"],
                             problems=["cards/events.yaml:3:1: bad"]))

    monkeypatch.setattr(watch_module, "watch", fake)
    assert main(["watch", "--out", str(tmp_path), "--ink-saver", "--paper", "letter"]) == 0
    captured = capsys.readouterr()
    assert "cards/events.yaml changed; rebuilt in 0.25 s: eti-cards.pdf" in captured.out
    assert "cards/events.yaml:3:1: bad" in captured.err
    assert "kept the last good output" in captured.err


def test_cli_watch_bad_command_line_exits_2(capsys):
    assert main(["watch", "--paper", "a3"]) == 2
    assert main(["watch", "--frobnicate"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_cli_watch_missing_pack_exits_1(tmp_path, capsys):
    assert main(["watch", str(tmp_path / "nowhere")]) == 1
    assert "pack folder not found" in capsys.readouterr().err


def _children() -> set[int]:
    """This process's child processes, zombies included (Linux: /proc)."""
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        found.update(int(pid) for pid in (task / "children").read_text().split())
    return found


@pytest.mark.long
def test_a_render_failure_with_workers_reports_and_leaves_no_process_behind(pack_copy, tmp_path):
    cache = BuildCache(workers=2)
    out = tmp_path / "out"
    others = _children()          # what earlier tests of this process may have left
    assert rebuild(str(pack_copy), out, PrintOptions(), cache).ok
    before = _digests(out)
    layout = pack_copy / "templates/layouts/project.yaml"
    good = layout.read_text(encoding="utf-8")
    layout.write_text(good.replace("{{ card.name }}", "{{ card.nmae }}"), encoding="utf-8")
    report = rebuild(str(pack_copy), out, PrintOptions(), cache)
    assert not report.ok
    assert any(p.startswith("templates/layouts/project.yaml:") and "nmae" in p
               for p in report.problems)
    assert _digests(out) == before
    assert _children() == others                 # every worker was reaped
    layout.write_text(good, encoding="utf-8")
    report = rebuild(str(pack_copy), out, PrintOptions(), cache)
    assert report.ok and _digests(out) == before


def test_a_rebuild_names_the_deck_cards_and_pages_that_changed(warm):
    pack, out, cache = warm
    edit(pack / "cards/events.yaml", "highest filled data port.", "highest occupied data port.")
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert report.ok, report.problems
    assert [(c.deck, c.output) for c in report.decks] == [("events", "eti-cards.pdf")]
    change = report.decks[0]
    assert change.cards == ["the-great-blackout"]      # the first event card
    # events are the third deck: research (90 cards, 10 sheets) and projects (40, 5 sheets)
    # come first, nine cards to a sheet, each front sheet followed by its back sheet
    assert change.pages == [33, 34]    # research: 11 sheets (the scale check's slot)
    assert "events: 1 card changed: the-great-blackout; eti-cards.pdf pages 33-34" \
        in report.summary()
    # nothing changed: nothing named
    edit(pack / "cards/events.yaml", "\n", "\n# a comment\n")
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert report.ok and report.decks == []


def test_watch_prints_the_output_folder(pack_copy, tmp_path, monkeypatch, capsys):
    import eti_print.watch as watch_module

    def no_loop(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(watch_module, "watch", no_loop)
    assert main(["watch", str(pack_copy), "--out", str(tmp_path / "o")]) == 0
    assert f"writing to {(tmp_path / 'o').resolve()}" in capsys.readouterr().out
