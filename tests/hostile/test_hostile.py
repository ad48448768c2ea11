"""The hostile-input corpus: broken and malicious packs, each run through the CLI.

Every case copies the shipped pack, breaks it one way, puts a previous good
output in place, and runs ``eti-print build`` on it.  Each asserts the exact
exit status and where the message points, that the previous output is
unchanged, and that a canary file beside the pack never shows up in any output.

The cases that could exhaust memory or time (``process=True``: bombs, deep
nesting, huge images, endless files, recursion) or that depend on the process's
environment run in a separate process with a memory limit and a timeout; the
others call the CLI's ``main`` in-process, which is the same code path without
the interpreter start-up.
"""

from __future__ import annotations

import base64
import os
import resource
import shutil
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from mutations import both, replace, write

from conftest import copy_pack, edit, line_of

CANARY = "CANARY-7f3a9c-must-never-be-read"
MEMORY_LIMIT = 2 * 1024 ** 3
TIMEOUT = 60


@dataclass
class Case:
    name: str
    mutate: Callable[[Path], None]
    status: int
    where: str | Callable[[Path], str] = ""     # message prefix, e.g. "cards/x.yaml:3:"
    says: str = ""                              # a fragment of the message
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    process: bool = False                       # run in a separate, resource-limited process


# --- mutations -----------------------------------------------------------------------


def at(rel: str, needle: str) -> Callable[[Path], str]:
    return lambda pack: f"{rel}:{line_of(pack / rel, needle)}:"


def alias_bomb(pack: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]")
    (pack / "cards/threats.yaml").write_text("\n".join(lines) + "\n")


