"""SVG art: parsed with lxml, vetted, then drawn by svglib.

See :mod:`eti_print.art` for the rules.  ``load_svg`` is the one entry point.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import math
import re
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from lxml import etree
from PIL import Image as PILImage
from reportlab.graphics.shapes import Drawing
from reportlab.graphics.shapes import Image as RLImage
from reportlab.pdfbase import pdfmetrics
from svglib.fonts import FontMap

from .. import limits
from ..errors import InputError, fail
from .gradients import Renderer, check_paints
from .images import open_image

#: Deepest element nesting accepted (the root ``<svg>`` is depth 1).
MAX_DEPTH = 64
#: Most elements in one file.
MAX_ELEMENTS = 20_000
#: Most elements drawn once every ``<use>`` is expanded.
MAX_EXPANDED = limits.budget("art_elements")
#: Pixels of all the images embedded in one SVG together.
MAX_PIXELS = limits.budget("art_pixels")
#: Largest coordinate or size in an SVG, and the smallest viewBox side.
MAX_COORDINATE = 1e7
MIN_VIEW = 1e-3
#: The attributes holding geometry, vetted as numbers.
GEOMETRY = {"x", "y", "width", "height", "cx", "cy", "r", "rx", "ry", "x1", "y1", "x2", "y2",
            "points", "d", "viewbox", "transform", "stroke-width", "font-size", "dx", "dy",
            "offset", "fx", "fy", "gradienttransform", "patterntransform", "stroke-dasharray",
            "stroke-dashoffset"}
_NON_FINITE_RE = re.compile(r"(?i)\b(nan|inf|infinity)\b")
_SVG_NUMBER_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
#: Longest chain of ``<use>`` pointing at content holding another ``<use>``.
MAX_USE_NESTING = 8

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
#: Editor namespaces whose elements svglib ignores (Inkscape files carry them).
EDITOR_NS = frozenset({
    "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
    "http://www.inkscape.org/namespaces/inkscape",
})

#: SVG elements svglib draws or uses.  svglib matches element names WITHOUT
#: their namespace, so a foreign element with one of these names is refused too.
DRAWN = frozenset({
    "svg", "g", "defs", "symbol", "use", "a", "switch", "style", "clipPath",
    "linearGradient", "radialGradient", "stop", "path", "rect", "circle",
    "ellipse", "line", "polyline", "polygon", "text", "tspan", "image",
})
#: SVG elements accepted and not drawn.
INERT = frozenset({"title", "desc", "metadata"})
TEXT_ELEMENTS = frozenset({"text", "tspan"})

_ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_FRAGMENT_RE = re.compile(r"#[A-Za-z_][A-Za-z0-9_.:-]*\Z")
_DATA_RE = re.compile(r"data:image/(png|jpeg|jpg);base64,([A-Za-z0-9+/=\s]*)\Z")
_URL_RE = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)""", re.IGNORECASE | re.DOTALL)
_FONT_DECL_RE = re.compile(r"font-family\s*:\s*([^;}]*)", re.IGNORECASE)
_DOCTYPE_RE = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)

_HREF_HINT = "only #id and embedded PNG/JPEG data"


class _FontRefused(Exception):
    """svglib asked for a font the pack does not allow."""

    def __init__(self, family: str):
        super().__init__(family)
        self.family = family


#: The fonts SVG text may use: each font-family name with the reportlab font
#: of its faces (regular, bold, italic, bold italic).
ArtFonts = Mapping[str, tuple[str, str, str, str]]


def _family_name(font_name: str) -> str | None:
    """The family name a TrueType font gives itself ("Open Sans"), if registered."""
    from reportlab.pdfbase import pdfmetrics
    try:
        name = pdfmetrics.getFont(font_name).face.familyName
    except (KeyError, AttributeError):
        return None
    if isinstance(name, bytes):
        name = name.decode("latin-1")
    name = str(name).strip()
    return name or None


def art_fonts(fonts: Any) -> dict[str, tuple[str, str, str, str]]:
    """The font-family names art may use, from a pack's ``FontSet`` (each role by its
    role name and by its font's own family name, as Inkscape writes it), a mapping
    already in that form, or a collection of registered reportlab font names."""
    if not fonts:
        return {}
    families = getattr(fonts, "families", None)
    if families is None:
        if isinstance(fonts, Mapping):
            return dict(fonts)
        return {name: (name, name, name, name) for name in fonts}
    found: dict[str, tuple[str, str, str, str]] = {}
    for role in sorted(families):
        fam = families[role]
        faces = (fam.regular, fam.bold, fam.italic, fam.bold_italic)
        found.setdefault(role, faces)
        family = _family_name(fam.regular)
        if family:
            found.setdefault(family, faces)
    return found


