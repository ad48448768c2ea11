"""Drawing the lines the imposition computes: crop marks, and any set of straight
lines stroked as one path (the calibration sheet's scales)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from ..imposition import DEFAULT_MARK_STROKE, MARK_HALO, MIN_MARK_STROKE, Line


def stroke_lines(canvas: Canvas, lines: Iterable[Line], width: float, path: Any = None) -> None:
    """Stroke ``lines`` as one path ``width`` wide, in the canvas's stroke colour
    (``path``: those lines' path, made already by ``_path``)."""
    canvas.setLineWidth(width)
    canvas.drawPath(path if path is not None else _path(canvas, lines), stroke=1, fill=0)


def _path(canvas: Canvas, lines: Iterable[Line]) -> Any:
    path = canvas.beginPath()
    for line in lines:
        path.moveTo(line.x1, line.y1)
        path.lineTo(line.x2, line.y2)
    return path


def draw_crop_marks(canvas: Canvas, lines: list[Line], stroke: float = DEFAULT_MARK_STROKE) -> None:
    """Stroke ``lines`` in pure black ink (K only: crisp on any printer), square caps, over
    a white halo ``MARK_HALO`` wider, so a mark in a dark gutter still shows."""
    if not lines:
        return
    canvas.saveState()
    canvas.setLineCap(2)
    canvas.setDash([], 0)
    width = max(stroke, MIN_MARK_STROKE)
    path = _path(canvas, lines)         # one path, stroked twice
    for colour, w in (((0, 0, 0, 0), width + MARK_HALO), ((0, 0, 0, 1), width)):
        canvas.setStrokeColorCMYK(*colour)
        stroke_lines(canvas, lines, w, path)
    canvas.restoreState()
