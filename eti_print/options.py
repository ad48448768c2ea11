"""Print options, checked once, and the one place output files are named."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .errors import UsageError
from .units import paper_size

PAPERS = ("a4", "letter")
DUPLEX = ("long", "short", "glue", "fold", "none")
#: The largest ``--back-offset`` in either direction, in millimetres.
MAX_BACK_OFFSET = 20.0
#: The widest ``--gutter``, in millimetres.
MAX_GUTTER = 20.0


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
    #: ``--gutter``: mm between neighbouring pieces on every sheet, over the sheet settings'
    gutter: float | None = None
    page: tuple[float, float] = field(init=False, repr=False, compare=False)
    #: where each of paper, duplex, back_offset and ink_saver came from: "the command
    #: line", "pack.yaml:LINE" or "the default" (``PrintRequest.resolve``)
    origins: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

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
        if self.gutter is not None:
            g = self.gutter
            if not (isinstance(g, (int, float)) and math.isfinite(g) and 0 <= g <= MAX_GUTTER):
                raise UsageError(f"gutter must be 0 to {MAX_GUTTER:g} mm (got {g!r})")
        object.__setattr__(self, "page", paper_size(self.paper))

    def describe(self, keys: tuple[str, ...] = ("paper", "duplex", "back_offset",
                                                "ink_saver")) -> str:
        """The options (``keys`` of them) and where each is set, as ``-v`` shows them."""
        values = {"paper": self.paper, "duplex": self.duplex,
                  "back_offset": f"{self.back_offset[0]:g},{self.back_offset[1]:g}",
                  "ink_saver": "yes" if self.ink_saver else "no"}
        return "print options: " + ", ".join(
            f"{key} {value} ({self.origins.get(key, 'the default')})"
            for key, value in values.items() if key in keys)

    def output_name(self, slug: str, stem: str, ext: str = "pdf") -> str:
        """The file an output is written as: ``SLUG-STEM.EXT``; a paper other than A4
        marked (``eti-cards-letter.pdf``), so A4 and Letter builds sit side by side in
        one folder, and ink saver too (``eti-cards-letter-ink-saver.pdf``)."""
        paper = "" if self.paper == PAPERS[0] else f"-{self.paper}"
        return f"{slug}-{stem}{paper}{'-ink-saver' if self.ink_saver else ''}.{ext}"


def parse_offset(value: str) -> tuple[float, float]:
    """``"0.5,-1"`` -> ``(0.5, -1.0)``; ValueError for anything else."""
    parts = str(value).split(",")
    if len(parts) != 2:
        raise ValueError(value)
    x, y = (float(part) for part in parts)
    return (x, y)


@dataclass(frozen=True)
class PrintRequest:
    """The print options a command line gives; None where it gives none, so that the
    pack's ``print:`` defaults (pack.yaml), then the built-in ones, fill them in."""

    paper: str | None = None
    duplex: str | None = None
    back_offset: tuple[float, float] | None = None
    ink_saver: bool | None = None
    booklet: bool = False
    gutter: float | None = None

    def resolve(self, defaults: dict | None = None, where: str = "pack.yaml",
                lines: dict[str, int | None] | None = None) -> PrintOptions:
        """Command line > ``defaults`` (pack.yaml's ``print:``, at ``lines``) > built-in.

        A bad value in ``defaults`` is an ``InputError`` located in pack.yaml.
        """
        from .errors import InputError, Problem
        defaults = defaults or {}
        lines = lines or {}
        values: dict = {}
        origins: dict[str, str] = {}
        for key in ("paper", "duplex", "back_offset", "ink_saver"):
            given = getattr(self, key)
            if given is not None:
                values[key], origins[key] = given, "the command line"
                continue
            if key not in defaults:
                origins[key] = "the default"
                continue
            line = lines.get(key)
            origins[key] = f"{where}:{line}" if line else where
            value = defaults[key]
            if key == "back_offset":
                try:
                    value = parse_offset(value)
                except ValueError:
                    raise InputError(Problem(
                        f"back offset must be X,Y in millimetres, e.g. \"0.5,-1\" (got "
                        f"{value!r})", where, line, field="print.back_offset")) from None
            try:    # checked one by one, to say which line of pack.yaml is wrong
                PrintOptions(**{key: value})
            except UsageError as exc:
                raise InputError(Problem(str(exc), where, line, field=f"print.{key}")) \
                    from None
            values[key] = value
        return PrintOptions(booklet=self.booklet, gutter=self.gutter, origins=origins, **values)
