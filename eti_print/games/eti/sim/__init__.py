"""The whole-game simulator: seeded, pure games of E.T.I. played by policies.

- ``data``: the database as plain values, card effects included (``SimData``);
- ``game``: one game's state and the helpers policies read (``Game``, ``Result``);
- ``turn``: set-up and the sequence of play, the reveal;
- ``effects``: event cards resolved by their declared effects;
- ``invasion``: the endgame invasion and the winner;
- ``policies``: the players (cautious, greedy, lookahead) and the alien;
- ``runner``: many games in parallel, and their statistics;
- ``ladder``: the rule that the alien ladder is in order (``validate --simulate``).
"""

#: The seed of every seeded command of the game (simulate, balance, balance-games).
DEFAULT_SEED = 1965
