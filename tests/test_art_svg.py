"""SVG art as designers draw it: gradients come out as gradients (never black), what
cannot be drawn is refused with its line, and text uses the pack's own fonts."""

from __future__ import annotations

from pathlib import Path

import pikepdf
import pytest
from art_render import art_pack, art_pdf
from reportlab.graphics.shapes import String

from eti_print.art import ArtLibrary, load_svg
from eti_print.errors import InputError
from eti_print.pack import Pack

from pdfcheck import NO_QPDF, dangling_resources, qpdf_check, rasterise

#: Each test here loads its art afresh (conftest.art_loaded_afresh).
pytestmark = pytest.mark.usefixtures("art_loaded_afresh")

SVG = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
RED, BLUE = (255, 0, 0), (0, 0, 255)

# As Inkscape saves them: stops in one gradient, geometry in another that links to it.
LINEAR = f"""<svg {SVG} width="100" height="20" viewBox="0 0 100 20">
  <defs>
    <linearGradient id="stops">
      <stop offset="0" style="stop-color:#ff0000;stop-opacity:1"/>
      <stop offset="1" style="stop-color:#0000ff;stop-opacity:1"/>
    </linearGradient>
    <linearGradient xlink:href="#stops" id="across" x1="0" y1="10" x2="100" y2="10"
                    gradientUnits="userSpaceOnUse"/>
  </defs>
  <rect x="0" y="0" width="100" height="20" style="fill:url(#across);stroke:none"/>
</svg>
"""

RADIAL = f"""<svg {SVG} width="40" height="40" viewBox="0 0 40 40">
  <defs>
    <radialGradient id="glow">
      <stop offset="0" stop-color="#ff0000"/>
      <stop offset="1" stop-color="#0000ff"/>
    </radialGradient>
  </defs>
  <circle cx="20" cy="20" r="20" fill="url(#glow)"/>
</svg>
"""

# A shape with its own transform: the gradient must move with it.
MOVED = f"""<svg {SVG} width="100" height="20" viewBox="0 0 100 20">
  <defs>
    <linearGradient id="g"><stop offset="0" stop-color="#ff0000"/>
      <stop offset="1" stop-color="#0000ff"/></linearGradient>
  </defs>
  <rect x="0" y="0" width="50" height="20" fill="url(#g)" transform="translate(50,0)"/>
</svg>
"""


def near(pixel, colour, tolerance=40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour))


@pytest.fixture
def gradient_lib(tmp_path: Path) -> ArtLibrary:
    return ArtLibrary(art_pack(tmp_path, {"linear.svg": LINEAR, "radial.svg": RADIAL,
                                          "moved.svg": MOVED}))


