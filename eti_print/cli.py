"""The command line: parse arguments, call the library, turn errors into exit codes.

This is the only module that prints or exits.  Exit status 0 is success, 1 a
problem with the data, layouts, templates or art, 2 a wrong command line.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__, limits
from .cli_args import Parser, add_no_cache, add_print_options, offset, paper
from .errors import PROBLEM_CAP, EtiError, InputError, UsageError
from .pack import choose_pack, pack_help


def _game_command(args: argparse.Namespace) -> int:
    from .game_commands import run
    return run(args)


def _cmd_validate(args: argparse.Namespace) -> int:
    from .pipeline import validate
    # no in-process cache to keep: with the persistent cache on, the pipeline makes one
    # whose job and deck entries are kept on disk (pipeline.with_entries)
    summary = validate(args.pack, verbose=args.verbose, cache=None, store=_store(args))
    if args.simulate:
        from .game_commands import simulate_pack
        limits.begin_work()     # the memory limit, even if the cache answered validate
        summary += "\n" + simulate_pack(args.pack)
    if not args.quiet:
        print(summary)
    return 0


def _cmd_new(args: argparse.Namespace) -> int:
    from .newpack import new_pack, report
    written = new_pack(args.dir, args.size, args.two_sided, args.data)
    if not args.quiet:
        print(report(args.dir, written))
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from .reference import command, split_args
    args.pack, kind = split_args(args.first, args.second, args.pack_option)
    _choose_pack(args)
    if args.json_schema is not None:
        if kind is not None or args.markdown:
            raise UsageError("--json-schema writes every schema of the pack: give no KIND")
        from .jsonschemas import write_json_schemas
        print(write_json_schemas(args.pack, Path(args.json_schema)))
        return 0
    print(command(args.pack, kind, as_markdown=args.markdown))
    return 0


def _print_options(args: argparse.Namespace):
    """What the command line says; pack.yaml's ``print:`` and the defaults fill the rest."""
    from .options import PrintRequest
    return PrintRequest(paper=args.paper, duplex=args.duplex, back_offset=args.back_offset,
                        ink_saver=args.ink_saver, booklet=getattr(args, "booklet", False),
                        gutter=getattr(args, "gutter", None))


def _report(args: argparse.Namespace, work: Any) -> int:
    """Run ``work(progress)`` with a progress reporter (none with -q), closed whatever
    happens, and print its report."""
    progress = None if args.quiet else _reporter()
    try:
        report = work(progress)
    finally:
        if progress is not None:
            progress.close()
    if not args.quiet:
        print(report)
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    from .pipeline import build
    return _report(args, lambda progress: build(
        args.pack, Path(args.out), _print_options(args), progress=progress,
        verbose=args.verbose, cache=None, store=_store(args)))


