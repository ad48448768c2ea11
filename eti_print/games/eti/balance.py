"""A seeded Monte Carlo balance report on the research deck and project difficulties.

It answers two questions a designer asks of the data:

1. Is a standard submission worth its risk?  For each number of face-down
   cards, from 1 to the data ports, the expected standard total of a random
   queue against the safe value, and how often standard falls short of safe.
2. How long does a project take?  For each tech level and staffing value, the
   expected turns to claim a project under a simple policy (``POLICY``).

``simulate`` is pure: plain inputs, its own seeded ``random.Random``, no I/O,
so one seed always gives one report.  ``render_report`` draws the report as
PDF bytes with the pack's embedded fonts; writing them is the caller's job.
"""

from __future__ import annotations

import io
import math
import random
from dataclasses import dataclass
from typing import Mapping, Sequence

from reportlab.graphics.charts.legends import Legend
from reportlab.graphics.charts.lineplots import LinePlot
from reportlab.graphics.shapes import Drawing, String
from reportlab.graphics.widgets.markers import makeMarker
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    KeepTogether, PageBreak, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle,
)

from .engine import Card, Rules, safe_score, score
from ...fonts import FontSet

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
INK = colors.HexColor("#1d2733")
MUTED = colors.HexColor("#5b6773")
RULE = colors.HexColor("#c9d1d9")
BAND = colors.HexColor("#eef2f6")
SERIES = [colors.HexColor(c) for c in
          ("#1f6fb2", "#d9822b", "#2e9e5b", "#b8336a", "#6a4fb3", "#8c6d1f", "#2b8a99")]


def render_report(report: BalanceReport, fonts: FontSet, title: str) -> bytes:
    """The report as a two-page A4 PDF, byte-identical for the same report."""
    styles = _Styles(fonts)
    buffer = io.BytesIO()
    doc = SimpleDocTemplate(buffer, pagesize=A4, invariant=1, pageCompression=1,
                            initialFontName=fonts["body"].regular,
                            leftMargin=18 * mm, rightMargin=18 * mm,
                            topMargin=16 * mm, bottomMargin=16 * mm,
                            title=f"{title}: balance report", author="eti-print",
                            creator="eti-print", subject="Monte Carlo balance report")
    story = (_header(report, styles, title) + _queue_section(report, styles, doc.width)
             + [PageBreak()] + _claim_section(report, styles, doc.width))
    doc.build(story, canvasmaker=Canvas,
              onFirstPage=lambda c, d: _footer(c, d, fonts, report),
              onLaterPages=lambda c, d: _footer(c, d, fonts, report))
    return buffer.getvalue()


class _Styles:
    """Paragraph styles in the pack's fonts (never a standard PDF font)."""

    def __init__(self, fonts: FontSet):
        self.body_font = fonts["body"].regular
        self.bold_font = fonts["body"].bold
        self.title = ParagraphStyle("title", fontName=fonts["title"].regular, fontSize=24,
                                    leading=28, textColor=INK, spaceAfter=2 * mm)
        self.subtitle = ParagraphStyle("subtitle", fontName=self.body_font, fontSize=10,
                                       leading=14, textColor=MUTED, spaceAfter=5 * mm)
        self.heading = ParagraphStyle("heading", fontName=fonts["title"].regular, fontSize=15,
                                      leading=19, textColor=INK, spaceBefore=2 * mm,
                                      spaceAfter=2 * mm)
        self.body = ParagraphStyle("body", fontName=self.body_font, fontSize=9.5, leading=13.5,
                                   textColor=INK, spaceAfter=3 * mm)


def _header(report: BalanceReport, styles: _Styles, title: str) -> list:
    return [Paragraph(_escape(title), styles.title),
            Paragraph(f"Balance report: {report.deck_size} research cards, seed {report.seed}, "
                      f"{report.trials:,} trials per figure", styles.subtitle)]


def _queue_section(report: BalanceReport, styles: _Styles, width: float) -> list:
    rows = report.queues
    edge = [r for r in rows if r.standard < r.safe]
    verdict = (f"Standard falls below safe on average from {edge[0].cards} cards on."
               if edge else "On average standard beats safe at every queue length.")
    text = ("A safe submission scores a sure 10 points a card; a standard one flips the "
            "cards and lets threats and multipliers act. Each trial deals a random queue "
            "with no immunities and no swaps. " + verdict)
    table = [["Cards", "Safe", "Expected standard", "Standard / safe", "P(standard < safe)"]]
    table += [[str(r.cards), str(r.safe), f"{r.standard:.1f}", f"{r.standard / r.safe:.2f}",
               f"{r.below_safe:.0%}"] for r in rows]
    chart = _line_chart(
        width, 62 * mm, styles,
        [("Expected standard", [(r.cards, r.standard) for r in rows]),
         ("Safe", [(r.cards, float(r.safe)) for r in rows])],
        x_title="face-down cards", y_title="research points",
        x_labels={r.cards: str(r.cards) for r in rows})
    return [Paragraph("Standard or safe?", styles.heading), Paragraph(text, styles.body),
            chart, Spacer(1, 5 * mm), _table(table, styles, width)]


