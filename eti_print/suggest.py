""""Did you mean": the nearest of the names a user could have meant (difflib)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def nearest(word: object, choices: Iterable[object], cutoff: float = 0.6) -> str | None:
    """The choice closest to ``word``, if any is close enough."""
    names = sorted({str(c) for c in choices})
    found = difflib.get_close_matches(str(word), names, n=1, cutoff=cutoff)
    if not found:   # a slip of case (``Title`` for ``title``) is still the same name
        lowered = {n.lower(): n for n in names}
        hit = lowered.get(str(word).lower())
        return hit
    return found[0]


def did_you_mean(word: object, choices: Iterable[object]) -> str | None:
    """``did you mean NAME?`` for the nearest choice, or None."""
    near = nearest(word, choices)
    return f"did you mean {near}?" if near is not None else None