def _store(args: argparse.Namespace):
    """The persistent build cache (diskcache.py), or None with --no-cache."""
    from .diskcache import ENV_BUILDS, DiskCache, use
    if args.no_cache:
        use(False)
        return None
    if os.environ.get(ENV_BUILDS) in ("off", "jobs"):   # jobs: the per-job entries only
        return None
    return DiskCache()


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from .calibrate import calibrate, calibration_options
    options = calibration_options(args.paper, args.back_offset, duplex=args.duplex)
    path = calibrate(Path(args.out), options.paper, options.back_offset, options.duplex)
    if args.verbose:
        print(options.describe(("paper", "duplex", "back_offset")))
    if not args.quiet:
        print(f"wrote {path}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from .export import export
    if args.kind == "data":
        if args.base_url is not None:
            raise UsageError("--base-url applies to 'export tts' only")
        if args.format not in (None, "csv", "xlsx"):
            raise UsageError("--format for 'export data' is csv or xlsx")
    elif args.kind != "tts" and (args.format is not None or args.base_url is not None):
        raise UsageError("--format and --base-url apply to 'export tts' and 'export data' only")
    elif args.format in ("csv", "xlsx"):
        raise UsageError("--format for 'export tts' is jpg or png")
    default = "csv" if args.kind == "data" else "jpg"
    return _report(args, lambda progress: export(
        args.kind, args.pack, Path(args.out), fmt=args.format or default,
        base_url=args.base_url, progress=progress, cmyk=args.cmyk, target=args.target,
        cache=_images_cached(args)))


def _images_cached(args: argparse.Namespace) -> bool:
    """Does ``export png`` keep its images in the cache folder (not with --no-cache, nor
    with ETI_PRINT_BUILD_CACHE=off)?"""
    from .diskcache import ENV_BUILDS, use
    if args.no_cache:
        use(False)
        return False
    return os.environ.get(ENV_BUILDS) != "off"


def _cmd_import(args: argparse.Namespace) -> int:
    from .export.data import import_data
    report = import_data(args.file, args.into, args.pack)
    if not args.quiet:
        print(report)
    return 0


def _cmd_watch(args: argparse.Namespace) -> int:
    import time

    from .pack import Pack
    from .progress import Reporter
    from .watch import watch
    options = _print_options(args)
    root = Pack.open(args.pack).root
    if not args.quiet:
        print(f"watching {root} for changes to data, layouts, templates, fonts and art "
              f"(Ctrl-C to stop); writing to {Path(args.out).resolve()}", flush=True)

    def on_build(report) -> None:
        stamp = time.strftime("%H:%M:%S")
        trigger = f"{', '.join(report.changes)} changed; " if report.changes else ""
        if report.ok:
            if not args.quiet:
                print(f"[{stamp}] {trigger}{report.summary()}", flush=True)
            return
        *lines, last = report.summary().splitlines()
        for line in lines:
            print(line, file=sys.stderr)
        print(f"[{stamp}] {trigger}{last}", file=sys.stderr, flush=True)

    try:
        watch(args.pack, Path(args.out), options, on_build=on_build, debug=args.debug,
              progress=Reporter(sys.stderr, tty=False) if args.verbose else None)
    except KeyboardInterrupt:
        print("eti-print: stopped watching", file=sys.stderr)
    return 0


def _cmd_preview(args: argparse.Namespace) -> int:
    from .preview import preview
    report = preview(args.pack, args.card, back=args.back, guides=args.guides, dpi=args.dpi,
                     out=Path(args.out) if args.out else None)
    if not args.quiet:
        print(report)
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    import time

    from .serve import serve

    def on_ready(url: str) -> None:
        print(f"serving the cards of {args.pack or 'the pack'} at {url} (Ctrl-C to stop); "
              f"images in {Path(args.out) / 'serve'}", flush=True)

    def on_build(state) -> None:
        stamp = time.strftime("%H:%M:%S")
        if state.ok:
            if not args.quiet:
                changed = (f"; changed: {', '.join(state.changed)}" if state.changed else "")
                print(f"[{stamp}] {sum(len(d['cards']) for d in state.decks)} cards ready in "
                      f"{state.seconds:.2f} s{changed}", flush=True)
            return
        for line in state.problems:
            print(line, file=sys.stderr)
        print(f"[{stamp}] {len(state.problems)} problem(s); the page keeps the last good cards",
              file=sys.stderr, flush=True)

    try:
        serve(args.pack, Path(args.out), args.host, args.port, on_build=on_build,
              on_ready=on_ready)
    except OSError as exc:
        raise UsageError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}"
                         ) from None
    except KeyboardInterrupt:
        print("eti-print: stopped serving", file=sys.stderr)
    return 0


def _choose_pack(args: argparse.Namespace) -> None:
    """No PACK given: the pack the working folder is in, else (saying so) E.T.I."""
    if args.pack is None and getattr(args, "pack_option", None):    # a deprecated --pack
        args.pack = args.pack_option
    args.pack_given = args.pack                 # what the command line said (None: nothing)
    choice = choose_pack(args.pack)
    args.pack = choice.where
    if choice.notice and not getattr(args, "quiet", False):
        print(f"eti-print: {choice.notice}", file=sys.stderr, flush=True)


