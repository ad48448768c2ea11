"""E.T.I.'s outputs beyond the card decks: boards, tokens, the rules booklet."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ...context import Context, Output, Progress


def boards(ctx: "Context", progress: "Progress" = None) -> list["Output"]:
    from ...render.boards import render_boards
    return render_boards(ctx, progress)


def tokens(ctx: "Context", progress: "Progress" = None) -> list["Output"]:
    from ...render.tokens import render_tokens
    return render_tokens(ctx, progress)


def booklet(ctx: "Context", progress: "Progress" = None) -> list["Output"]:
    from .booklet import render_booklet
    return render_booklet(ctx, progress)


RENDERERS = [boards, tokens, booklet]
