"""The faces of every card for print-on-demand files: resolved with POD bleed, drawn one
face per page, rasterised."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..errors import InputError, Problem

#: Print-on-demand bleed: 1/8 in on every side, in points.
POD_BLEED = 9.0


#: Print-on-demand resolution.
POD_DPI = 300


#: JPEG quality of TTS sheets (4:4:4 chroma, so coloured text stays crisp).
JPEG_QUALITY = 92


_EPS = 1e-9


@dataclass(frozen=True)
class ExportCard:
    """One physical card of a deck."""

    number: int      # 1-based position in its deck; copies are consecutive
    label: str
    front: Any       # render.faces.Face
    back: Any


@dataclass(frozen=True)
class ExportDeck:
    index: int       # 1-based position in pack.yaml's decks
    id: str
    title: str
    stem: str        # "<slug>-<NN>-<deck id>"
    size: tuple[float, float]   # trim, points
    cards: tuple[ExportCard, ...]
    #: No back layout: PDF and PNG exports have fronts only (TTS gets a blank back).
    one_sided: bool = False
    #: The faces' bleed, in points (the page margin of the deck's PDF).
    bleed: float = POD_BLEED
    #: ``cards``, ``piece`` (tokens, standees, badges) or ``board`` (``export.pieces``).
    kind: str = "cards"

    @property
    def digits(self) -> int:
        return max(3, len(str(len(self.cards))))

    def card_stem(self, card: ExportCard) -> str:
        return f"{self.stem}-{card.number:0{self.digits}d}"


@dataclass(frozen=True)
class ExportFile:
    """One file of an export, relative to the output folder."""

    name: str
    data: bytes


@dataclass(frozen=True)
class StagedFile:
    """One file of an export that a worker already wrote into the staging folder
    (``pod_pngs`` with ``stage``): its name, relative to the output folder, and size."""

    name: str
    size: int


def export_decks(ctx: Any, bleed: float = POD_BLEED) -> list[ExportDeck]:
    """Every deck of the pack with its faces resolved for ``bleed`` (all problems at once)."""
    from ..jobs.decks import resolve_deck
    from ..render.faces import FaceResolver
    decks_cfg = ctx.dataset.config.get("decks") or []
    manifest = ctx.dataset.manifest
    problems: list[Problem] = []
    resolvers: dict[tuple[float, float], Any] = {}
    decks: list[ExportDeck] = []
    for index, deck in enumerate(decks_cfg):
        line, _ = manifest.where(("decks", index, "sheet"))
        try:
            setting = ctx.sheets.get(deck.get("sheet", "card"), where=manifest.path, line=line,
                                     field=f"decks[{index}].sheet")
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        size = (setting.width, setting.height)
        resolver = resolvers.get(size)
        if resolver is None:
            resolver = resolvers[size] = FaceResolver(ctx.env, ctx.fonts, ctx.art, size[0],
                                                      size[1], bleed)
        before = len(problems)
        resolved = resolve_deck(ctx, deck, resolver, problems)
        if len(problems) > before:
            continue
        labels = resolved.labels or tuple(deck["title"] for _ in resolved.cards)
        cards = tuple(ExportCard(n, label, front, back) for n, ((front, back), label)
                      in enumerate(zip(resolved.cards, labels), start=1))
        decks.append(ExportDeck(index + 1, deck["id"], deck["title"],
                                f"{ctx.slug}-{index + 1:02d}-{deck['id']}", size, cards,
                                resolved.one_sided, bleed))
    if problems:
        raise InputError(sorted(set(problems), key=Problem.sort_key))
    return decks


def faces_pdf(faces: Sequence[Any], art: Any, font: str, title: str, margin: float,
              bookmarks: Sequence[str] | None = None,
              overlay: Callable[[Any, int], None] | None = None) -> bytes:
    """One page per face: the trim plus ``margin`` on every side, TrimBox and BleedBox set.

    Each distinct face is drawn once, as a PDF form, however many pages show it.
    ``overlay(canvas, i)`` draws over page ``i`` (origin at the trim's bottom-left).
    """
    from ..pdfwriter import DocInfo, new_canvas
    from ..render.sheets import FormCache
    w, h = faces[0].width, faces[0].height
    page = (w + 2 * margin, h + 2 * margin)
    canvas = new_canvas(page, font, DocInfo(title))
    canvas.setTrimBox((margin, margin, margin + w, margin + h))
    canvas.setBleedBox((0, 0, page[0], page[1]))
    forms = FormCache()
    names = [forms.add(face) for face in faces]
    forms.define_all(canvas, art, False)
    for i, name in enumerate(names):
        if bookmarks:
            key = f"p{i}"
            canvas.bookmarkPage(key)
            canvas.addOutlineEntry(bookmarks[i], key, level=0)
        canvas.saveState()
        canvas.translate(margin, margin)
        canvas.doForm(name)
        if overlay is not None:
            overlay(canvas, i)
        canvas.restoreState()
        canvas.showPage()
    return canvas.getpdfdata()


def pixels(points: float, scale: float) -> int:
    """Pixels pdfium gives ``points`` at ``scale`` px/pt.

    It rounds up; float noise is not a pixel.
    """
    return math.ceil(points * scale * (1 - _EPS))


def rasterise(pdf: bytes, pages: Sequence[int], scale: float,
              on_page: Callable[[], None] | None = None) -> dict[int, Any]:
    """PIL RGB images of ``pages`` (0-based) at ``scale`` pixels per point;
    ``on_page()`` after each (a progress bar)."""
    images = {}
    for index, image in rasterise_each(pdf, pages, scale):
        images[index] = image
        if on_page is not None:
            on_page()
    return images


def rasterise_each(pdf: bytes, pages: Iterable[int], scale: float
                   ) -> Iterator[tuple[int, Any]]:
    """``(index, image)`` for each of ``pages`` in turn, one bitmap alive at a time
    (a streaming export drops each image before asking for the next)."""
    import pypdfium2 as pdfium
    doc = pdfium.PdfDocument(pdf)
    try:
        for index in pages:
            page = doc[index]
            try:
                bitmap = page.render(scale=scale * (1 - _EPS), rev_byteorder=True,
                                     prefer_bgrx=True)
                image = _rgb_image(bitmap)
                del bitmap
            finally:
                page.close()
            yield index, image
            del image
    finally:
        doc.close()


def _rgb_image(bitmap: Any) -> Any:
    """A PIL RGB image of an RGBx bitmap, over the bitmap's own memory: Pillow keeps an
    RGB image as four bytes a pixel, the fourth unused, which is pdfium's RGBx, so a
    300 dpi board is held once (108 MiB for the largest shipped board) instead of twice
    (its bitmap, then Pillow's copy).  Pixels and PNG bytes are the same either way.
    The image refers to the bitmap's buffer (a Python object, kept alive by the image)
    and is read-only: a change copies it first."""
    from PIL import Image
    size = (bitmap.width, bitmap.height)
    if bitmap.mode == "RGBX" and bitmap.stride == bitmap.width * 4:
        try:
            core = Image.core.map_buffer(bitmap.buffer, size, "raw", 0,
                                         ("RGB", bitmap.stride, 1))
        except (AttributeError, TypeError, ValueError):    # another Pillow: copy
            pass
        else:
            image = Image.new("RGB", (0, 0))._new(core)
            image.readonly = 1
            return image
    return bitmap.to_pil().convert("RGB")


@lru_cache(maxsize=1)
def srgb_profile() -> bytes:
    """littleCMS's sRGB profile, its creation date fixed (``SOURCE_DATE_EPOCH``) so
    that every PNG of an export is byte-reproducible."""
    import datetime

    from PIL import ImageCms

    from ..output import source_date_epoch
    data = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    when = datetime.datetime.fromtimestamp(source_date_epoch(), datetime.timezone.utc)
    data[24:36] = b"".join(v.to_bytes(2, "big") for v in (
        when.year, when.month, when.day, when.hour, when.minute, when.second))
    return bytes(data)


def sides(deck: ExportDeck) -> tuple[str, ...]:
    """The card sides an export shows: front and back, or the front of a one-sided deck."""
    return ("front",) if deck.one_sided else ("front", "back")


def _deck_pages(deck: ExportDeck) -> list[Any]:
    """Front then back of every physical card (fronts only for a one-sided deck)."""
    return [getattr(card, side) for card in deck.cards for side in sides(deck)]


def _bookmarks(deck: ExportDeck) -> list[str]:
    return [f"{card.number} {card.label} ({side})" for card in deck.cards
            for side in sides(deck)]