def _reporter():
    """Progress on stderr: a bar on a terminal, else a plain line per stage."""
    from .progress import Reporter
    return Reporter(sys.stderr)


#: The commands the persistent cache may answer: their memory limit waits for their
#: work to begin (``pipeline.batch_gc``), so a cached run reads no limits spec.
_CORE_FAST = ("build", "validate")


def make_parser(games_too: bool = True, game: Any = None,
                pack: str | None = None) -> argparse.ArgumentParser:
    """The command line: the core's commands, and those of ``game`` (a ``Game``: the
    pack's) when ``games_too``; no other game's."""
    shown = game if games_too else None
    parser = Parser(prog="eti-print",
                     description="Print-and-play cards, boards, tokens and rules reference "
                                 "for E.T.I.: Estimated Time to Invasion (and other packs).",
                     epilog=_game_epilog(shown, pack) if games_too else None)
    parser.add_argument("--version", action="version", version=f"eti-print {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks (anywhere)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only problems (anywhere on the command line)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="more detail: where each print option is set, every problem "
                             "(anywhere on the command line)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    p = sub.add_parser("validate", help="check a pack's data and print a summary")
    p.add_argument("pack", nargs="?", metavar="PACK", help=pack_help())
    p.add_argument("--simulate", action="store_true",
                   help="also play simulated games of the pack's game and check the rules "
                        "that need them (E.T.I.: the order of the endgame ladder)")
    add_no_cache(p)
    p.set_defaults(handler=_cmd_validate)

    p = sub.add_parser("new", help="write a new one-deck pack to start a game from")
    p.add_argument("dir", metavar="DIR", help="the pack folder to create (new or empty)")
    p.add_argument("--size", default="poker", help="card size: poker (default), bridge, "
                   "tarot, mini, mini-euro, euro, standard, square or chit")
    sided = p.add_mutually_exclusive_group()
    sided.add_argument("--two-sided", dest="two_sided", action="store_true", default=True,
                       help="cards with a back layout (default)")
    sided.add_argument("--one-sided", dest="two_sided", action="store_false",
                       help="cards without a back: no back sheets")
    p.add_argument("--data", choices=("yaml", "csv", "xlsx"), default="yaml",
                   help="the cards' data file: cards/deck.yaml (default), .csv or .xlsx")
    p.set_defaults(handler=_cmd_new)

    p = sub.add_parser("schema", help="the reference: data files, pack.yaml, layouts, sheets, "
                                      "fonts, documents, markup and templates")
    p.add_argument("first", nargs="?", metavar="PACK", help=pack_help())
    p.add_argument("second", nargs="?", metavar="KIND",
                   help="what to describe: a data file (e.g. projects), pack, layout, sheets, "
                        "fonts, boards, documents, markup or templates; none lists the kinds")
    p.add_argument("--pack", dest="pack_option", metavar="PACK", help="(deprecated) the pack")
    p.add_argument("--markdown", action="store_true",
                   help="Markdown, as docs/reference.md (with no KIND: every kind)")
    p.add_argument("--json-schema", metavar="DIR", default=None,
                   help="write JSON Schemas of pack.yaml, the data files, layouts, sheets and "
                        "fonts into DIR, for editors (yaml-language-server)")
    p.set_defaults(handler=_cmd_schema)

    p = sub.add_parser("build", help="render every PDF of a pack into the output folder")
    p.add_argument("pack", nargs="?", metavar="PACK", help=pack_help())
    p.add_argument("--out", default="output", help="output folder (default: ./output)")
    p.add_argument("--booklet", action="store_true",
                   help="impose the rules reference two pages to a landscape sheet in "
                        "saddle-stitch order, to fold into a booklet")
    add_print_options(p)
    add_no_cache(p)
    p.set_defaults(handler=_cmd_build)

    p = sub.add_parser("calibrate", help="print a duplex calibration sheet to read --back-offset")
    p.add_argument("--out", default="output", help="output folder (default: ./output)")
    p.add_argument("--paper", type=paper, default=None,
                   help="a4 or letter (default: the print: paper of the pack.yaml here or "
                        "above, else a4)")
    p.add_argument("--back-offset", type=offset, default=None, metavar="X,Y",
                   help="offset to verify, in mm (default: the print: back_offset of the "
                        "pack.yaml here or above, else 0,0)")
    p.add_argument("--duplex", choices=("long", "short", "glue"), default=None,
                   help="the flip to measure: long or short (a duplex printer), or glue "
                        "(the sheet fed again by hand, turned on its long edge); default: "
                        "the print: duplex of the pack.yaml here or above, else long")
    p.set_defaults(handler=_cmd_calibrate)

    p = sub.add_parser("export", help="card files for print-on-demand (pdf, png) and "
                                      "Tabletop Simulator (tts)")
    p.add_argument("kind", choices=("pdf", "png", "tts", "data"),
                   help="pdf: one PDF per deck, a page per card side with 1/8 in bleed; "
                        "png: every card side at 300 dpi with 1/8 in bleed; "
                        "tts: Tabletop Simulator deck sheets and a saved object; "
                        "data: every list data file as a spreadsheet")
    p.add_argument("pack", nargs="?", metavar="PACK", help=pack_help())
    p.add_argument("--out", default="output",
                   help="output folder; files go to its pdf/, png/, tts/ or data/ "
                        "(default: ./output)")
    p.add_argument("--format", choices=("jpg", "png", "csv", "xlsx"), default=None,
                   help="tts: sheet image format, jpg (default) or png; data: csv (default) "
                        "or xlsx")
    p.add_argument("--base-url", default=None, metavar="URL",
                   help="tts only: where the images will be uploaded; the saved object's "
                        "image URLs become URL/<file> (default: file:/// paths on this computer)")
    p.add_argument("--cmyk", action="store_true",
                   help="pdf only: DeviceCMYK through the bundled FOGRA39 profile, total ink "
                        "at most 260 %%, with an output intent (for print services)")
    p.add_argument("--target", choices=("tgc", "mpc", "dtc"), default=None,
                   help="png only: image sizes of a print service's templates: The Game "
                        "Crafter, MakePlayingCards or DriveThruCards (default: 1/8 in bleed "
                        "at 300 dpi)")
    p.add_argument("--no-cache", action="store_true",
                   help="png: neither read nor keep the images of earlier exports in the "
                        "cache folder (the user's cache folder, or $ETI_PRINT_CACHE_DIR)")
    p.set_defaults(handler=_cmd_export)

    p = sub.add_parser("import", help="write a spreadsheet's rows back into a YAML data file")
    p.add_argument("kind", choices=("data",), help="data: a CSV, TSV or XLSX sheet")
    p.add_argument("file", help="the sheet: NAME.csv, NAME.tsv, NAME.xlsx or NAME.xlsx#Sheet")
    p.add_argument("--into", required=True, metavar="cards/NAME.yaml",
                   help="the data file whose list the rows replace (comments, key order and "
                        "unchanged rows are kept)")
    p.add_argument("--pack", metavar="PACK", help=pack_help())
    p.set_defaults(handler=_cmd_import)

    p = sub.add_parser("preview", help="one card side as a PNG at its print size "
                                       "(trim + bleed), optionally with guides")
    p.add_argument("pack", nargs="?", metavar="PACK", help=pack_help())
    p.add_argument("card", metavar="CARD-ID",
                   help="the card's id (its data's id field), DECK:ID, or DECK:N for the "
                        "N-th card of a deck, copies counted (as export png numbers them)")
    p.add_argument("--back", action="store_true", help="the back instead of the front")
    p.add_argument("--guides", action="store_true",
                   help="draw the trim (red), bleed edge (blue), safe zone (green) and every "
                        "layout box's outline with its name")
    p.add_argument("--dpi", type=int, default=300, help="resolution (default 300)")
    p.add_argument("--out", default=None, metavar="FILE",
                   help="the PNG to write (default: output/preview/SLUG-DECK-NNN-SIDE.png)")
    p.set_defaults(handler=_cmd_preview)

    p = sub.add_parser("serve", help="a local web page with every card, front and back, "
                                     "that follows every save")
    p.add_argument("pack", nargs="?", metavar="PACK", help=pack_help())
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free one)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this computer only)")
    p.add_argument("--out", default="output",
                   help="output folder; the page's images go to its serve/ (default: ./output)")
    p.set_defaults(handler=_cmd_serve)

    p = sub.add_parser("watch", help="rebuild on every save of data, layouts, templates, "
                                     "fonts or art")
    p.add_argument("pack", nargs="?", metavar="PACK", help=pack_help())
    p.add_argument("--out", default="output", help="output folder (default: ./output)")
    p.add_argument("--booklet", action="store_true",
                   help="impose the rules reference for saddle stitching (as build --booklet)")
    add_print_options(p)
    p.set_defaults(handler=_cmd_watch)

    p = sub.add_parser("help", help="this help for a pack: the core's commands and those "
                                    "of the pack's game")
    p.add_argument("pack", nargs="?", metavar="PACK", help=pack_help())
    p.set_defaults(handler=None)

    if shown is not None:
        shown.add_commands(sub)
    return parser


