"""A PDF page as a PNG, streamed: pdfium rasterises the page a band of rows at a time
and each band is deflated as it comes, so no image is ever held whole.

**Same pixels as a whole-page render.**  pdfium is asked for every band with the very
transform of the whole page (``FPDF_RenderPageBitmapWithMatrix``, the scale
``FPDF_RenderPageBitmap`` computes, no translation) and a clip rectangle on whole
device pixels, into a bitmap as tall as the page.  Clipping masks pixels after they
are computed, so each pixel is what the whole-page render gives.  (Translating
instead, a band-high bitmap with the origin moved up by the band's top, changes up to
2 levels in a few thousand anti-aliased pixels: pdfium computes device coordinates in
32-bit floats, and ``y * scale + offset`` rounds differently for each offset.)

**Held once, a band at a time.**  That tall bitmap is pdfium's own, whose memory the
kernel gives only where pdfium draws; each band's whole pages are handed back
(``madvise(MADV_DONTNEED)``) once the band is encoded.  A 510 x 418 mm board at 300 dpi
(6095 x 5008 px, 116 MB as one bitmap) needs about 8 MB at a time.

**Encoding.**  PNG rows without a filter (filter type 0), deflated by zlib at level
1, chosen by measurement (``bench/bench_export.py --levels``, the README's table):
less time than Pillow's adaptive filters with zlib level 1 and ``Z_RLE``, and
smaller files for card faces.  ISA-L (``isal``) deflates three times faster, but
its streaming compressor is not deterministic: now and then the same rows come out
as other (equally valid) bytes, which an export's files and hashes must not.
Every PNG is tagged sRGB (an iCCP chunk, ``srgb_profile``) and carries its
resolution (pHYs).  Decoded, every pixel is what pdfium drew.
"""

from __future__ import annotations

import ctypes
import math
import mmap
import struct
import zlib
from typing import Any

#: Bitmap bytes of one band at most: a card (825 x 1125 px, 3.7 MB) is one band, a
#: 6095 px wide board 344 rows at a time.
BAND_BYTES = 8 << 20

#: zlib's deflate level: 1 by measurement (the README's table).
LEVEL = 1

#: Bytes of rows deflated at a time, and of an IDAT chunk at least.
_PIECE = 64 << 10

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_EPS = 1e-9


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data)))


def page_size(page: Any, scale: float) -> tuple[int, int]:
    """The pixel size pdfium gives ``page`` at ``scale`` px/pt (``PdfPage.render``'s own
    rounding: up, float noise not a pixel)."""
    scale = scale * (1 - _EPS)
    return math.ceil(page.get_width() * scale), math.ceil(page.get_height() * scale)


