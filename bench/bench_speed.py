"""Benchmark: eti-print against the raw-reportlab floor, in one interleaved run.

Run from the repository root:

    python bench/bench_speed.py [--runs N] [--sizes 200,1000,10000] [--no-scale]

Every figure is a whole new process (imports included), timed from outside
with its peak RSS (``os.wait4``).  The commands run in turn, run after run
(floor, build, build, ...), so a machine whose speed drifts slows them alike;
each row gives the median of its times and the median of its per-run ratio to
the floor of the same run.

* E.T.I.: the floor (``floor.py``: the pack's 183 cards with backs and crop
  marks, drawn straight onto a canvas), the cards PDF alone, a full build
  without the persistent cache (``--no-cache``), a full build with an empty
  cache folder, a build of the unchanged pack with the cache warm, and
  ``validate`` cold and warm.
* Scale: a synthetic one-deck pack (``eti-print new``) of N distinct cards for
  each of ``--sizes``: build and validate without the cache, and the floor for
  the same N; cost per card, and its ratio to the smallest size's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
FLOOR = str(ROOT / "bench" / "floor.py")
#: The processes' environment: Python's bytecode written and read (as an installed
#: eti-print's is), in a folder of this run rather than the checkout.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="eti-bench-pyc-")
#: Every cache folder is the bench's own (rows with a cache name theirs), never the user's.
ENV["ETI_PRINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="eti-bench-cache-")


def run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one process."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**ENV, "PYTHONPATH": str(ROOT), **(env or {})})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    err = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err}")
    return wall, usage.ru_maxrss / 1024


def cards_only(pack: str, out: str) -> None:
    """The cards PDF alone: load + check, then only the decks job (this process)."""
    sys.path.insert(0, str(ROOT))
    from eti_print.diskcache import use
    use(False)                                 # as --no-cache: nothing compiled is read back
    from eti_print.options import PrintRequest
    from eti_print.pipeline import _named, jobs, load_checked
    ctx = load_checked(pack, PrintRequest())
    job = next(j for j in jobs(ctx) if j.key == "decks")
    outputs = _named(job.draw(ctx, job.resolve(ctx), None))
    for o in outputs:
        Path(out, o.name).write_bytes(o.data)


def interleave(rows: dict[str, object], runs: int) -> dict[str, dict[str, list[float]]]:
    """Each command once per run, in turn; ``rows`` maps a name to a command list or a
    function returning ``(wall, rss)``."""
    found: dict[str, dict[str, list[float]]] = {n: {"wall": [], "rss": []} for n in rows}
    for _ in range(runs + 1):                      # the first run warms the disk caches
        for name, cmd in rows.items():
            wall, rss = cmd() if callable(cmd) else run(cmd)
            found[name]["wall"].append(wall)
            found[name]["rss"].append(rss)
    for figures in found.values():
        del figures["wall"][0], figures["rss"][0]
    return found


def report(title: str, found: dict[str, dict[str, list[float]]], floor: str) -> None:
    print(f"\n{title}")
    print(f"{'':42} {'median s':>9} {'min s':>7} {'x floor':>8} {'peak MiB':>9}")
    base = found[floor]["wall"]
    for name, figures in found.items():
        ratio = statistics.median(a / b for a, b in zip(figures["wall"], base, strict=True))
        print(f"{name:42} {statistics.median(figures['wall']):9.3f} {min(figures['wall']):7.3f}"
              f" {ratio:8.2f} {max(figures['rss']):9.0f}")


def eti(runs: int, tmp: Path) -> None:
    cli = [PY, "-m", "eti_print"]
    n = 183
    warm_cache = tmp / "warm-cache"
    run(cli + ["build", "-q", "--out", str(tmp / "w")], {"ETI_PRINT_CACHE_DIR": str(warm_cache)})
    run(cli + ["validate", "-q"], {"ETI_PRINT_CACHE_DIR": str(warm_cache)})

    def empty_cache(*args: str):
        def go() -> tuple[float, float]:
            folder = tempfile.mkdtemp(dir=tmp)
            try:
                return run(cli + list(args), {"ETI_PRINT_CACHE_DIR": folder})
            finally:
                shutil.rmtree(folder)
        return go

    def warm(*args: str):
        return lambda: run(cli + list(args), {"ETI_PRINT_CACHE_DIR": str(warm_cache)})

    rows = {
        f"floor: {n} cards + backs, raw reportlab": [PY, FLOOR, str(ROOT), str(tmp / "f.pdf"),
                                                      str(n)],
        "cards PDF alone (no cache)": [PY, __file__, "--cards-only", str(ROOT), str(tmp)],
        "build, every output, --no-cache": cli + ["build", "-q", "--no-cache", "--out",
                                                  str(tmp / "a")],
        "build, every output, empty cache": empty_cache("build", "-q", "--out", str(tmp / "b")),
        "build, unchanged pack, warm cache": warm("build", "-q", "--out", str(tmp / "c")),
        "validate, --no-cache": cli + ["validate", "-q", "--no-cache"],
        "validate, empty cache": empty_cache("validate", "-q"),
        "validate, unchanged pack, warm cache": warm("validate", "-q"),
    }
    report(f"E.T.I. ({runs} interleaved runs)", interleave(rows, runs),
           f"floor: {n} cards + backs, raw reportlab")


def synthetic(folder: Path, n: int) -> Path:
    """A one-deck pack (``eti-print new``) of ``n`` distinct cards."""
    pack = folder / f"pack{n}"
    subprocess.run([PY, "-m", "eti_print", "new", str(pack), "-q"], check=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    words = ("Draw **one** card.", "Look at the top card of the deck.",
             "Move *one* space in any direction.", "Gain two coins, then pass.")
    lines = ["cards:"]
    for i in range(1, n + 1):
        lines += [f"  - title: Card {i:05d}", f"    number: {i % 100}",
                  f'    text: "{words[i % len(words)]} ({i})"']
    (pack / "cards" / "deck.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return pack


def scale(runs: int, sizes: list[int], tmp: Path) -> None:
    cli = [PY, "-m", "eti_print"]
    per_card: dict[str, dict[int, float]] = {}
    for n in sizes:
        pack = synthetic(tmp, n)
        rows = {
            "floor": [PY, FLOOR, str(pack), str(tmp / "f.pdf"), str(n)],
            "build --no-cache": cli + ["build", str(pack), "-q", "--no-cache", "--out",
                                       str(tmp / f"o{n}")],
            "validate --no-cache": cli + ["validate", str(pack), "-q", "--no-cache"],
        }
        found = interleave(rows, runs if n <= 1000 else max(1, runs // 3))
        report(f"synthetic pack, {n} cards", found, "floor")
        for name, figures in found.items():
            per_card.setdefault(name, {})[n] = statistics.median(figures["wall"]) / n
    print("\ncost per card (ms, the whole process over N), and its ratio to the smallest "
          "pack's; then the marginal cost per card from one size to the next")
    for name, by_n in per_card.items():
        first = by_n[sizes[0]]
        print(f"{name:24} " + "  ".join(f"{n}: {1000 * t:.3f} ({t / first:.2f})"
                                         for n, t in by_n.items()))
        steps = list(by_n.items())
        print(f"{'':24} " + "  ".join(
            f"{a}->{b}: {1000 * (tb * b - ta * a) / (b - a):.3f}"
            for (a, ta), (b, tb) in zip(steps, steps[1:])))


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--cards-only":
        cards_only(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="200,1000,10000")
    parser.add_argument("--no-scale", action="store_true")
    parser.add_argument("--no-eti", action="store_true")
    args = parser.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M %Z')}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        if not args.no_eti:
            eti(args.runs, tmp)
        if not args.no_scale:
            scale(args.runs, [int(s) for s in args.sizes.split(",")], tmp)
    for folder in (ENV["PYTHONPYCACHEPREFIX"], ENV["ETI_PRINT_CACHE_DIR"]):
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
