"""Imposing resolved faces onto print sheets: fronts, registered backs, crop marks.

Every distinct face becomes one PDF form, drawn wherever a card shows it,
clipped to that card's bleed.  Each deck starts on a new sheet; with duplex
printing every front sheet is followed by its back sheet.  A one-sided deck
(no back layout) has front sheets only.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from ..imposition import SheetSpec, back_slots, crop_marks, draw_crop_marks, front_slots
from ..pdfwriter import DocInfo, new_canvas
from .faces import Face, draw_face


@dataclass(frozen=True)
class Deck:
    """A deck ready to impose: one (front, back) pair per physical card."""

    id: str
    title: str
    cards: tuple[tuple[Face, Face], ...]
    #: One label per physical card (its name, title or id), for exports; may be empty.
    labels: tuple[str, ...] = ()
    #: No back layout: the backs are blank and no back sheets are imposed.
    one_sided: bool = False
    #: Cards that must not be told apart from behind: sheets filled evenly (``balanced``).
    secret: bool = False


class ArtForms:
    """Art for one PDF: each distinct (art, colour) drawn once, as a form, placed at every use.

    Stands in for the ``ArtLibrary`` while faces are drawn (``draw`` places
    the form exactly where ``ArtLibrary.draw`` would draw the art: scaled to
    fit the box, aspect kept, centred); everything else goes to the library.
    Icons repeat on many cards, so this draws a deck's art a few dozen times
    instead of hundreds (the bulk of a cards PDF's drawing time).
    """

    def __init__(self, art: Any, canvas: Canvas):
        self._art = art
        self._canvas = canvas
        self._names: dict[tuple, str] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._art, name)

    def _drawing(self, art_id: str, color: Any) -> Any:
        return self._art.get(art_id) if color is None else self._art.tinted(art_id, color)

    def define(self, art_id: str, color: Any) -> str:
        """The form of ``art_id`` in ``color`` at its natural size (defined on first use)."""
        key = (art_id, None if color is None else (type(color).__name__, repr(color)))
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = f"art{len(self._names)}"
            drawing = self._drawing(art_id, color)
            self._canvas.beginForm(name, 0, 0, drawing.width, drawing.height)
            self._art.draw(self._canvas, art_id, 0, 0, drawing.width, drawing.height, color)
            self._canvas.endForm()
        return name

    def draw(self, canvas: Any, art_id: str, x: float, y: float, width: float,
             height: float, color: Any = None) -> tuple[float, float, float, float]:
        if canvas is not self._canvas:
            return self._art.draw(canvas, art_id, x, y, width, height, color)
        if not (width > 0 and height > 0):
            raise ValueError(f"art box must have a positive size (got {width}x{height})")
        name = self.define(art_id, color)
        drawing = self._drawing(art_id, color)
        scale = min(width / drawing.width, height / drawing.height)
        w, h = drawing.width * scale, drawing.height * scale
        x0, y0 = x + (width - w) / 2, y + (height - h) / 2
        canvas.saveState()
        canvas.translate(x0, y0)
        canvas.scale(scale, scale)
        canvas.doForm(name)
        canvas.restoreState()
        return (x0, y0, w, h)


class FormCache:
    """One PDF form per distinct face, defined before the first page."""

    def __init__(self) -> None:
        self.names: dict[tuple, str] = {}
        self.faces: list[tuple[str, Face]] = []

    def add(self, face: Face) -> str:
        key = face.key
        if key not in self.names:
            name = f"face{len(self.names)}"
            self.names[key] = name
            self.faces.append((name, face))
        return self.names[key]

    def define_all(self, canvas: Canvas, art: Any, ink_saver: bool) -> None:
        forms = ArtForms(art, canvas)
        # every art form first, so no form is defined inside another
        for _, face in self.faces:
            for op in face.ops:
                if op.kind == "art":
                    forms.define(op.args[0], op.args[1])
        for name, face in self.faces:
            b = face.bleed
            canvas.beginForm(name, -b, -b, face.width + b, face.height + b)
            draw_face(canvas, face, forms, ink_saver)
            canvas.endForm()


def _place(canvas: Canvas, form: str, slot: Any) -> None:
    canvas.saveState()
    clip = canvas.beginPath()
    clip.rect(slot.bleed.x, slot.bleed.y, slot.bleed.w, slot.bleed.h)
    canvas.clipPath(clip, stroke=0, fill=0)
    canvas.translate(slot.trim.x, slot.trim.y)
    canvas.doForm(form)
    canvas.restoreState()


def _chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i:i + size] for i in range(0, len(items), size)] or [items]


def balanced(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    """``items`` on as few sheets of ``size`` as ``_chunks`` uses, filled evenly (sheets
    differ by at most one card), so no card sits alone on a sheet of its own: a card
    printed apart from the rest could be told from behind by the sheet it came from."""
    count = len(_chunks(items, size))
    base, extra = divmod(len(items), count)
    out, start = [], 0
    for n in range(count):
        end = start + base + (1 if n < extra else 0)
        out.append(items[start:end])
        start = end
    return out or [items]


def impose(decks: Sequence[Deck], spec: SheetSpec, art: Any, info: DocInfo, font: str,
           ink_saver: bool = False, invariant: bool = True) -> tuple[bytes, int]:
    """Render ``decks`` onto sheets; return the PDF bytes and the page count."""
    buffer = io.BytesIO()
    canvas = new_canvas(buffer, spec.paper, font, info, invariant)
    forms = FormCache()
    named = [[(forms.add(front), "" if deck.one_sided else forms.add(back))
              for front, back in deck.cards] for deck in decks]
    forms.define_all(canvas, art, ink_saver)

    fronts, backs = front_slots(spec), back_slots(spec)
    marks = crop_marks(spec, fronts)
    back_marks = crop_marks(spec, backs)
    pages = 0

    def page(pairs: Sequence[tuple[str, str]], side: int, slots: Any, lines: Any) -> None:
        nonlocal pages
        for (pair, slot) in zip(pairs, slots):
            _place(canvas, pair[side], slot)
        draw_crop_marks(canvas, lines, spec.mark_stroke)
        canvas.showPage()
        pages += 1

    for deck, pairs in zip(decks, named):
        key = f"deck-{deck.id}"
        canvas.bookmarkPage(key)
        canvas.addOutlineEntry(f"{deck.title} ({len(pairs)})", key, level=0)
        sheets = (balanced if deck.secret else _chunks)(pairs, len(fronts))
        if deck.one_sided:
            for sheet in sheets:
                page(sheet, 0, fronts, marks)
        elif spec.duplex == "none":
            for sheet in sheets:
                page(sheet, 0, fronts, marks)
            for sheet in sheets:
                page(sheet, 1, backs, back_marks)
        else:
            for sheet in sheets:
                page(sheet, 0, fronts, marks)
                page(sheet, 1, backs, back_marks)
    canvas.save()
    return buffer.getvalue(), pages
