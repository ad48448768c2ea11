"""Flowables that hold blocks: panels and keeps, the cover, tables."""

from __future__ import annotations

from reportlab.lib.colors import Color
from reportlab.platypus.flowables import Flowable
from reportlab.platypus.tables import Table

from ..replay import keyed
from .flowables import _EPS, BIG, RichText, _Located
from .theme import Theme


class Stack(Flowable, _Located):
    """Blocks stacked in a panel (note, box) or bare (keep), split between blocks."""

    def __init__(self, children: list[Flowable], *, pad: float = 0.0, fill: Color | None = None,
                 bar: Color | None = None, stroke: Color | None = None,
                 title: RichText | None = None, keep: bool = False, page_height: float = BIG,
                 space_before: float = 0.0, space_after: float = 0.0, gap: float = 0.0):
        super().__init__()
        self.children = children
        self.pad = pad
        self.fill = fill
        self.bar = bar
        self.stroke = stroke
        self.title = title
        self.keep = keep
        self.page_height = page_height
        self.spaceBefore = space_before
        self.spaceAfter = space_after
        self.gap = gap
        self._placed: list[tuple[Flowable, float, float]] = []   # child, top, height
        self.open_top = False
        self.open_bottom = False

    def _items(self) -> list[Flowable]:
        return ([self.title] if self.title is not None else []) + self.children

    def _inner(self, aw: float) -> float:
        return aw - 2 * self.pad - (3 if self.bar is not None else 0)

    def _gap(self, prev: Flowable | None, child: Flowable) -> float:
        if prev is None:
            return 0.0
        return max(self.gap, prev.getSpaceAfter(), child.getSpaceBefore())

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        inner = self._inner(aw)
        y = 0.0 if self.open_top else self.pad
        placed = []
        prev = None
        for child in self._items():
            y += self._gap(prev, child)
            _, h = child.wrap(inner, BIG)
            placed.append((child, y, h))
            y += h
            prev = child
        y += 0.0 if self.open_bottom else self.pad
        self._placed = placed
        self.width, self.height = aw, y
        return aw, y

    def split(self, aw: float, ah: float) -> list[Flowable]:
        w, h = self.wrap(aw, ah)
        if self.keep and h <= self.page_height + _EPS:
            return []
        items = self._items()
        inner = self._inner(aw)
        top = 0.0 if self.open_top else self.pad
        room = ah - top - 1.0
        used = 0.0
        first: list[Flowable] = []
        for i, child in enumerate(items):
            gap = self._gap(first[-1] if first else None, child)
            _, ch = child.wrap(inner, BIG)
            if used + gap + ch <= room + _EPS:
                first.append(child)
                used += gap + ch
                continue
            parts = child.split(inner, room - used - gap) if room - used - gap > 0 else []
            if parts and len(parts) > 1:
                head, tail = parts[0], parts[1:]
                rest = list(tail) + list(items[i + 1:])
                first.append(head)
            else:
                rest = list(items[i:])
            break
        else:
            return []
        if not first or (self.title is not None and first == [self.title]):
            return []
        title = first[0] if self.title is not None and first and first[0] is self.title else None
        a = self._clone([c for c in first if c is not title], title)
        a.open_bottom = True
        b = self._clone([c for c in rest if c is not self.title], None)
        b.open_top = True
        b.spaceBefore = 0.0
        a.spaceAfter = 0.0
        return [a, b]

    def _clone(self, children: list[Flowable], title: RichText | None) -> Stack:
        s = Stack(children, pad=self.pad, fill=self.fill, bar=self.bar, stroke=self.stroke,
                  title=title, keep=False, page_height=self.page_height,
                  space_before=self.spaceBefore, space_after=self.spaceAfter, gap=self.gap)
        s.open_top, s.open_bottom = self.open_top, self.open_bottom
        s.source = self.source
        return s

    def draw(self) -> None:
        c = self.canv
        w, h = self.width, self.height
        if self.fill is not None or self.stroke is not None:
            c.saveState()
            if self.fill is not None:
                c.setFillColor(self.fill)
            if self.stroke is not None:
                c.setStrokeColor(self.stroke)
                c.setLineWidth(0.6)
            c.rect(0, 0, w, h, stroke=int(self.stroke is not None),
                   fill=int(self.fill is not None))
            c.restoreState()
        if self.bar is not None:
            c.saveState()
            c.setFillColor(self.bar)
            c.rect(0, 0, 3, h, stroke=0, fill=1)
            c.restoreState()
        x = self.pad + (3 if self.bar is not None else 0)
        for child, y, ch in self._placed:
            child.drawOn(c, x, h - y - ch)


