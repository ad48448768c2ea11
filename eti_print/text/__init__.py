"""Card text: shorthand, the internal markup, and typesetting into boxes.

Three layers:

1. ``rich(shorthand)`` (``shorthand.py``) turns the designers' shorthand
   (``**bold**``, ``*italic*``, ``:art-id:``, newline) into the internal
   markup, escaping everything else, so ``R&D <Alpha>`` prints as itself.
2. The internal markup is a tiny whitelisted language: ``<b>``, ``<i>``,
   ``<br/>``, ``<icon name="slug"/>`` and the entities ``&amp; &lt; &gt;
   &quot; &apos; &#NNN; &#xHHH;``.  ``parse()`` reads it strictly into a list
   of ``Run``s (``runs.py``); anything else is an ``InputError``.  The parser
   (``markup.py``, lxml hardened) is the one document markup is read with.
3. ``fit()`` (``fitting.py``, with the line breaking of ``breaking.py`` and
   the metrics of ``style.py``) breaks runs into lines for a box, shrinking
   the size in 0.25 pt steps down to the style's minimum; if nothing fits it
   raises ``OverflowProblem`` naming the overflow.  ``draw()``
   (``drawing.py``) puts a ``Fitted`` on a reportlab canvas with the
   registered (embedded, subset) fonts.

Nothing is ever clipped, squashed or dropped silently.  reportlab's Paragraph
is deliberately not used (it embeds local files named in ``<img>``, fails
unlocated on ``x<y`` and drops text that does not fit its frame).
"""

from __future__ import annotations

from .drawing import draw
from .fitting import Fitted, Line, OverflowProblem, Piece, fit, fit_markup, measure_line
from .markup import parse
from .runs import ALLOWED_TAGS, BREAK, ICON_ADVANCE, SOFT_HYPHEN, STEP, Run  # noqa: F401
from .shorthand import icon, plain, rich
from .style import FontMetrics, IconDrawer, TextStyle, font_metrics, text_width  # noqa: F401

__all__ = [
    "ALLOWED_TAGS", "BREAK", "Fitted", "IconDrawer", "Line", "OverflowProblem", "Piece",
    "Run", "TextStyle", "draw", "fit", "fit_markup", "font_metrics", "icon", "measure_line",
    "parse", "plain", "rich", "text_width",
]
