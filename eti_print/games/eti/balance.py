"""A seeded Monte Carlo balance report on the research deck and project difficulties.

It answers two questions a designer asks of the data:

1. Is a standard submission worth its risk?  For each number of face-down
   cards, from 1 to the data ports, the expected standard total of a random
   queue against the safe value, and how often standard falls short of safe.
2. How long does a project take?  For each tech level and staffing value, the
   expected turns to claim a project under a simple policy (``POLICY``).

``simulate`` is pure: plain inputs, its own seeded ``random.Random``, no I/O,
so one seed always gives one report.  ``balance_report.render_report`` draws
the report as PDF bytes on the project's one PDF writer (``pdfwriter.new_canvas``), every
word set by ``eti_print.text`` in the pack's embedded fonts; the charts and
tables are drawn on the canvas.  Writing the bytes is the caller's job.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from reportlab.lib.colors import HexColor

from ...fonts import FontSet
from ...text import TextStyle, draw, fit_markup
from ...units import mm, paper_size
from .engine import Card, Rules, safe_score, score

if TYPE_CHECKING:  # pragma: no cover
    from reportlab.pdfgen.canvas import Canvas


#: How the simulated company plays when it tries to claim a project.
POLICY = (
    "A company plays alone: it is never scooped and has no immunities, swaps, peeks or "
    "bonus cards from its vaults. Each turn it either conducts research (its staffing value "
    "in cards, up to the data ports) or submits its findings. It submits SAFE as soon as its "
    "data bank plus the safe value of its cards reaches the difficulty (a sure claim); "
    "STANDARD as soon as its bank plus the expected standard total of that many cards does "
    "(a shortfall is banked and research starts again); and, with every data port full, "
    "whichever submission is worth more on average, banked. Both agendas take a turn. Each "
    "trial draws the difficulty from the level's projects and deals from a freshly "
    "shuffled deck."
)

#: A level that takes longer than this has data no company could play.
MAX_TURNS = 1000


@dataclass(frozen=True)
class QueueRow:
    """Standard against safe for one number of face-down cards."""

    cards: int
    safe: int
    standard: float          # expected standard total
    below_safe: float        # probability that standard < safe


@dataclass(frozen=True)
class ClaimRow:
    """Expected turns to claim a project of one tech level with one staffing value."""

    level: int
    staffing: int
    difficulty: float        # mean difficulty of the level's projects
    turns: float


@dataclass(frozen=True)
class BalanceReport:
    seed: int
    trials: int
    deck_size: int
    queues: tuple[QueueRow, ...]
    claims: tuple[ClaimRow, ...]

    @property
    def levels(self) -> tuple[int, ...]:
        return tuple(sorted({row.level for row in self.claims}))

    @property
    def staffing(self) -> tuple[int, ...]:
        return tuple(sorted({row.staffing for row in self.claims}))

    def turns(self, level: int, staffing: int) -> float:
        return next(r.turns for r in self.claims if (r.level, r.staffing) == (level, staffing))


# ---------------------------------------------------------------------------
# Simulation
# ---------------------------------------------------------------------------


def simulate(deck: Sequence[tuple[Card, int]], difficulties_by_level: Mapping[int, Sequence[int]],
             staffing_values: Sequence[int], seed: int, trials: int,
             rules: Rules = Rules()) -> BalanceReport:
    """Run ``trials`` random queues and claims per table cell, seeded by ``seed``.

    ``deck`` is the research deck as (card, copies); ``difficulties_by_level``
    maps tech level (1-5) to its projects' difficulties; ``staffing_values``
    are the cards a company may be dealt per turn (duplicates are ignored).
    """
    cards = [card for card, count in deck for _ in range(count)]
    staffing = sorted(set(staffing_values))
    _check_inputs(cards, difficulties_by_level, staffing, trials, rules)
    rng = random.Random(seed)
    queues = _queue_rows(cards, rng, trials, rules)
    expected = (0.0,) + tuple(row.standard for row in queues)
    claims = tuple(_claim_row(cards, rng, trials, level, difficulties, per_turn, expected, rules)
                   for level, difficulties in sorted(difficulties_by_level.items())
                   for per_turn in staffing)
    return BalanceReport(seed, trials, len(cards), queues, claims)


def _check_inputs(cards: list[Card], difficulties_by_level: Mapping[int, Sequence[int]],
                  staffing: list[int], trials: int, rules: Rules) -> None:
    if trials < 1:
        raise ValueError(f"trials must be at least 1 (got {trials})")
    if not cards:
        raise ValueError("the research deck is empty")
    if not staffing or staffing[0] < 1:
        raise ValueError("staffing values must be 1 or more")
    if rules.data_ports < 1:
        raise ValueError("there must be at least one data port")
    for level, difficulties in difficulties_by_level.items():
        if not difficulties:
            raise ValueError(f"tech level {level} has no projects")


def _queue_rows(cards: list[Card], rng: random.Random, trials: int,
                rules: Rules) -> tuple[QueueRow, ...]:
    """Each trial deals one full queue; its first n cards are the n-card queue."""
    ports = min(rules.data_ports, len(cards))
    totals = [0] * (ports + 1)
    below = [0] * (ports + 1)
    for _ in range(trials):
        queue = rng.sample(cards, ports)
        for n in range(1, ports + 1):
            total = score(queue[:n]).total
            totals[n] += total
            below[n] += total < safe_score(n, rules)
    return tuple(QueueRow(n, safe_score(n, rules), totals[n] / trials, below[n] / trials)
                 for n in range(1, ports + 1))


def _claim_row(cards: list[Card], rng: random.Random, trials: int, level: int,
               difficulties: Sequence[int], staffing: int, expected: Sequence[float],
               rules: Rules) -> ClaimRow:
    turns = sum(_turns_to_claim(cards, rng, rng.choice(difficulties), staffing, expected, rules)
                for _ in range(trials))
    return ClaimRow(level, staffing, sum(difficulties) / len(difficulties), turns / trials)


def _turns_to_claim(cards: list[Card], rng: random.Random, difficulty: int, staffing: int,
                    expected: Sequence[float], rules: Rules) -> int:
    """Turns one company takes to claim a project of ``difficulty`` (see ``POLICY``)."""
    ports = min(rules.data_ports, len(cards))
    bank, dealt = 0, 0
    queue: list[Card] = []
    deck: list[Card] = []
    for turn in range(1, MAX_TURNS + 1):
        safe = bank + safe_score(len(queue), rules)
        if queue and safe >= difficulty:
            return turn
        if queue and (bank + expected[len(queue)] >= difficulty or len(queue) == ports):
            standard = expected[len(queue)] >= safe_score(len(queue), rules)
            bank += score(queue).total if standard else safe_score(len(queue), rules)
            if bank >= difficulty:
                return turn
            queue = []
            continue
        if not queue:
            deck = rng.sample(cards, len(cards))    # discards are shuffled back in
            dealt = 0
        take = min(staffing, ports - len(queue))
        queue += deck[dealt:dealt + take]
        dealt += take
    raise ValueError(f"a difficulty-{difficulty} project takes more than {MAX_TURNS} turns "
                     f"with {staffing} cards a turn")


# ---------------------------------------------------------------------------
# The PDF
# ---------------------------------------------------------------------------

ROMAN = ("I", "II", "III", "IV", "V")
INK = HexColor("#1d2733")
MUTED = HexColor("#5b6773")
RULE = HexColor("#c9d1d9")
BAND = HexColor("#eef2f6")
SERIES = [HexColor(c) for c in
          ("#1f6fb2", "#d9822b", "#2e9e5b", "#b8336a", "#6a4fb3", "#8c6d1f", "#2b8a99")]

PAGE = paper_size("a4")
MARGIN_X, MARGIN_TOP, MARGIN_BOTTOM = mm(18), mm(16), mm(16)
FOOTER_Y = mm(9)
#: Room given to a block of text before it is measured; far more than any block needs.
_TALL = 2000.0


class _Styles:
    """Text styles in the pack's fonts (never a standard PDF font)."""

    def __init__(self, fonts: FontSet):
        body, heading = fonts["body"], fonts["title"]
        self.title = TextStyle(heading, 24, leading=28 / 24, color=INK)
        self.subtitle = TextStyle(body, 10, leading=1.4, color=MUTED)
        self.heading = TextStyle(heading, 15, leading=19 / 15, color=INK)
        self.body = TextStyle(body, 9.5, leading=13.5 / 9.5, color=INK)
        # one-line labels shrink to fit rather than wrap (many columns, long names)
        self.cell = TextStyle(body, 8.5, min_size=5, leading=1.2, color=INK, align="center",
                              valign="middle", wrap=False)
        self.axis = TextStyle(body, 7.5, min_size=5, leading=1.2, color=MUTED, valign="middle",
                              wrap=False)
        self.legend = TextStyle(body, 8, min_size=5, leading=1.2, color=INK, valign="middle",
                                wrap=False)
        self.footer = TextStyle(body, 7.5, min_size=5, leading=1.2, color=MUTED, wrap=False)


