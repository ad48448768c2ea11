"""The game plugin API (eti_print.api): hooks checked when a plugin loads, rules counted
as run, commands given a checked pack, per-pack help, game sections of pack.yaml."""

from __future__ import annotations

import pytest

from eti_print.api import HOOKS, Game
from eti_print.cli import main
from eti_print.errors import PluginError
from eti_print.games import article, check_game


def test_a_misspelt_hook_is_refused_naming_the_plugin_the_name_and_the_nearest_hook():
    class Misspelt(Game):
        name = "card"

        def rule(self):
            return {}

    with pytest.raises(PluginError) as info:
        check_game(Misspelt(), "card")
    text = str(info.value)
    assert text.startswith("game plugin card: 'rule' is not a hook")
    assert "did you mean 'rules'?" in text


def test_a_hook_with_another_signature_is_refused():
    class Wrong(Game):
        name = "card"

        def model(self, dataset, extra):
            return None

    with pytest.raises(PluginError, match=r"model\(self, dataset, extra\) does not match "
                                          r"its signature model\(self, dataset"):
        check_game(Wrong(), "card")


def test_every_hook_has_one_documented_signature():
    assert set(HOOKS) >= {"model", "rules", "add_commands", "pack_sections", "job_types"}
    assert str(HOOKS["rules"].signature()).startswith("(self)")
    for hook in HOOKS.values():
        assert getattr(Game, hook.name).__doc__, hook.name


def test_the_shipped_game_passes_its_checks():
    from eti_print.games.eti import GAME
    check_game(GAME, "eti")


@pytest.mark.parametrize("words, expected", [("E.T.I.", "an"), ("tally", "a"),
                                             ("eti", "an"), ("Mad Scientists", "a")])
def test_articles(words, expected):
    assert article(words) == expected


def test_help_of_a_pack_without_a_game_lists_no_game_commands(capsys):
    assert main(["help", "sci-tech"]) == 0
    out = capsys.readouterr().out
    assert "simulate" not in out and "balance" not in out and "build" in out


def test_help_of_the_eti_pack_lists_its_commands(capsys):
    assert main(["help", "eti"]) == 0
    out = capsys.readouterr().out
    assert "simulate" in out and "balance" in out


def test_simulate_help_prints_a_plain_percent(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = capsys.readouterr().out
    assert "95 % interval" in out and "%%" not in out and "[PACK]" in out


def test_the_refusal_names_the_game_with_its_article(capsys):
    assert main(["balance", "sci-tech"]) == 2
    err = capsys.readouterr().err
    assert "'balance' is a command of the E.T.I. game, and the pack sci-tech has no game" in err
