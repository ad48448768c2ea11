"""Boards (``boards:`` in pack.yaml): layouts drawn at true size, tiled onto sheets.

An entry names a layout (``templates/layouts/NAME.yaml``, the card layout
engine: boxes, ``repeat``, ``when``, ``extends``) and the board's trim size.
With ``for_each: file.key`` it is one board per item of that list, the item
seen by templates as ``item`` (or the name ``as:`` gives); the boxes whose
templates never mention that name are the same on every board, resolved
once and drawn once as a shared PDF form.  A board larger than the paper is
cut into equal sheets (``imposition_tiling.tile``) that share a glue strip
(``render.tiles``).  Boards go into ``SLUG-boards.pdf`` (or ``SLUG-OUTPUT.pdf``).

Templates see the base names (``scope``), the entry's game ``context:`` if
any, and ``board``: the entry with its size as ``width``/``height`` and
``width_mm``/``height_mm`` in millimetres and ``width_in``/``height_in``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..context import Output
from ..errors import InputError, Problem
from ..imposition import DEFAULT_MARK_LENGTH, DEFAULT_MARK_OFFSET, DEFAULT_MARK_STROKE, Rect
from ..imposition_tiling import Tiling, tile
from ..layout import Layout
from ..pdfwriter import DocInfo, new_canvas
from ..readability import rules as text_rules
from ..render.faces import Face, FaceResolver, draw_face
from ..render.tiles import draw_tiled
from ..scope import base_context
from ..units import mm, to_mm, to_points

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context, Progress

KEY = "boards"
#: Defaults of a board entry's optional lengths.
BOARD_BLEED = mm(3)
BOARD_OVERLAP = mm(10)
BOARD_MARGIN = mm(8)


@dataclass(frozen=True)
class TileSpec:
    """What ``render.tiles.draw_tile_page`` reads of a board's size."""

    width: float
    height: float
    bleed: float


@dataclass(frozen=True)
class TileMarks:
    """What ``render.tiles.draw_tile_page`` reads of the mark settings."""

    mark_length: float = DEFAULT_MARK_LENGTH
    mark_offset: float = DEFAULT_MARK_OFFSET
    mark_stroke: float = DEFAULT_MARK_STROKE


@dataclass(frozen=True)
class Layer:
    """A run of consecutive boxes drawn together; ``shared`` names a run that is the
    same on every board of a ``for_each`` entry (drawn once, as a form)."""

    shared: str | None
    face: Face


@dataclass(frozen=True)
class Board:
    """One board to print: its id, title, size, tiling settings and resolved layers."""

    id: str
    title: str
    spec: TileSpec
    layers: tuple[Layer, ...]
    margin: float
    overlap: float
    output: str
    entry: str          # the pack.yaml entry's id (output counts)
    #: What a seam must not cross: (box name, rect in board coordinates, y up).
    guarded: tuple[tuple[str, Rect], ...] = ()
    #: The pack.yaml entry's index, to locate a seam problem.
    index: int = 0

    @property
    def face(self) -> Face:
        """The whole board as one face (every layer's operations in order)."""
        first = self.layers[0].face
        return Face(first.width, first.height, first.bleed,
                    tuple(op for layer in self.layers for op in layer.face.ops))


def _length(ctx: Context, entry: dict[str, Any], index: int, key: str,
            default: float) -> float:
    manifest = ctx.dataset.manifest
    if key not in entry:
        return default
    line, _ = manifest.where(("boards", index, key))
    value = to_points(entry[key], where=manifest.path, line=line,
                      field=f"boards[{index}].{key}",
                      limit="board" if key in ("width", "height") else "length")
    if value < 0 or (key in ("width", "height") and value <= 0):
        raise InputError(manifest.problem(("boards", index, key),
                                          f"{key} must be more than 0" if key in ("width", "height")
                                          else f"{key} must be 0 or more"))
    return value


def board_names(entry: dict[str, Any], width: float, height: float) -> dict[str, Any]:
    """``board`` as templates see it."""
    board = dict(entry)
    board.update(width=round(to_mm(width), 4), height=round(to_mm(height), 4),
                 width_mm=round(to_mm(width), 4), height_mm=round(to_mm(height), 4),
                 width_in=round(width / 72.0, 4), height_in=round(height / 72.0, 4))
    return board


