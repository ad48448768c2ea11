"""Set-up and the turn: the reveal, the event, agendas, research, findings, new projects.

The rulebook's sequence of play (III) and the first steps of the endgame
(IV.1-3), one function per step, on a ``Game``.
"""

from __future__ import annotations

from .. import engine
from .effects import play_event, play_held
from .game import Company, Game


def setup(game: Game) -> None:
    data = game.data
    rng = game.rng
    humans = rng.sample(list(data.humans), game.players - 1)
    cards = humans + [game.alien_card]
    rng.shuffle(cards)
    for c, card in zip(game.companies, cards):
        c.endgame = card
        c.alien = card is game.alien_card
    for level in sorted({p.level_number for p in data.projects}):
        pile = [p for p in data.projects if p.level_number == level]
        rng.shuffle(pile)
        game.piles[level] = pile
    game.draw = list(data.research)
    game.discard = []
    rng.shuffle(game.draw)
    game.to_draw = []
    game.events_draw = list(data.events)
    game.events_discard = []
    rng.shuffle(game.events_draw)
    game.pending, game.pending_votes = None, []
    game.say(f"{game.players} players, {game.length} game (threshold {game.threshold}, must "
             f"reveal by {game.must}), alien: {game.alien_card.name}")
    for c in game.companies:
        chooser = game.alien_policy if c.alien else c.policy
        free = chooser.free_upgrades(game, c, data.free_upgrades)
        c.free = tuple(sorted(free))
        for trait in free:
            c.base[trait] += 1
        game.say(f"seat {c.seat + 1} ({c.policy.name}{', secretly the alien' if c.alien else ''})"
                 f": {c.endgame.name}; upgrades {', '.join(free)}")
        game.sync(c)
    for _ in range(game.players - 1):
        game.center.append(game.piles[1].pop())
    game.say("Projects: " + ", ".join(p.name for p in game.center))
    for c in game.clockwise():
        pick(game, c, same_field_ok=False)


def pick(game: Game, c: Company, same_field_ok: bool = True) -> None:
    """``c`` places its logo on a face-up project, carrying its data bank over."""
    c.needs_project = False
    if not game.center:
        c.project = None
        return
    p = c.policy.pick_project(game, c, game.center)
    before = c.bank
    c.bank = engine.carry_over(c.bank, p.difficulty, same_field_ok and c.last_field == p.field)
    c.project = p
    c.last_field = p.field
    game.say(f"  {game.name(c)} studies {p.name} ({p.difficulty})"
             + (f", bank {before} -> {c.bank}" if before != c.bank else ""))


def play_turn(game: Game) -> bool:
    """One turn; True when the invasion begins."""
    game.say(f"Turn {game.turn} ({game.data_year()}), ISSA president seat {game.president + 1}, "
             f"{len(game.claimed)} projects claimed")
    for c in game.companies:
        c.deal_delta, c.immune_all = 0, False
    game._reshuffle()
    if not game.revealed and len(game.claimed) >= game.threshold:
        alien = next(c for c in game.companies if c.alien)
        if len(game.claimed) >= game.must or game.alien_policy.reveal(game, alien):
            if reveal(game, alien):
                return True
    president = game.companies[game.president]
    if president.vault:
        play_event(game, president)
    for c in game.clockwise():
        play_held(game, c, "before-agendas")
    agendas = {}
    for c in game.clockwise():
        if c.revealed or c.project is None:
            continue
        agendas[c.seat] = c.policy.agenda(game, c)
    if agendas:
        game.say("  agendas: " + ", ".join(f"seat {s + 1} {a.replace('-', ' ')}"
                                             for s, a in sorted(agendas.items())))
    for c in game.clockwise(game.president + 1):
        if agendas.get(c.seat) == "conduct-research":
            count = game.cards_for(c)
            game.deal(c, count)
            game.say(f"  seat {c.seat + 1} is dealt {count} ({len(c.ports)} in its ports)")
    findings(game, agendas)
    new_projects(game)
    game.president = (game.president + 1) % game.players
    if game.revealed:
        game.countdown -= 1
        left = [c for c in game.humans() if c.project is not None]
        if game.countdown <= 0 or not game.center or not left:
            return True
    return False


def reveal(game: Game, alien: Company) -> bool:
    """The alien reveals itself, claims its project and counts down; True: invade now."""
    alien.revealed = True
    game.revealed = True
    game.countdown = game.data.value("eti", alien.upgrades("staffing"))
    game.say(f"  seat {alien.seat + 1} reveals itself: the {game.alien_card.name}! "
             f"E.T.I. {game.countdown} turns")
    if alien.project is not None:
        game.claim_now(alien)
        game.to_draw = []
        for c in game.clockwise():
            if c.needs_project:
                pick(game, c)
    alien.project = None
    game.clear_ports(alien)
    return game.countdown <= 0


def findings(game: Game, agendas: dict[int, str]) -> None:
    rules = game.data.rules
    totals: dict[int, int] = {}
    for c in game.clockwise():
        agenda = agendas.get(c.seat)
        if agenda == "submit-findings":
            if c.policy.standard(game, c):
                extra, immune = play_held(game, c, "standard-submission")
                total = game.best_total(c, extra, immune)
                game.say(f"  {game.name(c)} submits standard: {len(c.ports)} cards score {total}")
            else:
                total = engine.safe_score(len(c.ports), rules)
                game.say(f"  {game.name(c)} submits safe: {total}")
            totals[c.seat] = total
            game.clear_ports(c)
        elif agenda == "switch-projects":
            c.bank = engine.switch(c.bank, len(c.ports), rules)
            game.say(f"  {game.name(c)} switches from {c.project.name}, bank {c.bank}")
            game.clear_ports(c)
            c.project = None
            c.needs_project = True
    contenders: dict[str, list[Company]] = {}
    for seat, total in totals.items():
        c = game.companies[seat]
        if c.bank + total >= c.project.difficulty:
            contenders.setdefault(c.project.id, []).append(c)
    winners = []
    for group in contenders.values():
        top = max(c.bank + totals[c.seat] for c in group)
        tied = [c for c in group if c.bank + totals[c.seat] == top]
        chosen = tied[0] if len(tied) == 1 else \
            game.companies[game.president].policy.tie_break(game, game.companies[game.president],
                                                            tied)
        winners.append(chosen)
    claimed = {c.project.id for c in winners}
    for c in game.clockwise():
        if c in winners or c.project is None:
            continue
        total = totals.get(c.seat)
        if c.project.id in claimed:
            banked = total if total is not None else engine.safe_score(len(c.ports), rules)
            c.last_field = c.project.field
            game.scoop(c, banked)
            game.clear_ports(c)
        elif total is not None:
            c.bank = engine.bank_findings(c.bank, total)
    for c in winners:
        game.claim_now(c)


def new_projects(game: Game) -> None:
    """Claimers draw new projects (none after the reveal); then everyone who must picks."""
    if not game.revealed:
        for c in game.clockwise():
            if c in game.to_draw:
                levels = engine.drawable_levels(p.level_number for p, _ in c.vault)
                open_levels = [lv for lv in levels if game.piles.get(lv)]
                chosen = [c.policy.draw_level(game, c, open_levels)] if open_levels else levels
                p = game.draw_project(chosen)
                if p is not None:
                    game.center.append(p)
                    game.say(f"  {game.name(c)} draws {p.name} (level {p.level_number})")
    game.to_draw = []
    for c in game.clockwise():
        if c.needs_project and not c.revealed:
            pick(game, c)
