"""The one error hierarchy for everything a user can get wrong.

Library code raises these and never prints or exits; only the CLI turns them
into messages and exit codes.  A data, layout, template or art problem is an
``InputError`` carrying one or more located ``Problem``s (exit status 1); a bad
command line is a ``UsageError`` (exit status 2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

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
    #: what the problem hit, e.g. "card events.events[3] 'Sabotage' (cards/events.yaml:40)":
    #: problems alike but for their subject are reported once, with every subject
    subject: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = self.path
            if self.line is not None:
                where += f":{self.line}"
                if self.col is not None:
                    where += f":{self.col}"
            where += ": "
        message = f"{self.subject}: {self.message}" if self.subject else self.message
        text = f"{where}{self.field}: {message}" if self.field else f"{where}{message}"
        if self.hint:
            text += f" (hint: {self.hint})"
        return text

    def sort_key(self) -> tuple:
        return (self.path or "", self.line or 0, self.col or 0, self.field or "", self.message,
                self.subject or "")


class EtiError(Exception):
    """Base of every error eti-print reports to a user."""

    exit_code = 1


class UsageError(EtiError):
    """The command line is wrong (unknown option, bad value): exit status 2."""

    exit_code = 2


class PluginError(EtiError):
    """An installed game plugin is broken (a misspelt hook, a wrong signature): exit 1.
    The message names the plugin, the name at fault and the nearest hook."""

    exit_code = 1


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
         col: int | None = None, field: str | None = None, hint: str | None = None) -> InputError:
    """Build a single-problem InputError (``raise fail(...)``)."""
    return InputError(Problem(message, path, line, col, field, hint))


_SUBJECT_RE = re.compile(r"^card ([^\s\[]+)\[(\d+)\]")


def combine(problems: Iterable[Problem]) -> list[Problem]:
    """Problems sorted, duplicates dropped, and those alike but for their subject merged
    into one that names them all (``... in 25 cards: events.events[0..24]``)."""
    groups: dict[tuple, list[Problem]] = {}
    for p in problems:
        key = (p.message, p.path, p.line, p.col, p.field, p.hint)
        groups.setdefault(key, [])
        if p not in groups[key]:
            groups[key].append(p)
    out: list[Problem] = []
    for (message, path, line, col, field, hint), found in groups.items():
        subjects = sorted({p.subject for p in found if p.subject})
        if len(subjects) <= 1:
            out.extend(found)
            continue
        nouns = {s.split(" ", 1)[0] for s in subjects}
        noun = f"{nouns.pop()}s" if len(nouns) == 1 else "places"
        out.append(Problem(f"{message} in {len(subjects)} {noun}: {_ranges(subjects)}", path,
                           line, col, field, hint))
    return sorted(out, key=Problem.sort_key)


def _ranges(subjects: list[str]) -> str:
    """``card a.b[0] ..``, ``card a.b[1] ..`` -> ``a.b[0..1]``; others as they are."""
    by_list: dict[str, list[int]] = {}
    other: list[str] = []
    for s in subjects:
        m = _SUBJECT_RE.match(s)
        if m:
            by_list.setdefault(m.group(1), []).append(int(m.group(2)))
        else:
            other.append(s)
    parts = []
    for ref, indexes in by_list.items():
        indexes = sorted(set(indexes))
        runs, start = [], indexes[0]
        for a, b in zip(indexes, indexes[1:] + [None]):  # type: ignore[operator]
            if b is None or b != a + 1:
                runs.append(f"{start}" if start == a else f"{start}..{a}")
                start = b
        parts.append(f"{ref}[{', '.join(runs)}]")
    return ", ".join(parts + other)