class _Page:
    """A cursor down the page: blocks are drawn from the top margin down."""

    def __init__(self, canvas: Canvas, styles: _Styles, report: BalanceReport):
        self.canvas, self.styles, self.report = canvas, styles, report
        self.number = 1
        self.left = MARGIN_X
        self.width = PAGE[0] - 2 * MARGIN_X
        self.y = PAGE[1] - MARGIN_TOP

    def text(self, markup: str, style: TextStyle, space_after: float = 0.0,
             space_before: float = 0.0) -> None:
        """A block of text the width of the page, its top at the cursor."""
        self.y -= space_before
        fitted = fit_markup(markup, self.width, _TALL, style)
        used = _TALL - fitted.extent[0]
        self._need(used)
        draw(self.canvas, fitted, self.left, self.y - _TALL)
        self.y -= used + space_after

    def space(self, height: float) -> None:
        self.y -= height

    def room(self) -> float:
        """Height left above the bottom margin."""
        return self.y - MARGIN_BOTTOM

    def block(self, height: float) -> tuple[float, float, float, float]:
        """Room for a drawing of ``height`` below the cursor: (x, y, width, height)."""
        self._need(height)
        self.y -= height
        return self.left, self.y, self.width, height

    def _need(self, height: float) -> None:
        """Go on to a new page unless ``height`` fits below the cursor."""
        if height > self.room() and self.y < PAGE[1] - MARGIN_TOP:
            self.next()
        if height > self.room():
            raise ValueError("the balance report has a block taller than a page")

    def _footer(self) -> None:
        style = self.styles.footer
        gap = "\u00a0\u00a0|\u00a0\u00a0"         # kept apart: spaces in set text collapse
        text = (f"eti-print balance report{gap}seed {self.report.seed}{gap}"
                f"{self.report.trials:,} trials")
        _label(self.canvas, text, self.left, FOOTER_Y, self.width, style)
        _label(self.canvas, f"page {self.number}", self.left, FOOTER_Y, self.width,
               replace(style, align="right"))

    def next(self) -> None:
        self._footer()
        self.canvas.showPage()
        self.number += 1
        self.y = PAGE[1] - MARGIN_TOP

    def finish(self) -> None:
        self._footer()
        self.canvas.showPage()


