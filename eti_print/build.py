"""The build pipeline: load and check everything, render everything, then write.

Stages: open the pack -> load data, schemas and checks (and E.T.I.'s rules)
-> load fonts, art, layouts and sheet settings -> resolve every face (all
templates evaluated, all text fitted) -> render every PDF in memory -> write
all files atomically.  Nothing is written until every stage has passed, so a
failed build leaves the last good output untouched.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .context import Context, Output, Progress
from .dataset import Dataset, load_dataset, run_checks
from .errors import InputError, Problem, UsageError
from .options import PrintOptions
from .output import prepare_dir, source_date_epoch, write_bytes
from .pack import Pack, slug

def pack_game(ds: Dataset) -> Any:
    """The game plugin a pack's ``rules:`` names, or None."""
    name = ds.config.get("rules")
    if name is None:
        return None
    from .games import get_game
    line, _ = ds.manifest.where(("rules",))
    return get_game(name, where=ds.manifest.path, line=line)


def open_dataset(pack_arg: str | None) -> tuple[Pack, Dataset, Any, Any]:
    """Load and check a pack's data: (pack, dataset, game, the game's model)."""
    pack = Pack.open(pack_arg)
    ds = load_dataset(pack, checks=False)
    problems = run_checks(ds)
    game = pack_game(ds)
    model = None
    if game is not None:
        model = game.model(ds)
        problems.extend(game.rules(model))
    if problems:
        raise InputError(sorted(set(problems), key=Problem.sort_key))
    return pack, ds, game, model


def validate_pack(pack_arg: str | None) -> str:
    pack, ds, game, model = open_dataset(pack_arg)
    decks = ds.config.get("decks") or []
    counts = []
    for deck in decks:
        n = sum(_copies(item, deck) for ref in deck["items"] for item in ds.items(ref))
        counts.append(f"{n} {deck['id']}")
    for key, what in (("boards", "board"), ("references", "reference sheet")):
        n = len(ds.config.get(key) or [])
        if n:
            counts.append(f"{n} {what}{'s' if n > 1 else ''}")
    files = len(ds.docs)
    return (f"{ds.config['name']}: OK - {files} data files, "
            + (", ".join(counts) if counts else "no decks")
            + (f"; {len(game.rule_names)} consistency rules passed" if game and game.rule_names
               else ""))


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


def load_context(pack_arg: str | None, options: PrintOptions, cache: Any = None) -> Context:
    """Load and check everything; with a ``cache.BuildCache``, reuse unchanged resources."""
    from .art import ArtLibrary
    from .fonts import load_fonts
    from .layout import LayoutLibrary
    from .sheets import load_sheets
    from .templating import TemplateEnv
    pack, ds, game, model = open_dataset(pack_arg)

    def resources() -> tuple:
        return (load_fonts(pack), ArtLibrary(pack.root, fonts=set()), TemplateEnv(pack.root),
                load_sheets(pack), LayoutLibrary(pack))

    fonts, art, env, sheets, layouts = (cache.resources(pack, resources) if cache is not None
                                        else resources())
    return Context(pack, ds, fonts, art, env, layouts, sheets, options, model, game, cache=cache)


def card_outputs(ctx: Context, progress: Progress = None) -> list[Output]:
    """Every deck of the pack, grouped into PDFs by each deck's ``output``."""
    from .render.cards import render_decks
    return render_decks(ctx, progress)


def _renderers(ctx: Context) -> list[Callable[[Context, Progress], list[Output]]]:
    renderers: list[Callable[[Context, Progress], list[Output]]] = [card_outputs]
    if ctx.game is not None and hasattr(ctx.game, "renderers"):
        renderers.extend(ctx.game.renderers(ctx))
    config = ctx.dataset.config
    if config.get("boards") or config.get("references"):
        # generic boards and reference sheets declared in pack.yaml (any pack)
        renderers.append(component_outputs)
    return renderers


def component_outputs(ctx: Context, progress: Progress = None) -> list[Output]:
    """The pack's declared boards and reference sheets (``boards:``, ``references:``)."""
    from .render.components import render_components
    return render_components(ctx, progress)


