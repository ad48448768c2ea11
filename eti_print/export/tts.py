"""``export tts``: Tabletop Simulator deck sheets and a saved object."""

from __future__ import annotations

import hashlib
import io
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..context import Progress
from ..errors import UsageError
from .faces import (
    JPEG_QUALITY,
    POD_DPI,
    ExportDeck,
    ExportFile,
    faces_pdf,
    pixels,
    rasterise,
)

#: Print-on-demand bleed: 1/8 in on every side, in points.


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
              "(<deck>-back); a deck whose backs differ (a back per level or per faction, say)",
              "has a back sheet laid out like its face sheet (<deck>-backs-N, TTS",
              "\"UniqueBack\"), so it stays one deck and every card keeps its own back.", "",
              "Decks:"]
    for deck, _obj in zip(decks, objects):
        distinct = len({(c.front.key, c.back.key) for c in deck.cards})
        lines.append(f"  {deck.title}: {len(deck.cards)} cards, {distinct} distinct")
    lines.append("")
    return "\n".join(lines)

