"""The art of one pack: its art ids, each file loaded once, drawn scaled into a box."""

from __future__ import annotations

import copy
import difflib
import functools
import os
import re
from pathlib import Path, PurePosixPath
from typing import Any

from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Drawing, Group
from reportlab.lib import colors

from .. import tracking
from ..errors import InputError, Problem, fail
from ..files import digest
from ..pack import confine
from . import files
from .images import RASTER_FORMATS, RasterArt, load_raster
from .svg import _walk, art_fonts, load_svg

_ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
#: The file extensions of art, in the order a message lists them.
EXTENSIONS = ("svg", *RASTER_FORMATS)


def _recolour(drawing: Drawing, colour: colors.Color) -> None:
    for shape in _walk(drawing):
        if isinstance(shape, (Drawing, Group)):
            continue
        stops = getattr(shape, "_rl_colors", None)     # a gradient: every stop
        if stops is not None:
            shape._rl_colors = [colour] * len(stops)
        for attr in ("fillColor", "strokeColor"):
            if getattr(shape, attr, None) is not None:
                setattr(shape, attr, colour)


def _tree_copy(node: Any) -> Any:
    """A copy of a drawing's tree for recolouring: every node copied, its ``contents``
    list rebuilt of copies, everything else (paths, points, transforms, which
    ``_recolour`` never touches and nothing changes once loaded) shared with the
    original, where ``copy.deepcopy`` would copy every number of every path."""
    twin = copy.copy(node)
    contents = getattr(node, "contents", None)
    if contents:
        twin.contents = [_tree_copy(child) for child in contents]
    return twin


def _colour_key(colour: colors.Color) -> tuple:
    return (type(colour).__name__, repr(colour))


