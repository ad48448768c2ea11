"""pdfwriter's serialising: byte for byte what reportlab's own would write."""

from __future__ import annotations

import pytest

from eti_print import pdfwriter

TEXTS = ["", "/Type /XObject", "12 0 R", "Über", "\x18", "a\x1fb", "\x17\t\n\r", "Café 1965",
         "\u02d8", "€", "x" * 5000]


def _encoded(encode, text):
    try:
        return encode(text)
    except UnicodeEncodeError as exc:
        return ("refused", exc.start, exc.end)


def test_strings_encode_as_reportlabs_codec_does():
    """Every character up to U+03FF and some strings: the same bytes, or refused alike
    (U+0018-U+001F, which PDFDocEncoding gives to accents, among them)."""
    for text in TEXTS + [chr(i) for i in range(0x400)]:
        assert _encoded(pdfwriter._pdfdoc_enc, text) == \
            _encoded(pdfwriter._PDFDOC_ENC, text), repr(text)
        assert pdfwriter._pdfdoc_enc(text.encode("utf-8")) == text.encode("utf-8")
    assert _encoded(pdfwriter._pdfdoc_enc, "\x18")[0] == "refused"


@pytest.mark.parametrize("name", ["Type", "F1+0", "a b", "(x)", "#", "Ü", "FormXob.3f2a"])
def test_names_escape_as_reportlabs_do_every_time(name):
    assert pdfwriter._pdf_name(name) == pdfwriter._PDFNAME(name)
    assert pdfwriter._pdf_name(name) == pdfwriter._PDFNAME(name)      # kept
    assert pdfwriter._pdf_name(name, "!", "~") == pdfwriter._PDFNAME(name, "!", "~")
