"""Benchmark: loading a pack's YAML files parsed afresh against kept parsed documents.

Run from the repository root:

    python bench/bench_yamlcache.py [--rounds N] [--pack FOLDER]

It copies the pack (the E.T.I. pack by default) to a temporary folder with a
temporary cache folder (``ETI_PRINT_CACHE_DIR``), records every YAML file a
``validate`` of it reads (data, schemas, layouts, fonts), then loads all of
them N times each way in turn, in this one process: with the on-disk caches off
(``diskcache.use(False)``: every file parsed) and on with the documents kept
(``diskcache.Documents``: read back).  Prints the median time of a round each
way and their ratio, pair by pair.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from eti_print import diskcache, yamlload  # noqa: E402
from eti_print.pipeline import validate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--pack", default=str(ROOT))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ[diskcache.ENV_DIR] = str(Path(tmp, "cache"))
        copy = Path(tmp, "pack")
        shutil.copytree(args.pack, copy, ignore=shutil.ignore_patterns(
            "packs", "tests", "docs", "bench", "eti_print", ".git", "build", "out"))
        calls: list[tuple[Path, str]] = []
        gate = yamlload.read_capped

        def record(path, shown, limit):
            calls.append((Path(path), shown))
            return gate(path, shown, limit)
        yamlload.read_capped = record
        validate(str(copy), cache=None)
        yamlload.read_capped = gate
        real = yamlload.load
        fresh, kept = [], []
        for _ in range(args.rounds):
            for flag, times in ((False, fresh), (True, kept)):
                diskcache.use(flag)
                start = time.perf_counter()
                for path, shown in calls:
                    real(path, shown)
                times.append(time.perf_counter() - start)
        diskcache.use(False)        # nothing written back at exit into the folder removed
    ratios = [f / k for f, k in zip(fresh, kept)]
    print(f"{len(calls)} YAML files, {args.rounds} rounds each way")
    print(f"parsed afresh   median {statistics.median(fresh) * 1000:7.1f} ms a round")
    print(f"kept documents  median {statistics.median(kept) * 1000:7.1f} ms a round")
    print(f"ratio afresh/kept, pair by pair: median {statistics.median(ratios):.1f} "
          f"(min {min(ratios):.1f}, max {max(ratios):.1f})")


if __name__ == "__main__":
    main()
