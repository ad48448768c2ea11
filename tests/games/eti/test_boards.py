"""Gameboards: data ports, tiling, the data bank and the printed text, as numbers."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, replace

import pytest
from pypdf import PdfReader

from eti_print.errors import InputError
from eti_print.games.eti.boards import (
    Port,
    bank_reach,
    bank_tokens,
    bank_track,
    clockwise,
    load_board_settings,
    palette,
    port_problems,
)
from eti_print.imposition import EPS, Rect
from eti_print.imposition_tiling import tile
from eti_print.jobs import Job, board_seams
from eti_print.jobs import boards as board_job
from eti_print.jobs.boards import guarded_tiling
from eti_print.layout import Layout
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked as load_context
from eti_print.render.faces import FaceResolver
from eti_print.render.tiles import glue_strips
from eti_print.scope import base_context
from eti_print.units import mm, paper_size, to_points

from conftest import built_name, copy_pack, edit
from pdfcheck import pdf_text

POKER = (mm(63.5), mm(88.9))
PAPERS = ["a4", "letter"]
TOL = mm(0.1)


@pytest.fixture(scope="module")
def ctx():
    return load_context(None, PrintOptions(paper="a4"))


@dataclass(frozen=True)
class Spec:
    """A board as pack.yaml declares it, with the E.T.I. ports of the company board."""

    kind: str
    layout: str
    width: float
    height: float
    bleed: float
    ports: tuple[Port, ...] = ()


@dataclass(frozen=True)
class Settings:
    """The E.T.I. board settings with the tiling and boards of pack.yaml beside them."""

    boards: dict
    margin: float
    overlap: float
    token_slot: float
    token_diameter: float


def board_settings(ctx) -> Settings:
    eti = load_board_settings(ctx.pack)
    boards = {}
    for entry in ctx.dataset.config["boards"]:
        boards[entry["id"]] = Spec(entry["id"], entry["layout"], to_points(entry["width"]),
                                   to_points(entry["height"]), board_job.BOARD_BLEED,
                                   eti.ports if entry["id"] == "company" else ())
    return Settings(boards, board_job.BOARD_MARGIN, board_job.BOARD_OVERLAP, eti.token_slot,
                    eti.token_diameter)


def render_boards(ctx):
    return Job("boards")(ctx)


def resolve_boards(ctx, settings=None):
    return board_job.resolve(ctx)


def board_tiling(settings, spec, paper):
    return tile(spec.width, spec.height, paper[0], paper[1], settings.margin, settings.overlap)


def printed_tiling(ctx, kind, paper):
    """The tiling the build prints: its seams kept off the board's guarded boxes."""
    board = next(b for b in board_seams.boards(ctx) if b.id.startswith(kind))
    return guarded_tiling(board.width, board.height, board.margin, board.overlap, board.boxes,
                          paper)


def check_ports(spec, data_ports, card, where):
    return port_problems(spec.ports, data_ports, card, (spec.width, spec.height), where, None)


@pytest.fixture(scope="module")
def settings(ctx):
    return board_settings(ctx)


#: The session build that prints the boards on each paper.
PAPER_BUILDS = {"a4": "a4-long", "letter": "letter-short"}


@pytest.fixture(scope="module")
def rendered(session_build) -> dict[str, tuple[bytes, dict]]:
    """Each paper's boards PDF as the session's build wrote it, with its manifest entry
    (the output's name, kind, stock, page count and counts)."""
    found = {}
    for paper in PAPERS:
        folder = session_build("eti", PAPER_BUILDS[paper])
        name = built_name("eti-boards.pdf", "eti", PAPER_BUILDS[paper])
        manifest = json.loads(next(folder.glob("eti-manifest*.json")).read_text())
        [entry] = [f for f in manifest["files"] if f["file"] == name]
        found[paper] = ((folder / name).read_bytes(), entry)
    return found


def box_ops(ctx, settings, kind: str, name: str, company=None):
    """The resolved operations of one box of a board layout."""
    spec = settings.boards[kind]
    layout = ctx.layouts.get(spec.layout)
    box = next(b for b in layout.boxes if b.name == name)
    company = company or ctx.dataset.items("companies.companies")[0]
    context = base_context(ctx, f"{kind}-board", company if kind == "company" else None,
                           board=board_job.board_names({}, spec.width, spec.height),
                           company=company)
    resolver = FaceResolver(ctx.env, ctx.fonts, ctx.art, spec.width, spec.height, spec.bleed)
    return resolver.resolve(Layout(layout.name, (box,), layout.source), context, name).ops


