"""The pieces job type on a pack without a game: blocks, the grid flow, located problems."""

from __future__ import annotations

import io
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from pypdf import PdfReader

from eti_print.jobs.pieces import PIECE_MARGIN, block_page, flow_cells
from eti_print.options import PrintOptions
from eti_print.pipeline import build
from eti_print.units import mm, paper_size

from conftest import ROOT, problems
from pdfcheck import qpdf_check

CHIT = """    layout: chit
    as: card
"""


def pack_with(tmp_path: Path, pieces: str) -> Path:
    """The Mad Scientists pack with a pieces: section."""
    pack = tmp_path / "pack"
    shutil.copytree(ROOT / "packs" / "mad-scientists", pack)
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text() + "\npieces:\n" + pieces)
    return pack


def forms_per_page(data: bytes) -> list[Counter]:
    reader = PdfReader(io.BytesIO(data))
    return [Counter(re.findall(r"/(FormXob\.\w+) Do",
                               page.get_contents().get_data().decode("latin-1")))
            for page in reader.pages]


def built(pack: Path, tmp_path: Path, paper: str = "a4") -> bytes:
    out = tmp_path / "out"
    build(str(pack), out, PrintOptions(paper=paper))
    return (out / "mad-scientists-pieces.pdf").read_bytes()


def test_flow_cells_start_each_group_on_a_new_row_and_continue_on_a_new_page():
    pages = flow_cells([5, 3], 2, 2)
    assert pages == [[(0, 0), (1, 0), (2, 0), (3, 0)], [(0, 0), (2, 1), (3, 1)], [(0, 1)]]
    assert flow_cells([], 3, 3) == []
    with pytest.raises(ValueError):
        flow_cells([1], 0, 3)


def test_blocks_take_the_fewest_rows_that_fit_and_sit_centred(tmp_path):
    pack = pack_with(tmp_path, f"""  - id: big
    title: Big chits
    items: [chits.chits]
    where: {{type: B}}
    width: 1in
    height: 1in
{CHIT}  - id: markers
    title: Markers
    cards: [{{type: U, name: Marker, move: '-', range: '-', defense: '-', icon: troops}}]
    copies: 3
    width: 30mm
    height: 30mm
    note: cut out
{CHIT}""")
    data = built(pack, tmp_path)
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) == 1
    (page,) = forms_per_page(data)
    assert sum(page.values()) == 3 + sum(1 for line in (pack / "cards/chits.yaml")
                                         .read_text().splitlines() if "type: B" in line)
    text = reader.pages[0].extract_text()
    assert "BIG CHITS" in text and "3 MARKERS" in text and "cut out" in text
    assert [o.title for o in reader.outline][-1] == "Markers (3)"


def test_pieces_that_do_not_fit_one_page_flow_through_a_grid(tmp_path):
    pack = pack_with(tmp_path, f"""  - id: many
    title: Chits
    items: [chits.chits]
    copies: 3
    width: 1in
    height: 1in
    note: cut along the crop marks
{CHIT}""")
    data = built(pack, tmp_path)
    pages = forms_per_page(data)
    per_sheet = 7 * 10   # 1 in cells 2.5 mm apart on A4 inside 8 mm margins
    kept = 3 * 2         # the first sheet's bottom right corner: the 25 mm scale check
    assert [sum(p.values()) for p in pages] == [per_sheet - kept] + [per_sheet] * 2 + \
        [225 - 3 * per_sheet + kept]
    text = PdfReader(io.BytesIO(data)).pages[3].extract_text()
    assert "sheet 4 of 4" in text and f"{225 - 3 * per_sheet + kept} CHITS" in text
    qpdf_check(data, tmp_path)


def test_a_block_page_keeps_its_margin():
    from eti_print.jobs.pieces import Group
    paper = paper_size("letter")[::-1]
    wide = Group("w", "W", "", mm(30), mm(90), (None,) * 12, None)     # type: ignore[arg-type]
    badge = Group("b", "B", "", mm(66), mm(66), (None,), None)          # type: ignore[arg-type]
    page = block_page(paper, [wide, badge], PIECE_MARGIN)
    assert page is not None
    assert [len({s.row for s in b.slots}) for b in page.blocks] == [2, 1]
    for block in page.blocks:
        for s in block.slots:
            assert s.trim.x >= PIECE_MARGIN and paper[0] - s.trim.right >= PIECE_MARGIN
    assert block_page(paper, [wide, badge], mm(60)) is None


@pytest.mark.parametrize("entry, message", [
    ("    width: 299mm\n    height: 1in\n", "a piece is larger than the paper less its margins"),
    ("    width: '{{ nope.x }}mm'\n    height: 1in\n", "'nope' is undefined"),
    ("    width: 0mm\n    height: 1in\n", "width must be more than 0"),
    ("    width: 1in\n    height: 1in\n    count: copies\n    copies: 2\n",
     "give count (a field of each item) or copies (one number), not both"),
])
def test_bad_entries_are_located_problems(tmp_path, entry, message):
    pack = pack_with(tmp_path, f"""  - id: bad
    title: Bad
    items: [chits.chits]
{entry}{CHIT}""")
    found = problems(pack)
    assert any(message in p and p.startswith("pack.yaml:") for p in found), found


def test_mixed_sizes_that_do_not_fit_ask_for_a_new_page(tmp_path):
    pack = pack_with(tmp_path, f"""  - id: small
    title: Small
    items: [chits.chits]
    width: 1in
    height: 1in
{CHIT}  - id: large
    title: Large
    items: [chits.chits]
    width: 30mm
    height: 30mm
{CHIT}""")
    found = problems(pack)
    assert any("pieces of different sizes do not fit on one page together" in p
               and "page: portrait or landscape" in p for p in found), found
    manifest = pack / "pack.yaml"
    manifest.write_text(manifest.read_text().replace("  - id: large\n",
                                                     "  - id: large\n    page: landscape\n"))
    data = built(pack, tmp_path)
    sizes = [tuple(round(float(v)) for v in p.mediabox[2:])
             for p in PdfReader(io.BytesIO(data)).pages]
    assert sizes[0] == (595, 842) and sizes[-1] == (842, 595)
