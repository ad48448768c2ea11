"""Art: hostile SVG files are refused with located messages; the shipped art
exists, loads, follows the art rules and recolours."""

from __future__ import annotations

import io
import math
import os
import re
import subprocess
from pathlib import Path

import pytest
from lxml import etree
from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Drawing, Group, String
from reportlab.graphics.shapes import Image as RLImage
from reportlab.lib import colors
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

import eti_print.art as art
from eti_print.art import ArtLibrary, load_svg, read_capped
from eti_print.errors import InputError

REPO = Path(__file__).resolve().parent.parent
FIX = Path(__file__).resolve().parent / "fixtures" / "art"
PACK = FIX / "pack"
CANARY_TEXT = (FIX / "canary.txt").read_text().strip()
CANARY_PNG = FIX / "canary.png"
SVG_NS = "http://www.w3.org/2000/svg"
FONT = "ArtTestSans"


#: Each test here loads its art afresh (conftest.art_loaded_afresh).
pytestmark = pytest.mark.usefixtures("art_loaded_afresh")


@pytest.fixture(scope="module", autouse=True)
def test_font():
    if FONT not in pdfmetrics.getRegisteredFontNames():
        # the pack's fonts first: reportlab gives a second font of the same face the
        # first one's object, which must stay the pack's own (fonts.LoggedFont)
        from eti_print.fonts import load_fonts
        from eti_print.pack import Pack
        load_fonts(Pack.open(None))
        pdfmetrics.registerFont(TTFont(FONT, str(REPO / "fonts" / "OpenSans-Regular.ttf")))


@pytest.fixture
def lib():
    return ArtLibrary(PACK, fonts={FONT})


def problem(exc: pytest.ExceptionInfo[InputError]):
    assert len(exc.value.problems) == 1, exc.value.problems
    return exc.value.problems[0]


def walk(node):
    stack = [node]
    while stack:
        item = stack.pop()
        yield item
        stack.extend(getattr(item, "contents", None) or [])


def pdf_bytes(*drawings: Drawing) -> bytes:
    buf = io.BytesIO()
    canvas = Canvas(buf, invariant=1, pageCompression=0)
    for d in drawings:
        renderPDF.draw(d, canvas, 0, 0)
        canvas.showPage()
    canvas.save()
    return buf.getvalue()


def assert_no_canary(drawing: Drawing) -> None:
    for shape in walk(drawing):
        if isinstance(shape, String):
            assert CANARY_TEXT not in shape.text
        if isinstance(shape, RLImage):
            assert not isinstance(shape.path, (str, os.PathLike)), shape.path
    assert CANARY_TEXT.encode() not in pdf_bytes(drawing)


# ------------------------------------------------------------------ hostile files

HOSTILE = [
    # (fixture, line, words the message must contain)
    ("billion-laughs", 2, "DOCTYPE and entity declarations are not allowed"),
    ("xxe", 2, "DOCTYPE and entity declarations are not allowed"),
    ("image-outside", 3, "<image> href '../../../canary.png' is not allowed "
                         "(only #id and embedded PNG/JPEG data)"),
    ("xlink-file", 3, "<image> xlink:href 'file:///etc/passwd' is not allowed"),
    ("external-use", 2, "<use> xlink:href 'ok.svg#dot' is not allowed"),
    ("http-image", 2, "<image> href 'http://example.com/x.png' is not allowed"),
    ("script", 3, "<script> is not allowed"),
    ("foreign-object", 2, "<foreignObject> is not allowed"),
    ("foreign-namespace", 2, "'{urn:evil}image' is not SVG and is not allowed"),
    ("style-import", 2, "<style> @import is not allowed"),
    ("metadata-defs", 4, "<image> href '../../../canary.png' is not allowed"),
    ("style-href", 3, "<image> style must not set href"),
    ("css-href", 2, "<style> must not set href"),
    # libxml2 gives a multi-line start tag the line where the tag ends
    ("css-url", 3, "url('http://example.com/paint.svg#p') is not allowed (only url(#id))"),
    ("event-handler", 1, "event handler 'onload' is not allowed"),
    ("font-not-allowed", 3, "<text> font-family 'DejaVu Sans' is not one of the pack's fonts"),
    ("text-no-font", 2, "<text> has no font-family"),
    ("style-font", 2, "font-family 'Comic Sans MS' is not one of the pack's fonts"),
    ("not-svg", 1, "the root element must be <svg> in the SVG namespace"),
    ("no-namespace", 1, "the root element must be <svg> in the SVG namespace"),
    ("malformed", 3, "not well-formed XML: Opening and ending tag mismatch"),
    ("use-cycle", 2, "<use> reference cycle"),
    ("use-bomb", 7, "<g> draws more than 20000 elements once <use> is expanded"),
    ("deep", 2, "nested more than 64 deep"),
    ("corrupt-png", 3, "<image> embedded PNG image is corrupt"),
    ("huge-png", 3, "<image> embedded PNG is 5000x5000 pixels; the limit is 16777216 pixels"),
    ("gif-data", 2, "<image> href 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' is not allowed"),
    ("png-claims-jpeg", 2, "<image> embedded JPEG image is corrupt"),
]


