"""Flowcharts: boxes and decision diamonds on a grid, joined by orthogonal arrows."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from reportlab.lib.colors import Color
from reportlab.platypus.flowables import Flowable

from .elements import Node
from .flowables import _EPS, BIG, RichText, _Located
from .theme import Theme


@dataclass
class _FNode:
    node: Node
    id: str
    col: float
    row: int
    span: float
    kind: str
    text: RichText | None = None
    x: float = 0.0       # centre
    y: float = 0.0       # centre (from the top of the chart)
    w: float = 0.0
    h: float = 0.0

    def port(self, side: str) -> tuple[float, float]:
        if side == "top":
            return (self.x, self.y - self.h / 2)
        if side == "bottom":
            return (self.x, self.y + self.h / 2)
        if side == "left":
            return (self.x - self.w / 2, self.y)
        return (self.x + self.w / 2, self.y)


class Flowchart(Flowable, _Located):
    """Boxes and decision diamonds on a grid, joined by orthogonal arrows."""

    ROW_GAP = 13.0
    MIN_SCALE = 0.85

    def __init__(self, nodes: list[_FNode], edges: list[tuple[str, str, str, str | None,
                                                                   str | None, Node]],
                 columns: int, theme: Theme, icons: Any, size: float, gap: float,
                 builder: Any):
        super().__init__()
        self.nodes = {n.id: n for n in nodes}
        self.order = nodes
        self.edges = edges
        self.columns = columns
        self.theme = theme
        self.icons = icons
        self.size = size
        self.gap = gap
        self.builder = builder
        self.spaceBefore = 4.0
        self.spaceAfter = 8.0
        self._paths: list[tuple[list[tuple[float, float]], str | None, Node]] = []

    def _ink(self, kind: str) -> Color:
        return self.theme.panel if kind in ("start", "end") else self.theme.ink

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        t = self.theme
        colw = aw / self.columns
        rows: dict[int, float] = {}
        for n in self.order:
            n.w = n.span * colw - self.gap
            style = t.style(t.heading if n.kind == "start" else t.body,
                            size=self.size + (1.5 if n.kind == "start" else 0),
                            color=self._ink(n.kind), align="center", leading=1.22)
            n.text = RichText(n.node.runs or [], style, self.icons)
            n.text.source = self.builder.where(n.node)
            if n.kind == "decision":
                tw = n.w * 0.64
                _, th = n.text.wrap(tw, BIG)
                n.h = max(th / 0.36 + 2, 36)
            else:
                _, th = n.text.wrap(n.w - 10, BIG)
                n.h = th + (8 if n.kind != "start" else 11)
            rows[n.row] = max(rows.get(n.row, 0.0), n.h)
        y = 0.0
        tops: dict[int, float] = {}
        for r in sorted(rows):
            tops[r] = y
            y += rows[r] + self.ROW_GAP
        height = y - self.ROW_GAP
        for n in self.order:
            n.x = (n.col + 0.5) * colw
            n.y = tops[n.row] + rows[n.row] / 2
        self._paths = [(self._route(*e[:2], e[3], e[4]), e[2], e[5]) for e in self.edges]
        self.natural = height
        # a chart a little too tall for the room left is drawn a little smaller
        self.scale = 1.0
        if height > ah and height * self.MIN_SCALE <= ah:
            self.scale = ah / height
        self.width, self.height = aw, height * self.scale
        return aw, self.height

    def _route(self, a_id: str, b_id: str, exit: str | None, enter: str | None
               ) -> list[tuple[float, float]]:
        a, b = self.nodes[a_id], self.nodes[b_id]
        below = b.y - b.h / 2 > a.y + a.h / 2 - _EPS
        if exit is None:
            exit = "bottom" if below and abs(a.x - b.x) < a.w / 2 else (
                "right" if b.x > a.x else "left" if b.x < a.x else "bottom")
        if enter is None:
            enter = "top" if below else ("left" if b.x > a.x else "right")
        p, q = a.port(exit), b.port(enter)
        pts = [p]
        if exit in ("top", "bottom") and enter in ("top", "bottom"):
            if abs(p[0] - q[0]) > _EPS:
                mid = (p[1] + q[1]) / 2
                pts += [(p[0], mid), (q[0], mid)]
        elif exit in ("left", "right") and enter in ("top", "bottom"):
            pts.append((q[0], p[1]))
        elif exit in ("top", "bottom") and enter in ("left", "right"):
            pts.append((p[0], q[1]))
        elif exit == enter:
            # same side: out, along, back in
            out = (max(p[0], q[0]) + 8) if exit == "right" else (min(p[0], q[0]) - 8)
            pts += [(out, p[1]), (out, q[1])]
        else:
            if abs(p[1] - q[1]) > _EPS:
                mid = (p[0] + q[0]) / 2
                pts += [(mid, p[1]), (mid, q[1])]
        pts.append(q)
        return pts

    def draw(self) -> None:
        c = self.canv
        if self.scale != 1.0:
            c.saveState()
            c.translate(self.width * (1 - self.scale) / 2, 0)
            c.scale(self.scale, self.scale)
            try:
                self._draw()
            finally:
                c.restoreState()
        else:
            self._draw()

    def _draw(self) -> None:
        c = self.canv
        t = self.theme
        h = self.natural

        def Y(y: float) -> float:
            return h - y

        c.saveState()
        c.setStrokeColor(t.ink)
        c.setFillColor(t.ink)
        c.setLineWidth(0.9)
        for pts, _label, _ in self._paths:
            path = c.beginPath()
            path.moveTo(pts[0][0], Y(pts[0][1]))
            for x, y in pts[1:]:
                path.lineTo(x, Y(y))
            c.drawPath(path, stroke=1, fill=0)
            (x1, y1), (x2, y2) = pts[-2], pts[-1]
            ang = math.atan2(Y(y2) - Y(y1), x2 - x1)
            size = 5.0
            tip = (x2, Y(y2))
            head = c.beginPath()
            head.moveTo(*tip)
            head.lineTo(tip[0] - size * math.cos(ang - 0.42), tip[1] - size * math.sin(ang - 0.42))
            head.lineTo(tip[0] - size * math.cos(ang + 0.42), tip[1] - size * math.sin(ang + 0.42))
            head.close()
            c.drawPath(head, stroke=0, fill=1)
        c.restoreState()
        for pts, label, _ in self._paths:
            if label:
                self._label(label, pts)
        for n in self.order:
            self._node(n, Y(n.y))

    def _label(self, label: str, pts: list[tuple[float, float]]) -> None:
        c = self.canv
        t = self.theme
        (x1, y1), (x2, y2) = pts[0], pts[1]
        h = self.natural
        size = self.size - 0.5
        width = c.stringWidth(label, t.label.regular, size) + 6
        if abs(y1 - y2) < _EPS:      # leaves sideways: label above the line
            x = x1 + (6 if x2 > x1 else -6 - width)
            y = h - y1 + 2.5
        else:                         # leaves downwards: label beside the line
            x = x1 + 3
            y = h - y1 - 3 - size
        c.saveState()
        c.setFillColor(t.paper)
        c.rect(x, y - 1.5, width, size + 2, stroke=0, fill=1)
        c.setFillColor(t.alert)
        c.setFont(t.label.regular, size)
        c.drawString(x + 3, y + 0.5, label)
        c.restoreState()

    def _node(self, n: _FNode, cy: float) -> None:
        c = self.canv
        t = self.theme
        x0, y0 = n.x - n.w / 2, cy - n.h / 2
        c.saveState()
        c.setLineWidth(1.0)
        c.setStrokeColor(t.accent)
        if n.kind == "decision":
            c.setFillColor(t.panel)
            c.setStrokeColor(t.rule)
            c.setLineWidth(1.4)
            p = c.beginPath()
            p.moveTo(n.x, y0 + n.h)
            p.lineTo(x0 + n.w, cy)
            p.lineTo(n.x, y0)
            p.lineTo(x0, cy)
            p.close()
            c.drawPath(p, stroke=1, fill=1)
        elif n.kind == "start":
            c.setFillColor(t.accent)
            c.roundRect(x0, y0, n.w, n.h, n.h / 2, stroke=0, fill=1)
        elif n.kind == "end":
            c.setFillColor(t.alert)
            c.roundRect(x0, y0, n.w, n.h, 6, stroke=0, fill=1)
        elif n.kind == "note":
            c.setDash([2, 2])
            c.setStrokeColor(t.muted)
            c.setFillColor(t.paper)
            c.rect(x0, y0, n.w, n.h, stroke=1, fill=1)
        else:
            c.setFillColor(t.paper)
            c.roundRect(x0, y0, n.w, n.h, 3, stroke=1, fill=1)
        c.restoreState()
        text = n.text
        assert text is not None
        tw = text.width
        text.drawOn(c, n.x - tw / 2, cy - text.height / 2)
