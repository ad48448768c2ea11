"""The one gate every pack file is read through.

A pack is shared, so every file in it is hostile.  ``read`` is the only way
eti-print opens a file of a pack (pack.yaml, data, schemas, sheet and board
settings, fonts and ``fonts.yaml``, layouts, templates, art, a data file an
export reads).  It:

* resolves the path and refuses one that leads outside the pack (``root``):
  a symlink anywhere on the way, the file itself included, is followed only
  while it stays inside;
* reports a symlink loop and a name too long for the file system as problems
  of the file, never as ``RuntimeError`` or ``OSError``;
* refuses anything that is not a regular file (a FIFO, a device, a socket, a
  folder) before opening it, and opens without following a last symlink and
  without blocking, checking the open descriptor again (``fstat``);
* refuses a file over its cap before reading a byte, and never reads more
  than the cap;
* never follows a last symlink and opens nothing but a regular file.

``digest`` is the same gate for content keys (the manifest's data hash, the
build cache): a streamed SHA-256 that never reads past its cap and never opens
a FIFO or a device.

``exists`` and ``is_file`` answer for a path without raising (a name too
long, a loop: no), for the readers that look before they read.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from .errors import InputError, Problem

_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
          | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symbolic link"))


#: The message for anything ``read`` refuses to open: a FIFO, a device, a folder...
NOT_REGULAR = "is not a regular file"


def _too_large(what: str, size: int, cap: int) -> str:
    if what == "file":
        return f"file is too large ({size} bytes; the limit is {cap})"
    return f"is {size} bytes; {what}s are limited to {cap} bytes"


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def os_problem(exc: BaseException, shown: str, *, line: int | None = None,
               field: str | None = None) -> Problem:
    """An ``OSError`` (or the ``RuntimeError`` of a symlink loop) as a problem of
    ``shown``, in words."""
    code = getattr(exc, "errno", None)
    if isinstance(exc, RuntimeError) or code == errno.ELOOP:
        return Problem("symbolic link loop", shown, line, field=field,
                       hint="a link that leads back to itself; point it at a file")
    if code == errno.ENAMETOOLONG:
        return Problem("file name is too long for the file system", shown, line, field=field,
                       hint="keep each part of a path under 255 bytes")
    if code in (errno.ENOENT, errno.ENOTDIR):
        return Problem("file not found", shown, line, field=field)
    if code == errno.EACCES:
        return Problem("cannot read file: permission denied", shown, line, field=field)
    text = getattr(exc, "strerror", None) or str(exc)
    return Problem(f"cannot read file: {text}", shown, line, field=field)


def resolve_inside(root: Path, path: Path, shown: str, *, line: int | None = None,
                   field: str | None = None) -> Path:
    """``path`` with every symlink followed, refusing a loop, a name too long, a missing
    file and any path that ends outside ``root``."""
    try:
        resolved = path.resolve(strict=True)
        top = root.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise InputError(os_problem(exc, shown, line=line, field=field)) from None
    if resolved != top and top not in resolved.parents:
        raise InputError(Problem("leads outside the pack (a symbolic link to a file "
                                 "elsewhere)", shown, line, field=field,
                                 hint="a pack may link only to files inside it"))
    return resolved


def _chunks(fd: int, limit: int) -> Iterator[bytes]:
    """The open file ``fd``'s bytes in chunks of at most 1 MiB, never more than ``limit``
    of them in all (a file that grows while it is read is cut off there)."""
    remaining = limit
    while remaining > 0:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            return
        yield chunk
        remaining -= len(chunk)


def read(path: Path, shown: str, cap: int, *, root: Path | None = None,
         line: int | None = None, field: str | None = None, what: str = "file") -> bytes:
    """The bytes of the regular file ``path`` (shown as ``shown``), at most ``cap`` of
    them, inside ``root`` when given; anything else is an ``InputError`` naming it."""
    def problem(message: str, hint: str | None = None) -> InputError:
        return InputError(Problem(message, shown, line, field=field, hint=hint))

    if root is not None:
        path = resolve_inside(root, path, shown, line=line, field=field)
    try:
        info = os.lstat(path)
    except (OSError, RuntimeError) as exc:
        raise InputError(os_problem(exc, shown, line=line, field=field)) from None
    if not stat.S_ISREG(info.st_mode):
        raise problem(NOT_REGULAR, hint=f"it is {_kind(info.st_mode)}; a {what} must be a "
                                        f"plain file inside the pack")
    if info.st_size > cap:
        raise problem(_too_large(what, info.st_size, cap))
    try:
        fd = os.open(path, _FLAGS)
    except (OSError, RuntimeError) as exc:
        raise InputError(os_problem(exc, shown, line=line, field=field)) from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):       # swapped between the look and the open
            raise problem(NOT_REGULAR, hint=f"it is {_kind(opened.st_mode)}")
        chunks = list(_chunks(fd, cap + 1))
    except OSError as exc:
        raise InputError(os_problem(exc, shown, line=line, field=field)) from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > cap:
        raise problem(_too_large(what, len(data), cap))
    return data


def exists(path: Path) -> bool:
    """Whether ``path`` exists; False, never an exception, for a loop or a name too long."""
    try:
        return path.exists()
    except (OSError, RuntimeError, ValueError):
        return False


def is_file(path: Path) -> bool:
    """Whether ``path`` is a regular file (after symlinks); False rather than raising."""
    try:
        return path.is_file()
    except (OSError, RuntimeError, ValueError):
        return False


#: Inside ``digests_kept``: each file's digest as first worked out, by path and cap.
_KEPT: ContextVar[dict[tuple[str, int], bytes] | None] = ContextVar("eti_print_digests",
                                                                    default=None)


@contextmanager
def digests_kept() -> Iterator[None]:
    """Within the block (one build: the resources' key, the global key and the
    manifest's data hash all read the fonts), each file is digested once; the first
    digest stands for the block.  Nested blocks share the outer one's."""
    if _KEPT.get() is not None:
        yield
        return
    token = _KEPT.set({})
    try:
        yield
    finally:
        _KEPT.reset(token)


def digest(path: Path, cap: int) -> bytes:
    """A content key of the file at ``path`` for caches, never reading more than ``cap``
    bytes: the SHA-256 of a regular file up to ``cap``; its size and change time for a
    larger one; a marker for anything that is not a regular file.  Inside
    ``digests_kept``, worked out once per file."""
    kept = _KEPT.get()
    if kept is None:
        return _digest(path, cap)
    key = (os.fspath(path), cap)
    found = kept.get(key)
    if found is None:
        found = kept[key] = _digest(path, cap)
    return found


def _digest(path: Path, cap: int) -> bytes:
    try:
        info = os.stat(path)
    except (OSError, RuntimeError, ValueError):
        return b"missing"
    if not stat.S_ISREG(info.st_mode):
        return b"not a file"
    if info.st_size > cap:
        return f"large {info.st_size} {info.st_mtime_ns}".encode()
    h = hashlib.sha256()
    try:
        fd = os.open(path, _FLAGS & ~getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return b"unreadable"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b"not a file"
        for chunk in _chunks(fd, cap + 1):
            h.update(chunk)
    except OSError:
        return b"unreadable"
    finally:
        os.close(fd)
    return h.digest()
