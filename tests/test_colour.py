"""colour: one mixer, as floats (``blend``) or as ``#RRGGBB`` (``mix``)."""

from __future__ import annotations

import pytest
from reportlab.lib.colors import Color

from eti_print.colour import WHITE, blend, mix, rgb


def test_blend_moves_each_channel_the_given_part_of_the_way_and_does_not_round():
    red = Color(0.9, 0.1, 0.3)
    assert blend(red, WHITE, 0.0) == pytest.approx((0.9, 0.1, 0.3))
    assert blend(red, WHITE, 1.0) == pytest.approx((1.0, 1.0, 1.0))
    half = blend(red, "#000000", 0.5)
    assert half == pytest.approx((0.45, 0.05, 0.15))
    # not rounded to 8 bits: the faded cards of the reference draw these very floats
    assert any(abs(v * 255 - round(v * 255)) > 1e-6 for v in half)


def test_mix_is_the_blend_as_hex():
    for a, b, amount in (("#1E2430", "#F4EEDF", 0.84), ("#C0392B", "#000000", 0.25),
                         (Color(0.2, 0.4, 0.6), WHITE, 0.62)):
        hexed = mix(a, b, amount)
        assert hexed.startswith("#") and len(hexed) == 7
        assert rgb(hexed) == pytest.approx(blend(a, b, amount), abs=0.5 / 255)