@pytest.mark.parametrize("name,line,words", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_file_is_refused_with_location(lib, name, line, words):
    with pytest.raises(InputError) as exc:
        lib.get(name)
    p = problem(exc)
    assert p.path == f"templates/art/{name}.svg"
    assert p.line == line, str(p)
    assert words in p.message, str(p)
    assert str(p).startswith(f"templates/art/{name}.svg:{line}: ")


def test_message_reads_like_the_documented_example(lib):
    with pytest.raises(InputError) as exc:
        lib.get("image-outside")
    assert str(exc.value) == (
        "templates/art/image-outside.svg:3: <image> href '../../../canary.png' is not "
        "allowed (only #id and embedded PNG/JPEG data) "
        "(hint: embed images as data:image/png;base64,... URIs)")


def test_hostile_fixtures_are_really_hostile_for_plain_svglib():
    """Sanity: without the vetting, svglib would have pulled in the canary."""
    from svglib.svglib import svg2rlg
    drawing = svg2rlg(str(PACK / "templates" / "art" / "image-outside.svg"))
    paths = [s.path for s in walk(drawing) if isinstance(s, RLImage)]
    if not paths:
        pytest.skip("this svglib no longer follows relative image paths")
    assert Path(paths[0]).resolve() == CANARY_PNG.resolve()


def make_pack(tmp_path: Path) -> Path:
    pack = tmp_path / "pack"
    (pack / "templates" / "art").mkdir(parents=True)
    (pack / "templates" / "art" / "fine.svg").write_text(
        (PACK / "templates" / "art" / "ok.svg").read_text())
    outside = tmp_path / "outside.svg"
    outside.write_text(f'<svg xmlns="{SVG_NS}" viewBox="0 0 100 100"><title>{CANARY_TEXT}'
                       f'</title><text font-family="{FONT}">{CANARY_TEXT}</text></svg>')
    return pack


def test_symlink_out_of_the_pack_is_refused(tmp_path):
    pack = make_pack(tmp_path)
    (pack / "templates" / "art" / "escape.svg").symlink_to(tmp_path / "outside.svg")
    lib = ArtLibrary(pack, fonts={FONT})
    with pytest.raises(InputError) as exc:
        lib.get("escape", where="cards/fields.yaml", line=7, field="icon")
    p = problem(exc)
    assert (p.path, p.line, p.field) == ("cards/fields.yaml", 7, "icon")
    assert "'templates/art/escape.svg' leads outside the pack" in p.message


def test_symlink_to_dev_zero_is_refused(tmp_path):
    pack = make_pack(tmp_path)
    (pack / "templates" / "art" / "zero.svg").symlink_to("/dev/zero")
    with pytest.raises(InputError) as exc:
        ArtLibrary(pack).get("zero")
    p = problem(exc)
    assert p.path == "templates/art/zero.svg"
    assert "leads outside the pack" in p.message


def test_device_is_not_read_even_when_reached(tmp_path):
    with pytest.raises(InputError) as exc:
        read_capped(Path("/dev/zero"), "templates/art/zero.svg")
    p = problem(exc)
    assert (p.path, p.message) == ("templates/art/zero.svg", "is not a regular file")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_inside_the_pack_is_refused_without_blocking(tmp_path):
    pack = make_pack(tmp_path)
    os.mkfifo(pack / "templates" / "art" / "pipe.svg")
    with pytest.raises(InputError) as exc:
        ArtLibrary(pack).get("pipe")
    p = problem(exc)
    assert (p.path, p.message) == ("templates/art/pipe.svg", "is not a regular file")


def test_symlink_inside_the_pack_to_a_fifo_is_refused(tmp_path):
    pack = make_pack(tmp_path)
    os.mkfifo(pack / "pipe")
    (pack / "templates" / "art" / "via.svg").symlink_to(pack / "pipe")
    with pytest.raises(InputError) as exc:
        ArtLibrary(pack).get("via")
    assert problem(exc).message == "is not a regular file"


def test_oversize_file_is_refused(tmp_path):
    pack = make_pack(tmp_path)
    big = pack / "templates" / "art" / "big.svg"
    big.write_bytes(f'<svg xmlns="{SVG_NS}">'.encode() + b" " * art.MAX_BYTES + b"</svg>")
    with pytest.raises(InputError) as exc:
        ArtLibrary(pack).get("big")
    p = problem(exc)
    assert p.path == "templates/art/big.svg"
    assert f"art files are limited to {art.MAX_BYTES} bytes" in p.message


def test_too_many_elements_is_refused(tmp_path):
    pack = make_pack(tmp_path)
    rects = "<rect/>" * (art.MAX_ELEMENTS + 1)
    (pack / "templates" / "art" / "many.svg").write_text(
        f'<svg xmlns="{SVG_NS}" viewBox="0 0 100 100">\n{rects}</svg>')
    with pytest.raises(InputError) as exc:
        ArtLibrary(pack).get("many")
    p = problem(exc)
    assert (p.path, p.line) == ("templates/art/many.svg", 2)
    assert f"more than {art.MAX_ELEMENTS} elements" in p.message


def test_xxe_to_the_canary_is_refused(tmp_path):
    pack = make_pack(tmp_path)
    (pack / "templates" / "art" / "leak.svg").write_text(
        f'<!DOCTYPE svg [<!ENTITY c SYSTEM "file://{FIX / "canary.txt"}">]>\n'
        f'<svg xmlns="{SVG_NS}" viewBox="0 0 100 100"><text font-family="{FONT}">&c;</text></svg>')
    with pytest.raises(InputError) as exc:
        ArtLibrary(pack, fonts={FONT}).get("leak")
    p = problem(exc)
    assert (p.line, p.message) == (1, "DOCTYPE and entity declarations are not allowed")


def test_doctype_hidden_from_the_byte_scan_is_still_refused():
    # UTF-16 hides "<!DOCTYPE" from a byte search; the parsed tree still shows it.
    data = ('<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE svg>\n'
            f'<svg xmlns="{SVG_NS}" viewBox="0 0 100 100"/>').encode("utf-16")
    with pytest.raises(InputError) as exc:
        load_svg(data, "x.svg")
    assert problem(exc).message == "DOCTYPE and entity declarations are not allowed"


def test_svglib_alone_cannot_reach_files_either(tmp_path):
    """Defence in depth: even an unvetted tree cannot make svglib read a file,
    because it is given no source path."""
    svg = (FIX / "pack" / "templates" / "art" / "style-href.svg").read_bytes()
    root = etree.fromstring(svg)
    with pytest.raises(InputError) as exc:
        art._render(root, "templates/art/style-href.svg", frozenset())
    p = problem(exc)
    assert p.path == "templates/art/style-href.svg"
    assert "svglib cannot draw this file" in p.message


def test_canary_never_reaches_a_drawing(lib, tmp_path):
    """Every accepted file renders without a trace of the canary outside the pack."""
    accepted = [lib.get(i) for i in ("ok", "wide", "uses", "text-ok", "png-ok", "inkscape")]
    shipped = ArtLibrary(REPO)
    accepted += [shipped.get(i) for i in shipped.ids()]
    for drawing in accepted:
        assert_no_canary(drawing)
    for name, _, _ in HOSTILE:
        with pytest.raises(InputError):
            lib.get(name)


def test_unknown_family_never_reaches_a_system_font_lookup(monkeypatch, lib):
    def boom(*args, **kwargs):
        raise AssertionError("system font lookup attempted")
    monkeypatch.setattr("svglib.fonts.FontMap.use_fontconfig", boom)
    monkeypatch.setattr(subprocess, "Popen", boom)
    with pytest.raises(InputError):
        lib.get("font-not-allowed")
    assert lib.get("text-ok") is not None
    # The font map handed to svglib refuses instead of searching.
    fmap = art._PackFontMap(frozenset({FONT}))
    assert fmap.find_font(FONT, "bold", "italic") == (FONT, True)
    for call in (lambda: fmap.find_font("Arial"), lambda: fmap.use_fontconfig("Arial"),
                 lambda: fmap.register_font("Arial", "/usr/share/fonts/arial.ttf")):
        with pytest.raises(art._FontRefused):
            call()


def test_svglib_failure_becomes_input_error_naming_the_file():
    # svglib splits style declarations on every ':' and crashes on a second one.
    data = (f'<svg xmlns="{SVG_NS}" viewBox="0 0 100 100">'
            '<rect width="10" height="10" style="fill: #000000; x-note: a:b"/></svg>').encode()
    with pytest.raises(InputError) as exc:
        load_svg(data, "templates/art/odd.svg")
    p = problem(exc)
    assert p.path == "templates/art/odd.svg"
    assert p.message.startswith("svglib cannot draw this file (ValueError")
    # a file svglib cannot size
    with pytest.raises(InputError) as exc:
        load_svg(f'<svg xmlns="{SVG_NS}"/>'.encode(), "templates/art/empty.svg")
    assert problem(exc).message == "has no usable size"


def test_svglib_logged_errors_become_input_errors(monkeypatch):
    import logging

    def fake_render(self, node):
        logging.getLogger("svglib.svglib").error("Unable to read the image %s", "x.png")
        return Drawing(10, 10)
    monkeypatch.setattr("svglib.svglib.SvgRenderer.render", fake_render)
    with pytest.raises(InputError) as exc:
        load_svg(f'<svg xmlns="{SVG_NS}" viewBox="0 0 10 10"/>'.encode(), "templates/art/l.svg")
    assert problem(exc).message == "svglib cannot draw this file: Unable to read the image x.png"


def test_svglib_gets_the_parsed_tree_and_no_file(monkeypatch, lib):
    def boom(*args, **kwargs):
        raise AssertionError("svglib read a file")
    monkeypatch.setattr("svglib.svglib.load_svg_file", boom)
    drawing = lib.get("uses")
    assert isinstance(drawing, Drawing)


def test_text_in_an_allowed_font(lib):
    strings = [s for s in walk(lib.get("text-ok")) if isinstance(s, String)]
    assert strings and all(s.fontName == FONT for s in strings)


def test_embedded_png_is_accepted(lib):
    images = [s for s in walk(lib.get("png-ok")) if isinstance(s, RLImage)]
    assert len(images) == 1 and images[0].path.size == (2, 2)


def test_use_and_clip_path_fragments_are_accepted(lib):
    assert isinstance(lib.get("uses"), Drawing)


def test_inkscape_editor_data_and_rdf_metadata_are_accepted(lib):
    assert isinstance(lib.get("inkscape"), Drawing)


# ------------------------------------------------------------------ library API

def test_unknown_id_names_it_and_suggests_close_matches(lib):
    with pytest.raises(InputError) as exc:
        lib.get("wides", where="cards/fields.yaml", line=4, field="icon")
    p = problem(exc)
    assert (p.path, p.line, p.field) == ("cards/fields.yaml", 4, "icon")
    assert "unknown art id 'wides'" in p.message
    assert p.hint == "did you mean wide?"


def test_invalid_id_is_refused_before_any_path_is_built(lib):
    for bad in ("../canary", "/etc/passwd", "Wide", "a/b", ""):
        with pytest.raises(InputError) as exc:
            lib.get(bad, where="cards/x.yaml", line=2)
        assert "is not a valid id" in problem(exc).message


def test_art_dir_outside_the_pack_is_refused(tmp_path):
    with pytest.raises(InputError) as exc:
        ArtLibrary(PACK, art_dir="../../..").ids()
    assert "'..'" in problem(exc).message


def test_ids_lists_svg_files_only(lib):
    ids = lib.ids()
    assert "ok" in ids and "wide" in ids
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)
    assert ArtLibrary(PACK / "nowhere").ids() == []


