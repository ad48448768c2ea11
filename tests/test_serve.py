"""serve: the page in a real headless Chromium follows edits; nothing outside the pack and
the build folder is served."""

from __future__ import annotations

import http.client
import json
import os
import time
from pathlib import Path

import pytest

from eti_print.pack import Pack
from eti_print.serve import Server

from cdp import find_chromium
from conftest import copy_pack, edit, line_of

WAIT = 60   # seconds for a rebuild on a busy machine (a sci-tech rebuild takes about 1 s)
#: Set to a folder to keep the browser's screenshots of the page (to look at them).
SHOTS = os.environ.get("ETI_SERVE_SCREENSHOTS")


def _shot(browser, tmp_path: Path, name: str) -> None:
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    browser.screenshot(folder / name)


@pytest.fixture
def server(tmp_path: Path):
    pack = copy_pack(tmp_path / "sci-tech", Pack.open("sci-tech").root)
    running = Server(str(pack), tmp_path / "out", port=0, debounce_ms=150).start()
    try:
        deadline = time.monotonic() + WAIT
        while running.gallery.state.version < 1:
            assert time.monotonic() < deadline, "the first build did not finish"
            time.sleep(0.05)
        assert running.gallery.state.ok, running.gallery.state.problems
        yield running, pack
    finally:
        running.stop()


