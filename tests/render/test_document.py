"""The generic document renderer: strict parsing, no dropped content, pages, PDF."""

from __future__ import annotations

import dataclasses
import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import escape
from pypdf import PdfReader

from eti_print.art import ArtLibrary
from eti_print.errors import InputError
from eti_print.fonts import load_fonts
from eti_print.pack import Pack
from eti_print.render.document import (
    EMPTY,
    Custom,
    ElementSpec,
    Gap,
    Theme,
    build,
    flowables,
    paginate,
    parse_document,
    render,
)
from eti_print.units import mm

WHERE = "templates/doc.j2"


@pytest.fixture(scope="module")
def pack():
    return Pack.open(None)


@pytest.fixture(scope="module")
def theme(pack):
    fonts = load_fonts(pack)
    return Theme(page=(mm(148), mm(210)), margins=(mm(19), mm(14), mm(17), mm(14)),
                 body=fonts["body"], heading=fonts["title"], label=fonts["label"])


@pytest.fixture(scope="module")
def art(pack):
    return ArtLibrary(pack.root)


def doc(body: str, title: str = "Test") -> str:
    return f'<document title="{title}" header="Test header">\n{body}\n</document>'


def text_of(data: bytes) -> list[str]:
    return [" ".join(p.extract_text().split()) for p in PdfReader(io.BytesIO(data)).pages]


def error_of(markup: str, **kw) -> str:
    with pytest.raises(InputError) as info:
        parse_document(markup, where=WHERE, **kw)
    return str(info.value)


# ---------------------------------------------------------------------------
# Parsing: a whitelist, located errors


def test_parses_blocks_and_inline_markup():
    root = parse_document(doc('<h1 short="One">Section <i>one</i></h1>\n'
                              '<p>Hello <b>world</b> &amp; <icon name="ufo"/> friends</p>\n'
                              '<ul><li>a</li><li>b</li></ul>'), where=WHERE)
    assert [n.tag for n in root.children] == ["h1", "p", "ul"]
    assert root.children[0].attrs == {"short": "One"}
    assert root.children[1].text() == "Hello world & friends"
    assert [r.kind for r in root.children[1].runs] == ["text", "text", "text", "icon", "text"]
    assert [li.text() for li in root.children[2].children] == ["a", "b"]


@pytest.mark.parametrize("body, message, line", [
    ("<p>ok</p>\n<bogus/>", "unknown element <bogus>", 3),
    ('<p style="lead" onclick="x">a</p>', "<p> has no attribute 'onclick'", 2),
    ("\n\nloose text", "text 'loose text' directly inside the document", 4),
    ('<p>a <img src="/etc/passwd"/> b</p>', "markup tag <img> is not allowed", 2),
    ("<p>x < y</p>", "stray '<'", 2),
    ("<p>R&D</p>", "bad entity", 2),
    ("<li>alone</li>", "<li> belongs inside <ul> or <ol>", 2),
    ("<note><pagebreak/></note>", "<pagebreak> may only appear at the top level", 2),
    ("<table><tr><p>x</p></tr></table>", "<tr> may only hold <th>, <td>, not <p>", 2),
    ("<p>never closed", "<p> is never closed", 2),
    ("<ul><li>a</li>", "<ul> is never closed", 2),
    ('<art height="1mm"/>', "<art> needs the attribute 'name'", 2),
])
def test_rejects_anything_outside_the_whitelist(body, message, line):
    text = error_of(doc(body))
    assert message in text
    assert text.startswith(f"{WHERE}:{line}:")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), max_size=60))
def test_escaped_text_is_never_markup(text):
    root = parse_document(doc(f'<p>{escape(text)}</p><h2 short="{escape(text)}">x</h2>'),
                          where=WHERE)
    assert root.children[0].text() == " ".join(text.split())
    assert root.children[1].attrs["short"] == text


def test_must_be_one_document():
    assert "must start with <document>" in error_of("<p>no root</p>")
    assert "nothing may follow </document>" in error_of(doc("") + "<p>x</p>")


def test_comments_are_ignored_and_keep_line_numbers():
    text = error_of(doc("<!-- a\ncomment -->\n<bogus/>"))
    assert text.startswith(f"{WHERE}:4:")


def test_attribute_values_are_unescaped_once():
    root = parse_document(doc('<h1 short="R&amp;D &lt;x&gt; &#39;q&#39;">t</h1>'), where=WHERE)
    assert root.children[0].attrs["short"] == "R&D <x> 'q'"


def test_locate_maps_errors_back_to_the_template():
    def locate(line, text):
        return ("templates/booklet/x.j2", 40 + line)
    text = error_of(doc("<bogus/>"), locate=locate)
    assert text.startswith("templates/booklet/x.j2:42:")


