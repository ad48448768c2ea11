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

Everything is rendered in memory before anything is written; files are
written atomically; the same input gives the same bytes.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError, Problem, UsageError
from .output import prepare_dir, write_bytes

Progress = Callable[[str], None] | None

#: Print-on-demand bleed: 1/8 in on every side, in points.
POD_BLEED = 9.0
#: Print-on-demand resolution.
POD_DPI = 300
#: Tabletop Simulator deck sheets: at most this many columns and rows ...
TTS_COLS = 10
TTS_ROWS = 7
#: ... at most this many pixels on a side ...
TTS_MAX_PX = 4096
#: ... and at most this many distinct cards (the last cell is the hidden card).
TTS_MAX_CARDS = TTS_COLS * TTS_ROWS - 1
#: TTS refuses custom decks narrower or lower than this.
TTS_MIN_GRID = 2
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


# ---------------------------------------------------------------------------
# Faces


def export_decks(ctx: Any, bleed: float = POD_BLEED) -> list[ExportDeck]:
    """Every deck of the pack with its faces resolved for ``bleed`` (all problems at once)."""
    from .jobs.decks import resolve_deck
    from .render.faces import FaceResolver
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
                                f"{ctx.slug}-{index + 1:02d}-{deck['id']}", size, cards))
    if problems:
        raise InputError(sorted(set(problems), key=Problem.sort_key))
    return decks


def faces_pdf(faces: Sequence[Any], art: Any, font: str, title: str, margin: float,
              bookmarks: Sequence[str] | None = None) -> bytes:
    """One page per face: the trim plus ``margin`` on every side, TrimBox and BleedBox set.

    Each distinct face is drawn once, as a PDF form, however many pages show it.
    """
    from .pdfwriter import DocInfo, new_canvas
    from .render.sheets import FormCache
    w, h = faces[0].width, faces[0].height
    page = (w + 2 * margin, h + 2 * margin)
    buffer = io.BytesIO()
    canvas = new_canvas(buffer, page, font, DocInfo(title))
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
        canvas.restoreState()
        canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def pixels(points: float, scale: float) -> int:
    """Pixels pdfium gives ``points`` at ``scale`` px/pt (it rounds up; float noise is not a pixel)."""
    return math.ceil(points * scale * (1 - _EPS))


def rasterise(pdf: bytes, pages: Sequence[int], scale: float) -> dict[int, Any]:
    """PIL RGB images of ``pages`` (0-based) at ``scale`` pixels per point."""
    import pypdfium2 as pdfium
    images = {}
    doc = pdfium.PdfDocument(pdf)
    try:
        for index in pages:
            page = doc[index]
            try:
                bitmap = page.render(scale=scale * (1 - _EPS))
                image = bitmap.to_pil()
                if image.mode != "RGB":
                    image = image.convert("RGB")
                images[index] = image
            finally:
                page.close()
    finally:
        doc.close()
    return images


def _png(image: Any, dpi: int) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", dpi=(dpi, dpi))
    return buffer.getvalue()


def _deck_pages(deck: ExportDeck) -> list[Any]:
    """Front then back of every physical card."""
    return [face for card in deck.cards for face in (card.front, card.back)]


def _bookmarks(deck: ExportDeck) -> list[str]:
    return [f"{card.number} {card.label} ({side})" for card in deck.cards
            for side in ("front", "back")]


# ---------------------------------------------------------------------------
# Print on demand: PDF and PNG


def pod_pdfs(ctx: Any, decks: Sequence[ExportDeck], progress: Progress = None
             ) -> list[ExportFile]:
    files = []
    for deck in decks:
        name = f"pdf/{deck.stem}.pdf"
        if progress:
            progress(f"rendering {name} ({len(deck.cards)} cards)")
        files.append(ExportFile(name, faces_pdf(_deck_pages(deck), ctx.art,
                                                ctx.fonts["body"].regular,
                                                f"{ctx.title} - {deck.title}", POD_BLEED,
                                                _bookmarks(deck))))
    return files


def pod_pngs(ctx: Any, decks: Sequence[ExportDeck], dpi: int = POD_DPI,
             progress: Progress = None) -> list[ExportFile]:
    """Every card side as a PNG with bleed at ``dpi``; each distinct face rasterised once."""
    scale = dpi / 72.0
    files: list[ExportFile] = []
    rows = [("file", "deck", "card", "copy", "copies", "side", "label", "width_px",
             "height_px", "sha256")]
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
        images = rasterise(pdf, sorted(first.values()), scale)
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
            for side, face in (("front", card.front), ("back", card.back)):
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


