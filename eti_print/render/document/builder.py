"""Building flowables from the parsed tree."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reportlab.lib.colors import Color, HexColor
from reportlab.platypus.flowables import Flowable
from reportlab.platypus.tables import TableStyle

from ...errors import InputError, Problem
from ...text import Run, TextStyle
from ...units import to_points
from ..replay import keyed
from .blocks import CoverPage, DocTable, Stack
from .elements import NODE_KINDS, PARAGRAPH_STYLES, SIDES, SPECS, Custom, Node
from .flowables import _EPS, ArtBlock, Gap, Heading, PageBreak, RichText, TocLine, Where
from .flowchart import Flowchart, _FNode
from .locate import Locate, _Source
from .parse import parse_document
from .theme import FormIcons, Theme

_HEX_RE = re.compile(r"^#[0-9A-Fa-f]{6}$")
_ID_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def _colour(value: str, where: Builder, node: Node, attr: str) -> Color:
    if not _HEX_RE.match(value):
        raise where.error(node, f"<{node.tag} {attr}=..> must be a colour #RRGGBB "
                          f"(got {value!r})")
    return HexColor(value)


@dataclass(frozen=True)
class Bullet:
    """A list item's mark: its ``label`` (an ordered list's number) in the theme's alert
    colour, or a small square in its rule colour."""

    label: str
    theme: Theme

    def __call__(self, canvas: Any, x: float, baseline: float, flow: RichText) -> None:
        t = self.theme
        canvas.saveState()
        if self.label:
            canvas.setFillColor(t.alert)
            canvas.setFont(t.heading.regular, flow.style.size)
            canvas.drawString(x, baseline, self.label)
        else:
            canvas.setFillColor(t.rule)
            s = flow.style.size * 0.36
            canvas.rect(x + 2, baseline + flow.style.size * 0.22, s, s, stroke=0, fill=1)
        canvas.restoreState()


class Builder:
    """Turns a parsed tree into flowables, with the theme and any custom elements."""

    def __init__(self, theme: Theme, icons: Any, custom: Mapping[str, Custom] | None,
                 where: str | None, locate: Locate | None, markup: str = ""):
        self.theme = theme
        self.icons = icons
        self.custom = dict(custom or {})
        self.src = _Source(markup, where, locate)
        self.pages: dict[str, int] = {}
        self.headings: list[Heading] = []
        self._count = 0
        self._on_cover = False

    # -- errors ------------------------------------------------------------
    def problem(self, node: Node, message: str, hint: str | None = None) -> Problem:
        snippet = ""
        if 0 < node.line <= len(self.src._starts):
            snippet = self.src.line_text(node.line)
        return self.src.problem(message, node.line, snippet, hint)

    def error(self, node: Node, message: str, hint: str | None = None) -> InputError:
        return InputError(self.problem(node, message, hint))

    def where(self, node: Node) -> Where:
        return Where(self.src, node.line, f"<{node.tag}>")

    def located(self, flowable: Flowable, node: Node) -> Flowable:
        flowable.source = self.where(node)  # type: ignore[attr-defined]
        return flowable

    # -- attribute helpers ---------------------------------------------------
    def length(self, node: Node, attr: str, default: float | None = None) -> float:
        raw = node.attrs.get(attr)
        if raw is None:
            if default is None:
                raise self.error(node, f"<{node.tag}> needs {attr}")
            return default
        try:
            return to_points(raw)
        except InputError as exc:
            p = exc.problems[0]
            raise self.error(node, f"<{node.tag} {attr}=..>: {p.message}", p.hint) from None

    def number(self, node: Node, attr: str, default: float, low: float, high: float) -> float:
        raw = node.attrs.get(attr)
        if raw is None:
            return default
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not (low <= value <= high):
            raise self.error(node, f"<{node.tag} {attr}=..> must be a number from {low:g} to "
                             f"{high:g} (got {raw!r})")
        return value

    def choice(self, node: Node, attr: str, options: Sequence[str], default: str) -> str:
        value = node.attrs.get(attr, default)
        if value not in options:
            raise self.error(node, f"<{node.tag} {attr}=..> must be one of "
                             f"{', '.join(options)} (got {value!r})")
        return value

    def colour(self, node: Node, attr: str) -> Color | None:
        raw = node.attrs.get(attr)
        return None if raw is None else _colour(raw, self, node, attr)

    # -- text --------------------------------------------------------------
    @property
    def ink(self) -> Color:
        return self.theme.panel if self._dark_cover else self.theme.ink

    @property
    def _dark_cover(self) -> bool:
        return self._on_cover and self.theme.cover is not None

    def text(self, node: Node, style: TextStyle, **kw: Any) -> RichText:
        flow = RichText(node.runs or [], style, self.icons, **kw)
        flow.source = self.where(node)
        return flow

    # -- blocks ------------------------------------------------------------
    def document(self, root: Node) -> list[Flowable]:
        self.info = {k: root.attrs.get(k, "") for k in SPECS["document"].attrs}
        self._toc_entries = self._collect_headings(root)
        return self.blocks(root.children)

    def _collect_headings(self, root: Node) -> list[tuple[Node, str]]:
        found: list[tuple[Node, str]] = []

        def walk(nodes: list[Node]) -> None:
            for n in nodes:
                if n.tag in ("h1", "h2"):
                    self._count += 1
                    key = f"sec{self._count}"
                    n.attrs.setdefault("_key", key)
                    found.append((n, key))
                elif n.tag in ("note", "box", "keep"):
                    walk(n.children)
        walk(root.children)
        return found

    def blocks(self, nodes: list[Node]) -> list[Flowable]:
        out: list[Flowable] = []
        for node in nodes:
            out.extend(self.block(node))
        return out

    def block(self, node: Node) -> list[Flowable]:
        t = self.theme
        tag = node.tag
        if tag in self.custom:
            return [self.located(f, node) for f in self.custom[tag].build(node, self)]
        if tag in ("h1", "h2", "h3"):
            return [self.heading(node)]
        if tag == "p":
            style = self.choice(node, "style", PARAGRAPH_STYLES + ("body",), "body")
            size = {"lead": t.size + 1.5, "small": t.size - 1.5, "caption": t.size - 1.5}.get(
                style, t.size)
            st = t.style(size=size, color=t.muted if style == "caption" and not self._on_cover
                         else self.ink, align="center" if style == "center" or self._on_cover
                         else "left")
            return [self.text(node, st, space_after=size * 0.55)]
        if tag in ("ul", "ol"):
            return self.listing(node)
        if tag in ("note", "box"):
            return [self.panel(node)]
        if tag == "keep":
            kids = self.blocks(node.children)
            s = Stack(kids, keep=True, page_height=t.frame[3],
                      space_before=kids[0].getSpaceBefore() if kids else 0.0,
                      space_after=kids[-1].getSpaceAfter() if kids else 0.0)
            return [self.located(s, node)]
        if tag == "table":
            return [self.table(node)]
        if tag == "toc":
            return self.toc(node)
        if tag == "pagebreak":
            return [PageBreak()]
        if tag == "spacer":
            return [Gap(self.length(node, "height"))]
        if tag == "art":
            name = node.attrs["name"]
            if not _ID_RE.match(name):
                raise self.error(node, f"<art name=..> must be an art id (got {name!r})")
            try:
                art = self.icons.get(name)
            except InputError as exc:
                raise InputError([self.problem(node, p.message, p.hint)
                                  for p in exc.problems]) from None
            h = self.length(node, "height")
            w = self.length(node, "width", h)
            colour = self.colour(node, "color")
            if colour is not None and getattr(art, "raster", False):   # art.RasterArt
                raise self.error(node, f"<art name={name!r}> is a {art.kind} image "
                                 f"({art.shown}) and cannot be recoloured",
                                 "drop color= to draw the picture as it is")
            return [self.located(ArtBlock(self.icons, name, w, h, colour), node)]
        if tag == "cover":
            self._on_cover = True
            try:
                kids = self.blocks(node.children)
            finally:
                self._on_cover = False
            cover = CoverPage(kids, t)
            return [PageBreak(), self.located(cover, node), PageBreak()]
        if tag == "flowchart":
            return [self.flowchart(node)]
        raise self.error(node, f"<{tag}> cannot stand here")  # pragma: no cover

    def heading(self, node: Node) -> Flowable:
        t = self.theme
        level = int(node.tag[1])
        if level == 1:
            style = t.style(t.heading, size=26 if self._on_cover else 19,
                            color=t.panel if self._dark_cover else t.accent,
                            leading=1.1, align="center" if self._on_cover else "left")
            space = (0.0 if self._on_cover else 14.0, 6.0)
            rule = None if self._on_cover else t.rule
        elif level == 2:
            style = t.style(t.heading, size=17 if self._on_cover else 13.5,
                            color=t.rule if self._dark_cover else t.accent,
                            leading=1.15, align="center" if self._on_cover else "left")
            space, rule = (10.0, 3.5), None
        else:
            if self._on_cover:
                style = t.style(t.label, size=8.5, color=t.rule, leading=1.2, upper=True,
                                tracking=0.4, align="center")
            else:
                style = t.style(t.heading, size=10.5, color=t.alert, leading=1.2)
            space, rule = (7.0, 2.5), None
        key = node.attrs.get("_key", "")
        title = node.text()
        in_toc = level <= 2 and node.attrs.get("toc", "yes") != "no" and not self._on_cover
        flow = Heading(node.runs or [], style, self.icons, level=level, key=key, title=title,
                       short=node.attrs.get("short", title), in_toc=in_toc, rule=rule,
                       space_before=space[0], space_after=space[1])
        flow.source = self.where(node)
        if level <= 2 and key:
            self.headings.append(flow)
        return flow

    def listing(self, node: Node) -> list[Flowable]:
        t = self.theme
        ordered = node.tag == "ol"
        start = int(self.number(node, "start", 1, 1, 999)) if ordered else 1
        out: list[Flowable] = []
        indent = 15.0 if ordered else 11.0
        for i, li in enumerate(node.children):
            label = li.attrs.get("label", f"{start + i}" if ordered else "")
            out.append(self.text(li, t.style(color=self.ink), indent=indent,
                                 bullet=Bullet(label, self.theme),
                                 space_after=2.2))
        if out:
            out[-1].spaceAfter = 6.0
        return out

    def panel(self, node: Node) -> Flowable:
        t = self.theme
        title = None
        if "title" in node.attrs:
            runs = [Run.of(node.attrs["title"])]
            title = RichText(runs, t.style(t.label, size=7.5, color=t.alert, upper=True,
                                           tracking=0.5), self.icons, space_after=2)
            title.source = self.where(node)
        kids = self.blocks(node.children)
        if kids:
            kids[-1].spaceAfter = 0
        if node.tag == "note":
            s = Stack(kids, pad=7, fill=t.panel, bar=t.rule, title=title, page_height=t.frame[3],
                      space_before=4, space_after=9, gap=3)
        else:
            s = Stack(kids, pad=8, fill=None, stroke=t.accent, title=title,
                      page_height=t.frame[3], space_before=4, space_after=9, gap=3)
        return self.located(s, node)

    def widths(self, node: Node, total: float, columns: int) -> list[float]:
        raw = node.attrs.get("widths")
        if raw is None:
            return [total / columns] * columns
        parts = raw.split()
        if len(parts) != columns:
            raise self.error(node, f"<table widths=..> gives {len(parts)} widths for "
                             f"{columns} columns")
        fixed = 0.0
        weights: list[float | None] = []
        values: list[float] = []
        for part in parts:
            if re.fullmatch(r"[0-9]+(\.[0-9]+)?", part):
                weights.append(float(part))
                values.append(0.0)
            else:
                try:
                    v = to_points(part)
                except InputError as exc:
                    raise self.error(node, f"<table widths=..>: {exc.problems[0].message}") \
                        from None
                weights.append(None)
                values.append(v)
                fixed += v
        share = sum(w for w in weights if w is not None)
        rest = total - fixed
        if rest < -_EPS or (share and rest <= 0):
            raise self.error(node, f"<table widths=..> are wider than the page's "
                             f"{total:.0f} pt")
        return [values[i] if w is None else rest * w / share for i, w in enumerate(weights)]

    def table(self, node: Node) -> Flowable:
        t = self.theme
        rows = node.children
        if not rows:
            raise self.error(node, "<table> has no rows")
        header = int(self.number(node, "header", 1, 0, len(rows)))
        size = self.length(node, "size", t.size - 1.0)

        def span(cell: Node) -> int:
            return int(self.number(cell, "span", 1, 1, 99))
        columns = max(sum(span(c) for c in r.children) for r in rows)
        total = t.frame[2]
        widths = self.widths(node, total, columns)
        pad = 3.5
        data: list[list[Any]] = []
        cmds: list[tuple] = [
            ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
            ("FONTNAME", (0, 0), (-1, -1), t.body.regular),
            ("LEFTPADDING", (0, 0), (-1, -1), pad),
            ("RIGHTPADDING", (0, 0), (-1, -1), pad),
            ("TOPPADDING", (0, 0), (-1, -1), 2.6),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 3.2),
            ("LINEBELOW", (0, -1), (-1, -1), 0.8, t.accent),
        ]
        if header:
            cmds += [("BACKGROUND", (0, 0), (-1, header - 1), t.accent),
                     ("LINEBELOW", (0, header - 1), (-1, header - 1), 1.2, t.rule)]
        if len(rows) > header:
            cmds.append(("ROWBACKGROUNDS", (0, header), (-1, -1), [t.panel, t.paper]))
        groups = set()
        for r, row in enumerate(rows):
            fill = self.colour(row, "fill")
            if fill is not None and r >= header:
                groups.add(r)
            ink = self.colour(row, "color")
            if fill is not None:
                cmds.append(("BACKGROUND", (0, r), (-1, r), fill))
            cells: list[Any] = []
            col = 0
            for cell in row.children:
                n = span(cell)
                align = self.choice(cell, "align", ("left", "center", "right"), "left")
                head = cell.tag == "th" or r < header
                if head and r < header and ink is None:
                    # light on the accent: a bold face, never under 6.5 pt
                    style = t.style(t.heading, size=max(size - 1.0, 7.0), color=t.panel,
                                    upper=True, tracking=0.3, align=align, leading=1.15,
                                    min_size=6.5)
                elif head:
                    style = t.style(t.label, size=max(size - 1.5, 6.0), color=ink or (
                        t.panel if r < header else t.accent), upper=True, tracking=0.3,
                        align=align, leading=1.15, min_size=6.0)
                else:
                    style = t.style(size=size, color=ink or t.ink, align=align, leading=1.25)
                cells.append(self.text(cell, style))
                if n > 1:
                    cmds.append(("SPAN", (col, r), (col + n - 1, r)))
                    cells.extend([""] * (n - 1))
                col += n
            if col != columns:
                raise self.error(row, f"this row has {col} columns, the table has {columns}")
            data.append(cells)
        table = DocTable(data, colWidths=widths, repeatRows=header, style=TableStyle(cmds),
                         hAlign="LEFT", spaceBefore=3, spaceAfter=9)
        table.page_height = t.frame[3]
        table.groups = frozenset(groups)
        return self.located(table, node)

    def toc(self, node: Node) -> list[Flowable]:
        t = self.theme
        depth = int(self.number(node, "depth", 1, 1, 2))
        out: list[Flowable] = []
        for h, key in self._toc_entries:
            level = int(h.tag[1])
            if level > depth or h.attrs.get("toc", "yes") == "no":
                continue
            if level == 1:
                style = t.style(t.heading, size=11, color=t.accent, leading=1.2)
                number = t.style(t.heading, size=11, color=t.accent)
            else:
                style = t.style(size=t.size - 0.5, color=t.ink, leading=1.3)
                number = t.style(size=t.size - 0.5, color=t.ink)
            out.append(TocLine(h.runs or [], style, number, key, level, self.pages, t.rule,
                               self.icons))
        return out

    def flowchart(self, node: Node) -> Flowable:
        t = self.theme
        columns = int(self.number(node, "columns", 3, 1, 8))
        size = self.length(node, "size", t.size - 2.0)
        gap = self.length(node, "gap", 10.0)
        nodes: list[_FNode] = []
        edges = []
        ids: set[str] = set()
        for child in node.children:
            if child.tag == "node":
                nid = child.attrs["id"]
                if nid in ids:
                    raise self.error(child, f"two flowchart nodes are called {nid!r}")
                ids.add(nid)
                col = self.number(child, "col", 0, 0, columns - 1)
                row = int(self.number(child, "row", 0, 0, 99))
                span = self.number(child, "width", 1, 0.3, columns)
                kind = self.choice(child, "kind", NODE_KINDS, "box")
                nodes.append(_FNode(child, nid, col, row, span, kind))
            else:
                exit_ = child.attrs.get("exit")
                enter = child.attrs.get("enter")
                for side in (exit_, enter):
                    if side is not None and side not in SIDES:
                        raise self.error(child, f"edge sides are {', '.join(SIDES)} "
                                         f"(got {side!r})")
                edges.append((child.attrs["from"], child.attrs["to"], child.attrs.get("label"),
                              exit_, enter, child))
        for e in edges:
            for end in e[:2]:
                if end not in ids:
                    raise self.error(e[5], f"edge names an unknown node {end!r}",
                                     "nodes are " + ", ".join(sorted(ids)))
        chart = Flowchart(nodes, edges, columns, t, self.icons, size, gap, self)
        return self.located(chart, node)


@dataclass
class Document:
    """A parsed document ready to lay out."""

    root: Node
    builder: Builder
    flowables: list[Flowable]

    @property
    def info(self) -> dict[str, str]:
        return self.builder.info


def build(markup: str, theme: Theme, icons: Any, *, where: str | None = None,
          locate: Locate | None = None, custom: Mapping[str, Custom] | None = None) -> Document:
    """Parse ``markup`` and build its flowables (no pages yet)."""
    root = parse_document(markup, where=where, locate=locate, custom=custom)
    builder = Builder(theme, icons if isinstance(icons, FormIcons) else FormIcons(icons),
                      custom, where, locate, str(markup))
    flowables = builder.document(root)
    return Document(root, builder, flowables)


# A flowable reads its builder only while it is built and wrapped (where its text came
# from), never when drawn: a page's record (render.replay) does not depend on it.
keyed(Builder, "builder")
