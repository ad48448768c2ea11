"""The staged build: validate runs load, check and resolve, so it fails exactly when build
would; every problem of every output comes in one run; one template context everywhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from eti_print.cli import main
from eti_print.errors import Problem, combine
from eti_print.options import PrintOptions
from eti_print.pipeline import build, validate

from conftest import copy_pack, edit, line_of
from pdfcheck import pdf_text


def failing(pack, capsys, build_too: bool = False) -> list[str]:
    """What ``validate`` prints for a broken pack (exit 1); with ``build_too``, ``build``
    must print exactly the same and write nothing."""
    assert main(["validate", str(pack)]) == 1
    validated = capsys.readouterr().err.splitlines()
    assert not any("Traceback" in line for line in validated)
    if build_too:
        assert main(["build", str(pack), "--out", str(pack.parent / "out")]) == 1
        built = capsys.readouterr().err.splitlines()
        assert built == validated and not (pack.parent / "out").exists()
    return validated


# -- validate = load + check + resolve ---------------------------------------------------

def test_a_bad_unit_in_a_card_layout_fails_validate(tmp_path, capsys):
    pack = copy_pack(tmp_path / "pack")
    layout = pack / "templates/layouts/event.yaml"
    edit(layout, "    size: 14pt", "    size: 14qq")
    lines = failing(pack, capsys)
    line = line_of(layout, "size: 14qq")
    assert lines == [f"templates/layouts/event.yaml:{line}: boxes.title.size: unknown unit 'qq' "
                     "in '14qq' (hint: give a unit: mm, cm, in or pt)",
                     "eti-print: 1 problem found"]


def test_a_layout_typo_is_reported_once_with_the_cards_it_hits(tmp_path, capsys):
    pack = copy_pack(tmp_path / "pack")
    layout = pack / "templates/layouts/event.yaml"
    edit(layout, 'text: "{{ card.title }}"', 'text: "{{ card.titel }}"')
    lines = failing(pack, capsys, build_too=True)
    line = line_of(layout, "card.titel")
    assert lines[0].startswith(f"templates/layouts/event.yaml:{line}: boxes.title.text: 'dict "
                               "object' has no attribute 'titel' in 25 cards: "
                               "events.events[0..24] (hint: names available here: card,")
    assert lines[-1] == "eti-print: 1 problem found"


@pytest.mark.parametrize("missing, expected", [
    ("fonts/fonts.yaml", "fonts.yaml"),
    ("templates/layouts/agenda-back.yaml", "agenda-back"),
    ("templates/boards/boards.yaml", "boards.yaml"),
    ("templates/booklet/glossary.j2", "glossary.j2"),
])
def test_a_missing_resource_fails_validate(tmp_path, capsys, missing, expected):
    pack = copy_pack(tmp_path / "pack")
    (pack / missing).unlink()
    lines = failing(pack, capsys)
    assert any(expected in line for line in lines), lines


@pytest.mark.parametrize("path, old, new, where", [
    # a board layout
    ("templates/layouts/board-alien.yaml", "description: Alien gameboard.",
     "description: Alien gameboard.\nbogus: 1", "templates/layouts/board-alien.yaml:"),
    # a token layout
    ("templates/layouts/token-face.yaml", "width: 3.2mm", "width: 3.2qq",
     "templates/layouts/token-face.yaml:"),
    # a sheet setting
    ("templates/sheets.yaml", "bleed: 3mm", "bleed: 3", "templates/sheets.yaml:"),
    # the booklet's template
    ("templates/booklet/colophon.j2", "{{ pack.slug }}", "{{ pack.slug.nope }}",
     "templates/booklet/colophon.j2:"),
    # a font role a job needs
    ("fonts/fonts.yaml", "label:", "labels:", "fonts/fonts.yaml"),
])
def test_every_kind_of_broken_output_fails_validate_with_its_file(tmp_path, capsys, path, old,
                                                                 new, where):
    pack = copy_pack(tmp_path / "pack")
    edit(pack / path, old, new)
    lines = failing(pack, capsys)
    assert any(line.startswith(where) for line in lines), lines


def test_two_broken_outputs_report_every_problem_in_one_run(tmp_path, capsys):
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "templates/layouts/event.yaml", "    size: 14pt", "    size: 14qq")
    edit(pack / "templates/layouts/token-face.yaml", "width: 3.2mm", "width: 3.2qq")
    edit(pack / "templates/layouts/board-alien.yaml", "description: Alien gameboard.",
         "description: Alien gameboard.\nbogus: 1")
    lines = failing(pack, capsys, build_too=True)
    files = {line.split(":", 1)[0] for line in lines[:-1]}
    assert files == {"templates/layouts/event.yaml", "templates/layouts/token-face.yaml",
                     "templates/layouts/board-alien.yaml"}
    assert re.fullmatch(r"eti-print: \d+ problems found", lines[-1])


def test_validate_summarises_what_build_would_write():
    summary = validate(None)
    assert summary.startswith("E.T.I.: Estimated Time to Invasion: OK - 11 data files, 90 "
                              "research, 40 projects, 25 events, 18 agendas, 10 endgame, "
                              "7 player-aids, 9 boards, 1 document;")
    assert "consistency rules passed" in summary


# -- one template context ------------------------------------------------------------------

BASE_NAMES = ("{{ pack.slug }}|{{ options.paper }}|{{ ink_saver }}|"
              "{{ lookup('fields.fields', 'physics').name }}|{{ data.game.game.title }}")


def test_every_template_sees_the_same_base_names(tmp_path):
    pack = copy_pack(tmp_path / "pack")
    # a token layout, a board layout, a card layout and the booklet
    for layout, _box in (("token-face.yaml", "glint"), ("board-alien.yaml", None),
                        ("endgame-back.yaml", None)):
        path = pack / "templates/layouts" / layout
        text = path.read_text(encoding="utf-8")
        path.write_text(text.rstrip() + "\n  names_probe:\n    type: text\n    x: 1mm\n"
                        "    y: 1mm\n    width: 60mm\n    height: 6mm\n    size: 6pt\n"
                        f"    text: \"{BASE_NAMES}\"\n", encoding="utf-8")
    edit(pack / "templates/booklet/colophon.j2", "<h1 short=\"The game\">",
         f"<p>{BASE_NAMES}</p>\n<h1 short=\"The game\">")
    out = tmp_path / "out"
    build(str(pack), out, PrintOptions(paper="letter", ink_saver=True))
    expected = "eti|letter|True|Physics|"
    for name in ("eti-tokens-letter-ink-saver.pdf", "eti-boards-letter-ink-saver.pdf",
                 "eti-cards-letter-ink-saver.pdf", "eti-rules-reference-letter-ink-saver.pdf"):
        assert expected in pdf_text(out / name), name


# -- problems ----------------------------------------------------------------------------

def test_problems_alike_but_for_their_card_are_merged():
    hit = [Problem("bad", "l.yaml", 3, None, "boxes.x", None, f"card ev.ev[{i}] 'E{i}' (e:1)")
           for i in (0, 1, 2, 5, 7, 8)]
    other = Problem("other", "l.yaml", 9)
    merged = combine(hit + [other, other])
    assert [str(p) for p in merged] == [
        "l.yaml:3: boxes.x: bad in 6 cards: ev.ev[0..2, 5, 7..8]", "l.yaml:9: other"]
    single = combine(hit[:1])
    assert str(single[0]) == "l.yaml:3: boxes.x: card ev.ev[0] 'E0' (e:1): bad"


def test_print_options_check_themselves():
    from eti_print.errors import UsageError
    with pytest.raises(UsageError):
        PrintOptions(paper="a5")
    with pytest.raises(UsageError):
        PrintOptions(duplex="sideways")
    with pytest.raises(UsageError):
        PrintOptions(back_offset=(float("nan"), 0))
    assert PrintOptions(paper="letter").page == (612.0, 792.0)


# ---------------------------------------------------------------------------
# The process's build cache (pipeline.SHARED)


def _pdfs(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.suffix == ".pdf"}


@pytest.mark.cold
@pytest.mark.long
def test_the_shared_cache_gives_what_a_fresh_build_gives_for_a_copy_edited(tmp_path,
                                                                            monkeypatch):
    from eti_print.cache import BuildCache
    cache = BuildCache(workers=1, keep=4)
    original = copy_pack(tmp_path / "original")
    build(str(original), tmp_path / "a", PrintOptions(), cache=cache)
    copy = copy_pack(tmp_path / "copy")
    edit(copy / "cards/events.yaml", "highest filled data port.", "highest occupied data port.")
    build(str(copy), tmp_path / "b", PrintOptions(), cache=cache)
    assert cache.stats.decks_resolved == ["events"]                 # the rest was reused
    build(str(copy), tmp_path / "fresh", PrintOptions(), cache=None)
    assert _pdfs(tmp_path / "b") == _pdfs(tmp_path / "fresh")
    assert _pdfs(tmp_path / "b")["eti-boards.pdf"] == _pdfs(tmp_path / "a")["eti-boards.pdf"]
    # the PDFs' dates come from SOURCE_DATE_EPOCH: another value is another build (of
    # every output; shown on the small pack, its outputs first kept in the same cache)
    small = copy_pack(tmp_path / "small", SCI_TECH)
    build(str(small), tmp_path / "undated", PrintOptions(), cache=cache)
    build(str(small), tmp_path / "undated", PrintOptions(), cache=cache)
    assert cache.stats.outputs_reused and not cache.stats.outputs_rendered
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1234567890")
    build(str(small), tmp_path / "dated", PrintOptions(), cache=cache)
    assert cache.stats.outputs_reused == [] and cache.stats.outputs_rendered
    from pypdf import PdfReader
    for pdf in (tmp_path / "dated").glob("*.pdf"):
        assert PdfReader(pdf).metadata["/CreationDate"].startswith("D:20090213"), pdf.name


@pytest.mark.cold
def test_the_shared_cache_never_hides_a_problem(tmp_path, capsys):
    from eti_print.cache import BuildCache
    cache = BuildCache(workers=1, keep=4)
    pack = copy_pack(tmp_path / "pack", SCI_TECH)           # a small pack: any pack will do
    validate(str(pack), cache=cache)
    edit(pack / "templates/layouts/marker-level-1.yaml", 'fill: "{{ card.colour }}"',
         'fill: "{{ card.colur }}"')
    from eti_print.errors import InputError
    with pytest.raises(InputError, match="colur"):
        validate(str(pack), cache=cache)
    with pytest.raises(InputError, match="colur"):
        build(str(pack), tmp_path / "out", PrintOptions(), cache=cache)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*.pdf"))


# -- the persistent build cache (diskcache.py) ---------------------------------------------

SCI_TECH = Path(__file__).resolve().parents[1] / "packs" / "sci-tech"   # a small pack


def _entries(store) -> list:
    return sorted((store.folder / "builds").rglob("*")) if (store.folder / "builds").exists() \
        else []


@pytest.mark.cold
def test_an_unchanged_pack_is_read_back_from_the_persistent_cache(tmp_path, monkeypatch):
    """A second cold build of an unchanged pack neither loads nor draws anything, and
    writes the bytes a build without the cache writes; a changed file is a new build."""
    from eti_print import pipeline
    from eti_print.diskcache import DiskCache
    store = DiskCache(tmp_path / "cache")
    pack = copy_pack(tmp_path / "pack", SCI_TECH)
    first = build(str(pack), tmp_path / "a", PrintOptions(), cache=None, store=store)
    summary = validate(str(pack), cache=None, store=store)
    assert len([p for p in _entries(store) if p.is_file()]) == 2
    with monkeypatch.context() as m:
        m.setattr(pipeline, "load_checked", lambda *a, **k: pytest.fail("loaded the pack"))
        again = build(str(pack), tmp_path / "b", PrintOptions(), cache=None, store=store)
        assert validate(str(pack), cache=None, store=store) == summary
    assert summary == validate(str(pack), cache=None)
    assert _pdfs(tmp_path / "b") == _pdfs(tmp_path / "a")
    assert (tmp_path / "b" / "sci-tech-manifest.json").read_bytes() == \
        (tmp_path / "a" / "sci-tech-manifest.json").read_bytes()
    assert again.splitlines()[:-1] == first.splitlines()[:-1]     # all but the time
    # other options, or one edited byte, are another build
    build(str(pack), tmp_path / "c", PrintOptions(ink_saver=True), cache=None, store=store)
    assert "sci-tech-markers-ink-saver.pdf" in _pdfs(tmp_path / "c")
    edit(pack / "cards/fields.yaml", "name: Attack", "name: Assault")
    build(str(pack), tmp_path / "d", PrintOptions(), cache=None, store=store)
    build(str(pack), tmp_path / "fresh", PrintOptions(), cache=None)
    assert _pdfs(tmp_path / "d") == _pdfs(tmp_path / "fresh") != _pdfs(tmp_path / "a")


@pytest.mark.cold
def test_a_failure_is_never_kept_and_a_torn_entry_is_a_miss(tmp_path):
    from eti_print.diskcache import DiskCache
    from eti_print.errors import InputError
    store = DiskCache(tmp_path / "cache")
    pack = copy_pack(tmp_path / "pack", SCI_TECH)
    layout = pack / "templates/layouts/marker-level-1.yaml"
    edit(layout, 'fill: "{{ card.colour }}"', 'fill: "{{ card.colur }}"')
    for _ in range(2):
        with pytest.raises(InputError, match="colur"):
            build(str(pack), tmp_path / "out", PrintOptions(), cache=None, store=store)
        with pytest.raises(InputError, match="colur"):
            validate(str(pack), cache=None, store=store)
    assert not [p for p in _entries(store) if p.is_file()]
    edit(layout, 'fill: "{{ card.colur }}"', 'fill: "{{ card.colour }}"')
    build(str(pack), tmp_path / "a", PrintOptions(), cache=None, store=store)
    [entry] = [p for p in _entries(store) if p.is_file()]
    data = entry.read_bytes()
    entry.write_bytes(data[:len(data) // 2])                       # torn
    build(str(pack), tmp_path / "b", PrintOptions(), cache=None, store=store)
    entry.write_bytes(data[:40] + bytes([data[40] ^ 1]) + data[41:])  # one bit altered
    build(str(pack), tmp_path / "c", PrintOptions(), cache=None, store=store)
    assert _pdfs(tmp_path / "a") == _pdfs(tmp_path / "b") == _pdfs(tmp_path / "c")
    assert entry.read_bytes() == data                               # stored again, whole


def test_the_persistent_cache_keeps_within_its_bound(tmp_path):
    from eti_print.diskcache import DiskCache
    store = DiskCache(tmp_path / "cache", max_bytes=2500)
    for n in range(5):
        store.put(f"{n:02d}" + "0" * 62, b"x" * 1000)
    kept = [p.name[:2] for p in _entries(store) if p.is_file()]
    assert sorted(kept) == ["03", "04"]                # the least recently used went
    assert store.get("04" + "0" * 62) == b"x" * 1000 and store.get("00" + "0" * 62) is None


@pytest.mark.cold
def test_no_cache_on_the_command_line_reads_and_writes_no_cache(tmp_path, monkeypatch):
    """--no-cache: no build cache and no compiled templates written; without it the CLI
    build stores its result in the cache folder ($ETI_PRINT_CACHE_DIR)."""
    from eti_print import diskcache
    monkeypatch.setenv("ETI_PRINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ETI_PRINT_BUILD_CACHE")
    monkeypatch.setattr(diskcache, "_enabled", True)
    assert main(["build", "sci-tech", "--no-cache", "-q", "--out", str(tmp_path / "a")]) == 0
    assert not (tmp_path / "cache").exists()
    assert diskcache.enabled()          # off for that command only, not for the process
    assert main(["build", "sci-tech", "-q", "--out", str(tmp_path / "b")]) == 0
    assert len([p for p in (tmp_path / "cache" / "builds").rglob("*") if p.is_file()]) == 1
    assert _pdfs(tmp_path / "a") == _pdfs(tmp_path / "b")


def test_the_cache_key_follows_the_code_of_a_game_plugin(tmp_path, monkeypatch):
    """A game of another distribution (an editable install keeps its version while its
    code changes) is part of the key: an edit to its code is a new build."""
    from eti_print import diskcache
    dist = tmp_path / "site" / "mygame-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "entry_points.txt").write_text("[eti_print.games]\nmine = mygame.game:GAME\n")
    (tmp_path / "site" / "mygame").mkdir()
    (tmp_path / "site" / "mygame" / "game.py").write_text("GAME = None\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(diskcache, "_code_hash", None)
    before = diskcache.code_hash()
    (tmp_path / "site" / "mygame" / "game.py").write_text("GAME = 1\n")
    monkeypatch.setattr(diskcache, "_code_hash", None)
    assert diskcache.code_hash() != before


def test_the_cache_key_does_not_follow_the_folder_python_was_started_from(tmp_path, monkeypatch):
    """``python -m``, ``python -c`` and a profiler put different folders first on sys.path:
    the same code and distributions are the same key, so one run's cache serves the others."""
    from eti_print import diskcache
    monkeypatch.setattr(diskcache, "_code_hash", None)
    before = diskcache.code_hash()
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(diskcache, "_code_hash", None)
    assert diskcache.code_hash() == before
    (tmp_path / "other-2.0.dist-info").mkdir()       # a distribution there is part of it
    monkeypatch.setattr(diskcache, "_code_hash", None)
    assert diskcache.code_hash() != before


