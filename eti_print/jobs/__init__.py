"""Job types: every output a pack declares in ``pack.yaml``, by section.

=============  ==============================================================
``decks``      cards, markers, chits and aids imposed on sheets (``decks.py``)
``boards``     layouts at true size, tiled onto sheets; ``for_each`` makes one
               board per item of a data list (``boards.py``)
``pieces``     tokens, standees, badges: pieces cut from sheets, in blocks or
               a grid of abutting cells (``pieces.py``)
``documents``  rules references and booklets from templates (``documents.py``)
=============  ==============================================================

Each job type module has ``KEY`` (its pack.yaml section), ``resolve(ctx)``
(every template evaluated, every text fitted, every document paginated:
a plan, or an ``InputError`` with every problem) and ``draw(ctx, plan,
progress)`` (the plan as ``Output``s).  A game may add job types of its own
(``Game.job_types``).  Nothing here knows any game.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context, Output, Progress

#: The job type modules, in the order their outputs are built and listed.
MODULES = ("decks", "boards", "pieces", "documents")


class Job:
    """One job type of one build: resolve its entries, then draw them."""

    def __init__(self, module: Any):
        """``module``: a job type module, or the name of one of ``MODULES``."""
        self.module = import_module(f"{__name__}.{module}") if isinstance(module, str) else module
        #: a stable name (the build cache keys outputs by it)
        self.name = self.module.__name__

    @property
    def key(self) -> str:
        return self.module.KEY

    def resolve(self, ctx: Context) -> Any:
        return self.module.resolve(ctx)

    def draw(self, ctx: Context, plan: Any, progress: Progress = None) -> list[Output]:
        return self.module.draw(ctx, plan, progress)

    def __call__(self, ctx: Context, progress: Progress = None) -> list[Output]:
        """Resolve and draw (what the build cache reuses as one unit); through the
        cache, the plan of an earlier run is reused while nothing it read changed."""
        plan = ctx.cache.plan(self, ctx) if ctx.cache is not None else self.resolve(ctx)
        return self.draw(ctx, plan, progress)

    def __repr__(self) -> str:
        return f"Job({self.key})"


def jobs_for(ctx: Context) -> list[Job]:
    """The job types this pack declares entries for."""
    config = ctx.dataset.config
    return [job for job in (Job(m) for m in MODULES) if config.get(job.key)]


def each_entry(ctx: Context, key: str, resolve: Any) -> list[Any]:
    """``resolve(index, entry)`` for every entry of a pack.yaml section, gathering every
    problem of every entry before raising them together."""
    from ..errors import InputError, Problem
    found: list[Any] = []
    problems: list[Problem] = []
    for index, entry in enumerate(ctx.dataset.config.get(key) or []):
        try:
            found.append(resolve(index, entry))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return found
