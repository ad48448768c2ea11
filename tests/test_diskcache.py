"""The persistent cache's key of the code (``diskcache.code_hash``): kept between
processes while no file of the code changed, and new when one did; and its blobs
(``write_blob``, ``read_blob``): checked, and a large one never held twice."""

from __future__ import annotations

import os
import tracemalloc

import pytest

from eti_print import diskcache


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A game plugin of another distribution, whose code is part of the key, and a
    cache folder of the test's own; ``code_hash`` as a new process would call it."""
    site = tmp_path / "site"
    dist = site / "mygame-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "entry_points.txt").write_text("[eti_print.games]\nmine = mygame.game:GAME\n")
    (site / "mygame").mkdir()
    game = site / "mygame" / "game.py"
    game.write_text("GAME = 1\n")
    _age(game)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv(diskcache.ENV_DIR, str(tmp_path / "cache"))

    def fresh() -> str:
        monkeypatch.setattr(diskcache, "_code_hash", None)
        return diskcache.code_hash()
    return game, fresh


def _age(path, seconds: int = 60) -> None:
    """``path`` as last modified ``seconds`` ago (a file just written is never trusted
    by its stamp alone)."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - seconds * 10**9))


def test_a_new_process_reads_the_code_key_back_without_reading_the_code(plugin, monkeypatch):
    _, fresh = plugin
    first = fresh()
    read = []
    real = diskcache._hash_files
    monkeypatch.setattr(diskcache, "_hash_files", lambda h, files: read.append(files) or
                        real(h, files))
    assert fresh() == first
    assert read == []                      # nothing of the code was read: the kept key


def test_an_edit_of_the_same_size_is_a_new_key(plugin):
    game, fresh = plugin
    before = fresh()
    stat = game.stat()
    game.write_text("GAME = 2\n")                            # same size
    os.utime(game, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert fresh() != before
    game.write_text("GAME = 1\n")                            # undone: the first key again
    assert fresh() == before


def test_a_file_just_written_is_hashed_until_it_is_older(plugin, monkeypatch):
    """An edit in the same clock tick as the stamp taken would keep the file's stamp, so
    the key is not kept while a file of the code is a couple of seconds old or less."""
    game, fresh = plugin
    game.write_text("GAME = 3\n")                            # just now
    first = fresh()
    read = []
    real = diskcache._hash_files
    monkeypatch.setattr(diskcache, "_hash_files", lambda h, files: read.append(files) or
                        real(h, files))
    assert fresh() == first and len(read) == 1               # hashed again, not kept
    _age(game)
    assert fresh() == first and len(read) == 2               # hashed, now kept
    assert fresh() == first and len(read) == 2               # read back


def test_the_kept_key_is_the_hash_of_the_code(plugin):
    """A new process's key is what hashing every file gives, kept or not, and a torn
    or altered memo is never believed."""
    _, fresh = plugin
    hashed = fresh()                                         # hashed and kept
    assert fresh() == hashed                                 # kept
    memo = diskcache.cache_dir() / "code-hashes.bin"
    data = bytearray(memo.read_bytes())
    data[-3] ^= 0xFF
    memo.write_bytes(bytes(data))
    assert fresh() == hashed                                 # hashed again
    diskcache.use(False)
    try:
        assert fresh() == hashed                             # --no-cache: always hashed
    finally:
        diskcache.use(True)


def test_a_blob_reads_back_and_a_torn_or_altered_one_is_a_miss(tmp_path):
    path = tmp_path / "entry"
    value = {"files": [("cards.pdf", b"%PDF" + bytes(range(256)) * 300)], "lines": ["ok"]}
    assert diskcache.write_blob(path, value)
    assert diskcache.read_blob(path) == value
    data = path.read_bytes()
    path.write_bytes(data[:-1])                                  # torn
    assert diskcache.read_blob(path) is None
    path.write_bytes(data[:40] + bytes([data[40] ^ 1]) + data[41:])   # altered
    assert diskcache.read_blob(path) is None
    path.write_bytes(data[:20])                                  # shorter than its checksum
    assert diskcache.read_blob(path) is None


def test_a_large_blob_is_not_held_twice(tmp_path):
    """A build's PDFs go into the cache at the moment its memory peaks: writing one
    streams it into the file, and reading one back copies it once (into the value)."""
    big = os.urandom(32 * 2**20)
    path = tmp_path / "entry"
    tracemalloc.start()
    try:
        assert diskcache.write_blob(path, [("cards.pdf", big)])
        written = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        back = diskcache.read_blob(path)
        read = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert back == [("cards.pdf", big)]
    assert written < 4 * 2**20, written              # no copy of the 32 MiB value
    assert read < 2.25 * len(big), read              # the file's bytes and the value
