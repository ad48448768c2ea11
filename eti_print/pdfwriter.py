"""The one way a PDF is started: a reproducible canvas with its document metadata.

Every PDF eti-print writes (card sheets, boards, tokens, documents, the
calibration sheet, exports, reports) comes from ``new_canvas``: invariant (no
dates or ids that change between runs; ``SOURCE_DATE_EPOCH`` sets the date),
compressed, and with an embedded initial font, since reportlab would otherwise
name Helvetica, which is never embedded, on every page.

Its forms carry every resource their content uses.  reportlab's own form
XObject writes only fonts and XObjects into its resources, so a gradient
(``/Sh0 sh``), a transparency state (``/gRLs0 gs``) or a separation colour
(``/CS0 cs``) drawn inside a form named a resource the PDF does not have:
viewers report an error and paint the shape black.
"""

from __future__ import annotations

import io
import re
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from reportlab import rl_config
from reportlab.pdfbase import pdfdoc
from reportlab.pdfgen.canvas import Canvas

# -- serialising, byte for byte as reportlab does -----------------------------------
#
# reportlab encodes every string of every PDF object it writes (each dictionary key
# and value, each number, each object header) through its ``extpdfdoc`` codec, a
# Python-level charmap, and escapes each dictionary key character by character: a
# sixth of the time a rebuild spends writing its PDFs.  ASCII text encodes to the
# same bytes, except U+0018-U+001F, which PDFDocEncoding gives to accents (the codec
# refuses them; so does this, through it); and a name is escaped the same every time.

_PDFDOC_ENC = pdfdoc.pdfdocEnc
_PDFNAME = pdfdoc.PDFName
_ACCENT_CODE = re.compile("[\x18-\x1f]").search


def _pdfdoc_enc(x: Any) -> Any:
    if isinstance(x, str) and x.isascii() and _ACCENT_CODE(x) is None:
        return x.encode("ascii")
    return _PDFDOC_ENC(x)


_names: dict[str, str] = {}


def _pdf_name(data: str, *args: Any) -> str:
    if args:
        return _PDFNAME(data, *args)
    name = _names.get(data)
    if name is None:
        name = _PDFNAME(data)
        if len(_names) < 8192:
            _names[data] = name
    return name


pdfdoc.pdfdocEnc = _pdfdoc_enc
pdfdoc.PDFName = _pdf_name


@dataclass(frozen=True)
class DocInfo:
    """A PDF's document information; a field left ``None`` is not written."""

    title: str
    subject: str | None = None
    author: str | None = "eti-print"
    keywords: str | None = None
    creator: str | None = "eti-print"


#: The attribute of a reportlab document that holds its ``Flate`` while one is kept.
FLATE = "_eti_flate"
#: reportlab's zlib filter (``_Deflate`` stands in for it).
_ZLIB = pdfdoc.PDFZCompress
#: The ``Flate`` of the document this thread is saving, if it keeps one.
_SAVING: ContextVar[Any] = ContextVar("eti_print_saving", default=None)


class Flate:
    """reportlab's stream filters (FlateDecode, and ASCII85Decode over it where reportlab
    is set to use it) for one document's streams, each content encoded once while it is
    kept: ``kept`` maps a stream's bytes to its encoded bytes (from the last drawing of
    the same output, ``render.replay``), ``made`` this drawing's, for the next.  The
    same bytes as reportlab's filters, which it runs on a miss.  It stands first in
    ``filters`` and encodes through the whole chain; the rest only name theirs.  A
    stream deflated by zlib alone (a font file) is kept under ``("FlateDecode", bytes)``."""

    def __init__(self, kept: dict[Any, bytes]) -> None:
        self.kept = kept
        self.made: dict[Any, bytes] = {}
        self.chain = [pdfdoc.PDFBase85Encode, _ZLIB] if rl_config.useA85 else [_ZLIB]
        self.pdfname = self.chain[0].pdfname
        self.filters = [self] + [_Named(f.pdfname) for f in self.chain[1:]]
        #: reportlab's zlib filter alone, through the same kept streams: the font files
        #: and character maps the document adds as it is saved (``_Canvas.getpdfdata``).
        self.zlib = _Kept(self)

    def encode(self, text: str | bytes, chain: list | None = None) -> bytes:
        data = text.encode("utf8") if isinstance(text, str) else text
        key: Any = data if chain is None else (chain[0].pdfname, data)
        chain = self.chain if chain is None else chain
        out = self.kept.get(key)
        if out is None:
            out = data
            for f in reversed(chain):            # reportlab applies them last first
                out = f.encode(out)
        self.made[key] = out
        return out


class _Kept:
    """reportlab's zlib filter (``pdfdoc.PDFZCompress``) through a ``Flate``."""

    pdfname = _ZLIB.pdfname

    def __init__(self, flate: Flate) -> None:
        self.flate = flate
        self.chain = [_ZLIB]

    def encode(self, text: str | bytes) -> bytes:
        return self.flate.encode(text, self.chain)