# ---------------------------------------------------------------------------
# Tabletop Simulator


@dataclass(frozen=True)
class TTSSheet:
    key: int                 # CustomDeck key, unique in the save
    faces: str               # file name (in tts/)
    backs: str               # file name: one back image, or a back sheet
    unique_back: bool
    cols: int
    rows: int
    units: tuple[tuple[tuple, tuple], ...]   # (front key, back key) per cell


def tts_grid(count: int) -> tuple[int, int]:
    """Columns and rows for ``count`` distinct cards plus the hidden-card cell."""
    if not 1 <= count <= TTS_MAX_CARDS:
        raise ValueError(f"a TTS sheet holds 1 to {TTS_MAX_CARDS} cards (got {count})")
    cells = count + 1
    cols = max(TTS_MIN_GRID, min(TTS_COLS, cells))
    rows = max(TTS_MIN_GRID, math.ceil(cells / cols))
    return cols, rows


def tts_scale(size: tuple[float, float], cols: int = TTS_COLS, rows: int = TTS_ROWS) -> float:
    """Pixels per point so that a ``cols`` x ``rows`` sheet of ``size`` cards stays within
    4096 px on a side (and no finer than 300 dpi)."""
    w, h = size
    return min((TTS_MAX_PX // cols) / w, (TTS_MAX_PX // rows) / h, POD_DPI / 72.0)


def _encode(image: Any, fmt: str) -> bytes:
    buffer = io.BytesIO()
    if fmt == "jpg":
        image.save(buffer, "JPEG", quality=JPEG_QUALITY, subsampling=0, optimize=False)
    else:
        image.save(buffer, "PNG")
    return buffer.getvalue()


def _guid(*parts: object) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:6]


def _transform(x: float) -> dict[str, float]:
    return {"posX": x, "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0,
            "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}


def tts_export(ctx: Any, decks: Sequence[ExportDeck], out_dir: Path, fmt: str = "jpg",
               base_url: str | None = None, progress: Progress = None) -> list[ExportFile]:
    """Deck sheets, back images, the saved-object JSON and a note, for Tabletop Simulator."""
    from PIL import Image
    if fmt not in ("jpg", "png"):
        raise UsageError(f"TTS image format must be jpg or png (got {fmt!r})")
    folder = out_dir / "tts"

    def url(name: str) -> str:
        if base_url:
            return base_url.rstrip("/") + "/" + name
        return (folder / name).resolve().as_uri()

    files: list[ExportFile] = []
    objects = []
    next_key = 1
    for position, deck in enumerate(decks):
        units: list[tuple[tuple, tuple]] = []
        unit_faces: dict[tuple[tuple, tuple], tuple[Any, Any]] = {}
        for card in deck.cards:
            pair = (card.front.key, card.back.key)
            if pair not in unit_faces:
                unit_faces[pair] = (card.front, card.back)
                units.append(pair)
        unique_back = len({back for _, back in units}) > 1
        # one trim-size page per distinct front, then per distinct back
        fronts = [unit_faces[u][0] for u in units]
        backs = [unit_faces[u][1] for u in units]
        pdf = faces_pdf(fronts + backs, ctx.art, ctx.fonts["body"].regular,
                        f"{ctx.title} - {deck.title}", 0.0)
        sheets: list[TTSSheet] = []
        for start in range(0, len(units), TTS_MAX_CARDS):
            chunk = units[start:start + TTS_MAX_CARDS]
            number = start // TTS_MAX_CARDS + 1
            cols, rows = tts_grid(len(chunk))
            # as fine as the sheet allows: a small deck gets sharper cells
            scale = tts_scale(deck.size, cols, rows)
            cell = (pixels(deck.size[0], scale), pixels(deck.size[1], scale))
            pages = [start + i for i in range(len(chunk))] + [len(units)]   # + hidden card
            if unique_back:
                pages += [len(units) + start + i for i in range(len(chunk))]
            images = rasterise(pdf, sorted(set(pages)), scale)
            for image in images.values():
                if image.size != cell:
                    raise RuntimeError(f"{deck.stem}: TTS cell rasterised at {image.size}, "
                                       f"expected {cell}")
            hidden = images[len(units)]          # the first card's back
            size = (cols * cell[0], rows * cell[1])
            assert max(size) <= TTS_MAX_PX, size

            def sheet(offset: int) -> Any:
                image = Image.new("RGB", size, (255, 255, 255))
                for i in range(len(chunk)):
                    image.paste(images[offset + start + i],
                                ((i % cols) * cell[0], (i // cols) * cell[1]))
                last = cols * rows - 1
                image.paste(hidden, ((last % cols) * cell[0], (last // cols) * cell[1]))
                return image

            face_name = f"{deck.stem}-faces-{number}.{fmt}"
            if progress:
                progress(f"rendering tts/{face_name} ({len(chunk)} distinct cards, "
                         f"{cols} x {rows}, {size[0]} x {size[1]} px)")
            files.append(ExportFile(f"tts/{face_name}", _encode(sheet(0), fmt)))
            if unique_back:
                back_name = f"{deck.stem}-backs-{number}.{fmt}"
                files.append(ExportFile(f"tts/{back_name}", _encode(sheet(len(units)), fmt)))
            else:
                back_name = f"{deck.stem}-back.{fmt}"
                if number == 1:
                    files.append(ExportFile(f"tts/{back_name}", _encode(hidden, fmt)))
            sheets.append(TTSSheet(next_key, face_name, back_name, unique_back, cols, rows,
                                   tuple(chunk)))
            next_key += 1
        objects.append(_tts_deck(ctx, deck, sheets, url, position))
    save = {
        "SaveName": f"{ctx.title} (eti-print)",
        "GameMode": "",
        "Date": "",
        "Table": "",
        "Sky": "",
        "Note": "",
        "Rules": "",
        "XmlUI": "",
        "LuaScript": "",
        "LuaScriptState": "",
        "ObjectStates": objects,
        "TabStates": {},
        "VersionNumber": "",
    }
    files.append(ExportFile(f"tts/{ctx.slug}-tts.json",
                            (json.dumps(save, indent=2, ensure_ascii=False) + "\n").encode()))
    files.append(ExportFile("tts/README.txt",
                            _tts_readme(ctx, decks, objects, base_url).encode()))
    return files


def _custom_deck(sheet: TTSSheet, url: Callable[[str], str]) -> dict[str, Any]:
    return {"FaceURL": url(sheet.faces), "BackURL": url(sheet.backs),
            "NumWidth": sheet.cols, "NumHeight": sheet.rows, "BackIsHidden": True,
            "UniqueBack": sheet.unique_back, "Type": 0}


def _tts_deck(ctx: Any, deck: ExportDeck, sheets: Sequence[TTSSheet],
              url: Callable[[str], str], position: int) -> dict[str, Any]:
    where: dict[tuple[tuple, tuple], tuple[TTSSheet, int]] = {}
    for sheet in sheets:
        for i, unit in enumerate(sheet.units):
            where[unit] = (sheet, i)
    sideways = deck.size[0] > deck.size[1]
    transform = _transform(3.0 * position)
    cards = []
    for card in deck.cards:
        sheet, i = where[(card.front.key, card.back.key)]
        cards.append({
            "GUID": _guid(ctx.slug, deck.id, card.number),
            "Name": "Card" if len(deck.cards) > 1 else "CardCustom",
            "Transform": transform,
            "Nickname": card.label,
            "Description": "",
            "CardID": sheet.key * 100 + i,
            "SidewaysCard": sideways,
            "Hands": True,
            "HideWhenFaceDown": True,
            "CustomDeck": {str(sheet.key): _custom_deck(sheet, url)},
        })
    if len(cards) == 1:
        return cards[0]
    return {
        "GUID": _guid(ctx.slug, deck.id),
        "Name": "DeckCustom",
        "Transform": transform,
        "Nickname": deck.title,
        "Description": f"{len(cards)} cards",
        "Hands": False,
        "HideWhenFaceDown": True,
        "SidewaysCard": sideways,
        "DeckIDs": [c["CardID"] for c in cards],
        "CustomDeck": {str(s.key): _custom_deck(s, url) for s in sheets},
        "ContainedObjects": cards,
    }


def _tts_readme(ctx: Any, decks: Sequence[ExportDeck], objects: Sequence[dict],
                base_url: str | None) -> str:
    lines = [f"{ctx.title}: Tabletop Simulator decks", "",
             f"{ctx.slug}-tts.json is a TTS saved object holding every deck. Copy it, and a",
             "thumbnail if you like, into Tabletop Simulator's saved-objects folder",
             "(Documents/My Games/Tabletop Simulator/Saves/Saved Objects/) and spawn it from",
             "Objects > Saved Objects.", ""]
    if base_url:
        lines += [f"The image URLs point at {base_url.rstrip('/')}/: upload every image of this",
                  "folder there, keeping the names.", ""]
    else:
        lines += ["IMPORTANT: the image URLs are file:/// paths on this computer. They work",
                  "for you alone. To play with others, upload the images (TTS's Cloud Manager",
                  "or any https host), then either replace every FaceURL and BackURL in the",
                  "JSON with the uploaded URLs, or export again with",
                  "  eti-print export tts --base-url https://your.host/folder/",
                  "which writes <base-url>/<file name> for every image.", ""]
    lines += ["Sheets: at most 10 x 7 cells and 4096 px on a side, RGB. The last cell of",
              "every face sheet holds the hidden-card image (the deck's back); BackIsHidden",
              "is on, so TTS shows a card's back while it is hidden. Copies of a card share",
              "one cell. A deck whose cards all have the same back has one back image",
              "(<deck>-back); a deck whose backs differ (projects by tech level, agendas by",
              "company) has a back sheet laid out like its face sheet (<deck>-backs-N, TTS",
              "\"UniqueBack\"), so it stays one deck and every card keeps its own back.", "",
              "Decks:"]
    for deck, obj in zip(decks, objects):
        distinct = len({(c.front.key, c.back.key) for c in deck.cards})
        lines.append(f"  {deck.title}: {len(deck.cards)} cards, {distinct} distinct")
    lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Commands


_STALE = {"png": re.compile(r"\.png$"), "pdf": re.compile(r"\.pdf$"),
          "tts": re.compile(r"\.(jpg|png|json)$")}


def _write(out_dir: Path, folder: str, slug: str, files: Sequence[ExportFile]) -> list[Path]:
    """Write ``files`` atomically; remove this pack's files the export no longer makes."""
    out = prepare_dir(out_dir)
    target_dir = out / folder
    if target_dir.is_symlink():
        raise UsageError(f"{target_dir} is a symbolic link; refusing to write through it")
    written = []
    for f in files:
        target = out / f.name
        write_bytes(target, f.data)
        written.append(target)
    names = {p.name for p in written}
    pattern = re.compile(rf"^{re.escape(slug)}-\d\d-")
    for old in sorted(target_dir.iterdir()):
        if (old.is_file() and old.name not in names and pattern.match(old.name)
                and _STALE[folder].search(old.name)):
            old.unlink()
    return written


def export(kind: str, pack_arg: str | None, out_dir: Path, *, fmt: str = "jpg",
           base_url: str | None = None, progress: Progress = None) -> str:
    """Run ``export pdf|png|tts``; return a short report."""
    import time

    from .options import PrintOptions
    from .output import source_date_epoch
    from .pipeline import load_checked
    if kind not in ("pdf", "png", "tts"):
        raise UsageError(f"unknown export {kind!r}; exports are pdf, png and tts")
    if base_url is not None and not re.match(r"^(https?|file)://\S+$", base_url):
        raise UsageError(f"--base-url must be an http(s):// or file:// URL (got {base_url!r})")
    started = time.perf_counter()
    source_date_epoch()
    ctx = load_checked(pack_arg, PrintOptions())
    decks = export_decks(ctx)
    if not decks:
        raise InputError(Problem("the pack has no decks to export", "pack.yaml"))
    if kind == "pdf":
        files = pod_pdfs(ctx, decks, progress)
    elif kind == "png":
        files = pod_pngs(ctx, decks, progress=progress)
    else:
        files = tts_export(ctx, decks, out_dir, fmt=fmt, base_url=base_url, progress=progress)
    written = _write(out_dir, kind, ctx.slug, files)
    cards = sum(len(d.cards) for d in decks)
    return (f"wrote {len(written)} files ({cards} cards in {len(decks)} decks) to "
            f"{out_dir / kind} in {time.perf_counter() - started:.2f} s")
