"""What ``serve`` shows: every card side of a pack as an image, rebuilt after each save.

A rebuild loads the pack through a ``cache.BuildCache`` (fonts, art,
templates and layouts are reused while nothing under ``templates/`` or
``fonts/`` changed), resolves every card side (``preview.Sides``, the same
code as the print sheets) and names each side's image by a content hash of
its resolved face, its sheet setting and the pack's resource files.  Only
sides whose hash is new are rasterised, into ``<out>/serve/<hash>.png``; an
unchanged card keeps its URL, so the browser reloads only the images that
changed (and a restarted ``serve`` re-renders nothing it drew before).

A rebuild that fails keeps the last good cards and publishes the problems
(``file:line:col: field: message``) instead.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cache import BuildCache, _feed, files_hash
from ..errors import EtiError, InputError, Problem
from ..options import PrintOptions
from ..preview import Side, Sides, cards, render_pngs

#: Resolution of the card images of the page, and of the large view with guides.
THUMB_DPI = 120
LARGE_DPI = 240
#: The folder under the output folder that holds the page's images.
FOLDER = "serve"


@dataclass
class State:
    """What the page shows; ``version`` goes up on every rebuild."""

    version: int = 0
    ok: bool = True
    building: bool = True
    title: str = ""
    problems: list[str] = field(default_factory=list)
    decks: list[dict[str, Any]] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)     # card addresses whose images changed
    seconds: float = 0.0
    stamp: str = ""

    def json(self) -> dict[str, Any]:
        return {"version": self.version, "ok": self.ok, "building": self.building,
                "title": self.title, "problems": self.problems, "decks": self.decks,
                "changed": self.changed, "seconds": round(self.seconds, 2),
                "stamp": self.stamp}


_ADDRESS = re.compile(rb" at 0x[0-9a-fA-F]+>")


def _digest(value: Any) -> str:
    """A content hash of ``value`` that is the same in every process: a resolved face holds
    objects (the art library its text draws icons with) whose repr has an address, and the
    pack's resource files, which they stand for, are part of every digest here."""
    h = hashlib.sha256()
    _feed(value, lambda data: h.update(_ADDRESS.sub(b">", data)), 0, lenient=True)
    return h.hexdigest()[:24]


class Gallery:
    """The images and state of one pack; ``rebuild`` after every save (one thread)."""

    def __init__(self, pack: str | None, out: Path):
        self.pack = pack
        self.out = Path(out)
        self.images = self.out / FOLDER
        self.cache = BuildCache(workers=1)
        self.state = State()
        self.changed = threading.Condition()
        self._lock = threading.Lock()
        self._ctx: Any = None
        self._large: dict[str, Side] = {}     # hash of a guides view -> its side
        self._shown: dict[str, tuple[str, str]] = {}   # address -> (front, back) URLs
        self.closed = False                   # set when the server stops: waiters return

    # -- rebuilding --------------------------------------------------------------
    def rebuild(self) -> State:
        """Load, resolve and render what changed; publish the new state (never raises for
        bad input)."""
        from ..pipeline import load_checked
        started = time.perf_counter()
        with self.changed:
            self.state.building = True
            self.changed.notify_all()
        try:
            ctx = load_checked(self.pack, PrintOptions(), cache=self.cache)
            found = cards(ctx)
            sides = Sides(ctx)
            problems: list[Problem] = []
            resolved: list[tuple[Any, Side, Side]] = []
            for card in found:
                try:
                    resolved.append((card, sides.side(card), sides.side(card, back=True)))
                except InputError as exc:
                    problems.extend(exc.problems)
            if problems:
                raise InputError(problems)
            decks, changed = self._publish(ctx, resolved)
        except InputError as exc:
            return self._failed(exc.lines(), started)
        except EtiError as exc:
            return self._failed([f"eti-print: error: {exc}"], started)
        except Exception as exc:   # a bug: show it and keep serving the last good cards
            return self._failed([f"eti-print: internal error: {type(exc).__name__}: {exc}"],
                                started)
        with self.changed:
            s = self.state
            self.state = State(s.version + 1, True, False, ctx.title, [], decks, changed,
                               time.perf_counter() - started, time.strftime("%H:%M:%S"))
            self.changed.notify_all()
            return self.state

    def _failed(self, lines: list[str], started: float) -> State:
        with self.changed:
            s = self.state
            self.state = State(s.version + 1, False, False, s.title, lines, s.decks, [],
                               time.perf_counter() - started, time.strftime("%H:%M:%S"))
            self.changed.notify_all()
            return self.state

    def _publish(self, ctx: Any, resolved: list[tuple[Any, Side, Side]]
                 ) -> tuple[list[dict[str, Any]], list[str]]:
        resources = files_hash(ctx.pack.root, ("templates", "fonts"))
        todo: dict[str, Side] = {}
        large: dict[str, Side] = {}
        urls: dict[int, tuple[str, ...]] = {}
        for n, (_, front, back) in enumerate(resolved):
            names = []
            for side in (front, back):
                key = _digest((resources, side.face.key, side.setting, THUMB_DPI))
                big = _digest((resources, side.face.key, side.setting, side.outlines,
                               LARGE_DPI, "guides"))
                if not (self.images / f"{key}.png").is_file():
                    todo.setdefault(key, side)
                large[big] = side
                names += [f"/out/{FOLDER}/{key}.png", f"/guides/{big}.png"]
            urls[n] = tuple(names)
        if todo:
            keys = list(todo)
            self.images.mkdir(parents=True, exist_ok=True)
            for key, data in zip(keys, render_pngs(ctx, [todo[k] for k in keys], THUMB_DPI)):
                _write(self.images / f"{key}.png", data)
        decks: dict[str, dict[str, Any]] = {}
        changed = []
        shown: dict[str, tuple[str, str]] = {}
        for n, (card, front_side, _) in enumerate(resolved):
            front, front_big, back, back_big = urls[n]
            deck = decks.setdefault(card.deck_id, {"id": card.deck_id,
                                                   "title": card.deck_title, "cards": []})
            deck["cards"].append({
                "address": card.address, "id": card.id, "label": card.label,
                "number": card.number, "copies": card.copies, "file": card.file,
                "line": card.line, "where": card.where,
                "wide": front_side.face.width > front_side.face.height,
                "front": front, "back": back, "front_guides": front_big,
                "back_guides": back_big})
            shown[card.address] = (front, back)
            if self._shown and self._shown.get(card.address) != (front, back):
                changed.append(card.address)
        with self._lock:
            self._ctx = ctx
            self._large = large
            self._shown = shown
        return list(decks.values()), changed

    # -- the large view, on demand ---------------------------------------------------
    def large(self, key: str) -> bytes | None:
        """The PNG of a guides view named in the state, rendered on first request."""
        with self._lock:
            side, ctx = self._large.get(key), self._ctx
        if side is None:
            return None
        path = self.images / f"{key}.png"
        if path.is_file():
            return path.read_bytes()
        data = render_pngs(ctx, [side], LARGE_DPI, guides=True)[0]
        self.images.mkdir(parents=True, exist_ok=True)
        _write(path, data)
        return data

    def wait(self, version: int, timeout: float) -> State:
        """The state once its version differs from ``version`` (or after ``timeout``)."""
        with self.changed:
            self.changed.wait_for(lambda: self.closed or self.state.version != version,
                                  timeout)
            return self.state


def _write(path: Path, data: bytes) -> None:
    from ..output import write_bytes
    write_bytes(path, data)
