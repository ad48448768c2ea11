"""Shared fixtures: the shipped pack, throwaway copies of it to break, and one
session build of every shipped output that the tests reading outputs share."""

from __future__ import annotations

import compileall
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

import eti_print
from eti_print.pack import Pack, default_pack_root

#: Bytecode is written for the session even where the machine forbids it
#: (PYTHONDONTWRITEBYTECODE): else each xdist worker rewrites the asserts of every test
#: module afresh (most of collecting), and every process the tests start (``eti-print``
#: on the command line, the workers) compiles eti_print from source.  The package is
#: compiled once here, before any worker starts; the caches are ``__pycache__`` folders
#: (ignored by git; Python checks them against their sources).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
if not os.environ.get("PYTEST_XDIST_WORKER"):
    compileall.compile_dir(Path(eti_print.__file__).parent, quiet=1)

#: The on-disk caches (compiled templates, checked schemas, the build cache's job and deck
#: entries) of one test session: one folder every xdist worker shares, never the user's
#: own cache folder, removed when the session ends.  ``ETI_PRINT_BUILD_CACHE=jobs``: every
#: build and validate a test makes, in process or on the command line, loads and checks
#: the pack afresh and finds every problem afresh (failures are never kept), but reuses
#: the jobs, decks and problem-free board-seam checks an earlier test made from the same
#: inputs (the soundness tests in
#: test_watch.py and test_pipeline.py show that a reused job is byte for byte a fresh
#: one); a whole command's result is never read back.  Tests of the cache itself, of
#: cold behaviour (progress lines, reproducibility) or that patch the code a job runs
#: are marked ``cold``: no build cache at all.
_RUN = f"eti-print-tests-{os.getpid()}"    # xdist workers inherit the controller's folder
os.environ.setdefault("ETI_PRINT_CACHE_DIR",
                      str(Path(tempfile.gettempdir()) / _RUN))
# (ETI_PRINT_TESTS_BUILD_CACHE=off runs the whole suite cold)
os.environ["ETI_PRINT_BUILD_CACHE"] = os.environ.get("ETI_PRINT_TESTS_BUILD_CACHE", "jobs")


def _no_idle_core() -> bool:
    return False


def pytest_configure(config):
    # A build forks children for its other jobs while a core is idle (forked.idle_core,
    # read off the load average).  In the suite the other core runs the other worker,
    # and the load average lags: early builds would fork onto a busy machine, paying
    # the fork for nothing, and which path a test took would hang on the machine's
    # load.  So builds in a test process run in it; the tests of the split ask for it
    # (test_forked.py).  Builds on the command line still decide for themselves.
    from eti_print import forked
    forked.idle_core = _no_idle_core

    config.addinivalue_line("markers", "cold: run without the build cache "
                            "(ETI_PRINT_BUILD_CACHE=off): every job drawn afresh")
    config.addinivalue_line("markers", "long: runs for many seconds; run first")