def _label(canvas: Canvas, text: str, x: float, y: float, width: float, style: TextStyle,
           height: float | None = None) -> None:
    """One line of plain ``text`` in a box whose bottom-left is (x, y)."""
    height = style.size * style.leading if height is None else height
    draw(canvas, fit_markup(_escape(text), width, height, style), x, y)


def _queue_page(page: _Page, report: BalanceReport, title: str) -> None:
    styles = page.styles
    rows = report.queues
    page.text(_escape(title), styles.title, space_after=mm(2))
    page.text(f"Balance report: {report.deck_size} research cards, seed {report.seed}, "
              f"{report.trials:,} trials per figure", styles.subtitle, space_after=mm(5))
    edge = [r for r in rows if r.standard < r.safe]
    verdict = (f"Standard falls below safe on average from {edge[0].cards} cards on."
               if edge else "On average standard beats safe at every queue length.")
    safe_each = rows[0].safe // rows[0].cards if rows and rows[0].cards else 0
    page.text("Standard or safe?", styles.heading, space_before=mm(2), space_after=mm(2))
    page.text(f"A safe submission scores a sure {safe_each} points a card; a standard one "
              "flips the cards and lets threats and multipliers act. Each trial deals a random "
              "queue with no immunities and no swaps. " + verdict, styles.body,
              space_after=mm(3))
    _line_chart(page.canvas, page.block(mm(62)), styles,
                [("Expected standard", [(r.cards, r.standard) for r in rows]),
                 ("Safe", [(r.cards, float(r.safe)) for r in rows])],
                x_title="face-down cards", y_title="research points",
                x_labels={r.cards: str(r.cards) for r in rows})
    page.space(mm(5))
    table = [["Cards", "Safe", "Expected standard", "Standard / safe", "P(standard < safe)"]]
    table += [[str(r.cards), str(r.safe), f"{r.standard:.1f}", f"{r.standard / r.safe:.2f}",
               f"{r.below_safe:.0%}"] for r in rows]
    _table(page, table)


