"""Exports for print-on-demand and online play, from the same data and layouts.

The faces are resolved by the same code as the print-and-play sheets
(``jobs.decks.resolve_deck``) and drawn by the same code (``FormCache`` /
``draw_face``) into single-card PDF pages; images are those pages rasterised
by pdfium, so a card looks the same in every output and is drawn only once.

``export pdf``  ``pdf/<slug>-<NN>-<deck>.pdf``: one PDF per deck for
    print-on-demand services, one page per card side, front then back, for
    every physical card (copies included).  A page is the trim plus 1/8 in
    bleed on every side; TrimBox and BleedBox are set on every page.

``export png``  ``png/<slug>-<NN>-<deck>-<NNN>-front.png`` and ``-back.png``:
    the same pages rasterised at exactly 300 dpi (a poker card is 825 x 1125
    px), RGB.  ``NN`` is the deck's position in pack.yaml and ``NNN`` the
    card's position in its deck (copies are consecutive), both zero-padded, so
    a plain sort lists decks in print order and cards in deck order.  Every
    physical card gets its own front and back image, duplicates included:
    print-on-demand services make one card per uploaded image (or per
    image x quantity), and a deck of 90 uploads as 90 cards.  Copies are
    byte-identical; ``png/index.csv`` lists every file with its card, copy
    number and SHA-256 for services that take one image with a quantity.

``export tts``  Tabletop Simulator: per deck, face sheets of at most 10 x 7
    cells (at most 69 distinct cards; the last cell holds the hidden-card
    image) and at most 4096 px on a side, RGB JPEG (or PNG); the back as one
    image when every card of the deck has the same back, else a back sheet
    laid out like the face sheet (TTS "UniqueBack"); and a saved-object
    JSON that loads every deck.  Copies share one cell (the deck lists the
    cell's card id once per copy).

Every export also covers the pieces and boards (``pieces``): tokens, standees
and badges (``pieces:`` in pack.yaml) and whole boards (``boards:``), numbered
after the decks.  ``export pdf --cmyk`` converts each PDF to DeviceCMYK
(``cmyk``); ``export png --target tgc|mpc|dtc`` sizes the images for a print
service (``targets``); every PNG is tagged sRGB.

Exports stream: each image is rasterised, encoded, written and dropped before
the next, so memory is flat in the number of cards; ``export png`` rasterises and
deflates each page in bands of rows (``png``), the same pixels as one render, so not
even a board is held whole.  The files of one export
are staged beside their folder and moved into place together after one sync
(``staging``): a failed export leaves the last good one.  The same input gives
the same bytes."""

from __future__ import annotations

import re
from pathlib import Path

from ..context import Progress
from ..errors import InputError, Problem, UsageError
from ..output import prepare_dir, write_set
from .faces import (
    JPEG_QUALITY,
    POD_BLEED,
    POD_DPI,
    ExportCard,
    ExportDeck,
    ExportFile,
    StagedFile,
    export_decks,
    faces_pdf,
    pixels,
    rasterise,
)
from .pod import pod_pdfs, pod_pngs
from .tts import (
    TTS_COLS,
    TTS_MAX_CARDS,
    TTS_MAX_PX,
    TTS_MIN_GRID,
    TTS_ROWS,
    TTSSheet,
    tts_export,
    tts_grid,
    tts_scale,
)

__all__ = ["JPEG_QUALITY", "POD_BLEED", "POD_DPI", "TTS_COLS", "TTS_MAX_CARDS", "TTS_MAX_PX",
           "TTS_MIN_GRID", "TTS_ROWS", "ExportCard", "ExportDeck", "ExportFile", "StagedFile",
           "TTSSheet", "export", "export_decks", "faces_pdf", "pixels", "pod_pdfs", "pod_pngs",
           "rasterise", "tts_export", "tts_grid", "tts_scale"]

def export(kind: str, pack_arg: str | None, out_dir: Path, *, fmt: str = "jpg",
           base_url: str | None = None, progress: Progress = None, cmyk: bool = False,
           target: str | None = None, cache: bool = True) -> str:
    """Run ``export pdf|png|tts``; return a short report.  ``cache``: ``export png``
    reads the images of faces an earlier export rasterised from the cache folder, and
    keeps the new ones there (``imagecache``)."""
    import time

    from ..options import PrintOptions
    from ..output import source_date_epoch
    from ..pipeline import load_checked
    from .pieces import piece_decks
    from .staging import StagedExport
    from .targets import target as find_target
    if cmyk and kind != "pdf":
        raise UsageError("--cmyk applies to 'export pdf' only")
    if target is not None and kind != "png":
        raise UsageError("--target applies to 'export png' only")
    if kind == "data":
        return _export_data(pack_arg, out_dir, fmt)
    if kind not in ("pdf", "png", "tts"):
        raise UsageError(f"unknown export {kind!r}; exports are data, pdf, png and tts")
    if base_url is not None and not re.match(r"^(https?|file)://\S+$", base_url):
        raise UsageError(f"--base-url must be an http(s):// or file:// URL (got {base_url!r})")
    service = find_target(target)
    started = time.perf_counter()
    source_date_epoch()
    ctx = load_checked(pack_arg, PrintOptions())
    decks = export_decks(ctx, service.bleed)
    if not decks:
        raise InputError(Problem("the pack has no decks to export", "pack.yaml"))
    decks += piece_decks(ctx, len(ctx.dataset.config.get("decks") or []) + 1, service.bleed)
    # each file is written as soon as it is made, then dropped: memory stays flat
    with StagedExport(out_dir, kind, ctx.slug) as staged:
        if kind == "pdf":
            files = pod_pdfs(ctx, decks, progress, cmyk=cmyk)
        elif kind == "png":
            from .imagecache import ImageCache
            files = pod_pngs(ctx, decks, progress=progress, target=service,
                             images=ImageCache() if cache else None, stage=staged.stage)
        else:
            files = tts_export(ctx, decks, out_dir, fmt=fmt, base_url=base_url,
                               progress=progress)
        for f in files:
            if isinstance(f, StagedFile):            # written there by a worker
                staged.written(f.name[len(kind) + 1:], f.size)
            else:
                staged.add(f.name[len(kind) + 1:], f.data)
            del f
        written = staged.commit()
    cards = sum(len(d.cards) for d in decks if d.kind == "cards")
    pieces = sum(len(d.cards) for d in decks if d.kind != "cards")
    return (f"wrote {len(written)} files ({cards} cards in "
            f"{sum(d.kind == 'cards' for d in decks)} decks, {pieces} pieces and boards) to "
            f"{out_dir / kind} in {time.perf_counter() - started:.2f} s")


def _export_data(pack_arg: str | None, out_dir: Path, fmt: str) -> str:
    """``export data``: every list data file as ``data/NAME.csv`` or ``data/NAME.xlsx``."""
    import time

    from ..dataset import load_dataset
    from ..pack import Pack
    from .data import export_data
    started = time.perf_counter()
    from ..games import manifest_schema
    ds = load_dataset(Pack.open(pack_arg), schema_for=manifest_schema)
    files = export_data(ds, fmt)
    out = prepare_dir(out_dir)
    target_dir = out / "data"
    if target_dir.is_symlink():
        raise UsageError(f"{target_dir} is a symbolic link; refusing to write through it")
    write_set(out, [(f"data/{name}", data) for name, data in files])
    return (f"wrote {len(files)} {fmt} files ({', '.join(n for n, _ in files)}) to "
            f"{out_dir / 'data'} in {time.perf_counter() - started:.2f} s")
