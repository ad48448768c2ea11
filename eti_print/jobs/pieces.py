"""Pieces (``pieces:`` in pack.yaml): tokens, standees, badges, punch-outs, cut from sheets.

An entry is one kind of piece: its items (``items: [file.key]``, narrowed
by ``where: {field: value}``, or ``cards:`` written in pack.yaml), its copies
(``count: FIELD`` per item, or ``copies: N``), one face ``layout`` and the
piece's trim ``width`` and ``height``.  Lengths may be templates, so a game's
settings can size its pieces (``"{{ token.cell }}mm"``).  Templates see the
base names, the entry's game ``context:``, and each item as ``piece`` (and
under the name ``as:`` gives).

Entries go into ``SLUG-pieces.pdf`` (or ``SLUG-OUTPUT.pdf``), in order, on
pages of ``margin`` (default 8 mm) free paper edge.  An entry with
``page: portrait`` or ``landscape`` starts a new page.  The entries of one
page are placed side by side as blocks, each with its crop marks and a note
above it, when they fit on one page; otherwise, when they are all one size,
they flow through a grid of cells 2.5 mm apart (``--gutter``), each piece's
bleed filling its half of the gutter, across as many pages as they
need, each entry starting a new row, with marks on every cut line.  Each
distinct face is drawn once as a PDF form.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from reportlab.lib.colors import HexColor
from reportlab.pdfgen.canvas import Canvas

from ..context import Output
from ..errors import InputError, Problem
from ..imposition import Rect, SheetSpec, Slot, bounding, crop_marks, front_slots, grid
from ..pdfwriter import DocInfo, new_canvas
from ..readability import rules as text_rules
from ..render.faces import Face, FaceResolver
from ..render.marks import draw_crop_marks
from ..render.scale import Footprint, clear_of, draw_scale_check, find_spot, reserve
from ..render.sheets import FormCache
from ..scope import base_context
from ..text import TextStyle, fit_markup
from ..text import draw as draw_text
from ..units import mm, to_points

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context, Progress

KEY = "pieces"
#: Defaults of an entry's optional settings.
PIECE_MARGIN = mm(8)
#: Space between two blocks of pieces on one page.
BLOCK_GAP = mm(10)
#: Abutting pieces overlap their neighbours by this much, so no viewer shows a
#: hairline seam between two cells of the same colour.
SEAM = 0.3
#: Space between two pieces of a grid flow, unless ``--gutter`` says otherwise: each
#: piece's bleed fills its half, so a cut up to 1 mm off shows its own colour, and the
#: marks between them are 1.5 mm long.
PIECE_GUTTER = mm(2.5)
#: How far a piece's face is drawn past its trim (the gutter clips it to its half).
PIECE_BLEED = mm(3)
#: The sheet notes: navy body text.
NOTE_INK = "#1E2430"


@dataclass(frozen=True)
class Group:
    """One resolved entry: its pieces' faces in print order (copies share a face)."""

    id: str
    title: str
    note: str
    width: float
    height: float
    faces: tuple[Face, ...]
    rows: int | None       # the block's rows, when given

    @property
    def size(self) -> tuple[float, float]:
        return self.width, self.height

    def label(self, count: int) -> str:
        """The note's bold label: ``12 GREEN TOKENS``, or just ``BADGE`` for one piece."""
        title = self.title.upper()
        return f"<b>{count} {title}</b>" if count > 1 else f"<b>{title}</b>"


@dataclass(frozen=True)
class Block:
    """A group placed as one block of ``cols`` x ``rows`` pieces on a block page."""

    group: Group
    slots: tuple[Slot, ...]


@dataclass(frozen=True)
class Page:
    """One planned page: ``blocks`` side by side, or one sheet of a grid flow."""

    size: tuple[float, float]
    blocks: tuple[Block, ...] = ()
    grid: SheetSpec | None = None
    cells: tuple[tuple[int, Group], ...] = ()     # (cell index, group) on a grid page
    number: tuple[int, int] | None = None          # (n, of) within a grid flow
    scale: Rect | None = None                      # where the scale check goes (first page)


@dataclass(frozen=True)
class Sheetful:
    """The planned pages of one output."""

    output: str
    groups: tuple[Group, ...]
    pages: tuple[Page, ...]
    margin: float


# ---------------------------------------------------------------------------
# resolve


