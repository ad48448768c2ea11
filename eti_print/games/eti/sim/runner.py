"""Many games at once: seeds, parallel workers, and the statistics of the results.

Each game's seed is derived from the run's seed and the game's place in the
run (players, length, index) by a hash, so a game's result never
depends on how many workers played or in which order: ``run`` with 1 worker
and with 8 gives the same results, in the same order.  Workers are forked
with the data already loaded (``data.CURRENT``), so nothing big is pickled.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .data import CURRENT, SimData
from .game import Game, Result
from .play import play
from .policies import POLICIES, AlienPolicy

Config = tuple[int, str, str]          # players, length, alien id


def game_seed(seed: int, config: Config, index: int) -> int:
    """A game's own seed: stable across runs, machines and worker counts.

    The alien is left out on purpose: every alien plays the same deals and the
    same players' choices (common random numbers), so two aliens' win rates
    differ by their cards, not by luck.
    """
    key = f"{seed}/{config[0]}/{config[1]}/{index}".encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big")


def play_one(data: SimData, config: Config, seed: int, index: int, policies: Sequence[str],
             log: bool = False) -> Result:
    players, length, alien = config
    return play(Game(data, players, length, alien, game_seed(seed, config, index),
                     [POLICIES[name] for name in policies], AlienPolicy(), log))


def _chunk(task: tuple[Config, int, int, int, tuple[str, ...]]) -> list[Result]:
    config, seed, start, stop, policies = task
    data = CURRENT[0]
    return [play_one(data, config, seed, i, policies) for i in range(start, stop)]


def run(data: SimData, configs: Iterable[Config], games: int, seed: int,
        policies: Sequence[str], workers: int | None = None) -> dict[Config, list[Result]]:
    """``games`` games of each configuration, in parallel; results in game order."""
    configs = list(configs)
    workers = workers or os.cpu_count() or 1
    step = max(1, min(50, games // max(1, workers * 2) or 1))
    tasks = [(config, seed, start, min(start + step, games), tuple(policies))
             for config in configs for start in range(0, games, step)]
    CURRENT[:] = [data]
    if workers == 1 or len(tasks) == 1:
        chunks = [_chunk(t) for t in tasks]
    else:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(workers) as pool:
            chunks = pool.map(_chunk, tasks, chunksize=1)
    results: dict[Config, list[Result]] = {c: [] for c in configs}
    for task, chunk in zip(tasks, chunks):
        results[task[0]].extend(chunk)
    return results


@dataclass(frozen=True)
class Rate:
    """A proportion with its 95 % Wilson score interval."""

    wins: int
    games: int

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        n = self.games
        if not n:
            return (0.0, 0.0)
        z = 1.959964
        p = self.rate
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))

    def text(self) -> str:
        lo, hi = self.interval
        return f"{100 * self.rate:5.1f} % [{100 * lo:4.1f}-{100 * hi:4.1f}]"

    def as_dict(self) -> dict[str, float | int]:
        lo, hi = self.interval
        return {"wins": self.wins, "games": self.games, "rate": round(self.rate, 4),
                "low": round(lo, 4), "high": round(hi, 4)}


@dataclass(frozen=True)
class Summary:
    """What ``simulate`` prints for one configuration."""

    config: Config
    alien: Rate
    turns: float
    turns_range: tuple[int, int]
    seats: tuple[Rate, ...]            # each seat's human wins (seat 1 starts with the badge)
    policies: dict[str, Rate]          # human wins per policy (games where it played a human)

    def as_dict(self) -> dict[str, object]:
        players, length, alien = self.config
        return {"players": players, "length": length, "alien": alien,
                "alien_wins": self.alien.as_dict(), "turns": round(self.turns, 2),
                "turns_min": self.turns_range[0], "turns_max": self.turns_range[1],
                "seats": [r.as_dict() for r in self.seats],
                "policies": {k: v.as_dict() for k, v in sorted(self.policies.items())}}


def summarise(config: Config, results: Sequence[Result]) -> Summary:
    n = len(results)
    alien = Rate(sum(1 for r in results if r.winner is None), n)
    turns = [r.turns for r in results]
    players = config[0]
    seat_wins = Counter(r.winner for r in results if r.winner is not None)
    seat_games = Counter(s for r in results for s in range(players) if s != r.alien_seat)
    pol_wins: Counter[str] = Counter()
    pol_games: Counter[str] = Counter()
    for r in results:
        for s, name in enumerate(r.policies):
            if s != r.alien_seat:
                pol_games[name] += 1
                pol_wins[name] += r.winner == s
    return Summary(config, alien, sum(turns) / n if n else 0.0,
                   (min(turns, default=0), max(turns, default=0)),
                   tuple(Rate(seat_wins[s], seat_games[s]) for s in range(players)),
                   {k: Rate(pol_wins[k], pol_games[k]) for k in pol_games})


def by_alien(results: dict[Config, list[Result]]) -> dict[tuple[int, str], dict[str, Rate]]:
    """Alien win rates, grouped by (players, length)."""
    table: dict[tuple[int, str], dict[str, Rate]] = defaultdict(dict)
    for (players, length, alien), rs in results.items():
        table[(players, length)][alien] = Rate(sum(1 for r in rs if r.winner is None), len(rs))
    return dict(table)
