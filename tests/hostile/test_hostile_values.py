"""Hostile values: every number, rule, template and art budget a pack can abuse.

The second half of the hostile corpus (``test_hostile.py`` holds the first):
each case takes the pack ``eti-print new`` writes (20 cards, one deck; a copy
of E.T.I. only where the case needs its game), breaks one value, and runs
``eti-print validate`` (``build`` or ``export`` where the value only matters
there).  Each asserts the exit status, that a line of the message starts with
the file and line (or names the file) and says what is wrong, and that no
traceback is printed.

The cases that could hang or exhaust memory (``process=True``) run in their
own process under a 500 MB address-space limit and a 5 s CPU limit: they end
with the located message or the case fails.  The others call the CLI's
``main`` in-process, the same code path without the interpreter start-up.
"""

from __future__ import annotations

import base64
import resource
import shutil
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from mutations import both, replace, write

from conftest import copy_pack, edit, line_of

MEMORY_LIMIT = 500 * 1024 ** 2
CPU_SECONDS = 5


@dataclass
class Case:
    name: str
    mutate: Callable[[Path], None]
    where: str | Callable[[Path], str]          # message prefix, e.g. "cards/deck.yaml:3:"
    says: str                                   # a fragment of that line
    status: int = 1
    command: list[str] = field(default_factory=lambda: ["validate", "PACK"])
    process: bool = False                       # run in a separate, resource-limited process
    eti: bool = False                           # break a copy of E.T.I., not the scaffold


# --- mutations -----------------------------------------------------------------------

FRONT = "templates/layouts/front.yaml"
SCHEMA = "cards/schemas/deck.yaml"
DECK = "cards/deck.yaml"
PACK = "pack.yaml"


def at(rel: str, needle: str) -> Callable[[Path], str]:
    return lambda pack: f"{rel}:{line_of(pack / rel, needle)}:"


def box_prop(box: str, prop: str) -> Callable[[Path], None]:
    """Add ``prop`` (a line such as ``rotate: .nan``) to a box of the front layout."""
    return replace(FRONT, f"  {box}:\n    type:", f"  {box}:\n    {prop}\n    type:")


def title_prop(value: str) -> Callable[[Path], None]:
    return replace(FRONT, "    text: \"{{ card.title }}\"", f"    text: \"{value}\"")


def schema_rule(field_name: str, rule: str) -> Callable[[Path], None]:
    """Add a rule line to one field of the deck's schema."""
    return replace(SCHEMA, f"        {field_name}:\n", f"        {field_name}:\n          {rule}\n")


def new_field(name: str, rules: str) -> Callable[[Path], None]:
    return replace(SCHEMA, "        text:\n",
                   f"        {name}: {{{rules}, required: false, description: x}}\n"
                   "        text:\n")


def card_value(line: str, n: int = 1) -> Callable[[Path], None]:
    """Give the first ``n`` cards a line of data (``copies: six``)."""
    def apply(pack: Path) -> None:
        text = (pack / DECK).read_text(encoding="utf-8")
        for title in ("Acorn", "Beacon", "Compass")[:n]:
            text = text.replace(f"  - title: {title}", f"  - title: {title}\n    {line}", 1)
        (pack / DECK).write_text(text, encoding="utf-8")
    return apply


def manifest(block: str) -> Callable[[Path], None]:
    """Add a top-level block (boards:, pieces:, documents:) to pack.yaml."""
    return replace(PACK, "\ndecks:\n", f"\n{block}\ndecks:\n")


def check(line: str) -> Callable[[Path], None]:
    return replace(PACK, "  - {unique: deck.cards, key: title}", f"  - {line}")


