"""Card-text shorthand, the strict markup parser, fitting and drawing."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markupsafe import Markup
from pypdf import PdfReader
from reportlab.lib.colors import HexColor, black
from reportlab.pdfgen.canvas import Canvas

from eti_print.errors import InputError, fail
from eti_print.fonts import load_fonts
from eti_print.pack import Pack
from eti_print.text import (
    BREAK,
    OverflowProblem,
    Run,
    TextStyle,
    draw,
    fit,
    fit_markup,
    font_metrics,
    icon,
    measure_line,
    parse,
    plain,
    rich,
    text_width,
)

WHERE = "templates/layouts/event.yaml"


@pytest.fixture(scope="module")
def fonts():
    return load_fonts(Pack.open(None))


@pytest.fixture(scope="module")
def body(fonts):
    return fonts["body"]


class FakeIcons:
    """The ArtLibrary interface: get() validates, draw() records and paints a dot."""

    def __init__(self, known=("threat-spy", "trait-security", "fame", "ufo")):
        self.known = set(known)
        self.calls: list[tuple] = []

    def get(self, art_id, where=None, line=None, field=None):
        if art_id not in self.known:
            raise fail(f"unknown art id {art_id!r}", path=where, line=line, field=field)
        return art_id

    def draw(self, canvas, art_id, x, y, width, height, color=None):
        self.calls.append((art_id, x, y, width, height, color))
        canvas.setFillColor(color or black)
        canvas.circle(x + width / 2, y + height / 2, height / 2, stroke=0, fill=1)


def style(family, size=9.0, min_size=6.5, **kw):
    return TextStyle(family, size, min_size, **kw)


def pdf_text(fitted_boxes) -> str:
    """Draw (fitted, x, y) boxes on a page and extract the text with pypdf."""
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(400, 400), invariant=1)
    for fitted, x, y in fitted_boxes:
        draw(c, fitted, x, y)
    c.showPage()
    c.save()
    return PdfReader(io.BytesIO(buf.getvalue())).pages[0].extract_text()


# ---------------------------------------------------------------------------
# Shorthand


@pytest.mark.parametrize("shorthand, markup", [
    ("plain text", "plain text"),
    ("R&D <Alpha>", "R&amp;D &lt;Alpha&gt;"),
    ("**bold** and *italic*", "<b>bold</b> and <i>italic</i>"),
    ("***both*** x", "<b><i>both</i></b> x"),
    ("**bold *both***", "<b>bold <i>both</i></b>"),
    ("gain :fame: now", 'gain <icon name="fame"/> now'),
    ("2:threat-spy:", '2<icon name="threat-spy"/>'),
    ("Note: x", "Note: x"),
    ("at 10:30 or 1:2:3", "at 10:30 or 1:2:3"),
    (":Not-A-Slug: :a--b:", ":Not-A-Slug: :a--b:"),
    ("line one\nline two", "line one<br/>line two"),
    ("para one\n\npara two", "para one<br/><br/>para two"),
    ("escaped \\n break", "escaped <br/> break"),
    ("5 * 3 = 15", "5 * 3 = 15"),
    ("*unclosed italic", "*unclosed italic"),
    ("literal \\*stars\\* and \\:ufo\\:", "literal &#42;stars&#42; and &#58;ufo&#58;"),
    ("'quoted' \"double\"", "&#39;quoted&#39; &#34;double&#34;"),
    ("  padded\n", "padded"),
    ("", ""),
])
def test_rich_converts_shorthand(shorthand, markup):
    out = rich(shorthand)
    assert isinstance(out, Markup)
    assert str(out) == markup
    parse(out)  # always valid markup


def test_rich_is_idempotent_and_typed():
    once = rich("**R&D**")
    assert rich(once) is once
    assert rich(3) == "3"
    with pytest.raises(TypeError):
        rich(None)


def test_rich_crossing_emphasis_stays_balanced():
    out = rich("**a *b** c*")
    runs = parse(out)
    assert [(r.text, r.bold, r.italic) for r in runs] == [
        ("a ", True, False), ("b", True, True), (" c", False, True)]


def test_rich_cannot_smuggle_tags():
    out = rich('<img src="/etc/passwd"/> <b>x</b> &amp;')
    assert "<img" not in out and "<b>" not in out
    assert plain(out) == '<img src="/etc/passwd"/> <b>x</b> &amp;'


def test_plain_and_icon_helpers():
    assert plain("**Gain** :fame: *now*\nplease") == "Gain now please"
    assert icon("threat-spy") == '<icon name="threat-spy"/>'
    with pytest.raises(ValueError):
        icon('x" onload="y')


_SHORT_ALPHABET = st.sampled_from(list("ab *:\\<>&\n\t-/\"'é") + ["**", ":fame:", "\u00ad"])


@given(st.lists(_SHORT_ALPHABET, max_size=40).map("".join))
@settings(max_examples=300, deadline=None)
def test_rich_output_always_parses(text):
    parse(rich(text))


@given(st.text(alphabet=st.characters(blacklist_characters="*:\\\n\r\t",
                                      blacklist_categories=("Cs", "Cc")), max_size=60))
@settings(max_examples=200, deadline=None)
def test_rich_round_trips_plain_text(text):
    runs = parse(rich(text))
    assert "".join(r.text for r in runs) == text.strip()


# ---------------------------------------------------------------------------
# The strict parser


def test_parse_runs():
    runs = parse('<b>Bold <i>both</i></b> a&amp;b &lt;&gt;&quot;&#39;&apos;&#233;&#xE9;<br/>'
                 '<icon name="threat-spy"/> end')
    assert runs == [
        Run.of("Bold ", bold=True), Run.of("both", bold=True, italic=True),
        Run.of(" a&b <>\"''éé"), BREAK, Run.art("threat-spy"), Run.of(" end")]


def test_parse_turns_whitespace_into_spaces():
    assert parse("a\nb\tc") == [Run.of("a b c")]


@pytest.mark.parametrize("markup, message", [
    ('<img src="/etc/passwd"/>', "markup tag <img> is not allowed"),
    ("<script>x</script>", "markup tag <script> is not allowed"),
    ('<font face="x">y</font>', "markup tag <font> is not allowed"),
    ("<B>x</B>", "markup tag <B> is not allowed"),
    ('<para>x</para>', "markup tag <para> is not allowed"),
    ('<b class="x">y</b>', "tag <b> takes no attributes"),
    ('<icon name="ufo" src="/etc/passwd"/>', "attribute 'src' is not allowed on <icon>"),
    ('<icon/>', "<icon> needs exactly one name attribute"),
    ('<icon name="../x"/>', "icon name '../x' is not an art id"),
    ('<icon name="ufo">', 'write <icon name="art-id"/>'),
    ("a<br>b", "write <br/>"),
    ("<b/>", "cannot be self-closing"),
    ("<b>open", "<b> is never closed"),
    ("close</i>", "</i> closes a tag that was never opened"),
    ("<b><i>x</b></i>", "</b> does not match the open <i>"),
    ("x<y", "stray '<' at character 2"),
    ("x < y", "stray '<'"),
    ("a & b", "bad entity"),
    ("&nbsp;", "bad entity '&nbsp;'"),
    ("&#X41;", "bad entity"),
    ("&#x110000;", "is not a printable character"),
    ("&#128;", "is not a printable character"),
    ("&#0;", "is not a printable character"),
    ("&#55296;", "is not a printable character"),
])
def test_parse_rejects(markup, message):
    with pytest.raises(InputError) as err:
        parse(markup, where=WHERE, line=14, field="boxes.text.text")
    text = str(err.value)
    assert text.startswith(f"{WHERE}:14: boxes.text.text: ")
    assert message in text
    problem = err.value.problems[0]
    assert problem.path == WHERE and problem.line == 14 and problem.field == "boxes.text.text"
    assert problem.hint


def test_parse_error_lists_allowed_tags():
    with pytest.raises(InputError) as err:
        parse("<img/>", where=WHERE, line=3, field="boxes.body.text")
    assert 'allowed tags are <b>, <i>, <br/>, <icon name="art-id"/>' in str(err.value)


# ---------------------------------------------------------------------------
# Fitting


def test_fits_at_full_size_when_there_is_room(body):
    f = fit_markup(rich("Draw **two** cards."), 150, 40, style(body))
    assert f.size == 9.0 and not f.shrunk
    assert [ln.text for ln in f.lines] == ["Draw two cards."]


def test_shrinks_to_the_largest_size_that_fits(body):
    text = rich("Every company with fewer than three research cards draws one more card "
                "from the research deck, then discards down to five.")
    s = style(body, 10, 6)
    f = fit_markup(text, 120, 40, s)
    assert 6 <= f.size < 10
    assert (f.size * 4) == int(f.size * 4)           # on the 0.25 pt grid
    assert f.lines[-1].baseline >= font_metrics(body).descent * f.size - 1e-6
    # a quarter point larger does not fit
    with pytest.raises(OverflowProblem):
        fit_markup(text, 120, 40, style(body, f.size + 0.25, f.size + 0.25))


def test_min_size_off_grid_is_tried(body):
    text = rich("word " * 40)
    s = TextStyle(body, 9, 6.1)
    f = None
    for height in range(10, 200, 2):
        try:
            f = fit_markup(text, 100, height, s)
            break
        except OverflowProblem:
            continue
    assert f is not None and f.size >= 6.1


def test_overflow_height_names_the_numbers(body):
    text = rich("This text is far too long for the little box it has been given, "
                "and no amount of shrinking will make it fit inside.")
    with pytest.raises(OverflowProblem) as err:
        fit_markup(text, 80, 24, style(body, 9, 6.5), where=WHERE, line=20,
                   field="boxes.text")
    exc = err.value
    assert exc.kind == "height" and exc.available == 24.0 and exc.needed > 24.0
    message = str(exc)
    assert message.startswith(f"{WHERE}:20: boxes.text: text does not fit: needs ")
    m = re.search(r"needs ([\d.]+) pt of height \((\d+) lines\), box has 24\.0 pt at the "
                  r"minimum size 6\.5 pt", message)
    assert m and float(m.group(1)) == pytest.approx(exc.needed, abs=0.05)
    assert isinstance(exc, InputError)


def test_overflow_unbreakable_word(body):
    word = "Supercalifragilisticexpialidocious" * 5
    width = text_width(word, body.regular, 6.5)
    assert width > 400
    with pytest.raises(OverflowProblem) as err:
        fit_markup(rich(f"A {word} word"), 150, 100, style(body, 9, 6.5),
                   where=WHERE, line=7, field="boxes.title")
    exc = err.value
    assert exc.kind == "word"
    assert str(exc).startswith(f"{WHERE}:7: boxes.title: word 'Supercalifragilistic...' is "
                               f"{width:.1f} pt wide, box is 150.0 pt at the minimum size 6.5 pt")


def test_unwrapped_text_shrinks_instead_of_wrapping(fonts):
    label = fonts["label"]
    text = "PRESIDENT'S CHOICE"
    wrapped = fit_markup(text, 110, 23, TextStyle(label, 8.5, 6.5))
    assert len(wrapped.lines) == 2 and wrapped.size == 8.5
    single = fit_markup(text, 110, 23, TextStyle(label, 8.5, 5, wrap=False))
    assert len(single.lines) == 1 and single.size < 8.5
    assert single.lines[0].width <= 110
    with pytest.raises(OverflowProblem) as err:
        fit_markup(text, 100, 23, TextStyle(label, 8.5, 8, wrap=False), where=WHERE,
                   line=4, field="boxes.kind")
    assert err.value.kind == "width"
    assert re.match(rf"{WHERE}:4: boxes.kind: line \"PRESIDENT'S CHOICE\" is [\d.]+ pt wide, "
                    r"box is 100\.0 pt at the minimum size 8 pt", str(err.value))
    # explicit breaks still break
    two = fit_markup("A<br/>B", 110, 40, TextStyle(label, 8.5, wrap=False))
    assert [ln.text for ln in two.lines] == ["A", "B"]


def test_no_min_size_means_no_shrinking(body):
    with pytest.raises(OverflowProblem, match=r"at 9 pt \(no min_size"):
        fit_markup(rich("word " * 30), 60, 20, TextStyle(body, 9))


def test_cjk_in_a_latin_font_names_the_characters(body):
    with pytest.raises(InputError) as err:
        fit_markup(rich("Kanji 漢字 and **漢**"), 150, 40, style(body), where=WHERE, line=3,
                   field="boxes.text")
    text = str(err.value)
    assert "font OpenSans-Regular has no glyph for '漢' (U+6F22), '字' (U+5B57)" in text
    assert "font OpenSans-Bold has no glyph for '漢' (U+6F22)" in text
    assert text.startswith(f"{WHERE}:3: boxes.text: ")


def test_uppercase_glyphs_are_checked(fonts):
    # the title face has the lowercase letter; upper=True checks what is drawn
    f = fit_markup(rich("straße"), 200, 40, TextStyle(fonts["title"], 12, upper=True))
    assert f.lines[0].text == "STRASSE"


def test_breaks_collapsed_spaces_and_empty_lines(body):
    f = fit_markup(rich("one    two\n\nthree  "), 200, 100, style(body))
    assert [ln.text for ln in f.lines] == ["one two", "", "three"]
    lead = f.leading
    assert f.lines[0].baseline - f.lines[2].baseline == pytest.approx(2 * lead)


def test_no_line_starts_with_a_space(body):
    f = fit_markup(rich("aaa bbb ccc ddd eee fff ggg hhh iii jjj kkk"), 40, 200, style(body))
    assert len(f.lines) > 3
    for ln in f.lines:
        assert ln.text == ln.text.strip()


def test_soft_hyphens_break_with_a_visible_hyphen(body):
    word = "in\u00adcom\u00adpre\u00adhen\u00adsi\u00adbil\u00adi\u00adties"
    f = fit_markup(rich(f"the {word} abound"), 60, 200, style(body, 9, 9))
    drawn = [ln.text for ln in f.lines]
    assert all("\u00ad" not in t for t in drawn)
    assert any(t.endswith("-") for t in drawn)
    assert "".join(t.rstrip("-") for t in drawn).replace(" ", "") == \
        "theincomprehensibilitiesabound"
    wide = fit_markup(rich(f"the {word}"), 300, 40, style(body))
    assert wide.lines[0].text == "the incomprehensibilities"


def test_breaks_after_slash_and_dash(body):
    f = fit_markup(rich("research/development"), 60, 200, style(body, 9, 9))
    assert [ln.text for ln in f.lines] == ["research/", "development"]
    f = fit_markup(rich("team-leadership"), 50, 200, style(body, 9, 9))
    assert [ln.text for ln in f.lines] == ["team-", "leadership"]
    f = fit_markup(rich("-3 12-15"), 25, 200, TextStyle(body, 9))   # numbers never split
    assert [ln.text for ln in f.lines] == ["-3", "12-15"]


def test_fit_takes_runs(body):
    runs = [Run.of("Gain ", bold=True), Run.art("fame"), BREAK, Run.of("then ", italic=True),
            Run.of("rest")]
    f = fit(runs, 200, 60, style(body), FakeIcons(), where=WHERE, line=2, field="boxes.a")
    assert [ln.text for ln in f.lines] == ["Gain \ufffc", "then rest"]
    assert [p.font for p in f.lines[1].pieces] == [body.italic, body.regular]


def test_empty_text(body):
    f = fit_markup("", 100, 10, style(body))
    assert f.lines == () and f.text == ""
    assert pdf_text([(f, 0, 0)]) == ""


# ---------------------------------------------------------------------------
# Icons


def test_icons_sit_on_the_baseline_at_cap_height(body):
    icons = FakeIcons()
    s = style(body, 10, 10, icon_color=HexColor("#ff0000"))
    f = fit_markup(rich("Gain :fame: and :threat-spy:"), 200, 40, s, icons)
    line = f.lines[0]
    cap = font_metrics(body).cap_height * 10
    assert f.cap_height == pytest.approx(cap)
    assert 6.5 < cap < 7.5                       # Open Sans: 0.714 em
    buf = io.BytesIO()
    c = Canvas(buf, invariant=1)
    draw(c, f, 30, 50)
    assert [call[0] for call in icons.calls] == ["fame", "threat-spy"]
    pieces = [p for p in line.pieces if p.icon]
    for call, piece in zip(icons.calls, pieces):
        _, x, y, w, h, color = call
        assert y == pytest.approx(50 + line.baseline)
        assert h == pytest.approx(cap) and w == pytest.approx(h)
        assert piece.x + 30 <= x and x + w <= piece.x + 30 + piece.width + 1e-9
        assert color == HexColor("#ff0000")
    # the icon is in the text flow: after "Gain ", before " and "
    texts = [p.text or p.icon for p in line.pieces]
    assert texts == ["Gain ", "fame", " and ", "threat-spy"]


def test_larger_icons_are_centred_on_the_caps(body):
    icons = FakeIcons()
    f = fit_markup(rich("A :ufo: B"), 200, 40, style(body, 10, 10, icon_scale=1.4), icons)
    draw(Canvas(io.BytesIO()), f, 0, 0)
    _, x, y, w, h, _ = icons.calls[0]
    cap = font_metrics(body).cap_height * 10
    base = f.lines[0].baseline
    assert h == pytest.approx(1.4 * cap)
    assert y + h / 2 == pytest.approx(base + cap / 2)
    piece = f.lines[0].pieces[1]
    assert piece.icon == "ufo" and piece.width == pytest.approx(1.2 * h)


def test_icon_color_defaults_to_text_color(body):
    icons = FakeIcons()
    f = fit_markup(rich(":ufo:"), 50, 20, style(body, color=HexColor("#123456")), icons)
    draw(Canvas(io.BytesIO()), f, 0, 0)
    assert icons.calls[0][-1] == HexColor("#123456")


def test_unknown_icon_is_located(body):
    with pytest.raises(InputError, match=rf"^{WHERE}:9: boxes.text: unknown art id 'nope'"):
        fit_markup(rich("x :nope:"), 100, 40, style(body), FakeIcons(), where=WHERE, line=9,
                   field="boxes.text")
    with pytest.raises(InputError, match="no art is available"):
        fit_markup(rich("x :ufo:"), 100, 40, style(body), None)


# ---------------------------------------------------------------------------
# Alignment


TEXT = rich("The invasion fleet is sighted. Every company loses **one** research card "
            "and the threat track advances by two spaces.")


@pytest.mark.parametrize("align", ["left", "center", "right", "justify"])
def test_alignment(body, align):
    width = 150
    f = fit_markup(TEXT, width, 200, style(body, 9, 9, align=align))
    assert len(f.lines) >= 3
    for ln in f.lines:
        left = ln.pieces[0].x
        right = ln.pieces[-1].x + ln.pieces[-1].width
        assert -1e-6 <= left and right <= width + 1e-6
        if align == "left" or (align == "justify" and ln.last):
            assert left == pytest.approx(0)
        elif align == "right":
            assert right == pytest.approx(width)
        elif align == "center":
            assert left == pytest.approx(width - right, abs=1e-6)
        else:
            assert left == pytest.approx(0) and right == pytest.approx(width)


def test_justified_word_spaces_are_even(body):
    f = fit_markup(plain(TEXT), 150, 200, style(body, 9, 9, align="justify"))
    for ln in f.lines[:-1]:
        words = ln.pieces
        assert len(words) == ln.text.count(" ") + 1 and all(p.font for p in words)
        gaps = [b.x - (a.x + text_width(a.text.rstrip(), a.font, f.size))
                for a, b in zip(words, words[1:])]
        assert max(gaps) - min(gaps) < 1e-6
        assert min(gaps) >= text_width(" ", body.regular, f.size) - 1e-6


def test_right_alignment_ignores_trailing_tracking(fonts):
    f = fit_markup("ABC", 100, 30, TextStyle(fonts["label"], 10, tracking=2, align="right"))
    piece = f.lines[0].pieces[0]
    assert piece.x + piece.width - 2 == pytest.approx(100)
    assert piece.width == pytest.approx(text_width("ABC", fonts["label"].regular, 10, 2))


@pytest.mark.parametrize("valign", ["top", "middle", "bottom"])
def test_vertical_alignment(body, valign):
    m = font_metrics(body)
    f = fit_markup(rich("one\ntwo"), 100, 60, style(body, 10, 10, valign=valign))
    first, last = f.lines[0].baseline, f.lines[-1].baseline
    assert first - last == pytest.approx(12)
    assert first + m.ascent * 10 <= 60 + 1e-6 and last - m.descent * 10 >= -1e-6
    if valign == "top":
        assert first == pytest.approx(60 - m.ascent * 10)
    elif valign == "bottom":
        assert last == pytest.approx(m.descent * 10)
    else:
        # caps centred: space above the first cap top equals space below the last baseline
        assert 60 - (first + m.cap_height * 10) == pytest.approx(last)


def test_extent(body):
    m = font_metrics(body)
    f = fit_markup(rich("one\ntwo"), 100, 60, style(body, 10, 10, valign="bottom"))
    bottom, top = f.extent
    assert bottom == pytest.approx(0)
    assert top == pytest.approx(12 + (m.ascent + m.descent) * 10)


def test_single_line_fills_a_tight_box(body):
    m = font_metrics(body)
    height = (m.ascent + m.descent) * 12
    f = fit_markup("Title", 100, height, style(body, 12, 12))
    assert f.size == 12


# ---------------------------------------------------------------------------
# Drawing into a PDF


def test_escaped_text_prints_as_itself(body):
    icons = FakeIcons()
    f1 = fit_markup(rich("R&D <Alpha> & **Beta** > *gamma* :ufo: \"q\" 'a'"), 380, 40,
                    style(body), icons)
    f2 = fit_markup(rich("x<y"), 100, 40, style(body, upper=True))
    text = pdf_text([(f1, 10, 300), (f2, 10, 200)])
    assert "R&D <Alpha> & Beta > gamma" in text
    assert "\"q\" 'a'" in text
    assert "X<Y" in text


def test_pdf_embeds_subset_fonts(body):
    buf = io.BytesIO()
    c = Canvas(buf, invariant=1, initialFontName=body.regular)   # no base-14 Helvetica
    draw(c, fit_markup(rich("**Bold** *italic* plain"), 300, 40, style(body)), 10, 10)
    c.save()
    page = PdfReader(io.BytesIO(buf.getvalue())).pages[0]
    fonts = page["/Resources"]["/Font"]
    names = sorted(str(fonts[k].get_object()["/BaseFont"]) for k in fonts)
    assert len(names) == 3
    assert all("OpenSans" in n for n in names)
    for k in fonts:
        descriptor = fonts[k].get_object()["/FontDescriptor"]
        assert "/FontFile2" in descriptor


def test_drawing_is_deterministic(body):
    def render():
        buf = io.BytesIO()
        c = Canvas(buf, invariant=1)
        draw(c, fit_markup(TEXT, 150, 80, style(body, align="justify"), FakeIcons()), 5, 5)
        c.save()
        return buf.getvalue()
    assert render() == render()


def test_justified_text_extracts_with_spaces(body):
    f = fit_markup(TEXT, 150, 200, style(body, 9, 9, align="justify"))
    text = pdf_text([(f, 10, 100)])
    assert " ".join(text.split()) == plain(TEXT)


# ---------------------------------------------------------------------------
# Helpers and performance


def test_measure_line(body):
    s = style(body, 10)
    w = measure_line(parse(rich("Gain **two**")), s)
    assert w == pytest.approx(text_width("Gain ", body.regular, 10)
                              + text_width("two", body.bold, 10))
    assert measure_line(parse("a  <br/>b"), s) == pytest.approx(
        text_width("a b", body.regular, 10))


def test_style_validation(body):
    with pytest.raises(ValueError):
        TextStyle(body, 8, 9)
    with pytest.raises(ValueError):
        TextStyle(body, 8, align="middle")
    with pytest.raises(ValueError):
        TextStyle(body, 0)


def test_huge_text_fails_or_fits(body):
    """1700 characters: too much for a card's box (a located overflow), set small in a
    page-sized one.  (How fast: bench/bench_fit.py; no clock in the tests.)"""
    text = rich(("Every company loses one research card and the threat advances. " * 30)[:1700])
    assert len(text) == 1700
    with pytest.raises(OverflowProblem):
        fit_markup(text, 150, 100, style(body, 9, 6.5))
    f = fit_markup(text, 400, 600, style(body, 12, 4))
    assert f.size <= 12
    assert f.text.split() == " ".join(text.split()).split()


def test_many_fits_each_fit_their_box(body):
    """A thousand event-sized texts with icons, one style: each fits its box at or
    below the style's size.  (How fast: bench/bench_fit.py.)"""
    base = ("When this event is revealed, every company with :trait-security: below {n} "
            "loses **one** research card of its choice; the alien *spy* :threat-spy: "
            "moves {n} spaces toward the nearest laboratory, then the threat advances.")
    texts = [rich(base.format(n=n)) for n in range(1000)]
    icons = FakeIcons()
    s = style(body, 9, 6)
    for t in texts:
        f = fit_markup(t, 150, 70, s, icons)
        assert 6 <= f.size <= 9 and len(f.lines) * f.leading <= 70 + 1e-6


