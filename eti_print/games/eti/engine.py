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

Nothing here reads files, prints or keeps state.  The rulebook's constants
come in through ``Rules`` (its defaults are the printed values; the database
builds one from ``cards/game.yaml``).  Bad values raise ``ValueError`` with a
one-line message; callers at the boundary turn that into their own errors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Callable, Iterable, Iterator, Literal, Mapping, Protocol, Sequence

# ---------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------

CardKind = Literal["number", "multiplier", "threat"]
KINDS: tuple[str, ...] = ("number", "multiplier", "threat")

#: The four alien threats of the rulebook, by id.
THREATS: tuple[str, ...] = ("abduction", "arson", "data-virus", "spy")

#: The multipliers printed on research cards.
MULTIPLIERS: tuple[int, ...] = (0, 2, 3)

#: The highest tech level (V).
MAX_TECH_LEVEL = 5

#: Data banks hold research in steps of 10 (the green tokens light up tens), so
#: a carried-over bank is rounded down to one: 230 / 2 = 115 keeps 110.
BANK_STEP = 10

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


# ---------------------------------------------------------------------------
# Rule constants
# ---------------------------------------------------------------------------


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
    def from_mapping(cls, rules: Mapping[str, Any], data_ports: int) -> "Rules":
        """Rules from ``game.yaml``'s ``rules:`` section (already schema-checked).

        Every key is required and none may be unknown: a silently defaulted
        constant would print a rule the data never stated.
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
    card = parse_card(str(key))
    if card.kind != "multiplier":
        raise ValueError(f"rules.multiplier_attack: {key!r} is not a multiplier (x0, x2, x3)")
    return card.value


# ---------------------------------------------------------------------------
# Standard and safe submissions
# ---------------------------------------------------------------------------

_VERBS = {0: "zeroes", 2: "doubles", 3: "triples"}


@dataclass(frozen=True)
class Destruction:
    """A threat (by queue index) that destroyed a numeric card (by queue index)."""

    threat: int
    card: int


@dataclass(frozen=True)
class Attachment:
    """A multiplier and the numeric card it applies to (None: no effect)."""

    multiplier: int
    target: int | None


@dataclass(frozen=True)
class Contribution:
    """A surviving numeric card and what it adds to the total after multipliers."""

    card: int
    value: int


@dataclass(frozen=True)
class Score:
    """A standard submission, resolved: the total and how it came about.

    Indexes are positions in ``order`` (port = index + 1).
    """

    order: tuple[Card, ...]
    total: int
    destroyed: tuple[Destruction, ...]
    ignored: tuple[int, ...]        # threats the company is immune to
    harmless: tuple[int, ...]       # threats with nothing left to destroy
    attachments: tuple[Attachment, ...]
    contributions: tuple[Contribution, ...]

    def formula(self) -> str:
        """The total the way the rulebook writes it: ``10 + 40 x 2 x 3 = 250``."""
        factors: dict[int, list[int]] = {}
        for a in self.attachments:
            if a.target is not None:
                factors.setdefault(a.target, []).append(self.order[a.multiplier].value)
        terms = [" x ".join(str(n) for n in [self.order[c.card].value, *factors.get(c.card, [])])
                 for c in self.contributions]
        return f"{' + '.join(terms) or '0'} = {self.total}"

    def describe(self) -> list[str]:
        """Short lines saying what each threat and multiplier did, in port order."""
        events: list[tuple[int, str]] = []
        for d in self.destroyed:
            events.append((d.threat, f"{self._at(d.threat)} destroys {self._at(d.card)}"))
        for i in self.ignored:
            events.append((i, f"{self._at(i)} is ignored (immune)"))
        for i in self.harmless:
            events.append((i, f"{self._at(i)} has nothing left to destroy"))
        for a in self.attachments:
            events.append((a.multiplier, self._multiplier_line(a)))
        return [line for _, line in sorted(events)]

    def _at(self, index: int) -> str:
        return f"{self.order[index].label} ({_port(index)})"

    def _multiplier_line(self, a: Attachment) -> str:
        if a.target is None:
            return f"{self._at(a.multiplier)} has no effect (no number before it)"
        factor = self.order[a.multiplier].value
        verb = _VERBS.get(factor, f"multiplies by {factor}")
        return f"{self._at(a.multiplier)} {verb} {self._at(a.target)}"


def score(queue: Sequence[Card], immune: Iterable[str] = frozenset()) -> Score:
    """Resolve a standard submission of ``queue`` (data port 1 first).

    Threats resolve one by one from port 1: each one the company is not immune
    to destroys the highest numeric card later in the queue that is still
    there (the nearest on ties); threats never touch multipliers or threats.
    Then each multiplier applies to the closest surviving numeric card before
    it; multipliers stack (x2 x2 = x4) and one with no numeric card before it
    does nothing.
    """
    cards = tuple(queue)
    immunities = _immunities(immune)
    alive = [card.kind == "number" for card in cards]
    destroyed: list[Destruction] = []
    ignored: list[int] = []
    harmless: list[int] = []
    for i, card in enumerate(cards):
        if card.kind != "threat":
            continue
        if card.threat in immunities:
            ignored.append(i)
            continue
        target = _threat_target(cards, alive, i)
        if target is None:
            harmless.append(i)
        else:
            alive[target] = False
            destroyed.append(Destruction(i, target))
    attachments, product = _attach_multipliers(cards, alive)
    contributions = tuple(Contribution(i, cards[i].value * product[i])
                          for i in range(len(cards)) if alive[i])
    return Score(cards, sum(c.value for c in contributions), tuple(destroyed), tuple(ignored),
                 tuple(harmless), attachments, contributions)


def _threat_target(cards: Sequence[Card], alive: Sequence[bool], threat: int) -> int | None:
    """The highest surviving numeric card after ``threat``, the nearest on ties."""
    later = [j for j in range(threat + 1, len(cards)) if alive[j]]
    return max(later, key=lambda j: (cards[j].value, -j), default=None)


def _attach_multipliers(cards: Sequence[Card], alive: Sequence[bool]
                        ) -> tuple[tuple[Attachment, ...], list[int]]:
    """Each multiplier's target, and the product of factors each card receives."""
    product = [1] * len(cards)
    attachments: list[Attachment] = []
    last: int | None = None
    for i, card in enumerate(cards):
        if alive[i]:
            last = i
        elif card.kind == "multiplier":
            attachments.append(Attachment(i, last))
            if last is not None:
                product[last] *= card.value
    return tuple(attachments), product