# --- data ports ------------------------------------------------------------

def test_fourteen_ports_each_fit_a_poker_card(ctx, settings):
    spec = settings.boards["company"]
    assert len(spec.ports) == ctx.model.data_ports == 14
    assert [p.number for p in spec.ports] == list(range(1, 15))
    for port in spec.ports:
        assert port.w >= POKER[0] and port.h >= POKER[1], port
        # a little margin, not a whole second card
        assert port.w - POKER[0] < mm(6) and port.h - POKER[1] < mm(6)
        assert port.x >= 0 and port.y >= 0
        assert port.x + port.w <= spec.width and port.y + port.h <= spec.height


def test_ports_do_not_overlap_and_their_tabs_stay_clear(settings):
    ports = settings.boards["company"].ports
    for i, a in enumerate(ports):
        for b in ports[i + 1:]:
            assert not a.overlaps(b), (a.number, b.number)
    tabs = [Rect(*p.tab_rect()) for p in ports]
    rects = [Rect(p.x, p.y, p.w, p.h) for p in ports]
    for tab in tabs:
        assert not any(tab.overlaps(r) for r in rects)
    for i, a in enumerate(tabs):
        assert not any(a.overlaps(b) for b in tabs[i + 1:])


def test_ports_run_clockwise_from_the_top_left(settings):
    """Rulebook: "Start at '1' and fill clockwise". Port 1 is the top row's leftmost."""
    spec = settings.boards["company"]
    ports = spec.ports
    assert clockwise(ports, spec.width, spec.height)
    assert not clockwise(tuple(reversed(ports)), spec.width, spec.height)
    top = min(p.y for p in ports)
    top_row = [p for p in ports if abs(p.y - top) < EPS]
    assert ports[0] is min(top_row, key=lambda p: p.x)
    # 1-6 along the top left to right, 7 down the right, 8-13 back along the
    # bottom right to left, 14 up the left side
    assert [p.number for p in sorted(top_row, key=lambda p: p.x)] == [1, 2, 3, 4, 5, 6]
    bottom = max(p.y for p in ports)
    bottom_row = [p for p in ports if abs(p.y - bottom) < EPS]
    assert [p.number for p in sorted(bottom_row, key=lambda p: -p.x)] == [8, 9, 10, 11, 12, 13]
    assert ports[6].x > ports[13].x and ports[6].x + ports[6].w > spec.width / 2


def test_ports_are_drawn_where_the_settings_put_them(ctx, settings):
    spec = settings.boards["company"]
    frames = box_ops(ctx, settings, "company", "port")
    numbers = box_ops(ctx, settings, "company", "port_number")
    assert len(frames) == len(numbers) == 14
    for port, frame, number in zip(spec.ports, frames, numbers):
        assert (frame.x, frame.y) == pytest.approx((port.x, port.y), abs=TOL)
        assert (frame.w, frame.h) == pytest.approx((port.w, port.h), abs=TOL)
        assert number.args[0].text == str(port.number)
        tab = Rect(*port.tab_rect())
        assert tab.contains(Rect(number.x, number.y, number.w, number.h), tol=TOL)


def test_nothing_else_covers_a_port(ctx, settings):
    """Only the port's own boxes (and the board behind them) touch a port."""
    spec = settings.boards["company"]
    layout = ctx.layouts.get(spec.layout)
    own = {"frame", "panel", "port", "port_numeral", "port_caption"}
    ports = [Rect(p.x, p.y, p.w, p.h) for p in spec.ports]
    for box in layout.boxes:
        if box.name in own:
            continue
        for op in box_ops(ctx, settings, "company", box.name):
            r = Rect(op.x, op.y, op.w, op.h)
            for n, port in enumerate(ports, start=1):
                assert not r.overlaps(port, tol=mm(0.05)), (box.name, n)


