"""Maps drawn here, for tests and benchmarks: islands of jittered four-sided territories, written in each
format the bot reads (ours, Domination ``.map``, Conquer Club XML). No third-party map is used anywhere."""

from __future__ import annotations

import io
import json
import random
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, ImageDraw

SYLLABLES = ("ka", "lo", "mer", "vin", "ta", "dor", "sel", "ru", "bel", "an", "tor", "mi", "nes", "qu", "ost",
             "ven", "lar", "is", "gar", "em")
SEA = (34, 70, 110)
LAND = (196, 184, 150)


@dataclass
class World:
    """A drawn map: territories (cells) in continents (islands), their shapes and borders."""

    size: tuple[int, int]
    names: list[str]
    continent_names: list[str]
    continent_of: list[int]                   # cell -> continent index
    polygons: list[list[tuple[float, float]]]
    anchors: list[tuple[int, int]]
    borders: set[tuple[int, int]]             # cell pairs, smaller first, touching
    sea_routes: set[tuple[int, int]]          # cell pairs joined across the sea
    bonuses: list[int] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.names)

    def neighbours(self, i: int) -> list[int]:
        pairs = self.borders | self.sea_routes
        return sorted({b for a, b in pairs if a == i} | {a for a, b in pairs if b == i})

    def regions(self, sea_value: int = 0, scale: float = 1.0) -> Image.Image:
        """The region image: cell i has value i + 1."""
        img = Image.new("L", self.size, sea_value)
        draw = ImageDraw.Draw(img)
        for i, poly in enumerate(self.polygons):
            draw.polygon(poly, fill=i + 1)
        return img

    def picture(self) -> Image.Image:
        """The map's picture: a sea that darkens to the south, the islands in sand, a few hills."""
        w, h = self.size
        gradient = Image.linear_gradient("L").resize((w, h))
        sea = Image.merge("RGB", [gradient.point(lambda v, c=c: round(c * (1.1 - v / 600))) for c in SEA])
        draw = ImageDraw.Draw(sea)
        rng = random.Random(7)
        for poly in self.polygons:
            draw.polygon(poly, fill=LAND)
        for x, y in self.anchors:
            dx, dy = rng.randint(-20, 20), rng.randint(-20, 20)
            draw.ellipse((x + dx - 6, y + dy - 4, x + dx + 6, y + dy + 4), fill=(170, 158, 120))
        return sea


def _name(rng: random.Random, used: set[str]) -> str:
    while True:
        word = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize()
        if word not in used and len(word) <= 9:
            used.add(word)
            return word


# The drawn maps the benches measure, by their number of territories: islands × territories per island.
SIZED = {42: ((2, 1), (7, 3)), 110: ((2, 1), (11, 5)), 180: ((4, 3), (5, 3))}


def sized_world(count: int) -> World:
    """The drawn map of ``count`` territories (one of ``SIZED``), the same every time."""
    blocks, cells = SIZED[count]
    return draw_world(blocks=blocks, cells=cells, size=(1600, 1000), seed=count)


