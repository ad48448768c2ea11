"""Players as policies: every decision a company (or the alien) makes in a game.

A policy is a small object whose methods each answer one question the rules
ask a player: which trait to upgrade, which immunity to pick, which project to
study, which agenda to play, safe or standard, which vault, whom to favour in
an event, how to place attack cards.  Randomness, where a policy wants it,
comes from the game's own seeded generator (``game.rng``), so a seed replays
a game exactly.

Three honest human policies are offered (``POLICIES``):

- ``cautious``: banks safe points, submits only when a safe submission claims,
  keeps defense well above the expected attack, avoids crowded projects;
- ``greedy``: submits standard as soon as the expected total claims, goes for
  fame in the public domain, draws the highest tech level allowed;
- ``lookahead``: a one-ply lookahead: before each agenda it looks at its
  rivals on the same project (who could claim this turn?) and at whether its
  ports overflow next turn, and submits, researches or switches on that;
  it keeps just enough defense for the alien it knows it faces.

``AlienPolicy`` plays the alien's own decisions: its hidden set-up, when to
reveal, and the invasion (flips, shifts, mashes).  While hidden it plays its
seat's human policy for everything else, as a real alien player would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import engine
from .data import HUMAN_TRAITS, SimCard, SimProject

if TYPE_CHECKING:  # pragma: no cover
    from .game import Company, Game

#: What an event is worth to its beneficiary, in research points, by action.
#: A policy's rough estimate for choosing, bribing and voting; not a rule.
WORTH = {"bank": 1, "upgrade": 40, "steal-bank": 1, "deal-now": 12, "immune-all": 15,
         "move-vault": 5, "fame": 1, "peek-discard": 15, "claim-now": 60,
         "new-project": 10}


class Policy:
    """The shared reading of the game; subclasses set the dials."""

    name = "base"
    #: weights of each trait for the three free upgrades
    upgrade_weights: dict[str, int] = {"staffing": 3, "creativity": 2, "security": 2,
                                       "analysis": 1}
    crowd_penalty = 0.5      # per rival already studying a project
    defense_margin = 1.3     # keep defense above this times the expected attack
    standard_edge = 1.0      # submit standard when its estimate beats safe by this factor
    level_jump = True        # draw the highest tech level allowed

    # -- set-up ---------------------------------------------------------------
    def free_upgrades(self, game: Game, c: Company, count: int) -> list[str]:
        traits = list(self.upgrade_weights)
        weights = [self.upgrade_weights[t] for t in traits]
        return game.rng.choices(traits, weights, k=count)

    def immunity(self, game: Game, c: Company, choices: Sequence[str]) -> str:
        return game.rng.choice(list(choices))

    # -- projects -------------------------------------------------------------
    def pick_project(self, game: Game, c: Company, center: Sequence[SimProject]) -> SimProject:
        def value(p: SimProject) -> float:
            same = c.last_field == p.field
            carried = engine.carry_over(c.bank, p.difficulty, same)
            rivals = sum(1 for o in game.companies if o is not c and o.project is p)
            worth = p.defense + p.fame + 12 * len(p.upgrades) + 5 * c.field_count(p.field)
            cost = max(p.difficulty - carried, 10)
            return worth / cost / (1 + self.crowd_penalty * rivals)
        return max(center, key=lambda p: (value(p), -p.difficulty, p.id))

    def draw_level(self, game: Game, c: Company, levels: Sequence[int]) -> int:
        return levels[-1] if self.level_jump or len(levels) == 1 else levels[-2]

    def vault_side(self, game: Game, c: Company, p: SimProject) -> str:
        need = game.alien_card.get("top_secret_needed", 0) \
            if game.alien_card.get("attack_cards_unless_top_secret") else 0
        if c.top_secret_count() < need:
            return engine.TOP_SECRET
        defense = sum(q.defense + (game.data.rules.top_secret_defense
                                   if side == engine.TOP_SECRET else 0) for q, side in c.vault)
        if defense < self.defense_margin * game.expected_attack():
            return engine.TOP_SECRET
        return engine.PUBLIC_DOMAIN

    # -- the turn -------------------------------------------------------------
    def agenda(self, game: Game, c: Company) -> str:
        need = c.project.difficulty - c.bank
        n = len(c.ports)
        safe = game.data.rules.safe_value * n
        if n and safe >= need:
            return "submit-findings"
        if n and self.standard_edge * game.estimate(c) >= need * 1.1:
            return "submit-findings"
        if not engine.can_conduct_research(n, game.data.rules):
            return "submit-findings"
        return "conduct-research"

    def standard(self, game: Game, c: Company) -> bool:
        """True: a standard submission; False: safe."""
        n = len(c.ports)
        need = c.project.difficulty - c.bank
        safe = game.data.rules.safe_value * n
        if c.known() >= n:
            return game.best_total(c) > safe
        if safe >= need:
            return False
        return game.estimate(c) * self.standard_edge > safe

    # -- events ---------------------------------------------------------------
    def worth(self, game: Game, c: Company, card: SimCard) -> int:
        action = card.get("action")
        amount = abs(card.get("amount", 1) or 1)
        return WORTH.get(action, 5) * (amount if WORTH.get(action) == 1 else 1)

    def offer(self, game: Game, c: Company, card: SimCard) -> int:
        """Banked research points offered to get an event's benefit (non-binding)."""
        return min(c.bank, self.worth(game, c, card) // 2 // 10 * 10)

    def choose(self, game: Game, c: Company, eligible: Sequence[Company],
               offers: dict[int, int], card: SimCard) -> Company:
        """The president's choice of beneficiary: himself, or the best offer."""
        own = self.worth(game, c, card) if c in eligible else -1
        best = max((o for o in eligible if o is not c), key=lambda o: (offers.get(o.seat, 0),
                                                                       -game.distance(o)),
                   default=None)
        if best is None or own >= offers.get(best.seat, 0):
            return c if c in eligible else eligible[0]
        return best

    def upgrade_trait(self, game: Game, c: Company, allowed: Sequence[str]) -> str:
        weights = {t: self.upgrade_weights[t] for t in allowed}
        return max(weights, key=lambda t: (weights[t], -HUMAN_TRAITS.index(t)))

    def victim(self, game: Game, c: Company, choices: Sequence[Company]) -> Company:
        return max(choices, key=lambda o: (o.bank, -game.distance(o)))

    def threat_to_ignore(self, game: Game, c: Company) -> str | None:
        counts: dict[str, int] = {}
        for card in c.ports:
            if card.kind == "threat" and card.threat not in c.immune:
                counts[card.threat] = counts.get(card.threat, 0) + 1
        return max(counts, key=lambda t: (counts[t], t)) if counts else None

    def discard_cards(self, game: Game, c: Company, most: int) -> list[int]:
        """Ports (indexes) to discard after seeing every card: threats first, then x0."""
        bad = [i for i, card in enumerate(c.ports) if card.kind == "threat"
               and card.threat not in c.immune]
        bad += [i for i, card in enumerate(c.ports)
                if card.kind == "multiplier" and card.value == 0]
        return bad[:most]

    def switch_to(self, game: Game, c: Company, p: SimProject) -> bool:
        return c.project is None or (p.defense + p.fame) > (c.project.defense + c.project.fame) \
            and c.bank < p.difficulty // 2

    def flip_vault(self, game: Game, c: Company) -> int | None:
        """Declassified: the vault index to move to the other side, or None."""
        want = self.vault_side(game, c, c.vault[0][0]) if c.vault else None
        for i, (_, side) in enumerate(c.vault):
            if want is not None and side != want:
                return i
        return None

    def fame_project(self, game: Game, c: Company) -> int | None:
        for i, (_, side) in enumerate(c.vault):
            if side == engine.PUBLIC_DOMAIN:
                return i
        return None

    def tie_break(self, game: Game, president: Company, tied: Sequence[Company]) -> Company:
        """The president decides a tie: himself if he is in it, else the nearest clockwise."""
        if president in tied:
            return president
        return min(tied, key=game.distance)

    # -- invasion -------------------------------------------------------------
    def survivalist(self, game: Game, c: Company, attack: float) -> int | None:
        if c.defense_now(game) >= attack or not c.vault:
            return None
        best = max(range(len(c.vault)), key=lambda i: (c.vault[i][0].fame, -i))
        return best if c.vault[best][0].fame else None

    def diplomat_target(self, game: Game, c: Company, humans: Sequence[Company]) -> Company:
        return max(humans, key=lambda o: (o.fame_estimate(game), -game.distance(o)))

    def counter_threat(self, game: Game, c: Company, tactics: Sequence[str],
                       cards: Sequence[engine.Card]) -> str | None:
        seen = [card.threat for card in cards if card.kind == "threat" and card.threat in tactics]
        if seen:
            return max(set(seen), key=lambda t: (seen.count(t), t))
        plain = [t for t in tactics if t not in c.immune]
        return (plain or list(tactics) or [None])[0]


class Cautious(Policy):
    name = "cautious"
    upgrade_weights = {"staffing": 2, "creativity": 1, "security": 3, "analysis": 2}
    crowd_penalty = 1.5
    defense_margin = 1.8
    standard_edge = 0.8
    level_jump = False

    def agenda(self, game: Game, c: Company) -> str:
        n = len(c.ports)
        need = c.project.difficulty - c.bank
        if n and game.data.rules.safe_value * n >= need:
            return "submit-findings"
        if not engine.can_conduct_research(n, game.data.rules):
            return "submit-findings"
        return "conduct-research"


class Greedy(Policy):
    name = "greedy"
    upgrade_weights = {"staffing": 3, "creativity": 3, "security": 1, "analysis": 1}
    crowd_penalty = 0.2
    defense_margin = 1.0
    standard_edge = 1.15


class Lookahead(Policy):
    """One ply: what rivals on the same project could do this turn, and next turn's ports."""

    name = "lookahead"
    upgrade_weights = {"staffing": 3, "creativity": 2, "security": 2, "analysis": 2}
    crowd_penalty = 0.8
    defense_margin = 1.3

    def agenda(self, game: Game, c: Company) -> str:
        rules = game.data.rules
        n = len(c.ports)
        need = c.project.difficulty - c.bank
        best = max(rules.safe_value * n, game.estimate(c))
        rivals = [o for o in game.companies if o is not c and o.project is c.project]
        threatened = any(o.bank + rules.safe_value * len(o.ports) >= o.project.difficulty
                         for o in rivals)
        if n and best >= need:
            return "submit-findings"
        if threatened and n and best >= 0.85 * need:
            return "submit-findings"
        if threatened and c.bank + rules.safe_value * n < 0.5 * need and game.free_projects(c):
            return "switch-projects"
        dealt = game.cards_for(c)
        if n + dealt > rules.data_ports and n and best >= 0.7 * need:
            return "submit-findings"
        if not engine.can_conduct_research(n, rules):
            return "submit-findings"
        return "conduct-research"


POLICIES: dict[str, type[Policy]] = {p.name: p for p in (Cautious, Greedy, Lookahead)}


class AlienPolicy:
    """The alien's own decisions; its seat's human policy plays the rest while hidden."""

    name = "alien"
    upgrades = ("staffing", "security", "analysis")

    def free_upgrades(self, game: Game, c: Company, count: int) -> list[str]:
        return [self.upgrades[i % len(self.upgrades)] for i in range(count)]

    def reveal(self, game: Game, c: Company) -> bool:
        """Reveal at the first chance: the countdown starts as soon as possible."""
        return True

    def place(self, game: Game, table: Any, uses: int) -> None:
        """Use intel: flip the cards of the weakest company, shift overkill to the strongest."""
        for _ in range(uses):
            margins = table.margins()
            if not margins:
                return
            weakest = min(margins, key=lambda s: (margins[s], s))
            strongest = max(margins, key=lambda s: (margins[s], -s))
            if table.hidden(weakest):
                table.flip(weakest)
                continue
            spare = table.spare_card(weakest)
            if spare is not None and strongest != weakest and margins[strongest] >= 0:
                table.shift(weakest, spare, strongest)
                continue
            target = next((s for s in sorted(margins, key=lambda s: -margins[s])
                           if table.hidden(s)), None)
            if target is None:
                return
            table.flip(target)

    def mash_targets(self, game: Game, table: Any, extra: int) -> list[int]:
        margins = table.margins()
        return sorted(margins, key=lambda s: (-margins[s], s))[:extra]
