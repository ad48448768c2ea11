"""Drawing art the way the card sheets do, for tests that look at the pixels."""

from __future__ import annotations

from pathlib import Path

from eti_print.art import ArtLibrary
from eti_print.pdfwriter import DocInfo, new_canvas
from eti_print.render.sheets import ArtForms


def art_pack(root: Path, files: dict[str, bytes | str]) -> Path:
    """A pack folder holding only ``templates/art/<name>`` for each file given."""
    folder = root / "templates" / "art"
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        path = folder / name
        if isinstance(data, str):
            path.write_text(data, encoding="utf-8")
        else:
            path.write_bytes(data)
    return root


def art_pdf(lib: ArtLibrary, art_id: str, box: tuple[float, float, float, float],
            page: tuple[float, float], color=None) -> tuple[bytes, tuple]:
    """A one-page PDF with ``art_id`` placed in ``box`` as the card sheets place art:
    a form per art (``ArtForms``) on the project's canvas (``new_canvas``).  Returns
    the PDF and the box the art covered."""
    canvas = new_canvas(page, "Helvetica", DocInfo("art test"))
    forms = ArtForms(lib, canvas)
    forms.define(art_id, color)
    covered = forms.draw(canvas, art_id, *box, color)
    canvas.showPage()
    return canvas.getpdfdata(), covered