def _claim_section(report: BalanceReport, styles: _Styles, width: float) -> list:
    levels, staffing = report.levels, report.staffing
    difficulty = {r.level: r.difficulty for r in report.claims}
    table = [["Tech level", "Mean difficulty"] + [f"{s} cards" for s in staffing]]
    table += [[_level(level), f"{difficulty[level]:.0f}"]
              + [f"{report.turns(level, s):.1f}" for s in staffing] for level in levels]
    chart = _line_chart(
        width, 70 * mm, styles,
        [(f"{s} cards a turn", [(level, report.turns(level, s)) for level in levels])
         for s in staffing],
        x_title="tech level", y_title="turns to claim",
        x_labels={level: _level(level) for level in levels})
    return [Paragraph("Turns to claim a project", styles.heading),
            Paragraph(_escape(POLICY), styles.body), chart, Spacer(1, 5 * mm),
            KeepTogether([Paragraph("Expected turns, by staffing (cards dealt per turn)",
                                    styles.body), _table(table, styles, width)])]


def _level(level: int) -> str:
    return ROMAN[level - 1] if 1 <= level <= len(ROMAN) else str(level)


def _table(rows: list[list[str]], styles: _Styles, width: float) -> Table:
    table = Table(rows, colWidths=[width / len(rows[0])] * len(rows[0]), repeatRows=1)
    table.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), styles.body_font, 8.5),
        ("FONT", (0, 0), (-1, 0), styles.bold_font, 8.5),
        ("TEXTCOLOR", (0, 0), (-1, -1), INK),
        ("ALIGN", (0, 0), (-1, -1), "CENTER"),
        ("LINEBELOW", (0, 0), (-1, 0), 0.8, INK),
        ("LINEBELOW", (0, -1), (-1, -1), 0.4, RULE),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, BAND]),
        ("TOPPADDING", (0, 0), (-1, -1), 2.2),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2.2),
    ]))
    return table


def _line_chart(width: float, height: float, styles: _Styles,
                series: list[tuple[str, list[tuple[float, float]]]], *, x_title: str,
                y_title: str, x_labels: dict[int, str]) -> Drawing:
    """A line chart with a legend on the right; every label in the pack's fonts."""
    drawing = Drawing(width, height)
    drawing.initialFontName = styles.body_font      # else the renderer selects Helvetica
    legend_width = 38 * mm
    plot = LinePlot()
    plot.x, plot.y = 14 * mm, 10 * mm
    plot.width, plot.height = width - plot.x - legend_width - 4 * mm, height - plot.y - 8 * mm
    plot.data = [points for _, points in series]
    plot.joinedLines = 1
    for i in range(len(series)):
        line = plot.lines[i]
        line.strokeColor = SERIES[i % len(SERIES)]
        line.strokeWidth = 1.6
        line.symbol = makeMarker("FilledCircle", size=3.2, fillColor=SERIES[i % len(SERIES)])
    xs = sorted(x_labels)
    plot.xValueAxis.valueMin, plot.xValueAxis.valueMax = xs[0] - 0.3, xs[-1] + 0.3
    plot.xValueAxis.valueSteps = xs
    plot.xValueAxis.labelTextFormat = lambda value: x_labels.get(round(value), "")
    top = max(y for _, points in series for _, y in points)
    plot.yValueAxis.valueMin, plot.yValueAxis.valueMax = 0, _nice_ceiling(top)
    plot.yValueAxis.visibleGrid = 1
    plot.yValueAxis.gridStrokeColor = RULE
    plot.yValueAxis.gridStrokeWidth = 0.4
    for axis in (plot.xValueAxis, plot.yValueAxis):
        axis.labels.fontName = styles.body_font
        axis.labels.fontSize = 7.5
        axis.labels.fillColor = MUTED
        axis.strokeColor = MUTED
    drawing.add(plot)
    drawing.add(String(plot.x + plot.width / 2, 0, x_title, fontName=styles.body_font,
                       fontSize=7.5, fillColor=MUTED, textAnchor="middle"))
    drawing.add(String(0, plot.y + plot.height + 4.5 * mm, y_title, fontName=styles.body_font,
                       fontSize=7.5, fillColor=MUTED))
    legend = Legend()
    legend.x, legend.y = plot.x + plot.width + 6 * mm, plot.y + plot.height
    legend.fontName, legend.fontSize = styles.body_font, 8
    legend.alignment = "right"
    legend.dx = legend.dy = 7
    legend.strokeColor = None
    legend.columnMaximum = len(series)
    legend.colorNamePairs = [(SERIES[i % len(SERIES)], name) for i, (name, _) in enumerate(series)]
    drawing.add(legend)
    return drawing


def _nice_ceiling(value: float) -> float:
    """A round axis maximum a little above ``value``: the next step of 1, 2 or 5 x 10^k
    that splits the axis into at most eight parts."""
    steps = (base * 10.0 ** power for power in range(-1, 9) for base in (1, 2, 5))
    step = next((step for step in steps if value / step <= 8), 10.0 ** 9)
    return (math.floor(value / step) + 1) * step


def _footer(canvas: Canvas, doc: SimpleDocTemplate, fonts: FontSet,
            report: BalanceReport) -> None:
    canvas.saveState()
    canvas.setFont(fonts["body"].regular, 7.5)
    canvas.setFillColor(MUTED)
    canvas.drawString(doc.leftMargin, 9 * mm,
                      f"eti-print balance report  |  seed {report.seed}  |  "
                      f"{report.trials:,} trials")
    canvas.drawRightString(doc.leftMargin + doc.width, 9 * mm, f"page {doc.page}")
    canvas.restoreState()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
