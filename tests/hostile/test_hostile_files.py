"""The hostile corpus, files and faults: what a pack's file system and the machine can
do to a build (issue 18, items 2, 4, 5 and 6).

Every case starts from the small starter pack (``eti-print new``, with a ``fonts/``
folder of its own where the case needs one), breaks it one way, puts a previous
output in place and runs the CLI on it.  Each asserts the exit status, a message
line naming the file, no traceback and no "internal error", that the previous
output is byte for byte as it was, and that a canary file beside the pack shows
up in no output and no message.

Most cases run the CLI's ``main`` in-process under an alarm (a hang fails the
case instead of the run); those that could exhaust memory, or need a limit of
the process (a file-size limit standing in for a full disk, no root powers for
a read-only folder), run in a subprocess with a 500 MB address-space limit.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import struct
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from mutations import both, replace

from conftest import ROOT

CANARY = "CANARY-5be1d0-must-never-be-read"
MEMORY_LIMIT = 500 * 1024 ** 2
TIMEOUT = 60                     # a hang guard, not a speed test
LONG = "x" * 300                 # a name over 255 bytes
PREVIOUS = {"sc-cards.pdf": b"%PDF-1.4 previous good cards\n",
            "sc-manifest.json": b'{"previous": "good manifest"}\n'}
FONTS_YAML = ("fonts:\n  body:\n    regular: OpenSans-Regular.ttf\n"
              "  title:\n    regular: OpenSans-CondBold.ttf\n"
              "  label:\n    regular: routed-gothic-wide.ttf\n")


@dataclass
class Case:
    name: str
    mutate: Callable[[Path], None]
    status: int
    where: str = ""                  # the message line starts with this
    says: str = ""                   # ... and holds this
    command: str = "validate"
    env: dict[str, str] = field(default_factory=dict)
    fonts: bool = False              # the pack has a fonts/ folder of its own
    process: bool = False            # a subprocess with a memory limit
    fsize: int | None = None         # ... and a file-size limit (a full disk)
    no_root: bool = False            # ... without root's powers over file modes


# --- mutations -----------------------------------------------------------------------

def fifo(rel: str) -> Callable[[Path], None]:
    def apply(pack: Path) -> None:
        path = pack / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            path.unlink()
        os.mkfifo(path)
    return apply


def link(rel: str, target: Callable[[Path], str]) -> Callable[[Path], None]:
    def apply(pack: Path) -> None:
        path = pack / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() or path.is_symlink():
            path.unlink()
        path.symlink_to(target(pack))
    return apply


def loop(rel: str) -> Callable[[Path], None]:
    """``rel`` a symlink to a second link that points back at it."""
    def apply(pack: Path) -> None:
        path = pack / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            path.unlink()
        other = path.with_name(path.name + ".loop")
        path.symlink_to(other.name)
        other.symlink_to(path.name)
    return apply


def outside(name: str, text: str) -> Callable[[Path], str]:
    """A file beside the pack (outside it) holding ``text``; the link target."""
    def make(pack: Path) -> str:
        path = pack.parent / name
        path.write_text(text, encoding="utf-8")
        return str(path)
    return make


def sparse(rel: str, size: int = 3 * 1024 ** 3) -> Callable[[Path], None]:
    def apply(pack: Path) -> None:
        path = pack / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as handle:
            handle.truncate(size)
    return apply


def font_bytes(change: Callable[[bytearray], bytes | bytearray]) -> Callable[[Path], None]:
    def apply(pack: Path) -> None:
        path = pack / "fonts/OpenSans-Regular.ttf"
        path.write_bytes(bytes(change(bytearray(path.read_bytes()))))
    return apply


def _tables(data: bytearray) -> dict[bytes, tuple[int, int, int]]:
    """Each table's tag -> (record offset, table offset, length)."""
    (count,) = struct.unpack_from(">H", data, 4)
    found = {}
    for n in range(count):
        tag, _, offset, length = struct.unpack_from(">4sIII", data, 12 + 16 * n)
        found[tag] = (12 + 16 * n, offset, length)
    return found


