"""The duplex calibration sheet: measure how far a printer shifts the back side.

Owns the calibration PDF (page 1 front, page 2 back) and the geometry of its
scales.  Each scale is a coincidence vernier: the front has ticks every
``FRONT_PITCH`` (2 mm), the back ticks every ``BACK_PITCH`` (1.5 mm), placed
with the same ``imposition.back_rect`` mirroring and ``back_offset`` as card
backs.  Tick pair k coincides when the back side is off by k x 0.5 mm, so,
held up to a light, the number printed where a back line lies on a front line
is the correction in 0.5 mm steps (-5 to +5 mm), read directly as
``--back-offset X,Y`` (millimetres, as the CLI takes it): the value is what to
*add* to the offset the sheet was printed with.  ``back_offset`` arguments here
are points, like every size inside eti-print.  Scales sit at the centre and near
the four corners, one for X and one for Y each.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportlab.lib.utils import simpleSplit
from reportlab.pdfgen.canvas import Canvas

from .errors import fail
from .fonts import FontSet
from .imposition import Line, SheetSpec, back_rect
from .output import atomic_path
from .pdfwriter import DocInfo, new_canvas
from .render.marks import stroke_lines
from .render.scale import Footprint, draw_scale_check
from .sheets import standard_scale_check
from .units import mm, paper_size, to_mm

FRONT_PITCH = mm(2.0)
STEP = mm(0.5)
BACK_PITCH = FRONT_PITCH - STEP
STEPS = 10  # ticks -10..10: readings -5..+5 mm
TICK_STROKE = 0.4
FRONT_TICK = mm(6)
FRONT_TICK_NUMBERED = mm(7.5)
BACK_TICK = mm(6)
#: Front and back ticks overlap by twice this along their length.
TICK_OVERLAP = mm(1)
#: From a station's X scale to its Y scale.
Y_SCALE_SHIFT = mm(34)

BUILD_COMMAND = "eti-print build"
CALIBRATE_COMMAND = "eti-print calibrate"


@dataclass(frozen=True)
class Scale:
    """One vernier: ``front[i]`` pairs with ``back[i]``; the pair reads ``values[i]``.

    ``axis`` is the offset it measures (``"x"``: ticks are vertical lines).
    ``back`` lines are as drawn on page 2 (mirrored and offset).
    """

    station: str
    axis: str
    front: tuple[Line, ...]
    back: tuple[Line, ...]
    values: tuple[float, ...]


#: The ``--duplex`` modes that print a back on the far side of a sheet, so can drift:
#: glue is fed through again by hand, turned on its long edge.
CALIBRATED = ("long", "short", "glue")


def _spec(paper: tuple[float, float], duplex: str,
          back_offset: tuple[float, float]) -> SheetSpec:
    if duplex not in CALIBRATED:
        raise fail(f"calibration needs a flip, long, short or glue (got {duplex!r})",
                   hint="fold prints fronts and backs on one side: nothing drifts")
    # The sheet's card grid is irrelevant; only the paper, flip and offset matter.
    return SheetSpec(paper, (mm(10), mm(10)), cols=1, rows=1, duplex=duplex,
                     back_offset=back_offset)


def _drawn_on_back(line: Line, spec: SheetSpec) -> Line:
    r = back_rect(line.bounds(), spec)
    return Line(r.x, r.y, r.right, r.top)


def _stations(paper: tuple[float, float]) -> list[tuple[str, float, float]]:
    """Station anchors (the X scale's zero tick)."""
    w, h = paper
    left, right = mm(35), w - mm(55)
    low, high = mm(35), h - mm(97)
    return [("top left", left, high), ("top right", right, high),
            ("center", w / 2 - mm(10), h / 2),
            ("bottom left", left, low), ("bottom right", right, low)]


def scales(paper: tuple[float, float], duplex: str = "long",
           back_offset: tuple[float, float] = (0.0, 0.0)) -> list[Scale]:
    """Every scale of the calibration sheet."""
    spec = _spec(paper, duplex, back_offset)
    out = []
    for station, px, py in _stations(paper):
        for axis in ("x", "y"):
            cx, cy = (px, py) if axis == "x" else (px + Y_SCALE_SHIFT, py)
            # The back pitch is shorter, so pair k meets when the back is off by
            # k * STEP along the front's axis; mirroring that axis flips the sign.
            sign = 1.0 if spec.mirror_axis == axis else -1.0
            fronts, backs, values = [], [], []
            for k in range(-STEPS, STEPS + 1):
                length = FRONT_TICK_NUMBERED if k % 2 == 0 else FRONT_TICK
                f, b = cx + k * FRONT_PITCH, cx + k * BACK_PITCH
                if axis == "x":
                    front = Line(f, cy - length, f, cy + TICK_OVERLAP)
                    back = Line(b, cy - TICK_OVERLAP, b, cy + BACK_TICK)
                else:
                    f, b = cy + k * FRONT_PITCH, cy + k * BACK_PITCH
                    front = Line(cx - length, f, cx + TICK_OVERLAP, f)
                    back = Line(cx - TICK_OVERLAP, b, cx + BACK_TICK, b)
                fronts.append(front)
                backs.append(_drawn_on_back(back, spec))
                values.append(sign * k * STEP + 0.0)
            out.append(Scale(station, axis, tuple(fronts), tuple(backs), tuple(values)))
    return out


def _number(points: float, minus: str = "\u2212") -> str:
    value = to_mm(points)
    text = f"{abs(value):.2f}".rstrip("0").rstrip(".")
    if text == "0":
        return "0"
    return ("+" if value > 0 else minus) + text


def _paragraphs(paper_name: str, duplex: str, offset: tuple[float, float]) -> list[str]:
    edge, other = (("short", "long") if duplex == "short" else ("long", "short"))
    x, y = _number(offset[0], "-"), _number(offset[1], "-")
    how = ("Print page 1, put the sheet back in the tray turned over on its long edge and "
           "print page 2 on its back, both" if duplex == "glue" else
           "Print both pages double-sided on one sheet")
    return [
        f"1. {how} at 100 % (\u201cactual size\u201d, not "
        f"\u201cfit to page\u201d), flipping on the {edge} edge. The bars below must measure "
        "exactly 100 mm and 4 in; if not, the page was scaled.",
        f"2. Turn the sheet over on its {edge} edge: \u201cBACK \u2013 this way up\u201d must be "
        f"upright at the top. If it is upside down, the printer flipped on the {other} edge.",
        "3. Hold the sheet up to a light, this side towards you. On each scale, find where a "
        "line from the back lies exactly on a line of this side and read the number there "
        "(between two numbers: the half step). Horizontal scales give X, vertical scales Y.",
        f"4. Use the center readings, in millimeters: {BUILD_COMMAND} --duplex {duplex} "
        "--back-offset X,Y "
        "(for example --back-offset 1.5,-0.5).",
        f"5. To check, print again with {CALIBRATE_COMMAND} --paper {paper_name} "
        f"--duplex {duplex} --back-offset X,Y: all scales should read 0; if not, add the "
        "new readings to "
        f"your offset. This sheet was printed with back offset X = {x} mm, Y = {y} mm.",
    ]


NOTES = [
    "If no lines meet, the back is off by more than 5 mm: check the paper guides and the "
    "flip edge.",
    "If the corner readings differ from the center by more than 0.5 mm, the printer skews "
    "or scales the back side; the center reading is the best single offset.",
]


def _wrap(canvas: Canvas, text: str, font: str, size: float, x: float, top: float,
          width: float, leading: float) -> float:
    """Draw ``text`` wrapped to ``width`` from baseline ``top``; return the next baseline."""
    canvas.setFont(font, size)
    for line in simpleSplit(text, font, size, width):
        canvas.drawString(x, top, line)
        top -= leading
    return top


def _ruler(canvas: Canvas, x: float, y: float, length: float, unit: float, name: str,
           font: str) -> None:
    ticks = [Line(x, y, x + length, y)]
    n = round(length / unit)
    ticks += [Line(x + i * unit, y, x + i * unit, y + (mm(3) if i in (0, n) else mm(1.5)))
              for i in range(n + 1)]
    stroke_lines(canvas, ticks, 0.5)
    canvas.setFont(font, 7)
    canvas.drawString(x + length + mm(2), y, name)


def _front(canvas: Canvas, paper: tuple[float, float], paper_name: str, duplex: str,
           offset: tuple[float, float], fonts: FontSet, all_scales: list[Scale]) -> None:
    w, h = paper
    body, bold, title = fonts["body"].regular, fonts["body"].bold, fonts["title"].regular
    margin = mm(15)
    canvas.setFont(title, 16)
    canvas.drawString(margin, h - mm(18), f"Duplex calibration \u2013 {paper_name.upper()}"
                      f" \u2013 page 1 (front)")
    y = h - mm(26)
    for text in _paragraphs(paper_name, duplex, offset):
        y = _wrap(canvas, text, body, 8.5, margin, y, w - 2 * margin, 11) - 3

    for scale in all_scales:
        stroke_lines(canvas, scale.front, TICK_STROKE)
        for i, (line, value) in enumerate(zip(scale.front, scale.values)):
            if (i - STEPS) % 2:
                continue
            canvas.setFont(bold if value == 0 else body, 6)
            if scale.axis == "x":
                canvas.drawCentredString(line.x1, line.y1 - mm(3), _number(value))
            else:
                canvas.drawRightString(line.x1 - mm(1), line.y1 - 2, _number(value))
        first, last = scale.front[0], scale.front[-1]
        canvas.setFont(bold, 9)
        if scale.axis == "x":
            canvas.drawRightString(first.x1 - mm(3), first.y1 + mm(2), "X")
            canvas.setFont(body, 7)
            canvas.drawCentredString((first.x1 + last.x1) / 2, first.y1 - mm(7), scale.station)
        else:
            canvas.drawCentredString(last.x1 + mm(4), last.y1 + mm(3), "Y")

    bars = mm(92)
    _ruler(canvas, margin, bars, mm(100), mm(10), "100 mm", body)
    _ruler(canvas, margin, bars - mm(8), 4 * 72.0, 18.0, "4 in", body)
    y = bars - mm(16)
    for text in NOTES:
        y = _wrap(canvas, text, body, 8, margin, y, mm(150), 10) - 2
    # the scale check beside the rulers, clear of the notes below and the scales above
    check = standard_scale_check()
    draw_scale_check(canvas, check, w - margin - Footprint(check).size[0], bars - mm(10), body)


def _back(canvas: Canvas, paper: tuple[float, float], duplex: str,
          offset: tuple[float, float], fonts: FontSet, all_scales: list[Scale]) -> None:
    w, h = paper
    body, title = fonts["body"].regular, fonts["title"].regular
    canvas.setFont(title, 16)
    canvas.drawCentredString(w / 2, h - mm(18), "BACK \u2013 this way up")
    arrow = canvas.beginPath()
    ax, ay = w / 2, h - mm(32)
    arrow.moveTo(ax, ay + mm(8))
    arrow.lineTo(ax - mm(4), ay + mm(2))
    arrow.lineTo(ax + mm(4), ay + mm(2))
    arrow.close()
    canvas.drawPath(arrow, stroke=0, fill=1)
    canvas.setFont(body, 8.5)
    canvas.drawCentredString(
        w / 2, h - mm(38),
        f"Page 2 (back), flip on the {'short' if duplex == 'short' else 'long'} edge, "
        "printed with back offset "
        f"X = {_number(offset[0], '-')} mm, Y = {_number(offset[1], '-')} mm. "
        "Read the scales from the other side.")
    for scale in all_scales:
        stroke_lines(canvas, scale.back, TICK_STROKE)


def calibration_pdf(paper: str = "a4", fonts: FontSet | None = None,
                    back_offset: tuple[float, float] = (0.0, 0.0),
                    duplex: str = "long") -> bytes:
    """The calibration sheet as PDF bytes (deterministic)."""
    size = paper_size(paper, field="paper")
    name = paper.strip().lower()
    if fonts is None:
        from .fonts import load_fonts
        from .pack import Pack
        fonts = load_fonts(Pack.open(None))
    all_scales = scales(size, duplex, back_offset)
    # Without initialFontName reportlab names Helvetica (never embedded) on every page.
    canvas = new_canvas(size, fonts["body"].regular,
                        DocInfo(f"eti-print duplex calibration ({name})", author=None),
                        duplex=duplex)
    canvas.setStrokeColorCMYK(0, 0, 0, 1)
    canvas.setFillColorCMYK(0, 0, 0, 1)
    _front(canvas, size, name, duplex, back_offset, fonts, all_scales)
    canvas.showPage()
    canvas.setStrokeColorCMYK(0, 0, 0, 1)
    canvas.setFillColorCMYK(0, 0, 0, 1)
    _back(canvas, size, duplex, back_offset, fonts, all_scales)
    canvas.showPage()
    return canvas.getpdfdata()


def render_calibration(path: str | Path, paper: str = "a4", fonts: FontSet | None = None,
                       back_offset: tuple[float, float] = (0.0, 0.0),
                       duplex: str = "long") -> Path:
    """Write the two-page calibration PDF to ``path`` atomically; return the path."""
    data = calibration_pdf(paper, fonts, back_offset, duplex)
    target = Path(path)
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)
    return target


