"""Reading one art file: a regular file inside the pack, of bounded size."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import fail

#: Largest art file read, in bytes (SVG, PNG or JPEG).
MAX_BYTES = 2 * 1024 * 1024


def read_capped(path: Path, shown: str, cap: int = MAX_BYTES) -> bytes:
    """Read a regular file of at most ``cap`` bytes, refusing anything else.

    The final path component is opened without following symlinks and
    without blocking (a FIFO neither hangs nor is read); devices, FIFOs and
    folders are refused by ``fstat`` on the open descriptor.
    """
    flags = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise fail(f"cannot open art file: {exc.strerror or exc}", path=shown) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise fail("is not a regular file", path=shown,
                       hint="art must be a plain .svg, .png or .jpg file inside the pack")
        if info.st_size > cap:
            raise fail(f"is {info.st_size} bytes; art files are limited to {cap} bytes",
                       path=shown)
        chunks: list[bytes] = []
        remaining = cap + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > cap:
        raise fail(f"is larger than {cap} bytes (the art file limit)", path=shown)
    return data