def test_drawing_is_loaded_once_and_cached(monkeypatch, lib):
    calls = []
    real = art.read_capped
    monkeypatch.setattr(art.files, "read_capped", lambda *a, **k: calls.append(a) or real(*a, **k))
    first = lib.get("ok")
    assert lib.get("ok") is first
    assert len(calls) == 1


def test_tinted_recolours_every_fill_and_stroke(lib):
    shipped = ArtLibrary(REPO)
    red = colors.HexColor("#B83A2E")
    original = shipped.get("field-chemistry")
    tinted = shipped.tinted("field-chemistry", red)
    assert tinted is not original
    painted = 0
    for shape in walk(tinted):
        for attr in ("fillColor", "strokeColor"):
            value = getattr(shape, attr, None)
            if value is not None and not isinstance(shape, (Drawing, Group)):
                assert value == red
                painted += 1
    assert painted > 3
    # the cached original is untouched
    assert all(getattr(s, a, None) in (None, colors.black) or
               getattr(s, a).hexval() == "0x000000"
               for s in walk(original) for a in ("fillColor", "strokeColor")
               if not isinstance(s, (Drawing, Group)))
    assert shipped.tinted("field-chemistry", red) is tinted
    assert shipped.tinted("field-chemistry", "#B83A2E") is tinted
    assert shipped.tinted("field-chemistry", colors.white) is not tinted


