"""Forms and pages drawn from the record of an earlier drawing: a one-card edit redraws
one form of the cards, and the pages of a document that show the card.

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

A document's page is recorded the same way (``FormReplay.page``; imposed as a booklet,
its pages are forms), keyed by everything its drawing reads (``Keys``: its flowables
pickled whole, each by what it draws from).  A page may define a form on its first use
(an icon): the form has a record of its own, and the page's calls mark where it was
defined, so a replayed page defines it again at that point, under the same name
(``remake``), as drawing the page would.

Records are kept per output by the build cache (``BuildCache.form_records``), for the
next build of the same process (``watch``); the records a drawing did not use are
dropped with it.  So are the document's streams deflated (``pdfwriter.Flate``): a
form or page whose bytes the last drawing deflated is not deflated again.
"""

from __future__ import annotations

import copyreg
import hashlib
import io
import pickle
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

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
    # a block inside another (a form defined on a page being recorded) has a log of its
    # own: the calls of the document's own methods, the outer block's put back after it
    outer = (getattr(doc, LOG, None), vars(doc).get("getInternalFontName"),
             vars(doc).get("ensureMinPdfVersion"))
    named = type(doc).getInternalFontName.__get__(doc)
    version = type(doc).ensureMinPdfVersion.__get__(doc)

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
        setattr(doc, LOG, outer[0])
        if outer[1] is None:
            del doc.getInternalFontName, doc.ensureMinPdfVersion
        else:
            doc.getInternalFontName, doc.ensureMinPdfVersion = outer[1], outer[2]


def replay_calls(doc: Any, calls: Iterable[tuple],
                 remake: Callable[..., str] | None = None) -> bool:
    """Make ``calls`` (``logged_calls``) again, in order, into ``doc``: True if each
    returned what it returned when logged.  The first that does not stops the replay.
    A ``("form", name, args)`` call (a form a recorded page defined) is made again by
    ``remake(*args)``, which must define it under the same name."""
    for call in calls:
        try:
            kind = call[0]
            if kind == "form":
                if remake is None or remake(*call[2]) != call[1]:
                    return False
            elif kind == "version":
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


#: How ``Keys`` writes the objects of these classes (exact types, as pickle dispatches):
#: ``keyed`` fills it.
_REDUCERS: dict[type, Callable[[Any], tuple]] = {}
#: Classes whose objects ``Keys`` writes once per drawing, then by their digest.
_SHARED: set[type] = set()


def _keyed_as(*parts: Any) -> tuple:
    """Never called: in a key, it marks what stands for a keyed object (its class's
    name and its parts), so that nothing else a key holds can be taken for it."""
    return parts


def keyed(cls: type, how: str | Callable[[Any], tuple] | None = None) -> None:
    """Tell ``Keys`` how an object of ``cls`` is keyed: by the text ``how`` (a stand-in
    for what drawing never reads, or what the records' world pins), by the tuple
    ``how(obj)`` returns (what its drawing reads), or, with no ``how``, once per drawing
    by its whole state (a value many objects hold: a text style)."""
    name = f"{cls.__module__}.{cls.__qualname__}"
    if how is None:
        _SHARED.add(cls)
    elif isinstance(how, str):
        _REDUCERS[cls] = lambda obj, text=how: (_keyed_as, (name, text))
    else:
        _REDUCERS[cls] = lambda obj, parts=how: (_keyed_as, (name, parts(obj)))


keyed(TTFont, lambda font: ("font", font.fontName))   # replay_calls checks the very font
keyed(LoggedFont, lambda font: ("font", font.fontName))


