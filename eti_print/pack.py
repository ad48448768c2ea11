"""Where a pack lives, and the one gate every file reference goes through.

A pack is a folder holding ``cards/`` (data and schemas), ``templates/``
(layouts, sheet settings, art, text templates) and ``fonts/``.  The shipped
E.T.I. pack is the repository's top level in a checkout and ``eti_print/_pack``
in an installed wheel.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .errors import fail

_PACKAGE_DIR = Path(__file__).resolve().parent


def default_pack_root() -> Path:
    """The shipped E.T.I. pack: inside the installed package, else the checkout."""
    installed = _PACKAGE_DIR / "_pack"
    if (installed / "cards").is_dir():
        return installed
    return _PACKAGE_DIR.parent


def bundled_pack(name: str) -> Path | None:
    """A pack shipped with eti-print by name (``sci-tech``), if there is one."""
    for base in (_PACKAGE_DIR / "packs", _PACKAGE_DIR.parent / "packs"):
        if (base / name / "cards").is_dir():
            return base / name
    return None


@dataclass(frozen=True)
class Pack:
    """A pack folder; ``root`` is absolute and resolved."""

    root: Path

    @classmethod
    def open(cls, where: str | os.PathLike[str] | None) -> Pack:
        if where is None:
            return cls(default_pack_root().resolve())
        path = Path(where)
        if not path.exists() and not path.is_absolute() and len(path.parts) == 1:
            shipped = bundled_pack(str(path))
            if shipped is not None:
                path = shipped
        if not path.is_dir():
            raise fail(f"pack folder not found: {where}",
                       hint="give a folder that holds a cards/ folder")
        if not (path / "cards").is_dir():
            raise fail(f"not a pack: {where} has no cards/ folder", path=str(where))
        return cls(path.resolve())

    @property
    def cards_dir(self) -> Path:
        return self.root / "cards"

    @property
    def templates_dir(self) -> Path:
        return self.root / "templates"

    @property
    def fonts_dir(self) -> Path:
        return self.root / "fonts"

    def display(self, path: Path) -> str:
        """A path as shown in messages: relative to the pack, POSIX style."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def resolve(self, ref: str, base: str = "", *, where: str | None = None,
                line: int | None = None, field: str | None = None) -> Path:
        """Resolve a file reference from data or templates, confined to the pack.

        ``ref`` is a relative POSIX path; ``base`` a pack-relative folder it is
        relative to.  No absolute paths, no ``..``, and no symlink that leads
        outside the pack.  ``where``/``line``/``field`` locate the reference in
        error messages.
        """
        return confine(self.root, ref, base, where=where, line=line, field=field)


def confine(root: Path, ref: str, base: str = "", *, where: str | None = None,
            line: int | None = None, field: str | None = None) -> Path:
    """Resolve ``base/ref`` under ``root`` refusing anything that escapes it."""
    def bad(message: str) -> Exception:
        return fail(message, path=where, line=line, field=field,
                    hint="file references are relative paths inside the pack")

    if not isinstance(ref, str) or not ref:
        raise bad(f"file reference must be a non-empty string (got {ref!r})")
    if "\\" in ref or "\x00" in ref or re.match(r"^[A-Za-z]:", ref):
        raise bad(f"file reference {ref!r} is not a plain relative path")
    pure = PurePosixPath(ref)
    if pure.is_absolute():
        raise bad(f"absolute path {ref!r} is not allowed")
    if ".." in pure.parts:
        raise bad(f"'..' in {ref!r} is not allowed")
    root = root.resolve()
    candidate = root / base / pure
    resolved = candidate.resolve()
    try:
        resolved.relative_to(root)
    except ValueError:
        raise bad(f"{ref!r} leads outside the pack") from None
    if not resolved.exists():
        raise fail(f"file not found: {ref}", path=where, line=line, field=field)
    return resolved


_SLUG_RE = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """A safe output-file name part: lowercase ASCII letters, digits and dashes."""
    s = _SLUG_RE.sub("-", text.lower()).strip("-")
    return s or "unnamed"
