"""Sheet settings kept as data, in points.

eti-print's standard settings (``eti_print/defaults/sheets.yaml``: poker,
bridge, tarot, mini, square, chit...) are there in every pack; a pack's own
``templates/sheets.yaml`` adds settings and overrides standard ones by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import InputError, fail
from .pack import Pack, confine
from .schema import load_checked
from .units import mm, to_points

#: Space between two neighbouring pieces' trims, unless a setting gives ``gutter``:
#: each piece's bleed fills its half, so a cut up to 1 mm off shows its own colour,
#: and the marks between them are 3 mm long.  Nine poker cards still fit on A4.
DEFAULT_GUTTER = mm(4)


@dataclass(frozen=True)
class SheetSetting:
    name: str
    width: float
    height: float
    bleed: float
    gutter: float
    mark_length: float
    mark_offset: float
    mark_stroke: float
    #: The safe zone's inset from the trim (``preview --guides``): text and icons stay inside.
    safe: float = mm(3)


@dataclass(frozen=True)
class ScaleCheck:
    """The square on the first sheet of every file, and the words beside it."""

    size: float = mm(25)
    label: str = ("25 mm: measure to check the print is at actual size. Smaller? Print "
                  "again at 100\u00a0%, with fit to page off.")


@dataclass(frozen=True)
class SheetSettings:
    settings: dict[str, SheetSetting]
    source: str
    scale: ScaleCheck = ScaleCheck()

    def get(self, name: str, where: str | None = None, line: int | None = None,
            field: str | None = None) -> SheetSetting:
        try:
            return self.settings[name]
        except KeyError:
            raise fail(f"unknown sheet setting {name!r}", path=where, line=line, field=field,
                       hint=f"settings in {self.source}: " + ", ".join(self.settings)) from None


#: The standard sheet settings every pack has, kept as data.
STANDARD_SHEETS = Path(__file__).resolve().parent / "defaults" / "sheets.yaml"


def load_sheets(pack: Pack) -> SheetSettings:
    """The standard settings, then the pack's ``templates/sheets.yaml`` (if it has one)
    over them."""
    settings, scale = _load_file(STANDARD_SHEETS, "eti_print/defaults/sheets.yaml",
                                 ScaleCheck())
    path = pack.templates_dir / "sheets.yaml"
    if not path.exists() and not path.is_symlink():
        return SheetSettings(settings, "eti-print's standard sheets", scale)
    shown = "templates/sheets.yaml"
    path = confine(pack.root, shown, where=shown)     # no symlink out of the pack
    own, scale = _load_file(path, shown, scale)
    settings.update(own)
    return SheetSettings(settings, shown, scale)


def standard_scale_check() -> ScaleCheck:
    """The scale check of eti-print's standard sheets (for files made without a pack)."""
    return _load_file(STANDARD_SHEETS, "eti_print/defaults/sheets.yaml", ScaleCheck())[1]


def _scale_check(doc, shown: str, base: ScaleCheck) -> ScaleCheck:
    raw = doc.data.get("scale_check") or {}
    size = base.size
    if "size" in raw:
        line, _ = doc.where(("scale_check", "size"))
        size = to_points(raw["size"], where=shown, line=line, field="scale_check.size",
                         limit="length")
        if not mm(10) <= size <= mm(50):
            raise InputError(doc.problem(("scale_check", "size"),
                                         "the scale square must be 10 to 50 mm"))
    return ScaleCheck(size, str(raw.get("label", base.label)))


def _load_file(path: Path, shown: str, scale: ScaleCheck
               ) -> tuple[dict[str, SheetSetting], ScaleCheck]:
    doc = load_checked(path, shown, "sheets")
    scale = _scale_check(doc, shown, scale)
    settings: dict[str, SheetSetting] = {}
    for name, raw in doc.data["sheets"].items():
        def pt(key: str, default: float, *sub: str) -> float:
            value = raw
            for part in sub:
                value = value.get(part, {}) if isinstance(value, dict) else {}
            value = value.get(key) if isinstance(value, dict) else None
            if value is None:
                return default
            line, _ = doc.where(("sheets", name) + sub + (key,))
            return to_points(value, where=shown, line=line,
                             field=".".join(("sheets", name) + sub + (key,)),
                             limit="piece" if key in ("width", "height") else "length")
        setting = SheetSetting(name, pt("width", 0), pt("height", 0), pt("bleed", 0),
                               pt("gutter", DEFAULT_GUTTER), pt("length", mm(3), "crop_marks"),
                               pt("offset", mm(0.5), "crop_marks"),
                               pt("stroke", 0.3, "crop_marks"), pt("safe", mm(3)))
        if setting.width <= 0 or setting.height <= 0:
            raise InputError(doc.problem(("sheets", name), "width and height must be above 0"))
        if setting.mark_stroke < 0.25:
            raise InputError(doc.problem(("sheets", name, "crop_marks", "stroke"),
                                         "crop marks thinner than 0.25pt vanish on a laser print"))
        settings[name] = setting
    return settings, scale
