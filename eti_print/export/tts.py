"""``export tts``: Tabletop Simulator deck sheets and a saved object."""

from __future__ import annotations

import hashlib
import io
import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..context import Progress
from ..errors import UsageError
from .faces import (
    JPEG_QUALITY,
    POD_DPI,
    ExportCard,
    ExportDeck,
    ExportFile,
    faces_pdf,
    pixels,
    rasterise_each,
)
from .pieces import BOARD, CARDS, PIECE
from .png import image_png

#: Tabletop Simulator deck sheets: at most this many columns and rows ...
TTS_COLS = 10


TTS_ROWS = 7


#: ... at most this many pixels on a side ...
TTS_MAX_PX = 4096


#: ... and at most this many distinct cards (the last cell is the hidden card).
TTS_MAX_CARDS = TTS_COLS * TTS_ROWS - 1


#: TTS refuses custom decks narrower or lower than this.
TTS_MIN_GRID = 2


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
    if fmt == "png":        # tagged sRGB, no resolution: a TTS sheet has no print size
        return image_png(image)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=JPEG_QUALITY, subsampling=0, optimize=False)
    return buffer.getvalue()


def _guid(*parts: object) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:6]


def _transform(x: float) -> dict[str, float]:
    return {"posX": x, "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0,
            "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}


def tts_export(ctx: Any, decks: Sequence[ExportDeck], out_dir: Path, fmt: str = "jpg",
               base_url: str | None = None, progress: Progress = None) -> Iterator[ExportFile]:
    """Deck sheets, back images, piece and board images, the saved-object JSON and a
    note, for Tabletop Simulator; streamed, one sheet's bitmap alive at a time."""
    if fmt not in ("jpg", "png"):
        raise UsageError(f"TTS image format must be jpg or png (got {fmt!r})")
    folder = out_dir / "tts"

    def url(name: str) -> str:
        if base_url:
            return base_url.rstrip("/") + "/" + name
        return (folder / name).resolve().as_uri()

    objects: list[dict[str, Any]] = []
    next_key = 1
    row = {CARDS: 0, PIECE: 0, BOARD: 0}
    board_edge = 0.0              # the right edge of the boards laid so far, in TTS units
    images: dict[tuple, str]
    for deck in decks:
        place = (row[deck.kind], _ROW_Z[deck.kind])
        row[deck.kind] += 1
        if deck.kind == CARDS:
            sheets: list[TTSSheet] = []
            for sheet, files in _deck_sheets(ctx, deck, fmt, next_key, progress):
                yield from files
                sheets.append(sheet)
            next_key += len(sheets)
            objects.append(_tts_deck(ctx, deck, sheets, url, place))
        elif deck.kind == BOARD:       # each board on the table, side by side
            images = {}
            yield from _piece_images(ctx, deck, fmt, images, progress)
            half = _units(deck.size[0]) / 2
            for card in deck.cards:     # centred half a board past the last one's edge
                x = board_edge + (2.0 if board_edge else 0.0) + half
                objects.append(_tts_piece(ctx, deck, card, images, url, x, place[1]))
                board_edge = x + half
        else:
            images = {}
            yield from _piece_images(ctx, deck, fmt, images, progress)
            objects.append(_tts_pieces(ctx, deck, images, url, place))
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
    yield ExportFile(f"tts/{ctx.slug}-tts.json",
                     (json.dumps(save, indent=2, ensure_ascii=False) + "\n").encode())
    yield ExportFile("tts/README.txt", _tts_readme(ctx, decks, objects, base_url).encode())


#: Where each kind of object lies on the table: decks in a row, pieces in front of
#: them, boards behind (TTS units, z towards the far side).
_ROW_Z = {CARDS: 0.0, PIECE: -8.0, BOARD: 14.0}


def _deck_sheets(ctx: Any, deck: ExportDeck, fmt: str, first_key: int,
                 progress: Progress) -> Iterator[tuple[TTSSheet, list[ExportFile]]]:
    """Each face sheet of ``deck`` (and its back sheet or back image), one at a time."""
    from PIL import Image
    units: list[tuple[tuple, tuple]] = []
    unit_faces: dict[tuple[tuple, tuple], tuple[Any, Any]] = {}
    for card in deck.cards:
        pair = (card.front.key, card.back.key)
        if pair not in unit_faces:
            unit_faces[pair] = (card.front, card.back)
            units.append(pair)
    unique_back = len({back for _, back in units}) > 1
    hidden_face = unit_faces[units[0]][1]          # the first card's back
    for start in range(0, len(units), TTS_MAX_CARDS):
        chunk = units[start:start + TTS_MAX_CARDS]
        number = start // TTS_MAX_CARDS + 1
        cols, rows = tts_grid(len(chunk))
        # as fine as the sheet allows: a small deck gets sharper cells
        scale = tts_scale(deck.size, cols, rows)
        cell = (pixels(deck.size[0], scale), pixels(deck.size[1], scale))
        size = (cols * cell[0], rows * cell[1])
        assert max(size) <= TTS_MAX_PX, size
        last = cols * rows - 1
        hidden_at = ((last % cols) * cell[0], (last // cols) * cell[1])

        def sheet(faces: list[Any]) -> bytes:
            """The sheet of ``faces`` plus the hidden card, each cell pasted as soon as
            it is rasterised (one cell bitmap and the sheet alive at a time)."""
            image = Image.new("RGB", size, (255, 255, 255))
            pdf = faces_pdf(faces + [hidden_face], ctx.art, ctx.fonts["body"].regular,
                            f"{ctx.title} - {deck.title}", 0.0)
            for i, cell_image in rasterise_each(pdf, range(len(faces) + 1), scale):
                if cell_image.size != cell:
                    raise RuntimeError(f"{deck.stem}: TTS cell rasterised at "
                                       f"{cell_image.size}, expected {cell}")
                at = hidden_at if i == len(faces) else ((i % cols) * cell[0],
                                                        (i // cols) * cell[1])
                image.paste(cell_image, at)
                del cell_image
            del pdf
            data = _encode(image, fmt)
            del image
            return data

        face_name = f"{deck.stem}-faces-{number}.{fmt}"
        if progress:
            progress(f"rendering tts/{face_name} ({len(chunk)} distinct cards, "
                     f"{cols} x {rows}, {size[0]} x {size[1]} px)")
        files = [ExportFile(f"tts/{face_name}", sheet([unit_faces[u][0] for u in chunk]))]
        if unique_back:
            back_name = f"{deck.stem}-backs-{number}.{fmt}"
            files.append(ExportFile(f"tts/{back_name}",
                                    sheet([unit_faces[u][1] for u in chunk])))
        else:
            back_name = f"{deck.stem}-back.{fmt}"
            if number == 1:
                pdf = faces_pdf([hidden_face], ctx.art, ctx.fonts["body"].regular,
                                f"{ctx.title} - {deck.title}", 0.0)
                for _, image in rasterise_each(pdf, [0], scale):
                    files.append(ExportFile(f"tts/{back_name}", _encode(image, fmt)))
        yield (TTSSheet(first_key + number - 1, face_name, back_name, unique_back, cols, rows,
                        tuple(chunk)), files)


def _piece_images(ctx: Any, deck: ExportDeck, fmt: str, names: dict[tuple, str],
                  progress: Progress) -> Iterator[ExportFile]:
    """One image per distinct face of a piece or board deck (at most 4096 px on a side,
    at most 300 dpi); ``names`` gets each face's file name."""
    faces: list[Any] = []
    for card in deck.cards:
        if card.front.key not in names:
            names[card.front.key] = f"{deck.stem}-{len(faces) + 1:0{deck.digits}d}.{fmt}"
            faces.append(card.front)
    scale = tts_scale(deck.size, 1, 1)
    if progress:
        progress(f"rendering tts/{deck.stem}-*.{fmt} ({len(faces)} distinct, "
                 f"{pixels(deck.size[0], scale)} x {pixels(deck.size[1], scale)} px)")
    for first in range(0, len(faces), 24):
        chunk = faces[first:first + 24]
        pdf = faces_pdf(chunk, ctx.art, ctx.fonts["body"].regular,
                        f"{ctx.title} - {deck.title}", 0.0)
        for i, image in rasterise_each(pdf, range(len(chunk)), scale):
            yield ExportFile(f"tts/{names[chunk[i].key]}", _encode(image, fmt))
            del image


def _scale(points: float) -> float:
    """TTS sizes a custom tile or board by its image's aspect and its scale; a poker
    card (2.5 in wide) is scale 1, so a piece's scale is its width in inches / 2.5."""
    return round(points / 72.0 / 2.5, 4)


def _units(points: float) -> float:
    """Roughly how wide a piece lies on the table, in TTS units (a poker card at scale 1
    is about 2.2 units wide)."""
    return _scale(points) * 2.2


def _tts_piece(ctx: Any, deck: ExportDeck, card: ExportCard, names: dict[tuple, str],
               url: Callable[[str], str], x: float, z: float) -> dict[str, Any]:
    """One token, standee or badge as a stackable custom tile, or one board as a custom
    board, at its printed size relative to the cards."""
    scale = _scale(deck.size[0])
    image = {"ImageURL": url(names[card.front.key]), "ImageSecondaryURL": "",
             "ImageScalar": 1.0, "WidthScale": 0.0}
    if deck.kind != BOARD:
        image["CustomTile"] = {"Type": 0, "Thickness": 0.1, "Stackable": True, "Stretch": True}
    return {"GUID": _guid(ctx.slug, deck.id, card.number),
            "Name": "Custom_Board" if deck.kind == BOARD else "Custom_Tile",
            "Transform": {**_transform(x), "posZ": z, "rotZ": 0.0, "scaleX": scale,
                          "scaleZ": scale},
            "Nickname": card.label, "Description": "", "Locked": False, "Grid": True,
            "Snap": True, "Autoraise": True, "Sticky": True, "Tooltip": True,
            "CustomImage": image}


def _tts_pieces(ctx: Any, deck: ExportDeck, names: dict[tuple, str],
                url: Callable[[str], str], place: tuple[int, float]) -> dict[str, Any]:
    """A kind of piece: one tile, or a bag holding every copy."""
    x = 3.0 * place[0]
    if len(deck.cards) == 1:
        return _tts_piece(ctx, deck, deck.cards[0], names, url, x, place[1])
    contained = [_tts_piece(ctx, deck, card, names, url, x, place[1]) for card in deck.cards]
    return {"GUID": _guid(ctx.slug, deck.id), "Name": "Bag",
            "Transform": {**_transform(x), "posZ": place[1], "rotY": 0.0, "rotZ": 0.0},
            "Nickname": deck.title, "Description": f"{len(contained)} pieces",
            "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True,
            "Tooltip": True, "ContainedObjects": contained}


def _custom_deck(sheet: TTSSheet, url: Callable[[str], str]) -> dict[str, Any]:
    return {"FaceURL": url(sheet.faces), "BackURL": url(sheet.backs),
            "NumWidth": sheet.cols, "NumHeight": sheet.rows, "BackIsHidden": True,
            "UniqueBack": sheet.unique_back, "Type": 0}


def _tts_deck(ctx: Any, deck: ExportDeck, sheets: Sequence[TTSSheet],
              url: Callable[[str], str], place: tuple[int, float]) -> dict[str, Any]:
    where: dict[tuple[tuple, tuple], tuple[TTSSheet, int]] = {}
    for sheet in sheets:
        for i, unit in enumerate(sheet.units):
            where[unit] = (sheet, i)
    sideways = deck.size[0] > deck.size[1]
    transform = {**_transform(3.0 * place[0]), "posZ": place[1]}
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
              "(<deck>-back); a deck whose backs differ (a back per level or per faction, say)",
              "has a back sheet laid out like its face sheet (<deck>-backs-N, TTS",
              "\"UniqueBack\"), so it stays one deck and every card keeps its own back.", "",
              "Decks:"]
    for deck, _obj in zip(decks, objects):
        distinct = len({(c.front.key, c.back.key) for c in deck.cards})
        lines.append(f"  {deck.title}: {len(deck.cards)} cards, {distinct} distinct")
    lines.append("")
    return "\n".join(lines)

