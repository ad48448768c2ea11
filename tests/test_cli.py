"""The command line: summaries, located errors, exit codes, no tracebacks."""

from pathlib import Path

import pytest

from eti_print.cli import main

from conftest import copy_pack, edit


def test_validate_shipped_pack_prints_one_line_summary(capsys):
    assert main(["validate"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    assert out[0].startswith("E.T.I.: Estimated Time to Invasion: OK")
    assert "90 research" in out[0] and "40 projects" in out[0] and "10 endgame" in out[0]


def test_validate_broken_pack_lists_problems_and_exits_1(pack_copy: Path, capsys):
    edit(pack_copy / "cards/projects.yaml", "level: III", "level: 6")
    edit(pack_copy / "cards/endgame.yaml", "ufos: 4", "ufos: 3")
    assert main(["validate", str(pack_copy)]) == 1
    err = capsys.readouterr().err
    assert "cards/projects.yaml:" in err and "must be one of I, II, III, IV, V (got 6)" in err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("eti-print: ")


def test_unknown_option_exits_2(capsys):
    assert main(["validate", "--frobnicate"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("eti-print: error:") and "Traceback" not in err


def test_unknown_command_exits_2(capsys):
    assert main(["levitate"]) == 2


def test_missing_pack_folder_exits_1(tmp_path: Path, capsys):
    assert main(["validate", str(tmp_path / "nowhere")]) == 1
    assert "pack folder not found" in capsys.readouterr().err


def test_help_lists_commands(capsys):
    import pytest
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for command in ("validate", "build", "schema", "calibrate"):
        assert command in out


def test_schema_command(capsys):
    assert main(["schema", "research"]) == 0
    assert "research.yaml:" in capsys.readouterr().out
    assert main(["schema", "nope"]) == 2


def test_debug_is_accepted_after_the_command(tmp_path, capsys):
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "templates/layouts/event.yaml", "    size: 14pt", "    size: 14qq")
    from eti_print.errors import InputError
    with pytest.raises(InputError):          # --debug: the exception, not the message
        main(["validate", str(pack), "--debug"])
    assert main(["validate", str(pack)]) == 1


def test_python_dash_m_runs_the_cli():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-m", "eti_print", "validate", "sci-tech"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Sci-Tech" in done.stdout and "OK" in done.stdout