def safe_score(n_cards: int, rules: Rules = Rules()) -> int:
    """A safe submission: every face-down card is worth ``rules.safe_value``."""
    if n_cards < 0:
        raise ValueError(f"number of cards must be >= 0 (got {n_cards})")
    return n_cards * rules.safe_value


# ---------------------------------------------------------------------------
# Creativity: the best order within N adjacent swaps
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Best:
    """The best standard submission reachable with at most N adjacent swaps.

    ``positions[k]`` is the original index of the card now at index ``k``.
    Among equal totals the fewest swaps win, then the lexicographically
    earliest ``positions``, so the answer is stable.
    """

    score: Score
    swaps_used: int
    positions: tuple[int, ...]

    @property
    def total(self) -> int:
        return self.score.total

    @property
    def order(self) -> tuple[Card, ...]:
        return self.score.order

    def swaps(self) -> tuple[int, ...]:
        """The adjacent swaps that produce this order, in turn; ``p`` means swap ports p and p + 1.

        Each card is walked left into place, so the count is exactly ``swaps_used``.
        """
        current = list(range(len(self.positions)))
        done: list[int] = []
        for k, wanted in enumerate(self.positions):
            for j in range(current.index(wanted), k, -1):
                current[j - 1], current[j] = current[j], current[j - 1]
                done.append(j)  # indexes j - 1 and j are ports j and j + 1
        return tuple(done)


def inversions(positions: Sequence[int]) -> int:
    """Adjacent swaps needed to reach ``positions`` from the original order."""
    return sum(1 for a in range(len(positions)) for b in range(a + 1, len(positions))
               if positions[a] > positions[b])