def deep_nesting(pack: Path) -> None:
    (pack / "cards/threats.yaml").write_text("threats: " + "[" * 200 + "]" * 200 + "\n")


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = b"".join(b"\x00" + b"\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0,
                                                               0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def svg(body: str, head: str = "") -> str:
    return (f'<?xml version="1.0"?>{head}\n<svg xmlns="http://www.w3.org/2000/svg" '
            f'xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100">\n{body}\n</svg>\n')


def art(body: str, head: str = "") -> Callable[[Path], None]:
    return write("templates/art/event.svg", svg(body, head))


def symlink_art(target: Callable[[Path], str]) -> Callable[[Path], None]:
    def apply(pack: Path) -> None:
        path = pack / "templates/art/event.svg"
        path.unlink()
        path.symlink_to(target(pack))
    return apply


def symlinked_output(pack: Path) -> None:
    """The output file is a symlink to the canary: the build must replace the
    link, never write through it (checked by the canary assertion)."""
    out = pack.parent / "out"
    (out / "eti-cards.pdf").unlink()
    (out / "eti-cards.pdf").symlink_to(pack.parent / "canary.txt")


def same_deck_ids(pack: Path) -> None:
    edit(pack / "pack.yaml", "  - id: events\n", "  - id: projects\n")


LAYOUT = "templates/layouts/project.yaml"

CASES = [
    Case("duplicate-key", replace("cards/projects.yaml", "    fame: 10\n",
                                  "    fame: 10\n    fame: 20\n"),
         1, at("cards/projects.yaml", "fame: 20"), "duplicate key 'fame' (first defined at line"),
    Case("yaml-11-no", replace("cards/projects.yaml", "level: I\n", "level: NO\n"),
         1, at("cards/projects.yaml", "level: NO"), "(got 'NO')"),
    Case("bool-as-integer", replace("cards/projects.yaml", "defense: 10", "defense: True"),
         1, at("cards/projects.yaml", "defense: True"), "must be of type integer (got True)"),
    Case("python-tag", replace("cards/projects.yaml", "fame: 10",
                               "fame: !!python/object/apply:os.system ['echo pwned']"),
         1, at("cards/projects.yaml", "python/object"), "is not allowed"),
    Case("alias-bomb", alias_bomb, 1, "cards/threats.yaml:", "too large", process=True),
    Case("deep-nesting", deep_nesting, 1, "cards/threats.yaml:1:", "nesting is deeper",
         process=True),
    Case("tab-indent", replace("cards/projects.yaml", "    name: Synthetic Polymers",
                               "\tname: Synthetic Polymers"),
         1, at("cards/projects.yaml", "\tname"), "tab character in indentation"),
    Case("bad-utf8", lambda p: (p / "cards/threats.yaml").write_bytes(
        (p / "cards/threats.yaml").read_bytes().replace(b"Spy", b"Sp\xff")),
        1, "cards/threats.yaml:", "not valid UTF-8"),
    Case("control-character", replace("cards/projects.yaml", "name: Synthetic Polymers",
                                      "name: Synthetic\x07Polymers"),
         1, at("cards/projects.yaml", "Synthetic\x07"), "control character U+0007"),
    Case("empty-file", write("cards/events.yaml", ""), 1, "cards/events.yaml:1:1:",
         "file is empty"),
    Case("missing-file", lambda p: (p / "cards/events.yaml").unlink(), 1, "pack.yaml:",
         "file not found: events.yaml"),
    Case("text-1700-chars", lambda p: edit(p / "cards/projects.yaml",
                                           "flavor: Stronger than steel",
                                           "flavor: " + "Stronger " * 190 + "than steel"),
         1, at("cards/projects.yaml", "flavor: Stronger Stronger"), "flavor"),
    Case("unbreakable-400pt-word", replace("templates/layouts/project-back.yaml",
                                           "text: PROJECT", "text: " + "W" * 60),
         1, at("templates/layouts/project-back.yaml", "WWWW"), "pt wide"),
    Case("cjk-in-latin-font", replace("cards/projects.yaml", "name: Synthetic Polymers",
                                      "name: 合成高分子"),
         1, "templates/layouts/project.yaml:", "has no glyph for"),
    Case("markup-in-data-prints-literally",
         replace("cards/projects.yaml", "name: Synthetic Polymers",
                 'name: "<img src=\'/etc/passwd\'/> x<y & z"'), 0),
    Case("img-tag-in-template", replace(LAYOUT, 'text: "{{ card.name }}"',
                                        'text: "<img src=\'/etc/passwd\'/>{{ card.name }}"'),
         1, at(LAYOUT, "<img"), "<img"),
    Case("template-typo", replace(LAYOUT, "{{ card.name }}", "{{ card.nmae }}"),
         1, at(LAYOUT, "card.nmae"), "nmae"),
    Case("sandbox-escape", replace(LAYOUT, "{{ card.name }}",
                                   "{{ ''.__class__.__mro__[1].__subclasses__() }}"),
         1, at(LAYOUT, "__class__"), "unsafe"),
    Case("self-including-template", both(
        write("templates/loop.j2", "{% include 'loop.j2' %}"),
        replace(LAYOUT, "{{ card.name }}", "{% include 'loop.j2' %}")),
        1, "templates/", "include", process=True),
    Case("include-outside-pack", replace(LAYOUT, "{{ card.name }}",
                                         "{% include '../../canary.txt' %}"),
         1, at(LAYOUT, "canary"), "'..'"),
    Case("layout-extends-cycle", replace("templates/layouts/base.yaml", "boxes:\n",
                                         "extends: research\nboxes:\n"),
         1, "templates/layouts/", "cycle"),
    Case("unknown-box-property", replace(LAYOUT, "    radius: 2.8mm\n",
                                         "    radius: 2.8mm\n    opacity: 0.5\n"),
         1, at(LAYOUT, "opacity"), "accepted:"),
    Case("length-without-unit", replace(LAYOUT, "width: 58.1mm", "width: 58.1"),
         1, at(LAYOUT, "width: 58.1"), "has no unit"),
    Case("layout-path-traversal", replace("pack.yaml", "front: project", "front: ../../canary"),
         1, at("pack.yaml", "../../canary"), "must be lowercase words joined by hyphens"),
    Case("font-outside-pack", replace("fonts/fonts.yaml", "regular: OpenSans-Regular.ttf",
                                      "regular: ../../canary.txt"),
         1, at("fonts/fonts.yaml", "canary"), "'..'"),
    Case("font-not-a-font", replace("fonts/fonts.yaml", "regular: OpenSans-Regular.ttf",
                                    "regular: README.md"),
         1, "fonts/README.md", "cannot load font"),
    Case("svg-doctype-entity", art('<text>&xxe;</text>',
                                   '<!DOCTYPE svg [<!ENTITY xxe SYSTEM "../../canary.txt">]>'),
         1, "templates/art/event.svg", "DOCTYPE"),
    Case("svg-billion-laughs", art('<text>&l3;</text>',
                                   '<!DOCTYPE svg [<!ENTITY l0 "ha"><!ENTITY l1 "&l0;&l0;&l0;">'
                                   '<!ENTITY l2 "&l1;&l1;&l1;"><!ENTITY l3 "&l2;&l2;&l2;">]>'),
         1, "templates/art/event.svg", "DOCTYPE", process=True),
    Case("svg-external-image", art('<image href="../../canary.txt" width="10" height="10"/>'),
         1, "templates/art/event.svg:", "not allowed"),
    Case("svg-xlink-file", art('<image xlink:href="file:///etc/passwd" width="9" height="9"/>'),
         1, "templates/art/event.svg:", "not allowed"),
    Case("svg-symlink-outside", symlink_art(lambda p: str(p.parent / "canary.txt")),
         1, "", "outside the pack"),
    Case("svg-symlink-dev-zero", symlink_art(lambda p: "/dev/zero"), 1, "", "outside the pack",
         process=True),
    Case("svg-unknown-font", art('<text font-family="Comic Sans MS" x="5" y="50">A</text>'),
         1, "templates/art/event.svg:", "Comic Sans"),
    Case("svg-huge-image", art('<image href="data:image/png;base64,'
                               + base64.b64encode(_png(6000, 6000)).decode()
                               + '" width="10" height="10"/>'),
         1, "templates/art/event.svg:", "pixel", process=True),
    Case("svg-script", art('<script>alert(1)</script>'), 1, "templates/art/event.svg:",
         "script"),
    Case("symlinked-output-file", symlinked_output, 0),
    Case("two-decks-same-id", same_deck_ids, 1, "pack.yaml:",
         "duplicate deck id 'projects' (first at line"),
    # in-process (the variable set for the call only); through a real process in
    # tests/test_output.py::test_bad_source_date_epoch_exits_2
    Case("bad-source-date-epoch", lambda p: None, 2, "", "SOURCE_DATE_EPOCH",
         env={"SOURCE_DATE_EPOCH": "tomorrow"}),
    Case("unknown-option", lambda p: None, 2, "", "unrecognized arguments",
         args=["--colour", "blue"]),
    Case("bad-paper", lambda p: None, 2, "", "paper must be a4 or letter",
         args=["--paper", "a3"]),
]


@pytest.fixture
def good_output(session_build) -> Path:
    return session_build("eti")


def pdf_text(path: Path) -> str:
    """Every page's text (pdfium: the same text pypdf extracts, many times faster)."""
    doc = pdfium.PdfDocument(str(path))
    try:
        return "".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    finally:
        doc.close()


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_build(case: Case, pack: Path, out: Path, monkeypatch, capsys) -> tuple[int, str]:
    """``eti-print build PACK --out OUT ARGS`` from inside the pack: (exit status, stderr)."""
    argv = ["build", str(pack), "--out", str(out), *case.args]
    if case.process:
        result = subprocess.run(
            [sys.executable, "-m", "eti_print.cli", *argv], cwd=pack, capture_output=True,
            text=True, timeout=TIMEOUT, preexec_fn=_limits, env={**os.environ, **case.env})
        return result.returncode, result.stderr
    from eti_print.cli import main
    monkeypatch.chdir(pack)
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    capsys.readouterr()
    try:
        status = main(argv)
    except SystemExit as exc:                   # argparse's own exit
        status = exc.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input(case: Case, tmp_path: Path, good_output: Path, monkeypatch, capsys):
    pack = copy_pack(tmp_path / "pack")
    (tmp_path / "canary.txt").write_text(CANARY)
    out = tmp_path / "out"
    shutil.copytree(good_output, out)
    case.mutate(pack)
    before = {p.name: p.read_bytes() for p in out.iterdir() if not p.is_symlink()}
    status, err = run_build(case, pack, out, monkeypatch, capsys)
    assert "Traceback" not in err, err
    assert status == case.status, err
    if case.status:
        where = case.where(pack) if callable(case.where) else case.where
        lines = err.strip().splitlines()
        assert any(line.startswith(where) and case.says in line for line in lines) or (
            not where and case.says in err), err
        after = {p.name: p.read_bytes() for p in out.iterdir() if not p.is_symlink()}
        assert after == before, "a failed build changed the previous output"
    for path in out.iterdir():
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            assert CANARY.encode() not in data
            if before.get(path.name) == data:
                continue  # the previous good output, built from the clean pack
            if path.suffix == ".pdf":
                assert CANARY not in pdf_text(path)
    assert (tmp_path / "canary.txt").read_text() == CANARY
