"""In-process build cache: rebuild only what an edit changed (``eti-print watch``).

A rebuild after a one-card edit must not redraw the whole game.  The cache
keeps, between builds of one pack in one process:

* **Resources**: fonts, art, templates (compiled), layouts and sheet
  settings, reused while no file under ``templates/`` or ``fonts/`` changed.
* **Outputs**: what each job (``jobs.Job``) returned (its list
  of ``Output``s), reused while nothing it read changed.
* **Decks**: each card deck's resolved faces (``jobs.decks.resolve_deck``),
  reused while nothing the deck's templates read changed; a deck whose data
  changed is resolved again and the cards PDF re-imposed from all decks.
* **Checks**: a check-stage rule that resolves templates (the board seams:
  ``jobs.board_seams``), reused while nothing it read changed and it found no
  problem.
* **Forms**: the records of each output's last drawn forms (``render/replay.py``):
  re-imposing a PDF draws again only the forms whose record no longer holds (a
  record is a form's operators with the font calls that must return the same).

Keys are content hashes, never timestamps.  Each entry has a *global* key
(the bytes of ``pack.yaml``, the schemas, the fonts, the files under
``templates/`` that no tracked route reaches, the budgets, the print options;
a deck: its settings instead of the options) and *dependencies* discovered
while it was computed: what a renderer really read (``tracking.py``: the
layout, template and art files through their libraries, and the data).
While a renderer runs it sees a context whose ``dataset.docs`` and ``model``
(the game's model) record every access:

* ``dataset.docs[name]`` (and ``items``/``by_id``/``located``, which go
  through it) depends on that data file's parsed value;
* a ``model`` attribute (``db.projects``) depends on that attribute's value,
  so reading the agendas does not depend on the agenda cards, although both
  come from ``agendas.yaml``; ``db.dataset`` is the tracked dataset.

An entry is reused when its global key matches and every dependency's value
hashes the same as when it was computed.  Values are hashed after parsing, so
editing a comment or re-indenting re-renders nothing.  Renderers are
deterministic functions of what they read, so a reused output is byte for
byte what a fresh build would make (``tests/test_watch.py`` checks this after
edits to every data file).  A dependency read through some other route would
be missed, so the routes are the two above: data files are reachable only
through ``Dataset.docs`` (``Context.dataset``) and the model.

When more than one renderer has to run and the machine has more than one
core (``workers``), the first stale renderer (the cards, which use the deck
cache) runs in this process and the others each in a forked child that
renders from the same in-memory state and sends back its outputs and
dependencies; the results are identical, only sooner.  Without ``os.fork``
everything runs here.

Entries are keyed by content, not by the pack's folder, so a copy of a
pack reuses what the original rendered.  ``keep`` entries are kept per job
and deck: one for ``watch``; ``pipeline.SHARED``, the cache every ``build``
and ``validate`` of a process goes through, keeps a few, so that a process
building several packs in turn (tests, scripts) renders each only once.
With ``disk`` (a ``diskcache.EntryStore``) the outputs, decks and validate
summaries are kept on disk too and found again by a later process (plans,
which may hold closures, stay in memory).
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import os
import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import forked, tracking
from .errors import InputError
from .files import digest
from .forked import collect, start_child
from .tracking import (  # noqa: F401 - the recording routes, re-exported for callers
    DIGEST_CAP,
    WHOLE,
    TrackedDocs,
    Untrackable,
    _feed,
    _Recorder,
    files_hash,
    fingerprint,
    global_hash,
    key_of,
    listing,
    model_view,
)

#: Folders of a pack whose files are resources (any change: new resources,
#: and every entry's global key changes).
RESOURCE_FOLDERS = ("templates", "fonts")


#: What a forked child working out a job's validate summary is kept under (``_pending``).
_SUMMARY = "summary:"


def _name(renderer: Callable) -> str:
    name = getattr(renderer, "name", None)   # a jobs.Job
    return name if isinstance(name, str) else f"{renderer.__module__}.{renderer.__qualname__}"


# ---------------------------------------------------------------------------


@dataclass
class _Entry:
    key: str
    deps: dict[tuple, str]
    value: Any


@dataclass
class CacheStats:
    """What the last build reused and what it computed."""

    resources_reused: bool = False
    outputs_reused: list[str] = field(default_factory=list)
    outputs_rendered: list[str] = field(default_factory=list)
    decks_reused: list[str] = field(default_factory=list)
    decks_resolved: list[str] = field(default_factory=list)
    #: The form records handed out this build, by output (``BuildCache.form_records``).
    records: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def forms_drawn(self) -> dict[str, tuple[int, int]]:
        """Each PDF drawn through form records this build: its forms (drawn afresh, in
        all); the rest came from the records of its last drawing (``render.replay``)."""
        return {name: r.counts for name, r in self.records.items() if r.counts is not None}

    @property
    def pages_drawn(self) -> dict[str, tuple[int, int]]:
        """Each document drawn through records this build: its pages (drawn afresh, in
        all); the rest came from the records of its last drawing (``render.replay``)."""
        return {name: r.page_counts for name, r in self.records.items()
                if r.page_counts is not None}


class BuildCache:
    """Everything one process keeps between builds of one pack (see the module doc)."""

    def __init__(self, workers: int | None = None, keep: int = 1, disk: Any = None,
                 once: bool = False) -> None:
        #: Processes rendering at once (1: everything in this process).  By
        #: default two on a multi-core machine, but only while a core is idle
        #: (forked workers on a busy machine only add overhead).
        self.workers = workers if workers is not None else min(2, os.cpu_count() or 1)
        self._auto = workers is None
        #: A cache for one build (the command line's, whose entries live on disk): a
        #: renderer may be forked the first time it runs, since no later build of this
        #: process would find the caches its child fills warm here.
        self.once = once
        #: Entries kept per job and deck (and resource sets): 1 for watch (one pack);
        #: more for a process that builds several packs in turn (``pipeline.SHARED``).
        self.keep = max(1, keep)
        self._pending: dict[str, tuple[int, int]] = {}   # renderer -> (pid, pipe)
        self._ran_here: set[str] = set()
        self._resources_hit = False   # renderers whose lazy caches are warm here
        self._resources: list[tuple[str, str, Any]] = []   # (root, key, resources)
        self._outputs: dict[str, list[_Entry]] = {}
        self._decks: dict[str, list[_Entry]] = {}
        self._plans: dict[str, list[_Entry]] = {}
        self._summaries: dict[str, list[_Entry]] = {}
        self._checks: dict[str, list[_Entry]] = {}
        #: Entries kept on disk too (``diskcache.EntryStore``): outputs, decks and
        #: summaries, found again by a later process; None: in this process only.
        self.disk = disk
        self._kinds = {id(self._outputs): "outputs", id(self._decks): "deck",
                       id(self._summaries): "summary", id(self._checks): "check"}
        self._art: dict[str, dict[str, list[str]]] = {}
        self._drawn: dict[str, tuple[tuple, Any]] = {}
        self._forms: dict[str, Any] = {}      # output -> render.replay.Records
        self._ctx: Any = None
        self._values: dict[tuple, str] = {}
        self._global = ""
        self._recorder = _Recorder(self._value)
        self.stats = CacheStats()
        #: The faces of each deck at the last build ``watch`` reported, to say which cards
        #: changed (``watch.deck_changes``).
        self.seen: dict[str, tuple] = {}

    # -- resources ---------------------------------------------------------
    def resources(self, pack: Any, load: Callable[[], Any]) -> Any:
        """``load()`` (fonts, art, templates, ...) unless no resource file changed."""
        key = files_hash(pack.root, RESOURCE_FOLDERS)
        root = str(pack.root)
        for n, found in enumerate(self._resources):
            if found[:2] == (root, key):
                self._resources.insert(0, self._resources.pop(n))
                self._resources_hit = True
                return found[2]
        self._resources_hit = False
        value = load()
        self._resources = [(root, key, value)] + self._resources[:self.keep - 1]
        return value

    # -- one build ---------------------------------------------------------
    def begin(self, ctx: Any, renderers: Any = ()) -> None:
        """Start a build of ``ctx`` (called by ``pipeline.render`` with its jobs)."""
        self._start(ctx)
        self.stats = CacheStats(resources_reused=self._resources_hit)
        self._resources_hit = False
        if self._parallel():
            stale = [r for r in renderers
                     if self._find(self._outputs, _name(r), self._output_key(ctx)) is None]
            # Fork only renderers that have run here before (unless ``once``): a child's
            # lazily filled caches (compiled templates, tinted art) die with it.
            self._fork({_name(r): lambda say, r=r: r(self.tracked(ctx), say)
                        for r in stale[1:] if self.once or _name(r) in self._ran_here})

    def _start(self, ctx: Any) -> None:
        """What the entries of a build of ``ctx`` are told by: the global key, and the
        values of dependencies, worked out afresh (once for its check and its render)."""
        if self._ctx is ctx:
            return
        self._ctx = ctx
        self._values = {}
        self._art = {}
        root = ctx.pack.root
        # Content, not the folder: a copy of a pack reuses what the original rendered
        # (nothing a renderer makes depends on where the pack is).
        # The layouts, the art and the template files are dependencies of what reads them
        # (``tracking``); everything else is in every entry's global key.
        # The budgets too: a process may change them (a pages cap that must stop a build).
        from .limits import BUDGETS, VALUES
        self._global = fingerprint((global_hash(root, tuple(
            folder for folder in (getattr(ctx.layouts, "folder", None),
                                  getattr(ctx.art, "art_dir", None)) if folder)),
            BUDGETS, VALUES))

    def _parallel(self) -> bool:
        """Whether to fork: always with workers asked for, by default only while a core
        is idle (``forked.idle_core``, as a build without a cache decides)."""
        if self.workers <= 1 or not hasattr(os, "fork"):
            return False
        return not self._auto or forked.idle_core()

    def end(self) -> None:
        """Finish a build; children whose results were not collected (a failure) are stopped."""
        for pid, fd in self._pending.values():
            os.close(fd)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:  # pragma: no cover - it had already exited
                pass
            os.waitpid(pid, 0)
        self._pending.clear()
        self._ctx = None

    # -- rendering in a child process ------------------------------------------
    def _fork(self, computes: dict[str, Callable[[Callable[[str], None]], Any]]) -> None:
        """Each ``compute(say)`` in a forked child of its own, kept under its name until
        ``_collected``: the child sends back the value, the dependencies it read and the
        progress lines it said, or its problems."""
        def work(compute: Callable[[Callable[[str], None]], Any]) -> tuple:
            deps: dict[tuple, str] = {}
            lines: list[str] = []          # its progress, told by the parent in job order
            self._recorder.stack = [deps]
            tracking.ACTIVE = self._recorder
            try:
                return ("ok", compute(lines.append), deps, lines)
            except InputError as exc:
                return ("input", exc.problems)
        if not computes:
            return
        gc.freeze()   # children do not copy the heap to collect it
        try:
            for name, compute in computes.items():
                self._pending[name] = start_child(lambda compute=compute: work(compute))
        finally:
            gc.unfreeze()

    def fork_summaries(self, ctx: Any, jobs: list, summarize: Callable[[Any, Any], Any]
                       ) -> None:
        """For a one-build cache (``once``) on a machine with an idle core: every stale
        summary but the first is worked out in a forked child of its own, collected by
        ``summary`` (validate's resolve on both cores)."""
        if not self.once or not self._parallel():
            return
        key = self._output_key(ctx)
        stale = [job for job in jobs if self._find(self._summaries, _name(job), key) is None]
        self._fork({_SUMMARY + _name(job):
                    lambda say, job=job: summarize(job, job.resolve(self.tracked(ctx)))
                    for job in stale[1:]})

    def _collected(self, pending: str, store: dict[str, list[_Entry]], name: str, key: str,
                   progress: Any = None) -> tuple | None:
        """What the child working under ``pending`` sent, as ``(value,)``, kept under
        ``name`` and ``key`` as if worked out here (its progress told); None if no child
        works on it, or it died (then the caller works it out here).  Its problems are
        raised; a crash, as an internal error."""
        if pending not in self._pending:
            return None
        payload = self._collect(pending)
        if payload is None:
            return None
        if payload[0] == "input":
            raise InputError(payload[1])
        if payload[0] == "crash":
            raise RuntimeError(f"{name} failed in a worker process: {payload[1]}\n{payload[2]}")
        _, value, deps, lines = payload
        if progress is not None:
            for line in lines:
                progress(line)
        self._store(store, name, _Entry(key, deps, value))
        self._recorder.replay(deps)
        return (value,)

    def _collect(self, name: str) -> tuple | None:
        return collect(*self._pending.pop(name))   # None: the child died, render here

    def _value(self, key: tuple) -> str:
        value = self._values.get(key)
        if value is None:
            kind, name = key[0], key[1]
            ctx = self._ctx
            root = Path(ctx.pack.root).resolve()
            if kind == "doc":
                target = ctx.dataset.docs[name].data if name in ctx.dataset.docs else None
                value = fingerprint(target)
            elif kind == "db":
                value = self._model_value(name)
            elif kind == "file":
                value = digest(root / name, DIGEST_CAP).hex()
            elif kind == "dir":
                value = listing(root / name)
            elif kind == "art":
                names = self._art_files(name).get(key[2], [])
                value = fingerprint([(n, digest(root / name / n, DIGEST_CAP)) for n in names])
            else:
                raise KeyError(key)
            self._values[key] = value
        return value

    def _model_value(self, name: Any) -> str:
        """The value of a read of the game's model (``tracking.model_view``): the
        attribute's or key's value; the whole model (every data file) for a read the
        view cannot tell apart or a value it cannot fingerprint."""
        model = self._ctx.model
        if name != WHOLE:
            try:
                if isinstance(name, tuple) and name[0] == "keys":
                    return fingerprint(list(model))
                if isinstance(name, tuple) and name[0] == "key":
                    return fingerprint(model.get(name[1]) if isinstance(model, Mapping)
                                       else None)
                return fingerprint(getattr(model, name, None))
            except Untrackable:
                pass
        found = self._values.get(("db", WHOLE))
        if found is None:
            docs = self._ctx.dataset.docs
            found = self._values[("db", WHOLE)] = "whole:" + fingerprint(
                [(n, docs[n].data) for n in sorted(docs)])
        return found

    def _art_files(self, art_dir: str) -> dict[str, list[str]]:
        """The art ids of ``art_dir`` and their file names, listed once a build."""
        found = self._art.get(art_dir)
        if found is None:
            art = self._ctx.art
            found = self._art[art_dir] = art._files() if getattr(art, "art_dir", None) \
                == art_dir else {}
        return found

    def _fresh(self, entry: _Entry | None, key: str) -> bool:
        if entry is None or entry.key != key:
            return False
        try:
            return all(self._value(dep) == value for dep, value in entry.deps.items())
        except Exception:
            return False

    def tracked(self, ctx: Any) -> Any:
        """A copy of ``ctx`` whose data reads are recorded (the same objects otherwise)."""
        if isinstance(ctx.dataset.docs, TrackedDocs):
            return ctx
        ds = dataclasses.replace(ctx.dataset, docs=TrackedDocs(ctx.dataset.docs,
                                                               self._recorder))
        # a recording view of the model, whatever its type: no class of the game's swapped
        return dataclasses.replace(ctx, dataset=ds,
                                   model=model_view(ctx.model, self._recorder, ds))

    def _find(self, store: dict[str, list[_Entry]], name: str, key: str) -> _Entry | None:
        """The fresh entry for ``name`` and ``key``, made the most recent, or None."""
        entries = store.get(name, [])
        for n, entry in enumerate(entries):
            if self._fresh(entry, key):
                entries.insert(0, entries.pop(n))
                return entry
        kind = self._kinds.get(id(store))
        if self.disk is None or kind is None:
            return None
        found = self.disk.get(kind, name, key, lambda deps: self._fresh(_Entry(key, deps, None),
                                                                       key))
        if found is None:
            return None
        entry = _Entry(key, found[0], found[1])
        self._store(store, name, entry, persist=False)
        return entry

    def _store(self, store: dict[str, list[_Entry]], name: str, entry: _Entry,
               persist: bool = True) -> None:
        kind = self._kinds.get(id(store))
        # A one-build cache's decks are found again only on disk, if at all (no later
        # build of this process looks for them), so their faces can go once drawn
        if kind != "deck" or self.keeps_drawings:
            store[name] = [entry] + store.get(name, [])[:self.keep - 1]
        if persist and self.disk is not None and kind is not None:
            self.disk.put(kind, name, entry.key, entry.deps, entry.value)

    def _run(self, store: dict[str, list[_Entry]], name: str, key: str,
             compute: Callable[[], Any],
             failed: Callable[[], bool] | None = None) -> tuple[Any, bool]:
        """``compute()`` unless a fresh entry is kept; kept after, unless ``failed()``."""
        entry = self._find(store, name, key)
        if entry is not None:
            self._recorder.replay(entry.deps)
            return entry.value, True
        deps: dict[tuple, str] = {}
        self._recorder.stack.append(deps)
        active, tracking.ACTIVE = tracking.ACTIVE, self._recorder
        try:
            value = compute()
        finally:
            self._recorder.stack.pop()
            tracking.ACTIVE = active
        self._recorder.replay(deps)
        if failed is None or not failed():
            self._store(store, name, _Entry(key, deps, value))
        return value, False

    # -- outputs -------------------------------------------------------------
    def _output_key(self, ctx: Any) -> str:
        # SOURCE_DATE_EPOCH sets the dates inside every PDF
        epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
        return hashlib.sha256(f"{self._global}\0{ctx.options!r}\0{epoch}".encode()).hexdigest()

    def render(self, renderer: Callable[[Any, Any], list], ctx: Any, progress: Any) -> list:
        """``renderer(ctx, progress)``, or its outputs from the last build if still valid."""
        name = _name(renderer)
        key = self._output_key(ctx)
        sent = self._collected(name, self._outputs, name, key, progress)
        if sent is not None:
            outputs, reused = sent[0], False
        else:
            outputs, reused = self._run(self._outputs, name, key,
                                        lambda: renderer(self.tracked(ctx), progress))
            self._ran_here.add(name)
        names = [o.name for o in outputs]
        (self.stats.outputs_reused if reused else self.stats.outputs_rendered).extend(names)
        return list(outputs)

    def forked(self, job: Any) -> bool:
        """Is ``job`` being rendered by a forked child (its result not yet collected)?"""
        return _name(job) in self._pending

    def stale(self, job: Any, ctx: Any) -> bool:
        """Must ``job`` run (no fresh outputs kept), here (not in a forked worker)?"""
        name = _name(job)
        return name not in self._pending and \
            self._find(self._outputs, name, self._output_key(ctx)) is None

    # -- plans (validate) --------------------------------------------------------
    def plan(self, job: Any, ctx: Any) -> Any:
        """``job.resolve(ctx)``, or the plan of an earlier validate if nothing it read
        changed (a plan with problems is never kept: the problems are raised)."""
        value, _ = self._run(self._plans, _name(job), self._output_key(ctx),
                             lambda: job.resolve(self.tracked(ctx)))
        return value

    def summary(self, job: Any, ctx: Any, summarize: Callable[[Any, Any], Any]) -> Any:
        """``summarize(job, plan)`` (what ``validate`` reports of a job), or an earlier
        one's if nothing the plan read changed: kept on disk, so a validate of an
        edited pack resolves only the jobs the edit touched."""
        name, key = _name(job), self._output_key(ctx)
        sent = self._collected(_SUMMARY + name, self._summaries, name, key)
        if sent is not None:
            return sent[0]
        value, _ = self._run(self._summaries, name, key,
                             lambda: summarize(job, self.plan(job, ctx)))
        return value

    # -- checks ----------------------------------------------------------------
    def checked(self, name: str, ctx: Any, check: Callable[[Any], list]) -> list:
        """``check(ctx)``, the problems a check-stage rule finds, or none if the last
        build's run of it found none and nothing it read changed (a run that found a
        problem is never kept: the next build checks again)."""
        self._start(ctx)
        found: list[list] = []

        def compute() -> list:
            found.append(check(self.tracked(ctx)))
            return found[0]
        problems, _ = self._run(self._checks, name, self._output_key(ctx), compute,
                                failed=lambda: bool(found[0]))
        return list(problems)

    # -- drawn files -----------------------------------------------------------
    @property
    def keeps_drawings(self) -> bool:
        """Whether a later build of this process may reuse what this one draws (``drawn``,
        ``form_records``, the decks in memory): not for a one-build cache (``once``, the
        command line's, its entries on disk), which has no next drawing here."""
        return not self.once

    def drawn(self, name: str, key: Any, inputs: tuple, draw: Callable[[], Any]) -> Any:
        """``draw()`` (one PDF of a job), or the last build's if ``key`` is equal and every
        one of ``inputs`` is the very object it was drawn from (decks the deck cache
        reused), so a one-card edit re-imposes only the PDF that holds the card."""
        key = (key, os.environ.get("SOURCE_DATE_EPOCH", ""))   # the PDF's dates
        entry = self._drawn.get(name)
        if entry is not None and entry[0][0] == key and len(entry[0][1]) == len(inputs) \
                and all(a is b for a, b in zip(entry[0][1], inputs)):
            return entry[1]
        value = draw()
        self._drawn[name] = ((key, inputs), value)
        return value

    def form_records(self, name: str) -> Any | None:
        """The records of the forms output ``name`` was last drawn with in this process
        (``render.replay``): its next drawing redraws only the forms whose record no
        longer holds); None for a one-build cache (``once``: no next drawing here)."""
        if not self.keeps_drawings:
            return None
        from .render.replay import Records
        records = self._forms.get(name)
        if records is None:
            records = self._forms[name] = Records()
        records.counts = None                 # until this build's drawing finishes
        self.stats.records[name] = records
        return records

    # -- decks ---------------------------------------------------------------
    def latest_deck(self, name: str) -> Any:
        """The deck ``name`` as the last build resolved or reused it, or None."""
        entries = self._decks.get(name)
        return entries[0].value if entries else None

    def deck(self, deck: Mapping[str, Any], settings: tuple, resolve: Callable[[], Any],
             failed: Callable[[], bool]) -> Any:
        """``resolve()`` a deck's faces, or the last build's if nothing they read changed.

        ``settings`` is everything else the faces depend on (card size, bleed,
        ink saver); ``failed()`` tells whether ``resolve()`` reported problems
        (a deck with problems is not kept).
        """
        name = str(deck.get("id"))
        key = key_of((self._global, settings, dict(deck)))
        value, reused = self._run(self._decks, name, key, resolve, failed)
        (self.stats.decks_reused if reused else self.stats.decks_resolved).append(name)
        return value
