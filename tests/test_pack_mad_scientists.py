"""The Mad Scientists pack: every chit of the Chit Master List on the counter
sheet with its exact traits and notes, a uniform back, the 8 x 8 board at true
size, and the one-page rules reference."""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader
from pypdf.generic import ContentStream

from eti_print.dataset import load_dataset
from eti_print.pack import Pack
from eti_print.render.tiles import COVER_BLEED
from eti_print.units import inch, mm, paper_size

from conftest import BUILDS, built_name
from pdfcheck import placements

PACK = Path(__file__).resolve().parents[1] / "packs" / "mad-scientists"
MS = "mad-scientists"   # its name in conftest.BUILDS
CHIT = inch(1)
SQUARE = inch(1.25)
TOL = mm(0.01)

# The Chit Master List exactly as the rules print it (one long line, after the
# header "Unit Name: Type Move Range Defense Notes"); the test reads the pack's
# data against it entry by entry.
MASTER_LIST = (
    'Home Base B 0 1 8 Starting Base Super Agents U 3 1 3 Stealth Troops Bionic Men U 3 1'
    ' 3 Troops Mutants U 2 1 3 Troops Cyborgs U 2 1 3 Troops Temporal Stasis Field S - - '
    '- Immobilization Time Machine S - - - Take another Turn Flux Capacitor M - +1 - '
    'Robots U 2 1 4 Clones U 2 1 2 Troops Androids U 2 1 3 Troops Death Ray U 1 3 2 Gun '
    'Force Field M - - +1 Teleportation Pods S - - - Move Unit Anywhere Nuclear Bombs S -'
    ' - - Destroy Unit Neutron Bombs S - - - Destroy Unit Anti-Matter Bombs S - - - '
    'Destroy Unit Gamma Ray Laser U 1 3 2 Gun Power Armor M - - +1 Troops only '
    'Antigravity Pods M +2 - - Force Beams U 1 2 2 Gun Inertia Field M - - +1 Damper '
    'Field M - - +1 Dinosaurs U 3 1 3 Giant Monster U 3 1 4 Damage +1 Zombies U 1 1 3 '
    'Troops Mind Control Device S - - - Take control of Unit Plasma Cannon U 1 2 2 Gun '
    'Damage +1 Alien Technology M +3 - - Atlantean Technology M +1 +1 +1 Thinking Machine'
    ' M - - - Think Shrink Ray U 1 2 2 Immobilization Super Computer M - - - Think Super '
    'Fortress B 0 - 10 Virtual Reality S - - - Immobilization Giant Drill U 4 1 3 Stealth'
    ' Intelligent Dolphins U 2 1 3 Troops Smart Bombs S - - - Destroy Unit Guided Bullets'
    ' M - - - Troops only Damage +1 Eureka! S - - - Draw 2 Chits Psi Beam U 1 5 2 Gun TGC'
    ' U 1 4 2 Gun(Theoretical Gravity Catapult) Childs Play S - - - Draw 2 Chits OOT M +2'
    ' - - (Oscillation Overthruster) Repulsor Field M - - +1 Hallucinogenic Gas S - - - '
    'Immobilization Sleep Gas S - - - Immobilization Hypno Ray S - - - Take control of '
    'Unit Space Station B 1 - 6 Lab Accident S - - - Interrupt Computer Virus S - - - '
    'Interrupt Super Soldiers U 2 1 4 Troops Code Breaker S - - - Negate Special Card '
    'Enigma Machine S - - - Negate Special Card Planned Obsolescence S - - - Destroy '
    'Modifier Power Failure S - - - Immobilization Disembodied Brains M - - - Think '
    'Replicator Machine M - - - Think Perpetl Motn Machine M - - - Gun only Damage +1 '
    'Impossible Machine M - - - Think Better Mousetrap S - - - Destroy Unit Nanobots U 1 '
    '1 4 Stealth & Damage +1 Mechas U 3 2 4 Damage +1 Tissue Regenerator M - - +1 '
    'Temporal Anomaly S - - - Take another Turn Nova Cannon U 1 4 2 Gun Damage +1 Kung Fu'
    ' Disciples U 2 1 3 Troops Underground Base B 0 - 7 Underwater Base B 0 - 7 Steal '
    'Technology S - - - Take control of Unit Time Bomb S - - - Destroy Unit Super '
    'Collider M - +1 - Gun only Fusion Reactor M - - - Gun only Damage +1 Exoskeletons M '
    '+1 - +1 Troops only Corrosion Gas S - - - Destroy Unit'
)

