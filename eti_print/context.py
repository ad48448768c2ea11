"""What one build shares between its stages: the loaded pack, and rendered outputs.

Nothing here renders or loads; the stages in ``pipeline`` fill these in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .options import PrintOptions

if TYPE_CHECKING:  # pragma: no cover
    from .dataset import Dataset
    from .fonts import FontSet
    from .layout import LayoutLibrary
    from .pack import Pack
    from .sheets import SheetSettings

Progress = Callable[[str], None] | None


@dataclass
class Context:
    """Everything loaded for one build, shared by the job types."""

    pack: Pack
    dataset: Dataset
    fonts: FontSet
    art: Any
    env: Any
    layouts: LayoutLibrary
    sheets: SheetSettings
    options: PrintOptions
    model: Any = None        # the game's model of the data (None for a pack without a game)
    game: Any = None         # the pack's game plugin (eti_print.games.Game), if any
    cache: Any = None        # a cache.BuildCache when rebuilding in one process (watch)
    #: What one stage worked out for a later one of this build (``jobs.boards.placed``).
    memo: dict[Any, Any] = field(default_factory=dict)

    @property
    def slug(self) -> str:
        return self.dataset.slug

    @property
    def title(self) -> str:
        return self.dataset.config["name"]

    def output_name(self, stem: str, ext: str = "pdf") -> str:
        return self.options.output_name(self.slug, stem, ext)


@dataclass
class Output:
    """One rendered file, not yet written."""

    name: str
    data: bytes
    pages: int
    kind: str
    stock: str
    counts: dict[str, int] = field(default_factory=dict)
