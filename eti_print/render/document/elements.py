"""The element whitelist: what each element may hold, and the parsed tree."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from reportlab.platypus.flowables import Flowable

from ...text import Run

BLOCKS = "blocks"      # content: block elements
INLINE = "inline"      # content: text markup (text.parse)
EMPTY = "empty"        # self-closing
CHILDREN = "children"  # content: the listed child elements only


@dataclass(frozen=True)
class ElementSpec:
    """What one element may hold and which attributes it takes."""

    content: str
    attrs: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    children: tuple[str, ...] = ()
    top_level: bool = False       # only directly inside <document>


SPECS: dict[str, ElementSpec] = {
    "document": ElementSpec(BLOCKS, ("title", "header", "subject", "author", "keywords")),
    "cover": ElementSpec(BLOCKS, (), top_level=True),
    "h1": ElementSpec(INLINE, ("short", "toc")),
    "h2": ElementSpec(INLINE, ("short", "toc")),
    "h3": ElementSpec(INLINE, ()),
    "p": ElementSpec(INLINE, ("style",)),
    "ul": ElementSpec(CHILDREN, (), children=("li",)),
    "ol": ElementSpec(CHILDREN, ("start",), children=("li",)),
    "li": ElementSpec(INLINE, ("label",)),
    "note": ElementSpec(BLOCKS, ("title",)),
    "box": ElementSpec(BLOCKS, ("title",)),
    "keep": ElementSpec(BLOCKS, ()),
    "table": ElementSpec(CHILDREN, ("widths", "header", "size"), children=("tr",)),
    "tr": ElementSpec(CHILDREN, ("fill", "color"), children=("th", "td")),
    "th": ElementSpec(INLINE, ("align", "span")),
    "td": ElementSpec(INLINE, ("align", "span")),
    "toc": ElementSpec(EMPTY, ("depth",), top_level=True),
    "pagebreak": ElementSpec(EMPTY, (), top_level=True),
    "spacer": ElementSpec(EMPTY, ("height",), required=("height",)),
    "art": ElementSpec(EMPTY, ("name", "width", "height", "color"), required=("name", "height")),
    "flowchart": ElementSpec(CHILDREN, ("columns", "size", "gap"), children=("node", "edge")),
    "node": ElementSpec(INLINE, ("id", "col", "row", "width", "kind"),
                        required=("id", "col", "row")),
    "edge": ElementSpec(EMPTY, ("from", "to", "label", "exit", "enter"), required=("from", "to")),
}
#: Elements only allowed inside a particular parent.
_ONLY_IN = {"li": ("ul", "ol"), "tr": ("table",), "th": ("tr",), "td": ("tr",),
            "node": ("flowchart",), "edge": ("flowchart",)}
PARAGRAPH_STYLES = ("lead", "small", "caption", "center")
NODE_KINDS = ("start", "box", "decision", "end", "note")
SIDES = ("top", "bottom", "left", "right")


@dataclass
class Node:
    """One parsed element; ``runs`` holds the text of inline elements."""

    tag: str
    attrs: dict[str, str]
    line: int
    children: list[Node] = field(default_factory=list)
    runs: list[Run] | None = None

    def text(self) -> str:
        """The plain text of an inline element (icons dropped)."""
        if not self.runs:
            return ""
        return " ".join("".join(r.text if r.kind == "text" else " " for r in self.runs
                                if r.kind != "icon").split())


@dataclass(frozen=True)
class Custom:
    """A block element added by a renderer: its spec and how it becomes flowables."""

    spec: ElementSpec
    build: Callable[[Node, Any], list[Flowable]]
