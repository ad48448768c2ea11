"""The rules engine: every worked example of the rulebook, through the public API."""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import pytest

from eti_print.games.eti.engine import (
    PUBLIC_DOMAIN,
    TOP_SECRET,
    Best,
    Card,
    Rules,
    ThreatAttack,
    VaultProject,
    attack,
    attack_value,
    bank_findings,
    best_order,
    can_conduct_research,
    cards_dealt,
    carry_over,
    claim,
    defense_total,
    drawable_levels,
    fallback_level,
    inversions,
    mash_cards,
    must_reveal_by,
    normalize_threat,
    parse_card,
    parse_queue,
    place_in_ports,
    resolve_company,
    safe_score,
    scooped,
    score,
    switch,
    threshold,
    votes,
    winner,
)
from eti_print.yamlload import load

ROOT = Path(__file__).resolve().parents[3]


def q(text: str) -> tuple[Card, ...]:
    return parse_queue(text.split())


def brute_best_total(queue: tuple[Card, ...], swaps: int, immune=frozenset()) -> int:
    """The best total over every order within ``swaps`` adjacent swaps, the slow way."""
    return max(score([queue[i] for i in order], immune).total
               for order in itertools.permutations(range(len(queue)))
               if inversions(order) <= swaps)


# --- cards -------------------------------------------------------------------

@pytest.mark.parametrize("token, card", [
    ("50", Card("number", 50)),
    ("0", Card("number", 0)),
    ("x0", Card("multiplier", 0)),
    ("X2", Card("multiplier", 2)),
    ("x3", Card("multiplier", 3)),
    ("Spy", Card("threat", 0, "spy")),
    ("ARSON", Card("threat", 0, "arson")),
    ("data-virus", Card("threat", 0, "data-virus")),
    ("datavirus", Card("threat", 0, "data-virus")),
    ("Data_Virus", Card("threat", 0, "data-virus")),
    ("abduction", Card("threat", 0, "abduction")),
])
def test_parse_card(token, card):
    assert parse_card(token) == card


@pytest.mark.parametrize("token", ["-5", "x4", "x", "2x", "fifty", "", "1e3", "spy!", "٣",
                                   "1234567890"])
def test_parse_card_rejects_with_one_line(token):
    with pytest.raises(ValueError) as info:
        parse_card(token)
    assert "\n" not in str(info.value)


def test_card_token_and_label():
    assert [c.token for c in q("50 x2 Data_Virus")] == ["50", "x2", "data-virus"]
    assert [c.label for c in q("50 x2 Data_Virus")] == ["50", "x2", "Data Virus"]


@pytest.mark.parametrize("kind, value, threat", [
    ("joker", 0, None), ("number", -10, None), ("threat", 0, None), ("number", 10, "spy"),
    ("threat", 5, "spy"), ("number", True, None),
])
def test_card_rejects_impossible_cards(kind, value, threat):
    with pytest.raises(ValueError):
        Card(kind, value, threat)


def test_normalize_threat():
    assert normalize_threat(" Data Virus ") == "data-virus"
    with pytest.raises(ValueError, match="unknown threat"):
        normalize_threat("ufo")


# --- rules -------------------------------------------------------------------

def test_rules_defaults_are_the_printed_values():
    rules = Rules()
    assert (rules.safe_value, rules.scoop_cap, rules.data_ports) == (10, 100, 14)
    assert (rules.top_secret_defense, rules.public_domain_fame) == (5, 10)
    assert dict(rules.multiplier_attack) == {0: 10, 2: 20, 3: 30}
    assert rules.threat_attack == ThreatAttack(50, 25, 25, 0)
    assert (rules.mash_projects, rules.mash_max_per_company) == (2, 1)


def test_rules_from_shipped_game_yaml_match_the_rulebook():
    game = load(ROOT / "cards" / "game.yaml").data
    rules = Rules.from_mapping(game["rules"], game["game"]["data_ports"])
    assert rules == Rules()
    hash(rules)