def fonts_hint(fonts: ArtFonts) -> str:
    """What SVG text may do, for a message: the pack's families, else paths."""
    paths = "convert the text to paths (Inkscape: Path > Object to Path)"
    if not fonts:
        return f"this pack has no fonts that art text may use: {paths}"
    shown = ", ".join(repr(name) if " " in name else name for name in sorted(fonts))
    return (f"SVG text may use the pack's fonts: font-family {shown} (font-weight and "
            f"font-style pick bold and italic); otherwise {paths}")


def _bold(weight: str) -> bool:
    weight = str(weight).strip().lower()
    if weight in ("bold", "bolder"):
        return True
    try:
        return float(weight) >= 600
    except ValueError:
        return False


class _PackFontMap(FontMap):
    """An svglib font map that knows only the pack's fonts.

    svglib's own map falls back to guessing TTF file names and running
    ``fc-match`` for unknown families; this one refuses instead, so no system
    font is ever looked up.  font-weight and font-style pick the family's face.
    """

    def __init__(self, allowed: Any):
        # No register_default_fonts(): not even the PDF base fonts.
        self._map = {}
        self._family_index = {}
        self._allowed = art_fonts(allowed)

    def find_font(self, font_name: str, weight: str = "normal",
                  style: str = "normal") -> tuple[str, bool]:
        faces = self._allowed.get(font_name)
        if faces is None:
            raise _FontRefused(font_name)
        italic = str(style).strip().lower() in ("italic", "oblique")
        return faces[int(_bold(weight)) + 2 * int(italic)], True

    def register_font(self, *args: Any, **kwargs: Any) -> tuple[None, bool]:
        raise _FontRefused(str(args[0]) if args else "?")

    def use_fontconfig(self, font_name: str, *args: Any, **kwargs: Any) -> tuple[None, bool]:
        raise _FontRefused(font_name)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.messages.append(record.getMessage())
        except Exception:  # a malformed log call must not hide the failure
            self.messages.append(str(record.msg))


@contextmanager
def _svglib_errors() -> Iterator[_Collect]:
    """Collect what svglib logs at ERROR level (it logs rather than raises)."""
    handler = _Collect()
    logger = logging.getLogger("svglib.svglib")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def _local(name: Any) -> str:
    return etree.QName(name).localname if isinstance(name, str) else ""


def _namespace(name: Any) -> str | None:
    return etree.QName(name).namespace if isinstance(name, str) else None


def _shown_tag(el: etree._Element) -> str:
    return f"<{_local(el.tag)}>"


def _style_decls(style: str) -> dict[str, str]:
    decls: dict[str, str] = {}
    for part in style.split(";"):
        key, sep, value = part.partition(":")
        if sep:
            decls[key.strip().lower()] = value.strip()
    return decls


def _families(value: str) -> list[str]:
    names = []
    for part in value.split(","):
        name = part.strip().strip("'\"").strip()
        if name:
            names.append(name)
    return names