def test_tinting_keeps_clip_paths_invisible():
    shipped = ArtLibrary(REPO)
    tinted = shipped.tinted("issa", colors.white)
    clips = [s for s in walk(tinted) if getattr(s, "isClipPath", 0)]
    assert clips
    assert all(s.getProperties()["fillColor"] is None for s in clips)


class RecordingCanvas(Canvas):
    def __init__(self):
        super().__init__(io.BytesIO(), invariant=1)
        self.calls = []

    def translate(self, dx, dy):
        self.calls.append(("translate", dx, dy))
        super().translate(dx, dy)

    def scale(self, x, y):
        self.calls.append(("scale", x, y))
        super().scale(x, y)


def test_draw_fits_the_box_keeping_the_aspect_ratio(lib):
    canvas = RecordingCanvas()
    box = lib.draw(canvas, "wide", 10, 20, 50, 50)
    x, y, w, h = box
    assert (w, h) == pytest.approx((50, 25))
    assert (x, y) == pytest.approx((10, 32.5))
    assert canvas.calls[0] == ("translate", pytest.approx(10), pytest.approx(32.5))
    drawing = lib.get("wide")
    assert canvas.calls[1][1] == canvas.calls[1][2] == pytest.approx(50 / drawing.width)
    tall = lib.draw(canvas, "wide", 0, 0, 400, 20)
    assert tall == pytest.approx((180, 0, 40, 20))
    with pytest.raises(ValueError):
        lib.draw(canvas, "ok", 0, 0, 0, 10)