class _Deflate:
    """reportlab's zlib filter as ``pdfdoc.PDFZCompress``: through the ``Flate`` of the
    document this thread is saving (``_Canvas.getpdfdata``), else reportlab's own.  The
    font files and character maps reportlab adds as it saves a document take it."""

    pdfname = _ZLIB.pdfname

    def encode(self, text: str | bytes) -> bytes:
        flate = _SAVING.get()
        return flate.zlib.encode(text) if flate is not None else _ZLIB.encode(text)

    def decode(self, encoded: bytes) -> bytes:
        return _ZLIB.decode(encoded)


pdfdoc.PDFZCompress = _Deflate()


class _Named:
    """A later filter of a ``Flate`` chain: named in the stream, applied by ``Flate``."""

    def __init__(self, pdfname: str) -> None:
        self.pdfname = pdfname

    def encode(self, text: bytes) -> bytes:
        return text


def _deflated(obj: Any, document: Any, comment: str) -> None:
    """``obj`` (a page or form) with its stream encoded through the document's ``Flate``,
    if it keeps one and ``obj`` is compressed (the filters reportlab would use)."""
    flate = getattr(document, FLATE, None)
    if flate is None or not obj.compression or obj.Contents or not obj.stream:
        return
    stream = pdfdoc.PDFStream(content=obj.stream, filters=flate.filters)
    stream.__Comment__ = comment
    obj.Contents = stream
    obj.compression = 0


class _Form(pdfdoc.PDFFormXObject):
    """A form XObject whose resources hold its shadings, graphics states and colour spaces."""

    ExtGState = None
    _shadingUsed: dict = {}
    _colorsUsed: dict = {}

    def format(self, document):  # type: ignore[no-untyped-def]
        _deflated(self, document, "xobject form stream")
        if not self.Resources:
            resources = pdfdoc.PDFResourceDictionary()
            resources.basicFonts()
            resources.allProcs()
            if self.XObjects:
                resources.XObject = self.XObjects
            if self.ExtGState:
                resources.ExtGState = self.ExtGState
            resources.setShading(self._shadingUsed)
            resources.setColorSpace(self._colorsUsed)
            self.Resources = resources
        return super().format(document)


class _Canvas(Canvas):
    """reportlab's canvas, its forms written as :class:`_Form` (complete resources), its
    pages counted against the ``pages`` budget of specs/limits.yaml."""

    def showPage(self):  # type: ignore[no-untyped-def]  # noqa: N802
        from . import limits
        limits.cap(self.getPageNumber(), "pages", "an output PDF has too many pages")
        super().showPage()
        _deflated(self._doc.Pages.pages[-1], self._doc, "page stream")

    def getpdfdata(self):  # type: ignore[no-untyped-def]
        # A document keeping a ``Flate`` (drawn through form records) deflates the font
        # files and character maps reportlab adds as it is saved through it too: after
        # a one-card edit they are the same bytes as the last drawing's.
        saving = _SAVING.set(getattr(self._doc, FLATE, None))
        try:
            return super().getpdfdata()
        finally:
            _SAVING.reset(saving)

    def endForm(self, **extra_attributes):  # type: ignore[no-untyped-def]
        # reportlab's endForm, with _Form and the shadings the form used
        name, lowerx, lowery, upperx, uppery = self._formData
        width, height = self._pagesize
        form = _Form(lowerx=lowerx, lowery=lowery,
                     upperx=width if upperx is None else upperx,
                     uppery=height if uppery is None else uppery)
        form.compression = self._pageCompression
        form.setStreamList([self._preamble] + self._code)
        for key, value in extra_attributes.items():
            setattr(form, key, value)
        form._shadingUsed = dict(self._shadingUsed)
        self._setColorSpace(form)
        self._setExtGState(form)
        self._setXObjects(form)
        self._setAnnotations(form)
        self._doc.addForm(name, form)
        self._restartAccumulators()
        self.pop_state_stack()


#: The viewer preference ``Duplex`` for each way of printing two-sided (``--duplex``).
VIEWER_DUPLEX = {"long": "DuplexFlipLongEdge", "short": "DuplexFlipShortEdge",
                 "glue": "Simplex", "fold": "Simplex", "none": "Simplex"}


def new_canvas(pagesize: tuple[float, float], font: str, info: DocInfo,
               invariant: bool = True, duplex: str = "none") -> Canvas:
    """A canvas, its first page ``pagesize``, metadata from ``info``.  Its file is
    ``canvas.getpdfdata()`` (reportlab's ``save`` would copy the whole file once more,
    into a buffer, at the moment a build's memory peaks).

    Its viewer preferences make print dialogs default to actual size
    (``PrintScaling /None``: "fit to page" would shrink every card) and to the
    flip ``duplex`` needs (``Simplex`` for one-sided sheets, glue and fold).
    """
    canvas = _Canvas(io.BytesIO(), pagesize=pagesize, invariant=int(invariant), pageCompression=1,
                    initialFontName=font)
    canvas.setViewerPreference("PrintScaling", "None")
    canvas.setViewerPreference("Duplex", VIEWER_DUPLEX[duplex])
    for value, setter in ((info.title, canvas.setTitle), (info.subject, canvas.setSubject),
                          (info.author, canvas.setAuthor), (info.creator, canvas.setCreator),
                          (info.keywords, canvas.setKeywords)):
        if value is not None:
            setter(value)
    return canvas