def pytest_collection_modifyitems(config, items):
    """The ``long`` tests first, the rest in their order: under xdist (``--dist
    worksteal``) the first worker starts on them while the other takes the short tests,
    and no long test is left to run alone at the end while the other worker idles."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)


#: The cyclic collector in a test process.  A worker's heap grows to half a million
#: objects and more (modules, compiled templates, the caches of the packs it built), and
#: each full collection walks all of them: about a tenth of the suite's CPU time.  What
#: a test leaves alive is frozen when it ends (``gc.freeze``: the collector passes it
#: by), so a collection walks only what the running test made; every ``_THAW_EVERY``
#: tests the frozen objects are collected once, so a cycle a test left is still freed.
_THAW_EVERY = 1000
_FINISHED = [0]


def pytest_runtest_logfinish(nodeid, location):
    import gc
    _FINISHED[0] += 1
    if _FINISHED[0] % _THAW_EVERY == 0:
        gc.unfreeze()
        gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _cold(request, monkeypatch):
    if request.node.get_closest_marker("cold"):
        monkeypatch.setenv("ETI_PRINT_BUILD_CACHE", "off")


@contextlib.contextmanager
def cold():
    """No build cache while this runs (a build that must share nothing with another)."""
    before = os.environ.get("ETI_PRINT_BUILD_CACHE")
    os.environ["ETI_PRINT_BUILD_CACHE"] = "off"
    try:
        yield
    finally:
        if before is None:
            del os.environ["ETI_PRINT_BUILD_CACHE"]
        else:
            os.environ["ETI_PRINT_BUILD_CACHE"] = before


def pytest_unconfigure(config):
    if os.environ["ETI_PRINT_CACHE_DIR"].endswith(_RUN):
        from eti_print import diskcache
        diskcache.use(False)     # nothing written back at exit into the folder removed
        shutil.rmtree(os.environ["ETI_PRINT_CACHE_DIR"], ignore_errors=True)


ROOT = default_pack_root()
PACK_PARTS = ("cards", "templates", "fonts", "pack.yaml")

#: Every shipped pack, as ``build`` takes it (None: the E.T.I. pack).
PACKS: dict[str, str | None] = {
    "eti": None,
    "sci-tech": str(Path(__file__).resolve().parents[1] / "packs" / "sci-tech"),
    "mad-scientists": str(Path(__file__).resolve().parents[1] / "packs" / "mad-scientists"),
}

#: The build modes the tests read outputs of, per pack: PrintOptions arguments.
BUILDS: dict[str, dict[str, dict]] = {
    "eti": {
        "a4-long": {},
        "letter-short": {"paper": "letter", "duplex": "short"},
        "a4-none": {"duplex": "none"},
        "ink-saver": {"ink_saver": True},
        "letter-short-offset": {"paper": "letter", "duplex": "short", "back_offset": (0.5, -1.0)},
        "a4-fold": {"duplex": "fold"},
    },
    "sci-tech": {
        "a4-long": {},
        "letter-short": {"paper": "letter", "duplex": "short"},
        "a4-none": {"duplex": "none"},
    },
    "mad-scientists": {
        "a4-long": {},
        "letter-short": {"paper": "letter", "duplex": "short"},
    },
}

#: The PDFs each build writes (the hygiene test runs over every one).
_ETI_PDFS = ("cards", "boards", "tokens", "rules-reference", "player-aids", "table-aids")
PDFS: dict[str, tuple[str, ...]] = {
    "eti": tuple(f"eti-{n}.pdf" for n in _ETI_PDFS),
    "eti/ink-saver": tuple(f"eti-{n}-ink-saver.pdf" for n in _ETI_PDFS),
    "sci-tech": ("sci-tech-markers.pdf", "sci-tech-rules-reference.pdf"),
    "mad-scientists": ("mad-scientists-counters.pdf", "mad-scientists-boards.pdf",
                       "mad-scientists-rules-reference.pdf"),
}


def pdfs_of(pack: str, mode: str) -> tuple[str, ...]:
    return tuple(built_name(name, pack, mode) for name in PDFS.get(f"{pack}/{mode}", PDFS[pack]))


def built_name(name: str, pack: str, mode: str) -> str:
    """An output's A4 name (``eti-cards.pdf``) as the build ``mode`` writes it: a paper
    other than A4 is marked, ``eti-cards-letter.pdf`` (options.output_name)."""
    paper = BUILDS[pack][mode].get("paper", "a4")
    if paper == "a4":
        return name
    stem, ext = name.rsplit(".", 1)
    tail = "-ink-saver" if stem.endswith("-ink-saver") else ""
    return f"{stem[:len(stem) - len(tail)]}-{paper}{tail}.{ext}"


def build_options(pack: str, mode: str):
    from eti_print.options import PrintOptions
    return PrintOptions(**BUILDS[pack][mode])


def copy_pack(dest: Path, root: Path = ROOT) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for part in PACK_PARTS:
        src = root / part
        if src.is_dir():
            shutil.copytree(src, dest / part)
        elif src.is_file():
            shutil.copy2(src, dest / part)
    return dest


def csv_chits_pack(dest: Path) -> Path:
    """A copy of Mad Scientists whose chits are read from its spreadsheet
    (``cards/chits.csv``) in place of ``chits.yaml``."""
    shutil.copytree(PACKS["mad-scientists"], dest)
    edit(dest / "pack.yaml", "data: [types, chits, credits]",
         "data: [types, {name: chits, file: chits.csv, list: chits}, credits]")
    (dest / "cards" / "chits.yaml").unlink()
    return dest


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in a file; the test fails if ``old`` is absent."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def problems(pack: Path) -> list[str]:
    """Every problem validating ``pack`` reports, as printed (the pack must be broken)."""
    from eti_print.errors import InputError
    from eti_print.pipeline import validate
    with pytest.raises(InputError) as info:
        validate(str(pack))
    return [str(p) for p in info.value.problems]


def line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


@pytest.fixture(scope="session")
def shipped() -> Pack:
    return Pack.open(None)


@pytest.fixture
def pack_copy(tmp_path: Path) -> Path:
    return copy_pack(tmp_path / "pack")


@pytest.fixture
def art_loaded_afresh(monkeypatch):
    """Art loaded afresh for one test: ``art.svg`` keeps the drawings a process loaded
    (by bytes, name and fonts), so a file an earlier test loaded would skip the vetting
    and svglib calls a test of them watches."""
    import collections

    import eti_print.art.svg
    monkeypatch.setattr(eti_print.art.svg, "_LOADED", collections.OrderedDict())


@pytest.fixture(scope="session")
def database():
    from eti_print.games.eti.model import load_database
    return load_database()


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on ``path`` between the xdist workers (none where there is no
    fcntl: then each worker may build for itself, which is only slower)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class SharedFolders:
    """Folders made once per test session by ``make(folder)``, on first use.  Under
    xdist they are shared by the workers (the session's common temporary folder, a
    lock per folder), so each is made once in all.  Tests only read them."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        base = factory.getbasetemp()
        self.root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
        self.folders: dict[str, Path] = {}

    def __call__(self, name: str, make: Callable[[Path], object]) -> Path:
        if name not in self.folders:
            folder = self.root / name
            done = self.root / f"{name}.done"
            with _locked(self.root / f"{name}.lock"):
                if not done.exists():
                    if folder.exists():
                        shutil.rmtree(folder)           # a worker died while making it
                    folder.mkdir(parents=True)
                    make(folder)
                    done.touch()
            self.folders[name] = folder
        return self.folders[name]


