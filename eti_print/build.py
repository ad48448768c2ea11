"""The build pipeline: load and check everything, render everything, then write.

Stages: open the pack -> load data, schemas and checks (and E.T.I.'s rules)
-> load fonts, art, layouts and sheet settings -> resolve every face (all
templates evaluated, all text fitted) -> render every PDF in memory -> write
all files atomically.  Nothing is written until every stage has passed, so a
failed build leaves the last good output untouched.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .dataset import Dataset, load_dataset, run_checks
from .errors import InputError, Problem, UsageError
from .fonts import FontSet, load_fonts
from .layout import LayoutLibrary
from .output import prepare_dir, source_date_epoch, write_bytes
from .pack import Pack, slug
from .sheets import SheetSettings, load_sheets
from .units import mm

Progress = Callable[[str], None] | None


@dataclass(frozen=True)
class PrintOptions:
    paper: str = "a4"
    duplex: str = "long"
    back_offset: tuple[float, float] = (0.0, 0.0)   # millimetres
    ink_saver: bool = False
    booklet: bool = False   # impose the rules reference two-up for saddle stitching


@dataclass
class Context:
    """Everything loaded for one build, shared by the renderers."""

    pack: Pack
    dataset: Dataset
    fonts: FontSet
    art: Any
    env: Any
    layouts: LayoutLibrary
    sheets: SheetSettings
    options: PrintOptions
    database: Any = None     # the E.T.I. Database when the pack's rules are "eti"

    @property
    def slug(self) -> str:
        return self.dataset.slug

    @property
    def title(self) -> str:
        return self.dataset.config["name"]


@dataclass
class Output:
    """One rendered file, not yet written."""

    name: str
    data: bytes
    pages: int
    kind: str
    stock: str
    counts: dict[str, int] = field(default_factory=dict)


def open_dataset(pack_arg: str | None) -> tuple[Pack, Dataset, Any]:
    """Load and check a pack's data; the E.T.I. database too when the pack asks."""
    pack = Pack.open(pack_arg)
    ds = load_dataset(pack, checks=False)
    problems = run_checks(ds)
    db = None
    if ds.config.get("rules") == "eti":
        from .checks import run_rules
        from .model import build_database
        db = build_database(ds)
        problems.extend(run_rules(db))
    if problems:
        raise InputError(sorted(set(problems), key=Problem.sort_key))
    return pack, ds, db


def validate_pack(pack_arg: str | None) -> str:
    pack, ds, db = open_dataset(pack_arg)
    decks = ds.config.get("decks") or []
    counts = []
    for deck in decks:
        n = sum(_copies(item, deck) for ref in deck["items"] for item in ds.items(ref))
        counts.append(f"{n} {deck['id']}")
    files = len(ds.docs)
    return (f"{ds.config['name']}: OK - {files} data files, "
            + (", ".join(counts) if counts else "no decks")
            + (f"; {len(_rule_names())} consistency rules passed" if db is not None else ""))


def _rule_names() -> list[str]:
    from .checks import RULES
    return list(RULES)


def schema_reference(pack_arg: str | None, kind: str | None) -> str:
    from .schema import load_schema, reference
    pack = Pack.open(pack_arg)
    schema_dir = pack.cards_dir / "schemas"
    names = sorted(p.stem for p in schema_dir.glob("*.yaml"))
    if kind is not None:
        if kind not in names:
            raise UsageError(f"no schema {kind!r}; kinds are {', '.join(names)}")
        names = [kind]
    return "\n\n".join(reference(load_schema(schema_dir / f"{n}.yaml",
                                             pack.display(schema_dir / f"{n}.yaml")))
                       for n in names)


def _copies(item: Any, deck: dict[str, Any]) -> int:
    key = deck.get("count")
    if key and isinstance(item, dict):
        return int(item.get(key, 1))
    return 1


def load_context(pack_arg: str | None, options: PrintOptions) -> Context:
    from .art import ArtLibrary
    from .templating import TemplateEnv
    pack, ds, db = open_dataset(pack_arg)
    fonts = load_fonts(pack)
    art = ArtLibrary(pack.root, fonts=set())
    env = TemplateEnv(pack.root)
    sheets = load_sheets(pack)
    return Context(pack, ds, fonts, art, env, LayoutLibrary(pack), sheets, options, db)


