"""Each consistency rule fires, at the right place, on a broken copy of the data."""

from pathlib import Path


from eti_print.games.eti.checks import RULES

from conftest import edit, line_of, problems


def test_shipped_database_passes_every_rule(database):
    assert len(database.projects) == 40
    assert len(RULES) >= 10


def test_project_grid_second_project_in_a_cell(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "name: Solid Rocket Propellants\n    field: chemistry\n    level: II",
         "name: Solid Rocket Propellants\n    field: chemistry\n    level: I")
    found = problems(pack_copy)
    line = line_of(f, "name: Solid Rocket Propellants") + 2
    assert (f"cards/projects.yaml:{line}:12: projects[1].level: a second level I chemistry "
            f"project (the first is 'Synthetic Polymers')") in found
    assert any("no level II project in Chemistry" in p for p in found)


def test_difficulty_must_rise_with_level(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "level: II\n    difficulty: 130", "level: II\n    difficulty: 60")
    line = line_of(f, "difficulty: 60")
    assert (f"cards/projects.yaml:{line}:17: projects[1].difficulty: difficulty 60 must be "
            f"above level I's 70 (Synthetic Polymers)") in problems(pack_copy)


def test_difficulty_multiple_of_ten(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "difficulty: 70", "difficulty: 75")
    assert any("projects[0].difficulty: difficulty must be a multiple of 10 (got 75)" in p
               for p in problems(pack_copy))


def test_agenda_set_incomplete(pack_copy: Path):
    f = pack_copy / "cards/agendas.yaml"
    edit(f, "{company: atlas-dynamics, agenda: switch-projects}",
         "{company: atlas-dynamics, agenda: submit-findings}")
    found = problems(pack_copy)
    assert any("Atlas Dynamics has 0 'switch-projects' cards; expected 1" in p for p in found)
    assert any("Atlas Dynamics has 2 'submit-findings' cards; expected 1" in p for p in found)


def test_alien_ufo_counts(pack_copy: Path):
    f = pack_copy / "cards/endgame.yaml"
    edit(f, "ufos: 4", "ufos: 3")
    found = problems(pack_copy)
    assert any("UFO counts must be 1 to 4, once each (got 1, 2, 3, 3)" in p for p in found)


def test_research_card_listed_twice(pack_copy: Path):
    f = pack_copy / "cards/research.yaml"
    edit(f, "{kind: number, value: 50, count: 4}", "{kind: number, value: 40, count: 4}")
    found = problems(pack_copy)
    assert any("40 is listed twice; give one entry a count instead" in p for p in found)


def test_research_multiplier_values(pack_copy: Path):
    f = pack_copy / "cards/research.yaml"
    edit(f, "{kind: multiplier, value: 3, count: 4}", "{kind: multiplier, value: 4, count: 4}")
    assert any("multipliers are x0, x2 or x3 (got x4)" in p for p in problems(pack_copy))


def test_research_needs_all_three_kinds(pack_copy: Path):
    f = pack_copy / "cards/research.yaml"
    text = f.read_text()
    for value, t in zip((60, 70, 80, 90), ("abduction", "arson", "data-virus", "spy")):
        text = text.replace(f"{{kind: threat, threat: {t}, count: 4}}",
                            f"{{kind: number, value: {value}, count: 4}}")
    f.write_text(text)
    found = problems(pack_copy)
    assert any("the deck has no threat cards" in p for p in found)
    assert any("the deck has no Spy threat card" in p for p in found)


def test_research_count_must_total_ninety(pack_copy: Path):
    f = pack_copy / "cards/research.yaml"
    edit(f, "{kind: number, value: 50, count: 4}", "{kind: number, value: 50, count: 5}")
    line = line_of(f, "research:")
    assert f"cards/research.yaml:{line}:1: research: count adds up to 91 cards; expected 90" \
        in problems(pack_copy)


def test_trait_track_must_not_fall(pack_copy: Path):
    f = pack_copy / "cards/traits.yaml"
    edit(f, '{value: 4, label: "4 cards"}', '{value: 2, label: "2 cards"}')
    assert any("Staffing values must rise along the track" in p for p in problems(pack_copy))


