"""E.T.I.'s board and piece settings and the names its board layouts see.

``templates/boards/boards.yaml`` (schema ``schemas/boards.yaml`` here) holds
what only E.T.I. has: the company board's 14 data ports, the token size
shared by the token sheet and every board space a token covers, the turn and
invasion summaries printed on the boards, and the badge and standee sizes.
The boards themselves (size, bleed, layout, one per company) are generic
``boards:`` entries in pack.yaml; their templates get the names below through
the game's ``context`` (``context: company-board`` / ``alien-board``).

Decisions:

* Data ports: port 1 is the top-left port and the numbers run clockwise
  (rulebook: "Start at '1' and fill clockwise"): six ports along the top
  from left to right, one down the right side, six back along the bottom
  from right to left, one up the left side.  The top-left corner holds the
  company logo ("the space provided at the top left of the gameboard").
* Data bank: the green tokens "light up" the banked total.  Two rows of
  lamps: hundreds and tens (10-90).  One token in each row shows any total
  in steps of 10 up to the most a bank can hold (``bank_reach``): falling
  short on the hardest project leaves its difficulty less 10 banked, and
  switching projects then banks every full data port at the safe value, all
  of it kept in the same field (400 - 10 + 14 x 10 = 530 in E.T.I.).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...colour import CREAM, NAVY, contrast_ratio, mix, readable
from ...errors import InputError, Problem
from ...imposition import EPS
from ...schema import load_checked
from ...scope import base_context
from ...units import mm, to_mm, to_points
from ...yamlload import Document

if TYPE_CHECKING:  # pragma: no cover
    from ...context import Context

SETTINGS = "templates/boards/boards.yaml"
SCHEMAS = Path(__file__).resolve().parent / "schemas"
#: Number tab of a data port: width and height (points).
TAB = (mm(16), mm(7))
#: Where the next port lies, as the arrow printed on a port's tab.
ARROWS = {(1, 0): "→", (-1, 0): "←", (0, 1): "↓", (0, -1): "↑"}


@dataclass(frozen=True)
class Port:
    """A data port: ``number`` from 1, its rectangle in points from the board's
    top-left corner (y down, as layouts measure), and the side of its tab."""

    number: int
    x: float
    y: float
    w: float
    h: float
    tab: str

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)

    def overlaps(self, other: Port) -> bool:
        return (min(self.x + self.w, other.x + other.w) - max(self.x, other.x) > EPS
                and min(self.y + self.h, other.y + other.h) - max(self.y, other.y) > EPS)

    def tab_rect(self) -> tuple[float, float, float, float]:
        """The number tab (x, y, w, h), attached outside the port on its ``tab`` side."""
        tw, th = TAB
        cx, cy = self.center
        if self.tab == "below":
            return (cx - tw / 2, self.y + self.h, tw, th)
        if self.tab == "above":
            return (cx - tw / 2, self.y - th, tw, th)
        if self.tab == "left":
            return (self.x - tw, cy - th / 2, tw, th)
        return (self.x + self.w, cy - th / 2, tw, th)


def port_problems(ports: Sequence[Port], data_ports: int, card: tuple[float, float],
                  board: tuple[float, float], where: str, line: int | None) -> list[Problem]:
    """What is wrong with the company board's data ports: count, size, place, overlap."""
    problems = []
    field_name = "ports"
    if len(ports) != data_ports:
        problems.append(Problem(f"the board has {len(ports)} data ports, the game "
                                f"{data_ports} (cards/game.yaml data_ports)", where, line,
                                field=field_name))
    for port in ports:
        if port.w + EPS < card[0] or port.h + EPS < card[1]:
            problems.append(Problem(
                f"port {port.number} is {to_mm(port.w):.1f} x {to_mm(port.h):.1f} mm; a card "
                f"({to_mm(card[0]):.1f} x {to_mm(card[1]):.1f} mm) does not fit", where,
                line, field=field_name))
        if port.x < -EPS or port.y < -EPS or port.x + port.w > board[0] + EPS \
                or port.y + port.h > board[1] + EPS:
            problems.append(Problem(f"port {port.number} lies outside the board", where,
                                    line, field=field_name))
    for i, a in enumerate(ports):
        for b in ports[i + 1:]:
            if a.overlaps(b):
                problems.append(Problem(f"ports {a.number} and {b.number} overlap", where,
                                        line, field=field_name))
    return problems


def clockwise(ports: Sequence[Port], width: float, height: float) -> bool:
    """Do the ports run clockwise around the board's centre, in number order?

    Angles are measured on the page (y down), so clockwise is increasing
    angle; the sequence may wrap once.
    """
    cx, cy = width / 2, height / 2
    angles = [math.atan2(p.center[1] - cy, p.center[0] - cx) for p in ports]
    total = 0.0
    for a, b in zip(angles, angles[1:]):
        step = (b - a) % (2 * math.pi)
        if step <= EPS or step >= math.pi:
            return False
        total += step
    return total < 2 * math.pi