def test_draw_with_colour_uses_the_tinted_copy(lib):
    canvas = RecordingCanvas()
    lib.draw(canvas, "ok", 0, 0, 30, 30, color=colors.white)
    canvas.save()


# ------------------------------------------------------------------ the shipped art

def design_art_ids() -> list[str]:
    text = (REPO / "docs" / "design.md").read_text()
    section = text.split("## Art ids", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"`([a-z0-9]+(?:-[a-z0-9]+)*)`", section)


DESIGN_IDS = design_art_ids()
ICONS = [i for i in DESIGN_IDS if not i.startswith("logo-")]
LOGOS = [i for i in DESIGN_IDS if i.startswith("logo-")]


def test_design_lists_the_expected_art():
    assert len(ICONS) == 32 and len(LOGOS) == 6


def test_every_design_art_id_exists_and_nothing_else():
    assert sorted(ArtLibrary(REPO).ids()) == sorted(DESIGN_IDS)


@pytest.mark.parametrize("art_id", DESIGN_IDS)
def test_shipped_art_loads(art_id):
    drawing = ArtLibrary(REPO).get(art_id)
    assert isinstance(drawing, Drawing)
    assert drawing.width == drawing.height > 0


def svg_tree(art_id: str):
    return etree.parse(str(REPO / "templates" / "art" / f"{art_id}.svg"))


