"""Writing outputs: atomically, reproducibly, and only inside the output folder.

A build's files are a set (the PDFs and the manifest that describes them), and
the set is replaced whole (``staged``, ``write_set``): every file is first
written and synced into a staging folder inside the output folder
(``.eti-print-staging-*``), and only when all are there are they moved into
place, one ``os.replace`` each, the manifest last, under an exclusive lock on
the output folder, so two builds into one folder never interleave their files.
A failure while staging (a full disk, a file-size limit, a kill) removes the
staging folder and leaves the previous set whole; a folder where an output file
goes is found before the first rename.

A single file (``atomic_path``, ``write_bytes``) is written to a temporary file
beside it and moved into place the same way.  Every ``OSError`` of writing is a
problem naming the path (exit 1), never a traceback.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from .errors import UsageError, fail


def source_date_epoch() -> int:
    """The build timestamp: ``SOURCE_DATE_EPOCH`` if set, else a fixed date.

    A fixed default keeps two builds of the same input byte-identical.
    """
    raw = os.environ.get("SOURCE_DATE_EPOCH")
    if raw is None or raw == "":
        return 0
    # ASCII digits only: str.isdigit() also takes superscripts ("¹"), which int() refuses
    if not re.fullmatch(r"[0-9]+", raw) or len(raw) > 12:
        raise UsageError(f"SOURCE_DATE_EPOCH must be a whole number of seconds (got {raw!r})")
    value = int(raw)
    if value > 253402300799:  # 9999-12-31
        raise UsageError(f"SOURCE_DATE_EPOCH is out of range (got {raw})")
    return value


def prepare_dir(out_dir: Path) -> Path:
    """Create the output folder (not a symlink) and return it resolved."""
    if out_dir.is_symlink():
        raise fail(f"output folder {out_dir} is a symbolic link; refusing to write through it")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise fail(f"cannot create output folder {out_dir}: a file of that name is in "
                   "the way", path=str(out_dir)) from None
    except OSError as exc:
        raise fail(f"cannot create output folder {out_dir}: {exc.strerror}",
                   path=str(out_dir)) from None
    return out_dir.resolve()


def write_failure(exc: OSError, target: Path) -> Exception:
    """An ``OSError`` of writing ``target`` as a problem naming it."""
    hint = "the previous output is left as it was"
    if exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        hint = "the disk is full (or a file-size limit was hit); " + hint
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        hint = "the output folder is not writable; give another with --out; " + hint
    return fail(f"cannot write: {exc.strerror or exc}", path=str(target), hint=hint)


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on success move it into place.

    On any exception the temporary file is removed and ``target`` is untouched.
    A symlink at ``target`` is replaced by the new file, never written through.
    """
    refuse_in_the_way(target)
    tmp: Path | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                        dir=target.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        yield tmp
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as exc:
        _remove(tmp)
        raise write_failure(exc, target) from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(path: Path | None) -> None:
    if path is None:
        return
    try:
        path.unlink()
    except OSError:
        pass


def refuse_in_the_way(target: Path) -> None:
    """A folder (or a FIFO, a device) where an output file goes is a problem naming it."""
    try:
        info = os.lstat(target)
    except OSError:
        return
    if stat.S_ISDIR(info.st_mode):
        raise fail("a folder is where this output file goes; move it away", path=str(target))
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
        raise fail("something other than a file is where this output file goes",
                   path=str(target))


def write_bytes(target: Path, data: bytes) -> None:
    """Atomically replace ``target`` with ``data``."""
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def write_text(target: Path, text: str) -> None:
    write_bytes(target, text.encode("utf-8"))


#: The prefix of a build's staging folder inside the output folder.
STAGING = ".eti-print-staging-"


class Stage:
    """The files of one set as they are staged (``staged``): ``write(name, data)``
    puts one on disk in the staging folder at once (an export can stream)."""

    def __init__(self, out: Path, folder: Path):
        self.out = out
        self.folder = folder
        self.names: list[str] = []

    def target(self, name: str) -> Path:
        pure = PurePosixPath(name)
        if pure.is_absolute() or ".." in pure.parts or not pure.parts:
            raise ValueError(f"output name {name!r} is not a plain relative path")
        return self.out.joinpath(*pure.parts)

    def write(self, name: str, data: bytes) -> Path:
        """Stage ``data`` as ``name`` (relative to the output folder; the last file
        staged is the last moved into place: the manifest)."""
        target = self.target(name)
        refuse_in_the_way(target)
        staged = self.folder.joinpath(*PurePosixPath(name).parts)
        try:
            staged.parent.mkdir(parents=True, exist_ok=True)
            with open(staged, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(staged, 0o644)
        except OSError as exc:
            raise write_failure(exc, target) from None
        if name in self.names:
            self.names.remove(name)
        self.names.append(name)
        return target

    def commit(self) -> list[Path]:
        """Move every staged file into place, in the order staged, under the lock."""
        targets = [self.target(name) for name in self.names]
        for target in targets:
            refuse_in_the_way(target)
        with _locked(self.out):
            for name, target in zip(self.names, targets):
                try:
                    refuse_in_the_way(target)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(self.folder.joinpath(*PurePosixPath(name).parts), target)
                except OSError as exc:
                    raise write_failure(exc, target) from None
            _sync_dir(self.out)
        return targets


@contextmanager
def staged(out_dir: Path) -> Iterator[Stage]:
    """A staging folder inside ``out_dir`` (created, not a symlink): files written to
    the ``Stage`` go into place together when the block ends without an exception;
    on any exception none does, and the staging folder is removed."""
    out = prepare_dir(out_dir)
    try:
        folder = Path(tempfile.mkdtemp(prefix=STAGING, dir=out))
    except OSError as exc:
        raise fail(f"cannot write to the output folder: {exc.strerror or exc}",
                   path=str(out_dir), hint="give a writable folder with --out") from None
    try:
        stage = Stage(out, folder)
        yield stage
        stage.commit()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write_set(out_dir: Path, files: Iterable[tuple[str, bytes]]) -> list[Path]:
    """Write ``(name, data)`` files as one set (``staged``); the last goes in last."""
    with staged(out_dir) as stage:
        for name, data in files:
            stage.write(name, data)
        return [stage.target(name) for name in stage.names]


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """An exclusive lock on ``folder`` itself (no lock file is left behind)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _sync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
