"""The engine reads threats and multipliers from the data, not from constants.

A copy of the shipped pack with a threat renamed (Arson becomes Sabotage) and
no x3 research cards (they are x2s) changes what ``parse_queue``, scoring,
the attack and the ``score``/``attack`` commands accept.  (The pack checks
keep multipliers to the rulebook's x0, x2 and x3, so a new factor such as x4
is shown on a ``Deck`` of its own.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from eti_print.cli import main
from eti_print.errors import InputError
from eti_print.games.eti import engine
from eti_print.games.eti.engine import DEFAULT_DECK, Card, Deck, Rules
from eti_print.games.eti.model import load_database
from eti_print.pack import Pack

ROOT = Path(__file__).resolve().parents[3]


def _copy_pack(root: Path) -> Path:
    """A copy of the shipped pack (its data, templates and fonts) at ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for name in ("pack.yaml", "cards", "templates", "fonts"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name)
        else:
            shutil.copy(source, root / name)
    return root


def _edit(path: Path, *pairs: tuple[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    for old, new in pairs:
        assert old in text, f"{old!r} not in {path}"
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def variant(tmp_path_factory) -> Path:
    """The shipped pack with Arson renamed Sabotage and its four x3 cards made x2s."""
    root = _copy_pack(tmp_path_factory.mktemp("variant"))
    cards = root / "cards"
    _edit(cards / "threats.yaml",
          ("{id: arson, name: Arson, icon: threat-arson}",
           "{id: sabotage, name: Sabotage, icon: threat-arson}"))
    _edit(cards / "research.yaml",
          ("{kind: threat, threat: arson, count: 4}", "{kind: threat, threat: sabotage, count: 4}"),
          ("{kind: multiplier, value: 2, count: 6}", "{kind: multiplier, value: 2, count: 10}"),
          ("  - {kind: multiplier, value: 3, count: 4}\n", ""))
    return root


@pytest.fixture(scope="module")
def db(variant):
    return load_database(Pack.open(str(variant)))


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# --- the shipped data is the rulebook's -------------------------------------

def test_a_broken_threat_list_still_builds_a_deck(tmp_path):
    """Model building never fails on bad threats: the schemas and checks report them."""
    root = _copy_pack(tmp_path / "pack")
    _edit(root / "cards" / "threats.yaml", ("{id: arson, name: Arson,", "{id: spy, name: Arson,"))
    with pytest.raises(InputError) as info:
        load_database(Pack.open(str(root)))
    assert "spy" in str(info.value)


def test_the_shipped_deck_is_the_default():
    shipped = load_database()
    assert shipped.deck == DEFAULT_DECK
    assert shipped.deck.threats == tuple(t.id for t in shipped.threats)
    assert shipped.deck.names == tuple(t.name for t in shipped.threats)
    assert shipped.deck.multipliers == tuple(sorted(
        {e.value for e in shipped.research if e.kind == "multiplier"}))
    assert shipped.rules.multiplier_attack == {0: 10, 2: 20, 3: 30}


# --- a deck of one's own ----------------------------------------------------

OWN = Deck.of([("spy", "Spy"), ("sabotage", "Sabotage"), ("mind-control", "Mind Control")],
              [4, 0, 2])


def test_a_deck_names_its_own_threats():
    assert OWN.multipliers == (0, 2, 4)
    assert OWN.normalize_threat("Mind Control") == "mind-control"
    assert OWN.normalize_threat("MIND_CONTROL") == "mind-control"
    assert engine.normalize_threat("sabotage", OWN) == "sabotage"
    with pytest.raises(ValueError, match="threats are spy, sabotage, mind-control"):
        OWN.normalize_threat("arson")
    with pytest.raises(ValueError, match="unknown threat"):
        engine.normalize_threat("sabotage")           # not one of the rulebook's


def test_a_deck_parses_its_own_multipliers():
    assert engine.parse_queue(["50", "x4", "sabotage"], OWN) == (
        Card("number", 50), Card("multiplier", 4), Card("threat", 0, "sabotage"))
    with pytest.raises(ValueError, match=r"no x3 research card \(multipliers are x0, x2 and x4\)"):
        OWN.parse_card("x3")
    with pytest.raises(ValueError, match="no x4 research card"):
        engine.parse_card("x4")
    with pytest.raises(ValueError, match="use a number such as 30, x0, x2, x4, or a threat: "
                                         "spy, sabotage, mind-control"):
        OWN.parse_card("arson")


def test_scoring_resolves_immunities_against_the_deck():
    queue = OWN.parse_queue("Sabotage 50 20 x4".split())
    assert engine.score(queue, deck=OWN).total == 80                      # 20 x 4
    assert engine.score(queue, ["sabotage"], OWN).total == 50 + 80
    assert engine.score(queue, ["Sabotage"], OWN).describe(OWN) == [
        "Sabotage (port 1) is ignored (immune)", "x4 (port 4) multiplies 20 (port 3) by 4"]
    assert engine.best_order(queue, 1, ["SABOTAGE"], OWN).total == 50 * 4 + 20   # x4 on the 50
    with pytest.raises(ValueError, match="unknown threat"):
        engine.score(queue, ["sabotage"])                                 # the rulebook's deck


def test_a_bad_deck_is_refused():
    with pytest.raises(ValueError, match="both called"):
        Deck.of([("data-virus", "Data Virus"), ("virus", "Data-Virus")], [2])
    with pytest.raises(ValueError, match="threats listed twice"):
        Deck.of([("spy", "Spy"), ("spy", "Spy")], [2])
    with pytest.raises(ValueError, match="not a slug"):
        Deck.of([("Data Virus", "Data Virus")], [2])
    with pytest.raises(ValueError, match="multiplier"):
        Deck.of([("spy", "Spy")], [10])


def test_the_attack_needs_a_value_for_each_multiplier_played():
    rules = Rules(multiplier_attack={0: 10, 2: 20, 4: 40})
    x4 = OWN.parse_card("x4")
    assert engine.attack_value(x4, [], [], rules, OWN) == 40
    assert engine.attack([x4, OWN.parse_card("sabotage")], [], ["Sabotage"], 0, rules,
                         OWN).total == 90
    with pytest.raises(ValueError, match="no attack value for x4"):
        engine.attack_value(x4, [], [])                               # the rulebook's rules
    game = load_database().dataset.docs["game"].data["rules"]
    assert Rules.from_mapping({**game, "multiplier_attack": {"x0": 1, "x4": 4}},
                              14).multiplier_attack == {0: 1, 4: 4}


# --- a pack copy: the data decides ------------------------------------------

def test_the_database_builds_its_deck_from_the_data(db):
    assert db.deck.threats == ("abduction", "sabotage", "data-virus", "spy")
    assert db.deck.name("sabotage") == "Sabotage"
    assert db.deck.multipliers == (0, 2)
    assert engine.parse_queue(["Sabotage", "50", "x2"], db.deck) == (
        Card("threat", 0, "sabotage"), Card("number", 50), Card("multiplier", 2))
    for token in ("arson", "x3"):
        with pytest.raises(ValueError):
            engine.parse_queue([token], db.deck)
    assert engine.score(db.deck.parse_queue("sabotage 50 20".split()), ["SABOTAGE"],
                        db.deck).total == 70


def test_the_attack_reads_the_pack(db):
    strike = engine.attack(engine.parse_queue("x2 Sabotage".split(), db.deck), [],
                           ["sabotage"], 5, db.rules, db.deck)
    assert [line.value for line in strike.lines] == [20, 50]
    assert strike.total == 75


def test_the_score_command_reads_the_pack(variant, capsys):
    code, out, _ = run(capsys, "score", "--pack", str(variant), "sabotage", "50", "20", "x2",
                       "--immune", "Sabotage")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Total: 90"
    assert "  Sabotage (port 1) is ignored (immune)" in lines
    assert "  x2 (port 4) doubles 20 (port 3)" in lines
    code, _, err = run(capsys, "score", "--pack", str(variant), "arson", "50")
    assert code == 2 and "'arson' is not a research card" in err and "sabotage" in err
    code, _, err = run(capsys, "score", "--pack", str(variant), "50", "x3")
    assert code == 2 and "no x3 research card (multipliers are x0 and x2)" in err
    code, _, err = run(capsys, "score", "--pack", str(variant), "50", "--immune", "arson")
    assert code == 2 and "--immune: unknown threat 'arson'" in err
    code, _, err = run(capsys, "score", "sabotage")                   # the shipped pack
    assert code == 2 and "'sabotage' is not a research card" in err


def test_the_attack_command_reads_the_pack(variant, capsys):
    code, out, _ = run(capsys, "attack", "--pack", str(variant), "x2", "sabotage",
                       "--tactic", "Sabotage", "--brutality", "5")
    assert code == 0
    assert out.splitlines()[-1] == "Total attack: 75"
    code, _, err = run(capsys, "attack", "--pack", str(variant), "x3")
    assert code == 2 and "no x3 research card" in err
