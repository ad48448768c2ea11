"""Fuzzing the readers a pack feeds: whatever comes in, only an InputError comes out.

Hypothesis throws generated input at the YAML loader, the layout loader (and
the value checks behind it), the card and document markup parsers and the SVG
vetting.  Each reader must either accept its input or raise ``InputError``:
any other exception is a traceback a user would see.  The runs are
derandomised with a fixed, small number of examples each (a few seconds in
all), so the same cases run every time.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eti_print.errors import InputError

#: Each test here loads its art afresh (conftest.art_loaded_afresh).
pytestmark = pytest.mark.usefixtures("art_loaded_afresh")

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

# --- values of the kind a hostile pack writes ------------------------------------------

NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-10 ** 40, max_value=10 ** 40),
    st.sampled_from([0, -1, 1e300, -1e300, 1e-30, 10 ** 7, 2 ** 63]))
UNITS = st.sampled_from(["mm", "pt", "in", "cm", "px", "", "e5mm"])
LENGTHS = st.builds(lambda n, u: f"{n}{u}", NUMBERS, UNITS)
SCALARS = st.one_of(NUMBERS, LENGTHS, st.booleans(), st.none(),
                    st.text(max_size=12),
                    st.sampled_from(["{{ card.title }}", "{{ 10 ** 9 }}", "{{ 'nan' }}", "none",
                                     "#12345G", "#FFFFFF", "centre", "middle", "lots"]))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6)
PROPS = st.sampled_from(["type", "x", "y", "width", "height", "when", "repeat", "step",
                         "step_y", "fill", "stroke", "stroke_width", "radius", "bleed", "dash",
                         "text", "font", "size", "min_size", "leading", "color", "align",
                         "valign", "icon_color", "icon_scale", "tracking", "upper", "rotate",
                         "art", "opacity"])
TYPES = st.sampled_from(["rect", "ellipse", "line", "text", "art", "blob"])


@st.composite
def layouts(draw) -> dict:
    boxes = {}
    for n in range(draw(st.integers(1, 3))):
        props = {"type": draw(TYPES), "x": "1mm", "y": "1mm", "width": "10mm",
                 "height": "10mm"}
        props.update(draw(st.dictionaries(PROPS, VALUES, max_size=4)))
        boxes[f"b{n}"] = props
    layout = {"boxes": boxes}
    if draw(st.booleans()):
        layout["extends"] = draw(st.sampled_from(["front", "back", "nothing", "fuzz"]))
    return layout


# --- the readers ---------------------------------------------------------------------------

YAML_TEXT = st.one_of(
    st.text(alphabet=st.sampled_from(list("ab:- \n\t[]{}&*!'\"#%|>?,.0123456789eE+_~@`\\")),
            max_size=80),
    st.builds(lambda v: yaml.safe_dump({"a": v}, allow_unicode=True), VALUES))


@FUZZ
@given(YAML_TEXT)
def test_yaml_loader(text):
    from eti_print.yamlload import loads
    try:
        loads(text, "fuzz.yaml")
    except InputError:
        pass


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    from eti_print.cli import main
    from eti_print.pack import Pack
    root = tmp_path_factory.mktemp("fuzz") / "pack"
    assert main(["-q", "new", str(root)]) == 0
    return Pack.open(root)


@FUZZ
@given(layouts())
def test_layout_loader(pack, layout):
    from eti_print.layout import LayoutLibrary
    try:
        text = yaml.safe_dump(layout, allow_unicode=True)
    except (yaml.YAMLError, ValueError):
        return
    (Path(pack.root) / "templates/layouts/fuzz.yaml").write_text(text, encoding="utf-8")
    try:
        loaded = LayoutLibrary(pack).get("fuzz")
    except InputError:
        return
    for box in loaded.boxes:       # what passed is safe to compute with
        for prop, value in box.props.items():
            if isinstance(value, float):
                assert math.isfinite(value), (box.name, prop, value)


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("<>/&;#x b i br sup span=\"' icon:\n")),
               max_size=120)
       | st.builds(lambda n, t: "<b>" * n + t + "</b>" * n, st.integers(0, 400),
                   st.text(max_size=5)))
def test_card_markup(markup):
    from eti_print.text import parse
    try:
        parse(markup, where="fuzz.yaml", line=1, field="boxes.b.text")
    except InputError:
        pass


ELEMENTS = st.sampled_from(["p", "h1", "h2", "ol", "li", "note", "box", "keep", "table", "tr",
                            "td", "b", "i", "document", "pagebreak", "x"])


@st.composite
def documents(draw) -> str:
    def element(depth: int) -> str:
        tag = draw(ELEMENTS)
        attrs = draw(st.sampled_from(["", ' title="t"', ' span="x"', ' align="centre"',
                                      ' span="1e300"']))
        if depth > 3 or draw(st.booleans()):
            return f"<{tag}{attrs}>{draw(st.text(max_size=6))}</{tag}>"
        inner = "".join(element(depth + 1) for _ in range(draw(st.integers(0, 3))))
        return f"<{tag}{attrs}>{inner}</{tag}>"
    body = "".join(element(0) for _ in range(draw(st.integers(0, 3))))
    return draw(st.sampled_from([f"<document>{body}</document>", body,
                                 f"<document>{body}"]))


@FUZZ
@given(documents())
def test_document_markup(markup):
    from eti_print.render.document.parse import parse_document
    try:
        parse_document(markup, where="fuzz.j2")
    except InputError:
        pass


SVG_NUMBERS = st.one_of(NUMBERS.map(str), st.sampled_from(["nan", "inf", "-Infinity", "1e-30",
                                                           "1e38", "", "x", "1,2"]))
SVG_ATTRS = st.sampled_from(["x", "y", "width", "height", "r", "cx", "cy", "d", "points",
                             "transform", "viewBox", "stroke-width", "fill", "href"])


@st.composite
def svgs(draw) -> bytes:
    shapes = []
    for _ in range(draw(st.integers(0, 4))):
        tag = draw(st.sampled_from(["rect", "circle", "path", "polygon", "g", "use", "text",
                                    "line", "ellipse", "image"]))
        attrs = " ".join(f'{a}="{v}"' for a, v in draw(
            st.dictionaries(SVG_ATTRS, SVG_NUMBERS, max_size=4)).items())
        shapes.append(f"<{tag} {attrs}/>")
    view = draw(st.sampled_from(['viewBox="0 0 100 100"', 'viewBox="0 0 1e-30 1e-30"',
                                 'width="1e38" height="1e38"', 'viewBox="nan 0 1 1"', ""]))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" {view}>{"".join(shapes)}</svg>'
            .encode())


@FUZZ
@given(svgs() | st.binary(max_size=64))
def test_svg_vetting(data):
    from eti_print.art.svg import load_svg
    try:
        load_svg(data, "templates/art/fuzz.svg")
    except InputError:
        pass