def cmap_bomb(last: int) -> Callable[[bytearray], bytearray]:
    """The font with a new cmap: one format-12 group mapping 0..``last`` to glyph 1."""
    def change(data: bytearray) -> bytearray:
        record, _, _ = _tables(data)[b"cmap"]
        sub = struct.pack(">HHIIIIII", 12, 0, 28, 0, 1, 0, last, 1)
        table = struct.pack(">HHHHI", 0, 1, 3, 10, 12) + sub
        offset = len(data) + (-len(data)) % 4
        data.extend(b"\0" * (offset - len(data)) + table)
        struct.pack_into(">II", data, record + 8, offset, len(table))
        return data
    return change


def zero_units_per_em(data: bytearray) -> bytearray:
    _, head, _ = _tables(data)[b"head"]
    struct.pack_into(">H", data, head + 18, 0)       # reportlab divides by it
    return data


def scramble(seed: int, table: bytes) -> Callable[[bytearray], bytearray]:
    """Every 7th byte of one table overwritten from a seeded generator (a fuzzed font)."""
    def change(data: bytearray) -> bytearray:
        import random
        rng = random.Random(seed)
        _, offset, length = _tables(data)[table]
        for i in range(offset, offset + length, 7):
            data[i] = rng.randrange(256)
        return data
    return change


def drop_table(tag: bytes) -> Callable[[bytearray], bytearray]:
    def change(data: bytearray) -> bytearray:
        record, _, _ = _tables(data)[tag]
        data[record:record + 4] = b"zzzz"
        return data
    return change


