"""Playing one game through: set-up, turns until the last project is claimed or
the alien invades, then the invasion (``turn``, ``invasion``).  ``game`` holds
the state and its bookkeeping; this is the loop over it."""

from __future__ import annotations

from .game import MAX_TURNS, Game, Result
from .invasion import invade
from .turn import play_turn, setup


def play(game: Game) -> Result:
    """Play ``game`` from its set-up to its winner."""
    setup(game)
    while True:
        game.turn += 1
        if game.turn > MAX_TURNS:
            game.say("The game is stopped: too many turns.")
            break
        if play_turn(game):
            break
    return invade(game)
