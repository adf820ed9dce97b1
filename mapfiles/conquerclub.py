"""Importing Conquer Club XML maps into our format.

The XML lists ``<territory>`` elements (``name``, ``borders/border``, ``coordinates`` with ``smallx``,
``smally``, ``largex``, ``largey``) and ``<continent>`` elements (``name``, ``bonus``, ``components`` of
territories or other continents, and ``required``, how many components must be held). It has no region image:
each territory's region is found on the large picture by a flood from its large coordinate over pixels of the
seed's colour, stopping at the dark lines between territories (then the lines are shared out between the
regions on either side); or, given a region image in flat colours, by the colour at each coordinate. A border
whose regions come within a few pixels of each other is a land border, any other a sea route, as for a
Domination map (``domination.touching_pairs``).

Our board puts each territory in exactly one continent. Continents made only of territories, with every one
required, become continents; a continent of continents, or one that needs only some of its parts, is a bonus
our rules do not have, and is left out (``ImportNotes.skipped`` names them). A territory left in no
continent is refused, as on any map.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from xml.etree.ElementTree import Element

from defusedxml import ElementTree
from defusedxml.common import DefusedXmlException
from PIL import Image, ImageChops, ImageFilter

from .domination import touching_pairs
from .errors import MapFileError
from .images import open_image, png_bytes, rgb_colours
from .package import MapPackage, load_package, values_by_colour

MAX_XML_BYTES = 1024 * 1024
TOLERANCE = 40          # grey levels a flood accepts around its seed's
LINE = 80               # darker than this is a line between territories
MAX_SHARE = 0.25        # one territory's flood may cover at most this share of the picture


@dataclass
class ImportNotes:
    skipped: list[str] = field(default_factory=list)


def _text(node: Element, path: str) -> str:
    found = node.find(path)
    return (found.text or "").strip() if found is not None else ""


def _number(node: Element, path: str, what: str) -> int:
    text = _text(node, path)
    try:
        return round(float(text))
    except ValueError:
        raise MapFileError("{what} has no number in <{path}>.", what=what[:60], path=path) from None


def _ident(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "_", name.casefold()).strip("_")[:40] or "t"
    ident, n = base, 2
    while ident in taken:
        ident, n = f"{base}_{n}", n + 1
    taken.add(ident)
    return ident


def parse_xml(blob: bytes, file_name: str = "map.xml") -> Element:
    if len(blob) > MAX_XML_BYTES:
        raise MapFileError("The map file is larger than {limit} KB.", limit=MAX_XML_BYTES // 1024)
    try:
        root: Element = ElementTree.fromstring(blob, forbid_dtd=True)
    except ElementTree.ParseError as exc:   # where the XML breaks, so the map's maker can find it
        line, column = exc.position
        raise MapFileError("Line {line}, column {column} of {name}: this is not XML this bot can read.",
                           line=line, column=column + 1, name=file_name[:60]) from exc
    except (DefusedXmlException, ValueError) as exc:
        raise MapFileError("The map file is not XML this bot can read.") from exc
    if root.find("territory") is None:
        raise MapFileError("The map file has no <territory>: is it a Conquer Club map?")
    return root


def flood_regions(picture: Image.Image, seeds: list[tuple[int, int]], names: list[str]) -> Image.Image:
    """Regions flooded from each seed over pixels within ``TOLERANCE`` grey levels of the seed's, then the
    dark lines between them given to the neighbouring regions. Value i + 1 for seed i, 0 elsewhere.

    Each flood goes a run of a row at a time (a scanline fill): the pixels it may take in a row are found by
    a translation table, the ends of a run by ``find``, so the work in Python is per run, not per pixel."""
    grey = picture.convert("L")
    w, h = grey.size
    pixels = grey.tobytes()
    labels = bytearray(w * h)
    limit = int(w * h * MAX_SHARE)
    for i, (x, y) in enumerate(seeds):
        if not (0 <= x < w and 0 <= y < h):
            raise MapFileError("The coordinate of {territory} is outside the picture.", territory=names[i][:60])
        start = y * w + x
        if labels[start]:
            raise MapFileError("{territory} and {other} flood the same region: give a region image.",
                               territory=names[i][:60], other=names[labels[start] - 1][:60])
        if _flood(pixels, labels, (w, h), (x, y), i + 1, limit) > limit:
            raise MapFileError("The region of {territory} runs into the sea or beyond: give a region image.",
                               territory=names[i][:60])
    regions = Image.frombytes("L", (w, h), bytes(labels))
    lines = grey.point(lambda v: 255 if v < LINE else 0)
    for _ in range(3):   # the lines between territories (a few pixels wide) go to the regions beside them
        empty = regions.point(lambda v: 255 if v == 0 else 0)
        grown = regions.filter(ImageFilter.MaxFilter(3))
        regions = Image.composite(grown, regions, ImageChops.multiply(empty, lines))
    return regions


def _flood(pixels: bytes, labels: bytearray, size: tuple[int, int], seed: tuple[int, int], value: int,
           limit: int) -> int:
    """Give ``value`` to the pixels joined to ``seed`` (side by side or one above the other) within
    ``TOLERANCE`` grey levels of it and not already some region's; the pixels taken, stopping once past
    ``limit``."""
    w, h = size
    x, y = seed
    grey = pixels[y * w + x]
    table = bytes(1 if abs(v - grey) <= TOLERANCE else 0 for v in range(256))
    free_of_labels = bytes([1]) + bytes(255)     # 1 where a pixel is no region's yet
    rows: dict[int, bytearray] = {}

    def row(r: int) -> bytearray:
        """Row r: 1 where this flood may still go."""
        found = rows.get(r)
        if found is None:
            found = bytearray(pixels[r * w:(r + 1) * w].translate(table))
            taken = labels[r * w:(r + 1) * w]
            if taken.count(0) != w:     # some of the row is another region's already
                both = int.from_bytes(found, "big") & int.from_bytes(taken.translate(free_of_labels), "big")
                found = bytearray(both.to_bytes(w, "big"))
            rows[r] = found
        return found

    count = 0
    stack = [(x, y)]
    # Each step takes a run of at least one pixel or drops a run already taken; a run is put on the stack
    # once for each run beside it, so the steps stay under twice the pixels taken, plus one.
    for _step in range(2 * limit + 2):
        if not stack or count > limit:
            break
        x, y = stack.pop()
        line = row(y)
        if not line[x]:
            continue
        left = line.rfind(0, 0, x) + 1
        right = line.find(0, x)
        right = w if right < 0 else right
        line[left:right] = bytes(right - left)
        labels[y * w + left:y * w + right] = bytes([value]) * (right - left)
        count += right - left
        for r in (y - 1, y + 1):
            if 0 <= r < h:
                beside = row(r)
                at = beside.find(1, left, right)
                while at >= 0:
                    stack.append((at, r))
                    end = beside.find(0, at, right)
                    at = -1 if end < 0 else beside.find(1, end, right)
    return count


def colour_regions(region_image: Image.Image, seeds: list[tuple[int, int]], names: list[str]) -> Image.Image:
    """Regions from a region image in flat colours: each territory is the colour at its coordinate."""
    rgb = region_image.convert("RGB")
    colours = rgb_colours(rgb)
    if colours is None:
        raise MapFileError("The region image has too many colours: give each territory one flat colour.")
    wanted: dict[tuple[int, int, int], int] = {}
    for i, (x, y) in enumerate(seeds):
        if not (0 <= x < rgb.width and 0 <= y < rgb.height):
            raise MapFileError("The coordinate of {territory} is outside the picture.", territory=names[i][:60])
        colour = rgb.getpixel((x, y))
        assert isinstance(colour, tuple)
        if colour in wanted:
            raise MapFileError("{territory} and {other} flood the same region: give a region image.",
                               territory=names[i][:60], other=names[wanted[colour] - 1][:60])
        wanted[(colour[0], colour[1], colour[2])] = i + 1
    return values_by_colour(rgb, [c for _, c in colours], wanted)


def import_conquerclub(xml: bytes, picture_blob: bytes, regions_blob: bytes | None = None, *,
                       name: str = "map", notes: ImportNotes | None = None) -> MapPackage:
    """A Conquer Club map (its XML and large picture, optionally a region image) as a checked package."""
    root = parse_xml(xml, f"{name}.xml")
    picture = open_image(picture_blob, "picture")
    taken: set[str] = set()
    territories: list[dict[str, Any]] = []
    by_name: dict[str, str] = {}
    seeds: list[tuple[int, int]] = []
    for node in root.findall("territory"):
        title = _text(node, "name")[:64]
        if not title or title in by_name:
            raise MapFileError("Every territory needs a name of its own (“{name}”).", name=title[:60])
        by_name[title] = _ident(title, taken)
        seeds.append((_number(node, "coordinates/largex", title), _number(node, "coordinates/largey", title)))
        territories.append({"id": by_name[title], "name": title, "short": title, "aliases": [],
                            "borders": [(b.text or "").strip() for b in node.findall("borders/border")]})
    for t, (x, y) in zip(territories, seeds, strict=True):
        unknown = [b for b in t["borders"] if b not in by_name]
        if unknown:
            raise MapFileError("{territory} borders {other}, which is no territory of the map.",
                               territory=t["name"][:60], other=unknown[0][:60])
        t["neighbours"] = sorted({by_name[b] for b in t.pop("borders")} - {t["id"]})
        t["anchor"] = [x, y]
    notes = notes if notes is not None else ImportNotes()
    continents: list[dict[str, Any]] = []
    for node in root.findall("continent"):
        title = _text(node, "name")[:64]
        parts = [(c.tag, (c.text or "").strip()) for c in node.findall("components/*")]
        required = _text(node, "required")
        plain = all(tag == "territory" and part in by_name for tag, part in parts)
        if not parts or not plain or (required and int(required or 0) != len(parts)):
            notes.skipped.append(title)
            continue
        continents.append({"id": _ident("c_" + title, taken), "name": title,
                           "bonus": _number(node, "bonus", title),
                           "territories": [by_name[part] for _, part in parts]})
    # A territory in two plain continents: the smaller continent keeps it (the other is a bonus for more).
    owner: dict[str, str] = {}
    for c in sorted(continents, key=lambda c: len(c["territories"])):
        c["territories"] = [t for t in c["territories"] if t not in owner]
        owner.update(dict.fromkeys(c["territories"], c["id"]))
    continents = [c for c in continents if c["territories"]]
    for t in territories:
        t["continent"] = owner.get(t["id"], "")
        if not t["continent"]:
            t.pop("continent")
    names = [t["name"] for t in territories]
    if regions_blob is not None:
        regions = colour_regions(open_image(regions_blob, "regions"), seeds, names)
    else:
        regions = flood_regions(picture, seeds, names)
    ids = [t["id"] for t in territories]
    touching = touching_pairs(regions)
    sea = [[ids[a - 1], ids[b - 1]] for a, b in sorted(
        (i + 1, ids.index(n) + 1) for i, t in enumerate(territories) for n in t["neighbours"])
        if a < b and (a, b) not in touching]
    data: dict[str, Any] = {
        "id": name, "name": _text(root, "title") or name.replace("_", " ").title(),
        "players": {"min": 2, "max": min(8, max(2, len(territories) // 3))},
        "continents": continents, "territories": territories, "sea_routes": sea,
        "images": {"regions": "regions", "background": "picture"},
    }
    if picture.size != regions.size:
        raise MapFileError("The picture and the region image must be the same size ({width}×{height}).",
                           width=picture.width, height=picture.height)
    return load_package(data, {"regions": png_bytes(regions), "picture": picture_blob})