def entry_items(ctx: Context, index: int, entry: dict[str, Any]) -> list[tuple[str, int, Any]]:
    """The entry's items, as (source ref, index in the source, item)."""
    found: list[tuple[str, int, Any]] = []
    where = entry.get("where") or {}
    for ref in entry.get("items") or ():
        for i, item in enumerate(ctx.dataset.items(ref)):
            if all(isinstance(item, dict) and item.get(k) == v for k, v in where.items()):
                found.append((ref, i, item))
    for i, card in enumerate(entry.get("cards") or ()):
        found.append((f"pieces[{index}].cards", i, card))
    return found


def copies(entry: dict[str, Any], item: Any) -> int:
    """How many of one item to print: its ``count`` field, else ``copies`` (default 1)."""
    key = entry.get("count")
    if key is not None:
        value = item.get(key, 1) if isinstance(item, dict) else 1
        return value if isinstance(value, int) and not isinstance(value, bool) else 1
    return int(entry.get("copies", 1))


def printed_count(ctx: Context, index: int, entry: dict[str, Any]) -> int:
    """How many pieces the entry prints (what the game's rules can compare to its data)."""
    return sum(copies(entry, item) for _, _, item in entry_items(ctx, index, entry))


def _length(ctx: Context, entry: dict[str, Any], index: int, key: str, default: float,
            context: dict[str, Any]) -> float:
    manifest = ctx.dataset.manifest
    if key not in entry:
        return default
    line, _ = manifest.where(("pieces", index, key))
    field = f"pieces[{index}].{key}"
    value = str(ctx.env.render_string(str(entry[key]), context, where=manifest.path,
                                      line=line, field=field)).strip()
    points = to_points(value, where=manifest.path, line=line, field=field,
                       limit="piece" if key in ("width", "height") else "length")
    if not points > 0 and key in ("width", "height") or points < 0:
        raise InputError(manifest.problem(("pieces", index, key), f"{key} must be more than 0"
                                          if key in ("width", "height") else
                                          f"{key} must be 0 or more"))
    return points


def _describe(ctx: Context, ref: str, index: int, item: Any) -> str:
    label = ""
    if isinstance(item, dict):
        label = str(item.get("name") or item.get("title") or item.get("id") or "")
    return f"piece {ref}[{index}]" + (f" {label!r}" if label else "")


def entry_faces(ctx: Context, index: int, entry: dict[str, Any], bleed: float,
                **resolver_options: Any) -> tuple[float, float, list[tuple[Any, Face]]]:
    """A pieces entry's trim size and every item's face (with its item), resolved at
    ``bleed``; every problem of every item at once.  The sheets of this job and the
    exports (at a print service's bleed) both resolve pieces through it."""
    manifest = ctx.dataset.manifest
    sizing = base_context(ctx, entry.get("context"), None)
    width = _length(ctx, entry, index, "width", 0.0, sizing)
    height = _length(ctx, entry, index, "height", 0.0, sizing)
    line, _ = manifest.where(("pieces", index, "layout"))
    layout = ctx.layouts.get(entry["layout"], where=manifest.path, line=line,
                             field_name=f"pieces[{index}].layout")
    resolver = FaceResolver(ctx.env, ctx.fonts, ctx.art, width, height, bleed,
                            **resolver_options)
    name = entry.get("as")
    faces: list[tuple[Any, Face]] = []
    problems: list[Problem] = []
    for ref, i, item in entry_items(ctx, index, entry):
        names = {"piece": item, **({name: item} if name else {})}
        context = base_context(ctx, entry.get("context"), item, **names)
        try:
            faces.append((item, resolver.resolve(layout, context,
                                                 _describe(ctx, ref, i, item))))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return width, height, faces


def _resolve_entry(ctx: Context, index: int, entry: dict[str, Any]) -> tuple[Group, float]:
    sizing = base_context(ctx, entry.get("context"), None)
    margin = _length(ctx, entry, index, "margin", PIECE_MARGIN, sizing)
    width, height, resolved = entry_faces(ctx, index, entry, PIECE_BLEED,
                                          ink_saver=ctx.options.ink_saver,
                                          text_rules=text_rules(ctx.dataset))
    faces = [face for item, face in resolved for _ in range(copies(entry, item))]
    group = Group(entry["id"], entry["title"], entry.get("note", ""), width, height,
                  tuple(faces), entry.get("rows"))
    return group, margin


