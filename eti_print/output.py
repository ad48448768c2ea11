"""Writing outputs: atomically, reproducibly, and only inside the output folder.

Every file is written to a temporary file in the same folder and moved into
place with ``os.replace``, so an exception, a full disk or a kill never leaves
a truncated file where the previous good one was.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .errors import UsageError, fail


def source_date_epoch() -> int:
    """The build timestamp: ``SOURCE_DATE_EPOCH`` if set, else a fixed date.

    A fixed default keeps two builds of the same input byte-identical.
    """
    raw = os.environ.get("SOURCE_DATE_EPOCH")
    if raw is None or raw == "":
        return 0
    if not raw.isdigit() or len(raw) > 12:
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
    except OSError as exc:
        raise fail(f"cannot create output folder {out_dir}: {exc.strerror}") from None
    return out_dir.resolve()


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on success move it into place.

    On any exception the temporary file is removed and ``target`` is untouched.
    A symlink at ``target`` is replaced by the new file, never written through.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


def write_bytes(target: Path, data: bytes) -> None:
    """Atomically replace ``target`` with ``data``."""
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)


def write_text(target: Path, text: str) -> None:
    write_bytes(target, text.encode("utf-8"))