TRAIT = r"(-|\d+|\+\d+)"
ENTRY_TRAITS = re.compile(rf"([BUMS]) {TRAIT} {TRAIT} {TRAIT}")


@pytest.fixture(scope="module")
def chits() -> list[dict]:
    return load_dataset(Pack.open(PACK)).items("chits.chits")


@pytest.fixture(scope="module")
def types() -> dict[str, dict]:
    return {t["id"]: t for t in load_dataset(Pack.open(PACK)).items("types.types")}


@pytest.fixture(scope="module")
def built(session_build) -> dict[str, Path]:
    return {mode: session_build("mad-scientists", mode) for mode in BUILDS["mad-scientists"]}


def printed(chits: list[dict]) -> list[dict]:
    """The chits in print order, each copy once."""
    return [c for c in chits for _ in range(c.get("copies", 1))]


# ---------------------------------------------------------------------------
# The transcription


def test_every_master_list_entry_is_in_the_data_in_order(chits):
    """Walk the master list with the data: each entry's name, type, the three
    traits and the notes are exactly the list's text, and nothing is left over."""
    pos = 0
    for chit in chits:
        name = chit.get("listed_as", chit["name"])
        assert MASTER_LIST.startswith(name + " ", pos), (name, MASTER_LIST[pos:pos + 50])
        pos += len(name) + 1
        m = ENTRY_TRAITS.match(MASTER_LIST, pos)
        assert m is not None, (name, MASTER_LIST[pos:pos + 30])
        assert m.groups() == (chit["type"], chit["move"], chit["range"], chit["defense"]), name
        pos = m.end()
        notes = " ".join(chit.get("notes", []))
        rest = f" {notes}" if notes else ""
        if "full_name" in chit:     # "Gun(Theoretical Gravity Catapult)", " (Oscillation ...)"
            rest += ("(" if notes else " (") + chit["full_name"] + ")"
        assert MASTER_LIST[pos:pos + len(rest)] == rest, (name, MASTER_LIST[pos:pos + 40])
        pos += len(rest)
        if pos < len(MASTER_LIST):
            assert MASTER_LIST[pos] == " ", (name, MASTER_LIST[pos:pos + 40])
            pos += 1
    assert pos == len(MASTER_LIST)
    assert len(chits) == 75


def test_the_entries_the_list_writes_oddly(chits):
    by_name = {c["name"]: c for c in chits}
    assert by_name["TGC"]["full_name"] == "Theoretical Gravity Catapult"
    assert by_name["TGC"]["notes"] == ["Gun"]
    assert by_name["OOT"]["full_name"] == "Oscillation Overthruster"
    assert "notes" not in by_name["OOT"]
    assert by_name["Perpetual Motion Machine"]["listed_as"] == "Perpetl Motn Machine"
    assert by_name["Child's Play"]["listed_as"] == "Childs Play"
    assert by_name["Nanobots"]["notes"] == ["Stealth & Damage +1"]
    assert by_name["Atlantean Technology"]["move"] == "+1"
    # one chit per entry, except the starting Home Base (one per player, two players)
    assert {c["name"]: c.get("copies", 1) for c in chits if c.get("copies", 1) != 1} == \
        {"Home Base": 2}


# ---------------------------------------------------------------------------
# The counter sheet


@pytest.mark.parametrize("key", ["a4-long", "letter-short"])
def test_counter_sheet_holds_every_chit_with_a_uniform_back(built, key, chits):
    reader = PdfReader(built[key] / built_name("mad-scientists-counters.pdf", MS, key))
    # two sheets (70 chits to A4 with 2.5 mm gutters, 63 to Letter): front, back, front, back
    assert len(reader.pages) == 4
    fronts = placements(reader.pages[0]) + placements(reader.pages[2])
    backs = placements(reader.pages[1]) + placements(reader.pages[3])
    assert len(fronts) == len(backs) == len(printed(chits)) == 76
    assert len({form for form, _, _ in backs}) == 1, "every chit must share one back"
    assert len({form for form, _, _ in fronts}) == 75      # the two Home Bases share a face


