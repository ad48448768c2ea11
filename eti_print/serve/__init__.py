"""``eti-print serve``: every card of a pack on a local web page that follows your edits.

The page (``page.html``) shows every card's front and back, grouped by deck,
each labelled with its id and the file and line it comes from, with a filter
box and a large view with guides (``preview --guides``).  A watcher thread
(watchfiles, as ``watch``) rebuilds the ``gallery.Gallery`` after every save
of the pack's inputs; the page hears of it through Server-Sent Events
(``/events``, the browser's own ``EventSource``, which reconnects by itself)
and fetches the new state (``/api/state``).  Images are named by content
hash, so only the cards that changed load again.  While the data is broken
the page lists the problems with file:line and keeps the last good cards.

The server is the standard library's ``ThreadingHTTPServer``: one local user,
a handful of routes and one event stream need no framework (see the README).
It answers only these routes, and serves files only from the pack folder
(``/pack/...``) and the output folder (``/out/...``), each checked after
decoding and resolving symbolic links (``_confined``): anything else is 404.
"""

from __future__ import annotations

import json
import mimetypes
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from ..errors import InputError
from ..files import read
from ..pack import Pack
from .gallery import Gallery, State

__all__ = ["Gallery", "Server", "State", "serve"]

#: Seconds between keep-alive comments on the event stream.
PING = 15.0


def _confined(root: Path, rel: str) -> Path | None:
    """The file ``rel`` names inside ``root``, or None if it is not one (or leaves it)."""
    parts = rel.split("/")
    if not rel or rel.startswith("/") or any(p in ("", ".", "..") for p in parts) \
            or "\\" in rel or "\0" in rel or ":" in parts[0]:
        return None
    base = root.resolve()
    try:
        path = (base / rel).resolve()
        path.relative_to(base)
    except (OSError, ValueError, RuntimeError):
        return None
    return path if path.is_file() else None


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        if self.server.log is not None:
            self.server.log(format % args)

    def do_HEAD(self) -> None:  # noqa: N802
        self.do_GET(head=True)

    def do_GET(self, head: bool = False) -> None:  # noqa: N802
        target = self.path
        if not target.startswith("/") or target.startswith("//"):
            return self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain", head)
        path = urlsplit(target).path
        gallery = self.server.gallery
        if path in ("/", "/index.html"):
            page = resources.files(__package__).joinpath("page.html").read_bytes()
            return self._send(HTTPStatus.OK, page, "text/html; charset=utf-8", head)
        if path == "/api/state":
            body = json.dumps(gallery.state.json()).encode()
            return self._send(HTTPStatus.OK, body, "application/json", head)
        if path == "/events":
            return self._events()
        if path.startswith("/guides/") and path.endswith(".png"):
            key = path[len("/guides/"):-len(".png")]
            data = gallery.large(key) if key.isalnum() else None
            if data is not None:
                return self._send(HTTPStatus.OK, data, "image/png", head, immutable=True)
        for prefix, root in (("/out/", gallery.out), ("/pack/", self.server.root)):
            if path.startswith(prefix):
                found = _confined(root, unquote(path[len(prefix):]))
                if found is not None:
                    kind = mimetypes.guess_type(found.name)[0] or "text/plain"
                    if kind.startswith("text/") or found.suffix in (".yaml", ".yml", ".j2"):
                        kind = "text/plain; charset=utf-8"
                    try:    # the file gate: no FIFO, no 3 GB file read into memory
                        body = read(found, found.name, 64 * 1024 * 1024)
                    except InputError:
                        break
                    return self._send(HTTPStatus.OK, body, kind, head,
                                      immutable=prefix == "/out/")
        return self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain", head)

    def _send(self, status: HTTPStatus, body: bytes, kind: str, head: bool = False,
              immutable: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=31536000, immutable" if immutable
                         else "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _events(self) -> None:
        """Server-Sent Events: the state's version now and after every rebuild."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        gallery = self.server.gallery
        version = None
        try:
            while not self.server.stopping.is_set():
                state = gallery.state if version is None else gallery.wait(version, PING)
                if state.version != version or version is None:
                    version = state.version
                    self.wfile.write(f"data: {version}\n\n".encode())
                else:
                    self.wfile.write(b": ping\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            return


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], gallery: Gallery, root: Path,
                 log: Callable[[str], None] | None):
        self.gallery = gallery
        self.root = root
        self.log = log
        self.stopping = threading.Event()
        super().__init__(address, _Handler)


class Server:
    """The page's server and its watcher, started together (``start``) and stopped
    together (``stop``); ``serve_forever`` for the command line."""

    def __init__(self, pack: str | None, out: Path, host: str = "127.0.0.1", port: int = 8000,
                 on_build: Callable[[State], None] | None = None,
                 log: Callable[[str], None] | None = None, debounce_ms: int = 300):
        self.root = Pack.open(pack).root.resolve()
        self.out = Path(out)
        self.gallery = Gallery(pack, self.out)
        self.http = _HTTPServer((host, port), self.gallery, self.root, log)
        self.on_build = on_build
        self.debounce_ms = debounce_ms
        self.stop_event = threading.Event()
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        host, port = self.http.server_address[:2]
        return f"http://{host}:{port}/"

    def _watch(self) -> None:
        import watchfiles

        from ..watch import IDLE_MS, _filter
        accept = _filter(self.root, self.out)
        first = True
        for changes in watchfiles.watch(self.root, watch_filter=accept,
                                        debounce=self.debounce_ms, step=50,
                                        stop_event=self.stop_event, rust_timeout=IDLE_MS,
                                        yield_on_timeout=True):
            if self.stop_event.is_set():
                return
            if not changes and not first:
                continue
            first = False
            state = self.gallery.rebuild()
            if self.on_build is not None:
                self.on_build(state)

    def start(self) -> Server:
        for target in (self._watch, self.http.serve_forever):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self.stop_event.set()
        self.http.stopping.set()
        with self.gallery.changed:
            self.gallery.closed = True
            self.gallery.changed.notify_all()
        self.http.shutdown()
        self.http.server_close()
        for thread in self._threads:
            thread.join(timeout=5)


def serve(pack: str | None, out: Path, host: str, port: int,
          on_build: Callable[[State], None] | None = None,
          on_ready: Callable[[str], None] | None = None) -> None:
    """Serve until Ctrl-C (KeyboardInterrupt propagates after a clean stop)."""
    import time
    server = Server(pack, out, host, port, on_build).start()
    if on_ready is not None:
        on_ready(server.url)
    try:
        while True:
            time.sleep(3600)
    finally:
        server.stop()