class DocTable(Table, _Located):
    """A table that keeps short tables whole and never leaves a row or two behind."""

    KEEP_ROWS = 9      # tables with at most this many body rows are not split
    MIN_ROWS = 3       # rows on each side of a split

    page_height: float = BIG

    groups: frozenset[int] = frozenset()   # rows that head a group: never last on a page

    #: The width the table was last measured at with every row (reportlab's ``_calc``).
    _measured: float | None = None

    def _calc(self, availWidth: float, availHeight: float) -> None:  # noqa: N803
        """reportlab's measuring, done once per width.

        Pagination asks a table's size again and again (placing it, finding room under a
        heading, splitting it) at one width and different heights.  The height matters to
        reportlab only to stop measuring rows early, which it does only in a table with
        spanned cells whose rows already overflow it; so a table measured in full at this
        width is measured the same again when it has no spans or the height holds it all.
        """
        if (self._measured == availWidth
                and (not self._spanCmds or availHeight >= self._height)):
            return
        super()._calc(availWidth, availHeight)
        self._measured = availWidth if self._hmax == len(self._argH) else None

    def split(self, aw: float, ah: float) -> list[Flowable]:
        head = self.repeatRows if isinstance(self.repeatRows, int) else len(self.repeatRows)
        rows = len(self._cellvalues)
        body = rows - head
        _, h = self.wrap(aw, ah)
        if body <= self.KEEP_ROWS and h <= self.page_height + _EPS:
            return []
        heights = list(self._rowHeights)
        tops = [0.0]
        for rh in heights:
            tops.append(tops[-1] + rh)
        header = tops[head]

        def fits(n: int) -> bool:          # the first n rows on this page
            return tops[n] <= ah + _EPS

        def good(n: int) -> bool:
            return (n - head >= self.MIN_ROWS and rows - n >= self.MIN_ROWS
                    and (n - 1) not in self.groups and (n - 2) not in self.groups)
        candidates = [n for n in range(head + 1, rows) if fits(n)]
        if not candidates:
            return []
        chosen = next((n for n in reversed(candidates) if good(n)), None)
        if chosen is None:
            # no split that pleases; if it must split (taller than a page), take the best
            if header + sum(heights[head:]) <= self.page_height + _EPS:
                return []
            chosen = next((n for n in reversed(candidates) if (n - 1) not in self.groups),
                          candidates[-1])
        parts = super().split(aw, tops[chosen] + 0.01)
        groups = self.groups
        for i, part in enumerate(parts):
            part.source = self.source
            part.page_height = self.page_height
            shift = 0 if i == 0 else chosen - head
            part.groups = frozenset(g - shift for g in groups if g - shift >= head)
        return parts


class CoverPage(Stack):
    """A page of its own: full-page panel, content centred vertically."""

    def __init__(self, children: list[Flowable], theme: Theme):
        super().__init__(children)
        self.theme = theme
        #: How far above the page's middle the content is drawn (room for a scale check).
        self.lift = 0.0

    def draw(self) -> None:
        t = self.theme
        c = self.canv
        pw, ph = t.page
        inset = min(t.margins) * 0.6
        c.saveState()
        if t.cover is not None:
            c.setFillColor(t.cover)
            c.roundRect(inset, inset, pw - 2 * inset, ph - 2 * inset, 10, stroke=0, fill=1)
        else:
            c.setStrokeColor(t.accent)
            c.setLineWidth(2)
            c.roundRect(inset, inset, pw - 2 * inset, ph - 2 * inset, 10, stroke=1, fill=0)
        c.setStrokeColor(t.rule)
        c.setLineWidth(1.5)
        c.roundRect(inset + 6, inset + 6, pw - 2 * inset - 12, ph - 2 * inset - 12, 7,
                    stroke=1, fill=0)
        c.restoreState()
        x = t.frame[0]
        top = (ph + self.height) / 2 + self.lift
        for child, y, ch in self._placed:
            child.drawOn(c, x, top - y - ch)


#: What reportlab's ``Table.draw`` sets afresh as it draws (the line and cell state it
#: last wrote, the rounded-corner clip it works out): no input of a drawing, and left
#: behind by the last one.
_DRAWING_STATE = frozenset({"_curweight", "_curcolor", "_curcellstyle", "_roundingRectDef"})


def _table_drawn_from(table: DocTable) -> tuple:
    """What a table's drawing reads (``render.replay`` keys a page by it): every attribute
    but the state its last drawing left, so a plan drawn again keys as it did."""
    return (type(table).__name__,
            tuple(item for item in vars(table).items() if item[0] not in _DRAWING_STATE))


keyed(DocTable, _table_drawn_from)