def draw_world(blocks: tuple[int, int] = (2, 1), cells: tuple[int, int] = (3, 2), size: tuple[int, int] = (1200, 700),
               seed: int = 1) -> World:
    """Islands in a ``blocks`` grid, each of ``cells`` territories, on a picture of ``size``."""
    rng = random.Random(seed)
    w, h = size
    bx, by = blocks
    cx, cy = cells
    margin, gap = 50, 70
    block_w = (w - 2 * margin - (bx - 1) * gap) / bx
    block_h = (h - 2 * margin - (by - 1) * gap) / by
    used: set[str] = set()
    names: list[str] = []
    continent_names: list[str] = []
    continent_of: list[int] = []
    polygons: list[list[tuple[float, float]]] = []
    anchors: list[tuple[int, int]] = []
    borders: set[tuple[int, int]] = set()
    first_cell: dict[tuple[int, int], int] = {}
    for q in range(by):
        for p in range(bx):
            continent = len(continent_names)
            continent_names.append(_name(rng, used) + "ia")
            x0, y0 = margin + p * (block_w + gap), margin + q * (block_h + gap)
            sx, sy = block_w / cx, block_h / cy
            corners = {(i, j): (x0 + i * sx + rng.uniform(-0.22, 0.22) * sx,
                                y0 + j * sy + rng.uniform(-0.22, 0.22) * sy)
                       for i in range(cx + 1) for j in range(cy + 1)}
            corners = {k: (min(max(v[0], 2), w - 3), min(max(v[1], 2), h - 3)) for k, v in corners.items()}
            first_cell[(p, q)] = len(names)
            for j in range(cy):
                for i in range(cx):
                    poly = [corners[(i, j)], corners[(i + 1, j)], corners[(i + 1, j + 1)], corners[(i, j + 1)]]
                    index = len(names)
                    names.append(_name(rng, used))
                    continent_of.append(continent)
                    polygons.append(poly)
                    anchors.append((round(sum(x for x, _ in poly) / 4), round(sum(y for _, y in poly) / 4)))
                    if i:
                        borders.add((index - 1, index))
                    if j:
                        borders.add((index - cx, index))
    sea_routes: set[tuple[int, int]] = set()
    for (p, q), start in first_cell.items():
        mid_row, mid_col = cy // 2, cx // 2
        if (p + 1, q) in first_cell:
            a = start + mid_row * cx + cx - 1
            b = first_cell[(p + 1, q)] + mid_row * cx
            sea_routes.add((a, b))
        if (p, q + 1) in first_cell:
            a = start + (cy - 1) * cx + mid_col
            b = first_cell[(p, q + 1)] + mid_col
            sea_routes.add((a, b))
    bonuses = [max(1, cx * cy // 2 - 1 + k % 2) for k in range(len(continent_names))]
    return World(size, names, continent_names, continent_of, polygons, anchors, borders, sea_routes, bonuses)


def png(img: Image.Image) -> bytes:
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


# -- our format ------------------------------------------------------------------------------------------
def our_map(world: World, *, with_missions: bool = True, players: int = 8) -> dict[str, Any]:
    """The map in our JSON format (docs/maps.md), with Norwegian and Spanish names for the first island."""
    ids = [f"t{i + 1}" for i in range(world.count)]
    data: dict[str, Any] = {
        "id": "drawn", "name": "Drawn Islands",
        "players": {"min": 2, "max": players},
        "continents": [{"id": f"c{k + 1}", "name": name, "bonus": world.bonuses[k],
                        "territories": [ids[i] for i in range(world.count) if world.continent_of[i] == k]}
                       for k, name in enumerate(world.continent_names)],
        "territories": [{"id": ids[i], "name": world.names[i], "short": world.names[i],
                         "continent": f"c{world.continent_of[i] + 1}",
                         "card": ("infantry", "cavalry", "artillery")[i % 3],
                         "neighbours": [ids[n] for n in world.neighbours(i)], "anchor": list(world.anchors[i])}
                        for i in range(world.count)],
        "sea_routes": [[ids[a], ids[b]] for a, b in sorted(world.sea_routes)],
        "images": {"regions": "regions.png", "background": "picture.png"},
        "translations": {
            "nb": {"name": "Tegnede øyer", "continents": {"c1": world.continent_names[0] + "øya"},
                   "territories": {"t1": {"name": "Nordnes", "short": "Nordnes"}}},
            "es": {"name": "Islas dibujadas", "continents": {"c1": "Isla " + world.continent_names[0]},
                   "territories": {"t1": {"name": "Cabo Norte", "short": "C. Norte"}}},
        },
    }
    if with_missions:
        data["missions"] = [{"kind": "continents", "continents": ["c1", "c2"]},
                            {"kind": "territories", "count": max(2, world.count * 3 // 5)}]
    return data


def our_files(world: World, **options: Any) -> tuple[bytes, dict[str, bytes]]:
    data = our_map(world, **options)
    return json.dumps(data).encode(), {"regions.png": png(world.regions()), "picture.png": png(world.picture())}


# -- Domination .map ---------------------------------------------------------------------------------------
def domination_files(world: World, name: str = "drawn") -> tuple[bytes, dict[str, bytes]]:
    """The map as a Domination ``.map`` with its picture, region image (255 = sea) and cards file."""
    lines = ["; drawn for tests", "[files]", f"pic {name}_pic.png", f"map {name}_map.gif", f"crd {name}.cards", "",
             "[continents]"]
    colours = ("yellow", "red", "blue", "green", "orange", "purple", "cyan", "pink")
    lines += [f"{c.replace(' ', '-')} {world.bonuses[k]} {colours[k % len(colours)]}"
              for k, c in enumerate(world.continent_names)]
    lines += ["", "[countries]"]
    lines += [f"{i + 1} {world.names[i]} {world.continent_of[i] + 1} {x} {y}"
              for i, (x, y) in enumerate(world.anchors)]
    lines += ["", "[borders]"]
    lines += [" ".join(str(v + 1) for v in (i, *world.neighbours(i))) for i in range(world.count)]
    cards = ["[cards]"] + [f"{('Infantry', 'Cavalry', 'Cannon')[i % 3]} {i + 1}" for i in range(world.count)]
    cards += ["Wildcard", "Wildcard", "", "[missions]",
              "; player countries armies continent continent continent description",
              "0 0 0 1 2 0 Conquer the first two islands",
              f"0 {max(2, world.count * 3 // 5)} 1 0 0 0 Conquer {max(2, world.count * 3 // 5)} territories",
              "1 0 0 0 0 0 Destroy the first player"]
    regions = world.regions(sea_value=255).convert("P")
    regions.putpalette([v for g in range(256) for v in (g, g, g)])
    gif = io.BytesIO()
    regions.save(gif, "GIF")
    files = {f"{name}_pic.png": png(world.picture()), f"{name}_map.gif": gif.getvalue(),
             f"{name}.cards": "\n".join(cards).encode()}
    return "\n".join(lines).encode(), files


def domination_real_files(world: World, name: str = "real", *, reach_edges: bool = True
                          ) -> tuple[bytes, dict[str, bytes], dict[str, Any]]:
    """The map as community Domination maps are drawn, with what an import should make of it.

    The header names the map; continent colours are written in each notation Domination reads (a word,
    ``0x``, ``#``, decimal); the first territory's name has a space (``_``), the second a hyphen; the region
    image is in colour, its blue channel the territory's index (255 no territory, red and green noise), with
    a line of no territory 1 to 3 px wide between neighbours; and a sea route joins the first island's
    westmost territory to the last island's eastmost, more than half the map apart: a route round the world,
    as a strip of each reaches the map's edge (``reach_edges``; without it, a long route across).
    The first territory borders the one diagonally below it, which it meets at a corner only. The third value:
    ``title``, ``names`` and ``words`` (ours and the file's, in order), ``values`` (the region image's blue),
    ``colours`` (by continent), ``sea`` (pairs of territory indexes, from 0, smaller first), ``wrap`` (the
    pair that goes round) and ``corner`` (the pair that meets at a corner).
    """
    names = list(world.names)
    words = list(names)
    words[0], names[0] = f"{world.names[0]}_Bay", f"{world.names[0]} Bay"
    words[1], names[1] = f"Nord-{world.names[1]}", f"Nord-{world.names[1]}"
    # The first island's first territory and the one diagonally below it meet at a corner only; the map
    # says they border (a land border, as the corner is all that joins them).
    corner = (0, next(i for i, poly in enumerate(world.polygons) if poly[0] == world.polygons[0][2]))
    west = min(range(world.count), key=lambda i: world.anchors[i][0])
    east = max(range(world.count), key=lambda i: world.anchors[i][0])
    wrap = (min(west, east), max(west, east))
    sea = {*world.sea_routes, wrap}

    def neighbours(i: int) -> list[int]:
        pairs = world.borders | sea | {corner}
        return sorted({b for a, b in pairs if a == i} | {a for a, b in pairs if b == i})

    notations = [("yellow", "#e0d060"), ("0xE0A050", "#e0a050"), ("#7090e0", "#7090e0"), ("12632256", "#c0c0c0")]
    title = "Drawn Islands of the North"
    lines = ["; drawn for tests, as community maps are", f"name {title}", "ver 1", "circle 24", "",
             "[files]", f"pic {name}_pic.png", f"map {name}_map.png", f"crd {name}.cards", f"prv {name}.jpg", "",
             "[continents]"]
    lines += [f"{c} {world.bonuses[k]} {notations[k % len(notations)][0]}" for k, c in enumerate(world.continent_names)]
    lines += ["", "[countries]"]
    lines += [f"{i + 1} {words[i]} {world.continent_of[i] + 1} {x} {y}" for i, (x, y) in enumerate(world.anchors)]
    lines += ["", "[borders]"]
    lines += [" ".join(str(v + 1) for v in (i, *neighbours(i))) for i in range(world.count)]
    cards = ["[cards]"] + [f"{('Infantry', 'Cavalry', 'Cannon')[i % 3]} {i + 1}" for i in range(world.count)]
    values = world.regions(sea_value=255)
    draw = ImageDraw.Draw(values)
    for i, poly in enumerate(world.polygons):      # the lines between territories: 1, 2 or 3 px of no territory
        draw.line([*poly, poly[0]], fill=255, width=1 + i % 3)
    w, h = world.size
    if reach_edges:   # the route round the world joins two lands that reach the west and the east edge
        for i, to_edge in ((west, 0), (east, w - 1)):
            x, y = world.anchors[i]
            draw.rectangle((min(x, to_edge), y - 6, max(x, to_edge), y + 6), fill=i + 1)
    red = Image.linear_gradient("L").resize((w, h))
    green = Image.radial_gradient("L").resize((w, h))
    regions = Image.merge("RGB", (red, green, values))
    files = {f"{name}_pic.png": png(world.picture()), f"{name}_map.png": png(regions),
             f"{name}.cards": "\n".join(cards).encode()}
    expected = {"title": title, "names": names, "words": words, "values": values,
                "colours": [notations[k % len(notations)][1] for k in range(len(world.continent_names))],
                "sea": sorted(sea), "wrap": wrap, "corner": corner}
    return "\n".join(lines).encode(), files, expected


# -- Conquer Club XML --------------------------------------------------------------------------------------
def conquerclub_xml(world: World, scale: float = 1.0) -> bytes:
    """The map as Conquer Club XML: territories with borders and small/large coordinates, continents with
    bonuses (the last one nesting the first as a required component, to exercise nesting)."""
    parts = ["<?xml version=\"1.0\"?>", "<map>"]
    for k, name in enumerate(world.continent_names):
        parts.append(f"<continent><name>{name}</name><bonus>{world.bonuses[k]}</bonus><components>")
        parts += [f"<territory>{world.names[i]}</territory>" for i in range(world.count) if world.continent_of[i] == k]
        parts.append("</components></continent>")
    for i in range(world.count):
        x, y = world.anchors[i]
        parts.append(f"<territory><name>{world.names[i]}</name><borders>")
        parts += [f"<border>{world.names[n]}</border>" for n in world.neighbours(i)]
        parts.append(f"</borders><coordinates><smallx>{round(x * 0.75)}</smallx><smally>{round(y * 0.75)}</smally>"
                     f"<largex>{x}</largex><largey>{y}</largey></coordinates></territory>")
    parts.append("</map>")
    return "\n".join(parts).encode()


def conquerclub_picture(world: World) -> Image.Image:
    """The large picture of a Conquer Club map: territories in flat colours with dark borders between them
    (what the flood from each coordinate needs), the sea around them."""
    img = world.picture()
    draw = ImageDraw.Draw(img)
    rng = random.Random(3)
    for poly in world.polygons:
        draw.polygon(poly, fill=(rng.randint(150, 230), rng.randint(150, 230), rng.randint(120, 200)),
                     outline=(20, 20, 20), width=3)
    return img
