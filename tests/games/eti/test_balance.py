"""The Monte Carlo balance report: deterministic, sane, and drawn with embedded fonts."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader
from reportlab.pdfbase import pdfmetrics

from eti_print.fonts import load_fonts
from eti_print.games.eti.balance import MAX_TURNS, BalanceReport, simulate
from eti_print.games.eti.balance_report import render_report
from eti_print.games.eti.engine import Card, Rules, parse_card
from eti_print.pack import Pack

from pdfcheck import NO_QPDF, embedded_fonts, qpdf_check

# A small deck with every kind of card, so every rule is exercised.
DECK = [(parse_card(token), count) for token, count in
        [("10", 6), ("20", 6), ("30", 4), ("50", 2), ("x0", 2), ("x2", 2), ("x3", 1),
         ("spy", 2), ("arson", 1)]]
DIFFICULTIES = {1: [60, 80], 2: [130], 3: [200, 220]}
STAFFING = [3, 4, 4, 6]


@pytest.fixture(scope="module")
def report() -> BalanceReport:
    return simulate(DECK, DIFFICULTIES, STAFFING, seed=7, trials=150, rules=Rules())


def test_same_seed_same_report(report):
    assert simulate(DECK, DIFFICULTIES, STAFFING, seed=7, trials=150, rules=Rules()) == report
    assert simulate(DECK, DIFFICULTIES, STAFFING, seed=8, trials=150, rules=Rules()) != report


def test_queue_rows_cover_every_data_port(report):
    assert [row.cards for row in report.queues] == list(range(1, 15))
    assert all(row.safe == 10 * row.cards for row in report.queues)
    assert all(0 <= row.below_safe <= 1 for row in report.queues)
    assert report.deck_size == 26


def test_claim_rows_cover_every_level_and_staffing_value(report):
    assert report.levels == (1, 2, 3)
    assert report.staffing == (3, 4, 6)
    assert len(report.claims) == 9
    for level in report.levels:
        turns = [report.turns(level, s) for s in report.staffing]
        assert all(t >= 2 for t in turns)            # at least one research and one submission
    assert report.turns(3, 3) > report.turns(1, 3)


def test_a_deck_of_tens_scores_exactly_safe():
    result = simulate([(Card("number", 10), 30)], {1: [60]}, [3], seed=1, trials=5, rules=Rules())
    assert all(row.standard == row.safe and row.below_safe == 0 for row in result.queues)
    assert result.turns(1, 3) == 3                   # research, research, submit 60


def test_full_ports_force_a_submission_that_is_banked():
    # 7 + 7 cards fill the ports at 140 < 200: submit and bank 140, research 7 more
    # (210), submit: five turns.
    result = simulate([(Card("number", 10), 30)], {5: [200]}, [7], seed=1, trials=3,
                      rules=Rules())
    assert result.turns(5, 7) == 5


def test_unwinnable_data_is_reported_not_looped_forever():
    with pytest.raises(ValueError, match=f"more than {MAX_TURNS} turns"):
        simulate([(Card("multiplier", 0), 20)], {1: [50]}, [3], seed=1, trials=1,
                 rules=Rules(safe_value=0))


@pytest.mark.parametrize("deck, difficulties, staffing, trials, message", [
    (DECK, DIFFICULTIES, STAFFING, 0, "trials"),
    ([], DIFFICULTIES, STAFFING, 10, "empty"),
    (DECK, DIFFICULTIES, [0, 3], 10, "staffing"),
    (DECK, {1: []}, STAFFING, 10, "no projects"),
])
def test_bad_inputs(deck, difficulties, staffing, trials, message):
    with pytest.raises(ValueError, match=message):
        simulate(deck, difficulties, staffing, seed=1, trials=trials, rules=Rules())


@pytest.fixture(scope="module")
def fonts():
    return load_fonts(Pack.open(None))


def test_pdf_has_two_pages_embedded_fonts_and_is_reproducible(report, fonts):
    pdf = render_report(report, fonts, "Test Game")
    assert pdf == render_report(report, fonts, "Test Game")
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == 2
    text = reader.pages[0].extract_text()
    assert "Test Game" in text and "Standard or safe?" in text
    assert "Turns to claim a project" in reader.pages[1].extract_text()
    # the pack's fonts, every one embedded (the body, its bold for table headers, the title)
    used = embedded_fonts(pdf)
    for family, face in (("body", "regular"), ("body", "bold"), ("title", "regular")):
        name = pdfmetrics.getFont(getattr(fonts[family], face)).face.name
        name = name.decode() if isinstance(name, bytes) else name
        assert any(font.endswith(name) for font in used), (name, used)
    info = reader.metadata
    assert info.title == "Test Game: balance report"
    assert info.subject == "Monte Carlo balance report"
    assert info.author == "eti-print" and info.creator == "eti-print"


def test_pdf_prints_every_figure_of_the_report(report, fonts):
    reader = PdfReader(io.BytesIO(render_report(report, fonts, "Test Game")))
    first, second = (page.extract_text() for page in reader.pages)
    assert f"seed {report.seed}" in first and f"{report.trials:,} trials per figure" in first
    assert "P(standard < safe)" in first                          # escaped, then set
    for row in report.queues:
        assert f"{row.standard:.1f}" in first and f"{row.below_safe:.0%}" in first
    for level in report.levels:
        for staffing in report.staffing:
            assert f"{report.turns(level, staffing):.1f}" in second
    assert "Expected turns, by staffing" in second
    for page, text in enumerate((first, second), 1):
        assert f"page {page}" in text and f"seed {report.seed}" in text    # the footer


def test_a_long_report_goes_on_over_more_pages(fonts):
    deck = [(card, 2 * count) for card, count in DECK]
    long = simulate(deck, DIFFICULTIES, [3, 4, 5, 6, 7, 8, 9, 10, 11], seed=3, trials=5,
                    rules=Rules(data_ports=40))
    pdf = render_report(long, fonts, "A & <B>")
    reader = PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) == 3
    text = "".join(page.extract_text() for page in reader.pages)
    assert "A & <B>" in text
    assert text.count("P(standard < safe)") == 2                   # the header, repeated
    assert all(f"{row.standard:.1f}" in text for row in long.queues)


@pytest.mark.skipif(NO_QPDF, reason="qpdf is not installed")
def test_qpdf_check(report, fonts, tmp_path):
    qpdf_check(render_report(report, fonts, "Test Game"), tmp_path)
