"""Reading our PDFs back in tests: fonts (all embedded) and where pieces were placed."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path


def embedded_fonts(pdf: Path | bytes) -> set[str]:
    """Every font a PDF uses, pages and forms, asserting each one is embedded."""
    import pikepdf
    seen: set[str] = set()

    def visit(resources, depth: int = 0) -> None:
        resources = resources if resources is not None else pikepdf.Dictionary()
        for _, font in (resources.get("/Font") or pikepdf.Dictionary()).items():
            descendant = (font["/DescendantFonts"][0] if "/DescendantFonts" in font
                          else font)
            descriptor = descendant.get("/FontDescriptor")
            assert descriptor is not None and "/FontFile2" in descriptor, \
                f"{font['/BaseFont']} is not embedded"
            seen.add(str(font["/BaseFont"]))
        if depth < 8:
            for _, xobject in (resources.get("/XObject") or pikepdf.Dictionary()).items():
                visit(xobject.get("/Resources"), depth + 1)

    with pikepdf.open(io.BytesIO(pdf) if isinstance(pdf, bytes) else pdf) as doc:
        for page in doc.pages:
            visit(page.obj.get("/Resources"))
    return seen


def placements(page) -> list[tuple[str, tuple[float, float], tuple[float, ...]]]:
    """(form, trim origin, clip rect) of every piece drawn on a page (pypdf's or pikepdf's;
    pikepdf's is read faster), in drawing order."""
    import pikepdf
    if isinstance(page, pikepdf.Page):
        operations = pikepdf.parse_content_stream(page, "re cm Do")
    else:
        from pypdf.generic import ContentStream
        operations = ContentStream(page.get_contents(), page.pdf).operations
    placed, clip, origin = [], None, (0.0, 0.0)
    for operands, op in operations:
        op = op.decode() if isinstance(op, bytes) else str(op)
        if op == "re":
            clip = tuple(float(v) for v in operands)
        elif op == "cm":
            origin = (float(operands[4]), float(operands[5]))
        elif op == "Do":
            placed.append((str(operands[0]), origin, clip))
    return placed


#: For ``pytest.mark.skipif``: the qpdf tests need the qpdf program.
NO_QPDF = shutil.which("qpdf") is None


def qpdf_check(pdf: Path | bytes, scratch: Path | None = None) -> None:
    """Assert ``qpdf --check`` finds nothing wrong (bytes go to a file in ``scratch``)."""
    if isinstance(pdf, bytes):
        assert scratch is not None
        path = scratch / f"check-{abs(hash(pdf))}.pdf"
        path.write_bytes(pdf)
        pdf = path
    result = subprocess.run(["qpdf", "--check", str(pdf)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def page_texts(pdf: Path | bytes) -> list[str]:
    """Each page's text, whitespace collapsed (pdfium: the text pypdf's ``extract_text``
    finds, in a fraction of its time)."""
    import pypdfium2 as pdfium
    doc = pdfium.PdfDocument(pdf if isinstance(pdf, bytes) else str(pdf))
    try:
        return [" ".join(doc[i].get_textpage().get_text_range().split()) for i in range(len(doc))]
    finally:
        doc.close()


def pdf_text(pdf: Path | bytes) -> str:
    """The whole document's text, whitespace collapsed."""
    return " ".join(page_texts(pdf))


def rasterise(pdf: bytes, page: int = 0, scale: float = 1.0):
    """One page as an RGB Pillow image (pdfium; ``scale`` 1 is 72 dpi)."""
    import pypdfium2 as pdfium
    doc = pdfium.PdfDocument(pdf)
    try:
        return doc[page].render(scale=scale).to_pil().convert("RGB")
    finally:
        doc.close()


#: Content-stream operators that name a resource: (operand index, resource category).
_NAMED = {"Do": "/XObject", "sh": "/Shading", "Tf": "/Font", "gs": "/ExtGState",
          "cs": "/ColorSpace", "CS": "/ColorSpace", "scn": "/Pattern", "SCN": "/Pattern"}
#: Colour spaces an operator may name without a resource.
_BUILT_IN = {"/DeviceGray", "/DeviceRGB", "/DeviceCMYK", "/Pattern"}


def dangling_resources(pdf: Path | bytes) -> list[str]:
    """Every resource name a page or form XObject's content uses that its own
    resources lack, as "page 3: /Shading /Sh0" or "page 1 > /FormXob.art0: ..."."""
    import pikepdf
    found: list[str] = []
    visited: set[tuple[int, int]] = set()

    def check(label: str, content, resources) -> None:
        resources = resources if resources is not None else pikepdf.Dictionary()
        for operands, operator in pikepdf.parse_content_stream(content):
            op = str(operator)
            if op not in _NAMED or not operands:
                continue
            name = operands[0] if op in ("Do", "sh", "Tf", "gs", "cs", "CS") else operands[-1]
            if not isinstance(name, pikepdf.Name):
                continue            # scn with colour components only
            if op in ("cs", "CS") and str(name) in _BUILT_IN:
                continue
            category = resources.get(_NAMED[op])
            if category is None or str(name) not in category:
                found.append(f"{label}: {op} names {_NAMED[op]} {name}, which is not there")
        for name, xobject in (resources.get("/XObject") or {}).items():
            if xobject.get("/Subtype") != "/Form":
                continue
            key = xobject.objgen
            if key in visited and key != (0, 0):
                continue
            visited.add(key)
            check(f"{label} > {name}", xobject, xobject.get("/Resources"))

    with pikepdf.open(io.BytesIO(pdf) if isinstance(pdf, bytes) else pdf) as doc:
        for number, page in enumerate(doc.pages, start=1):
            check(f"page {number}", page, page.obj.get("/Resources"))
    return found