def test_port_problems_are_reported(settings):
    spec = settings.boards["company"]
    assert check_ports(spec, 14, POKER, "boards.yaml") == []
    missing = check_ports(replace(spec, ports=spec.ports[:13]), 14, POKER, "x")
    assert "the board has 13 data ports, the game 14" in missing[0].message
    small = replace(spec, ports=(replace(spec.ports[0], w=mm(60)),) + spec.ports[1:])
    assert any("does not fit" in p.message for p in check_ports(small, 14, POKER, "x"))
    clash = replace(spec, ports=(replace(spec.ports[0], x=spec.ports[1].x - mm(5)),)
                    + spec.ports[1:])
    assert any("ports 1 and 2 overlap" in p.message
               for p in check_ports(clash, 14, POKER, "x"))
    outside = replace(spec, ports=(replace(spec.ports[0], y=-mm(1)),) + spec.ports[1:])
    assert any("outside" in p.message for p in check_ports(outside, 14, POKER, "x"))


def test_a_bad_board_setting_is_located(tmp_path):
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "templates/boards/boards.yaml", "slot: 14.5mm", "slot: '14.5'")
    with pytest.raises(InputError) as exc:
        load_context(str(pack), PrintOptions())
    assert "templates/boards/boards.yaml:" in str(exc.value) and "no unit" in str(exc.value)


def test_a_bad_board_entry_is_located(tmp_path):
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "pack.yaml", "    width: 360mm", "    width: 360mm\n    overlap: '10'")
    with pytest.raises(InputError) as exc:
        board_job.resolve(load_context(str(pack), PrintOptions()))
    assert "pack.yaml:" in str(exc.value) and "boards[1].overlap" in str(exc.value) \
        and "no unit" in str(exc.value)


def test_missing_board_settings_are_reported(tmp_path):
    pack = copy_pack(tmp_path / "pack")
    (pack / "templates/boards/boards.yaml").unlink()
    with pytest.raises(InputError) as exc:
        load_context(str(pack), PrintOptions())
    assert "file not found: boards.yaml" in str(exc.value)


# --- the data bank ----------------------------------------------------------

def test_bank_track_reaches_what_a_bank_can_hold(database):
    hardest = max(p.difficulty for p in database.projects)
    reach = bank_reach(hardest, database.data_ports, database.rules.safe_value)
    # 390 banked short of the hardest (400) project, then a same-field switch banks 14 ports
    assert reach == hardest - 10 + 14 * 10 == 530
    tens, hundreds = bank_track(reach)
    assert tens == tuple(range(10, 100, 10))
    assert hundreds == (100, 200, 300, 400, 500)
    for total in range(0, reach + 1, 10):
        lit = bank_tokens(total, hundreds)
        assert sum(lit) == total and len(lit) <= 2
        assert all(v in tens or v in hundreds for v in lit)
    assert bank_tokens(230, hundreds) == (200, 30)
    assert bank_tokens(database.rules.scoop_cap, hundreds) == (100,)
    with pytest.raises(ValueError):
        bank_tokens(hundreds[-1] + 100, hundreds)
    with pytest.raises(ValueError):
        bank_tokens(35, hundreds)


def test_bank_lamps_are_printed_with_their_values(ctx, settings):
    db = ctx.model
    _, hundreds = bank_track(bank_reach(max(p.difficulty for p in db.projects), db.data_ports,
                                        db.rules.safe_value))
    assert hundreds[-1] == 500
    labels = [op.args[0].text for op in box_ops(ctx, settings, "company", "bank_hundreds_label")]
    assert labels == [str(h) for h in hundreds]
    lamps = box_ops(ctx, settings, "company", "bank_tens_lamp")
    assert len(lamps) == 9
    for lamp in lamps:
        assert lamp.w == pytest.approx(settings.token_slot)
        assert lamp.w >= settings.token_diameter


# --- tiling -------------------------------------------------------------------

