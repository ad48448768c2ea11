"""E.T.I.'s tokens, ISSA badge and logo standees through the generic pieces job:
exact counts against the materials list, geometry, the PDF."""

from __future__ import annotations

import io
import re
from collections import Counter

import pytest
from pypdf import PdfReader

from eti_print.games.eti.boards import load_board_settings
from eti_print.jobs import pieces as piece_job
from eti_print.layout import Layout
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked as load_context
from eti_print.render.faces import FaceResolver
from eti_print.scope import base_context
from eti_print.units import mm, paper_size

from conftest import copy_pack, edit, problems
from pdfcheck import pdf_text

PAPERS = ["a4", "letter"]


@pytest.fixture(scope="module")
def ctx():
    return load_context(None, PrintOptions(paper="a4"))


@pytest.fixture(scope="module")
def settings(ctx):
    return load_board_settings(ctx.pack)


@pytest.fixture(scope="module")
def plans():
    out = {}
    for paper in PAPERS:
        c = load_context(None, PrintOptions(paper=paper))
        out[paper] = (c, piece_job.resolve(c))
    return out


@pytest.fixture(scope="module")
def rendered(plans):
    return {paper: piece_job.draw(c, plan)[0] for paper, (c, plan) in plans.items()}


def groups(plan):
    return {g.id: g for sheet in plan for g in sheet.groups}


def test_the_materials_list_gives_the_counts(plans, database):
    found = groups(plans["a4"][1])
    expected = {c.id: c.count for c in database.components
                if c.kind in ("token", "badge", "standee")}
    assert {k: len(g.faces) for k, g in found.items()} == expected
    assert expected == {"green-tokens": 180, "red-tokens": 30, "company-logos": 12,
                        "issa-badge": 1}


@pytest.mark.parametrize("paper", PAPERS)
def test_every_token_is_placed_once_and_colours_start_new_rows(plans, paper):
    (sheet,) = plans[paper][1]
    grid_pages = [p for p in sheet.pages if p.grid is not None]
    # 210 tokens with cut-tolerant gutters between them: two sheets of A4 or Letter
    assert len(grid_pages) == 2
    placed: Counter = Counter()
    for page in grid_pages:
        cells = [i for i, _ in page.cells]
        assert len(cells) == len(set(cells)) and max(cells) < page.grid.per_sheet
        rows: dict[int, set[str]] = {}
        for i, group in page.cells:
            rows.setdefault(i // page.grid.cols, set()).add(group.id)
        assert all(len(kinds) == 1 for kinds in rows.values())
        placed.update(g.id for _, g in page.cells)
    assert placed == {"green-tokens": 180, "red-tokens": 30}


def test_tokens_fit_the_spaces_on_the_boards(settings):
    assert settings.token_diameter <= settings.token_slot <= settings.token_cell
    assert settings.token_diameter >= mm(10)      # big enough to pick up


def test_token_face_is_a_disc_inside_its_square(plans, settings):
    found = groups(plans["a4"][1])
    green, red = found["green-tokens"].faces[0], found["red-tokens"].faces[0]
    for face in (green, red):
        assert face.width == face.height == pytest.approx(settings.token_cell)
        disc = next(op for op in face.ops if op.kind == "ellipse")
        assert disc.w == pytest.approx(settings.token_diameter)
        assert disc.x + disc.w / 2 == pytest.approx(face.width / 2)
    assert green != red
    assert len({f.key for f in found["green-tokens"].faces}) == 1   # copies share one face


def test_standees_two_per_company_with_a_mirrored_back(ctx, plans, settings):
    standees = groups(plans["a4"][1])["company-logos"].faces
    assert len(standees) == 12 and len({f.key for f in standees}) == 6
    width, panel, foot = settings.standee
    fold = foot + panel
    boxes = {b.name: b for b in ctx.layouts.get("standee-company").boxes}
    company = ctx.dataset.items("companies.companies")[0]
    context = base_context(ctx, "pieces", company, piece=company, company=company)
    resolver = FaceResolver(ctx.env, ctx.fonts, ctx.art, width, 2 * fold, piece_job.SEAM)

    def op(name):
        return resolver.resolve(Layout("s", (boxes[name],), "s"), context, name).ops[0]

    front, back = op("front_logo"), op("back_logo")
    assert back.args[2] == 180 and front.args[2] == 0
    assert fold - (back.y + back.h) == pytest.approx(front.y - fold)       # mirrored at the fold
    assert back.x == pytest.approx(front.x)
    folds = sorted(op(n).y for n in ("fold_back_foot", "fold_top", "fold_front_foot"))
    assert folds == pytest.approx([foot, fold, fold + panel])
    assert standees[0].height == pytest.approx(2 * (panel + foot))


def test_badge(plans, settings):
    (face,) = groups(plans["a4"][1])["issa-badge"].faces
    assert face.width == face.height == pytest.approx(settings.badge_diameter)
    texts = [op.args[0].text for op in face.ops if op.kind == "text"]
    assert "I.S.S.A." in texts and "PRESIDENT" in texts
    assert any(op.kind == "art" and op.args[0] == "issa" for op in face.ops)


def test_the_materials_list_and_the_pieces_must_agree(tmp_path):
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "pack.yaml", "    copies: 2\n", "    copies: 3\n")
    edit(pack / "cards/components.yaml", "count: 30\n", "count: 31\n")
    found = problems(pack)
    assert any("pieces 'company-logos' print 18; the materials list says 12" in p
               and p.startswith("pack.yaml:") for p in found), found
    assert not any("red-tokens" in p for p in found), found
    (pack / "pack.yaml").write_text((pack / "pack.yaml").read_text().replace(
        "  - id: issa-badge\n", "  - id: presidents-badge\n"))
    found = problems(pack)
    assert any(p.startswith("cards/components.yaml:") and "1 issa badges and no pieces: entry"
               in p for p in found), found


