"""The card PDF: counts, true size, registered backs, extractable text, fonts."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from eti_print.errors import InputError
from eti_print.options import PrintOptions
from eti_print.pipeline import build
from eti_print.units import mm

from conftest import BUILDS, built_name, edit
from pdfcheck import page_texts, pdf_text, placements

A4 = (mm(210), mm(297))
LETTER = (792.0, 612.0)    # card sheets on Letter are landscape: eight cards, 4 x 2
PER_SHEET = {"a4-long": 9, "letter-short": 8, "a4-none": 9}
POKER = (mm(63.5), mm(88.9))
DECKS = {"research": 90, "projects": 40, "events": 25, "agendas": 18, "endgame": 10}


@pytest.fixture(scope="module")
def built(session_build) -> dict[str, Path]:
    return {mode: session_build("eti", mode) / built_name("eti-cards.pdf", "eti", mode)
            for mode in ("a4-long", "letter-short", "a4-none")}


def sheets(reader: PdfReader) -> int:
    return len(reader.pages)


def test_page_count_and_paper_size(built):
    for key, paper in (("a4-long", A4), ("letter-short", LETTER)):
        # the first deck's first sheet keeps a slot for the scale check
        expected_sheets = sum(math.ceil((n + (i == 0)) / PER_SHEET[key])
                              for i, n in enumerate(DECKS.values()))
        reader = PdfReader(built[key])
        assert len(reader.pages) == 2 * expected_sheets
        for page in reader.pages:
            box = page.mediabox
            assert float(box.width) == pytest.approx(paper[0], abs=0.01)
            assert float(box.height) == pytest.approx(paper[1], abs=0.01)


def test_every_card_is_drawn_once_per_side(built):
    reader = PdfReader(built["a4-long"])
    drawn = sum(len(placements(p)) for p in reader.pages)
    assert drawn == 2 * sum(DECKS.values())


def test_bookmarks_per_deck(built):
    reader = PdfReader(built["a4-long"])
    titles = [o.title for o in reader.outline]
    assert titles == ["Research cards (90)", "Project cards (40)", "Event cards (25)",
                      "Agenda cards (18)", "Endgame cards (10)"]
    assert reader.metadata.title.startswith("E.T.I.: Estimated Time to Invasion")


REGISTER_TOL = mm(0.01)


def _registered(front, back, paper, duplex, tol=REGISTER_TOL):
    (_, (fx, fy), _), (_, (bx, by), _) = front, back
    w, h = POKER
    landscape = paper[0] > paper[1]
    if (duplex == "long") != landscape:     # landscape sheets swap the two flips
        bx = paper[0] - bx - w
    else:
        by = paper[1] - by - h
    return abs(fx - bx) <= tol and abs(fy - by) <= tol


@pytest.mark.parametrize("key,paper,duplex", [("a4-long", A4, "long"),
                                              ("letter-short", LETTER, "short")])
def test_backs_register_with_fronts_after_the_flip(built, key, paper, duplex):
    reader = PdfReader(built[key])
    for i in range(0, len(reader.pages), 2):
        fronts, backs = placements(reader.pages[i]), placements(reader.pages[i + 1])
        assert len(fronts) == len(backs)
        for front, back in zip(fronts, backs):
            assert _registered(front, back, paper, duplex)
            # the clip is the card's trim plus bleed: the trim size is exact
            fx, fy = front[1]
            cx, cy, cw, ch = front[2]
            assert cx <= fx + 1e-3 and cy <= fy + 1e-3
            assert cx + cw >= fx + POKER[0] - 1e-3 and cy + ch >= fy + POKER[1] - 1e-3


def test_grid_is_centred(built):
    reader = PdfReader(built["a4-long"])
    origins = [p[1] for p in placements(reader.pages[0])]
    xs = [x for x, _ in origins]
    ys = [y for _, y in origins]
    left, right = min(xs), A4[0] - (max(xs) + POKER[0])
    bottom, top = min(ys), A4[1] - (max(ys) + POKER[1])
    assert left == pytest.approx(right, abs=1e-3) and bottom == pytest.approx(top, abs=1e-3)


def test_duplex_none_puts_backs_after_fronts(built):
    reader = PdfReader(built["a4-none"])
    first = placements(reader.pages[0])
    research_sheets = math.ceil((90 + 1) / 9)       # a slot kept for the scale check
    back = placements(reader.pages[research_sheets])
    assert [p[1] for p in first] == [p[1] for p in back]


def test_back_offset_moves_backs_only(session_build):
    """The session's Letter short-edge build with ``--back-offset 0.5,-1`` beside the one
    without: every back sheet's cards moved by (0.5, -1) mm on the back page, every
    front sheet the same."""
    name = built_name("eti-cards.pdf", "eti", "letter-short")
    plain = PdfReader(session_build("eti", "letter-short") / name)
    moved = PdfReader(session_build("eti", "letter-short-offset") / name)
    assert len(moved.pages) == len(plain.pages)
    dx, dy = BUILDS["eti"]["letter-short-offset"]["back_offset"]
    for i in range(0, len(plain.pages), 2):
        assert placements(moved.pages[i]) == placements(plain.pages[i])     # fronts
        backs, shifted = placements(plain.pages[i + 1]), placements(moved.pages[i + 1])
        assert len(shifted) == len(backs) > 0
        for (form, (x, y), _), (moved_form, (mx, my), _) in zip(backs, shifted):
            assert moved_form == form
            assert mx == pytest.approx(x + mm(dx), abs=mm(0.01))
            assert my == pytest.approx(y + mm(dy), abs=mm(0.01))


def test_identical_backs_share_one_drawing(built):
    reader = PdfReader(built["a4-long"])
    research_backs = {p[0] for i in range(1, 20, 2) for p in placements(reader.pages[i])}
    assert len(research_backs) == 1
    endgame_back_pages = [len(reader.pages) - 3, len(reader.pages) - 1]
    endgame_backs = {p[0] for i in endgame_back_pages for p in placements(reader.pages[i])}
    assert len(endgame_backs) == 1


def test_every_card_text_is_extractable(built, database):
    flat = pdf_text(built["a4-long"])
    for project in database.projects:
        assert project.name in flat, project.name
    for event in database.events:
        assert event.title in flat, event.title
    for end in database.endgame:
        assert end.name.upper() in flat, end.name
    for agenda in database.agendas:
        assert agenda.name.upper() in flat
    for company in database.companies:
        assert company.name.upper() in flat


def test_overflowing_text_fails_naming_card_and_box(tmp_path: Path, pack_copy: Path):
    edit(pack_copy / "templates/layouts/event.yaml", "height: 38mm", "height: 6mm")
    with pytest.raises(InputError) as info:
        build(str(pack_copy), tmp_path / "out", PrintOptions())
    message = str(info.value)
    assert "templates/layouts/event.yaml:" in message and "boxes.text" in message
    assert re.search(r"cards?:? events\.events\[", message) and "does not fit" in message
    assert not (tmp_path / "out").exists()


def test_failed_build_keeps_previous_output(tmp_path: Path, pack_copy: Path, session_build):
    out = tmp_path / "out"
    shutil.copytree(session_build("eti"), out)       # the last good build of this pack
    before = (out / "eti-cards.pdf").read_bytes()
    layout = pack_copy / "templates/layouts/project.yaml"
    layout.write_text(layout.read_text().replace("{{ card.name }}", "{{ card.nmae }}"))
    with pytest.raises(InputError) as info:
        build(str(pack_copy), out, PrintOptions())
    assert "templates/layouts/project.yaml:" in str(info.value) and "nmae" in str(info.value)
    assert (out / "eti-cards.pdf").read_bytes() == before
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]  # no temporary files


def test_yaml_text_is_escaped(tmp_path: Path, pack_copy: Path):
    projects = pack_copy / "cards/projects.yaml"
    text = projects.read_text().replace("name: Synthetic Polymers", 'name: "R&D <Polymers>"', 1)
    projects.write_text(text)
    build(str(pack_copy), tmp_path, PrintOptions())
    flat = page_texts(tmp_path / "eti-cards.pdf")[22]     # research: 11 sheets
    assert "R&D <Polymers>" in flat


@pytest.mark.parametrize("mode", ["a4-long", "letter-short", "a4-none"])
def test_a_secret_deck_never_leaves_a_card_alone_on_a_sheet(built, mode):
    """The endgame deck (secret: true) holds the alien card among the humans' cards:
    its ten cards print 5 + 5, in every duplex mode, never 9 + 1."""
    reader = PdfReader(built[mode])
    outline = next(o for o in reader.outline if o.title.startswith("Endgame cards"))
    first = reader.get_destination_page_number(outline)
    counts = [len(placements(p)) for p in reader.pages[first:first + 4]]
    assert counts == ([5, 5, 5, 5])
    research = next(o for o in reader.outline if o.title.startswith("Research cards"))
    start = reader.get_destination_page_number(research)
    # other decks fill their sheets (the file's first, research, keeps the scale check's slot)
    assert len(placements(reader.pages[start])) == PER_SHEET[mode] - 1
    assert len(placements(reader.pages[start + 2])) == PER_SHEET[mode]


def test_balanced_sheets_differ_by_at_most_one_card():
    from eti_print.render.sheets import balanced
    for n in range(1, 40):
        for size in (1, 4, 9):
            sheets = balanced(list(range(n)), size)
            assert [x for s in sheets for x in s] == list(range(n))
            assert len(sheets) == -(-n // size)
            assert max(map(len, sheets)) - min(map(len, sheets)) <= 1
            assert max(map(len, sheets)) <= size
