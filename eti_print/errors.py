"""The one error hierarchy for everything a user can get wrong.

Library code raises these and never prints or exits; only the CLI turns them
into messages and exit codes.  A data, layout, template or art problem is an
``InputError`` carrying one or more located ``Problem``s (exit status 1); a bad
command line is a ``UsageError`` (exit status 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

#: How many problems one pass reports before it stops listing them.
PROBLEM_CAP = 50


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the user's input, located as precisely as known."""

    message: str
    path: str | None = None
    line: int | None = None
    col: int | None = None
    field: str | None = None
    hint: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = self.path
            if self.line is not None:
                where += f":{self.line}"
                if self.col is not None:
                    where += f":{self.col}"
            where += ": "
        text = f"{where}{self.field}: {self.message}" if self.field else f"{where}{self.message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def sort_key(self) -> tuple:
        return (self.path or "", self.line or 0, self.col or 0, self.field or "", self.message)


class EtiError(Exception):
    """Base of every error eti-print reports to a user."""

    exit_code = 1


class UsageError(EtiError):
    """The command line is wrong (unknown option, bad value): exit status 2."""

    exit_code = 2


class InputError(EtiError):
    """Data, layouts, templates, fonts or art are bad: exit status 1."""

    exit_code = 1

    def __init__(self, problems: Iterable[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem(problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def lines(self, cap: int = PROBLEM_CAP) -> list[str]:
        shown = [str(p) for p in self.problems[:cap]]
        if len(self.problems) > cap:
            shown.append(f"... and {len(self.problems) - cap} more problems")
        return shown


def fail(message: str, path: str | None = None, line: int | None = None,
         col: int | None = None, field: str | None = None, hint: str | None = None) -> "InputError":
    """Build a single-problem InputError (``raise fail(...)``)."""
    return InputError(Problem(message, path, line, col, field, hint))


class Problems:
    """Collects the problems of one pass so they are reported together."""

    def __init__(self) -> None:
        self._items: list[Problem] = []

    def add(self, message: str, path: str | None = None, line: int | None = None,
            col: int | None = None, field: str | None = None, hint: str | None = None) -> None:
        self._items.append(Problem(message, path, line, col, field, hint))

    def extend(self, problems: Iterable[Problem]) -> None:
        self._items.extend(problems)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Problem]:
        return iter(self._items)

    def raise_if_any(self) -> None:
        if self._items:
            unique = sorted(set(self._items), key=Problem.sort_key)
            raise InputError(unique)
