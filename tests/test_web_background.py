"""The map's background the board's page lays over its own colours (web/background.py): no legend of the
renderer's marks, which the page does not draw, and an address named by the picture's digest."""

from __future__ import annotations

import io
import re

import aiohttp
import pytest
from PIL import Image
from web_helpers import boarded, jar, link_for, record_of

from engine import load_map
from present.i18n import map_labels
from render import style
from render.base import static_layers
from web.background import background_png, digest

__all__ = ["boarded"]  # the fixture, used by name


@pytest.mark.parametrize("language", ["en", "nb", "es"])
def test_the_background_has_no_legend_of_the_renderers_marks(language: str):
    board, labels = load_map("classic"), map_labels(language, "classic")
    legend = static_layers(board, labels).layout.legend   # where the renderer's picture has its legend
    assert legend[2] - legend[0] > 100
    picture = Image.open(io.BytesIO(background_png("classic", labels))).convert("RGBA")
    colours = {c[:3] for _n, c in picture.crop(legend).getcolors(1 << 16) or [] if c[3]}
    # Open sea there: no words ("armies just added"), no dark box.
    assert colours and style.TEXT not in colours and style.PANEL_BG not in colours
    assert static_layers(board, labels, symbols=False).layout.legend[0] == \
        static_layers(board, labels, symbols=False).layout.legend[2]   # no legend box left to keep clear


async def test_the_backgrounds_address_is_its_digest_and_no_other_address_serves_it(boarded):
    d, _server, base = boarded
    record = await record_of(d)
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        async with http.get(await link_for(d, "alice")) as r:
            page = await r.text()
        [address] = re.findall(r'"background":"(/g/\d+/bg/[0-9a-f]{16}\.png)"', page)
        async with http.get(base + address) as r:
            png = await r.read()
            assert r.status == 200 and "immutable" in r.headers["Cache-Control"]
        assert png == background_png("classic", map_labels("en", "classic"))
        assert address == f"/g/{record.id}/bg/{digest(png)}.png"
        async with http.get(f"{base}/g/{record.id}/bg/{'0' * 16}.png") as r:
            assert r.status == 404
