"""The card-effects rule: a card's printed text and its declared effect agree, on a broken copy."""

from __future__ import annotations

import pytest

from eti_print.games.eti.effect_checks import printed_numbers

from conftest import copy_pack, edit, line_of, problems


def test_printed_numbers_read_numerals_and_bold_number_words():
    assert printed_numbers("deals **one extra** card and **+10** fame, port 14") == {1, 10, 14}
    assert printed_numbers("one of its projects") == set()


@pytest.mark.parametrize("file, old, new, needle, message", [
    ("events.yaml", "adds **50** research points", "adds **40** research points",
     "id: federal-research-grant", "the text prints 40 but the effect has no 40"),
    ("events.yaml", "{action: bank, who: beneficiary, amount: 50}",
     "{action: bank, who: beneficiary, amount: 70}", "id: federal-research-grant",
     "the effect uses 70 but the text never prints it"),
    ("events.yaml", "unless_immune: arson, amount: 2", "unless_immune: spy, amount: 2",
     "id: laboratory-fire", "the text names the threat arson, but the effect does not use it"),
    ("events.yaml", "    vote: creativity\n", "    vote: analysis\n", "id: nobel-committee",
     "the text shows the creativity trait, but neither the effect nor the vote uses it"),
    ("endgame.yaml", "amount: 5, in_all: 10", "amount: 5, in_all: 15", "id: the-engineer",
     "'in all' is 15"),
])
def test_a_card_whose_text_and_effect_disagree_is_located(tmp_path, file, old, new, needle,
                                                          message):
    pack = copy_pack(tmp_path / "pack")
    path = pack / "cards" / file
    edit(path, old, new)
    found = problems(pack)
    assert any(message in p for p in found), found
    start = line_of(path, needle)
    hit = next(p for p in found if message in p)
    line = int(hit.split(":")[1])
    assert start <= line <= start + 7, (hit, start)
