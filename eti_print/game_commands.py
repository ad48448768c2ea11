"""A game's commands on the command line: the pack chosen, refused if it is another
game's, loaded and checked as ``build`` does, then handed to the game's handler.

This sits above the pipeline (it loads packs); ``games`` below it only declares
the commands (``Game.command``).
"""

from __future__ import annotations

import argparse

from .dataset import load_manifest
from .errors import InputError, UsageError
from .games import CheckedPack, Game, article, game_of_manifest, manifest_schema, registry
from .options import PrintRequest
from .pack import Pack
from .pipeline import load_checked


def run(args: argparse.Namespace) -> int:
    """Run the game command ``args`` was parsed for (``Game.command``)."""
    game = registry()[args.game_command]
    where = getattr(args, "pack", None)
    refuse_other_games(game, args.command, where, getattr(args, "pack_given", where))
    return args.game_handler(args, CheckedPack(load_checked(where, PrintRequest())))


def game_of_pack(where: str | None) -> Game | None:
    """The installed game of the pack ``where`` (a folder, a bundled name, or None: the
    default), or None: no pack there, no game, or one not installed."""
    try:
        return game_of_manifest(load_manifest(Pack.open(where), manifest_schema).data)
    except InputError:
        return None


def refuse_other_games(game: Game, command: str, where: str | None,
                       given: str | None) -> None:
    """A command of ``game`` runs only on a pack of ``game``: else ``UsageError``."""
    config = load_manifest(Pack.open(where), manifest_schema).data
    theirs = config.get("rules") if isinstance(config, dict) else None
    if theirs == game.name:
        return
    if given:
        shown = f"the pack {given}"
    elif where:
        shown = "the pack in the working folder"
    else:
        shown = "the bundled pack (no pack.yaml here or above)"
    if theirs:
        other = registry().get(theirs)
        title = other.display if other is not None else theirs
        said = f"is {article(title)} {title} pack"
    else:
        said = "has no game (no rules: in pack.yaml)"
    raise UsageError(f"'{command}' is a command of the {game.display} game, and {shown} "
                     f"{said}")


def simulate_pack(pack_arg: str | None) -> str:
    """``validate --simulate`` on a pack: its game's simulated rules (exit 2 if it has none)."""
    ctx = load_checked(pack_arg, PrintRequest())
    if ctx.game is None:
        raise UsageError("--simulate: the pack has no game (no rules: in pack.yaml)")
    return ctx.game.simulate(CheckedPack(ctx))
