"""Board seams: the covering sheet's bleed, the blank edge of the glue strip, and
seams kept off what a player reads or puts pieces on."""

from __future__ import annotations

from dataclasses import replace

import pytest

from eti_print.cli import main
from eti_print.imposition import Rect
from eti_print.imposition_tiling import seams, tile
from eti_print.jobs import board_seams
from eti_print.jobs.boards import guarded_tiling
from eti_print.options import PrintOptions
from eti_print.pipeline import check, load
from eti_print.render.tiles import COVER_BLEED, GLUE_CLEAR, drawn_rect, glue_strips, hatched_part
from eti_print.units import PAPER, mm, to_mm

from conftest import copy_pack, edit

PACKS = [None, "sci-tech", "mad-scientists"]
PAPERS = ["a4", "letter"]


@pytest.mark.parametrize("paper", PAPERS)
@pytest.mark.parametrize("pack", PACKS)
def test_no_seam_of_any_shipped_board_crosses_a_space_or_a_text(pack, paper) -> None:
    ctx = load(pack, PrintOptions(paper=paper))
    found = board_seams.boards(ctx)
    assert board_seams.problems(ctx, found) == []
    assert board_seams.check(ctx) == []
    tiled = [b for b in found
             if guarded_tiling(b.width, b.height, b.margin, b.overlap, b.boxes,
                               ctx.options.page).tiled]
    if ctx.dataset.config.get("boards"):      # every tiled board has boxes to keep off
        assert tiled and all(b.boxes for b in tiled)


@pytest.mark.parametrize("paper", PAPERS)
def test_the_seams_run_down_the_corridors_the_layouts_leave(paper) -> None:
    """E.T.I.'s company board: one seam down the middle (x 260 mm), two across, under
    the top row's tabs and over the bottom row's; the alien board's seam at x 185 mm,
    between the trait names and their tracks."""
    ctx = load(None, PrintOptions(paper=paper))
    at = {}
    for b in board_seams.boards(ctx):
        xs, ys = seams(guarded_tiling(b.width, b.height, b.margin, b.overlap, b.boxes,
                                      ctx.options.page))
        at[b.id] = ([round(to_mm(x), 1) for x in xs],
                    sorted(round(to_mm(b.height - y), 1) for y in ys))
    assert at["company-atlas-dynamics"] == ([260.0], [115.0, 295.5])
    assert at["alien"] == ([185.0], [])


def test_a_port_moved_under_a_seam_fails_validate_naming_board_port_file_and_line(
        tmp_path, capsys) -> None:
    pack = copy_pack(tmp_path / "pack")
    # port 3 slid right, into the corridor the middle seam runs down
    edit(pack / "templates/boards/boards.yaml", "- {x: 188mm, y: 10mm, tab: below}",
         "- {x: 200mm, y: 10mm, tab: below}")
    assert main(["validate", str(pack)]) == 1
    err = capsys.readouterr().err
    line = next(n for n, text in enumerate(
        (pack / "pack.yaml").read_text(encoding="utf-8").splitlines(), start=1)
        if text.strip() == "- id: company")
    # one line for the six boards the moved port is on, naming each
    (port,) = [text for text in err.splitlines() if "crosses port[2] " in text]
    assert port.startswith(f"pack.yaml:{line}: boards[0]: on A4 the seam 260 mm from the left "
                           "crosses port[2] in 6 boards: board 'company-atlas-dynamics', ")
    assert "board 'company-fulcrum-laboratories'" in port
    assert "Traceback" not in err


def test_the_check_stage_refuses_it_before_anything_is_resolved(tmp_path) -> None:
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "templates/boards/boards.yaml", "- {x: 188mm, y: 10mm, tab: below}",
         "- {x: 200mm, y: 10mm, tab: below}")
    ctx = load(str(pack), PrintOptions(paper="letter"))
    found = board_seams.check(ctx)
    assert found and all(p.path == "pack.yaml" and p.line and p.field == "boards[0]"
                         for p in found)
    assert {p.subject for p in found} == {
        f"board 'company-{c['id']}'" for c in ctx.dataset.items("companies.companies")}
    assert all(p.message.startswith("on LETTER the seam 260 mm from the left crosses port")
               for p in found)
    line, _ = ctx.dataset.manifest.where(("boards", 0))
    assert str(found[0]).startswith(f"pack.yaml:{line}: boards[0]: board "
                                    "'company-atlas-dynamics': on LETTER the seam 260 mm from "
                                    "the left crosses port[2]")
    merged = [p for p in check(ctx) if "seam" in p.message]    # the check stage's report
    assert {p.message for p in merged} == {
        f"on LETTER the seam 260 mm from the left crosses {box}[2] in 6 boards: " + ", ".join(
            sorted(p.subject for p in found if p.message.endswith(f" {box}[2]")))
        for box in ("port", "port_caption", "port_numeral")}


def test_a_seam_through_a_box_is_a_located_problem_naming_board_and_box() -> None:
    ctx = load("mad-scientists", PrintOptions())
    board = board_seams.boards(ctx)[0]
    banner = replace(board, boxes=(("title", Rect(0, 0, board.width, board.height)),))
    (problem,) = {str(p): p for p in board_seams.problems(ctx, [banner])}.values()
    assert problem.path == "pack.yaml" and problem.line and problem.field.startswith("boards[")
    assert problem.subject == f"board {board.id!r}"
    assert problem.message.startswith("on A4 the seam ") and problem.message.endswith(
        " crosses title")


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


@pytest.mark.parametrize("pack", PACKS)
def test_the_boxes_the_check_placed_are_those_the_boards_resolve_places(pack) -> None:
    """The check stage's guarded boxes are kept for the boards' resolve: the boards
    resolved after it are those of a build that never ran it."""
    from eti_print.jobs import boards
    checked = load(pack, PrintOptions())
    assert check(checked) == []
    assert any(key[0] == "boards" for key in checked.memo) == \
        bool(checked.dataset.config.get("boards"))
    fresh = load(pack, PrintOptions())
    assert boards.resolve(checked) == boards.resolve(fresh)
    assert checked.memo == {} and fresh.memo == {}      # handed on once, then dropped


def test_boxes_kept_for_another_entry_are_not_taken() -> None:
    from eti_print.jobs import boards
    ctx = load(None, PrintOptions())
    assert check(ctx) == []
    index, entry = next((i, e) for i, e in enumerate(ctx.dataset.config["boards"])
                        if e["id"] == "alien")
    setup = boards.entry_setup(ctx, index, entry)
    assert boards.placed(ctx, index, dict(entry), setup) == {}     # an equal copy: not it
    assert check(ctx) == []
    assert set(boards.placed(ctx, index, entry, setup)) == {"alien"}
    assert boards.placed(ctx, index, entry, setup) == {}           # handed on once
