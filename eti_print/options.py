"""Print options, checked once, and the one place output files are named."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .errors import UsageError
from .units import paper_size

PAPERS = ("a4", "letter")
DUPLEX = ("long", "short", "none")
#: The largest ``--back-offset`` in either direction, in millimetres.
MAX_BACK_OFFSET = 20.0


@dataclass(frozen=True)
class PrintOptions:
    """How a build prints: paper, duplex flip, back offset, ink saver, booklet.

    Checks itself on creation (a bad value is a ``UsageError``, exit 2) and
    converts the paper to points once (``page``).
    """

    paper: str = "a4"
    duplex: str = "long"
    back_offset: tuple[float, float] = (0.0, 0.0)   # millimetres
    ink_saver: bool = False
    booklet: bool = False   # impose the rules reference two-up for saddle stitching
    page: tuple[float, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise UsageError(f"paper must be {' or '.join(PAPERS)} (got {self.paper!r})")
        if self.duplex not in DUPLEX:
            raise UsageError(f"duplex must be {', '.join(DUPLEX)} (got {self.duplex!r})")
        try:
            x, y = (float(v) for v in self.back_offset)
        except (TypeError, ValueError):
            raise UsageError(f"back offset must be two numbers (got {self.back_offset!r})") \
                from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise UsageError("back offset must be finite")
        if abs(x) > MAX_BACK_OFFSET or abs(y) > MAX_BACK_OFFSET:
            raise UsageError(f"back offset must be within {MAX_BACK_OFFSET:g} mm")
        object.__setattr__(self, "back_offset", (x, y))
        object.__setattr__(self, "page", paper_size(self.paper))

    def output_name(self, slug: str, stem: str, ext: str = "pdf") -> str:
        """The file an output is written as: ``SLUG-STEM.EXT``, ``-ink-saver`` marked."""
        return f"{slug}-{stem}{'-ink-saver' if self.ink_saver else ''}.{ext}"
