"""What a PDF really prints, read back from its content streams (pages and the forms
they draw, to any depth): every text run at its effective size, and every stroked
straight segment with its width.  Sizes are as printed: the ``Tf`` size times the
text matrix times the CTM, so a card scaled into a booklet or a form drawn at half
size counts at the size a reader sees."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pikepdf

Matrix = tuple[float, float, float, float, float, float]
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


@dataclass(frozen=True)
class TextRun:
    page: int             # 0-based
    size: float           # effective size in points
    fill: tuple[float, float, float]   # fill colour, rgb 0..1
    font: str             # the font's BaseFont
    text: str             # as encoded (subset fonts: not readable, only non-empty)
    x: float
    y: float


@dataclass(frozen=True)
class Stroke:
    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    width: float          # line width in page points
    depth: int            # 0: drawn on the page (marks, notes); 1 or more: inside a form (a face)


@dataclass(frozen=True)
class Box:
    """An axis-aligned box in page coordinates (points): a filled ``re`` rectangle, or
    the bounding box of a form drawn on the page."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    depth: int            # 0: on the page; 1 or more: inside a form

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def overlaps(self, other: Box, gap: float = 0.0) -> bool:
        return (min(self.x1, other.x1) - max(self.x0, other.x0) > -gap
                and min(self.y1, other.y1) - max(self.y0, other.y0) > -gap)


def _box(page: int, points: list[tuple[float, float]], depth: int) -> Box:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return Box(page, min(xs), min(ys), max(xs), max(ys), depth)


def _mul(a: Matrix, b: Matrix) -> Matrix:
    return (a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
            a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5])


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])


def _scale(m: Matrix) -> float:
    return math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))


def _rgb(op: str, operands: list) -> tuple[float, float, float] | None:
    values = [float(v) for v in operands if not isinstance(v, (str, pikepdf.Name))]
    if op == "g":
        return (values[0],) * 3
    if op == "rg":
        return (values[0], values[1], values[2])
    if op == "k":
        c, m, y, k = values
        return ((1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k))
    if op in ("sc", "scn") and len(values) in (1, 3):
        return (values[0],) * 3 if len(values) == 1 else tuple(values)  # type: ignore
    return None


#: The operators a walk for text alone reads (state, colour, text, forms): pikepdf skips
#: the rest (paths, strokes, fills), which change nothing a ``TextRun`` records.
TEXT_OPERATORS = "q Q cm g rg k sc scn BT Tf TL Tm Td TD T* Tj TJ ' \" Do"
#: The operators a walk for strokes alone reads (state, paths, painting, forms).
STROKE_OPERATORS = "q Q cm w m l c v y re h S s B B* b b* f F f* n W W* Do"


#: Parsed content streams by their bytes, for every PDF this process reads: the builds
#: of one pack in several modes draw the same card faces into forms alike.
_PARSED: dict[tuple[bytes, str], tuple[tuple[str, list], ...]] = {}


def _content_bytes(obj: pikepdf.Object) -> bytes:
    """What a form or a page draws: its content stream's bytes (a page's, joined)."""
    if isinstance(obj, pikepdf.Stream):
        return obj.read_bytes()
    contents = obj.get("/Contents")
    if contents is None:
        return b""
    if isinstance(contents, pikepdf.Array):
        return b"\n".join(part.read_bytes() for part in contents)
    return contents.read_bytes()