@pytest.mark.parametrize("key,duplex", [("a4-long", "long"), ("letter-short", "short")])
def test_backs_register_with_fronts_after_the_flip(built, key, duplex):
    reader = PdfReader(built[key] / built_name("mad-scientists-counters.pdf", MS, key))
    paper = paper_size(key.split("-")[0])
    fronts, backs = placements(reader.pages[0]), placements(reader.pages[1])
    for (_, (fx, fy), _), (_, (bx, by), _) in zip(fronts, backs):
        if duplex == "long":
            bx = paper[0] - bx - CHIT
        else:
            by = paper[1] - by - CHIT
        assert abs(fx - bx) <= TOL and abs(fy - by) <= TOL


@pytest.mark.parametrize("key", ["a4-long", "letter-short"])
def test_every_chit_shows_its_name_type_traits_and_notes(built, key, chits, types):
    """Read each chit's own square of the sheet: name and type at the top, notes
    in the middle, Move - Range - Defense (as listed: '-', '+1') along the bottom."""
    path = built[key] / built_name("mad-scientists-counters.pdf", MS, key)
    fronts = placements(PdfReader(path).pages[0])
    page = pdfium.PdfDocument(str(path))[0].get_textpage()
    strip = CHIT * (25.4 - 18.6) / 25.4            # the trait strip of the layout
    for chit, (_, (x, y), _) in zip(printed(chits), fronts):
        whole = " ".join(page.get_text_bounded(x, y, x + CHIT, y + CHIT).split())
        assert whole.startswith(f"{chit['type']} {chit['name'].upper()}"), (chit["name"], whole)
        assert types[chit["type"]]["name"].upper() in whole
        for note in chit.get("notes", []):
            assert note in whole, (chit["name"], note, whole)
        if "full_name" in chit:
            assert chit["full_name"] in whole
        bottom = page.get_text_bounded(x, y, x + CHIT, y + strip).split()
        # pdfium guesses the spaces between the three short values from the whole page
        # (the scale check's note beside the chits sways it: '+2--' for '+2 - -'), so
        # the values are compared in order without its spaces
        assert bottom[:3] == ["MOVE", "RANGE", "DEFENSE"], (chit["name"], bottom)
        assert "".join(bottom[3:]) == chit["move"] + chit["range"] + chit["defense"], \
            (chit["name"], bottom)


def test_whole_sheet_text_names_every_chit_with_its_traits(built, chits):
    """The plain text of the sheet (what a search finds) has every chit."""
    pages = PdfReader(built["a4-long"] / "mad-scientists-counters.pdf").pages
    text = " ".join(" ".join(pages[n].extract_text().split()) for n in (0, 2))   # the fronts
    for chit in chits:
        assert chit["name"].upper() in text, chit["name"]
        assert f"{chit['move']} {chit['range']} {chit['defense']}" in text, chit["name"]


def test_type_colours_are_distinct_and_carry_white_text(types):
    def luminance(hex_colour: str) -> float:
        def channel(v: float) -> float:
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
    colours = [t["colour"] for t in types.values()]
    assert len(set(colours)) == 4 and set(types) == {"B", "U", "M", "S"}
    for colour in colours:
        assert (1.05) / (luminance(colour) + 0.05) >= 4.5, colour


# ---------------------------------------------------------------------------
# The board


def _board_form(reader: PdfReader):
    return reader.pages[1]["/Resources"]["/XObject"]["/FormXob.board0"].get_object()


