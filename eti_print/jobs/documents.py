"""Documents (``documents:`` in pack.yaml): rules references and booklets from templates.

An entry's jinja2 template (in ``templates/``) renders the document markup of
``render/document`` (headings, paragraphs, lists, tables, notes, art, and any
element the pack's game adds), set on pages the size of the paper, or half
of it (``page: half``: A5 on A4, 5.5 x 8.5 in on Letter).  ``pages`` caps
its length (1 for a one-page reference): longer is an error, never a silent
overflow.  ``booklet: true`` lets ``--booklet`` impose it two pages to a
landscape sheet in saddle-stitch order.  One PDF each: ``SLUG-ID.pdf``.

Templates see the base names (``scope``), the entry's game ``context:``,
and ``reference``: the entry itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reportlab.lib.colors import HexColor

from ..context import Output
from ..errors import InputError
from ..scope import base_context
from ..units import mm, to_points

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context, Progress

KEY = "documents"
#: Page margins of a document (top, right, bottom, left), unless it gives ``margins``.
MARGINS = (mm(17), mm(13), mm(15), mm(13))


@dataclass
class Planned:
    """One document, laid out: its template rendered, its markup built and paginated."""

    entry: dict[str, Any]
    theme: Any
    built: Any          # render.document.Document
    pages: list         # its pages (render.document.Page)
    booklet: tuple[tuple[float, float], str] | None


def page_and_sheet(ctx: Context, entry: dict[str, Any]) -> tuple[tuple[float, float],
                                                                  tuple[float, float]]:
    """The document's page, and the landscape sheet two of them go on when imposed."""
    w, h = ctx.options.page
    if entry.get("page", "paper") == "half":
        return (h / 2, w) if ctx.options.paper == "letter" else (mm(148), mm(210)), (h, w)
    return (w, h), (h, w)


def theme_for(ctx: Context, index: int, entry: dict[str, Any]) -> Any:
    """A document theme on the entry's page, in its margins, size and colours."""
    colours = {k: HexColor(v) for k, v in (entry.get("colours") or {}).items()}
    page, _ = page_and_sheet(ctx, entry)
    margins = MARGINS
    if "margins" in entry:
        manifest = ctx.dataset.manifest
        line, _ = manifest.where(("documents", index, "margins"))
        margins = tuple(to_points(v, where=manifest.path, line=line,   # type: ignore[assignment]
                                  field=f"documents[{index}].margins")
                        for v in str(entry["margins"]).split())
        if len(margins) != 4:
            raise InputError(manifest.problem(("documents", index, "margins"),
                                              "margins are four lengths: top right bottom left"))
    if ctx.options.ink_saver or not entry.get("cover", True):
        colours["cover"] = None   # plain paper instead of a full-bleed cover panel
    from ..render import document  # here: a build lays documents out in this job only
    return document.Theme(page=page, margins=margins, body=ctx.fonts["body"],
                          heading=ctx.fonts["title"], label=ctx.fonts["label"],
                          size=float(entry.get("size", 9.0)),
                          leading=float(entry.get("leading", 1.32)), **colours)


def _plan(ctx: Context, index: int, entry: dict[str, Any]) -> Planned:
    from ..render import document
    manifest = ctx.dataset.manifest
    line, _ = manifest.where(("documents", index, "template"))
    template = entry["template"]
    context = base_context(ctx, entry.get("context"), None, reference=dict(entry))
    markup = str(ctx.env.render_file(template, context, where=manifest.path, line=line,
                                     field=f"documents[{index}].template"))
    where = f"{ctx.env.template_dir}/{template}"
    folder = where.rsplit("/", 1)[0] + "/"
    locate = document.template_locator(ctx.env, folder)
    theme = theme_for(ctx, index, entry)
    custom = ctx.game.document_elements(ctx) if ctx.game is not None else {}
    built = document.build(markup, theme, ctx.art, where=where, locate=locate, custom=custom)
    pages = document.paginate(built.flowables, theme)
    limit = entry.get("pages")
    if limit is not None and len(pages) > limit:
        raise InputError(manifest.problem(
            ("documents", index, "pages"),
            f"{entry['title']!r} takes {len(pages)} pages, more than {limit}",
            hint=f"shorten {where}, or lower its text size (size:)"))
    _, sheet = page_and_sheet(ctx, entry)
    booklet = (sheet, ctx.options.duplex) if ctx.options.booklet and entry.get("booklet") \
        else None
    return Planned(entry, theme, built, pages, booklet)


def resolve(ctx: Context) -> list[Planned]:
    """Every document laid out; every problem of every document together."""
    from . import each_entry
    return each_entry(ctx, KEY, lambda index, entry: _plan(ctx, index, entry))


def draw(ctx: Context, plan: list[Planned], progress: Progress = None) -> list[Output]:
    from ..render import document
    outputs = []
    for doc in plan:
        entry = doc.entry
        name = ctx.output_name(entry["id"])
        if progress:
            progress(f"rendering {name}")
        # through a build cache (watch), an art form is drawn again only where the record
        # of the last drawing no longer holds (render.replay)
        records = ctx.cache.form_records(name) if ctx.cache is not None else None
        result = document.write_document(doc.built, doc.pages, doc.theme, doc.booklet,
                                         scale=ctx.sheets.scale, records=records)
        # imposed, the file's pages are sheet sides; the document's own pages are counted apart
        counts = {} if result.sheets is None else {"booklet pages": result.pages}
        outputs.append(Output(name, result.data, result.sheets or result.pages,
                              "booklet" if entry.get("booklet") else "reference",
                              entry.get("stock", "paper"), counts))
    return outputs
