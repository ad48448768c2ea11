"""``export pdf --cmyk``: a print-service PDF in DeviceCMYK, total ink capped.

The card PDFs are drawn in RGB like every other output; this module rewrites one
afterwards (pikepdf), so that nothing in the drawing code needs to know:

- every colour operator of every content stream (pages and forms, nested) becomes
  DeviceCMYK: ``rg``/``RG``, ``g``/``G``, ``cs``/``CS`` with ``sc``/``scn``, and
  the colours of axial and radial shadings; RGB and grey images are converted
  pixel by pixel.  RGB goes through littleCMS (Pillow's ``ImageCms``) from sRGB
  to the bundled FOGRA39 profile (``eti_print/profiles``), relative colorimetric
  with black-point compensation;
- total ink is capped at ``MAX_INK`` (260 %): a colour over it keeps its black
  and has its cyan, magenta and yellow scaled down (rich black capped);
- dark neutral text smaller than ``SMALL_TEXT`` is printed in black ink alone
  (pure K, as dark as the colour was), so small text cannot blur when the plates
  are out of register;
- the document gets a PDF/X output intent with the profile embedded, the
  ``GTS_PDFXVersion`` and ``Trapped`` keys, PDF 1.4, and keeps its TrimBox and
  BleedBox.  What separates it from strict PDF/X-1a is in the README.

A colour space the rewrite does not know (Separation, Lab, a pattern) is an
error, never silently passed through.
"""

from __future__ import annotations

import io
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

#: The CMYK output profile (FOGRA39, built with a 260 % ink limit) and its name.
PROFILE = Path(__file__).resolve().parent.parent / "profiles" / "eti-FOGRA39L-TAC260.icc"
OUTPUT_CONDITION = "FOGRA39"
OUTPUT_CONDITION_TEXT = "Offset printing on coated paper (ISO 12647-2:2004/Amd 1, FOGRA39)"

#: Total ink limit, as a sum of the four inks (1.0 = 100 %).
MAX_INK = 2.6

#: Text below this size (points, as printed) in a dark neutral colour is pure K.
SMALL_TEXT = 12.0

_TEXT_SHOW = {"Tj", "TJ", "'", '"'}


class CMYKError(RuntimeError):
    """Something in the PDF that the conversion cannot express in DeviceCMYK."""


def cap(cmyk: tuple[float, ...]) -> tuple[float, float, float, float]:
    """``cmyk`` with total ink at most ``MAX_INK``: black kept, C, M, Y scaled down;
    values floored to 4 decimals, so the written numbers stay under the cap."""
    c, m, y, k = (min(1.0, max(0.0, v)) for v in cmyk)
    colour = c + m + y
    if colour + k > MAX_INK and colour > 0:
        factor = max(0.0, MAX_INK - k) / colour
        c, m, y = c * factor, m * factor, y * factor
    return tuple(math.floor(v * 10000) / 10000 for v in (c, m, y, k))  # type: ignore[return-value]


@lru_cache(maxsize=1)
def _transform() -> Any:
    from PIL import ImageCms
    target = ImageCms.ImageCmsProfile(io.BytesIO(PROFILE.read_bytes()))
    return ImageCms.buildTransform(ImageCms.createProfile("sRGB"), target, "RGB", "CMYK",
                                   renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC,
                                   flags=ImageCms.Flags.BLACKPOINTCOMPENSATION)


@lru_cache(maxsize=4096)
def _rgb8(rgb: tuple[int, int, int]) -> tuple[float, float, float, float]:
    from PIL import Image, ImageCms
    pixel = ImageCms.applyTransform(Image.new("RGB", (1, 1), rgb), _transform())
    return cap(tuple(v / 255 for v in pixel.getpixel((0, 0))))


def rgb_to_cmyk(r: float, g: float, b: float) -> tuple[float, float, float, float]:
    """An sRGB colour (0..1) through the profile, ink capped."""
    return _rgb8(tuple(min(255, max(0, round(v * 255))) for v in (r, g, b)))  # type: ignore[arg-type]


def gray_to_cmyk(v: float) -> tuple[float, float, float, float]:
    """A grey (0 black .. 1 white) as black ink alone."""
    return (0.0, 0.0, 0.0, round(1.0 - min(1.0, max(0.0, v)), 4))


def dark_neutral(rgb: tuple[float, float, float]) -> bool:
    """Near-black, near-grey: what small text must not print in four inks."""
    return max(rgb) <= 0.4 and max(rgb) - min(rgb) <= 0.2


def pure_k(rgb: tuple[float, float, float]) -> tuple[float, float, float, float]:
    """Black ink as dark as ``rgb`` (its luminance)."""
    r, g, b = rgb
    return gray_to_cmyk(0.2126 * r + 0.7152 * g + 0.0722 * b)


