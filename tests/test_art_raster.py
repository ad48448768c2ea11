"""PNG and JPEG art: art ids like SVG files, drawn into the art box keeping their
aspect, under the same caps as images embedded in SVG, and never recoloured."""

from __future__ import annotations

import io
from pathlib import Path

import pikepdf
import pytest
from art_render import art_pack, art_pdf
from PIL import Image
from reportlab.lib.colors import HexColor

from eti_print.art import MAX_BYTES, MAX_PIXELS, ArtLibrary, RasterArt
from eti_print.errors import InputError

from pdfcheck import NO_QPDF, dangling_resources, qpdf_check, rasterise

#: Each test here loads its art afresh (conftest.art_loaded_afresh).
pytestmark = pytest.mark.usefixtures("art_loaded_afresh")


ICON = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">
<rect width="10" height="10" fill="#000"/></svg>"""


def png(size=(40, 20), colour=(255, 0, 0, 255), mode="RGBA", half=None, **save) -> bytes:
    image = Image.new(mode, size, colour)
    if half is not None:                      # the right half in another colour
        image.paste(Image.new(mode, (size[0] // 2, size[1]), half), (size[0] // 2, 0))
    buffer = io.BytesIO()
    image.save(buffer, "PNG", **save)
    return buffer.getvalue()


def jpeg(size=(30, 30), colour=(0, 160, 0)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "JPEG", quality=95)
    return buffer.getvalue()


def near(pixel, colour, tolerance=30) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour))


def problem_of(call):
    with pytest.raises(InputError) as info:
        call()
    (problem,) = info.value.problems
    return problem


@pytest.fixture
def lib(tmp_path: Path) -> ArtLibrary:
    return ArtLibrary(art_pack(tmp_path, {
        "banner.png": png(half=(0, 0, 255, 255)), "photo.jpg": jpeg(), "scan.jpeg": jpeg(),
        "icon.svg": ICON, "ghost.png": png(colour=(0, 0, 0, 0), half=(0, 0, 255, 255)),
        "Upper.png": png(), "notes.txt": "x"}))


def test_png_and_jpeg_files_are_art_ids(lib):
    assert lib.ids() == ["banner", "ghost", "icon", "photo", "scan"]
    assert lib.path_of("banner") == "templates/art/banner.png"
    assert lib.path_of("scan") == "templates/art/scan.jpeg"
    banner = lib.get("banner")
    assert isinstance(banner, RasterArt) and lib.get("banner") is banner
    assert (banner.width, banner.height) == (40, 20)       # 72 dpi: a pixel a point


@pytest.mark.skipif(NO_QPDF, reason="needs qpdf")
def test_png_is_drawn_in_the_box_keeping_its_aspect(lib, tmp_path):
    pdf, covered = art_pdf(lib, "banner", (0, 0, 100, 100), (100, 100))
    assert covered == (0, 25, 100, 50)                     # 2:1, centred
    image = rasterise(pdf, scale=2)                        # 200 x 200 pixels, y down
    assert near(image.getpixel((40, 100)), (255, 0, 0))    # left half red
    assert near(image.getpixel((160, 100)), (0, 0, 255))   # right half blue
    assert near(image.getpixel((100, 20)), (255, 255, 255))   # above the picture: paper
    assert near(image.getpixel((100, 180)), (255, 255, 255))
    qpdf_check(pdf, tmp_path)
    assert dangling_resources(pdf) == []


def test_png_transparency_shows_the_paper_not_black(lib):
    pdf, _ = art_pdf(lib, "ghost", (0, 0, 100, 50), (100, 50))
    image = rasterise(pdf, scale=1)
    assert near(image.getpixel((20, 25)), (255, 255, 255)), image.getpixel((20, 25))
    assert near(image.getpixel((80, 25)), (0, 0, 255))


def test_jpeg_goes_into_the_pdf_as_it_is(lib):
    pdf, _ = art_pdf(lib, "photo", (0, 0, 60, 60), (60, 60))
    assert near(rasterise(pdf).getpixel((30, 30)), (0, 160, 0))
    with pikepdf.open(io.BytesIO(pdf)) as doc:
        (form,) = doc.pages[0].obj.Resources.XObject.values()
        (image,) = form.Resources.XObject.values()
        assert "/DCTDecode" in [str(f) for f in image.Filter]   # not re-encoded
    assert dangling_resources(pdf) == []


def test_image_dpi_sets_its_natural_size(tmp_path):
    lib = ArtLibrary(art_pack(tmp_path, {"print.png": png(size=(300, 150), dpi=(300, 300))}))
    art = lib.get("print")
    assert (round(art.width, 3), round(art.height, 3)) == (72, 36)


def test_two_files_for_one_id_are_refused_naming_both(tmp_path):
    lib = ArtLibrary(art_pack(tmp_path, {"logo.svg": ICON, "logo.png": png()}))
    p = problem_of(lambda: lib.get("logo", where="layouts/card.yaml", line=7,
                                   field="boxes.logo.art"))
    assert (p.path, p.line) == ("layouts/card.yaml", 7)
    assert "templates/art/logo.svg and templates/art/logo.png" in p.message
    assert "keep one" in p.hint
    p = problem_of(lambda: lib.get("logo"))
    assert p.path == "templates/art/logo.svg" and "logo.png" in p.message


def test_raster_art_is_never_recoloured(lib):
    p = problem_of(lambda: lib.tinted("banner", HexColor("#FFFFFF")))
    assert p.path == "templates/art/banner.png"
    assert "PNG image" in p.message and "cannot be recoloured" in p.message
    p = problem_of(lambda: lib.draw(None, "photo", 0, 0, 10, 10, "#FF0000"))
    assert p.path == "templates/art/photo.jpg" and "JPEG" in p.message
    lib.tinted("icon", "#FFFFFF")                           # SVG icons still recolour


@pytest.mark.parametrize("name,data,words", [
    ("huge.png", png(size=(4097, 4097), mode="1", colour=0),
     f"PNG is 4097x4097 pixels; the limit is {MAX_PIXELS} pixels"),
    ("broken.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 40, "PNG image is corrupt"),
    ("fake.jpg", png(), "JPEG image is corrupt (not JPEG data)"),
    ("big.png", b"\x89PNG" + b"\0" * (MAX_BYTES + 1), f"limited to {MAX_BYTES} bytes"),
])
def test_raster_art_within_the_caps_of_embedded_images(tmp_path, name, data, words):
    lib = ArtLibrary(art_pack(tmp_path, {name: data}))
    p = problem_of(lambda: lib.get(name.rpartition(".")[0]))
    assert p.path == f"templates/art/{name}"
    assert words in p.message, str(p)


def test_decompression_bombs_are_refused(tmp_path, monkeypatch):
    # Pillow's own bomb check, below our pixel cap, is an error too (not a warning)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 100)
    lib = ArtLibrary(art_pack(tmp_path, {"bomb.png": png(size=(20, 20))}))
    p = problem_of(lambda: lib.get("bomb"))
    assert p.path == "templates/art/bomb.png" and "corrupt" in p.message


def test_inline_raster_icon_is_refused_where_the_text_uses_it(lib):
    from eti_print.fonts import load_fonts
    from eti_print.pack import Pack
    from eti_print.text import TextStyle, fit_markup
    body = load_fonts(Pack.open(None))["body"]
    style = TextStyle(body, 9)
    p = problem_of(lambda: fit_markup('Gain <icon name="banner"/> now', 100, 30, style, lib,
                                      where="cards/x.yaml", line=4, field="text"))
    assert (p.path, p.line, p.field) == ("cards/x.yaml", 4, "text")
    assert "inline icon :banner: is a PNG image (templates/art/banner.png)" in p.message
    fit_markup('Gain <icon name="icon"/> now', 100, 30, style, lib)


def test_data_may_name_raster_art(pack_copy):
    from eti_print.dataset import load_dataset, run_checks
    from eti_print.pack import Pack
    art = pack_copy / "templates" / "art"
    (art / "logo-atlas-dynamics.svg").unlink()
    (art / "logo-atlas-dynamics.png").write_bytes(png())
    assert not [p for p in run_checks(load_dataset(Pack.open(str(pack_copy)), checks=False))
                if "atlas-dynamics" in p.message]
    (art / "logo-atlas-dynamics.png").unlink()
    found = [str(p) for p in run_checks(load_dataset(Pack.open(str(pack_copy)), checks=False))
             if "atlas-dynamics" in p.message]
    assert len(found) == 1 and "(templates/art/logo-atlas-dynamics.svg, .png or .jpg)" in found[0]


def test_an_upper_case_file_name_gets_a_rename_hint(lib):
    p = problem_of(lambda: lib.get("upper", where="layouts/card.yaml", line=3))
    assert "unknown art id 'upper'" in p.message
    assert p.hint == "rename Upper.png to upper.png (art file names are lowercase)"


def test_documents_draw_raster_art_and_refuse_to_recolour_it(lib):
    from eti_print.fonts import load_fonts
    from eti_print.pack import Pack
    from eti_print.render.document import Theme, build, render
    from eti_print.units import mm
    fonts = load_fonts(Pack.open(None))
    theme = Theme(page=(mm(148), mm(210)), margins=(mm(19), mm(14), mm(17), mm(14)),
                  body=fonts["body"], heading=fonts["title"], label=fonts["label"])

    def doc(body: str) -> str:
        return f'<document title="T" header="H">\n{body}\n</document>'
    p = problem_of(lambda: build(doc('<art name="banner" height="10mm" color="#FF0000"/>'),
                                 theme, lib, where="templates/doc.j2"))
    assert (p.path, p.line) == ("templates/doc.j2", 2)
    assert "<art name='banner'> is a PNG image (templates/art/banner.png)" in p.message
    result = render(doc('<art name="banner" height="10mm"/>'), theme, lib,
                    where="templates/doc.j2")
    assert result.pages == 1 and dangling_resources(result.data) == []
    colours = [c for _, c in rasterise(result.data).getcolors(1 << 20)]
    assert (255, 0, 0) in colours and (0, 0, 255) in colours         # both halves, as they are


def test_sixteen_bit_grey_png_keeps_its_tone(tmp_path):
    buffer = io.BytesIO()
    Image.new("I;16", (8, 8), 40000).save(buffer, "PNG")      # 61 % grey, 16 bits
    lib = ArtLibrary(art_pack(tmp_path, {"grey.png": buffer.getvalue()}))
    pdf, _ = art_pdf(lib, "grey", (0, 0, 20, 20), (20, 20))
    assert near(rasterise(pdf).getpixel((10, 10)), (155, 155, 155), 6)


def test_a_camera_rotation_is_applied(tmp_path):
    image = Image.new("RGB", (40, 20), (0, 160, 0))
    exif = image.getexif()
    exif[0x0112] = 6                                    # "rotate 90 to view"
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", exif=exif.tobytes())
    lib = ArtLibrary(art_pack(tmp_path, {"phone.jpg": buffer.getvalue()}))
    art = lib.get("phone")
    assert (art.width, art.height) == (20, 40)
    pdf, covered = art_pdf(lib, "phone", (0, 0, 40, 40), (40, 40))
    assert covered == (10, 0, 20, 40)
    assert near(rasterise(pdf).getpixel((20, 35)), (0, 160, 0))
