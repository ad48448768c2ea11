"""Card faces: a layout evaluated for one card, then drawn.

Resolving a face evaluates every template, checks every colour and art id
and fits every text box, so all problems surface before anything is drawn.
A resolved face is plain data with a ``key``: identical faces (the 90
research backs) are drawn once as a PDF form and reused.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from reportlab.lib.colors import Color, HexColor

from .. import template_budget, tracking
from ..colour import readable
from ..errors import InputError, Problem
from ..fonts import FontSet
from ..layout import Box, Layout, check_value, default, is_template
from ..readability import TextRules, face_problems
from ..templating import TemplateEnv
from ..text import Fitted, TextStyle, fit_markup
from ..text import draw as draw_text
from .memo import RenderMemo

_HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
WHITE = HexColor("#FFFFFF")
_MEMO_MAX = 8192
INK_DARK = HexColor("#262626")


@dataclass(frozen=True)
class Op:
    """One resolved drawing operation, in card coordinates (points, y down)."""

    kind: str
    x: float
    y: float
    w: float
    h: float
    args: tuple


@dataclass(frozen=True)
class Face:
    width: float
    height: float
    bleed: float
    ops: tuple[Op, ...]

    @property
    def key(self) -> tuple:
        return (self.width, self.height, self.bleed, self.ops)

    def __hash__(self) -> int:
        # worked out once per face: every imposition of a deck watch reuses hashes its
        # faces (through every op they hold) to find the identical ones
        found = self.__dict__.get("_hash")
        if found is None:
            found = hash(self.key)
            object.__setattr__(self, "_hash", found)
        return found

    def __getstate__(self) -> dict[str, Any]:
        # a hash of text differs between processes: never pickled (the disk cache)
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}


@dataclass(frozen=True)
class BoxOutline:
    """Where one layout box landed on one card (points, trim top-left, y down)."""

    name: str
    type: str
    x: float
    y: float
    w: float
    h: float


class FaceResolver:
    """Evaluates layouts for cards: templates, colours, art ids, text fitting."""

    def __init__(self, env: TemplateEnv, fonts: FontSet, art: Any, width: float,
                 height: float, bleed: float, ink_saver: bool = False,
                 text_rules: TextRules | None = None):
        self.ink_saver = ink_saver
        self.text_rules = text_rules     # the pack's text floors, checked on every face
        self.env = env
        self.fonts = fonts
        self.art = art
        self.width = width
        self.height = height
        self.bleed = bleed
        self._rendered = RenderMemo()   # what its templates rendered, by what they read
        # What needs no card: the ops of a box without templates, by the box (held, so
        # its id stays its own), and fitted text by what it fits.  Kept for one recorder
        # of the build cache (``tracking.ACTIVE``) only, so every entry it computes still
        # reads the art it uses.  Failures are never kept.
        self._static: dict[int, tuple[Box, list[Op]]] = {}
        self._fits: dict[tuple, Fitted] = {}
        self._templates: dict[int, tuple[Box, frozenset[str]]] = {}
        self._recorder: Any = tracking.ACTIVE

    def resolve(self, layout: Layout, context: dict[str, Any], what: str,
                below: Sequence[Op] = ()) -> Face:
        """The face of one card; ``below``: what is drawn under it (a board resolved box
        by box), for telling light text on a dark ground."""
        if tracking.ACTIVE is not self._recorder:
            self._static.clear()
            self._fits.clear()
            self._recorder = tracking.ACTIVE
        with template_budget.session():     # one timer handler for all its renders
            return self._resolve(layout, context, what, below)

    def _resolve(self, layout: Layout, context: dict[str, Any], what: str,
                 below: Sequence[Op]) -> Face:
        ops: list[Op] = []
        problems: list[Problem] = []
        for box in layout.boxes:
            try:
                drawn = self._box(box, context, what)
                if self.text_rules is not None and box.type == "text":
                    problems.extend(Problem(p.message, p.path, p.line, p.col, p.field, p.hint,
                                            what) for p in
                                    face_problems(box, drawn, [*below, *ops], self.text_rules))
                ops.extend(drawn)
            except InputError as exc:
                problems.extend(Problem(p.message, p.path, p.line, p.col, p.field, p.hint,
                                        f"{what}: {p.subject}" if p.subject else what)
                                for p in exc.problems)
        if problems:
            raise InputError(problems)
        return Face(self.width, self.height, self.bleed, tuple(ops))

    # -- properties ---------------------------------------------------------------
    def _templated(self, box: Box) -> frozenset[str]:
        """The properties of ``box`` that are templates (worked out once per box)."""
        kept = self._templates.get(id(box))
        if kept is None or kept[0] is not box:
            if len(self._templates) >= _MEMO_MAX:
                self._templates.clear()
            kept = self._templates[id(box)] = (box, frozenset(
                prop for prop, value in box.props.items() if is_template(value)))
        return kept[1]

    def _value(self, box: Box, prop: str, context: dict[str, Any], default: Any = None) -> Any:
        if prop in self._templated(box):
            return self._render(box, prop, box.props[prop], context)
        return box.props.get(prop, default)

    def _render(self, box: Box, prop: str, source: str, context: dict[str, Any]) -> str:
        """An inline template's text, rendered once per distinct values it reads."""
        return self._rendered.text(source, context, lambda: str(self.env.render_string(
            source, context, where=box.source, line=box.line_of(prop),
            field=f"boxes.{box.name}.{prop}")))

    def _plain(self, box: Box, prop: str, context: dict[str, Any], default: Any = None) -> Any:
        value = self._value(box, prop, context, default)
        if isinstance(value, str):
            value = (value.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
                     .replace("&#34;", '"').replace("&#39;", "'").strip())
        return value

    def _length(self, box: Box, prop: str, context: dict[str, Any], default: float = 0.0) -> float:
        value = self._plain(box, prop, context, default)
        if isinstance(value, str):
            return check_value(box.type, prop, value, box.source, box.line_of(prop),
                               f"boxes.{box.name}.{prop}")
        return float(value)

    def _checked(self, box: Box, prop: str, context: dict[str, Any], default: Any = None
                 ) -> Any:
        """A property's value, a template's output checked against the property's type and
        limit (values written as they are were checked when the layout loaded)."""
        if prop not in self._templated(box):
            return box.props.get(prop, default)
        return check_value(box.type, prop, self._plain(box, prop, context), box.source,
                           box.line_of(prop), f"boxes.{box.name}.{prop}")

    def _colour(self, box: Box, prop: str, context: dict[str, Any],
                default: str | None = None) -> Color | None:
        value = self._plain(box, prop, context, default)
        if value in (None, "", "none"):
            return None
        if not isinstance(value, str) or not _HEX.match(value):
            raise InputError(Problem(f"colour must be #RRGGBB or none (got {value!r})",
                                     box.source, box.line_of(prop),
                                     field=f"boxes.{box.name}.{prop}"))
        colour = HexColor(value)
        if self.ink_saver:
            role = "fill" if prop == "fill" and not box.props.get("bleed") else (
                "text" if prop in ("color", "icon_color") else "keep")
            colour = ink_saver_colour(colour, role)
        return colour

    def _when(self, box: Box, context: dict[str, Any]) -> bool:
        if "when" not in box.props:
            return True
        value = self._plain(box, "when", context)
        if isinstance(value, str):
            return value.strip().lower() not in ("", "false", "0", "none", "no")
        return bool(value)

    def _geometry(self, box: Box, context: dict[str, Any]) -> tuple[float, float, float, float]:
        if box.type == "rect" and box.props.get("bleed") and "x" not in box.props:
            b = self.bleed
            return (-b, -b, self.width + 2 * b, self.height + 2 * b)
        return (self._length(box, "x", context), self._length(box, "y", context),
                self._length(box, "width", context), self._length(box, "height", context))

    # -- boxes --------------------------------------------------------------------
    def _box(self, box: Box, context: dict[str, Any], what: str) -> list[Op]:
        kept = self._static.get(id(box))
        if kept is not None and kept[0] is box:
            return kept[1]
        ops = [self._one(box, here, x, y, w, h)
               for here, x, y, w, h in self._placements(box, context)]
        if not self._templated(box):   # the same on every card
            if len(self._static) >= _MEMO_MAX:
                self._static.clear()
            self._static[id(box)] = (box, ops)
        return ops

    def _placements(self, box: Box, context: dict[str, Any]
                    ) -> list[tuple[dict[str, Any], float, float, float, float]]:
        """Where ``box`` is drawn on this card: (context, x, y, w, h) per drawing, none if
        its ``when`` is false."""
        if not self._when(box, context):
            return []
        if "repeat" not in box.props:
            return [(context, *self._geometry(box, context))]
        # A repeated box is drawn ``repeat`` times, ``step``/``step_y`` apart;
        # its templates see the repetition's index as ``i`` (0-based).
        repeat = int(self._checked(box, "repeat", context, 1))
        found = []
        for i in range(max(repeat, 0)):
            here = dict(context, i=i)
            x, y, w, h = self._geometry(box, here)
            dx = self._length(box, "step", here, 0.0 if "step_y" in box.props else w)
            dy = self._length(box, "step_y", here, _d(box, "step_y"))
            found.append((here, x + i * dx, y + i * dy, w, h))
        return found

    def outlines(self, layout: Layout, context: dict[str, Any]) -> list[BoxOutline]:
        """Every box this card draws, with its resolved geometry (``preview --guides``);
        call after ``resolve`` succeeded for the same card."""
        found = []
        with template_budget.session():
            for box in layout.boxes:
                placed = self._placements(box, context)
                for n, (_, x, y, w, h) in enumerate(placed):
                    name = f"{box.name}[{n}]" if "repeat" in box.props else box.name
                    found.append(BoxOutline(name, box.type, x, y, w, h))
        return found

    def _one(self, box: Box, ctx: dict[str, Any], x: float, y: float, w: float, h: float) -> Op:
        if box.type == "rect":
            return Op("rect", x, y, w, h, (
                self._colour(box, "fill", ctx), self._colour(box, "stroke", ctx),
                self._length(box, "stroke_width", ctx, _d(box, "stroke_width")),
                self._length(box, "radius", ctx, _d(box, "radius")),
                bool(box.props.get("bleed")), _dash(self._checked(box, "dash", ctx))))
        if box.type == "ellipse":
            return Op("ellipse", x, y, w, h, (
                self._colour(box, "fill", ctx), self._colour(box, "stroke", ctx),
                self._length(box, "stroke_width", ctx, _d(box, "stroke_width"))))
        if box.type == "line":
            return Op("line", x, y, w, h, (
                self._colour(box, "stroke", ctx, _d(box, "stroke")),
                self._length(box, "stroke_width", ctx, _d(box, "stroke_width")),
                _dash(self._checked(box, "dash", ctx))))
        if box.type == "art":
            art_id = self._plain(box, "art", ctx)
            field = f"boxes.{box.name}.art"
            if not isinstance(art_id, str) or not _ID.match(art_id):
                raise InputError(Problem(f"art must be an art id (got {art_id!r})", box.source,
                                         box.line_of("art"), field=field))
            art = self.art.get(art_id, where=box.source, line=box.line_of("art"), field=field)
            colour = self._colour(box, "color", ctx)
            if colour is not None and getattr(art, "raster", False):   # refused, located
                self.art.tinted(art_id, colour, where=box.source, line=box.line_of("color"),
                                field=f"boxes.{box.name}.color")
            return Op("art", x, y, w, h, (art_id, colour,
                                          float(self._checked(box, "rotate", ctx, 0))))
        return self._text(box, ctx, x, y, w, h)

    def _text(self, box: Box, ctx: dict[str, Any], x: float, y: float, w: float, h: float) -> Op:
        markup = self._value(box, "text", ctx)
        if not isinstance(markup, str):
            markup = str(markup)
        family = self.fonts.get(str(box.props.get("font", "body")), where=box.source,
                                line=box.line_of("font"), field=f"boxes.{box.name}.font")
        size = self._length(box, "size", ctx, _d(box, "size"))
        style = TextStyle(
            family=family, size=size,
            min_size=self._length(box, "min_size", ctx, min(size, 6.5)),
            leading=float(self._checked(box, "leading", ctx, _d(box, "leading"))),
            color=self._colour(box, "color", ctx, _d(box, "color")) or INK_DARK,
            align=str(self._checked(box, "align", ctx, _d(box, "align"))),
            valign=str(self._checked(box, "valign", ctx, _d(box, "valign"))),
            icon_color=self._colour(box, "icon_color", ctx),
            icon_scale=float(self._checked(box, "icon_scale", ctx, _d(box, "icon_scale"))),
            tracking=self._length(box, "tracking", ctx, _d(box, "tracking")),
            upper=bool(box.props.get("upper", _d(box, "upper"))))
        rotate = float(self._checked(box, "rotate", ctx, 0))
        fw, fh = (h, w) if rotate % 180 == 90 else (w, h)
        key = (markup, repr(fw), repr(fh), style)
        fitted = self._fits.get(key)
        if fitted is None:
            fitted = fit_markup(markup, fw, fh, style, self.art, where=box.source,
                                line=box.line_of("text"), field=f"boxes.{box.name}")
            if len(self._fits) >= _MEMO_MAX:
                self._fits.clear()
            self._fits[key] = fitted
        return Op("text", x, y, w, h, (fitted, rotate))