@pytest.mark.parametrize("key", ["a4-long", "letter-short"])
def test_board_is_eight_by_eight_true_size_squares(built, key):
    """The board's 64 squares are 1.25 in each and fill a 10 x 10 in square."""
    reader = PdfReader(built[key] / built_name("mad-scientists-boards.pdf", MS, key))
    form = _board_form(reader)
    content = ContentStream(form, reader)
    squares = [tuple(float(v) for v in operands) for operands, op in content.operations
               if op == b"re" and abs(float(operands[2]) - SQUARE) < TOL
               and abs(float(operands[3]) - SQUARE) < TOL]
    assert len(squares) == 64
    xs = sorted({round(x, 3) for x, _, _, _ in squares})
    ys = sorted({round(y, 3) for _, y, _, _ in squares})
    assert len(xs) == len(ys) == 8
    for a, b in zip(xs, xs[1:]):
        assert b - a == pytest.approx(SQUARE, abs=TOL)
    width = max(x + w for x, _, w, _ in squares) - min(x for x, _, _, _ in squares)
    height = max(y + h for _, y, _, h in squares) - min(y for _, y, _, _ in squares)
    assert width == pytest.approx(8 * SQUARE, abs=mm(0.1))
    assert height == pytest.approx(8 * SQUARE, abs=mm(0.1))
    assert width == pytest.approx(height, abs=mm(0.1))


@pytest.mark.parametrize("key", ["a4-long", "letter-short"])
def test_board_tiles_reassemble_to_the_whole_board(built, key):
    """Each sheet shows part of the board (clip rect minus the translation of the
    board form); together the parts cover the board and its bleed exactly, and
    neighbours share the declared 10 mm glue strip."""
    reader = PdfReader(built[key] / built_name("mad-scientists-boards.pdf", MS, key))
    form = _board_form(reader)
    x0, y0, x1, y1 = (float(v) for v in form["/BBox"])
    bleed = -x0
    assert x1 - bleed == pytest.approx(8 * SQUARE, abs=mm(0.1))
    assert y1 - bleed == pytest.approx(8 * SQUARE, abs=mm(0.1))
    shown = []
    for page in reader.pages[1:]:          # the first sheet: the scale check
        board = [p for p in placements(page) if p[0] == "/FormXob.board0"]
        assert len(board) == 1
        _, (tx, ty), (cx, cy, cw, ch) = board[0]
        shown.append((cx - tx, cy - ty, cx - tx + cw, cy - ty + ch))
    assert len(shown) >= 2, "a 10 in board does not fit A4 or Letter: it is tiled"
    assert min(s[0] for s in shown) == pytest.approx(-bleed, abs=mm(0.1))
    assert min(s[1] for s in shown) == pytest.approx(-bleed, abs=mm(0.1))
    assert max(s[2] for s in shown) == pytest.approx(8 * SQUARE + bleed, abs=mm(0.1))
    assert max(s[3] for s in shown) == pytest.approx(8 * SQUARE + bleed, abs=mm(0.1))
    # neighbouring parts overlap by the glue strip, and the covering sheet (left)
    # prints COVER_BLEED past its cut
    ordered = sorted(shown)
    for a, b in zip(ordered, ordered[1:]):
        if abs(a[1] - b[1]) < 1e-3:      # same row: side by side
            assert a[2] - b[0] == pytest.approx(mm(10) + COVER_BLEED, abs=mm(0.1))


def test_board_pages_carry_a_page_map(built):
    text = " ".join(" ".join(p.extract_text().split())
                    for p in PdfReader(built["a4-long"] / "mad-scientists-boards.pdf").pages)
    assert "sheet 1 of 2" in text and "sheet 2 of 2" in text and "glue" in text.lower()
    for coordinate in "abcdefgh12345678":
        assert coordinate in text


# ---------------------------------------------------------------------------
# The rules reference


@pytest.mark.parametrize("key", ["a4-long", "letter-short"])
def test_rules_reference_is_one_page_with_every_rule(built, key):
    reader = PdfReader(built[key] / built_name("mad-scientists-rules-reference.pdf", MS, key))
    assert len(reader.pages) == 1
    text = " ".join(reader.pages[0].extract_text().split())
    for phrase in ("Destroy all enemy Bases to win", "Invention.", "Deploy.", "Move.",
                   "Attack (the fire phase)", "2 random chits", "retreat", "Double whammy",
                   "second time in the same phase", "Immobilization", "Interrupt", "Stealth",
                   "Think", "Move – Range – Defense", "non-random", "Bases cannot move"):
        assert phrase in text, phrase
    for name in ("Bases", "Units", "Modifiers", "Specials"):
        assert name in text
