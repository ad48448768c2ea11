"""Benchmark: validate, full build (cold and warm, with and without the process's build
cache), score with maximum swaps.

Run from the repository root:  python bench/bench_build.py [--repeat N]
Each figure is the best of N runs (cold figures start a new Python process,
so they include start-up and import cost). Prints one line per figure.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def best_of(n: int, fn) -> tuple[float, float]:
    times = []
    for _ in range(n):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times)


def cold(args: list[str], out: Path) -> None:
    subprocess.run([sys.executable, "-m", "eti_print.cli", *args], check=True,
                   stdout=subprocess.DEVNULL, cwd=out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    n = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        rows = [
            ("validate (cold process)", best_of(n, lambda: cold(["validate"], out))),
            ("build, all outputs (cold process)",
             best_of(n, lambda: cold(["build", "--quiet", "--out", str(out / "o")], out))),
        ]
        from eti_print.options import PrintOptions
        from eti_print.pipeline import build
        build(None, out / "warm", PrintOptions())
        rows.append(("build, all outputs (warm, in process)",
                     best_of(n, lambda: build(None, out / "warm", PrintOptions()))))
        rows.append(("build, warm, without the process's cache",
                     best_of(n, lambda: build(None, out / "warm", PrintOptions(), cache=None))))
        from eti_print.games.eti import engine
        queue = [engine.parse_card(t) for t in
                 "x3 spy 10 x2 arson 50 x0 20 data-virus 40 x2 abduction 30 x3".split()]
        rows.append(("score, 14 cards, 10 swaps",
                     best_of(n, lambda: engine.best_order(queue, 10, frozenset()))))
    for label, (best, median) in rows:
        print(f"{label:45s} best {best * 1000:8.1f} ms   median {median * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
