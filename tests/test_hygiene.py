"""Every PDF of every shipped pack, in every mode the session builds: fonts
embedded (no base-14 font), ``qpdf --check`` clean, and byte-identical when
built again."""

from __future__ import annotations

import pytest

from conftest import BUILDS, pdfs_of
from pdfcheck import NO_QPDF, embedded_fonts, qpdf_check

#: The standard fonts a reader would substitute: none may be referenced.
BASE_14 = ("Helvetica", "Times", "Courier", "Symbol", "ZapfDingbats")

OUTPUTS = [(pack, mode, name) for pack, modes in BUILDS.items() for mode in modes
           for name in pdfs_of(pack, mode)]


@pytest.mark.parametrize("pack, mode", [(p, m) for p, modes in BUILDS.items() for m in modes])
def test_the_table_names_every_pdf_a_build_writes(session_build, pack, mode):
    written = sorted(p.name for p in session_build(pack, mode).glob("*.pdf"))
    assert written == sorted(pdfs_of(pack, mode))


@pytest.mark.parametrize("pack, mode, name", OUTPUTS, ids=[f"{p}-{m}-{n}" for p, m, n in OUTPUTS])
def test_output_hygiene(session_build, pack, mode, name):
    path = session_build(pack, mode) / name
    data = path.read_bytes()

    fonts = embedded_fonts(path)            # asserts every font it finds is embedded
    assert fonts, "no fonts found"
    assert not any(standard in font for font in fonts for standard in BASE_14), fonts
    descriptors = data.count(b"/Type /FontDescriptor")
    assert descriptors and data.count(b"/FontFile2") == descriptors

    if not NO_QPDF:
        qpdf_check(path)

    # a second, independent build; E.T.I.'s default build on the command line, in a new
    # process with another hash seed and time zone (tests/test_output.py reads it too)
    again = session_build(pack, mode, copy="process" if (pack, mode) == ("eti", "a4-long")
                          else "again")
    assert (again / name).read_bytes() == data, f"{name} differs when built again"
    manifest = next(session_build(pack, mode).glob("*manifest*.json"))
    assert (again / manifest.name).read_bytes() == manifest.read_bytes()