def test_custom_elements_are_whitelisted_too(theme, art):
    seen = []

    def make(node, builder):
        seen.append(node.attrs["n"])
        return [Gap(10)]
    custom = {"thing": Custom(ElementSpec(EMPTY, ("n",), required=("n",)), make)}
    build(doc('<thing n="3"/>'), theme, art, where=WHERE, custom=custom)
    assert seen == ["3"]
    assert "<thing> has no attribute 'm'" in error_of(doc('<thing n="1" m="2"/>'),
                                                      custom=custom)
    with pytest.raises(ValueError):
        parse_document(doc(""), custom={"p": custom["thing"]})


# ---------------------------------------------------------------------------
# Building and placing: nothing dropped


def test_bad_values_are_located(theme, art):
    for body, message in [
        ('<p style="huge">x</p>', "<p style=..> must be one of"),
        ('<table widths="1 2"><tr><td>a</td></tr></table>', "gives 2 widths for 1 columns"),
        ('<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>',
         "this row has 1 columns, the table has 2"),
        ('<art name="no-such-art" height="5mm"/>', "unknown art id 'no-such-art'"),
        ('<flowchart><node id="a" col="0" row="0">A</node><edge from="a" to="b"/></flowchart>',
         "edge names an unknown node 'b'"),
        ('<spacer height="12"/>', "has no unit"),
    ]:
        with pytest.raises(InputError) as info:
            build(doc(body), theme, art, where=WHERE)
        assert message in str(info.value), body
        assert str(info.value).startswith(f"{WHERE}:2:"), body


def test_long_text_splits_across_pages_and_keeps_every_word(theme, art):
    words = [f"word{i:04d}" for i in range(2500)]
    body = "\n".join(f"<p>{' '.join(words[i:i + 100])}</p>" for i in range(0, 2500, 100))
    result = render(doc(body), theme, art, where=WHERE)
    assert result.pages > 3
    found = re.findall(r"word\d{4}", " ".join(text_of(result.data)))
    assert found == words


def test_long_tables_split_with_their_header_repeated(theme, art):
    rows = "".join(f"<tr><td>row{i:03d}</td><td>{i}</td></tr>" for i in range(120))
    result = render(doc(f'<table><tr><th>Name</th><th>N</th></tr>{rows}</table>'), theme, art,
                    where=WHERE)
    pages = text_of(result.data)
    assert len(pages) >= 3
    assert all("NAME" in p for p in pages)
    assert re.findall(r"row\d{3}", " ".join(pages)) == [f"row{i:03d}" for i in range(120)]


def test_content_taller_than_a_page_is_an_error_not_dropped(theme, art):
    tall = "<br/>".join(["line"] * 80)
    with pytest.raises(InputError) as info:
        render(doc(f"<table><tr><td>{tall}</td></tr></table>"), theme, art, where=WHERE)
    assert "does not fit on a page" in str(info.value)
    assert str(info.value).startswith(f"{WHERE}:2:")


def test_text_wider_than_the_page_is_an_error(theme, art):
    with pytest.raises(InputError) as info:
        render(doc("<p>" + "x" * 300 + "</p>"), theme, art, where=WHERE)
    assert str(info.value).startswith(f"{WHERE}:2:")


def test_text_set_before_is_set_again_for_another_style_or_art(theme, art, tmp_path):
    # text is kept once set (flowables._TEXT): the same words in a larger theme, or with
    # an icon that another pack's art lacks, must not come back as they were first set
    words = doc(("<p>" + " ".join(f"word{i:03d}" for i in range(400)) + "</p>") * 3)
    bigger = dataclasses.replace(theme, size=theme.size * 1.5)
    small = render(words, theme, art, where=WHERE)
    large = render(words, bigger, art, where=WHERE)
    assert large.pages > small.pages
    flowables._TEXT.clear()
    assert render(words, bigger, art, where=WHERE).data == large.data
    assert render(words, theme, art, where=WHERE).data == small.data
    with_icon = '<p>Beware <icon name="ufo"/> the saucer</p>'
    render(doc(with_icon), theme, art, where=WHERE)
    with pytest.raises(InputError) as info:
        render(doc(with_icon), theme, ArtLibrary(tmp_path), where=WHERE)
    assert "ufo" in str(info.value)


def test_headings_stay_with_what_follows(theme, art):
    filler = "<p>" + " ".join(["filler"] * 40) + "</p>"
    body = "\n".join([filler] * 8) + "\n<h2>Kept</h2>\n<p>" + " ".join(["after"] * 60) + "</p>"
    document = build(doc(body), theme, art, where=WHERE)
    pages = paginate(document.flowables, theme)
    for page in pages:
        if page.anchors:
            heading = page.anchors[0][0]
            index = [f for f, _, _ in page.items].index(heading)
            assert index < len(page.items) - 1, "a heading ended a page"


