"""The component manifest written with every build: hashes, pages, stock, counts, totals."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from eti_print.manifest import data_hash, manifest
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked as load_context

DECKS = {"research": 90, "projects": 40, "events": 25, "agendas": 18, "endgame": 10}


@pytest.fixture(scope="module")
def built(session_build) -> tuple[Path, dict]:
    out = session_build("eti", "letter-short-offset")
    return out, json.loads((out / "eti-manifest-letter.json").read_text(encoding="utf-8"))


def test_manifest_hashes_sizes_and_pages_match_the_files(built):
    from pypdf import PdfReader
    out, body = built
    listed = {f["file"] for f in body["files"]}
    on_disk = {p.name for p in out.iterdir()} - {"eti-manifest-letter.json"}
    assert listed == on_disk
    for f in body["files"]:
        data = (out / f["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == f["sha256"], f["file"]
        assert len(data) == f["bytes"]
        assert len(PdfReader(out / f["file"]).pages) == f["pages"], f["file"]


def test_manifest_counts_per_deck_and_totals(built):
    _, body = built
    assert {k: v["cards"] for k, v in body["decks"].items()} == {**DECKS, "player-aids": 7}
    assert body["decks"]["player-aids"]["file"] == "eti-player-aids-letter.pdf"
    assert {v["file"] for v in body["decks"].values()} == {"eti-cards-letter.pdf",
                                                           "eti-player-aids-letter.pdf"}
    cards = next(f for f in body["files"] if f["file"] == "eti-cards-letter.pdf")
    assert cards["counts"] == DECKS and cards["print_on"] == "cardstock"
    totals = body["totals"]
    assert totals["cards"] == 183 + 7     # the game's cards and the player aids
    assert totals["files"] == len(body["files"])
    assert totals["pages"] == sum(f["pages"] for f in body["files"])
    assert totals["bytes"] == sum(f["bytes"] for f in body["files"])
    assert sum(totals["pages_by_stock"].values()) == totals["pages"]


def test_manifest_says_what_to_print_on_cardstock(built):
    _, body = built
    cardstock = body["stock"]["cardstock"]
    assert "eti-cards-letter.pdf" in cardstock["files"]
    assert cardstock["pages"] == sum(f["pages"] for f in body["files"]
                                     if f["print_on"] == "cardstock")
    every = [name for entry in body["stock"].values() for name in entry["files"]]
    assert sorted(every) == sorted(f["file"] for f in body["files"])


def test_manifest_records_print_options_and_data_hash(built):
    _, body = built
    assert body["options"] == {"paper": "letter", "duplex": "short",
                               "back_offset_mm": [0.5, -1.0], "ink_saver": False,
                               "booklet": False}
    assert body["print"]["paper"] == "LETTER"
    assert "short edge" in body["print"]["card sheets"]
    assert "100 %" in body["print"]["scale"]
    ctx = load_context(None, PrintOptions())
    assert body["data_sha256"] == data_hash(ctx.dataset)
    assert body["slug"] == "eti" and body["generator"].startswith("eti-print ")


def test_manifest_is_deterministic(session_build):
    """A render in this test makes the very manifest the session's build wrote."""
    ctx = load_context(None, PrintOptions())
    from eti_print.pipeline import render as render_all
    outputs = render_all(ctx)
    assert manifest(ctx, outputs) == (session_build("eti") / "eti-manifest.json").read_bytes()


def test_data_hash_changes_with_the_data(pack_copy):
    from conftest import edit
    before = data_hash(load_context(str(pack_copy), PrintOptions()).dataset)
    edit(pack_copy / "cards/events.yaml", "highest filled data port.", "highest data port.")
    assert data_hash(load_context(str(pack_copy), PrintOptions()).dataset) != before


def test_data_hash_never_reads_a_fifo_or_a_file_over_every_cap(pack_copy):
    """A FIFO under templates/ would hang a reader and a 3 GB sparse file exhaust its
    memory: the hash opens neither (the FIFO is skipped; the big file counts by size)."""
    import os
    ctx = load_context(str(pack_copy), PrintOptions())
    before = data_hash(ctx.dataset)
    os.mkfifo(pack_copy / "templates/pipe")
    assert data_hash(ctx.dataset) == before
    with open(pack_copy / "templates/huge.bin", "wb") as handle:
        handle.truncate(3 * 1024 ** 3)
    grown = data_hash(ctx.dataset)
    assert grown != before
    with open(pack_copy / "templates/huge.bin", "r+b") as handle:
        handle.truncate(3 * 1024 ** 3 + 1)
    assert data_hash(ctx.dataset) != grown


def test_within_one_build_each_file_is_digested_once(pack_copy):
    """``files.digests_kept``: the resources' key, the global key and the data hash of one
    build read each file once; the first digest stands for the build, and the next build
    reads the file again."""
    from eti_print.dataset import load_dataset
    from eti_print.files import digests_kept
    from eti_print.pack import Pack
    ds = load_dataset(Pack.open(str(pack_copy)), checks=False)
    before = data_hash(ds)
    font = next((pack_copy / "fonts").glob("*.ttf"))
    with digests_kept():
        assert data_hash(ds) == before
        font.write_bytes(font.read_bytes() + b"\0")       # changed while the build runs
        assert data_hash(ds) == before
        with digests_kept():                              # a nested block: the same one
            assert data_hash(ds) == before
    after = data_hash(ds)
    assert after != before
    with digests_kept():
        assert data_hash(ds) == after
