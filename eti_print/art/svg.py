"""Art: SVG files from a pack, treated as untrusted input.

Packs are shared, so an art file may be hostile.  Every file is

1. resolved through :func:`eti_print.pack.confine` (no absolute paths, no
   ``..``, no symlink out of the pack);
2. opened without following a final symlink, refused unless it is a regular
   file, and read with a size cap;
3. parsed by lxml with entities, DTDs and the network off, then vetted:
   no DOCTYPE or entities, bounded depth, element count and ``<use>``
   expansion, root ``<svg>`` in the SVG namespace, an allow-list of elements,
   ``href`` only to ``#id`` fragments or embedded PNG/JPEG data (decoded and
   size-checked with Pillow), CSS ``url()`` only to ``#id``, no ``@import``,
   no event handlers, and text only in the pack's own fonts;
4. handed, already parsed, to svglib, which never touches the file system:
   it gets no source path and a font map that knows only the pack's fonts.

Any problem is an :class:`~eti_print.errors.InputError` naming the file
(pack-relative), the line and what is wrong.

Icons are single-colour (black) drawings; :meth:`ArtLibrary.tinted` recolours
them for white-on-colour bands.
"""

from __future__ import annotations

import base64
import binascii
import copy
import difflib
import io
import logging
import math
import os
import re
import stat
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

from lxml import etree
from PIL import Image as PILImage
from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Drawing, Group
from reportlab.graphics.shapes import Image as RLImage
from reportlab.lib import colors
from svglib.fonts import FontMap
from svglib.svglib import SvgRenderer

from .errors import InputError, fail
from .pack import confine

#: Largest art file read, in bytes.
MAX_BYTES = 2 * 1024 * 1024
#: Deepest element nesting accepted (the root ``<svg>`` is depth 1).
MAX_DEPTH = 64
#: Most elements in one file.
MAX_ELEMENTS = 20_000
#: Most elements drawn once every ``<use>`` is expanded.
MAX_EXPANDED = 100_000
#: Longest chain of ``<use>`` pointing at content holding another ``<use>``.
MAX_USE_NESTING = 8
#: Largest embedded raster image, in pixels.
MAX_PIXELS = 4096 * 4096

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


class _PackFontMap(FontMap):
    """An svglib font map that knows only the pack's fonts.

    svglib's own map falls back to guessing TTF file names and running
    ``fc-match`` for unknown families; this one refuses instead, so no system
    font is ever looked up.  A family name is a registered reportlab font name
    and names one face, so weight and style do not change it.
    """

    def __init__(self, allowed: frozenset[str]):
        # No register_default_fonts(): not even the PDF base fonts.
        self._map = {}
        self._family_index = {}
        self._allowed = allowed

    def find_font(self, font_name: str, weight: str = "normal",
                  style: str = "normal") -> tuple[str, bool]:
        if font_name in self._allowed:
            return font_name, True
        raise _FontRefused(font_name)

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


def read_capped(path: Path, shown: str, cap: int = MAX_BYTES) -> bytes:
    """Read a regular file of at most ``cap`` bytes, refusing anything else.

    The final path component is opened without following symlinks and
    without blocking (a FIFO neither hangs nor is read); devices, FIFOs and
    folders are refused by ``fstat`` on the open descriptor.
    """
    flags = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise fail(f"cannot open art file: {exc.strerror or exc}", path=shown) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise fail("is not a regular file", path=shown,
                       hint="art must be a plain .svg file inside the pack")
        if info.st_size > cap:
            raise fail(f"is {info.st_size} bytes; art files are limited to {cap} bytes",
                       path=shown)
        chunks: list[bytes] = []
        remaining = cap + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > cap:
        raise fail(f"is larger than {cap} bytes (the art file limit)", path=shown)
    return data


class _Vetter:
    """Checks one parsed SVG tree; raises on the first problem found."""

    def __init__(self, shown: str, fonts: frozenset[str]):
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
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", PILImage.DecompressionBombWarning)
                with PILImage.open(io.BytesIO(raw), formats=[want]) as img:
                    width, height = img.size
                    if width <= 0 or height <= 0 or width * height > MAX_PIXELS:
                        raise self.error(
                            f"{tag} embedded {want} is {width}x{height} pixels; "
                            f"the limit is {MAX_PIXELS} pixels", el)
                    img.load()
        except InputError:
            raise
        except (OSError, SyntaxError, ValueError, PILImage.DecompressionBombError,
                PILImage.DecompressionBombWarning, EOFError) as exc:
            raise self.error(f"{tag} embedded {want} image is corrupt ({exc})", el) from None
        except Exception as exc:  # Pillow raises many kinds on hostile data
            raise self.error(f"{tag} embedded {want} image cannot be read "
                             f"({type(exc).__name__})", el) from None
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
        if not self.fonts:
            return "no fonts are available to art; draw text as paths"
        return "allowed: " + ", ".join(sorted(self.fonts))

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


def _render(root: etree._Element, shown: str, fonts: frozenset[str]) -> Drawing:
    """Turn a vetted tree into a Drawing with svglib, touching no file."""
    # No source path: svglib then refuses every file reference by itself too.
    renderer = SvgRenderer(None, font_map=_PackFontMap(fonts))  # type: ignore[arg-type]
    with _svglib_errors() as logged:
        try:
            drawing = renderer.render(root)
        except _FontRefused as exc:
            raise fail(f"font-family {exc.family!r} is not one of the pack's fonts",
                       path=shown) from None
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


