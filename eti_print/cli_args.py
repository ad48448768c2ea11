"""The command line's argument machinery: its parser class (help wrapped at spaces,
usage errors with the nearest choice), the value types of its options, and the print
and cache options several commands share.  ``cli.py`` builds the commands with them."""

from __future__ import annotations

import argparse
import re

from .errors import UsageError
from .suggest import did_you_mean


class Formatter(argparse.HelpFormatter):
    """Help wrapped at spaces only: a pack name (``mad-scientists``) stays whole."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", Formatter)
        if " " in str(kwargs.get("prog") or ""):     # a command's own help
            kwargs.setdefault("epilog", "-q (print only problems), -v (more detail) and "
                                        "--debug (tracebacks) go anywhere on the line.")
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(with_suggestion(message))


CHOICE_RE = re.compile(r"invalid choice: '?(?P<word>[^'\s]*)'? \(choose from (?P<choices>.*)\)$")


def with_suggestion(message: str) -> str:
    """argparse's "invalid choice" with the nearest choice: ``did you mean build?``."""
    m = CHOICE_RE.search(message)
    if not m:
        return message
    choices = [c.strip().strip("'") for c in m.group("choices").split(",")]
    hint = did_you_mean(m.group("word"), choices)
    return f"{message}; {hint}" if hint else message


def paper(value: str) -> str:
    value = value.lower()
    if value not in ("a4", "letter"):
        raise argparse.ArgumentTypeError(f"paper must be a4 or letter (got {value!r})")
    return value


def offset(value: str) -> tuple[float, float]:
    try:
        x, y = (float(part) for part in value.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"back offset must be X,Y in millimetres, e.g. 0.5,-1 (got {value!r})") from None
    if abs(x) > 20 or abs(y) > 20:
        raise argparse.ArgumentTypeError("back offset must be within 20 mm")
    return (x, y)


def add_no_cache(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the persistent build cache (the user's "
                        "cache folder, or $ETI_PRINT_CACHE_DIR)")


def gutter(value: str) -> float:
    try:
        mm = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"gutter must be a number of mm (got {value!r})") \
            from None
    if not (0 <= mm <= 20):
        raise argparse.ArgumentTypeError(f"gutter must be 0 to 20 mm (got {value!r})")
    return mm


def add_print_options(p: argparse.ArgumentParser) -> None:
    # None: not given, so pack.yaml's print: (then the built-in default) decides
    p.add_argument("--paper", type=paper, default=None,
                   help="a4 or letter (default: pack.yaml's print: paper, else a4)")
    p.add_argument("--duplex", choices=("long", "short", "glue", "fold", "none"), default=None,
                   help="two-sided printing: long (duplex, flip on the long edge), short "
                        "(flip on the short edge), glue (one-sided; each back sheet, mirrored "
                        "for a long-edge flip, follows its front: glue them back to back), "
                        "fold (fronts and backs side by side on one sheet: fold and glue) or "
                        "none (backs unmirrored, after all fronts); default: pack.yaml's "
                        "print: duplex, else long")
    p.add_argument("--gutter", type=gutter, default=None, metavar="MM",
                   help="space between neighbouring cards and pieces, in mm, each one's "
                        "bleed filling its half (default: the sheet settings', 4 for cards)")
    p.add_argument("--back-offset", type=offset, default=None, metavar="X,Y",
                   help="shift back sheets by X,Y mm to correct printer drift "
                        "(read it from 'eti-print calibrate'; default: pack.yaml's print: "
                        "back_offset, else 0,0)")
    p.add_argument("--ink-saver", action="store_true", default=None,
                   help="light backgrounds and no full-bleed color, for home printers "
                        "(default: pack.yaml's print: ink_saver)")