def _mentions(box: Any, name: str) -> bool:
    """Does any template of ``box`` use the variable ``name``?"""
    return any(isinstance(v, str) and ("{{" in v or "{%" in v) and name in v
               for v in box.props.values())


def resolve_layers(resolver: FaceResolver, layout: Layout, context: dict[str, Any], what: str,
                   cache: dict[str, Face] | None, varying: str) -> tuple[Layer, ...]:
    """Resolve ``layout`` box by box into layers; with a ``cache``, the boxes that never
    mention ``varying`` are resolved once and grouped into shared layers."""
    runs: list[tuple[str | None, list[Any]]] = []
    problems: list[Problem] = []
    below: list[Any] = []       # what earlier boxes drew: the ground of light-on-dark text
    for box in layout.boxes:
        shared = cache is not None and not _mentions(box, varying)
        key = f"{layout.name}:{box.name}" if shared else None
        try:
            if key is not None and key in cache:  # type: ignore[operator]
                ops = cache[key].ops  # type: ignore[index]
            else:
                face = resolver.resolve(Layout(layout.name, (box,), layout.source), context, what,
                                        below)
                if key is not None:
                    cache[key] = face  # type: ignore[index]
                ops = face.ops
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        below.extend(ops)
        if runs and (runs[-1][0] is not None) == shared:
            runs[-1][1].extend(ops)
        else:
            runs.append((key, list(ops)))
    if problems:
        raise InputError(problems)
    return tuple(Layer(key, Face(resolver.width, resolver.height, resolver.bleed, tuple(ops)))
                 for key, ops in runs)


@dataclass(frozen=True)
class Setup:
    """What every board of one pack.yaml entry shares: its lengths, layout and resolver."""

    width: float
    height: float
    bleed: float
    overlap: float
    margin: float
    clear: tuple[str, ...]
    layout: Layout
    resolver: FaceResolver
    board: dict[str, Any]       # ``board`` as templates see it


def entry_setup(ctx: Context, index: int, entry: dict[str, Any]) -> Setup:
    """The entry's lengths (checked), its layout and a resolver at the board's size."""
    manifest = ctx.dataset.manifest
    width = _length(ctx, entry, index, "width", 0.0)
    height = _length(ctx, entry, index, "height", 0.0)
    bleed = _length(ctx, entry, index, "bleed", BOARD_BLEED)
    overlap = _length(ctx, entry, index, "overlap", BOARD_OVERLAP)
    margin = _length(ctx, entry, index, "margin", BOARD_MARGIN)
    line, _ = manifest.where(("boards", index, "layout"))
    layout = ctx.layouts.get(entry["layout"], where=manifest.path, line=line,
                             field_name=f"boards[{index}].layout")
    try:   # the tiling must exist on this paper (a margin too wide fails here, located)
        tile(width, height, ctx.options.page[0], ctx.options.page[1], margin, overlap)
    except InputError as exc:
        line, _ = manifest.where(("boards", index))
        raise InputError([Problem(p.message, manifest.path, line, None, f"boards[{index}]",
                                  p.hint) for p in exc.problems]) from None
    resolver = FaceResolver(ctx.env, ctx.fonts, ctx.art, width, height, bleed,
                            ink_saver=ctx.options.ink_saver,
                            text_rules=text_rules(ctx.dataset))
    return Setup(width, height, bleed, overlap, margin, tuple(entry.get("seam_clear") or ()),
                 layout, resolver, board_names(entry, width, height))


