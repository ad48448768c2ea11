"""Placing flowables on pages: nothing dropped, headings kept with what follows."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from reportlab.platypus.flowables import Flowable
from reportlab.platypus.tables import Table

from ...errors import InputError, Problem
from .blocks import CoverPage, DocTable, Stack
from .flowables import _EPS, BIG, Heading, PageBreak, RichText, Where
from .theme import Theme


@dataclass
class Page:
    """One page: what sits where, and what the running header shows."""

    number: int
    items: list[tuple[Flowable, float, float]] = field(default_factory=list)
    cover: bool = False
    section: str = ""
    anchors: list[tuple[Heading, float]] = field(default_factory=list)


def _overflow(f: Flowable, message: str) -> InputError:
    s: Where | None = getattr(f, "source", None)
    hint = "split it into smaller pieces, or shorten it"
    if s is None:
        return InputError(Problem(f"{type(f).__name__} {message}", hint=hint))
    return InputError(s.problem(f"{s.what} {message}", hint))


def paginate(flowables: Sequence[Flowable], theme: Theme) -> list[Page]:
    """Place every flowable on pages; raise if one cannot be placed.

    Every flowable (or every part of a split one) ends up on exactly one
    page, so nothing is dropped silently.  Headings stay with what follows.
    """
    x0, y0, fw, fh = theme.frame
    pages: list[Page] = []
    queue = list(reversed(flowables))
    section = ""
    page = Page(1)
    y = y0 + fh          # the cursor: top of the free space
    guard = 0

    def finish() -> None:
        nonlocal page, y
        pages.append(page)
        page = Page(len(pages) + 1, section=section)
        y = y0 + fh

    def place(f: Flowable, top: float, h: float) -> None:
        nonlocal y, section
        first = not page.items
        page.items.append((f, x0, top - h))
        for heading, offset in _headings_in(f):
            page.anchors.append((heading, top - offset))
            if heading.level == 1:
                section = heading.short
                if first and offset == 0:   # the running header names the section at the top
                    page.section = section
        y = top - h - f.getSpaceAfter()

    while queue:
        guard += 1
        if guard > 200_000:  # pragma: no cover - a flowable that keeps splitting
            raise InputError(Problem("the document does not settle into pages"))
        f = queue.pop()
        if isinstance(f, PageBreak):
            if page.items:
                finish()
            continue
        if isinstance(f, CoverPage):
            if page.items:
                finish()
            f.wrap(theme.page[0] - 2 * x0, theme.page[1])
            page.cover = True
            page.items.append((f, 0.0, 0.0))
            finish()
            continue
        space = f.getSpaceBefore() if page.items else 0.0
        avail = y - y0 - space
        _, h = f.wrap(fw, avail)
        need = h
        if getattr(f, "keepWithNext", False):
            need = h + _following(queue, fw, f.getSpaceAfter(), 3.2 * theme.size * theme.leading)
        if need <= avail + _EPS:
            place(f, y - space, h)
            continue
        if h > avail + _EPS and avail > 0:
            parts = f.split(fw, avail)
            if len(parts) > 1:
                queue.extend(reversed(parts))
                continue
        if page.items:
            finish()
            queue.append(f)
            continue
        if h > fh + _EPS:
            raise _overflow(f, f"is {h:.0f} pt tall and does not fit on a page "
                            f"({fh:.0f} pt)")
        # it fits an empty page but wants a neighbour it cannot have: place it anyway
        place(f, y, h)
    if page.items or not pages:
        pages.append(page)
    return pages


def _headings_in(f: Flowable, offset: float = 0.0) -> Iterator[tuple[Heading, float]]:
    """Headings in ``f`` (itself, or inside a stack), with their distance from its top."""
    if isinstance(f, Heading):
        yield f, offset
    elif isinstance(f, Stack) and not isinstance(f, CoverPage):
        for child, y, _ in f._placed:
            yield from _headings_in(child, offset + y)


def _splittable(f: Flowable) -> bool:
    """Whether ``f`` may start at the foot of a page and go on over the leaf."""
    if isinstance(f, Heading):
        return False
    if isinstance(f, DocTable):
        head = f.repeatRows if isinstance(f.repeatRows, int) else len(f.repeatRows)
        return len(f._cellvalues) - head > DocTable.KEEP_ROWS
    if isinstance(f, Stack):
        return not f.keep
    return isinstance(f, (RichText, Table))


def _following(queue: list[Flowable], width: float, gap: float, want: float) -> float:
    """Height a heading must find room for below it: what follows, up to ``want``.

    Unsplittable blocks count whole (and bring what they keep with in turn);
    splittable ones count up to ``want``.
    """
    total = 0.0
    full = want
    for nxt in reversed(queue):
        if isinstance(nxt, (PageBreak, Heading, CoverPage)):
            break
        _, nh = nxt.wrap(width, BIG)
        total += max(gap, nxt.getSpaceBefore())
        if not _splittable(nxt):
            total += nh
            if not getattr(nxt, "keepWithNext", False):
                return total
            want, gap = full, nxt.getSpaceAfter()
            continue
        total += min(nh, want)
        if nh >= want:
            break
        want -= nh
        gap = nxt.getSpaceAfter()
    return total