@pytest.mark.parametrize("paper", PAPERS)
@pytest.mark.parametrize("kind", ["company", "alien"])
def test_tiles_overlap_by_the_strip_and_reassemble(ctx, settings, paper, kind):
    spec = settings.boards[kind]
    tiling = printed_tiling(ctx, kind, paper_size(paper))
    pw, ph = tiling.paper
    assert tiling.tiled
    by_page = {t.page: t for t in tiling.tiles}
    for t in tiling.tiles:
        p = t.placed
        assert (p.w, p.h) == pytest.approx((t.area.w, t.area.h), abs=1e-6)
        # inside the printable part of the page
        assert p.x >= settings.margin - EPS and p.y >= settings.margin - EPS
        assert pw - p.right >= settings.margin - EPS and ph - p.top >= settings.margin - EPS
        if t.right is not None:
            overlap = t.area.intersection(by_page[t.right].area)
            assert overlap is not None
            assert overlap.w == pytest.approx(settings.overlap, abs=TOL)
            assert overlap.h == pytest.approx(t.area.h, abs=TOL)
        if t.below is not None:
            overlap = t.area.intersection(by_page[t.below].area)
            assert overlap.h == pytest.approx(settings.overlap, abs=TOL)
    # the tiles' areas cover exactly the board
    xs = sorted({round(v, 6) for t in tiling.tiles for v in (t.area.x, t.area.right)})
    ys = sorted({round(v, 6) for t in tiling.tiles for v in (t.area.y, t.area.top)})
    assert xs[0] == pytest.approx(0, abs=TOL) and xs[-1] == pytest.approx(spec.width, abs=TOL)
    assert ys[0] == pytest.approx(0, abs=TOL) and ys[-1] == pytest.approx(spec.height, abs=TOL)
    # reassembled width: every tile minus one glue strip per seam
    width = sum(t.area.w for t in tiling.tiles if t.row == 0) - (tiling.cols - 1) * \
        settings.overlap
    height = sum(t.area.h for t in tiling.tiles if t.col == 0) - (tiling.rows - 1) * \
        settings.overlap
    assert width == pytest.approx(spec.width, abs=TOL)
    assert height == pytest.approx(spec.height, abs=TOL)
    # every seam has exactly one glue strip, on the later sheet
    strips = [(t.page, side) for t in tiling.tiles for side, _, _ in glue_strips(tiling, t)]
    seams = (tiling.cols - 1) * tiling.rows + (tiling.rows - 1) * tiling.cols
    assert len(strips) == seams


@pytest.mark.parametrize("paper", PAPERS)
def test_board_sheet_counts(ctx, paper):
    """2 x 3 landscape sheets for a company board (the seams down its middle corridor
    and across under and over its rows of ports), 1 x 2 for the alien board."""
    company = printed_tiling(ctx, "company", paper_size(paper))
    alien = printed_tiling(ctx, "alien", paper_size(paper))
    assert (company.rows, company.cols, company.landscape) == (3, 2, True)
    assert (alien.rows, alien.cols) == (1, 2)


def test_a_board_that_fits_one_page_is_not_tiled(settings):
    small = replace(settings.boards["alien"], width=mm(250), height=mm(170))
    tiling = board_tiling(settings, small, paper_size("a4"))
    assert tiling.pages == 1 and not tiling.tiled
    assert glue_strips(tiling, tiling.tiles[0]) == []


# --- the PDF ------------------------------------------------------------------

@pytest.mark.parametrize("paper", PAPERS)
def test_pages_bookmarks_and_metadata(rendered, paper):
    data, out = rendered[paper]
    reader = PdfReader(io.BytesIO(data))
    assert out["file"] == ("eti-boards.pdf" if paper == "a4" else f"eti-boards-{paper}.pdf")
    assert out["kind"] == "boards"
    assert out["print_on"] == "cardstock or heavy paper"
    assert out["counts"] == {"company": 6, "alien": 1}   # boards per pack.yaml entry
    assert len(reader.pages) == out["pages"] == 1 + 6 * 6 + 2     # the scale check's sheet first
    titles = [o.title for o in reader.outline]
    assert len(titles) == 7
    assert titles[0] == "Atlas Dynamics - company gameboard (6 sheets)"
    assert titles[-1] == "Alien gameboard (2 sheets)"
    meta = reader.metadata
    assert meta.title.endswith("- boards") and paper.upper() in meta.subject


