"""The registry of E.T.I.'s consistency rules: each rule module registers its
rules by name with ``rule`` (``checks``, and ``effect_checks`` for the card
effects), and ``run_rules`` runs every one registered."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ...errors import Problem
from .model import Database

Rule = Callable[[Database], Iterable[Problem]]
RULES: dict[str, Rule] = {}


def rule(name: str) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        RULES[name] = fn
        return fn
    return register


def run_rules(db: Database) -> list[Problem]:
    """Every rule's problems.  A rule that trips over data another check already
    reported (an unknown id, a missing list) is skipped, not crashed."""
    problems: list[Problem] = []
    for fn in RULES.values():
        try:
            problems.extend(fn(db))
        except (KeyError, IndexError, StopIteration, TypeError, ValueError):
            continue
    return problems
