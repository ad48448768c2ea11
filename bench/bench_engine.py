"""Time ``engine.best_order`` on full 14-card queues.

    python bench/bench_engine.py [--queues N] [--seed S] [--repeat R]

Two sets of queues: random full queues dealt from the shipped research deck,
and hand-picked hard ones (many distinct values, threats and x0s far from
where they would do least harm; found by a hill-climbing search for slow
cases).  Each is solved with the creativity track's most swaps (4), with 10,
with 30 and with unlimited swaps (91 = every order of 14 cards).  Times are
process CPU time, the best of ``--repeat`` runs, in milliseconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eti_print.games.eti.engine import Card, best_order, parse_queue  # noqa: E402
from eti_print.games.eti.model import load_database  # noqa: E402

SWAPS = (4, 10, 30, 91)

HARD = [
    "spy 10 20 x2 30 arson 40 x3 50 60 70 x0 80 90",
    "80 arson 120 x0 110 20 spy 80 140 x2 120 x0 x0 x2",
    "spy 70 arson 80 10 10 x2 40 30 x0 spy x3 100 x3",
    "100 40 x2 110 120 x0 arson abduction 100 10 10 90 140 x2",
    "60 140 30 arson 20 x0 arson 10 50 40 30 x2 20 80",
    "130 40 spy x0 x3 spy 10 20 80 x0 x2 60 x2 60",
    "spy x3 40 x3 30 100 20 10 90 60 x3 130 140 70",
    "arson 120 90 80 70 60 110 130 90 40 100 140 x0 10",
]


def cpu_ms(queue: tuple[Card, ...], swaps: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        best_order(queue, swaps)
        best = min(best, time.process_time() - start)
    return best * 1000


def report(name: str, queues: list[tuple[Card, ...]], repeat: int) -> None:
    print(f"{name} ({len(queues)} queues of 14 cards)")
    print(f"  {'swaps':>5}  {'mean ms':>8}  {'median':>8}  {'max ms':>8}")
    for swaps in SWAPS:
        times = [cpu_ms(queue, swaps, repeat) for queue in queues]
        print(f"  {swaps:>5}  {statistics.mean(times):>8.1f}  {statistics.median(times):>8.1f}"
              f"  {max(times):>8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queues", type=int, default=100, help="random queues (default 100)")
    parser.add_argument("--seed", type=int, default=1965)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (default 3)")
    args = parser.parse_args()
    db = load_database()
    rng = random.Random(args.seed)
    report("shipped deck", [tuple(rng.sample(db.research_cards, 14))
                            for _ in range(args.queues)], args.repeat)
    report("hard queues", [parse_queue(text.split(), db.deck) for text in HARD], args.repeat)


if __name__ == "__main__":
    main()