@pytest.mark.skipif(NO_QPDF, reason="needs qpdf")
def test_linear_gradient_is_drawn_red_to_blue(gradient_lib, tmp_path):
    pdf, covered = art_pdf(gradient_lib, "linear", (0, 0, 200, 40), (200, 40))
    assert covered == (0, 0, 200, 40)
    image = rasterise(pdf, scale=2)
    image.save(tmp_path / "linear.png")
    y = image.height // 2
    assert near(image.getpixel((4, y)), RED), image.getpixel((4, y))
    assert near(image.getpixel((image.width - 5, y)), BLUE), image.getpixel((image.width - 5, y))
    middle = image.getpixel((image.width // 2, y))
    assert middle[0] > 80 and middle[2] > 80 and middle[1] < 40, middle    # purple, not black
    qpdf_check(pdf, tmp_path)
    # the art form itself holds the shading its content stream paints
    with pikepdf.open(__import__("io").BytesIO(pdf)) as doc:
        forms = list(doc.pages[0].obj.Resources.XObject.values())
        assert len(forms) == 1
        content = forms[0].read_bytes().decode("latin-1")
        assert " sh" in content
        shadings = forms[0].Resources.Shading
        assert len(shadings) == 1 and f"{next(iter(shadings.keys()))} sh" in content
    assert dangling_resources(pdf) == []


def test_radial_gradient_is_red_in_the_middle_blue_at_the_rim(gradient_lib):
    pdf, _ = art_pdf(gradient_lib, "radial", (0, 0, 80, 80), (80, 80))
    image = rasterise(pdf, scale=2)
    centre = image.width // 2
    assert near(image.getpixel((centre, centre)), RED), image.getpixel((centre, centre))
    rim = image.getpixel((centre, 3))                       # just inside the top edge
    assert rim[2] > 150 and rim[0] < 100, rim
    corner = image.getpixel((2, 2))                          # outside the circle: paper
    assert near(corner, (255, 255, 255), 10), corner
    assert dangling_resources(pdf) == []


def test_a_transformed_shape_carries_its_gradient_along(gradient_lib):
    pdf, _ = art_pdf(gradient_lib, "moved", (0, 0, 100, 20), (100, 20))
    image = rasterise(pdf, scale=2)
    y = image.height // 2
    assert near(image.getpixel((40, y)), (255, 255, 255), 10)      # left half: empty
    assert near(image.getpixel((104, y)), RED), image.getpixel((104, y))
    assert near(image.getpixel((195, y)), BLUE), image.getpixel((195, y))


# Inkscape keeps a gradient's geometry and turns it with gradientTransform; a
# radial gradient in a wide box is an ellipse filling it.
TURNED = f"""<svg {SVG} width="40" height="40" viewBox="0 0 20 20">
  <defs>
    <linearGradient id="stops"><stop offset="0" stop-color="#ff0000"/>
      <stop offset="1" stop-color="#0000ff"/></linearGradient>
    <linearGradient id="down" xlink:href="#stops" x1="0" y1="0" x2="20" y2="0"
                    gradientUnits="userSpaceOnUse" gradientTransform="rotate(90)"/>
  </defs>
  <rect width="20" height="20" fill="url(#down)"/>
</svg>
"""

WIDE = f"""<svg {SVG} width="200" height="40" viewBox="0 0 200 40">
  <defs><radialGradient id="oval"><stop offset="0" stop-color="#ff0000"/>
    <stop offset="1" stop-color="#0000ff"/></radialGradient></defs>
  <rect width="200" height="40" fill="url(#oval)"/>
</svg>
"""


def test_gradient_transform_turns_the_gradient(tmp_path):
    lib = ArtLibrary(art_pack(tmp_path, {"turned.svg": TURNED}))
    pdf, _ = art_pdf(lib, "turned", (0, 0, 40, 40), (40, 40))
    image = rasterise(pdf, scale=2)                       # 80 x 80, y down as in SVG
    assert near(image.getpixel((40, 3)), RED), image.getpixel((40, 3))
    assert near(image.getpixel((40, 76)), BLUE), image.getpixel((40, 76))
    assert near(image.getpixel((3, 40)), image.getpixel((76, 40)), 8)   # level across


def test_a_radial_gradient_in_a_wide_box_is_an_ellipse(tmp_path):
    lib = ArtLibrary(art_pack(tmp_path, {"wide.svg": WIDE}))
    pdf, _ = art_pdf(lib, "wide", (0, 0, 200, 40), (200, 40))
    image = rasterise(pdf, scale=1)
    assert near(image.getpixel((100, 20)), RED), image.getpixel((100, 20))
    for edge in ((100, 1), (2, 20), (197, 20)):           # the rim, all round
        pixel = image.getpixel(edge)
        assert pixel[2] > 200 and pixel[0] < 60, (edge, pixel)
    assert dangling_resources(pdf) == []


GRADIENT = ('<defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/>'
            '<stop offset="1" stop-color="#00f"/></linearGradient>{extra}</defs>')


def svg_with(body: str, extra: str = "") -> bytes:
    return (f'<svg {SVG} viewBox="0 0 100 20">\n{GRADIENT.format(extra=extra)}\n'
            f'{body}\n</svg>').encode()


@pytest.mark.parametrize("body,extra,words,hint", [
    ('<rect width="100" height="20" fill="none" stroke="url(#g)"/>', "",
     "<rect> stroke 'url(#g)': gradient strokes are not drawn", "Stroke to Path"),
    ('<rect width="100" height="20" style="fill:url(#g) #00ff00"/>', "",
     "only a plain url(#id) is drawn", "fallback colour"),
    ('<rect width="100" height="20" fill="url(#nope)"/>', "",
     "fill url(#nope) names nothing, not a gradient", "linearGradient"),
    ('<rect width="100" height="20" fill="url(#fade)"/>',
     '<linearGradient id="fade"><stop offset="0" stop-color="#f00"/>'
     '<stop offset="1" stop-color="#f00" stop-opacity="0"/></linearGradient>',
     "stop-opacity is 0: gradients are drawn opaque", "opaque stops"),
    ('<rect width="100" height="20" fill="url(#turned)"/>',
     '<linearGradient id="turned" xlink:href="#g" gradientTransform="rotate(30"/>',
     "gradientTransform 'rotate(30' is not a transform list", "matrix(a,b,c,d,e,f)"),
    ('<rect width="100" height="20" fill="url(#rep)"/>',
     '<linearGradient id="rep" xlink:href="#g" spreadMethod="repeat"/>',
     "spreadMethod 'repeat' is not drawn", "PNG"),
    ('<rect width="100" height="20" fill="url(#empty)"/>', '<linearGradient id="empty"/>',
     "has no <stop>; nothing would be drawn", None),
    ('<rect width="100" height="20" fill="url(#g)" fill-opacity="0.5"/>', "",
     "fill-opacity is 0.5: a gradient fill is drawn opaque", "opaque stops"),
])
def test_gradients_svglib_cannot_draw_are_refused_with_the_line(body, extra, words, hint):
    with pytest.raises(InputError) as info:
        load_svg(svg_with(body, extra), "templates/art/x.svg")
    (problem,) = info.value.problems
    assert problem.path == "templates/art/x.svg"
    assert words in problem.message, str(problem)
    assert problem.line in (2, 3), str(problem)
    if hint:
        assert hint in (problem.hint or ""), str(problem)


# ------------------------------------------------------------------ text in pack fonts

def text_svg(family: str, extra: str = "") -> bytes:
    return (f'<svg {SVG} viewBox="0 0 100 20">\n<text x="2" y="15" '
            f'style="font-family:{family};font-size:12px{extra}">Lab</text>\n</svg>').encode()


@pytest.fixture(scope="module")
def pack_fonts():
    from eti_print.fonts import load_fonts
    return load_fonts(Pack.open(None))


def strings(drawing):
    stack, found = [drawing], []
    while stack:
        item = stack.pop()
        if isinstance(item, String):
            found.append(item)
        stack.extend(getattr(item, "contents", None) or [])
    return found


def test_svg_text_in_a_pack_family_is_set_in_that_font(pack_fonts):
    body = pack_fonts["body"]
    regular = strings(load_svg(text_svg("'Open Sans'"), "x.svg", pack_fonts))
    bold = strings(load_svg(text_svg("'Open Sans'", ";font-weight:bold"), "x.svg", pack_fonts))
    role = strings(load_svg(text_svg("body", ";font-style:italic"), "x.svg", pack_fonts))
    assert [s.fontName for s in regular] == [body.regular]
    assert [s.fontName for s in bold] == [body.bold]
    assert [s.fontName for s in role] == [body.italic]


def test_svg_text_in_another_font_names_the_pack_families_in_the_hint(pack_fonts):
    with pytest.raises(InputError) as info:
        load_svg(text_svg("'Comic Sans MS'"), "templates/art/x.svg", pack_fonts)
    (problem,) = info.value.problems
    assert (problem.path, problem.line) == ("templates/art/x.svg", 2)
    assert "'Comic Sans MS' is not one of the pack's fonts" in problem.message
    assert "'Open Sans'" in problem.hint and "'Routed Gothic Wide'" in problem.hint
    assert "body" in problem.hint and "Object to Path" in problem.hint
    assert "no fonts are available" not in problem.hint


def test_without_fonts_the_hint_says_to_convert_text_to_paths():
    with pytest.raises(InputError) as info:
        load_svg(text_svg("'Open Sans'"), "templates/art/x.svg")
    assert "convert the text to paths" in info.value.problems[0].hint


def test_a_pack_build_gives_art_the_pack_fonts():
    from eti_print.options import PrintOptions
    from eti_print.pipeline import load
    ctx = load(None, PrintOptions())
    assert "Open Sans" in ctx.art.fonts and "body" in ctx.art.fonts


def test_a_tinted_gradient_takes_the_colour_everywhere(gradient_lib):
    pdf, _ = art_pdf(gradient_lib, "linear", (0, 0, 100, 20), (100, 20), color="#00A000")
    image = rasterise(pdf, scale=1)
    for x in (3, 50, 96):
        assert near(image.getpixel((x, 10)), (0, 160, 0), 10), image.getpixel((x, 10))
