"""Decks (``decks:`` in pack.yaml): cards, markers, chits, aids, imposed on sheets.

A deck lists its cards as data lists (``items: [file.key]``) or as cards
written in pack.yaml itself (``cards:``), with a front and a back layout and
an optional copies field (``count``).  A deck without a back is one-sided:
no back sheets are imposed for it (a part without a back, in a deck whose
other parts have one, gets blank backs).  A deck whose cards differ in layout
gives ``parts:``, each with its own items or cards and layouts; the parts
share the deck's sheets and its bookmark.

Resolve evaluates every face (each distinct item once; copies reuse it);
draw imposes the resolved decks, grouped into PDFs by ``output`` and sheet
setting, with registered backs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..context import Output
from ..errors import InputError, Problem
from ..imposition import SheetSpec
from ..pdfwriter import DocInfo
from ..readability import rules as text_rules
from ..render.faces import Face, FaceResolver
from ..render.sheets import Deck, impose
from ..scope import base_context
from ..units import mm

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context, Progress

KEY = "decks"


@dataclass(frozen=True)
class Part:
    """Cards of a deck that share layouts: (source ref, items) runs and their layouts."""

    sources: tuple[tuple[str, tuple[Any, ...]], ...]
    front: str
    back: str | None     # None: one-sided
    index: int | None    # the part's index in ``parts:``, or None for the deck itself


def parts_of(ctx: Context, index: int, deck: dict[str, Any]) -> list[Part]:
    """The deck's parts: ``parts:`` if given, else the deck itself as its one part."""
    entries = deck.get("parts") or [deck]
    out = []
    for n, entry in enumerate(entries):
        sources: list[tuple[str, tuple[Any, ...]]] = []
        for ref in entry.get("items") or ():
            sources.append((ref, tuple(ctx.dataset.items(ref))))
        if entry.get("cards"):
            where = f"decks[{index}]" + (f".parts[{n}]" if "parts" in deck else "") + ".cards"
            sources.append((where, tuple(entry["cards"])))
        out.append(Part(tuple(sources), entry["front"], entry.get("back"),
                        n if "parts" in deck else None))
    return out


def card_label(deck: dict[str, Any], item: Any) -> str:
    """A short human name for a card: its name, title or id, else its plain values."""
    if isinstance(item, dict):
        for key in ("name", "title", "id"):
            if item.get(key):
                return str(item[key])
        parts = [str(v) for k, v in item.items()
                 if k != deck.get("count") and isinstance(v, (str, int, float))
                 and not isinstance(v, bool)]
        if parts:
            return " ".join(parts)
    return str(deck.get("title") or deck["id"])


def card_context(ctx: Context, deck: dict[str, Any], ref: str, item: Any,
                 index: int) -> dict[str, Any]:
    """What a layout's templates can see for one card (the base names, then the card's)."""
    return base_context(ctx, deck.get("context"), item, card=item, source=ref,
                        kind=ref.rsplit(".", 1)[-1], index=index,
                        deck={"id": deck["id"], "title": deck["title"]})


def sheet_spec(ctx: Context, sheet_name: str, where: str = "pack.yaml",
               line: int | None = None, field: str = "decks.sheet") -> SheetSpec:
    setting = ctx.sheets.get(sheet_name, where=where, line=line, field=field)
    o = ctx.options
    gutter = setting.gutter if o.gutter is None else mm(o.gutter)
    return SheetSpec.fit(
        paper=o.page, card=(setting.width, setting.height), bleed=setting.bleed,
        gutter=gutter, rotate=True, duplex=o.duplex, back_offset=(mm(o.back_offset[0]),
                                                             mm(o.back_offset[1])),
        mark_length=setting.mark_length, mark_offset=setting.mark_offset,
        mark_stroke=setting.mark_stroke, where=ctx.sheets.source)


def _copies(deck: dict[str, Any], item: Any) -> int:
    key = deck.get("count")
    if key and isinstance(item, dict):
        return int(item.get(key, 1))
    return 1


def resolve_deck(ctx: Context, deck: dict[str, Any], resolver: FaceResolver,
                 problems: list[Problem]) -> Deck:
    """Every face of one deck; problems are added to ``problems`` (the deck may be partial)."""
    manifest = ctx.dataset.manifest
    index = (ctx.dataset.config.get("decks") or []).index(deck)
    cards: list[tuple[Face, Face]] = []
    labels: list[str] = []
    n = 0
    blank = Face(resolver.width, resolver.height, resolver.bleed, ())
    parts = parts_of(ctx, index, deck)
    for part in parts:
        base = ("decks", index) + (("parts", part.index) if part.index is not None else ())
        field = f"decks[{index}]" + (f".parts[{part.index}]" if part.index is not None else "")
        layouts: list[Any] = []
        try:
            for side in ("front", "back"):
                if getattr(part, side) is None:
                    layouts.append(None)
                    continue
                line, _ = manifest.where(base + (side,))
                layouts.append(ctx.layouts.get(getattr(part, side), where=manifest.path,
                                               line=line, field_name=f"{field}.{side}"))
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        front, back = layouts
        for ref, items in part.sources:
            for i, item in enumerate(items):
                what = _describe(ctx, ref, i, item)
                context = card_context(ctx, deck, ref, item, n)
                try:
                    pair = (resolver.resolve(front, context, what),
                            blank if back is None else
                            resolver.resolve(back, context, what + " (back)"))
                except InputError as exc:
                    problems.extend(exc.problems)
                    continue
                copies = _copies(deck, item)
                cards.extend([pair] * copies)
                labels.extend([card_label(deck, item)] * copies)
                n += copies
    return Deck(deck["id"], deck["title"], tuple(cards), tuple(labels),
                one_sided=all(part.back is None for part in parts),
                secret=bool(deck.get("secret", False)))