class ArtLibrary:
    """The art of one pack: ``<id>.svg``, ``.png``, ``.jpg`` or ``.jpeg`` files under
    ``art_dir``, loaded once each.

    ``get`` gives a reportlab ``Drawing`` for SVG art and a :class:`RasterArt`
    for PNG/JPEG art; both have ``width``/``height`` and are placed by ``draw``.
    ``fonts`` is the pack's :class:`~eti_print.fonts.FontSet` (or a set of
    registered reportlab font names): the only fonts ``<text>`` in SVG art may use.
    """

    def __init__(self, pack_root: Path, art_dir: str = "templates/art", fonts: Any = None):
        self.root = Path(pack_root).resolve()
        self.art_dir = PurePosixPath(art_dir).as_posix()
        self.fonts = art_fonts(fonts)
        self._cache: dict[str, Drawing | RasterArt] = {}
        #: The problems of each art file found bad (they name the file, not the
        #: reference): every later card that uses it is told them again, without
        #: decoding the file again.
        self._bad: dict[str, list[Problem]] = {}
        self._tinted: dict[tuple, Drawing] = {}

    def _dir(self) -> Path | None:
        if not (self.root / self.art_dir).exists():
            return None
        return confine(self.root, self.art_dir, "", field="art_dir")

    def _files(self) -> dict[str, list[str]]:
        """Each art id with the file names it has (more than one is an error)."""
        folder = self._dir()
        if folder is None or not folder.is_dir():
            return {}
        found: dict[str, list[str]] = {}
        with os.scandir(folder) as entries:
            for entry in entries:
                stem, dot, ext = entry.name.rpartition(".")
                if dot and ext in EXTENSIONS and _ID_RE.match(stem):
                    found.setdefault(stem, []).append(entry.name)
        for names in found.values():
            names.sort(key=lambda name: EXTENSIONS.index(name.rpartition(".")[2]))
        return found

    @functools.cached_property
    def content_key(self) -> str:
        """A content hash of everything this library draws from: its art files' bytes
        and the fonts SVG text may use.  Two libraries with the same key draw alike
        (``render.replay`` keeps a form's record across libraries loaded afresh, as
        after a layout edit)."""
        folder = self._dir()
        found = [] if folder is None else [
            (name, digest(folder / name, tracking.DIGEST_CAP).hex())
            for names in sorted(self._files().values()) for name in names]
        return tracking.key_of((self.art_dir, sorted(self.fonts.items()), found))

    def _miscased(self, art_id: str) -> str | None:
        """An art file for ``art_id`` but for upper case in its name (``Logo.PNG``)."""
        folder = self._dir()
        if folder is None or not folder.is_dir():
            return None
        with os.scandir(folder) as entries:
            for entry in entries:
                stem, dot, ext = entry.name.rpartition(".")
                if dot and stem.lower() == art_id and ext.lower() in EXTENSIONS:
                    return entry.name
        return None

    def ids(self) -> list[str]:
        """Every art id available: the ``<id>.svg``/``.png``/``.jpg``/``.jpeg`` files."""
        tracking.read(("dir", self.art_dir))
        return sorted(self._files())

    def path_of(self, art_id: str) -> str:
        """The pack-relative path of an art id's file, as shown in messages
        (``<id>.svg`` for an id that has no file)."""
        tracking.read(("art", self.art_dir, art_id))
        names = self._files().get(art_id) if _ID_RE.match(str(art_id)) else None
        return f"{self.art_dir}/{names[0] if names else art_id + '.svg'}"

    def get(self, art_id: str, where: str | None = None, line: int | None = None,
            field: str | None = None) -> Drawing | RasterArt:
        """The art of ``art_id`` (cached: the same object every time).

        ``where``/``line``/``field`` locate the reference for the "unknown art
        id" error.  Do not modify the returned drawing; use :meth:`tinted`.
        """
        tracking.read(("art", self.art_dir, art_id))   # the build cache: what a job drew
        cached = self._cache.get(art_id)
        if cached is not None:
            return cached
        bad = self._bad.get(art_id)
        if bad is not None:
            raise InputError(bad)
        if not isinstance(art_id, str) or not _ID_RE.match(art_id):
            raise fail(f"art id {art_id!r} is not a valid id", path=where, line=line,
                       field=field, hint="art ids are lowercase slugs such as field-physics")
        known = self._files()
        names = known.get(art_id)
        if not names:
            close = difflib.get_close_matches(art_id, sorted(known), n=3, cutoff=0.6)
            hint = ("did you mean " + ", ".join(close) + "?") if close else (
                f"art ids are the .svg, .png and .jpg files in {self.art_dir}/")
            miscased = self._miscased(art_id)
            if miscased:
                hint = (f"rename {miscased} to {miscased.rpartition('.')[0].lower()}."
                        f"{miscased.rpartition('.')[2].lower()} (art file names are "
                        "lowercase)")
            raise fail(f"unknown art id {art_id!r} (no {self.art_dir}/{art_id}.svg, .png "
                       "or .jpg)", path=where, line=line, field=field, hint=hint)
        shown_all = [f"{self.art_dir}/{name}" for name in names]
        if len(names) > 1:
            raise fail(f"art id {art_id!r} has {len(names)} files: " + " and ".join(shown_all),
                       path=where or shown_all[0], line=line if where else None, field=field,
                       hint="keep one file per art id; rename or remove the others")
        shown = shown_all[0]
        ext = names[0].rpartition(".")[2]
        path = confine(self.root, shown, "", where=where or shown, line=line, field=field)
        try:
            data = files.read_capped(path, shown)
            art = (load_svg(data, shown, self.fonts) if ext == "svg"
                   else load_raster(data, shown, ext))
        except InputError as error:
            self._bad[art_id] = error.problems
            raise
        self._cache[art_id] = art
        return art

    def tinted(self, art_id: str, color: colors.Color | str, where: str | None = None,
               line: int | None = None, field: str | None = None) -> Drawing:
        """A copy of SVG ``art_id`` with every fill and stroke in ``color`` (cached).

        Raster art cannot be recoloured: asking is an error naming its file
        (located at ``where``/``line``/``field`` when given).
        """
        colour = colors.HexColor(color) if isinstance(color, str) else color
        key = (art_id, _colour_key(colour))
        cached = self._tinted.get(key)
        if cached is not None:
            tracking.read(("art", self.art_dir, art_id))
            return cached
        art = self.get(art_id, where, line, field)
        if isinstance(art, RasterArt):
            raise fail(f"art {art_id!r} is a {art.kind} image ({art.shown}) and cannot be "
                       f"recoloured to {colour.hexval().replace('0x', '#')}",
                       path=where or art.shown, line=line if where else None, field=field,
                       hint="drop the colour to draw the picture as it is, or draw the art "
                            "as a single-colour SVG icon")
        drawing = _tree_copy(art)
        _recolour(drawing, colour)
        self._tinted[key] = drawing
        return drawing

    def draw(self, canvas: Any, art_id: str, x: float, y: float, width: float,
             height: float, color: colors.Color | str | None = None
             ) -> tuple[float, float, float, float]:
        """Draw ``art_id`` scaled to fit the box, aspect kept, centred.

        ``color`` recolours a single-colour SVG icon.  Returns the box actually
        covered, ``(x, y, width, height)`` in points.
        """
        if not (width > 0 and height > 0):
            raise ValueError(f"art box must have a positive size (got {width}x{height})")
        art = self.get(art_id) if color is None else self.tinted(art_id, color)
        scale = min(width / art.width, height / art.height)
        w, h = art.width * scale, art.height * scale
        x0, y0 = x + (width - w) / 2, y + (height - h) / 2
        if isinstance(art, RasterArt):
            art.draw(canvas, x0, y0, w, h)
            return (x0, y0, w, h)
        canvas.saveState()
        canvas.translate(x0, y0)
        canvas.scale(scale, scale)
        # renderPDF starts every drawing by selecting its default font
        # (Helvetica, never embedded); start from the canvas's own font instead, on
        # a shallow copy: the drawing itself is shared (art.svg keeps it for the
        # process, and serve draws from more than one thread)
        art = copy.copy(art)
        art.initialFontName = canvas._fontname
        art.initialFontSize = canvas._fontsize
        renderPDF.draw(art, canvas, 0, 0)
        canvas.restoreState()
        return (x0, y0, w, h)
