"""The rules reference booklet and player aids: content from the data, numbers from the engine."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pypdf import PdfReader

from eti_print.errors import InputError
from eti_print.games.eti import engine
from eti_print.imposition_booklet import (
    back_rotated,
    padded_count,
    saddle_stitch_order,
    sheet_sides,
    two_up,
)
from eti_print.jobs import Job
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked as load_context
from eti_print.units import mm

from conftest import copy_pack, edit, line_of
from pdfcheck import page_texts, pdf_text

BOOKLET = "eti-rules-reference.pdf"


def render_booklet(ctx):
    """The rules reference (a document) and the player aids (a deck of their own PDF)."""
    aids = [o for o in Job("decks")(ctx) if "player-aids" in o.name]
    return Job("documents")(ctx) + aids


def outputs(ctx):
    return {o.name: o for o in render_booklet(ctx)}


def documents(ctx):
    """The rules reference alone (and any other document): no deck is drawn."""
    return {o.name: o for o in Job("documents")(ctx)}


def pages_text(data: bytes) -> list[str]:
    """Each page's text, whitespace collapsed, line-break hyphens rejoined."""
    return [re.sub(r"(?<=\w-) (?=\w)", "", text) for text in page_texts(data)]


@pytest.fixture(scope="module")
def ctx():
    return load_context(None, PrintOptions())


@pytest.fixture(scope="module")
def rendered(ctx):
    return outputs(ctx)


@pytest.fixture(scope="module")
def text(rendered):
    return pages_text(rendered[BOOKLET].data)


@pytest.fixture(scope="module")
def alltext(text):
    return " ".join(text)


# ---------------------------------------------------------------------------
# Saddle-stitch order


@pytest.mark.parametrize("n, expected", [
    (4, [(4, 1), (2, 3)]),
    (8, [(8, 1), (2, 7), (6, 3), (4, 5)]),
    (12, [(12, 1), (2, 11), (10, 3), (4, 9), (8, 5), (6, 7)]),
    (16, [(16, 1), (2, 15), (14, 3), (4, 13), (12, 5), (6, 11), (10, 7), (8, 9)]),
    (6, [(None, 1), (2, None), (6, 3), (4, 5)]),
    (1, [(None, 1), (None, None)]),
])
def test_saddle_stitch_order(n, expected):
    assert saddle_stitch_order(n) == expected


@given(st.integers(min_value=1, max_value=200))
def test_saddle_stitch_order_properties(n):
    sides = saddle_stitch_order(n)
    m = padded_count(n)
    assert m % 4 == 0 and n <= m < n + 4
    assert len(sides) == m // 2
    pages = [p for side in sides for p in side if p is not None]
    assert sorted(pages) == list(range(1, n + 1))
    # padding: the same order as a full booklet of m pages, with the extra pages blank
    full = saddle_stitch_order(m)
    assert sides == [tuple(p if p <= n else None for p in side) for side in full]
    for i, (left, right) in enumerate(full):
        assert left + right == m + 1           # facing pages once folded
        assert (right % 2 == 1) if i % 2 == 0 else (left % 2 == 0)


def test_saddle_stitch_rejects_no_pages():
    with pytest.raises(ValueError):
        saddle_stitch_order(0)


def test_sheet_sides_per_duplex_mode():
    long = sheet_sides(8, "long")
    assert [(s.left, s.right, s.back, s.rotated) for s in long] == [
        (8, 1, False, False), (2, 7, True, True), (6, 3, False, False), (4, 5, True, True)]
    assert not any(s.rotated for s in sheet_sides(8, "short"))
    none = sheet_sides(8, "none")
    assert [s.back for s in none] == [False, False, True, True]
    assert back_rotated("long") and not back_rotated("short")
    with pytest.raises(ValueError):
        back_rotated("sideways")