def bank_reach(max_difficulty: int, data_ports: int, safe_value: int, step: int = 10) -> int:
    """The most research a data bank can hold: short of the hardest project by one
    step, then a switch to a project of the same field banks every full port."""
    return max(0, max_difficulty - step) + data_ports * safe_value


def bank_track(max_total: int, step: int = 10) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The data bank's lamps: (tens, hundreds).

    Tens are 10..90; hundreds run from 100 to the hundred at or below
    ``max_total``, so one token in each row shows any total in steps of
    ``step`` up to ``max_total`` (and no lamp is beyond reach).
    """
    tens = tuple(range(step, 100, step))
    top = max(100, (max_total // 100) * 100)
    return tens, tuple(range(100, top + 1, 100))


def bank_tokens(total: int, hundreds: Sequence[int]) -> tuple[int, ...]:
    """The lamps lit for ``total``: at most one hundreds and one tens lamp."""
    if total < 0 or total % 10:
        raise ValueError(f"a bank holds a whole number of tens (got {total})")
    h, tens = divmod(total, 100)
    if h * 100 > (max(hundreds) if hundreds else 0):
        raise ValueError(f"{total} is more than the data bank shows")
    return tuple(v for v in (h * 100, tens) if v)


def palette(colour: str) -> dict[str, str]:
    """A company colour and what goes with it: ``ink`` (text on the colour),
    ``text`` (the colour, dark enough to read on cream), ``soft`` (a pale tint
    for panels on cream) and ``deep`` (a darker shade)."""
    text = colour
    while contrast_ratio(text, CREAM) < 4.5:   # WCAG AA for small text on cream
        text = mix(text, "#000000", 0.2)
    return {
        "colour": colour,
        "ink": readable(colour, NAVY, "#FFFFFF"),
        "text": text,
        "soft": mix(colour, CREAM, 0.84),
        "deep": mix(colour, "#000000", 0.25),
    }


def _r(points: float) -> float:
    """Points to millimetres, rounded for templates (``{{ x }}mm``)."""
    return round(to_mm(points), 3)


def _port_entries(ports: Sequence[Port]) -> list[dict[str, Any]]:
    entries = []
    for k, port in enumerate(ports):
        arrow = ""
        if k + 1 < len(ports):
            nx, ny = ports[k + 1].center
            dx, dy = nx - port.center[0], ny - port.center[1]
            direction = (int(math.copysign(1, dx)), 0) if abs(dx) > abs(dy) else \
                (0, int(math.copysign(1, dy)))
            arrow = ARROWS[direction]
        tx, ty, tw, th = port.tab_rect()
        entries.append({"n": port.number, "x": _r(port.x), "y": _r(port.y), "w": _r(port.w),
                        "h": _r(port.h), "tab": port.tab, "tab_x": _r(tx), "tab_y": _r(ty),
                        "tab_w": _r(tw), "tab_h": _r(th), "arrow": arrow,
                        # the number sits left of the arrow, or centred without one
                        "num_w": _r(tw * 0.62) if arrow else _r(tw)})
    return entries


def _traits(traits: Sequence[Any], others: Sequence[Any]) -> tuple[list[dict], list[dict]]:
    names = {t.id: t.name for t in others}
    rows, spaces = [], []
    for t, trait in enumerate(traits):
        rows.append({"id": trait.id, "name": trait.name, "icon": trait.icon,
                     "gives": trait.gives, "summary": trait.summary,
                     "counterpart": names.get(trait.counterpart, trait.counterpart),
                     "spaces": [{"value": s.value, "label": s.label} for s in trait.spaces]})
        for j, space in enumerate(trait.spaces):
            spaces.append({"t": t, "j": j, "label": space.label, "value": space.value,
                           "start": j == 0})
    return rows, spaces


def _steps(ctx: Context, steps: Sequence[dict[str, str]], rules: dict[str, Any],
           settings: BoardSettings, key: str) -> list[dict[str, str]]:
    out = []
    for n, step in enumerate(steps):
        note = step.get("note", "")
        if "{{" in note or "{%" in note:
            line, _ = settings.doc.where((key, n, "note"))
            note = str(ctx.env.render_string(note, base_context(ctx, rules=rules),
                                             where=settings.source,
                                             line=line, field=f"{key}[{n}].note"))
        out.append({"n": n + 1, "step": step["step"], "note": note})
    return out



@dataclass(frozen=True)
class BoardSettings:
    source: str
    token_diameter: float
    token_cell: float
    token_slot: float
    ports: tuple[Port, ...]
    port_line: int | None
    turn: tuple[dict[str, str], ...]
    invasion: tuple[dict[str, str], ...]
    badge_diameter: float
    standee: tuple[float, float, float]   # width, panel height, foot height
    doc: Document = field(repr=False, compare=False, default=None)  # type: ignore[assignment]


def load_board_settings(pack: Any) -> BoardSettings:
    """``templates/boards/boards.yaml``, validated, lengths in points."""
    path = pack.resolve("boards.yaml", "templates/boards", field="board settings")
    shown = pack.display(path)
    doc = load_checked(path, shown, "boards", SCHEMAS)
    data = doc.data

    def pt(*keys: Any) -> float:
        value: Any = data
        for key in keys:
            value = value[key]
        line, _ = doc.where(tuple(keys))
        return to_points(value, where=shown, line=line, field=".".join(map(str, keys)))

    pw, ph = pt("ports", "size", "width"), pt("ports", "size", "height")
    ports = tuple(Port(n + 1, pt("ports", "at", n, "x"), pt("ports", "at", n, "y"), pw, ph,
                       entry["tab"]) for n, entry in enumerate(data["ports"]["at"]))
    line, _ = doc.where(("ports",))
    settings = BoardSettings(
        source=shown,
        token_diameter=pt("token", "diameter"),
        token_cell=pt("token", "cell"),
        token_slot=pt("token", "slot"),
        ports=ports,
        port_line=line,
        turn=tuple(dict(s) for s in data["turn"]),
        invasion=tuple(dict(s) for s in data["invasion"]),
        badge_diameter=pt("pieces", "badge", "diameter"),
        standee=(pt("pieces", "standee", "width"), pt("pieces", "standee", "panel"),
                 pt("pieces", "standee", "foot")),
        doc=doc,
    )
    if settings.token_diameter > settings.token_cell:
        raise InputError(doc.problem(("token", "diameter"), "a token must fit its cell"))
    return settings


def company_board(ds: Any) -> tuple[int, dict[str, Any]] | None:
    """The pack.yaml board entry of the company boards (``context: company-board``)."""
    for index, entry in enumerate(ds.config.get("boards") or []):
        if entry.get("context") == "company-board":
            return index, entry
    return None


def pieces_context(ctx: Context, item: Any = None) -> dict[str, Any]:
    """What the piece layouts and lengths use (``context: pieces``): ``token``,
    ``standee`` and ``badge`` sizes in mm, and for a company its ``company``
    colours (``palette``)."""
    settings = ctx.model.board_settings
    width, panel, foot = settings.standee
    context: dict[str, Any] = {
        "token": {"diameter": _r(settings.token_diameter), "cell": _r(settings.token_cell),
                  "slot": _r(settings.token_slot)},
        "standee": {"width": _r(width), "panel": _r(panel), "foot": _r(foot)},
        "badge": {"diameter": _r(settings.badge_diameter)},
    }
    if isinstance(item, dict) and item in ctx.dataset.items("companies.companies"):
        context["company"] = {**item, **palette(item["colour"])}
    return context


def board_context(ctx: Context, kind: str, company: Any = None) -> dict[str, Any]:
    """Everything a company (``kind`` "company") or alien board layout uses.  All but
    ``company`` is the same on every board: worked out once per context object (a
    tracked copy of a context, in the build cache, works it out again, so that what it
    reads is recorded) and shared by the boards (templates cannot change it)."""
    kept = ctx.__dict__.setdefault("_eti_board_contexts", {})
    base = kept.get(kind)
    if base is None:
        base = kept[kind] = _board_names(ctx, kind)
    context = dict(base)
    if company is not None:
        context["company"] = {"id": company["id"], "name": company["name"],
                              "logo": company["logo"], "motto": company["motto"],
                              **palette(company["colour"])}
    return context


def _board_names(ctx: Context, kind: str) -> dict[str, Any]:
    ds, db = ctx.dataset, ctx.model
    settings = db.board_settings
    rules = dict(ds.docs["game"].data["rules"])
    human, human_spaces = _traits(db.human_traits, db.alien_traits)
    alien, alien_spaces = _traits(db.alien_traits, db.human_traits)
    reach = bank_reach(db.max_difficulty, db.data_ports, db.rules.safe_value)
    tens, hundreds = bank_track(reach)
    context: dict[str, Any] = {
        "ports": _port_entries(settings.ports) if kind == "company" else [],
        "token": {"diameter": _r(settings.token_diameter), "slot": _r(settings.token_slot)},
        "rules": rules,
        "free_upgrades": db.free_upgrades,
        "data_ports": db.data_ports,
        "threats": [{"id": t.id, "name": t.name, "icon": t.icon} for t in db.threats],
        "traits": human if kind == "company" else alien,
        "spaces": human_spaces if kind == "company" else alien_spaces,
        "human_traits": human,
        "alien_traits": alien,
        "bank": {"tens": list(tens), "hundreds": list(hundreds), "max": reach,
                 "scoop_cap": db.rules.scoop_cap},
        "lengths": [{"name": g.name, "multiplier": g.multiplier} for g in db.lengths],
        "turn": _steps(ctx, settings.turn, rules, settings, "turn"),
        "invasion": _steps(ctx, settings.invasion, rules, settings, "invasion"),
    }
    return context