def card_outputs(ctx: Context, progress: Progress = None) -> list[Output]:
    """Every deck of the pack, grouped into PDFs by each deck's ``output``."""
    from .render.cards import render_decks
    return render_decks(ctx, progress)


def _renderers(ctx: Context) -> list[Callable[[Context, Progress], list[Output]]]:
    renderers: list[Callable[[Context, Progress], list[Output]]] = [card_outputs]
    if ctx.database is not None:
        from .render import eti
        renderers.extend(eti.RENDERERS)
    return renderers


def render_all(ctx: Context, progress: Progress = None) -> list[Output]:
    outputs: list[Output] = []
    for renderer in _renderers(ctx):
        outputs.extend(renderer(ctx, progress))
    names = [o.name for o in outputs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InputError(Problem(f"two outputs would both be written as {', '.join(dupes)}",
                                 "pack.yaml", hint="give decks distinct ids or outputs"))
    return outputs


def data_hash(ds: Dataset) -> str:
    """SHA-256 over the pack's data, schemas, layouts, templates, art and fonts."""
    h = hashlib.sha256()
    root = ds.pack.root
    for folder in ("cards", "templates", "fonts"):
        base = root / folder
        if not base.is_dir():
            continue
        for path in sorted(p for p in base.rglob("*") if p.is_file() and not p.is_symlink()):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(b"\0")
            h.update(hashlib.sha256(path.read_bytes()).digest())
    h.update((root / "pack.yaml").read_bytes())
    return h.hexdigest()


def manifest(ctx: Context, outputs: list[Output]) -> bytes:
    files = [{
        "file": o.name,
        "kind": o.kind,
        "sha256": hashlib.sha256(o.data).hexdigest(),
        "bytes": len(o.data),
        "pages": o.pages,
        "print_on": o.stock,
        "counts": o.counts,
    } for o in outputs]
    body = {
        "pack": ctx.title,
        "slug": ctx.slug,
        "data_sha256": data_hash(ctx.dataset),
        "options": {"paper": ctx.options.paper, "duplex": ctx.options.duplex,
                    "back_offset_mm": list(ctx.options.back_offset),
                    "ink_saver": ctx.options.ink_saver},
        "files": files,
    }
    return (json.dumps(body, indent=2, sort_keys=False) + "\n").encode()


def write_outputs(out_dir: Path, ctx: Context, outputs: list[Output]) -> list[Path]:
    out = prepare_dir(out_dir)
    written = []
    for o in outputs:
        target = out / o.name
        write_bytes(target, o.data)
        written.append(target)
    target = out / f"{ctx.slug}-manifest.json"
    write_bytes(target, manifest(ctx, outputs))
    written.append(target)
    return written


def build(pack_arg: str | None, out_dir: Path, options: PrintOptions,
          progress: Progress = None) -> str:
    """Build every output of a pack; return a short report."""
    started = time.perf_counter()
    source_date_epoch()  # reportlab reads it too, and would crash on a bad value
    ctx = load_context(pack_arg, options)
    outputs = render_all(ctx, progress)
    written = write_outputs(out_dir, ctx, outputs)
    seconds = time.perf_counter() - started
    lines = [f"{o.name}: {o.pages} pages" + (f" ({', '.join(f'{v} {k}' for k, v in o.counts.items())})"
                                            if o.counts else "") for o in outputs]
    lines.append(f"wrote {len(written)} files to {out_dir} in {seconds:.2f} s")
    return "\n".join(lines)


def calibrate(out_dir: Path, paper: str, offset: tuple[float, float]) -> Path:
    from .calibrate import render_calibration
    pack = Pack.open(None)
    fonts = load_fonts(pack)
    out = prepare_dir(out_dir)
    target = out / f"calibration-{slug(paper)}.pdf"
    render_calibration(target, paper=paper, fonts=fonts,
                       back_offset=(mm(offset[0]), mm(offset[1])))
    return target