def test_rules_from_mapping_rejects_missing_and_unknown_keys():
    good = {"safe_value": 10, "scoop_cap": 100, "top_secret_defense": 5,
            "public_domain_fame": 10, "multiplier_attack": {"x0": 10, "x2": 20, "x3": 30},
            "threat_attack": {"tactic_not_immune": 50, "tactic_immune": 25,
                              "plain_not_immune": 25, "plain_immune": 0},
            "mash_projects": 2, "mash_max_per_company": 1}
    assert Rules.from_mapping(good, 14) == Rules()
    with pytest.raises(ValueError, match="missing scoop_cap"):
        Rules.from_mapping({k: v for k, v in good.items() if k != "scoop_cap"}, 14)
    with pytest.raises(ValueError, match="unknown bonus"):
        Rules.from_mapping({**good, "bonus": 1}, 14)
    with pytest.raises(ValueError, match="not a multiplier"):
        Rules.from_mapping({**good, "multiplier_attack": {"spy": 10}}, 14)


def test_rules_do_not_share_a_callers_dict():
    table = {0: 10, 2: 20, 3: 30}
    rules = Rules(multiplier_attack=table)
    table[2] = 99
    assert rules.multiplier_attack[2] == 20


# --- submitting findings: the rulebook's two examples ------------------------

# First example, reconstructed from the prose.  Without Arson immunity she
# loses the 50; the Spy is last so it harms nothing; the total is written
# "20 x 0 + 30 = 30".  Swapping the 50 and the Arson makes the Arson cancel
# the 30: "50 + 20 x 0 = 50".  So the Arson comes right before the 50, the 20
# and x0 sit between the 50 and the 30 (the order both sums are written in),
# and the Spy is last: ARSON 50 20 x0 30 SPY.  ("20 x0 arson 50 30 spy" also
# scores 30 and 50 but would write the second sum "20 x 0 + 50".)
EXAMPLE_1 = "arson 50 20 x0 30 spy"

# Second example.  Without Data Virus immunity he loses the 40, and the 10 and
# the 20 each get a multiplier: "10 x 2 + 20 x 3 = 80".  Moving the 40 two
# spots left makes the Data Virus cancel the 20 and puts both multipliers on
# the 40: "10 + 40 x 2 x 3 = 250".  So the 40 starts two spots right of the
# Data Virus with the x2 between them, the 20 and x3 follow:
# 10 DATA-VIRUS x2 40 20 x3.  (In "10 x2 data-virus 40 20 x3" a single swap
# would already reach 140, while the rulebook needs "enough creativity to
# make two swaps".)
EXAMPLE_2 = "10 data-virus x2 40 20 x3"


def test_first_example_without_swaps():
    result = score(q(EXAMPLE_1))
    assert result.total == 30
    assert result.formula() == "20 x 0 + 30 = 30"
    assert result.describe() == [
        "Arson (port 1) destroys 50 (port 2)",
        "x0 (port 4) zeroes 20 (port 3)",
        "Spy (port 6) has nothing left to destroy",
    ]


def test_first_example_the_rulebooks_swap():
    swapped = score(q("50 arson 20 x0 30 spy"))
    assert swapped.formula() == "50 + 20 x 0 = 50"
    assert swapped.describe()[0] == "Arson (port 2) destroys 30 (port 5)"


def test_first_example_with_one_swap_reaches_exactly_50():
    queue = q(EXAMPLE_1)
    best = best_order(queue, 1)
    assert (best.total, best.swaps_used) == (50, 1)
    assert brute_best_total(queue, 1) == 50
    assert best_order(queue, 0).total == 30


def test_first_example_with_arson_immunity_keeps_the_50():
    result = score(q(EXAMPLE_1), immune={"Arson"})
    assert result.total == 80
    assert "Arson (port 1) is ignored (immune)" in result.describe()


def test_second_example_without_swaps():
    result = score(q(EXAMPLE_2))
    assert result.total == 80
    assert result.formula() == "10 x 2 + 20 x 3 = 80"
    assert result.describe() == [
        "Data Virus (port 2) destroys 40 (port 4)",
        "x2 (port 3) doubles 10 (port 1)",
        "x3 (port 6) triples 20 (port 5)",
    ]


