"""The Conquer Club importer's flood (a run of a row at a time) takes exactly the pixels a flood one pixel at a
time takes, on drawn pictures (tests/mapdraw.py) and where regions meet without a line between them."""

from __future__ import annotations

from collections import deque

import mapdraw
import pytest
from PIL import Image, ImageDraw

from mapfiles import MapFileError
from mapfiles.conquerclub import MAX_SHARE, TOLERANCE, flood_regions


def flood_pixel_by_pixel(picture: Image.Image, seeds: list[tuple[int, int]]) -> bytes:
    """The plain flood, one pixel at a time, four ways, within TOLERANCE of each seed's grey; before the
    lines between regions are shared out (which both do alike)."""
    grey = picture.convert("L")
    w, h = grey.size
    pixels = grey.tobytes()
    labels = bytearray(w * h)
    for value, (x, y) in enumerate(seeds, start=1):
        seed = pixels[y * w + x]
        labels[y * w + x] = value
        queue = deque([y * w + x])
        while queue:
            p = queue.popleft()
            px = p % w
            for q in (p - 1 if px else -1, p + 1 if px < w - 1 else -1, p - w, p + w):
                if 0 <= q < w * h and not labels[q] and abs(pixels[q] - seed) <= TOLERANCE:
                    labels[q] = value
                    queue.append(q)
    return bytes(labels)


BACKGROUND = (90, 90, 90)     # not dark enough to be a line, and further than TOLERANCE from every region


def floods_alike(picture: Image.Image, seeds: list[tuple[int, int]]) -> None:
    # No dark lines in these pictures, so the sharing out of lines leaves the floods as they are.
    ours = flood_regions(picture, seeds, [f"t{i}" for i in range(len(seeds))])
    assert ours.tobytes() == flood_pixel_by_pixel(picture, seeds)


def test_a_flood_stops_at_pixels_an_earlier_flood_took():
    # A (grey 150) floods the strip (180) between it and B (215); B's flood would take the strip too, but
    # stops where A's flood already is, row by row, around a notch.
    img = Image.new("RGB", (600, 300), BACKGROUND)
    draw = ImageDraw.Draw(img)
    draw.rectangle((10, 10, 110, 110), fill=(150, 150, 150))
    draw.rectangle((111, 10, 150, 110), fill=(180, 180, 180))
    draw.rectangle((151, 10, 290, 110), fill=(215, 215, 215))
    draw.rectangle((130, 40, 170, 60), fill=(215, 215, 215))      # B reaches into the strip here
    floods_alike(img, [(50, 50), (250, 50)])


def test_a_flood_over_a_drawn_map_takes_the_pixels_a_pixel_by_pixel_flood_takes():
    world = mapdraw.draw_world(blocks=(2, 1), cells=(3, 2), size=(900, 500), seed=4)
    picture = Image.new("RGB", world.size, BACKGROUND)
    draw = ImageDraw.Draw(picture)
    for i, poly in enumerate(world.polygons):   # flat greys 45 apart, no lines: each flood stops at the next
        draw.polygon(poly, fill=(150 + 45 * ((i + i // 3) % 3),) * 3)
    floods_alike(picture, list(world.anchors))


def test_a_flood_into_the_sea_is_refused():
    sea = Image.new("RGB", (400, 300), (30, 60, 100))
    with pytest.raises(MapFileError, match="runs into the sea"):
        flood_regions(sea, [(10, 10)], ["Atlantis"])
    assert MAX_SHARE < 1
