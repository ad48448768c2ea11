"""Event cards, resolved by their declared effects.

Each event card's ``effect:`` (``cards/events.yaml``) names an ``action``
and its parameters; ``ACTIONS`` maps each action to one function here.  No
card is named: a new card with a known action plays without new code, and an
unknown action is refused by the schema before any game starts.

Who benefits follows the card's type: ``immediate`` touches every company
(``who: everyone``, filtered by ``unless_immune`` / ``needs_vault``); in a
``choice`` the ISSA president picks the beneficiary, after offers of banked
research points (non-binding; honest policies pay after the outcome); in a
``vote`` only companies with vaulted projects vote, each project its tech
level (double for the voted trait, ``engine.votes``), all of a player's votes
for one company, ties to the president; a ``held`` card goes to the
president, who plays it at its ``when``.  A revealed alien neither votes nor
benefits.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import engine
from .data import HUMAN_TRAITS, SimCard
from .game import Company, Game


def play_event(game: Game, president: Company) -> None:
    if not game.events_draw:
        game.events_draw = list(game.events_discard)
        game.events_discard = []
        game.rng.shuffle(game.events_draw)
    if not game.events_draw:
        return
    card = game.events_draw.pop()
    game.drawn_events.append(card.id)
    game.say(f"  event: {card.name} ({card.kind})")
    if card.kind == "held":
        if president.revealed:
            game.events_discard.append(card)
            return
        president.held.append(card)
        game.say(f"  seat {president.seat + 1} holds {card.name}")
        return
    game.events_discard.append(card)
    if card.kind == "immediate":
        for c in game.clockwise():
            if _eligible(game, c, card):
                ACTIONS[card.get("action")](game, c, card)
        if card.get("action") == "new-project":
            ACTIONS["new-project"](game, None, card)
        return
    beneficiary = _choose(game, president, card) if card.kind == "choice" \
        else _vote(game, president, card)
    if beneficiary is not None:
        game.say(f"  -> seat {beneficiary.seat + 1}")
        ACTIONS[card.get("action")](game, beneficiary, card)
        _pay(game, beneficiary)


def play_held(game: Game, c: Company, when: str) -> tuple[int, frozenset[str] | None]:
    """Play ``c``'s held cards that fit ``when``; a submission gets (extra swaps, immunities)."""
    extra, immune = 0, None
    for card in [h for h in c.held if h.get("when") == when]:
        action = card.get("action")
        if action == "extra-swaps":
            extra += card.get("amount", 0)
        elif action == "ignore-threat":
            threat = c.policy.threat_to_ignore(game, c)
            if threat is None:
                continue
            immune = (immune or game.immunities(c)) | {threat}
        elif action == "bank":
            c.bank = max(0, c.bank + card.get("amount", 0))
        else:
            continue
        c.held.remove(card)
        game.events_discard.append(card)
        game.say(f"  {game.name(c)} plays {card.name}")
    return extra, immune


def _eligible(game: Game, c: Company, card: SimCard) -> bool:
    if c.revealed:
        return False
    threat = card.get("unless_immune")
    if threat is not None and threat in game.immunities(c):
        return False
    return not (card.get("needs_vault") and not c.vault)


def _choose(game: Game, president: Company, card: SimCard) -> Company | None:
    eligible = game.humans()
    if not eligible:
        return None
    offers = {c.seat: c.policy.offer(game, c, card) for c in eligible if c is not president}
    chosen = president.policy.choose(game, president, eligible, offers, card)
    game.pending = (chosen, president, offers.get(chosen.seat, 0))
    return chosen


def _vote(game: Game, president: Company, card: SimCard) -> Company | None:
    candidates = game.humans()
    voters = [c for c in game.clockwise() if c.vault and not c.revealed]
    if not candidates or not voters:
        return None
    trait = card.vote
    weight = {c.seat: engine.votes([p for p, _ in c.vault], trait) for c in voters}
    offers = {c.seat: c.policy.offer(game, c, card) for c in candidates}
    lead = max(weight.values())
    tally: dict[int, int] = {}
    deals: list[tuple[Company, Company, int]] = []
    for v in voters:
        choice = v
        if weight[v.seat] < lead:     # cannot win alone: sell the votes to the best offer
            bidder = max((c for c in candidates if c is not v),
                         key=lambda c: (offers[c.seat], -game.distance(c)))
            if offers[bidder.seat] > 0:
                choice = bidder
                deals.append((bidder, v, offers[bidder.seat]))
        tally[choice.seat] = tally.get(choice.seat, 0) + weight[v.seat]
    top = max(tally.values())
    tied = [game.companies[s] for s in sorted(tally) if tally[s] == top]
    winner = tied[0] if len(tied) == 1 else president.policy.tie_break(game, president, tied)
    game.say(f"  votes ({trait or 'no trait'}): " +
             ", ".join(f"seat {s + 1} {n}" for s, n in sorted(tally.items())))
    game.pending_votes = [(payer, payee, amount) for payer, payee, amount in deals
                          if payer is winner]
    return winner


