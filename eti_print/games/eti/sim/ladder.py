"""The rule ``alien-ladder``: by the simulator, more UFOs means a stronger alien.

``eti-print validate --simulate`` plays ``GAMES`` whole games of every alien
for every player count and game length, from ``SEED`` (fixed, so the rule
gives the same answer every time), and reports, located at the weaker alien's
``ufos``, every pair of aliens whose win rates are out of order.  Plain
``validate`` never runs it: it takes a minute, not a second.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ....errors import Problem
from .data import SimData
from .policies import POLICIES
from .report import ladder_breaks
from .runner import Config, by_alien, run

GAMES = 60
SEED = 1965


def ladder_problems(db: object, games: int = GAMES, seed: int = SEED,
                    configs: Sequence[Config] | None = None,
                    workers: int | None = None) -> list[Problem]:
    data = SimData.of(db)
    if configs is None:
        lo, hi = data.players
        configs = [(n, g, a.id) for n in range(lo, hi + 1) for g in data.lengths
                   for a in data.aliens]
    results = run(data, configs, games, seed, list(POLICIES), workers)
    problems = []
    ids = [a.id for a in db.alien_endgame]          # data order, to locate the card
    for (players, length), rates in sorted(by_alien(results).items()):
        for message in ladder_breaks(data, rates):
            weaker = next(a for a in data.aliens if message.startswith(a.name))
            problems.append(db.dataset.problem(
                "endgame.alien", ids.index(weaker.id),
                f"alien-ladder: in {players}-player {length} games, {message} "
                f"({games} simulated games each, seed {seed})", "ufos"))
    return problems


def validate_simulate(pack: Any) -> str:
    """``validate --simulate``: the ladder rule on a checked pack (``CheckedPack``);
    raises ``InputError`` when broken."""
    from ....errors import InputError
    db = pack.model
    problems = ladder_problems(db)
    if problems:
        raise InputError(problems)
    return (f"alien-ladder: in order for {db.players[0]}-{db.players[1]} players and every "
            f"length ({GAMES} simulated games each, seed {SEED})")
