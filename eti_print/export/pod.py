"""``export pdf`` and ``export png``: a PDF per deck with a page per card side, or a PNG per
card side with an index."""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..context import Progress
from ..output import write_failure
from ..progress import advance, start
from .faces import (
    POD_DPI,
    ExportDeck,
    ExportFile,
    StagedFile,
    _bookmarks,
    _deck_pages,
    faces_pdf,
    pixels,
    sides,
)
from .imagecache import FaceKeys, ImageCache, world
from .targets import DEFAULT, Target

#: Distinct faces drawn into one PDF and rasterised before the next PDF is made:
#: memory holds one such PDF and one bitmap, whatever the deck's size.
CHUNK = 24


def pod_pdfs(ctx: Any, decks: Sequence[ExportDeck], progress: Progress = None,
             cmyk: bool = False) -> Iterator[ExportFile]:
    """One PDF per deck (and per kind of piece, and per board entry), one at a time;
    with ``cmyk``, converted to DeviceCMYK for print services (``export.cmyk``)."""
    start(progress, len(decks), "decks")
    convert = None
    if cmyk:
        from .cmyk import to_cmyk as convert
    for deck in decks:
        name = f"pdf/{deck.stem}.pdf"
        if progress:
            progress(f"rendering {name} ({len(deck.cards)} cards)")
        data = faces_pdf(_deck_pages(deck), ctx.art, ctx.fonts["body"].regular,
                         f"{ctx.title} - {deck.title}", deck.bleed, _bookmarks(deck))
        if convert is not None:
            data = convert(data)
        yield ExportFile(name, data)
        advance(progress)


def pod_pngs(ctx: Any, decks: Sequence[ExportDeck], dpi: int = POD_DPI,
             progress: Progress = None, target: Target = DEFAULT,
             images: ImageCache | None = None, stage: Path | None = None
             ) -> Iterator[ExportFile | StagedFile]:
    """Every card side as a PNG with bleed at ``dpi``, streamed: each distinct face is
    drawn, rasterised and encoded once, its files handed out, and its bitmap dropped
    before the next (``CHUNK`` faces per PDF, a board alone).  The chunks are shared
    among forked workers (``workers``) and handed out in order, so the files and their
    bytes are the same as one process makes.  With ``images`` (``imagecache``), a face
    whose image an earlier export kept is read back instead, and each new one kept.

    With ``stage`` (the export's staging folder), a worker writes the files of the faces
    it rasterises there itself, and keeps their images: only their sizes and digests come
    back (``StagedFile``), so no image passes through this process, whose memory stays
    that of the loaded pack however many cards there are.  The files are the same."""
    dpi = target.dpi if target is not DEFAULT else dpi
    scale = dpi / 72.0
    rows: list[tuple[tuple[int, int, int], tuple[str, ...]]] = []
    plans = [_plan(deck, scale) for deck in decks]
    start(progress, sum(len(plan.faces) for plan in plans), "card faces")
    keys = _keys(ctx, plans, scale, dpi) if images is not None else \
        [[None] * len(plan.faces) for plan in plans]
    kept = [[key is not None and images is not None and images.has(key) for key in deck_keys]
            for deck_keys in keys]
    tasks = [(deck_no, tuple(part)) for deck_no, plan in enumerate(plans)
             for part in _chunks(plan, [i for i, hit in enumerate(kept[deck_no]) if not hit])]
    announced = -1
    _STATE.update(ctx=ctx, decks=decks, plans=plans, scale=scale, dpi=dpi, stage=stage,
                  keys=keys, images=images)
    try:
        results = _in_workers(_encode_chunk if stage is None else _encode_into, tasks)
        made = _made(tasks, results)
        for deck_no, (deck, plan) in enumerate(zip(decks, plans)):
            if progress and deck_no != announced:
                progress(f"rendering png/{deck.stem}-*.png ({len(deck.cards)} cards, "
                         f"{len(plan.faces)} distinct faces)")
            announced = deck_no
            for index, face in enumerate(plan.faces):
                key = keys[deck_no][index]
                data = images.get(key, plan.expected) if kept[deck_no][index] else None
                if data is None and stage is not None and not kept[deck_no][index]:
                    size, digest, nbytes, failed = next(made)   # the worker wrote its files
                    _check_size(deck, index, size, plan.expected)
                    if failed is not None:
                        raise write_failure(OSError(failed[0], failed[1]), Path(failed[2]))
                    if key is not None and images is not None:
                        images.made += 1                          # and kept its image
                elif data is None:
                    # rasterised by a worker, or here if its kept image went since it was
                    # found (another export pruned it)
                    size, data = next(made) if not kept[deck_no][index] \
                        else _encode_chunk((deck_no, (index,)))[0]
                    _check_size(deck, index, size, plan.expected)
                    if key is not None and images is not None:
                        images.put(key, data)
                if data is not None:
                    digest = hashlib.sha256(data).hexdigest()
                for card, side in plan.users[face.key]:
                    name = f"{deck.card_stem(card)}-{side}.png"
                    yield ExportFile(f"png/{name}", data) if data is not None \
                        else StagedFile(f"png/{name}", nbytes)
                    pair = (card.front.key, card.back.key)
                    rows.append(((deck_no, card.number, sides(deck).index(side)), (
                        name, deck.id, str(card.number), str(plan.copy_no[card.number]),
                        str(plan.totals[pair]), side, card.label, str(plan.expected[0]),
                        str(plan.expected[1]), digest)))
                del data
                advance(progress)
        if next(made, None) is not None:
            raise RuntimeError("more images were rasterised than the decks show")
    finally:
        _STATE.clear()
    if images is not None:
        images.prune()
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(("file", "deck", "card", "copy", "copies", "side", "label", "width_px",
                     "height_px", "sha256"))
    writer.writerows(row for _, row in sorted(rows))
    yield ExportFile("png/index.csv", text.getvalue().encode())
    yield ExportFile("png/README.txt", _png_readme(ctx, decks, dpi, target).encode())