def _game_epilog(game: Any, pack: str | None = None) -> str:
    which = f"the pack {pack}" if pack else "the pack here"
    if game is None:
        return (f"{which[0].upper()}{which[1:]} has no game of its own, so no game commands "
                f"are listed; the help command lists a pack's: help PACK.")
    return (f"The commands after 'help' are the {game.display} game's, the game of {which}; "
            f"the help command lists another pack's: help PACK.")


def _pack_of(argv: Sequence[str], command: str | None) -> str | None:
    """The PACK of ``eti-print help PACK`` (None: the pack the working folder is in)."""
    if command != "help":
        return None
    rest = [a for a in argv if not a.startswith("-")][1:]
    return rest[0] if rest else None


def _game_parser(argv: Sequence[str], command: str | None) -> argparse.ArgumentParser:
    """The parser of a command line that is not a core command: a game's command gets
    its game's; --help, help PACK and a mistyped command the pack's game's."""
    from .game_commands import game_of_pack
    from .games import command_owner
    game, pack = command_owner(command), None
    if game is None:
        pack = _pack_of(argv, command)
        game = game_of_pack(choose_pack(pack).where)
    return make_parser(games_too=True, game=game, pack=pack)


def _commands(parser: argparse.ArgumentParser) -> set[str]:
    """The subcommands ``parser`` has."""
    return {name for action in getattr(parser, "_actions", ())
            if isinstance(action, argparse._SubParsersAction) for name in action.choices}


