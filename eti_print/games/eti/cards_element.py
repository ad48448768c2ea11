"""E.T.I.'s ``<cards>`` document element: a row of small research cards, scored.

::

    <cards queue="arson 50 20 x0 30 spy" mode="score|attack|plain"
           immune="spy" tactics="spy" base="5" highlight="1 2"/>

a row of small research cards in data-port order, scored by the engine:
destroyed cards crossed out with a red arrow from their threat, gold arrows
from each multiplier to the card it multiplies, ignored threats marked
immune, highlighted ports framed in gold (``mode="attack"``: each card's
attack value under it).  Apart from the template globals (``booklet.py``) so
that a process lays out documents only where it draws one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from reportlab.lib.colors import Color, HexColor
from reportlab.platypus.flowables import Flowable

from ...colour import WHITE, blend
from ...render.document import EMPTY, Builder, Custom, ElementSpec, Node
from . import engine
from .booklet import card_label

if TYPE_CHECKING:  # pragma: no cover
    from ...context import Context


NAVY = HexColor("#1E2430")
CREAM = HexColor("#F4EEDF")
GOLD = HexColor("#C9A227")
RUST = HexColor("#A8322A")
GREY = HexColor("#5A5F67")
CARD_BLUE = HexColor("#1F3A5F")


# ---------------------------------------------------------------------------
# <cards>: a row of small research cards


CARDS_SPEC = ElementSpec(EMPTY, ("queue", "mode", "immune", "tactics", "highlight", "base"),
                         required=("queue",))
MODES = ("score", "attack", "plain")


class CardRow(Flowable):
    """Research cards in data-port order, annotated with what happened to them."""

    CARD_W = 34.0
    CARD_H = 45.0
    GAP = 8.0
    LABEL = 6.0          # the cards' names, ports and IMMUNE: the pack's minimum text size

    def __init__(self, cards: Sequence[engine.Card], mode: str, art: Any, fonts: Any,
                 score: engine.Score | None = None, attack: engine.Attack | None = None,
                 immune: Sequence[str] = (), highlight: Sequence[int] = (),
                 names: dict[str, str] | None = None):
        super().__init__()
        self.names = names or {}
        self.cards = list(cards)
        self.mode = mode
        self.art = art
        self.fonts = fonts
        self.score = score
        self.attack = attack
        self.immune = set(immune)
        self.highlight = set(highlight)
        self.spaceBefore = 4.0
        self.spaceAfter = 6.0
        self.keepWithNext = True      # a diagram stays with the text that explains it
        self.above = 0.0
        self.below = 0.0

    def wrap(self, aw: float, ah: float) -> tuple[float, float]:
        n = len(self.cards)
        self.gap = self.GAP
        self.cw = self.CARD_W
        need = n * self.cw + (n - 1) * self.gap
        if need > aw:
            scale = aw / need
            self.cw *= scale
            self.gap *= scale
        self.ch = self.cw * self.CARD_H / self.CARD_W
        self.above = 0.0
        self.below = 12.0      # port numbers
        if self.mode == "score" and self.score is not None:
            spans = [abs(a.multiplier - a.target) for a in self.score.attachments
                     if a.target is not None]
            if spans:
                self.above = min(28.0, 13.0 + 4.0 * max(spans))
            if self.score.destroyed:
                self.below = 24.0
        if self.mode == "attack":
            self.below = 20.0
        self.width = aw
        self.height = self.above + self.ch + self.below
        return aw, self.height

    def _x(self, i: int) -> float:
        n = len(self.cards)
        row = n * self.cw + (n - 1) * self.gap
        return (self.width - row) / 2 + i * (self.cw + self.gap)

    def draw(self) -> None:
        c = self.canv
        y0 = self.below
        score = self.score if self.mode == "score" else None
        destroyed = {d.card for d in score.destroyed} if score else set()
        ignored = set(score.ignored) if score else set()
        for i, card in enumerate(self.cards):
            self._card(c, self._x(i), y0, card, i, faded=i in destroyed or i in ignored)
            if i in destroyed:
                self._strike(c, self._x(i), y0)
            if i in ignored:
                self._immune(c, self._x(i), y0)
        title = self.fonts["title"].regular
        label = self.fonts["label"].regular
        if score is not None:
            for d in score.destroyed:
                self._arc(c, d.threat, d.card, up=False, text="", colour=RUST)
            for a in score.attachments:
                if a.target is not None:
                    self._arc(c, a.multiplier, a.target, up=True,
                              text=f"×{self.cards[a.multiplier].value}", colour=GOLD)
        c.saveState()
        for i in range(len(self.cards)):
            x = self._x(i) + self.cw / 2
            if self.mode == "attack" and self.attack is not None:
                c.setFillColor(RUST)
                c.setFont(title, 11)
                c.drawCentredString(x, 7, str(self.attack.lines[i].value))
            elif not (score is not None and score.destroyed):
                c.setFillColor(GREY)
                c.setFont(label, self.LABEL)
                c.drawCentredString(x - 2.5, 2, "PORT")
                c.setFont(title, 7.5)
                c.drawString(x - 2.5 + c.stringWidth("PORT", label, self.LABEL) / 2 + 2.5, 2,
                             str(i + 1))
        c.restoreState()

    def _card(self, c: Any, x: float, y: float, card: engine.Card, i: int,
              faded: bool = False) -> None:
        """One small research card; ``faded`` ones (destroyed, ignored) are washed out.

        Washing out mixes the colours with white instead of using transparency:
        transparency inside nested PDF forms loses its graphics states.
        """
        w, h = self.cw, self.ch

        def ink(colour: Color) -> Color:
            return Color(*blend(colour, WHITE, 0.62)) if faded else colour
        c.saveState()
        if i + 1 in self.highlight:
            c.setFillColor(GOLD)
            c.roundRect(x - 2.4, y - 2.4, w + 4.8, h + 4.8, 4.8, stroke=0, fill=1)
        c.setFillColor(ink(CARD_BLUE))
        c.roundRect(x, y, w, h, 3, stroke=0, fill=1)
        c.setFillColor(ink(CREAM))
        c.roundRect(x + 1.6, y + 1.6, w - 3.2, h - 3.2, 2, stroke=0, fill=1)
        disc = {"number": CARD_BLUE, "multiplier": GOLD, "threat": RUST}[card.kind]
        r = w * 0.37
        cx, cy = x + w / 2, y + h * 0.55
        c.setFillColor(ink(disc))
        c.circle(cx, cy, r, stroke=0, fill=1)
        c.setStrokeColor(CREAM)
        c.setLineWidth(0.6)
        c.circle(cx, cy, r - 1.6, stroke=1, fill=0)
        # washed-out cards keep their value legible: dark on a light disc
        face = disc if faded else CREAM
        if card.kind == "threat":
            s = r * 1.15
            self.art.draw(c, f"threat-{card.threat}", cx - s / 2, cy - s / 2, s, s, face)
        else:
            text = f"×{card.value}" if card.kind == "multiplier" else str(card.value)
            font = self.fonts["title"].regular
            size = r * (0.95 if len(text) <= 2 else 0.8)
            c.setFillColor(face)
            c.setFont(font, size)
            c.drawCentredString(cx, cy - size * 0.36, text)
        # the card's name at the pack's minimum size, in a bold condensed face; left out
        # when a long row has shrunk the cards below it (the disc still says the kind)
        name = card_label(card, self.names).upper() if card.kind == "threat" else (
            "MULTIPLIER" if card.kind == "multiplier" else "VALUE")
        font = self.fonts["title"].regular
        width = c.stringWidth(name, font, self.LABEL)
        if width <= w - 5:
            spacing = min(0.3, (w - 6 - width) / len(name)) if w - 6 > width else 0.0
            c.setFillColor(GREY if faded else CARD_BLUE)    # washed out, still read
            c.setFont(font, self.LABEL)
            c.drawString(cx - (width + spacing * (len(name) - 1)) / 2, y + 4.4, name,
                         charSpace=spacing)
        c.restoreState()

    def _immune(self, c: Any, x: float, y: float) -> None:
        c.saveState()
        c.setFillColor(NAVY)
        c.setFont(self.fonts["title"].regular, 6.5)
        c.drawCentredString(x + self.cw / 2, y + self.ch - 7.6, "IMMUNE")
        c.restoreState()

    def _strike(self, c: Any, x: float, y: float) -> None:
        w, h = self.cw, self.ch
        c.saveState()
        c.setStrokeColor(RUST)
        c.setLineWidth(1.3)
        c.setLineCap(1)
        c.line(x + 2.5, y + 2.5, x + w - 2.5, y + h - 2.5)
        c.line(x + 2.5, y + h - 2.5, x + w - 2.5, y + 2.5)
        c.restoreState()

    def _arc(self, c: Any, src: int, dst: int, up: bool, text: str, colour: Color) -> None:
        """A curved arrow from card ``src`` to card ``dst``, over or under the row."""
        x1 = self._x(src) + self.cw / 2
        x2 = self._x(dst) + self.cw / 2
        span = abs(dst - src)
        room = (self.above if up else self.below) - 4
        lift = min(7.0 + 4.0 * span, room)
        sign = 1 if up else -1
        base = self.below + self.ch + 1.5 if up else self.below - 1.5
        x1 += 3 * (1 if x2 > x1 else -1)
        x2 -= 3 * (1 if x2 > x1 else -1)
        peak = base + sign * lift
        c.saveState()
        c.setStrokeColor(colour)
        c.setFillColor(colour)
        c.setLineWidth(1.3)
        p = c.beginPath()
        p.moveTo(x1, base)
        p.curveTo(x1, peak, x2, peak, x2, base + sign * 3.5)
        c.drawPath(p, stroke=1, fill=0)
        tip = (x2, base)
        s = 4.2
        head = c.beginPath()
        head.moveTo(*tip)
        head.lineTo(tip[0] - s * 0.55, tip[1] + sign * s)
        head.lineTo(tip[0] + s * 0.55, tip[1] + sign * s)
        head.close()
        c.drawPath(head, stroke=0, fill=1)
        if text:
            # the label sits on top of the arc
            font = self.fonts["title"].regular
            tw = c.stringWidth(text, font, 7.5)
            tx = (x1 + x2) / 2
            ty = base + sign * lift * 0.75 - 2.6
            c.setFillColor(HexColor("#FFFFFF"))
            c.rect(tx - tw / 2 - 1.5, ty - 1.8, tw + 3, 8.4, stroke=0, fill=1)
            c.setFillColor(NAVY)
            c.setFont(font, 7.5)
            c.drawCentredString(tx, ty, text)
        c.restoreState()


def cards_element(ctx: Context) -> Custom:
    def build(node: Node, b: Builder) -> list[Flowable]:
        mode = b.choice(node, "mode", MODES, "score")
        deck = ctx.model.deck           # the pack's threats and multipliers
        try:
            cards = engine.parse_queue(node.attrs["queue"].split(), deck)
            immune = [deck.normalize_threat(t) for t in node.attrs.get("immune", "").split()]
            tactics = [deck.normalize_threat(t) for t in node.attrs.get("tactics", "").split()]
        except ValueError as exc:
            raise b.error(node, f"<cards>: {exc}") from None
        if not cards:
            raise b.error(node, "<cards queue=..> names no cards")
        highlight = []
        for part in node.attrs.get("highlight", "").split():
            if not part.isdigit() or not 1 <= int(part) <= len(cards):
                raise b.error(node, f"<cards highlight=..> names ports 1 to {len(cards)} "
                              f"(got {part!r})")
            highlight.append(int(part))
        base = int(b.number(node, "base", 0, 0, 10_000))
        score = engine.score(cards, immune, deck)
        attack = engine.attack(cards, immune, tactics, base, ctx.model.rules, deck) \
            if mode == "attack" else None
        names = {t.id: t.name for t in ctx.model.threats}
        return [CardRow(cards, mode, b.icons, ctx.fonts, score, attack, immune, highlight, names)]
    return Custom(CARDS_SPEC, build)