def _d(box: Box, prop: str) -> Any:
    """A property's default, from the box types' spec (``specs/boxes.yaml``)."""
    return default(box.type, prop)


def _dash(value: Any) -> tuple[float, ...]:
    if not value:
        return ()
    if isinstance(value, (int, float)):
        return (float(value), float(value))
    if isinstance(value, list):
        return tuple(float(v) for v in value)
    return ()


def _lighten(colour: Color, amount: float) -> Color:
    r, g, b = colour.red, colour.green, colour.blue
    return Color(r + (1 - r) * amount, g + (1 - g) * amount, b + (1 - b) * amount)


def ink_saver_colour(colour: Color | None, role: str) -> Color | None:
    """Ink-saver variant of a colour: light fills, dark text and icons."""
    if colour is None:
        return None
    if role == "fill":
        return _lighten(colour, 0.82)
    if role == "text" and readable(colour, "#000000", "#FFFFFF") == "#000000":
        return INK_DARK   # light text, made for a dark fill the ink saver leaves out
    return colour


def draw_face(canvas: Any, face: Face, art: Any, ink_saver: bool = False) -> None:
    """Draw ``face`` with its trim's top-left at the canvas origin, y up.

    The caller translates to the card's trim bottom-left and clips to its bleed.
    """
    H = face.height
    for op in face.ops:
        bottom = H - op.y - op.h
        if op.kind in ("rect", "ellipse"):
            fill, stroke, stroke_width = op.args[0], op.args[1], op.args[2]
            if ink_saver and op.kind == "rect" and op.args[4]:
                # the background is left to the paper, with no outline: a line on the
                # cut would leave one card's edge bare and double its neighbour's
                stroke, fill = None, WHITE
            canvas.saveState()
            if fill is not None:
                canvas.setFillColor(fill)
            if stroke is not None:
                canvas.setStrokeColor(stroke)
                canvas.setLineWidth(stroke_width)
            if op.kind == "rect" and op.args[5]:
                canvas.setDash(list(op.args[5]))
            if op.kind == "rect" and op.args[3]:
                canvas.roundRect(op.x, bottom, op.w, op.h, op.args[3],
                                 stroke=int(stroke is not None), fill=int(fill is not None))
            elif op.kind == "rect":
                canvas.rect(op.x, bottom, op.w, op.h, stroke=int(stroke is not None),
                            fill=int(fill is not None))
            else:
                canvas.ellipse(op.x, bottom, op.x + op.w, bottom + op.h,
                               stroke=int(stroke is not None), fill=int(fill is not None))
            canvas.restoreState()
        elif op.kind == "line":
            stroke, width, dash = op.args
            canvas.saveState()
            canvas.setStrokeColor(stroke)
            canvas.setLineWidth(width)
            if dash:
                canvas.setDash(list(dash))
            canvas.line(op.x, H - op.y, op.x + op.w, H - op.y - op.h)
            canvas.restoreState()
        elif op.kind == "art":
            art_id, colour, rotate = op.args
            _rotated(canvas, op, bottom, rotate,
                     lambda x, y, w, h: art.draw(canvas, art_id, x, y, w, h, colour))
        elif op.kind == "text":
            fitted, rotate = op.args
            _rotated(canvas, op, bottom, rotate,
                     lambda x, y, w, h: draw_text(canvas, fitted, x, y))


def _rotated(canvas: Any, op: Op, bottom: float, degrees: float,
             paint: Callable[[float, float, float, float], None]) -> None:
    if not degrees:
        paint(op.x, bottom, op.w, op.h)
        return
    canvas.saveState()
    canvas.translate(op.x + op.w / 2, bottom + op.h / 2)
    canvas.rotate(degrees)
    if degrees % 180 == 90:
        paint(-op.h / 2, -op.w / 2, op.h, op.w)
    else:
        paint(-op.w / 2, -op.h / 2, op.w, op.h)
    canvas.restoreState()