def test_resolving_and_drawing_make_no_reference_cycles(tmp_path):
    """pipeline.batch_gc rests the cyclic collector while a build resolves and draws,
    so nothing they make may be garbage that only the collector frees: a deck of any
    size leaves none, and a pack with a rules reference (its document markup parsed
    by the same inline parser) a bounded few, none per card or paragraph."""
    import gc

    from eti_print.newpack import new_pack
    from eti_print.options import PrintOptions
    from eti_print.pipeline import draw, load_checked, resolve

    def garbage(pack: str | None) -> list:
        ctx = load_checked(pack, PrintOptions())
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            draw(ctx, resolve(ctx))
            gc.collect()
            return list(gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()

    pack = tmp_path / "deck"
    new_pack(pack)
    text = ("Draw **one** card.", "Move *one* space, then **stop**.", "Plain words.")

    def deck(first: int) -> str:      # texts no earlier build parsed (nothing cached)
        (pack / "cards" / "deck.yaml").write_text("cards:\n" + "".join(
            f"  - {{title: Card {i}, number: {i}, text: \"{text[i % 3]} ({i})\"}}\n"
            for i in range(first, first + 60)), encoding="utf-8")
        return str(pack)

    garbage(deck(0))                                    # compiling templates may, once
    assert garbage(deck(100)) == []
    reference = str(Path(__file__).resolve().parents[1] / "packs" / "sci-tech")
    garbage(reference)
    assert len(garbage(reference)) < 50
