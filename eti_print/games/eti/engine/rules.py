"""The rulebook's constants, as one frozen value (``Rules``).

The defaults are the printed values; the database builds one from
``cards/game.yaml``'s ``rules:`` section.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from .cards import multiplier_factor


@dataclass(frozen=True)
class ThreatAttack:
    """What a threat is worth as an attack card (the rulebook's 2 x 2 table)."""

    tactic_not_immune: int = 50
    tactic_immune: int = 25
    plain_not_immune: int = 25
    plain_immune: int = 0

    def value(self, tactic: bool, immune: bool) -> int:
        if tactic:
            return self.tactic_immune if immune else self.tactic_not_immune
        return self.plain_immune if immune else self.plain_not_immune


def _default_multiplier_attack() -> Mapping[int, int]:
    return MappingProxyType({0: 10, 2: 20, 3: 30})


@dataclass(frozen=True)
class Rules:
    """The rulebook's constants.  The defaults are the printed values."""

    safe_value: int = 10
    scoop_cap: int = 100
    data_ports: int = 14
    top_secret_defense: int = 5
    public_domain_fame: int = 10
    multiplier_attack: Mapping[int, int] = field(default_factory=_default_multiplier_attack,
                                                 hash=False)
    threat_attack: ThreatAttack = ThreatAttack()
    mash_projects: int = 2
    mash_max_per_company: int = 1

    def __post_init__(self) -> None:
        # A read-only copy, so a caller's dict cannot change a frozen Rules later.
        object.__setattr__(self, "multiplier_attack",
                           MappingProxyType(dict(self.multiplier_attack)))

    @classmethod
    def from_mapping(cls, rules: Mapping[str, Any], data_ports: int) -> Rules:
        """Rules from ``game.yaml``'s ``rules:`` section (already schema-checked).

        Every key is required and none may be unknown: a silently defaulted
        constant would print a rule the data never stated.  An attack value
        may name any multiplier (``x0`` to ``x9``): which ones the deck holds is
        the research deck's business.
        """
        expected = {f.name for f in fields(cls)} - {"data_ports"}
        missing = sorted(expected - set(rules))
        unknown = sorted(set(rules) - expected)
        if missing or unknown:
            parts = ([f"missing {', '.join(missing)}"] if missing else []) + \
                    ([f"unknown {', '.join(unknown)}"] if unknown else [])
            raise ValueError(f"rules: {'; '.join(parts)}")
        values = dict(rules)
        values["multiplier_attack"] = {_multiplier_factor(key): value
                                       for key, value in rules["multiplier_attack"].items()}
        try:
            values["threat_attack"] = ThreatAttack(**rules["threat_attack"])
        except TypeError:
            raise ValueError("rules.threat_attack: give tactic_not_immune, tactic_immune, "
                             "plain_not_immune and plain_immune") from None
        return cls(data_ports=data_ports, **values)


def _multiplier_factor(key: str) -> int:
    factor = multiplier_factor(str(key))
    if factor is None:
        raise ValueError(f"rules.multiplier_attack: {key!r} is not a multiplier (x0 to x9)")
    return factor
