"""Imposing resolved faces onto print sheets: fronts, registered backs, crop marks.

Every distinct face becomes one PDF form, drawn wherever a card shows it,
clipped to that card's bleed.  Each deck starts on a new sheet; with duplex
printing (and ``glue``) every front sheet is followed by its back sheet; with
``fold`` both share one page.  A one-sided deck (no back layout) has front
sheets only.  Every page carries a label saying what it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reportlab.pdfgen.canvas import Canvas

from ..imposition import SheetSpec, back_slots, crop_marks, front_slots
from ..imposition_labels import LABEL_MIN_SIZE, label_strips
from ..pdfwriter import DocInfo, new_canvas
from ..sheets import ScaleCheck
from ..units import PAPER
from .faces import Face, draw_face
from .marks import draw_crop_marks
from .replay import FormReplay, Records, art_key, define
from .scale import Footprint, clear_of, draw_scale_check, reserve


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


@dataclass(frozen=True)
class _Sheeted:
    """What laying a deck's sheets needs of it once its forms are drawn."""

    id: str
    title: str
    one_sided: bool
    secret: bool


class ArtForms:
    """Art for one PDF: each distinct (art, colour) drawn once, as a form, placed at every use.

    Stands in for the ``ArtLibrary`` while faces are drawn (``draw`` places
    the form exactly where ``ArtLibrary.draw`` would draw the art: scaled to
    fit the box, aspect kept, centred); everything else goes to the library.
    Icons repeat on many cards, so this draws a deck's art a few dozen times
    instead of hundreds (the bulk of a cards PDF's drawing time).
    """

    def __init__(self, art: Any, canvas: Canvas, records: Records | None = None,
                 world: tuple = ()):
        self._art = art
        self._canvas = canvas
        self._names: dict[tuple, str] = {}
        self._keys: dict[str, tuple] = {}
        #: Forms drawn from an earlier drawing's records where they still hold (watch)
        self.replay = None if records is None else \
            FormReplay(canvas, records, (art_key(art), *world), self._keys.get)

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
            self._keys[name] = key
            drawing = self._drawing(art_id, color)
            define(self._canvas, self.replay, ("art", key), name,
                   (0, 0, drawing.width, drawing.height),
                   lambda: self._art.draw(self._canvas, art_id, 0, 0, drawing.width,
                                          drawing.height, color))
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
        # by the face: equal faces are one form; a face hashes its ops once (Face.__hash__)
        # and a deck repeats the very same Face for every copy of a card
        self.names: dict[Face, str] = {}
        self.faces: list[tuple[str, Face]] = []

    def add(self, face: Face) -> str:
        name = self.names.get(face)
        if name is None:
            name = self.names[face] = f"face{len(self.names)}"
            self.faces.append((name, face))
        return name

    def define_all(self, canvas: Canvas, art: Any, ink_saver: bool,
                   records: Records | None = None) -> None:
        """Every form: the art's, then the faces' (through ``records``, those of the
        output's last drawing, each drawn again only where its record no longer holds)."""
        forms = ArtForms(art, canvas, records, (ink_saver,))
        # every art form first, so no form is defined inside another
        for _, face in self.faces:
            for op in face.ops:
                if op.kind == "art":
                    forms.define(op.args[0], op.args[1])
        for name, face in self.faces:
            b = face.bleed
            define(canvas, forms.replay, ("face", face), name,
                   (-b, -b, face.width + b, face.height + b),
                   lambda face=face: draw_face(canvas, face, forms, ink_saver))
        if forms.replay is not None:
            forms.replay.finish()


def _place(canvas: Canvas, form: str, slot: Any) -> None:
    canvas.saveState()
    clip = canvas.beginPath()
    # neighbours' bleeds overlap by SEAM, so no viewer shows a hairline between them
    area = slot.bleed.outset(SEAM / 2)
    clip.rect(area.x, area.y, area.w, area.h)
    canvas.clipPath(clip, stroke=0, fill=0)
    canvas.translate(slot.trim.x, slot.trim.y)
    canvas.doForm(form)
    canvas.restoreState()


#: Neighbouring bleeds overlap by this much (points) in the middle of a gutter.
SEAM = 0.3


