"""Time whole simulated games: the target is 2,000 games in at most 20 s on 2 cores.

    python bench/bench_simulate.py [--games N] [--workers W] [--seed S]

Plays ``--games`` whole games (4 players, standard length, the four aliens in
turn, mixed policies) on ``--workers`` processes (default: every core) and
prints the wall time, games per second, and whether the target was met.  The
database is loaded before the clock starts, as ``eti-print simulate`` loads it
once.  Run it on a quiet machine: a busy one makes every figure worse.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cputime import cpu as process_cpu  # noqa: E402  (bench/, beside this script)

from eti_print.games.eti.model import load_database  # noqa: E402
from eti_print.games.eti.sim.data import SimData  # noqa: E402
from eti_print.games.eti.sim.policies import POLICIES  # noqa: E402
from eti_print.games.eti.sim.runner import run  # noqa: E402

TARGET_GAMES, TARGET_SECONDS = 2000, 20.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=TARGET_GAMES)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1965)
    args = parser.parse_args()
    data = SimData.of(load_database())
    aliens = [a.id for a in data.aliens]
    per = max(1, args.games // len(aliens))
    configs = [(4, "standard", a) for a in aliens]
    started = time.perf_counter()
    cpu_before = sum(process_cpu())
    results = run(data, configs, per, args.seed, list(POLICIES), args.workers)
    seconds = time.perf_counter() - started
    cpu = sum(process_cpu()) - cpu_before
    games = sum(len(r) for r in results.values())
    turns = sum(r.turns for rs in results.values() for r in rs) / games
    rate = games / seconds
    print(f"{games} games ({turns:.1f} turns on average) on {args.workers} workers: "
          f"{seconds:.2f} s, {rate:.0f} games/s, {1000 * seconds / games:.1f} ms per game")
    print(f"CPU time of every process: {cpu:.2f} s ({1000 * cpu / games:.1f} ms per game); "
          f"on {args.workers} idle cores that is {cpu / args.workers:.1f} s of wall time")
    need = TARGET_GAMES / rate
    print(f"{TARGET_GAMES} games would take {need:.1f} s: target of {TARGET_SECONDS:.0f} s "
          + ("met" if need <= TARGET_SECONDS else "MISSED"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
