"""The data bank and the data ports: findings, claims, switching, getting scooped,
carrying research over, and research cards dealt into the ports."""

from __future__ import annotations

from collections.abc import Iterable

from .rules import Rules
from .score import safe_score

#: Data banks hold research in steps of 10 (the green tokens light up tens), so
#: a carried-over bank is rounded down to one: 230 / 2 = 115 keeps 110.
BANK_STEP = 10


def bank_findings(bank: int, total: int) -> int:
    """Findings that fell short of the difficulty are added to the data bank."""
    return bank + total


def claim() -> int:
    """Claiming a project always resets the data bank to zero, needed or not."""
    return 0


def switch(bank: int, face_down_cards: int, rules: Rules = Rules()) -> int:
    """Switching projects banks the face-down cards by the safe method first."""
    return bank + safe_score(face_down_cards, rules)


def scooped(bank: int, face_down_cards: int, rules: Rules = Rules()) -> int:
    """A scooped company safe-banks its face-down cards, then keeps at most the scoop cap."""
    return min(switch(bank, face_down_cards, rules), rules.scoop_cap)


def carry_over(bank: int, new_difficulty: int, same_field: bool) -> int:
    """What the data bank keeps when a company picks a new project.

    All of it in the same field of study; otherwise at most half the new
    difficulty, rounded down to a multiple of ``BANK_STEP`` (230 keeps 110).
    """
    if same_field:
        return bank
    return min(bank, new_difficulty // 2 // BANK_STEP * BANK_STEP)


def cards_dealt(staffing_cards: int, vault_fields: Iterable[str], research_field: str) -> int:
    """Research cards dealt: the staffing value plus one per vaulted project in the same field."""
    return staffing_cards + sum(1 for f in vault_fields if f == research_field)


def place_in_ports(filled: int, dealt: int, rules: Rules = Rules()) -> tuple[int, int]:
    """(cards placed, cards discarded) when ``dealt`` cards join ``filled`` data ports."""
    if not 0 <= filled <= rules.data_ports or dealt < 0:
        raise ValueError(f"filled ports must be 0 to {rules.data_ports} and dealt cards >= 0")
    placed = min(dealt, rules.data_ports - filled)
    return placed, dealt - placed


def can_conduct_research(filled: int, rules: Rules = Rules()) -> bool:
    """A company cannot conduct research once all its data ports are filled."""
    return filled < rules.data_ports
