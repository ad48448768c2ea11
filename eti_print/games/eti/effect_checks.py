"""The rule ``card-effects``: each card's printed text and its declared effect agree.

The simulator plays event, agenda and endgame cards from their ``effect:``
mappings; players play them from the printed text.  This rule keeps the two
one card: on numbers (every number the effect uses, other than an implied
"one", is printed; every number printed is the effect's, or a rules constant
the text restates: zero, the data ports, the scoop cap, the safe value), on threats
(the threats the text names, by icon or name, are the effect's) and on traits
(the trait icons printed are the ones the effect or vote uses).  A bonus
printed "in all" must be the effect's bonus plus the rules' own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ...errors import Problem
from .model import Database
from .rulebook import rule

_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_DIGITS = re.compile(r"(?<![\w-])\+?(\d+)")
_ICON = re.compile(r":(threat|trait)-([a-z0-9]+(?:-[a-z0-9]+)*):")
#: effect keys holding numbers the text prints
_NUMBER_KEYS = ("amount", "in_all", "attack_cards", "attack_cards_unless_top_secret",
                "top_secret_needed", "intel", "brutality", "per_field_project", "safe_each")
#: effect keys holding a threat id, and those implying a trait
_THREAT_KEYS = ("unless_immune", "from_not_immune")
_ACTION_TRAITS = {"research": "staffing"}
_IN_ALL = {"top-secret-defense": "top_secret_defense", "public-domain-fame": "public_domain_fame"}


def printed_numbers(text: str) -> set[int]:
    """Numbers a card prints: every numeral, and number words set in bold."""
    found = {int(n) for n in _DIGITS.findall(text)}
    for bold in _BOLD.findall(text):
        for word in re.findall(r"[a-z]+", bold.lower()):
            if word in _WORDS:
                found.add(_WORDS[word])
    return found


def effect_numbers(effect: Mapping[str, Any]) -> set[int]:
    return {abs(v) for k, v in effect.items() if k in _NUMBER_KEYS and isinstance(v, int)
            and not isinstance(v, bool)}


def printed_threats(text: str, db: Database) -> set[str]:
    found = {name for kind, name in _ICON.findall(text) if kind == "threat"}
    plain = _ICON.sub("", text).lower()
    for t in db.threats:
        if re.search(rf"\b{re.escape(t.name.lower())}\b", plain) and \
                f"immune to {t.name.lower()}" in plain:
            found.add(t.id)
    return found


def _cards(db: Database) -> Iterable[tuple[str, int, str, Mapping[str, Any], str | None]]:
    for ref in ("events.events", "agendas.agendas", "endgame.human", "endgame.alien"):
        for index, item in enumerate(db.dataset.items(ref)):
            if isinstance(item, dict) and isinstance(item.get("effect"), dict):
                yield ref, index, str(item.get("text", "")), item["effect"], item.get("vote")


def card_problems(db: Database, ref: str, index: int, text: str, effect: Mapping[str, Any],
                  vote: str | None) -> Iterable[Problem]:
    def problem(message: str, key: str = "text") -> Problem:
        return db.dataset.problem(ref, index, message, key)

    rules = db.rules
    constants = {0, db.data_ports, rules.scoop_cap, rules.safe_value}
    printed, used = printed_numbers(text), effect_numbers(effect)
    for n in sorted(used - printed - {1}):
        yield problem(f"the effect uses {n} but the text never prints it")
    for n in sorted(printed - used - constants):
        yield problem(f"the text prints {n} but the effect has no {n}")
    action = effect.get("action")
    if "in_all" in effect and action in _IN_ALL:
        total = effect.get("amount", 0) + getattr(rules, _IN_ALL[action])
        if effect["in_all"] != total:
            yield problem(f"'in all' is {effect['in_all']} but the bonus {effect.get('amount', 0)}"
                          f" plus the rules' {getattr(rules, _IN_ALL[action])} is {total}",
                          "effect")
    if "safe_each" in effect and effect["safe_each"] != rules.safe_value:
        yield problem(f"safe_each is {effect['safe_each']} but the rules' safe value is "
                      f"{rules.safe_value}", "effect")
    threats = {effect[k] for k in _THREAT_KEYS if k in effect}
    named = printed_threats(text, db)
    for t in sorted(threats - named):
        yield problem(f"the effect spares companies immune to {t}, but the text never names it")
    for t in sorted(named - threats):
        yield problem(f"the text names the threat {t}, but the effect does not use it")
    traits = {t for t in (vote, effect.get("trait"), _ACTION_TRAITS.get(action)) if t}
    if effect.get("intel"):
        traits.add("intel")
    icons = {name for kind, name in _ICON.findall(text) if kind == "trait"}
    for t in sorted(icons - traits):
        yield problem(f"the text shows the {t} trait, but neither the effect nor the vote uses it")
    for t in sorted(traits - icons):
        yield problem(f"the effect uses the {t} trait, but the text never shows its icon")


@rule("card-effects")
def card_effects(db: Database) -> Iterable[Problem]:
    """Each event, agenda and endgame card's text agrees with its effect."""
    for ref, index, text, effect, vote in _cards(db):
        yield from card_problems(db, ref, index, text, effect, vote)
