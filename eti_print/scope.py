"""What every template sees: one context for cards, boards, pieces and documents.

Every template of every output gets the same base names:

* ``data``: every data file's value by name (read on first use);
* ``lookup(list, id)``: the item of a list (``projects.projects``) with that id;
* ``pack``: ``name`` and ``slug``;
* ``options``: the print options (``paper``, ``duplex``, ``ink_saver``, ``booklet``);
* ``print``: the same, the name reference templates have always used;
* ``ink_saver``: true in an ink-saver build (layouts leave decoration out with ``when``);
* ``roman(n)``: 1 -> I ... 10 -> X;
* ``ink_on(colour)``: cream or navy, whichever reads better on ``colour``;

plus the pack's game's ``template_globals``; then each job type adds the
names of what it draws (``card``, ``board``, ``item``, ``reference``); and
last, for an output entry with ``context: NAME``, what the game gives for that
name and item (its most specific names win).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .colour import ink_on

if TYPE_CHECKING:  # pragma: no cover
    from .context import Context

ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X")


def roman(n: Any) -> str:
    return ROMAN[int(n) - 1]


class DocsView(Mapping):
    """Every data file's value by name (``data`` in templates), read on first use.

    Lazy rather than a dict of every file, so that the build cache
    (``eti_print.cache``) sees which data files a template really reads.
    """

    def __init__(self, docs: Mapping[str, Any]):
        self._docs = docs

    def __getitem__(self, name: str) -> Any:
        return self._docs[name].data

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._docs))

    def __len__(self) -> int:
        return len(self._docs)


def _lookup(ds: Any):
    def lookup(list_ref: str, item_id: Any) -> Any:
        found = ds.by_id(list_ref).get(item_id)
        if found is None:
            raise ValueError(f"no {item_id!r} in {list_ref}")
        return found
    return lookup


def base_context(ctx: Context, entry_context: str | None = None, item: Any = None,
                 **names: Any) -> dict[str, Any]:
    """The names every template sees, the game's, an entry's ``context:``, then ``names``."""
    ds = ctx.dataset
    o = ctx.options
    options = {"paper": o.paper, "duplex": o.duplex, "ink_saver": bool(o.ink_saver),
               "booklet": bool(o.booklet)}
    context: dict[str, Any] = {
        "data": DocsView(ds.docs),
        "lookup": _lookup(ds),
        "pack": {"name": ds.config["name"], "slug": ds.slug},
        "options": options,
        "print": options,
        "ink_saver": bool(o.ink_saver),
        "roman": roman,
        "ink_on": ink_on,
    }
    game = ctx.game
    if game is not None:
        context.update(_globals(ctx, game))
    context.update(names)
    if game is not None and entry_context is not None:
        context.update(game.context(entry_context, ctx, item))
    return context


def _globals(ctx: Context, game: Any) -> dict[str, Any]:
    """The game's template globals, made once per context (a tracked copy of a context,
    in the build cache, gets its own, so that what they read is recorded)."""
    found = ctx.__dict__.get("_game_globals")
    if found is None:
        found = ctx.__dict__["_game_globals"] = game.template_globals(ctx)
    return found
