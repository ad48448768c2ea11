"""Writing one export: every file staged, then all moved into place together.

An export streams its files (``add`` writes each as soon as it is encoded and
the caller drops it), so memory stays flat however many cards there are.  The
files go into a hidden staging folder beside their target folder, unsynced;
``commit`` syncs them once, for the whole export, then moves each into place
with ``os.replace`` and removes the pack's files the export no longer makes.
An exception or a kill before ``commit`` leaves the last good export as it was
(the staging folder is removed on an exception; a killed run's is removed by
the next export).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from ..errors import UsageError
from ..output import prepare_dir, refuse_in_the_way, write_failure

#: The files each export kind owns in its folder (stale ones of the pack are removed).
STALE = {"png": re.compile(r"\.png$"), "pdf": re.compile(r"\.pdf$"),
         "tts": re.compile(r"\.(jpg|png|json)$")}

_STAGE_PREFIX = ".staging-"


class StagedExport:
    """The files of one export into ``out_dir/folder``; use as a context manager."""

    def __init__(self, out_dir: Path, folder: str, slug: str):
        out = prepare_dir(out_dir)
        self.folder = out / folder
        if self.folder.is_symlink():
            raise UsageError(f"{self.folder} is a symbolic link; refusing to write through it")
        self.folder.mkdir(exist_ok=True)
        for old in self.folder.glob(f"{_STAGE_PREFIX}*"):   # left by a killed export
            shutil.rmtree(old, ignore_errors=True)
        self.kind = folder
        self.slug = slug
        self.stage = Path(tempfile.mkdtemp(prefix=_STAGE_PREFIX, dir=self.folder))
        self.names: list[str] = []
        self.bytes = 0

    def add(self, name: str, data: bytes) -> None:
        """Stage ``name`` (a file name inside the export's folder)."""
        if "/" in name or name.startswith("."):
            raise ValueError(f"not a plain file name: {name!r}")
        try:
            (self.stage / name).write_bytes(data)
        except OSError as exc:          # a full disk, a read-only folder: named, not raised
            raise write_failure(exc, self.folder / name) from None
        self.names.append(name)
        self.bytes += len(data)

    def written(self, name: str, size: int) -> None:
        """Count ``name`` as staged: a worker wrote it into ``stage`` itself."""
        if "/" in name or name.startswith("."):
            raise ValueError(f"not a plain file name: {name!r}")
        self.names.append(name)
        self.bytes += size

    def commit(self) -> list[Path]:
        """Sync once, move every staged file into place, remove stale files of the pack."""
        for name in self.names:          # a folder in the way stops the export before any move
            refuse_in_the_way(self.folder / name)
        if hasattr(os, "sync"):
            os.sync()
        else:  # pragma: no cover - no POSIX sync: one fsync per file
            for name in self.names:
                with open(self.stage / name, "rb+") as handle:
                    os.fsync(handle.fileno())
        written = []
        for name in self.names:
            target = self.folder / name
            os.chmod(self.stage / name, 0o644)
            os.replace(self.stage / name, target)
            written.append(target)
        keep = set(self.names)
        pattern = re.compile(rf"^{re.escape(self.slug)}-\d\d-")
        for old in sorted(self.folder.iterdir()):
            if (old.is_file() and old.name not in keep and pattern.match(old.name)
                    and STALE[self.kind].search(old.name)):
                old.unlink()
        self.stage.rmdir()
        return written

    def __enter__(self) -> StagedExport:
        return self

    def __exit__(self, *_: object) -> None:
        """Whatever was not committed (an exception, or no ``commit``) is discarded."""
        if self.stage.exists():
            shutil.rmtree(self.stage, ignore_errors=True)
