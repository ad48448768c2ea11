"""The game's consistency rules that guard the trait tracks and the vote events, each
fired on a broken copy of the shipped pack and reported at its place (the case table of
test_data_failures.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_data_failures import Case, _apply, _pattern

from conftest import copy_pack, line_of, problems

T = "cards/traits.yaml"
E = "cards/events.yaml"

CASES = [
    Case("tactics-must-mirror-security",
         [(T, '{value: 4, label: "4 tactics"}', '{value: 3, label: "3 tactics"}')],
         ["cards/traits.yaml:{line}:7: alien[2].spaces: Tactics must give what Security "
          "gives, space for space (Security [0, 1, 1, 2, 2, 3, 4], "
          "Tactics [0, 1, 1, 2, 2, 3, 3])"],
         lines={"line": (T, "id: tactics", 7)}),
    Case("analysis-cannot-peek-past-the-ports",
         [(T, '{value: 12, label: "ports 1-12"}', '{value: 20, label: "ports 1-20"}')],
         ["cards/traits.yaml:{line}:7: human[3].spaces: Analysis peeks at 20 ports "
          "('ports 1-20') but a company board has only 14"],
         lines={"line": (T, "id: analysis", 7)}),
    Case("eti-must-reach-invade-now",
         [(T, '{value: 0, label: "invade now"}', '{value: 1, label: "1 turn"}')],
         ["cards/traits.yaml:{line}:7: alien[0].spaces: E.T.I. must end at 0 turns "
          "(invade now), but its last space gives 1"],
         lines={"line": (T, "id: eti", 7)}),
    Case("staffing-must-deal-a-card-at-the-start",
         [(T, '{value: 3, label: "3 cards"}', '{value: 0, label: "no cards"}')],
         ["cards/traits.yaml:{line}:7: human[0].spaces: Staffing must deal at least 1 card "
          "from its first space (got 0)"],
         lines={"line": (T, "id: staffing", 7)}),
    Case("vote-text-names-another-trait",
         [(E, "vote: staffing", "vote: creativity")],
         ["cards/events.yaml:{line}:11: events[14].text: the text names Staffing but vote: "
          "is 'creativity'"],
         lines={"line": (E, "vote: creativity", 1)}),
    Case("trait-vote-without-vote-field",
         [(E, "    vote: staffing\n", "")],
         ["...events[...].vote: the text announces a Staffing vote but the event has no "
          "vote: field"]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_rule_fires_on_a_broken_copy(case: Case, tmp_path: Path):
    pack = copy_pack(tmp_path / "pack")
    _apply(pack, case.edits)
    lines = {name: line_of(pack / rel, needle) + offset
             for name, (rel, needle, offset) in (case.lines or {}).items()}
    found = problems(pack)
    for expected in case.expect:
        assert any(_pattern(expected, lines).fullmatch(p) for p in found), \
            (expected.format(**lines), found)


def test_a_reconstructed_note_must_name_the_data(tmp_path: Path):
    pack = copy_pack(tmp_path / "pack")
    _apply(pack, [(T, "  alien.spaces: >-", "  alien.space: >-")])
    line = line_of(pack / T, "alien.space:")
    assert (f"cards/traits.yaml:{line}:16: reconstructed.alien.space: 'alien.space' names "
            f"nothing in traits.yaml (hint: a dotted path to a key, an entry's id or a field "
            f"of a list's entries, such as human.spaces)") in problems(pack)


def test_a_board_component_counts_the_boards_pack_yaml_makes(tmp_path: Path):
    pack = copy_pack(tmp_path / "pack")
    _apply(pack, [("cards/components.yaml", "name: Score pad\n    count: 1",
                   "name: Score pad\n    count: 2")])
    line = line_of(pack / "cards/components.yaml", "name: Score pad") + 1
    assert (f"cards/components.yaml:{line}:12: components[...].count: says 2 but pack.yaml's "
            f"board 'score-pad' makes 1") in [re.sub(r"components\[\d+\]", "components[...]", p)
                                               for p in problems(pack)]


@pytest.mark.parametrize("value, hint", [
    ("middel", "(hint: did you mean middle?)"),
    ("\"{{ 'top' if card else 'middle' }}\"",
     "(hint: a choice is written as it is, not as a template)"),
])
def test_a_choice_the_renderer_cannot_draw_is_refused_where_it_is_written(tmp_path: Path,
                                                                          value, hint):
    """A box's align or valign is one of its choices as written: a typo or a template is
    a located problem before any card is drawn, never a traceback."""
    pack = copy_pack(tmp_path / "pack")
    layout = "templates/layouts/table-score-pad.yaml"
    _apply(pack, [(layout, "    valign: middle\n    color: \"#3A3F47\"\n    text: \"The invasion",
                   f"    valign: {value}\n    color: \"#3A3F47\"\n    text: \"The invasion")])
    line = line_of(pack / layout, f"valign: {value}")
    found = problems(pack)
    assert any(p.startswith(f"{layout}:{line}:") and "valign must be one of top, middle, "
               "bottom (got" in p and p.endswith(hint) for p in found), found
