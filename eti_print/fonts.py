"""Fonts: registered from the pack's ``fonts/`` folder only, embedded and subset.

A pack without a ``fonts/`` folder uses eti-print's bundled open fonts (the
E.T.I. pack's ``fonts/`` with its ``fonts.yaml``: roles body, title, label...);
a pack with one uses only its own.

(A bundled pack of an installed wheel finds the fonts it shares with the E.T.I.
pack in that pack's ``fonts/``: the wheel holds each font file once.)

``fonts/fonts.yaml`` maps role names (``body``, ``title``...) to TTF files.
Registration happens once per file; reportlab embeds a subset of every TTF it
draws with, so no PDF depends on a system font.
"""

from __future__ import annotations

import io
import os
import struct
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from reportlab.lib.fonts import addMapping
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFError, TTFont

from .errors import InputError, Problem, fail
from .files import is_file, read
from .fontcheck import MAX_FONT_BYTES, sanitise
from .pack import Pack, confine, default_pack_root
from .suggest import did_you_mean
from .yamlload import load

FACES = ("regular", "bold", "italic", "bold_italic")


@dataclass(frozen=True)
class Family:
    """A registered font family: the reportlab font name of each face."""

    role: str
    regular: str
    bold: str
    italic: str
    bold_italic: str

    def face(self, bold: bool = False, italic: bool = False) -> str:
        if bold and italic:
            return self.bold_italic
        if bold:
            return self.bold
        if italic:
            return self.italic
        return self.regular


@dataclass(frozen=True)
class FontSet:
    """Every font role a pack defines."""

    families: dict[str, Family]

    def __getitem__(self, role: str) -> Family:
        return self.families[role]

    def get(self, role: str, where: str | None = None, line: int | None = None,
            field: str | None = None) -> Family:
        try:
            return self.families[role]
        except KeyError:
            raise fail(f"unknown font {role!r}", path=where, line=line, field=field,
                       hint=did_you_mean(role, self.families)
                       or "fonts are " + ", ".join(sorted(self.families))) from None

    def covers(self, font_name: str, text: str) -> set[str]:
        """The characters of ``text`` that ``font_name`` has no glyph for."""
        return missing_glyphs(font_name, text)


#: The attribute of a reportlab document that holds its call log while one is kept
#: (``render.replay.logged_calls``).
LOG = "_eti_calls"


class LoggedFont(TTFont):
    """A TrueType font that tells a document's call log (``render.replay``) every call
    that reads or changes the document's state of it: ``splitString`` gives each new
    character the next code of a subset (in first-use order), and
    ``getSubsetInternalName`` names the font in the document on its first use."""

    def splitString(self, text, doc, encoding="utf-8"):
        result = super().splitString(text, doc, encoding)
        log = getattr(doc, LOG, None)
        if log is not None:
            log.append(("split", self, text, result))
        return result

    def getSubsetInternalName(self, subset, doc):
        result = super().getSubsetInternalName(subset, doc)
        log = getattr(doc, LOG, None)
        if log is not None:
            log.append(("name", self, subset, result))
        return result


@cache
def _register_file(path: Path, shown: str) -> str:
    name = "eti-" + path.stem
    data = read(path, shown, MAX_FONT_BYTES, what="font")
    sanitise(data, shown)
    source = io.BytesIO(data)
    source.name = str(path)
    try:
        font = LoggedFont(name, source)
    except Exception as exc:     # reportlab on a font OTS passed: any error is the font's
        raise fail(f"cannot load font: {_reason(exc)}", path=shown,
                   hint="fonts are TrueType (.ttf) files") from None
    pdfmetrics.registerFont(font)
    return name


def _reason(exc: Exception) -> str:
    if isinstance(exc, (TTFError, OSError, ValueError, struct.error)):
        return str(exc)
    return f"the font is damaged ({type(exc).__name__}: {exc})"


@cache
def _charmap(font_name: str) -> frozenset[int]:
    return frozenset(pdfmetrics.getFont(font_name).face.charToGlyph)