def load_svg(data: bytes, shown: str, fonts: frozenset[str] = frozenset()) -> Drawing:
    """Vet SVG bytes and draw them; ``shown`` names the file in messages."""
    vetter = _Vetter(shown, fonts)
    root = vetter.parse(data)
    vetter.check(root)
    return _render(root, shown, fonts)


def _walk(node: Any) -> Iterator[Any]:
    stack = [node]
    while stack:
        item = stack.pop()
        yield item
        contents = getattr(item, "contents", None)
        if contents:
            stack.extend(reversed(contents))


def _recolour(drawing: Drawing, colour: colors.Color) -> None:
    for shape in _walk(drawing):
        if isinstance(shape, (Drawing, Group)):
            continue
        for attr in ("fillColor", "strokeColor"):
            if getattr(shape, attr, None) is not None:
                setattr(shape, attr, colour)


def _colour_key(colour: colors.Color) -> tuple:
    return (type(colour).__name__, repr(colour))


class ArtLibrary:
    """The art of one pack: SVG files under ``art_dir``, loaded once each.

    ``fonts`` names the reportlab fonts (registered from the pack) that
    ``<text>`` in art may use; any other font-family is an error.
    """

    def __init__(self, pack_root: Path, art_dir: str = "templates/art",
                 fonts: set[str] | frozenset[str] | None = None):
        self.root = Path(pack_root).resolve()
        self.art_dir = PurePosixPath(art_dir).as_posix()
        self.fonts = frozenset(fonts or ())
        self._cache: dict[str, Drawing] = {}
        self._tinted: dict[tuple, Drawing] = {}

    def _dir(self) -> Path | None:
        if not (self.root / self.art_dir).exists():
            return None
        return confine(self.root, self.art_dir, "", field="art_dir")

    def ids(self) -> list[str]:
        """Every art id available: the ``<id>.svg`` files in the art folder."""
        folder = self._dir()
        if folder is None or not folder.is_dir():
            return []
        found = []
        with os.scandir(folder) as entries:
            for entry in entries:
                stem, dot, ext = entry.name.rpartition(".")
                if dot and ext == "svg" and _ID_RE.match(stem):
                    found.append(stem)
        return sorted(found)

    def path_of(self, art_id: str) -> str:
        """The pack-relative path of an art id's file, as shown in messages."""
        return f"{self.art_dir}/{art_id}.svg"

    def get(self, art_id: str, where: str | None = None, line: int | None = None,
            field: str | None = None) -> Drawing:
        """The drawing of ``art_id`` (cached: the same object every time).

        ``where``/``line``/``field`` locate the reference for the "unknown art
        id" error.  Do not modify the returned drawing; use :meth:`tinted`.
        """
        cached = self._cache.get(art_id)
        if cached is not None:
            return cached
        if not isinstance(art_id, str) or not _ID_RE.match(art_id):
            raise fail(f"art id {art_id!r} is not a valid id", path=where, line=line,
                       field=field, hint="art ids are lowercase slugs such as field-physics")
        known = self.ids()
        if art_id not in known:
            close = difflib.get_close_matches(art_id, known, n=3, cutoff=0.6)
            hint = ("did you mean " + ", ".join(close) + "?") if close else (
                f"art ids are the .svg files in {self.art_dir}/")
            raise fail(f"unknown art id {art_id!r} (no {self.path_of(art_id)})", path=where,
                       line=line, field=field, hint=hint)
        shown = self.path_of(art_id)
        path = confine(self.root, shown, "", where=where or shown, line=line, field=field)
        drawing = load_svg(read_capped(path, shown), shown, self.fonts)
        self._cache[art_id] = drawing
        return drawing

    def tinted(self, art_id: str, color: colors.Color | str) -> Drawing:
        """A copy of ``art_id`` with every fill and stroke in ``color`` (cached)."""
        colour = colors.HexColor(color) if isinstance(color, str) else color
        key = (art_id, _colour_key(colour))
        cached = self._tinted.get(key)
        if cached is not None:
            return cached
        drawing = copy.deepcopy(self.get(art_id))
        _recolour(drawing, colour)
        self._tinted[key] = drawing
        return drawing

    def draw(self, canvas: Any, art_id: str, x: float, y: float, width: float,
             height: float, color: colors.Color | str | None = None
             ) -> tuple[float, float, float, float]:
        """Draw ``art_id`` scaled to fit the box, aspect kept, centred.

        ``color`` recolours a single-colour icon.  Returns the box actually
        covered, ``(x, y, width, height)`` in points.
        """
        if not (width > 0 and height > 0):
            raise ValueError(f"art box must have a positive size (got {width}x{height})")
        drawing = self.get(art_id) if color is None else self.tinted(art_id, color)
        scale = min(width / drawing.width, height / drawing.height)
        w, h = drawing.width * scale, drawing.height * scale
        x0, y0 = x + (width - w) / 2, y + (height - h) / 2
        canvas.saveState()
        canvas.translate(x0, y0)
        canvas.scale(scale, scale)
        # renderPDF starts every drawing by selecting its default font
        # (Helvetica, never embedded); start from the canvas's own font instead.
        drawing.initialFontName = canvas._fontname
        drawing.initialFontSize = canvas._fontsize
        renderPDF.draw(drawing, canvas, 0, 0)
        canvas.restoreState()
        return (x0, y0, w, h)
