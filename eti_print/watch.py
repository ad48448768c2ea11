"""``eti-print watch``: rebuild on every save, fast, keeping the last good output.

The watcher starts before the first build, so no save is missed.  Changes
are debounced (an editor's save is often several events) and filtered to the
pack's inputs: ``pack.yaml`` and the files under ``cards/``, ``templates/``
and ``fonts/`` (YAML, Jinja templates, SVG/PNG/JPEG art, fonts); the output
folder and editors' temporary files are ignored.

Every rebuild runs the normal pipeline (``pipeline.load_checked`` ->
``render`` -> ``write``) with a ``cache.BuildCache``, so only the
outputs and decks whose inputs changed are rendered again, and only files
whose bytes changed are rewritten.  A failed rebuild writes nothing: the
problems are reported with file:line and the last good output stays.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cache import BuildCache
from .errors import EtiError, InputError
from .files import digests_kept
from .manifest import manifest_name
from .options import PrintOptions, PrintRequest
from .output import source_date_epoch
from .pack import Pack
from .pipeline import load_checked, render, write

#: Files whose saves trigger a rebuild.
WATCHED_SUFFIXES = frozenset((".yaml", ".yml", ".j2", ".jinja", ".svg", ".png", ".jpg",
                              ".jpeg", ".ttf", ".otf", ".csv", ".tsv", ".xlsx"))
WATCHED_FOLDERS = ("cards", "templates", "fonts")
#: Most milliseconds one batch of changes is gathered over, and the quiet time that ends it.
DEBOUNCE_MS = 400
STEP_MS = 50
#: How often (ms) an idle watcher wakes up to check ``stop_event``.
IDLE_MS = 200


@dataclass
class DeckChange:
    """The cards of one deck whose front or back changed, and where they print."""

    deck: str
    cards: list[str]          # each card's id, else DECK:N
    output: str               # the PDF the deck is imposed in
    pages: list[int]          # 1-based pages of that PDF that show a changed card
    added: int = 0            # physical cards more (+) or fewer (-) than before

    def __str__(self) -> str:
        n = len(self.cards)
        what = (f"{n} card{'s' if n != 1 else ''} changed: {', '.join(self.cards)}" if n
                else "no card changed")
        if self.added:
            what += f" ({abs(self.added)} card{'s' if abs(self.added) != 1 else ''} " \
                    f"{'added' if self.added > 0 else 'removed'})"
        return f"{self.deck}: {what}; {self.output} {_pages(self.pages)}"


def _pages(pages: list[int]) -> str:
    runs: list[list[int]] = []
    for p in sorted(set(pages)):
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs)
    return f"page{'s' if len(pages) != 1 else ''} {text}"


def deck_changes(ctx: Any, cache: BuildCache) -> list[DeckChange]:
    """Which cards of which decks changed since the last call with ``cache`` (nothing on the
    first), with the pages of the cards PDF that show them."""
    from .imposition import front_slots
    from .jobs.decks import sheet_spec
    from .preview import cards
    from .render.scale import Footprint, reserve
    from .render.sheets import sheet_sizes
    seen = cache.seen
    first = not seen
    changes: list[DeckChange] = []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for deck in ctx.dataset.config.get("decks") or []:
        groups.setdefault((deck.get("output", "cards"), deck.get("sheet", "card")),
                          []).append(deck)
    refs = None
    for (output, sheet), decks in groups.items():
        try:
            spec = sheet_spec(ctx, sheet)
        except InputError:
            continue
        slots = front_slots(spec)
        per = max(1, len(slots))
        kept = reserve(slots, Footprint(ctx.sheets.scale).size)   # the scale check's slots
        offset = 0     # pages of the decks before this one in the same PDF
        for n_deck, deck in enumerate(decks):
            resolved = cache.latest_deck(str(deck["id"]))
            if resolved is None:
                continue
            now = tuple((f.key, b.key) for f, b in resolved.cards)
            sizes = sheet_sizes(len(now), per, per - (len(kept[0]) if kept and not n_deck
                                                      else 0), bool(deck.get("secret")))
            sheets = len(sizes)
            starts = [sum(sizes[:n]) for n in range(sheets)]
            before = seen.get(deck["id"])
            seen[deck["id"]] = now
            if not first and before is not None and before != now:
                changed = [k for k in range(len(now)) if k >= len(before) or before[k] != now[k]]
                if refs is None:
                    refs = cards(ctx)
                names: list[str] = []
                pages: list[int] = []
                for k in changed:
                    s = max(n for n in range(sheets) if starts[n] <= k)
                    if spec.duplex == "fold":     # fronts and backs on one page
                        pages += [offset + s + 1]
                    elif spec.duplex == "none":
                        pages += [offset + s + 1, offset + sheets + s + 1]
                    else:
                        pages += [offset + 2 * s + 1, offset + 2 * s + 2]
                    ref = next((r for r in refs if r.deck_id == deck["id"]
                                and r.number <= k + 1 < r.number + r.copies), None)
                    name = (ref.id or ref.address) if ref is not None else f"{deck['id']}:{k + 1}"
                    if name not in names:
                        names.append(name)
                if changed or len(now) != len(before):
                    changes.append(DeckChange(str(deck["id"]), names, ctx.output_name(output),
                                              sorted(set(pages)), len(now) - len(before)))
            offset += (1 if spec.duplex == "fold" else 2) * sheets
    return changes


@dataclass
class BuildReport:
    """What one (re)build did; ``on_build`` gets one after every build."""

    ok: bool
    seconds: float
    changes: list[str] = field(default_factory=list)     # pack files that triggered it
    written: list[str] = field(default_factory=list)     # output files rewritten
    unchanged: list[str] = field(default_factory=list)   # output files already up to date
    rendered: list[str] = field(default_factory=list)    # outputs rendered (not reused)
    reused: list[str] = field(default_factory=list)      # outputs reused from the cache
    problems: list[str] = field(default_factory=list)    # "file:line:col: ..." lines
    error: BaseException | None = None
    decks: list[DeckChange] = field(default_factory=list)   # cards whose faces changed

    @property
    def problem_count(self) -> int:
        if isinstance(self.error, InputError):
            return len(self.error.problems)
        return len(self.problems)

    def summary(self) -> str:
        if not self.ok:
            n = self.problem_count
            return "\n".join(self.problems + [f"build failed: {n} problem{'s' if n != 1 else ''}; "
                                              f"kept the last good output"])
        what = ", ".join(self.written) if self.written else "no file changed"
        return "\n".join([f"rebuilt in {self.seconds:.2f} s: {what}"]
                         + [f"  {change}" for change in self.decks])


def rebuild(pack: str | None, out: Path, options: PrintOptions | PrintRequest, cache: BuildCache,
            progress: Callable[[str], None] | None = None,
            changes: Iterable[str] = (), debug: bool = False) -> BuildReport:
    """One build through ``cache``; never raises for bad input (the report says why)."""
    started = time.perf_counter()
    changes = sorted(changes)
    try:
        source_date_epoch()
        with digests_kept():        # one build: each file of the pack digested once
            ctx = load_checked(pack, options, cache=cache)
            outputs = render(ctx, progress)
            written = write(Path(out), ctx, outputs, skip_unchanged=True)
    except InputError as exc:
        return BuildReport(False, time.perf_counter() - started, changes,
                           problems=exc.lines(), error=exc)
    except EtiError as exc:
        return BuildReport(False, time.perf_counter() - started, changes,
                           problems=[f"eti-print: error: {exc}"], error=exc)
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # a bug: report it and keep watching
        lines = [f"eti-print: internal error: {type(exc).__name__}: {exc}"]
        lines += traceback.format_exception(exc) if debug else []
        return BuildReport(False, time.perf_counter() - started, changes, problems=lines,
                           error=exc)
    names = [p.name for p in written]
    every = [o.name for o in outputs] + [manifest_name(ctx)]
    stats = cache.stats
    try:
        decks = deck_changes(ctx, cache)
    except Exception:   # a report of what changed must never fail a good build
        decks = []
    return BuildReport(True, time.perf_counter() - started, changes, names,
                       [n for n in every if n not in names], list(stats.outputs_rendered),
                       list(stats.outputs_reused), decks=decks)


def _filter(root: Path, out: Path) -> Callable[[Any, str], bool]:
    root = root.resolve()
    out = out.resolve()
    folders = [root / f for f in WATCHED_FOLDERS]
    manifest = root / "pack.yaml"

    def accept(change: Any, raw: str) -> bool:
        path = Path(raw)
        if path == manifest:
            return True
        if path.suffix.lower() not in WATCHED_SUFFIXES or path.name.startswith("."):
            return False
        if path == out or out in path.parents:
            return False
        return any(folder in path.parents for folder in folders)

    return accept


def watch(pack: str | None, out: Path, options: PrintOptions | PrintRequest,
          stop_event: threading.Event | None = None,
          on_build: Callable[[BuildReport], None] | None = None,
          progress: Callable[[str], None] | None = None,
          debounce_ms: int = DEBOUNCE_MS, step_ms: int = STEP_MS, debug: bool = False) -> None:
    """Build, then rebuild after every change until ``stop_event`` is set (or Ctrl-C).

    ``on_build`` receives a ``BuildReport`` after the first build and after
    every rebuild.  Bad input never stops the watcher.  Raises
    ``KeyboardInterrupt`` on Ctrl-C, ``InputError`` if the pack folder itself
    cannot be opened.
    """
    import watchfiles
    root = Pack.open(pack).root.resolve()
    out = Path(out)
    cache = BuildCache()
    accept = _filter(root, out)
    first = True
    # yield_on_timeout: the watcher is running (and buffering changes) before
    # the first build starts, and wakes up every IDLE_MS to check stop_event.
    for changes in watchfiles.watch(root, watch_filter=accept, debounce=debounce_ms,
                                    step=step_ms, stop_event=stop_event,
                                    rust_timeout=IDLE_MS, yield_on_timeout=True,
                                    raise_interrupt=True):
        if stop_event is not None and stop_event.is_set():
            return
        if not changes and not first:
            continue
        first = False
        shown = sorted({_shown(root, path) for _, path in changes})
        report = rebuild(pack, out, options, cache, progress, shown, debug)
        if on_build is not None:
            on_build(report)


def _shown(root: Path, raw: str) -> str:
    try:
        return Path(raw).relative_to(root).as_posix()
    except ValueError:
        return raw
