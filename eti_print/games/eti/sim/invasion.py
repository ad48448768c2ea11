"""The endgame invasion (rulebook IV.4-8), with the alien's card read from its effect.

The alien captures the face-up projects, places attack cards (the length's
multiplier, plus its card's ``attack_cards``; ``attack_cards_unless_top_secret``
more against a company with fewer than ``top_secret_needed`` top secret
projects), uses its intel (its track plus the card's ``intel``) to flip and
shift, adds mash cards, and the humans resolve their endgame cards from the
final ISSA president clockwise.  Attack totals, discards and the winner are
the rules engine's (``engine.attack``, ``engine.resolve_company``,
``engine.winner``).
"""

from __future__ import annotations

import dataclasses

from .. import engine
from .game import Company, Game, Result


class Table:
    """The attack cards in front of each human company, and what the alien has seen."""

    def __init__(self, game: Game, humans: list[Company], tactics: frozenset[str], base: int):
        self.game, self.humans, self.tactics, self.base = game, humans, tactics, base
        self.cards: dict[int, list[engine.Card]] = {c.seat: [] for c in humans}
        self.flipped: dict[int, set[int]] = {c.seat: set() for c in humans}
        self.defense = {c.seat: c.defense_now(game) for c in humans}
        self.by_seat = {c.seat: c for c in humans}

    def value(self, seat: int, card: engine.Card) -> int:
        c = self.by_seat[seat]
        return engine.attack([card], self.game.immunities(c), self.tactics, 0,
                             self.game.data.rules, self.game.data.deck).total

    def expected(self, seat: int) -> float:
        known = sum(self.value(seat, self.cards[seat][i]) for i in self.flipped[seat])
        hidden = len(self.cards[seat]) - len(self.flipped[seat])
        return self.base + known + 24 * hidden

    def margins(self) -> dict[int, float]:
        return {s: self.defense[s] - self.expected(s) for s in self.cards}

    def hidden(self, seat: int) -> bool:
        return len(self.flipped[seat]) < len(self.cards[seat])

    def flip(self, seat: int) -> None:
        i = min(set(range(len(self.cards[seat]))) - self.flipped[seat])
        self.flipped[seat].add(i)
        self.game.say(f"  the alien flips {self.game.data.deck.label(self.cards[seat][i])} "
                      f"against seat {seat + 1}")

    def spare_card(self, seat: int) -> int | None:
        """A card the alien can take from ``seat`` and still beat its defense, if any."""
        total = self.base + sum(self.value(seat, c) for c in self.cards[seat])
        if len(self.flipped[seat]) < len(self.cards[seat]):
            return None
        for i in sorted(self.flipped[seat], key=lambda i: self.value(seat, self.cards[seat][i])):
            if total - self.value(seat, self.cards[seat][i]) > self.defense[seat]:
                return i
        return None

    def shift(self, seat: int, index: int, to: int) -> None:
        card = self.cards[seat].pop(index)
        self.flipped[seat] = {i - (i > index) for i in self.flipped[seat] if i != index}
        self.cards[to].append(card)
        self.flipped[to].add(len(self.cards[to]) - 1)
        self.game.say(f"  the alien shifts {self.game.data.deck.label(card)} from seat "
                      f"{seat + 1} to seat {to + 1}")


