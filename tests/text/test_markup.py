"""The one markup parser (text/markup.py): hardened lxml, one entity set, exact lines."""

from __future__ import annotations

import pytest

from eti_print.errors import InputError
from eti_print.render.document import parse_document
from eti_print.text import BREAK, Run, parse
from eti_print.text.markup import MarkupError, parse_tree

WHERE = "templates/doc.j2"


def doc(body: str) -> str:
    return f'<document title="T">\n{body}\n</document>'


def doc_error(markup: str) -> str:
    with pytest.raises(InputError) as info:
        parse_document(markup, where=WHERE)
    return str(info.value)


def text_error(markup: str) -> str:
    with pytest.raises(InputError) as info:
        parse(markup, where="cards/x.yaml", line=7, field="text")
    return str(info.value)


# ---------------------------------------------------------------------------
# One entity set for card text and documents

ENTITIES = [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'"),
            ("&#233;", "é"), ("&#xE9;", "é"), ("&#x1F600;", "\U0001F600"), ("&#9;", " ")]


@pytest.mark.parametrize("entity, char", ENTITIES)
def test_card_text_and_documents_accept_the_same_entities(entity, char):
    assert parse(f"a{entity}b") == [Run.of(f"a{char}b")]
    root = parse_document(doc(f'<h1 short="a{entity}b">a{entity}b</h1>'), where=WHERE)
    assert root.children[0].runs == [Run.of(f"a{char}b")]
    if entity != "&#9;":
        assert root.children[0].attrs["short"] == f"a{char}b"


@pytest.mark.parametrize("entity, message", [
    ("&nbsp;", "bad entity '&nbsp;'"), ("&copy;", "bad entity"), ("R&D", "bad entity"),
    ("&#X41;", "bad entity"), ("&#00000065;", "bad entity"), ("&#0;", "not a printable"),
    ("&#x7;", "not a printable"), ("&#xD800;", "not a printable"), ("&#65535;", "not a printable"),
    ("&#x110000;", "not a printable"), ("&#159;", "not a printable"),
])
def test_card_text_and_documents_refuse_the_same_entities(entity, message):
    assert message in text_error(f"x {entity} y")
    assert message in doc_error(doc(f"<p>x {entity} y</p>"))
    assert message in doc_error(doc(f'<h1 short="x {entity} y">t</h1>'))


# ---------------------------------------------------------------------------
# Hardening: nothing but elements, attributes, text and the entities above


@pytest.mark.parametrize("markup, message", [
    ('<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>&x;', "DOCTYPE"),
    ('<!ENTITY x "y">', "DOCTYPE and entity declarations are not allowed"),
    ("<![CDATA[<b>]]>", "CDATA sections are not allowed"),
    ('<?xml version="1.0"?>x', "processing instructions are not allowed"),
    ("<?php x ?>", "processing instructions are not allowed"),
    ("<!-- note -->", "stray '<'"),
    ("</_>x<_>", "stray '<'"),
    ('<b xmlns="urn:x">y</b>', "namespace declarations (xmlns) are not allowed"),
    ('<b xmlns:e="urn:x">y</b>', "namespace declarations (xmlns) are not allowed"),
    ('<e:b>y</e:b>', "namespaces are not allowed"),
    ('<icon name="ufo" xml:base="/etc/"/>', "attribute 'xml:base' is not allowed on <icon>"),
    ('<icon name="a" name="b"/>', "attribute 'name' is given twice"),
    ("<b>" * 300 + "x", "nests more than 100 elements deep"),
    ("<b class=x>y</b>", "malformed tag"),
    ("x<y>z", "markup tag <y> is not allowed"),
])
def test_card_text_refuses_everything_else(markup, message):
    text = text_error(markup)
    assert text.startswith("cards/x.yaml:7: text: ")
    assert message in text


def test_documents_refuse_declarations_as_such():
    assert "DOCTYPE and entity declarations are not allowed" in doc_error(
        '<!DOCTYPE document [<!ENTITY a "b">]>\n' + doc("<p>&a;</p>"))
    billion = '<!DOCTYPE d [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
    assert "DOCTYPE" in doc_error(doc(billion + "<p>&b;</p>"))
    assert "not allowed" in doc_error(doc('<p><?pi x?></p>'))


def test_card_text_keeps_the_old_tag_rules():
    assert "write <br/>" in text_error("a<br></br>b")
    assert "cannot be self-closing" in text_error("<i/>")
    assert 'write <icon name="art-id"/>' in text_error('<icon name="ufo"></icon>')
    assert parse("<b></b>x") == [Run.of("x")]
    assert parse("<b><b>x</b></b><i>y</i>") == [Run.of("x", bold=True), Run.of("y", italic=True)]
    assert parse('<icon\nname="ufo"/><br\n/>') == [Run.art("ufo"), BREAK]