def _pay(game: Game, beneficiary: Company) -> None:
    """Non-binding offers, kept by honest players: banked points change hands now."""
    pending = getattr(game, "pending", None)
    deals = list(getattr(game, "pending_votes", []))
    if pending is not None and pending[0] is beneficiary and pending[0] is not pending[1]:
        deals.append((beneficiary, pending[1], pending[2]))
    for payer, payee, amount in deals:
        paid = min(amount, payer.bank)
        if paid:
            payer.bank -= paid
            payee.bank += paid
            game.say(f"  seat {payer.seat + 1} pays seat {payee.seat + 1} {paid} points")
    game.pending, game.pending_votes = None, []


# -- the actions ----------------------------------------------------------


def _discard_cards(game: Game, c: Company, card: SimCard) -> None:
    for _ in range(min(card.get("amount", 1), len(c.ports))):
        game.discard.append(c.ports.pop())
    c.seen = min(c.seen, len(c.ports))


def _bank(game: Game, c: Company, card: SimCard) -> None:
    c.bank = max(0, c.bank + card.get("amount", 0))


def _deal(game: Game, c: Company, card: SimCard) -> None:
    c.deal_delta += card.get("amount", 0)


def _new_project(game: Game, c: Company | None, card: SimCard) -> None:
    if c is None and card.get("who") != "everyone":
        return
    if c is not None and card.get("who") == "everyone":
        return          # an everyone card adds one project, once (called with None)
    levels = sorted(lv for lv, pile in game.piles.items() if pile)
    if not levels:
        return
    if card.get("level") == "any" and c is not None:
        level = c.policy.draw_level(game, c, levels)
    else:
        level = levels[0]
    p = game.piles[level].pop()
    game.center.append(p)
    game.say(f"  {p.name} (level {level}) goes face-up")
    if c is not None and card.get("may_switch") and c.project is not None and \
            c.policy.switch_to(game, c, p):
        c.bank = engine.carry_over(engine.switch(c.bank, len(c.ports), game.data.rules),
                                   p.difficulty, c.project.field == p.field)
        game.clear_ports(c)
        c.project, c.last_field = p, p.field
        game.say(f"  seat {c.seat + 1} switches to it, bank {c.bank}")


def _bank_cap(game: Game, c: Company, card: SimCard) -> None:
    c.bank = min(c.bank, card.get("amount", c.bank))


def _upgrade(game: Game, c: Company, card: SimCard) -> None:
    allowed = [card.get("trait")] if card.get("trait") else list(HUMAN_TRAITS)
    for _ in range(card.get("amount", 1)):
        trait = c.policy.upgrade_trait(game, c, allowed)
        c.base[trait] += 1
        game.say(f"  seat {c.seat + 1} upgrades {trait}")
    game.sync(c)


def _steal_bank(game: Game, c: Company, card: SimCard) -> None:
    threat = card.get("from_not_immune")
    choices = [o for o in game.humans() if o is not c and o.bank > 0
               and (threat is None or threat not in game.immunities(o))]
    if not choices:
        return
    victim = c.policy.victim(game, c, choices)
    moved = min(card.get("amount", 0), victim.bank)
    victim.bank -= moved
    c.bank += moved
    game.say(f"  seat {c.seat + 1} takes {moved} points from seat {victim.seat + 1}")


def _deal_now(game: Game, c: Company, card: SimCard) -> None:
    game.deal(c, card.get("amount", 0))


def _immune_all(game: Game, c: Company, card: SimCard) -> None:
    c.immune_all = True


def _move_vault(game: Game, c: Company, card: SimCard) -> None:
    index = c.policy.flip_vault(game, c)
    if index is None:
        return
    p, side = c.vault[index]
    c.vault[index] = (p, engine.PUBLIC_DOMAIN if side == engine.TOP_SECRET else engine.TOP_SECRET)
    game.say(f"  seat {c.seat + 1} moves {p.name} to the other vault")


def _fame(game: Game, c: Company, card: SimCard) -> None:
    index = c.policy.fame_project(game, c)
    if index is not None:
        c.fame_tokens[index] = c.fame_tokens.get(index, 0) + card.get("amount", 0)


def _peek_discard(game: Game, c: Company, card: SimCard) -> None:
    c.seen = len(c.ports)
    drop = sorted(c.policy.discard_cards(game, c, card.get("amount", 0)), reverse=True)
    for i in drop:
        game.discard.append(c.ports.pop(i))
    c.seen = len(c.ports)


def _claim_now(game: Game, c: Company, card: SimCard) -> None:
    if c.project is not None and c.bank * 2 >= c.project.difficulty:
        game.claim_now(c)


def _held(game: Game, c: Company, card: SimCard) -> None:
    """Held cards are played by ``play_held`` (or in the invasion), never at once."""


ACTIONS: dict[str, Callable[[Game, Company, SimCard], None]] = {
    "discard-cards": _discard_cards, "bank": _bank, "deal": _deal,
    "new-project": _new_project, "bank-cap": _bank_cap, "upgrade": _upgrade,
    "steal-bank": _steal_bank, "deal-now": _deal_now, "immune-all": _immune_all,
    "move-vault": _move_vault, "fame": _fame, "peek-discard": _peek_discard,
    "claim-now": _claim_now, "extra-swaps": _held, "ignore-threat": _held,
    "scoop-cap": _held, "defense": _held,
}
