"""``export png``'s image cache: a face rasterised once per content, read back by later
exports byte for byte, and never a stale or torn image."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pypdfium2 as pdfium
import pytest
from reportlab.lib.colors import CMYKColor, Color

from eti_print.cli import main
from eti_print.export import pod
from eti_print.export.faces import export_decks, faces_pdf
from eti_print.export.imagecache import FaceKeys, ImageCache
from eti_print.export.png import page_png
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked as load_context
from eti_print.render.faces import Face, Op

from conftest import ROOT, copy_pack, edit


def _deck(pack, deck_id):
    ctx = load_context(str(pack) if pack is not None else None, PrintOptions())
    return ctx, [d for d in export_decks(ctx) if d.id == deck_id]


@pytest.fixture(scope="module")
def endgame():
    return _deck(None, "endgame")


def _files(ctx, decks, images=None):
    return [(f.name, f.data) for f in pod.pod_pngs(ctx, decks, images=images)]


def test_an_export_through_the_cache_gives_what_a_fresh_one_gives(endgame, tmp_path):
    ctx, decks = endgame
    fresh = _files(ctx, decks)
    cache = ImageCache(tmp_path)
    assert _files(ctx, decks, cache) == fresh
    assert (cache.made, cache.hits) == (11, 0)          # the deck's 11 distinct faces
    again = ImageCache(tmp_path)
    assert _files(ctx, decks, again) == fresh
    assert (again.made, again.hits) == (0, 11)


def test_workers_writing_into_the_stage_keep_the_images_too(endgame, tmp_path):
    """The export's path (``stage``): the workers keep each new image; a later export
    reads them all back, and the files are those of a fresh export."""
    from eti_print.export.faces import StagedFile
    ctx, decks = endgame
    fresh = _files(ctx, decks)

    def staged(folder, cache):
        folder.mkdir()
        return [(f.name, (folder / f.name[4:]).read_bytes() if isinstance(f, StagedFile)
                 else f.data) for f in pod.pod_pngs(ctx, decks, images=cache, stage=folder)]

    cache = ImageCache(tmp_path / "cache")
    assert staged(tmp_path / "a", cache) == fresh
    assert (cache.made, cache.hits) == (11, 0)
    again = ImageCache(tmp_path / "cache")
    assert staged(tmp_path / "b", again) == fresh
    assert (again.made, again.hits) == (0, 11)


def test_an_edited_card_is_rasterised_again_and_only_it(endgame, tmp_path):
    ctx, decks = endgame
    _files(ctx, decks, ImageCache(tmp_path / "cache"))
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "cards/endgame.yaml", "name: The Diplomat", "name: The Envoy")
    ctx2, decks2 = _deck(pack, "endgame")
    cache = ImageCache(tmp_path / "cache")
    cached = _files(ctx2, decks2, cache)
    assert (cache.made, cache.hits) == (1, 10)
    assert cached == _files(ctx2, decks2)
    assert cached != _files(ctx, decks)


def test_a_torn_or_altered_entry_is_rasterised_again(endgame, tmp_path):
    ctx, decks = endgame
    fresh = _files(ctx, decks, ImageCache(tmp_path))
    entries = sorted((tmp_path / "images").rglob("*"))
    entries = [p for p in entries if p.is_file()]
    assert len(entries) == 11
    data = entries[0].read_bytes()
    entries[0].write_bytes(data[:-1] + bytes([data[-1] ^ 1]))      # one bit altered
    entries[1].write_bytes(entries[1].read_bytes()[:1000])         # torn
    cache = ImageCache(tmp_path)
    assert _files(ctx, decks, cache) == fresh
    assert (cache.made, cache.hits) == (2, 9)


def test_an_image_gone_between_lookup_and_use_is_rasterised_here(endgame, tmp_path,
                                                                monkeypatch):
    """Another export may prune the folder meanwhile: the face is drawn in this process,
    in its place."""
    ctx, decks = endgame
    fresh = _files(ctx, decks, ImageCache(tmp_path))
    cache = ImageCache(tmp_path)
    monkeypatch.setattr(cache, "get", lambda key, size: None)
    assert _files(ctx, decks, cache) == fresh


def test_face_keys_are_the_same_in_another_process(endgame):
    """Keys are content (no hash of text, no address): a new process with another hash
    seed finds every image this one kept."""
    ctx, decks = endgame
    here = [FaceKeys().key(face).hex() for face in pod._plan(decks[0], 1.0).faces]
    code = ("import json\nfrom eti_print.export import pod\n"
            "from eti_print.export.faces import export_decks\n"
            "from eti_print.export.imagecache import FaceKeys\n"
            "from eti_print.options import PrintOptions\n"
            "from eti_print.pipeline import load_checked as load_context\n"
            "ctx = load_context(None, PrintOptions())\n"
            "deck = [d for d in export_decks(ctx) if d.id == 'endgame'][0]\n"
            "print(json.dumps([FaceKeys().key(f).hex() for f in pod._plan(deck, 1.0).faces]))\n")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True).stdout
    assert json.loads(out) == here and len(set(here)) == 11


def test_a_face_key_tells_every_value_apart_and_refuses_unknown_objects():
    def face(*args):
        return Face(63.0, 88.0, 9.0, (Op("rect", 0.0, 0.0, 10.0, 10.0, args),))

    keys = FaceKeys()
    variants = [face(0.1 + 0.2), face(0.3), face(1), face(True), face("1"), face((1,)),
                face([1]), face(Color(1, 0, 0)), face(Color(1, 0, 0, alpha=0.5)),
                face(CMYKColor(0, 1, 1, 0)), face(None)]
    found = [keys.key(v) for v in variants]
    assert None not in found and len(set(found)) == len(found)
    assert keys.key(face(0.1 + 0.2)) == found[0]
    assert keys.key(face(object())) is None       # never looked up: drawn every time
    assert keys.key(face({1, 2})) is None


def test_a_faces_pixels_do_not_depend_on_the_faces_beside_it(endgame):
    """Why a face's image may be kept by its own content: drawn alone or among others
    (other font subsets, another page order), it rasterises to the same bytes.  (Every
    distinct face of E.T.I.'s export, 142 of them, was checked so when the cache was
    made; here one deck.)"""
    ctx, decks = endgame
    deck = decks[0]
    faces = pod._plan(deck, 1.0).faces
    scale = 300 / 72

    def pngs(chosen):
        doc = pdfium.PdfDocument(faces_pdf(chosen, ctx.art, ctx.fonts["body"].regular,
                                           "t", deck.bleed))
        try:
            return [page_png(doc[i], scale, 300)[1] for i in range(len(chosen))]
        finally:
            doc.close()

    together = pngs(list(reversed(faces)))[::-1]
    assert [pngs([f])[0] for f in faces] == together


def test_cli_no_cache_keeps_no_images(tmp_path, monkeypatch):
    from eti_print.newpack import new_pack
    new_pack(tmp_path / "mine")
    monkeypatch.setenv("ETI_PRINT_CACHE_DIR", str(tmp_path / "cache"))
    args = ["export", "png", str(tmp_path / "mine"), "--quiet"]
    assert main(args + ["--out", str(tmp_path / "a"), "--no-cache"]) == 0
    assert not (tmp_path / "cache" / "images").exists()
    assert main(args + ["--out", str(tmp_path / "b")]) == 0
    kept = [p for p in (tmp_path / "cache" / "images").rglob("*") if p.is_file()]
    assert kept
    assert main(args + ["--out", str(tmp_path / "c")]) == 0

    def files(name):
        folder = tmp_path / name
        return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}

    assert files("a") == files("b") == files("c")


def test_the_images_have_a_bound_of_their_own(endgame, tmp_path):
    """Images past their bound go least recently used first, and never push the build
    cache's entries out; a build's pruning leaves the images alone."""
    from eti_print.diskcache import DiskCache
    builds = DiskCache(tmp_path, max_bytes=100_000)
    builds.put("a" * 64, b"x" * 1000)
    ctx, decks = endgame
    fresh = _files(ctx, decks, ImageCache(tmp_path))
    images = [p for p in (tmp_path / "images").rglob("*") if p.is_file()]
    sizes = sum(p.stat().st_size for p in images)
    assert sizes > 100_000                      # more than the build cache's bound
    builds.prune()
    assert len([p for p in (tmp_path / "images").rglob("*") if p.is_file()]) == 11
    small = ImageCache(tmp_path, max_bytes=sizes // 2)
    assert _files(ctx, decks, small) == fresh
    small.prune()
    kept = [p for p in (tmp_path / "images").rglob("*") if p.is_file()]
    assert 0 < len(kept) < 11
    assert sum(p.stat().st_size for p in kept) <= sizes // 2
    assert builds.get("a" * 64) == b"x" * 1000