def missing_glyphs(font_name: str, text: str) -> set[str]:
    have = _charmap(font_name)
    return {ch for ch in text if ord(ch) not in have and ch not in "\n\r\t\u00ad"}


def bundled_fonts_dir() -> Path:
    """eti-print's own open fonts, with their ``fonts.yaml``: the E.T.I. pack's ``fonts/``."""
    return (default_pack_root() / "fonts").resolve()


def fonts_folder(pack: Pack) -> Path:
    """The folder ``pack`` takes its fonts from: its own ``fonts/``, else the bundled one."""
    here = pack.fonts_dir
    return here if here.exists() or here.is_symlink() else bundled_fonts_dir()


def _font_file(pack: Pack, folder: Path, ref: str, shown: str, line: int | None,
               field: str) -> Path:
    """The file a ``fonts.yaml`` entry names: in the pack's ``fonts/`` (or the bundled
    fonts, for a pack without one), or, for a bundled pack of an installed wheel that
    leaves it out, in the one shared copy."""
    if folder != pack.fonts_dir:
        return confine(folder, ref, where=shown, line=line, field=field)
    shared = pack.shared_fonts_dir
    # lexists: a broken link or a loop is there, and confine says what is wrong with it
    if shared is not None and not os.path.lexists(pack.fonts_dir / ref) \
            and is_file(shared / ref):
        return confine(shared, ref, where=shown, line=line, field=field)
    if "/" not in ref and not os.path.lexists(pack.fonts_dir / ref):
        try:
            known = [p.name for p in pack.fonts_dir.iterdir()
                     if p.suffix.lower() in (".ttf", ".otf")]
        except OSError:
            known = []
        near = did_you_mean(ref, known)
        if near:
            raise fail(f"file not found: {ref}", path=shown, line=line, field=field, hint=near)
    return confine(pack.root, ref, "fonts", where=shown, line=line, field=field)


def load_fonts(pack: Pack) -> FontSet:
    """Register every font role of ``pack`` and return them."""
    folder = fonts_folder(pack)
    if folder == pack.fonts_dir:     # no fonts.yaml (or fonts/) symlinked out of the pack
        config = confine(pack.root, "fonts/fonts.yaml", where="fonts/fonts.yaml")
    else:
        config = confine(folder, "fonts.yaml", where=pack.display(folder / "fonts.yaml"))
    shown = pack.display(config)
    doc = load(config, shown)
    roles = doc.data.get("fonts") if isinstance(doc.data, dict) else None
    if not isinstance(roles, dict) or not roles:
        raise InputError(doc.problem(("fonts",), "must map font roles to files"))
    problems: list[Problem] = []
    families: dict[str, Family] = {}
    for role, faces in roles.items():
        if not isinstance(faces, dict) or "regular" not in faces:
            problems.append(doc.problem(("fonts", role), "needs at least a 'regular' file"))
            continue
        names: dict[str, str] = {}
        for face, ref in faces.items():
            if face not in FACES:
                problems.append(doc.problem(("fonts", role, face), f"unknown face {face!r}",
                                            key=True, hint=did_you_mean(face, FACES)
                                            or "faces are " + ", ".join(FACES)))
                continue
            line, _ = doc.where(("fonts", role, face))
            try:
                path = _font_file(pack, folder, str(ref), shown, line,
                                  f"fonts.{role}.{face}")
                names[face] = _register_file(path, pack.display(path))
            except InputError as exc:
                problems.extend(exc.problems)
        if "regular" not in names:
            continue
        regular = names["regular"]
        fam = Family(role, regular, names.get("bold", regular), names.get("italic", regular),
                     names.get("bold_italic", names.get("bold", regular)))
        addMapping(regular, 0, 0, fam.regular)
        addMapping(regular, 1, 0, fam.bold)
        addMapping(regular, 0, 1, fam.italic)
        addMapping(regular, 1, 1, fam.bold_italic)
        families[role] = fam
    if problems:
        raise InputError(problems)
    return FontSet(families)