def _keys(ctx: Any, plans: Sequence[_Plan], scale: float, dpi: int
          ) -> list[list[str | None]]:
    """Each deck's faces' image keys (``imagecache``), None for a face with no key."""
    keys = FaceKeys()
    found = []
    for plan in plans:
        here = world(ctx.pack.root, ctx.art, ctx.fonts["body"].regular, scale, dpi,
                     plan.expected)
        found.append([None if (k := keys.key(face)) is None else ImageCache.key(here, k)
                      for face in plan.faces])
    return found


def _made(tasks: Sequence[tuple[int, tuple[int, ...]]], results: Iterator[Any]
          ) -> Iterator[tuple[tuple[int, int], bytes]]:
    """The images the workers made, one at a time, in the order of ``tasks``."""
    for _, images in zip(tasks, results):
        yield from images
        del images


#: Pixels of one chunk's faces at most (24 poker cards at 300 dpi): a board goes alone,
#: so the workers share the boards, the largest images, between them.
CHUNK_PIXELS = 24 * 825 * 1125

#: Forked workers of ``export png`` at most (each holds one chunk, a board's bitmap).
MAX_WORKERS = 4


@dataclass
class _Plan:
    """One deck's distinct faces in order, the cards and sides showing each, the image
    size and every card's copy number."""

    faces: list[Any]
    users: dict[tuple, list[tuple[Any, str]]]
    expected: tuple[int, int]
    totals: dict[tuple, int]
    copy_no: dict[int, int]


def _plan(deck: ExportDeck, scale: float) -> _Plan:
    users: dict[tuple, list[tuple[Any, str]]] = {}
    faces = []
    for card in deck.cards:
        for side in sides(deck):
            face = getattr(card, side)
            found = users.get(face.key)
            if found is None:
                found = users[face.key] = []
                faces.append(face)
            found.append((card, side))
    expected = (pixels(deck.size[0] + 2 * deck.bleed, scale),
                pixels(deck.size[1] + 2 * deck.bleed, scale))
    totals: dict[tuple, int] = {}
    copy_no: dict[int, int] = {}
    for card in deck.cards:
        pair = (card.front.key, card.back.key)
        totals[pair] = totals.get(pair, 0) + 1
        copy_no[card.number] = totals[pair]
    return _Plan(faces, users, expected, totals, copy_no)


