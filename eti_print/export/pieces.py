"""The printed pieces beside the decks, for the exports: tokens, standees, badges
(``pieces:`` in pack.yaml) and boards (``boards:``), as one-sided export decks.

Pieces are resolved by the pieces job's own helpers (items, copies, sizes from
templates) but with the export's bleed, since the print-and-play sheets abut
them with a hairline seam instead.  Boards are the boards job's, whole (one
face per board, at the board's own bleed: untiled, as a print service or
Tabletop Simulator takes them).
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError, Problem
from .faces import ExportCard, ExportDeck

#: What an export deck is, for Tabletop Simulator's object types.
CARDS, PIECE, BOARD = "cards", "piece", "board"


def _piece_deck(ctx: Any, index: int, entry: dict[str, Any], number: int,
                bleed: float) -> ExportDeck:
    from ..jobs.pieces import copies, entry_faces
    width, height, resolved = entry_faces(ctx, index, entry, bleed)
    cards: list[ExportCard] = []
    for item, face in resolved:
        label = str(item.get("name") or item.get("title") or entry["title"]) \
            if isinstance(item, dict) else entry["title"]
        for _ in range(copies(entry, item)):
            cards.append(ExportCard(len(cards) + 1, label, face, face))
    stem = f"{ctx.slug}-{number:02d}-{entry['id']}"
    return ExportDeck(number, entry["id"], entry["title"], stem, (width, height), tuple(cards),
                      True, bleed, PIECE)


def piece_decks(ctx: Any, first: int, bleed: float) -> list[ExportDeck]:
    """Every pieces entry, then every boards entry, numbered from ``first``; every
    problem of every entry at once."""
    from ..jobs import boards as boards_job
    config = ctx.dataset.config
    found: list[ExportDeck] = []
    problems: list[Problem] = []
    number = first
    for index, entry in enumerate(config.get("pieces") or []):
        try:
            found.append(_piece_deck(ctx, index, entry, number, bleed))
        except InputError as exc:
            problems.extend(exc.problems)
        number += 1
    if problems:
        raise InputError(sorted(set(problems), key=Problem.sort_key))
    by_entry: dict[str, list[Any]] = {}
    for board in boards_job.resolve(ctx) if config.get("boards") else []:
        by_entry.setdefault(board.entry, []).append(board)
    for entry in config.get("boards") or []:
        boards = by_entry.get(entry["id"], [])
        if not boards:
            continue
        faces = [b.face for b in boards]
        cards = tuple(ExportCard(n, b.title, face, face)
                      for n, (b, face) in enumerate(zip(boards, faces), start=1))
        title = boards[0].title if len(boards) == 1 else f"{entry['id'].capitalize()} boards"
        stem = f"{ctx.slug}-{number:02d}-{entry['id']}"
        found.append(ExportDeck(number, entry["id"], title, stem,
                                (boards[0].spec.width, boards[0].spec.height), cards, True,
                                boards[0].spec.bleed, BOARD))
        number += 1
    return found