def test_two_up_centres_the_pair():
    (lx, ly), (rx, ry) = two_up((mm(297), mm(210)), (mm(148), mm(210)))
    assert lx == pytest.approx(mm(0.5)) and rx == pytest.approx(mm(148.5)) and ly == ry == 0
    with pytest.raises(ValueError):
        two_up((mm(210), mm(297)), (mm(148), mm(210)))


# ---------------------------------------------------------------------------
# Content


def test_outputs(rendered):
    booklet = rendered[BOOKLET]
    assert booklet.kind == "booklet" and booklet.stock == "paper"
    assert booklet.pages == len(PdfReader(io.BytesIO(booklet.data)).pages) >= 20
    assert booklet.counts == {}
    aids = rendered["eti-player-aids.pdf"]
    assert aids.stock == "cardstock"
    assert aids.counts == {"player-aids": 7}   # six turn summaries and the invasion summary
    reader = PdfReader(io.BytesIO(aids.data))
    assert len(reader.pages) == aids.pages == 2      # seven aids fit one sheet, plus backs
    aid_text = pdf_text(aids.data)
    for company in ("Atlas Dynamics", "Borealis Chemical", "Cobalt Instruments",
                    "Delta Electronics", "Eagle Aerospace", "Fulcrum Laboratories"):
        assert aid_text.count(company) >= 2          # front and back
    assert "TURN SUMMARY" in aid_text and "Invasion Summary" in aid_text


def test_a5_pages(rendered):
    for page in PdfReader(io.BytesIO(rendered[BOOKLET].data)).pages:
        assert float(page.mediabox.width) == pytest.approx(mm(148), abs=0.01)
        assert float(page.mediabox.height) == pytest.approx(mm(210), abs=0.01)


def test_every_project_event_and_card_is_listed(ctx, alltext):
    db = ctx.model
    for p in db.projects:
        assert p.name in alltext, p.name
    for e in db.events:
        assert e.title in alltext, e.title
    for e in db.endgame:
        assert e.name in alltext, e.name
    for c in db.components:
        assert c.name in alltext, c.name
    for t in db.human_traits + db.alien_traits:
        for space in t.spaces:
            assert space.label in alltext, (t.id, space.label)
    for a in db.agendas:
        assert a.name in alltext


def test_project_rows_carry_their_numbers(ctx, alltext):
    for p in ctx.model.projects:
        assert re.search(rf"{re.escape(p.name)} {p.difficulty} {p.defense} {p.fame}\b", alltext), \
            p.name


def test_deck_composition_counts_and_shares(ctx, alltext):
    total = sum(e.count for e in ctx.model.research)
    for e in ctx.model.research:
        assert f"{e.count} {100 * e.count / total:.1f} %" in alltext


def test_attack_table_comes_from_the_rules(ctx, alltext):
    ta = ctx.model.rules.threat_attack
    assert (f"Company not immune {ta.tactic_not_immune} {ta.plain_not_immune} "
            f"Company immune {ta.tactic_immune} {ta.plain_immune}") in alltext


def _formula(tokens: str, immune=()) -> engine.Score:
    return engine.score(engine.parse_queue(tokens.split()), immune)


def _moved(tokens: str, port: int, to: int) -> str:
    cards = tokens.split()
    card = cards.pop(port - 1)
    cards.insert(to - 1, card)
    return " ".join(cards)


@pytest.mark.parametrize("tokens, move, best_swaps", [
    ("arson 50 20 x0 30 spy", (2, 1), 1),
    ("10 data-virus x2 40 20 x3", (4, 2), 2),
])
def test_worked_examples_print_the_engines_totals(alltext, tokens, move, best_swaps):
    before = _formula(tokens)
    after = _formula(_moved(tokens, *move))
    for score in (before, after):
        shown = score.formula().replace(" x ", " × ")
        assert f"Research total: {shown}" in alltext
    best = engine.best_order(engine.parse_queue(tokens.split()), best_swaps)
    assert best.total == after.total
    assert f"the best that {'one' if best_swaps == 1 else 'two'} swap" in alltext
    # the rulebook's own figures, as a cross-check of the queues
    assert {(before.total, after.total)} <= {(30, 50), (80, 250)}