class _Vetter:
    """Checks one parsed SVG tree; raises on the first problem found."""

    def __init__(self, shown: str, fonts: ArtFonts):
        self.shown = shown
        self.fonts = fonts

    def error(self, message: str, el: Any = None, line: int | None = None,
              hint: str | None = None) -> InputError:
        if line is None and el is not None:
            line = el.sourceline
        return fail(message, path=self.shown, line=line, hint=hint)

    # -- whole document -----------------------------------------------------

    def parse(self, data: bytes) -> etree._Element:
        match = _DOCTYPE_RE.search(data)
        if match:
            line = data.count(b"\n", 0, match.start()) + 1
            raise self.error("DOCTYPE and entity declarations are not allowed", line=line,
                             hint="remove the <!DOCTYPE ...> block")
        parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False,
                                 dtd_validation=False, huge_tree=False,
                                 remove_comments=True, remove_pis=False)
        try:
            root = etree.fromstring(data, parser=parser)
        except etree.XMLSyntaxError as exc:
            raise self.error(f"not well-formed XML: {exc.msg}",
                             line=getattr(exc, "lineno", None)) from None
        except ValueError as exc:
            raise self.error(f"cannot parse: {exc}") from None
        tree = root.getroottree()
        info = tree.docinfo
        if info.doctype or info.internalDTD is not None or info.externalDTD is not None:
            raise self.error("DOCTYPE and entity declarations are not allowed", line=1)
        if _local(root.tag) != "svg" or _namespace(root.tag) != SVG_NS:
            raise self.error(f"the root element must be <svg> in the SVG namespace "
                             f"(found {root.tag!r})", root,
                             hint=f'add xmlns="{SVG_NS}" to the root element')
        return root

    def check(self, root: etree._Element) -> None:
        self.pixels = 0
        self.check_size(root)
        ids: dict[str, etree._Element] = {}
        for el in root.iter():
            if not isinstance(el.tag, str):
                if isinstance(el, etree._Entity):
                    raise self.error("entity references are not allowed", el)
                if isinstance(el, etree._ProcessingInstruction):
                    raise self.error("processing instructions are not allowed", el)
                continue
            self.check_element(el)
            el_id = el.get("id")
            if el_id is not None:
                ids.setdefault(el_id, el)
        self.check_use(root, ids)
        check_paints(root, ids, self.error)

    def check_size(self, root: etree._Element) -> None:
        count = 0
        stack = [(root, 1)]
        while stack:
            el, depth = stack.pop()
            count += 1
            if count > MAX_ELEMENTS:
                raise self.error(f"has more than {MAX_ELEMENTS} elements", el)
            if depth > MAX_DEPTH:
                raise self.error(f"elements are nested more than {MAX_DEPTH} deep", el)
            stack.extend((child, depth + 1) for child in el)

    # -- one element ----------------------------------------------------------

    def check_element(self, el: etree._Element) -> None:
        name, ns = _local(el.tag), _namespace(el.tag)
        if ns != SVG_NS:
            # RDF inside <metadata> and editor data are never drawn; anything else
            # foreign could be, since svglib matches element names without namespace.
            editor = ns in EDITOR_NS and name not in DRAWN and name not in INERT
            if not (editor or self.in_metadata(el)):
                raise self.error(f"element {el.tag!r} is not SVG and is not allowed", el,
                                 hint="svglib ignores namespaces, so it could draw it")
        elif name in ("script", "foreignObject", "iframe", "handler"):
            raise self.error(f"<{name}> is not allowed", el)
        elif name not in DRAWN and name not in INERT:
            raise self.error(f"<{name}> is not supported", el,
                             hint="art may use shapes, paths, groups, <use>, <clipPath>, "
                                  "gradients, <image> and <text>")
        # Every element is vetted, even inside <metadata>: svglib collects <defs>
        # from the whole tree.
        for attr, value in el.attrib.items():
            self.check_attribute(el, attr, value)
        if ns == SVG_NS and name == "style":
            self.check_stylesheet(el)
        if ns == SVG_NS and name in TEXT_ELEMENTS:
            self.check_text_font(el)

    def in_metadata(self, el: etree._Element) -> bool:
        for anc in el.iterancestors():
            if _local(anc.tag) == "metadata" and _namespace(anc.tag) == SVG_NS:
                return True
        return False

    def check_attribute(self, el: etree._Element, attr: str, value: str) -> None:
        name = _local(attr)
        lowered = name.lower()
        if lowered in GEOMETRY:
            self.check_numbers(el, name, value)
        if lowered == "href":
            self.check_href(el, attr, value)
        elif lowered.startswith("on"):
            raise self.error(f"{_shown_tag(el)} event handler {name!r} is not allowed", el)
        if "url(" in value.lower():
            self.check_urls(el, f"attribute {name!r}", value)
        if lowered == "style":
            if "\\" in value:
                raise self.error(f"{_shown_tag(el)} style must not use CSS escapes", el)
            if "href" in value.lower():
                # svglib copies style declarations into attributes, href included
                raise self.error(f"{_shown_tag(el)} style must not set href", el)
            family = _style_decls(value).get("font-family")
            if family is not None:
                self.check_families(el, family)
        elif lowered == "font-family":
            self.check_families(el, value)

    def check_numbers(self, el: etree._Element, name: str, value: str) -> None:
        """Geometry is finite and of a drawable size: no nan or inf, no number past
        ``MAX_COORDINATE``, a viewBox between ``MIN_VIEW`` and ``MAX_COORDINATE`` wide."""
        if _NON_FINITE_RE.search(value):
            raise self.error(f"{_shown_tag(el)} {name} {value[:40]!r} is not a finite number",
                             el)
        numbers = []
        for m in _SVG_NUMBER_RE.finditer(value):
            try:
                numbers.append(float(m.group()))
            except ValueError:
                continue
            if not math.isfinite(numbers[-1]) or abs(numbers[-1]) > MAX_COORDINATE:
                raise self.error(f"{_shown_tag(el)} {name} has the number {m.group()[:20]}, "
                                 f"past the limit of {MAX_COORDINATE:g}", el)
        if name == "viewBox" and len(numbers) == 4 and not (
                MIN_VIEW <= numbers[2] and MIN_VIEW <= numbers[3]):
            raise self.error(f"{_shown_tag(el)} viewBox {value[:40]!r} is too small to draw "
                             f"(width and height at least {MIN_VIEW:g})", el)

    def check_href(self, el: etree._Element, attr: str, value: str) -> None:
        tag = _shown_tag(el)
        shown_attr = "xlink:href" if _namespace(attr) == XLINK_NS else _local(attr)
        value = value.strip()
        if _FRAGMENT_RE.match(value):
            return
        data = _DATA_RE.match(value)
        if data and _local(el.tag) == "image":
            el.set(attr, self.check_image_data(el, shown_attr, data.group(1), data.group(2)))
            return
        shown_value = value if len(value) <= 60 else value[:57] + "..."
        raise self.error(f"{tag} {shown_attr} {shown_value!r} is not allowed ({_HREF_HINT})",
                         el, hint="embed images as data:image/png;base64,... URIs"
                         if _local(el.tag) == "image" else None)

    def check_image_data(self, el: etree._Element, attr: str, kind: str, payload: str) -> str:
        """Decode and vet an embedded image; return the canonical data URI."""
        tag = _shown_tag(el)
        compact = re.sub(r"\s+", "", payload)
        try:
            raw = base64.b64decode(compact, validate=True)
        except (binascii.Error, ValueError):
            raise self.error(f"{tag} {attr} has invalid base64 data", el) from None
        want = "PNG" if kind == "png" else "JPEG"
        img = open_image(raw, want, self.shown, el.sourceline, what=f"{tag} embedded {want}",
                         room=MAX_PIXELS - self.pixels)
        self.pixels += img.size[0] * img.size[1]
        mime = "png" if kind == "png" else "jpeg"
        return f"data:image/{mime};base64,{base64.b64encode(raw).decode('ascii')}"

    def check_urls(self, el: etree._Element, what: str, value: str) -> None:
        low = value.lower()
        found = list(_URL_RE.finditer(value))
        if low.count("url(") != len(found):
            raise self.error(f"{_shown_tag(el)} {what} has a malformed url()", el)
        for match in found:
            target = match.group(2).strip()
            if not _FRAGMENT_RE.match(target):
                raise self.error(f"{_shown_tag(el)} {what} url({target!r}) is not allowed "
                                 "(only url(#id))", el)

    def check_stylesheet(self, el: etree._Element) -> None:
        css = "".join(el.itertext())
        if "\\" in css:
            raise self.error("<style> must not use CSS escapes", el)
        if "@import" in css.lower():
            raise self.error("<style> @import is not allowed", el)
        if "href" in css.lower():
            raise self.error("<style> must not set href", el)
        if "url(" in css.lower():
            self.check_urls(el, "stylesheet", css)
        for match in _FONT_DECL_RE.finditer(css):
            self.check_families(el, match.group(1))

    def check_families(self, el: etree._Element, value: str) -> None:
        names = _families(value.replace("!important", ""))
        if not names:
            raise self.error(f"{_shown_tag(el)} has an empty font-family", el)
        for name in names:
            if name not in self.fonts:
                raise self.error(f"{_shown_tag(el)} font-family {name!r} is not one of the "
                                 "pack's fonts", el, hint=self.font_hint())

    def font_hint(self) -> str:
        return fonts_hint(self.fonts)

    def check_text_font(self, el: etree._Element) -> None:
        for node in [el, *el.iterancestors()]:
            if node.get("font-family") is not None:
                return
            if "font-family" in _style_decls(node.get("style") or ""):
                return
        raise self.error(f"{_shown_tag(el)} has no font-family; it must name one of the "
                         "pack's fonts", el, hint=self.font_hint())

    # -- <use> expansion ------------------------------------------------------

    def check_use(self, root: etree._Element, ids: dict[str, etree._Element]) -> None:
        cost: dict[etree._Element, int] = {}
        active: set[etree._Element] = set()

        def target_of(el: etree._Element) -> etree._Element | None:
            for attr, value in el.attrib.items():
                if _local(attr) == "href" and value.strip().startswith("#"):
                    return ids.get(value.strip()[1:])
            return None

        def measure(el: etree._Element, hops: int) -> int:
            if el in cost:
                return cost[el]
            if el in active:
                raise self.error(f"{_shown_tag(el)} is part of a <use> reference cycle", el)
            active.add(el)
            total = 1
            for child in el:
                if isinstance(child.tag, str):
                    total += measure(child, hops)
            if _local(el.tag) == "use":
                target = target_of(el)
                if target is not None:
                    if hops >= MAX_USE_NESTING:
                        raise self.error(f"<use> is nested more than {MAX_USE_NESTING} deep", el)
                    total += measure(target, hops + 1)
            active.discard(el)
            if total > MAX_EXPANDED:
                raise self.error(f"{_shown_tag(el)} draws more than {MAX_EXPANDED} elements "
                                 "once <use> is expanded", el)
            cost[el] = total
            return total

        measure(root, 0)


