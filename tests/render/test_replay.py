"""Forms drawn from the records of an earlier drawing (render/replay.py): always the bytes
drawing them afresh makes, whatever the document drew before them."""

from __future__ import annotations

import pytest

from eti_print.pack import Pack
from eti_print.pdfwriter import DocInfo, new_canvas
from eti_print.render.replay import FormReplay, Records


@pytest.fixture(scope="module")
def font() -> str:
    from eti_print.fonts import load_fonts
    return load_fonts(Pack.open(None))["body"].regular


def _text(canvas, font: str, text: str) -> None:
    canvas.setFont(font, 10)
    canvas.drawString(4, 4, text)


def document(font: str, forms: list[tuple[str, object]], records: Records | None) -> bytes:
    """A one-page PDF placing one form per ``(key, paint)`` of ``forms``, each drawn by
    ``paint(canvas)``, through ``records`` (None: drawn as reportlab alone draws them)."""
    canvas = new_canvas((300, 300), font, DocInfo("replay"))
    replay = FormReplay(canvas, records, (), lambda name: None) if records is not None \
        else None
    for n, (key, paint) in enumerate(forms):
        name = f"form{n}"
        if replay is None:
            canvas.beginForm(name, 0, 0, 100, 20)
            paint(canvas)
            canvas.endForm()
        else:
            replay.form(key, name, (0, 0, 100, 20), lambda paint=paint: paint(canvas))
    if replay is not None:
        replay.finish()
    for n in range(len(forms)):
        canvas.saveState()
        canvas.translate(0, 20 * n)
        canvas.doForm(f"form{n}")
        canvas.restoreState()
    canvas.showPage()
    return canvas.getpdfdata()


def texts(font: str, *words: str) -> list[tuple[str, object]]:
    return [(w, lambda c, w=w: _text(c, font, w)) for w in words]


def test_a_form_drawn_again_from_its_record_is_the_same_bytes(font):
    records = Records()
    words = texts(font, "Über", "Café", "Naïve")
    direct = document(font, words, None)
    assert document(font, words, records) == direct
    assert records.counts == (3, 3)                      # the first drawing records
    assert document(font, words, records) == direct
    assert records.counts == (0, 3)                      # the next one draws none


def test_a_character_used_first_elsewhere_redraws_the_forms_it_renumbers(font):
    """Reportlab numbers a font's non-ASCII characters in first-use order: a new first
    form that uses one first moves the codes of every later form that has it."""
    records = Records()
    document(font, texts(font, "Über", "Café", "Naïve"), records)
    moved = texts(font, "Élan", "Über", "Café", "Naïve")
    assert document(font, moved, records) == document(font, moved, None)
    drawn, forms = records.counts
    assert forms == 4 and drawn == 4       # É takes Ü's code, Ü é's, é ï's
    again = texts(font, "Élan", "Über", "Naïve", "Café")
    assert document(font, again, records) == document(font, again, None)
    assert records.counts[0] == 2          # Naïve's ï and Café's é swap codes


def _faded(canvas) -> None:
    canvas.setFillAlpha(0.5)
    canvas.rect(0, 0, 10, 10, fill=1)


def _faded_text(canvas) -> None:
    text = canvas.beginText(4, 4)
    text.setFont(canvas._initialFontName, 10)
    text.setFillAlpha(0.5)                 # the gs is in the text object's code
    text.textOut("faded")
    canvas.drawText(text)


def _opaque(canvas) -> None:
    canvas.setFillAlpha(1)                 # no transparency state, but a PDF 1.4 feature
    canvas.rect(0, 0, 10, 10, fill=1)


def test_a_form_with_a_transparency_state_is_drawn_every_time(font):
    records = Records()
    forms = [("faded", _faded), *texts(font, "Über")]
    direct = document(font, forms, None)
    assert document(font, forms, records) == direct
    assert document(font, forms, records) == direct
    assert records.counts == (1, 2)        # its gs name is the document's to give


def test_text_with_a_transparency_state_is_drawn_every_time(font):
    """A text object carries its transparency state inside its own code: still seen."""
    records = Records()
    forms = [("other", _faded), ("text", _faded_text)]
    document(font, forms, records)
    again = [("text", _faded_text)]           # its gs name is now the first one given
    assert document(font, again, records) == document(font, again, None)
    assert records.counts == (1, 1)


def test_the_pdf_version_a_replayed_form_needs_is_raised_again(font):
    """The form that first needed PDF 1.4 may be gone; the one left that needs it too,
    recorded when the version was already raised, raises it when drawn from its record."""
    records = Records()
    first = [("first", _opaque), ("second", _opaque)]
    document(font, first, records)
    alone = [("second", _opaque)]
    direct = document(font, alone, None)
    assert direct.startswith(b"%PDF-1.4")
    assert document(font, alone, records) == direct
    assert records.counts == (0, 1)


