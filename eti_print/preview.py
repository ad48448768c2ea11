"""``eti-print preview``: one card side as a PNG, at its exact print size, with guides.

A card is found by its data ``id`` (``sabotage``), by ``DECK:ID`` when two
decks share an id, or by ``DECK:N``, its 1-based position in the deck with
copies counted (the numbering of ``export png``'s file names).  Its face is
resolved by the same code as the print sheets (``render.faces.FaceResolver``)
and drawn by the same code (``export.faces.faces_pdf``: ``FormCache`` /
``draw_face``), then rasterised by pdfium.  The image is the trim plus the
sheet's bleed on every side at ``dpi``.

``--guides`` draws over it: the trim (red), the bleed edge (blue), the safe
zone (green, dashed; ``safe:`` of the sheet setting, 3 mm inside the trim by
default) and every layout box's outline with its name (magenta), where the
resolver placed it for this card (``FaceResolver.outlines``).

``serve`` uses the same functions for its thumbnails and large views.
"""

from __future__ import annotations

import difflib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import UsageError
from .jobs.decks import Part, card_context, card_label, card_location, parts_of

if TYPE_CHECKING:  # pragma: no cover
    from .context import Context
    from .render.faces import BoxOutline, Face
    from .sheets import SheetSetting

#: The default resolution of ``preview``.
DPI = 300
#: The highest ``--dpi``: a poker card is 3000 x 4000 px at 1200 dpi.
MAX_DPI = 1200


@dataclass(frozen=True)
class CardRef:
    """One card of a deck (copies together): where it comes from and how to name it."""

    deck_index: int           # 0-based, in pack.yaml's decks
    deck_id: str
    deck_title: str
    number: int               # 1-based position of its first copy in the deck
    copies: int
    id: str | None            # the item's ``id`` field, if it has one
    label: str
    file: str                 # as shown in messages (pack-relative)
    line: int | None
    ref: str                  # the data list (``events.events``) or ``decks[0].cards``
    index: int                # the item's index in that list
    item: Any
    part: Part

    @property
    def address(self) -> str:
        """``DECK:N``: always unique."""
        return f"{self.deck_id}:{self.number}"

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


def cards(ctx: Context) -> list[CardRef]:
    """Every card of every deck, in print order (each item once, with its copies)."""
    found: list[CardRef] = []
    for d_index, deck in enumerate(ctx.dataset.config.get("decks") or []):
        number = 1
        for part in parts_of(ctx, d_index, deck):
            for ref, items in part.sources:
                for i, item in enumerate(items):
                    copies = 1
                    if deck.get("count") and isinstance(item, dict):
                        copies = int(item.get(deck["count"], 1))
                    file, line = card_location(ctx, ref, i)
                    card_id = item.get("id") if isinstance(item, dict) else None
                    found.append(CardRef(d_index, deck["id"], deck["title"], number, copies,
                                         str(card_id) if card_id is not None else None,
                                         card_label(deck, item), file, line, ref, i, item,
                                         part))
                    number += copies
    return found


def find_card(found: list[CardRef], spec: str) -> CardRef:
    """The card ``spec`` names (``ID``, ``DECK:ID`` or ``DECK:N``); a UsageError with the
    nearest names if none or several match."""
    decks = list(dict.fromkeys(c.deck_id for c in found))
    if not found:
        raise UsageError("the pack has no cards to preview")
    if ":" in spec:
        deck_id, _, rest = spec.partition(":")
        if deck_id not in decks:
            raise UsageError(f"no deck {deck_id!r}" + _near(deck_id, decks)
                             + "; decks are " + ", ".join(decks))
        in_deck = [c for c in found if c.deck_id == deck_id]
        if rest.isdigit():
            n = int(rest)
            total = in_deck[-1].number + in_deck[-1].copies - 1
            for card in in_deck:
                if card.number <= n < card.number + card.copies:
                    return card
            raise UsageError(f"deck {deck_id!r} has cards 1 to {total} (got {n})")
        matches = [c for c in in_deck if c.id == rest]
        if matches:
            return matches[0]
        ids = [c.id for c in in_deck if c.id]
        raise UsageError(f"no card {rest!r} in deck {deck_id!r}" + _near(rest, ids)
                         + _how(in_deck[0]))
    matches = [c for c in found if c.id == spec]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise UsageError(f"card id {spec!r} is in more than one deck: "
                         + ", ".join(f"{c.deck_id}:{spec}" for c in matches)
                         + "; give one of those")
    ids = list(dict.fromkeys(c.id for c in found if c.id))
    raise UsageError(f"no card {spec!r}" + _near(spec, ids + decks) + _how(found[0]))


