"""The game seam: games are plugins found by entry point, and the core names none.

A second game (``tests/packs/tally``, plugin ``tests/packs/tally_plugin``) with
one rule and one command is added as an installed plugin plus a pack, without
touching eti-print; a pack without a game gets no game commands.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from eti_print.cli import main
from eti_print.errors import InputError
from eti_print.games import get_game, registry

from conftest import ROOT, edit

HERE = Path(__file__).resolve().parent
TALLY = HERE / "packs" / "tally"
PLUGIN = HERE / "packs" / "tally_plugin"


def tally_pack(dest: Path) -> Path:
    shutil.copytree(TALLY, dest)
    shutil.copytree(ROOT / "fonts", dest / "fonts")
    return dest


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The CLI in a new process with the tally plugin installed (on the path, with its
    entry point), as ``pip install`` would leave it."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(PLUGIN)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    return subprocess.run([sys.executable, "-m", "eti_print.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_eti_is_an_installed_game():
    assert "eti" in registry()
    assert get_game("eti").name == "eti"


def test_an_unknown_game_is_a_located_problem_with_the_nearest_name():
    with pytest.raises(InputError) as info:
        get_game("etti", where="pack.yaml", line=5)
    text = str(info.value)
    assert text.startswith("pack.yaml:5: rules: no game 'etti' is installed")
    assert "did you mean 'eti'?" in text


def test_a_pack_naming_a_missing_game_fails_validation(tmp_path, capsys):
    pack = tally_pack(tmp_path / "tally")
    assert main(["validate", str(pack)]) == 1
    err = capsys.readouterr().err
    assert "pack.yaml:7: rules: no game 'tally' is installed" in err


def test_a_second_game_is_a_plugin_plus_a_pack(tmp_path):
    pack = tally_pack(tmp_path / "tally")
    done = run("validate", str(pack), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Tally: OK" in done.stdout and "1 consistency rule passed" in done.stdout
    done = run("tally", str(pack), cwd=tmp_path)
    assert (done.returncode, done.stdout.strip()) == (0, "total: 12")
    done = run("build", str(pack), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    from pypdf import PdfReader
    text = PdfReader(tmp_path / "out" / "tally-cards.pdf").pages[0].extract_text()
    assert "4 points" in text          # the game's template global


def test_the_second_game_s_rule_fires_with_its_location(tmp_path):
    pack = tally_pack(tmp_path / "tally")
    edit(pack / "cards/cards.yaml", "points: 4", "points: 5")
    done = run("validate", str(pack), cwd=tmp_path)
    assert done.returncode == 1
    assert re.search(r"cards/cards\.yaml:3:\d+: cards\[1\]\.points: points must be even",
                     done.stderr), done.stderr


def test_game_commands_refuse_a_pack_of_another_game(tmp_path):
    pack = tally_pack(tmp_path / "tally")
    done = run("balance", str(pack), "--trials", "1", cwd=tmp_path)
    assert done.returncode == 2
    assert "'balance' is a command of the E.T.I. game" in done.stderr
    assert "is a tally pack" in done.stderr
    done = run("tally", str(ROOT), cwd=tmp_path)
    assert done.returncode == 2 and "'tally' is a command of the tally game" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_pack_without_a_game_gets_no_game_commands(capsys):
    assert main(["balance", "sci-tech"]) == 2
    err = capsys.readouterr().err
    assert "'balance' is a command of the E.T.I. game" in err and "has no game" in err


CORE_NAMES = re.compile(r"\brules\s*==\s*['\"]eti['\"]|\bcompan(y|ies)\b|\bthreats?\b|"
                        r"\btraits?\b|\bdata ports?\b|\bufos?\b|\balien\b", re.I)


def test_no_module_outside_the_game_package_names_the_game():
    package = Path(__import__("eti_print").__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        if "games" in path.relative_to(package).parts[:1]:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if CORE_NAMES.search(line):
                found.append(f"{path.relative_to(package)}:{number}: {line.strip()}")
    assert found == []


def test_a_pack_s_help_lists_only_its_own_game_s_commands(tmp_path):
    pack = tally_pack(tmp_path / "tally")
    done = run("--help", cwd=pack)
    assert done.returncode == 0, done.stderr
    assert "tally" in done.stdout
    assert not {"score", "attack", "balance", "simulate"} & set(done.stdout.split())
    done = run("help", "eti", cwd=tmp_path)
    assert "simulate" in done.stdout.split() and "tally" not in done.stdout.split()


def test_the_refusal_has_the_right_article_and_no_absolute_path(tmp_path):
    done = run("tally", str(ROOT), cwd=tmp_path)
    assert "is an E.T.I. pack" in done.stderr, done.stderr
    done = run("tally", cwd=ROOT)
    assert done.returncode == 2
    assert "the pack in the working folder is an E.T.I. pack" in done.stderr
    assert str(ROOT) not in done.stderr
