"""Creativity: the exact best order of a queue within N adjacent swaps."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from .cards import DEFAULT_DECK, Card, Deck
from .score import Score, score


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


def best_order(queue: Sequence[Card], swaps: int, immune: Iterable[str] = frozenset(),
               deck: Deck = DEFAULT_DECK) -> Best:
    """The highest standard total reachable with at most ``swaps`` adjacent swaps.

    Exact.  An order is reachable with k adjacent swaps iff it has at most k
    inversions relative to the queue, so this searches orders built port by
    port, charging each card the number of still-unplaced cards that started
    before it.  See ``_SwapSearch`` for why the state stays small.
    """
    if isinstance(swaps, bool) or not isinstance(swaps, int) or swaps < 0:
        raise ValueError(f"swaps must be a whole number >= 0 (got {swaps!r})")
    cards = tuple(queue)
    immunities = deck.immunities(immune)
    as_dealt = score(cards, immunities, deck).total
    positions = _SwapSearch(cards, immunities).run(swaps, as_dealt)
    return Best(score([cards[p] for p in positions], immunities, deck), inversions(positions),
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
