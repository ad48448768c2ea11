"""``export pdf`` and ``export png``: a PDF per deck with a page per card side, or a PNG per
card side with an index."""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Sequence
from typing import Any

from ..context import Progress
from ..progress import advance, start
from .faces import (
    POD_BLEED,
    POD_DPI,
    ExportDeck,
    ExportFile,
    _bookmarks,
    _deck_pages,
    _png,
    faces_pdf,
    pixels,
    rasterise,
    sides,
)

#: Print-on-demand bleed: 1/8 in on every side, in points.


def pod_pdfs(ctx: Any, decks: Sequence[ExportDeck], progress: Progress = None
             ) -> list[ExportFile]:
    files = []
    start(progress, len(decks), "decks")
    for deck in decks:
        name = f"pdf/{deck.stem}.pdf"
        if progress:
            progress(f"rendering {name} ({len(deck.cards)} cards)")
        files.append(ExportFile(name, faces_pdf(_deck_pages(deck), ctx.art,
                                                ctx.fonts["body"].regular,
                                                f"{ctx.title} - {deck.title}", POD_BLEED,
                                                _bookmarks(deck))))
        advance(progress)
    return files


def pod_pngs(ctx: Any, decks: Sequence[ExportDeck], dpi: int = POD_DPI,
             progress: Progress = None) -> list[ExportFile]:
    """Every card side as a PNG with bleed at ``dpi``; each distinct face rasterised once."""
    scale = dpi / 72.0
    files: list[ExportFile] = []
    rows = [("file", "deck", "card", "copy", "copies", "side", "label", "width_px",
             "height_px", "sha256")]
    distinct = [{face.key for face in _deck_pages(deck)} for deck in decks]
    start(progress, sum(len(keys) for keys in distinct), "card faces")
    for deck in decks:
        pages = _deck_pages(deck)
        first: dict[tuple, int] = {}
        for i, face in enumerate(pages):
            first.setdefault(face.key, i)
        if progress:
            progress(f"rendering png/{deck.stem}-*.png ({len(deck.cards)} cards, "
                     f"{len(first)} distinct faces)")
        pdf = faces_pdf(pages, ctx.art, ctx.fonts["body"].regular,
                        f"{ctx.title} - {deck.title}", POD_BLEED)
        expected = (pixels(deck.size[0] + 2 * POD_BLEED, scale),
                    pixels(deck.size[1] + 2 * POD_BLEED, scale))
        images = rasterise(pdf, sorted(first.values()), scale,
                           on_page=lambda: advance(progress))
        encoded: dict[tuple, tuple[bytes, str]] = {}
        for key, index in first.items():
            image = images[index]
            if image.size != expected or image.mode != "RGB":
                raise RuntimeError(f"{deck.stem} page {index + 1} rasterised at "
                                   f"{image.size} {image.mode}, expected {expected} RGB")
            data = _png(image, dpi)
            encoded[key] = (data, hashlib.sha256(data).hexdigest())
        copies: dict[tuple, int] = {}
        totals: dict[tuple, int] = {}
        for card in deck.cards:
            pair = (card.front.key, card.back.key)
            totals[pair] = totals.get(pair, 0) + 1
        for card in deck.cards:
            pair = (card.front.key, card.back.key)
            copies[pair] = copies.get(pair, 0) + 1
            for side in sides(deck):
                face = getattr(card, side)
                data, digest = encoded[face.key]
                name = f"png/{deck.card_stem(card)}-{side}.png"
                files.append(ExportFile(name, data))
                rows.append((name[len("png/"):], deck.id, str(card.number), str(copies[pair]),
                             str(totals[pair]), side, card.label, str(expected[0]),
                             str(expected[1]), digest))
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    files.append(ExportFile("png/index.csv", text.getvalue().encode()))
    files.append(ExportFile("png/README.txt", _png_readme(ctx, decks, dpi).encode()))
    return files


def _png_readme(ctx: Any, decks: Sequence[ExportDeck], dpi: int) -> str:
    scale = dpi / 72.0
    lines = [f"{ctx.title}: card images for print-on-demand", "",
             f"Every card side as a PNG at {dpi} dpi, RGB, with 1/8 in (3.175 mm) bleed on",
             "every side: the cut line is 1/8 in inside each edge, and text and icons stay",
             "at least another 1/8 in inside the cut (the safe zone).", ""]
    for deck in decks:
        w = pixels(deck.size[0] + 2 * POD_BLEED, scale)
        h = pixels(deck.size[1] + 2 * POD_BLEED, scale)
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

