"""E.T.I.'s tokens, the ISSA badge and the company logo standees, ready to cut out.

A job type the E.T.I. game adds (``Eti.job_types``): ``SLUG-tokens.pdf``.
Counts come from the materials list (``cards/components.yaml``): every
component of kind ``token`` (180 green, 30 red), ``badge`` (1) and
``standee`` (12, two per company).  Sizes are settings in
``templates/boards/boards.yaml`` (``token``, ``pieces``), shared with the
boards so a token always fits the spaces printed for it.  Faces are layouts
(``templates/layouts/token-face.yaml``, ``standee-company.yaml``,
``badge-issa.yaml``); each distinct face is drawn once as a PDF form.

Sheets:

1. Tokens: square cells in a grid centred on the paper, with crop marks on
   every cut line (straight cuts with a trimmer; the round token is printed
   inside its square).  Each colour starts on a new row.
2. Standees and badge (landscape): the twelve fold-over standees (front,
   back turned 180 degrees around the top fold so it reads upright from
   behind, and a base foot at each end), then the badge, each block with its
   own crop marks.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import Canvas

from ...context import Output
from ...imposition import Rect, SheetSpec, Slot, crop_marks, draw_crop_marks, front_slots, grid
from ...pdfwriter import DocInfo, new_canvas
from ...render.faces import Face, FaceResolver
from ...render.sheets import FormCache
from ...scope import base_context
from ...text import TextStyle, fit_markup
from ...text import draw as draw_text
from ...units import mm, to_mm
from .boards import BoardSettings, palette

if TYPE_CHECKING:  # pragma: no cover
    from ...context import Context, Progress

KEY = "tokens"

NAVY = "#1E2430"
#: Gap between the standee block and the badge, and crop-mark room around blocks.
BLOCK_GAP = mm(10)
#: Abutting pieces overlap their neighbours by this much, so no viewer shows a
#: hairline seam between two cells of the same colour.
SEAM = 0.3


@dataclass(frozen=True)
class Token:
    """One token to print: the component it counts toward."""

    component: str      # "green-tokens"
    name: str           # "Green token"


def token_list(database: Any) -> list[Token]:
    """Every token of the materials list, one entry per physical token, in list order."""
    return [Token(c.id, c.name) for c in database.components if c.kind == "token"
            for _ in range(c.count)]


def token_pages(tokens: Sequence[Token], cols: int, rows: int) -> list[list[tuple[int, Token]]]:
    """Tokens placed on pages of ``cols`` x ``rows`` cells: (cell index, token).

    Each component starts on a new row so the colours are cut apart in one
    straight line; a page that is full continues on the next.
    """
    if cols < 1 or rows < 1:
        raise ValueError("a token sheet needs at least one cell")
    pages: list[list[tuple[int, Token]]] = [[]]
    cell = 0
    previous = None
    for token in tokens:
        if previous is not None and token.component != previous and cell % cols:
            cell += cols - cell % cols
        if cell >= cols * rows:
            pages.append([])
            cell = 0
        pages[-1].append((cell, token))
        cell += 1
        previous = token.component
    return pages if pages[0] else []


def component_count(database: Any, kind: str) -> int:
    return sum(c.count for c in database.components if c.kind == kind)


def _context(ctx: Context, **extra: Any) -> dict[str, Any]:
    return base_context(ctx, None, None, **extra)


def _mm(points: float) -> float:
    return round(to_mm(points), 3)


def _resolver(ctx: Context, w: float, h: float) -> FaceResolver:
    return FaceResolver(ctx.env, ctx.fonts, ctx.art, w, h, SEAM,
                        ink_saver=ctx.options.ink_saver)


def _layout(ctx: Context, name: str) -> Any:
    return ctx.layouts.get(name, where="eti_print/games/eti/tokens.py", field_name="layout")


def token_faces(ctx: Context, settings: BoardSettings) -> dict[str, Face]:
    """One face per token component (by component id)."""
    cell = settings.token_cell
    resolver = _resolver(ctx, cell, cell)
    layout = _layout(ctx, "token-face")
    faces = {}
    for c in ctx.model.components:
        if c.kind == "token":
            context = _context(ctx, token={"id": c.id, "name": c.name, "count": c.count,
                                           "cell": _mm(cell),
                                           "diameter": _mm(settings.token_diameter)})
            faces[c.id] = resolver.resolve(layout, context, f"token {c.id}")
    return faces


def standee_faces(ctx: Context, settings: BoardSettings) -> list[tuple[str, Face]]:
    """The standees in print order: (company id, face), two per company."""
    width, panel, foot = settings.standee
    resolver = _resolver(ctx, width, 2 * (panel + foot))
    layout = _layout(ctx, "standee-company")
    per_company = component_count(ctx.model, "standee") // max(1, len(ctx.model.companies))
    out = []
    for company in ctx.model.companies:
        context = _context(ctx, company={"id": company.id, "name": company.name,
                                         "logo": company.logo, **palette(company.colour)},
                           standee={"width": _mm(width), "panel": _mm(panel), "foot": _mm(foot)})
        face = resolver.resolve(layout, context, f"standee {company.id}")
        out.extend([(company.id, face)] * per_company)
    return out


def badge_face(ctx: Context, settings: BoardSettings) -> Face:
    d = settings.badge_diameter
    context = _context(ctx, badge={"diameter": _mm(d)})
    return _resolver(ctx, d, d).resolve(_layout(ctx, "badge-issa"), context, "ISSA badge")


class _Text:
    def __init__(self, ctx: Context):
        self.ctx = ctx

    def draw(self, canvas: Canvas, markup: str, x: float, y: float, w: float, h: float,
             size: float = 7.5, role: str = "body", align: str = "center") -> None:
        style = TextStyle(family=self.ctx.fonts[role], size=size, min_size=min(size, 5.5),
                          color=HexColor(NAVY), align=align, valign="middle")
        draw_text(canvas, fit_markup(markup, w, h, style, self.ctx.art, where="tokens",
                                     field="sheet note"), x, y)


def _place(canvas: Canvas, form: str, trim: Rect) -> None:
    canvas.saveState()
    clip = canvas.beginPath()
    area = trim.outset(SEAM)
    clip.rect(area.x, area.y, area.w, area.h)
    canvas.clipPath(clip, stroke=0, fill=0)
    canvas.translate(trim.x, trim.y)
    canvas.doForm(form)
    canvas.restoreState()


def _spec(paper: tuple[float, float], item: tuple[float, float], settings: BoardSettings,
          cols: int = 0, rows: int = 0) -> SheetSpec:
    return SheetSpec(paper=paper, card=item, cols=cols, rows=rows,
                     mark_length=settings.mark_length, mark_offset=settings.mark_offset,
                     mark_stroke=settings.mark_stroke, duplex="none",
                     min_margin=settings.margin)


def _block(x: float, top: float, cols: int, rows: int, w: float, h: float) -> list[Slot]:
    """Slots of a grid with its top-left trim corner at (x, top), rows from the top."""
    slots = []
    for row in range(rows):
        for col in range(cols):
            r = Rect(x + col * w, top - (row + 1) * h, w, h)
            slots.append(Slot(len(slots), col, row, r, r))
    return slots


def piece_sheet(paper: tuple[float, float], settings: BoardSettings,
                standees: int) -> tuple[list[Slot], list[Slot]]:
    """Where the standees (two rows) and the badge go on a landscape sheet.

    The standees abut in a block, the badge sits ``BLOCK_GAP`` to its right;
    the whole group is centred on the paper.
    """
    sw, panel, foot = settings.standee
    sh = 2 * (panel + foot)
    per_row = (standees + 1) // 2 if standees > 1 else 1
    rows = (standees + per_row - 1) // per_row if standees else 0
    d = settings.badge_diameter
    block_w = per_row * sw if standees else 0.0
    total_w = block_w + (BLOCK_GAP if standees else 0.0) + d
    x0 = (paper[0] - total_w) / 2
    top = (paper[1] + rows * sh) / 2
    standee_slots = _block(x0, top, per_row, rows, sw, sh)[:standees]
    badge_x = x0 + block_w + (BLOCK_GAP if standees else 0.0)
    return standee_slots, _block(badge_x, paper[1] / 2 + d / 2, 1, 1, d, d)


@dataclass(frozen=True)
class Planned:
    settings: BoardSettings
    tokens: tuple[Token, ...]
    faces: dict[str, Face]
    standees: tuple[tuple[str, Face], ...]
    badge: Face


def resolve(ctx: Context) -> Planned:
    settings = ctx.model.board_settings
    return Planned(settings, tuple(token_list(ctx.model)), token_faces(ctx, settings),
                   tuple(standee_faces(ctx, settings)), badge_face(ctx, settings))


def draw(ctx: Context, plan: Planned, progress: Progress = None) -> list[Output]:
    name = ctx.output_name("tokens")
    if progress:
        progress(f"rendering {name}")
    data, pages = impose_tokens(ctx, plan.settings, plan.tokens, plan.faces, plan.standees,
                                plan.badge)
    counts: dict[str, int] = {}
    for token in plan.tokens:
        counts[token.component] = counts.get(token.component, 0) + 1
    counts["issa-badge"] = component_count(ctx.model, "badge")
    counts["company-logos"] = len(plan.standees)
    return [Output(name, data, pages, "tokens", "cardstock", counts)]


def impose_tokens(ctx: Context, settings: BoardSettings, tokens: Sequence[Token],
                  faces: dict[str, Face], standees: Sequence[tuple[str, Face]], badge: Face,
                  invariant: bool = True) -> tuple[bytes, int]:
    """The token sheets, then the standee and badge sheet; (PDF bytes, pages)."""
    portrait = ctx.options.page
    landscape = (portrait[1], portrait[0])
    buffer = io.BytesIO()
    kinds = {}
    for t in tokens:
        kinds[t.name] = kinds.get(t.name, 0) + 1
    summary = ", ".join(f"{n} {name.lower()}s" for name, n in kinds.items())
    info = DocInfo(f"{ctx.title} - tokens",
                   f"{ctx.title}: print-and-play tokens, {ctx.options.paper.upper()}: "
                   f"{summary}, the ISSA badge and {len(standees)} company logo standees",
                   keywords=", ".join(list(kinds) + ["ISSA badge", "company logos"]))
    canvas = new_canvas(buffer, portrait, ctx.fonts["body"].regular, info, invariant)
    forms = FormCache()
    token_forms = {cid: forms.add(face) for cid, face in faces.items()}
    standee_forms = [forms.add(face) for _, face in standees]
    badge_form = forms.add(badge)
    forms.define_all(canvas, ctx.art, ctx.options.ink_saver)
    text = _Text(ctx)
    pages = 0

    # -- token sheets -------------------------------------------------------
    cell = settings.token_cell
    spec = grid(portrait, cell, cell, gap=0.0, margin=settings.margin,
                mark_length=settings.mark_length, mark_offset=settings.mark_offset,
                mark_stroke=settings.mark_stroke, duplex="none")
    slots = front_slots(spec)
    layout = token_pages(tokens, spec.cols, spec.rows)
    outlined: set[str] = set()
    for n, page in enumerate(layout):
        canvas.setPageSize(portrait)
        used = [slots[i] for i, _ in page]
        for i, token in page:
            if token.component not in outlined:
                outlined.add(token.component)
                key = f"tokens-{token.component}"
                canvas.bookmarkPage(key, fit="XYZ", left=0, top=slots[i].trim.top + mm(6))
                canvas.addOutlineEntry(f"{token.name}s ({kinds[token.name]})", key, level=0)
            _place(canvas, token_forms[token.component], slots[i].trim)
        draw_crop_marks(canvas, crop_marks(spec, used), spec.mark_stroke)
        here: dict[str, int] = {}
        for _, token in page:
            here[token.name] = here.get(token.name, 0) + 1
        note = "  -  ".join(f"<b>{count} {name.upper()}S</b>" for name, count in here.items())
        top = max(s.trim.top for s in used)
        text.draw(canvas, f"{note}  -  cut along the crop marks; print at 100 %",
                  mm(10), top + mm(4.5), portrait[0] - mm(20), mm(4))
        if len(layout) > 1:
            text.draw(canvas, f"token sheet {n + 1} of {len(layout)}", mm(10), mm(2.5),
                      portrait[0] - mm(20), mm(4))
        canvas.showPage()
        pages += 1

    # -- standees and badge ---------------------------------------------------
    canvas.setPageSize(landscape)
    sw, panel, foot = settings.standee
    sh = 2 * (panel + foot)
    d = settings.badge_diameter
    standee_slots, badge_slot = piece_sheet(landscape, settings, len(standees))
    mark_spec = _spec(landscape, (sw, sh), settings, cols=1, rows=1)
    x0 = standee_slots[0].trim.x if standee_slots else badge_slot[0].trim.x
    top = max(s.trim.top for s in standee_slots) if standee_slots else badge_slot[0].trim.top
    block_w = (max(s.trim.right for s in standee_slots) - x0) if standee_slots else 0.0
    if standees:
        canvas.bookmarkPage("standees")
        canvas.addOutlineEntry(f"Company logos with bases ({len(standees)})", "standees",
                               level=0)
    for slot, form in zip(standee_slots, standee_forms):
        _place(canvas, form, slot.trim)
    if standee_slots:
        draw_crop_marks(canvas, crop_marks(mark_spec, standee_slots), settings.mark_stroke)
    badge_x = badge_slot[0].trim.x
    canvas.bookmarkPage("badge")
    canvas.addOutlineEntry("ISSA badge (1)", "badge", level=0)
    _place(canvas, badge_form, badge_slot[0].trim)
    draw_crop_marks(canvas, crop_marks(_spec(landscape, (d, d), settings, 1, 1), badge_slot),
                    settings.mark_stroke)
    head = top + mm(4.5)
    text.draw(canvas, f"<b>{len(standees)} COMPANY LOGOS</b>  -  cut out; fold on the dashed "
              "lines; glue the blank sides together; fold the feet out to stand.",
              x0, head, block_w, mm(4), size=7, align="left")
    text.draw(canvas, "<b>ISSA BADGE</b>  -  cut out, square or round.", badge_x,
              badge_slot[0].trim.top + mm(4.5), d, mm(4), size=7, align="left")
    canvas.showPage()
    pages += 1
    canvas.save()
    return buffer.getvalue(), pages