def test_immunity_example(alltext):
    score = _formula("arson 50 20 x0 30 spy", ["arson"])
    assert score.ignored == (0,) and score.total == 80
    assert f"Research total: {score.formula().replace(' x ', ' × ')}." in alltext


def test_invasion_example_prints_the_engines_results(ctx, alltext):
    db = ctx.model
    base = db.trait("brutality").value(1)
    todd = engine.attack(engine.parse_queue("x0 abduction spy 50 10".split()),
                         ["spy", "abduction"], ["spy"], base, db.rules)
    angie = engine.attack(engine.parse_queue("x2 spy".split()), [], ["spy"], base, db.rules)
    line = " + ".join(str(step.value) for step in todd.lines)
    assert f"{line} + {base} (brutality) = {todd.total}" in alltext
    assert f"= {angie.total} against" in alltext
    assert (todd.total, angie.total) == (100, 75)
    assert "Todd wins the game." in alltext


def test_data_bank_examples(ctx, alltext):
    r = ctx.model.rules
    assert f"50 90 {engine.bank_findings(50, 90)} {engine.scooped(140, 0, r)}" in alltext
    assert f"70 50 {engine.switch(70, 5, r)} {engine.scooped(70, 5, r)}" in alltext
    for difficulty in (180, 230, 300):
        assert f"In another field {difficulty} {engine.carry_over(150, difficulty, False)}" \
            in alltext
    assert f"In the same field 230 {engine.carry_over(150, 230, True)}" in alltext


def test_issa_memo_flowchart(text):
    page = next(t for t in text[2:] if "I.S.S.A. Internal Memorandum A732.3 / Omega Level "
                "Clearance / 11/05/65 - 14:05:08" in t)
    for label in ("CHOOSE YOUR AGENDA!", "Conduct Research", "Submit Findings",
                  "Switch Projects", "You got scooped.", "You claim the project!", "YES", "NO"):
        assert label in page


def test_contents_page_numbers_match_the_sections(rendered, text):
    contents = text[1]
    assert contents.startswith("E.T.I.") and "Contents" in contents
    reader = PdfReader(io.BytesIO(rendered[BOOKLET].data))
    outline = []

    def walk(items):
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                outline.append((item["/Title"], reader.get_destination_page_number(item) + 1))
    walk(reader.outline)
    entries = [entry for entry in outline if entry[0] != "Contents"]
    assert len(entries) >= 20
    # the contents list exactly the outline's sections, with the same page numbers
    assert contents.endswith(" ".join(f"{title} {page}" for title, page in entries))
    for title, page in entries:
        assert title in text[page - 1], (title, page)
        # and the page carries that number in its footer
        assert re.search(rf"(^|\s){page}(\s|$)", text[page - 1])


