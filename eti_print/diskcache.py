"""The persistent build cache: what a finished build or validate made, on disk.

A cold ``eti-print build`` of a pack nothing changed in since the last build
reads it back here instead of loading, checking, resolving and drawing it all
again.  An entry is keyed by the content hash of everything the command reads:

* the pack's files (``pack.yaml``, ``cards/``, ``templates/``, ``fonts/``: the
  only folders ``pack.Pack`` lets a reference reach), names and bytes;
* eti-print's own files (every file of the package: code, schemas, defaults,
  bundled fonts) and the installed distributions beside it (their
  ``*.dist-info`` names carry their versions: reportlab, jinja2, ...), and
  the Python version;
* the print options as given, the ``SOURCE_DATE_EPOCH`` the PDFs are dated
  with, and the command (build or validate, verbose or not).

Nothing a build makes depends on where the pack or the output folder is, so
neither is part of the key.  Only success is stored: a failed command raises
before anything is written, and its problems are found afresh every time.

Entries live in the user's cache folder (``platformdirs``), or in the folder
``ETI_PRINT_CACHE_DIR`` names (the tests set it).  Each is written to a
temporary file and renamed into place, so two processes at once each see a
whole entry or none; every entry carries a SHA-256 of its payload, so a torn
or altered file is a miss, never a wrong output.  The folder is bounded
(``MAX_BYTES``): after a write the least recently used entries beyond it go.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import pickle
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: Bumped whenever the format of an entry changes.
FORMAT = b"eti-print-cache-1"

#: Environment variable naming the cache folder (overrides the user's cache folder).
ENV_DIR = "ETI_PRINT_CACHE_DIR"

#: ``off`` in this environment variable: no persistent build cache (as ``--no-cache``),
#: while compiled templates and checked schemas are still kept (the tests set it).
ENV_BUILDS = "ETI_PRINT_BUILD_CACHE"

#: The folder's bound: least recently used entries beyond it are deleted.
MAX_BYTES = 256 * 1024 * 1024

#: The folders of a pack a build reads (``pack.Pack``).
PACK_PARTS = ("pack.yaml", "cards", "templates", "fonts")

_PACKAGE_DIR = Path(__file__).resolve().parent
#: A code file modified less than this long ago (ns) keeps ``code_hash`` from being kept.
RACY_NS = 2_000_000_000
_code_hash: str | None = None


def cache_dir() -> Path:
    """Where entries live: ``ETI_PRINT_CACHE_DIR``, else the user's cache folder."""
    named = os.environ.get(ENV_DIR)
    if named:
        return Path(named)
    import platformdirs
    return Path(platformdirs.user_cache_dir("eti-print", appauthor=False))


def _files(root: Path, parts: tuple[str, ...], skip: tuple[str, ...] = ()
           ) -> list[tuple[str, str | None]]:
    """The files under ``root`` of each of ``parts`` (a file or a folder), in a fixed
    order (``os.walk``'s, each folder's files sorted, then its folders, sorted; a link
    to a folder is passed over): ``(name relative to root, path)``, or ``(part, None)``
    for a missing part."""
    found: list[tuple[str, str | None]] = []
    for part in parts:
        base = os.path.join(root, part)
        if os.path.isfile(base):
            found.append((part, base))
        elif os.path.isdir(base):
            _walk(base, part, skip, found)
        else:
            found.append((part, None))
    return found


def _walk(folder: str, name: str, skip: tuple[str, ...],
          found: list[tuple[str, str | None]]) -> None:
    try:
        with os.scandir(folder) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        return
    folders = []
    for entry in entries:
        if entry.is_dir():
            if entry.name not in skip and not entry.is_symlink():
                folders.append(entry)
        else:
            found.append((f"{name}/{entry.name}", entry.path))
    for entry in folders:
        _walk(entry.path, f"{name}/{entry.name}", skip, found)


def _hash_files(h: Any, files: list[tuple[str, str | None]]) -> None:
    for name, path in files:
        if path is None:
            h.update(b"missing " + name.encode() + b"\0")
            continue
        h.update(name.encode("utf-8", "surrogateescape") + b"\0")
        try:
            with open(path, "rb") as handle:
                h.update(hashlib.sha256(handle.read()).digest())
        except OSError:
            h.update(b"unreadable")


def _tree(h: Any, root: Path, parts: tuple[str, ...], skip: tuple[str, ...] = ()) -> None:
    _hash_files(h, _files(root, parts, skip))


