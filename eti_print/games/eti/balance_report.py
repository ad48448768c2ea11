"""The balance report's PDF: the research queue and claim pages of ``balance``,
then, given whole-game statistics, the pages of ``balance_games``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...fonts import FontSet
from ...pdfwriter import DocInfo, new_canvas
from .balance import PAGE, BalanceReport, _claim_page, _Page, _queue_page, _Styles
from .balance_games import game_pages

if TYPE_CHECKING:  # pragma: no cover
    from .sim.analysis import GameStats


def render_report(report: BalanceReport, fonts: FontSet, title: str,
                  games: GameStats | None = None) -> bytes:
    """The report as an A4 PDF (two pages, more for very long tables), byte-identical
    for the same report.

    Drawn on the one PDF writer's canvas (``pdfwriter.new_canvas``); every
    word is set by ``eti_print.text`` in the pack's fonts.
    """
    canvas = new_canvas(PAGE, fonts["body"].regular,
                        DocInfo(f"{title}: balance report", subject="Monte Carlo balance report"))
    page = _Page(canvas, _Styles(fonts), report)
    _queue_page(page, report, title)
    page.next()
    _claim_page(page, report)
    if games is not None:
        game_pages(page, games)
    page.finish()
    return canvas.getpdfdata()