def test_page_breaks_and_cover(theme, art):
    body = ('<cover><h1>Big title</h1><p>sub</p></cover>\n<h1>A</h1><p>a</p>\n<pagebreak/>'
            '\n<h1>B</h1><p>b</p>')
    result = render(doc(body), theme, art, where=WHERE)
    pages = text_of(result.data)
    assert len(pages) == 3
    assert "Big title" in pages[0] and "Test header".upper() not in pages[0]
    assert "A a" in pages[1] and pages[2].startswith("TEST HEADER")
    assert [(level, title, page) for level, title, page in result.headings] == [
        (1, "A", 2), (1, "B", 3)]


# ---------------------------------------------------------------------------
# The PDF


def test_contents_page_numbers_and_outline(theme, art):
    filler = "\n".join(["<p>" + " ".join(["text"] * 80) + "</p>"] * 6)
    body = (f'<h1 toc="no">Contents</h1><toc depth="2"/><pagebreak/>'
            f'<h1>Alpha</h1>{filler}<h2>Alpha two</h2>{filler}<h1>Beta</h1>{filler}')
    result = render(doc(body), theme, art, where=WHERE)
    pages = text_of(result.data)
    listed = dict(re.findall(r"(Alpha two|Alpha|Beta) (\d+)", pages[0]))
    assert set(listed) == {"Alpha", "Alpha two", "Beta"}
    for title, number in listed.items():
        assert title in pages[int(number) - 1]
        assert (1 if title != "Alpha two" else 2, title, int(number)) in result.headings
    reader = PdfReader(io.BytesIO(result.data))
    outline = reader.outline
    titles = [o["/Title"] for o in outline if not isinstance(o, list)]
    assert titles == ["Contents", "Alpha", "Beta"]
    alpha = next(o for o in outline if not isinstance(o, list) and o["/Title"] == "Alpha")
    assert reader.get_destination_page_number(alpha) + 1 == int(listed["Alpha"])


def test_fonts_are_embedded_and_output_is_deterministic(theme, art):
    body = ('<h1>T</h1><p>Text <b>bold</b> <i>it</i> <icon name="threat-spy"/></p>'
            '<table><tr><th>H</th></tr><tr><td>c</td></tr></table>'
            '<flowchart><node id="a" col="0" row="0" kind="start">A</node>'
            '<node id="b" col="0" row="1" kind="decision">B?</node>'
            '<edge from="a" to="b" label="YES"/></flowchart>')
    first = render(doc(body), theme, art, where=WHERE).data
    second = render(doc(body), theme, art, where=WHERE).data
    assert first == second
    assert b"Helvetica" not in first
    reader = PdfReader(io.BytesIO(first))
    fonts = set()
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            descriptor = font["/FontDescriptor"].get_object()
            assert "/FontFile2" in descriptor, font["/BaseFont"]
            fonts.add(font["/BaseFont"])
    assert fonts


def test_booklet_mode_imposes_two_pages_per_landscape_side(theme, art):
    body = "\n<pagebreak/>\n".join(f"<h1>Page {i}</h1><p>p{i}</p>" for i in range(1, 7))
    plain = render(doc(body), theme, art, where=WHERE)
    assert plain.pages == 6 and plain.sheets is None
    a4 = (mm(297), mm(210))
    imposed = render(doc(body), theme, art, where=WHERE, booklet=(a4, "short"))
    reader = PdfReader(io.BytesIO(imposed.data))
    assert imposed.pages == 6 and imposed.sheets == 4 == len(reader.pages)
    for page in reader.pages:
        box = page.mediabox
        assert (round(float(box.width)), round(float(box.height))) == (842, 595)
    sides = [" ".join(p.extract_text().split()) for p in reader.pages]
    # 6 pages pad to 8: (8, 1), (2, 7), (6, 3), (4, 5); pages 7 and 8 are blank
    assert "Page 1" in sides[0] and "Page 2" in sides[1]
    assert "Page 6" in sides[2] and "Page 3" in sides[2]
    assert "Page 4" in sides[3] and "Page 5" in sides[3]


def test_a_plan_drawn_again_is_the_same_pdf():
    """``watch`` may draw a kept plan again (an edit undone): its icons are named from
    ``icon0`` on the new canvas, as a fresh build names them, whatever the plan's first
    drawing named, and so are its pages' records."""
    from eti_print.options import PrintRequest
    from eti_print.pipeline import jobs, load_checked
    from eti_print.render.document import write_document
    from eti_print.render.replay import Records
    ctx = load_checked(None, PrintRequest())
    job = next(j for j in jobs(ctx) if j.key == "documents")
    doc = job.resolve(ctx)[0]

    def drawn(records=None) -> bytes:
        return write_document(doc.built, doc.pages, doc.theme, doc.booklet,
                              scale=ctx.sheets.scale, records=records).data
    first = drawn()
    assert drawn() == first
    records = Records()
    assert drawn(records) == first
    assert drawn(records) == first
    drawn_again, pages = records.page_counts       # only the contents, for its links
    assert pages == 27 and 1 <= drawn_again <= 2
