"""``export pdf --cmyk``: checked from the outside with pikepdf (every colour operator of
every content stream, every image), qpdf, and Ghostscript's CMYK rasteriser (the ink
sum of every pixel)."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pikepdf
import pytest
from PIL import Image, ImageCms

from eti_print.cli import main
from eti_print.export.cmyk import MAX_INK, CMYKError, cap, to_cmyk

#: Ink numbers are written to 4 decimals; a raster pixel is 1/255 per ink.
EPS = 1e-6


@pytest.fixture(scope="module")
def cmyk_dir(shared_folder) -> Path:
    def make(out: Path) -> None:
        assert main(["export", "pdf", "--cmyk", "--quiet", "--out", str(out)]) == 0
    return shared_folder("cmyk-export", make) / "pdf"


def colour_report(pdf) -> dict:
    """Every colour operator, colour space and image of every content stream (pages and
    forms, nested), and the colour every piece of small text is shown in."""
    found = {"ops": {}, "spaces": set(), "images": set(), "max_ink": 0.0,
             "small_rich_text": 0, "small_text": 0, "small_neutral_cmy": 0,
             "inline_images": set(), "image_ink": 0.0, "shading_ink": 0.0, "annotations": 0}
    seen = set()

    def walk(stream, resources, scale):
        fill = (0.0, 0.0, 0.0, 1.0)
        font = 0.0
        tm = 1.0
        stack = []
        for operands, op in pikepdf.parse_content_stream(stream):
            name = str(op)
            if name in ("rg", "RG", "g", "G", "k", "K", "cs", "CS", "sc", "scn", "SC", "SCN"):
                found["ops"][name] = found["ops"].get(name, 0) + 1
            if name in ("k", "K", "sc", "scn", "SC", "SCN"):
                values = [float(v) for v in operands]
                assert len(values) == 4, (name, values)
                found["max_ink"] = max(found["max_ink"], sum(values))
                if name in ("k", "sc", "scn"):
                    fill = tuple(values)
            if name in ("cs", "CS"):
                found["spaces"].add(str(operands[0]))
            if name == "q":
                stack.append((fill, font, scale))
            if name == "Q":
                fill, font, scale = stack.pop()
            if name == "cm":
                a, b, c, d = (float(v) for v in operands[:4])
                scale *= abs(a * d - b * c) ** 0.5
            if name == "Tf":
                font = float(operands[1])
            if name == "Tm":
                a, b, c, d = (float(v) for v in operands[:4])
                tm = abs(a * d - b * c) ** 0.5
            if name in ("Tj", "TJ", "'", '"') and font * tm * scale < 12:
                found["small_text"] += 1
                if sum(fill) >= 2.0 and sum(fill[:3]) > 0:
                    found["small_rich_text"] += 1
                c, m, y, k = fill
                if k >= 0.5 and c + m + y > 0 and max(c, m, y) - min(c, m, y) <= 0.1:
                    found["small_neutral_cmy"] += 1     # dark grey text in four inks
            if name == "INLINE IMAGE":
                image = operands[0]
                found["inline_images"].add(str(image.obj.get("/CS", image.obj.get(
                    "/ColorSpace", "/DeviceGray"))))
            if name == "Do":
                xobject = resources["/XObject"][str(operands[0])]
                if xobject.objgen in seen:
                    continue
                seen.add(xobject.objgen)
                if xobject.get("/Subtype") == "/Image":
                    found["images"].add(str(xobject.get("/ColorSpace")))
                    if xobject.get("/ColorSpace") == "/DeviceCMYK":
                        data = pikepdf.PdfImage(xobject).as_pil_image().tobytes()
                        found["image_ink"] = max([found["image_ink"]] + [
                            sum(data[i:i + 4]) / 255 for i in range(0, len(data), 4)])
                else:
                    walk(xobject, xobject.get("/Resources") or resources, scale)
        for shading in ((resources or {}).get("/Shading") or {}).values():
            found["spaces"].add(str(shading["/ColorSpace"]))
            function = shading.get("/Function")
            for key in ("/C0", "/C1"):
                if function is not None and key in function:
                    found["shading_ink"] = max(found["shading_ink"],
                                               sum(float(v) for v in function[key]))

    for page in pdf.pages:
        walk(page, page.obj.get("/Resources"), 1.0)
        for annotation in page.obj.get("/Annots") or []:     # appearance streams too
            found["annotations"] += 1
            normal = (annotation.get("/AP") or {}).get("/N")
            if isinstance(normal, pikepdf.Stream):
                walk(normal, normal.get("/Resources"), 1.0)
    return found


def test_every_colour_operator_of_every_pdf_is_devicecmyk_within_the_ink_limit(cmyk_dir):
    files = sorted(cmyk_dir.glob("*.pdf"))
    assert len(files) == 14      # 6 decks, 4 kinds of piece, 2 boards, 2 table aids
    total_small = 0
    for path in files:
        with pikepdf.open(path) as pdf:
            report = colour_report(pdf)
            assert not {"rg", "RG", "g", "G"} & set(report["ops"]), (path.name, report["ops"])
            assert report["ops"].get("k", 0) > 0
            assert report["spaces"] <= {"/DeviceCMYK"}, path.name
            assert report["images"] <= {"/DeviceCMYK"}, path.name
            assert report["max_ink"] <= MAX_INK + EPS, (path.name, report["max_ink"])
            assert report["small_rich_text"] == 0, path.name
            assert report["small_neutral_cmy"] == 0, path.name    # small dark text: K only
            assert report["inline_images"] <= {"/DeviceCMYK", "/CMYK"}, path.name
            assert report["image_ink"] <= MAX_INK + 1 / 255 + EPS, path.name
            assert report["shading_ink"] <= MAX_INK + EPS, path.name
            total_small += report["small_text"]
    assert total_small > 1000          # the check saw the cards' text


def test_output_intent_profile_boxes_and_version(cmyk_dir):
    for path in sorted(cmyk_dir.glob("*.pdf")):
        assert path.read_bytes().startswith(b"%PDF-1.4")
        with pikepdf.open(path) as pdf:
            (intent,) = pdf.Root.OutputIntents
            assert intent.S == "/GTS_PDFX"
            assert str(intent.OutputConditionIdentifier) == "FOGRA39"
            profile = intent.DestOutputProfile
            assert int(profile.N) == 4
            icc = ImageCms.ImageCmsProfile(io.BytesIO(profile.read_bytes()))
            assert icc.profile.xcolor_space.strip() == "CMYK"
            assert str(pdf.docinfo["/GTS_PDFXVersion"]) == "PDF/X-1a:2003"
            assert pdf.docinfo["/Trapped"] == pikepdf.Name("/False")
            for page in pdf.pages:
                trim = [float(v) for v in page.obj.TrimBox]
                bleed = [float(v) for v in page.obj.BleedBox]
                media = [float(v) for v in page.obj.MediaBox]
                assert media[0] <= bleed[0] < trim[0] and trim[2] < bleed[2] <= media[2]
            for font in _fonts(pdf):
                descriptor = font.get("/FontDescriptor")
                if descriptor is None and "/DescendantFonts" in font:
                    descriptor = font.DescendantFonts[0].FontDescriptor
                assert descriptor is not None and ("/FontFile2" in descriptor or
                                                   "/FontFile" in descriptor)


def _fonts(pdf):
    seen = set()
    for obj in pdf.objects:
        if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/Font" \
                and obj.get("/Subtype") != "/Type0" and obj.objgen not in seen:
            seen.add(obj.objgen)
            yield obj


@pytest.mark.skipif(shutil.which("qpdf") is None, reason="qpdf not installed")
def test_qpdf_finds_no_errors(cmyk_dir):
    for path in sorted(cmyk_dir.glob("*.pdf"))[:6]:
        result = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("gs") is None, reason="Ghostscript not installed")
def test_rasterised_in_cmyk_no_pixel_exceeds_the_ink_limit(cmyk_dir, tmp_path):
    """Ghostscript's tiff32nc device gives every pixel's four inks: the backs (the
    darkest pages: navy over the whole card) and a board."""
    for name, pages in (("eti-02-projects.pdf", "1-4"), ("eti-04-agendas.pdf", "1-2"),
                        ("eti-12-alien.pdf", "1")):
        first, _, last = pages.partition("-")
        out = tmp_path / f"{name}-%02d.tif"
        subprocess.run(["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=tiff32nc",
                        "-r50", f"-dFirstPage={first}", f"-dLastPage={last or first}",
                        f"-sOutputFile={out}", str(cmyk_dir / name)], check=True)
        for tif in sorted(tmp_path.glob(f"{name}-*.tif")):
            with Image.open(tif) as image:
                assert image.mode == "CMYK"
                data = image.tobytes()
            worst = max(sum(data[i:i + 4]) for i in range(0, len(data), 4))
            assert worst <= MAX_INK * 255 + 4, (tif.name, worst / 255)
            assert worst > 150                     # dark ink is there: not a blank page


def test_cap_keeps_black_and_scales_the_colour_inks():
    assert cap((1.0, 1.0, 1.0, 1.0)) == (0.5333, 0.5333, 0.5333, 1.0)
    assert sum(cap((0.9, 0.8, 0.7, 0.6))) <= MAX_INK
    assert cap((0.2, 0.3, 0.4, 0.1)) == (0.2, 0.3, 0.4, 0.1)


def _drawing() -> bytes:
    """A PDF with what no E.T.I. card has: an RGB image, a grey, a gradient, a pattern-free
    rich black rectangle and small black text."""
    from reportlab.lib.colors import Color
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen.canvas import Canvas
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(200, 200), invariant=1)
    canvas.setTrimBox((9, 9, 191, 191))
    canvas.setBleedBox((0, 0, 200, 200))
    canvas.setFillColorRGB(0, 0, 0)
    canvas.rect(0, 0, 200, 100, fill=1, stroke=0)
    canvas.setFillGray(0.5)
    canvas.rect(0, 100, 50, 50, fill=1, stroke=0)
    canvas.linearGradient(50, 100, 200, 150, (Color(1, 0, 0), Color(0, 0, 1)), extend=False)
    image = Image.new("RGB", (8, 8), (10, 10, 10))
    image.paste((200, 30, 30), (0, 0, 4, 8))
    canvas.drawImage(ImageReader(image), 10, 160, 30, 30)
    canvas.setFillColorRGB(0.05, 0.05, 0.05)
    canvas.setFont("Helvetica", 7)
    canvas.drawString(60, 170, "small text")
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def test_images_greys_and_gradients_are_converted_too():
    converted = to_cmyk(_drawing())
    assert converted == to_cmyk(_drawing())      # deterministic
    with pikepdf.open(io.BytesIO(converted)) as pdf:
        report = colour_report(pdf)
        assert not {"rg", "RG", "g", "G"} & set(report["ops"])
        assert report["images"] == {"/DeviceCMYK"}
        assert report["spaces"] <= {"/DeviceCMYK"}
        assert report["max_ink"] <= MAX_INK + EPS
        assert report["small_rich_text"] == 0 and report["small_text"] == 1
        assert report["small_neutral_cmy"] == 0
        assert report["shading_ink"] <= MAX_INK + EPS
        assert 0 < report["image_ink"] <= MAX_INK + 1 / 255 + EPS
        image = next(x for x in pdf.pages[0].Resources.XObject.values()
                     if x.Subtype == "/Image")
        pixels = pikepdf.PdfImage(image).as_pil_image()
        assert pixels.mode == "CMYK"
        data = pixels.tobytes()
        assert max(sum(data[i:i + 4]) for i in range(0, len(data), 4)) <= MAX_INK * 255


def test_a_colour_space_it_cannot_convert_is_an_error():
    from reportlab.lib.colors import CMYKColorSep
    from reportlab.pdfgen.canvas import Canvas
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(100, 100), invariant=1)
    canvas.setTrimBox((9, 9, 91, 91))
    canvas.setBleedBox((0, 0, 100, 100))
    canvas.setFillColor(CMYKColorSep(0, 0.5, 1, 0, spotName="PMS123"))
    canvas.rect(0, 0, 100, 100, fill=1)
    canvas.showPage()
    canvas.save()
    with pytest.raises(CMYKError):
        to_cmyk(buffer.getvalue())


def test_the_report_sees_four_ink_grey_text_and_an_rgb_inline_image():
    """What the checks above must catch, drawn on purpose: small dark grey text in four
    inks (not K alone), an RGB inline image, a shading past the ink limit."""
    from reportlab.lib.colors import CMYKColor
    from reportlab.pdfgen.canvas import Canvas
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(200, 200), invariant=1)
    canvas.setFillColorCMYK(0.5, 0.5, 0.5, 0.8)
    canvas.setFont("Helvetica", 7)
    canvas.drawString(20, 20, "grey in four inks")
    canvas.drawInlineImage(Image.new("RGB", (4, 4), (200, 30, 30)), 20, 60, 20, 20)
    canvas.linearGradient(50, 100, 200, 150, (CMYKColor(1, 1, 1, 1), CMYKColor(0, 0, 0, 0)),
                          extend=False)
    canvas.showPage()
    canvas.save()
    with pikepdf.open(io.BytesIO(buffer.getvalue())) as pdf:
        report = colour_report(pdf)
    assert report["small_neutral_cmy"] == 1
    assert report["inline_images"] - {"/DeviceCMYK", "/CMYK"}
    assert report["shading_ink"] > MAX_INK