def icon_bombs(pack: Path) -> None:
    """Eight 2 kB icons, each expanding through ``<use>`` to 100,000 rects, all on the front."""
    levels = ['<g id="l0">' + '<rect width="1" height="1"/>' * 10 + "</g>"]
    for n in range(1, 5):
        levels.append(f'<g id="l{n}">' + f'<use href="#l{n - 1}"/>' * 10 + "</g>")
    body = "<defs>" + "".join(levels) + '</defs><use href="#l4"/>'
    boxes = []
    for n in range(8):
        (pack / f"templates/art/bomb{n}.svg").parent.mkdir(parents=True, exist_ok=True)
        (pack / f"templates/art/bomb{n}.svg").write_text(_svg(body), encoding="utf-8")
        boxes.append(f"  bomb{n}: {{type: art, art: bomb{n}, x: 5mm, y: 5mm, width: 5mm, "
                     "height: 5mm}\n")
    text = (pack / FRONT).read_text(encoding="utf-8")
    (pack / FRONT).write_text(text + "".join(boxes), encoding="utf-8")


def _svg(body: str, root: str = 'viewBox="0 0 100 100"') -> str:
    return (f'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" {root}>\n'
            f"{body}\n</svg>\n")


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = zlib.compress(b"\x00" * ((width + 1) * height), 9)
    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


def art(body: str, root: str = 'viewBox="0 0 100 100"') -> Callable[[Path], None]:
    """The front gets an art box showing templates/art/icon.svg."""
    return both(write("templates/art/icon.svg", _svg(body, root)),
                lambda pack: edit(pack / FRONT, "  ring:\n", "  icon: {type: art, art: icon, "
                                  "x: 5mm, y: 5mm, width: 5mm, height: 5mm}\n  ring:\n"))


def forty_pngs() -> str:
    data = base64.b64encode(_png(4096, 4096)).decode()
    return "".join(f'<image href="data:image/png;base64,{data}" width="1" height="1"/>'
                   for _ in range(40))


def level_optional(pack: Path) -> None:
    edit(pack / "cards/schemas/projects.yaml", "level: {type: string, allowed",
         "level: {type: string, required: false, allowed")
    edit(pack / "cards/projects.yaml", "    level: I\n", "")


LOOP = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
SQUARE = ("{% set ns = namespace(x=3) %}{% for i in range(64) %}{% set ns.x = ns.x * ns.x %}"
          "{% endfor %}{{ ns.x }}")
NESTED = "<b>" * 1500 + "x" + "</b>" * 1500
DOCUMENT = ("documents:\n  - {id: rules, title: Rules, template: rules.j2}\n")