def _resolve_entry(ctx: Context, index: int, entry: dict[str, Any]) -> list[Board]:
    manifest = ctx.dataset.manifest
    setup = entry_setup(ctx, index, entry)
    width, height, margin, overlap = setup.width, setup.height, setup.margin, setup.overlap
    clear, layout, resolver, board = setup.clear, setup.layout, setup.resolver, setup.board
    output = entry.get("output", "boards")
    spec = TileSpec(width, height, setup.bleed)
    if entry.get("for_each") is None:
        ((_, context),) = each_board(ctx, entry, board)
        layers = resolve_layers(resolver, layout, context, f"board {entry['id']!r}", None, "")
        boxes = placed(ctx, index, entry, setup).get(entry["id"])
        if boxes is None:
            boxes = guarded(resolver, layout, context, height, clear)
        return [Board(entry["id"], entry["title"], spec, layers, margin, overlap, output,
                      entry["id"], boxes, index)]
    name = entry.get("as", "item")
    title_line, _ = manifest.where(("boards", index, "title"))
    shared: dict[str, Face] = {}
    once: dict[str, Any] = {}
    known = placed(ctx, index, entry, setup)
    boards: list[Board] = []
    problems: list[Problem] = []
    for board_id, context in each_board(ctx, entry, board):
        try:
            title = str(ctx.env.render_string(entry["title"], context, where=manifest.path,
                                              line=title_line, field=f"boards[{index}].title"))
            layers = resolve_layers(resolver, layout, context, f"board {board_id}", shared, name)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        boxes = known.get(board_id)
        if boxes is None:
            boxes = guarded(resolver, layout, context, height, clear, once, name)
        boards.append(Board(board_id, title, spec, layers, margin, overlap, output, entry["id"],
                            boxes, index))
    if problems:
        raise InputError(problems)
    return boards


def each_board(ctx: Context, entry: dict[str, Any], board: dict[str, Any]
               ) -> list[tuple[str, dict[str, Any]]]:
    """(board id, template context) of every board of the entry: one, or one per item of
    its ``for_each`` list."""
    if entry.get("for_each") is None:
        return [(entry["id"], base_context(ctx, entry.get("context"), None, board=board))]
    name = entry.get("as", "item")
    found: list[tuple[str, dict[str, Any]]] = []
    for item in ctx.dataset.items(entry["for_each"]):
        item_id = item.get("id") if isinstance(item, dict) else None
        board_id = f"{entry['id']}-{item_id}" if item_id is not None else \
            f"{entry['id']}-{len(found) + 1}"
        found.append((board_id, base_context(ctx, entry.get("context"), item, board=board,
                                             **{name: item})))
    return found


def guarded(resolver: FaceResolver, layout: Layout, context: dict[str, Any],
            height: float, clear: Sequence[str] = (), cache: dict[str, Any] | None = None,
            varying: str = "") -> tuple[tuple[str, Rect], ...]:
    """The boxes of a board a seam must not cross, in board coordinates (y up): every
    text box, and the boxes whose names start with one of ``clear`` (``seam_clear:``).
    With a ``cache``, the boxes that never mention ``varying`` are placed once."""
    out = []
    for box in layout.boxes:
        if not (box.type == "text" or (clear and box.name.startswith(tuple(clear)))):
            continue
        key = box.name if cache is not None and not _mentions(box, varying) else None
        if key is not None and key in cache:  # type: ignore[operator]
            placed = cache[key]  # type: ignore[index]
        else:
            placed = resolver.outlines(Layout(layout.name, (box,), layout.source), context)
            if key is not None:
                cache[key] = placed  # type: ignore[index]
        out.extend((b.name, Rect(b.x, height - b.y - b.h, b.w, b.h))
                   for b in placed if b.w > 0 and b.h > 0)
    return tuple(out)


def entry_guarded(ctx: Context, index: int, entry: dict[str, Any], setup: Setup,
                  into: list[tuple[str, tuple[tuple[str, Rect], ...]]]) -> None:
    """(board id, guarded boxes) of every board of the entry, in turn into ``into``, the
    boxes that never mention the item placed once; kept for the resolve stage
    (``placed``) once every board's boxes are placed.  An error is raised as it is, the
    boards before it left in ``into``."""
    varying = entry.get("as", "item") if "for_each" in entry else ""
    once: dict[str, Any] = {}
    start = len(into)
    for board_id, context in each_board(ctx, entry, setup.board):
        into.append((board_id, guarded(setup.resolver, setup.layout, context, setup.height,
                                       setup.clear, once, varying)))
    ctx.memo[(KEY, "guarded", index)] = (entry, setup.layout, ctx.env, dict(into[start:]))


