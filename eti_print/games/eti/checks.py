"""E.T.I.'s consistency rules, on top of the pack's declarative checks.

Each rule is one small function that returns located problems, registered by
name in ``rulebook.RULES``; ``run_rules`` runs them all (these and the card
effects' rule of ``effect_checks``) and returns every problem together.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

from ...errors import Problem
from . import engine
from .model import ROMAN, Database
from .rulebook import RULES, rule, run_rules

__all__ = ["RULES", "rule", "run_rules"]

# The trait ids the program reads by name (the commands, the booklet, these
# rules); the data must define exactly these, so they are a contract, not data.
HUMAN_TRAITS = ("staffing", "creativity", "security", "analysis")
ALIEN_TRAITS = ("eti", "intel", "tactics", "brutality")
AGENDAS = ("conduct-research", "submit-findings", "switch-projects")
# The rulebook's multipliers: a design rule on the data (the engine itself
# reads whatever multipliers the research deck holds, ``Database.deck``).
MULTIPLIERS = engine.MULTIPLIERS
_ICON_RE = re.compile(r":([a-z0-9]+(?:-[a-z0-9]+)*):")


def _project(db: Database, index: int, message: str, key: str | None = None) -> Problem:
    return db.dataset.problem("projects.projects", index, message, key)


@rule("project-grid")
def project_grid(db: Database) -> Iterable[Problem]:
    """Exactly one project for each field and tech level."""
    seen: dict[tuple[str, str], int] = {}
    for index, p in enumerate(db.projects):
        cell = (p.field, p.level)
        if cell in seen:
            yield _project(db, index, f"a second level {p.level} {p.field} project "
                                      f"(the first is {db.projects[seen[cell]].name!r})", "level")
        seen[cell] = index
    for f in db.fields:
        for level in db.tech_levels:
            if (f.id, level) not in seen:
                yield db.dataset.problem("projects.projects", None,
                                         f"no level {level} project in {f.name}")


@rule("difficulty-rises")
def difficulty_rises(db: Database) -> Iterable[Problem]:
    """Inside each field, difficulty rises with tech level, in steps of 10."""
    by_field: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for index, p in enumerate(db.projects):
        if p.difficulty % 10:
            yield _project(db, index, f"difficulty must be a multiple of 10 (got {p.difficulty})",
                           "difficulty")
        by_field[p.field].append((p.level_number, index))
    for entries in by_field.values():
        entries.sort()
        for (_, lower), (_, higher) in zip(entries, entries[1:]):
            a, b = db.projects[lower], db.projects[higher]
            if b.difficulty <= a.difficulty:
                yield _project(db, higher, f"difficulty {b.difficulty} must be above level "
                                           f"{a.level}'s {a.difficulty} ({a.name})", "difficulty")


@rule("project-values")
def project_values(db: Database) -> Iterable[Problem]:
    """Defense and fame are multiples of 5, and no project carries more than two upgrades."""
    for index, p in enumerate(db.projects):
        for key in ("defense", "fame"):
            if getattr(p, key) % 5:
                yield _project(db, index, f"{key} must be a multiple of 5 "
                                          f"(got {getattr(p, key)})", key)
        if p.level not in ROMAN[:len(db.tech_levels)]:
            yield _project(db, index, f"level {p.level} is not one of the game's tech levels",
                           "level")


@rule("agenda-sets")
def agenda_sets(db: Database) -> Iterable[Problem]:
    """Each company has the three agenda cards, once each."""
    have = Counter((c.company, c.agenda) for c in db.agenda_cards)
    defined = {a.id for a in db.agendas}
    for agenda in AGENDAS:
        if agenda not in defined:
            yield db.dataset.problem("agendas.agendas", None, f"agenda {agenda!r} is not defined")
    for company in db.companies:
        for agenda in AGENDAS:
            n = have[(company.id, agenda)]
            if n != 1:
                yield db.dataset.problem("agendas.cards", None,
                                         f"{company.name} has {n} {agenda!r} cards; expected 1")


@rule("alien-ufos")
def alien_ufos(db: Database) -> Iterable[Problem]:
    """The four aliens carry one to four UFO symbols, each count once."""
    ufos = sorted(e.ufos for e in db.alien_endgame)
    if ufos != list(range(1, len(db.alien_endgame) + 1)):
        yield db.dataset.problem("endgame.alien", None,
                                 f"UFO counts must be 1 to {len(db.alien_endgame)}, once each "
                                 f"(got {', '.join(map(str, ufos))})")


@rule("research-composition")
def research_composition(db: Database) -> Iterable[Problem]:
    """Numbers, multipliers and threats are all in the deck, each well formed."""
    kinds = Counter()
    for index, entry in enumerate(db.research):
        kinds[entry.kind] += entry.count
        where = ("research.research", index)
        if entry.kind == "threat" and entry.threat is None:
            yield db.dataset.problem(*where, "a threat card needs a 'threat'", "threat")
        if entry.kind != "threat" and entry.threat is not None:
            yield db.dataset.problem(*where, "only threat cards name a threat", "threat")
        if entry.kind == "multiplier" and entry.value not in MULTIPLIERS:
            yield db.dataset.problem(*where, f"multipliers are x0, x2 or x3 (got x{entry.value})",
                                     "value")
        if entry.kind == "number" and (entry.value <= 0 or entry.value % 10):
            yield db.dataset.problem(*where, f"numeric values are positive multiples of 10 "
                                             f"(got {entry.value})", "value")
    for kind in ("number", "multiplier", "threat"):
        if not kinds[kind]:
            yield db.dataset.problem("research.research", None, f"the deck has no {kind} cards")
    threats = {e.threat for e in db.research if e.kind == "threat"}
    for t in db.threats:
        if t.id not in threats:
            yield db.dataset.problem("research.research", None,
                                     f"the deck has no {t.name} threat card")
    seen: dict[engine.Card, int] = {}
    for index, entry in enumerate(db.research):
        if entry.card in seen:
            yield db.dataset.problem("research.research", index,
                                     f"{entry.card.token} is listed twice; give one entry a "
                                     f"count instead", "count")
        seen[entry.card] = index


@rule("research-worth-the-risk")
def research_worth_the_risk(db: Database) -> Iterable[Problem]:
    """A numeric card is worth more than the safe value on average, else nobody flips."""
    numbers = [(e.value, e.count) for e in db.research if e.kind == "number"]
    total = sum(c for _, c in numbers)
    if total and sum(v * c for v, c in numbers) / total <= db.rules.safe_value:
        average = sum(v * c for v, c in numbers) / total
        yield db.dataset.problem("research.research", None,
                                 f"numeric cards average {average:.1f}"
                                 f", not above the safe value {db.rules.safe_value}")


@rule("trait-tracks")
def trait_tracks(db: Database) -> Iterable[Problem]:
    """Four human and four alien tracks, paired, of one length, never going backwards."""
    for side, ids, tracks, key in (("human", HUMAN_TRAITS, db.human_traits, "traits.human"),
                                   ("alien", ALIEN_TRAITS, db.alien_traits, "traits.alien")):
        have = tuple(t.id for t in tracks)
        if sorted(have) != sorted(ids):
            yield db.dataset.problem(key, None, f"{side} traits must be {', '.join(ids)} "
                                                f"(got {', '.join(have)})")
    lengths = {len(t.spaces) for t in db.human_traits + db.alien_traits}
    if len(lengths) > 1:
        yield db.dataset.problem("traits.human", None,
                                 f"all tracks need the same number of spaces "
                                 f"(got {', '.join(map(str, sorted(lengths)))})")
    pairs = {t.id: t.counterpart for t in db.human_traits + db.alien_traits}
    for index, t in enumerate(db.human_traits):
        if pairs.get(t.counterpart) != t.id:
            yield db.dataset.problem("traits.human", index, f"{t.counterpart!r} does not name "
                                                            f"{t.id!r} back", "counterpart")
    for side, tracks in (("human", db.human_traits), ("alien", db.alien_traits)):
        for index, t in enumerate(tracks):
            values = [s.value for s in t.spaces]
            falling = t.id == "eti"  # more E.T.I. means less time for the humans
            ordered = values == sorted(values, reverse=falling)
            if not ordered:
                word = "fall" if falling else "rise"
                yield db.dataset.problem(f"traits.{side}", index,
                                         f"{t.name} values must {word} along the track "
                                         f"(got {values})", "spaces")
    for tid in ("security", "tactics"):
        t = next((t for t in db.human_traits + db.alien_traits if t.id == tid), None)
        if t and t.spaces[-1].value > len(db.threats):
            yield db.dataset.problem(f"traits.{t.side}", None,
                                     f"{t.name} gives {t.spaces[-1].value} but there are only "
                                     f"{len(db.threats)} threats")


@rule("manifest-counts")
def manifest_counts(db: Database) -> Iterable[Problem]:
    """The components manifest agrees with the decks and the companies."""
    deck_sizes = {
        "research": len(db.research_cards),
        "projects": len(db.projects),
        "events": len(db.events),
        "agendas": len(db.agenda_cards),
        "endgame-human": len(db.human_endgame),
        "endgame-alien": len(db.alien_endgame),
    }
    for index, c in enumerate(db.components):
        if c.deck is None:
            continue
        if c.deck not in deck_sizes:
            yield db.dataset.problem("components.components", index, f"unknown deck {c.deck!r}",
                                     "deck", hint="decks are " + ", ".join(deck_sizes))
        elif deck_sizes[c.deck] != c.count:
            yield db.dataset.problem("components.components", index,
                                     f"says {c.count} but the {c.deck} deck has "
                                     f"{deck_sizes[c.deck]} cards", "count")
    boards = {b.get("id"): (len(db.dataset.items(b["for_each"])) if b.get("for_each") else 1)
              for b in db.dataset.config.get("boards") or [] if isinstance(b, dict)}
    for index, c in enumerate(db.components):
        if c.kind == "board" and c.id in boards and boards[c.id] != c.count:
            yield db.dataset.problem("components.components", index,
                                     f"says {c.count} but pack.yaml's board {c.id!r} makes "
                                     f"{boards[c.id]}", "count")
    listed = {c.deck for c in db.components if c.deck}
    for deck in deck_sizes:
        if deck not in listed:
            yield db.dataset.problem("components.components", None,
                                     f"the {deck} deck is missing from the manifest")


@rule("event-votes")
def event_votes(db: Database) -> Iterable[Problem]:
    """Only vote events name a voted trait."""
    for index, e in enumerate(db.events):
        if e.vote and e.type != "vote":
            yield db.dataset.problem("events.events", index,
                                     f"a {e.type} event cannot name a vote trait", "vote")


@rule("game-lengths")
def game_lengths(db: Database) -> Iterable[Problem]:
    """Longer games have higher multipliers, and there are always enough projects."""
    mults = [g.multiplier for g in db.lengths]
    if mults != sorted(set(mults)):
        yield db.dataset.problem("game.game", None, "game lengths must have rising, "
                                                    "different multipliers", "lengths")
    most = db.players[1]
    for g in db.lengths:
        need = engine.must_reveal_by(most, g.multiplier)
        if need > len(db.projects):
            yield db.dataset.problem("game.game", None,
                                     f"a {most}-player {g.name} game may need {need} projects "
                                     f"but the deck has {len(db.projects)}", "lengths")
    level_one = sum(1 for p in db.projects if p.level == db.tech_levels[0])
    if level_one < most - 1:
        yield db.dataset.problem("game.game", None,
                                 f"{most} players start with {most - 1} level I projects but "
                                 f"there are only {level_one}", "players")


def _track(db: Database, tid: str):
    """(index in its side's list, track) of the trait ``tid``."""
    tracks = db.human_traits if tid in HUMAN_TRAITS else db.alien_traits
    index = next(i for i, t in enumerate(tracks) if t.id == tid)
    return index, tracks[index]


@rule("tactics-mirror-security")
def tactics_mirror_security(db: Database) -> Iterable[Problem]:
    """Tactics are the threats the alien was immune to as a human, so the Tactics track
    gives what Security gives, space for space."""
    _, security = _track(db, "security")
    index, tactics = _track(db, "tactics")
    have = [s.value for s in tactics.spaces]
    want = [s.value for s in security.spaces]
    if have != want:
        yield db.dataset.problem("traits.alien", index,
                                 f"Tactics must give what Security gives, space for space "
                                 f"(Security {want}, Tactics {have})", "spaces")


@rule("analysis-within-ports")
def analysis_within_ports(db: Database) -> Iterable[Problem]:
    """Analysis peeks at data ports, so it never reaches past the board's last port."""
    index, analysis = _track(db, "analysis")
    for space in analysis.spaces:
        if space.value > db.data_ports:
            yield db.dataset.problem("traits.human", index,
                                     f"Analysis peeks at {space.value} ports ({space.label!r}) "
                                     f"but a company board has only {db.data_ports}", "spaces")
            return


@rule("eti-reaches-invade-now")
def eti_reaches_invade_now(db: Database) -> Iterable[Problem]:
    """A high enough E.T.I. means the invasion begins that very turn: the track's last
    space is 0 turns."""
    index, eti = _track(db, "eti")
    if eti.spaces and eti.spaces[-1].value != 0:
        yield db.dataset.problem("traits.alien", index,
                                 f"E.T.I. must end at 0 turns (invade now), but its last space "
                                 f"gives {eti.spaces[-1].value}", "spaces")


@rule("staffing-deals-cards")
def staffing_deals_cards(db: Database) -> Iterable[Problem]:
    """Conducting research deals at least one card, even before any staffing upgrade."""
    index, staffing = _track(db, "staffing")
    if staffing.spaces and staffing.spaces[0].value < 1:
        yield db.dataset.problem("traits.human", index,
                                 f"Staffing must deal at least 1 card from its first space "
                                 f"(got {staffing.spaces[0].value})", "spaces")


def _traits_named(db: Database, text: str) -> list[str]:
    """The human traits a card text names, by icon or by name, in order of appearance."""
    found: list[tuple[int, str]] = []
    for t in db.human_traits:
        for pattern in (rf":{re.escape(t.icon)}:", rf"\b{re.escape(t.name)}\b"):
            m = re.search(pattern, text, re.IGNORECASE)
            if m:
                found.append((m.start(), t.id))
    return [tid for _, tid in sorted(found)]


@rule("vote-text-names-its-trait")
def vote_text_names_its_trait(db: Database) -> Iterable[Problem]:
    """A trait vote's text names the trait its ``vote:`` field doubles, and no other
    first; a vote without ``vote:`` does not announce a trait vote."""
    names = {t.id: t.name for t in db.human_traits}
    for index, e in enumerate(db.events):
        if e.type != "vote":
            continue
        named = _traits_named(db, e.text)
        if e.vote:
            if not named:
                yield db.dataset.problem("events.events", index,
                                         f"a {names.get(e.vote, e.vote)} vote whose text never "
                                         f"names {names.get(e.vote, e.vote)}", "text")
            elif named[0] != e.vote:
                yield db.dataset.problem("events.events", index,
                                         f"the text names {names[named[0]]} but vote: is "
                                         f"{e.vote!r}", "text")
        else:
            for name in names.values():
                if re.search(rf"\b{re.escape(name)} vote\b", e.text, re.IGNORECASE):
                    yield db.dataset.problem("events.events", index,
                                             f"the text announces a {name} vote but the event "
                                             f"has no vote: field", "vote")


def _reaches(node, steps: list[str]) -> bool:
    """Whether a dotted path names something in a data file: a key of a mapping, or
    the id of an entry or a field of the entries of a list."""
    if not steps:
        return True
    step, rest = steps[0], steps[1:]
    if isinstance(node, dict):
        return step in node and _reaches(node[step], rest)
    if isinstance(node, list):
        entries = [e for e in node if isinstance(e, dict)]
        by_id = [e for e in entries if e.get("id") == step]
        if by_id:
            return _reaches(by_id[0], rest)
        return any(step in e and _reaches(e[step], rest) for e in entries)
    return False


@rule("reconstructed-names-data")
def reconstructed_names_data(db: Database) -> Iterable[Problem]:
    """Each ``reconstructed:`` note of a data file names a field or entry of that file."""
    for name, doc in db.dataset.docs.items():
        data = doc.data if isinstance(doc.data, dict) else {}
        notes = data.get("reconstructed")
        if not isinstance(notes, dict):
            continue
        for path in notes:
            if not isinstance(path, str) or not _reaches(data, path.split(".")):
                yield db.dataset.problem(f"{name}.reconstructed", None,
                                         f"{path!r} names nothing in {name}.yaml", str(path),
                                         hint="a dotted path to a key, an entry's id or a "
                                              "field of a list's entries, such as human.spaces")


def _texts(db: Database):
    for index, e in enumerate(db.events):
        yield "events.events", index, "text", e.text
        if e.flavor:
            yield "events.events", index, "flavor", e.flavor
    for index, a in enumerate(db.agendas):
        yield "agendas.agendas", index, "text", a.text
    for side in ("human", "alien"):
        for index, e in enumerate(x for x in db.endgame if x.side == side):
            yield f"endgame.{side}", index, "text", e.text
    for index, p in enumerate(db.projects):
        if p.flavor:
            yield "projects.projects", index, "flavor", p.flavor


@rule("text-icons")
def text_icons(db: Database) -> Iterable[Problem]:
    """Every inline icon named in card text exists as art."""
    from ...suggest import did_you_mean
    art_dir = db.dataset.pack.templates_dir / "art"
    known: list[str] | None = None
    for ref, index, key, text in _texts(db):
        for name in _ICON_RE.findall(text):
            if not (art_dir / f"{name}.svg").is_file():
                if known is None:
                    known = sorted(p.stem for p in art_dir.glob("*.svg"))
                yield db.dataset.problem(ref, index, f"unknown icon :{name}:", key,
                                         hint=did_you_mean(name, known)
                                         or "icons are the .svg files in templates/art/")


from . import effect_checks  # noqa: E402,F401  (registers card-effects, after these)
