"""Pointing at a line: of the rendered markup, and back to a template."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from typing import Any

from ...errors import InputError, Problem

Locate = Callable[[int, str], tuple[str | None, int | None]]


class _Source:
    """The rendered markup and how to point at a line of it."""

    def __init__(self, text: str, where: str | None, locate: Locate | None):
        self.text = text
        self.where = where
        self.locate = locate
        self._starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_right(self._starts, pos)

    def line_text(self, line: int) -> str:
        start = self._starts[line - 1]
        end = self._starts[line] - 1 if line < len(self._starts) else len(self.text)
        return self.text[start:end]

    def problem(self, message: str, line: int, snippet: str = "", hint: str | None = None,
                field: str | None = None) -> Problem:
        path, at = self.where, line
        if self.locate is not None:
            found = self.locate(line, self.line_text(line) if 0 < line <= len(self._starts)
                                else snippet)
            if found[0] is None and snippet:
                found = self.locate(line, snippet)
            if found[0] is not None:
                path, at = found
            else:
                at = None
                message += f" (line {line} of the rendered document)"
        return Problem(message, path, at, None, field, hint)

    def error(self, message: str, line: int, snippet: str = "", hint: str | None = None,
              field: str | None = None) -> InputError:
        return InputError(self.problem(message, line, snippet, hint, field))


_JINJA_RE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}")


def _line_pattern(line: str) -> tuple[Any, int] | None:
    """A template line as a regex with its jinja parts as wildcards, and its literal length."""
    parts = _JINJA_RE.split(line.strip())
    literal = sum(len(p.strip()) for p in parts)
    if literal < 4 or "{{" in "".join(parts) or "{%" in "".join(parts):
        return None
    return re.compile(".*?".join(re.escape(p) for p in parts), re.S), literal


def template_locator(env: Any, prefix: str) -> Callable[[int, str], tuple[str | None, int | None]]:
    """Map a line of rendered markup back to a template file and line.

    Markup errors come from a template's literal text (data is escaped), so
    the rendered line is matched against the lines of the templates under
    ``prefix`` that the render read, their ``{{ }}``/``{% %}`` parts as
    wildcards; the line with the most literal text wins.  Failing that, the
    offending snippet is searched for.
    """
    cache: dict[str, list[tuple[str, Any]]] = {}

    def lines_of(shown: str) -> list[tuple[str, Any]]:
        if shown not in cache:
            name = shown[len(env.template_dir) + 1:]
            try:
                text, _, _ = env.loader.get_source(env.env, name)
            except Exception:   # pragma: no cover - it loaded a moment ago
                text = ""
            cache[shown] = [(line, _line_pattern(line)) for line in text.splitlines()]
        return cache[shown]

    def locate(line: int, snippet: str) -> tuple[str | None, int | None]:
        wanted = snippet.strip()
        if not wanted:
            return (None, None)
        files = [(s, lines_of(s)) for s in sorted(env.loader.files) if s.startswith(prefix)]
        best: tuple[int, str, int] | None = None
        for shown, lines in files:
            for k, (_, pattern) in enumerate(lines):
                if pattern is not None and pattern[0].fullmatch(wanted):
                    if best is None or pattern[1] > best[0]:
                        best = (pattern[1], shown, k + 1)
        if best is not None:
            return (best[1], best[2])
        for shown, lines in files:
            for k, (text, _) in enumerate(lines):
                if wanted in text:
                    return (shown, k + 1)
        return (None, None)
    return locate
