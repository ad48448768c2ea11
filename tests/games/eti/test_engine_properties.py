"""Properties of the rules engine, checked on generated queues, banks and vaults."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from eti_print.games.eti.engine import (
    MULTIPLIERS,
    PUBLIC_DOMAIN,
    SIDES,
    THREATS,
    TOP_SECRET,
    Card,
    Rules,
    VaultProject,
    attack,
    best_order,
    carry_over,
    defense_total,
    endgame_defense,
    endgame_fame,
    inversions,
    mash_cards,
    resolve_company,
    safe_score,
    scooped,
    score,
    switch,
    votes,
)

cards = st.one_of(
    st.sampled_from([0, 10, 20, 30, 40, 50]).map(lambda v: Card("number", v)),
    st.sampled_from(MULTIPLIERS).map(lambda f: Card("multiplier", f)),
    st.sampled_from(THREATS).map(lambda t: Card("threat", 0, t)),
)
immunities = st.frozensets(st.sampled_from(THREATS), max_size=3)


def queues(max_size: int):
    return st.lists(cards, max_size=max_size).map(tuple)


def brute_force(queue: tuple[Card, ...], swaps: int, immune: frozenset[str]):
    """(total, swaps, positions) of the best order within ``swaps``: every
    permutation of positions, most points, then fewest swaps, then earliest."""
    best = None
    for order in itertools.permutations(range(len(queue))):
        used = inversions(order)
        if used <= swaps:
            key = (score([queue[i] for i in order], immune).total, -used,
                   tuple(-i for i in order))
            best = key if best is None or key > best else best
    assert best is not None
    return best[0], -best[1], tuple(-i for i in best[2])


# --- the best order within N swaps ------------------------------------------

# queues of up to six cards (720 orders at most); the seven-card queues, 5040 orders
# each, are the next test's
@settings(max_examples=150, deadline=None)
@given(queues(6), st.integers(0, 22), immunities)
def test_best_order_is_exactly_the_brute_force_answer(queue, swaps, immune):
    best = best_order(queue, swaps, immune)
    assert (best.total, best.swaps_used, best.positions) == brute_force(queue, swaps, immune)


@settings(max_examples=30, deadline=None)
@given(st.lists(cards, min_size=6, max_size=7).map(tuple), st.integers(0, 21), immunities)
def test_best_order_is_exact_on_the_longest_brute_forceable_queues(queue, swaps, immune):
    best = best_order(queue, swaps, immune)
    assert (best.total, best.swaps_used, best.positions) == brute_force(queue, swaps, immune)


@settings(max_examples=60, deadline=None)
@given(queues(12), st.integers(0, 12), immunities)
def test_best_order_is_a_reachable_permutation_scoring_its_total(queue, swaps, immune):
    best = best_order(queue, swaps, immune)
    assert sorted(best.positions) == list(range(len(queue)))
    assert best.swaps_used == inversions(best.positions) <= swaps
    assert best.order == tuple(queue[i] for i in best.positions)
    assert score(best.order, immune).total == best.total
    assert best.total >= score(queue, immune).total


@settings(max_examples=40, deadline=None)
@given(queues(12), st.integers(0, 8), immunities)
def test_more_swaps_never_lower_the_best_total(queue, swaps, immune):
    assert best_order(queue, swaps + 1, immune).total >= best_order(queue, swaps, immune).total


@settings(max_examples=40, deadline=None)
@given(queues(10), st.sampled_from(THREATS), immunities)
def test_with_unlimited_swaps_an_immunity_never_lowers_the_best_total(queue, threat, immune):
    # With few swaps it can: in "50 x3 spy 10 x2" the Spy destroys the 10 and
    # sends the x2 back to the 50 (300), while a Spy-immune company scores 170.
    unlimited = len(queue) * len(queue)
    assert (best_order(queue, unlimited, immune | {threat}).total
            >= best_order(queue, unlimited, immune).total)


def test_an_immunity_can_lower_a_total():
    queue = (Card("number", 50), Card("multiplier", 3), Card("threat", 0, "spy"),
             Card("number", 10), Card("multiplier", 2))
    assert score(queue).total == 300
    assert score(queue, {"spy"}).total == 170


# --- one standard submission --------------------------------------------------

@given(queues(14), immunities)
def test_score_explains_every_card(queue, immune):
    result = score(queue, immune)
    assert result.total == sum(c.value for c in result.contributions)
    threats = [i for i, c in enumerate(queue) if c.kind == "threat"]
    handled = [d.threat for d in result.destroyed] + list(result.ignored) + list(result.harmless)
    assert sorted(handled) == threats
    victims = [d.card for d in result.destroyed]
    assert len(set(victims)) == len(victims)
    assert all(d.card > d.threat and queue[d.card].kind == "number" for d in result.destroyed)
    assert [a.multiplier for a in result.attachments] == [
        i for i, c in enumerate(queue) if c.kind == "multiplier"]
    assert all(a.target is None or a.target < a.multiplier for a in result.attachments)
    survivors = {c.card for c in result.contributions}
    numbers = {i for i, c in enumerate(queue) if c.kind == "number"}
    assert survivors == numbers - set(victims)
    assert len(result.describe()) == len(threats) + len(result.attachments)


@given(queues(13), st.sampled_from(THREATS), immunities)
def test_a_threat_at_the_end_cannot_hurt(queue, threat, immune):
    assert score(queue + (Card("threat", 0, threat),), immune).total == score(queue, immune).total


@given(queues(13), st.sampled_from(MULTIPLIERS), immunities)
def test_a_multiplier_at_the_start_does_nothing(queue, factor, immune):
    assert score((Card("multiplier", factor),) + queue, immune).total == score(queue, immune).total


@given(st.integers(0, 14), st.integers(0, 14), st.integers(1, 50))
def test_safe_value_is_linear(a, b, value):
    rules = Rules(safe_value=value)
    assert safe_score(a + b, rules) == safe_score(a, rules) + safe_score(b, rules)
    assert safe_score(a, rules) == a * value


# --- the data bank ------------------------------------------------------------

banks = st.integers(0, 400).map(lambda v: v * 5)


@given(banks, st.integers(0, 500), st.booleans())
def test_carry_over_never_exceeds_the_bank(bank, difficulty, same_field):
    kept = carry_over(bank, difficulty, same_field)
    assert 0 <= kept <= bank
    if same_field:
        assert kept == bank
    else:
        assert kept <= difficulty // 2
        assert kept == bank or kept % 10 == 0


@given(banks, st.integers(0, 14))
def test_scooped_never_exceeds_the_cap_or_a_switch(bank, cards_down):
    kept = scooped(bank, cards_down)
    assert kept <= Rules().scoop_cap
    assert kept <= switch(bank, cards_down)
    assert kept == min(bank + 10 * cards_down, 100)


# --- the invasion ------------------------------------------------------------

projects = st.builds(VaultProject, name=st.sampled_from("ABCDEFGH"),
                     defense=st.integers(0, 8).map(lambda v: v * 5),
                     fame=st.integers(0, 6).map(lambda v: v * 5),
                     side=st.sampled_from(SIDES), level_number=st.integers(1, 5),
                     upgrades=st.lists(st.sampled_from(["staffing", "creativity"]),
                                       max_size=2).map(tuple))


@given(st.lists(cards, max_size=6), immunities, immunities, st.integers(0, 30))
def test_attack_total_is_the_base_plus_each_card(attack_cards, immune, tactics, base):
    strike = attack(attack_cards, immune, tactics, base)
    assert strike.total == base + sum(line.value for line in strike.lines) >= 0
    assert all(line.value in (0, 10, 20, 25, 30, 40, 50) for line in strike.lines)


@settings(max_examples=150)
@given(st.lists(projects, max_size=8), st.integers(0, 300))
def test_resolve_company_keeps_the_most_fame_possible(vault, attack_total):
    outcome = resolve_company(vault, attack_total)
    assert outcome.survived == (defense_total(vault) >= attack_total)
    if not outcome.survived:
        assert outcome.kept == () and outcome.fame == 0
        return
    assert sorted(map(id, outcome.kept + outcome.discarded)) == sorted(map(id, vault))
    assert defense_total(outcome.discarded) >= attack_total
    assert outcome.fame == sum(endgame_fame(p) for p in outcome.kept)
    best = max(sum(endgame_fame(p) for p in keep)
               for n in range(len(vault) + 1) for keep in itertools.combinations(vault, n)
               if defense_total(vault) - sum(endgame_defense(p) for p in keep) >= attack_total)
    assert outcome.fame == best


@given(st.lists(projects, max_size=8))
def test_top_secret_adds_five_defense_each(vault):
    secret = sum(1 for p in vault if p.side == TOP_SECRET)
    assert defense_total(vault) == sum(p.defense for p in vault) + 5 * secret
    assert all(endgame_fame(p) == p.fame + (10 if p.side == PUBLIC_DOMAIN else 0) for p in vault)


@given(st.lists(projects, max_size=8), st.sampled_from(["staffing", "creativity", "analysis"]))
def test_a_trait_vote_at_most_doubles(vault, trait):
    plain = votes(vault)
    assert plain <= votes(vault, trait) <= 2 * plain


@given(st.integers(0, 40), st.integers(1, 6))
def test_mash_cards_are_capped_per_company(alien_projects, companies):
    extra = mash_cards(alien_projects, companies)
    assert extra <= companies and extra <= alien_projects // 2
