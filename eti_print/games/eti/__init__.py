"""E.T.I.: Estimated Time to Invasion, as a game plugin (``rules: eti``).

Its Python lives here and only here: the typed model of the data
(``model``), the consistency rules (``checks``), the rules engine
(``engine``), the booklet's worked examples and ``<cards>`` element
(``booklet``), the board template globals (``boards``) and the ``score``,
``attack`` and ``balance`` commands (``commands``).  The data itself is the
repository's top level: ``cards/``, ``templates/``, ``fonts/``, ``pack.yaml``.
"""

from __future__ import annotations

from typing import Any

from ...games import Game


class Eti(Game):
    name = "eti"

    @property
    def rule_names(self) -> tuple[str, ...]:  # type: ignore[override]
        from .checks import RULES
        return tuple(RULES)

    def model(self, dataset: Any) -> Any:
        from .model import build_database
        return build_database(dataset)

    def rules(self, model: Any) -> list:
        from .checks import run_rules
        return run_rules(model)

    def renderers(self, ctx: Any) -> list:
        from .outputs import RENDERERS
        return list(RENDERERS)

    def add_commands(self, subparsers: Any) -> None:
        from .commands import add_commands
        add_commands(self, subparsers)


GAME = Eti()
