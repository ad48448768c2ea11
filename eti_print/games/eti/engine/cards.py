"""Research cards: what a card is, and how cards, queues and threats are named.

A card is written as a number (``50``), a multiplier (``x2``) or a threat
(``spy``, ``Data Virus``).  Which threats and multipliers exist is the data's
business: a ``Deck`` holds the threats of ``cards/threats.yaml`` (ids and
printed names) and the multiplier factors of ``cards/research.yaml``, and
names are resolved against it.  ``DEFAULT_DECK`` is the rulebook's, for the
pure functions called without data (tests, quick sums).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

CardKind = Literal["number", "multiplier", "threat"]
KINDS: tuple[str, ...] = ("number", "multiplier", "threat")

_NUMBER_RE = re.compile(r"^[0-9]{1,9}$")
_MULTIPLIER_RE = re.compile(r"^[xX]([0-9])$")
#: Every factor a multiplier card may have: it is written ``x`` and one digit.
MULTIPLIER_FACTORS: tuple[int, ...] = tuple(range(10))
_ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Card:
    """One research card (also an attack card in the invasion).

    ``value`` is the number printed on a numeric card or the factor of a
    multiplier (x0, x2, x3 in the rulebook); a threat card has value 0 and
    names its ``threat`` by id.
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


def _alias(name: str) -> str:
    """The key a threat name is looked up by: case, spaces, ``-`` and ``_`` do not matter."""
    return re.sub(r"[\s_-]+", "", name.strip().lower())


def _and(words: Iterable[str], last: str = "and") -> str:
    items = list(words)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {last} {items[-1]}"


@dataclass(frozen=True)
class Deck:
    """What a research card can be: the threats (ids, printed names) and the multipliers.

    Built from the data (``Database.deck``).  A threat is named by its id or its
    printed name, in any case, with spaces, ``-`` or ``_`` or none between
    words: ``data-virus``, ``Data Virus`` and ``DATA_VIRUS`` are one threat.
    """

    threats: tuple[str, ...]
    names: tuple[str, ...]
    multipliers: tuple[int, ...]
    _aliases: Mapping[str, str] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "threats", tuple(self.threats))
        object.__setattr__(self, "names", tuple(self.names))
        object.__setattr__(self, "multipliers", tuple(self.multipliers))
        if len(self.names) != len(self.threats):
            raise ValueError(f"{len(self.threats)} threats but {len(self.names)} names")
        for threat in self.threats:
            if not isinstance(threat, str) or not _ID_RE.match(threat):
                raise ValueError(f"threat id {threat!r} is not a slug (such as data-virus)")
        if len(set(self.threats)) != len(self.threats):
            raise ValueError(f"threats listed twice: {', '.join(self.threats)}")
        for factor in self.multipliers:
            if isinstance(factor, bool) or not isinstance(factor, int) or \
                    factor not in MULTIPLIER_FACTORS:
                raise ValueError(f"a multiplier is written x0 to x9 (got {factor!r})")
        if len(set(self.multipliers)) != len(self.multipliers):
            raise ValueError(f"multipliers listed twice: {self.multipliers}")
        aliases: dict[str, str] = {}
        for threat, name in zip(self.threats, self.names):
            for key in {_alias(threat), _alias(name)}:
                if not key:
                    raise ValueError(f"threat {threat!r} has an empty name")
                if aliases.get(key, threat) != threat:
                    raise ValueError(f"threats {aliases[key]!r} and {threat!r} are both "
                                     f"called {name!r}")
                aliases[key] = threat
        object.__setattr__(self, "_aliases", aliases)

    @classmethod
    def of(cls, threats: Iterable[tuple[str, str]], multipliers: Iterable[int]) -> Deck:
        """A deck from (id, name) pairs in data order and the multipliers, sorted here."""
        pairs = list(threats)
        return cls(tuple(t for t, _ in pairs), tuple(n for _, n in pairs),
                   tuple(sorted(set(multipliers))))

    def name(self, threat: str) -> str:
        """A threat's printed name, from its id."""
        return self.names[self.threats.index(threat)]

    def label(self, card: Card) -> str:
        """How a card is named in prose: ``50``, ``x2`` or the threat's printed name."""
        if card.kind == "threat" and card.threat in self.threats:
            return self.name(str(card.threat))
        return card.label

    def normalize_threat(self, name: str) -> str:
        """A threat id from its id or name: ``Data Virus``, ``data_virus`` -> ``data-virus``."""
        threat = self._aliases.get(_alias(name))
        if threat is None:
            raise ValueError(f"unknown threat {name!r} (threats are {', '.join(self.threats)})")
        return threat

    def immunities(self, immune: Iterable[str]) -> frozenset[str]:
        """Threat ids from names, so ``{"Data Virus"}`` and ``{"data-virus"}`` agree."""
        if isinstance(immune, str):
            raise TypeError("immunities are a collection of threat names, not one string")
        return frozenset(self.normalize_threat(name) for name in immune)

    def parse_card(self, token: str) -> Card:
        """A card from its token: a number (``50``), a multiplier of the deck or a threat name."""
        text = token.strip()
        if _NUMBER_RE.match(text):
            return Card("number", int(text))
        factor = multiplier_factor(text)
        if factor is not None:
            if factor not in self.multipliers:
                raise ValueError(f"no x{factor} research card (multipliers are "
                                 f"{self._multiplier_list()})")
            return Card("multiplier", factor)
        try:
            return Card("threat", 0, self.normalize_threat(text))
        except ValueError:
            tokens = "".join(f"x{m}, " for m in self.multipliers)
            raise ValueError(f"{token!r} is not a research card (use a number such as 30, "
                             f"{tokens}or a threat: {', '.join(self.threats)})") from None

    def parse_queue(self, tokens: Iterable[str]) -> tuple[Card, ...]:
        """Cards from tokens, in data-port order."""
        return tuple(self.parse_card(token) for token in tokens)

    def _multiplier_list(self) -> str:
        return _and(f"x{m}" for m in self.multipliers) if self.multipliers else "none"


#: The rulebook's deck: its four threats and the multipliers x0, x2, x3.
DEFAULT_DECK = Deck(("abduction", "arson", "data-virus", "spy"),
                    ("Abduction", "Arson", "Data Virus", "Spy"), (0, 2, 3))

#: The rulebook's threat ids and multipliers (``DEFAULT_DECK``'s).
THREATS: tuple[str, ...] = DEFAULT_DECK.threats
MULTIPLIERS: tuple[int, ...] = DEFAULT_DECK.multipliers


def multiplier_factor(token: str) -> int | None:
    """The factor a multiplier token is written with (``x2`` -> 2), any deck's; else None."""
    match = _MULTIPLIER_RE.match(token.strip())
    return int(match.group(1)) if match else None


def normalize_threat(name: str, deck: Deck = DEFAULT_DECK) -> str:
    """A threat id of ``deck`` from a name in any case: ``Data Virus`` -> ``data-virus``."""
    return deck.normalize_threat(name)


def parse_card(token: str, deck: Deck = DEFAULT_DECK) -> Card:
    """A card from its token: a number (``50``), a multiplier of ``deck`` or a threat name."""
    return deck.parse_card(token)


def parse_queue(tokens: Iterable[str], deck: Deck = DEFAULT_DECK) -> tuple[Card, ...]:
    """Cards from tokens, in data-port order, resolved against ``deck``."""
    return deck.parse_queue(tokens)


def _immunities(immune: Iterable[str], deck: Deck = DEFAULT_DECK) -> frozenset[str]:
    return deck.immunities(immune)


def _port(index: int) -> str:
    return f"port {index + 1}"
