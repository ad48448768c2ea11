"""Games: the seam where a game's own Python plugs into the generic tool.

A pack names its game in ``pack.yaml`` (``rules: NAME``).  A game is a
``Game`` registered under that name in the ``eti_print.games`` entry-point
group (``[project.entry-points."eti_print.games"]`` in a plugin's
``pyproject.toml``), so any installed package can add one.  A game gives:

* ``model(dataset)``: its typed view of the validated data, or ``None``;
* ``rules(model)``: its consistency rules, as located ``Problem``s, run by
  the check stage after the pack's declarative checks (``rule_names`` lists
  them for the validate summary);
* ``template_globals(ctx)``: names added to every template's context;
* ``context(name, ctx, item)``: names for the templates of an output entry
  that says ``context: NAME`` (a game's own board or aid variables);
* ``document_elements(ctx)``: extra elements of the document markup;
* ``job_types()``: job type modules of its own, built after the generic ones;
* ``add_commands(subparsers)``: its own subcommands (E.T.I.: ``score``,
  ``attack``, ``balance``).  Each handler is wrapped so that it runs only on a
  pack of its game: any other pack is a command-line error (exit 2).

The core never names a game: everything game-specific is behind this seam.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable, Iterable
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, Problem, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context
    from ..dataset import Dataset

GROUP = "eti_print.games"


class Game:
    """A game plugin; subclass it and override what the game has."""

    #: The name a pack's ``rules:`` gives.
    name: str = ""
    #: Its consistency rules by name, for the validate summary.
    rule_names: tuple[str, ...] = ()
    #: The names an output entry's ``context:`` may give (see ``context``).
    contexts: tuple[str, ...] = ()

    def model(self, dataset: Dataset) -> Any:
        return None

    def rules(self, model: Any, ctx: Context | None = None) -> list[Problem]:
        """Consistency problems of ``model``; with ``ctx`` (everything loaded), also
        those of the pack's settings and layouts the game relies on."""
        return []

    def template_globals(self, ctx: Context) -> dict[str, Any]:
        return {}

    def context(self, name: str, ctx: Context, item: Any) -> dict[str, Any]:
        """Names for the templates of an output entry with ``context: NAME``."""
        raise KeyError(name)

    def job_types(self) -> list[Any]:
        """Job type modules of the game's own (``KEY``, ``resolve``, ``draw``)."""
        return []

    def document_elements(self, ctx: Context) -> dict[str, Any]:
        return {}

    def template_help(self) -> dict[str, str]:
        """A line on each name of ``template_globals``, for ``eti-print schema templates``."""
        return {}

    def document_element_help(self) -> dict[str, str]:
        """A line on each element of ``document_elements``, for ``eti-print schema``."""
        return {}

    def settings_schemas(self) -> dict[str, tuple[str, Path]]:
        """The game's settings files, for ``eti-print schema`` and the JSON Schemas:
        kind -> (the file in the pack, its cerberus schema file)."""
        return {}

    def simulate(self, pack: Any) -> str:
        """``validate --simulate``: rules that need played games; a summary line, or
        ``InputError`` with located problems.  A game without a simulator refuses."""
        raise UsageError(f"--simulate: the {self.name} game has no simulator")

    def add_commands(self, subparsers: Any) -> None:
        """Add this game's subcommands; use ``command`` to declare each one."""

    def command(self, subparsers: Any, name: str, handler: Callable[[argparse.Namespace], int],
                **kwargs: Any) -> argparse.ArgumentParser:
        """A subcommand of this game: its handler gets ``args.game_pack``, the opened pack.

        A command with a ``pack`` argument works on that pack, else on the
        default one; either way a pack of another game (or of none) is refused.
        """
        parser = subparsers.add_parser(name, **kwargs)
        game = self

        def run(args: argparse.Namespace) -> int:
            from ..dataset import load_manifest
            from ..pack import Pack
            pack = Pack.open(getattr(args, "pack", None))
            config = load_manifest(pack).data
            if not isinstance(config, dict) or config.get("rules") != game.name:
                shown = getattr(args, "pack", None) or str(pack.root)
                theirs = config.get("rules") if isinstance(config, dict) else None
                raise UsageError(
                    f"'{name}' is a command of the {game.name} game, and the pack {shown} "
                    + (f"is a {theirs} pack" if theirs else "has no game (no rules: in pack.yaml)"))
            args.game_pack = pack
            return handler(args)

        parser.set_defaults(handler=run, game_command=game.name)
        return parser


_REGISTRY: dict[str, Game] | None = None


def _discover() -> dict[str, Game]:
    found: dict[str, Game] = {}
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        if ep.name in found:
            continue
        game = ep.load()
        if isinstance(game, type):
            game = game()
        if not isinstance(game, Game):
            raise TypeError(f"entry point {ep.name} = {ep.value} is not an eti_print Game")
        found[ep.name] = game
    return found


def registry() -> dict[str, Game]:
    """Every installed game by name (discovered once per process)."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _discover()
    return _REGISTRY


def register(game: Game) -> None:
    """Add a game in this process (tests, embedding); entry points are the usual way."""
    registry()[game.name] = game


def games() -> Iterable[Game]:
    return registry().values()


def simulate_pack(pack_arg: str | None) -> str:
    """``validate --simulate`` on a pack: its game's simulated rules (exit 2 if it has none)."""
    from ..dataset import load_manifest
    from ..pack import Pack
    pack = Pack.open(pack_arg)
    config = load_manifest(pack).data
    name = config.get("rules") if isinstance(config, dict) else None
    if not name:
        raise UsageError("--simulate: the pack has no game (no rules: in pack.yaml)")
    return get_game(name).simulate(pack)


def get_game(name: str, *, where: str = "pack.yaml", line: int | None = None) -> Game:
    """The game a pack's ``rules:`` names, or a located problem with the nearest name."""
    known = registry()
    game = known.get(name)
    if game is None:
        close = difflib.get_close_matches(name, list(known), n=1)
        hint = (f"did you mean {close[0]!r}?" if close else
                "install the game's plugin, or remove rules:") + \
            f" (installed games: {', '.join(sorted(known)) or 'none'})"
        raise InputError(Problem(f"no game {name!r} is installed", where, line, field="rules",
                                 hint=hint))
    return game
