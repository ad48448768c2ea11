"""What the printed rules say where the rulebook and the data say it: the memo, the
multiplier, the track cap, an immunity's lifetime, the event types, the alien aid, the
colophon's list of what this edition designed, one (US) spelling, and the table aids."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from eti_print.jobs import Job
from eti_print.options import PrintOptions
from eti_print.pipeline import load_checked as load_context

from conftest import built_name, copy_pack, edit
from pdfcheck import page_texts, pdf_text

ROOT = Path(__file__).resolve().parents[3]
BRITISH = re.compile(r"\b(colou?rs?(?<!color)(?<!colors)|\w*colour\w*|\w*centre\w*|neutralis\w*|"
                     r"\w*favour\w*|\w*armour\w*|organis\w*|recognis\w*|behaviour\w*|"
                     r"\w*labell\w*|cancell\w*|travell\w*|modell\w*|flavour\w*|humour\w*|"
                     r"licence\w*|defence\w*|offence\w*|grey\w*|rasteris\w*|minimis\w*|"
                     r"maximis\w*|optimis\w*|summaris\w*|normalis\w*|realis\w*|"
                     r"manoeuvr\w*|catalogue\w*|programme\w*|judgement\w*)\b", re.IGNORECASE)


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def ctx():
    return load_context(None, PrintOptions())


#: The PDFs of the booklet, the player aids and the boards (the boards job's two).
PRINTED = ("eti-rules-reference.pdf", "eti-player-aids.pdf", "eti-boards.pdf",
           "eti-table-aids.pdf")


@pytest.fixture(scope="module")
def printed(session_build):
    """Each PDF of the booklet, the player aids and the boards, as one line of text (from
    the session's build of the pack)."""
    folder = session_build("eti")
    return {name: flat(" ".join(page_texts(folder / name))) for name in PRINTED}


@pytest.fixture(scope="module")
def table_aids(session_build) -> list[str]:
    """The table aids' two pages (tracker, score pad) after the first sheet, each as one
    line of text."""
    return [flat(t) for t in page_texts(session_build("eti") / "eti-table-aids.pdf")][1:]


@pytest.fixture(scope="module")
def booklet(printed):
    return printed["eti-rules-reference.pdf"]


def test_the_memo_keeps_research_working_and_banks_only_submitted_findings(booklet):
    assert "Findings you submitted go into your data bank" not in booklet
    assert "Keep working. Submitted findings? Add their total to your data bank." in booklet


def test_a_multiplier_hits_the_closest_surviving_numeric_card(printed):
    for name in ("eti-rules-reference.pdf", "eti-player-aids.pdf"):
        assert "closest surviving numeric card" in printed[name], name
    for text in printed.values():
        assert "numeric card before it in the queue" not in text
        assert "nearest surviving number" not in text


def test_the_track_cap_is_printed_on_the_board_and_in_the_booklet(printed, booklet):
    assert "Upgrades beyond the last space are lost." in printed["eti-boards.pdf"]
    assert "upgrades beyond the last space are lost" in booklet


def test_an_immunity_lasts_while_its_upgrade_does(printed, booklet):
    for name, text in printed.items():
        assert "for good" not in text, name
    assert "one from a project’s upgrade is lost with the project" in booklet
    assert "One from a project lasts only while you hold the project." in booklet
    assert "(while the upgrade lasts)" in printed["eti-boards.pdf"]


def test_the_booklet_explains_every_event_type_and_who_keeps_a_held_card(ctx, booklet):
    section = booklet[booklet.index("Event types"):booklet.index("Votes Anyone may")]
    labels = {"immediate": "Immediate", "choice": "President’s choice", "vote": "Vote",
              "held": "Hold this card"}
    for kind in {e.type for e in ctx.model.events}:
        count = sum(1 for e in ctx.model.events if e.type == kind)
        assert f"{labels[kind]} {count} cards" in section, kind
    assert "The president who drew it keeps it" in section
    assert "whoever it is traded to keeps it and may play it" in section


def test_the_alien_aid_says_when_the_invasion_begins(printed):
    aids = printed["eti-player-aids.pdf"]
    assert "the invasion begins the turn after the last project is claimed, if sooner" in aids
    assert "or until the last project is claimed" in printed["eti-boards.pdf"]


def test_the_colophon_lists_what_this_edition_designed(ctx, booklet):
    notes = [(name, what, note) for name, doc in ctx.dataset.docs.items()
             for what, note in (doc.data.get("reconstructed") or {}).items()]
    assert {name for name, _, _ in notes} >= {"game", "traits", "research", "projects",
                                               "fields", "companies", "components"}
    for name, what, note in notes:
        assert flat(f"{name}.yaml: {note}") in booklet, (name, what)
    assert "3 (an alien and two humans) is this edition's choice" in booklet


def test_no_file_claims_the_rulebook_prints_every_number():
    text = (ROOT / "cards/game.yaml").read_text(encoding="utf-8")
    assert "Every number here is printed in the rulebook;" not in text
    assert "except those listed under" in text


def test_printed_text_is_spelled_the_us_way(printed):
    for name, text in printed.items():
        assert not BRITISH.findall(text), (name, BRITISH.findall(text))


def _strings(node):
    if isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)
    elif isinstance(node, str):
        yield node


