"""What parsed text is made of: runs of text, inline icons and breaks."""

from __future__ import annotations

import re
from dataclasses import dataclass

SOFT_HYPHEN = "\u00ad"
#: Size steps when shrinking text to fit (points).
STEP = 0.25
#: An inline icon's advance width as a multiple of its height (the icon is
#: drawn centred in it, leaving 10% of side bearing on each side).
ICON_ADVANCE = 1.2
_EPS = 1e-6

# ---------------------------------------------------------------------------
# Runs


@dataclass(frozen=True, slots=True)
class Run:
    """One piece of parsed text.

    ``kind`` is ``"text"`` (``text`` with ``bold``/``italic``), ``"icon"``
    (``icon`` is the art id) or ``"break"`` (a forced line break).
    """

    kind: str = "text"
    text: str = ""
    bold: bool = False
    italic: bool = False
    icon: str | None = None

    @staticmethod
    def of(text: str, bold: bool = False, italic: bool = False) -> Run:
        return Run("text", text, bold, italic)

    @staticmethod
    def art(name: str, bold: bool = False, italic: bool = False) -> Run:
        return Run("icon", "", bold, italic, name)


BREAK = Run("break")

ALLOWED_TAGS = '<b>, <i>, <br/>, <icon name="art-id"/>'

_ART_ID_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