def _block_slots(x: float, top: float, cols: int, rows: int, w: float, h: float,
                 n: int) -> tuple[Slot, ...]:
    """Slots of a grid with its top-left trim corner at (x, top), rows from the top."""
    slots = []
    for row in range(rows):
        for col in range(cols):
            r = Rect(x + col * w, top - (row + 1) * h, w, h)
            slots.append(Slot(len(slots), col, row, r, r))
    return tuple(slots[:n])


def _shape(group: Group, rows: int) -> tuple[int, int]:
    n = len(group.faces)
    cols = max(1, math.ceil(n / rows))
    return cols, math.ceil(n / cols) if n else 0


def block_page(paper: tuple[float, float], groups: Sequence[Group],
               margin: float) -> Page | None:
    """The groups side by side as blocks, centred on the paper, or None if they do not
    fit on one page.  A block without ``rows`` takes the fewest rows that fit."""
    room_w, room_h = paper[0] - 2 * margin, paper[1] - 2 * margin
    rows = [g.rows or 1 for g in groups]

    def widths() -> list[float]:
        return [_shape(g, r)[0] * g.width for g, r in zip(groups, rows)]

    while True:
        total = sum(widths()) + BLOCK_GAP * (len(groups) - 1)
        if total <= room_w + 1e-6:
            break
        # give the widest block that may still grow one more row
        growable = [i for i, g in enumerate(groups) if g.rows is None
                    and _shape(g, rows[i])[0] > 1]
        if not growable:
            return None
        widest = max(growable, key=lambda i: widths()[i])
        rows[widest] += 1
    if any(_shape(g, r)[1] * g.height > room_h + 1e-6 for g, r in zip(groups, rows)):
        return None
    x = (paper[0] - total) / 2
    blocks = []
    for g, r in zip(groups, rows):
        cols, used_rows = _shape(g, r)
        top = (paper[1] + used_rows * g.height) / 2
        blocks.append(Block(g, _block_slots(x, top, cols, used_rows, g.width, g.height,
                                            len(g.faces))))
        x += cols * g.width + BLOCK_GAP
    return Page(paper, tuple(blocks))


def flow_cells(counts: Sequence[int], cols: int, rows: int,
               kept: frozenset[int] = frozenset()) -> list[list[tuple[int, int]]]:
    """Pieces of groups with ``counts`` placed on pages of ``cols`` x ``rows`` cells:
    per page, (cell index, group index).  Each group starts a new row; a full page
    continues on the next.  The ``kept`` cells of the first page stay empty (the
    scale check's)."""
    if cols < 1 or rows < 1:
        raise ValueError("a grid needs at least one cell")
    pages: list[list[tuple[int, int]]] = [[]]
    cell = 0
    for g, count in enumerate(counts):
        if count and cell % cols:
            cell += cols - cell % cols
        for _ in range(count):
            while len(pages) == 1 and cell in kept:
                cell += 1
            if cell >= cols * rows:
                pages.append([])
                cell = 0
            pages[-1].append((cell, g))
            cell += 1
    return pages if pages[0] else []


def grid_pages(paper: tuple[float, float], groups: Sequence[Group],
               margin: float, gutter: float = PIECE_GUTTER,
               scale: tuple[float, float] | None = None) -> list[Page]:
    """Equal-sized groups flowing through a grid of cells ``gutter`` apart, page after
    page; the first page keeps the cells in its bottom right corner that a scale check
    of ``scale`` (width, height) needs."""
    w, h = groups[0].size
    spec = grid(paper, w, h, gap=gutter, margin=margin, duplex="none")
    kept = reserve(front_slots(spec), scale) if scale is not None else None
    flow = flow_cells([len(g.faces) for g in groups], spec.cols, spec.rows,
                      kept[0] if kept else frozenset())
    spot = Rect(*kept[1], *scale) if kept and scale else None
    return [Page(paper, grid=spec, cells=tuple((cell, groups[g]) for cell, g in page),
                 number=(n + 1, len(flow)) if len(flow) > 1 else None,
                 scale=spot if n == 0 else None)
            for n, page in enumerate(flow)]


