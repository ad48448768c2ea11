"""Art: SVG, PNG and JPEG files from a pack, treated as untrusted input.

Packs are shared, so an art file may be hostile.  Every file is

1. resolved through :func:`eti_print.pack.confine` (no absolute paths, no
   ``..``, no symlink out of the pack);
2. opened without following a final symlink, refused unless it is a regular
   file, and read with a size cap (:mod:`.files`);
3. if it is SVG (:mod:`.svg`), parsed by lxml with entities, DTDs and the
   network off, then vetted: no DOCTYPE or entities, bounded depth, element
   count and ``<use>`` expansion, root ``<svg>`` in the SVG namespace, an
   allow-list of elements, ``href`` only to ``#id`` fragments or embedded
   PNG/JPEG data, CSS ``url()`` only to ``#id``, no ``@import``, no event
   handlers, gradients only as svglib can draw them, and text only in the
   pack's own fonts; then handed, already parsed, to svglib, which never
   touches the file system: it gets no source path and a font map that knows
   only the pack's fonts;
4. if it is PNG or JPEG (:mod:`.images`), and for images embedded in SVG,
   decoded by Pillow with a pixel cap and decompression-bomb checks.

Any problem is an :class:`~eti_print.errors.InputError` naming the file
(pack-relative), the line and what is wrong.

Icons are single-colour (black) SVG drawings; :meth:`ArtLibrary.tinted`
recolours them for white-on-colour bands.  Raster art is never recoloured.
"""

# first: reportlab's graphics (renderPDF, svglib) import platypus for its Flowable
# alone, and its package runs whole only where a process asks for more
from .. import lazy_platypus  # noqa: F401, I001
from .files import MAX_BYTES, read_capped
from .images import MAX_PIXELS, RasterArt, load_raster
from .library import EXTENSIONS, ArtLibrary
from .svg import (
    MAX_DEPTH,
    MAX_ELEMENTS,
    MAX_EXPANDED,
    MAX_USE_NESTING,
    _FontRefused,
    _PackFontMap,
    _render,
    art_fonts,
    load_svg,
)

__all__ = [
    "EXTENSIONS", "MAX_BYTES", "MAX_DEPTH", "MAX_ELEMENTS", "MAX_EXPANDED", "MAX_PIXELS",
    "MAX_USE_NESTING", "ArtLibrary", "RasterArt", "_FontRefused", "_PackFontMap", "_render",
    "art_fonts", "load_raster", "load_svg", "read_capped",
]