def placed(ctx: Context, index: int, entry: dict[str, Any], setup: Setup
           ) -> dict[str, tuple[tuple[str, Rect], ...]]:
    """The guarded boxes of the entry's boards by board id, as the check stage placed
    them in this build (``entry_guarded``, handed on once), or {}: the same entry, layout
    and templates give the same boxes, and what they read, the boards' resolve reads
    too (every box's geometry is worked out again to draw it)."""
    kept = ctx.memo.pop((KEY, "guarded", index), None)     # handed on once
    if kept is None or kept[0] is not entry or kept[1] is not setup.layout \
            or kept[2] is not ctx.env:
        return {}
    return kept[3]


def resolve(ctx: Context) -> list[Board]:
    """Every board of every entry, resolved (templates evaluated, text fitted)."""
    from . import each_entry
    return [board for found in each_entry(ctx, KEY, lambda i, e: _resolve_entry(ctx, i, e))
            for board in found]


def board_tiling(board: Board, paper: tuple[float, float]) -> Tiling:
    """The board's sheets, its seams clear of its guarded boxes where the paper allows."""
    return guarded_tiling(board.spec.width, board.spec.height, board.margin, board.overlap,
                          board.guarded, paper)


def guarded_tiling(width: float, height: float, margin: float, overlap: float,
                   boxes: Sequence[tuple[str, Rect]], paper: tuple[float, float]) -> Tiling:
    """A board's sheets on ``paper``, the seams kept off ``boxes`` where they can be."""
    avoid_x = [(r.x, r.right) for _, r in boxes]
    avoid_y = [(r.y, r.top) for _, r in boxes]
    return tile(width, height, paper[0], paper[1], margin, overlap, avoid_x, avoid_y)


def draw(ctx: Context, plan: list[Board], progress: Progress = None) -> list[Output]:
    groups: dict[str, list[Board]] = {}
    for board in plan:
        groups.setdefault(board.output, []).append(board)
    outputs = []
    for output, group in groups.items():
        name = ctx.output_name(output)
        if progress:
            progress(f"rendering {name}")
        data, pages = impose_boards(ctx, group)
        counts: dict[str, int] = {}
        for b in group:
            counts[b.entry] = counts.get(b.entry, 0) + 1
        outputs.append(Output(name, data, pages, "boards", "cardstock or heavy paper", counts))
    return outputs


def impose_boards(ctx: Context, boards: Sequence[Board],
                  invariant: bool = True) -> tuple[bytes, int]:
    """Each board drawn once as a form (shared layers once for all) and placed, clipped,
    on each of its sheets."""
    paper = ctx.options.page
    info = DocInfo(f"{ctx.title} - boards",
                   f"{ctx.title}: print-and-play boards at true size, "
                   f"{ctx.options.paper.upper()}, tiled with glue strips where larger "
                   f"than the paper", keywords=", ".join(b.title for b in boards))
    canvas = new_canvas(paper, ctx.fonts["body"].regular, info, invariant)
    art, ink_saver = ctx.art, ctx.options.ink_saver
    layer_forms: dict[str, str] = {}
    for board in boards:
        b = board.spec.bleed
        for layer in board.layers:
            if layer.shared is not None and layer.shared not in layer_forms:
                name = f"layer{len(layer_forms)}"
                canvas.beginForm(name, -b, -b, board.spec.width + b, board.spec.height + b)
                draw_face(canvas, layer.face, art, ink_saver)
                canvas.endForm()
                layer_forms[layer.shared] = name
    forms = []
    for n, board in enumerate(boards):
        name = f"board{n}"
        b = board.spec.bleed
        canvas.beginForm(name, -b, -b, board.spec.width + b, board.spec.height + b)
        for layer in board.layers:
            if layer.shared is not None:
                canvas.doForm(layer_forms[layer.shared])
            else:
                draw_face(canvas, layer.face, art, ink_saver)
        canvas.endForm()
        forms.append(name)
    tilings = [board_tiling(board, paper) for board in boards]
    pages = draw_tiled(canvas, ctx, boards, forms, tilings, TileMarks(),
                       cover=f"{ctx.title}: {ctx.output_name(boards[0].output)}")
    return canvas.getpdfdata(), pages
