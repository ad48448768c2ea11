"""A small document renderer: a strict XML-like language in, a paged PDF out.

Packs write prose as jinja2 templates that render *document markup*: a
whitelisted block language whose text is the card-text markup of ``text``
(``<b>``, ``<i>``, ``<br/>``, ``<icon name=".."/>``, the same entities), read by
the same parser (``text.markup``: lxml, hardened; exact lines).  This
package knows nothing of any game; it reads the markup strictly, turns it
into reportlab platypus flowables, places them on pages itself and draws
the pages, one after the other or imposed two-up as a saddle-stitched
booklet (``imposition_booklet``).

Block elements::

    <document title=".." header=".." subject="..">   the root, exactly one
    <cover>blocks</cover>          a page of its own, no running header
    <h1 short=".." toc="no">       section (new outline entry, running header)
    <h2> <h3>                      sub-headings (h2 in the outline)
    <p style="lead|small|caption|center">
    <ul><li>..</li></ul>  <ol><li>..</li></ol>
    <note title="..">blocks</note> <box title="..">blocks</box>
    <keep>blocks</keep>            kept on one page when it fits one
    <table widths="1 4 12mm" header="1"><tr fill="#hex" color="#hex">
        <th>..</th><td align="right" span="2">..</td></tr></table>
    <toc depth="2"/>  <pagebreak/>  <spacer height="4mm"/>
    <art name="art-id" height="30mm" color="#hex"/>
    <flowchart columns="3"><node id=".." col="1" row="0" kind="start|box|decision|end|note"
        width="1.2">..</node><edge from=".." to=".." label="YES" exit="right" enter="top"/>
    </flowchart>

A renderer may register more block elements (``Custom``) that draw
anything it likes.  Nothing a template writes reaches reportlab's Paragraph
markup (which embeds local files named in ``<img>`` and drops text that does
not fit): text is set by ``text.fit`` and drawn by ``text.draw``.  Content
that fits no page is an ``InputError`` naming the element, never dropped.

The modules, each one concern, in the order a document goes through them::

    elements.py   the element whitelist (``ElementSpec``, ``SPECS``) and ``Node``
    locate.py     pointing at a line of the markup, and back to a template
    parse.py      markup to a tree of ``Node``s (``parse_document``)
    theme.py      ``Theme``; ``FormIcons``, art drawn once per document
    flowables.py  rich text, headings, contents lines, art, gaps, page breaks
    blocks.py     stacks (notes, boxes, keeps), the cover, tables
    flowchart.py  flowcharts
    builder.py    the ``Builder``: nodes to flowables (``build``)
    paginate.py   flowables to ``Page``s
    write.py      pages to PDF (``write_pdf``, ``write_document``), and ``render``: all of it
"""

from __future__ import annotations

from ...pdfwriter import DocInfo
from .builder import Document, build
from .elements import Custom, ElementSpec, Node
from .paginate import Page, paginate
from .parse import parse_document
from .theme import Theme
from .write import Rendered, render, write_document, write_pdf

__all__ = [
    "Custom", "DocInfo", "Document", "ElementSpec", "Node", "Page", "Rendered", "Theme",
    "build", "paginate", "parse_document", "render", "write_document", "write_pdf",
]

# the rest of what this module offered before it became a package
from .blocks import CoverPage, DocTable, Stack  # noqa: E402,F401
from .builder import Builder  # noqa: E402,F401
from .elements import BLOCKS, CHILDREN, EMPTY, INLINE, NODE_KINDS, PARAGRAPH_STYLES, SIDES, SPECS  # noqa: E402,F401
from .flowables import BIG, ArtBlock, Gap, Heading, PageBreak, RichText, TocLine, Where  # noqa: E402,F401
from .flowchart import Flowchart  # noqa: E402,F401
from .locate import Locate, template_locator  # noqa: E402,F401
from .theme import FormIcons  # noqa: E402,F401
