"""The raw-reportlab floor: the same cards drawn straight onto a reportlab canvas.

What the fastest hand-written script would do for a deck: every card's front
(a coloured frame, the title, every text field wrapped in the body font) and
its back, nine poker cards to an A4 sheet with crop marks, each front sheet
followed by its back sheet mirrored for long-edge duplex.  No templates, no
layouts, no checks: the floor eti-print's own figures are divided by
(``bench_speed.py``).

    python bench/floor.py PACK OUT.pdf N     # N cards, the texts taken from PACK's data
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml
from reportlab.lib.units import mm
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

W, H = 63.5 * mm, 88.9 * mm
PAGE_W, PAGE_H = 210 * mm, 297 * mm
COLS, ROWS = 3, 3
MARK = 4 * mm


def texts(pack: Path) -> list[list[str]]:
    """Every card-like item of the pack's data files: its string values."""
    found = []
    for path in sorted((pack / "cards").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for value in (data or {}).values() if isinstance(data, dict) else ():
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, dict):
                        found.append([str(v) for v in item.values()
                                      if isinstance(v, (str, int))])
    return found or [["card"]]


def fonts(pack: Path) -> tuple[str, str]:
    regular = pack / "fonts" / "OpenSans-Regular.ttf"
    bold = pack / "fonts" / "OpenSans-Bold.ttf"
    if not regular.is_file():
        root = Path(__file__).resolve().parents[1] / "fonts"
        regular, bold = root / "OpenSans-Regular.ttf", root / "OpenSans-Bold.ttf"
    pdfmetrics.registerFont(TTFont("Body", str(regular)))
    pdfmetrics.registerFont(TTFont("Bold", str(bold)))
    return "Body", "Bold"


def crop_marks(c: canvas.Canvas, x0: float, y0: float) -> None:
    c.setLineWidth(0.25)
    for col in range(COLS + 1):
        x = x0 + col * W
        c.line(x, y0 - MARK, x, y0 - 1 * mm)
        c.line(x, y0 + ROWS * H + 1 * mm, x, y0 + ROWS * H + MARK)
    for row in range(ROWS + 1):
        y = y0 + row * H
        c.line(x0 - MARK, y, x0 - 1 * mm, y)
        c.line(x0 + COLS * W + 1 * mm, y, x0 + COLS * W + MARK, y)


def front(c: canvas.Canvas, x: float, y: float, card: list[str], body: str, bold: str) -> None:
    c.setFillColorRGB(0.12, 0.25, 0.45)
    c.rect(x + 2 * mm, y + 2 * mm, W - 4 * mm, H - 4 * mm, stroke=0, fill=1)
    c.setFillColorRGB(1, 1, 1)
    c.rect(x + 4 * mm, y + 4 * mm, W - 8 * mm, H - 20 * mm, stroke=0, fill=1)
    c.setFont(bold, 11)
    c.drawString(x + 5 * mm, y + H - 11 * mm, card[0][:40])
    c.setFillColorRGB(0.1, 0.1, 0.1)
    c.setFont(body, 8)
    top = y + H - 22 * mm
    for text in card[1:]:
        for line in simpleSplit(text, body, 8, W - 10 * mm):
            if top < y + 6 * mm:
                return
            c.drawString(x + 5 * mm, top, line)
            top -= 10


def back(c: canvas.Canvas, x: float, y: float, bold: str) -> None:
    c.setFillColorRGB(0.2, 0.1, 0.3)
    c.rect(x + 2 * mm, y + 2 * mm, W - 4 * mm, H - 4 * mm, stroke=0, fill=1)
    c.setFillColorRGB(1, 1, 1)
    c.setFont(bold, 14)
    c.drawCentredString(x + W / 2, y + H / 2, "BACK")


def draw(pack: Path, out: Path, n: int) -> None:
    cards = texts(pack)
    body, bold = fonts(pack)
    c = canvas.Canvas(str(out), pagesize=(PAGE_W, PAGE_H), invariant=1)
    x0, y0 = (PAGE_W - COLS * W) / 2, (PAGE_H - ROWS * H) / 2
    per = COLS * ROWS
    for start in range(0, n, per):
        batch = range(start, min(n, start + per))
        for i, k in enumerate(batch):
            front(c, x0 + (i % COLS) * W, y0 + (ROWS - 1 - i // COLS) * H,
                  cards[k % len(cards)], body, bold)
        crop_marks(c, x0, y0)
        c.showPage()
        for i, _ in enumerate(batch):
            col = COLS - 1 - i % COLS                 # long-edge duplex: mirrored
            back(c, x0 + col * W, y0 + (ROWS - 1 - i // COLS) * H, bold)
        crop_marks(c, x0, y0)
        c.showPage()
    c.save()


if __name__ == "__main__":
    draw(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]))