#: Options of the main parser that may stand anywhere on the command line.
_ANYWHERE = ("--debug", "-q", "--quiet", "-v", "--verbose")


@contextlib.contextmanager
def _cache_switch_kept():
    """``--no-cache`` turns the on-disk caches off for its command only: a caller of
    ``main`` in the same process (a test, a script) finds them as they were before."""
    name = __package__ + ".diskcache"
    before = sys.modules[name].enabled() if name in sys.modules else True
    try:
        yield
    finally:
        if name in sys.modules:
            sys.modules[name].use(before)


def main(argv: Sequence[str] | None = None) -> int:
    argv_given = argv is not None
    argv = list(sys.argv[1:] if argv is None else argv)
    # --debug, -q and -v are accepted anywhere before a "--": after the command as well
    # as before it (they are the main parser's, so they move to the front)
    end = argv.index("--") if "--" in argv else len(argv)
    moved = [a for a in argv[:end] if a in _ANYWHERE]
    argv = moved + [a for a in argv[:end] if a not in _ANYWHERE] + argv[end:]
    debug = "--debug" in moved or bool(os.environ.get("ETI_PRINT_DEBUG"))
    verbose = "-v" in moved or "--verbose" in moved
    # a core command skips the game plugins' commands (loading them is most of a
    # cached build's time); a game's command gets its game's, --help the pack's game's
    command = next((a for a in argv if not a.startswith("-")), None)
    if not argv_given:          # a command of its own: a soft memory limit (limits.py),
        # once its work begins (build and validate: none when the persistent cache answers)
        limits.limit_memory_later()
    try:
        parser = make_parser(games_too=False)
        if command not in _commands(parser) or command == "help":   # --help, help, a game's
            parser = _game_parser(argv, command)                      # command, a mistyped one
        args = parser.parse_args(argv)
        if args.quiet and args.verbose:
            raise UsageError("-q and -v do not go together")
        if command == "help":
            parser.print_help()
            return 0
        if getattr(args, "game_handler", None):
            args.handler = _game_command
        if not getattr(args, "handler", None):
            parser.print_help()
            return 2
        if hasattr(args, "pack"):
            _choose_pack(args)
        if command not in _CORE_FAST:
            limits.begin_work()
        with _cache_switch_kept():
            return args.handler(args)
    except UsageError as exc:
        if debug:
            raise
        print(f"eti-print: error: {exc}", file=sys.stderr)
        return 2
    except InputError as exc:
        if debug:
            raise
        for line in exc.lines(cap=len(exc.problems) if verbose else PROBLEM_CAP):
            print(line, file=sys.stderr)
        print(f"eti-print: {len(exc.problems)} problem{'s' if len(exc.problems) != 1 else ''}"
              f" found", file=sys.stderr)
        return 1
    except EtiError as exc:
        if debug:
            raise
        print(f"eti-print: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except MemoryError:
        if debug:
            raise
        print(f"eti-print: error: {limits.memory_message()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("eti-print: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``eti-print schema | head``): stop quietly, and
        # keep Python from complaining while it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:     # the last resort: a bug of ours, never a raw traceback
        if debug:
            raise
        return _internal_error(exc)


#: Where a user reports an internal error.
REPORT_TO = "https://github.com/eti-print/eti-print/issues"


def _internal_error(exc: BaseException) -> int:
    """An unexpected exception as one located line and a request to report it (exit 1);
    ``--debug`` or ``ETI_PRINT_DEBUG=1`` shows the traceback instead."""
    tb = exc.__traceback__
    place = ""
    while tb is not None:
        place = f" (at {Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno})"
        tb = tb.tb_next
    text = str(exc)
    if len(text) > 300:
        text = text[:300] + "..."
    print(f"eti-print: internal error: {type(exc).__name__}: {text}{place}", file=sys.stderr)
    print(f"eti-print: this is a bug in eti-print, not in your pack: please report it at "
          f"{REPORT_TO} with the command you ran (run it again with --debug, or "
          f"ETI_PRINT_DEBUG=1, for the traceback)", file=sys.stderr)
    return 1


def run() -> None:
    """The ``eti-print`` program: ``main``, then the process ends without tearing the
    interpreter down.  Freeing every module and object one by one at exit took a
    tenth of a cold build (about 0.15 s) and did nothing a user could see: what must
    happen at exit still does (other threads are waited for, then every ``atexit``
    handler runs, the on-disk maps of ``diskcache`` among them, and the output
    streams are flushed), as Python itself would before ending."""
    code = main()
    import atexit
    import threading
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # a closed pipe (| head): nothing left to tell
            pass
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
