"""What whole games say about the design: the figures of the balance report.

``GameStats.of(data, results)`` reduces simulated games (``runner.run``) to
plain figures, for every player count and length:

- each alien's win rate with its 95 % interval;
- how often each project is claimed before the invasion (never, always);
- which research composition (the three free trait upgrades) wins;
- each event's effect on the winner's fame: the winner's fame in games where
  the event was drawn, against games where it was not, each measured from
  the mean of games with the same players, length and number of turns (long
  games draw more events and end with more fame; that is not the event's doing).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .data import SimData
from .game import Result
from .runner import Config, Rate


@dataclass(frozen=True)
class EventEffect:
    event: str
    name: str
    drawn: int            # games (won by a human) where it was drawn
    with_fame: float      # the winner's mean fame in those games
    without_fame: float   # ... and in the others

    @property
    def effect(self) -> float:
        return self.with_fame - self.without_fame


@dataclass(frozen=True)
class GameStats:
    games: int                                        # in all
    per_config: int                                   # games per alien, players and length
    seed: int
    aliens: tuple[tuple[str, str, int], ...]          # (id, name, ufos), weakest first
    rates: Mapping[tuple[int, str, str], Rate]        # (players, length, alien) -> alien wins
    turns: Mapping[tuple[int, str], float]            # mean turns per (players, length)
    projects: tuple[tuple[str, int, float], ...]      # (name, level, claim rate)
    compositions: tuple[tuple[str, Rate], ...]        # free upgrades -> human wins
    events: tuple[EventEffect, ...]

    @classmethod
    def of(cls, data: SimData, results: Mapping[Config, Sequence[Result]], seed: int
           ) -> GameStats:
        everything = [r for rs in results.values() for r in rs]
        n = len(everything)
        rates = {c: Rate(sum(1 for r in rs if r.winner is None), len(rs))
                 for c, rs in results.items()}
        turns_by: dict[tuple[int, str], list[int]] = defaultdict(list)
        for (players, length, _), rs in results.items():
            turns_by[(players, length)].extend(r.turns for r in rs)
        claimed = Counter(p for r in everything for p in set(r.claimed))
        projects = tuple((p.name, p.level_number, claimed[p.id] / n if n else 0.0)
                         for p in data.projects)
        wins: Counter[str] = Counter()
        plays: Counter[str] = Counter()
        for r in everything:
            for seat, free in enumerate(r.free):
                if seat == r.alien_seat:
                    continue
                key = composition(free)
                plays[key] += 1
                wins[key] += r.winner == seat
        comps = tuple(sorted(((k, Rate(wins[k], plays[k])) for k in plays),
                             key=lambda kv: (-kv[1].rate, kv[0])))
        won = [r for r in everything if r.winner is not None]
        # Longer games draw more events and end with more famous winners: compare each
        # winner's fame with the mean of games of the same players, length and turns.
        strata: dict[tuple[int, str, int], list[int]] = defaultdict(list)
        for r in won:
            strata[(r.players, r.length, r.turns)].append(r.winner_fame)
        centre = {k: _mean(v) for k, v in strata.items()}
        residual = [(r, r.winner_fame - centre[(r.players, r.length, r.turns)]) for r in won]
        events = []
        for card in data.events:
            drew = [x for r, x in residual if card.id in r.events]
            rest = [x for r, x in residual if card.id not in r.events]
            events.append(EventEffect(card.id, card.name, len(drew), _mean(drew), _mean(rest)))
        per = min((len(rs) for rs in results.values()), default=0)
        return cls(n, per, seed, tuple((a.id, a.name, a.ufos) for a in data.aliens), rates,
                   {k: _mean(v) for k, v in turns_by.items()}, projects, comps,
                   tuple(events))

    @property
    def players(self) -> tuple[int, ...]:
        return tuple(sorted({p for p, _, _ in self.rates}))

    @property
    def lengths(self) -> tuple[str, ...]:
        seen: list[str] = []
        for _, length, _ in self.rates:
            if length not in seen:
                seen.append(length)
        return tuple(seen)

    def never_claimed(self) -> list[str]:
        return [name for name, _, rate in self.projects if rate == 0]

    def always_claimed(self) -> list[str]:
        return [name for name, _, rate in self.projects if rate == 1]


def composition(free: Sequence[str]) -> str:
    """Free upgrades as a reader says them: ``2 staffing + security``."""
    counts = Counter(free)
    return " + ".join(f"{n} {t}" if n > 1 else t for t, n in sorted(counts.items()))


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
