"""Benchmark: how fast ``eti-print watch`` rebuilds after an edit.

Run from the repository root:

    python bench/bench_rebuild.py [--repeat N] [--profile SCENARIO]

It copies the shipped pack to a temporary folder, builds it once through a
``BuildCache`` (as ``watch`` does), then for each scenario makes N edits, each a
state of the pack no build of the run has seen (as a designer typing makes), and
undoes each before the next, timing each rebuild (load, check, render what
changed, write what changed).  Prints the best and median edit, the median undo
(back to the first build's state, which the cache may still hold: an undo can be
cheaper than an edit), and what each rebuild re-rendered.  ``--profile SCENARIO``
runs cProfile on one rebuild of that scenario and prints the top functions
(profile before optimising).

With each scenario it prints, per re-imposed PDF, how many of its forms were drawn
again (the most in any rebuild), and per document how many of its pages; the rest came
from the records of the last drawing (``render/replay.py``).  A PDF drawn in a forked
worker reports neither.

Watch's debounce (the wait for an editor to finish saving) is not included.
Besides wall-clock time it prints the CPU seconds spent in this process and
in forked render workers: on a busy machine wall time is inflated by other
processes, and "2-core estimate" (the larger of the two CPU figures, as if
this process and one worker ran side by side) is what an idle two-core
machine would take.  ``--workers 1`` renders everything in this process.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cputime import cpu  # noqa: E402  (bench/, beside this script)

from eti_print.cache import BuildCache  # noqa: E402
from eti_print.options import PrintOptions  # noqa: E402
from eti_print.watch import rebuild  # noqa: E402

PARTS = ("cards", "templates", "fonts", "pack.yaml")


def _word(n: int) -> str:
    """A word of letters for ``n`` (digits in a card's text are checked against its rules)."""
    word = ""
    while True:
        n, letter = divmod(n, 26)
        word = "abcdefghijklmnopqrstuvwxyz"[letter] + word
        if n == 0:
            return word


# name: (file, old text, the new text of edit n) - each a one-card (or one-layout) edit
# that stays valid; every edit n makes a state no build of the run has seen, as a designer
# typing does, and each is undone before the next (the undo returns to the first build's
# state, which a cache may still hold; the research count has 15 such states, so past
# --repeat 15 its edits come back)
SCENARIOS: dict[str, tuple[str, str, Callable[[int], str]]] = {
    "event text": ("cards/events.yaml", "highest filled data port.",
                   lambda n: f"highest occupied data port, {_word(n)}."),
    "endgame name": ("cards/endgame.yaml", "name: The Survivalist",
                     lambda n: f"name: The Survivor {_word(n)}"),
    "project flavour": ("cards/projects.yaml", "it comes in avocado.",
                        lambda n: f"it comes in teal {_word(n)}."),
    "research count": ("cards/research.yaml",
                       "  - {kind: number, value: 10, count: 16}\n"
                       "  - {kind: number, value: 20, count: 16}",
                       lambda n: f"  - {{kind: number, value: 10, count: {16 + n % 15 + 1}}}\n"
                                 f"  - {{kind: number, value: 20, count: {16 - n % 15 - 1}}}"),
    "comment only": ("cards/events.yaml", "\n", lambda n: f"\n# a comment {n}\n"),
    "layout (event)": ("templates/layouts/event.yaml", "\n",
                       lambda n: f"\n# a comment {n}\n"),
}


def copy_pack(dest: Path) -> Path:
    for part in PARTS:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part)
        else:
            shutil.copy2(src, dest / part)
    return dest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="edits per scenario (default 5)")
    parser.add_argument("--profile", choices=sorted(SCENARIOS), metavar="SCENARIO",
                        help="profile one rebuild of SCENARIO: " + ", ".join(sorted(SCENARIOS)))
    parser.add_argument("--only", choices=sorted(SCENARIOS), action="append",
                        help="run only these scenarios")
    parser.add_argument("--workers", type=int, default=None,
                        help="render processes (default: min(2, CPUs))")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pack = copy_pack(Path(tmp) / "pack")
        out = Path(tmp) / "out"
        cache = BuildCache(workers=args.workers)
        print(f"render workers: {cache.workers}")
        options = PrintOptions()
        started = time.perf_counter()
        first = rebuild(str(pack), out, options, cache)
        assert first.ok, first.problems
        print(f"{'first build (empty cache)':32s} {time.perf_counter() - started:7.3f} s")
        times = []
        for _ in range(args.repeat):
            times.append(rebuild(str(pack), out, options, cache).seconds)
        median = statistics.median(times)
        print(f"{'no change':32s} best {min(times):6.3f} s  median {median:6.3f} s")

        if args.profile:
            path, old, new = SCENARIOS[args.profile]
            target = pack / path
            text = target.read_text(encoding="utf-8")
            target.write_text(text.replace(old, new(1), 1), encoding="utf-8")
            profiler = cProfile.Profile()
            profiler.enable()
            report = rebuild(str(pack), out, options, cache)
            profiler.disable()
            target.write_text(text, encoding="utf-8")
            assert report.ok, report.problems
            print(f"profile of '{args.profile}': {report.seconds:.3f} s (with profiler), "
                  f"rendered {', '.join(report.rendered) or 'nothing'}")
            stream = io.StringIO()
            stats = pstats.Stats(profiler, stream=stream)
            stats.sort_stats("cumulative").print_stats(30)
            stats.sort_stats("tottime").print_stats(20)
            print(stream.getvalue())
            return

        for name in args.only or SCENARIOS:
            path, old, new = SCENARIOS[name]
            target = pack / path
            text = target.read_text(encoding="utf-8")
            assert old in text, f"{old!r} not in {path}"
            times: dict[str, list[float]] = {"edit": [], "undo": []}
            cpus, rendered, decks, forms, pages = [], set(), set(), {}, {}
            for i in range(args.repeat * 2):
                kind = "undo" if i % 2 else "edit"
                target.write_text(text if i % 2 else text.replace(old, new(i // 2 + 1), 1),
                                  encoding="utf-8")
                before = cpu()
                report = rebuild(str(pack), out, options, cache)
                after = cpu()
                assert report.ok, report.problems
                times[kind].append(report.seconds)
                if kind == "edit":
                    cpus.append((after[0] - before[0], after[1] - before[1]))
                rendered.update(report.rendered)
                decks.update(cache.stats.decks_resolved)
                for output, (drawn, total) in cache.stats.forms_drawn.items():
                    forms[output] = max(forms.get(output, (0, total)), (drawn, total))
                for output, (drawn, total) in cache.stats.pages_drawn.items():
                    pages[output] = max(pages.get(output, (0, total)), (drawn, total))
            target.write_text(text, encoding="utf-8")
            own = statistics.median(c[0] for c in cpus)
            workers = statistics.median(c[1] for c in cpus)
            edits, undos = times["edit"], times["undo"]
            print(f"{name:18s} edit best {min(edits):6.3f} s"
                  f" median {statistics.median(edits):6.3f} s"
                  f", undo median {statistics.median(undos):6.3f} s"
                  f" | edit cpu here {own:5.3f} s, workers {workers:5.3f} s,"
                  f" 2-core estimate {max(own, workers):5.3f} s"
                  f" | rendered: {', '.join(sorted(rendered)) or 'nothing'}"
                  + (f" (decks: {', '.join(sorted(decks))})" if decks else "")
                  + (" | forms drawn again: " + ", ".join(
                      f"{o} {d} of {t}" for o, (d, t) in sorted(forms.items())) if forms
                     else "")
                  + (" | pages drawn again: " + ", ".join(
                      f"{o} {d} of {t}" for o, (d, t) in sorted(pages.items())) if pages
                     else ""))


if __name__ == "__main__":
    main()
