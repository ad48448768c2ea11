"""E.T.I.'s card faces as resolved for drawing: geometry a player sees."""

from __future__ import annotations

import pytest

from eti_print.jobs import decks as deck_job
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked
from eti_print.units import mm


@pytest.fixture(scope="module")
def research():
    ctx = load_checked(None, PrintOptions())
    (sheetful,) = [s for s in deck_job.resolve(ctx) if s.output == "cards"]
    deck = next(d for d in sheetful.decks if d.id == "research")
    kinds = {(c["kind"], c.get("value")) for c in ctx.dataset.items("research.research")
             if c["kind"] in ("number", "multiplier")}
    return sheetful.spec.card, deck, len(kinds)


def _ink(op) -> tuple[float, float]:
    """The left and right of a text op's set text, in its box's own frame."""
    fitted, _ = op.args
    pieces = [p for line in fitted.lines for p in line.pieces]
    return min(p.x for p in pieces), max(p.x + p.width for p in pieces)


def test_the_rotated_corner_index_is_the_top_one_turned_180_degrees(research):
    """The bottom index of every number and multiplier card sits in the bottom-right
    corner exactly where the top-left one lands when the card is turned around."""
    (card_w, card_h), deck, expected = research
    checked = 0
    for front, _ in {id(f): (f, b) for f, b in deck.cards}.values():
        texts = [op for op in front.ops if op.kind == "text"]
        top = next((op for op in texts if op.args[1] == 0 and op.y < mm(15)), None)
        bottom = next((op for op in texts if op.args[1] == 180), None)
        if top is None or bottom is None or not top.args[0].lines:
            continue                                      # a threat card: icons
        assert top.args[0].lines[0].text == bottom.args[0].lines[0].text
        x0, x1 = _ink(top)
        left, right = top.x + x0, top.x + x1              # on the card
        b0, b1 = _ink(bottom)                             # turned about the box centre
        b_left, b_right = bottom.x + bottom.w - b1, bottom.x + bottom.w - b0
        assert b_left == pytest.approx(card_w - right, abs=mm(0.05))
        assert b_right == pytest.approx(card_w - left, abs=mm(0.05))
        assert bottom.y + bottom.h == pytest.approx(card_h - top.y, abs=mm(0.05))
        checked += 1
    assert checked == expected      # every distinct number and multiplier face
