"""A headless Chromium driven over the Chrome DevTools Protocol (websocket-client).

Debian's ``chromium`` is started with ``--remote-debugging-port=0``; the port
it picks is read from ``DevToolsActivePort`` in its throwaway profile, a
page is opened with ``/json/new`` and driven over its WebSocket: evaluate
JavaScript, wait for a condition, take a screenshot.  (``--dump-dom`` and
``--screenshot`` with ``--virtual-time-budget`` never finish on a page that
keeps an event stream open, so they cannot test a live page.)
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, width: int = 1280, height: int = 800, timeout: float = 20.0):
        import websocket
        binary = find_chromium()
        if binary is None:
            raise RuntimeError("no chromium on PATH")
        self.profile = Path(tempfile.mkdtemp(prefix="eti-chromium-"))
        self.process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
             "--disable-background-networking", "--disable-dev-shm-usage",
             f"--user-data-dir={self.profile}", "--remote-debugging-port=0",
             "--remote-allow-origins=*", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            port = self._port(timeout)
            with urllib.request.urlopen(urllib.request.Request(
                    f"http://127.0.0.1:{port}/json/new?about:blank", method="PUT"),
                    timeout=timeout) as response:
                target = json.load(response)
            self.ws = websocket.create_connection(target["webSocketDebuggerUrl"],
                                                  timeout=timeout, suppress_origin=True)
        except BaseException:
            self.close()
            raise
        self._id = 0
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def _port(self, timeout: float) -> int:
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with {self.process.returncode}")
            try:
                return int(marker.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                time.sleep(0.05)
        raise TimeoutError("chromium did not open its debugging port")

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self._id += 1
        mine = self._id
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == mine:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def open(self, url: str) -> None:
        self.call("Page.navigate", url=url)

    def js(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                           awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float = 15.0, step: float = 0.1) -> Any:
        """The value of ``expression`` once it is truthy (TimeoutError after ``timeout``)."""
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            try:
                value = self.js(expression)
            except RuntimeError:
                value = None
            if value:
                return value
            time.sleep(step)
        raise TimeoutError(f"still falsy after {timeout} s: {expression} (last: {value!r})")

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            size = self.js("[document.documentElement.scrollWidth,"
                           " document.documentElement.scrollHeight]")
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        data = self.call("Page.captureScreenshot", **params)["data"]
        Path(path).write_bytes(base64.b64decode(data))
        return Path(path)

    def close(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            try:
                ws.close()
            except Exception:
                pass
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