@pytest.fixture(scope="session")
def shared_folder(tmp_path_factory) -> SharedFolders:
    """``shared_folder(name, make)``: a folder ``make`` filled once for the whole session."""
    return SharedFolders(tmp_path_factory)


#: What a ``session_build(..., copy="process")`` runs under, unlike the test session:
#: another hash seed and time zone (and another working folder).
PROCESS_ENV = {"PYTHONHASHSEED": "4242", "TZ": "Pacific/Kiritimati"}


def cli_build(pack: str, mode: str, out: Path, cwd: Path) -> None:
    """``eti-print build --quiet --out OUT`` with the options of ``mode``, in a new
    process under ``PROCESS_ENV`` (the E.T.I. pack: the bundled one, named by nothing)."""
    import subprocess
    import sys
    opts = BUILDS[pack][mode]
    args = [] if PACKS[pack] is None else [PACKS[pack]]
    for key in ("paper", "duplex"):
        if key in opts:
            args += [f"--{key}", opts[key]]
    if opts.get("ink_saver"):
        args.append("--ink-saver")
    if "back_offset" in opts:
        args.append("--back-offset={},{}".format(*opts["back_offset"]))
    subprocess.run([sys.executable, "-m", "eti_print.cli", "build", *args, "--quiet",
                    "--out", str(out)], cwd=cwd, env={**os.environ, **PROCESS_ENV}, check=True)


class SessionBuilds:
    """Each (pack, mode) of ``BUILDS`` built once per test session, on first use, into
    a folder of its own.  Under xdist the folders are shared by the workers (the
    session's common temporary folder, a lock per build), so each build happens once
    in all.  Tests only read these folders.  ``copy`` names an independent second
    build of the same (pack, mode), for the reproducibility check: built without the
    process's build cache, so it shares nothing with the first; ``copy="process"``
    builds it on the command line in a new process (``cli_build``)."""

    def __init__(self, shared: SharedFolders) -> None:
        self.shared = shared

    def __call__(self, pack: str, mode: str = "a4-long", copy: str = "built") -> Path:
        def make(folder: Path) -> None:
            if copy == "process":
                cwd = folder / "cwd"
                cwd.mkdir()
                with cold():
                    cli_build(pack, mode, folder / "out", cwd)
                return
            from eti_print.pipeline import SHARED, build
            if copy == "built":
                build(PACKS[pack], folder, build_options(pack, mode), cache=SHARED)
                return
            with cold():
                build(PACKS[pack], folder, build_options(pack, mode), cache=None)
        folder = self.shared(f"{copy}-{pack}-{mode}", make)
        return folder / "out" if copy == "process" else folder


@pytest.fixture(scope="session")
def session_build(shared_folder) -> SessionBuilds:
    """``session_build(pack, mode)``: the folder the one shared build of that pack wrote."""
    return SessionBuilds(shared_folder)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the raster golden images instead of comparing with them")


@pytest.fixture
def update_golden(request) -> bool:
    return request.config.getoption("--update-golden")