def _block_scale(page: Page, size: tuple[float, float], margin: float) -> Page:
    """A block page with the scale check where it fits clear of every block, its marks
    and its note (the paper's ``margin`` kept)."""
    reach = mm(4)      # crop marks: 0.5 mm off the trim, 3 mm long
    taken = [bounding(s.trim for s in b.slots).expanded(reach, reach, reach, mm(9))
             for b in page.blocks]
    spot = find_spot(page.size, size, taken, margin)
    return page if spot is None else replace(page, scale=Rect(*spot, *size))


def _paper(ctx: Context, orientation: str | None) -> tuple[float, float]:
    w, h = ctx.options.page
    if orientation == "landscape":
        return max(w, h), min(w, h)
    return min(w, h), max(w, h)


def plan_output(ctx: Context, output: str,
                entries: Sequence[tuple[int, dict[str, Any], Group, float]]) -> Sheetful:
    """Every page of one output: entries split into pages at ``page:``, each page's
    groups as blocks if they fit, else as a grid flow."""
    manifest = ctx.dataset.manifest
    runs: list[list[tuple[int, dict[str, Any], Group, float]]] = []
    for found in entries:
        if not runs or "page" in found[1]:
            runs.append([])
        runs[-1].append(found)
    pages: list[Page] = []
    for run in runs:
        index, first, _, margin = run[0]
        paper = _paper(ctx, first.get("page"))
        groups = [g for _, _, g, _ in run if g.faces]
        if not groups:
            continue
        page = block_page(paper, groups, margin)
        scale = Footprint(ctx.sheets.scale).size if not pages else None
        if page is not None:
            pages.append(page if scale is None else _block_scale(page, scale, margin))
            continue
        sizes = {g.size for g in groups}
        fits = all(g.width <= paper[0] - 2 * margin and g.height <= paper[1] - 2 * margin
                   for g in groups)
        if len(sizes) > 1 or not fits:
            problem = ("a piece is larger than the paper less its margins" if not fits else
                       "pieces of different sizes do not fit on one page together")
            raise InputError(manifest.problem(
                ("pieces", index), problem,
                hint="start a new page with page: portrait or landscape" if fits else
                     "make the piece smaller, the margin narrower or the paper larger"))
        try:
            gutter = PIECE_GUTTER if ctx.options.gutter is None else mm(ctx.options.gutter)
            pages.extend(grid_pages(paper, groups, margin, gutter, scale))
        except InputError as exc:
            line, _ = manifest.where(("pieces", index))
            raise InputError([Problem(p.message, manifest.path, line, None, f"pieces[{index}]",
                                      p.hint) for p in exc.problems]) from None
    return Sheetful(output, tuple(g for _, _, g, _ in entries), tuple(pages), entries[0][3])


def resolve(ctx: Context) -> list[Sheetful]:
    """Every piece's face, and every page planned; every problem of every entry."""
    from . import each_entry
    resolved = each_entry(ctx, KEY, lambda i, e: (i, e, *_resolve_entry(ctx, i, e)))
    outputs: dict[str, list[tuple[int, dict[str, Any], Group, float]]] = {}
    for found in resolved:
        outputs.setdefault(found[1].get("output", "pieces"), []).append(found)
    problems: list[Problem] = []
    planned = []
    for output, entries in outputs.items():
        try:
            planned.append(plan_output(ctx, output, entries))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return planned


# ---------------------------------------------------------------------------
# draw


def _note_text(ctx: Context, canvas: Canvas, markup: str, x: float, y: float, w: float,
               h: float, size: float = 7.5, align: str = "center") -> None:
    """A sheet note (labels, cutting advice) in navy body text, fitted to its box."""
    style = TextStyle(family=ctx.fonts["body"], size=size, min_size=min(size, 5.5),
                      color=HexColor(NOTE_INK), align=align, valign="middle")
    draw_text(canvas, fit_markup(markup, w, h, style, ctx.art, where="pieces",
                                 field="sheet note"), x, y)


def _place(canvas: Canvas, form: str, trim: Rect, bleed: float = SEAM) -> None:
    canvas.saveState()
    clip = canvas.beginPath()
    area = trim.outset(bleed)
    clip.rect(area.x, area.y, area.w, area.h)
    canvas.clipPath(clip, stroke=0, fill=0)
    canvas.translate(trim.x, trim.y)
    canvas.doForm(form)
    canvas.restoreState()


def _note(*parts: str) -> str:
    return "  -  ".join(p for p in parts if p)