def _render(root: etree._Element, shown: str, fonts: ArtFonts) -> Drawing:
    """Turn a vetted tree into a Drawing with svglib, touching no file."""
    # No source path: svglib then refuses every file reference by itself too.
    renderer = Renderer(None, font_map=_PackFontMap(fonts))  # type: ignore[arg-type]
    with _svglib_errors() as logged:
        try:
            drawing = renderer.render(root)
        except _FontRefused as exc:
            raise fail(f"font-family {exc.family!r} is not one of the pack's fonts",
                       path=shown, hint=fonts_hint(fonts)) from None
        except InputError:
            raise
        except Exception as exc:  # svglib on untrusted input: any failure is the file's
            raise fail(f"svglib cannot draw this file ({type(exc).__name__}: {exc})",
                       path=shown) from None
    if logged.messages:
        raise fail(f"svglib cannot draw this file: {logged.messages[0]}", path=shown)
    if drawing is None:
        raise fail("svglib cannot draw this file", path=shown)
    for size in (drawing.width, drawing.height):
        if not (isinstance(size, (int, float)) and math.isfinite(size) and size > 0):
            raise fail("has no usable size", path=shown,
                       hint='give the root <svg> a viewBox such as "0 0 100 100"')
    for shape in _walk(drawing):
        if isinstance(shape, RLImage) and not isinstance(shape.path, PILImage.Image):
            raise fail("refers to an image file; only embedded images are allowed", path=shown)
    return drawing