@pytest.mark.parametrize("pack", ["", "packs/mad-scientists", "packs/sci-tech"])
def test_card_data_and_printed_templates_are_spelled_the_us_way(pack):
    """Every value in the card data (not the keys: `colour:` is a field name) and every
    booklet template's prose."""
    root = ROOT / pack
    found = []
    for path in sorted((root / "cards").glob("*.yaml")):
        for value in _strings(yaml.safe_load(path.read_text(encoding="utf-8"))):
            found += [(path.name, w) for w in BRITISH.findall(value)]
    for path in sorted(root.glob("templates/**/*.j2")):
        prose = re.sub(r"\{[{%#].*?[}%#]\}", " ", path.read_text(encoding="utf-8"),
                       flags=re.DOTALL)
        prose = re.sub(r"<[^>]*>", " ", prose)
        found += [(path.name, w) for w in BRITISH.findall(prose)]
    assert not found


def test_mad_scientists_calls_the_attack_phase_the_fourth():
    ctx = load_context("mad-scientists", PrintOptions())
    text = flat(" ".join(page_texts(Job("documents")(ctx)[0].data)))
    assert "name the fourth phase both “Attack Phase” and “Fire Phase”" in text
    assert "third phase" not in text


# --- the table aids ----------------------------------------------------------

@pytest.mark.parametrize("mode", ["a4-long", "letter-short"])
def test_the_table_aids_are_two_untiled_pages(session_build, mode):
    pdf = session_build("eti", mode) / built_name("eti-table-aids.pdf", "eti", mode)
    pages = page_texts(pdf)
    assert len(pages) == 3                  # the first sheet: the scale check and contents
    cover, tracker, pad = (flat(t) for t in pages)
    assert "25 mm" in cover and "I.S.S.A. project tracker: page 2, 1 sheet" in cover
    assert "I.S.S.A. PROJECT TRACKER" in tracker and "E.T.I. SCORE PAD" in pad
    assert "sheet 1 of" not in tracker + pad      # not tiled


def test_the_tracker_counts_to_the_longest_game_and_tabulates_the_thresholds(ctx, table_aids):
    tracker = table_aids[0]
    low, high = ctx.model.players
    most = high * (max(g.multiplier for g in ctx.model.lengths) + 1)
    assert most == 30
    numbers = [int(n) for n in re.findall(r"\b\d+\b", tracker.split("PROJECTS CLAIMED")[1]
                                          .split("THRESHOLD")[0])]
    assert numbers == list(range(1, most + 1))
    names = " ".join(f"{g.name} ×{g.multiplier}" for g in ctx.model.lengths)
    cells = " ".join(f"{p * g.multiplier} · {p * (g.multiplier + 1)}"
                     for g in ctx.model.lengths for p in range(low, high + 1))
    assert f"{names} {cells}" in tracker
    assert "Standard ×3 Epic ×4 6 · 9 8 · 12 10 · 15 12 · 18 9 · 12" in tracker
    assert "3 TURNS 2 TURNS 1 TURN INVADE" in tracker


def test_the_score_pad_has_a_row_per_company_and_the_rules_bonuses(ctx, table_aids):
    pad = table_aids[1]
    for company in ctx.model.companies:
        assert company.name in pad
    rules = ctx.model.rules
    assert f"+{rules.top_secret_defense} PER TOP SECRET PROJECT" in pad
    assert f"+{rules.public_domain_fame} PER PUBLIC DOMAIN KEPT" in pad


def test_the_countdown_follows_the_eti_track(tmp_path):
    pack = copy_pack(tmp_path / "pack")
    edit(pack / "cards/traits.yaml", '- {value: 3, label: "3 turns"}',
         '- {value: 5, label: "5 turns"}')
    ctx = load_context(str(pack), PrintOptions())
    aids = next(o for o in Job("boards")(ctx) if "table-aids" in o.name)
    assert "5 TURNS 4 TURNS 3 TURNS 2 TURNS 1 TURN INVADE" in flat(pdf_text(aids.data))


def test_the_table_aids_are_in_the_materials_list(ctx, booklet):
    ids = {c.id for c in ctx.model.components}
    assert {"project-tracker", "score-pad"} <= ids
    assert "Project tracker 1" in booklet and "Score pad 1" in booklet
