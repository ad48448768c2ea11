"""Generic components any pack declares in ``pack.yaml``: boards and reference sheets.

Cards, two-sided markers, square chits and round tokens are decks
(``render/cards.py``): a sheet setting in ``templates/sheets.yaml`` and a
front and a back layout, imposed on a grid with registered duplex backs.
This module renders the two kinds of component that are not cut from a grid:

* **boards** (``boards:``): one layout (``templates/layouts/NAME.yaml``, the
  card layout engine: boxes, ``repeat``, ``when``, ``extends``) drawn at true
  size into one PDF form.  A board larger than the paper is cut into equal
  sheets by ``imposition.tile`` that share a glue strip; each sheet is drawn
  by ``render.boards.draw_tile_page`` (the board clipped to the sheet, glue
  strips, crop marks and page map), exactly as E.T.I.'s own boards are.
  Boards go into ``SLUG-boards.pdf`` (or ``SLUG-OUTPUT.pdf``).
* **reference sheets** (``references:``): a jinja2 template in ``templates/``
  rendering the document markup of ``render/document.py`` (headings,
  paragraphs, lists, tables, notes, art), set on pages the size of the chosen
  paper, one PDF each: ``SLUG-ID.pdf``.  ``pages`` caps its length (1 for a
  one-page rules reference): longer is an error, never a silent overflow.

What the templates see:

* a board layout: ``board`` (the manifest entry, with ``width``/``height``
  in millimetres, also as ``width_mm``/``height_mm``, and ``width_in``/
  ``height_in``), ``data`` (every data file by name), ``lookup(list, id)``,
  ``pack`` and ``ink_saver`` (as card layouts do);
* a reference template: ``reference`` (the manifest entry), ``data``,
  ``lookup``, ``pack``, ``ink_saver`` and ``print`` (``paper``, ``duplex``).

Nothing here knows any game: E.T.I. declares neither, so its outputs do not
change.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any, Sequence, TYPE_CHECKING

from reportlab.lib.colors import HexColor

from ..errors import InputError, Problem
from ..imposition import DEFAULT_MARK_LENGTH, DEFAULT_MARK_OFFSET, DEFAULT_MARK_STROKE, Tiling, tile
from ..units import mm, paper_size, to_mm, to_points
from .faces import Face, FaceResolver, draw_face
from ..pdfwriter import DocInfo, new_canvas

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context, Output, Progress

#: Defaults of a board entry's optional lengths.
BOARD_BLEED = mm(3)
BOARD_OVERLAP = mm(10)
BOARD_MARGIN = mm(8)
#: Page margins of a reference sheet (top, right, bottom, left).
REFERENCE_MARGINS = (mm(17), mm(13), mm(15), mm(13))


def render_components(ctx: "Context", progress: "Progress" = None) -> list["Output"]:
    """Every board and reference sheet the pack declares, as outputs."""
    outputs: list["Output"] = []
    problems: list[Problem] = []
    for render in (render_boards, render_references):
        try:
            outputs.extend(render(ctx, progress))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return outputs


def _lookup(ctx: "Context"):
    ds = ctx.dataset

    def lookup(list_ref: str, item_id: Any) -> Any:
        found = ds.by_id(list_ref).get(item_id)
        if found is None:
            raise ValueError(f"no {item_id!r} in {list_ref}")
        return found
    return lookup


def _base_context(ctx: "Context") -> dict[str, Any]:
    from .cards import DocsView
    ds = ctx.dataset
    return {"data": DocsView(ds.docs), "lookup": _lookup(ctx),
            "pack": {"name": ds.config["name"], "slug": ds.slug},
            "ink_saver": bool(ctx.options.ink_saver)}


# ---------------------------------------------------------------------------
# Boards


@dataclass(frozen=True)
class TileSpec:
    """What ``render.boards.draw_tile_page`` reads of a board's spec."""

    width: float
    height: float
    bleed: float


@dataclass(frozen=True)
class TileMarks:
    """What ``render.boards.draw_tile_page`` reads of the tiling settings."""

    mark_length: float = DEFAULT_MARK_LENGTH
    mark_offset: float = DEFAULT_MARK_OFFSET
    mark_stroke: float = DEFAULT_MARK_STROKE


