"""Reading one art file: a regular file inside the pack, of bounded size."""

from __future__ import annotations

from pathlib import Path

from ..files import read

#: Largest art file read, in bytes (SVG, PNG or JPEG).
MAX_BYTES = 2 * 1024 * 1024


def read_capped(path: Path, shown: str, cap: int = MAX_BYTES) -> bytes:
    """Read a regular file of at most ``cap`` bytes through the one gate
    (``eti_print.files.read``), refusing anything else."""
    return read(path, shown, cap, what="art file")