def ink_saver_name(name: str) -> str:
    """``eti-cards.pdf`` -> ``eti-cards-ink-saver.pdf`` (unchanged if already so named)."""
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    if stem.endswith("-ink-saver"):
        return name
    return f"{stem}-ink-saver{dot}{ext}"


def render_all(ctx: Context, progress: Progress = None) -> list[Output]:
    outputs: list[Output] = []
    cache = ctx.cache
    renderers = _renderers(ctx)
    if cache is not None:
        cache.begin(ctx, renderers)
    try:
        for renderer in renderers:
            outputs.extend(renderer(ctx, progress) if cache is None
                           else cache.render(renderer, ctx, progress))
    finally:
        if cache is not None:
            cache.end()
    if ctx.options.ink_saver:
        # Every output of an ink-saver build is a variant: never overwrite a full-colour file.
        outputs = [o if o.name == ink_saver_name(o.name) else
                   dataclasses.replace(o, name=ink_saver_name(o.name)) for o in outputs]
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
    o = ctx.options
    # What to print on what: each stock with its files and page count.
    stock: dict[str, dict[str, Any]] = {}
    for f in files:
        entry = stock.setdefault(f["print_on"], {"files": [], "pages": 0})
        entry["files"].append(f["file"])
        entry["pages"] += f["pages"]
    # Cards per deck, and the file that holds each deck.
    decks = {}
    for deck in ctx.dataset.config.get("decks") or []:
        holder = next((f for f in files if f["kind"] == "cards" and deck["id"] in f["counts"]),
                      None)
        if holder is not None:
            decks[deck["id"]] = {"title": deck["title"], "cards": holder["counts"][deck["id"]],
                                 "file": holder["file"]}
    flip = {"long": "double-sided, flip on the long edge",
            "short": "double-sided, flip on the short edge",
            "none": "single-sided; backs on their own sheets"}.get(o.duplex, o.duplex)
    from . import __version__
    body = {
        "pack": ctx.title,
        "slug": ctx.slug,
        "generator": f"eti-print {__version__}",
        "data_sha256": data_hash(ctx.dataset),
        "options": {"paper": o.paper, "duplex": o.duplex,
                    "back_offset_mm": list(o.back_offset),
                    "ink_saver": o.ink_saver, "booklet": o.booklet},
        "print": {"paper": o.paper.upper(), "scale": "100 % (actual size), never fit to page",
                  "card sheets": flip,
                  "back offset": f"{o.back_offset[0]:g},{o.back_offset[1]:g} mm"},
        "files": files,
        "stock": stock,
        "decks": decks,
        "totals": {"files": len(files), "pages": sum(f["pages"] for f in files),
                   "bytes": sum(f["bytes"] for f in files),
                   "cards": sum(d["cards"] for d in decks.values()),
                   "pages_by_stock": {k: v["pages"] for k, v in stock.items()}},
    }
    return (json.dumps(body, indent=2, sort_keys=False) + "\n").encode()


def manifest_name(ctx: Context) -> str:
    name = f"{ctx.slug}-manifest.json"
    return ink_saver_name(name) if ctx.options.ink_saver else name


def write_outputs(out_dir: Path, ctx: Context, outputs: list[Output],
                  skip_unchanged: bool = False) -> list[Path]:
    """Write every output and the manifest atomically; return the files written.

    With ``skip_unchanged`` a file whose bytes are already on disk is left
    alone (watch: PDF viewers reload only what changed).
    """
    out = prepare_dir(out_dir)
    written = []
    files = [(o.name, o.data) for o in outputs] + [(manifest_name(ctx), manifest(ctx, outputs))]
    for name, data in files:
        target = out / name
        if skip_unchanged and _same_bytes(target, data):
            continue
        write_bytes(target, data)
        written.append(target)
    return written


def _same_bytes(path: Path, data: bytes) -> bool:
    try:
        return (path.is_file() and not path.is_symlink() and path.stat().st_size == len(data)
                and path.read_bytes() == data)
    except OSError:
        return False


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
    from .fonts import load_fonts
    from .units import mm
    pack = Pack.open(None)
    fonts = load_fonts(pack)
    out = prepare_dir(out_dir)
    target = out / f"calibration-{slug(paper)}.pdf"
    render_calibration(target, paper=paper, fonts=fonts,
                       back_offset=(mm(offset[0]), mm(offset[1])))
    return target