@dataclass(frozen=True)
class GenericBoard:
    """One declared board, resolved: its face and how it is tiled."""

    id: str
    title: str
    spec: TileSpec
    face: Face
    margin: float
    overlap: float
    output: str


def _length(ctx: "Context", entry: dict[str, Any], index: int, key: str,
            default: float) -> float:
    manifest = ctx.dataset.manifest
    if key not in entry:
        return default
    line, _ = manifest.where(("boards", index, key))
    value = to_points(entry[key], where=manifest.path, line=line,
                      field=f"boards[{index}].{key}")
    if value < 0 or (key in ("width", "height") and value <= 0):
        raise InputError(manifest.problem(("boards", index, key),
                                          f"{key} must be more than 0" if key in ("width", "height")
                                          else f"{key} must be 0 or more"))
    return value


def board_context(ctx: "Context", entry: dict[str, Any], width: float,
                  height: float) -> dict[str, Any]:
    """What a board layout's templates see."""
    board = dict(entry)
    board.update(width=round(to_mm(width), 4), height=round(to_mm(height), 4),
                 width_mm=round(to_mm(width), 4), height_mm=round(to_mm(height), 4),
                 width_in=round(width / 72.0, 4), height_in=round(height / 72.0, 4))
    context = _base_context(ctx)
    context["board"] = board
    return context


def resolve_boards(ctx: "Context") -> list[GenericBoard]:
    """Every board of ``boards:``, resolved (templates evaluated, text fitted)."""
    ds = ctx.dataset
    manifest = ds.manifest
    entries = ds.config.get("boards") or []
    problems: list[Problem] = []
    boards: list[GenericBoard] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(entries):
        if entry["id"] in seen:
            problems.append(manifest.problem(("boards", index, "id"),
                                             f"duplicate board id {entry['id']!r}"))
            continue
        seen[entry["id"]] = index
        try:
            width = _length(ctx, entry, index, "width", 0.0)
            height = _length(ctx, entry, index, "height", 0.0)
            bleed = _length(ctx, entry, index, "bleed", BOARD_BLEED)
            overlap = _length(ctx, entry, index, "overlap", BOARD_OVERLAP)
            margin = _length(ctx, entry, index, "margin", BOARD_MARGIN)
            line, _ = manifest.where(("boards", index, "layout"))
            layout = ctx.layouts.get(entry["layout"], where=manifest.path, line=line,
                                     field_name=f"boards[{index}].layout")
            resolver = FaceResolver(ctx.env, ctx.fonts, ctx.art, width, height, bleed,
                                    ink_saver=ctx.options.ink_saver)
            face = resolver.resolve(layout, board_context(ctx, entry, width, height),
                                    f"board {entry['id']!r}")
            # the tiling must exist on this paper (a margin too wide fails here, located)
            paper = paper_size(ctx.options.paper)
            try:
                tile(width, height, paper[0], paper[1], margin, overlap)
            except InputError as exc:
                line, _ = manifest.where(("boards", index))
                raise InputError([Problem(p.message, manifest.path, line, None,
                                          f"boards[{index}]", p.hint)
                                  for p in exc.problems]) from None
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        boards.append(GenericBoard(entry["id"], entry["title"], TileSpec(width, height, bleed),
                                   face, margin, overlap, entry.get("output", "boards")))
    if problems:
        raise InputError(problems)
    return boards


def board_tiling(board: GenericBoard, paper: tuple[float, float]) -> Tiling:
    return tile(board.spec.width, board.spec.height, paper[0], paper[1], board.margin,
                board.overlap)


def render_boards(ctx: "Context", progress: "Progress" = None) -> list["Output"]:
    from ..context import Output
    if not ctx.dataset.config.get("boards"):
        return []
    _need_fonts(ctx, ("body", "label"), "boards")
    boards = resolve_boards(ctx)
    groups: dict[str, list[GenericBoard]] = {}
    for board in boards:
        groups.setdefault(board.output, []).append(board)
    outputs = []
    for output, group in groups.items():
        name = f"{ctx.slug}-{output}.pdf"
        if progress:
            progress(f"rendering {name}")
        data, pages = impose_boards(ctx, group)
        outputs.append(Output(name, data, pages, "boards", "cardstock or heavy paper",
                              {b.id: 1 for b in group}))
    return outputs


