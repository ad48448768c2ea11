"""The score, attack and balance commands, end to end through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eti_print.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- score: the rulebook's research examples ---------------------------------

def test_first_example(capsys):
    code, out, _ = run(capsys, "score", "arson", "50", "20", "x0", "30", "spy")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Total: 30"
    assert "  Arson (port 1) destroys 50 (port 2)" in lines
    assert "  20 x 0 + 30 = 30" in lines
    assert lines[-1] == "Safe: 60 (6 cards x 10)"


def test_first_example_with_one_swap(capsys):
    code, out, _ = run(capsys, "score", "arson", "50", "20", "x0", "30", "spy", "--swaps", "1")
    assert code == 0
    assert out.splitlines()[0] == "Total: 50 (best within 1 swap, 1 used; as dealt: 30)"


def test_second_example(capsys):
    code, out, _ = run(capsys, "score", "10", "data-virus", "x2", "40", "20", "x3")
    assert code == 0
    assert out.splitlines()[0] == "Total: 80"
    assert "  10 x 2 + 20 x 3 = 80" in out.splitlines()


def test_second_example_with_two_swaps(capsys):
    code, out, _ = run(capsys, "score", "10", "data-virus", "x2", "40", "20", "x3",
                       "--swaps", "2")
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == "Total: 250 (best within 2 swaps, 2 used; as dealt: 80)"
    assert lines[1] == "Order: 10 40 data-virus x2 20 x3"
    assert lines[2] == "Swaps: ports 3-4, ports 2-3"
    assert "  10 + 40 x 2 x 3 = 250" in lines


def test_immunity(capsys):
    code, out, _ = run(capsys, "score", "arson", "50", "20", "x0", "30", "spy",
                       "--immune", "Arson")
    assert code == 0 and out.splitlines()[0] == "Total: 80"
    assert "  Arson (port 1) is ignored (immune)" in out.splitlines()


def test_score_json(capsys):
    code, out, _ = run(capsys, "score", "10", "Data_Virus", "X2", "40", "20", "x3",
                       "--swaps", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["total"] == 250 and data["as_dealt"] == 80
    assert data["order"] == ["10", "40", "Data_Virus", "X2", "20", "x3"]   # tokens as given
    assert data["swaps_used"] == 2 and data["swaps"] == [3, 2]
    assert data["destroyed"] == [{"threat": "Data_Virus", "threat_port": 3,
                                  "card": "20", "card_port": 5}]
    assert data["safe"] == 60
    assert [m["target_port"] for m in data["multipliers"]] == [2, 2]


def test_score_json_without_swaps(capsys):
    code, out, _ = run(capsys, "score", "x2", "10", "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["total"], data["swaps_used"], data["max_swaps"]) == (10, 0, None)
    assert data["multipliers"] == [{"multiplier": "x2", "port": 1, "target": None,
                                    "target_port": None}]


# --- attack: the endgame example ---------------------------------------------

def test_attack_on_todd(capsys):
    code, out, _ = run(capsys, "attack", "x0", "abduction", "spy", "50", "10",
                       "--immune", "spy", "--immune", "abduction", "--tactic", "spy",
                       "--brutality", "5")
    assert code == 0
    assert out.splitlines()[-1] == "Total attack: 100"


def test_attack_on_angie(capsys):
    code, out, _ = run(capsys, "attack", "x2", "spy", "--tactic", "spy", "--brutality", "5",
                       "--json")
    data = json.loads(out)
    assert code == 0
    assert data["total"] == 75 and data["base"] == 5
    assert [c["value"] for c in data["cards"]] == [20, 50]


# --- usage errors: exit 2, one line, no traceback ----------------------------

@pytest.mark.parametrize("argv", [
    ["score", "10", "fifty"],
    ["score", "-5"],
    ["score", "10", "x4"],
    ["score", "10", "--swaps", "-1"],
    ["score", "10", "--swaps", "two"],
    ["score", "10", "--immune", "ufo"],
    ["score"],
    ["attack", "10", "--tactic", "laser"],
    ["attack", "10", "--brutality", "-5"],
    ["balance", "--trials", "0"],
])
def test_usage_errors_exit_2_with_one_line(capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("eti-print: error:") and "Traceback" not in err


# --- balance -----------------------------------------------------------------

def test_balance_writes_the_pdf(tmp_path: Path, capsys):
    code, out, _ = run(capsys, "balance", "--out", str(tmp_path), "--trials", "20",
                       "--seed", "3", "--games", "1")
    target = tmp_path / "eti-balance.pdf"
    assert code == 0
    assert out.strip() == f"wrote {target.resolve()}"
    first = target.read_bytes()
    assert first.startswith(b"%PDF")
    assert run(capsys, "balance", "--out", str(tmp_path), "--trials", "20", "--seed", "3",
               "--games", "1")[0] == 0
    assert target.read_bytes() == first
    assert [p.name for p in tmp_path.iterdir()] == ["eti-balance.pdf"]


def test_balance_of_a_missing_pack_exits_1(tmp_path: Path, capsys):
    code, _, err = run(capsys, "balance", str(tmp_path / "nowhere"), "--out", str(tmp_path))
    assert code == 1 and "pack folder not found" in err


# --- the deck: 14 data ports, the deck's values and copies --------------------

def test_score_keeps_fourteen_ports_and_names_the_discarded_cards(capsys):
    cards = ["10", "20", "30", "40", "50"] * 2 + ["10", "20", "30", "40", "x2", "spy"]
    code, out, _ = run(capsys, "score", *cards)
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == "Total: 400"
    assert lines[1] == ("Discarded: x2 spy (ports 15-16: the board has 14 data ports; "
                        "cards beyond them are discarded)")
    assert lines[-1] == "Safe: 140 (14 cards x 10)"
    code, out, _ = run(capsys, "score", *cards, "--json")
    data = json.loads(out)
    assert data["total"] == 400 and data["safe"] == 140
    assert data["discarded"] == [{"card": "x2", "port": 15}, {"card": "spy", "port": 16}]


def test_score_of_fourteen_cards_discards_nothing(capsys):
    code, out, _ = run(capsys, "score", *["10"] * 14, "--json")
    assert code == 0 and json.loads(out)["discarded"] == []


def test_values_the_deck_does_not_hold_exit_1(capsys):
    code, out, err = run(capsys, "score", "60", "7", "0")
    assert code == 1 and out == ""
    for value in ("60", "7", "0"):
        assert (f"research: '{value}': the research deck has no {value} card "
                f"(hint: its number cards are 10, 20, 30, 40, 50)") in err
    assert "Traceback" not in err


def test_more_copies_than_the_deck_has_exit_1(capsys):
    code, out, err = run(capsys, "attack", *["spy"] * 5)
    assert code == 1 and out == ""
    assert "research[11].count: 5 x Spy given, but the research deck has 4" in err
    assert run(capsys, "attack", *["spy"] * 4)[0] == 0
    code, _, err = run(capsys, "score", *["50"] * 5)
    assert code == 1 and "5 x 50 given, but the research deck has 4" in err
