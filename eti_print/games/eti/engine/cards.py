"""Research cards: what a card is and how a card, a queue or a threat is named.

A card is written as a number (``50``), a multiplier (``x2``) or a threat
(``spy``, ``Data Virus``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Literal

CardKind = Literal["number", "multiplier", "threat"]
KINDS: tuple[str, ...] = ("number", "multiplier", "threat")


#: The four alien threats of the rulebook, by id.
THREATS: tuple[str, ...] = ("abduction", "arson", "data-virus", "spy")

#: The multipliers printed on research cards.
MULTIPLIERS: tuple[int, ...] = (0, 2, 3)


_NUMBER_RE = re.compile(r"^[0-9]{1,9}$")
_MULTIPLIER_RE = re.compile(r"^[xX]([0-9])$")
_THREAT_ALIASES = {threat.replace("-", ""): threat for threat in THREATS}


@dataclass(frozen=True)
class Card:
    """One research card (also an attack card in the invasion).

    ``value`` is the number printed on a numeric card or the factor of a
    multiplier (0, 2, 3); a threat card has value 0 and names its ``threat``.
    """

    kind: CardKind
    value: int = 0
    threat: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"card kind must be one of {', '.join(KINDS)} (got {self.kind!r})")
        if isinstance(self.value, bool) or not isinstance(self.value, int) or self.value < 0:
            raise ValueError(f"card value must be a whole number >= 0 (got {self.value!r})")
        if (self.kind == "threat") != (self.threat is not None):
            raise ValueError("a threat card, and only a threat card, names its threat")
        if self.kind == "threat" and self.value != 0:
            raise ValueError("a threat card has no value")

    @property
    def token(self) -> str:
        """How the card is written on a command line: ``50``, ``x2``, ``spy``."""
        if self.kind == "number":
            return str(self.value)
        if self.kind == "multiplier":
            return f"x{self.value}"
        return str(self.threat)

    @property
    def label(self) -> str:
        """How the card is named in prose: ``50``, ``x2``, ``Data Virus``."""
        if self.kind == "threat":
            return str(self.threat).replace("-", " ").title()
        return self.token


def normalize_threat(name: str) -> str:
    """A threat id from a name in any case: ``Data Virus``, ``data_virus`` -> ``data-virus``."""
    key = re.sub(r"[\s_-]+", "", name.strip().lower())
    if key not in _THREAT_ALIASES:
        raise ValueError(f"unknown threat {name!r} (threats are {', '.join(THREATS)})")
    return _THREAT_ALIASES[key]


def parse_card(token: str) -> Card:
    """A card from its token: a number (``50``), ``x0``/``x2``/``x3`` or a threat name."""
    text = token.strip()
    if _NUMBER_RE.match(text):
        return Card("number", int(text))
    multiplier = _MULTIPLIER_RE.match(text)
    if multiplier:
        factor = int(multiplier.group(1))
        if factor not in MULTIPLIERS:
            raise ValueError(f"no x{factor} research card (multipliers are x0, x2 and x3)")
        return Card("multiplier", factor)
    try:
        return Card("threat", 0, normalize_threat(text))
    except ValueError:
        raise ValueError(f"{token!r} is not a research card (use a number such as 30, "
                         f"x0, x2, x3, or a threat: {', '.join(THREATS)})") from None


def parse_queue(tokens: Iterable[str]) -> tuple[Card, ...]:
    """Cards from tokens, in data-port order."""
    return tuple(parse_card(token) for token in tokens)


def _immunities(immune: Iterable[str]) -> frozenset[str]:
    """Threat ids from names, so ``{"Data Virus"}`` and ``{"data-virus"}`` agree."""
    if isinstance(immune, str):
        raise TypeError("immunities are a collection of threat names, not one string")
    return frozenset(normalize_threat(name) for name in immune)


def _port(index: int) -> str:
    return f"port {index + 1}"
