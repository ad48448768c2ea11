"""Shared fixtures: the shipped pack, and throwaway copies of it to break."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from eti_print.pack import Pack, default_pack_root

ROOT = default_pack_root()
PACK_PARTS = ("cards", "templates", "fonts", "pack.yaml")


def copy_pack(dest: Path, root: Path = ROOT) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for part in PACK_PARTS:
        src = root / part
        if src.is_dir():
            shutil.copytree(src, dest / part)
        elif src.is_file():
            shutil.copy2(src, dest / part)
    return dest


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace ``old`` by ``new`` in a file; the test fails if ``old`` is absent."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def problems(pack: Path) -> list[str]:
    """Every problem validating ``pack`` reports, as printed (the pack must be broken)."""
    from eti_print.pipeline import validate
    from eti_print.errors import InputError
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


@pytest.fixture(scope="session")
def database():
    from eti_print.games.eti.model import load_database
    return load_database()


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite the raster golden images instead of comparing with them")


@pytest.fixture
def update_golden(request) -> bool:
    return request.config.getoption("--update-golden")
