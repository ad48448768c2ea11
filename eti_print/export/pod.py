"""``export pdf`` and ``export png``: a PDF per deck with a page per card side, or a PNG per
card side with an index."""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Iterator, Sequence
from typing import Any

from ..context import Progress
from ..progress import advance, start
from .faces import (
    POD_DPI,
    ExportDeck,
    ExportFile,
    _bookmarks,
    _deck_pages,
    faces_pdf,
    pixels,
    png_bytes,
    rasterise_each,
    sides,
)
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
             progress: Progress = None, target: Target = DEFAULT) -> Iterator[ExportFile]:
    """Every card side as a PNG with bleed at ``dpi``, streamed: each distinct face is
    drawn, rasterised and encoded once, its files handed out, and its bitmap dropped
    before the next (``CHUNK`` faces per PDF)."""
    dpi = target.dpi if target is not DEFAULT else dpi
    scale = dpi / 72.0
    rows: list[tuple[tuple[int, int, int], tuple[str, ...]]] = []
    distinct = [len({face.key for face in _deck_pages(deck)}) for deck in decks]
    start(progress, sum(distinct), "card faces")
    for deck_no, (deck, count) in enumerate(zip(decks, distinct)):
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
        if progress:
            progress(f"rendering png/{deck.stem}-*.png ({len(deck.cards)} cards, "
                     f"{count} distinct faces)")
        expected = (pixels(deck.size[0] + 2 * deck.bleed, scale),
                    pixels(deck.size[1] + 2 * deck.bleed, scale))
        totals: dict[tuple, int] = {}
        copy_no: dict[int, int] = {}
        for card in deck.cards:
            pair = (card.front.key, card.back.key)
            totals[pair] = totals.get(pair, 0) + 1
            copy_no[card.number] = totals[pair]
        for first in range(0, len(faces), CHUNK):
            chunk = faces[first:first + CHUNK]
            pdf = faces_pdf(chunk, ctx.art, ctx.fonts["body"].regular,
                            f"{ctx.title} - {deck.title}", deck.bleed)
            for index, image in rasterise_each(pdf, range(len(chunk)), scale):
                if image.size != expected or image.mode != "RGB":
                    raise RuntimeError(f"{deck.stem} face {first + index + 1} rasterised at "
                                       f"{image.size} {image.mode}, expected {expected} RGB")
                data = png_bytes(image, dpi)
                del image
                digest = hashlib.sha256(data).hexdigest()
                for card, side in users[chunk[index].key]:
                    name = f"{deck.card_stem(card)}-{side}.png"
                    yield ExportFile(f"png/{name}", data)
                    pair = (card.front.key, card.back.key)
                    rows.append(((deck_no, card.number, sides(deck).index(side)), (
                        name, deck.id, str(card.number), str(copy_no[card.number]),
                        str(totals[pair]), side, card.label, str(expected[0]),
                        str(expected[1]), digest)))
                advance(progress)
            del pdf
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(("file", "deck", "card", "copy", "copies", "side", "label", "width_px",
                     "height_px", "sha256"))
    writer.writerows(row for _, row in sorted(rows))
    yield ExportFile("png/index.csv", text.getvalue().encode())
    yield ExportFile("png/README.txt", _png_readme(ctx, decks, dpi, target).encode())


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

