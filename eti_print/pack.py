"""Where a pack lives, and the one gate every file reference goes through.

A pack is a folder holding ``pack.yaml``, ``cards/`` (data and schemas),
``templates/`` (layouts, sheet settings, art, text templates) and ``fonts/``.
The shipped E.T.I. pack is the repository's top level in a checkout and
``eti_print/_pack`` in an installed wheel; the other bundled packs are
``packs/NAME`` in a checkout and ``eti_print/packs/NAME`` in a wheel.

A command given no pack works on the pack it stands in: the nearest folder
holding a ``pack.yaml``, the working folder or one above it (``find_pack``,
``choose_pack``), the way git finds its repository; only where there is none
does it fall back to the bundled E.T.I. pack.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .errors import fail
from .files import os_problem

_PACKAGE_DIR = Path(__file__).resolve().parent

#: The longest name of one file or folder most file systems allow, in bytes.
NAME_MAX = 255


#: The bundled E.T.I. pack's name (``eti-print build eti``).
ETI = "eti"


def _installed() -> bool:
    """Whether this is an installed wheel (the packs inside the package)."""
    return (_PACKAGE_DIR / "_pack" / "cards").is_dir()


def default_pack_root() -> Path:
    """The shipped E.T.I. pack: inside the installed package, else the checkout."""
    if _installed():
        return _PACKAGE_DIR / "_pack"
    return _PACKAGE_DIR.parent


def _bundled_base() -> Path:
    """The folder of the bundled packs other than E.T.I."""
    return _PACKAGE_DIR / "packs" if _installed() else _PACKAGE_DIR.parent / "packs"


def bundled_names() -> list[str]:
    """The names of the bundled packs, E.T.I. first: ``eti``, ``mad-scientists``, ..."""
    base = _bundled_base()
    try:
        found = sorted(p.name for p in base.iterdir() if (p / "cards").is_dir())
    except OSError:
        found = []
    return [ETI] + [name for name in found if name != ETI]


def bundled_pack(name: str) -> Path | None:
    """A pack shipped with eti-print by name (``eti``, ``sci-tech``), if there is one."""
    if name == ETI:
        return default_pack_root()
    if name in (".", "..") or "/" in name or os.sep in name:
        return None
    candidate = _bundled_base() / name
    return candidate if (candidate / "cards").is_dir() else None


def shared_fonts_dir(root: Path) -> Path | None:
    """Where a bundled pack of an installed wheel finds the fonts it names but does
    not hold: the E.T.I. pack's ``fonts/``.  The wheel holds each font file once
    (pyproject.toml leaves the copies in the other packs' ``fonts/`` out); any
    other pack has only its own fonts (None)."""
    if not _installed():
        return None
    base = (_PACKAGE_DIR / "packs").resolve()
    if root.resolve().parent != base:
        return None
    return (_PACKAGE_DIR / "_pack" / "fonts").resolve()


def find_pack(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest folder holding a ``pack.yaml``: ``start`` (default: the working
    folder) or the first folder above it that has one, as git finds its repository;
    None where there is none."""
    try:
        here = Path(os.getcwd() if start is None else start).absolute()
    except OSError:              # the working folder is gone
        return None
    for folder in (here, *here.parents):
        try:
            if (folder / "pack.yaml").is_file():
                return folder
        except OSError:          # a folder we may not look into: keep climbing
            continue
    return None


@dataclass(frozen=True)
class Choice:
    """The pack a command works on (``where``, as ``Pack.open`` takes it) and, when it
    is the bundled E.T.I. pack for want of a ``pack.yaml``, the one line that says so."""

    where: str | None
    notice: str | None = None


def choose_pack(where: str | os.PathLike[str] | None,
                start: str | os.PathLike[str] | None = None) -> Choice:
    """``where`` if given; else the pack the working folder (``start``) is in; else
    the bundled E.T.I. pack, with a notice."""
    if where is not None:
        return Choice(str(where))
    found = find_pack(start)
    if found is not None:
        return Choice(str(found))
    return Choice(None, f"no pack.yaml here or above; using the bundled E.T.I. pack at "
                        f"{default_pack_root().resolve()}")


def pack_help(what: str = "pack folder") -> str:
    """The help text of a command's PACK argument."""
    return (f"{what}, or a bundled pack's name ({', '.join(bundled_names())}); default: "
            f"the nearest pack.yaml in the working folder or above it, else the bundled "
            f"E.T.I. pack")


def _not_found(where: str | os.PathLike[str], path: Path) -> Exception:
    names = bundled_names()
    if not path.is_absolute() and len(path.parts) == 1:
        near = difflib.get_close_matches(str(path), names, n=1)
        if near:
            return fail(f"no pack {str(where)!r} (did you mean {near[0]}?)")
    return fail(f"pack folder not found: {where}",
                hint="give a folder that holds a cards/ folder, or a bundled pack: "
                     + ", ".join(names))


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
            raise _not_found(where, path)
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

    @property
    def shared_fonts_dir(self) -> Path | None:
        """Where fonts this pack names but does not hold are found, if anywhere."""
        return shared_fonts_dir(self.root)

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
    if any(len(part.encode("utf-8", "surrogateescape")) > NAME_MAX for part in pure.parts):
        raise fail(f"file name in {_short(ref)!r} is too long (over {NAME_MAX} bytes)",
                   path=where, line=line, field=field,
                   hint="keep each part of a path under 255 bytes")
    root = root.resolve()
    candidate = root / base / pure
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError) as exc:       # a symlink loop; a name too long
        raise _os_failure(exc, ref, where, line, field) from None
    try:
        resolved.relative_to(root)
    except ValueError:
        raise bad(f"{ref!r} leads outside the pack") from None
    try:
        found = resolved.exists()
    except (OSError, RuntimeError) as exc:
        raise _os_failure(exc, ref, where, line, field) from None
    if not found:
        raise fail(f"file not found: {ref}", path=where, line=line, field=field)
    return resolved


def _os_failure(exc: BaseException, ref: str, where: str | None, line: int | None,
                field: str | None) -> Exception:
    found = os_problem(exc, ref)
    return fail(f"{_short(ref)}: {found.message}", path=where, line=line, field=field,
                hint=found.hint)


def _short(ref: str) -> str:
    """A reference as quoted in a message: a very long one cut to its ends."""
    return ref if len(ref) <= 80 else f"{ref[:40]}...{ref[-20:]}"


_SLUG_RE = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """A safe output-file name part: lowercase ASCII letters, digits and dashes."""
    s = _SLUG_RE.sub("-", text.lower()).strip("-")
    return s or "unnamed"
