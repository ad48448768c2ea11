"""The consistency rules and the rulebook's printed values (each rule firing on broken
data, at the right place, is a case in test_data_failures.py)."""

from eti_print.games.eti.checks import RULES


def test_shipped_database_passes_every_rule(database):
    assert len(database.projects) == 40
    assert len(RULES) >= 10


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