CASES = [
    # -- layout values ----------------------------------------------------------------
    Case("align-centre", replace(FRONT, "align: center          # left, center or right",
                                 "align: centre"),
         at(FRONT, "align: centre"), "must be one of left, center, right, justify"),
    Case("leading-abc", replace(FRONT, "leading: 1.25", "leading: abc"),
         at(FRONT, "leading: abc"), "boxes.text.leading: must be a number, 0.5 to 5"),
    Case("leading-nan", replace(FRONT, "leading: 1.25", "leading: .nan"),
         at(FRONT, "leading: .nan"), "must be a finite number"),
    Case("dash-not-a-number", box_prop("frame", "dash: [1, x]"),
         at(FRONT, "dash: [1, x]"), "boxes.frame.dash: must be a number"),
    Case("repeat-lots", box_prop("ring", "repeat: lots"), at(FRONT, "repeat: lots"),
         "must be a whole number, 0 to 500 (got 'lots')"),
    Case("repeat-ten-million", box_prop("ring", "repeat: 10000000"),
         at(FRONT, "repeat: 10000000"), "must be 0 to 500 (got 10000000)", process=True),
    Case("repeat-ten-million-by-template", box_prop("ring", 'repeat: "{{ 10 ** 7 }}"'),
         at(FRONT, "repeat:"), "must be 0 to 500 (got 10000000)"),
    Case("rotate-inf", box_prop("number", "rotate: .inf"), at(FRONT, "rotate: .inf"),
         "boxes.number.rotate: must be a finite number"),
    Case("rotate-nan", box_prop("number", "rotate: .nan"), at(FRONT, "rotate: .nan"),
         "must be a finite number", command=["build", "PACK", "--out", "out"]),
    Case("rotate-nan-by-template", box_prop("number", "rotate: \"{{ 'nan' }}\""),
         at(FRONT, "rotate:"), "must be a finite number"),
    Case("radius-1e300", replace(FRONT, "radius: 2mm\n    stroke:", "radius: 1e300mm\n"
                                 "    stroke:"),
         at(FRONT, "1e300mm"), "boxes.frame.radius: the length must be -2000 mm to 2000 mm"),
    Case("text-size-1e300", replace(FRONT, "size: 14pt", "size: 1e300pt"),
         at(FRONT, "1e300pt"), "the length must be 1 pt to 500 pt"),
    Case("text-size-1e9", replace(FRONT, "size: 14pt", "size: 1e9pt"),
         at(FRONT, "1e9pt"), "the length must be 1 pt to 500 pt", process=True),
    Case("text-size-1e9-by-template", replace(FRONT, "size: 14pt", 'size: "{{ 10 ** 9 }}pt"'),
         at(FRONT, "size: \"{{"), "the length must be 1 pt to 500 pt"),
    Case("reference-size-nan", manifest(DOCUMENT.replace("rules.j2}", "rules.j2, size: .nan}")),
         at(PACK, "size: .nan"), "size: must be of type number (got nan)"),
    Case("reference-pages-huge", manifest(DOCUMENT.replace("rules.j2}",
                                                           "rules.j2, pages: 10000000}")),
         at(PACK, "pages: 10000000"), "must be at most 3000"),
    # -- boards and pieces --------------------------------------------------------------
    Case("board-50-metres", manifest("boards:\n  - {id: big, title: Big, layout: front, "
                                     "width: 50000mm, height: 10in}"),
         at(PACK, "50000mm"), "boards[0].width: the length must be 0 mm to 1500 mm",
         process=True),
    Case("board-1e300-mm", manifest("boards:\n  - {id: big, title: Big, layout: front, "
                                    "width: 1e300mm, height: 1e300mm}"),
         at(PACK, "1e300mm"), "the length must be 0 mm to 1500 mm"),
    Case("piece-100-inches", manifest("pieces:\n  - {id: big, title: Big, cards: [{a: 1}], "
                                      "layout: front, width: 100in, height: 100in}"),
         at(PACK, "100in"), "pieces[0].width: the length must be 0 mm to 300 mm"),
    Case("card-100-inches-export-png", both(
        write("templates/sheets.yaml", "sheets:\n  huge:\n    width: 100in\n"
                                       "    height: 100in\n    bleed: 3mm\n"),
        replace(PACK, "sheet: poker", "sheet: huge")),
        at("templates/sheets.yaml", "width: 100in"),
        "sheets.huge.width: the length must be 0 mm to 300 mm",
        command=["export", "png", "PACK", "--out", "out"]),
    # -- counts -------------------------------------------------------------------------
    Case("deck-copies-ten-million", both(
        replace(SCHEMA, "max: 999", "max: 100000000"),
        replace(DECK, "number: 1 ", "number: 10000000 "),
        replace(PACK, "    items: [deck.cards]", "    count: number\n    items: [deck.cards]")),
        at(DECK, "10000000"), "cards[0].number: must be 0 to 1000 (got 10000000)"),
    Case("copies-ten-to-the-30", replace(DECK, "number: 1 ", "number: " + "1" + "0" * 30 + " "),
         at(DECK, "1000000000000000000"), "out of range"),
    Case("integer-5000-digits", replace(DECK, "number: 1 ", "number: " + "7" * 5000 + " "),
         at(DECK, "77777"), "out of range"),
    Case("count-field-six", both(
        new_field("copies", "type: string"), card_value("copies: six"),
        replace(PACK, "    items: [deck.cards]", "    count: copies\n    items: [deck.cards]")),
        at(DECK, "copies: six"), "cards[0].copies: must be a whole number, 0 to 1000 (got 'six')"),
    Case("count-check-sums-strings", check("{count: deck.cards, sum: title, equals: 3}"),
         at(DECK, "title: Acorn"), "must be a whole number"),
    Case("unique-check-on-lists", both(
        new_field("tags", "type: list"), card_value("tags: [a, b]", 2),
        check("{unique: deck.cards, key: tags}")),
        "cards/deck.yaml:", "cards[1].tags: duplicate tags ['a', 'b'] (first used at line"),
    # -- a pack's own schemas ---------------------------------------------------------------
    Case("schema-min-abc", replace(SCHEMA, "min: 0\n", "min: abc\n"), at(SCHEMA, "min: abc"),
         "number.min: min must be a whole number (got 'abc')"),
    Case("schema-min-on-string", schema_rule("title", "min: 3"), at(SCHEMA, "min: 3"),
         "min applies to integer and number fields"),
    Case("schema-required-maybe", schema_rule("title", "required: maybe"),
         at(SCHEMA, "required: maybe"), "required must be true or false"),
    Case("schema-unknown-type", replace(SCHEMA, "type: integer", "type: int"),
         at(SCHEMA, "type: int"), "unknown type 'int'"),
    Case("schema-invalid-regex", schema_rule("title", "regex: '[a-'"),
         at(SCHEMA, "regex: '[a-'"), "invalid regex"),
    Case("schema-backreference", schema_rule("title", "regex: '(a)\\1'"),
         at(SCHEMA, "regex:"), "needs backtracking"),
    Case("schema-catastrophic-regex", both(
        schema_rule("text", "regex: '^(a+)+$'"),
        replace(DECK, 'text: "Draw **one** card."', 'text: "' + "a" * 34 + '!"')),
        at(DECK, "aaaaaaaa"), "must match the pattern", process=True),
    Case("rules-eti-level-optional", level_optional, "cards/projects.yaml:",
         "required field 'level' is missing", eti=True),
    # -- template budgets --------------------------------------------------------------
    # all 20 cards share the looping title: the first spends the budget, the rest are
    # refused at once, and the message names every card
    Case("template-loop-ten-to-the-ten", title_prop(LOOP), at(FRONT, "range(100000)"),
         "more than 2 s of CPU time (an endless or huge loop?) in 20 cards: deck.cards[0..19]"),
    Case("template-repeated-squaring", title_prop(SQUARE), at(FRONT, "namespace"),
         "would make a number of more than 4000 digits"),
    Case("template-format-width", title_prop("{{ '{:>1500000000}'.format('x') }}"),
         at(FRONT, "1500000000"), "format would build 1500000000 characters", process=True),
    Case("template-percent-format", title_prop("{{ '%1500000000d' | format(1) }}"),
         at(FRONT, "1500000000"), "formatting would build"),
    Case("template-center", title_prop("{{ 'x' | center(1500000000) }}"),
         at(FRONT, "1500000000"), "center(1500000000)"),
    Case("template-indent", title_prop("{{ 'x' | indent(1500000000, true) }}"),
         at(FRONT, "1500000000"), "indent(1500000000)"),
    Case("template-string-times", title_prop("{{ 'x' * 1500000000 }}"),
         at(FRONT, "1500000000"), "'*' would build"),
    Case("template-power", title_prop("{{ 2 ** 100000 }}"), at(FRONT, "2 ** 100000"),
         "more than 4000 digits"),
    # '~' cannot be checked ahead: the process's memory limit stops it, once per template
    Case("template-concat-doubling", title_prop(
        "{% set ns = namespace(s='xx') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
        "{% endfor %}{{ ns.s | length }}"),
        at(FRONT, "namespace"), "template builds too much text in 20 cards", process=True),
    # -- art budgets ---------------------------------------------------------------------
    Case("eight-use-bombs", icon_bombs, "templates/art/bomb", "once <use> is expanded",
         process=True),
    Case("forty-4096-pngs-in-one-svg", art(forty_pngs()), "templates/art/icon.svg:",
         "pass the limit of 40000000 pixels", process=True),
    Case("svg-tiny-viewbox-huge-width",
         art('<rect width="1e-30" height="1e-30"/>',
             'viewBox="0 0 1e-30 1e-30" width="1e38" height="1e38"'),
         "templates/art/icon.svg:", "too small to draw"),
    Case("svg-width-1e38", art('<rect width="1" height="1"/>',
                               'viewBox="0 0 100 100" width="1e38" height="1e38"'),
         "templates/art/icon.svg:", "past the limit"),
    Case("svg-nan-coordinate", art('<rect x="nan" y="0" width="10" height="10"/>'),
         "templates/art/icon.svg:", "is not a finite number"),
    Case("svg-inf-coordinate", art('<circle cx="50" cy="Infinity" r="10"/>'),
         "templates/art/icon.svg:", "is not a finite number"),
    Case("svg-huge-path", art('<path d="M 0 0 L 1e300 1e300"/>'),
         "templates/art/icon.svg:", "past the limit"),
    # -- markup ----------------------------------------------------------------------------
    Case("card-markup-1500-deep", title_prop(NESTED), at(FRONT, "<b><b>"),
         "markup nests more than 100 elements deep"),
    Case("document-markup-1500-deep", both(
        manifest(DOCUMENT),
        write("templates/rules.j2", "<document>\n<p>" + NESTED + "</p>\n</document>\n")),
        "templates/rules.j2:2", "markup nests more than 100 elements deep",
        command=["build", "PACK", "--out", "out"]),
]


