"""No PDF names a resource it does not have: every name a page or form XObject's
content stream uses with ``Do``, ``sh``, ``Tf``, ``gs`` or ``cs`` is in that
stream's own resources (a missing one is an error in every viewer, and what
it should have painted comes out black or not at all)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from conftest import copy_pack, edit, pdfs_of
from pdfcheck import NO_QPDF, dangling_resources, qpdf_check, rasterise

#: The shipped builds whose art differs: each pack, and E.T.I.'s ink saver.
BUILT = [("eti", "a4-long"), ("eti", "ink-saver"), ("sci-tech", "a4-long"),
         ("mad-scientists", "a4-long")]


@pytest.mark.parametrize("pack, mode", BUILT, ids=[f"{p}-{m}" for p, m in BUILT])
def test_shipped_pdfs_name_only_resources_they_have(session_build, pack, mode):
    folder = session_build(pack, mode)
    for name in pdfs_of(pack, mode):
        assert dangling_resources(folder / name) == [], name


def test_the_check_finds_a_dangling_shading():
    # reportlab's own canvas, whose forms lose their shadings: the check must see it
    from reportlab.lib.colors import blue, red
    from reportlab.pdfgen.canvas import Canvas
    buffer = io.BytesIO()
    canvas = Canvas(buffer)
    canvas.beginForm("g")
    canvas.linearGradient(0, 0, 100, 0, (red, blue))
    canvas.endForm()
    canvas.doForm("g")
    canvas.showPage()
    canvas.save()
    (found,) = dangling_resources(buffer.getvalue())
    assert found.startswith("page 1 > /FormXob.g: sh names /Shading /Sh0")


SCI_TECH = Path(__file__).resolve().parents[1] / "packs" / "sci-tech"
SVG = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'

# Inkscape-style: gradients linked to their stops, a transformed shape (its
# userSpaceOnUse gradient is in the shape's own coordinates), text in a pack font.
GRADIENT_ICON = f"""<svg {SVG} width="100" height="100" viewBox="0 0 100 100">
  <defs>
    <linearGradient id="stops"><stop offset="0" style="stop-color:#ff0000"/>
      <stop offset="1" style="stop-color:#0000ff"/></linearGradient>
    <linearGradient xlink:href="#stops" id="band" x1="0" y1="0" x2="100" y2="0"
                    gradientUnits="userSpaceOnUse"/>
    <radialGradient xlink:href="#stops" id="glow" cx="0" cy="0" r="30"
                    gradientUnits="userSpaceOnUse"/>
  </defs>
  <rect x="0" y="0" width="100" height="40" style="fill:url(#band)"/>
  <circle cx="0" cy="0" r="30" fill="url(#glow)" transform="translate(50,70)"/>
  <text x="50" y="30" style="font-family:'Open Sans';font-weight:bold;font-size:20px"
        text-anchor="middle">AT</text>
</svg>
"""

TINTED_STAR = f"""<svg {SVG} viewBox="0 0 10 10">
  <defs><radialGradient id="s"><stop offset="0" stop-color="#fff"/>
    <stop offset="1" stop-color="#000"/></radialGradient></defs>
  <circle cx="5" cy="5" r="5" fill="url(#s)"/>
</svg>
"""


def picture(kind: str) -> bytes:
    image = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    image.paste(Image.new("RGBA", (32, 64), (0, 200, 0, 255)), (0, 0))
    buffer = io.BytesIO()
    if kind == "JPEG":
        image = image.convert("RGB")
    image.save(buffer, kind)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def designer_build(tmp_path_factory) -> Path:
    """Sci-Tech with art as designers bring it: a gradient and text icon, a PNG with
    transparency and a JPEG for field icons (drawn uncoloured), a tinted gradient star."""
    from eti_print.options import PrintOptions
    from eti_print.pipeline import build
    root = tmp_path_factory.mktemp("designer")
    pack = copy_pack(root / "pack", SCI_TECH)
    art = pack / "templates" / "art"
    layouts = pack / "templates" / "layouts"
    # the markers draw each field's picture, pic-<icon>, uncoloured (the rules
    # reference keeps the SVG icons inline)
    edit(layouts / "marker-level-1.yaml", 'art: "{{ card.icon }}"\n    color: "#120E2B"',
         'art: "pic-{{ card.icon }}"')
    edit(layouts / "marker-level-2.yaml", 'icon:\n    color: "{{ card.colour }}"',
         "icon:\n    color: none")
    for icon in art.glob("field-*.svg"):
        (art / f"pic-{icon.name}").write_bytes(icon.read_bytes())
    (art / "pic-field-attack.svg").write_text(GRADIENT_ICON, encoding="utf-8")
    (art / "star.svg").write_text(TINTED_STAR, encoding="utf-8")
    for name, kind in (("pic-field-edict", "PNG"), ("pic-field-flare", "JPEG")):
        (art / f"{name}.svg").unlink()
        (art / f"{name}.{'png' if kind == 'PNG' else 'jpg'}").write_bytes(picture(kind))
    out = root / "out"
    build(str(pack), out, PrintOptions())
    build(str(pack), out / "ink-saver", PrintOptions(ink_saver=True))
    return out


@pytest.mark.skipif(NO_QPDF, reason="needs qpdf")
def test_designer_art_builds_without_dangling_resources(designer_build, tmp_path):
    pdfs = sorted(designer_build.glob("*.pdf"))
    assert [p.name for p in pdfs] == sorted(pdfs_of("sci-tech", "a4-long"))
    for pdf in pdfs + sorted((designer_build / "ink-saver").glob("*.pdf")):
        assert dangling_resources(pdf) == [], pdf
        qpdf_check(pdf)
    markers = designer_build / "sci-tech-markers.pdf"
    image = rasterise(markers.read_bytes(), scale=2)
    image.save(tmp_path / "markers.png")
    colours = image.getcolors(maxcolors=1 << 20)
    assert any(r > 200 and g < 60 and b < 60 for _, (r, g, b) in colours)      # the red end
    assert any(r < 60 and g < 60 and b > 200 for _, (r, g, b) in colours)      # the blue end
    assert any(r < 60 and 170 < g < 230 and b < 60 for _, (r, g, b) in colours)  # the pictures


def test_ink_saver_draws_designer_art_as_it_is(designer_build):
    # as SVG art without a colour: the pictures and gradients print unchanged
    markers = designer_build / "ink-saver" / "sci-tech-markers-ink-saver.pdf"
    colours = [c for _, c in rasterise(markers.read_bytes(), scale=2).getcolors(1 << 20)]
    assert any(r > 200 and g < 60 and b < 60 for r, g, b in colours)
    assert any(r < 60 and g < 60 and b > 200 for r, g, b in colours)
    assert any(r < 60 and 170 < g < 230 and b < 60 for r, g, b in colours)


def test_translucent_svg_art_keeps_its_transparency_in_a_form(tmp_path):
    # fill-opacity is a graphics state (gs); reportlab's forms lost it too
    from art_render import art_pack, art_pdf

    from eti_print.art import ArtLibrary
    veil = (f'<svg {SVG} viewBox="0 0 10 10"><rect width="10" height="10" fill="#ff0000" '
            'fill-opacity="0.5"/></svg>')
    lib = ArtLibrary(art_pack(tmp_path, {"veil.svg": veil}))
    pdf, _ = art_pdf(lib, "veil", (0, 0, 40, 40), (40, 40))
    assert dangling_resources(pdf) == []
    r, g, b = rasterise(pdf).getpixel((20, 20))
    assert r > 240 and 110 < g < 145 and 110 < b < 145, (r, g, b)     # pink, not red