def test_pdfs_render_cleanly(rendered, tmp_path):
    """poppler reads every page without complaint, plain and imposed."""
    import shutil
    import subprocess
    if shutil.which("pdftoppm") is None:
        pytest.skip("pdftoppm not installed")
    imposed = documents(load_context(None, PrintOptions(booklet=True)))[BOOKLET]
    for name, data in (("plain", rendered[BOOKLET].data), ("imposed", imposed.data),
                       ("aids", rendered["eti-player-aids.pdf"].data)):
        pdf = tmp_path / f"{name}.pdf"
        pdf.write_bytes(data)
        run = subprocess.run(["pdftoppm", "-r", "12", "-png", str(pdf), str(tmp_path / name)],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and run.stderr == "", (name, run.stderr)


# ---------------------------------------------------------------------------
# Following the data


def test_a_project_change_changes_the_tables(tmp_path, alltext):
    root = copy_pack(tmp_path / "pack")
    edit(root / "cards/projects.yaml", "    difficulty: 70\n    defense: 10\n    fame: 10",
         "    difficulty: 90\n    defense: 20\n    fame: 10")
    ctx = load_context(str(root), PrintOptions())
    changed = " ".join(pages_text(documents(ctx)[BOOKLET].data))
    assert "Synthetic Polymers 70 10 10" in alltext
    assert "Synthetic Polymers 90 20 10" in changed
    assert "Synthetic Polymers 70 10 10" not in changed


def test_a_renamed_event_is_escaped_not_interpreted(tmp_path):
    root = copy_pack(tmp_path / "pack")
    edit(root / "cards/events.yaml", "title: The Great Blackout",
         """title: 'Blackout <b>&</b> <img src="/etc/x"/>'""")
    ctx = load_context(str(root), PrintOptions())
    text = " ".join(pages_text(documents(ctx)[BOOKLET].data))
    assert 'Blackout <b>&</b> <img src="/etc/x"/>' in text


def test_template_errors_name_the_file_and_line(tmp_path):
    root = copy_pack(tmp_path / "pack")
    glossary = root / "templates/booklet/glossary.j2"
    edit(glossary, "<tr><td><b>Mash</b></td>", "<tr><td><blink>Mash</blink></td>")
    ctx = load_context(str(root), PrintOptions())
    with pytest.raises(InputError) as info:
        documents(ctx)
    line = line_of(glossary, "<blink>")
    assert str(info.value).startswith(f"templates/booklet/glossary.j2:{line}:")
    assert "<blink> is not allowed" in str(info.value)


def test_jinja_errors_name_the_file_and_line(tmp_path):
    root = copy_pack(tmp_path / "pack")
    setup = root / "templates/booklet/setup.j2"
    edit(setup, "{{ db.free_upgrades }}", "{{ db.no_such_thing }}")
    ctx = load_context(str(root), PrintOptions())
    with pytest.raises(InputError) as info:
        documents(ctx)
    assert str(info.value).startswith(f"templates/booklet/setup.j2:{line_of(setup, 'no_such')}:")


def test_booklet_option_imposes_on_landscape_sheets(tmp_path):
    for paper, size in (("a4", (842, 595)), ("letter", (792, 612))):
        ctx = load_context(None, PrintOptions(paper=paper, booklet=True))
        out = documents(ctx)[ctx.output_name("rules-reference")]
        reader = PdfReader(io.BytesIO(out.data))
        assert out.pages == len(reader.pages) == padded_count(out.counts["booklet pages"]) // 2
        for page in reader.pages:
            assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == size
        first = " ".join(reader.pages[0].extract_text().split())
        assert "Rules Reference" in first            # the cover is on the first side


def test_cli_booklet_flag(tmp_path):
    from eti_print.cli import main
    assert main(["build", "--booklet", "--quiet", "--out", str(tmp_path)]) == 0
    reader = PdfReader(tmp_path / BOOKLET)
    box = reader.pages[0].mediabox
    assert float(box.width) > float(box.height)
    assert (tmp_path / "eti-player-aids.pdf").exists()


def test_templates_cannot_reach_the_file_system(tmp_path):
    root = copy_pack(tmp_path / "pack")
    edit(root / "templates/booklet/setup.j2", "{{ db.free_upgrades }}",
         "{{ db.dataset.pack.root }}")
    ctx = load_context(str(root), PrintOptions())
    with pytest.raises(InputError) as info:
        documents(ctx)
    assert str(info.value).startswith("templates/booklet/setup.j2:")


def test_letter_pages_are_half_letter():
    ctx = load_context(None, PrintOptions(paper="letter"))
    reader = PdfReader(io.BytesIO(documents(ctx)["eti-rules-reference-letter.pdf"].data))
    assert (round(float(reader.pages[0].mediabox.width)),
            round(float(reader.pages[0].mediabox.height))) == (396, 612)
