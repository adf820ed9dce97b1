"""Crowded maps drawn here, for the layout's tests and benchmarks: the shapes real community maps have that the
islands of ``mapdraw`` lack. Land to every edge (no open sea), rectangles without anchors, gaps of a few pixels
between regions, regions that meet only at a corner, slivers, many small territories, long names, and a picture
with a title box printed in one corner. Each map is written in our format and read by the loader
(``mapfiles.load_package``), so it is a map the bot accepts."""

from __future__ import annotations

import io
import json
import random
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

SYLLABLES = ("ka", "lo", "mer", "vin", "ta", "dor", "sel", "ru", "bel", "an", "tor", "mi", "nes", "qu", "ost",
             "ven", "lar", "is", "gar", "em", "schles", "wig", "hol", "stein")
Rect = tuple[int, int, int, int]


@dataclass(frozen=True)
class Crowded:
    """A drawn crowded map: its rectangles (x0, y0, x1, y1, exclusive ends), names and continents."""

    size: tuple[int, int]
    rects: list[Rect]
    names: list[str]
    continent_of: list[int]
    continents: int
    gap: int
    title_corner: str


def _name(rng: random.Random, used: set[str], long: bool) -> str:
    for _ in range(1000):   # names are drawn until one is new; a thousand tries always find one
        parts = rng.randint(2, 5 if long else 3)
        word = "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()
        if long and rng.random() < 0.5:
            word += rng.choice((" ", "-")) + "".join(rng.choice(SYLLABLES) for _ in range(2)).capitalize()
        if word not in used:
            used.add(word)
            return word
    raise AssertionError("no new name")


def _split(rng: random.Random, rects: list[tuple[Rect, int]], count: int, slivers: bool) -> list[tuple[Rect, int]]:
    """Cut the largest rectangle in two along its longer side until there are ``count`` (each keeps the
    group it came from); a sliver now and then, a cut at the same place as the last one so that corners meet."""
    last_cut: int | None = None
    for _ in range(count - len(rects)):
        rects.sort(key=lambda r: (r[0][2] - r[0][0]) * (r[0][3] - r[0][1]))
        (x0, y0, x1, y1), group = rects.pop()
        vertical = (x1 - x0) >= (y1 - y0)
        lo, hi = (x0, x1) if vertical else (y0, y1)
        ratio = rng.uniform(0.06, 0.14) if slivers and rng.random() < 0.15 else rng.uniform(0.25, 0.75)
        cut = lo + max(4, round((hi - lo) * ratio))
        if last_cut is not None and lo + 4 < last_cut < hi - 4 and rng.random() < 0.3:
            cut = last_cut
        cut = min(cut, hi - 4)
        last_cut = cut
        if vertical:
            rects += [((x0, y0, cut, y1), group), ((cut, y0, x1, y1), group)]
        else:
            rects += [((x0, y0, x1, cut), group), ((x0, cut, x1, y1), group)]
    return rects


def crowded(count: int, *, size: tuple[int, int] = (1600, 1000), seed: int = 1, gap: int = 1, sea: int = 0,
            continents: int = 0, slivers: bool = True, long_names: bool = True) -> Crowded:
    """``count`` rectangular territories filling the picture (within ``sea`` pixels of its edges), ``gap``
    pixels apart, in ``continents`` groups (about one for eight territories when 0)."""
    rng = random.Random(seed)
    w, h = size
    groups = continents or max(1, count // 8)
    rects = _split(rng, [((sea, sea, w - sea, h - sea), 0)], groups, slivers=False)
    rects = [(r, g) for g, (r, _) in enumerate(rects)]
    rects = _split(rng, rects, count, slivers)
    rects.sort(key=lambda r: (r[0][1], r[0][0]))
    used: set[str] = set()
    names = [_name(rng, used, long_names) for _ in rects]
    shrunk = [(x0, y0, max(x0 + 1, x1 - gap), max(y0 + 1, y1 - gap)) for (x0, y0, x1, y1), _ in rects]
    corner = rng.choice(("upper left", "upper right", "lower left", "lower right"))
    return Crowded(size, shrunk, names, [g for _, g in rects], groups, gap, corner)


def _touch(a: Rect, b: Rect, reach: int) -> bool:
    return a[0] <= b[2] + reach and b[0] <= a[2] + reach and a[1] <= b[3] + reach and b[1] <= a[3] + reach


def regions(world: Crowded) -> Image.Image:
    img = Image.new("L", world.size, 0)
    draw = ImageDraw.Draw(img)
    for i, (x0, y0, x1, y1) in enumerate(world.rects):
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=i + 1)
    return img