def code_hash() -> str:
    """eti-print's own files, the installed distributions and Python (once a process).

    The files' bytes are read only when one of them may have changed: the hash is kept
    in the cache folder under the files' names, sizes, modification times (in
    nanoseconds) and inode numbers, and read back while all of them are the same;
    it is kept only when every file is older than a couple of seconds.
    Python recompiles a module only when its source's size or modification time (in
    whole seconds) changes, so an edit this would miss is one Python would not run."""
    global _code_hash
    if _code_hash is None:
        files, installed = _code_files()
        head = FORMAT + sys.version.encode()
        names = "\0".join(installed).encode("utf-8", "surrogateescape")
        stats = _stats(files)
        stamp = hashlib.sha256(head + names + repr(stats).encode(
            "utf-8", "surrogateescape")).hexdigest()
        memo_path = cache_dir() / "code-hashes.bin"
        memo = read_blob(memo_path, marshal.loads) if _enabled else None
        memo = memo if isinstance(memo, dict) else {}
        found = memo.get(stamp)
        if not isinstance(found, str):
            h = hashlib.sha256(head)
            _hash_files(h, files)
            h.update(names)
            found = h.hexdigest()
            # kept only once every file is older than RACY_NS: a file written again in the
            # same clock tick as the stamp was taken would keep its stamp (git's "racy
            # clean" files)
            newest = max((stat[2] for stat in stats), default=0)
            if _enabled and newest < time.time_ns() - RACY_NS:
                kept = dict(list(memo.items())[-15:])      # a few installs may share it
                kept[stamp] = found
                write_blob(memo_path, kept, marshal.dumps)
        _code_hash = found
    return _code_hash


def _stats(files: list[tuple[str, str | None]]) -> list[tuple[str, int, int, int]]:
    found = []
    for name, path in files:
        try:
            st = os.stat(path) if path is not None else None
        except OSError:
            st = None
        found.append((name, -1, -1, -1) if st is None
                     else (name, st.st_size, st.st_mtime_ns, st.st_ino))
    return found


