"""Card decks: items from the data, faces from the layouts, PDFs from the sheets.

A deck (``decks:`` in pack.yaml) lists the data items that are its cards,
an optional repeat count, and a front and a back layout.  Each distinct item
is resolved once; its copies reuse the same faces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator, TYPE_CHECKING

from ..errors import InputError, Problem
from ..imposition import SheetSpec
from ..units import mm, paper_size
from .faces import Face, FaceResolver
from ..pdfwriter import DocInfo
from .sheets import Deck, impose

if TYPE_CHECKING:  # pragma: no cover
    from ..context import Context, Output, Progress


def roman(n: Any) -> str:
    return ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X")[int(n) - 1]


class DocsView(Mapping):
    """Every data file's value by name (``data`` in templates), read on first use.

    Lazy rather than a dict of every file, so that the build cache
    (``eti_print.cache``) sees which data files a card's templates really read.
    """

    def __init__(self, docs: Mapping[str, Any]):
        self._docs = docs

    def __getitem__(self, name: str) -> Any:
        return self._docs[name].data

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._docs))

    def __len__(self) -> int:
        return len(self._docs)


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


def card_context(ctx: "Context", deck: dict[str, Any], ref: str, item: Any,
                 index: int) -> dict[str, Any]:
    """What a layout's templates can see for one card."""
    ds = ctx.dataset

    def lookup(list_ref: str, item_id: Any) -> Any:
        found = ds.by_id(list_ref).get(item_id)
        if found is None:
            raise ValueError(f"no {item_id!r} in {list_ref}")
        return found

    return {
        "card": item,
        "source": ref,
        "kind": ref.rsplit(".", 1)[-1],
        "index": index,
        "deck": {"id": deck["id"], "title": deck["title"]},
        "data": DocsView(ds.docs),
        "lookup": lookup,
        "roman": roman,
        "pack": {"name": ds.config["name"], "slug": ds.slug},
        # an ink-saver build: layouts may leave out heavy art with `when`
        "ink_saver": bool(ctx.options.ink_saver),
    }


def sheet_spec(ctx: "Context", sheet_name: str) -> SheetSpec:
    setting = ctx.sheets.get(sheet_name, where="pack.yaml", field="decks.sheet")
    o = ctx.options
    return SheetSpec.fit(
        paper=paper_size(o.paper), card=(setting.width, setting.height), bleed=setting.bleed,
        gutter=setting.gutter, duplex=o.duplex, back_offset=(mm(o.back_offset[0]),
                                                             mm(o.back_offset[1])),
        mark_length=setting.mark_length, mark_offset=setting.mark_offset,
        mark_stroke=setting.mark_stroke, where=ctx.sheets.source)


def resolve_deck(ctx: "Context", deck: dict[str, Any], resolver: FaceResolver,
                 problems: list[Problem]) -> Deck:
    ds = ctx.dataset
    manifest = ds.manifest
    index = (ds.config.get("decks") or []).index(deck)
    line, _ = manifest.where(("decks", index, "front"))
    front = ctx.layouts.get(deck["front"], where=manifest.path, line=line,
                            field_name=f"decks[{index}].front")
    line, _ = manifest.where(("decks", index, "back"))
    back = ctx.layouts.get(deck["back"], where=manifest.path, line=line,
                           field_name=f"decks[{index}].back")
    cards: list[tuple[Face, Face]] = []
    labels: list[str] = []
    n = 0
    for ref in deck["items"]:
        for i, item in enumerate(ds.items(ref)):
            what = _describe(ds, ref, i, item)
            context = card_context(ctx, deck, ref, item, n)
            try:
                pair = (resolver.resolve(front, context, what),
                        resolver.resolve(back, context, what + " (back)"))
            except InputError as exc:
                problems.extend(exc.problems)
                continue
            copies = int(item.get(deck["count"], 1)) if deck.get("count") else 1
            cards.extend([pair] * copies)
            labels.extend([card_label(deck, item)] * copies)
            n += copies
    return Deck(deck["id"], deck["title"], tuple(cards), tuple(labels))


def _describe(ds: Any, ref: str, index: int, item: Any) -> str:
    name, *keys = ref.split(".")
    line, _ = ds.docs[name].where(tuple(keys) + (index,))
    label = ""
    if isinstance(item, dict):
        label = str(item.get("name") or item.get("title") or item.get("id") or "")
    where = f"{ds.docs[name].path}:{line}" if line else ds.docs[name].path
    return f"card {ref}[{index}]" + (f" {label!r}" if label else "") + f" ({where})"


def render_decks(ctx: "Context", progress: "Progress" = None) -> list["Output"]:
    from ..context import Output
    decks_cfg = ctx.dataset.config.get("decks") or []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for deck in decks_cfg:
        key = (deck.get("output", "cards"), deck.get("sheet", "card"))
        groups.setdefault(key, []).append(deck)
    outputs = []
    problems: list[Problem] = []
    for (output, sheet_name), decks in groups.items():
        spec = sheet_spec(ctx, sheet_name)
        resolver = FaceResolver(ctx.env, ctx.fonts, ctx.art, spec.card[0], spec.card[1],
                                spec.bleed, ink_saver=ctx.options.ink_saver)
        cache = getattr(ctx, "cache", None)   # eti_print.cache.BuildCache when watching
        resolved = []
        for d in decks:
            if cache is None:
                resolved.append(resolve_deck(ctx, d, resolver, problems))
                continue
            before = len(problems)
            resolved.append(cache.deck(
                d, (spec.card, spec.bleed, ctx.options.ink_saver),
                lambda d=d: resolve_deck(ctx, d, resolver, problems),
                failed=lambda before=before: len(problems) > before))
        if problems:
            continue
        name = f"{ctx.slug}-{output}{'-ink-saver' if ctx.options.ink_saver else ''}.pdf"
        if progress:
            progress(f"rendering {name}")
        info = DocInfo(title=f"{ctx.title} - {output}", subject=f"{ctx.title}: print-and-play "
                       f"{output}, {ctx.options.paper.upper()}, duplex {ctx.options.duplex}",
                       keywords=", ".join(d.title for d in resolved))
        data, pages = impose(resolved, spec, ctx.art, info, ctx.fonts["body"].regular,
                             ink_saver=ctx.options.ink_saver)
        outputs.append(Output(name, data, pages, "cards", "cardstock",
                              {d.id: len(d.cards) for d in resolved}))
    if problems:
        raise InputError(problems)
    return outputs