#: The drawings of the SVG files loaded in this process, by their bytes, name and fonts
#: (the registered font objects too: svglib measures text as it converts), newest
#: last: a later build of the same art (a test session, ``watch`` after an edit that
#: loads the pack again, ``serve``) takes the drawing instead of vetting and
#: converting the file again.  Only a file that loaded is kept; drawings are never
#: modified once loaded (``ArtLibrary.tinted`` recolours a copy).
_LOADED: OrderedDict[tuple, Drawing] = OrderedDict()
_KEEP = 256


def load_svg(data: bytes, shown: str, fonts: Any = None) -> Drawing:
    """Vet SVG bytes and draw them; ``shown`` names the file in messages.

    ``fonts`` is what :func:`art_fonts` takes: the fonts ``<text>`` may use.
    """
    fonts = art_fonts(fonts)
    key = (hashlib.sha256(data).digest(), shown,
           tuple((family, faces, tuple(pdfmetrics._fonts.get(face) for face in faces))
                 for family, faces in sorted(fonts.items())))
    drawing = _LOADED.get(key)
    if drawing is not None:
        _LOADED.move_to_end(key)
        return drawing
    vetter = _Vetter(shown, fonts)
    root = vetter.parse(data)
    vetter.check(root)
    drawing = _LOADED[key] = _render(root, shown, fonts)
    if len(_LOADED) > _KEEP:
        _LOADED.popitem(last=False)
    return drawing


def _walk(node: Any) -> Iterator[Any]:
    stack = [node]
    while stack:
        item = stack.pop()
        yield item
        contents = getattr(item, "contents", None)
        if contents:
            stack.extend(reversed(contents))
