"""The build, in five named stages: load -> check -> resolve -> draw -> write.

* **load** reads everything: pack.yaml, the data against its schemas, the
  game's model and settings, fonts, art, templates and sheet settings
  (layouts load as the outputs name them);
* **check** runs the declarative checks, the game's rules and the checks of
  every output entry (ids, font roles, contexts);
* **resolve** evaluates every template, fits every text and paginates every
  document, for every job (``jobs``): a plan, or every problem of every output;
* **draw** turns the plan into PDF bytes (``Output``s);
* **write** puts every file in place atomically, the manifest last.

``validate`` is load + check + resolve, so it fails exactly when ``build``
would.  Nothing is written unless every stage passed, so a failed build
leaves the last good output untouched.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import diskcache, limits
from .cache import BuildCache
from .context import Context, Output, Progress
from .errors import InputError, Problem, combine
from .files import digests_kept
from .options import PrintOptions, PrintRequest
from .output import prepare_dir, source_date_epoch, write_set
from .pack import Pack
from .progress import advance, start

# the dataset (cerberus, yaml) and the manifest load when a command needs them: a build
# the persistent cache answers never does
if TYPE_CHECKING:  # pragma: no cover
    from .dataset import Dataset
    from .diskcache import DiskCache
    from .jobs import Job

#: The font roles each job type draws with.
FONT_ROLES = {"decks": ("body",), "boards": ("body", "label"), "pieces": ("body",),
              "documents": ("body", "title", "label")}


def pack_game(ds: Dataset) -> Any:
    """The game plugin a pack's ``rules:`` names, or None."""
    name = ds.config.get("rules")
    if name is None:
        return None
    from .games import get_game
    line, _ = ds.manifest.where(("rules",))
    return get_game(name, where=ds.manifest.path, line=line)


# ---------------------------------------------------------------------------
# load


def print_options(ds: Dataset, request: PrintRequest) -> PrintOptions:
    """The command line's options, the rest from pack.yaml's ``print:``, else built in."""
    defaults = ds.config.get("print") or {}
    lines = {key: ds.manifest.where(("print", key))[0] for key in defaults}
    return request.resolve(defaults, ds.manifest.path, lines)



def load(pack_arg: str | None, options: PrintOptions | PrintRequest, cache: Any = None) -> Context:
    """Read the whole pack; raise every problem of the data and the resources at once."""
    from .art import ArtLibrary
    from .dataset import load_dataset, run_checks
    from .fonts import load_fonts
    from .layout import LayoutLibrary
    from .sheets import load_sheets
    from .templating import TemplateEnv
    pack = Pack.open(pack_arg)
    from .games import manifest_schema
    # schema problems stop here: nothing to check
    ds = load_dataset(pack, checks=False, schema_for=manifest_schema)
    if isinstance(options, PrintRequest):
        options = print_options(ds, options)
    problems: list[Problem] = []
    game = model = None
    try:
        game = pack_game(ds)
        model = game.model(ds) if game is not None else None
    except InputError as exc:
        problems.extend(exc.problems)

    def resources() -> tuple:
        found: list[Any] = []
        # SVG text in art may use the pack's fonts (none if they failed to load)
        for loader in (lambda: load_fonts(pack), lambda: ArtLibrary(pack.root, fonts=found[0]),
                       lambda: TemplateEnv(pack.root), lambda: load_sheets(pack),
                       lambda: LayoutLibrary(pack)):
            try:
                found.append(loader())
            except InputError as exc:
                problems.extend(exc.problems)
                found.append(None)
        if problems:
            raise InputError(problems)
        return tuple(found)

    try:
        loaded = cache.resources(pack, resources) if cache is not None else resources()
    except InputError as exc:
        raise InputError(combine(exc.problems + run_checks(ds))) from None
    if problems:
        raise InputError(combine(problems + run_checks(ds)))
    fonts, art, env, sheets, layouts = loaded
    return Context(pack, ds, fonts, art, env, layouts, sheets, options, model, game, cache=cache)