def impose_boards(ctx: "Context", boards: Sequence[GenericBoard],
                  invariant: bool = True) -> tuple[bytes, int]:
    """Each board drawn once as a form and placed, clipped, on each of its sheets."""
    from .boards import draw_tiled
    paper = paper_size(ctx.options.paper)
    buffer = io.BytesIO()
    info = DocInfo(f"{ctx.title} - boards",
                   f"{ctx.title}: print-and-play boards at true size, "
                   f"{ctx.options.paper.upper()}, tiled with glue strips where larger "
                   f"than the paper", keywords=", ".join(b.title for b in boards))
    canvas = new_canvas(buffer, paper, ctx.fonts["body"].regular, info, invariant)
    art = ctx.art
    forms = []
    for n, board in enumerate(boards):
        name = f"board{n}"
        b, w, h = board.spec.bleed, board.spec.width, board.spec.height
        canvas.beginForm(name, -b, -b, w + b, h + b)
        draw_face(canvas, board.face, art, ctx.options.ink_saver)
        canvas.endForm()
        forms.append(name)
    tilings = [board_tiling(board, paper) for board in boards]
    pages = draw_tiled(canvas, ctx, boards, forms, tilings, TileMarks())
    canvas.save()
    return buffer.getvalue(), pages


def _need_fonts(ctx: "Context", roles: Sequence[str], what: str) -> None:
    missing = [r for r in roles if r not in ctx.fonts.families]
    if missing:
        raise InputError(Problem(f"{what} need the font role{'s' if len(missing) > 1 else ''} "
                                 f"{', '.join(missing)}", "fonts/fonts.yaml", field="fonts",
                                 hint="map the role to a TTF in fonts/"))


# ---------------------------------------------------------------------------
# Reference sheets


def theme_for(ctx: "Context", entry: dict[str, Any]) -> Any:
    """A document theme on the chosen paper, in the entry's colours."""
    from .document import Theme
    colours = {k: HexColor(v) for k, v in (entry.get("colours") or {}).items()}
    size = float(entry.get("size", 9.0))
    return Theme(page=paper_size(ctx.options.paper), margins=REFERENCE_MARGINS,
                 body=ctx.fonts["body"], heading=ctx.fonts["title"], label=ctx.fonts["label"],
                 size=size, leading=1.32, **colours)


def reference_context(ctx: "Context", entry: dict[str, Any]) -> dict[str, Any]:
    context = _base_context(ctx)
    context["reference"] = dict(entry)
    context["print"] = {"paper": ctx.options.paper, "duplex": ctx.options.duplex}
    return context


def render_reference(ctx: "Context", index: int, entry: dict[str, Any]) -> "Output":
    from ..context import Output
    from .document import render, template_locator
    manifest = ctx.dataset.manifest
    line, _ = manifest.where(("references", index, "template"))
    template = entry["template"]
    markup = ctx.env.render_file(template, reference_context(ctx, entry), where=manifest.path,
                                 line=line, field=f"references[{index}].template")
    where = f"{ctx.env.template_dir}/{template}"
    folder = where.rsplit("/", 1)[0] + "/"
    result = render(str(markup), theme_for(ctx, entry), ctx.art, where=where,
                    locate=template_locator(ctx.env, folder))
    limit = entry.get("pages")
    if limit is not None and result.pages > limit:
        raise InputError(manifest.problem(
            ("references", index, "pages"),
            f"{entry['title']!r} takes {result.pages} pages, more than {limit}",
            hint=f"shorten {where}, or lower its text size (size:)"))
    return Output(f"{ctx.slug}-{entry['id']}.pdf", result.data, result.pages, "reference",
                  "paper")


def render_references(ctx: "Context", progress: "Progress" = None) -> list["Output"]:
    entries = ctx.dataset.config.get("references") or []
    if not entries:
        return []
    _need_fonts(ctx, ("body", "title", "label"), "reference sheets")
    outputs = []
    problems: list[Problem] = []
    manifest = ctx.dataset.manifest
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if entry["id"] in seen:
            problems.append(manifest.problem(("references", index, "id"),
                                             f"duplicate reference id {entry['id']!r}"))
            continue
        seen.add(entry["id"])
        if progress:
            progress(f"rendering {ctx.slug}-{entry['id']}.pdf")
        try:
            outputs.append(render_reference(ctx, index, entry))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return outputs
