"""Progress of long work (``build``, ``export png``) as the command line shows it.

The library reports progress through a ``Progress`` callable (``context.py``):
it calls it with a message at each stage ("rendering eti-cards.pdf"), and may
say beforehand how many units of work are coming (``start``) and count them
off (``advance``).  ``Reporter`` is the command line's: on a terminal a tqdm
bar (the message as its label, the units as its length); anywhere else, one
plain line per message and nothing else, so logs and tests read the same
lines as ever.
"""

from __future__ import annotations

import sys
from typing import IO, Any


def start(progress: Any, total: int, unit: str) -> None:
    """Tell ``progress`` that ``total`` units of ``unit`` are coming (if it counts)."""
    begin = getattr(progress, "start", None)
    if begin is not None:
        begin(total, unit)


def advance(progress: Any, n: int = 1) -> None:
    """Count ``n`` units of work off ``progress`` (if it counts)."""
    step = getattr(progress, "advance", None)
    if step is not None:
        step(n)


class Reporter:
    """A ``Progress`` for the command line: a bar on a terminal, else plain lines."""

    def __init__(self, stream: IO[str] | None = None, tty: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty and isatty())
        self.tty = tty
        self._bar: Any = None
        self._counted = False     # the bar's length was given (start): messages only label it

    def __call__(self, message: str) -> None:
        if not self.tty:
            print(message, file=self.stream, flush=True)
            return
        bar = self._open(None, "step")
        # the bar's label: the message without its details, e.g. "rendering eti-cards.pdf"
        bar.set_description_str(message.split(" (", 1)[0], refresh=False)
        if not self._counted:
            bar.update(1)
        else:
            bar.refresh()

    def start(self, total: int, unit: str) -> None:
        if not self.tty:
            return
        self.close()
        self._open(total, unit)
        self._counted = True

    def advance(self, n: int = 1) -> None:
        if self.tty and self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        """Take the bar off the terminal (before the command prints its report)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            self._counted = False

    def _open(self, total: int | None, unit: str) -> Any:
        if self._bar is None:
            from tqdm import tqdm
            self._bar = tqdm(total=total, unit=f" {unit}", file=self.stream, leave=False,
                             dynamic_ncols=True, mininterval=0.1)
        return self._bar
