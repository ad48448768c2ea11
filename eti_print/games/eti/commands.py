"""The rules commands: ``score``, ``attack`` and ``balance``.

``add_commands`` registers them on the main parser's subcommands; each
handler takes the parsed arguments, prints to stdout and returns an exit
code.  ``score`` and ``attack`` read cards by the pack's data (its threats
and the multipliers its research deck holds) and total by its rules.  Bad
card or threat names and negative counts raise ``UsageError`` (exit 2); the
CLI core turns that into a one-line message.  The cards must be ones the
pack's research deck holds, no more copies than it has (else ``InputError``,
exit 1, naming the deck's entry), and ``score`` keeps only the cards that fit
the company board's data ports, saying which it discarded.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ...errors import InputError, Problem, UsageError
from ...pack import pack_help
from . import engine
from .sim import DEFAULT_SEED

CARD_HELP = ("research cards in data-port order: numbers (50), the multipliers of the pack's "
             "research deck (x0, x2, x3 in E.T.I.) and its threats by id or name (spy, "
             "data-virus, 'Data Virus')")
PACK_HELP = pack_help("pack folder whose cards and rules to use")
DEFAULT_TRIALS = 1000


def add_commands(game: Any, subparsers: Any) -> None:
    """Register ``score``, ``attack`` and ``balance`` on ``subparsers`` for ``game``."""
    p = game.command(
        subparsers, "score", run_score,
        help="score a standard research submission (optionally the best swaps)",
        description="Resolve a standard submission by the rulebook: threats from port 1, "
                    "then multipliers. With --swaps, the best total reachable with that many "
                    "adjacent swaps (the creativity trait). Cards beyond the board's data ports "
                    "are discarded, and every card must be one the research deck holds.")
    p.add_argument("cards", nargs="+", metavar="CARD", help=CARD_HELP)
    p.add_argument("--immune", action="append", default=[], metavar="THREAT",
                   help="a threat the company is immune to (repeatable)")
    p.add_argument("--swaps", type=int, metavar="N",
                   help="find the best order within N adjacent swaps")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--pack", metavar="PACK", help=PACK_HELP)

    p = game.command(
        subparsers, "attack", run_attack, help="total an endgame attack against one company",
        description="Attack cards at the invasion: numbers at face value, multipliers as "
                    "the pack's rules value them (x0/x2/x3 as 10/20/30 in E.T.I.), threats by "
                    "the alien's tactics and the company's immunities, plus the brutality base "
                    "attack.")
    p.add_argument("cards", nargs="+", metavar="CARD", help="attack cards: " + CARD_HELP)
    p.add_argument("--immune", action="append", default=[], metavar="THREAT",
                   help="a threat the company is immune to (repeatable)")
    p.add_argument("--tactic", action="append", default=[], metavar="THREAT",
                   help="a threat that is an alien tactic (repeatable)")
    p.add_argument("--brutality", type=int, default=0, metavar="N",
                   help="base attack from the alien's brutality (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--pack", metavar="PACK", help=PACK_HELP)

    p = game.command(
        subparsers, "balance", run_balance,
        help="write a Monte Carlo balance report (eti-balance.pdf)",
        description="Simulate random research queues and project claims from a pack's data, "
                    "and whole games of every alien, player count and length, and write "
                    "<out>/eti-balance.pdf.")
    p.add_argument("pack", nargs="?", metavar="PACK", help=PACK_HELP)
    p.add_argument("--out", default="output", help="output folder (default: ./output)")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED,
                   help=f"random seed (default {DEFAULT_SEED})")
    p.add_argument("--trials", type=int, default=DEFAULT_TRIALS,
                   help=f"trials per figure (default {DEFAULT_TRIALS})")
    from .sim.command import add_balance_games, add_simulate
    add_balance_games(p)
    add_simulate(game, subparsers)


# ---------------------------------------------------------------------------
# score
# ---------------------------------------------------------------------------


def run_score(args: argparse.Namespace, pack: Any) -> int:
    db = pack.model
    queue = _in_deck(_cards(args.cards, db.deck), args.cards, db)
    discarded = list(range(db.data_ports, len(queue)))   # beyond the last data port
    queue = queue[:db.data_ports]
    immune = _threats(args.immune, "--immune", db.deck)
    if args.swaps is not None and args.swaps < 0:
        raise UsageError(f"--swaps must be 0 or more (got {args.swaps})")
    as_dealt = engine.score(queue, immune, db.deck)
    best = (engine.best_order(queue, args.swaps, immune, db.deck)
            if args.swaps is not None else None)
    if args.json:
        data = _score_json(args, queue, immune, as_dealt, best, db.rules)
        data["discarded"] = [{"card": args.cards[i], "port": i + 1} for i in discarded]
        print(json.dumps(data, indent=2))
    else:
        lines = _score_lines(args, queue, as_dealt, best, db)
        if discarded:
            lines.insert(1, f"Discarded: {' '.join(args.cards[i] for i in discarded)} "
                            f"(ports {discarded[0] + 1}-{discarded[-1] + 1}: the board has "
                            f"{db.data_ports} data ports; cards beyond them are discarded)")
        print("\n".join(lines))
    return 0


def _score_lines(args: argparse.Namespace, queue: tuple[engine.Card, ...],
                 as_dealt: engine.Score, best: engine.Best | None, db: Any) -> list[str]:
    result = best.score if best else as_dealt
    lines = [f"Total: {result.total}"]
    if best is not None:
        lines[0] += (f" (best within {_plural(args.swaps, 'swap')}, {best.swaps_used} used;"
                     f" as dealt: {as_dealt.total})")
        lines.append("Order: " + " ".join(args.cards[i] for i in best.positions))
        if best.swaps_used:
            lines.append("Swaps: " + ", ".join(f"ports {p}-{p + 1}" for p in best.swaps()))
    lines += ["  " + line for line in result.describe(db.deck)]
    lines.append("  " + result.formula())
    lines.append(f"Safe: {engine.safe_score(len(queue), db.rules)} "
                 f"({_plural(len(queue), 'card')} x {db.rules.safe_value})")
    return lines


def _score_json(args: argparse.Namespace, queue: tuple[engine.Card, ...],
                immune: frozenset[str], as_dealt: engine.Score,
                best: engine.Best | None, rules: engine.Rules) -> dict[str, Any]:
    positions = best.positions if best else tuple(range(len(queue)))
    result = best.score if best else as_dealt
    given = [args.cards[i] for i in positions]      # tokens as typed, in the final order
    return {
        "cards": list(args.cards),
        "immune": sorted(immune),
        "max_swaps": args.swaps,
        "total": result.total,
        "as_dealt": as_dealt.total,
        "order": given,
        "swaps_used": best.swaps_used if best else 0,
        "swaps": list(best.swaps()) if best else [],
        "destroyed": [{"threat": given[d.threat], "threat_port": d.threat + 1,
                       "card": given[d.card], "card_port": d.card + 1}
                      for d in result.destroyed],
        "ignored": [{"threat": given[i], "port": i + 1} for i in result.ignored],
        "multipliers": [{"multiplier": given[a.multiplier], "port": a.multiplier + 1,
                         "target": None if a.target is None else given[a.target],
                         "target_port": None if a.target is None else a.target + 1}
                        for a in result.attachments],
        "formula": result.formula(),
        "safe": engine.safe_score(len(queue), rules),
    }


# ---------------------------------------------------------------------------
# attack
# ---------------------------------------------------------------------------


def run_attack(args: argparse.Namespace, pack: Any) -> int:
    db = pack.model
    cards = _in_deck(_cards(args.cards, db.deck), args.cards, db)
    immune = _threats(args.immune, "--immune", db.deck)
    tactics = _threats(args.tactic, "--tactic", db.deck)
    if args.brutality < 0:
        raise UsageError(f"--brutality must be 0 or more (got {args.brutality})")
    try:
        strike = engine.attack(cards, immune, tactics, args.brutality, db.rules, db.deck)
    except ValueError as exc:       # a multiplier the pack's rules give no attack value
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps({
            "total": strike.total,
            "base": strike.base,
            "cards": [{"card": token, "value": line.value, "reason": line.reason}
                      for token, line in zip(args.cards, strike.lines)],
            "immune": sorted(immune),
            "tactics": sorted(tactics),
        }, indent=2))
        return 0
    width = max(len(token) for token in list(args.cards) + ["brutality"])
    for token, line in zip(args.cards, strike.lines):
        print(f"{token:<{width}}  {line.value:>3}  {line.reason}")
    print(f"{'brutality':<{width}}  {strike.base:>3}  base attack")
    print(f"Total attack: {strike.total}")
    return 0


# ---------------------------------------------------------------------------
# balance
# ---------------------------------------------------------------------------


def run_balance(args: argparse.Namespace, pack: Any) -> int:
    from ...output import atomic_path, prepare_dir, source_date_epoch
    from .balance import simulate
    from .balance_report import render_report

    if args.trials < 1:
        raise UsageError(f"--trials must be 1 or more (got {args.trials})")
    source_date_epoch()     # reportlab dates the PDF from it and would crash on a bad value
    db = pack.model
    difficulties: dict[int, list[int]] = defaultdict(list)
    for project in db.projects:
        difficulties[project.level_number].append(project.difficulty)
    report = simulate([(entry.card, entry.count) for entry in db.research], difficulties,
                      [space.value for space in db.trait("staffing").spaces],
                      args.seed, args.trials, db.rules)
    from .sim.command import balance_games
    pdf = render_report(report, pack.context.fonts, db.title, balance_games(args, db))
    target = prepare_dir(Path(args.out)) / "eti-balance.pdf"
    with atomic_path(target) as tmp:
        tmp.write_bytes(pdf)
    print(f"wrote {target}")
    return 0


# ---------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------


def _cards(tokens: Sequence[str], deck: engine.Deck) -> tuple[engine.Card, ...]:
    try:
        return engine.parse_queue(tokens, deck)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _in_deck(cards: tuple[engine.Card, ...], tokens: Sequence[str],
             db: Any) -> tuple[engine.Card, ...]:
    """``cards`` if the pack's research deck holds every one, with as many copies;
    else ``InputError`` naming the deck's entries (the attack cards are research cards)."""
    copies = {entry.card: (index, entry.count) for index, entry in enumerate(db.research)}
    wanted: dict[engine.Card, list[str]] = defaultdict(list)
    for card, token in zip(cards, tokens):
        wanted[card].append(token)
    problems: list[Problem] = []
    for card, typed in wanted.items():
        if card not in copies:
            same = sorted(c.value for c in copies if c.kind == card.kind)
            problems.append(db.dataset.problem(
                "research.research", None,
                f"{typed[0]!r}: the research deck has no {db.deck.label(card)} card",
                hint=f"its {card.kind} cards are " + ", ".join(
                    (f"x{v}" if card.kind == "multiplier" else str(v)) for v in same)))
        elif len(typed) > copies[card][1]:
            index, count = copies[card]
            problems.append(db.dataset.problem(
                "research.research", index,
                f"{len(typed)} x {db.deck.label(card)} given, but the research deck has "
                f"{count}", "count"))
    if problems:
        raise InputError(problems)
    return cards


def _threats(names: Iterable[str], option: str, deck: engine.Deck) -> frozenset[str]:
    try:
        return frozenset(deck.normalize_threat(name) for name in names)
    except ValueError as exc:
        raise UsageError(f"{option}: {exc}") from None


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
