"""Lengths at the data boundary: units required, exact conversions, located errors."""

from __future__ import annotations

import pytest

from eti_print.errors import InputError
from eti_print.units import PAPER, inch, mm, paper_size, show_mm, to_mm, to_offset, to_points


@pytest.mark.parametrize("text, points", [
    ("63.5mm", 180.0),
    ("2.5in", 180.0),
    ("12pt", 12.0),
    ("0.3cm", 3 * 72 / 25.4),
    (" 3 mm ", 3 * 72 / 25.4),
    ("0mm", 0.0),
    (".5in", 36.0),
    ("1e1mm", 10 * 72 / 25.4),
    ("3MM", 3 * 72 / 25.4),
])
def test_to_points_parses_units(text: str, points: float) -> None:
    assert to_points(text) == pytest.approx(points, abs=1e-9)


def test_helpers_are_exact() -> None:
    assert mm(25.4) == 72.0
    assert inch(1) == 72.0
    assert to_mm(72.0) == 25.4
    assert mm(63.5) == pytest.approx(180.0, abs=1e-12)
    assert mm(88.9) == pytest.approx(252.0, abs=1e-12)


def test_paper_sizes() -> None:
    assert PAPER["a4"] == pytest.approx((595.2756, 841.8898), abs=1e-4)
    assert to_mm(PAPER["a4"][0]) == pytest.approx(210, abs=1e-9)
    assert to_mm(PAPER["a4"][1]) == pytest.approx(297, abs=1e-9)
    assert PAPER["letter"] == (612.0, 792.0)
    assert paper_size("Letter") == (612.0, 792.0)


def test_unknown_paper() -> None:
    with pytest.raises(InputError) as info:
        paper_size("a5", where="templates/sheets.yaml", line=3, field="paper")
    assert str(info.value) == ("templates/sheets.yaml:3: paper: unknown paper 'a5' "
                               "(hint: paper is a4 or letter)")


@pytest.mark.parametrize("value", [63.5, 3, "63.5", " 2 "])
def test_bare_numbers_need_a_unit(value: object) -> None:
    with pytest.raises(InputError) as info:
        to_points(value, where="cards/game.yaml", line=7, field="sheet.bleed")
    text = str(info.value)
    assert text.startswith("cards/game.yaml:7: sheet.bleed: the length ")
    assert "has no unit" in text
    assert "give a unit: mm, cm, in or pt" in text


def test_bare_number_message_exact() -> None:
    with pytest.raises(InputError) as info:
        to_points("3", field="bleed")
    assert str(info.value) == ("bleed: the length '3' has no unit "
                               "(hint: give a unit: mm, cm, in or pt, as in \"3mm\")")


@pytest.mark.parametrize("value, words", [
    ("-1mm", "is negative"),
    ("1e999mm", "too large"),
    ("infmm", "not a length"),
    ("nan mm", "not a length"),
    ("3 furlongs", "unknown unit 'furlongs'"),
    ("3px", "unknown unit 'px'"),
    ("mm", "not a length"),
    ("", "not a length"),
    ("3mm4", "not a length"),
    (True, "must be text"),
    (None, "must be text"),
    ([3], "must be text"),
])
def test_bad_lengths(value: object, words: str) -> None:
    with pytest.raises(InputError) as info:
        to_points(value)
    assert words in str(info.value)


def test_signed_lengths_for_offsets() -> None:
    assert to_points("-1mm", signed=True) == pytest.approx(-mm(1))
    assert to_points("-0mm") == 0.0
    assert to_offset("1.5mm,-0.5mm") == pytest.approx((mm(1.5), mm(-0.5)))
    assert to_offset(" -1pt , 2pt ") == pytest.approx((-1.0, 2.0))


@pytest.mark.parametrize("value", ["1.5", "1mm", "1mm,2mm,3mm", "1,2"])
def test_bad_offsets(value: str) -> None:
    with pytest.raises(InputError):
        to_offset(value)


def test_show_mm() -> None:
    assert show_mm(mm(63.5)) == "63.5 mm"
    assert show_mm(mm(3)) == "3 mm"
    assert show_mm(mm(-0.001)) == "0 mm"
    assert show_mm(612) == "215.9 mm"