def test_second_example_the_rulebooks_swaps():
    moved = score(q("10 40 data-virus x2 20 x3"))
    assert moved.formula() == "10 + 40 x 2 x 3 = 250"


def test_second_example_needs_two_swaps_for_250_and_no_better_exists():
    queue = q(EXAMPLE_2)
    assert best_order(queue, 1).total == 80 == brute_best_total(queue, 1)
    best = best_order(queue, 2)
    assert (best.total, best.swaps_used) == (250, 2)
    assert [c.token for c in best.order] == "10 40 data-virus x2 20 x3".split()
    assert brute_best_total(queue, 2) == 250


def test_second_example_with_data_virus_immunity():
    assert score(q(EXAMPLE_2), immune=["data virus"]).formula() == "10 x 2 + 40 + 20 x 3 = 120"


# --- submitting findings: the rules themselves -------------------------------

def test_threat_destroys_the_nearest_of_equal_highest_cards():
    result = score(q("spy 20 50 x2 50"))
    assert [(d.threat, d.card) for d in result.destroyed] == [(0, 2)]
    assert result.formula() == "20 x 2 + 50 = 90"


def test_threats_resolve_from_port_1_and_never_touch_multipliers_or_threats():
    result = score(q("arson spy x3 30 40"))
    assert [(d.threat, d.card) for d in result.destroyed] == [(0, 4), (1, 3)]
    assert result.total == 0
    assert result.describe()[-1] == "x3 (port 3) has no effect (no number before it)"


def test_destroyed_cards_pass_their_multipliers_back():
    assert score(q("20 spy 40 x2")).formula() == "20 x 2 = 40"


def test_multipliers_stack_and_x0_zeroes():
    assert score(q("10 x2 x2")).formula() == "10 x 2 x 2 = 40"
    assert score(q("30 x3 x0 10")).total == 10


def test_a_queue_of_nothing_scores_nothing():
    assert score(()).formula() == "0 = 0"
    assert best_order((), 5).total == 0


def test_safe_submission_is_ten_per_card():
    assert safe_score(6) == 60
    assert safe_score(0) == 0
    assert safe_score(3, Rules(safe_value=15)) == 45
    with pytest.raises(ValueError):
        safe_score(-1)


def test_best_order_tie_break_is_fewest_swaps_then_earliest_order():
    # Both single swaps of EXAMPLE_1 that score 50 are found; the order whose
    # first differing port holds the earlier card wins.
    best = best_order(q(EXAMPLE_1), 1)
    assert best.positions == (0, 1, 3, 2, 4, 5)
    assert best_order(q("10 20 30"), 3).swaps_used == 0


def test_best_swaps_replay_to_the_order():
    queue = q("spy 10 x2 40 arson 20 x3 30")
    best = best_order(queue, 6)
    cards = list(queue)
    for port in best.swaps():
        cards[port - 1], cards[port] = cards[port], cards[port - 1]
    assert tuple(cards) == best.order
    assert len(best.swaps()) == best.swaps_used <= 6


def test_best_order_with_unlimited_swaps_puts_every_multiplier_on_the_top_card():
    queue = q("x2 10 spy 20 x3 50 x0 arson 40")
    best = best_order(queue, 91)
    assert best.total == 50 * 6 + 10 + 20 + 40
    assert isinstance(best, Best)


def test_best_order_rejects_negative_swaps():
    with pytest.raises(ValueError):
        best_order(q("10"), -1)


def test_immunities_are_names_not_a_string():
    with pytest.raises(TypeError):
        score(q("spy 10"), immune="spy")


# --- the data bank -----------------------------------------------------------

def test_scooped_while_submitting():
    # 90 submitted on top of 50 banked is 140, cut to 100 when scooped.
    assert bank_findings(50, 90) == 140
    assert scooped(bank_findings(50, 90), 0) == 100


