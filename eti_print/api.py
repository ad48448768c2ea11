"""The game plugin API: everything a game plugin may use, and nothing else is promised.

A plugin imports only from here::

    from eti_print.api import Game, CheckedPack, Problem, InputError, each_item

``docs/reference/plugin-api.md`` documents each name, and ``docs/tutorials/
game-plugin.md`` writes a game plugin end to end.  Names elsewhere in
``eti_print`` may change without notice.

* ``Game``: the base class of a game plugin; ``HOOKS``, the hook table (which
  stage calls which hook, and what it returns); ``Rule`` and ``Handler``, the
  types of a consistency rule and of a command's handler.
* ``CheckedPack``: what a game command gets, the pack loaded and checked as
  ``build`` loads and checks it (``.pack``, ``.dataset``, ``.model``, ``.config``,
  ``.context``).
* ``Dataset``: the validated data a game's ``model`` is built from
  (``items(ref)``, ``by_id(ref)``, ``docs``, ``config``); ``Context``: everything
  a build loaded (``dataset``, ``model``, ``fonts``, ``sheets``, ``options``).
* ``Problem``, ``InputError`` (exit 1: bad data), ``UsageError`` (exit 2: a bad
  command line), ``PluginError`` (a broken plugin), and the helpers that locate
  a problem at a data item: ``located``, ``each_item`` and its ``Item``.
"""

from __future__ import annotations

from .context import Context
from .dataset import Dataset
from .errors import InputError, PluginError, Problem, UsageError
from .games import HOOKS, CheckedPack, Game, Handler, Hook, Item, Rule, each_item, located

__all__ = ["HOOKS", "CheckedPack", "Context", "Dataset", "Game", "Handler", "Hook",
           "InputError", "Item", "PluginError", "Problem", "Rule", "UsageError", "each_item",
           "located"]
