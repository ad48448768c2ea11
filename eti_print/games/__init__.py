"""Games: the seam where a game's own Python plugs into the generic tool.

A pack names its game in ``pack.yaml`` (``rules: NAME``).  A game is a
``Game`` registered under that name in the ``eti_print.games`` entry-point
group (``[project.entry-points."eti_print.games"]`` in a plugin's
``pyproject.toml``), so any installed package can add one.  What a game may
give is the table ``HOOKS``: each hook's signature is the one of ``Game``'s
method of that name, and ``check_game`` refuses, when the plugin is loaded, a
game whose public names are not hooks (a misspelt ``rule`` for ``rules``) or
whose hooks take other arguments.  ``docs/reference/plugin-api.md`` is the
reference; a plugin imports only from ``eti_print.api``.

The core never names a game: everything game-specific is behind this seam.
"""

from __future__ import annotations

import argparse
import inspect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, PluginError, Problem, UsageError
from ..suggest import nearest

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context
    from ..dataset import Dataset
    from ..pack import Pack
    from ..schema import Schema

GROUP = "eti_print.games"

#: A consistency rule: ``rule(model, ctx)``, the problems it finds (none: it passed).
Rule = Callable[[Any, "Context"], Iterable[Problem]]

#: A game command's handler: ``handler(args, pack)``, an exit status.
Handler = Callable[[argparse.Namespace, "CheckedPack"], int]


@dataclass(frozen=True)
class CheckedPack:
    """The pack a game command works on, loaded and checked exactly as ``build`` loads
    and checks it: its data against the schemas, the declarative checks, the game's
    rules and the output entries all passed.  A command never gets a pack that fails."""

    #: Everything loaded: the pack, its dataset, fonts, layouts, sheets, the model.
    context: Context

    @property
    def pack(self) -> Pack:
        """The pack folder (``pack.root``, ``pack.resolve(ref)``)."""
        return self.context.pack

    @property
    def dataset(self) -> Dataset:
        """The validated data: ``dataset.items("file.key")``, ``dataset.by_id(...)``."""
        return self.context.dataset

    @property
    def model(self) -> Any:
        """What the game's ``model`` hook built from the dataset."""
        return self.context.model

    @property
    def config(self) -> dict[str, Any]:
        """pack.yaml's value, the game's own sections included."""
        return self.context.dataset.config


@dataclass(frozen=True)
class Hook:
    """One row of the hook table: a ``Game`` method the core calls."""

    name: str
    #: when it is called: the stage of the build, or the command
    stage: str
    #: what it returns
    returns: str

    def signature(self) -> inspect.Signature:
        """Its documented signature: that of ``Game``'s method."""
        return inspect.signature(getattr(Game, self.name))


