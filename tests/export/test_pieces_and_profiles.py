"""Exports cover every printed piece (tokens, standees, badge, boards), tag their PNGs
sRGB, and size them for each print service."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from PIL import Image, ImageCms

from eti_print.cli import main
from eti_print.export import export
from eti_print.export.targets import TARGETS

#: Every piece kind and board of E.T.I., after its six decks: (files, px at 300 dpi).
PIECES = {"green-tokens": (180, (253, 253)), "red-tokens": (30, (253, 253)),
          "company-logos": (12, (430, 1162)), "issa-badge": (1, (855, 855)),
          "company": (6, (6095, 5008)), "alien": (1, (4323, 3083)),
          "project-tracker": (1, (3083, 2138)), "score-pad": (1, (3083, 2138))}


@pytest.fixture(scope="module")
def png_dir(shared_folder) -> Path:
    return shared_folder("png-export", lambda out: export("png", None, out)) / "png"


@pytest.fixture(scope="module")
def tts_save(shared_folder) -> tuple[Path, dict]:
    out = shared_folder("tts-export", lambda out: export("tts", None, out))
    return out / "tts", json.loads((out / "tts" / "eti-tts.json").read_text(encoding="utf-8"))


def test_png_export_has_every_token_standee_badge_and_board(png_dir):
    rows = list(csv.DictReader((png_dir / "index.csv").open(encoding="utf-8")))
    for number, (piece, (count, size)) in enumerate(PIECES.items(), start=7):
        mine = [r for r in rows if r["deck"] == piece]
        assert len(mine) == count, piece
        assert {(int(r["width_px"]), int(r["height_px"])) for r in mine} == {size}
        first = png_dir / f"eti-{number:02d}-{piece}-001-front.png"
        with Image.open(first) as image:
            assert image.size == size and image.mode == "RGB"
    assert {r["side"] for r in rows if r["deck"] in PIECES} == {"front"}
    labels = [r["label"] for r in rows if r["deck"] == "company"]
    assert labels == [f"{name} - company gameboard" for name in (
        "Atlas Dynamics", "Borealis Chemical", "Cobalt Instruments", "Delta Electronics",
        "Eagle Aerospace", "Fulcrum Laboratories")]


def test_every_png_carries_an_srgb_profile(png_dir):
    srgb = ImageCms.createProfile("sRGB")
    for path in sorted(png_dir.glob("*.png"))[::37]:
        with Image.open(path) as image:
            data = image.info.get("icc_profile")
            assert data, path.name
            profile = ImageCms.ImageCmsProfile(io.BytesIO(data))
            assert profile.profile.xcolor_space.strip() == "RGB"
            assert "sRGB" in ImageCms.getProfileDescription(profile)
            # the profile is littleCMS's sRGB: converting through it changes nothing
            transform = ImageCms.buildTransform(profile, srgb, "RGB", "RGB")
            sample = image.crop((0, 0, 16, 16))
            assert ImageCms.applyTransform(sample, transform).tobytes() == sample.tobytes()


@pytest.mark.parametrize(("key", "poker"), [("tgc", (825, 1125)), ("mpc", (822, 1122)),
                                            ("dtc", (825, 1125))])
def test_target_sizes_match_the_services_templates(key, poker):
    assert TARGETS[key].size((180.0, 252.0)) == poker
    assert TARGETS[key].dpi == 300


def test_export_png_target_mpc_writes_822_by_1122(tmp_path, capsys):
    """--target from the command line to the files, on ``eti-print new``'s one deck of
    poker cards (the sizes of every E.T.I. piece are checked above, through the same
    per-deck bleed)."""
    from eti_print.newpack import new_pack
    new_pack(tmp_path / "mine", "poker")
    assert main(["export", "png", str(tmp_path / "mine"), "--target", "mpc",
                 "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    png = tmp_path / "out" / "png"
    for side in ("front", "back"):
        with Image.open(png / f"mine-01-cards-001-{side}.png") as image:
            assert image.size == (822, 1122)
            assert round(image.info["dpi"][0]) == 300
    rows = list(csv.DictReader((png / "index.csv").open(encoding="utf-8")))
    assert rows and {(r["width_px"], r["height_px"]) for r in rows} == {("822", "1122")}
    assert "MakePlayingCards" in (png / "README.txt").read_text()


def test_target_and_cmyk_only_where_they_apply(capsys):
    assert main(["export", "png", "--target", "xyz"]) == 2
    assert main(["export", "tts", "--target", "tgc"]) == 2
    assert main(["export", "png", "--cmyk"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def _path(url: str) -> Path:
    return Path(unquote(urlparse(url).path))


def test_tts_save_is_one_table_with_tiles_tokens_and_boards(tts_save):
    folder, save = tts_save
    objects = save["ObjectStates"]
    names = [o["Nickname"] for o in objects]
    assert names[:6] == ["Research cards", "Project cards", "Event cards", "Agenda cards",
                         "Endgame cards", "Player aids"]
    by_name = {o["Nickname"]: o for o in objects}
    green = by_name["Green tokens"]
    assert green["Name"] == "Bag" and len(green["ContainedObjects"]) == 180
    badge = by_name["ISSA badge"]
    assert badge["Name"] == "Custom_Tile"
    assert badge["CustomImage"]["CustomTile"]["Type"] == 0
    boards = [o for o in objects if o["Name"] == "Custom_Board"]
    assert [o["Nickname"] for o in boards][-3:] == ["Alien gameboard", "I.S.S.A. project tracker",
                                                    "E.T.I. score pad"]
    assert len(boards) == 9 and all(b["Nickname"].endswith("gameboard") for b in boards[:7])
    spans = [(b["Transform"]["posX"], b["Transform"]["scaleX"] * 2.2) for b in boards]
    assert all(xb - xa > (wa + wb) / 2 for (xa, wa), (xb, wb) in zip(spans, spans[1:]))
    # side by side, apart: no two boards overlap on the table
    guids = []
    for obj in objects:
        for inner in [obj, *obj.get("ContainedObjects", [])]:
            guids.append(inner["GUID"])
            image = inner.get("CustomImage")
            if image:
                path = _path(image["ImageURL"])
                with Image.open(path) as im:
                    assert im.mode == "RGB" and max(im.size) <= 4096
                assert inner["Transform"]["scaleX"] > 0
    assert len(guids) == len(set(guids))          # TTS needs every GUID unique
    # tiles keep their printed proportions relative to the 2.5 in cards
    assert by_name["ISSA badge"]["Transform"]["scaleX"] == pytest.approx(
        (780 / 300) / 2.5, abs=0.01)
