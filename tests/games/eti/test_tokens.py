"""Tokens, the ISSA badge and the logo standees: exact counts, geometry, the PDF."""

from __future__ import annotations

import io
import re
from collections import Counter

import pytest
from pypdf import PdfReader

from eti_print.games.eti import tokens as token_job
from eti_print.games.eti.boards import load_board_settings
from eti_print.games.eti.tokens import (
    Token,
    badge_face,
    piece_sheet,
    standee_faces,
    token_faces,
    token_list,
    token_pages,
)
from eti_print.imposition import grid
from eti_print.layout import Layout
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked as load_context
from eti_print.units import mm, paper_size

from pdfcheck import pdf_text

PAPERS = ["a4", "letter"]


@pytest.fixture(scope="module")
def ctx():
    return load_context(None, PrintOptions(paper="a4"))


@pytest.fixture(scope="module")
def settings(ctx):
    return load_board_settings(ctx.pack)


def render_tokens(ctx):
    return token_job.draw(ctx, token_job.resolve(ctx))


@pytest.fixture(scope="module")
def rendered():
    return {paper: render_tokens(load_context(None, PrintOptions(paper=paper)))[0]
            for paper in PAPERS}


def test_the_materials_list_gives_the_counts(database):
    tokens = token_list(database)
    assert Counter(t.component for t in tokens) == {"green-tokens": 180, "red-tokens": 30}
    assert len(tokens) == 210