def _chunks(plan: _Plan, faces: Sequence[int]) -> Iterator[Sequence[int]]:
    """The indexes ``faces`` of a deck's faces in runs of ``CHUNK``, fewer of a large
    size (``CHUNK_PIXELS``), at least one."""
    per = max(1, min(CHUNK, CHUNK_PIXELS // max(1, plan.expected[0] * plan.expected[1])))
    for first in range(0, len(faces), per):
        yield faces[first:first + per]


#: The export a worker works on: set before the workers fork, so they inherit it.
_STATE: dict[str, Any] = {}


def _encode_chunk(task: tuple[int, tuple[int, ...]]) -> list[tuple[tuple[int, int], bytes]]:
    """One chunk of a deck's faces drawn into a PDF, each page rasterised and encoded a
    band of rows at a time (``export.png``): each image's size and PNG bytes."""
    import pypdfium2 as pdfium

    from .png import page_png
    deck_no, indexes = task
    ctx, deck = _STATE["ctx"], _STATE["decks"][deck_no]
    faces = _STATE["plans"][deck_no].faces
    chunk = [faces[i] for i in indexes]
    pdf = faces_pdf(chunk, ctx.art, ctx.fonts["body"].regular,
                    f"{ctx.title} - {deck.title}", deck.bleed)
    found = []
    doc = pdfium.PdfDocument(pdf)
    try:
        for index in range(len(chunk)):
            page = doc[index]
            try:
                found.append(page_png(page, _STATE["scale"], _STATE["dpi"]))
            finally:
                page.close()
    finally:
        doc.close()
    return found


def _check_size(deck: ExportDeck, index: int, size: tuple[int, int],
                expected: tuple[int, int]) -> None:
    if size != expected:
        raise RuntimeError(f"{deck.stem} face {index + 1} rasterised at {size}, "
                           f"expected {expected}")


def _encode_into(task: tuple[int, tuple[int, ...]]
                 ) -> list[tuple[tuple[int, int], str, int, tuple | None]]:
    """``_encode_chunk`` in a worker that writes each face's files into the staging folder
    (every card side showing it) and keeps its image (``imagecache``) itself: for each
    face, its size, SHA-256, bytes and None, or the failed write's (errno, message,
    file) instead of None (the parent reports it: an exception need not cross back)."""
    deck_no, indexes = task
    deck, plan = _STATE["decks"][deck_no], _STATE["plans"][deck_no]
    stage, images, keys = _STATE["stage"], _STATE["images"], _STATE["keys"][deck_no]
    found = []
    for index, (size, data) in zip(indexes, _encode_chunk(task)):
        failed = None
        if size == plan.expected:
            for card, side in plan.users[plan.faces[index].key]:
                path = stage / f"{deck.card_stem(card)}-{side}.png"
                try:
                    path.write_bytes(data)
                except OSError as exc:
                    failed = (exc.errno, exc.strerror or str(exc), str(path))
                    break
            if failed is None and keys[index] is not None and images is not None:
                images.keep(keys[index], data)
        found.append((size, hashlib.sha256(data).hexdigest(), len(data), failed))
        del data
    return found


def _in_workers(work: Callable[[Any], Any], tasks: Sequence[Any]) -> Iterator[Any]:
    """``work(task)`` for each task, in order: in forked workers, one per processor this
    process may use (at most ``MAX_WORKERS``), where there are two or more and the
    platform forks; else here, one after another."""
    import multiprocessing
    import os
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    workers = min(cpus, MAX_WORKERS, len(tasks))
    if workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        yield from map(work, tasks)
        return
    import gc
    frozen = gc.get_freeze_count()
    gc.freeze()         # what the workers inherit stays out of their collector's sight,
    try:                # so collecting does not copy the shared pages
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            yield from pool.imap(work, tasks)
    finally:
        if not frozen:  # a caller's freeze (pipeline.batch_gc) is the caller's to undo
            gc.unfreeze()


def _png_readme(ctx: Any, decks: Sequence[ExportDeck], dpi: int, target: Target) -> str:
    scale = dpi / 72.0
    bleed = f"{target.bleed / 72 * 25.4:.2f} mm ({round(target.bleed * scale)} px)"
    lines = [f"{ctx.title}: card images for print-on-demand"
             + (f" ({target.service})" if target is not DEFAULT else ""), "",
             f"Every card side, token, standee, badge and board as a PNG at {dpi} dpi, RGB",
             f"tagged sRGB, with {bleed} bleed on every side (boards: their own bleed):",
             "the cut line is that far inside each edge, and text and icons stay at least",
             "another 1/8 in inside the cut (the safe zone).", ""]
    for deck in decks:
        w = pixels(deck.size[0] + 2 * deck.bleed, scale)
        h = pixels(deck.size[1] + 2 * deck.bleed, scale)
        tw, th = pixels(deck.size[0], scale), pixels(deck.size[1], scale)
        lines.append(f"  {deck.stem}-*: {deck.title}, {len(deck.cards)} cards, {w} x {h} px "
                     f"(trim {tw} x {th} px)")
    lines += ["",
              "Names: <pack>-<deck number>-<deck>-<card number>-front.png / -back.png.",
              "Sorted by name they list the decks in print order and each deck's cards in",
              "order. Every physical card has its own pair of images, copies included, so",
              "uploading a deck's images makes the right number of cards; copies are",
              "identical files. index.csv lists every file with its card, copy number and",
              "SHA-256, for services that want one image per distinct card and a quantity.",
              "",
              "The same cards as print-ready PDFs (TrimBox and BleedBox set, one PDF per",
              "deck, front then back for every card): eti-print export pdf.", ""]
    return "\n".join(lines)

