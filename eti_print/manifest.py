"""The build's manifest: every file with its hash and pages, what to print it on, the
options used and a hash of the pack's data."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .files import digest

if TYPE_CHECKING:  # pragma: no cover
    from .context import Context, Output
    from .dataset import Dataset


def manifest_name(ctx: Context) -> str:
    return ctx.output_name("manifest", "json")


#: A file larger than any reader takes (fonts, the largest, are capped at 32 MB) is
#: never read by a build, so the data hash counts it by name and size alone.
HASH_CAP = 32 * 1024 * 1024


def data_hash(ds: Dataset) -> str:
    """SHA-256 over the files of the pack a build can read: pack.yaml and the regular
    files under cards/, templates/ and fonts/, each through the file gate
    (``files.digest``: streamed, never a FIFO or a device, no symlink followed).  A
    file over every reader's cap (a 3 GB file under templates/) cannot be read by
    the build: it counts by name and size, and is never read."""
    h = hashlib.sha256()
    root = ds.pack.root
    for folder in ("cards", "templates", "fonts"):
        for path in _regular_files(root / folder):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(b"\0")
            h.update(_content_key(path))
    h.update(_content_key(root / "pack.yaml"))
    return h.hexdigest()


def build_data_hash(ctx: Context) -> str:
    """``data_hash`` of the build's pack, worked out once per build (``ctx.memo``): a
    build through a cache works it out while a forked child renders."""
    found = ctx.memo.get("data_sha256")
    if found is None:
        found = ctx.memo["data_sha256"] = data_hash(ctx.dataset)
    return found


def _regular_files(base: Path) -> list[Path]:
    """The regular files under ``base``, symlinks neither followed nor listed."""
    found = []
    if base.is_symlink() or not base.is_dir():
        return found
    for folder, dirs, names in os.walk(base, followlinks=False):
        dirs.sort()
        for name in names:
            path = Path(folder) / name
            try:
                if stat.S_ISREG(os.lstat(path).st_mode):
                    found.append(path)
            except OSError:
                continue
    return sorted(found)


def _content_key(path: Path) -> bytes:
    try:
        size = os.lstat(path).st_size
    except OSError:
        return b"missing"
    if size > HASH_CAP:
        return f"large {size}".encode()      # never read: size only (deterministic)
    return digest(path, HASH_CAP)


def manifest(ctx: Context, outputs: list[Output]) -> bytes:
    files = [{
        "file": o.name,
        "kind": o.kind,
        "sha256": hashlib.sha256(o.data).hexdigest(),
        "bytes": len(o.data),
        "pages": o.pages,
        "print_on": o.stock,
        "counts": o.counts,
    } for o in outputs]
    o = ctx.options
    # What to print on what: each stock with its files and page count.
    stock: dict[str, dict[str, Any]] = {}
    for f in files:
        entry = stock.setdefault(f["print_on"], {"files": [], "pages": 0})
        entry["files"].append(f["file"])
        entry["pages"] += f["pages"]
    # Cards per deck, and the file that holds each deck.
    decks = {}
    for deck in ctx.dataset.config.get("decks") or []:
        holder = next((f for f in files if f["kind"] == "cards" and deck["id"] in f["counts"]),
                      None)
        if holder is not None:
            decks[deck["id"]] = {"title": deck["title"], "cards": holder["counts"][deck["id"]],
                                 "file": holder["file"]}
    flip = {"long": "double-sided, flip on the long edge",
            "short": "double-sided, flip on the short edge",
            "none": "single-sided; backs on their own sheets"}.get(o.duplex, o.duplex)
    from . import __version__
    body = {
        "pack": ctx.title,
        "slug": ctx.slug,
        "generator": f"eti-print {__version__}",
        "data_sha256": build_data_hash(ctx),
        "options": {"paper": o.paper, "duplex": o.duplex,
                    "back_offset_mm": list(o.back_offset),
                    "ink_saver": o.ink_saver, "booklet": o.booklet},
        "print": {"paper": o.paper.upper(), "scale": "100 % (actual size), never fit to page",
                  "card sheets": flip,
                  "back offset": f"{o.back_offset[0]:g},{o.back_offset[1]:g} mm"},
        "files": files,
        "stock": stock,
        "decks": decks,
        "totals": {"files": len(files), "pages": sum(f["pages"] for f in files),
                   "bytes": sum(f["bytes"] for f in files),
                   "cards": sum(d["cards"] for d in decks.values()),
                   "pages_by_stock": {k: v["pages"] for k, v in stock.items()}},
    }
    return (json.dumps(body, indent=2, sort_keys=False) + "\n").encode()

