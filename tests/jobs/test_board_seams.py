"""Board seams: the covering sheet's bleed, the blank edge of the glue strip, and
seams kept off what a player reads or puts pieces on."""

from __future__ import annotations

from dataclasses import replace

import pytest

from eti_print.imposition import Rect
from eti_print.imposition_tiling import tile
from eti_print.jobs import boards as jobs_boards
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked
from eti_print.render.tiles import COVER_BLEED, GLUE_CLEAR, drawn_rect, glue_strips, hatched_part
from eti_print.units import PAPER, mm


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_mad_scientists_seams_cross_no_space_or_text(paper: str) -> None:
    ctx = load_checked("mad-scientists", PrintOptions(paper=paper))
    boards = jobs_boards.resolve(ctx)
    assert boards and all(b.guarded for b in boards)
    assert any(jobs_boards.board_tiling(b, ctx.options.page).tiled for b in boards)
    assert jobs_boards.seam_problems(ctx, boards) == []


def test_a_seam_through_a_box_is_a_located_problem_naming_board_and_box() -> None:
    ctx = load_checked("mad-scientists", PrintOptions())
    board = jobs_boards.resolve(ctx)[0]
    w, h = board.spec.width, board.spec.height
    banner = replace(board, guarded=(("title", Rect(0, 0, w, h)),))   # nowhere to go
    (problem,) = {str(p): p for p in jobs_boards.seam_problems(ctx, [banner])}.values()
    assert problem.path == "pack.yaml" and problem.line and problem.field.startswith("boards[")
    assert problem.message.startswith(f"board {board.id!r}: on A4 the seam ")
    assert problem.message.endswith(" crosses title")


def test_the_covering_sheet_bleeds_past_its_cut_and_the_strip_is_blank_by_the_line() -> None:
    tiling = tile(mm(510), mm(370), *PAPER["a4"], mm(8), mm(10))
    left, right, below = tiling.tiles[0], tiling.tiles[1], tiling.tiles[2]
    d = drawn_rect(tiling, left, mm(3))
    assert d.right - left.placed.right == pytest.approx(COVER_BLEED)   # covers its neighbour
    assert left.placed.y - d.y == pytest.approx(COVER_BLEED)
    assert drawn_rect(tiling, right, mm(3)).x == pytest.approx(right.placed.x)  # slides under
    for t in (right, below):
        for side, strip, _ in glue_strips(tiling, t):
            hatched = hatched_part(side, strip)
            if side == "left":      # the line is the strip's inner edge
                assert strip.right - hatched.right == pytest.approx(GLUE_CLEAR)
            else:
                assert hatched.y - strip.y == pytest.approx(GLUE_CLEAR)
            assert GLUE_CLEAR >= mm(2) and COVER_BLEED >= mm(2)