def test_manifest_count_disagrees_with_deck(pack_copy: Path):
    f = pack_copy / "cards/components.yaml"
    text = f.read_text()
    assert "count: 90" in text
    f.write_text(text.replace("count: 90", "count: 91", 1))
    assert any("says 91 but the research deck has 90 cards" in p for p in problems(pack_copy))


def test_vote_trait_only_on_vote_events(pack_copy: Path):
    f = pack_copy / "cards/events.yaml"
    text = f.read_text()
    i = text.index("type: choice")
    f.write_text(text[:i] + "type: choice\n    vote: security" + text[i + len("type: choice"):])
    assert any("a choice event cannot name a vote trait" in p for p in problems(pack_copy))


def test_unknown_reference_is_located(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "field: chemistry", "field: alchemy")
    line = line_of(f, "field: alchemy")
    assert any(p.startswith(f"cards/projects.yaml:{line}:12: projects[0].field: unknown id "
                            f"'alchemy' (not in fields.fields)") for p in problems(pack_copy))


def test_unknown_upgrade_trait(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "upgrades: [staffing]", "upgrades: [charisma]")
    assert any("projects[1].upgrades[0]: must be one of staffing, creativity, security, "
               "analysis (got 'charisma')" in p for p in problems(pack_copy))


def test_unknown_icon_in_text(pack_copy: Path):
    f = pack_copy / "cards/events.yaml"
    edit(f, ":trait-", ":no-such-")
    line = line_of(f, ":no-such-")
    assert any(p.startswith(f"cards/events.yaml:{line}:") and "unknown icon :no-such-" in p
               for p in problems(pack_copy))


def test_duplicate_names(pack_copy: Path):
    f = pack_copy / "cards/projects.yaml"
    edit(f, "name: Solid Rocket Propellants", "name: Synthetic Polymers")
    assert any("projects[1].name: duplicate name 'Synthetic Polymers' (first used at line"
               in p for p in problems(pack_copy))


def test_game_lengths_need_enough_projects(pack_copy: Path):
    f = pack_copy / "cards/game.yaml"
    edit(f, "multiplier: 4", "multiplier: 9")
    assert any("a 6-player Epic game may need 60 projects but the deck has 40" in p
               for p in problems(pack_copy))


def test_every_problem_is_reported_together(pack_copy: Path):
    edit(pack_copy / "cards/projects.yaml", "difficulty: 70", "difficulty: 75")
    edit(pack_copy / "cards/endgame.yaml", "ufos: 4", "ufos: 3")
    found = problems(pack_copy)
    assert any("multiple of 10" in p for p in found) and any("UFO counts" in p for p in found)


def test_defense_and_fame_in_steps_of_five(pack_copy: Path):
    edit(pack_copy / "cards/projects.yaml", "defense: 10", "defense: 12")
    assert any("projects[0].defense: defense must be a multiple of 5 (got 12)" in p
               for p in problems(pack_copy))


def test_numeric_research_must_beat_the_safe_value(pack_copy: Path):
    f = pack_copy / "cards/research.yaml"
    edit(f, "{kind: number, value: 10, count: 16}", "{kind: number, value: 10, count: 56}")
    for value, count in ((20, 16), (30, 12), (40, 8), (50, 4)):
        edit(f, f"  - {{kind: number, value: {value}, count: {count}}}\n", "")
    assert any("numeric cards average 10.0, not above the safe value 10" in p
               for p in problems(pack_copy))


RULEBOOK_PROJECTS = {
    "Moon Outpost Lens Array": (40, 20), "Dedicated Observatories": (10, 10),
    "Alien Linguistics": (30, 0), "Assault Rifles": (20, 0), "Mechanical Exoskeletons": (20, 20),
    "Space Flight Calculations": (20, 10), "String Theory": (20, 30),
    "Transplant Surgery": (0, 10), "Advanced Neuroscience": (0, 30),
    "Satellite Network": (20, 20), "Alien Detection": (20, 0), "Computer Languages": (10, 10),
}


def test_the_rulebooks_projects_carry_their_printed_values(database):
    for name, (defense, fame) in RULEBOOK_PROJECTS.items():
        project = database.project(name)
        assert (project.defense, project.fame) == (defense, fame), name