def _get(server: Server, target: str) -> tuple[int, bytes]:
    host, port = server.http.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        connection.putrequest("GET", target, skip_host=False, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_serves_the_pack_and_its_images_and_nothing_else(server, tmp_path: Path):
    running, pack = server
    (tmp_path / "secret.txt").write_text("outside the pack")
    (tmp_path / "out" / "secret.txt").parent.mkdir(exist_ok=True)
    os.symlink(tmp_path / "secret.txt", pack / "cards" / "link.txt")
    status, body = _get(running, "/pack/pack.yaml")
    assert status == 200 and b"slug: sci-tech" in body
    state = json.loads(_get(running, "/api/state")[1])
    image = state["decks"][0]["cards"][0]["front"]
    assert image.startswith("/out/serve/")
    status, body = _get(running, image)
    assert status == 200 and body.startswith(b"\x89PNG")
    status, body = _get(running, state["decks"][0]["cards"][0]["front_guides"])
    assert status == 200 and body.startswith(b"\x89PNG")
    for target in ["/../secret.txt", "/pack/../secret.txt", "/pack/../../secret.txt",
                   "/pack/%2e%2e/secret.txt", "/pack/%2E%2E%2Fsecret.txt",
                   "/out/%2e%2e/secret.txt", "/out/..%2fsecret.txt", "/%2e%2e/secret.txt",
                   f"/pack/{tmp_path / 'secret.txt'}", f"/pack/%2F{str(tmp_path)[1:]}/secret.txt",
                   f"/out/{tmp_path / 'secret.txt'}", str(tmp_path / "secret.txt"),
                   f"/{tmp_path / 'secret.txt'}", "//etc/passwd", "/etc/passwd",
                   "/pack/cards/link.txt", "/pack/cards", "/pack/", "/out/",
                   "/pack/cards\\..\\..\\secret.txt", "/guides/../secret.txt",
                   "/guides/nosuch.png", "http://127.0.0.1/pack/pack.yaml"]:
        status, body = _get(running, target)
        assert status == 404, target
        assert b"outside the pack" not in body


pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def _cards_shown(browser) -> dict[str, dict[str, str]]:
    """address -> {front, back, label} of every tile, once every image has loaded."""
    return browser.wait("""(() => {
        const tiles = [...document.querySelectorAll('#decks .card')];
        const imgs = tiles.flatMap(t => [...t.querySelectorAll('img')]);
        if (!tiles.length || !imgs.every(i => i.complete && i.naturalWidth > 0)) return null;
        return Object.fromEntries(tiles.map(t => [t.dataset.address, {
            front: t.querySelector('img.front').getAttribute('src'),
            back: t.querySelector('img.back').getAttribute('src'),
            label: t.querySelector('.label').textContent,
            where: t.querySelector('.where').textContent}]));
    })()""", timeout=WAIT)


@pytest.mark.skipif(find_chromium() is None,
                    reason="no chromium on PATH: the browser test of serve needs Debian's "
                           "chromium (apt-get install chromium; .ci/run installs it)")
def test_the_page_in_a_real_browser_follows_edits(server, tmp_path: Path):
    pytest.importorskip("websocket", reason="websocket-client (the test extras) drives chromium")
    from cdp import Browser
    running, pack = server
    fields = pack / "cards" / "fields.yaml"
    with Browser() as browser:
        browser.open(running.url)
        # every card, front and back, labelled with its id, file and line
        shown = _cards_shown(browser)
        assert list(shown) == ["markers:1", "markers:7", "markers:13", "markers:19",
                               "markers:25"]
        assert shown["markers:1"]["label"].startswith("Attack")
        assert shown["markers:7"]["where"] == f"cards/fields.yaml:{line_of(fields, 'id: edict')}"
        assert browser.js("document.querySelector('[data-address=\"markers:7\"] .ident')"
                          ".textContent") == "edict · markers:7"
        _shot(browser, tmp_path, "page.png")

        # an edit changes that card's images, and only that card's
        edit(fields, 'colour: "#F2C230"', 'colour: "#3060F0"')
        browser.wait(f"document.querySelector('[data-address=\"markers:7\"] img.front')"
                     f".getAttribute('src') !== {json.dumps(shown['markers:7']['front'])}",
                     timeout=WAIT)
        after = _cards_shown(browser)
        assert after["markers:7"]["front"] != shown["markers:7"]["front"]
        assert {a: c for a, c in after.items() if a != "markers:7"} == \
            {a: c for a, c in shown.items() if a != "markers:7"}

        # a broken edit: the located problem, and the last good cards stay
        edit(fields, "markers: 6\n    action: playing an Edict",
             "markers: six\n    action: playing an Edict")
        line = line_of(fields, "markers: six")
        message = browser.wait("document.querySelector('#problems.shown pre')?.textContent",
                               timeout=WAIT)
        assert f"cards/fields.yaml:{line}:" in message and "markers" in message
        assert "problem" in browser.js("document.querySelector('#status').textContent")
        assert _cards_shown(browser) == after
        _shot(browser, tmp_path, "broken.png")

        # fixing it brings the cards back, up to date
        edit(fields, "markers: six", "markers: 6")
        browser.wait("!document.querySelector('#problems.shown') && "
                     "document.querySelector('#status').textContent.startsWith('up to date')",
                     timeout=WAIT)
        assert _cards_shown(browser) == after

        # the filter box
        browser.js("{ const f = document.querySelector('#filter'); f.value = 'EDICT';"
                   " f.dispatchEvent(new Event('input')); }")
        assert browser.js("[...document.querySelectorAll('#decks .card')]"
                          ".filter(t => !t.hidden).map(t => t.dataset.address)") == ["markers:7"]
        browser.js("{ const f = document.querySelector('#filter'); f.value = 'fields.yaml';"
                   " f.dispatchEvent(new Event('input')); }")
        assert browser.js("document.querySelectorAll('#decks .card:not([hidden])').length") == 5

        # the large view with guides
        browser.js("document.querySelector('[data-address=\"markers:7\"]').click()")
        big = browser.wait("(() => { const i = [...document.querySelectorAll('#large.shown img')];"
                           " return i.length === 2 && i.every(x => x.complete && "
                           "x.naturalWidth > 0) && i.map(x => x.naturalWidth); })()",
                           timeout=WAIT)
        assert big[0] > 400
        _shot(browser, tmp_path, "large.png")


def test_image_names_are_content_hashes_the_same_in_every_process(tmp_path: Path):
    import subprocess
    import sys

    from eti_print.serve import Gallery
    out = tmp_path / "out"
    script = ("import json, sys; from eti_print.serve import Gallery; "
              "s = Gallery('sci-tech', sys.argv[1]).rebuild(); "
              "print(json.dumps([c['front'] for d in s.decks for c in d['cards']]))")
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(root)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    done = subprocess.run([sys.executable, "-c", script, str(out)], capture_output=True,
                          text=True, env=env, timeout=120, check=True)
    there = json.loads(done.stdout)
    drawn = {p.name: p.stat().st_mtime_ns for p in (out / "serve").iterdir()}
    state = Gallery("sci-tech", out).rebuild()
    assert state.ok
    assert [c["front"] for d in state.decks for c in d["cards"]] == there
    # a restarted serve draws nothing it drew before
    assert {p.name: p.stat().st_mtime_ns for p in (out / "serve").iterdir()} == drawn


def test_serve_on_a_port_in_use_is_a_command_line_error(capsys):
    import socket

    from eti_print.cli import main
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "sci-tech", "--port", str(port)]) == 2
    assert f"cannot serve on 127.0.0.1:{port}" in capsys.readouterr().err


def test_the_serve_command_prints_its_address_and_serves(tmp_path: Path):
    import subprocess
    import sys
    import urllib.request
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(root)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    process = subprocess.Popen([sys.executable, "-m", "eti_print", "serve", "sci-tech",
                                "--port", "0", "--out", str(tmp_path / "out")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, cwd=tmp_path)
    import threading
    guard = threading.Timer(WAIT, process.kill)    # a hung server fails the test, not CI
    guard.start()
    try:
        line = process.stdout.readline()
        assert line.startswith("serving the cards of sci-tech at http://127.0.0.1:"), line
        url = line.split(" at ", 1)[1].split()[0]
        ready = process.stdout.readline()
        assert "5 cards ready" in ready, ready
        with urllib.request.urlopen(url + "api/state", timeout=10) as response:
            state = json.load(response)
        assert state["ok"] and len(state["decks"][0]["cards"]) == 5
    finally:
        guard.cancel()
        process.terminate()
        process.wait(timeout=10)
        process.stdout.close()
        process.stderr.close()