def sheet_sizes(count: int, size: int, first: int | None = None,
                secret: bool = False) -> list[int]:
    """How many of ``count`` cards go on each sheet of ``size`` slots, the first sheet
    holding at most ``first`` (the file's first sheet keeps a slot for the scale
    check).  A ``secret`` deck's sheets are filled evenly (they differ by at most one
    card, the first the lightest), so no card sits alone on a sheet of its own: a card
    printed apart from the rest could be told from behind by the sheet it came from."""
    first = size if first is None else max(1, min(first, size))
    sheets = 1 + max(0, -(-(count - first) // size))
    if not secret:
        return [min(count, first)] + [min(size, count - first - size * n)
                                      for n in range(sheets - 1)]
    base, extra = divmod(count, sheets)
    sizes = sorted(base + (1 if n < extra else 0) for n in range(sheets))
    return sizes


def split(items: Sequence[Any], sizes: Sequence[int]) -> list[Sequence[Any]]:
    """``items`` cut into runs of ``sizes``."""
    out, start = [], 0
    for n in sizes:
        out.append(items[start:start + n])
        start += n
    return out


def balanced(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    """``items`` on as few sheets of ``size`` as they need, filled evenly (sheet_sizes)."""
    return split(items, sheet_sizes(len(items), size, secret=True))


def _label(canvas: Canvas, font: str, parts: Sequence[str], strips: Sequence[Any]) -> None:
    """The label's ``parts`` joined in the widest strip, or, if that is too narrow even
    at 6 pt, the first half of them in the widest strip and the rest in the next."""
    if not strips:
        return
    whole = " \u00b7 ".join(parts)
    if (len(strips) == 1 or len(parts) < 2
            or canvas.stringWidth(whole, font, LABEL_MIN_SIZE) <= strips[0].w):
        _line(canvas, font, whole, strips[0])
        return
    half = (len(parts) + 1) // 2
    _line(canvas, font, " \u00b7 ".join(parts[:half]), strips[0])
    _line(canvas, font, " \u00b7 ".join(parts[half:]), strips[1])


def _line(canvas: Canvas, font: str, text: str, strip: Any) -> None:
    """``text`` in ``strip``, as large as fits from 7 pt down to 6 pt (shortened with an
    ellipsis if even 6 pt is too wide); K-only ink."""
    size = 7.0
    while size > LABEL_MIN_SIZE and canvas.stringWidth(text, font, size) > strip.w:
        size -= 0.5
    shown = text
    while canvas.stringWidth(shown, font, size) > strip.w and len(shown) > 1:
        shown = shown[:-2] + "\u2026"
    canvas.saveState()
    canvas.setFillColorCMYK(0, 0, 0, 0.85)
    canvas.setFont(font, size)
    canvas.drawCentredString(strip.x + strip.w / 2, strip.y + (strip.h - size * 0.7) / 2,
                             shown)
    canvas.restoreState()


def _fold(canvas: Canvas, spec: SheetSpec) -> None:
    """The fold line of a ``--duplex fold`` sheet: dashed, K only."""
    line = spec.fold_line
    if line is None:
        return
    canvas.saveState()
    canvas.setStrokeColorCMYK(0, 0, 0, 0.6)
    canvas.setLineWidth(0.5)
    canvas.setDash([4, 3], 0)
    canvas.line(line.x1, line.y1, line.x2, line.y2)
    canvas.restoreState()


def paper_name(size: tuple[float, float]) -> str:
    """``A4`` or ``Letter`` (and ``landscape`` when turned) for a page size."""
    for name, (w, h) in PAPER.items():
        for turned, (a, b) in ((False, (w, h)), (True, (h, w))):
            if abs(a - size[0]) < 0.5 and abs(b - size[1]) < 0.5:
                label = name.upper() if len(name) <= 2 else name.capitalize()
                return label + (" landscape" if turned else "")
    return f"{size[0] / 72 * 25.4:.0f} x {size[1] / 72 * 25.4:.0f} mm"


def sheets_of(deck: Deck, per_sheet: int, kept: int = 0) -> int:
    """How many sheets ``deck`` fills (``kept``: the slots its first sheet keeps for the
    scale check, when it is the file's first deck)."""
    return len(sheet_sizes(len(deck.cards), per_sheet, per_sheet - kept, deck.secret))


def impose(decks: Sequence[Deck], spec: SheetSpec, art: Any, info: DocInfo, font: str,
           ink_saver: bool = False, invariant: bool = True,
           file: str = "", scale: ScaleCheck | None = None,
           consume: bool = False, records: Records | None = None) -> tuple[bytes, int]:
    """Render ``decks`` onto sheets; return the PDF bytes and the page count.

    Page order by ``spec.duplex``: long, short and glue put every back sheet right
    after its front; none puts a deck's back sheets after all its fronts; fold draws
    fronts and backs on one page.  Every page is labelled (``file``, deck, sheet n of
    m, FRONT or BACK, paper) in a margin strip clear of the marks.  The first sheet
    keeps the slots in its bottom right corner that the ``scale`` check needs (one
    poker card's) and draws it there.

    With ``consume`` (``decks`` a list its caller gives up) the list is emptied once
    every face's form is drawn, so the faces can go before the pages are laid and the
    PDF saved, where a build's memory peaks.
    """
    canvas = new_canvas(spec.paper, font, info, invariant, duplex=spec.duplex)
    forms = FormCache()
    named = [[(forms.add(front), "" if deck.one_sided else forms.add(back))
              for front, back in deck.cards] for deck in decks]
    forms.define_all(canvas, art, ink_saver, records)
    del forms                     # what follows places the forms by name
    sheeted = [_Sheeted(d.id, d.title, d.one_sided, d.secret) for d in decks]
    if consume:
        del decks[:]              # type: ignore[attr-defined]  # a list, given up
    decks = sheeted

    fronts, backs = front_slots(spec), back_slots(spec)
    marks = crop_marks(spec, fronts)
    back_marks = crop_marks(spec, backs)
    folded = spec.duplex == "fold"
    fold = [spec.fold_line] if spec.fold_line is not None else []
    strips = {0: label_strips(spec, fronts + (backs if folded else []),
                              marks + (back_marks + fold if folded else [])),
              1: label_strips(spec, backs, back_marks)}
    paper = paper_name(spec.paper)
    pages = 0
    footprint = Footprint(scale) if scale is not None else None
    kept = reserve(fronts, footprint.size) if footprint is not None else None
    spot = footprint.rect(*kept[1]) if kept is not None and footprint else None

    def page(pairs: Sequence[tuple[str, str]], side: int, where: list[str],
             first: bool = False) -> None:
        """One page; ``first``: the file's first sheet, its corner kept for the check."""
        nonlocal pages
        free = [s for s in fronts if not first or s.index not in kept[0]]
        back_of = {s.index: b for s, b in zip(fronts, backs)}
        for (pair, slot) in zip(pairs, free):
            _place(canvas, pair[side], slot if side == 0 else back_of[slot.index])
        front_marks = clear_of(marks, spot) if first else marks
        if folded and side == 0:
            for (pair, slot) in zip(pairs, free):
                if pair[1]:
                    _place(canvas, pair[1], back_of[slot.index])
            draw_crop_marks(canvas, front_marks + back_marks, spec.mark_stroke)
            _fold(canvas, spec)
        else:
            draw_crop_marks(canvas, front_marks if side == 0 else back_marks,
                            spec.mark_stroke)
        if first and side == 0:
            draw_scale_check(canvas, scale, spot.x, spot.y, font)
        _label(canvas, font, where, strips[side])
        canvas.showPage()
        pages += 1

    for deck, pairs in zip(decks, named):
        key = f"deck-{deck.id}"
        canvas.bookmarkPage(key)
        canvas.addOutlineEntry(f"{deck.title} ({len(pairs)})", key, level=0)
        lead = spot is not None and deck is decks[0]
        sheets = split(pairs, sheet_sizes(len(pairs), len(fronts),
                                          len(fronts) - (len(kept[0]) if lead else 0),
                                          deck.secret))

        def where(n: int, side: str, deck: _Sheeted = deck, count: int = len(sheets)
                  ) -> list[str]:
            return [p for p in (file, deck.title, f"sheet {n} of {count}", side, paper) if p]

        def first(n: int, lead: bool = lead) -> bool:
            return lead and n == 1

        if deck.one_sided:
            for n, sheet in enumerate(sheets, 1):
                page(sheet, 0, where(n, "FRONT"), first(n))
        elif folded:
            for n, sheet in enumerate(sheets, 1):
                page(sheet, 0, where(n, "FRONT | BACK: fold on the dashed line"), first(n))
        elif spec.duplex == "none":
            for n, sheet in enumerate(sheets, 1):
                page(sheet, 0, where(n, "FRONT"), first(n))
            for n, sheet in enumerate(sheets, 1):
                page(sheet, 1, where(n, "BACK"), first(n))
        else:
            for n, sheet in enumerate(sheets, 1):
                page(sheet, 0, where(n, "FRONT"), first(n))
                page(sheet, 1, where(n, "BACK"), first(n))
    return canvas.getpdfdata(), pages