def _placements(data: bytes) -> list[Counter]:
    """Per page, how often each form is drawn."""
    reader = PdfReader(io.BytesIO(data))
    out = []
    for page in reader.pages:
        content = page.get_contents().get_data().decode("latin-1")
        out.append(Counter(re.findall(r"/(FormXob\.\w+) Do", content)))
    return out


@pytest.mark.parametrize("paper", PAPERS)
def test_pdf_draws_exact_counts(rendered, paper):
    out = rendered[paper]
    assert out.name == ("eti-tokens.pdf" if paper == "a4" else f"eti-tokens-{paper}.pdf")
    assert out.kind == "pieces" and out.stock == "cardstock"
    assert out.counts == {"green-tokens": 180, "red-tokens": 30, "issa-badge": 1,
                          "company-logos": 12}
    pages = _placements(out.data)
    assert len(pages) == out.pages == 3
    # pages 1 and 2: two token forms, 180 and 30 times in all
    tokens: Counter = Counter()
    for page in pages[:2]:
        tokens.update(page)
    assert sorted(tokens.values()) == [30, 180]
    # page 3: six standee forms twice each, and the badge once
    assert sorted(pages[2].values()) == [1] + [2] * 6
    flat = pdf_text(out.data)
    # each sheet's note counts what it holds: the green tokens run onto the second sheet
    assert sum(int(n) for n in re.findall(r"(\d+) GREEN TOKENS", flat)) == 180
    assert "30 RED TOKENS" in flat
    assert "12 COMPANY LOGOS" in flat and "I.S.S.A." in flat and "PRESIDENT" in flat


def test_standee_names_are_text(rendered, database):
    text = pdf_text(rendered["a4"].data)
    for company in database.companies:
        assert company.name.upper() in text


def test_bookmarks_and_metadata(rendered):
    reader = PdfReader(io.BytesIO(rendered["letter"].data))
    titles = [o.title for o in reader.outline]
    assert titles == ["Green tokens (180)", "Red tokens (30)", "Company logos (12)",
                      "ISSA badge (1)"]
    assert reader.metadata.title.endswith("- tokens")
    assert "LETTER" in reader.metadata.subject and "180 Green tokens" in reader.metadata.subject


@pytest.mark.parametrize("paper", PAPERS)
def test_pieces_fit_the_page_inside_the_margins(rendered, plans, settings, paper):
    reader = PdfReader(io.BytesIO(rendered[paper].data))
    sizes = [tuple(float(v) for v in p.mediabox[2:]) for p in reader.pages]
    assert sizes == [pytest.approx(paper_size(paper), abs=0.01)] * 2 + \
                    [pytest.approx(paper_size(paper)[::-1], abs=0.01)]
    landscape = paper_size(paper)[::-1]
    (sheet,) = plans[paper][1]
    blocks = sheet.pages[2].blocks
    standees = blocks[0].slots
    badge = blocks[1].slots
    pieces = [s.trim for s in standees] + [badge[0].trim]
    room = piece_job.PIECE_MARGIN
    for r in pieces:
        assert r.x >= room and r.y >= room, r
        assert landscape[0] - r.right >= room and landscape[1] - r.top >= room, r
    for i, a in enumerate(pieces):
        assert not any(a.overlaps(b) for b in pieces[i + 1:])
    width, panel, foot = settings.standee
    assert all((s.trim.w, s.trim.h) == pytest.approx((width, 2 * (panel + foot)))
               for s in standees)
    assert (badge[0].trim.w, badge[0].trim.h) == pytest.approx((settings.badge_diameter,) * 2)