def test_scooped_while_conducting_research():
    assert scooped(70, 5) == 100            # 70 + 50 = 120, kept: 100
    assert scooped(130, 10) == 100          # 130 + 100, kept: 100
    assert scooped(20, 3) == 50             # under the cap: all of it


def test_switching_projects():
    assert switch(100, 5) == 150
    assert carry_over(150, 180, same_field=False) == 90
    assert carry_over(150, 300, same_field=False) == 150
    assert carry_over(150, 230, same_field=False) == 110     # 230 / 2 = 115 -> 110
    assert carry_over(150, 230, same_field=True) == 150


def test_claiming_resets_the_bank():
    assert claim() == 0


# --- game length, drawing projects -------------------------------------------

def test_thresholds():
    assert threshold(5, 2) == 10                 # five players, short game
    assert threshold(3, 3) == 9                  # three players, standard game
    assert must_reveal_by(3, 3) == 12


def test_drawable_levels():
    assert drawable_levels([2]) == (1, 2, 3)
    assert drawable_levels([1, 1]) == (1, 2)
    assert drawable_levels([5, 3]) == (1, 2, 3, 4, 5)
    assert drawable_levels([]) == (1,)


def test_fallback_level():
    assert fallback_level({1, 4, 5}, (1, 2, 3)) is None          # level I is still there
    assert fallback_level({4, 5}, (1, 2, 3)) == 4                # the lowest available
    assert fallback_level(set(), (1, 2)) is None                 # nothing left anywhere


# --- votes, research cards ---------------------------------------------------

def test_votes():
    level_one = VaultProject("A", level_number=1)
    level_three = VaultProject("B", level_number=3)
    assert votes([level_one, level_one, level_three]) == 5
    creative = VaultProject("C", level_number=2, upgrades=("creativity",))
    assert votes([creative], "creativity") == 4
    assert votes([creative], "security") == 2
    doubly = VaultProject("D", level_number=2, upgrades=("creativity", "creativity"))
    assert votes([doubly], "creativity") == 4


def test_cards_dealt_adds_one_per_vaulted_project_in_the_field():
    assert cards_dealt(3, ["weaponry", "weaponry", "sensors"], "weaponry") == 5
    assert cards_dealt(3, ["weaponry"], "physics") == 3


def test_fourteen_data_ports():
    assert place_in_ports(10, 6) == (4, 2)
    assert place_in_ports(0, 5) == (5, 0)
    assert can_conduct_research(13)
    assert not can_conduct_research(14)
    with pytest.raises(ValueError):
        place_in_ports(15, 1)


# --- the endgame invasion: the rulebook's example ----------------------------

FRANK_TACTICS = {"spy"}
FRANK_BASE = 5

TODD = [
    VaultProject("Assault Rifles", 20, 0, TOP_SECRET),
    VaultProject("Mechanical Exoskeletons", 20, 20, TOP_SECRET),
    VaultProject("Space Flight Calculations", 20, 10, PUBLIC_DOMAIN),
    VaultProject("String Theory", 20, 30, PUBLIC_DOMAIN),
]
TODD_IMMUNE = {"spy", "abduction"}

ANGIE = [
    VaultProject("Transplant Surgery", 0, 10, TOP_SECRET),
    VaultProject("Advanced Neuroscience", 0, 30, TOP_SECRET),
    VaultProject("Satellite Network", 20, 20, PUBLIC_DOMAIN),
    VaultProject("Alien Detection", 20, 0, PUBLIC_DOMAIN),
]


def test_endgame_defense_totals_before_the_endgame_cards():
    assert defense_total(TODD) == 90
    # The rulebook prints "40 defense total" for Angie, but her four projects
    # sum to 50 (0+5, 0+5, 20, 20) and the example later uses 50 + 15 = 65:
    # the "40" is a misprint.
    assert defense_total(ANGIE) == 50


