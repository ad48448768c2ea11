"""The rules engine: the rulebook's arithmetic, as pure functions of plain values.

Everything a player computes at the table lives here, so the player aids, the
balance report and the ``score``/``attack`` commands share one reading of the
rules instead of each re-deriving it:

- research submissions: the standard score of a queue (threats, then
  multipliers), the safe value, and the best order reachable with the
  creativity trait's adjacent swaps;
- the data bank: findings, claims, getting scooped, switching projects;
- game length thresholds, which tech levels a player may draw, votes;
- research cards dealt and placed in the 14 data ports;
- the endgame invasion: attack cards, defense, which projects a company
  discards to survive, and the winner.

Each concern is one module: ``cards`` (cards and their names), ``rules``
(the rulebook's constants), ``score`` (standard and safe submissions),
``swaps`` (the exact best-order search), ``bank`` (the data bank and data
ports), ``game`` (game length, drawing projects, votes) and ``invasion``.
This package re-exports their public names, so ``engine.score`` and
``from .engine import Card`` keep working.

Nothing here reads files, prints or keeps state.  What the data decides
comes in as values the database builds: the threats (ids and printed names)
and the multipliers of the research deck as a ``Deck`` (``cards/threats.yaml``,
``cards/research.yaml``), the rulebook's constants as ``Rules``
(``cards/game.yaml``).  Their defaults, ``DEFAULT_DECK`` and ``Rules()``, are
the printed rulebook's, for callers without data.  Bad values raise ``ValueError`` with a
one-line message; callers at the boundary turn that into their own errors.
"""

from __future__ import annotations

from .bank import (
    BANK_STEP,
    bank_findings,
    can_conduct_research,
    cards_dealt,
    carry_over,
    claim,
    place_in_ports,
    scooped,
    switch,
)
from .cards import (
    DEFAULT_DECK,
    KINDS,
    MULTIPLIER_FACTORS,
    MULTIPLIERS,
    THREATS,
    Card,
    CardKind,
    Deck,
    normalize_threat,
    parse_card,
    parse_queue,
)
from .game import (
    MAX_TECH_LEVEL,
    Votable,
    drawable_levels,
    fallback_level,
    must_reveal_by,
    threshold,
    votes,
)
from .invasion import (
    PUBLIC_DOMAIN,
    SIDES,
    TOP_SECRET,
    Attack,
    AttackLine,
    Defender,
    Outcome,
    VaultProject,
    Verdict,
    attack,
    attack_value,
    defense_total,
    endgame_defense,
    endgame_fame,
    mash_cards,
    resolve_company,
    winner,
)
from .rules import Rules, ThreatAttack
from .score import Attachment, Contribution, Destruction, Score, safe_score, score
from .swaps import Best, best_order, inversions

__all__ = [
    "DEFAULT_DECK", "KINDS", "MULTIPLIER_FACTORS", "MULTIPLIERS", "THREATS", "Card", "CardKind",
    "Deck", "normalize_threat", "parse_card", "parse_queue",
    "Rules", "ThreatAttack",
    "Attachment", "Contribution", "Destruction", "Score", "safe_score", "score",
    "Best", "best_order", "inversions",
    "BANK_STEP", "bank_findings", "can_conduct_research", "cards_dealt", "carry_over", "claim",
    "place_in_ports", "scooped", "switch",
    "MAX_TECH_LEVEL", "Votable", "drawable_levels", "fallback_level", "must_reveal_by",
    "threshold", "votes",
    "PUBLIC_DOMAIN", "SIDES", "TOP_SECRET", "Attack", "AttackLine", "Defender", "Outcome",
    "VaultProject", "Verdict", "attack", "attack_value", "defense_total", "endgame_defense",
    "endgame_fame", "mash_cards", "resolve_company", "winner",
]
