"""E.T.I.: Estimated Time to Invasion, as a game plugin (``rules: eti``).

Its Python lives here and only here: the typed model of the data
(``model``), the consistency rules (``checks``, plus the board and piece
rules below), the rules engine (``engine``), the template globals and the
booklet's ``<cards>`` element (``booklet``), the board settings and the names
its board and piece layouts see (``boards``: the ``company-board``,
``alien-board`` and ``pieces`` contexts) and the ``score``, ``attack`` and
``balance`` commands (``commands``).  The data itself is the repository's
top level: ``cards/``, ``templates/``, ``fonts/``, ``pack.yaml``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...errors import InputError, Problem
from ...games import Game


class Eti(Game):
    name = "eti"
    title = "E.T.I."
    contexts = ("company-board", "alien-board", "pieces", "booklet")

    def model(self, dataset: Any) -> Any:
        from .boards import load_board_settings
        from .model import build_database
        from .needs import need_problems
        problems = need_problems(dataset)
        if problems:
            raise InputError(problems)
        return replace(build_database(dataset), board_settings=load_board_settings(dataset.pack))

    def rules(self) -> dict[str, Any]:
        """The rulebook's rules (``checks.RULES``, run on the model), then the board's
        data ports and the pieces the materials list counts (run on everything loaded)."""
        from .checks import RULES
        found: dict[str, Any] = {name: _on_model(fn) for name, fn in RULES.items()}
        found["board-ports"] = board_port_rules
        found["pieces"] = piece_rules
        return found

    def template_globals(self, ctx: Any) -> dict[str, Any]:
        from .booklet import template_globals
        return template_globals(ctx)

    def context(self, name: str, ctx: Any, item: Any) -> dict[str, Any]:
        from .boards import board_context, pieces_context
        if name == "pieces":
            return pieces_context(ctx, item)
        if name == "company-board":
            return board_context(ctx, "company", item)
        if name == "alien-board":
            return board_context(ctx, "alien")
        if name == "booklet":
            from .booklet import booklet_context
            return booklet_context(ctx)
        return super().context(name, ctx, item)

    def document_elements(self, ctx: Any) -> dict[str, Any]:
        from .cards_element import cards_element
        return {"cards": cards_element(ctx)}

    def template_help(self) -> dict[str, str]:
        return {
            "db": "The whole database as the rules engine sees it (fields, threats, projects...).",
            "rules": "The rules engine for worked examples: rules.example('10 spy x2'), "
                     "rules.safe(n), rules.bank(bank, total)...; rules.rules, the constants.",
            "constants": "The rulebook's rule constants (cards/game.yaml).",
            "game": "game.data_ports, game.lengths and game.free_upgrades.",
            "fields": "The fields of study by id.",
            "threats": "The alien threats by id.",
            "traits": "The human and alien traits by id.",
        }

    def document_element_help(self) -> dict[str, str]:
        return {"cards": "A row of research cards scored (or, mode=attack, attacked) by the "
                         "rules engine: queue=, immune=, tactics=, highlight=, base=."}

    def settings_schemas(self) -> dict[str, tuple[str, Any]]:
        from .boards import SCHEMAS
        return {"boards": ("templates/boards/boards.yaml", SCHEMAS / "boards.yaml")}

    def simulate(self, pack: Any) -> str:
        from .sim.ladder import validate_simulate
        return validate_simulate(pack)

    def add_commands(self, subparsers: Any) -> None:
        from .commands import add_commands
        add_commands(self, subparsers)


def _on_model(fn: Any) -> Any:
    """A rule of the model alone as a rule of (model, ctx).  A rule that trips over data
    another check already reported (an unknown id, a missing list) finds nothing."""
    def rule(db: Any, ctx: Any) -> list[Problem]:
        try:
            return list(fn(db))
        except (KeyError, IndexError, StopIteration, TypeError, ValueError):
            return []
    rule.__name__ = fn.__name__
    rule.__doc__ = fn.__doc__
    return rule


def board_port_rules(db: Any, ctx: Any) -> list[Problem]:
    """The company board's data ports."""
    from ...units import to_points
    from .boards import company_board, port_problems
    problems: list[Problem] = []
    settings = db.board_settings
    found = company_board(ctx.dataset)
    manifest = ctx.dataset.manifest
    if found is None:
        problems.append(Problem("no company gameboard: a boards: entry needs "
                                "'context: company-board'", manifest.path, field="boards"))
    else:
        index, entry = found
        line, _ = manifest.where(("boards", index))
        try:
            size = tuple(to_points(entry[k], where=manifest.path, line=line,
                                   field=f"boards[{index}].{k}") for k in ("width", "height"))
            card = ctx.sheets.get("card", where=manifest.path, line=line)
        except InputError as exc:      # reported again, located, by the boards job
            problems.extend(exc.problems)
        else:
            problems.extend(port_problems(settings.ports, db.data_ports,
                                          (card.width, card.height), size, settings.source,
                                          settings.port_line))
    return problems


#: The materials list's kinds that the pieces: entries print, each under its component id.
PIECE_KINDS = ("token", "badge", "standee")


def piece_rules(db: Any, ctx: Any) -> list[Problem]:
    """Every token, badge and standee of the materials list is printed, as many as it says:
    a pieces: entry whose id is the component's."""
    from ...jobs.pieces import printed_count
    entries = {e["id"]: (n, e) for n, e in enumerate(ctx.dataset.config.get("pieces") or [])}
    problems: list[Problem] = []
    docs = ctx.dataset.docs["components"]
    for index, c in enumerate(db.components):
        if c.kind not in PIECE_KINDS:
            continue
        line, _ = docs.where(("components", index, "count"))
        if c.id not in entries:
            problems.append(Problem(f"the materials list has {c.count} {c.name.lower()}s and no "
                                    f"pieces: entry prints them", docs.path, line,
                                    field=f"components[{index}]",
                                    hint=f"add a pieces: entry with id {c.id} to pack.yaml"))
            continue
        n, entry = entries[c.id]
        printed = printed_count(ctx, n, entry)
        if printed != c.count:
            problems.append(ctx.dataset.manifest.problem(
                ("pieces", n), f"pieces {c.id!r} print {printed}; the materials list says "
                f"{c.count} ({docs.path}:{line})"))
    return problems


GAME = Eti()
