"""What ``eti-print simulate`` prints: the text table and the JSON form."""

from __future__ import annotations

from collections.abc import Sequence

from .data import SimData
from .game import Result
from .runner import Config, Rate, Summary, summarise


def ladder_breaks(data: SimData, rates: dict[str, Rate]) -> list[str]:
    """Pairs of aliens out of order: more UFOs must mean a higher alien win rate."""
    order = [a for a in data.aliens if a.id in rates]
    return [f"{b.name} ({b.ufos} UFOs, {100 * rates[b.id].rate:.1f} %) is not stronger than "
            f"{a.name} ({a.ufos} UFOs, {100 * rates[a.id].rate:.1f} %)"
            for a, b in zip(order, order[1:]) if rates[b.id].rate <= rates[a.id].rate]


def text_lines(data: SimData, results: dict[Config, list[Result]], games: int, seed: int,
               policies: Sequence[str]) -> list[str]:
    lines = [f"{games} games per alien and game, seed {seed}, players: {', '.join(policies)}"]
    groups: dict[tuple[int, str], list[Config]] = {}
    for config in results:
        groups.setdefault(config[:2], []).append(config)
    for (players, length), configs in groups.items():
        summaries = [summarise(c, results[c]) for c in configs]
        lines += ["", f"{players} players, {length} game",
                  f"  {'alien':<18} UFOs  alien wins [95 % interval]  turns (min-max)"]
        for s in summaries:
            card = data.alien(s.config[2])
            lines.append(f"  {card.name:<18} {card.ufos:>4}  {s.alien.text():<26}  "
                         f"{s.turns:5.1f} ({s.turns_range[0]}-{s.turns_range[1]})")
        if len(summaries) > 1:
            breaks = ladder_breaks(data, {s.config[2]: s.alien for s in summaries})
            lines.append("  ladder: " + ("in order" if not breaks else "OUT OF ORDER: "
                                         + "; ".join(breaks)))
        seats = _merge([s.seats for s in summaries])
        lines.append("  human wins by seat (seat 1 holds the badge first): "
                     + ", ".join(f"{i + 1}: {r.text().strip()}" for i, r in enumerate(seats)))
        pols = _merge_dict([s.policies for s in summaries])
        if len(pols) > 1:
            lines.append("  human wins by policy: "
                         + ", ".join(f"{k}: {v.text().strip()}" for k, v in sorted(pols.items())))
    return lines


def json_value(data: SimData, results: dict[Config, list[Result]], games: int, seed: int,
               policies: Sequence[str]) -> dict[str, object]:
    summaries = [summarise(c, rs) for c, rs in results.items()]
    ladders = []
    groups: dict[tuple[int, str], list[Summary]] = {}
    for s in summaries:
        groups.setdefault(s.config[:2], []).append(s)
    for (players, length), group in groups.items():
        breaks = ladder_breaks(data, {s.config[2]: s.alien for s in group})
        ladders.append({"players": players, "length": length, "in_order": not breaks,
                        "breaks": breaks})
    return {"games": games, "seed": seed, "policies": list(policies),
            "results": [s.as_dict() for s in summaries], "ladders": ladders}


def _merge(rows: list[tuple[Rate, ...]]) -> list[Rate]:
    return [Rate(sum(r[i].wins for r in rows), sum(r[i].games for r in rows))
            for i in range(len(rows[0]))] if rows else []


def _merge_dict(rows: list[dict[str, Rate]]) -> dict[str, Rate]:
    out: dict[str, Rate] = {}
    for row in rows:
        for k, r in row.items():
            old = out.get(k, Rate(0, 0))
            out[k] = Rate(old.wins + r.wins, old.games + r.games)
    return out