class Keys:
    """Keys of what drawings read, for records that hold in this process: each part
    pickled whole, without pickle's memo (an object held twice is written twice, so
    equal parts give equal keys however they share objects), classes ``keyed`` as their
    registration says.  A function is keyed by its name (a module's own; any other cannot
    be), an object that holds itself not at all: such parts have no key (drawn, never
    recorded).  Objects of a shared class are digested once, and held until the drawing
    ends, so no other object takes their place under the same id."""

    def __init__(self) -> None:
        self._table = {**copyreg.dispatch_table, **_REDUCERS}
        for cls in _SHARED:
            self._table[cls] = self._shared
        self._digests: dict[int, tuple[Any, bytes]] = {}

    def __call__(self, *parts: Any) -> bytes | None:
        try:
            return self._digest(parts)
        except Exception:      # anything pickle refuses: drawn afresh, never recorded
            return None

    def _digest(self, thing: Any) -> bytes:
        out = io.BytesIO()
        pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.dispatch_table = self._table
        pickler.fast = True
        pickler.dump(thing)
        return hashlib.blake2b(out.getbuffer(), digest_size=20).digest()

    def _shared(self, obj: Any) -> tuple:
        found = self._digests.get(id(obj))
        if found is None:
            found = self._digests[id(obj)] = (obj, self._digest(obj.__reduce_ex__(5)))
        return (_keyed_as, (found[1],))


def art_key(art: Any) -> Any:
    """What an art library draws from, for a record's world: its content hash
    (``ArtLibrary.content_key``), else the library itself."""
    return getattr(art, "content_key", None) or art


@dataclass(frozen=True)
class Record:
    """What drawing one form (or page) did: its operators, the forms it placed (each
    with what its name stood for), and its font calls in order; and, to check them
    sooner, the code each character of its text got in its font (``glyphs``) with the
    calls but those that split text into codes (``rest``)."""

    code: tuple[Any, ...]
    placed: tuple[tuple[str, Any], ...]
    calls: tuple[tuple, ...]
    glyphs: tuple[tuple[Any, tuple[tuple[int, int], ...]], ...] = ()
    rest: tuple[tuple, ...] = ()
    #: The forms it defined (``("form", ...)`` calls).
    made: frozenset[str] = frozenset()

    @classmethod
    def of(cls, code: tuple, placed: tuple, calls: tuple) -> Record:
        codes: dict[Any, dict[int, int]] = {}
        for call in calls:
            if call[0] == "split":
                _, font, text, result = call
                found = iter([subset << 8 | byte for subset, data in result for byte in data])
                mine = codes.setdefault(font, {})
                for char in text:
                    mine[32 if char == "\xa0" else ord(char)] = next(found)
        return cls(code, placed, calls, tuple((font, tuple(mine.items()))
                                              for font, mine in codes.items()),
                   tuple(call for call in calls if call[0] != "split"),
                   frozenset(call[1] for call in calls if call[0] == "form"))


def _coded(doc: Any, glyphs: Iterable[tuple[Any, Iterable[tuple[int, int]]]]) -> bool:
    """Does every character already have the code it had in ``doc``'s fonts, so that
    splitting the same text again gives what it gave and changes nothing?  (A character
    the font has no glyph for is code 0, and never assigned.)"""
    for font, pairs in glyphs:
        if pdfmetrics.getFont(font.fontName) is not font:
            return False
        state = font.state.get(doc)
        if state is None:
            return False
        assigned, glyph = state.assignments, font.face.charToGlyph
        for char, code in pairs:
            now = assigned.get(char)
            if now != code and (now is not None or code != 0 or char in glyph):
                return False
    return True


@dataclass
class Records:
    """The records of one output's forms and pages from its last drawing, with the world
    they were made in (the art library, the ink saver, the canvas's initial font; another world
    starts with none): ``(world, records by key)``, replaced whole."""

    last: tuple[tuple, dict[Hashable, Record]] = ((), {})
    #: The last drawing's forms: (drawn afresh, in all); None while one is under way.
    counts: tuple[int, int] | None = None
    #: Its pages drawn through records (``FormReplay.page``), likewise; None if none was.
    page_counts: tuple[int, int] | None = None
    #: The last drawing's streams (forms, pages, and the font files and maps added as
    #: the document is saved), deflated: ``pdfwriter.Flate`` deflates an unchanged one
    #: only once.
    deflated: dict[Any, bytes] = field(default_factory=dict)