@pytest.mark.parametrize("paper", PAPERS)
def test_every_token_is_placed_once_and_colours_start_new_rows(database, settings, paper):
    cell = settings.token_cell
    spec = grid(paper_size(paper), cell, cell, margin=settings.margin)
    tokens = token_list(database)
    pages = token_pages(tokens, spec.cols, spec.rows)
    assert len(pages) == 1        # 210 tokens fit one sheet of A4 or Letter
    placed = [token for page in pages for _, token in page]
    assert Counter(t.component for t in placed) == Counter(t.component for t in tokens)
    for page in pages:
        cells = [i for i, _ in page]
        assert len(cells) == len(set(cells)) and max(cells) < spec.per_sheet
        rows: dict[int, set[str]] = {}
        for i, token in page:
            rows.setdefault(i // spec.cols, set()).add(token.component)
        assert all(len(kinds) == 1 for kinds in rows.values())


def test_token_pages_continue_on_a_new_page():
    tokens = [Token("a", "A")] * 5 + [Token("b", "B")] * 3
    pages = token_pages(tokens, 2, 2)
    assert [[i for i, _ in p] for p in pages] == [[0, 1, 2, 3], [0, 2, 3], [0]]
    assert Counter(t.component for p in pages for _, t in p) == {"a": 5, "b": 3}
    assert token_pages([], 3, 3) == []


def test_tokens_fit_the_spaces_on_the_boards(settings):
    assert settings.token_diameter <= settings.token_slot <= settings.token_cell
    assert settings.token_diameter >= mm(10)      # big enough to pick up


def test_token_face_is_a_disc_inside_its_square(ctx, settings):
    faces = token_faces(ctx, settings)
    assert set(faces) == {"green-tokens", "red-tokens"}
    for face in faces.values():
        assert face.width == face.height == pytest.approx(settings.token_cell)
        disc = next(op for op in face.ops if op.kind == "ellipse")
        assert disc.w == pytest.approx(settings.token_diameter)
        assert disc.x + disc.w / 2 == pytest.approx(face.width / 2)
    assert faces["green-tokens"] != faces["red-tokens"]


def test_standees_two_per_company_with_a_mirrored_back(ctx, settings):
    standees = standee_faces(ctx, settings)
    assert len(standees) == 12
    assert Counter(cid for cid, _ in standees) == {c.id: 2 for c in ctx.model.companies}
    width, panel, foot = settings.standee
    fold = foot + panel
    layout = ctx.layouts.get("standee-company")
    boxes = {b.name: b for b in layout.boxes}
    face = standees[0][1]
    # resolve front and back logos alone to compare their places
    from eti_print.games.eti.boards import palette
    from eti_print.games.eti.tokens import _context, _mm, _resolver
    company = ctx.model.companies[0]
    context = _context(ctx, company={"id": company.id, "name": company.name,
                                     "logo": company.logo, **palette(company.colour)},
                       standee={"width": _mm(width), "panel": _mm(panel), "foot": _mm(foot)})
    resolver = _resolver(ctx, width, 2 * fold)

    def op(name):
        return resolver.resolve(Layout("s", (boxes[name],), "s"), context, name).ops[0]

    front, back = op("front_logo"), op("back_logo")
    assert back.args[2] == 180 and front.args[2] == 0
    assert fold - (back.y + back.h) == pytest.approx(front.y - fold)       # mirrored at the fold
    assert back.x == pytest.approx(front.x)
    folds = sorted(op(n).y for n in ("fold_back_foot", "fold_top", "fold_front_foot"))
    assert folds == pytest.approx([foot, fold, fold + panel])
    assert face.height == pytest.approx(2 * (panel + foot))


def test_badge(ctx, settings):
    face = badge_face(ctx, settings)
    assert face.width == face.height == pytest.approx(settings.badge_diameter)
    texts = [op.args[0].text for op in face.ops if op.kind == "text"]
    assert "I.S.S.A." in texts and "PRESIDENT" in texts
    assert any(op.kind == "art" and op.args[0] == "issa" for op in face.ops)


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
    assert out.name == "eti-tokens.pdf" and out.kind == "tokens" and out.stock == "cardstock"
    assert out.counts == {"green-tokens": 180, "red-tokens": 30, "issa-badge": 1,
                          "company-logos": 12}
    pages = _placements(out.data)
    assert len(pages) == out.pages == 2
    # page 1: two token forms, 180 and 30 times
    assert sorted(pages[0].values()) == [30, 180]
    # page 2: six standee forms twice each, and the badge once
    assert sorted(pages[1].values()) == [1] + [2] * 6
    flat = pdf_text(out.data)
    assert "180 GREEN TOKENS" in flat and "30 RED TOKENS" in flat
    assert "12 COMPANY LOGOS" in flat and "I.S.S.A." in flat and "PRESIDENT" in flat


def test_standee_names_are_text(rendered, database):
    text = pdf_text(rendered["a4"].data)
    for company in database.companies:
        assert company.name.upper() in text


def test_bookmarks_and_metadata(rendered):
    reader = PdfReader(io.BytesIO(rendered["letter"].data))
    titles = [o.title for o in reader.outline]
    assert titles == ["Green tokens (180)", "Red tokens (30)", "Company logos with bases (12)",
                      "ISSA badge (1)"]
    assert reader.metadata.title.endswith("- tokens")
    assert "LETTER" in reader.metadata.subject and "180 green tokens" in reader.metadata.subject


@pytest.mark.parametrize("paper", PAPERS)
def test_pieces_fit_the_page_inside_the_margins(rendered, settings, paper):
    reader = PdfReader(io.BytesIO(rendered[paper].data))
    sizes = [tuple(float(v) for v in p.mediabox[2:]) for p in reader.pages]
    assert sizes == [pytest.approx(paper_size(paper), abs=0.01),
                     pytest.approx(paper_size(paper)[::-1], abs=0.01)]
    landscape = paper_size(paper)[::-1]
    standees, badge = piece_sheet(landscape, settings, 12)
    pieces = [s.trim for s in standees] + [badge[0].trim]
    room = settings.margin + settings.mark_offset + settings.mark_length
    for r in pieces:
        assert r.x >= room and r.y >= room, r
        assert landscape[0] - r.right >= room and landscape[1] - r.top >= room, r
    for i, a in enumerate(pieces):
        assert not any(a.overlaps(b) for b in pieces[i + 1:])
    width, panel, foot = settings.standee
    assert all((s.trim.w, s.trim.h) == pytest.approx((width, 2 * (panel + foot)))
               for s in standees)
    assert (badge[0].trim.w, badge[0].trim.h) == pytest.approx((settings.badge_diameter,) * 2)