# ---------------------------------------------------------------------------
# check


def check(ctx: Context) -> list[Problem]:
    """Every problem the data, the game's rules and the output entries have."""
    from .dataset import run_checks
    ds = ctx.dataset
    problems = run_checks(ds)
    from .games import run_rules
    problems.extend(run_rules(ctx))             # the game's rules, each counted as run
    problems.extend(check_entries(ctx))
    from .readability import check_layouts
    problems.extend(check_layouts(ctx))          # readability: the pack's minimum text size
    if ctx.dataset.config.get("boards"):
        from .jobs.board_seams import check as board_seams
        # no board seam crosses text, a port, a space (through the build cache: checked
        # again only when what its boards read changed)
        problems.extend(board_seams(ctx) if ctx.cache is None
                        else ctx.cache.checked("board-seams", ctx, board_seams))
    return combine(problems)


def check_entries(ctx: Context) -> list[Problem]:
    """Output entries of pack.yaml: unique ids per section, font roles, game contexts."""
    manifest = ctx.dataset.manifest
    config = ctx.dataset.config
    problems: list[Problem] = []
    contexts = set(ctx.game.contexts) if ctx.game is not None else set()
    for key in ("decks", "boards", "pieces", "documents"):
        entries = config.get(key) or []
        seen: set[str] = set()
        for index, entry in enumerate(entries):
            if entry["id"] in seen and key != "decks":   # decks: dataset.run_checks
                problems.append(manifest.problem((key, index, "id"),
                                                 f"duplicate {key[:-1]} id {entry['id']!r}"))
            seen.add(entry["id"])
            name = entry.get("context")
            if name is not None and name not in contexts:
                hint = (f"the {ctx.game.name} game gives " + ", ".join(sorted(contexts))
                        if ctx.game is not None and contexts else
                        "a context comes from the pack's game (rules: in pack.yaml)")
                problems.append(manifest.problem((key, index, "context"),
                                                 f"no context {name!r}", hint=hint))
        roles = FONT_ROLES.get(key, ())
        missing = [r for r in roles if r not in ctx.fonts.families]
        if entries and missing:
            problems.append(Problem(f"{key} need the font role{'s' if len(missing) > 1 else ''} "
                                    f"{', '.join(missing)}", "fonts/fonts.yaml", field="fonts",
                                    hint="map the role to a TTF in fonts/"))
    return problems


def load_checked(pack_arg: str | None, options: PrintOptions | PrintRequest,
                 cache: Any = None) -> Context:
    """load + check: a context whose data and entries are known good."""
    ctx = load(pack_arg, options, cache)
    problems = check(ctx)
    if problems:
        raise InputError(problems)
    return ctx


# ---------------------------------------------------------------------------
# resolve and draw


def jobs(ctx: Context) -> list[Job]:
    """The pack's jobs: the generic job types it declares entries for, then the game's."""
    from .jobs import Job, jobs_for
    found = jobs_for(ctx)
    from .games import game_jobs
    found.extend(Job(module) for module in game_jobs(ctx))   # those pack.yaml names
    return found


def resolve(ctx: Context) -> list[tuple[Job, Any]]:
    """Every job's plan; raise every problem of every output together.  Through
    ``ctx.cache`` a job's plan is reused while nothing it read changed."""
    plans: list[tuple[Job, Any]] = []
    problems: list[Problem] = []
    cache = ctx.cache
    if cache is not None:
        cache.begin(ctx)
    try:
        for job in jobs(ctx):
            try:
                plans.append((job, cache.plan(job, ctx) if cache is not None
                              else job.resolve(ctx)))
            except InputError as exc:
                problems.extend(exc.problems)
    finally:
        if cache is not None:
            cache.end()
    if problems:
        raise InputError(combine(problems))
    return plans


