"""SVG gradients: drawn as PDF shadings where svglib can, refused where it cannot.

svglib turns a ``fill="url(#id)"`` naming a linear or radial gradient into a
clip of the shape and a PDF shading (``sh``).  What it cannot draw it leaves
out without a word (a gradient stroke, a fallback colour, a missing
gradient), draws wrongly (a focal point, fading stops, ``reflect``/``repeat``,
``gradientTransform``, a radial gradient in a wide box) or in the wrong place
(a shape with its own ``transform``).  :func:`check_paints` refuses the first
two kinds with the line and a hint; :class:`Renderer` draws the rest as SVG
means them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lxml import etree
from reportlab.graphics.shapes import Group, mmult
from svglib.svglib import (
    LinearGradientShape,
    RadialGradientShape,
    SvgRenderer,
    _find_clip_shape,
    _shape_to_pdf_path,
)

from ..errors import InputError

GRADIENTS = ("linearGradient", "radialGradient")
_PAINT_URL_RE = re.compile(r"""url\(\s*(['"]?)#([^'"]+?)\1\s*\)\Z""")
_CSS_PAINT_RE = re.compile(r"(?<![\w-])(fill|stroke)\s*:\s*([^;}]*)", re.IGNORECASE)
_NUMBER_RE = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(%?)\s*\Z")
_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_TRANSFORM_RE = re.compile(
    rf"\s*(?:(?:matrix|translate|scale|rotate|skewX|skewY)\s*\(\s*{_NUM}"
    rf"(?:(?:\s*,\s*|\s+){_NUM})*\s*\)\s*,?\s*)*\Z")
_OPAQUE_HINT = ("use opaque stops (to fade, blend towards the background colour), "
                "or export the art as PNG")

Error = Callable[..., InputError]


def _local(name: Any) -> str:
    return etree.QName(name).localname if isinstance(name, str) else ""


def _decls(style: str | None) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in (style or "").split(";"):
        key, sep, value = part.partition(":")
        if sep:
            found[key.strip().lower()] = value.strip()
    return found


def _prop(el: etree._Element, name: str) -> str | None:
    """A presentation property of ``el`` itself: its style, else its attribute."""
    value = _decls(el.get("style")).get(name)
    return value if value is not None else el.get(name)


def _number(value: str | None, default: float) -> float | None:
    """A number or percentage (as a fraction); None if it is neither."""
    if value is None:
        return default
    match = _NUMBER_RE.match(value)
    if not match:
        return None
    number = float(match.group(1))
    return number / 100 if match.group(2) else number


def _href(el: etree._Element) -> str | None:
    for attr, value in el.attrib.items():
        if _local(attr) == "href" and value.strip().startswith("#"):
            return value.strip()[1:]
    return None


def _chain(gradient: etree._Element, ids: dict[str, etree._Element]) -> list[etree._Element]:
    """The gradient and those its href inherits from, nearest first."""
    chain, seen = [gradient], {id(gradient)}
    while True:
        target = ids.get(_href(chain[-1]) or "")
        if target is None or _local(target.tag) not in GRADIENTS or id(target) in seen:
            return chain
        seen.add(id(target))
        chain.append(target)


def _inherited(chain: list[etree._Element], attr: str) -> tuple[str | None, etree._Element]:
    for node in chain:
        if node.get(attr) is not None:
            return node.get(attr), node
    return None, chain[0]


def check_paints(root: etree._Element, ids: dict[str, etree._Element], error: Error) -> None:
    """Refuse every gradient paint svglib would leave out or draw wrongly."""
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        paints = {name: el.get(name) for name in ("fill", "stroke") if el.get(name)}
        paints.update({k: v for k, v in _decls(el.get("style")).items()
                       if k in ("fill", "stroke")})
        if _local(el.tag) == "style":
            for match in _CSS_PAINT_RE.finditer("".join(el.itertext())):
                if "url(" in match.group(2).lower():
                    raise error("<style> paints with url(); svglib does not draw gradients "
                                "from a stylesheet", el,
                                hint="set fill=\"url(#id)\" on the shapes themselves")
        for name, value in paints.items():
            if "url(" in value.lower():
                _check_paint(el, name, value.replace("!important", "").strip(), ids, error)


def _check_paint(el: etree._Element, name: str, value: str, ids: dict[str, etree._Element],
                 error: Error) -> None:
    tag = f"<{_local(el.tag)}>"
    if name == "stroke":
        raise error(f"{tag} stroke {value!r}: gradient strokes are not drawn", el,
                    hint="turn the stroke into a shape (Inkscape: Path > Stroke to Path) "
                         "and fill that with the gradient")
    match = _PAINT_URL_RE.match(value)
    if not match:
        raise error(f"{tag} fill {value!r}: only a plain url(#id) is drawn", el,
                    hint="remove the fallback colour after url(#id)")
    target = ids.get(match.group(2))
    if target is None or _local(target.tag) not in GRADIENTS:
        what = "nothing" if target is None else f"a <{_local(target.tag)}>"
        raise error(f"{tag} fill url(#{match.group(2)}) names {what}, not a gradient; "
                    "nothing would be drawn", el,
                    hint="fill with a <linearGradient> or <radialGradient> id, or a colour")
    if _local(el.tag) in ("text", "tspan"):
        raise error(f"{tag} is filled with a gradient; gradient text is not drawn", el,
                    hint="convert the text to paths (Inkscape: Path > Object to Path)")
    for prop in ("fill-opacity", "opacity"):
        if (_number(_prop(el, prop), 1.0) or 0.0) < 1:
            raise error(f"{tag} {prop} is {_prop(el, prop)}: a gradient fill is drawn opaque",
                        el, hint=_OPAQUE_HINT)
    _check_gradient(target, ids, error)


def _check_gradient(gradient: etree._Element, ids: dict[str, etree._Element],
                    error: Error) -> None:
    chain = _chain(gradient, ids)
    kind = _local(gradient.tag)
    tag = f"<{kind} id={gradient.get('id')!r}>"
    stops: list[etree._Element] = []
    for node in chain:
        stops = [child for child in node if _local(child.tag) == "stop"]
        if stops:
            break
    if not stops:
        raise error(f"{tag} has no <stop>; nothing would be drawn", gradient)
    for stop in stops:
        opacity = _number(_prop(stop, "stop-opacity"), 1.0)
        if opacity is None or opacity < 1:
            raise error(f"<stop> stop-opacity is {_prop(stop, 'stop-opacity')}: gradients "
                        "are drawn opaque, so it would not fade", stop, hint=_OPAQUE_HINT)
    spread, node = _inherited(chain, "spreadMethod")
    if spread not in (None, "pad"):
        raise error(f"{tag} spreadMethod {spread!r} is not drawn (only pad)", node,
                    hint="remove spreadMethod, or export the art as PNG")
    transform, node = _inherited(chain, "gradientTransform")
    if transform is not None and not _TRANSFORM_RE.match(transform):
        raise error(f"{tag} gradientTransform {transform!r} is not a transform list", node,
                    hint="write it as SVG does: matrix(a,b,c,d,e,f), translate(x,y), "
                         "scale(s), rotate(a), skewX(a), skewY(a)")
    if kind == "radialGradient":
        for focal, centre, default in (("fx", "cx", "50%"), ("fy", "cy", "50%")):
            f_value, f_node = _inherited(chain, focal)
            c_value, _ = _inherited(chain, centre)
            if f_value is not None and _number(f_value, 0) != _number(c_value or default, 0):
                raise error(f"{tag} {focal} differs from {centre}: an off-centre focal point "
                            "is not drawn", f_node,
                            hint=f"remove {focal} (Inkscape: centre the gradient's focus)")


IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


class _LinearShade(LinearGradientShape):
    """A linear gradient clipped to its shape, in its gradient space (``_matrix``)."""

    _matrix = IDENTITY

    def drawDirectly(self, renderer: Any) -> None:
        _shade(renderer._canvas, self._clip_shape, self._matrix, lambda c: c.linearGradient(
            self._x0, self._y0, self._x1, self._y1, self._rl_colors, self._positions,
            self._extend))


class _RadialShade(RadialGradientShape):
    """A radial gradient clipped to its shape, in its gradient space (``_matrix``)."""

    _matrix = IDENTITY

    def drawDirectly(self, renderer: Any) -> None:
        _shade(renderer._canvas, self._clip_shape, self._matrix, lambda c: c.radialGradient(
            self._cx, self._cy, self._r, self._rl_colors, self._positions, self._extend))


def _shade(canvas: Any, shape: Any, matrix: tuple, paint: Callable[[Any], None]) -> None:
    """Clip to ``shape`` with its own fill rule, then paint the shading in ``matrix``.

    (svglib fills the clip in the current colour first, black under every
    gradient, which shows at anti-aliased edges, and uses the even-odd rule.)
    """
    path = _shape_to_pdf_path(canvas, shape)
    if not path:
        return
    canvas.saveState()
    canvas.clipPath(path, stroke=0, fill=0, fillMode=getattr(shape, "fillMode", None))
    if tuple(matrix) != IDENTITY:
        canvas.transform(*matrix)
    paint(canvas)
    canvas.restoreState()


def _parent_of(item: Any, shape: Any) -> tuple[Group, int] | None:
    for index, child in enumerate(getattr(item, "contents", None) or ()):
        if child is shape:
            return item, index
        found = _parent_of(child, shape) if isinstance(child, Group) else None
        if found:
            return found
    return None


class Renderer(SvgRenderer):
    """svglib's renderer with gradients drawn as SVG means them.

    svglib maps a gradient's end points into the shape's bounding box and
    draws the shading outside a transformed shape's group; here the shading
    is drawn next to the shape, inside its group, in the gradient's own space:
    the bounding box (``objectBoundingBox``) and ``gradientTransform`` as a
    matrix, so a radial gradient in a wide box is an ellipse, as in a browser.
    """

    def renderGradient(self, node: Any) -> None:
        super().renderGradient(node)
        grad_def = self.gradient_defs.get(node.attrib.get("id", ""))
        transform = node.attrib.get("gradientTransform")
        if grad_def is not None and transform and transform.strip():
            group = Group()
            self.shape_converter.applyTransformOnGroup(transform, group)
            grad_def["matrix"] = tuple(group.transform)    # inherited through href

    def _apply_gradient_fill(self, item: Any, grad_def: Any) -> Any:
        shape = _find_clip_shape(item)
        if shape is None:
            return item
        if shape is item:
            return _shaded(shape, grad_def)
        where = _parent_of(item, shape)
        if where is None:
            return item
        parent, index = where
        parent.contents[index] = _shaded(shape, grad_def)
        return item


def _shaded(shape: Any, grad_def: Any) -> Any:
    """A group of the gradient clipped to ``shape``, then ``shape`` (its stroke)."""
    stops = grad_def.get("stops") or []
    if not stops:
        return shape
    positions = [offset for offset, _ in stops]
    colours = [colour for _, colour in stops]
    extend = grad_def.get("spreadMethod", "pad") == "pad"
    matrix = tuple(grad_def.get("matrix", IDENTITY))
    if grad_def.get("gradientUnits", "objectBoundingBox") == "objectBoundingBox":
        try:
            x0, y0, x1, y1 = shape.getBounds()
        except Exception:   # svglib's shapes on odd input: draw the shape unshaded
            return shape
        matrix = tuple(mmult((x1 - x0, 0, 0, y1 - y0, x0, y0), matrix))
    a, b, c, d = matrix[:4]
    if not abs(a * d - b * c) > 1e-12:
        return shape        # a gradient space of no area paints nothing (SVG: none)
    shade: LinearGradientShape | RadialGradientShape
    if grad_def.get("type") == "linear":
        shade = _LinearShade(shape, grad_def.get("x1", 0.0), grad_def.get("y1", 0.0),
                             grad_def.get("x2", 1.0), grad_def.get("y2", 0.0),
                             colours, positions, extend)
    else:
        shade = _RadialShade(shape, grad_def.get("cx", 0.5), grad_def.get("cy", 0.5),
                             grad_def.get("r", 0.5), colours, positions, extend)
    shade._matrix = matrix
    group = Group()
    group.add(shade)
    group.add(shape)
    return group
