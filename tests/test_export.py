"""Exports: print-on-demand PDFs and PNGs, Tabletop Simulator sheets and saved object."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

pdfium = pytest.importorskip("pypdfium2")
Image = pytest.importorskip("PIL.Image")

from eti_print.cli import main
from eti_print.export import (
    POD_BLEED,
    TTS_MAX_CARDS,
    ExportCard,
    ExportDeck,
    export,
    export_decks,
    faces_pdf,
    pixels,
    pod_pngs,
    tts_export,
    tts_grid,
)
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked as load_context

from conftest import edit, line_of

DECK_COUNTS = {"research": 90, "projects": 40, "events": 25, "agendas": 18, "endgame": 10,
               "player-aids": 7}
DECK_ORDER = list(DECK_COUNTS)
#: The pieces and boards after the decks: pieces in pack.yaml order, then boards.
PIECE_COUNTS = {"green-tokens": 90, "red-tokens": 15, "company-logos": 12, "issa-badge": 1,
                "company": 6, "alien": 1, "project-tracker": 1, "score-pad": 1}
NAME = re.compile(r"^eti-(\d\d)-([a-z-]+?)-(\d{3})-(front|back)\.png$")


@pytest.fixture(scope="module")
def ctx():
    return load_context(None, PrintOptions())


@pytest.fixture(scope="module")
def decks(ctx):
    return export_decks(ctx)


@pytest.fixture(scope="session")
def png_dir(shared_folder) -> Path:
    return shared_folder("png-export", lambda out: export("png", None, out)) / "png"


@pytest.fixture(scope="session")
def pdf_export(shared_folder) -> tuple[Path, str, str]:
    """``eti-print export pdf`` of the E.T.I. pack, once: (its folder, stdout, stderr)."""
    def make(out: Path) -> None:
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            assert main(["export", "pdf", "--out", str(out)]) == 0
        (out / "stdout.txt").write_text(stdout.getvalue(), encoding="utf-8")
        (out / "stderr.txt").write_text(stderr.getvalue(), encoding="utf-8")
    out = shared_folder("pdf-export", make)
    return (out, (out / "stdout.txt").read_text(encoding="utf-8"),
            (out / "stderr.txt").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def tts_out(shared_folder) -> Path:
    return shared_folder("tts-export", lambda out: export("tts", None, out))


# -- sizes -------------------------------------------------------------------------


def test_poker_card_with_eighth_inch_bleed_is_825_by_1125_at_300_dpi():
    scale = 300 / 72
    assert (pixels(180 + 2 * POD_BLEED, scale), pixels(252 + 2 * POD_BLEED, scale)) == (825, 1125)
    assert (pixels(180, scale), pixels(252, scale)) == (750, 1050)


def test_decks_resolve_in_pack_order_with_every_copy(decks):
    assert [d.id for d in decks] == DECK_ORDER
    assert {d.id: len(d.cards) for d in decks} == DECK_COUNTS
    assert all(d.size == pytest.approx((180, 252)) for d in decks)
    assert [c.number for c in decks[0].cards] == list(range(1, 91))
    assert decks[1].cards[0].label == "Synthetic Polymers"


# -- PNG for print on demand ---------------------------------------------------------


def _card_pngs(png_dir: Path) -> list[Path]:
    return [p for p in sorted(png_dir.glob("*.png"))
            if NAME.match(p.name) and NAME.match(p.name)[2] in DECK_COUNTS]


def test_png_every_card_side_at_exact_size_rgb_300dpi(png_dir):
    files = _card_pngs(png_dir)
    assert len(files) == 2 * sum(DECK_COUNTS.values())
    for path in files:
        with Image.open(path) as image:
            assert image.size == (825, 1125), path.name
            assert image.mode == "RGB", path.name
            assert round(image.info["dpi"][0]) == 300


def test_png_names_sort_in_deck_then_card_order(png_dir):
    names = sorted(p.name for p in png_dir.glob("*.png"))
    parsed = [NAME.match(n) for n in names]
    assert all(parsed), [n for n, m in zip(names, parsed) if not m]
    order = [(int(m[1]), int(m[3]), m[4]) for m in parsed]
    assert order == sorted(order)
    decks = [m[2] for m in parsed]
    assert list(dict.fromkeys(decks)) == DECK_ORDER + list(PIECE_COUNTS)
    for number, deck in enumerate(DECK_ORDER, start=1):
        cards = sorted({int(m[3]) for m in parsed if m[2] == deck and int(m[1]) == number})
        assert cards == list(range(1, DECK_COUNTS[deck] + 1))


def test_png_copies_are_identical_and_indexed(png_dir):
    rows = [r for r in csv.DictReader((png_dir / "index.csv").open(encoding="utf-8"))
            if r["deck"] in DECK_COUNTS]
    assert len(rows) == 2 * sum(DECK_COUNTS.values())
    for row in rows:
        assert hashlib.sha256((png_dir / row["file"]).read_bytes()).hexdigest() == row["sha256"]
        assert (row["width_px"], row["height_px"]) == ("825", "1125")
    research_fronts = [r for r in rows if r["deck"] == "research" and r["side"] == "front"]
    assert len({r["sha256"] for r in research_fronts}) == 12     # 12 kinds of research card
    tens = [r for r in research_fronts if r["label"] == "number 10"]
    assert len(tens) == 16 and {r["copies"] for r in tens} == {"16"}
    assert sorted(int(r["copy"]) for r in tens) == list(range(1, 17))
    backs = {r["sha256"] for r in rows if r["deck"] == "research" and r["side"] == "back"}
    assert len(backs) == 1
    assert "825 x 1125 px" in (png_dir / "README.txt").read_text()


def test_png_bleed_is_artwork_not_white(png_dir):
    with Image.open(png_dir / "eti-02-projects-001-front.png") as image:
        band = image.crop((0, 0, 825, 37)).convert("L")     # the top 1/8 in
        assert band.getextrema()[1] < 200                    # field colour to the edge


def test_png_rendering_is_deterministic(ctx, decks):
    endgame = [d for d in decks if d.id == "endgame"]
    first = list(pod_pngs(ctx, endgame))
    second = list(pod_pngs(ctx, endgame))
    assert [(f.name, f.data) for f in first] == [(f.name, f.data) for f in second]


def test_png_workers_make_the_files_one_process_makes(ctx, decks, monkeypatch):
    from eti_print.export import pod
    chosen = [d for d in decks if d.id in ("endgame", "agendas")]
    monkeypatch.setattr(pod, "CHUNK", 4)              # several chunks a deck, out of step
    forked = [(f.name, f.data) for f in pod_pngs(ctx, chosen)]
    monkeypatch.setattr(pod, "MAX_WORKERS", 1)
    alone = [(f.name, f.data) for f in pod_pngs(ctx, chosen)]
    assert forked == alone
    assert len(forked) == 2 * (18 + 10) + 2            # fronts and backs, index, README


def _staged_export(ctx, chosen, folder, images=None):
    """``pod_pngs`` with the workers writing into ``folder``: every file's name and bytes,
    read back from the folder for the files a worker wrote."""
    from eti_print.export.faces import StagedFile
    folder.mkdir(exist_ok=True)
    found, staged = [], 0
    for f in pod_pngs(ctx, chosen, stage=folder, images=images):
        if isinstance(f, StagedFile):
            data = (folder / f.name[4:]).read_bytes()
            assert len(data) == f.size
            staged += 1
        else:
            data = f.data
        found.append((f.name, data))
    return found, staged


def test_png_workers_writing_into_the_stage_make_the_files_handed_back(ctx, decks, tmp_path,
                                                                      monkeypatch):
    """The export's own path: the workers write each face's files themselves and only
    sizes and digests come back; the files, index.csv included, are the same bytes."""
    from eti_print.export import pod
    chosen = [d for d in decks if d.id in ("endgame", "agendas")]
    monkeypatch.setattr(pod, "CHUNK", 4)
    handed = [(f.name, f.data) for f in pod_pngs(ctx, chosen)]
    written, staged = _staged_export(ctx, chosen, tmp_path / "forked")
    assert written == handed and staged == 2 * (18 + 10)
    monkeypatch.setattr(pod, "MAX_WORKERS", 1)
    assert _staged_export(ctx, chosen, tmp_path / "alone")[0] == handed


def test_a_write_failing_in_a_worker_names_the_file(ctx, decks, tmp_path, monkeypatch):
    from eti_print.errors import EtiError
    from eti_print.export import pod
    monkeypatch.setattr(pod, "CHUNK", 4)              # three chunks: in forked workers
    endgame = [d for d in decks if d.id == "endgame"]
    stage = tmp_path / "stage"
    (stage / "eti-05-endgame-003-front.png").mkdir(parents=True)    # a folder in the way
    with pytest.raises(EtiError) as caught:
        _staged_export(ctx, endgame, stage)
    assert "eti-05-endgame-003-front.png" in str(caught.value)
    assert "cannot write" in str(caught.value)


def test_stale_pngs_of_the_pack_are_removed(tmp_path, ctx, decks):
    from eti_print.export.staging import StagedExport
    (tmp_path / "png").mkdir()
    (tmp_path / "png" / "eti-09-gone-001-front.png").write_bytes(b"old")
    (tmp_path / "png" / "my-notes.png").write_bytes(b"keep")
    endgame = [d for d in decks if d.id == "endgame"]
    with StagedExport(tmp_path, "png", "eti") as staged:
        for f in pod_pngs(ctx, endgame):
            staged.add(f.name[4:], f.data)
        staged.commit()
    assert not (tmp_path / "png" / "eti-09-gone-001-front.png").exists()
    assert (tmp_path / "png" / "my-notes.png").read_bytes() == b"keep"
    assert (tmp_path / "png" / "eti-05-endgame-010-back.png").exists()


# -- per-card PDF ------------------------------------------------------------------


def test_pdf_export_one_page_per_card_side_with_trim_and_bleed_boxes(pdf_export):
    from pypdf import PdfReader
    out, _, _ = pdf_export
    files = sorted(p.name for p in (out / "pdf").glob("*.pdf"))
    assert files == [f"eti-{i:02d}-{d}.pdf"
                     for i, d in enumerate(DECK_ORDER + list(PIECE_COUNTS), start=1)]
    reader = PdfReader(out / "pdf" / "eti-01-research.pdf")
    assert len(reader.pages) == 180
    for page in reader.pages[:4]:
        assert [float(v) for v in page.mediabox] == [0, 0, 198, 270]
        assert [float(v) for v in page.trimbox] == [9, 9, 189, 261]
        assert [float(v) for v in page.bleedbox] == [0, 0, 198, 270]


def test_faces_pdf_draws_each_distinct_face_once(ctx, decks):
    research = decks[0]
    pages = [face for card in research.cards for face in (card.front, card.back)]
    data = faces_pdf(pages, ctx.art, ctx.fonts["body"].regular, "t", POD_BLEED)
    # 180 pages, 12 distinct fronts and one back: 13 face forms
    assert len(set(re.findall(rb"/FormXob\.face\d+", data))) == 13
    assert data == faces_pdf(pages, ctx.art, ctx.fonts["body"].regular, "t", POD_BLEED)


# -- Tabletop Simulator -------------------------------------------------------------


def _path(url: str) -> Path:
    parsed = urlparse(url)
    assert parsed.scheme == "file", url
    return Path(unquote(parsed.path))


def test_tts_grid_limits():
    assert tts_grid(69) == (10, 7)
    assert tts_grid(12) == (10, 2)
    assert tts_grid(1) == (2, 2)
    assert tts_grid(8) == (9, 2)
    with pytest.raises(ValueError):
        tts_grid(70)


def test_tts_saved_object_imports_every_deck_with_existing_images(tts_out):
    save = json.loads((tts_out / "tts" / "eti-tts.json").read_text(encoding="utf-8"))
    objects = save["ObjectStates"][:len(DECK_ORDER)]
    assert [o["Nickname"] for o in objects] == ["Research cards", "Project cards", "Event cards",
                                               "Agenda cards", "Endgame cards", "Player aids"]
    for obj, deck in zip(objects, DECK_ORDER):
        assert obj["Name"] == "DeckCustom"
        assert len(obj["DeckIDs"]) == len(obj["ContainedObjects"]) == DECK_COUNTS[deck]
        assert [c["CardID"] for c in obj["ContainedObjects"]] == obj["DeckIDs"]
        for key, custom in obj["CustomDeck"].items():
            cols, rows = custom["NumWidth"], custom["NumHeight"]
            assert 2 <= cols <= 10 and 2 <= rows <= 7
            assert custom["BackIsHidden"] is True
            for url in (custom["FaceURL"], custom["BackURL"]):
                path = _path(url)
                assert path.is_file(), url
                with Image.open(path) as image:
                    assert image.mode == "RGB"
                    assert max(image.size) <= 4096
            with Image.open(_path(custom["FaceURL"])) as faces:
                assert faces.size[0] % cols == 0 and faces.size[1] % rows == 0
                cell = (faces.size[0] // cols, faces.size[1] // rows)
                assert cell[1] / cell[0] == pytest.approx(3.5 / 2.5, abs=0.01)
            if custom["UniqueBack"]:
                with Image.open(_path(custom["BackURL"])) as backs:
                    assert backs.size == faces.size
            cells = {c % 100 for c in obj["DeckIDs"] if c // 100 == int(key)}
            assert max(cells) < cols * rows - 1          # never the hidden-card cell
            assert len(cells) <= 69
        for card in obj["ContainedObjects"]:
            assert card["Name"] == "Card"
            assert str(card["CardID"] // 100) in card["CustomDeck"]
    unique = {o["Nickname"]: any(c["UniqueBack"] for c in o["CustomDeck"].values())
              for o in objects}
    assert unique == {"Research cards": False, "Project cards": True, "Event cards": False,
                      "Agenda cards": True, "Endgame cards": False,
                      "Player aids": True}
    note = (tts_out / "tts" / "README.txt").read_text()
    assert "file:///" in note and "--base-url" in note and "upload" in note


def test_tts_research_copies_share_cells(tts_out):
    save = json.loads((tts_out / "tts" / "eti-tts.json").read_text(encoding="utf-8"))
    research = save["ObjectStates"][0]
    assert len(research["DeckIDs"]) == 90
    assert len(set(research["DeckIDs"])) == 12
    custom = research["CustomDeck"]["1"]
    assert (custom["NumWidth"], custom["NumHeight"]) == (10, 2)


@pytest.mark.long
def test_tts_export_is_deterministic(tmp_path, tts_out):
    """A second export, in a fresh folder, writes the session's export byte for byte (the
    saved object's file:/// image URLs name each one's own folder)."""
    export("tts", None, tmp_path)

    def files(out: Path) -> dict[str, bytes]:
        found = {p.name: p.read_bytes() for p in (out / "tts").iterdir()}
        save = found["eti-tts.json"]
        assert (out / "tts").resolve().as_uri().encode() in save
        found["eti-tts.json"] = save.replace((out / "tts").resolve().as_uri().encode(), b"OUT")
        return found
    assert files(tts_out) == files(tmp_path)


def test_tts_base_url(ctx, decks, tmp_path):
    files = list(tts_export(ctx, decks[2:3], tmp_path, base_url="https://example.org/eti/"))
    save = json.loads(next(f for f in files if f.name.endswith(".json")).data)
    custom = save["ObjectStates"][0]["CustomDeck"]["1"]
    assert custom["FaceURL"] == "https://example.org/eti/eti-03-events-faces-1.jpg"
    assert custom["BackURL"] == "https://example.org/eti/eti-03-events-back.jpg"


def test_tts_more_than_69_distinct_cards_use_several_sheets(ctx, decks, tmp_path):
    from reportlab.lib.colors import Color

    from eti_print.render.faces import Face, Op
    base = decks[2].cards[0].back

    def face(i: int) -> Face:
        fill = Color((i % 10) / 10, (i // 10) / 10, 0.5)
        return Face(180.0, 252.0, POD_BLEED,
                    (Op("rect", -9, -9, 198, 270, (fill, None, 0.5, 0, True, ())),))

    cards = tuple(ExportCard(i + 1, f"card {i}", face(i), base) for i in range(75))
    big = ExportDeck(1, "big", "Big deck", "eti-01-big", (180.0, 252.0), cards)
    files = list(tts_export(ctx, [big], tmp_path, fmt="png"))
    names = sorted(f.name for f in files)
    assert "tts/eti-01-big-faces-1.png" in names and "tts/eti-01-big-faces-2.png" in names
    save = json.loads(next(f for f in files if f.name.endswith(".json")).data)
    obj = save["ObjectStates"][0]
    assert sorted(obj["CustomDeck"]) == ["1", "2"]
    assert (obj["CustomDeck"]["1"]["NumWidth"], obj["CustomDeck"]["1"]["NumHeight"]) == (10, 7)
    assert len(obj["DeckIDs"]) == 75
    assert sum(1 for c in obj["DeckIDs"] if c // 100 == 1) == TTS_MAX_CARDS
    sheet = next(f for f in files if f.name == "tts/eti-01-big-faces-1.png")
    with Image.open(io.BytesIO(sheet.data)) as image:
        assert image.size == (4090, 4011) and image.mode == "RGB"


# -- command line --------------------------------------------------------------------


def test_cli_export_reports_progress_and_quiet_is_silent(pdf_export, tmp_path, capsys):
    _, out, err = pdf_export
    assert "rendering pdf/eti-01-research.pdf" in err
    assert "wrote 14 files" in out
    # -q: the same command prints nothing (on ``eti-print new``'s one deck: smaller)
    from eti_print.newpack import new_pack
    new_pack(tmp_path / "mine")
    assert main(["export", "pdf", str(tmp_path / "mine"), "--out", str(tmp_path / "out"),
                 "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    assert (tmp_path / "out" / "pdf" / "mine-01-cards.pdf").exists()


def test_cli_export_bad_command_line_exits_2(capsys):
    assert main(["export", "gif"]) == 2
    assert main(["export", "png", "--format", "png"]) == 2
    assert main(["export", "tts", "--base-url", "not a url"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_cli_export_bad_data_exits_1_with_location_and_writes_nothing(pack_copy, tmp_path,
                                                                       capsys):
    edit(pack_copy / "cards/events.yaml", "type: immediate", "type: sometimes")
    line = line_of(pack_copy / "cards/events.yaml", "type: sometimes")
    assert main(["export", "tts", str(pack_copy), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert f"cards/events.yaml:{line}:" in err and "Traceback" not in err
    assert not (tmp_path / "out" / "tts").exists()