@dataclass
class _Span:
    """A form or page being recorded: the document's state when it began (what its own
    drawing may not change), and whether something else did."""

    page: bool
    state: dict[str, Any] = field(default_factory=dict)
    fonts: set[str] = field(default_factory=set)
    spoilt: bool = False
    #: Its own calls (``logged_calls``), where the forms it defines are marked.
    log: list[tuple] = field(default_factory=list)
    #: The document's fonts before the form being defined on it (``before_form``).
    fonts_before: set[str] = field(default_factory=set)

    def start(self, doc: Any, log: list[tuple]) -> None:
        self.state, self.fonts = _footprint(doc, _CALLED), set(doc.fontMapping)
        self.log = log

    def unchanged(self, doc: Any) -> bool:
        return not self.spoilt and _footprint(doc, _CALLED) == self.state

    def before_form(self, doc: Any, name: str, remake: tuple | None) -> None:
        """Form ``name`` is defined on the page: what the page changed before it spoils
        it, and so does a form that cannot be defined again (no ``remake``)."""
        self.spoilt = self.spoilt or remake is None or not self.unchanged(doc)
        self.log.append(("form", name, remake))
        self.fonts_before = set(doc.fontMapping)

    def after_form(self, doc: Any) -> None:
        """The form is in the document: what defining it changed is the form's."""
        self.state = _footprint(doc, _CALLED)
        self.fonts |= set(doc.fontMapping) - self.fonts_before