def test_what_xml_would_refuse_in_text_passes_as_before():
    # ']]>' and characters XML may not hold reach the runs unchanged (the
    # fonts judge them later), as with the hand-written parser
    assert parse("x]]>y") == [Run.of("x]]>y")]
    assert parse("a\x07b\ufffe") == [Run.of("a\x07b\ufffe")]
    root = parse_document(doc('<h1 short="s\x01]]>">t\x02</h1>'), where=WHERE)
    assert root.children[0].attrs["short"] == "s\x01]]>"
    assert root.children[0].runs == [Run.of("t\x02")]


@pytest.mark.parametrize("text", ["", " ", "a\r\nb\rc\n\td", "x > y ]]> z", "é\x07"])
def test_plain_text_reads_as_it_does_through_lxml(text):
    assert parse(text) == parse("<b></b>" + text)


def test_positions_in_card_text():
    assert "stray '<' at character 7 in 'Gain 3<5'" in text_error("Gain 3<5")
    assert "bad entity '&D' at character 2" in text_error("R&D")


# ---------------------------------------------------------------------------
# Line numbers: an element's line is the line of its '<'


def test_tree_lines_are_the_lines_where_tags_start():
    tree = parse_tree('<a>\n<b\n x="1"\n/>\n\n<c>t<d/>\n</c></a>', fragment=False,
                      position=str, names=("a", "b", "c", "d"))
    assert [(el.tag, tree.line(el)) for el in tree.elements] == [
        ("a", 1), ("b", 2), ("c", 6), ("d", 6)]
    # lxml's own sourceline is where a start tag ends
    assert [el.sourceline for el in tree.elements][1] == 4
    assert tree.shown(tree.elements[1]) == '<b\n x="1"\n/>'
    assert tree.self_closing(tree.elements[1]) and not tree.self_closing(tree.elements[2])


def test_vet_reports_the_character():
    with pytest.raises(MarkupError) as info:
        parse_tree("ab\n<c>&x</c>", fragment=False, position=lambda pos: f"@{pos}")
    assert info.value.pos == 6 and info.value.message == "bad entity '&x' @6"


LONG = [f"<p>paragraph {i} with <b>bold</b> text</p>" for i in range(60)]


def deep(line: int, bad: str) -> str:
    """A 62-line document whose line ``line`` (counting <document> as 1) is ``bad``."""
    body = list(LONG)
    body[line - 2] = bad
    return doc("\n".join(body))


@pytest.mark.parametrize("line, bad, message", [
    (45, "<bogus/>", "unknown element <bogus>"),
    (50, '<note title="n">\n<p>x</p>\n<p>y <img src="x"/></p></note>', "markup tag <img>"),
    (33, '<p style="lead"\n   onclick="x">a</p>', "<p> has no attribute 'onclick'"),
    (58, "<p>R&D</p>", "bad entity"),
    (12, "<p>x < y</p>", "stray '<'"),
    (40, "<ul>\n<li>a</li>\nloose\n</ul>", "text 'loose' directly inside <ul>"),
    (27, "<p>open <b>bold</p>", "<b> is never closed"),
    (21, "<keep>\n<p>x</p>", "<keep> is never closed"),
    (55, "<p>a</i></p>", "</i> closes a tag that was never opened"),
    (30, "<table>\n<tr><td>a</td></tr>\n<tr><p>x</p></tr></table>", "may only hold <th>, <td>"),
])
def test_an_error_deep_in_a_long_document_names_its_line(line, bad, message):
    text = doc_error(deep(line, bad))
    assert message in text
    extra = {"markup tag <img>": 2, "text 'loose'": 2, "may only hold": 2}
    want = line + next((n for key, n in extra.items() if message.startswith(key)), 0)
    assert text.startswith(f"{WHERE}:{want}:"), text


def test_comment_lines_count():
    text = doc_error(doc("<!--\n\n\n-->\n" + "\n".join(LONG[:10]) + "\n<p><x/></p>"))
    assert text.startswith(f"{WHERE}:16:")
    assert "in <p>: markup tag <x> is not allowed" in text


def test_inline_runs_are_kept_by_the_element_as_written():
    """A document sets the same paragraphs build after build: an element's runs are read
    again from what is written between its tags, wherever it stands, and a changed
    element is read afresh."""
    from eti_print.text.markup import inline_runs

    def runs(markup: str, index: int) -> list:
        tree = parse_tree(markup, fragment=False, position=str)
        el = list(tree.root)[index]
        return inline_runs(tree, el, lambda child, message, hint: MarkupError(message))
    first = runs("<doc><p>Alpha <b>beta</b></p><p>x</p></doc>", 0)
    again = runs("<doc>\n\n<p>y</p><p>Alpha <b>beta</b></p></doc>", 1)
    assert first == again and [r.text for r in first] == ["Alpha ", "beta"]
    first.append("mine")                                  # a copy: the kept runs unchanged
    assert runs("<doc><p>Alpha <b>beta</b></p></doc>", 0) == again
    changed = runs("<doc><p>Alpha <i>beta</i></p></doc>", 0)
    assert changed[1].italic and not changed[1].bold
    with pytest.raises(MarkupError):                     # a problem is never kept
        runs("<doc><p>Alpha <q>beta</q></p></doc>", 0)