def truncated(data: bytearray) -> bytes:
    return bytes(data[:len(data) // 3])


CARDS_PDF = "out/sc-cards.pdf"

CASES = [
    # -- not a regular file: never opened, so never a hang --------------------------
    Case("fifo-font", fifo("fonts/OpenSans-Regular.ttf"), 1, "fonts/OpenSans-Regular.ttf:",
         "is not a regular file", fonts=True),
    Case("fifo-fonts-yaml", fifo("fonts/fonts.yaml"), 1, "fonts/fonts.yaml:",
         "is not a regular file", fonts=True),
    Case("fifo-data", fifo("cards/deck.yaml"), 1, "cards/deck.yaml:", "is not a regular file"),
    Case("fifo-pack-yaml", fifo("pack.yaml"), 1, "pack.yaml:", "is not a regular file"),
    Case("fifo-layout", fifo("templates/layouts/front.yaml"), 1,
         "templates/layouts/front.yaml:", "is not a regular file"),
    Case("fifo-sheets", fifo("templates/sheets.yaml"), 1, "templates/sheets.yaml:",
         "is not a regular file"),
    Case("fifo-art", both(fifo("templates/art/star.svg"),
                          replace("cards/deck.yaml", 'text: "Draw **one** card."',
                                  'text: "Draw :star: card."')),
         1, "templates/art/star.svg:", "is not a regular file"),
    Case("fifo-include", both(fifo("templates/part.j2"),
                              replace("templates/layouts/front.yaml", "{{ card.title }}",
                                      "{% include 'part.j2' %}")),
         1, "templates/layouts/front.yaml:", "is not a file"),
    Case("folder-as-data", lambda p: ((p / "cards/deck.yaml").unlink(),
                                      (p / "cards/deck.yaml").mkdir()),
         1, "cards/deck.yaml:", "is not a regular file"),
    # -- symlinks out of the pack: refused, the canary never read --------------------
    Case("pack-yaml-outside", link("pack.yaml", outside("outside.yaml", f"name: {CANARY}\n"
                                                        "slug: sc\ndata: [deck]\n")),
         1, "pack.yaml:", "leads outside the pack", command="build"),
    Case("sheets-outside", link("templates/sheets.yaml", outside(
        "sheets.yaml", f"sheets:\n  {CANARY.lower()}: {{width: 1mm, height: 1mm}}\n")),
        1, "templates/sheets.yaml:", "leads outside the pack", command="build"),
    Case("fonts-yaml-outside", link("fonts/fonts.yaml", outside("fonts.yaml", FONTS_YAML
                                                                + f"# {CANARY}\n")),
         1, "fonts/fonts.yaml:", "leads outside the pack", fonts=True, command="build"),
    Case("data-outside", link("cards/deck.yaml", outside("deck.yaml", f"cards: [{CANARY}]\n")),
         1, "pack.yaml:", "leads outside the pack", command="build"),
    # -- symlink loops ---------------------------------------------------------------
    Case("loop-data", loop("cards/deck.yaml"), 1, "pack.yaml:", "symbolic link loop"),
    Case("loop-font", loop("fonts/OpenSans-Regular.ttf"), 1, "fonts/fonts.yaml:",
         "symbolic link loop", fonts=True),
    Case("loop-art", both(loop("templates/art/star.svg"),
                          replace("cards/deck.yaml", 'text: "Draw **one** card."',
                                  'text: "Draw :star: card."')),
         1, "", "symbolic link loop"),
    Case("loop-template", both(loop("templates/part.j2"),
                               replace("templates/layouts/front.yaml", "{{ card.title }}",
                                       "{% include 'part.j2' %}")),
         1, "templates/layouts/front.yaml:", "symbolic link loop"),
    # -- names over 255 bytes ----------------------------------------------------------
    Case("long-include", replace("templates/layouts/front.yaml", "{{ card.title }}",
                                 "{% include '" + LONG + ".j2' %}"),
         1, "templates/layouts/front.yaml:", "too long"),
    Case("long-art-id", both(replace("cards/schemas/deck.yaml", "maxlength: 120",
                                     "maxlength: 400"),
                             replace("cards/deck.yaml", 'text: "Draw **one** card."',
                                     f'text: "Draw :{LONG}: card."')),
         1, "", "unknown art id"),
    Case("long-layout", replace("pack.yaml", "front: front", f"front: {LONG}"),
         1, "pack.yaml:", LONG[:40]),
    Case("long-data-file", replace("pack.yaml", "data: [deck]", f"data: [{LONG}]"),
         1, "pack.yaml:", "too long"),
    Case("long-font", replace("fonts/fonts.yaml", "regular: OpenSans-Regular.ttf",
                              f"regular: {LONG}.ttf"),
         1, "fonts/fonts.yaml:", "too long", fonts=True),
    # -- sizes capped before reading -----------------------------------------------------
    Case("sparse-3gb-font", sparse("fonts/OpenSans-Regular.ttf"), 1,
         "fonts/OpenSans-Regular.ttf:", "fonts are limited to", fonts=True, process=True),
    Case("sparse-3gb-data", sparse("cards/deck.yaml"), 1, "cards/deck.yaml:", "too large",
         process=True),
    Case("sparse-3gb-unread", sparse("templates/huge.bin"), 0, command="build", process=True),
    # -- fonts: sanitised before reportlab sees them ---------------------------------
    Case("cmap-bomb-4g", font_bytes(cmap_bomb(0xFFFFFFFF)), 1, "fonts/OpenSans-Regular.ttf:",
         "code points", fonts=True, process=True),
    Case("cmap-bomb-3m", font_bytes(cmap_bomb(3_000_000)), 1, "fonts/OpenSans-Regular.ttf:",
         "code points", fonts=True, process=True),
    Case("font-zero-units-per-em", font_bytes(zero_units_per_em), 1,
         "fonts/OpenSans-Regular.ttf:", "cannot load font", fonts=True),
    Case("font-fuzzed-glyf", font_bytes(scramble(1, b"glyf")), 1,
         "fonts/OpenSans-Regular.ttf:", "cannot load font", fonts=True),
    Case("font-fuzzed-hmtx", font_bytes(scramble(2, b"loca")), 1,
         "fonts/OpenSans-Regular.ttf:", "cannot load font", fonts=True),
    Case("font-fuzzed-maxp", font_bytes(scramble(3, b"maxp")), 1,
         "fonts/OpenSans-Regular.ttf:", "cannot load font", fonts=True),
    Case("font-no-cmap", font_bytes(drop_table(b"cmap")), 1,
         "fonts/OpenSans-Regular.ttf:", "cannot load font", fonts=True),
    Case("font-truncated", font_bytes(truncated), 1, "fonts/OpenSans-Regular.ttf:",
         "cannot load font", fonts=True),
    # -- faults of the output folder and the environment ----------------------------
    Case("folder-in-the-way", lambda p: ((p.parent / CARDS_PDF).unlink(),
                                         (p.parent / CARDS_PDF).mkdir()),
         1, "", "sc-cards.pdf: a folder is where", command="build"),
    Case("read-only-out", lambda p: (p.parent / "out").chmod(0o555), 1, "", "out",
         command="build", no_root=True, process=True),
    Case("superscript-epoch", lambda p: None, 2, "", "SOURCE_DATE_EPOCH", command="build",
         env={"SOURCE_DATE_EPOCH": "17¹"}),
    Case("full-disk", lambda p: None, 1, "", "disk is full", command="build", process=True,
         fsize=16 * 1024),
]


@pytest.fixture(scope="session")
def starter(tmp_path_factory) -> Path:
    """The starter pack (``eti-print new``), made once."""
    from eti_print.newpack import new_pack
    folder = tmp_path_factory.mktemp("starter") / "sc"
    new_pack(folder)
    return folder


def make_pack(starter: Path, dest: Path, fonts: bool) -> Path:
    shutil.copytree(starter, dest)
    if fonts:
        (dest / "fonts").mkdir()
        (dest / "fonts/fonts.yaml").write_text(FONTS_YAML, encoding="utf-8")
        for name in ("OpenSans-Regular.ttf", "OpenSans-CondBold.ttf", "routed-gothic-wide.ttf"):
            shutil.copy2(ROOT / "fonts" / name, dest / "fonts" / name)
    return dest


def _limits(case: Case) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        if case.fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (case.fsize, case.fsize))
    return apply


def _alarm(signum, frame):
    raise TimeoutError("the case did not end")


def run(case: Case, pack: Path, out: Path, monkeypatch, capsys) -> tuple[int, str]:
    """``eti-print COMMAND PACK [--out OUT]``: (exit status, stdout + stderr)."""
    argv = [case.command, str(pack)] + (["--out", str(out)] if case.command == "build" else [])
    if case.process:
        command = [sys.executable, "-m", "eti_print.cli", *argv]
        if case.no_root and os.geteuid() == 0:
            if not shutil.which("setpriv"):
                pytest.skip("needs setpriv to drop root's powers")
            command = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--", *command]
        result = subprocess.run(command, cwd=pack, capture_output=True, text=True,
                                timeout=TIMEOUT, preexec_fn=_limits(case),
                                env={**os.environ, **case.env})
        return result.returncode, result.stdout + result.stderr
    from eti_print.cli import main
    monkeypatch.chdir(pack)
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    capsys.readouterr()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIMEOUT)
    try:
        status = main(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    captured = capsys.readouterr()
    return status, captured.out + captured.err


def snapshot(out: Path) -> dict[str, bytes]:
    """Every file under ``out`` (staging folders included: none may be left)."""
    found = {}
    for path in sorted(out.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[path.relative_to(out).as_posix()] = path.read_bytes()
        elif path.is_dir() and not any(path.iterdir()):
            found[path.relative_to(out).as_posix() + "/"] = b""
    return found


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_file(case: Case, tmp_path: Path, starter: Path, monkeypatch, capsys):
    pack = make_pack(starter, tmp_path / "pack", case.fonts)
    (tmp_path / "canary.txt").write_text(CANARY)
    out = tmp_path / "out"
    out.mkdir()
    for name, data in PREVIOUS.items():
        (out / name).write_bytes(data)
    case.mutate(pack)
    before = snapshot(out)
    try:
        status, said = run(case, pack, out, monkeypatch, capsys)
    finally:
        out.chmod(0o755)
    assert "Traceback" not in said and "internal error" not in said, said
    assert status == case.status, said
    assert CANARY not in said and CANARY.lower() not in said
    if case.status:
        lines = said.strip().splitlines()
        assert any(line.startswith(case.where) and case.says in line for line in lines), said
        assert snapshot(out) == before, "a failed build changed the previous output"
    for path in out.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert CANARY.encode() not in data and CANARY.lower().encode() not in data
    assert not list(out.glob(".eti-print-staging-*")), "a staging folder was left behind"


# --- two builds at once, and watch -----------------------------------------------------

def test_two_concurrent_builds_into_one_folder_leave_one_whole_set(tmp_path, starter):
    """Two builds that make different bytes under the same names (another
    SOURCE_DATE_EPOCH) race into one folder: the manifest there describes the PDF
    there, byte for byte."""
    import hashlib
    import json
    pack = make_pack(starter, tmp_path / "pack", False)
    out = tmp_path / "out"
    runs = [subprocess.Popen([sys.executable, "-m", "eti_print.cli", "build", str(pack),
                              "--out", str(out), "-q"],
                             env={**os.environ, "SOURCE_DATE_EPOCH": epoch},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for epoch in ("1000000000", "1500000000")]
    for process in runs:
        _, err = process.communicate(timeout=TIMEOUT)
        assert process.returncode == 0, err.decode()
    manifest = json.loads((out / "sc-manifest.json").read_text(encoding="utf-8"))
    for entry in manifest["files"]:
        assert hashlib.sha256((out / entry["file"]).read_bytes()).hexdigest() == entry["sha256"]
    assert sorted(p.name for p in out.iterdir()) == ["sc-cards.pdf", "sc-manifest.json"]


def test_watch_reports_a_half_written_file_and_recovers(tmp_path, starter):
    """An editor saving cards/deck.yaml in two writes: the rebuild that sees the first
    half reports the file and keeps the last good output; the next one builds."""
    from eti_print.cache import BuildCache
    from eti_print.options import PrintOptions
    from eti_print.watch import rebuild
    pack = make_pack(starter, tmp_path / "pack", False)
    out = tmp_path / "out"
    cache = BuildCache(workers=1)
    assert rebuild(str(pack), out, PrintOptions(), cache).ok
    before = snapshot(out)
    deck = pack / "cards/deck.yaml"
    whole = deck.read_bytes()
    cut = whole.index(b"  - title: Beacon") + len(b"  - title: Beacon\n    number:") + 1
    deck.write_bytes(whole[:cut] + b'"')                     # mid-write: an open quote
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert not report.ok
    assert report.problems and report.problems[0].startswith("cards/deck.yaml:"), \
        report.problems
    assert snapshot(out) == before
    deck.write_bytes(whole)
    report = rebuild(str(pack), out, PrintOptions(), cache)
    assert report.ok, report.problems
    assert not list(out.glob(".eti-print-staging-*"))


def test_a_full_disk_mid_set_keeps_the_previous_set_byte_for_byte(tmp_path, starter):
    """Under a file-size limit that lets the manifest through but not the PDF (a disk
    filling up mid-build), the previous set stays as it was: no file of it is new."""
    pack = make_pack(starter, tmp_path / "pack", False)
    out = tmp_path / "out"
    from eti_print.cli import main
    assert main(["build", str(pack), "--out", str(out), "-q"]) == 0
    before = snapshot(out)
    (pack / "cards/deck.yaml").write_text(
        (pack / "cards/deck.yaml").read_text(encoding="utf-8").replace("Acorn", "Oak"),
        encoding="utf-8")
    limit = len(before["sc-manifest.json"]) + 4096
    assert len(before["sc-cards.pdf"]) > limit

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    result = subprocess.run([sys.executable, "-m", "eti_print.cli", "build", str(pack),
                             "--out", str(out)], capture_output=True, text=True,
                            timeout=TIMEOUT, preexec_fn=limits)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert any(line.startswith(str(out / "sc-cards.pdf")) and "File too large" in line
               for line in result.stderr.splitlines()), result.stderr
    assert snapshot(out) == before


def test_a_write_error_names_the_file(tmp_path):
    """Every OSError of writing is a problem naming the path (the hint says why)."""
    from eti_print.errors import InputError
    from eti_print.output import write_set
    out = tmp_path / "out"
    (out / "a.pdf").mkdir(parents=True)
    with pytest.raises(InputError) as info:
        write_set(out, [("b.pdf", b"b"), ("a.pdf", b"a")])
    assert str(info.value.problems[0]).startswith(str(out / "a.pdf"))
    assert not (out / "b.pdf").exists()          # nothing moved: the set is whole or none