def invade(game: Game) -> Result:
    data, rules = game.data, game.data.rules
    alien = next(c for c in game.companies if c.alien)
    if not alien.revealed:
        alien.revealed = True
        game.say(f"  seat {alien.seat + 1} is the alien: the {game.alien_card.name}")
    game.say(f"Invasion (turn {game.turn}), final ISSA president seat {game.president + 1}")
    for p in list(game.center):
        alien.vault.append((p, engine.TOP_SECRET))
        game.say(f"  the alien captures {p.name}")
    game.center = []
    for c in game.companies:
        c.project = None
    game.sync(alien)
    effect = game.alien_card
    tactics = frozenset(data.deck.threats) if effect.get("threats_as_tactics") \
        else frozenset(alien.immune[:data.value("tactics", alien.upgrades("security"))])
    base = max(0, data.value("brutality", alien.upgrades("analysis")) + effect.get("brutality", 0))
    uses = data.value("intel", alien.upgrades("creativity")) + effect.get("intel", 0)
    humans = [c for c in game.clockwise() if not c.alien]
    table = Table(game, humans, tactics, base)
    deck = list(data.research)
    game.rng.shuffle(deck)
    for c in humans:
        count = game.mult + effect.get("attack_cards", 0)
        if c.top_secret_count() < effect.get("top_secret_needed", 0):
            count += effect.get("attack_cards_unless_top_secret", 0)
        table.cards[c.seat] = [deck.pop() for _ in range(count)]
    game.say(f"  tactics {', '.join(sorted(tactics)) or 'none'}; base attack {base}; "
             f"{uses} intel uses")
    game.alien_policy.place(game, table, uses)
    mashes = engine.mash_cards(len(alien.vault), len(humans), rules)
    for seat in game.alien_policy.mash_targets(game, table, mashes):
        table.cards[seat].append(deck.pop())
        game.say(f"  a mash adds an attack card against seat {seat + 1}")
    outcomes = {}
    reveal_cards(game, table, humans)
    for c in humans:
        outcomes[c.seat] = resolve(game, table, c)
    verdict = engine.winner({str(s): o for s, o in outcomes.items()})
    winner: int | None = None
    if not verdict.alien_wins:
        tied = [game.companies[int(s)] for s in verdict.companies]
        president = game.companies[game.president]
        chosen = tied[0] if len(tied) == 1 else president.policy.tie_break(game, president, tied)
        winner = chosen.seat
        game.say(f"Seat {winner + 1} wins with {outcomes[winner].fame} fame.")
    else:
        game.say("No human survives: the alien wins.")
    return Result(game.players, game.length, game.alien_card.id, alien.seat, winner, game.turn,
                  tuple(game.claimed), tuple(game.drawn_events),
                  outcomes[winner].fame if winner is not None else 0,
                  tuple(c.policy.name for c in game.companies),
                  tuple(c.free for c in game.companies),
                  sum(1 for o in outcomes.values() if o.survived),
                  tuple(game.log or ()))


def reveal_cards(game: Game, table: Table, humans: list[Company]) -> None:
    """Humans reveal their endgame cards, from the final ISSA president clockwise."""
    for c in humans:
        card = c.endgame
        c.bonus_rules = game.data.rules
        c.cancelled = frozenset()
        action = card.get("action")
        if action == "fame-to-defense":
            index = c.policy.survivalist(game, c, table.expected(c.seat))
            if index is not None:
                p, side = c.vault[index]
                c.vault[index] = (dataclasses.replace(p, defense=p.defense + p.fame, fame=0), side)
                c.fame_tokens.pop(index, None)
        elif action == "draw-top-secret":
            p = game.draw_project(sorted(lv for lv, pile in game.piles.items() if pile)[:1])
            if p is not None:
                c.vault.append((dataclasses.replace(p, upgrades=()), engine.TOP_SECRET))
        elif action == "move-attack" and table.cards[c.seat]:
            others = [o for o in humans if o is not c]
            if others:
                target = c.policy.diplomat_target(game, c, others)
                i = max(range(len(table.cards[c.seat])),
                        key=lambda i: (i in table.flipped[c.seat] and
                                       table.value(c.seat, table.cards[c.seat][i]), -i))
                table.cards[target.seat].append(table.cards[c.seat].pop(i))
        elif action == "top-secret-defense":
            c.bonus_rules = dataclasses.replace(
                c.bonus_rules, top_secret_defense=c.bonus_rules.top_secret_defense
                + card.get("amount", 0))
        elif action == "public-domain-fame":
            c.bonus_rules = dataclasses.replace(
                c.bonus_rules, public_domain_fame=c.bonus_rules.public_domain_fame
                + card.get("amount", 0))
        elif action == "cancel-tactic":
            tactics = sorted(table.tactics)
            if game.alien_card.get("threats_as_tactics") and not card.get("beats_all_tactics"):
                tactics = []
            threat = c.policy.counter_threat(game, c, tactics, table.cards[c.seat])
            c.cancelled = frozenset([threat]) if threat else frozenset()
        game.say(f"  seat {c.seat + 1} reveals {card.name}")
        for held in [h for h in c.held if h.get("when") == "invasion"]:
            if c.vault and held.get("action") == "defense":
                p, side = c.vault[0]
                c.vault[0] = (dataclasses.replace(p, defense=p.defense + held.get("amount", 0)),
                              side)
                c.held.remove(held)
                game.say(f"  seat {c.seat + 1} plays {held.name}")


def resolve(game: Game, table: Table, c: Company) -> engine.Outcome:
    data = game.data
    strike = engine.attack(table.cards[c.seat], game.immunities(c),
                           table.tactics - c.cancelled, table.base, data.rules, data.deck)
    outcome = engine.resolve_company(game.defenders(c), strike.total, c.bonus_rules)
    game.say(f"  seat {c.seat + 1}: attack {strike.total} "
             f"({' '.join(data.deck.label(card) for card in table.cards[c.seat])}) vs defense "
             f"{outcome.defense}: " + (f"survives with {outcome.fame} fame" if outcome.survived
                                       else "destroyed"))
    return outcome
