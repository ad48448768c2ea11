"""The check stage's rule for tiled boards: no seam crosses what a player reads or puts
a piece on.

A board larger than the paper is glued from sheets (``imposition_tiling``); each seam,
the covering sheet's cut edge, is a line across the whole board.  On the chosen paper,
no seam may come within ``SEAM_CLEARANCE`` of a text box or of a box the entry names in
``seam_clear:`` (a game's ports, track spaces, slots).  The
tiling already moves seams off such boxes where the sheets' room allows; what is left
is a problem at the board's pack.yaml entry, naming the board, the paper, the seam and
the box.  Only the boxes' geometry is resolved here (no text is fitted); an entry whose
lengths, layout or templates fail is left to the resolve stage, which reports it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError, Problem
from ..imposition import Rect
from ..imposition_tiling import seam_conflicts
from .boards import entry_guarded, entry_setup, guarded_tiling

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context

HINT = ("move the box off the seam, or leave a corridor across the board where the seam "
        "can fall (or change the entry's margin or overlap)")


@dataclass(frozen=True)
class Guarded:
    """One board's size, tiling settings and the boxes its seams must keep off."""

    id: str
    index: int              # the pack.yaml entry's index, to locate a problem
    width: float
    height: float
    margin: float
    overlap: float
    boxes: tuple[tuple[str, Rect], ...]


def boards(ctx: Context) -> list[Guarded]:
    """Every board of every entry with its guarded boxes (entries that fail to resolve
    are left out: the resolve stage reports them)."""
    found: list[Guarded] = []
    for index, entry in enumerate(ctx.dataset.config.get("boards") or []):
        try:
            setup = entry_setup(ctx, index, entry)
        except InputError:
            continue
        placed: list = []
        try:
            entry_guarded(ctx, index, entry, setup, placed)     # kept for the resolve stage
        except InputError:
            pass                        # the boards placed before the failure are checked
        found.extend(Guarded(board_id, index, setup.width, setup.height, setup.margin,
                             setup.overlap, boxes) for board_id, boxes in placed)
    return found


def problems(ctx: Context, found: Iterable[Guarded]) -> list[Problem]:
    """A problem at the board's entry in pack.yaml for every seam of its tiling on this
    paper that crosses a guarded box, naming the board (its subject), paper, seam and box:
    ``board 'main': on A4 the seam 185 mm from the left crosses space_slot[4]``."""
    manifest = ctx.dataset.manifest
    out = []
    for board in found:
        tiling = guarded_tiling(board.width, board.height, board.margin, board.overlap,
                                board.boxes, ctx.options.page)
        for conflict in seam_conflicts(tiling, board.boxes):
            line, _ = manifest.where(("boards", board.index))
            # the board as the subject: a box every board of the entry has is one problem
            out.append(Problem(f"on {ctx.options.paper.upper()} {conflict}", manifest.path,
                               line, None, f"boards[{board.index}]", HINT,
                               subject=f"board {board.id!r}"))
    return out


def check(ctx: Context) -> list[Problem]:
    """The check stage: every seam of every board on the chosen paper, clear."""
    return problems(ctx, boards(ctx))
