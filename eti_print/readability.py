"""Readable everywhere: the pack's minimum text sizes, and the check every layout meets.

pack.yaml's ``text:`` gives two floors, ``min_size`` (6 pt unless the pack says
otherwise) for all text and ``light_min_size`` (6.5 pt) for light text on a
darker ground, which spreads on paper and needs a bold face.  A text box's floor
is the smallest size it may print at: its ``min_size``, or its ``size`` when it
does not shrink.

Two checks, one rule each:

* ``check_layouts`` (the check stage): every text box of every layout of the
  pack, its floor against ``min_size``, named by file, line and box;
* ``face_problems`` (resolving a face, where colours are known for each card):
  a text box whose ink is lighter than the colour drawn behind it (the
  ``colour`` module's luminance) against ``light_min_size``, and, when it
  prints below 7 pt, in a bold face.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reportlab.pdfbase import pdfmetrics

from .colour import WHITE, contrast_ratio, luminance
from .errors import InputError, Problem
from .layout import Box, default, is_template
from .units import to_points

if TYPE_CHECKING:  # pragma: no cover
    from .context import Context
    from .dataset import Dataset

#: The defaults: card printers ask for 6 pt at the least, and 6.5 pt bold for light
#: text on a dark ground.
MIN_SIZE = 6.0
LIGHT_MIN_SIZE = 6.5
#: Light text on a dark ground printing below this (the size card printers ask for
#: of all text) must be set in a bold face.
BOLD_BELOW = 7.0
HINT = ("give the box room (or its text fewer words) and a min_size of at least "
        "{floor:g}pt")


@dataclass(frozen=True)
class TextRules:
    """The pack's text floors, in points."""

    min_size: float = MIN_SIZE
    light_min_size: float = LIGHT_MIN_SIZE


def rules(ds: Dataset) -> TextRules:
    """pack.yaml's ``text:`` (the defaults for what it leaves out); bad lengths are
    located problems."""
    given = ds.config.get("text") or {}
    found: dict[str, float] = {}
    problems: list[Problem] = []
    for key in ("min_size", "light_min_size"):
        if key not in given:
            continue
        line, _ = ds.manifest.where(("text", key))
        try:
            found[key] = to_points(given[key], where=ds.manifest.path, line=line,
                                   field=f"text.{key}")
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return TextRules(**found)


def floor(box: Box) -> float | None:
    """The smallest size a text box may print at (None while it is a template)."""
    size = box.props.get("size", default("text", "size"))
    smallest = box.props.get("min_size")
    if smallest is None:
        if is_template(size):
            return None
        return min(float(size), LIGHT_MIN_SIZE)     # the renderer's default min_size
    return None if is_template(smallest) else float(smallest)


def box_problems(boxes: Iterable[Box], text_rules: TextRules) -> list[Problem]:
    """Every text box whose floor is below the pack's ``min_size``."""
    problems = []
    for box in boxes:
        if box.type != "text":
            continue
        low = floor(box)
        if low is None or low >= text_rules.min_size - 1e-6:
            continue
        prop = "min_size" if "min_size" in box.props else "size"
        problems.append(Problem(
            f"text box {box.name!r} may print at {low:g} pt, below the pack's minimum text "
            f"size of {text_rules.min_size:g} pt", box.source, box.line_of(prop),
            field=f"boxes.{box.name}.{prop}", hint=HINT.format(floor=text_rules.min_size)))
    return problems


def check_layouts(ctx: Context) -> list[Problem]:
    """The check stage: every layout of the pack against its minimum text size.  A
    layout that does not load is left to the resolve stage, which reports it."""
    try:
        text_rules = rules(ctx.dataset)
    except InputError as exc:
        return list(exc.problems)
    problems: list[Problem] = []
    texts: dict[str, list[str]] = {}
    for name in ctx.layouts.names():
        try:
            layout = ctx.layouts.get(name)
        except InputError:
            continue
        own = [b for b in layout.boxes if b.source == layout.source]   # parents: their own file
        for problem in box_problems(own, text_rules):
            # a size this layout inherits is its parent's line: the parent reports it
            if problem.path not in texts:
                try:
                    texts[problem.path] = (ctx.pack.root / problem.path).read_text(
                        encoding="utf-8").splitlines()
                except OSError:
                    texts[problem.path] = []
            lines = texts[problem.path]
            key = problem.field.rsplit(".", 1)[-1] + ":"
            if problem.line and lines and not (problem.line <= len(lines)
                                               and key in lines[problem.line - 1]):
                continue
            problems.append(problem)
    return problems


# ---------------------------------------------------------------------------
# Light on dark, for one resolved face


def light_on(ink: Any, ground: Any) -> bool:
    """Whether ``ink`` is light text on a darker ``ground`` (and readable there at all)."""
    return luminance(ink) > luminance(ground) and contrast_ratio(ink, ground) > 1.5


def ground_of(op: Any, below: Sequence[Any]) -> Any:
    """The colour drawn behind ``op``'s centre: the last filled rect or ellipse of
    ``below`` that covers it, else the paper."""
    cx, cy = op.x + op.w / 2, op.y + op.h / 2
    for under in reversed(below):
        if under.kind not in ("rect", "ellipse") or under.args[0] is None:
            continue
        if under.kind == "ellipse":
            rx, ry = under.w / 2, under.h / 2
            if rx <= 0 or ry <= 0:
                continue
            dx, dy = (cx - under.x - rx) / rx, (cy - under.y - ry) / ry
            if dx * dx + dy * dy <= 1:
                return under.args[0]
        elif under.x <= cx <= under.x + under.w and under.y <= cy <= under.y + under.h:
            return under.args[0]
    return WHITE


def face_problems(box: Box, ops: Sequence[Any], below: Sequence[Any],
                  text_rules: TextRules) -> list[Problem]:
    """A text box of one card drawn light on dark with a floor below ``light_min_size``."""
    problems = []
    for op in ops:
        if op.kind != "text":
            continue
        style = op.args[0].style
        fitted = op.args[0]
        if style.smallest >= BOLD_BELOW - 1e-6:
            continue
        ground = ground_of(op, below)
        if not light_on(style.color, ground):
            continue
        if style.smallest < text_rules.light_min_size - 1e-6:
            prop = "min_size" if "min_size" in box.props else "size"
            problems.append(Problem(
                f"text box {box.name!r} prints light on dark and may print at "
                f"{style.smallest:g} pt, below the pack's minimum of "
                f"{text_rules.light_min_size:g} pt for light text on a dark ground",
                box.source, box.line_of(prop), field=f"boxes.{box.name}.{prop}",
                hint=HINT.format(floor=text_rules.light_min_size)
                + "; a bold face reads best"))
            break
        if fitted.size < BOLD_BELOW - 1e-6 and not is_bold(fitted):
            problems.append(Problem(
                f"text box {box.name!r} prints light on dark at {fitted.size:g} pt in a "
                f"regular face: light text below {BOLD_BELOW:g} pt must be bold",
                box.source, box.line_of("font"), field=f"boxes.{box.name}.font",
                hint="use a bold font role (or <b>), or give the text room to print at "
                     f"{BOLD_BELOW:g} pt"))
            break
    return problems


def is_bold(fitted: Any) -> bool:
    """Whether every word of fitted text is set in a bold (or semibold) face."""
    for line in fitted.lines:
        for piece in line.pieces:
            if piece.font and piece.text.strip():
                name = pdfmetrics.getFont(piece.font).face.name
                name = name.decode() if isinstance(name, bytes) else str(name)
                if not any(w in name for w in ("Bold", "Semibold", "Black")):
                    return False
    return True