@pytest.fixture(scope="session")
def scaffold(tmp_path_factory) -> Path:
    """The pack ``eti-print new`` writes, made once."""
    from eti_print.cli import main
    root = tmp_path_factory.mktemp("scaffold") / "pack"
    assert main(["-q", "new", str(root)]) == 0
    return root


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))


def run(case: Case, pack: Path, monkeypatch, capsys) -> tuple[int, str]:
    """``eti-print COMMAND... PACK`` from inside the pack: (exit status, stderr)."""
    argv = [str(pack) if a == "PACK" else a for a in case.command]
    if case.process:
        result = subprocess.run([sys.executable, "-m", "eti_print", *argv], cwd=pack,
                                capture_output=True, text=True, timeout=60,
                                preexec_fn=_limits)
        return result.returncode, result.stderr
    from eti_print.cli import main
    monkeypatch.chdir(pack)
    capsys.readouterr()
    status = main(argv)
    return status, capsys.readouterr().err


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_value(case: Case, tmp_path: Path, scaffold: Path, monkeypatch, capsys):
    pack = copy_pack(tmp_path / "pack") if case.eti else \
        Path(shutil.copytree(scaffold, tmp_path / "pack"))
    case.mutate(pack)
    status, err = run(case, pack, monkeypatch, capsys)
    assert "Traceback" not in err, err
    assert "internal error" not in err, err
    assert status == case.status, err
    where = case.where(pack) if callable(case.where) else case.where
    lines = err.strip().splitlines()
    assert any(line.startswith(where) and case.says in line for line in lines), err
    out = pack / "out"
    assert not out.exists() or not any(out.glob("*.pdf")), "a failed build wrote a PDF"