class Game:
    """A game plugin: subclass it, set ``name``, and override the hooks the game has.

    Every hook has a default that gives nothing, so a game overrides only what it
    has.  A public name of a subclass that is neither a hook nor one of the
    attributes ``name``, ``title`` and ``contexts`` is refused when the plugin
    loads (helpers of the plugin's own start with ``_``).
    """

    #: The name a pack's ``rules:`` gives, and the plugin's entry-point name.
    name: str = ""
    #: The game's name in messages ("E.T.I."); the ``name`` when empty.
    title: str = ""
    #: The names an output entry's ``context:`` may give (see ``context``).
    contexts: tuple[str, ...] = ()

    def model(self, dataset: Dataset) -> Any:
        """The game's typed view of the validated data, or ``None`` (the dataset itself
        is then what the rules get).  Built only from ``dataset``; raise ``InputError``
        with located problems for data the model cannot be built from."""
        return None

    def rules(self) -> Mapping[str, Rule]:
        """The game's consistency rules by name: each ``rule(model, ctx)`` returns the
        located problems it finds.  The check stage runs every one after the pack's
        declarative checks; ``validate`` counts the rules run."""
        return {}

    def pack_sections(self) -> Path | None:
        """A schema file (``description:`` and ``schema:``, as a data file's schema)
        whose top-level fields are pack.yaml sections of the game's own; pack.yaml is
        validated against the core's sections and these together."""
        return None

    def job_types(self) -> list[Any]:
        """Job type modules of the game's own: each has ``KEY`` (its pack.yaml section,
        declared by ``pack_sections``), ``resolve(ctx)`` and ``draw(ctx, plan,
        progress)``.  A job type runs when pack.yaml has entries under its ``KEY``."""
        return []

    def template_globals(self, ctx: Context) -> dict[str, Any]:
        """Names added to every template's context."""
        return {}

    def context(self, name: str, ctx: Context, item: Any) -> dict[str, Any]:
        """Names for the templates of an output entry with ``context: NAME``."""
        raise KeyError(name)

    def document_elements(self, ctx: Context) -> dict[str, Any]:
        """Extra elements of the document markup, by tag name."""
        return {}

    def template_help(self) -> dict[str, str]:
        """A line on each name of ``template_globals``, for ``eti-print schema templates``."""
        return {}

    def document_element_help(self) -> dict[str, str]:
        """A line on each element of ``document_elements``, for ``eti-print schema``."""
        return {}

    def settings_schemas(self) -> dict[str, tuple[str, Path]]:
        """The game's settings files, for ``eti-print schema`` and the JSON Schemas:
        kind -> (the file in the pack, its schema file)."""
        return {}

    def simulate(self, pack: CheckedPack) -> str:
        """``validate --simulate``: rules that need played games; a summary line, or
        ``InputError`` with located problems.  A game without a simulator refuses."""
        raise UsageError(f"--simulate: the {self.display} game has no simulator")

    def add_commands(self, subparsers: Any) -> None:
        """Add this game's subcommands, each with ``self.command``."""

    # -- helpers for the hooks (not hooks: a game does not override them) -----------

    @property
    def display(self) -> str:
        """The game's name as messages give it."""
        return self.title or self.name

    def command(self, subparsers: Any, name: str, handler: Handler,
                **kwargs: Any) -> argparse.ArgumentParser:
        """Declare a subcommand of this game: ``handler(args, pack)`` gets the parsed
        arguments and the ``CheckedPack`` and returns the exit status.

        The pack is the command's ``pack`` argument (``PACK``, or ``--pack``), else the
        one in the working folder; a pack of another game (or of none) is refused (exit
        2), and a pack that fails its checks is reported as ``build`` reports it (exit 1).
        """
        _check_handler(self, name, handler)
        parser = subparsers.add_parser(name, **kwargs)
        # run by the command line (``game_commands.run``): the pack chosen, refused if
        # it is another game's, loaded and checked as ``build`` does
        parser.set_defaults(handler=None, game_handler=handler, game_command=self.name)
        return parser


#: The hook table: which stage calls which hook, and what it returns.  Each
#: signature is ``Game``'s (``Hook.signature``).
HOOKS: dict[str, Hook] = {hook.name: hook for hook in (
    Hook("model", "load: after the data files are validated", "the model (any object) or None"),
    Hook("rules", "check: after the declarative checks", "a mapping: rule name -> Rule"),
    Hook("pack_sections", "load: when pack.yaml is validated", "a schema file's Path, or None"),
    Hook("job_types", "resolve and draw: after the core's job types", "a list of modules"),
    Hook("template_globals", "resolve: once per build, for every template", "dict of names"),
    Hook("context", "resolve: for each output entry with context: NAME", "dict of names"),
    Hook("document_elements", "resolve: when a document's markup is parsed",
         "dict: tag -> element"),
    Hook("template_help", "eti-print schema templates", "dict: name -> one line"),
    Hook("document_element_help", "eti-print schema markup", "dict: tag -> one line"),
    Hook("settings_schemas", "eti-print schema and --json-schema",
         "dict: kind -> (file, schema Path)"),
    Hook("simulate", "validate --simulate, after validate passed", "a summary line"),
    Hook("add_commands", "the command line: when the parser is built for the pack's game",
         "None"),
)}

#: The data attributes a game may set.
ATTRIBUTES = ("name", "title", "contexts")
#: ``Game``'s helpers: a game calls them and does not override them.
HELPERS = ("command", "display")

