"""The one way a PDF is started: a reproducible canvas with its document metadata.

Every PDF eti-print writes (card sheets, boards, tokens, documents, the
calibration sheet, exports, reports) comes from ``new_canvas``: invariant (no
dates or ids that change between runs; ``SOURCE_DATE_EPOCH`` sets the date),
compressed, and with an embedded initial font, since reportlab would otherwise
name Helvetica, which is never embedded, on every page.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from reportlab.pdfgen.canvas import Canvas


@dataclass(frozen=True)
class DocInfo:
    """A PDF's document information; a field left ``None`` is not written."""

    title: str
    subject: str | None = None
    author: str | None = "eti-print"
    keywords: str | None = None
    creator: str | None = "eti-print"


def new_canvas(buffer: io.BytesIO, pagesize: tuple[float, float], font: str, info: DocInfo,
               invariant: bool = True) -> Canvas:
    """A canvas writing into ``buffer``, its first page ``pagesize``, metadata from ``info``."""
    canvas = Canvas(buffer, pagesize=pagesize, invariant=int(invariant), pageCompression=1,
                    initialFontName=font)
    for value, setter in ((info.title, canvas.setTitle), (info.subject, canvas.setSubject),
                          (info.author, canvas.setAuthor), (info.creator, canvas.setCreator),
                          (info.keywords, canvas.setKeywords)):
        if value is not None:
            setter(value)
    return canvas