def best_order(queue: Sequence[Card], swaps: int,
               immune: Iterable[str] = frozenset()) -> Best:
    """The highest standard total reachable with at most ``swaps`` adjacent swaps.

    Exact.  An order is reachable with k adjacent swaps iff it has at most k
    inversions relative to the queue, so this searches orders built port by
    port, charging each card the number of still-unplaced cards that started
    before it.  See ``_SwapSearch`` for why the state stays small.
    """
    if isinstance(swaps, bool) or not isinstance(swaps, int) or swaps < 0:
        raise ValueError(f"swaps must be a whole number >= 0 (got {swaps!r})")
    cards = tuple(queue)
    immunities = _immunities(immune)
    as_dealt = score(cards, immunities).total
    positions = _SwapSearch(cards, immunities).run(swaps, as_dealt)
    return Best(score([cards[p] for p in positions], immunities), inversions(positions),
                positions)


# A search state: (unplaced positions as a bitmask, values pending destruction
# as a descending tuple, contribution of the open numeric card, swaps left,
# the last card placed as position * 4 + its role (-1: none that matters),
# whether the open card must still receive a multiplier).
_State = tuple[int, tuple[int, ...], int, int, int, bool]
# A solved state: (best future total, swaps it uses, position placed next,
# swaps left to the state after it).
_Solved = tuple[int, int, int, int]

# Below any total: the bound of a state no canonical order can complete.
_INFEASIBLE = 1 << 62

# The role a placed card plays, for spotting swaps that change nothing.
_FREE, _THREAT, _MULT, _SURVIVOR = range(4)


