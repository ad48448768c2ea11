"""Game length and drawing projects: thresholds, tech levels a player may draw, votes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

#: The highest tech level (V).
MAX_TECH_LEVEL = 5


def threshold(players: int, multiplier: int) -> int:
    """Projects to discover before the alien may reveal itself."""
    return players * multiplier


def must_reveal_by(players: int, multiplier: int) -> int:
    """The next threshold: the alien must reveal itself by then."""
    return threshold(players, multiplier + 1)


def drawable_levels(vault_levels: Iterable[int]) -> tuple[int, ...]:
    """Tech levels a player who claimed a project may draw the new project from.

    Any level up to the highest in her vaults or one higher (level I if her
    vaults were somehow empty), never beyond level V.
    """
    highest = max(vault_levels, default=0)
    return tuple(range(1, min(highest + 1, MAX_TECH_LEVEL) + 1))


def fallback_level(available_levels: Iterable[int], allowed: Iterable[int]) -> int | None:
    """The level to draw from when none of the ``allowed`` levels has projects left.

    That is the lowest level that still has any.  None when no fallback
    applies: an allowed level still has projects, or every pile is empty.
    """
    available = set(available_levels)
    if available & set(allowed):
        return None
    return min(available, default=None)


class Votable(Protocol):
    """A project as a vote counts it."""

    @property
    def level_number(self) -> int: ...

    @property
    def upgrades(self) -> tuple[str, ...]: ...


def votes(projects: Iterable[Votable], trait: str | None = None) -> int:
    """A player's votes: each project's tech level, doubled in a vote on a trait it upgrades.

    A double upgrade of the voted trait still only doubles.
    """
    return sum(p.level_number * (2 if trait is not None and trait in p.upgrades else 1)
               for p in projects)
