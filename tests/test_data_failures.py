"""Data failures as a case table: each case copies a shipped pack, breaks one
thing, validates, and asserts the located messages.

A case is ``Case(id, edits, expect, lines=..., pack=...)``:

* ``edits``: ``(file, old, new)`` replacements applied in order (the first
  occurrence of ``old``, which must be present); ``old=None`` writes ``new`` as
  the whole file, ``new=None`` deletes the file;
* ``lines``: names for line numbers looked up after the edits, as
  ``name: (file, needle, offset)`` (the first line containing ``needle``, plus
  ``offset``); they fill ``{name}`` in the expected messages;
* ``expect``: each entry must match a whole problem as printed
  (``file:line:col: field: message``), where ``...`` matches anything: a plain
  entry is the exact problem, ``"...fragment..."`` a fragment of one and
  ``"prefix..."`` its beginning.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import PACKS, copy_pack, edit, line_of, problems

Edit = tuple[str, "str | None", "str | None"]


@dataclass
class Case:
    id: str
    edits: list[Edit]
    expect: list[str]
    lines: dict[str, tuple[str, str, int]] | None = None
    pack: str = "eti"


P = "cards/projects.yaml"
R = "cards/research.yaml"

CASES = [
    # --- the game's consistency rules (eti_print/games/eti/checks.py) ---
    Case("project-grid-second-project-in-a-cell",
         [(P, "name: Solid Rocket Propellants\n    field: chemistry\n    level: II",
           "name: Solid Rocket Propellants\n    field: chemistry\n    level: I")],
         ["cards/projects.yaml:{line}:12: projects[1].level: a second level I chemistry "
          "project (the first is 'Synthetic Polymers')",
          "...no level II project in Chemistry..."],
         lines={"line": (P, "name: Solid Rocket Propellants", 2)}),
    Case("difficulty-must-rise-with-level",
         [(P, "level: II\n    difficulty: 130", "level: II\n    difficulty: 60")],
         ["cards/projects.yaml:{line}:17: projects[1].difficulty: difficulty 60 must be "
          "above level I's 70 (Synthetic Polymers)"],
         lines={"line": (P, "difficulty: 60", 0)}),
    Case("difficulty-multiple-of-ten", [(P, "difficulty: 70", "difficulty: 75")],
         ["...projects[0].difficulty: difficulty must be a multiple of 10 (got 75)..."]),
    Case("agenda-set-incomplete",
         [("cards/agendas.yaml", "{company: atlas-dynamics, agenda: switch-projects}",
           "{company: atlas-dynamics, agenda: submit-findings}")],
         ["...Atlas Dynamics has 0 'switch-projects' cards; expected 1...",
          "...Atlas Dynamics has 2 'submit-findings' cards; expected 1..."]),
    Case("alien-ufo-counts", [("cards/endgame.yaml", "ufos: 4", "ufos: 3")],
         ["...UFO counts must be 1 to 4, once each (got 1, 2, 3, 3)..."]),
    Case("research-card-listed-twice",
         [(R, "{kind: number, value: 50, count: 4}", "{kind: number, value: 40, count: 4}")],
         ["...40 is listed twice; give one entry a count instead..."]),
    Case("research-multiplier-values",
         [(R, "{kind: multiplier, value: 3, count: 4}", "{kind: multiplier, value: 4, count: 4}")],
         ["...multipliers are x0, x2 or x3 (got x4)..."]),
    Case("research-needs-all-three-kinds",
         [(R, f"{{kind: threat, threat: {t}, count: 4}}", f"{{kind: number, value: {v}, count: 4}}")
          for v, t in zip((60, 70, 80, 90), ("abduction", "arson", "data-virus", "spy"))],
         ["...the deck has no threat cards...", "...the deck has no Spy threat card..."]),
    Case("research-count-must-total-ninety",
         [(R, "{kind: number, value: 50, count: 4}", "{kind: number, value: 50, count: 5}")],
         ["cards/research.yaml:{line}:1: research: count adds up to 91 cards; expected 90 "
          "(set at pack.yaml:{check})"],
         lines={"line": (R, "research:", 0),
                "check": ("pack.yaml", "count: research.research", 0)}),
    Case("trait-track-must-not-fall",
         [("cards/traits.yaml", '{value: 4, label: "4 cards"}', '{value: 2, label: "2 cards"}')],
         ["...Staffing values must rise along the track..."]),
    Case("manifest-count-disagrees-with-deck",
         [("cards/components.yaml", "count: 90", "count: 91")],
         ["...says 91 but the research deck has 90 cards..."]),
    Case("vote-trait-only-on-vote-events",
         [("cards/events.yaml", "type: choice", "type: choice\n    vote: security")],
         ["...a choice event cannot name a vote trait..."]),
    Case("unknown-reference-is-located", [(P, "field: chemistry", "field: alchemy")],
         ["cards/projects.yaml:{line}:12: projects[0].field: unknown id 'alchemy' "
          "(not in fields.fields)..."],
         lines={"line": (P, "field: alchemy", 0)}),
    Case("unknown-upgrade-trait", [(P, "upgrades: [staffing]", "upgrades: [charisma]")],
         ["...projects[1].upgrades[0]: must be one of staffing, creativity, security, "
          "analysis (got 'charisma')..."]),
    Case("unknown-icon-in-text", [("cards/events.yaml", ":trait-", ":no-such-")],
         ["cards/events.yaml:{line}:...unknown icon :no-such-..."],
         lines={"line": ("cards/events.yaml", ":no-such-", 0)}),
    Case("duplicate-names", [(P, "name: Solid Rocket Propellants", "name: Synthetic Polymers")],
         ["...projects[1].name: duplicate name 'Synthetic Polymers' (first used at line..."]),
    Case("game-lengths-need-enough-projects",
         [("cards/game.yaml", "multiplier: 4", "multiplier: 9")],
         ["...a 6-player Epic game may need 60 projects but the deck has 40..."]),
    Case("every-problem-is-reported-together",
         [(P, "difficulty: 70", "difficulty: 75"), ("cards/endgame.yaml", "ufos: 4", "ufos: 3")],
         ["...multiple of 10...", "...UFO counts..."]),
    Case("defense-and-fame-in-steps-of-five", [(P, "defense: 10", "defense: 12")],
         ["...projects[0].defense: defense must be a multiple of 5 (got 12)..."]),
    Case("numeric-research-must-beat-the-safe-value",
         [(R, "{kind: number, value: 10, count: 16}", "{kind: number, value: 10, count: 56}")]
         + [(R, f"  - {{kind: number, value: {v}, count: {n}}}\n", "")
            for v, n in ((20, 16), (30, 12), (40, 8), (50, 4))],
         ["...numeric cards average 10.0, not above the safe value 10..."]),

    # --- the schemas (eti_print/schema.py) ---
    Case("level-out-of-range-is-reported-compiler-style", [(P, "level: III", "level: 6")],
         ["cards/projects.yaml:{line}:12: projects[2].level: must be one of I, II, III, IV, V "
          "(got 6)"],
         lines={"line": (P, "level: 6", 0)}),
    Case("true-is-not-an-integer", [(P, "defense: 10", "defense: true")],
         ["cards/projects.yaml:{line}:14: projects[0].defense: must be of type integer "
          "(got True)"],
         lines={"line": (P, "defense: true", 0)}),
    Case("quoted-number-is-not-coerced", [(P, "difficulty: 70", 'difficulty: "70"')],
         ["...projects[0].difficulty: must be of type integer (got '70')..."]),
    Case("unknown-field-points-at-the-key", [(P, "    fame: 10\n", "    fame: 10\n    glory: 5\n")],
         ["cards/projects.yaml:{line}:5: projects[0].glory: unknown field"],
         lines={"line": (P, "glory: 5", 0)}),
    Case("missing-field-points-at-the-item", [(P, "    fame: 10\n", "")],
         ["cards/projects.yaml:{line}:5: projects[0]: required field 'fame' is missing"],
         lines={"line": (P, "id: synthetic-polymers", 0)}),
    Case("no-to-boolean-stays-a-string", [(P, "level: I\n", "level: NO\n")],
         ["...projects[0].level: must be one of I, II, III, IV, V (got 'NO')..."]),
    Case("duplicate-key-in-data", [(P, "    fame: 10\n", "    fame: 10\n    fame: 20\n")],
         ["cards/projects.yaml:{line}:5: projects[0].fame: duplicate key 'fame' "
          "(first defined at line {first})"],
         lines={"line": (P, "fame: 20", 0), "first": (P, "fame: 20", -1)}),
    Case("missing-data-file", [("cards/events.yaml", None, None)],
         ["pack.yaml:...file not found: events.yaml..."]),
    Case("empty-data-file", [("cards/events.yaml", None, "")],
         ["cards/events.yaml:1:1: file is empty"]),

]


def _pattern(expected: str, lines: dict[str, int]) -> re.Pattern:
    text = expected.format(**lines)
    return re.compile(".*".join(re.escape(part) for part in text.split("...")), re.DOTALL)


def _apply(pack: Path, edits: list[Edit]) -> None:
    for rel, old, new in edits:
        path = pack / rel
        if new is None:
            path.unlink()
        elif old is None:
            path.write_text(new, encoding="utf-8")
        else:
            edit(path, old, new)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_data_failure_is_reported_where_it_is(case: Case, tmp_path: Path):
    if case.pack == "eti":
        pack = copy_pack(tmp_path / "pack")
    else:
        pack = Path(shutil.copytree(PACKS[case.pack], tmp_path / case.pack))
    _apply(pack, case.edits)
    lines = {name: line_of(pack / rel, needle) + offset
             for name, (rel, needle, offset) in (case.lines or {}).items()}
    found = problems(pack)
    for expected in case.expect:
        pattern = _pattern(expected, lines)
        assert any(pattern.fullmatch(p) for p in found), (expected.format(**lines), found)
