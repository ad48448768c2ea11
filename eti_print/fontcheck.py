"""A font file checked before reportlab sees it.

Two checks, both before reportlab parses a byte:

* explicit limits in Python: the file's size (``MAX_FONT_BYTES``, enforced by
  the file gate), its table count, and the code points its character maps
  claim (a format 12 or 13 ``cmap`` naming 4.3 x 10^9 code points would make
  reportlab build a map of every one);
* the OpenType Sanitizer (OTS, the one browsers run on web fonts, from the
  ``opentype-sanitizer`` package), which parses every table and refuses a
  font whose offsets, lengths, glyph counts or tables do not hold together.

A font either passes both or is an ``InputError`` naming its file.
"""

from __future__ import annotations

import struct
import subprocess

from .errors import fail

#: Largest font file read, in bytes (the bundled ones are under 1 MB; a CJK font 20 MB).
MAX_FONT_BYTES = 32 * 1024 * 1024
#: Most tables a font may have (a real TrueType font has about 10 to 30).
MAX_TABLES = 64
#: Most code points a font's character maps may claim together (all of Unicode's
#: assigned characters are about 150,000).
MAX_CODE_POINTS = 300_000
#: How long OTS may take on one font, in seconds.
OTS_SECONDS = 10


def sanitise(data: bytes, shown: str) -> None:
    """Refuse a font file that breaks a limit or that OTS rejects."""
    limits(data, shown)
    _ots(data, shown)


def limits(data: bytes, shown: str) -> None:
    """The table count and the code points of every format 12/13 ``cmap`` subtable."""
    def bad(message: str) -> Exception:
        return fail(f"cannot load font: {message}", path=shown,
                    hint="fonts are TrueType (.ttf) files")

    if data[:4] == b"ttcf":
        return                                   # a collection: OTS checks each font
    if len(data) < 12:
        raise bad("the file is too short to be a font")
    (tables,) = struct.unpack_from(">H", data, 4)
    if tables > MAX_TABLES:
        raise bad(f"{tables} tables (at most {MAX_TABLES})")
    if len(data) < 12 + 16 * tables:
        raise bad("the table directory runs past the end of the file")
    cmap = None
    for n in range(tables):
        tag, _, offset, length = struct.unpack_from(">4sIII", data, 12 + 16 * n)
        if tag == b"cmap":
            cmap = (offset, length)
    if cmap is None:
        return                                   # OTS refuses a font without one
    start, length = cmap
    end = min(len(data), start + length)
    if start + 4 > end:
        raise bad("the cmap table runs past the end of the file")
    (subtables,) = struct.unpack_from(">H", data, start + 2)
    total = 0
    for n in range(min(subtables, 256)):
        record = start + 4 + 8 * n
        if record + 8 > end:
            raise bad("the cmap table runs past the end of the file")
        _, _, offset = struct.unpack_from(">HHI", data, record)
        sub = start + offset
        if sub + 2 > end:
            raise bad("a cmap subtable runs past the end of the table")
        (form,) = struct.unpack_from(">H", data, sub)
        if form not in (12, 13):
            continue
        if sub + 16 > end:
            raise bad("a cmap subtable runs past the end of the table")
        (groups,) = struct.unpack_from(">I", data, sub + 12)
        if sub + 16 + 12 * groups > end:
            raise bad(f"its cmap claims {groups} groups, more than the table holds")
        for g in range(groups):
            first, last, _ = struct.unpack_from(">III", data, sub + 16 + 12 * g)
            if last >= first:
                total += last - first + 1
            if total > MAX_CODE_POINTS:
                raise bad(f"its cmap claims more than {MAX_CODE_POINTS} code points")


def _ots(data: bytes, shown: str) -> None:
    try:
        import ots
    except ImportError:  # pragma: no cover - a dependency; the limits above still hold
        return
    try:        # the bytes the gate read, on a pipe: no temporary file, no second open
        result = subprocess.run([ots.OTS_SANITIZE, "/dev/stdin"], input=data,
                                capture_output=True, timeout=OTS_SECONDS)
    except subprocess.TimeoutExpired:
        raise fail(f"cannot load font: the sanitizer gave up after {OTS_SECONDS} s",
                   path=shown) from None
    except OSError:  # pragma: no cover - no sanitizer binary, or no /dev/stdin
        return
    if result.returncode != 0:
        said = [line.removeprefix("ERROR: ").strip()
                for line in (result.stderr + result.stdout).decode("utf-8", "replace")
                .splitlines()
                if line.startswith("ERROR:") and "discarded" not in line]
        reason = said[-1] if said else "the OpenType Sanitizer refused it"
        raise fail(f"cannot load font: {reason}", path=shown,
                   hint="fonts are TrueType (.ttf) files; this one is damaged or not a font")
