"""Benchmark: the exports' time and peak memory, and the PNG compression level.

Run from the repository root:  python bench/bench_export.py [--repeat N] [--cards 1000,10000]

The runs keep their images in a cache folder of their own (``ETI_PRINT_CACHE_DIR``).
``export png`` of E.T.I. is timed three ways: ``--no-cache``; with the image cache warm
on the unchanged pack; and with a sentence two events print edited before each run (their
two faces rasterised again, the others read back).

Each command runs in a new Python process; its peak RSS is that child's own
``ru_maxrss`` (``os.wait4``), its time the wall time of the whole process
(start-up and imports included) and its CPU time user + system.  The figures
are the median of N runs.  The synthetic packs are ``eti-print new``'s
scaffold with N distinct cards (each its own title, number and text), so
every card is a distinct face: the worst case for an export's memory.

``--levels`` prints the PNG encoders' size-versus-time table: half of E.T.I.'s
distinct card faces rasterised once, then encoded by each encoder that keeps
the pixels (Pillow's, and the export's streaming writer with zlib or ISA-L).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


#: The cache folder of the runs (``run``): the bench's own, never the user's.
CACHE: dict[str, str] = {}


def run(args: list[str], cwd: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of ``eti-print ARGS`` in a child process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), **CACHE}
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "eti_print", *args], cwd=cwd, env=env,
                             stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"eti-print {' '.join(args)} failed ({child.returncode})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def synthetic_pack(folder: Path, cards: int) -> Path:
    """``eti-print new``'s scaffold with ``cards`` distinct cards."""
    pack = folder / f"pack-{cards}"
    subprocess.run([sys.executable, "-m", "eti_print", "new", str(pack), "-q"], check=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    lines = ["cards:"]
    for i in range(cards):
        lines += [f"  - title: Card {i + 1:05d}", f"    number: {i % 1000}",
                  f"    text: \"Draw **{i % 7 + 1}** cards, then discard *{i % 3}*.\""]
    (pack / "cards" / "deck.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return pack


def levels() -> None:
    """Size and encoding time of E.T.I.'s distinct card faces with each PNG encoder that
    keeps the pixels: Pillow's (adaptive filters, zlib) as the export had it, and the
    export's streaming writer (no filter) with zlib or ISA-L at each level."""
    import io
    import zlib

    try:                # ISA-L: faster, not deterministic (export/png.py); if installed
        from isal import isal_zlib
    except ImportError:
        isal_zlib = None
    sys.path.insert(0, str(ROOT))
    from eti_print.export import export_decks
    from eti_print.export.faces import faces_pdf, rasterise_each, srgb_profile
    from eti_print.export.png import image_png
    from eti_print.options import PrintOptions
    from eti_print.pipeline import load_checked
    ctx = load_checked(None, PrintOptions())
    faces = {}
    for deck in export_decks(ctx):
        for card in deck.cards:
            for face in (card.front, card.back):
                faces.setdefault(face.key, face)
    chosen = list(faces.values())[::2]          # every other one: fronts and backs of all decks
    pdf = faces_pdf(chosen, ctx.art, ctx.fonts["body"].regular, "t", 9.0)
    images = [image.copy() for _, image in rasterise_each(pdf, range(len(chosen)), 300 / 72)]
    print(f"PNG encoders: {len(images)} distinct E.T.I. card faces at 300 dpi (825 x 1125)",
          flush=True)

    def pillow(level: int, strategy: int) -> Callable[[Any], bytes]:
        def encode(image: Any) -> bytes:
            buffer = io.BytesIO()
            image.save(buffer, "PNG", dpi=(300, 300), icc_profile=srgb_profile(),
                       compress_level=level, compress_type=strategy)
            return buffer.getvalue()
        return encode

    def writer(module: Any, level: int) -> Callable[[Any], bytes]:
        return lambda image: image_png(image, 300, deflate=module.compressobj(level))

    settings = {"Pillow, zlib 6 (Pillow's default)": pillow(6, 0),
                "Pillow, zlib 1, Z_RLE (before)": pillow(1, 3),
                "no filter, zlib 1": writer(zlib, 1),
                "no filter, zlib 6": writer(zlib, 6),
                **{f"no filter, ISA-L {level}": writer(isal_zlib, level)
                   for level in (range(4) if isal_zlib else ())}}
    rows: dict[str, tuple[int, float]] = {}
    for _ in range(2):          # interleaved: every setting once per round, best of 2
        for name, encode in settings.items():
            started = time.process_time()
            size = sum(len(encode(image)) for image in images)
            took = time.process_time() - started
            rows[name] = (size, min(took, rows.get(name, (0, took))[1]))
    base = rows["Pillow, zlib 1, Z_RLE (before)"]
    print(f"{'encoder':36s} {'MiB':>6} {'size':>6} {'CPU s':>6} {'CPU':>6}")
    for name, (size, took) in rows.items():
        print(f"{name:36s} {size / 2**20:6.1f} {size / base[0]:6.2f} {took:6.2f} "
              f"{took / base[1]:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cards", default="1000",
                        help="synthetic pack sizes, comma-separated (default 1000)")
    parser.add_argument("--levels", action="store_true", help="the PNG encoder table only")
    args = parser.parse_args()
    if args.levels:
        levels()
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        CACHE["ETI_PRINT_CACHE_DIR"] = str(folder / "cache")
        eti = folder / "eti"
        eti.mkdir()
        for part in ("pack.yaml", "cards", "templates", "fonts"):
            source = ROOT / part
            (shutil.copytree if source.is_dir() else shutil.copyfile)(source, eti / part)
        # export png: without the image cache; with it warm on the unchanged pack; and
        # after one event's text was edited (another edit each run: one face new)
        jobs = [("E.T.I.", eti, "png --no-cache", None), ("E.T.I., warm cache", eti, "png",
                                                          None),
                ("E.T.I., one card edited", eti, "png", "event"),
                ("E.T.I.", eti, "tts", None), ("E.T.I.", eti, "pdf", None),
                ("E.T.I.", eti, "pdf --cmyk", None)]
        for n in (int(v) for v in args.cards.split(",")):
            pack = synthetic_pack(folder, n)
            jobs += [(f"{n} cards", pack, "png --no-cache", None),
                     (f"{n} cards", pack, "tts", None)]
        events = eti / "cards" / "events.yaml"
        shipped = events.read_text(encoding="utf-8")
        for label, pack, kind, edit in jobs:
            what, *flags = kind.split()
            command = ["export", what, str(pack), *flags, "-q", "--out", str(folder / "out")]
            if kind == "png" and edit is None:
                run(command, ROOT)                      # the cache made warm
            runs = []
            for n in range(args.repeat):
                if edit is not None:
                    word = "occupied used taken claimed held busy loaded full".split()[n % 8]
                    events.write_text(shipped.replace("highest filled data port.",
                                                      f"highest {word} data port."),
                                      encoding="utf-8")
                runs.append(run(command, ROOT))
            events.write_text(shipped, encoding="utf-8")
            wall, cpu, rss = (statistics.median(v) for v in zip(*runs))
            rows.append((f"export {kind}, {label}", wall, cpu, rss))
            print(f"{rows[-1][0]:44s} wall {wall:7.2f} s   CPU {cpu:7.2f} s   "
                  f"peak RSS {rss:6.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