ALLOWED_ELEMENTS = {"svg", "title", "desc", "g", "defs", "path", "rect", "circle", "ellipse",
                    "line", "polyline", "polygon", "clipPath", "use"}


@pytest.mark.parametrize("art_id", DESIGN_IDS)
def test_shipped_art_follows_the_art_rules(art_id):
    root = svg_tree(art_id).getroot()
    assert root.get("viewBox") == "0 0 100 100"
    colours = set()
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        name = etree.QName(el).localname
        assert etree.QName(el).namespace == SVG_NS
        assert name in ALLOWED_ELEMENTS, f"{art_id}: <{name}>"
        assert el.get("style") is None, f"{art_id}: style attribute"
        for attr in ("fill", "stroke"):
            value = el.get(attr)
            if value is not None and value != "none":
                assert re.fullmatch(r"#[0-9A-F]{6}", value), f"{art_id}: {attr}={value}"
                colours.add(value)
    if art_id in ICONS:
        assert colours == {"#000000"}, f"{art_id} is not single-colour: {colours}"
    else:
        assert 2 <= len(colours) <= 3, f"{art_id} colours: {colours}"


def effective_strokes(drawing: Drawing):
    """(shape, stroke width in viewBox units) for every stroked shape."""
    def mult(a, b):
        return (a[0] * b[0] + a[2] * b[1], a[1] * b[0] + a[3] * b[1],
                a[0] * b[2] + a[2] * b[3], a[1] * b[2] + a[3] * b[3],
                a[0] * b[4] + a[2] * b[5] + a[4], a[1] * b[4] + a[3] * b[5] + a[5])

    out = []
    stack = [(drawing, (1, 0, 0, 1, 0, 0))]
    while stack:
        node, m = stack.pop()
        if hasattr(node, "transform") and not isinstance(node, Drawing):
            m = mult(m, node.transform)
        if getattr(node, "contents", None) is not None:
            stack.extend((c, m) for c in node.contents)
        elif getattr(node, "strokeColor", None) is not None and not getattr(node, "isClipPath", 0):
            scale = math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))
            out.append((node, node.strokeWidth * scale * 100 / drawing.width))
    return out


@pytest.mark.parametrize("art_id", DESIGN_IDS)
def test_shipped_art_has_no_hairlines(art_id):
    for shape, width in effective_strokes(ArtLibrary(REPO).get(art_id)):
        assert width >= 6 - 1e-6, f"{art_id}: {type(shape).__name__} stroke {width:.2f}"


@pytest.mark.parametrize("art_id", ICONS)
def test_icons_render_black_only(art_id):
    for shape in walk(ArtLibrary(REPO).get(art_id)):
        if isinstance(shape, (Drawing, Group)) or getattr(shape, "isClipPath", 0):
            continue
        for attr in ("fillColor", "strokeColor"):
            value = getattr(shape, attr, None)
            if value is not None:
                assert value.hexval() == "0x000000", f"{art_id}: {attr} {value}"