def _code_files() -> tuple[list[tuple[str, str | None]], list[str]]:
    """What ``code_hash`` covers: the package's files, then those of each game plugin of
    another distribution (an editable install keeps its version while its code
    changes); and the installed distributions' names (with their versions), sorted."""
    files = _files(_PACKAGE_DIR.parent, (_PACKAGE_DIR.name,), skip=("__pycache__",))
    plugins: set[str] = set()
    # the installed distributions by name and version, not by where the folders of
    # sys.path are: its first entry is the script's folder or the current one, so
    # hashing the paths keyed ``python -m``, ``python -c`` and a profiler apart
    installed: set[str] = set()
    for entry in sys.path:
        try:
            names = sorted(n for n in os.listdir(entry or ".")
                           if n.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
        installed.update(names)
        for name in names:
            plugins.update(_game_modules(Path(entry or ".", name, "entry_points.txt")))
    for top in sorted(plugins - {_PACKAGE_DIR.name}):
        files.extend(_module_files(top))
    return files, sorted(installed)


def _game_modules(path: Path) -> set[str]:
    """The top-level modules an ``entry_points.txt`` names in eti-print's games group."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    found, inside = set(), False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            inside = line == "[eti_print.games]"
        elif inside and "=" in line:
            found.add(line.split("=", 1)[1].strip().split(":")[0].split(".")[0])
    return found


def _module_files(top: str) -> list[tuple[str, str | None]]:
    """The files of the top-level module ``top`` (found, not imported)."""
    import importlib.util
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    found: list[tuple[str, str | None]] = [("plugin " + top, None)]
    if spec is None:
        return found
    for folder in spec.submodule_search_locations or ():
        found.extend(_files(Path(folder).parent, (Path(folder).name,), skip=("__pycache__",)))
    if not spec.submodule_search_locations and spec.origin and os.path.isfile(spec.origin):
        origin = Path(spec.origin)
        found.extend(_files(origin.parent, (origin.name,)))
    return found


def key(root: Path, *parts: Any) -> str:
    """The key of a command on the pack at ``root``: its files, the code, ``parts``
    (the command, its options) and ``SOURCE_DATE_EPOCH``."""
    h = hashlib.sha256(code_hash().encode())
    _tree(h, root, PACK_PARTS)
    h.update(repr((parts, os.environ.get("SOURCE_DATE_EPOCH"))).encode())
    return h.hexdigest()


_enabled = True


def use(flag: bool) -> None:
    """Turn every on-disk cache of this process on or off (``--no-cache``)."""
    global _enabled
    _enabled = flag


def enabled() -> bool:
    return _enabled


def read_blob(path: Path, loads: Any = pickle.loads) -> Any:
    """The value written to ``path`` by ``write_blob``, or None (absent, torn, altered)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    payload = memoryview(data)[32:]           # a view: a large entry is not copied again
    digest = hashlib.sha256(FORMAT)
    digest.update(payload)
    if len(data) < 32 or digest.digest() != data[:32]:
        return None
    try:
        return loads(payload)
    except Exception:
        return None


def read_used(path: Path, loads: Any = pickle.loads) -> Any:
    """``read_blob``, the entry marked as recently used (pruned last) if it was read."""
    value = read_blob(path, loads)
    if value is not None:
        try:
            os.utime(path)
        except OSError:
            pass
    return value


class _Hashing:
    """A file's ``write`` that also hashes what it writes (``write_blob``)."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle
        self.digest = hashlib.sha256(FORMAT)

    def write(self, data: Any) -> int:
        self.digest.update(data)
        return self.handle.write(data)


def write_blob(path: Path, value: Any, dumps: Any = None) -> bool:
    """Write ``value`` to ``path`` atomically (a temporary file renamed into place),
    with a checksum; False if the folder cannot be written (no cache, never an error).

    A pickled value streams into the file as it is pickled, so a large entry (a
    build's PDFs) is never held twice in memory; its checksum goes in front last."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(bytes(32))
                out = _Hashing(handle)
                if dumps is None:
                    pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)
                else:
                    out.write(dumps(value))
                handle.seek(0)
                handle.write(out.digest.digest())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        return False
    return True


class Persistent:
    """A small map kept between processes in one file of the cache folder, per
    version of the code (``code_hash``): read on first use, written back at exit if
    it grew (merged with what other processes wrote meanwhile), at most ``limit``
    entries.  Compiled templates and checked schemas use it."""

    def __init__(self, name: str, limit: int) -> None:
        self.name = name
        self.limit = limit
        self.values: dict[str, Any] | None = None
        self.dirty = False

    def _path(self) -> Path:
        return cache_dir() / f"{self.name}-{code_hash()[:24]}.bin"

    def _load(self) -> dict[str, Any]:
        if self.values is None:
            self.values = {}
            if _enabled:
                found = read_blob(self._path())
                if isinstance(found, dict):
                    self.values = found
        return self.values

    def get(self, key: str) -> Any:
        return self._load().get(key)

    def keep(self, key: str, value: Any) -> None:
        values = self._load()
        if not _enabled or len(values) >= self.limit:
            return
        values[key] = value
        if not self.dirty:
            import atexit
            atexit.register(self.save)
        self.dirty = True

    def save(self) -> None:
        if self.dirty and self.values is not None and _enabled:
            path = self._path()
            found = read_blob(path)
            values = {**found, **self.values} if isinstance(found, dict) else self.values
            write_blob(path, values if len(values) <= self.limit else self.values)
        self.dirty = False


def prune(folders: list[Path], max_bytes: int) -> None:
    """Delete the least recently used files under ``folders`` until they hold at most
    ``max_bytes`` together."""
    found = []
    for folder, _, files in (step for top in folders for step in os.walk(top)):
        for name in files:
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            found.append((st.st_mtime_ns, st.st_size, path))
    total = sum(size for _, size, _ in found)
    for _, size, path in sorted(found):
        if total <= max_bytes:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size


class DiskCache:
    """Entries in one folder (``cache_dir()`` by default), bounded to ``max_bytes``."""

    def __init__(self, folder: Path | None = None, max_bytes: int = MAX_BYTES) -> None:
        self.folder = Path(folder) if folder is not None else cache_dir()
        self.max_bytes = max_bytes

    def _path(self, key: str) -> Path:
        return self.folder / "builds" / key[:2] / key

    def get(self, key: str) -> Any:
        """The value stored under ``key``, or None (absent, torn, altered or unreadable)."""
        return read_used(self._path(key))

    def put(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key``, then keep the folder within its bound."""
        if write_blob(self._path(key), value):
            self.prune()

    def prune(self) -> None:
        """Delete the least recently used entries until the folder fits its bound (the
        images ``export png`` keeps have a bound of their own: ``export.imagecache``)."""
        prune([self.folder / part for part in ("builds", "entries", "documents")],
              self.max_bytes)

    def clear(self) -> None:
        """Delete every entry."""
        import shutil
        shutil.rmtree(self.folder / "builds", ignore_errors=True)
        shutil.rmtree(self.folder / "entries", ignore_errors=True)
        shutil.rmtree(self.folder / "documents", ignore_errors=True)
        shutil.rmtree(self.folder / "images", ignore_errors=True)


#: Dependency sets kept per (kind, name, key) of ``EntryStore``: the edits most
#: recently built (a test run's mutated copies, a designer's undo) each find theirs.
CANDIDATES = 8


class EntryStore:
    """The build cache's entries on disk (``cache.BuildCache.disk``): what one job
    drew (its outputs), one deck resolved (its faces) and one job's validate summary,
    each with the dependencies it was computed from, so that a cold build of an
    edited pack reuses every job and deck the edit did not touch.

    Under ``entries/`` of the cache folder, an *index* per (kind, name, key, code
    version) lists the dependency sets stored for it (newest first, at most
    ``CANDIDATES``), each naming a *value* file.  Both are written like every entry
    here (temporary file renamed into place, checksum), and pruned with them
    (``MAX_BYTES``, least recently used first).  Two processes writing one index at
    once may drop a candidate: a miss later, never a wrong value.
    """

    def __init__(self, folder: Path | None = None, max_bytes: int = MAX_BYTES) -> None:
        self.folder = Path(folder) if folder is not None else cache_dir()
        self.max_bytes = max_bytes
        self._puts = 0

    def _path(self, ident: str) -> Path:
        return self.folder / "entries" / ident[:2] / ident

    @staticmethod
    def _ident(*parts: Any) -> str:
        return hashlib.sha256(repr((code_hash(),) + parts).encode()).hexdigest()

    def get(self, kind: str, name: str, key: str, fresh: Any) -> tuple[dict, Any] | None:
        """The newest stored (deps, value) whose ``fresh(deps)`` holds, or None."""
        index = read_blob(self._path(self._ident(kind, name, key)))
        if not isinstance(index, list):
            return None
        for deps, ident in index:
            if fresh(deps):
                path = self._path(ident)
                found = read_blob(path)
                if found is None:
                    continue
                try:
                    os.utime(path)   # recently used: pruned last
                except OSError:
                    pass
                return deps, found
        return None

    def put(self, kind: str, name: str, key: str, deps: dict, value: Any) -> None:
        """Keep ``value`` computed from ``deps`` (never a failure: callers keep none)."""
        where = self._path(self._ident(kind, name, key))
        ident = self._ident(kind, name, key, sorted(deps.items()))
        if not write_blob(self._path(ident), value):
            return
        found = read_blob(where)
        index = [(d, i) for d, i in found if i != ident] if isinstance(found, list) else []
        write_blob(where, [(deps, ident)] + index[:CANDIDATES - 1])
        self._puts += 1
        if self._puts % 64 == 1:
            DiskCache(self.folder, self.max_bytes).prune()


def entries_on(store: Any) -> bool:
    """Whether a command keeps the build cache's entries on disk: with the persistent
    cache (a ``store``: the command line gives one unless ``--no-cache`` or
    ``ETI_PRINT_BUILD_CACHE=off``), or with ``ETI_PRINT_BUILD_CACHE=jobs`` (entries
    only, never a whole command's result: the tests)."""
    return _enabled and (store is not None or os.environ.get(ENV_BUILDS) == "jobs")


class Documents:
    """Parsed YAML files (``yamlload.load``) kept between processes, one file each
    under ``documents/`` of the cache folder, keyed by the file's bytes, the name it is
    shown by and the code version; only a file that parsed without problems is kept.

    Values are plain tuples, dicts and lists written with ``marshal``, never
    ``pickle``: a file of the user's cache folder is only ever read as data.  Each is
    written like every entry here (temporary file renamed into place, checksum, so a
    torn or altered file is a miss) and pruned with them (``MAX_BYTES``)."""

    def __init__(self) -> None:
        self._puts = 0

    @staticmethod
    def key(raw: bytes, shown: str) -> str:
        h = hashlib.sha256(code_hash().encode() + b"\0document\0")
        h.update(shown.encode("utf-8", "surrogateescape") + b"\0")
        h.update(raw)
        return h.hexdigest()

    @staticmethod
    def _path(key: str) -> Path:
        return cache_dir() / "documents" / key[:2] / key

    def get(self, key: str) -> Any:
        """The value kept under ``key``, or None (absent, torn, altered, cache off)."""
        return read_blob(self._path(key), marshal.loads) if _enabled else None

    def put(self, key: str, value: Any) -> None:
        if not _enabled or not write_blob(self._path(key), value, marshal.dumps):
            return
        self._puts += 1
        if self._puts % 64 == 1:
            DiskCache().prune()


documents = Documents()
