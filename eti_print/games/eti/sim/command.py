"""``eti-print simulate``: whole games, their win rates, lengths and seat advantage."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ....errors import UsageError
from ....pack import pack_help
from . import DEFAULT_SEED
from .policies import POLICIES

DEFAULT_GAMES = 500
MIXED = "mixed"


def add_simulate(game: Any, subparsers: Any) -> None:
    p = game.command(
        subparsers, "simulate", run_simulate,
        help="play whole seeded games and print win rates (the alien ladder)",
        description="Play whole games of E.T.I. by the rulebook, every decision made by a "
                    "player policy, and print each alien's win rate with its 95 % interval, "
                    "game length in turns and seat advantage. Parallel on all cores; the "
                    "results do not depend on the number of workers.")
    p.add_argument("--players", metavar="N", default="all",
                   help="players, 3 to 6, or all (default: all)")
    p.add_argument("--length", default="standard", metavar="LENGTH",
                   help="game length: short, standard, epic or all (default: standard)")
    p.add_argument("--alien", default="all", metavar="ID",
                   help="alien endgame card id, or all (default: all)")
    p.add_argument("--games", type=int, default=DEFAULT_GAMES,
                   help=f"games per alien, player count and length (default {DEFAULT_GAMES})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"random seed (default {DEFAULT_SEED})")
    p.add_argument("--policy", default=MIXED, metavar="NAME",
                   help=f"the human players' policy: {', '.join(POLICIES)}, or {MIXED} "
                        "(they go round the table from a seat drawn per game; default)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="worker processes (default: one per core)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--log", action="store_true",
                   help="print the log of each game instead (use with a small --games)")
    p.add_argument("pack", nargs="?", metavar="PACK",
                   help=pack_help("pack folder whose cards to play"))
    p.add_argument("--pack", dest="pack_option", metavar="PACK",
                   help="(deprecated: give PACK first) the pack")


def configs_for(data: Any, players: str, length: str, alien: str) -> list[tuple[int, str, str]]:
    lo, hi = data.players
    if players == "all":
        counts = list(range(lo, hi + 1))
    else:
        try:
            counts = [int(players)]
        except ValueError:
            raise UsageError(f"--players must be {lo} to {hi} or all (got {players!r})") from None
        if not lo <= counts[0] <= hi:
            raise UsageError(f"--players must be {lo} to {hi} or all (got {players})")
    lengths = list(data.lengths) if length == "all" else [length]
    for g in lengths:
        if g not in data.lengths:
            raise UsageError(f"--length must be {', '.join(data.lengths)} or all (got {g!r})")
    ids = [a.id for a in data.aliens]
    aliens = ids if alien == "all" else [alien]
    if aliens[0] not in ids:
        raise UsageError(f"--alien must be one of {', '.join(ids)} or all (got {alien!r})")
    return [(n, g, a) for n in counts for g in lengths for a in aliens]


def policies_for(name: str) -> list[str]:
    if name == MIXED:
        return list(POLICIES)
    if name not in POLICIES:
        raise UsageError(f"--policy must be {', '.join(POLICIES)} or {MIXED} (got {name!r})")
    return [name]


def run_simulate(args: argparse.Namespace, pack: Any) -> int:
    from .data import SimData
    from .report import json_value, text_lines
    from .runner import play_one, run

    if args.games < 1:
        raise UsageError(f"--games must be 1 or more (got {args.games})")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be 1 or more (got {args.workers})")
    data = SimData.of(pack.model)
    configs = configs_for(data, args.players, args.length, args.alien)
    policies = policies_for(args.policy)
    if args.log:
        for config in configs:
            for i in range(args.games):
                result = play_one(data, config, args.seed, i, policies, log=True)
                print(f"== game {i + 1}: {config[0]} players, {config[1]}, {config[2]} ==")
                print("\n".join(result.log))
        return 0
    results = run(data, configs, args.games, args.seed, policies, args.workers)
    if args.json:
        print(json.dumps(json_value(data, results, args.games, args.seed, policies), indent=2))
    else:
        print("\n".join(text_lines(data, results, args.games, args.seed, policies)))
    return 0


DEFAULT_BALANCE_GAMES = 100


def add_balance_games(p: argparse.ArgumentParser) -> None:
    """``balance``'s whole-game options."""
    p.add_argument("--games", type=int, default=DEFAULT_BALANCE_GAMES,
                   help="whole games per alien, player count and length "
                        f"(default {DEFAULT_BALANCE_GAMES}; 0: no whole-game pages)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="worker processes for the whole games (default: one per core)")


def balance_games(args: argparse.Namespace, db: Any) -> Any:
    """The whole-game figures of the balance report (None with ``--games 0``)."""
    from .analysis import GameStats
    from .data import SimData
    from .runner import run
    if args.games < 0:
        raise UsageError(f"--games must be 0 or more (got {args.games})")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be 1 or more (got {args.workers})")
    if not args.games:
        return None
    data = SimData.of(db)
    configs = configs_for(data, "all", "all", "all")
    return GameStats.of(data, run(data, configs, args.games, args.seed, list(POLICIES),
                                  args.workers), args.seed)