def picture(world: Crowded) -> Image.Image:
    """The map's picture: flat land with a little texture and, in one corner, a printed title box full of
    lines (what many community maps carry)."""
    w, h = world.size
    img = Image.new("RGB", world.size, (40, 80, 120))
    draw = ImageDraw.Draw(img)
    rng = random.Random(len(world.rects))
    for x0, y0, x1, y1 in world.rects:
        draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=(190 + rng.randint(-20, 20), 180, 140))
    bw, bh = 360, 150
    x = 10 if world.title_corner.endswith("left") else w - bw - 10
    y = 10 if world.title_corner.startswith("upper") else h - bh - 10
    draw.rectangle((x, y, x + bw, y + bh), fill=(250, 245, 230), outline=(0, 0, 0), width=3)
    for k in range(12):
        draw.line((x + 12, y + 14 + k * 11, x + bw - 12 - (k * 37) % 120, y + 14 + k * 11), fill=(0, 0, 0), width=2)
    return img


def _png(img: Image.Image) -> bytes:
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def our_files(world: Crowded, *, anchors: bool = False) -> tuple[bytes, dict[str, bytes]]:
    """The map in our format, with its pictures. Without ``anchors`` the renderer finds every badge's place;
    with them each badge is given, near its rectangle's middle but off it by up to a third of its size (as a
    Domination map's author clicks them), so that in small regions badges crowd each other."""
    ids = [f"t{i + 1}" for i in range(len(world.rects))]
    reach = world.gap + 1
    neighbours: list[list[str]] = [[] for _ in world.rects]
    for i, a in enumerate(world.rects):
        for j in range(i + 1, len(world.rects)):
            if _touch(a, world.rects[j], reach):
                neighbours[i].append(ids[j])
                neighbours[j].append(ids[i])
    data: dict[str, Any] = {
        "id": "crowded", "name": f"Crowded {len(ids)}", "players": {"min": 2, "max": 2 if len(ids) < 20 else 6},
        "continents": [{"id": f"c{k + 1}", "name": f"{world.names[k % len(world.names)]}land",
                        "bonus": 1 + k % 7,
                        "territories": [ids[i] for i in range(len(ids)) if world.continent_of[i] == k]}
                       for k in range(world.continents)],
        "territories": [{"id": ids[i], "name": world.names[i], "short": world.names[i],
                         "continent": f"c{world.continent_of[i] + 1}",
                         "card": ("infantry", "cavalry", "artillery")[i % 3],
                         "neighbours": neighbours[i]} for i in range(len(ids))],
        "images": {"regions": "regions.png", "background": "picture.png"},
    }
    data["continents"] = [c for c in data["continents"] if c["territories"]]
    if anchors:
        rng = random.Random(len(ids) * 7 + world.gap)
        for t, (x0, y0, x1, y1) in zip(data["territories"], world.rects, strict=True):
            dx, dy = (x1 - x0) / 3, (y1 - y0) / 3
            t["anchor"] = [min(x1 - 1, max(x0, round((x0 + x1) / 2 + rng.uniform(-dx, dx)))),
                           min(y1 - 1, max(y0, round((y0 + y1) / 2 + rng.uniform(-dy, dy))))]
    return json.dumps(data).encode(), {"regions.png": _png(regions(world)), "picture.png": _png(picture(world))}