class _Space:
    """A colour space of the input, as far as the conversion cares: 1, 3 or 4 inputs."""

    def __init__(self, kind: str):
        self.kind = kind     # "gray", "rgb" or "cmyk"

    def convert(self, values: list[float]) -> tuple[tuple[float, ...], tuple[float, ...] | None]:
        """(CMYK, the RGB it came from or None)."""
        if self.kind == "gray" and len(values) == 1:
            return gray_to_cmyk(values[0]), (values[0],) * 3
        if self.kind == "rgb" and len(values) == 3:
            rgb = tuple(values)
            return rgb_to_cmyk(*rgb), rgb
        if self.kind == "cmyk" and len(values) == 4:
            return cap(tuple(values)), None
        raise CMYKError(f"{len(values)} colour values for a {self.kind} colour space")


def _space(value: Any, resources: Any) -> _Space:
    """The ``_Space`` of a colour space operand or object."""
    import pikepdf
    if isinstance(value, pikepdf.Name):
        name = str(value)
        simple = {"/DeviceGray": "gray", "/G": "gray", "/DeviceRGB": "rgb", "/RGB": "rgb",
                  "/DeviceCMYK": "cmyk", "/CMYK": "cmyk"}
        if name in simple:
            return _Space(simple[name])
        spaces = resources.get("/ColorSpace") if resources is not None else None
        if spaces is not None and name in spaces:
            return _space(spaces[name], resources)
        raise CMYKError(f"colour space {name} is not supported by --cmyk")
    if isinstance(value, pikepdf.Array) and len(value) == 2 and str(value[0]) == "/ICCBased":
        n = int(value[1].get("/N"))
        return _Space({1: "gray", 3: "rgb", 4: "cmyk"}[n])
    raise CMYKError(f"colour space {value!r} is not supported by --cmyk")


def _numbers(operands: Any) -> list[float]:
    return [float(v) for v in operands]


class _Converter:
    def __init__(self, pdf: Any):
        self.pdf = pdf
        self.done: set[tuple[int, int]] = set()

    def stream(self, obj: Any, resources: Any, scale: float) -> None:
        """Rewrite ``obj``'s content stream (a page or a form) and what it draws."""
        import pikepdf
        out: list[Any] = []
        state = {"fill": gray_to_cmyk(0.0), "fill_rgb": (0.0, 0.0, 0.0),
                 "fill_space": _Space("gray"), "stroke_space": _Space("gray"),
                 "scale": scale, "font": 0.0}
        stack: list[dict[str, Any]] = []
        tm = 1.0
        for operands, op in pikepdf.parse_content_stream(obj):
            name = str(op)
            if name in ("rg", "RG", "g", "G", "k", "K"):
                space = _Space({"r": "rgb", "g": "gray", "k": "cmyk"}[name.lower()[0]])
                cmyk, rgb = space.convert(_numbers(operands))
                fill = name.islower()
                if fill:
                    state["fill"], state["fill_rgb"] = cmyk, rgb
                    state["fill_space"] = _Space("cmyk")
                else:
                    state["stroke_space"] = _Space("cmyk")
                out.append((list(cmyk), pikepdf.Operator("k" if fill else "K")))
            elif name in ("cs", "CS"):
                space = _space(operands[0], resources)
                state["fill_space" if name == "cs" else "stroke_space"] = space
                out.append(([pikepdf.Name("/DeviceCMYK")], op))
                if name == "cs":     # the initial colour of a new space: black
                    state["fill"], state["fill_rgb"] = (0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0)
            elif name in ("sc", "scn", "SC", "SCN"):
                if operands and isinstance(operands[-1], pikepdf.Name):
                    raise CMYKError("pattern colours are not supported by --cmyk")
                fill = name.islower()
                space = state["fill_space" if fill else "stroke_space"]
                cmyk, rgb = space.convert(_numbers(operands))
                if fill:
                    state["fill"], state["fill_rgb"] = cmyk, rgb
                out.append((list(cmyk), op))
            elif name == "q":
                stack.append(dict(state))
                out.append((operands, op))
            elif name == "Q":
                if stack:
                    state = stack.pop()
                out.append((operands, op))
            elif name == "cm":
                a, b, c, d = _numbers(operands[:4])
                state["scale"] *= math.sqrt(abs(a * d - b * c))
                out.append((operands, op))
            elif name == "BT":
                tm = 1.0
                out.append((operands, op))
            elif name == "Tf":
                state["font"] = float(operands[1])
                out.append((operands, op))
            elif name == "Tm":
                a, b, c, d = _numbers(operands[:4])
                tm = math.sqrt(abs(a * d - b * c))
                out.append((operands, op))
            elif name in _TEXT_SHOW:
                size = state["font"] * tm * state["scale"]
                rgb = state["fill_rgb"]
                if size < SMALL_TEXT and rgb is not None and dark_neutral(rgb):
                    out.append((list(pure_k(rgb)), pikepdf.Operator("k")))
                    out.append((operands, op))
                    out.append((list(state["fill"]), pikepdf.Operator("k")))
                else:
                    out.append((operands, op))
            elif name == "Do":
                self.xobject(resources, operands[0], state["scale"])
                out.append((operands, op))
            elif name == "sh":
                self.shading(resources["/Shading"][str(operands[0])])
                out.append((operands, op))
            elif name == "INLINE IMAGE":
                raise CMYKError("inline images are not supported by --cmyk")
            else:
                out.append((operands, op))
        obj.write(pikepdf.unparse_content_stream(out))
        self.resources(resources)

    def resources(self, resources: Any) -> None:
        """Shadings and patterns named in ``resources`` (whether drawn or not)."""
        if resources is None:
            return
        for shading in (resources.get("/Shading") or {}).values():
            self.shading(shading)
        if resources.get("/Pattern"):
            raise CMYKError("patterns are not supported by --cmyk")

    def xobject(self, resources: Any, name: Any, scale: float) -> None:
        xobject = resources["/XObject"][str(name)]
        key = xobject.objgen
        if key in self.done:
            return
        self.done.add(key)
        if xobject.get("/Subtype") == "/Image":
            self.image(xobject)
            return
        matrix = xobject.get("/Matrix")
        if matrix is not None:
            a, b, c, d = (float(v) for v in list(matrix)[:4])
            scale *= math.sqrt(abs(a * d - b * c))
        self.stream(xobject, xobject.get("/Resources") or resources, scale)

    def shading(self, shading: Any) -> None:
        import pikepdf
        if shading.objgen != (0, 0) and shading.objgen in self.done:
            return
        self.done.add(shading.objgen)
        space = _space(shading["/ColorSpace"], None)
        function = shading.get("/Function")
        if function is None or int(function.get("/FunctionType", 0)) != 2:
            raise CMYKError("only exponential (type 2) shading functions are supported")
        n = {"gray": 1, "rgb": 3, "cmyk": 4}[space.kind]
        for key, default in (("/C0", 0.0), ("/C1", 1.0)):
            values = _numbers(function[key]) if key in function else [default] * n
            function[key] = pikepdf.Array(list(space.convert(values)[0]))
        shading["/ColorSpace"] = pikepdf.Name("/DeviceCMYK")

    def image(self, image: Any) -> None:
        import zlib

        import pikepdf
        from PIL import ImageCms
        if image.get("/ImageMask"):
            return                      # a stencil: painted in the fill colour
        space = image.get("/ColorSpace")
        if space == pikepdf.Name("/DeviceCMYK"):
            return
        pil = pikepdf.PdfImage(image).as_pil_image()
        if pil.mode in ("L", "1", "LA"):
            gray = pil.convert("L")
            data = bytearray(len(gray.tobytes()) * 4)
            data[3::4] = bytes(255 - v for v in gray.tobytes())
        else:
            cmyk = ImageCms.applyTransform(pil.convert("RGB"), _transform())
            data = bytearray(cmyk.tobytes())
            limit = int(MAX_INK * 255)
            for i in range(0, len(data), 4):
                c, m, y, k = data[i:i + 4]
                if c + m + y + k > limit and c + m + y:
                    f = max(0, limit - k) / (c + m + y)
                    data[i:i + 3] = bytes(int(v * f) for v in (c, m, y))
        image.write(zlib.compress(bytes(data), 6), filter=pikepdf.Name("/FlateDecode"))
        image["/ColorSpace"] = pikepdf.Name("/DeviceCMYK")
        image["/BitsPerComponent"] = 8
        for key in ("/Decode", "/DecodeParms", "/Intent"):
            if key in image:
                del image[key]