def draw(ctx: Context, plans: list[tuple[Job, Any]], progress: Progress = None) -> list[Output]:
    outputs: list[Output] = []
    start(progress, len(plans), "jobs")
    for job, plan in plans:
        outputs.extend(job.draw(ctx, plan, progress))
        advance(progress)
    return _named(outputs)


def render(ctx: Context, progress: Progress = None) -> list[Output]:
    """resolve + draw; through ``ctx.cache`` (watch) each job's outputs are reused while
    nothing it read changed."""
    cache = ctx.cache
    if cache is None:
        found = jobs(ctx)
        from . import forked
        if len(found) > 1 and forked.idle_core():     # both cores: the decks here, the rest
            return _named(forked.render(ctx, found, progress))   # in a forked child
        return draw(ctx, resolve(ctx), progress)
    outputs: list[Output] = []
    problems: list[Problem] = []
    found = jobs(ctx)
    cache.begin(ctx, found)
    try:
        # resolve every job that must run before drawing any: a failure draws nothing
        stale = [job for job in found if cache.stale(job, ctx)]
        failed: dict[int, list[Problem]] = {}
        for job in stale:
            try:
                cache.plan(job, ctx)
            except InputError as exc:
                failed[id(job)] = exc.problems
        if failed:
            # and every problem of the jobs forked children resolve, in job order
            for job in found:
                if cache.forked(job):
                    try:
                        cache.render(job, ctx, None)
                    except InputError as exc:
                        failed[id(job)] = exc.problems
            raise InputError(combine([p for job in found for p in failed.get(id(job), [])]))
        for job in stale:         # what validate reports of each job resolved here
            cache.summary(job, ctx, summarize)
        start(progress, len(found), "jobs")
        for job in found:
            if cache.forked(job):      # while the child renders: the manifest's data hash
                from .manifest import build_data_hash
                build_data_hash(ctx)
            try:
                outputs.extend(cache.render(job, ctx, progress))
            except InputError as exc:
                problems.extend(exc.problems)
            advance(progress)
    finally:
        cache.end()
    if problems:
        raise InputError(combine(problems))
    return _named(outputs)


def summarize(job: Job, plan: Any) -> Any:
    """What ``validate`` reports of a job's plan: each deck's card count, else the
    number of things it makes (kept by the build cache in place of the plan)."""
    if job.key == "decks":
        return {d.id: len(d.cards) for group in plan for d in group.decks}
    return len(plan)


def summaries(ctx: Context) -> list[tuple[Job, Any]]:
    """resolve, for validate: every job's ``summarize``d plan; every problem of every
    output together.  Through ``ctx.cache`` a job whose plan would read nothing that
    changed is not resolved again."""
    cache = ctx.cache
    if cache is None:
        found_jobs = jobs(ctx)
        from . import forked
        if len(found_jobs) > 1 and forked.idle_core():    # both cores, as render does
            return forked.summaries(ctx, found_jobs, summarize)
        return [(job, summarize(job, plan)) for job, plan in resolve(ctx)]
    found: list[tuple[Job, Any]] = []
    problems: list[Problem] = []
    cache.begin(ctx)
    try:
        every = jobs(ctx)
        cache.fork_summaries(ctx, every, summarize)
        for job in every:
            try:
                found.append((job, cache.summary(job, ctx, summarize)))
            except InputError as exc:
                problems.extend(exc.problems)
    finally:
        cache.end()
    if problems:
        raise InputError(combine(problems))
    return found