class _SwapSearch:
    """Memoised branch-and-bound search over orders, built one port at a time.

    Why a left-to-right build can score threats that look *ahead*: when a
    threat is placed, the cards after it are exactly the cards not yet placed,
    so its victim's value is known then -- the highest unplaced numeric value
    not already claimed by an earlier threat.  That value is recorded as
    *pending*; the next card of that value placed later is the nearest one, so
    it is the one destroyed.  Multipliers only touch the *open* card (the last
    surviving numeric one), so the past is summarised by that card's
    contribution so far.

    Prunings, none of which can lose the answer (most points, then fewest
    swaps, then the earliest order):

    - Cards that behave alike (equal numbers, equal multipliers, any two
      threats the company is not immune to, any two it is) are
      interchangeable: only the earliest unplaced one of each kind is placed
      next, since a later twin only adds swaps.
    - The answer never has two adjacent cards out of their original order
      whose swap changes nothing: undoing it would save a swap.  Cards that
      commute: an immune threat with anything; a destroyed number with
      anything but a threat just before it (which may be what destroys it);
      a threat or multiplier with a multiplier; two surviving numbers unless
      the second is multiplied (so after an out-of-order pair of them the
      open card *must* get a multiplier).
    - ``solve(state, need)`` is exact only when the answer reaches ``need``
      (what another branch already scores); below that it just fails, which
      is remembered as a ceiling.  Children are tried best (rough) bound
      first, and one whose bound (``_bound``, which knows what the swaps
      left can reach) is below ``need`` is never entered.  A child that can
      at best tie is searched with only the swaps that would let it win.
    """

    def __init__(self, cards: tuple[Card, ...], immune: frozenset[str]):
        self.behaviour = [_behaviour(card, immune) for card in cards]
        kinds: dict[tuple[str, int], int] = {}
        for i, key in enumerate(self.behaviour):
            kinds[key] = kinds.get(key, 0) | (1 << i)
        self.kind_masks = tuple(kinds.values())
        # Numeric kinds, highest value first.
        self.numbers = sorted(((key[1], mask) for key, mask in kinds.items() if key[0] == "n"),
                              reverse=True)
        self.number_mask = sum(mask for _, mask in self.numbers)
        self.threat_mask = kinds.get(("t", 0), 0)
        self.multipliers = sum(mask for key, mask in kinds.items() if key[0] == "m")
        self.boost_mask = sum(mask for key, mask in kinds.items() if key[0] == "m" and key[1] > 1)
        self.zeroes = kinds.get(("m", 0), 0)
        # gaps[a + 1][b]: the positions strictly between a and b (a = -1: before b).
        self.gaps = [[_between(a, b) for b in range(len(cards))] for a in range(-1, len(cards))]
        self.exact: dict[_State, _Solved] = {}
        self.ceiling: dict[_State, int] = {}

    def run(self, budget: int, floor: int) -> tuple[int, ...]:
        """The best order, given that some order within ``budget`` reaches ``floor``."""
        state: _State = ((1 << len(self.behaviour)) - 1, (), 0, budget, -1, False)
        if self.solve(state, floor) is None:
            raise AssertionError("the search lost an order it was promised")
        order: list[int] = []
        while state[0]:
            state = self._normal(state)
            _, _, pos, left = self.exact[state]
            order.append(pos)
            child = self._place(state, pos)[1]
            state = child[:3] + (left,) + child[4:]
        return tuple(order)

    @staticmethod
    def _normal(state: _State) -> _State:
        """Forget what cannot matter: swaps beyond what the unplaced cards could
        use, and the last card when no unplaced card started before it."""
        mask, pending, open_value, budget, last, must = state
        n = mask.bit_count()
        if last >= 0 and not mask & ((1 << (last >> 2)) - 1):
            last = -1
        return (mask, pending, open_value, min(budget, n * (n - 1) // 2), last, must)

    def solve(self, state: _State, need: int) -> int | None:
        """The best future total from ``state`` if it is at least ``need``, else None."""
        state = self._normal(state)
        mask, _, open_value = state[:3]
        if not mask:
            return open_value if open_value >= need else None
        known = self.exact.get(state)
        if known is not None:
            return known[0] if known[0] >= need else None
        if self.ceiling.get(state, need) < need:
            return None
        best: tuple[int, int, int] | None = None   # (total, -swaps, -position)
        left = 0
        for rough, pos, cost, gain, child in self._children(state):
            floor = need if best is None else max(need, best[0])
            if rough < floor:
                break                               # children come best rough bound first
            bound = gain + self._bound(child)
            if bound < floor:
                continue
            if best is not None and bound == best[0]:
                child = self._tie_breaker(child, best, pos, cost)
                if child is None or gain + self._bound(child) < floor:
                    continue
            future = self.solve(child, floor - gain)
            if future is None:
                continue
            key = (gain + future, -(cost + self._swaps(child)), -pos)
            if best is None or key > best:
                best, left = key, self._normal(child)[3]
        if best is None:
            self.ceiling[state] = need - 1
            return None
        self.exact[state] = (best[0], -best[1], -best[2], left)
        return best[0]

    @staticmethod
    def _tie_breaker(child: _State, best: tuple[int, int, int], pos: int,
                     cost: int) -> _State | None:
        """``child`` with only the swaps that could still win a tie with ``best``:
        fewer swaps, or as many with an earlier card first."""
        spare = -best[1] - cost - (0 if pos < -best[2] else 1)
        if spare < 0:
            return None
        return child[:3] + (min(spare, child[3]),) + child[4:]

    def _children(self, state: _State) -> list[tuple[int, int, int, int, _State]]:
        """(rough bound, position, swaps, gain, child) of each allowed move,
        best rough bound first."""
        mask, budget = state[0], state[3]
        children = []
        for kind_mask in self.kind_masks:
            left = mask & kind_mask
            if left:
                pos = (left & -left).bit_length() - 1
                cost = (mask & ((1 << pos) - 1)).bit_count()
                placed = self._place(state, pos) if cost <= budget else None
                if placed is not None:
                    gain, child = placed
                    children.append((gain + self._rough_bound(child), pos, cost, gain, child))
        children.sort(key=lambda c: (-c[0], c[1]))
        return children

    def _swaps(self, state: _State) -> int:
        state = self._normal(state)
        return self.exact[state][1] if state[0] else 0

    def _place(self, state: _State, pos: int) -> tuple[int, _State] | None:
        """Place the card at ``pos`` next: (total it closes, new state), or None
        when that makes an out-of-order pair whose swap changes nothing."""
        mask, pending, open_value, budget, last, must = state
        cost = (mask & ((1 << pos) - 1)).bit_count()
        rest = mask & ~(1 << pos)
        kind, value = self.behaviour[pos]
        # The role of the card placed just before, if this one started before it.
        before = -1 if last < 0 or pos > last >> 2 else last & 3
        gain = 0
        if kind == "n" and value in pending:
            if before not in (-1, _THREAT):
                return None
            pending, role = _without(pending, value), _FREE
        elif kind == "n":
            if must or before == _FREE:
                return None
            if before == _SURVIVOR:
                if not rest & self.multipliers:
                    return None
                must = True
            gain, open_value, role = open_value, value, _SURVIVOR
        elif kind == "m":
            if before in (_FREE, _THREAT, _MULT):
                return None
            open_value, must, role = open_value * value, False, _MULT
        elif kind == "t":
            if before in (_FREE, _MULT):
                return None
            victim = self._victim(rest, pending)
            if victim is not None:
                pending = tuple(sorted(pending + (victim,), reverse=True))
            role = _THREAT
        else:
            if before != -1:
                return None
            role = _FREE
        return gain, (rest, pending, open_value, budget - cost, pos << 2 | role, must)

    def _victim(self, rest: int, pending: tuple[int, ...]) -> int | None:
        """The value a threat placed now destroys: the highest unclaimed unplaced number."""
        for value, kind_mask in self.numbers:
            if (rest & kind_mask).bit_count() > pending.count(value):
                return value
        return None

    def _bound(self, state: _State) -> int:
        """An upper bound on the future total within the swaps left.

        The open card plus the unplaced numbers no threat has claimed yet,
        less what threats must destroy, plus at most what the multipliers can
        change.  Each part assumes the best use of all the swaps left, so
        together they can only overshoot.
        """
        mask, pending, open_value, budget = state[:4]
        total, least = open_value, None
        for value, kind_mask in self.numbers:
            count = (mask & kind_mask).bit_count() - pending.count(value)
            if count > 0:
                total, least = total + value * count, value
        destroyed, clearing = self._threat_losses(state)
        if clearing > budget and least is not None:
            destroyed = max(destroyed, least)   # some threat keeps a number behind it
        return total - destroyed + self._multiplied(state)

    def _rough_bound(self, state: _State) -> int:
        """A quick, looser ``_bound``: every multiplier on the largest card, no losses."""
        mask, pending, open_value = state[:3]
        total = top = open_value
        for value, kind_mask in self.numbers:
            count = (mask & kind_mask).bit_count() - pending.count(value)
            if count > 0:
                total, top = total + value * count, max(top, value)
        factor = 1
        for pos in _bits(mask & self.boost_mask):
            factor *= self.behaviour[pos][1]
        return total + top * (factor - 1)

    def _multiplied(self, state: _State) -> int:
        """At most what the unplaced multipliers can add (less what x0s zero).

        When the open card must get a multiplier, one must reach it: if none
        can, no order completes this state; if only x0s can, it is zeroed.
        """
        mask, _, open_value, budget, _, must = state
        cards = self._cards(state)
        landing = self._landing(state)
        zeroed = max((next((value for value, card in reversed(cards)
                            if landing(card, z) <= budget), 0)
                      for z in _bits(mask & self.zeroes)), default=0)
        if must:
            reaching = [m for m in _bits(mask & self.multipliers) if landing(-1, m) <= budget]
            if not reaching:
                return -_INFEASIBLE
            if all(self.behaviour[m][1] == 0 for m in reaching):
                zeroed = max(zeroed, open_value)
        return self._boosted(state, cards, landing) - zeroed

    def _boosted(self, state: _State, cards: list[tuple[int, int]],
                 landing: Callable[[int, int], int]) -> int:
        """The most the multipliers of 2 or more can add.

        Each lands at best on the largest card it can reach.  Taking them
        largest reach first, each multiplies everything stacked so far:
        stacking beats sharing (a*b >= a + b for factors >= 2), and a card
        only takes multipliers that all reach it.
        """
        budget = state[3]
        reach = sorted(((next((value for value, card in cards if landing(card, m) <= budget), 0),
                         self.behaviour[m][1]) for m in _bits(state[0] & self.boost_mask)),
                       reverse=True)
        added, product = 0, 1
        for value, factor in reach:
            added += value * product * (factor - 1)
            product *= factor
        return added

    def _cards(self, state: _State) -> list[tuple[int, int]]:
        """(value, position) of the open card (position -1) and each unplaced
        number, highest value first."""
        mask, open_value = state[0], state[2]
        cards = [(value, n) for value, kind_mask in self.numbers for n in _bits(mask & kind_mask)]
        cards.append((open_value, -1))
        cards.sort(key=lambda card: -card[0])
        return cards

    def _landing(self, state: _State) -> Callable[[int, int], int]:
        """Swaps needed before a multiplier can usefully apply to a card.

        Every number between them must leave that stretch (one swap each)
        unless destroyed: by a claim on its value, or by a threat before it.
        An x0 left between them would zero the card, so for a multiplier of 2
        or more each must leave too.  A card starting after the multiplier
        must also pass it (one more swap).  The open card counts as starting
        before every unplaced card.
        """
        mask, pending = state[:2]
        claimed = 0
        for value, kind_mask in self.numbers:
            if value in pending:
                claimed |= kind_mask
        threats = mask & self.threat_mask

        def swaps(card: int, multiplier: int) -> int:
            stretch = mask & self.gaps[card + 1][multiplier]
            between = stretch & self.number_mask
            early = (threats & ((1 << between.bit_length()) - 1)).bit_count()
            spared = min(len(pending), (between & claimed).bit_count()) + early
            blocking = (stretch & self.zeroes).bit_count() if self.behaviour[multiplier][1] else 0
            return max(0, between.bit_count() - spared) + blocking + (card > multiplier)

        return swaps

    def _threat_losses(self, state: _State) -> tuple[int, int]:
        """(a lower bound on what the unplaced threats will destroy, the swaps
        of threats with numbers needed before no threat has one behind it).

        A number that starts after a threat gets in front of it only by one
        swap with it and one per card between them (each of those must pass
        one of the two); numbers out of reach of the swaps left stay behind
        it.  Threats keep their order (they are one kind), so before the k-th
        unplaced threat acts, only the claimed numbers and k - 1 victims are
        gone: it destroys at least the k-th largest unclaimed number stuck
        behind it.
        Victims are distinct cards, so these add up.
        """
        mask, pending, _, budget = state[:4]
        destroyed = clearing = 0
        for k, t in enumerate(_bits(mask & self.threat_mask)):
            after = mask & self.number_mask & ~((1 << (t + 1)) - 1)
            gaps = self.gaps[t + 1]
            stuck = sorted((self.behaviour[n][1] for n in _bits(after)
                            if (mask & gaps[n]).bit_count() >= budget), reverse=True)
            for value in pending:
                if value in stuck:
                    stuck.remove(value)
            if k < len(stuck):
                destroyed += stuck[k]
            clearing += max(0, after.bit_count() - len(pending))
        return destroyed, clearing


def _between(a: int, b: int) -> int:
    """The bitmask of positions strictly between ``a`` and ``b``."""
    low, high = min(a, b), max(a, b)
    return ((1 << high) - 1) & ~((1 << (low + 1)) - 1)


def _bits(mask: int) -> Iterator[int]:
    """The positions set in ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _behaviour(card: Card, immune: frozenset[str]) -> tuple[str, int]:
    """What a card does in a submission; cards with equal behaviour are interchangeable."""
    if card.kind == "number":
        return ("n", card.value)
    if card.kind == "multiplier":
        return ("m", card.value)
    return ("i", 0) if card.threat in immune else ("t", 0)


def _without(values: tuple[int, ...], value: int) -> tuple[int, ...]:
    i = values.index(value)
    return values[:i] + values[i + 1:]


# ---------------------------------------------------------------------------
# The data bank
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Game length and drawing projects
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Projects: votes and research cards dealt
# ---------------------------------------------------------------------------


class Votable(Protocol):
    """A project as a vote counts it."""

    @property
    def level_number(self) -> int: ...

    @property
    def upgrades(self) -> tuple[str, ...]: ...


class Defender(Protocol):
    """A project in a human vault at the invasion."""

    @property
    def name(self) -> str: ...

    @property
    def defense(self) -> int: ...

    @property
    def fame(self) -> int: ...

    @property
    def side(self) -> str: ...


TOP_SECRET = "top-secret"
PUBLIC_DOMAIN = "public-domain"
SIDES = (TOP_SECRET, PUBLIC_DOMAIN)


@dataclass(frozen=True)
class VaultProject:
    """A claimed project and the vault it went to: enough for votes and the invasion."""

    name: str
    defense: int = 0
    fame: int = 0
    side: str = TOP_SECRET
    level_number: int = 1
    field: str = ""
    upgrades: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.side not in SIDES:
            raise ValueError(f"vault side must be {' or '.join(SIDES)} (got {self.side!r})")
        if self.defense < 0 or self.fame < 0:
            raise ValueError(f"{self.name}: defense and fame must be >= 0")
        if not 1 <= self.level_number <= MAX_TECH_LEVEL:
            raise ValueError(f"{self.name}: tech level must be 1 to {MAX_TECH_LEVEL}")


def votes(projects: Iterable[Votable], trait: str | None = None) -> int:
    """A player's votes: each project's tech level, doubled in a vote on a trait it upgrades.

    A double upgrade of the voted trait still only doubles.
    """
    return sum(p.level_number * (2 if trait is not None and trait in p.upgrades else 1)
               for p in projects)


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


# ---------------------------------------------------------------------------
# The endgame invasion
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AttackLine:
    """One attack card, what it is worth, and why."""

    card: Card
    value: int
    reason: str


@dataclass(frozen=True)
class Attack:
    """The attack against one company: its cards plus the brutality base."""

    lines: tuple[AttackLine, ...]
    base: int

    @property
    def total(self) -> int:
        return self.base + sum(line.value for line in self.lines)


def attack_value(card: Card, human_immune: Iterable[str], alien_tactics: Iterable[str],
                 rules: Rules = Rules()) -> int:
    """What one attack card is worth against one company."""
    return _attack_line(card, _immunities(human_immune), _immunities(alien_tactics), rules).value


def _attack_line(card: Card, immune: frozenset[str], tactics: frozenset[str],
                 rules: Rules) -> AttackLine:
    if card.kind == "number":
        return AttackLine(card, card.value, "face value")
    if card.kind == "multiplier":
        if card.value not in rules.multiplier_attack:
            raise ValueError(f"the rules give no attack value for {card.token}")
        value = rules.multiplier_attack[card.value]
        return AttackLine(card, value, f"{card.token} counts as {value}")
    tactic, is_immune = card.threat in tactics, card.threat in immune
    reason = (f"{'an' if tactic else 'not an'} alien tactic, "
              f"company {'immune' if is_immune else 'not immune'}")
    return AttackLine(card, rules.threat_attack.value(tactic, is_immune), reason)


def attack(cards: Iterable[Card], human_immune: Iterable[str], alien_tactics: Iterable[str],
           brutality_base: int = 0, rules: Rules = Rules()) -> Attack:
    """The total attack against one company: its attack cards plus the brutality base."""
    if brutality_base < 0:
        raise ValueError(f"brutality base attack must be >= 0 (got {brutality_base})")
    immune, tactics = _immunities(human_immune), _immunities(alien_tactics)
    return Attack(tuple(_attack_line(card, immune, tactics, rules) for card in cards),
                  brutality_base)


def mash_cards(alien_projects: int, companies: int, rules: Rules = Rules()) -> int:
    """Extra attack cards from project mashes: one per pair, at most one per company."""
    return min(alien_projects // rules.mash_projects, companies * rules.mash_max_per_company)


def endgame_defense(project: Defender, rules: Rules = Rules()) -> int:
    """A project's defense in the invasion: top secret projects gain a bonus."""
    return project.defense + (rules.top_secret_defense if project.side == TOP_SECRET else 0)


def endgame_fame(project: Defender, rules: Rules = Rules()) -> int:
    """A surviving project's fame: public domain projects gain a bonus."""
    return project.fame + (rules.public_domain_fame if project.side == PUBLIC_DOMAIN else 0)


def defense_total(vault: Iterable[Defender], rules: Rules = Rules()) -> int:
    """A company's whole defense in the invasion, bonuses included."""
    return sum(endgame_defense(p, rules) for p in vault)


@dataclass(frozen=True)
class Outcome:
    """How one company fares against the attack."""

    survived: bool
    attack: int
    defense: int
    discarded: tuple[Defender, ...]
    kept: tuple[Defender, ...]
    fame: int


def resolve_company(vault: Sequence[Defender], attack_total: int,
                    rules: Rules = Rules()) -> Outcome:
    """Survive the attack by discarding projects, keeping as much fame as possible.

    A company survives iff its whole defense meets or beats the attack.  Then
    it discards projects whose defense (bonuses included) meets or beats the
    attack; of all such choices this keeps the most fame (public domain
    bonuses included).  Ties keep the most defense, then the earliest
    projects, so the answer is stable.  Destroyed companies lose everything.
    """
    projects = tuple(vault)
    defense = defense_total(projects, rules)
    if defense < attack_total:
        return Outcome(False, attack_total, defense, projects, (), 0)
    kept = _most_famous_within(projects, defense - max(attack_total, 0), rules)
    return Outcome(True, attack_total, defense,
                   tuple(p for i, p in enumerate(projects) if i not in kept),
                   tuple(projects[i] for i in kept), sum(endgame_fame(projects[i], rules)
                                                         for i in kept))


def _most_famous_within(projects: tuple[Defender, ...], room: int,
                        rules: Rules) -> tuple[int, ...]:
    """Indexes of the projects to keep: most fame with kept defense <= ``room``.

    A 0/1 knapsack over kept defense, exact.  Discarding the rest then covers
    the attack, since total defense - kept defense >= attack.
    """
    # kept defense -> (fame, kept indexes); one entry per reachable defense sum.
    best: dict[int, tuple[int, tuple[int, ...]]] = {0: (0, ())}
    for i, project in enumerate(projects):
        weight, fame = endgame_defense(project, rules), endgame_fame(project, rules)
        for used, (have, chosen) in list(best.items()):
            if used + weight <= room:
                candidate = (have + fame, chosen + (i,))
                current = best.get(used + weight)
                if current is None or _better_keep(candidate, current):
                    best[used + weight] = candidate
    _, (_, chosen) = max(best.items(), key=lambda item: (item[1][0], item[0],
                                                          _earliest(item[1][1])))
    return chosen


def _better_keep(a: tuple[int, tuple[int, ...]], b: tuple[int, tuple[int, ...]]) -> bool:
    return (a[0], _earliest(a[1])) > (b[0], _earliest(b[1]))


def _earliest(chosen: tuple[int, ...]) -> tuple[int, ...]:
    """A key under which sets holding earlier projects compare greater."""
    return tuple(-i for i in chosen)


@dataclass(frozen=True)
class Verdict:
    """Who wins: one company, a tie for the final ISSA president to break, or the alien."""

    companies: tuple[str, ...]

    @property
    def alien_wins(self) -> bool:
        return not self.companies

    @property
    def tie(self) -> bool:
        return len(self.companies) > 1


def winner(outcomes: Mapping[str, Outcome]) -> Verdict:
    """The surviving company with the most fame (ties: all of them); none: the alien."""
    survivors = {company: o.fame for company, o in outcomes.items() if o.survived}
    if not survivors:
        return Verdict(())
    top = max(survivors.values())
    return Verdict(tuple(company for company, fame in survivors.items() if fame == top))