def test_records_of_another_world_are_not_used(font):
    records = Records()
    words = texts(font, "Über", "Café")
    document(font, words, records)
    canvas = new_canvas((300, 300), font, DocInfo("replay"))
    replay = FormReplay(canvas, records, ("ink saver",), lambda name: None)
    assert replay.old == {}


def test_a_form_drawn_with_a_font_that_logs_nothing_is_drawn_every_time(font):
    """Only the pack's fonts (fonts.LoggedFont) tell the calls a record needs; once the
    document has used another TrueType font, no form is recorded."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    if "ReplayVera" not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(TTFont("ReplayVera", "Vera.ttf"))   # reportlab's own
    records = Records()
    forms = [("vera", lambda c: _text(c, "ReplayVera", "Çà va")), *texts(font, "Über")]
    direct = document(font, forms, None)
    assert document(font, forms, records) == direct
    assert document(font, forms, records) == direct
    assert records.counts == (2, 2)


def test_a_form_defined_while_another_is_drawn_is_drawn_afresh_with_it(font):
    """A form whose drawing defines another (through the same replay) adds an object
    to the document: neither is recorded, and the calls of the outer one stay logged."""
    records = Records()
    canvas = new_canvas((300, 300), font, DocInfo("replay"))
    replay = FormReplay(canvas, records, (), lambda name: None)

    def outer() -> None:
        replay.form("inner", "inner", (0, 0, 10, 10), lambda: _text(canvas, font, "Ça"))
        _text(canvas, font, "Über")
    replay.form("outer", "outer", (0, 0, 100, 20), outer)
    replay.finish()
    assert records.counts == (2, 2) and records.last[1] == {}


def test_streams_are_encoded_once_while_the_same_bytes_as_reportlabs(font, monkeypatch):
    """A drawing through records encodes each stream the last drawing did not
    (pdfwriter.Flate): forms, pages, and the font files and maps reportlab adds as the
    document is saved. The file is byte for byte reportlab's own."""
    from eti_print import pdfwriter
    records = Records()
    words = texts(font, "Über", "Café", "Naïve")
    direct = document(font, words, None)
    assert document(font, words, records) == direct
    encoded = []
    real = pdfwriter._ZLIB.encode                  # reportlab's zlib filter, which all take
    monkeypatch.setattr(pdfwriter._ZLIB, "encode",
                        lambda text: encoded.append(text) or real(text))
    assert document(font, words, records) == direct
    assert encoded == []                   # nothing deflated again, the fonts included
    moved = texts(font, "Über", "Café", "Naïf")
    through = document(font, moved, records)
    kept, encoded[:] = list(encoded), []
    assert through == document(font, moved, None)

    def drawn(streams):                    # the streams that show text: the forms
        return sum((b"Tj" if isinstance(t, bytes) else "Tj") in t for t in streams)
    fonts = len(encoded) - 4               # reportlab's own: 3 forms, the page, the fonts
    assert drawn(encoded) == 3 and fonts > 0
    # through the records only Naïf's form: the fonts' streams are the same bytes
    assert drawn(kept) == 1 and len(kept) == 1
    # a character the font's subset did not have: the form and the font's streams
    accented = texts(font, "Über", "Café", "Noël")
    encoded[:] = []
    assert document(font, accented, records) == document(font, accented, None)
    assert len(encoded) == (1 + fonts) + (4 + fonts)


def test_a_document_saved_without_records_keeps_nothing_in_anothers(font):
    """The font streams go through the Flate of the document being saved, in this
    thread, and only while it is saved: another document's deflated streams stay its own."""
    import threading
    records = Records()
    document(font, texts(font, "Über", "Café"), records)
    kept = dict(records.deflated)
    assert any(isinstance(key, tuple) for key in kept)          # its font streams
    document(font, texts(font, "Noël"), None)
    done = threading.Thread(target=document, args=(font, texts(font, "Façade"), None))
    done.start()
    done.join()
    assert records.deflated == kept


# -- pages -------------------------------------------------------------------------------


def pages_document(font: str, pages: list[list[str]], records: Records | None) -> bytes:
    """A PDF of ``pages``, each the words given, one under the other; a word ``*NAME``
    places the form of a mark named NAME, defined on its first use (mid-page, as a
    document's icons are).  Through ``records``, every page and mark goes through one
    ``FormReplay`` (pages keyed by their words); without, reportlab draws them."""
    canvas = new_canvas((300, 300), font, DocInfo("pages"))
    names: dict[str, str] = {}
    replay = None

    def mark(label: str) -> str:
        if label not in names:
            name = names[label] = f"mark{len(names)}"

            def paint() -> None:
                canvas.rect(0, 0, 10, 10, fill=1)
                _text(canvas, font, label)
            if replay is None:
                canvas.beginForm(name, 0, 0, 60, 20)
                paint()
                canvas.endForm()
            else:
                replay.form(("mark", label), name, (0, 0, 60, 20), paint, remake=(label,))
        return names[label]

    if records is not None:
        replay = FormReplay(canvas, records, (), lambda name: next(
            (label for label, n in names.items() if n == name), None), mark)
    for words in pages:
        def paint(words: list[str] = words) -> None:
            for n, word in enumerate(words):
                canvas.saveState()
                canvas.translate(10, 250 - 30 * n)
                if word.startswith("*"):
                    canvas.doForm(mark(word[1:]))
                else:
                    _text(canvas, font, word)
                canvas.restoreState()
        if replay is None:
            paint()
        else:
            replay.page(replay.keys("page", words), paint)
        canvas.showPage()
    if replay is not None:
        replay.finish()
    return canvas.getpdfdata()