def _named(outputs: list[Output]) -> list[Output]:
    names = [o.name for o in outputs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(Problem(f"two outputs would both be written as {', '.join(dupes)}",
                                 "pack.yaml", hint="give decks, boards and documents distinct "
                                 "ids or outputs"))
    return outputs


# ---------------------------------------------------------------------------
# write


def write(out_dir: Path, ctx: Context, outputs: list[Output],
          skip_unchanged: bool = False) -> list[Path]:
    """Write every output and the manifest as one set (``output.write_set``: staged in
    the output folder, then moved into place, the manifest last); return the files
    written.

    With ``skip_unchanged`` a file whose bytes are already on disk is left
    alone (watch: PDF viewers reload only what changed).
    """
    from .manifest import manifest, manifest_name
    files = [(o.name, o.data) for o in outputs] + [(manifest_name(ctx), manifest(ctx, outputs))]
    return write_files(out_dir, files, skip_unchanged)


def write_files(out_dir: Path, files: list[tuple[str, bytes]],
                skip_unchanged: bool = False) -> list[Path]:
    """Write ``(name, bytes)`` files into ``out_dir`` atomically; return those written."""
    out = prepare_dir(out_dir)
    # the whole set is staged, then moved into place: a failure keeps the last set whole
    return write_set(out, [(name, data) for name, data in files
                           if not (skip_unchanged and _same_bytes(out / name, data))])


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return (path.is_file() and not path.is_symlink() and path.stat().st_size == len(data)
                and path.read_bytes() == data)
    except OSError:
        return False


# ---------------------------------------------------------------------------
# The commands' entry points


#: The cache ``build`` and ``validate`` go through by default: a process that builds
#: a pack again, or a copy of it (tests, scripts), renders only what changed.
#: Recording what each job reads costs a first build about a tenth more, so a
#: command-line run, one build, goes without it (``cache=None``).
SHARED = BuildCache(workers=1, keep=4)


@contextmanager
def batch_gc() -> Iterator[None]:
    """Garbage collection for one short batch of work: what is already loaded (the
    modules, the code; then the pack, once loaded: ``loaded``) is frozen out of the
    collector's sight, and the cyclic collector rests while the batch runs.
    Resolving and drawing make no reference cycles (``tests/test_pipeline.py``
    holds it), so its collections only scanned what they made, again and again, at
    a cost that grew faster than the pack (0.10 ms a card at 10,000 cards against
    0.04 ms at 1,000, with collections made rarer).  Restored after."""
    limits.begin_work()
    enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        gc.unfreeze()


def loaded() -> None:
    """In ``batch_gc``, once the pack is loaded and checked: what loading left in
    cycles (the modules it imported, cerberus' error trees) is collected once, and
    what lives on (the loaded pack, to the end) is frozen out of the collector's
    sight."""
    gc.collect()
    gc.freeze()


def with_entries(cache: BuildCache | None, store: DiskCache | None) -> BuildCache | None:
    """The build cache a command goes through: with the persistent cache on
    (``diskcache.entries_on``), one whose job and deck entries are kept on disk too
    (``SHARED``, or a cache of its own for a command-line run); else ``cache``, with
    ``SHARED`` in memory only.  A cache a caller made is left as it is."""
    on = diskcache.entries_on(store)
    if cache is None and on:
        cache = BuildCache(once=True)     # both cores while one is idle (cache.py)
    elif cache is not SHARED:
        return cache
    cache.disk = diskcache.EntryStore(store.folder if store is not None else None) \
        if on else None
    return cache


def _key(pack_arg: str | None, *parts: Any) -> str:
    root = Pack.open(pack_arg).root
    return diskcache.key(root, str(root), *parts)


def _stored(store: DiskCache | None, pack_arg: str | None, *parts: Any) -> tuple[Any, str]:
    """What ``store`` holds for this command on this pack, and its key (see diskcache)."""
    if store is None:
        return None, ""
    key = _key(pack_arg, *parts)
    return store.get(key), key


def _keep(store: DiskCache | None, key: str, pack_arg: str | None, value: Any,
          *parts: Any) -> None:
    """Store a command's result, unless a file of the pack changed while it ran."""
    if store is not None and _key(pack_arg, *parts) == key:
        store.put(key, value)


def validate(pack_arg: str | None, cache: BuildCache | None = SHARED,
             verbose: bool = False, store: DiskCache | None = None) -> str:
    """load + check + resolve (no drawing); a one-line summary, or every problem
    (``verbose``: then the print options checked, and where each is set).  With a
    ``store`` (the persistent cache) an unchanged pack's summary is read back."""
    found, key = _stored(store, pack_arg, "validate", verbose)
    if isinstance(found, str):
        return found
    cache = with_entries(cache, store)
    with digests_kept(), batch_gc():
        summary = _validate(pack_arg, cache, verbose)
    _keep(store, key, pack_arg, summary, "validate", verbose)
    return summary


def _validate(pack_arg: str | None, cache: BuildCache | None, verbose: bool) -> str:
    # the pack's print: defaults too, so that validate fails exactly when build would
    ctx = load_checked(pack_arg, PrintRequest(), cache)
    loaded()
    return report(ctx, summaries(ctx), verbose)


def report(ctx: Context, plans: list[tuple[Job, Any]], verbose: bool = False) -> str:
    """``validate``'s one-line summary of a pack whose every job resolved, from each
    job's ``summarize``d plan (``summaries``)."""
    from .dataset import unlisted_note
    from .games import rules_run
    ds, ran = ctx.dataset, rules_run(ctx)
    resolved = {deck: n for job, counts in plans if job.key == "decks"
                for deck, n in counts.items()}
    counts = [f"{resolved.get(deck['id'], 0)} {deck['id']}"
              for deck in ds.config.get("decks") or []]
    for key, what in (("boards", "board"), ("documents", "document")):
        n = sum(plan for job, plan in plans if job.key == key)
        if n:
            counts.append(f"{n} {what}{'s' if n > 1 else ''}")
    note = unlisted_note(ds)
    return (f"{ds.config['name']}: OK - {len(ds.docs)} data files, "
            + (", ".join(counts) if counts else "no decks")
            + (f"; {len(ran)} consistency rule{'s' if len(ran) != 1 else ''} passed" if ran
               else "")
            + (f"\n{ctx.options.describe()}" if verbose else "")
            + (f"\n{note}" if note else ""))


def build(pack_arg: str | None, out_dir: Path, options: PrintOptions | PrintRequest,
          progress: Progress = None, cache: BuildCache | None = SHARED,
          verbose: bool = False, store: DiskCache | None = None) -> str:
    """Build every output of a pack; return a short report (``verbose``: first, the
    print options and where each is set).  With a ``store`` (the persistent cache)
    an unchanged pack's files are read back instead of built."""
    started = time.perf_counter()
    source_date_epoch()  # reportlab reads it too, and would crash on a bad value
    found, key = _stored(store, pack_arg, "build", options, verbose)
    cache = with_entries(cache, store)
    if isinstance(found, dict):
        files, lines, note = found["files"], found["lines"], found["note"]
    else:
        from .dataset import unlisted_note
        from .manifest import manifest, manifest_name
        with digests_kept():
            with batch_gc():
                ctx = load_checked(pack_arg, options, cache)
                loaded()
                outputs = render(ctx, progress)
            files = [(o.name, o.data) for o in outputs] + [(manifest_name(ctx),
                                                             manifest(ctx, outputs))]
        lines = [ctx.options.describe()] if verbose else []
        for o in outputs:
            counts = ", ".join(f"{v} {k}" for k, v in o.counts.items())
            lines.append(f"{o.name}: {o.pages} pages" + (f" ({counts})" if counts else ""))
        note = unlisted_note(ctx.dataset)
    written = write_files(out_dir, files)
    if not isinstance(found, dict):
        _keep(store, key, pack_arg, {"files": files, "lines": lines, "note": note},
              "build", options, verbose)
    seconds = time.perf_counter() - started
    lines = lines + [f"wrote {len(written)} files to {out_dir} in {seconds:.2f} s"]
    if note:
        lines.append(note)
    return "\n".join(lines)