class PngWriter:
    """An 8-bit RGB PNG fed band by band (``add``), tagged sRGB, at ``dpi`` if given."""

    def __init__(self, width: int, height: int, dpi: int | None, level: int = LEVEL,
                 deflate: Any = None):
        """``deflate``: another zlib-like ``compressobj`` (the bench's)."""
        from .faces import srgb_profile
        self.width, self.height = width, height
        self.rows = 0
        self._parts = [_SIGNATURE,
                       _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)),
                       _chunk(b"iCCP", b"ICC Profile\0\0" + zlib.compress(srgb_profile()))]
        if dpi is not None:
            ppm = int(dpi / 0.0254 + 0.5)     # pixels per metre, as Pillow writes them
            self._parts.append(_chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)))
        self._deflate = deflate if deflate is not None else zlib.compressobj(level)
        self._idat: list[bytes] = []        # deflated bytes not yet in an IDAT chunk
        self._pending = 0

    def add(self, rgb: bytes) -> None:
        """Whole rows of packed RGB, top to bottom."""
        stride = 3 * self.width
        if len(rgb) % stride:
            raise ValueError(f"{len(rgb)} bytes are not whole rows of {self.width} px")
        count = len(rgb) // stride
        self.rows += count
        view = memoryview(rgb)
        # a few rows at a time: small buffers are reused by the allocator, where buffers of
        # a whole image would be fresh pages from the kernel each time (system time)
        per = max(1, _PIECE // stride)
        for first in range(0, count, per):
            rows = min(per, count - first)
            parts: list[Any] = [b"\0"] * (2 * rows)      # filter type 0 before each row
            parts[1::2] = [view[i * stride:(i + 1) * stride] for i in range(first, first + rows)]
            out = self._deflate.compress(b"".join(parts))
            if out:
                self._idat.append(out)
                self._pending += len(out)
                if self._pending >= _PIECE:
                    self._flush_idat()

    def _flush_idat(self) -> None:
        if self._idat:
            self._parts.append(_chunk(b"IDAT", b"".join(self._idat)))
        self._idat, self._pending = [], 0

    def finish(self) -> bytes:
        if self.rows != self.height:
            raise ValueError(f"{self.rows} rows written of {self.height}")
        self._idat.append(self._deflate.flush())
        self._flush_idat()
        self._parts.append(_chunk(b"IEND", b""))
        data = b"".join(self._parts)
        self._parts = []
        return data


def image_png(image: Any, dpi: int | None = None, **writer: Any) -> bytes:
    """A PIL RGB image as a streamed PNG (band by band); ``writer``: ``PngWriter``'s
    options."""
    png = PngWriter(image.width, image.height, dpi, **writer)
    band = _band_rows(4 * image.width)
    for top in range(0, image.height, band):
        png.add(image.crop((0, top, image.width, min(image.height, top + band))).tobytes())
    return png.finish()


def _band_rows(stride: int) -> int:
    return max(1, BAND_BYTES // stride)


def page_png(page: Any, scale: float, dpi: int) -> tuple[tuple[int, int], bytes]:
    """``page`` (a pypdfium2 page) rasterised at ``scale`` px/pt, band by band, as a PNG
    at ``dpi``: its pixel size and bytes."""
    import pypdfium2.raw as pdfium_c
    from PIL import Image
    width, height = page_size(page, scale)
    # pdfium's own bitmap: its memory is the kernel's zero pages until drawn on
    bitmap = pdfium_c.FPDFBitmap_CreateEx(width, height, pdfium_c.FPDFBitmap_BGRx, None, 0)
    if not bitmap:
        raise MemoryError(f"pdfium could not make a {width} x {height} bitmap")
    try:
        stride = pdfium_c.FPDFBitmap_GetStride(bitmap)
        address = pdfium_c.FPDFBitmap_GetBuffer(bitmap)
        # FPDF_RenderPageBitmap's transform, to the last bit of its 32-bit floats
        pw, ph = page.get_width(), page.get_height()
        matrix = pdfium_c.FS_MATRIX(_f32(width / pw), 0, 0, _f32(height / ph), 0, 0)
        matrix.f = height - _f32(ph * matrix.d)
        flags = pdfium_c.FPDF_ANNOT | pdfium_c.FPDF_REVERSE_BYTE_ORDER
        writer = PngWriter(width, height, dpi)
        released = address
        band_rows = _band_rows(stride)
        for top in range(0, height, band_rows):
            rows = min(band_rows, height - top)
            pdfium_c.FPDFBitmap_FillRect(bitmap, 0, top, width, rows, 0xFFFFFFFF)
            clip = pdfium_c.FS_RECTF(0, top, width, top + rows)
            pdfium_c.FPDF_RenderPageBitmapWithMatrix(bitmap, page.raw, matrix, clip, flags)
            per = max(1, _PIECE // stride)
            for first in range(top, top + rows, per):
                count = min(per, top + rows - first)
                piece = (ctypes.c_char * (count * stride)).from_address(address + first * stride)
                writer.add(Image.frombuffer("RGB", (width, count), piece, "raw", "RGBX", stride,
                                            1).tobytes("raw", "RGB"))
            if top + rows < height:     # the last band's memory goes with the bitmap
                released = _release(released, address + (top + rows) * stride)
        return (width, height), writer.finish()
    finally:
        pdfium_c.FPDFBitmap_Destroy(bitmap)


def _release(start: int, end: int) -> int:
    """Hand the bitmap's whole memory pages from ``start`` up to ``end`` back to the
    kernel (they read as zeros after); return where the next release starts.  Without
    ``madvise`` (Windows) nothing is released: a bitmap is then held whole, as before."""
    first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE
    last = end // mmap.PAGESIZE * mmap.PAGESIZE
    if last > first and _madvise is not None:
        _madvise(ctypes.c_void_p(first), ctypes.c_size_t(last - first), mmap.MADV_DONTNEED)
        return last
    return start


def _libc_madvise() -> Any:
    if not hasattr(mmap, "MADV_DONTNEED"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    function.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    function.restype = ctypes.c_int
    return function


_madvise = _libc_madvise()


def _f32(value: float) -> float:
    """``value`` rounded to a 32-bit float, as pdfium holds it."""
    return struct.unpack("f", struct.pack("f", value))[0]
