"""The whole-game simulator: replay, determinism, the rules it plays, and the ladder rule."""

from __future__ import annotations

import dataclasses
import json
from types import MappingProxyType

import pytest

from eti_print.cli import main
from eti_print.games.eti.sim.data import SimData
from eti_print.games.eti.sim.runner import Rate, play_one, run

from conftest import copy_pack, edit, line_of


@pytest.fixture(scope="module")
def data(database):
    return SimData.of(database)


def test_a_replayed_seed_gives_the_same_log_byte_for_byte(data):
    first = play_one(data, (4, "standard", "mothership"), 7, 3, ["lookahead"], log=True)
    again = play_one(data, (4, "standard", "mothership"), 7, 3, ["lookahead"], log=True)
    assert "\n".join(first.log).encode() == "\n".join(again.log).encode()
    assert first.log[-1].endswith("wins.") or "wins with" in first.log[-1]
    other = play_one(data, (4, "standard", "mothership"), 8, 3, ["lookahead"], log=True)
    assert other.log != first.log


def test_results_do_not_depend_on_the_number_of_workers(data):
    configs = [(3, "short", "raiding-party"), (3, "short", "galactic-armada")]
    one = run(data, configs, 6, 11, ["cautious", "greedy"], workers=1)
    two = run(data, configs, 6, 11, ["cautious", "greedy"], workers=2)
    assert one == two


def test_a_game_follows_the_rulebooks_sequence(data):
    result = play_one(data, (3, "standard", "galactic-armada"), 1965, 0,
                      ["cautious", "greedy", "lookahead"], log=True)
    log = "\n".join(result.log)
    assert "threshold 9, must reveal by 12" in log
    # the alien reveals only once the threshold is met, and claims no fewer projects
    reveal = next(i for i, line in enumerate(result.log) if "reveals itself" in line)
    turn_line = next(line for line in reversed(result.log[:reveal]) if line.startswith("Turn"))
    claimed = int(turn_line.split(", ")[-1].split()[0])
    assert 9 <= claimed <= 12
    assert "Invasion" in log and ("wins" in result.log[-1])
    assert len(result.claimed) >= 9


def test_scooped_companies_keep_at_most_the_cap(data):
    seen = 0
    for i in range(12):
        result = play_one(data, (5, "short", "mothership"), 3, i, ["greedy"], log=True)
        for line in result.log:
            if "is scooped" in line:
                seen += 1
                assert int(line.rsplit("-> ", 1)[1]) <= 150   # 100, or Patent Pending's 150
    assert seen


def test_an_alien_card_is_played_from_its_effect_data(data):
    """The same games with the Mothership's effect blanked: the alien wins less often."""
    configs = [(4, "short", "mothership")]
    real = run(data, configs, 16, 5, ["lookahead"], workers=1)[configs[0]]
    blank = [dataclasses.replace(a, effect=MappingProxyType({"action": "invasion"}))
             if a.id == "mothership" else a for a in data.aliens]
    weak = run(dataclasses.replace(data, aliens=tuple(blank)), configs, 16, 5, ["lookahead"],
               workers=1)[configs[0]]
    assert sum(r.winner is None for r in weak) < sum(r.winner is None for r in real)


def test_wilson_interval_brackets_the_rate():
    r = Rate(30, 100)
    lo, hi = r.interval
    assert lo < 0.30 < hi and round(lo, 3) == 0.219 and round(hi, 3) == 0.396


def test_simulate_prints_rates_with_intervals(capsys):
    assert main(["simulate", "--players", "3", "--length", "short", "--games", "4",
                 "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "3 players, short game" in out and "ladder:" in out and "[" in out
    assert main(["simulate", "--players", "3", "--alien", "mothership", "--games", "2",
                 "--json", "--workers", "1"]) == 0
    value = json.loads(capsys.readouterr().out)
    assert value["results"][0]["alien"] == "mothership"
    assert value["results"][0]["alien_wins"]["games"] == 2


@pytest.mark.parametrize("argv, message", [
    (["--players", "9"], "--players must be 3 to 6"),
    (["--alien", "martians"], "--alien must be one of"),
    (["--policy", "reckless"], "--policy must be"),
    (["--games", "0"], "--games must be 1 or more"),
])
def test_simulate_refuses_a_bad_command_line(capsys, argv, message):
    assert main(["simulate", *argv]) == 2
    assert message in capsys.readouterr().err


def test_the_ladder_rule_catches_the_3_and_4_ufo_aliens_swapped(tmp_path):
    from eti_print.games.eti.model import load_database
    from eti_print.games.eti.sim.ladder import ladder_problems
    from eti_print.pack import Pack
    pack = copy_pack(tmp_path / "pack")
    path = pack / "cards" / "endgame.yaml"
    edit(path, "    ufos: 3\n", "    ufos: 9\n")
    edit(path, "    ufos: 4\n", "    ufos: 3\n")
    edit(path, "    ufos: 9\n", "    ufos: 4\n")
    db = load_database(Pack.open(str(pack)))
    problems = [str(p) for p in ladder_problems(db, games=12, configs=[
        (3, "short", a) for a in ("mothership", "galactic-armada")], workers=1)]
    assert problems, "the swapped ladder passed"
    line = line_of(path, "id: mothership") + 2    # its ufos: the card out of place
    assert any(f"endgame.yaml:{line}:" in p and "alien-ladder" in p and
               "Mothership (4 UFOs" in p for p in problems), problems


def test_validate_simulate_refuses_a_pack_without_a_simulator(capsys):
    assert main(["validate", "sci-tech", "--simulate"]) == 2
    assert "--simulate: the pack has no game" in capsys.readouterr().err
