"""Forms drawn from the record of an earlier drawing: a one-card edit redraws one form.

A PDF form's content stream is a function of what it draws and of the document's
state when it is drawn: the code each character has in its font's subsets (reportlab
gives them out in first-use order), which fonts already have internal names, and what
the names of the forms it places stand for.  Drawing a form through ``FormReplay``
keeps a ``Record`` of it: its operators, the forms it placed, and every call it made
that reads or changes the document's state (``logged_calls``: the pack's fonts'
subset codes and names, any other font's name, the PDF version transparency needs).

A later document of the same output draws an equal form from its record by making those
calls again, in order (``replay_calls``).  If each returns what it returned then, the
document is in the state the record was made in, so the operators are the very ones
drawing would make, byte for byte, and the document is left as drawing would leave it.
If one returns something else (an earlier card now uses a character first), the form is
drawn afresh: the calls replayed so far are the ones drawing makes first, and none
changes the document twice.

A form whose drawing touches any other state of the document or the canvas is drawn
every time and never recorded: an object added (an image), a transparency state
(``gs``), a colour space, a shading, an annotation, or any other attribute changed.

Records are kept per output by the build cache (``BuildCache.form_records``), for the
next build of the same process (``watch``); the records a drawing did not use are
dropped with it.  So are the document's streams deflated (``pdfwriter.Flate``): a
form or page whose bytes the last drawing deflated is not deflated again.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from reportlab.pdfbase import pdfmetrics

from ..fonts import LOG, LoggedFont
from ..pdfwriter import FLATE, Flate

#: The document methods drawing calls that change the document (besides adding objects,
#: which a recorded form may not do), logged and made again on replay.
_LOGGED = ("getInternalFontName", "ensureMinPdfVersion")
#: Document attributes those calls (and the pack's fonts') change.
_CALLED = frozenset({"fontMapping", "delayedFonts", "_pdfVersion", LOG, *_LOGGED})
#: Canvas attributes a form's drawing is expected to change: its graphics state (put
#: back by ``endForm``) and the accumulators of the stream being drawn.
_DRAWING = frozenset({"_code", "_formsinuse", "_annotationrefs", "_colorsUsed",
                      "_shadingUsed", "_formData", "_codeStack", "state_stack",
                      "_psCommandsAfterPage", "_psCommandsBeforePage",
                      "_currentPageHasImages"})


@contextmanager
def logged_calls(doc: Any) -> Iterator[list[tuple]]:
    """Every call drawing makes in the block that reads or changes reportlab document
    ``doc``'s state, in order: ``("split", font, text, result)`` and ``("name", font,
    subset, result)`` of the pack's fonts (``fonts.LoggedFont``), ``("type1", name,
    result)`` of any other font, ``("version", keys)`` of a feature that needs a later
    PDF version.  ``replay_calls`` makes them again."""
    log: list[tuple] = []
    named, version = doc.getInternalFontName, doc.ensureMinPdfVersion

    def type1(name: str) -> str:
        result = named(name)
        log.append(("type1", name, result))
        return result

    def needs(*keys: str) -> None:
        log.append(("version", keys))
        version(*keys)

    setattr(doc, LOG, log)
    doc.getInternalFontName, doc.ensureMinPdfVersion = type1, needs
    try:
        yield log
    finally:
        setattr(doc, LOG, None)
        del doc.getInternalFontName, doc.ensureMinPdfVersion


def replay_calls(doc: Any, calls: Iterable[tuple]) -> bool:
    """Make ``calls`` (``logged_calls``) again, in order, into ``doc``: True if each
    returned what it returned when logged.  The first that does not stops the replay."""
    for call in calls:
        try:
            kind = call[0]
            if kind == "version":
                doc.ensureMinPdfVersion(*call[1])
            elif kind == "type1":
                if doc.getInternalFontName(call[1]) != call[2]:
                    return False
            else:
                _, font, arg, result = call
                if pdfmetrics.getFont(font.fontName) is not font:
                    return False            # another font registered under its name
                made = font.splitString(arg, doc) if kind == "split" \
                    else font.getSubsetInternalName(arg, doc)
                if made != result:
                    return False
        except Exception:      # a font no longer registered, a subset not there
            return False
    return True


def _footprint(thing: Any, ignored: frozenset[str]) -> dict[str, Any]:
    """What each attribute of ``thing`` is (but ``ignored``): a container by its identity
    and size, anything else by its identity and value where it has one."""
    found = {}
    for key, value in vars(thing).items():
        if key in ignored:
            continue
        if isinstance(value, (dict, list, set, tuple)):
            found[key] = (id(value), len(value))
        elif isinstance(value, (int, float, str, bytes, bool, type(None))):
            found[key] = value
        else:
            found[key] = id(value)
    return found


def art_key(art: Any) -> Any:
    """What an art library draws from, for a record's world: its content hash
    (``ArtLibrary.content_key``), else the library itself."""
    return getattr(art, "content_key", None) or art


@dataclass(frozen=True)
class Record:
    """What drawing one form did: its operators, the forms it placed (each with what
    its name stood for), and its font calls in order."""

    code: tuple[Any, ...]
    placed: tuple[tuple[str, Any], ...]
    calls: tuple[tuple, ...]


@dataclass
class Records:
    """The records of one output's forms from its last drawing, with the world they were
    made in (the art library, the ink saver, the canvas's initial font; another world
    starts with none): ``(world, records by key)``, replaced whole."""

    last: tuple[tuple, dict[Hashable, Record]] = ((), {})
    #: The last drawing's forms: (drawn afresh, in all); None while one is under way.
    counts: tuple[int, int] | None = None
    #: The last drawing's streams (forms, pages, and the font files and maps added as
    #: the document is saved), deflated: ``pdfwriter.Flate`` deflates an unchanged one
    #: only once.
    deflated: dict[Any, bytes] = field(default_factory=dict)


class FormReplay:
    """One document's forms drawn through ``records``: from a record where it still holds,
    else drawn (and recorded) afresh.  ``finish`` keeps this drawing's records."""

    def __init__(self, canvas: Any, records: Records, world: tuple,
                 meaning: Callable[[str], Any]) -> None:
        self.canvas = canvas
        self.records = records
        world = (*world, canvas._initialFontName, canvas._initialFontSize)
        self.world = world
        made_in, kept = records.last
        self.old = kept if made_in == world else {}
        self.new: dict[Hashable, Record] = {}
        self.meaning = meaning
        self.replayed = self.drawn = 0
        # every stream of the document deflated through the last drawing's (a pure
        # function of the stream's bytes, so whatever the world)
        self.flate = Flate(records.deflated)
        setattr(canvas._doc, FLATE, self.flate)

    def form(self, key: Hashable, name: str, bbox: tuple[float, float, float, float],
             paint: Callable[[], None]) -> None:
        """Form ``name`` (its ``bbox``), drawn by ``paint()`` or from the record of ``key``."""
        c = self.canvas
        if getattr(c._doc, LOG, None) is not None:
            # drawn inside a form being recorded: drawn afresh, and that form, which
            # adds this one to the document, is not recorded
            self.drawn += 1
            c.beginForm(name, *bbox)
            paint()
            c.endForm()
            return
        record = self.old.get(key)
        if record is not None and self._holds(record):
            c.beginForm(name, *bbox)
            c._code.extend(record.code)
            c._formsinuse.extend(n for n, _ in record.placed)
            c.endForm()
            self.new[key] = record
            self.replayed += 1
            return
        self.drawn += 1
        doc = c._doc
        before = _footprint(c, _DRAWING | set(c.STATE_ATTRIBUTES))
        with logged_calls(doc) as calls:
            c.beginForm(name, *bbox)
            state = _footprint(doc, _CALLED)
            fonts = set(doc.fontMapping)
            ops, forms = len(c._code), len(c._formsinuse)
            paint()
            code, placed = tuple(c._code[ops:]), tuple(c._formsinuse[forms:])
            clean = (not c._colorsUsed and not c._shadingUsed and not c._annotationrefs
                     and _footprint(doc, _CALLED) == state
                     # a font that logs nothing (not the pack's) may have drawn here
                     and all(isinstance(font, LoggedFont) for font in doc.delayedFonts)
                     # a transparency state, by a name the document gives (a text
                     # object's code holds its own, so anywhere in an operator)
                     and not any(isinstance(op, str) and " gs" in op for op in code))
            c.endForm()
        named = {call[1].fontName for call in calls if call[0] == "name"} \
            | {call[1] for call in calls if call[0] == "type1"}
        if clean and set(doc.fontMapping) - fonts <= named \
                and _footprint(c, _DRAWING | set(c.STATE_ATTRIBUTES)) == before:
            self.new[key] = Record(code, tuple((n, self.meaning(n)) for n in placed),
                                   tuple(calls))

    def _holds(self, record: Record) -> bool:
        """Does ``record`` draw what drawing would, here and now?  (Replays its calls.)"""
        for name, meant in record.placed:
            if self.meaning(name) != meant or not self.canvas.hasForm(name):
                return False
        return replay_calls(self.canvas._doc, record.calls)

    def finish(self) -> None:
        """Keep this drawing's records (only these) for the output's next drawing."""
        self.records.last = (self.world, self.new)
        self.records.deflated = self.flate.made      # filled as the document is saved
        self.records.counts = (self.drawn, self.drawn + self.replayed)


def define(canvas: Any, replay: FormReplay | None, key: Hashable, name: str,
           bbox: tuple[float, float, float, float], paint: Callable[[], None]) -> None:
    """Form ``name`` on ``canvas`` drawn by ``paint()``: through ``replay`` (from the
    record of ``key`` where it holds) if there is one, else as reportlab draws it."""
    if replay is not None:
        replay.form(key, name, bbox, paint)
        return
    canvas.beginForm(name, *bbox)
    paint()
    canvas.endForm()
