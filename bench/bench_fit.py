"""Time text fitting: a thousand event-sized texts with icons, and one 1700-character
text that overflows a card's box and is then set in a page-sized one (what
tests/text/test_text.py checks, without a clock).

    python bench/bench_fit.py [--repeat R]

Times are process CPU time, the best of ``--repeat`` runs, in milliseconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eti_print.errors import InputError  # noqa: E402
from eti_print.fonts import load_fonts  # noqa: E402
from eti_print.pack import Pack  # noqa: E402
from eti_print.text import TextStyle, fit_markup, rich  # noqa: E402

BASE = ("When this event is revealed, every company with :trait-security: below {n} "
        "loses **one** research card of its choice; the alien *spy* :threat-spy: "
        "moves {n} spaces toward the nearest laboratory, then the threat advances.")


class Icons:
    """Every icon known (fitting only asks ``get``)."""

    def get(self, art_id, where=None, line=None, field=None):
        return art_id


def best(runs: int, work) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    body = load_fonts(Pack.open(None))["body"]
    texts = [rich(BASE.format(n=n)) for n in range(1000)]
    style = TextStyle(body, 9, 6)
    icons = Icons()
    huge = rich(("Every company loses one research card and the threat advances. " * 30)[:1700])

    def many() -> None:
        for text in texts:
            fit_markup(text, 150, 70, style, icons)

    def overflow() -> None:
        try:
            fit_markup(huge, 150, 100, TextStyle(body, 9, 6.5))
        except InputError:
            pass

    print(f"1000 event texts:          {best(args.repeat, many):8.1f} ms")
    print(f"1700 chars, overflowing:   {best(args.repeat, overflow):8.1f} ms")
    def page() -> None:
        fit_markup(huge, 400, 600, TextStyle(body, 12, 4))

    print(f"1700 chars, on a page:     {best(args.repeat, page):8.1f} ms")


if __name__ == "__main__":
    main()