def to_cmyk(pdf_bytes: bytes) -> bytes:
    """``pdf_bytes`` converted as this module describes; deterministic."""
    import pikepdf
    pdf = pikepdf.open(io.BytesIO(pdf_bytes))
    converter = _Converter(pdf)
    for page in pdf.pages:
        for box in ("/TrimBox", "/BleedBox"):
            if box not in page.obj:
                raise CMYKError(f"page {page.index + 1} has no {box[1:]}")
        resources = page.obj.get("/Resources")
        page.contents_coalesce()
        converter.stream(page.obj["/Contents"], resources, 1.0)
    profile = pikepdf.Stream(pdf, PROFILE.read_bytes())
    profile["/N"] = 4
    intent = pikepdf.Dictionary(
        Type=pikepdf.Name("/OutputIntent"), S=pikepdf.Name("/GTS_PDFX"),
        OutputConditionIdentifier=OUTPUT_CONDITION, OutputCondition=OUTPUT_CONDITION_TEXT,
        RegistryName="http://www.color.org", Info="eti-print FOGRA39L, total ink 260 %",
        DestOutputProfile=pdf.make_indirect(profile))
    pdf.Root["/OutputIntents"] = pikepdf.Array([pdf.make_indirect(intent)])
    info = pdf.docinfo
    info["/GTS_PDFXVersion"] = "PDF/X-1a:2003"
    info["/Trapped"] = pikepdf.Name("/False")
    buffer = io.BytesIO()
    pdf.save(buffer, deterministic_id=True, force_version="1.4", compress_streams=True,
             object_stream_mode=pikepdf.ObjectStreamMode.disable)
    return buffer.getvalue()
