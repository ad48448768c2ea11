"""Benchmark: where the test suite's time goes.

Run from the repository root:

    python bench/bench_suite.py [--top N] [-- PYTEST-ARGS...]

It runs the README's test command (``python -m pytest``, with any further
arguments) with this file loaded as a pytest plugin, and prints:

* the run's wall time and CPU seconds (user + system, of every process it
  started: the xdist workers, the processes and children the tests start);
* the CPU seconds divided by the cores: the least wall time this much work can
  take on this machine, however well the workers share it, and how busy the
  cores were;
* the CPU seconds of each test module (its tests' setup, call and teardown, in
  the worker and in the processes it waited for) and of tests by size.

Wall time is the suite's figure; the CPU seconds say what the work costs on a
noisy machine, where wall time is inflated by other processes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pytest
from cputime import cpu  # bench/: beside this file, on the plugin's PYTHONPATH

ROOT = Path(__file__).resolve().parent.parent
_ROWS_ENV = "BENCH_SUITE_ROWS"


# -- the plugin: runs inside each pytest process --------------------------------------


_rows: list[tuple[str, float, float, float]] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    own, kids = cpu()
    start = time.perf_counter()
    yield
    own2, kids2 = cpu()
    _rows.append((item.nodeid, own2 - own, kids2 - kids, time.perf_counter() - start))


def pytest_sessionfinish(session):
    folder = os.environ.get(_ROWS_ENV)
    if folder and _rows:
        name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        Path(folder, f"{name}.json").write_text(json.dumps(_rows), encoding="utf-8")


# -- the script -------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=15, help="test modules to list")
    parser.add_argument("pytest_args", nargs="*", help="more arguments for pytest")
    args = parser.parse_args(argv)
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as rows_dir:
        env = {**os.environ, _ROWS_ENV: rows_dir,
               "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parent),
                                                           os.environ.get("PYTHONPATH")]))}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "pytest", "-p", "bench_suite",
                                 *args.pytest_args], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        rows = [row for path in Path(rows_dir).glob("*.json")
                for row in json.loads(path.read_text(encoding="utf-8"))]
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    cpu = user + system
    print(f"pytest: {summary}")
    print(f"wall {wall:.1f} s; CPU {cpu:.1f} s (user {user:.1f} s, system {system:.1f} s) "
          f"on {cores} cores")
    print(f"CPU / cores: {cpu / cores:.1f} s, the least wall time this work can take here; "
          f"the cores were {100 * cpu / (wall * cores):.0f} % busy")
    tests_cpu = sum(own + kids for _, own, kids, _ in rows)
    print(f"{len(rows)} tests: {tests_cpu:.1f} CPU s in tests; {cpu - tests_cpu:.1f} s "
          "outside them (starting the workers, collecting, the session's end)")

    modules: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for nodeid, own, kids, _ in rows:
        entry = modules[nodeid.split("::")[0]]
        entry[0] += own
        entry[1] += kids
        entry[2] += 1
    print(f"\n{'CPU s':>7} {'in it':>7} {'others':>7} {'tests':>6}  module")
    ranked = sorted(modules.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))
    for module, (own, kids, count) in ranked[:args.top]:
        print(f"{own + kids:7.1f} {own:7.1f} {kids:7.1f} {count:6d}  {module}")
    rest = ranked[args.top:]
    if rest:
        print(f"{sum(o + k for _, (o, k, _) in rest):7.1f} {'':7} {'':7} "
              f"{sum(c for _, (_, _, c) in rest):6d}  the other {len(rest)} modules")

    print("\nby the CPU seconds of one test:")
    edges = (0.01, 0.1, 0.3, 1.0, float("inf"))
    low = 0.0
    for high in edges:
        chosen = [own + kids for _, own, kids, _ in rows if low <= own + kids < high]
        label = f"{low:g}-{high:g} s" if high != float("inf") else f"{low:g} s and over"
        print(f"  {label:>14}: {len(chosen):5d} tests, {sum(chosen):6.1f} CPU s")
        low = high
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