def card_location(ctx: Context, ref: str, index: int) -> tuple[str, int | None]:
    """The file (as shown in messages) and line of item ``index`` of ``ref``."""
    ds = ctx.dataset
    if ref.startswith("decks["):       # a card written in pack.yaml
        path: tuple = ()
        for part in ref.replace("]", "").replace("[", ".").split("."):
            path += (int(part),) if part.isdigit() else (part,)
        line, _ = ds.manifest.where(path + (index,))
        return ds.manifest.path, line
    name, *keys = ref.split(".")
    line, _ = ds.docs[name].where(tuple(keys) + (index,))
    return ds.docs[name].path, line


def _describe(ctx: Context, ref: str, index: int, item: Any) -> str:
    label = ""
    if isinstance(item, dict):
        label = str(item.get("name") or item.get("title") or item.get("id") or "")
    doc_path, line = card_location(ctx, ref, index)
    where = f"{doc_path}:{line}" if line else doc_path
    return f"card {ref}[{index}]" + (f" {label!r}" if label else "") + f" ({where})"


# ---------------------------------------------------------------------------
# The job: resolve every deck, then draw each PDF


@dataclass(frozen=True)
class Sheetful:
    """Resolved decks that go into one PDF on one sheet setting."""

    output: str
    spec: SheetSpec
    decks: tuple[Deck, ...]


def resolve(ctx: Context) -> list[Sheetful]:
    """Every deck's faces, grouped by output and sheet; every problem of every deck."""
    decks_cfg = ctx.dataset.config.get("decks") or []
    manifest = ctx.dataset.manifest
    groups: dict[tuple[str, str], list[tuple[int, dict[str, Any]]]] = {}
    for index, deck in enumerate(decks_cfg):
        key = (deck.get("output", "cards"), deck.get("sheet", "card"))
        groups.setdefault(key, []).append((index, deck))
    planned: list[Sheetful] = []
    problems: list[Problem] = []
    cache = ctx.cache   # eti_print.cache.BuildCache when watching
    for (output, sheet_name), decks in groups.items():
        index = decks[0][0]
        line, _ = manifest.where(("decks", index, "sheet"))
        try:
            spec = sheet_spec(ctx, sheet_name, manifest.path, line, f"decks[{index}].sheet")
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        resolver = FaceResolver(ctx.env, ctx.fonts, ctx.art, spec.card[0], spec.card[1],
                                spec.bleed, ink_saver=ctx.options.ink_saver,
                                text_rules=text_rules(ctx.dataset))
        resolved = []
        for _, d in decks:
            if cache is None:
                resolved.append(resolve_deck(ctx, d, resolver, problems))
                continue
            before = len(problems)
            resolved.append(cache.deck(
                d, (spec.card, spec.bleed, ctx.options.ink_saver),
                lambda d=d: resolve_deck(ctx, d, resolver, problems),
                failed=lambda before=before: len(problems) > before))
        planned.append(Sheetful(output, spec, tuple(resolved)))
    if problems:
        raise InputError(problems)
    return planned


def draw(ctx: Context, plan: list[Sheetful], progress: Progress = None) -> list[Output]:
    if ctx.cache is not None and ctx.cache.keeps_drawings:
        # watch: a PDF whose decks were all reused is not imposed again
        return [ctx.cache.drawn(ctx.output_name(group.output),
                                (group.spec, ctx.options, ctx.title), group.decks,
                                lambda group=group: _imposed(ctx, group.output, group.spec,
                                                             group.decks, progress, False))
                for group in plan]
    # Without a build cache, or with the command line's one-build cache (whose decks
    # are on disk), the plan is this build's alone: each sheetful is let go as it is
    # imposed, and its faces once their forms are drawn (impose ``consume``), so the
    # resolved cards are not held while the PDF is saved
    outputs = []
    while plan:
        group = plan.pop(0)
        output, spec, decks = group.output, group.spec, list(group.decks)
        del group
        outputs.append(_imposed(ctx, output, spec, decks, progress, True))
    return outputs


def _imposed(ctx: Context, output: str, spec: SheetSpec, decks: Sequence[Deck],
             progress: Progress, consume: bool) -> Output:
    """One PDF of a deck job: its decks imposed (``consume``: a list, given up, emptied
    once the forms are drawn; see ``draw``)."""
    name = ctx.output_name(output)
    if progress:
        progress(f"rendering {name}")
    o = ctx.options
    info = DocInfo(title=f"{ctx.title} - {output}",
                   subject=f"{ctx.title}: print-and-play {output}, "
                           f"{o.paper.upper()}, duplex {o.duplex}",
                   keywords=", ".join(d.title for d in decks))
    counts = {d.id: len(d.cards) for d in decks}
    # through a build cache (watch), each face's form is drawn again only where the
    # record of the last drawing no longer holds (render.replay)
    records = ctx.cache.form_records(name) if ctx.cache is not None else None
    data, pages = impose(decks, spec, ctx.art, info, ctx.fonts["body"].regular,
                         ink_saver=o.ink_saver, file=name, scale=ctx.sheets.scale,
                         consume=consume, records=records)
    return Output(name, data, pages, "cards", "cardstock", counts)