def calibrate(out_dir: Path, paper: str, offset: tuple[float, float],
              duplex: str = "long") -> Path:
    """``eti-print calibrate``: write the calibration sheet into ``out_dir``."""
    from .fonts import load_fonts
    from .output import prepare_dir
    from .pack import Pack, slug
    from .units import mm
    fonts = load_fonts(Pack.open(None))
    target = prepare_dir(out_dir) / f"calibration-{slug(paper)}.pdf"
    render_calibration(target, paper=paper, fonts=fonts,
                       back_offset=(mm(offset[0]), mm(offset[1])), duplex=duplex)
    return target


def calibration_options(paper: str | None, offset: tuple[float, float] | None,
                        start: str | Path | None = None, duplex: str | None = None) -> Any:
    """The sheet's paper and back offset: the command line's; else the ``print:``
    defaults of the pack the working folder (``start``) is in; else A4 and 0,0."""
    from .options import PrintRequest
    from .pack import find_pack
    from .yamlload import load
    defaults: dict[str, Any] = {}
    lines: dict[str, int | None] = {}
    root = find_pack(start) if paper is None or offset is None or duplex is None else None
    if root is not None:
        doc = load(root / "pack.yaml", "pack.yaml")
        section = doc.data.get("print") if isinstance(doc.data, dict) else None
        if isinstance(section, dict):
            defaults = {k: v for k, v in section.items()
                        if k in ("paper", "back_offset")
                        or (k == "duplex" and v in CALIBRATED)}
            lines = {k: doc.where(("print", k))[0] for k in defaults}
    return PrintRequest(paper=paper, back_offset=offset, duplex=duplex).resolve(
        defaults, "pack.yaml", lines)