def _plain(value: object) -> object:
    """An operand as a Python value that holds nothing of its PDF (kept past its closing):
    a number as a float, a name as its text, an array as a list; anything else (a
    dictionary, an inline image), which no walk reads, as its repr."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, Decimal)):
        return float(value)
    if isinstance(value, pikepdf.Name):
        return str(value)
    if isinstance(value, pikepdf.Array):
        return [_plain(item) for item in value]
    return repr(value)


def _operations(stream: pikepdf.Object, operators: str = "") -> tuple[tuple[str, list], ...]:
    """A content stream's operators (only ``operators``, if given), each with its operands
    as Python values: numbers as floats, a shown string (Tj, TJ, ', ") as its latin-1
    text, the rest as ``_plain`` gives them."""
    key = (_content_bytes(stream), operators)
    kept = _PARSED.get(key)
    if kept is not None:
        return kept
    found = []
    for operands, operator in pikepdf.parse_content_stream(stream, operators):
        op = str(operator)
        if op in ("Tj", "TJ", "'", '"'):
            arg = operands[-1]
            parts = [a for a in arg if isinstance(a, pikepdf.String)] if op == "TJ" else [arg]
            values: list = ["".join(bytes(p).decode("latin-1") for p in parts)]
        else:
            values = [_plain(v) for v in operands]
        found.append((op, values))
    if len(_PARSED) >= 4096:
        _PARSED.clear()
    _PARSED[key] = kept = tuple(found)
    return kept


class _Reader:
    def __init__(self, operators: str = "", max_depth: int = 12) -> None:
        self.operators = operators
        self.max_depth = max_depth
        self.texts: list[TextRun] = []
        self.strokes: list[Stroke] = []
        #: each form's operations, parsed once however often it is drawn
        self._parsed: dict[tuple[int, int], tuple[tuple[str, list], ...]] = {}
        self.fills: list[Box] = []          # every filled ``re`` rectangle
        self.forms: list[Box] = []          # every form's bounding box, where it is drawn

    def operations(self, stream: pikepdf.Object) -> tuple[tuple[str, list], ...]:
        key = stream.objgen
        if key == (0, 0):                     # a direct object (a page): read once anyway
            return _operations(stream, self.operators)
        if key not in self._parsed:
            self._parsed[key] = _operations(stream, self.operators)
        return self._parsed[key]

    def walk(self, stream: pikepdf.Object, resources: pikepdf.Object, ctm: Matrix,
             page: int, depth: int = 0) -> None:
        fonts = resources.get("/Font", {}) if resources is not None else {}
        xobjects = resources.get("/XObject", {}) if resources is not None else {}
        stack: list[tuple] = []
        fill: tuple[float, float, float] = (0.0, 0.0, 0.0)
        width = 1.0
        tm = tlm = IDENTITY
        font, size, leading = "", 0.0, 0.0
        path: list[tuple[tuple[float, float], tuple[float, float]]] = []
        rects: list[Box] = []
        start = current = (0.0, 0.0)
        for op, operands in self.operations(stream):
            if op == "q":
                stack.append((ctm, fill, width))
            elif op == "Q" and stack:
                ctm, fill, width = stack.pop()
            elif op == "cm":
                ctm = _mul(tuple(float(v) for v in operands), ctm)  # type: ignore[arg-type]
            elif op == "w":
                width = float(operands[0])
            elif op in ("g", "rg", "k", "sc", "scn"):
                fill = _rgb(op, list(operands)) or fill
            elif op == "m":
                start = current = _apply(ctm, float(operands[0]), float(operands[1]))
            elif op == "l":
                point = _apply(ctm, float(operands[0]), float(operands[1]))
                path.append((current, point))
                current = point
            elif op == "c":
                point = _apply(ctm, float(operands[4]), float(operands[5]))
                path.append((current, point))    # a curve as its chord
                current = point
            elif op in ("v", "y"):
                point = _apply(ctm, float(operands[2]), float(operands[3]))
                path.append((current, point))
                current = point
            elif op == "re":
                x, y, w, h = (float(v) for v in operands)
                corners = [_apply(ctm, x, y), _apply(ctm, x + w, y), _apply(ctm, x + w, y + h),
                           _apply(ctm, x, y + h)]
                path.extend(zip(corners, corners[1:] + corners[:1]))
                rects.append(_box(page, corners, depth))
                start = current = corners[0]
            elif op == "h":
                path.append((current, start))
                current = start
            elif op in ("S", "s", "B", "B*", "b", "b*"):
                if op in ("s", "b", "b*"):
                    path.append((current, start))
                line = width * _scale(ctm)
                self.strokes.extend(Stroke(page, a[0], a[1], b[0], b[1], line, depth)
                                    for a, b in path if a != b)
                if op.startswith(("B", "b")):
                    self.fills.extend(rects)
                path, rects = [], []
            elif op in ("f", "F", "f*", "n", "W", "W*"):
                if op in ("f", "F", "f*"):
                    self.fills.extend(rects)
                if op not in ("W", "W*"):
                    path, rects = [], []
            elif op == "BT":
                tm = tlm = IDENTITY
            elif op == "Tf":
                name = operands[0]
                font_obj = fonts.get(name) if fonts is not None else None
                font = str(font_obj.get("/BaseFont", name)) if font_obj is not None else str(name)
                size = float(operands[1])
            elif op == "TL":
                leading = float(operands[0])
            elif op == "Tm":
                tm = tlm = tuple(float(v) for v in operands)  # type: ignore[assignment]
            elif op in ("Td", "TD"):
                tx, ty = float(operands[0]), float(operands[1])
                if op == "TD":
                    leading = -ty
                tm = tlm = _mul((1.0, 0.0, 0.0, 1.0, tx, ty), tlm)
            elif op == "T*":
                tm = tlm = _mul((1.0, 0.0, 0.0, 1.0, 0.0, -leading), tlm)
            elif op in ("Tj", "TJ", "'", '"'):
                if op in ("'", '"'):
                    tm = tlm = _mul((1.0, 0.0, 0.0, 1.0, 0.0, -leading), tlm)
                m = _mul(tm, ctm)
                text = operands[0]
                if text.strip():
                    self.texts.append(TextRun(page, size * _scale(m), fill, font, text,
                                              m[4], m[5]))
            elif op == "Do" and xobjects is not None:
                xobject = xobjects.get(operands[0])
                if xobject is not None and xobject.get("/Subtype") == "/Form":
                    matrix = tuple(float(v) for v in xobject.get("/Matrix", list(IDENTITY)))
                    x0, y0, x1, y1 = (float(v) for v in xobject.get("/BBox"))
                    m = _mul(matrix, ctm)  # type: ignore[arg-type]
                    self.forms.append(_box(page, [_apply(m, x, y) for x, y in
                                                  ((x0, y0), (x1, y0), (x1, y1), (x0, y1))],
                                           depth))
                    if depth >= self.max_depth:
                        continue
                    self.walk(xobject, xobject.get("/Resources", resources),
                              _mul(matrix, ctm), page, depth + 1)  # type: ignore[arg-type]


def read(path: Path, pages: int | None = None, max_depth: int = 12,
         operators: str = "") -> _Reader:
    """What the PDF draws: on its first ``pages`` pages (all by default), in forms
    nested up to ``max_depth`` deep (0: the pages' own content, with the boxes of the
    forms they draw), reading only ``operators`` (all by default)."""
    reader = _Reader(operators, max_depth)
    with pikepdf.open(path) as pdf:
        for number, page in enumerate(pdf.pages[:pages]):
            reader.walk(page.obj, page.obj.get("/Resources", pikepdf.Dictionary()), IDENTITY,
                        number)
    return reader


def text_runs(path: Path) -> list[TextRun]:
    """Every run of text a PDF prints, at its effective size."""
    return read(path, operators=TEXT_OPERATORS).texts


def strokes(path: Path) -> list[Stroke]:
    """Every stroked straight segment a PDF draws (curves as their chords), in page
    coordinates (points, y up)."""
    return read(path, operators=STROKE_OPERATORS).strokes


def is_bold(font: str) -> bool:
    return any(word in font for word in ("Bold", "Black", "Heavy", "Semibold"))
