"""Raster images: PNG and JPEG art files, and the images embedded in SVG art.

Both are decoded by Pillow under the same caps: at most :data:`MAX_PIXELS`
pixels (checked from the header before any pixel is decoded), Pillow's
decompression-bomb warning treated as an error, and any decoding failure an
:class:`~eti_print.errors.InputError` naming the file.  Art files are also
limited to :data:`~eti_print.art.files.MAX_BYTES` on disk.
"""

from __future__ import annotations

import io
import math
import warnings
from typing import Any

from PIL import Image as PILImage
from PIL import ImageOps
from reportlab.lib.utils import ImageReader

from .. import limits
from ..errors import InputError, fail

#: Largest raster image, in pixels (an art file or one embedded in SVG).
MAX_PIXELS = 4096 * 4096

#: Art file extensions read as raster images, with Pillow's format name.
RASTER_FORMATS = {"png": "PNG", "jpg": "JPEG", "jpeg": "JPEG"}


def open_image(raw: bytes, want: str, shown: str, line: int | None = None,
               what: str = "image", room: int | None = None) -> PILImage.Image:
    """Decode ``raw`` as a ``want`` ("PNG"/"JPEG") image within the caps, fully loaded.

    ``what`` names the image in messages ("PNG art", "<image> embedded PNG");
    ``room`` is how many pixels the art file may still hold (the ``art_pixels``
    budget of all its images together), checked from the header too.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", PILImage.DecompressionBombWarning)
            img = PILImage.open(io.BytesIO(raw), formats=[want])
            width, height = img.size
            if width <= 0 or height <= 0 or width * height > MAX_PIXELS:
                raise fail(f"{what} is {width}x{height} pixels; the limit is "
                           f"{MAX_PIXELS} pixels", path=shown, line=line,
                           hint="scale it down (300 pixels per inch at its printed size "
                                "is plenty)")
            if room is not None and width * height > room:
                raise fail(f"{what} is {width}x{height} pixels: the file's images together "
                           f"pass the limit of {limits.budget('art_pixels')} pixels",
                           path=shown, line=line, hint="use fewer or smaller images")
            img.load()
            return img
    except InputError:
        raise
    except PILImage.UnidentifiedImageError:
        raise fail(f"{what} image is corrupt (not {want} data)", path=shown, line=line,
                   hint=f"save it again as {want}") from None
    except (OSError, SyntaxError, ValueError, PILImage.DecompressionBombError,
            PILImage.DecompressionBombWarning, EOFError) as exc:
        raise fail(f"{what} image is corrupt ({exc})", path=shown, line=line) from None
    except Exception as exc:  # Pillow raises many kinds on hostile data
        raise fail(f"{what} image cannot be read ({type(exc).__name__})", path=shown,
                   line=line) from None


class RasterArt:
    """A PNG or JPEG art file, decoded and checked, drawn as a PDF image.

    ``width``/``height`` are its natural size in points (pixels at the file's
    resolution, 72 per inch if it gives none); like an SVG drawing it is
    scaled to fit an art box, aspect kept.  Raster art is never recoloured.
    """

    #: What callers that must not import art check (``getattr(art, "raster", False)``).
    raster = True

    def __init__(self, shown: str, kind: str, image: PILImage.Image, data: bytes | None):
        self.shown = shown
        self.kind = kind
        self.pixels = image.size
        dpi = image.info.get("dpi")
        xdpi, ydpi = (dpi if isinstance(dpi, tuple) and len(dpi) == 2 else (72, 72))

        def points(px: int, res: Any) -> float:
            try:
                res = float(res)
            except (TypeError, ValueError):
                res = 72.0
            return px * 72.0 / (res if math.isfinite(res) and 1 <= res <= 10_000 else 72.0)

        self.width = points(image.size[0], xdpi)
        self.height = points(image.size[1], ydpi)
        # A plain JPEG goes into the PDF as it is (no re-encoding); anything
        # else as decoded pixels, an alpha channel as a soft mask.
        self._source: Any = io.BytesIO(data) if data is not None else image
        self._reader: ImageReader | None = None

    def reader(self) -> ImageReader:
        if self._reader is None:
            self._reader = ImageReader(self._source)
        return self._reader

    def draw(self, canvas: Any, x: float, y: float, width: float, height: float) -> None:
        canvas.drawImage(self.reader(), x, y, width, height, mask="auto")


def load_raster(data: bytes, shown: str, ext: str) -> RasterArt:
    """Decode a PNG/JPEG art file's bytes (``ext`` its extension) within the caps."""
    kind = RASTER_FORMATS[ext]
    img = open_image(data, kind, shown, what=kind)
    try:
        return _prepared(img, kind, shown, data)
    except Exception as exc:  # EXIF and mode conversions on hostile data
        raise fail(f"{kind} image cannot be read ({type(exc).__name__}: {exc})",
                   path=shown) from None


def _prepared(img: PILImage.Image, kind: str, shown: str, data: bytes) -> RasterArt:
    passthrough = kind == "JPEG" and img.mode in ("RGB", "L")
    orientation = img.getexif().get(0x0112, 1) if kind == "JPEG" else 1
    if orientation not in (None, 1):
        img = ImageOps.exif_transpose(img)   # a camera's rotation, applied
        passthrough = False
    if img.mode in ("I", "I;16", "I;16B", "I;16L", "I;16N", "F"):
        # 16-bit and 32-bit grey: scale to 8 bits (converting would clip to white)
        img = img.convert("I").point(lambda v: v * (1 / 257)).convert("L")
    if not passthrough:
        has_alpha = img.mode in ("RGBA", "LA", "PA") or "transparency" in img.info
        img = img.convert("RGBA" if has_alpha else "RGB")
        if has_alpha and img.getextrema()[3][0] == 255:
            img = img.convert("RGB")           # fully opaque: no soft mask
    return RasterArt(shown, kind, img, data if passthrough else None)
