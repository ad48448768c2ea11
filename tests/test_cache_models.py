"""The build cache is sound whatever a game's model is: a plain dict model, whose
values reach the cards only through a template global, gets what a fresh build
makes after every edit (``tracking.model_view``)."""

from __future__ import annotations

import hashlib
import random
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from eti_print.cache import BuildCache
from eti_print.games import Game, register
from eti_print.options import PrintOptions
from eti_print.pipeline import build
from eti_print.watch import rebuild

from conftest import ROOT, edit

SUITS = Path(__file__).resolve().parent / "packs" / "suits"


class Suits(Game):
    """A game whose model is a plain dict built from the data it is given."""

    name = "suits"

    def model(self, dataset):
        return {"suits": {s["id"]: s["name"] for s in dataset.items("suits.suits")}}

    def template_globals(self, ctx):
        return {"suit_names": ctx.model["suits"]}


@pytest.fixture
def suits_pack(tmp_path: Path) -> Path:
    register(Suits())
    dest = tmp_path / "suits"
    shutil.copytree(SUITS, dest)
    shutil.copytree(ROOT / "fonts", dest / "fonts")
    return dest


def _pdfs(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.iterdir()) if p.suffix == ".pdf"}


def _text(pdf: Path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(pdf).pages)


def test_a_renamed_suit_is_printed_after_a_cached_rebuild(suits_pack, tmp_path):
    cache = BuildCache(workers=1)
    out = tmp_path / "out"
    assert rebuild(str(suits_pack), out, PrintOptions(), cache).ok
    assert "Hearts" in _text(out / "suits-cards.pdf")
    edit(suits_pack / "cards" / "suits.yaml", "Hearts", "Cups")
    report = rebuild(str(suits_pack), out, PrintOptions(), cache)
    assert report.ok and report.rendered
    text = _text(out / "suits-cards.pdf")
    assert "Cups" in text and "Hearts" not in text


def test_random_edits_through_the_cache_are_fresh_builds_byte_for_byte(suits_pack, tmp_path):
    """Seeded random edits of the model's data, the cards' data and a layout, each rebuilt
    through one cache and compared with a build without a cache."""
    rng = random.Random(36)
    cache = BuildCache(workers=1)
    out = tmp_path / "out"
    assert rebuild(str(suits_pack), out, PrintOptions(), cache).ok
    names = {"suits.yaml": ["Hearts", "Spades", "Clubs"], "cards.yaml": ["First", "Second"]}
    for step in range(8):
        which = rng.choice(["suits.yaml", "cards.yaml", "layout"])
        if which == "layout":
            path = suits_pack / "templates" / "layouts" / "card.yaml"
            old = "size: 16pt" if "size: 16pt" in path.read_text() else "size: 15pt"
            edit(path, old, "size: 15pt" if old == "size: 16pt" else "size: 16pt")
        else:
            current = names[which]
            n = rng.randrange(len(current))
            new = f"{current[n][:5]}x{step}"
            edit(suits_pack / "cards" / which, current[n], new)
            current[n] = new
        report = rebuild(str(suits_pack), out, PrintOptions(), cache)
        assert report.ok, report.problems
        fresh = tmp_path / f"fresh{step}"
        build(str(suits_pack), fresh, PrintOptions(), cache=None)
        assert _pdfs(out) == _pdfs(fresh), f"stale after editing {which} (step {step})"
