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
from dataclasses import dataclass

from reportlab.pdfbase import pdfdoc
from reportlab.pdfgen.canvas import Canvas


@dataclass(frozen=True)
class DocInfo:
    """A PDF's document information; a field left ``None`` is not written."""

    title: str
    subject: str | None = None
    author: str | None = "eti-print"
    keywords: str | None = None
    creator: str | None = "eti-print"


class _Form(pdfdoc.PDFFormXObject):
    """A form XObject whose resources hold its shadings, graphics states and colour spaces."""

    ExtGState = None
    _shadingUsed: dict = {}
    _colorsUsed: dict = {}

    def format(self, document):  # type: ignore[no-untyped-def]
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


def new_canvas(buffer: io.BytesIO, pagesize: tuple[float, float], font: str, info: DocInfo,
               invariant: bool = True, duplex: str = "none") -> Canvas:
    """A canvas writing into ``buffer``, its first page ``pagesize``, metadata from ``info``.

    Its viewer preferences make print dialogs default to actual size
    (``PrintScaling /None``: "fit to page" would shrink every card) and to the
    flip ``duplex`` needs (``Simplex`` for one-sided sheets, glue and fold).
    """
    canvas = _Canvas(buffer, pagesize=pagesize, invariant=int(invariant), pageCompression=1,
                    initialFontName=font)
    canvas.setViewerPreference("PrintScaling", "None")
    canvas.setViewerPreference("Duplex", VIEWER_DUPLEX[duplex])
    for value, setter in ((info.title, canvas.setTitle), (info.subject, canvas.setSubject),
                          (info.author, canvas.setAuthor), (info.creator, canvas.setCreator),
                          (info.keywords, canvas.setKeywords)):
        if value is not None:
            setter(value)
    return canvas