def test_logos_use_their_company_colour():
    """Each logo carries (nearly) the colour its company has in the database."""
    import yaml
    companies = yaml.safe_load((REPO / "cards" / "companies.yaml").read_text())["companies"]
    assert {f"logo-{c['id']}" for c in companies} == set(LOGOS)

    def rgb(hexstr):
        return tuple(int(hexstr[i:i + 2], 16) for i in (1, 3, 5))
    for company in companies:
        text = (REPO / "templates" / "art" / f"{company['logo']}.svg").read_text()
        used = [rgb(c) for c in re.findall(r'(?:fill|stroke)="(#[0-9A-Fa-f]{6})"', text)]
        want = rgb(company["colour"])
        nearest = min(math.dist(want, c) for c in used)
        assert nearest < 40, f"{company['id']}: no colour near {company['colour']}"


def test_readme_states_the_rules_and_licence():
    text = (REPO / "templates" / "art" / "README.md").read_text()
    for words in ("single-colour", 'viewBox="0 0 100 100"', "MIT", "#000000"):
        assert words in text


def test_a_bad_art_file_fails_every_card_that_uses_it_and_is_read_once(tmp_path, monkeypatch):
    """Each card that uses a bad art file is told its problem (the same, naming the
    file's line), and the file is read and decoded only once."""
    folder = tmp_path / "templates" / "art"
    folder.mkdir(parents=True)
    (folder / "icon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" '
                                     'viewBox="0 0 10 10">\n<rect x="nan" width="1" '
                                     'height="1"/></svg>\n')
    library = ArtLibrary(tmp_path)
    reads = []
    real = art.library.files.read_capped
    monkeypatch.setattr(art.library.files, "read_capped",
                        lambda *a, **k: reads.append(a) or real(*a, **k))
    found = []
    for card in range(3):
        with pytest.raises(InputError, match="not a finite number") as error:
            library.get("icon", where="cards/deck.yaml", line=card + 1)
        found.append([str(p) for p in error.value.problems])
    assert found[0] == found[1] == found[2] and "templates/art/icon.svg:2" in found[0][0]
    assert len(reads) == 1


def test_a_loaded_drawing_is_reused_by_content_never_by_name(tmp_path, monkeypatch):
    """A later library (a later build in the same process) takes the drawing an earlier
    one loaded from the same bytes, without vetting or converting the file again; a
    file whose bytes changed, or art that may use other fonts, is loaded afresh."""
    folder = tmp_path / "templates" / "art"
    folder.mkdir(parents=True)
    icon = folder / "icon.svg"
    icon.write_text(f'<svg xmlns="{SVG_NS}" viewBox="0 0 10 10"><rect width="4" height="4"/>'
                    '</svg>')
    converted = []
    real = art.svg._render
    monkeypatch.setattr(art.svg, "_render", lambda *a: converted.append(a[1]) or real(*a))
    first = ArtLibrary(tmp_path).get("icon")
    assert ArtLibrary(tmp_path).get("icon") is first and len(converted) == 1
    icon.write_text(icon.read_text().replace('width="4"', 'width="6"'))
    edited = ArtLibrary(tmp_path).get("icon")
    assert edited is not first and len(converted) == 2
    assert [c.width for c in walk(edited) if hasattr(c, "width")][-1] == 6
    assert ArtLibrary(tmp_path, fonts={FONT}).get("icon") is not edited
    assert len(converted) == 3


def test_a_librarys_content_key_follows_its_files_and_fonts(tmp_path):
    """Two libraries of the same art and fonts draw alike; a changed file or another
    font set does not (render/replay.py keeps records across libraries by this key)."""
    from eti_print.art import ArtLibrary
    (tmp_path / "templates" / "art").mkdir(parents=True)
    icon = tmp_path / "templates" / "art" / "dot.svg"
    icon.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
                    '<circle cx="5" cy="5" r="4"/></svg>', encoding="utf-8")
    key = ArtLibrary(tmp_path).content_key
    assert ArtLibrary(tmp_path).content_key == key
    assert ArtLibrary(tmp_path, fonts={"body": ("a", "b", "c", "d")}).content_key != key
    icon.write_text(icon.read_text(encoding="utf-8").replace('r="4"', 'r="3"'),
                    encoding="utf-8")
    assert ArtLibrary(tmp_path).content_key != key