NAME_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def _positional(sig: inspect.Signature) -> int:
    """How many positional arguments (after self) a signature's required part takes."""
    return sum(1 for p in list(sig.parameters.values())[1:]
               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


def _accepts(fn: Any, count: int) -> bool:
    """Can ``fn`` be called with ``count`` positional arguments (and nothing else)?"""
    try:
        inspect.signature(fn).bind(*range(count))
    except TypeError:
        return False
    return True


def _shown(fn: Any, name: str) -> str:
    try:
        return f"{name}{inspect.signature(fn)}"
    except (TypeError, ValueError):
        return name


def check_game(game: Any, plugin: str) -> None:
    """Refuse a game plugin whose public names are not hooks, whose hooks take other
    arguments than ``Game``'s, or whose name is not its entry point's (``plugin``):
    ``PluginError`` naming the plugin, the name and the nearest hook."""
    if isinstance(game, type):
        raise PluginError(f"game plugin {plugin}: the entry point names the class "
                          f"{game.__name__}; name an instance of it (GAME = {game.__name__}())")
    if not isinstance(game, Game):
        raise PluginError(f"game plugin {plugin}: {game!r} is not an eti_print.api.Game")
    problems: list[str] = []
    allowed = set(HOOKS) | set(ATTRIBUTES) | set(HELPERS)
    for klass in type(game).__mro__:
        if klass is Game or not issubclass(klass, Game):
            break
        for attr, value in vars(klass).items():
            if attr.startswith("_"):
                continue
            if attr not in allowed:
                near = nearest(attr, allowed)
                problems.append(f"{attr!r} is not a hook of eti_print.api.Game"
                                + (f" (did you mean {near!r}?)" if near else "")
                                + "; a helper of the plugin's own starts with '_'")
            elif attr in HELPERS:
                problems.append(f"{attr!r} is Game's helper, not a hook: do not override it")
            elif attr in HOOKS:
                hook = HOOKS[attr]
                fn = value.__func__ if isinstance(value, (staticmethod, classmethod)) else value
                if not callable(fn):
                    problems.append(f"{attr!r} is a hook, a method {attr}{hook.signature()}")
                elif not _accepts(getattr(game, attr), _positional(hook.signature())):
                    problems.append(f"the hook {_shown(fn, attr)} does not match its signature "
                                    f"{attr}{hook.signature()}")
    if not isinstance(game.name, str) or not NAME_RE.match(game.name):
        problems.append(f"name {game.name!r}: a game's name is lowercase letters, digits and "
                        f"dashes (the pack's rules: gives it)")
    elif game.name != plugin.split(" ", 1)[0]:
        problems.append(f"name {game.name!r} is not the entry point's name "
                        f"{plugin.split(' ', 1)[0]!r}")
    if problems:
        raise PluginError(f"game plugin {plugin}: " + "; ".join(problems)
                          + " (see docs/reference/plugin-api.md)")


def _check_handler(game: Game, name: str, handler: Any) -> None:
    if not callable(handler) or not _accepts(handler, 2):
        raise PluginError(f"game plugin {game.name}: the handler of the command {name!r}, "
                          f"{_shown(handler, getattr(handler, '__name__', 'handler'))}, "
                          f"does not take (args, pack)")


# ---------------------------------------------------------------------------
# the registry


_REGISTRY: dict[str, Game] | None = None


def _discover() -> dict[str, Game]:
    found: dict[str, Game] = {}
    for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        if ep.name in found:
            continue
        game = ep.load()
        check_game(game, f"{ep.name} ({ep.value})")
        found[ep.name] = game
    return found


def registry() -> dict[str, Game]:
    """Every installed game by name (discovered and checked once per process)."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _discover()
    return _REGISTRY


def register(game: Game) -> None:
    """Add a game in this process (tests, embedding), checked as an installed one is;
    entry points are the usual way."""
    check_game(game, getattr(game, "name", "?"))
    registry()[game.name] = game


def games() -> Iterable[Game]:
    return registry().values()


def get_game(name: str, *, where: str = "pack.yaml", line: int | None = None) -> Game:
    """The game a pack's ``rules:`` names, or a located problem with the nearest name."""
    known = registry()
    game = known.get(name)
    if game is None:
        close = nearest(name, list(known))
        hint = (f"did you mean {close!r}?" if close else
                "install the game's plugin, or remove rules:") + \
            f" (installed games: {', '.join(sorted(known)) or 'none'})"
        raise InputError(Problem(f"no game {name!r} is installed", where, line, field="rules",
                                 hint=hint))
    return game


# ---------------------------------------------------------------------------
# the check stage: the game's rules


def run_rules(ctx: Context) -> list[Problem]:
    """Every rule of the pack's game, run on its model; how many ran is ``rules_run``."""
    game = ctx.game
    ran: list[str] = []
    problems: list[Problem] = []
    if game is not None:
        rules = game.rules()
        if not isinstance(rules, Mapping):
            raise PluginError(f"game plugin {game.name}: rules() returned "
                              f"{type(rules).__name__}, not a mapping of name -> rule")
        model = ctx.model if ctx.model is not None else ctx.dataset
        for name, rule in rules.items():
            if not callable(rule) or not _accepts(rule, 2):
                raise PluginError(f"game plugin {game.name}: the rule {name!r} is not a "
                                  f"function of (model, ctx)")
            found = list(rule(model, ctx) or ())
            bad = [p for p in found if not isinstance(p, Problem)]
            if bad:
                raise PluginError(f"game plugin {game.name}: the rule {name!r} returned "
                                  f"{type(bad[0]).__name__}, not a Problem")
            problems.extend(found)
            ran.append(name)
    ctx.__dict__["rules_run"] = tuple(ran)
    return problems


def rules_run(ctx: Context) -> tuple[str, ...]:
    """The names of the game's rules the check stage ran on ``ctx``."""
    return ctx.__dict__.get("rules_run", ())


def game_jobs(ctx: Context) -> list[Any]:
    """The game's job type modules that pack.yaml has entries for."""
    if ctx.game is None:
        return []
    return [module for module in ctx.game.job_types() if ctx.dataset.config.get(module.KEY)]


# ---------------------------------------------------------------------------
# pack.yaml's sections


def game_of_manifest(data: Any) -> Game | None:
    """The installed game a pack.yaml value names, if any (None also for an unknown
    one: the load stage reports that, located)."""
    name = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(name, str):
        return None
    return registry().get(name)


def manifest_schema(data: Any) -> Schema:
    """The schema a pack.yaml value is validated against (``dataset.load_manifest``'s
    ``schema_for``): the core's sections and those of the game its ``rules:`` names."""
    return pack_schema(game_of_manifest(data))


def pack_schema(game: Game | None) -> Schema:
    """The schema pack.yaml is validated against: the core's sections, and the game's
    own (``Game.pack_sections``) when it has any."""
    from ..schema import builtin_schema, with_sections
    core = builtin_schema("pack")
    path = game.pack_sections() if game is not None else None
    if path is None:
        return core
    ours = builtin_schema(Path(path).stem, Path(path).parent)
    clash = sorted(set(ours.fields) & set(core.fields))
    if clash:
        raise PluginError(f"game plugin {game.name}: its pack sections {', '.join(clash)} "
                          f"are the core's")
    for module in game.job_types():
        if getattr(module, "KEY", None) not in ours.fields:
            raise PluginError(f"game plugin {game.name}: job type {module.__name__}'s KEY "
                              f"{getattr(module, 'KEY', None)!r} is not one of its pack "
                              f"sections ({', '.join(sorted(ours.fields))})")
    return with_sections(core, ours)


# ---------------------------------------------------------------------------
# locating problems


def located(dataset: Dataset, ref: str, message: str, *, index: int | None = None,
            field: str | None = None, hint: str | None = None) -> Problem:
    """A problem at a data item: the list ``ref`` (``"file.key"``), its item ``index``
    and that item's ``field``, located at the file, line and column it was written."""
    return dataset.problem(ref, index, message, field, hint=hint)


@dataclass(frozen=True)
class Item:
    """One item of a data list, and how to locate a problem at it."""

    dataset: Dataset
    ref: str
    index: int
    value: Any

    def problem(self, message: str, field: str | None = None,
                hint: str | None = None) -> Problem:
        """A problem at this item (or at its ``field``), located."""
        return located(self.dataset, self.ref, message, index=self.index, field=field,
                       hint=hint)


def each_item(dataset: Dataset, ref: str) -> Iterator[Item]:
    """Each item of the list ``ref`` (``"file.key"``: ``"cards.cards"``), in order."""
    for index, value in enumerate(dataset.items(ref)):
        yield Item(dataset, ref, index, value)


# ---------------------------------------------------------------------------
# the command line


def commands_of(game: Game) -> list[str]:
    """The subcommands ``game`` adds."""
    parser = argparse.ArgumentParser(add_help=False)
    sub = parser.add_subparsers()
    game.add_commands(sub)
    return list(sub.choices)


def command_owner(command: str | None) -> Game | None:
    """The installed game whose command ``command`` is, if any."""
    if not command:
        return None
    for game in games():
        if command in commands_of(game):
            return game
    return None


def article(words: str) -> str:
    """``a`` or ``an`` before ``words``: an E.T.I., an eti, a tally, an X-Wing."""
    first = words.lstrip()[:1]
    initialism = bool(re.match(r"^[A-Z](\.|$|[A-Z]*\b)", words.lstrip()))
    if initialism:
        return "an" if first in "AEFHILMNORSX" else "a"
    return "an" if first.lower() in "aeiou" else "a"
