"""E.T.I.: Estimated Time to Invasion, as a game plugin (``rules: eti``).

Its Python lives here and only here: the typed model of the data
(``model``), the consistency rules (``checks``, plus the board and piece
rules below), the rules engine (``engine``), the template globals and the
booklet's ``<cards>`` element (``booklet``), the board settings and the names
its board layouts see (``boards``), the token and standee sheets
(``tokens``, a job type of its own) and the ``score``, ``attack`` and
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
    contexts = ("company-board", "alien-board", "booklet")

    @property
    def rule_names(self) -> tuple[str, ...]:  # type: ignore[override]
        from .checks import RULES
        return tuple(RULES) + ("board-ports", "standees")

    def model(self, dataset: Any) -> Any:
        from .boards import load_board_settings
        from .model import build_database
        return replace(build_database(dataset), board_settings=load_board_settings(dataset.pack))

    def rules(self, model: Any, ctx: Any = None) -> list[Problem]:
        from .checks import run_rules
        problems = run_rules(model)
        if ctx is not None:
            problems.extend(board_rules(model, ctx))
        return problems

    def template_globals(self, ctx: Any) -> dict[str, Any]:
        from .booklet import template_globals
        return template_globals(ctx)

    def context(self, name: str, ctx: Any, item: Any) -> dict[str, Any]:
        from .boards import board_context
        if name == "company-board":
            return board_context(ctx, "company", item)
        if name == "alien-board":
            return board_context(ctx, "alien")
        if name == "booklet":
            from .booklet import booklet_context
            return booklet_context(ctx)
        return super().context(name, ctx, item)

    def document_elements(self, ctx: Any) -> dict[str, Any]:
        from .booklet import cards_element
        return {"cards": cards_element(ctx)}

    def job_types(self) -> list[Any]:
        from . import tokens
        return [tokens]

    def add_commands(self, subparsers: Any) -> None:
        from .commands import add_commands
        add_commands(self, subparsers)


def board_rules(db: Any, ctx: Any) -> list[Problem]:
    """The company board's data ports, and standees shared evenly by the companies."""
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
    standees = sum(c.count for c in db.components if c.kind == "standee")
    if db.companies and standees % len(db.companies):
        problems.append(Problem(f"{standees} company logos cannot be shared evenly by "
                                f"{len(db.companies)} companies", "cards/components.yaml",
                                field="components"))
    return problems


GAME = Eti()