def test_pages_drawn_again_from_their_records_are_the_same_bytes(font):
    records = Records()
    pages = [["Über", "*star"], ["Café", "*star", "*moon"], ["Naïve"]]
    direct = pages_document(font, pages, None)
    assert pages_document(font, pages, records) == direct
    assert records.page_counts == (3, 3)
    assert pages_document(font, pages, records) == direct
    assert records.page_counts == (0, 3) and records.counts == (0, 2)


def test_a_replayed_page_defines_again_the_forms_it_first_defined(font):
    """A page recorded while it defined a mark's form first is replayed after an edit
    that leaves it the first user: the form is defined again, under the same name."""
    records = Records()
    pages_document(font, [["Uber", "*star"], ["Café", "*moon"], ["*star", "*moon"]], records)
    edited = [["Over", "*star"], ["Café", "*moon"], ["*star", "*moon"]]
    assert pages_document(font, edited, records) == pages_document(font, edited, None)
    assert records.page_counts == (1, 3)           # the first page only
    moved = [["*moon"], ["Café", "*star"], ["*star", "*moon"]]
    assert pages_document(font, moved, records) == pages_document(font, moved, None)
    # the marks are named in another order: every page that places one is drawn again
    assert records.page_counts == (3, 3)


def test_a_page_whose_text_is_coded_otherwise_is_drawn_again(font):
    records = Records()
    pages_document(font, [["Über"], ["Café"]], records)
    first = [["Élan Über"], ["Café"]]            # É comes first: Café's é moves
    assert pages_document(font, first, records) == pages_document(font, first, None)
    assert records.page_counts == (2, 2)


def test_keys_follow_values_not_how_the_values_share_objects():
    from eti_print.render.replay import Keys
    keys = Keys()
    word = "".join(["rig", "ht"])                  # equal to "right", another object
    shared = [("right", "right"), {"a": 1.5}]
    apart = [("right", word), {"a": 1.5}]
    assert shared[0][0] is shared[0][1] and apart[0][0] is not apart[0][1]
    assert keys(shared) == keys(apart) is not None
    assert keys([("right", "left"), {"a": 1.5}]) != keys(shared)
    assert keys([("right", "right"), {"a": 1.25}]) != keys(shared)

    def local() -> None:
        pass
    assert keys(shared, local) is None             # a function no module names: no key
    held: list = []
    held.append(held)
    assert keys(held) is None                      # a part that holds itself: no key


def test_a_page_placing_a_form_no_longer_defined_before_it_defines_none_of_its_own(font):
    """Recorded, the second page placed a mark the first page defined, and defined a mark
    of its own.  Once the first page no longer defines it, replaying the second page
    must not define its own mark first: drawn afresh, it defines the other one first."""
    records = Records()
    pages_document(font, [["*sun"], ["*sun", "*star"]], records)
    edited = [["Plain"], ["*sun", "*star"]]
    assert pages_document(font, edited, records) == pages_document(font, edited, None)
    assert records.page_counts == (2, 2)


def test_a_rich_text_is_keyed_by_the_lines_it_draws():
    """A paragraph set again (another object, its lines the fitted text's kept ones, or
    copies) keys alike; one word, one position or one size more, and it does not."""
    from dataclasses import replace

    from eti_print.fonts import load_fonts
    from eti_print.render.document.flowables import RichText
    from eti_print.render.replay import Keys
    from eti_print.text import Run, TextStyle
    family = load_fonts(Pack.open(None))["body"]
    style = TextStyle(family, 9)

    def paragraph(text: str, width: float = 200, size: float = 9) -> RichText:
        flow = RichText([Run.of(text)], style if size == 9 else TextStyle(family, size))
        flow.wrap(width, 1000)
        return flow
    keys = Keys()
    words = "Every company discards the face-down research card at its highest port."
    one, two = paragraph(words), paragraph(words)
    assert one is not two and keys(one) == keys(two) is not None
    two._lines = tuple(replace(line) for line in two._lines)   # equal lines, other objects
    assert keys(one) == keys(two)
    assert keys(paragraph(words.replace("highest", "lowest"))) != keys(one)
    assert keys(paragraph(words, width=150)) != keys(one)
    assert keys(paragraph(words, size=9.5)) != keys(one)
