"""``export png``'s images kept between exports: a face is rasterised once per content.

A face's PNG is a function of what the face draws (its ops, resolved from the data, the
layouts and the templates), of the art and fonts it draws with, of the scale and dpi
and of the code that draws, rasterises and encodes it.  ``ImageCache`` keeps each PNG
on disk (the cache folder's ``images/``) under a key of all of those:

* ``world``: eti-print's code and the installed libraries beside it (pypdfium2,
  reportlab, zlib's through Python's version: ``diskcache.code_hash``), the pack's
  ``fonts/`` files by their bytes, the art library's content (``ArtLibrary.content_key``:
  its files' bytes), the PDF's initial font, the scale, the dpi and the image's size in
  pixels;
* ``face_key``: the face's ops, every number exact and every colour by its components,
  as ``marshal`` bytes (format 2: how the parts are shared does not count).  A face
  holding anything else (an object this module does not know) gets no key: it is
  rasterised every time, never looked up.

A face's pixels do not depend on the faces drawn beside it in the same PDF (each of
E.T.I.'s 142 distinct card and piece faces rasterised alone and among the others gave
the same bytes; ``tests/export/test_imagecache.py`` checks one deck), so a face
drawn in another chunk, in another export, gives the same file.  Entries are written
atomically with a checksum (``diskcache.write_blob``): a torn or altered entry is a
miss, never a wrong image.  The images stay within a bound of their own (``MAX_BYTES``,
least recently used first out, once an export is done), apart from the build cache's.
``--no-cache`` (or ``ETI_PRINT_BUILD_CACHE=off``) turns it off.
"""

from __future__ import annotations

import dataclasses
import hashlib
import marshal
import struct
from pathlib import Path
from typing import Any

from reportlab.lib.colors import Color

from ..art.library import ArtLibrary
from ..diskcache import _tree, cache_dir, code_hash, prune, read_used, write_blob
from ..fonts import Family
from ..text import TextStyle

#: The images' bound, apart from the build cache's (``diskcache.MAX_BYTES``), so that an
#: export of a large pack never pushes a build's entries out, nor a build its images.
MAX_BYTES = 512 * 1024 * 1024

#: Bumped whenever what a key covers changes.
FORMAT = "eti-print-images-1"
_PNG = b"\x89PNG\r\n\x1a\n"


class _Unknown(Exception):
    """A value ``face_key`` does not know how to key: the face is not cached."""


#: The parts many faces share, keyed once per object: styles, font families, colours and
#: the art library (a face's own text is keyed each time, so nothing of it is held).
_SHARED = (TextStyle, Family, Color, ArtLibrary)


class FaceKeys:
    """Keys of faces, their shared parts (``_SHARED``) worked out once per object while
    this lives (one export)."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Any, Any]] = {}

    def key(self, face: Any) -> bytes | None:
        """``face`` as exact bytes, or None if it holds anything not known here."""
        try:
            return marshal.dumps(self._plain(face), 2)
        except (_Unknown, ValueError):
            return None

    def _plain(self, value: Any) -> Any:
        kind = type(value)
        if kind in (str, float, int, bool, bytes) or value is None:
            return value
        if kind is tuple:
            return tuple(map(self._plain, value))
        if kind is list:
            return ["L", *map(self._plain, value)]
        seen = self._seen.get(id(value))
        if seen is not None and seen[0] is value:
            return seen[1]
        if isinstance(value, Color):
            # every component, exact, and any other attribute a subclass has (CMYK)
            plain: Any = ("C", kind.__qualname__,
                          tuple(sorted((k, self._plain(v)) for k, v in vars(value).items())))
        elif isinstance(value, ArtLibrary):
            plain = ("A", value.content_key)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            plain = ("D", kind.__module__, kind.__qualname__,
                     tuple(self._plain(getattr(value, f.name))
                           for f in dataclasses.fields(value)))
        else:
            raise _Unknown(kind.__qualname__)
        if isinstance(value, _SHARED):
            self._seen[id(value)] = (value, plain)
        return plain


def world(pack_root: Path, art: Any, font: str, scale: float, dpi: int,
          size: tuple[int, int]) -> bytes:
    """What every image of one deck at one size is drawn with (see the module doc):
    ``font`` is the initial font of the PDF the faces are drawn in."""
    h = hashlib.sha256(f"{FORMAT}\0{code_hash()}\0".encode())
    _tree(h, pack_root, ("fonts",))
    content = getattr(art, "content_key", None)
    h.update(repr((content, font, scale.hex(), dpi, size)).encode())
    return h.digest()


def png_size(data: bytes) -> tuple[int, int] | None:
    """The width and height in a PNG's header, or None if ``data`` is no PNG."""
    if len(data) < 24 or not data.startswith(_PNG) or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


class ImageCache:
    """PNGs by key in the cache folder's ``images/`` (``cache_dir()`` by default)."""

    def __init__(self, folder: Path | None = None, max_bytes: int = MAX_BYTES) -> None:
        self.folder = Path(folder) if folder is not None else cache_dir()
        self.max_bytes = max_bytes
        self.hits = self.made = 0

    def _path(self, key: str) -> Path:
        return self.folder / "images" / key[:2] / key

    @staticmethod
    def key(world_key: bytes, face_key: bytes) -> str:
        return hashlib.sha256(world_key + face_key).hexdigest()

    def has(self, key: str) -> bool:
        """Is an image kept under ``key``?  (``get`` still checks it whole.)"""
        return self._path(key).is_file()

    def get(self, key: str, size: tuple[int, int]) -> bytes | None:
        """The PNG kept under ``key`` if it is whole and ``size`` px, else None."""
        data = read_used(self._path(key), loads=bytes)
        if data is None or png_size(data) != size:
            return None
        self.hits += 1
        return data

    def put(self, key: str, data: bytes) -> None:
        """Keep a new image, counted in ``made``."""
        self.made += 1
        self.keep(key, data)

    def keep(self, key: str, data: bytes) -> None:
        """Keep an image, uncounted (a worker's: the exporting process counts it)."""
        write_blob(self._path(key), data, dumps=bytes)

    def prune(self) -> None:
        """Keep the images within their bound (least recently used first out)."""
        prune([self.folder / "images"], self.max_bytes)