@pytest.mark.cold
def test_page_cap(tmp_path: Path, scaffold: Path, monkeypatch, capsys):
    """An output over the page budget stops with a message, and writes nothing."""
    from eti_print import limits
    monkeypatch.setitem(limits.BUDGETS["pages"], "max", 2)
    pack = Path(shutil.copytree(scaffold, tmp_path / "pack"))
    build = Case("pages", lambda p: None, "", "", command=["build", "PACK", "--out", "out"])
    status, err = run(build, pack, monkeypatch, capsys)
    assert status == 1, err
    assert "an output PDF has too many pages: 3 is over the limit of 2" in err, err
    assert not list((pack / "out").glob("*.pdf"))


def test_memory_limit_becomes_too_big(tmp_path: Path):
    """A command gets a soft address-space limit; running into it is 'too big', exit 1."""
    script = ("import argparse, sys, types\nfrom eti_print import cli\n"
              "def handler(args):\n    return len(bytearray(8 << 30))\n"
              "args = argparse.Namespace(handler=handler, quiet=False, verbose=False)\n"
              "cli.make_parser = lambda **_: types.SimpleNamespace(parse_args=lambda argv: args)\n"
              "sys.argv = ['eti-print', 'schema']\nsys.exit(cli.main())\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "too big" in result.stderr and "Traceback" not in result.stderr, result.stderr