def test_endgame_todd_survives_with_20_fame():
    # The Survivalist shifts String Theory's 30 fame to its defense.
    todd = [replace(p, defense=50, fame=0) if p.name == "String Theory" else p for p in TODD]
    assert defense_total(todd) == 120
    strike = attack(q("x0 abduction spy 50 10"), TODD_IMMUNE, FRANK_TACTICS, FRANK_BASE)
    assert [line.value for line in strike.lines] == [10, 0, 25, 50, 10]
    assert strike.total == 100
    outcome = resolve_company(todd, strike.total)
    assert outcome.survived
    assert [p.name for p in outcome.kept] == ["Space Flight Calculations"]
    assert outcome.fame == 20                     # 10 + 10 public domain bonus
    assert defense_total(outcome.discarded) >= 100


def test_endgame_angie_is_destroyed():
    # The Visionary draws Computer Languages (10/10) into her top secret vault.
    angie = ANGIE + [VaultProject("Computer Languages", 10, 10, TOP_SECRET)]
    assert defense_total(angie) == 65
    strike = attack(q("x2 spy"), set(), FRANK_TACTICS, FRANK_BASE)
    assert strike.total == 75
    outcome = resolve_company(angie, strike.total)
    assert not outcome.survived and outcome.fame == 0 and outcome.kept == ()


def test_endgame_todd_wins():
    todd = [replace(p, defense=50, fame=0) if p.name == "String Theory" else p for p in TODD]
    angie = ANGIE + [VaultProject("Computer Languages", 10, 10, TOP_SECRET)]
    verdict = winner({"Todd": resolve_company(todd, 100), "Angie": resolve_company(angie, 75)})
    assert verdict.companies == ("Todd",)
    assert not verdict.alien_wins and not verdict.tie


def test_frank_makes_one_mash_with_three_projects():
    assert mash_cards(3, 2) == 1
    assert mash_cards(9, 2) == 2                  # at most one extra card per company
    assert mash_cards(1, 5) == 0


def test_attack_values_table():
    arson = parse_card("arson")
    assert attack_value(arson, {"arson"}, {"arson"}) == 25     # the rulebook's example
    assert attack_value(arson, set(), {"arson"}) == 50
    assert attack_value(arson, set(), set()) == 25
    assert attack_value(arson, {"arson"}, set()) == 0
    assert attack_value(parse_card("x3"), set(), set()) == 30
    assert attack_value(parse_card("40"), set(), set()) == 40


def test_attack_rejects_a_negative_base():
    with pytest.raises(ValueError):
        attack(q("10"), set(), set(), -5)


def test_survive_with_nothing_left():
    vault = [VaultProject("A", 30, 10, PUBLIC_DOMAIN), VaultProject("B", 20, 20, TOP_SECRET)]
    outcome = resolve_company(vault, 55)          # 30 + 25 = 55 meets the attack
    assert outcome.survived and outcome.kept == () and outcome.fame == 0


def test_discard_choice_maximises_surviving_fame():
    vault = [VaultProject("Big", 40, 0, TOP_SECRET),          # 45 defense, no fame
             VaultProject("Famous", 10, 30, PUBLIC_DOMAIN),   # 10 defense, 40 fame kept
             VaultProject("Middling", 20, 15, TOP_SECRET)]    # 25 defense, 15 fame
    outcome = resolve_company(vault, 45)
    assert [p.name for p in outcome.discarded] == ["Big"]
    assert outcome.fame == 55


def test_winner_ties_and_the_alien():
    vault = [VaultProject("A", 50, 10, PUBLIC_DOMAIN)]
    alive = resolve_company(vault, 0)
    dead = resolve_company(vault, 60)
    assert winner({"a": alive, "b": alive, "c": dead}).companies == ("a", "b")
    assert winner({"a": alive, "b": alive}).tie
    assert winner({"a": dead, "b": dead}).alien_wins
    assert winner({}).alien_wins


def test_vault_project_rejects_bad_values():
    with pytest.raises(ValueError):
        VaultProject("A", side="basement")
    with pytest.raises(ValueError):
        VaultProject("A", defense=-5)
    with pytest.raises(ValueError):
        VaultProject("A", level_number=6)
