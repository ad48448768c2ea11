"""The balance report's whole-game pages: aliens, projects, compositions and events.

Drawn from a ``sim.analysis.GameStats`` onto the balance report's pages
(``balance._Page``).  The charts are reportlab's own graphics
(``reportlab.graphics.shapes`` drawn by ``renderPDF``), lettered in the
pack's body font; the tables are the report's own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Circle, Drawing, Line, Rect, String

from ...units import mm
from .balance import INK, MUTED, ROMAN, RULE, SERIES, _escape, _Page, _table
from .sim.analysis import GameStats

_FONT_SIZE = 7.5


def game_pages(page: _Page, stats: GameStats) -> None:
    """Every whole-game page, starting on a new page."""
    page.next()
    _alien_page(page, stats)
    page.next()
    _project_page(page, stats)
    page.next()
    _composition_page(page, stats)
    page.next()
    _event_page(page, stats)


def _font(page: _Page) -> str:
    return page.styles.body.family.regular


def _alien_page(page: _Page, stats: GameStats) -> None:
    styles = page.styles
    page.text("The alien ladder, by whole games", styles.heading, space_after=mm(2))
    page.text(
        f"{stats.games:,} whole games simulated by the rulebook ({stats.per_config} per alien, "
        f"player count and length; seed {stats.seed}; the human seats cycle through the "
        "cautious, greedy and lookahead policies). Each bar is how often the alien wins, the "
        "whisker its 95 % interval. More UFOs must mean a higher bar in every group.",
        styles.body, space_after=mm(3))
    names = [name for _, name, _ in stats.aliens]
    for length in stats.lengths:
        page.text(f"<b>{_escape(length.capitalize())} games</b>", styles.body, space_after=mm(1))
        groups = [(f"{p} players", [stats.rates[(p, length, a)] for a, _, _ in stats.aliens])
                  for p in stats.players if (p, length, stats.aliens[0][0]) in stats.rates]
        x, y, w, h = page.block(mm(44))
        renderPDF.draw(_grouped_bars(groups, names, w, h, _font(page)), page.canvas, x, y)
        page.space(mm(3))
    rows = [["Players", "Length"] + [f"{n} ({u})" for _, n, u in stats.aliens] + ["Turns"]]
    for p in stats.players:
        for length in stats.lengths:
            if (p, length, stats.aliens[0][0]) not in stats.rates:
                continue
            cells = []
            for a, _, _ in stats.aliens:
                r = stats.rates[(p, length, a)]
                lo, hi = r.interval
                cells.append(f"{100 * r.rate:.0f} % ({100 * lo:.0f}-{100 * hi:.0f})")
            rows.append([str(p), length] + cells + [f"{stats.turns[(p, length)]:.1f}"])
    _table(page, rows, "Alien win rate (95 % interval) and mean game length in turns")


def _project_page(page: _Page, stats: GameStats) -> None:
    styles = page.styles
    never, always = stats.never_claimed(), stats.always_claimed()
    page.text("Which projects get claimed", styles.heading, space_after=mm(2))
    least = sorted(stats.projects, key=lambda p: (p[2], p[0]))[:5]
    page.text(
        "How often each project is claimed by a human before the invasion, over every "
        "simulated game; each dot is one project, by tech level. "
        + (f"Never claimed: {_escape(', '.join(never))}. " if never
           else "No project goes unclaimed in every game. ")
        + (f"Always claimed: {_escape(', '.join(always))}. " if always
           else "No project is claimed in every game. ")
        + "Least claimed: " + _escape(", ".join(f"{n} ({100 * r:.0f} %)" for n, _, r in least))
        + ".", styles.body, space_after=mm(3))
    x, y, w, h = page.block(mm(70))
    renderPDF.draw(_dots(stats.projects, w, h, _font(page)), page.canvas, x, y)


def _composition_page(page: _Page, stats: GameStats) -> None:
    styles = page.styles
    page.text("Which research composition wins", styles.heading, space_after=mm(2))
    page.text(
        "A company's research composition is the three free trait upgrades it makes at "
        "set-up. Each bar is how often a human company with that composition wins the game "
        "(alien seats left out), the whisker its 95 % interval; the number is how many "
        "companies played it.", styles.body, space_after=mm(3))
    rows = [(name, r.rate, *r.interval, str(r.games)) for name, r in stats.compositions]
    x, y, w, h = page.block(min(page.room(), mm(6) * len(rows) + mm(12)))
    top = math.ceil(max((hi for *_, hi, _ in rows), default=1.0) * 5) / 5
    renderPDF.draw(_hbars(rows, w, h, _font(page), 0.0, top or 1.0, percent=True),
                   page.canvas, x, y)


def _event_page(page: _Page, stats: GameStats) -> None:
    styles = page.styles
    page.text("Each event's effect on the winner's fame", styles.heading, space_after=mm(2))
    page.text(
        "How much more fame the winner has in games where the event was drawn than in games "
        "where it was not, each game measured against games of the same player count, "
        "length and number of turns (long games draw more events and end with more fame). "
        "Games the alien won are left out; the number is how many games drew the event.",
        styles.body, space_after=mm(3))
    events = sorted(stats.events, key=lambda e: (-e.effect, e.name))
    rows = [(e.name, e.effect, e.effect, e.effect, str(e.drawn)) for e in events]
    span = math.ceil(max((abs(e.effect) for e in events), default=1.0) / 4) * 4 or 4.0
    x, y, w, h = page.block(min(page.room(), mm(6) * len(rows) + mm(12)))
    renderPDF.draw(_hbars(rows, w, h, _font(page), -span, span, percent=False),
                   page.canvas, x, y)


# -- the drawings ---------------------------------------------------------


def _grouped_bars(groups: Sequence[tuple[str, Sequence[object]]], names: Sequence[str],
                  width: float, height: float, font: str) -> Drawing:
    d = Drawing(width, height)
    left, bottom, legend = mm(12), mm(7), mm(38)
    plot_w, plot_h = width - left - legend, height - bottom - mm(3)
    for tick in range(0, 101, 20):
        y = bottom + plot_h * tick / 100
        d.add(Line(left, y, left + plot_w, y, strokeColor=RULE, strokeWidth=0.4))
        d.add(String(left - 2, y - 2.5, f"{tick} %", fontName=font, fontSize=_FONT_SIZE,
                     fillColor=MUTED, textAnchor="end"))
    slot = plot_w / max(1, len(groups))
    bar = slot * 0.8 / max(1, len(names))
    for g, (label, rates) in enumerate(groups):
        x0 = left + g * slot + slot * 0.1
        for i, r in enumerate(rates):
            lo, hi = r.interval  # type: ignore[attr-defined]
            x = x0 + i * bar
            d.add(Rect(x, bottom, bar * 0.9, plot_h * r.rate,  # type: ignore[attr-defined]
                       fillColor=SERIES[i % len(SERIES)], strokeColor=None))
            mid = x + bar * 0.45
            d.add(Line(mid, bottom + plot_h * lo, mid, bottom + plot_h * hi, strokeColor=INK,
                       strokeWidth=0.7))
            for end in (lo, hi):
                d.add(Line(mid - bar * 0.2, bottom + plot_h * end, mid + bar * 0.2,
                           bottom + plot_h * end, strokeColor=INK, strokeWidth=0.7))
        d.add(String(left + g * slot + slot / 2, bottom - mm(4.5), label, fontName=font,
                     fontSize=_FONT_SIZE, fillColor=INK, textAnchor="middle"))
    d.add(Line(left, bottom, left + plot_w, bottom, strokeColor=INK, strokeWidth=0.8))
    for i, name in enumerate(names):
        y = bottom + plot_h - i * mm(5) - mm(3)
        d.add(Rect(width - legend + mm(3), y, mm(3), mm(3), fillColor=SERIES[i % len(SERIES)],
                   strokeColor=None))
        d.add(String(width - legend + mm(7.5), y + 0.5, name, fontName=font,
                     fontSize=_FONT_SIZE, fillColor=INK))
    return d


def _dots(projects: Sequence[tuple[str, int, float]], width: float, height: float,
          font: str) -> Drawing:
    d = Drawing(width, height)
    left, bottom = mm(14), mm(8)
    plot_w, plot_h = width - left - mm(4), height - bottom - mm(3)
    levels = sorted({lv for _, lv, _ in projects})
    for tick in range(0, 101, 20):
        y = bottom + plot_h * tick / 100
        d.add(Line(left, y, left + plot_w, y, strokeColor=RULE, strokeWidth=0.4))
        d.add(String(left - 2, y - 2.5, f"{tick} %", fontName=font, fontSize=_FONT_SIZE,
                     fillColor=MUTED, textAnchor="end"))
    slot = plot_w / max(1, len(levels))
    for i, level in enumerate(levels):
        cx = left + slot * (i + 0.5)
        d.add(String(cx, bottom - mm(5), f"level {ROMAN[level - 1]}", fontName=font,
                     fontSize=_FONT_SIZE, fillColor=INK, textAnchor="middle"))
        here = [p for p in projects if p[1] == level]
        for j, (_, _, rate) in enumerate(sorted(here, key=lambda p: p[0])):
            x = cx + (j - (len(here) - 1) / 2) * min(mm(4), slot / max(1, len(here)))
            d.add(Circle(x, bottom + plot_h * rate, 2.2, fillColor=SERIES[i % len(SERIES)],
                         strokeColor=INK, strokeWidth=0.3))
    d.add(Line(left, bottom, left + plot_w, bottom, strokeColor=INK, strokeWidth=0.8))
    return d


def _hbars(rows: Sequence[tuple[str, float, float, float, str]], width: float, height: float,
           font: str, low: float, high: float, *, percent: bool) -> Drawing:
    """Horizontal bars, one row each: (label, value, interval low, high, note)."""
    d = Drawing(width, height)
    label_w, note_w, top_pad, bottom = mm(48), mm(14), mm(2), mm(8)
    plot_x, plot_w = label_w, width - label_w - note_w
    row_h = (height - top_pad - bottom) / max(1, len(rows))
    span = (high - low) or 1.0

    def at(value: float) -> float:
        return plot_x + plot_w * (value - low) / span

    for k in range(5):
        value = low + span * k / 4
        d.add(Line(at(value), bottom, at(value), height - top_pad, strokeColor=RULE,
                   strokeWidth=0.4))
        text = f"{100 * value:.0f} %" if percent else f"{value:+.0f}"
        d.add(String(at(value), bottom - mm(4), text, fontName=font, fontSize=_FONT_SIZE,
                     fillColor=MUTED, textAnchor="middle"))
    zero = at(max(low, 0.0))
    for i, (label, value, lo, hi, note) in enumerate(rows):
        y = height - top_pad - (i + 1) * row_h
        d.add(String(label_w - 3, y + row_h * 0.3, label, fontName=font, fontSize=_FONT_SIZE,
                     fillColor=INK, textAnchor="end"))
        x1, x2 = sorted((zero, at(value)))
        d.add(Rect(x1, y + row_h * 0.2, max(x2 - x1, 0.5), row_h * 0.6,
                   fillColor=SERIES[0] if value >= 0 else SERIES[1], strokeColor=None))
        if hi > lo:
            mid = y + row_h * 0.5
            d.add(Line(at(lo), mid, at(hi), mid, strokeColor=INK, strokeWidth=0.7))
        d.add(String(width - note_w + 3, y + row_h * 0.3, note, fontName=font,
                     fontSize=_FONT_SIZE, fillColor=MUTED))
    d.add(Line(zero, bottom, zero, height - top_pad, strokeColor=INK, strokeWidth=0.8))
    return d
