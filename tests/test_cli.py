"""The command line: summaries, located errors, exit codes, no tracebacks."""

from pathlib import Path

import pytest

from eti_print.cli import main

from conftest import copy_pack, csv_chits_pack, edit


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


def test_python_dash_m_runs_the_cli(tmp_path):
    """The program (``cli.run``, which ends the process without tearing the interpreter
    down) prints everything, exits with main's status and still does what Python does
    at exit: the maps of the persistent cache are written (atexit)."""
    import os
    import subprocess
    import sys
    env = {**os.environ, "ETI_PRINT_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("ETI_PRINT_BUILD_CACHE", None)
    done = subprocess.run([sys.executable, "-m", "eti_print", "validate", "sci-tech"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0 and "Sci-Tech" in done.stdout and "OK" in done.stdout
    assert done.stdout.endswith("\n") and not done.stderr
    cache = tmp_path / "cache"
    assert list(cache.glob("templates-*.bin")) and list(cache.glob("valid-*.bin"))  # atexit
    typo = subprocess.run([sys.executable, "-m", "eti_print", "valdate"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert typo.returncode == 2 and "did you mean validate?" in typo.stderr


#: What a command the persistent cache answers, and a core command's help, never import.
HEAVY = ("yaml", "reportlab", "jinja2", "cerberus", "svglib", "lxml", "re2", "PIL")


def _imported(args: list[str], env: dict[str, str],
              modules: tuple[str, ...] = HEAVY) -> tuple[str, list[str]]:
    """A new process's output of ``eti-print ARGS``, and which of ``modules`` it imported."""
    import json
    import subprocess
    import sys
    script = ("import json, sys\nfrom eti_print.cli import main\ntry:\n"
              "    main(sys.argv[1:])\nfinally:\n"
              f"    print('loaded:', json.dumps([m for m in {modules!r} if m in sys.modules]))\n")
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                          text=True, timeout=120, env=env)
    out, _, loaded = done.stdout.rpartition("loaded: ")
    return out, json.loads(loaded)


def _imported_in_turn(commands: list[list[str]], env: dict[str, str],
                      modules: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """``eti-print`` run with each of ``commands`` in turn in one new process: each one's
    output, and which of ``modules`` the process had imported when it ended."""
    import json
    import re
    import subprocess
    import sys
    script = ("import json, sys\nfrom eti_print.cli import main\n"
              "for argv in json.loads(sys.argv[1]):\n    try:\n        main(argv)\n"
              "    finally:\n        print('loaded:', json.dumps([m for m in "
              f"{modules!r} if m in sys.modules]), flush=True)\n")
    done = subprocess.run([sys.executable, "-c", script, json.dumps(commands)],
                          capture_output=True, text=True, timeout=120, env=env)
    parts = re.split(r"(?m)^loaded: (.*)\n", done.stdout)
    assert len(parts) == 2 * len(commands) + 1, done.stdout + done.stderr
    return [(parts[2 * n], json.loads(parts[2 * n + 1])) for n in range(len(commands))]


@pytest.mark.long
def test_a_cached_validate_or_build_and_a_commands_help_load_no_heavy_library(tmp_path):
    import os
    env = {**os.environ, "ETI_PRINT_CACHE_DIR": str(tmp_path / "cache"),
           "ETI_PRINT_BUILD_CACHE": "on"}
    (out, loaded), _ = _imported_in_turn(                      # fill the cache
        [["validate", "sci-tech"], ["build", "sci-tech", "-q", "--out", str(tmp_path / "a")]],
        env, HEAVY)
    assert "OK" in out and "yaml" in loaded
    out, loaded = _imported(["validate", "sci-tech"], env)
    assert "Sci-Tech" in out and "OK" in out and loaded == []
    _, loaded = _imported(["build", "sci-tech", "-q", "--out", str(tmp_path / "b")], env)
    assert loaded == []
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == \
        sorted(p.name for p in (tmp_path / "a").iterdir())
    for name in [p.name for p in (tmp_path / "a").iterdir()]:
        assert (tmp_path / "b" / name).read_bytes() == (tmp_path / "a" / name).read_bytes()
    out, loaded = _imported(["export", "--help"], env)
    assert "png" in out and loaded == []


#: What a cold validate or build of a pack without spreadsheets never runs: the game's
#: simulator and balance report, the exports, the server, the spreadsheet reader.
UNUSED = ("eti_print.games.eti.sim", "eti_print.games.eti.balance", "eti_print.export",
          "eti_print.serve", "eti_print.watch", "eti_print.spreadsheet", "eti_print.newpack",
          "eti_print.reference", "eti_print.calibrate")


def test_a_cold_validate_or_build_loads_only_the_modules_it_runs(tmp_path):
    """In one process, in turn (what is loaded only grows, so each command is checked
    as if alone: none of them may load any of UNUSED but the sheet reader at the end)."""
    import os
    env = {**os.environ, "ETI_PRINT_CACHE_DIR": str(tmp_path / "cache")}
    sheet_pack = csv_chits_pack(tmp_path / "ms")
    validated, built, sheet = _imported_in_turn(
        [["validate", "--no-cache"], ["build", "--no-cache", "-q", "--out", str(tmp_path / "o")],
         ["validate", str(sheet_pack), "--no-cache"]], env, UNUSED)
    out, loaded = validated
    assert "OK" in out and loaded == []
    _, loaded = built
    assert loaded == [] and (tmp_path / "o" / "eti-cards.pdf").exists()
    # a pack whose data is a spreadsheet loads its reader
    out, loaded = sheet
    assert "OK" in out and "Mad Scientists" in out and loaded == ["eti_print.spreadsheet"]


# ---------------------------------------------------------------------------
# No PACK argument: the pack you stand in (the nearest pack.yaml), else E.T.I.

REPO = Path(__file__).resolve().parents[1]


def _sci_tech(dest: Path) -> Path:
    import shutil
    shutil.copytree(REPO / "packs" / "sci-tech", dest)
    return dest


def test_find_pack_takes_the_nearest_pack_yaml_here_or_above(tmp_path):
    from eti_print.pack import find_pack
    outer = tmp_path / "outer"
    inner = outer / "packs" / "inner"
    deep = inner / "cards" / "schemas"
    deep.mkdir(parents=True)
    (outer / "pack.yaml").write_text("title: outer\n")
    assert find_pack(deep) == outer and find_pack(outer) == outer
    (inner / "pack.yaml").write_text("title: inner\n")
    assert find_pack(deep) == inner and find_pack(outer / "packs") == outer
    assert find_pack(tmp_path) is None


def test_commands_without_a_pack_use_the_pack_they_stand_in(tmp_path, monkeypatch, capsys):
    from pdfcheck import pdf_text
    pack = _sci_tech(tmp_path / "st")
    edit(pack / "cards/fields.yaml", "name: Flare", "name: Flair")
    monkeypatch.chdir(pack / "cards" / "schemas")
    assert main(["validate"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("Sci-Tech") and captured.err == ""
    assert main(["build", "--quiet", "--out", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().err == ""
    text = pdf_text(tmp_path / "out" / "sci-tech-markers.pdf")
    assert "FLAIR SCI-TECH" in text and "FLARE SCI-TECH" not in text
    assert main(["schema", "fields"]) == 0
    assert "fields.yaml" in capsys.readouterr().out
    # a game command works on that pack too, and refuses it: it is not an E.T.I. pack
    assert main(["score", "10"]) == 2
    err = capsys.readouterr().err
    assert "the pack in the working folder has no game" in err and str(pack) not in err


def test_watch_watches_the_pack_it_builds(tmp_path, monkeypatch, capsys):
    import eti_print.watch
    pack = _sci_tech(tmp_path / "st")
    seen = []
    monkeypatch.setattr(eti_print.watch, "watch", lambda where, *a, **k: seen.append(where))
    monkeypatch.chdir(pack / "templates")
    assert main(["watch", "--out", str(tmp_path / "out")]) == 0
    assert [Path(p).resolve() for p in seen] == [pack.resolve()]
    assert capsys.readouterr().out.startswith(f"watching {pack.resolve()} ")


def test_no_pack_yaml_anywhere_uses_eti_and_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    from eti_print.pack import default_pack_root, find_pack
    assert find_pack(tmp_path) is None, "a pack.yaml above the test's temporary folder"
    monkeypatch.chdir(tmp_path)
    notice = (f"eti-print: no pack.yaml here or above; using the bundled E.T.I. pack at "
              f"{default_pack_root().resolve()}")
    assert main(["schema", "events"]) == 0
    captured = capsys.readouterr()
    assert "events.yaml" in captured.out and captured.err.splitlines() == [notice]
    # --quiet keeps it quiet
    assert main(["export", "data", "--quiet", "--out", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().err == ""
    assert (tmp_path / "out" / "data" / "events.csv").is_file()


def test_a_misspelt_pack_name_suggests_the_nearest_bundled_pack(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["build", "sci-tek", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "no pack 'sci-tek' (did you mean sci-tech?)"
    assert "Traceback" not in err and not (tmp_path / "out").exists()
    assert main(["validate", "mad-scientist"]) == 1
    assert "(did you mean mad-scientists?)" in capsys.readouterr().err
    assert main(["validate", "zzzzzz"]) == 1
    err = capsys.readouterr().err
    assert "pack folder not found: zzzzzz" in err and "eti, mad-scientists, sci-tech" in err


def test_eti_is_a_bundled_pack_name(tmp_path, monkeypatch):
    from eti_print.pack import Pack, bundled_names, default_pack_root
    monkeypatch.chdir(tmp_path)
    assert bundled_names() == ["eti", "mad-scientists", "sci-tech"]
    assert Pack.open("eti").root == default_pack_root().resolve()


def test_help_names_the_bundled_packs(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "60")
    for command in (["build"], ["validate"], ["watch"], ["export", "pdf"], ["balance"]):
        with pytest.raises(SystemExit) as info:
            main([*command, "--help"])
        assert info.value.code == 0
        out = capsys.readouterr().out
        assert "mad-scientists" in out, command          # not broken at its hyphen
        out = " ".join(out.split())
        assert "bundled pack's name (eti, mad-scientists, sci-tech)" in out, command
        assert "nearest pack.yaml in the working folder or above it" in out, command
