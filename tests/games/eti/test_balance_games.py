"""The balance report's whole-game pages: figures from simulated games, drawn and reproducible."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from eti_print.fonts import load_fonts
from eti_print.games.eti.balance import Rules, simulate
from eti_print.games.eti.balance_report import render_report
from eti_print.games.eti.engine import parse_card
from eti_print.games.eti.sim.analysis import GameStats, composition
from eti_print.games.eti.sim.data import SimData
from eti_print.games.eti.sim.runner import run
from eti_print.pack import Pack


@pytest.fixture(scope="module")
def stats(database) -> GameStats:
    data = SimData.of(database)
    configs = [(3, "short", a.id) for a in data.aliens] + \
              [(4, "standard", a.id) for a in data.aliens]
    return GameStats.of(data, run(data, configs, 3, 5, ["greedy", "lookahead"], workers=1), 5)


def test_the_figures_cover_every_alien_project_and_event(stats, database):
    assert stats.games == 24 and stats.per_config == 3
    assert stats.players == (3, 4) and stats.lengths == ("short", "standard")
    assert len(stats.rates) == 8 and all(r.games == 3 for r in stats.rates.values())
    assert [name for name, _, _ in stats.projects] == [p.name for p in database.projects]
    assert all(0 <= rate <= 1 for _, _, rate in stats.projects)
    # level I projects are claimed far more often than level V ones
    mean = {lv: sum(r for _, level, r in stats.projects if level == lv) / 8 for lv in (1, 5)}
    assert mean[1] > mean[5]
    assert {e.event for e in stats.events} == {e.id for e in database.events}
    # every human seat of every game played exactly one composition
    assert sum(r.games for _, r in stats.compositions) == 12 * 2 + 12 * 3


def test_a_composition_reads_as_a_player_says_it():
    assert composition(("staffing", "security", "staffing")) == "security + 2 staffing"
    assert composition(("analysis",) * 3) == "3 analysis"


def test_the_report_prints_the_whole_game_pages(stats):
    deck = [(parse_card(t), n) for t, n in [("10", 6), ("20", 6), ("x2", 2), ("spy", 2)]]
    report = simulate(deck, {1: [60], 2: [130]}, [3, 4], seed=7, trials=40, rules=Rules())
    fonts = load_fonts(Pack.open(None))
    pdf = render_report(report, fonts, "Test Game", stats)
    assert pdf == render_report(report, fonts, "Test Game", stats)
    reader = PdfReader(io.BytesIO(pdf))
    text = " ".join(page.extract_text() for page in reader.pages)
    for heading in ("The alien ladder, by whole games", "Which projects get claimed",
                    "Which research composition wins", "Each event's effect on the winner"):
        assert heading in text
    assert "Galactic Armada" in text and "3 players" in text and "level V" in text
    assert len(reader.pages) == 6