# ---------------------------------------------------------------------------
# Properties

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789.,;!?'\"&<>()/-\u2014",
                min_size=1, max_size=12)
_TEXT = st.lists(st.tuples(_WORD, st.sampled_from([" ", "  ", "\n", " "])), min_size=1,
                 max_size=40).map(lambda ws: "".join(w + sep for w, sep in ws))


@given(text=_TEXT, width=st.floats(20, 300), align=st.sampled_from(
    ["left", "center", "right", "justify"]), bold=st.booleans())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_fitted_lines_fit_and_keep_every_character(body, text, width, align, bold):
    markup = rich(f"**{text.strip()}**" if bold and text.strip() else text)
    s = TextStyle(body, 10, 4, align=align)
    try:
        f = fit_markup(markup, width, 5000, s)
    except OverflowProblem as exc:
        assert exc.kind == "word" and exc.needed > width
        widest = max(text_width(w, body.bold if bold else body.regular, 4)
                     for w in re.split(r"\s+|(?<=[/\u2014])(?=\S)|(?<=[A-Za-z]-)(?=[A-Za-z])", text)
                     if w)
        assert widest > width - 1e-6
        return
    for ln in f.lines:
        assert ln.width <= width + 1e-6
        for p in ln.pieces:
            assert p.x >= -1e-6 and p.x + p.width <= width + f.style.tracking + 1e-6
    drawn = "".join(ln.text for ln in f.lines)
    assert re.sub(r"\s", "", drawn) == re.sub(r"\s", "", text)
    assert all(not ln.text.startswith(" ") and not ln.text.endswith(" ") for ln in f.lines)


@given(st.lists(st.sampled_from(["**", "*", "a", "b ", " ", ":ufo:", "\n", "x<y", "&"]),
                max_size=30).map("".join),
       st.floats(30, 200))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_shorthand_fits_or_reports(body, text, width):
    try:
        f = fit_markup(rich(text), width, 400, style(body, 9, 5), FakeIcons())
    except OverflowProblem:
        return
    assert all(ln.width <= width + 1e-6 for ln in f.lines)
