"""The mutations the hostile tables apply to a throwaway pack: each returns a
function of the pack's root that breaks one thing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conftest import edit


def replace(rel: str, old: str, new: str) -> Callable[[Path], None]:
    """Replace the first ``old`` in the pack file ``rel`` (which must hold it)."""
    return lambda pack: edit(pack / rel, old, new)


def write(rel: str, content: str | bytes) -> Callable[[Path], None]:
    """Write ``content`` (text or bytes) to the pack file ``rel``, folders and all."""
    def apply(pack: Path) -> None:
        path = pack / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return apply


def both(*mutations: Callable[[Path], None]) -> Callable[[Path], None]:
    """Every mutation in turn."""
    def apply(pack: Path) -> None:
        for m in mutations:
            m(pack)
    return apply
