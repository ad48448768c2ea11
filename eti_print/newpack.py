"""``eti-print new DIR``: a working one-deck pack to start a game from.

The files are data, in ``eti_print/scaffold/``: jinja2 templates with ``[[ ]]``
and ``[% %]`` delimiters (the layouts' own ``{{ card.title }}`` passes through),
filled in with the pack's name, the card size and the layout geometry computed
here for that size.  The pack it writes relies on eti-print's defaults: the
bundled fonts (no ``fonts/``) and the standard sheet settings (no
``templates/sheets.yaml``).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from .errors import UsageError
from .output import write_bytes
from .units import to_points

SCAFFOLD = Path(__file__).resolve().parent / "scaffold"
STANDARD_SHEETS = Path(__file__).resolve().parent / "defaults" / "sheets.yaml"
DATA_FORMATS = ("yaml", "csv", "xlsx")
#: The safe zone: text stays 1/8 in inside the trim.
SAFE_MM = 3.175
_MM = 72 / 25.4


@dataclass(frozen=True)
class Size:
    name: str
    width: float      # mm
    height: float     # mm
    bleed: float      # mm
    description: str


def sizes() -> dict[str, Size]:
    """The standard sheet settings a new pack may use, by name (``card`` is poker)."""
    import yaml
    raw = yaml.safe_load(STANDARD_SHEETS.read_text(encoding="utf-8"))["sheets"]
    return {name: Size(name, to_points(s["width"]) / _MM, to_points(s["height"]) / _MM,
                       to_points(s["bleed"]) / _MM, s.get("description", ""))
            for name, s in raw.items() if name != "card"}


def _r(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def geometry(size: Size) -> dict[str, Any]:
    """Where the starter layouts put their boxes on a card of ``size`` (mm, pt)."""
    w, h, s = size.width, size.height, SAFE_MM
    iw, ih = w - 2 * s, h - 2 * s
    small = min(w, h) < 40
    pad = 1.2 if small else 2.0
    band = ih * 0.3 if small else min(12.0, max(8.0, ih * 0.12))
    g: dict[str, float | bool] = {
        "small": small, "iw": iw, "ih": ih, "radius": 1.0 if small else 2.0, "band": band,
        "title_x": s + pad, "title_w": iw - 2 * pad,
        "title_size": min(14.0, band * _MM * 0.5), "title_min": 6.5 if small else 7.0,
        "back_size": min(28.0, iw * _MM * 0.16),
    }
    if small:
        g.update(number_x=s, number_y=s + band, number_w=iw, number_h=ih - band,
                 number_size=(ih - band) * _MM * 0.7)
    else:
        ring = min(iw * 0.45, ih * 0.3)
        ring_y = s + band + ih * 0.07
        g.update(ring=ring, ring_x=(w - ring) / 2, ring_y=ring_y,
                 number_x=(w - ring) / 2, number_y=ring_y, number_w=ring, number_h=ring,
                 number_size=ring * _MM * 0.45, text_y=ring_y + ring + ih * 0.05,
                 text_size=9.0 if iw > 45 else 7.5)
        g["text_h"] = s + ih - pad - g["text_y"]
    return {k: v if isinstance(v, bool) else _r(v) for k, v in g.items()}


def _rows() -> list[dict[str, Any]]:
    import yaml
    raw = yaml.safe_load((SCAFFOLD / "cards" / "deck.rows.yaml").read_text(encoding="utf-8"))
    return [{"title": t, "number": n, "text": x} for t, n, x in raw]


def _yaml_scalar(text: str) -> str:
    """``text`` as a YAML value: plain where it reads back as itself, else quoted."""
    import json

    import yaml
    try:
        if yaml.safe_load(f"k: {text}") == {"k": text}:
            return text
    except yaml.YAMLError:
        pass
    return json.dumps(text, ensure_ascii=False)


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(SCAFFOLD)), undefined=jinja2.StrictUndefined,
        variable_start_string="[[", variable_end_string="]]",
        block_start_string="[%", block_end_string="%]",
        comment_start_string="[#", comment_end_string="#]",
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
    env.filters["q"] = _yaml_scalar
    return env


def _name_of(folder: Path) -> tuple[str, str]:
    """The game's name and slug from its folder's name (``my-game`` -> My Game)."""
    base = folder.name or "my-game"
    slug = re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-")[:40].strip("-") or "my-game"
    words = re.split(r"[-_ ]+", base.strip())
    name = " ".join(w[:1].upper() + w[1:] for w in words if w) or "My Game"
    return name[:120], slug


def _xlsx(rows: list[dict[str, Any]], schema: bytes) -> bytes:
    """The cards as a workbook; each header carries its field's description as a comment
    (as ``export data`` writes them)."""
    import yaml
    from openpyxl import Workbook
    from openpyxl.comments import Comment
    fields = yaml.safe_load(schema)["schema"]["cards"]["schema"]["schema"]
    book = Workbook()
    sheet = book.active
    sheet.title = "Cards"
    sheet.append(["title", "number", "text"])
    for cell in sheet[1]:
        rules = fields[cell.value]
        optional = " Optional: leave the cell empty." if rules.get("required") is False else ""
        cell.comment = Comment(rules["description"] + optional, "eti-print")
    for row in rows:
        sheet.append([row["title"], row["number"], row["text"] or None])
    sheet.column_dimensions["A"].width = 18
    sheet.column_dimensions["C"].width = 40
    sheet.freeze_panes = "A2"
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _csv(rows: list[dict[str, Any]]) -> bytes:
    text = io.StringIO()
    out = csv.writer(text, lineterminator="\n")
    out.writerow(["title", "number", "text"])
    for row in rows:
        out.writerow([row["title"], row["number"], row["text"]])
    return text.getvalue().encode("utf-8")


def new_pack(folder: str | Path, size: str = "poker", two_sided: bool = True,
             data: str = "yaml") -> list[Path]:
    """Write a one-deck pack into ``folder`` (new, or empty); return the files written."""
    target = Path(folder)
    known = sizes()
    if size not in known:
        raise UsageError(f"unknown card size {size!r}; sizes are " + ", ".join(known))
    if data not in DATA_FORMATS:
        raise UsageError(f"unknown data format {data!r}; formats are "
                         + ", ".join(DATA_FORMATS))
    if target.exists() and not target.is_dir():
        raise UsageError(f"{folder} exists and is not a folder")
    if target.is_dir() and any(target.iterdir()):
        raise UsageError(f"{folder} exists and is not empty; give a new or empty folder")
    chosen = known[size]
    name, slug = _name_of(target.absolute())
    rows = _rows()
    values = {
        "name": name, "slug": slug, "size": size, "two_sided": two_sided, "data": data,
        "data_suffix": "." + data, "cards": rows, "safe": _r(SAFE_MM),
        "bleed": f"{_r(chosen.bleed)}mm",
        "size_text": f"{size}, {_r(chosen.width)} x {_r(chosen.height)} mm",
        "f": geometry(chosen),
        "title_max": 14 if chosen.width < 40 else 30, "text_max": 120,
    }
    env = _env()
    files: dict[str, bytes] = {}
    wanted = ["pack.yaml.j2", "cards/schemas/deck.yaml.j2", "templates/layouts/front.yaml.j2"]
    if two_sided:
        wanted.append("templates/layouts/back.yaml.j2")
    if data == "yaml":
        wanted.append("cards/deck.yaml.j2")
    for template in wanted:
        text = env.get_template(template).render(values)
        files[template.removesuffix(".j2")] = text.encode("utf-8")
    if data == "csv":
        files["cards/deck.csv"] = _csv(rows)
    elif data == "xlsx":
        files["cards/deck.xlsx"] = _xlsx(rows, files["cards/schemas/deck.yaml"])
    written = []
    for rel, content in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(path, content)
        written.append(path)
    written.extend(editor_schemas(target))
    return written


#: Where ``new`` puts the pack's JSON Schemas, and the editor settings that use them.
SCHEMA_DIR = ".schemas"
EDITOR_SETTINGS = ".vscode/settings.json"


def editor_schemas(target: Path) -> list[Path]:
    """The pack's JSON Schemas in ``.schemas/`` and a ``.vscode/settings.json`` mapping
    them onto its files (yaml-language-server: completion and inline errors), with
    paths relative to the pack so the folder can move."""
    from .jsonschemas import write_schema_files, yaml_schemas
    written = write_schema_files(str(target), target / SCHEMA_DIR)
    settings = target / EDITOR_SETTINGS
    settings.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(settings, yaml_schemas(
        written, key=lambda path: f"./{path.relative_to(target).as_posix()}").encode("utf-8"))
    return [*written, settings]


def report(folder: str | Path, written: list[Path]) -> str:
    """What ``new`` tells the user: the files, and what to run next."""
    root = Path(folder)
    lines = [f"wrote a new pack in {folder}:"]
    lines += [f"  {p.relative_to(root).as_posix()}" for p in sorted(written)]
    lines += ["next:", f"  cd {folder}", "  eti-print validate", "  eti-print build"]
    return "\n".join(lines)