class FormReplay:
    """One document's forms (and pages) drawn through ``records``: from a record where it
    still holds, else drawn (and recorded) afresh.  ``finish`` keeps this drawing's
    records."""

    def __init__(self, canvas: Any, records: Records, world: tuple,
                 meaning: Callable[[str], Any],
                 remake: Callable[..., str] | None = None) -> None:
        """``meaning(name)``: what a form this document placed shows; ``remake(*args)``:
        define such a form again, as drawing a recorded page did (``define``'s
        ``remake``), and give its name."""
        self.canvas = canvas
        self.records = records
        world = (*world, canvas._initialFontName, canvas._initialFontSize)
        self.world = world
        made_in, kept = records.last
        self.old = kept if made_in == world else {}
        self.new: dict[Hashable, Record] = {}
        self.meaning = meaning
        self.remake = remake
        #: Forms and pages this drawing: [drawn afresh, from their records].
        self.forms, self.pages = [0, 0], [0, 0]
        #: What is being recorded, innermost last.
        self._spans: list[_Span] = []
        # every stream of the document deflated through the last drawing's (a pure
        # function of the stream's bytes, so whatever the world)
        self.flate = Flate(records.deflated)
        setattr(canvas._doc, FLATE, self.flate)

    def form(self, key: Hashable | None, name: str, bbox: tuple[float, float, float, float],
             paint: Callable[[], None], *, page: bool = False,
             remake: tuple | None = None) -> None:
        """Form ``name`` (its ``bbox``), drawn by ``paint()`` or from the record of ``key``
        (None: drawn, and not recorded; ``page``: the form holds a document's page,
        counted with the pages; ``remake``: the arguments that define it again through
        the replay's ``remake``, so a page recorded while it was first defined can be
        replayed)."""
        c = self.canvas

        def begin() -> None:
            c.beginForm(name, *bbox)
        inside = self._spans[-1] if self._spans else None
        if inside is not None and not inside.page \
                or inside is None and getattr(c._doc, LOG, None) is not None:
            # drawn inside a form being recorded: drawn afresh, and that form, which
            # adds this one to the document, is not recorded
            self._count(page, replayed=False)
            begin()
            paint()
            c.endForm()
            return
        if inside is not None:
            inside.before_form(c._doc, name, remake)
        replayed = key is not None and self._replay(key, begin, c.endForm)
        self._count(page, replayed)
        if key is None:
            begin()
            paint()
            c.endForm()
        elif not replayed:
            self._record(key, begin, paint, c.endForm, page=page)
        if inside is not None:
            inside.after_form(c._doc)

    @cached_property
    def keys(self) -> Callable[..., bytes | None]:
        """Keys of what this drawing's pages read (``page``), made on first use; none
        where the world could not be keyed."""
        return Keys() if all(part is not None for part in self.world) else _no_key

    def page(self, key: Hashable | None, paint: Callable[[], None]) -> None:
        """What ``paint()`` draws on the current page, or the record of ``key`` (None:
        drawn, and not recorded).  Recorded, replayed and refused as a form is; a form
        first defined while it is drawn has a record of its own, and is no part of the
        page's (the page replays only where every form it places is already there)."""
        replayed = key is not None and self._replay(key, _nothing, _nothing)
        self._count(True, replayed)
        if replayed:
            return
        if key is None:
            paint()
        else:
            self._record(key, _nothing, paint, _nothing, page=True)

    def _count(self, page: bool, replayed: bool) -> None:
        counts = self.pages if page else self.forms
        counts[1 if replayed else 0] += 1

    def _replay(self, key: Hashable, begin: Callable[[], None], end: Callable[[], None]
                ) -> bool:
        """Draw ``key``'s record between ``begin()`` and ``end()`` if it still holds."""
        record = self.old.get(key)
        if record is None or not self._holds(record):
            return False
        c = self.canvas
        begin()
        c._code.extend(record.code)
        c._formsinuse.extend(n for n, _ in record.placed)
        end()
        self.new[key] = record
        return True

    def _record(self, key: Hashable, begin: Callable[[], None], paint: Callable[[], None],
                end: Callable[[], None], page: bool) -> None:
        """Draw ``paint()`` between ``begin()`` and ``end()``, keeping its record under
        ``key`` unless it touched any state of the document or canvas a record cannot
        make again."""
        c = self.canvas
        doc = c._doc
        before = _footprint(c, _DRAWING | set(c.STATE_ATTRIBUTES))
        span = _Span(page)
        self._spans.append(span)
        try:
            with logged_calls(doc) as calls:
                begin()
                span.start(doc, calls)
                ops, forms = len(c._code), len(c._formsinuse)
                paint()
                code, placed = tuple(c._code[ops:]), tuple(c._formsinuse[forms:])
                clean = (not c._colorsUsed and not c._shadingUsed and not c._annotationrefs
                         and span.unchanged(doc)
                         # a font that logs nothing (not the pack's) may have drawn here
                         and all(isinstance(font, LoggedFont) for font in doc.delayedFonts)
                         # a transparency state, by a name the document gives (a text
                         # object's code holds its own, so anywhere in an operator)
                         and not any(isinstance(op, str) and " gs" in op for op in code))
                end()
        finally:
            self._spans.pop()
        named = {call[1].fontName for call in calls if call[0] == "name"} \
            | {call[1] for call in calls if call[0] == "type1"}
        if clean and set(doc.fontMapping) - span.fonts <= named \
                and _footprint(c, _DRAWING | set(c.STATE_ATTRIBUTES)) == before:
            self.new[key] = Record.of(code, tuple((n, self.meaning(n)) for n in placed),
                                      tuple(calls))

    def _holds(self, record: Record) -> bool:
        """Does ``record`` draw what drawing would, here and now?  Every form it places
        that it did not define must already be here, meaning what it meant; then its
        calls are made again, in order (defining the forms it defined), and the forms
        they defined must mean what they meant.  Whatever stops it, what was made again
        is what drawing makes first, so drawing afresh after it changes nothing twice."""
        c = self.canvas
        made = record.made
        if not all(self.meaning(name) == meant and c.hasForm(name)
                   for name, meant in record.placed if name not in made):
            return False
        # where every character already has its code, the calls that split text give
        # what they gave without being made
        calls = record.rest if _coded(c._doc, record.glyphs) else record.calls
        if not replay_calls(c._doc, calls, self.remake):
            return False
        return all(self.meaning(name) == meant and c.hasForm(name)
                   for name, meant in record.placed if name in made)

    def finish(self) -> None:
        """Keep this drawing's records (only these) for the output's next drawing."""
        self.records.last = (self.world, self.new)
        self.records.deflated = self.flate.made      # filled as the document is saved
        self.records.counts = (self.forms[0], sum(self.forms))
        self.records.page_counts = (self.pages[0], sum(self.pages)) if sum(self.pages) else None


def _nothing() -> None:
    pass


def _no_key(*parts: Any) -> None:
    return None


def define(canvas: Any, replay: FormReplay | None, key: Hashable, name: str,
           bbox: tuple[float, float, float, float], paint: Callable[[], None],
           remake: tuple | None = None) -> None:
    """Form ``name`` on ``canvas`` drawn by ``paint()``: through ``replay`` (from the
    record of ``key`` where it holds; ``remake``: as ``FormReplay.form``) if there is
    one, else as reportlab draws it."""
    if replay is not None:
        replay.form(key, name, bbox, paint, remake=remake)
        return
    canvas.beginForm(name, *bbox)
    paint()
    canvas.endForm()