def _claim_page(page: _Page, report: BalanceReport) -> None:
    styles = page.styles
    levels, staffing = report.levels, report.staffing
    difficulty = {r.level: r.difficulty for r in report.claims}
    page.text("Turns to claim a project", styles.heading, space_before=mm(2), space_after=mm(2))
    page.text(_escape(POLICY), styles.body, space_after=mm(3))
    _line_chart(page.canvas, page.block(mm(70)), styles,
                [(f"{s} cards a turn", [(level, report.turns(level, s)) for level in levels])
                 for s in staffing],
                x_title="tech level", y_title="turns to claim",
                x_labels={level: _level(level) for level in levels})
    page.space(mm(5))
    table = [["Tech level", "Mean difficulty"] + [f"{s} cards" for s in staffing]]
    table += [[_level(level), f"{difficulty[level]:.0f}"]
              + [f"{report.turns(level, s):.1f}" for s in staffing] for level in levels]
    _table(page, table, "Expected turns, by staffing (cards dealt per turn)")


def _level(level: int) -> str:
    return ROMAN[level - 1] if 1 <= level <= len(ROMAN) else str(level)


#: Table cells: padding above, below and beside the text (points).
_CELL_PAD = 2.2


def _table(page: _Page, rows: list[list[str]], caption: str | None = None) -> None:
    """A ruled table the width of the page: a bold header, banded rows, centred cells.

    A table too long for the page goes on over the next ones, its header
    repeated; its ``caption`` is never left alone at the foot of a page.
    """
    style = page.styles.cell
    row_height = style.size * style.leading + 2 * _CELL_PAD
    header, body = rows[0], rows[1:]
    caption_height = (page.styles.body.size * page.styles.body.leading + mm(1)) if caption else 0
    if page.room() < caption_height + 2 * row_height:
        page.next()
    if caption:
        page.text(caption, page.styles.body, space_after=mm(1))
    done = 0
    while True:
        fit = max(1, int(page.room() // row_height) - 1)
        chunk = body[done:done + fit]
        _table_rows(page, [header] + chunk, row_height, done)
        done += len(chunk)
        if done >= len(body):
            return
        page.next()


def _table_rows(page: _Page, rows: list[list[str]], row_height: float, first: int) -> None:
    """Draw a header and rows below the cursor; ``first`` is the index of the first row
    in the whole table, so the bands carry on across pages."""
    canvas, style = page.canvas, page.styles.cell
    x, y, width, _ = page.block(row_height * len(rows))
    column = width / len(rows[0])
    top = y + row_height * len(rows)
    canvas.saveState()
    for i in range(1, len(rows)):
        if (first + i) % 2 == 0:
            canvas.setFillColor(BAND)
            canvas.rect(x, top - row_height * (i + 1), width, row_height, stroke=0, fill=1)
    for i, row in enumerate(rows):
        bottom = top - row_height * (i + 1)
        for j, cell in enumerate(row):
            markup = f"<b>{_escape(cell)}</b>" if i == 0 else _escape(cell)
            draw(canvas, fit_markup(markup, column - 2 * _CELL_PAD, row_height, style),
                 x + j * column + _CELL_PAD, bottom)
    canvas.setStrokeColor(INK)
    canvas.setLineWidth(0.8)
    canvas.line(x, top - row_height, x + width, top - row_height)
    canvas.setStrokeColor(RULE)
    canvas.setLineWidth(0.4)
    canvas.line(x, y, x + width, y)
    canvas.restoreState()


def _line_chart(canvas: Canvas, box: tuple[float, float, float, float], styles: _Styles,
                series: list[tuple[str, list[tuple[float, float]]]], *, x_title: str,
                y_title: str, x_labels: dict[int, str]) -> None:
    """A line chart with its legend on the right, drawn in ``box`` (x, y, width, height)."""
    x0, y0, width, height = box
    legend_width = mm(38)
    plot_x, plot_y = x0 + mm(14), y0 + mm(10)
    plot_w, plot_h = width - mm(14) - legend_width - mm(4), height - mm(10) - mm(8)
    xs = sorted(x_labels)
    x_min, x_max = xs[0] - 0.3, xs[-1] + 0.3
    top = max(y for _, points in series for _, y in points)
    step = _tick_step(top)
    y_max = _nice_ceiling(top)

    def px(value: float) -> float:
        return plot_x + (value - x_min) / (x_max - x_min) * plot_w

    def py(value: float) -> float:
        return plot_y + value / y_max * plot_h

    axis = styles.axis
    canvas.saveState()
    # the grid and the y axis labels
    canvas.setLineWidth(0.4)
    canvas.setStrokeColor(RULE)
    ticks = [k * step for k in range(int(y_max / step + 1e-9) + 1)]
    for value in ticks:
        if value:
            canvas.line(plot_x, py(value), plot_x + plot_w, py(value))
        _label(canvas, _number(value), plot_x - mm(14), py(value) - 5, mm(14) - 4,
               replace(axis, align="right"), 10)
    # the axes, with ticks at every x value
    canvas.setStrokeColor(MUTED)
    canvas.setLineWidth(0.6)
    canvas.line(plot_x, plot_y, plot_x + plot_w, plot_y)
    canvas.line(plot_x, plot_y, plot_x, plot_y + plot_h)
    for value in ticks:
        canvas.line(plot_x - 3, py(value), plot_x, py(value))
    every = max(1, math.ceil(len(xs) / 16))        # at most 16 labels, a tick for each value
    for k, value in enumerate(xs):
        canvas.line(px(value), plot_y, px(value), plot_y - 3)
        if k % every == 0:
            _label(canvas, x_labels[value], px(value) - 15, plot_y - 14, 30,
                   replace(axis, align="center"), 10)
    _label(canvas, x_title, plot_x, y0, plot_w, replace(axis, align="center"), 10)
    _label(canvas, y_title, x0, plot_y + plot_h + mm(3.2), plot_w, axis, 10)
    # the series, with a dot on every point
    for i, (_, points) in enumerate(series):
        colour = SERIES[i % len(SERIES)]
        canvas.setStrokeColor(colour)
        canvas.setFillColor(colour)
        canvas.setLineWidth(1.6)
        canvas.setLineJoin(1)
        canvas.setLineCap(1)
        path = canvas.beginPath()
        for k, (x, y) in enumerate(points):
            (path.lineTo if k else path.moveTo)(px(x), py(y))
        canvas.drawPath(path, stroke=1, fill=0)
        for x, y in points:
            canvas.circle(px(x), py(y), 1.9, stroke=0, fill=1)
    # the legend, top aligned with the plot
    legend_x = plot_x + plot_w + mm(6)
    for i, (name, _) in enumerate(series):
        row_y = plot_y + plot_h - 8 - i * 15
        canvas.setFillColor(SERIES[i % len(SERIES)])
        canvas.rect(legend_x, row_y + 1.5, 7, 7, stroke=0, fill=1)
        _label(canvas, name, legend_x + 12, row_y, legend_width - 14, styles.legend, 10)
    canvas.restoreState()


def _number(value: float) -> str:
    return f"{value:g}"


def _tick_step(value: float) -> float:
    """A round step (1, 2 or 5 x 10^k) that splits 0 to ``value`` into at most five parts."""
    steps = (base * 10.0 ** power for power in range(-1, 9) for base in (1, 2, 5))
    return next((step for step in steps if value / step <= 5), 10.0 ** 9)


def _nice_ceiling(value: float) -> float:
    """A round axis maximum a little above ``value``: the next step of 1, 2 or 5 x 10^k
    that splits the axis into at most eight parts."""
    steps = (base * 10.0 ** power for power in range(-1, 9) for base in (1, 2, 5))
    step = next((step for step in steps if value / step <= 8), 10.0 ** 9)
    return (math.floor(value / step) + 1) * step


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