def test_every_board_label_is_text(rendered, database):
    text = pdf_text(rendered["a4"][0])
    for trait in database.human_traits + database.alien_traits:
        assert trait.name in text, trait.name
        for space in trait.spaces:
            assert space.label in text, (trait.id, space.label)
    for company in database.companies:
        assert company.name.upper() in text and company.motto in text
    for threat in database.threats:
        assert threat.name.upper() in text
    assert f"+{database.rules.top_secret_defense} defense" in text
    assert f"+{database.rules.public_domain_fame} fame" in text
    assert f"{database.free_upgrades} free upgrades" in text
    for n in range(1, database.data_ports + 1):
        assert f" {n} " in f" {text} "
    for step in ("Alien reveals endgame strategy", "Alien transfers traits to new gameboard",
                 "Humans continue research as normal", "Alien claims any remaining projects",
                 "Alien places and flips/maneuvers attack cards",
                 "Alien adds attack cards from project mashes",
                 "Humans reveal endgame strategies", "Resolve attacks and determine winner"):
        assert step in text, step
    for step in ("ISSA president draws an event card", "Choose and reveal turn agendas",
                 "Conduct research phase", "Submit findings phase",
                 "Any new projects are drawn and selected", "ISSA badge is passed clockwise"):
        assert step in text, step
    for words in ("TOP SECRET VAULT", "PUBLIC DOMAIN VAULT", "DATA BANK", "ALIEN THREATS",
                  "ALIEN TACTICS", "COMPANY LOGO", "THREAT ATTACK CARDS", "VAULT"):
        assert words in text, words
    attack = database.rules.threat_attack
    assert "50 25 25 0" in text and attack.tactic_not_immune == 50
    assert "sheet 2 of 6 - glue to the right of sheet 1" in text


def test_a_changed_trait_track_changes_the_printed_board(tmp_path):
    pack = copy_pack(tmp_path / "pack")
    traits = pack / "cards/traits.yaml"
    edit(traits, '{value: 7, label: "7 cards"}', '{value: 8, label: "8 recruits"}')
    edit(traits, '{value: 30, label: "+30 attack"}', '{value: 35, label: "+35 attack"}')
    out = render_boards(load_context(str(pack), PrintOptions()))[0]
    text = pdf_text(out.data)
    assert "8 recruits" in text and "7 cards" not in text
    assert "+35 attack" in text and "+30 attack" not in text


def test_a_bank_for_harder_projects_grows(tmp_path, ctx):
    pack = copy_pack(tmp_path / "pack")
    projects = pack / "cards/projects.yaml"
    hardest = max(p.difficulty for p in ctx.model.projects)
    edit(projects, f"difficulty: {hardest}", "difficulty: 520")
    local = load_context(str(pack), PrintOptions())
    settings = board_settings(local)
    labels = [op.args[0].text for op in box_ops(local, settings, "company",
                                                "bank_hundreds_label")]
    assert labels == ["100", "200", "300", "400", "500", "600"]   # 520 - 10 + 140 = 650


def test_shared_layers_are_the_same_for_every_company(ctx, settings):
    boards = resolve_boards(ctx, settings)
    companies = [b for b in boards if b.entry == "company"]
    assert len(companies) == 6
    keys = [tuple(layer.shared for layer in b.layers) for b in companies]
    assert all(k == keys[0] for k in keys)
    for layers in zip(*(b.layers for b in companies)):
        if layers[0].shared is not None:
            assert all(layer.face == layers[0].face for layer in layers)


def test_company_colours_keep_text_readable():
    for colour in ("#E3B51C", "#2356B0", "#C62E2E"):
        p = palette(colour)
        assert p["ink"] in ("#1E2430", "#FFFFFF")
    assert palette("#E3B51C")["ink"] == "#1E2430"      # navy on yellow
    assert palette("#2356B0")["ink"] == "#FFFFFF"      # white on blue


def test_the_company_boards_differ_in_their_company_alone() -> None:
    """The boxes of the company boards that never name the company are resolved and
    drawn once for all six: sound only while nothing else their templates see
    changes from board to board (``lookup`` is made anew for each, alike)."""
    ctx = load_context(None, PrintOptions())
    index, entry = next((i, e) for i, e in enumerate(ctx.dataset.config["boards"])
                        if e.get("for_each"))
    setup = board_job.entry_setup(ctx, index, entry)
    contexts = [c for _, c in board_job.each_board(ctx, entry, setup.board)]
    assert len(contexts) == 6 and entry["as"] == "company"
    first = contexts[0]
    for other in contexts[1:]:
        assert set(other) == set(first)
        changed = {k for k in first if other[k] != first[k]}
        assert changed == {"company", "lookup"}
        assert other["lookup"].__code__ is first["lookup"].__code__
        assert [c.cell_contents for c in other["lookup"].__closure__] == \
            [c.cell_contents for c in first["lookup"].__closure__]
    # and the shared names are one object for all six, worked out once
    assert all(c["ports"] is first["ports"] for c in contexts)
