"""Drawing pages into a PDF, one after the other or imposed as a booklet."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from ...imposition import DEFAULT_EDGE_CLEARANCE, Rect
from ...imposition_booklet import sheet_sides, two_up
from ...pdfwriter import DocInfo, new_canvas
from ...sheets import ScaleCheck
from ...units import mm
from ..replay import FormReplay, Keys, Records, art_key, define
from ..scale import CLEAR, Footprint, draw_scale_check, find_spot
from .blocks import CoverPage
from .builder import build
from .elements import Custom
from .flowables import Heading, TocLine
from .locate import Locate
from .paginate import Page, paginate
from .theme import FormIcons, Theme


@dataclass
class Rendered:
    data: bytes
    pages: int                       # document pages (A5)
    sheets: int | None               # printed sheet sides when imposed
    headings: list[tuple[int, str, int]]   # (level, title, page)


def _decorate(c: Canvas, page: Page, theme: Theme, header: str) -> None:
    if page.cover:
        return
    t = theme
    pw, ph = t.page
    top, right, bottom, left = t.margins
    c.saveState()
    yline = ph - top + 9
    c.setStrokeColor(t.rule)
    c.setLineWidth(0.8)
    c.line(left, yline, pw - right, yline)
    c.setFillColor(t.accent)
    c.setFont(t.label.regular, 6.8)
    c.drawString(left, yline + 4, header.upper())
    if page.section:
        c.setFillColor(t.alert)
        c.drawRightString(pw - right, yline + 4, page.section.upper())
    number = str(page.number)
    c.setFont(t.heading.regular, 9)
    c.setFillColor(t.accent)
    yb = bottom - 20
    odd = page.number % 2 == 1
    w = c.stringWidth(number, t.heading.regular, 9)
    c.setStrokeColor(t.rule)
    c.setLineWidth(0.8)
    if odd:
        c.drawRightString(pw - right, yb, number)
        c.line(pw - right - w - 24, yb + 3, pw - right - w - 5, yb + 3)
    else:
        c.drawString(left, yb, number)
        c.line(left + w + 5, yb + 3, left + w + 24, yb + 3)
    c.restoreState()


def _draw_page(c: Canvas, page: Page, theme: Theme, header: str,
               scale: ScaleCheck | None = None, replay: FormReplay | None = None,
               form: str | None = None) -> None:
    """Draw ``page`` (into form ``form``, if named), through ``replay`` if given: from
    the record of its last drawing where that still holds (``render.replay``), keyed by
    everything drawing it reads (the theme is in the records' world)."""
    check = _scale_check(page, theme, scale) if scale is not None and page.number == 1 \
        else None

    def paint() -> None:
        _decorate(c, page, theme, header)
        for f, x, y in page.items:
            f.drawOn(c, x, y)
        if check is not None and scale is not None:
            spot, ink = check
            draw_scale_check(c, scale, *spot, theme.body.regular, theme.body.bold, ink=ink)
    bbox = (0, 0, *theme.page)
    if replay is None:
        if form is None:
            paint()
        else:
            define(c, None, None, form, bbox, paint)
        return
    found = replay.keys("page", page.number, page.cover, page.section, header,
                        check and scale, check, page.items)
    key = None if found is None else ("page", found)
    if form is None:
        replay.page(key, paint)
    else:
        replay.form(key, form, bbox, paint, page=True)


def _scale_check(page: Page, theme: Theme, scale: ScaleCheck
                 ) -> tuple[tuple[float, float], Any] | None:
    """Where the first page's scale check goes, and its ink: bottom left, under the
    page's content (on a cover, inside the panel in the cover's text colour, the
    centred content lifted as far as the check needs); None if there is no room."""
    pw, ph = theme.page
    x0, y0, fw, fh = theme.frame
    w, h = Footprint(scale).size
    if page.cover:
        covers = [f for f, _, _ in page.items if isinstance(f, CoverPage)]
        height = max((f.height for f in covers), default=0.0)
        inner = max(min(theme.margins) * 0.6 + 6 + mm(2), DEFAULT_EDGE_CLEARANCE)
        below = (ph - height) / 2
        lift = max(0.0, inner + h + 2 * CLEAR - below)
        if lift > below - inner:                  # the content would reach the top rule
            return None
        for f in covers:
            f.lift = lift
        spot = find_spot(theme.page, (w, h), [Rect(0, below + lift, pw, height)], inner)
        return None if spot is None else (spot, theme.panel if theme.cover else None)
    lowest = min((y for _, _, y in page.items), default=y0 + fh)
    top, right, bottom, left = theme.margins
    taken = [Rect(x0, lowest, fw, y0 + fh - lowest),
             Rect(pw - right - 48, bottom - 24, 48, 16)]    # page 1's number, at the right
    spot = find_spot(theme.page, (w, h), taken, DEFAULT_EDGE_CLEARANCE)
    return None if spot is None else (spot, None)


def write_pdf(pages: list[Page], theme: Theme, info: DocInfo, header: str, *,
              booklet: tuple[tuple[float, float], str] | None = None,
              scale: ScaleCheck | None = None, icons: FormIcons | None = None,
              records: Records | None = None) -> tuple[bytes, int | None]:
    """Draw ``pages``; with ``booklet=(sheet size, duplex)`` impose them two-up.  With
    ``records`` (a build cache's), the pages and the forms of ``icons`` are drawn from
    the records of the output's last drawing where they still hold (``render.replay``).

    Returns the PDF and, when imposed, the number of sheet sides.
    """
    size = theme.page if booklet is None else booklet[0]
    # the initial font would otherwise be Helvetica, referenced but never embedded
    c = new_canvas(size, theme.body.regular, info,
                   duplex=booklet[1] if booklet is not None else "none")
    replay = None
    if icons is not None and records is not None:
        # the theme pins every page (a theme that cannot be keyed, none: each is drawn)
        theme_key = Keys()(vars(theme))
        replay = FormReplay(c, records, (art_key(icons.art), theme_key),
                            lambda name: icons.meaning(c, name),
                            lambda art_id, color: icons.form(c, art_id, color))
        icons.replay_on(c, replay)
    try:
        sides = _write_pages(c, pages, theme, header, booklet, scale, replay)
    finally:
        if icons is not None:
            icons.replay_on(c, None)
    if replay is not None:
        replay.finish()
    return c.getpdfdata(), sides


def _write_pages(c: Canvas, pages: list[Page], theme: Theme, header: str,
                 booklet: tuple[tuple[float, float], str] | None,
                 scale: ScaleCheck | None, replay: FormReplay | None) -> int | None:
    outline: list[tuple[Heading, str]] = []
    if booklet is None:
        for page in pages:
            _draw_page(c, page, theme, header, scale, replay)
            for h, top in page.anchors:
                if h.level <= 2 and h.key:
                    c.bookmarkHorizontal(h.key, 0, top + 4)
                    outline.append((h, h.key))
            c.showPage()
        sides = None
    else:
        sheet, duplex = booklet
        for page in pages:
            _draw_page(c, page, theme, header, scale, replay, form=f"page{page.number}")
        left_at, right_at = two_up(sheet, theme.page)
        by_number = {p.number: p for p in pages}
        order = sheet_sides(len(pages), duplex)
        for side in order:
            c.saveState()
            if side.rotated:
                c.translate(sheet[0], sheet[1])
                c.rotate(180)
            for number, at in ((side.left, left_at), (side.right, right_at)):
                if number is None:
                    continue
                c.saveState()
                c.translate(*at)
                c.doForm(f"page{number}")
                c.restoreState()
            c.restoreState()
            for number in (side.left, side.right):
                if number is None:
                    continue
                for h, _ in by_number[number].anchors:
                    if h.level <= 2 and h.key:
                        c.bookmarkPage(h.key)
                        outline.append((h, h.key))
            c.showPage()
        sides = len(order)
        # outline entries in reading order, whatever the sheet order
        rank = {h.key: i for i, (h, _) in enumerate(
            (h, top) for p in pages for h, top in p.anchors)}
        outline.sort(key=lambda e: rank.get(e[1], 0))
    last = 0
    for h, key in outline:
        level = min(h.level - 1, last + 1)
        c.addOutlineEntry(h.title, key, level=level, closed=level > 0)
        last = level
    c.showOutline()
    return sides


def render(markup: str, theme: Theme, icons: Any, *, where: str | None = None,
           locate: Locate | None = None, custom: Mapping[str, Custom] | None = None,
           booklet: tuple[tuple[float, float], str] | None = None) -> Rendered:
    """Markup to PDF bytes: parse, build, paginate, fill the contents, draw."""
    doc = build(markup, theme, icons, where=where, locate=locate, custom=custom)
    return write_document(doc, paginate(doc.flowables, theme), theme, booklet)


def write_document(doc: Any, pages: list, theme: Theme,
                   booklet: tuple[tuple[float, float], str] | None = None,
                   scale: ScaleCheck | None = None, records: Records | None = None
                   ) -> Rendered:
    """A built and paginated document (``build``, ``paginate``) drawn into a PDF, with
    the ``scale`` check on its first page (its art's forms through ``records``, as
    ``write_pdf`` says)."""
    for page in pages:
        for f, _, _ in page.items:
            if isinstance(f, TocLine):
                f.link = booklet is None   # links cannot live inside imposed page forms
    headings = []
    for page in pages:
        for h, _ in page.anchors:
            doc.builder.pages[h.key] = page.number
            headings.append((h.level, h.title, page.number))
    info = doc.info
    data, sides = write_pdf(pages, theme, DocInfo(info.get("title", ""), info.get("subject", ""),
                                                  info.get("author", ""),
                                                  info.get("keywords", "")),
                            info.get("header") or info.get("title", ""), booklet=booklet,
                            scale=scale, icons=doc.builder.icons, records=records)
    return Rendered(data, len(pages), sides, headings)