def draw(ctx: Context, plan: list[Sheetful], progress: Progress = None) -> list[Output]:
    outputs = []
    for sheetful in plan:
        name = ctx.output_name(sheetful.output)
        if progress:
            progress(f"rendering {name}")
        data, pages = impose_pieces(ctx, sheetful)
        outputs.append(Output(name, data, pages, "pieces", "cardstock",
                              {g.id: len(g.faces) for g in sheetful.groups}))
    return outputs


def impose_pieces(ctx: Context, sheetful: Sheetful, invariant: bool = True) -> tuple[bytes, int]:
    """The planned pages of one output; (PDF bytes, pages)."""
    groups = sheetful.groups
    summary = ", ".join(f"{len(g.faces)} {g.title}" for g in groups)
    info = DocInfo(f"{ctx.title} - {sheetful.output}",
                   f"{ctx.title}: print-and-play {sheetful.output}, "
                   f"{ctx.options.paper.upper()}: {summary}",
                   keywords=", ".join(g.title for g in groups))
    first = sheetful.pages[0].size if sheetful.pages else ctx.options.page
    canvas = new_canvas(first, ctx.fonts["body"].regular, info, invariant)
    forms = FormCache()
    names = {id(g): [forms.add(face) for face in g.faces] for g in groups}
    # through a build cache (watch), a piece's form is drawn again only where the record
    # of the last drawing no longer holds (render.replay)
    records = ctx.cache.form_records(ctx.output_name(sheetful.output)) \
        if ctx.cache is not None else None
    forms.define_all(canvas, ctx.art, ctx.options.ink_saver, records)
    outlined: set[str] = set()
    placed: dict[int, int] = {}      # pieces of each group placed so far, over all pages

    def bookmark(group: Group, top: float) -> None:
        if group.id in outlined:
            return
        outlined.add(group.id)
        key = f"{sheetful.output}-{group.id}"
        canvas.bookmarkPage(key, fit="XYZ", left=0, top=top + mm(6))
        canvas.addOutlineEntry(f"{group.title} ({len(group.faces)})", key, level=0)

    for page in sheetful.pages:
        canvas.setPageSize(page.size)
        if page.grid is not None:
            spec = page.grid
            slots = front_slots(spec)
            used = [slots[i] for i, _ in page.cells]
            seen: dict[int, int] = {}           # pieces of each group on this page
            for cell, group in page.cells:
                bookmark(group, slots[cell].trim.top)
                n = placed.get(id(group), 0)
                placed[id(group)] = n + 1
                seen[id(group)] = seen.get(id(group), 0) + 1
                _place(canvas, names[id(group)][n], slots[cell].trim,
                       max(SEAM, spec.gutter / 2 + SEAM / 2))
            marks = crop_marks(spec, used)
            draw_crop_marks(canvas, marks if page.scale is None else clear_of(marks, page.scale),
                            spec.mark_stroke)
            here = {id(g): g for _, g in page.cells}
            labels = [g.label(seen[k]) for k, g in here.items()]
            top = max(s.trim.top for s in used)
            _note_text(ctx, canvas,
                       _note(*labels, *dict.fromkeys(g.note for g in here.values())),
                       mm(10), top + mm(4.5), page.size[0] - mm(20), mm(4))
            if page.number is not None:
                _note_text(ctx, canvas, f"sheet {page.number[0]} of {page.number[1]}",
                           mm(10), mm(2.5), page.size[0] - mm(20), mm(4))
        else:
            for block in page.blocks:
                group = block.group
                top = max(s.trim.top for s in block.slots)
                bookmark(group, top)
                for slot, form in zip(block.slots, names[id(group)]):
                    _place(canvas, form, slot.trim)
                mark_spec = SheetSpec(paper=page.size, card=group.size, cols=1, rows=1,
                                      duplex="none", min_margin=sheetful.margin)
                draw_crop_marks(canvas, crop_marks(mark_spec, list(block.slots)),
                                mark_spec.mark_stroke)
                x0 = min(s.trim.x for s in block.slots)
                width = max(s.trim.right for s in block.slots) - x0
                _note_text(ctx, canvas, _note(group.label(len(group.faces)), group.note), x0,
                           top + mm(4.5), width, mm(4), size=7, align="left")
        if page.scale is not None:
            draw_scale_check(canvas, ctx.sheets.scale, page.scale.x, page.scale.y,
                             ctx.fonts["body"].regular)
        canvas.showPage()
    return canvas.getpdfdata(), len(sheetful.pages)