def _near(word: str, names: list[str]) -> str:
    close = difflib.get_close_matches(word, names, n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def _how(example: CardRef) -> str:
    return (f"; name a card by its id, or by DECK:N, its position in the deck "
            f"(e.g. {example.address})")


# ---------------------------------------------------------------------------
# Resolving and drawing one side


@dataclass(frozen=True)
class Side:
    """One side of one card, resolved: what ``render_png`` draws."""

    card: CardRef
    back: bool
    face: Face
    setting: SheetSetting
    outlines: tuple[BoxOutline, ...]

    @property
    def name(self) -> str:
        return "back" if self.back else "front"


class Sides:
    """Resolves card sides of one loaded pack, with one resolver per sheet setting."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self._resolvers: dict[str, Any] = {}

    def setting(self, card: CardRef) -> SheetSetting:
        deck = self.ctx.dataset.config["decks"][card.deck_index]
        manifest = self.ctx.dataset.manifest
        line, _ = manifest.where(("decks", card.deck_index, "sheet"))
        return self.ctx.sheets.get(deck.get("sheet", "card"), where=manifest.path, line=line,
                                   field=f"decks[{card.deck_index}].sheet")

    def _resolver(self, setting: SheetSetting) -> Any:
        from .render.faces import FaceResolver
        resolver = self._resolvers.get(setting.name)
        if resolver is None:
            ctx = self.ctx
            resolver = self._resolvers[setting.name] = FaceResolver(
                ctx.env, ctx.fonts, ctx.art, setting.width, setting.height, setting.bleed)
        return resolver

    def side(self, card: CardRef, back: bool = False) -> Side:
        """Resolve one side (an InputError, located, if its layout or data is wrong)."""
        ctx = self.ctx
        deck = ctx.dataset.config["decks"][card.deck_index]
        base = ("decks", card.deck_index) + (("parts", card.part.index)
                                             if card.part.index is not None else ())
        which = "back" if back else "front"
        field = (f"decks[{card.deck_index}]"
                 + (f".parts[{card.part.index}]" if card.part.index is not None else "")
                 + f".{which}")
        line, _ = ctx.dataset.manifest.where(base + (which,))
        layout = ctx.layouts.get(getattr(card.part, which), where=ctx.dataset.manifest.path,
                                 line=line, field_name=field)
        setting = self.setting(card)
        resolver = self._resolver(setting)
        context = card_context(ctx, deck, card.ref, card.item, card.number - 1)
        what = f"card {card.ref}[{card.index}] {card.label!r} ({card.where})" + (
            " (back)" if back else "")
        face = resolver.resolve(layout, context, what)
        return Side(card, back, face, setting, tuple(resolver.outlines(layout, context)))


def size_px(side: Side, dpi: int) -> tuple[int, int]:
    """The image's exact size: trim plus bleed on every side, at ``dpi``."""
    from .export.faces import pixels
    scale = dpi / 72.0
    b = side.setting.bleed
    return (pixels(side.face.width + 2 * b, scale), pixels(side.face.height + 2 * b, scale))


def side_pdf(ctx: Context, sides: list[Side], guides: bool = False) -> bytes:
    """A page per side (one size), trim plus bleed, guides drawn over each if asked."""
    from .export.faces import faces_pdf
    font = ctx.fonts["body"].regular

    def overlay(canvas: Any, i: int) -> None:
        draw_guides(canvas, sides[i], font)

    return faces_pdf([s.face for s in sides], ctx.art, font, f"{ctx.title} - preview",
                     sides[0].setting.bleed, overlay=overlay if guides else None)


def render_pngs(ctx: Context, sides: list[Side], dpi: int, guides: bool = False) -> list[bytes]:
    """Each side as PNG bytes at ``dpi`` (sides of one size go through one PDF)."""
    from .export.faces import rasterise
    out: list[bytes | None] = [None] * len(sides)
    groups: dict[tuple, list[int]] = {}
    for i, s in enumerate(sides):
        groups.setdefault((s.face.width, s.face.height, s.setting.bleed), []).append(i)
    for indices in groups.values():
        group = [sides[i] for i in indices]
        images = rasterise(side_pdf(ctx, group, guides), range(len(group)), dpi / 72.0)
        for n, i in enumerate(indices):
            image = images[n]
            expected = size_px(sides[i], dpi)
            if image.size != expected:   # pdfium and ``pixels`` must agree
                raise RuntimeError(f"rasterised at {image.size}, expected {expected}")
            buffer = io.BytesIO()
            image.save(buffer, "PNG", dpi=(dpi, dpi))
            out[i] = buffer.getvalue()
    return [b for b in out if b is not None]


# Guide colours: trim red, bleed blue, safe green, boxes magenta.
TRIM, BLEED, SAFE, BOXES = "#E0201B", "#1F6FEB", "#17A34A", "#C026D3"


def draw_guides(canvas: Any, side: Side, font: str) -> None:
    """Trim, bleed edge, safe zone and labelled box outlines over a face drawn with its
    trim's bottom-left at the origin."""
    from reportlab.lib.colors import HexColor, white
    face, setting = side.face, side.setting
    W, H, b, safe = face.width, face.height, setting.bleed, setting.safe
    canvas.saveState()
    # box outlines first, so the trim and safe lines stay on top
    canvas.setLineWidth(0.35)
    canvas.setDash([])
    # labels scale with the piece: 4.2 pt on a poker card, 2.2 pt on a one-inch chit
    size = max(2.2, min(4.2, min(W, H) / 40))
    for box in side.outlines:
        bottom = H - box.y - box.h
        canvas.setStrokeColor(HexColor(BOXES))
        if box.type == "line":
            canvas.line(box.x, H - box.y, box.x + box.w, H - box.y - box.h)
        else:
            canvas.rect(box.x, bottom, box.w, box.h, stroke=1, fill=0)
        width = canvas.stringWidth(box.name, font, size)
        pad = size / 5
        tx, ty = max(box.x, -b), min(H - box.y, H + b) - size - pad
        canvas.setFillColor(white)
        canvas.setFillAlpha(0.7)
        canvas.rect(tx, ty - 2 * pad, width + 2 * pad, size + 2.5 * pad, stroke=0, fill=1)
        canvas.setFillAlpha(1)
        canvas.setFillColor(HexColor(BOXES))
        canvas.setFont(font, size)
        canvas.drawString(tx + pad, ty - pad / 2, box.name)
    canvas.setLineWidth(0.6)
    canvas.setStrokeColor(HexColor(BLEED))
    canvas.rect(-b + 0.3, -b + 0.3, W + 2 * b - 0.6, H + 2 * b - 0.6, stroke=1, fill=0)
    canvas.setStrokeColor(HexColor(TRIM))
    canvas.rect(0, 0, W, H, stroke=1, fill=0)
    if 0 < 2 * safe < min(W, H):
        canvas.setStrokeColor(HexColor(SAFE))
        canvas.setDash([2, 1.5])
        canvas.rect(safe, safe, W - 2 * safe, H - 2 * safe, stroke=1, fill=0)
    canvas.restoreState()


# ---------------------------------------------------------------------------
# The command


def check_dpi(dpi: int) -> int:
    if not 10 <= dpi <= MAX_DPI:
        raise UsageError(f"--dpi must be between 10 and {MAX_DPI} (got {dpi})")
    return dpi


def default_name(ctx: Context, side: Side, guides: bool) -> str:
    card = side.card
    return (f"{ctx.slug}-{card.deck_id}-{card.number:03d}-{side.name}"
            + ("-guides" if guides else "") + ".png")


def preview(pack_arg: str | None, spec: str, *, back: bool = False, guides: bool = False,
            dpi: int = DPI, out: Path | None = None, out_dir: Path = Path("output")) -> str:
    """Write one card side as a PNG; return a one-line report."""
    import time

    from .options import PrintOptions
    from .output import source_date_epoch, write_bytes
    from .pipeline import load_checked
    started = time.perf_counter()
    check_dpi(dpi)
    source_date_epoch()
    ctx = load_checked(pack_arg, PrintOptions())
    card = find_card(cards(ctx), spec)
    side = Sides(ctx).side(card, back)
    data = render_pngs(ctx, [side], dpi, guides)[0]
    target = Path(out) if out is not None else Path(out_dir) / "preview" / default_name(
        ctx, side, guides)
    if target.suffix.lower() != ".png":
        raise UsageError(f"--out must name a .png file (got {target})")
    target.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(target, data)
    w, h = size_px(side, dpi)
    return (f"wrote {target}: {card.deck_id} card {card.number} {card.label!r} "
            f"({card.where}), {side.name}, {w} x {h} px at {dpi} dpi (trim + "
            f"{side.setting.bleed * 25.4 / 72:g} mm bleed) in "
            f"{time.perf_counter() - started:.2f} s")
