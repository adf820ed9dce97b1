"""Maps sent as a handful of files (a Discord command's attachments): which format they are, and thumbnails.

The files are only bytes under the names they came with; a name decides what a file is (by its extension)
and which file a map names, and is never used as a path.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from PIL import Image, ImageDraw

from engine import Board
from render import style
from render.geometry import Geometry
from render.regions import TINTS, close_seams, parse_colour

from .conquerclub import ImportNotes, import_conquerclub
from .domination import import_domination
from .errors import MapFileError
from .package import MapPackage, load_package

MAX_FILES = 8          # a .map: the map, its picture, region image and cards, two files of names and two of missions
MAX_TOTAL_BYTES = 20 * 1024 * 1024
THUMBNAIL_WIDTH = 240
IMAGE_EXTENSIONS = (".png", ".gif", ".bmp", ".jpg", ".jpeg", ".webp")


def extension(name: str) -> str:
    return "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""


def import_upload(files: Mapping[str, bytes], notes: ImportNotes | None = None) -> MapPackage:
    """A map from uploaded files: our ``.json`` with its pictures, a Domination ``.map`` with its files (and
    its ``MAP_nb.properties`` and ``MAP_es.properties`` of names, named after it, and its cards file's of
    missions), or Conquer Club ``.xml``
    with its picture (and a region image whose name has "region" in it)."""
    if len(files) > MAX_FILES:
        raise MapFileError("Send at most {n} files: the map file and its pictures.", n=MAX_FILES)
    if sum(len(b) for b in files.values()) > MAX_TOTAL_BYTES:
        raise MapFileError("The files are larger than {limit} MB together.", limit=MAX_TOTAL_BYTES // (1024 * 1024))
    by_kind: dict[str, list[str]] = {}
    for name in files:
        by_kind.setdefault(extension(name), []).append(name)
    main = [n for ext in (".json", ".map", ".xml") for n in by_kind.get(ext, [])]
    if len(main) != 1:
        raise MapFileError("Send one map file (.json, .map or .xml) with its pictures.")
    name = main[0]
    others = {k: v for k, v in files.items() if k != name}
    ext = extension(name)
    if ext == ".json":
        return load_package(files[name], others, file_name=name)
    if ext == ".map":
        return import_domination(files[name], others, name)
    images = [n for n in others if extension(n) in IMAGE_EXTENSIONS]
    regions = [n for n in images if "region" in n.lower()]
    pictures = [n for n in images if n not in regions]
    if len(pictures) != 1 or len(regions) > 1:
        raise MapFileError("A Conquer Club map needs its picture (and at most one region image, with “region” "
                           "in its name).")
    return import_conquerclub(files[name], others[pictures[0]], others[regions[0]] if regions else None,
                              name=name.rsplit(".", 1)[0], notes=notes)


def thumbnail(geometry: Geometry, board: Board, width: int = THUMBNAIL_WIDTH) -> Image.Image:
    """A small picture of a map: its land in its continents' tints on the sea (no badges, no names)."""
    tints = geometry.tints or style.CONTINENT_TINTS
    colours = {geometry.territories[tid].value: tints[cid]
               for cid, continent in board.continents.items() for tid in continent.territories}
    return tinted(geometry.label, colours, width)


def package_thumbnail(data: Mapping[str, Any], regions: Image.Image, width: int = THUMBNAIL_WIDTH) -> Image.Image:
    """The thumbnail of a map in our format (``data`` and its region image, as stored): the same picture as
    ``thumbnail`` without building the map's geometry."""
    index = {t["id"]: i + 1 for i, t in enumerate(data["territories"])}
    colours: dict[int, tuple[int, int, int]] = {}
    for i, c in enumerate(data["continents"]):
        tint = parse_colour(c.get("colour")) or TINTS[i % len(TINTS)]
        colours.update((index[tid], tint) for tid in c["territories"] if tid in index)
    return tinted(close_seams(regions.convert("L")), colours, width)


def tinted(regions: Image.Image, colours: Mapping[int, tuple[int, int, int]], width: int) -> Image.Image:
    """The region image ``width`` pixels wide, each territory value in its colour, the rest sea."""
    palette = [*style.SEA] + [0, 0, 0] * 255
    for value, colour in colours.items():
        if 0 < value < 256:
            palette[value * 3: value * 3 + 3] = colour
    small = regions.resize((width, max(1, round(regions.height * width / regions.width))), Image.Resampling.NEAREST)
    indexed = Image.frombytes("P", small.size, small.tobytes())
    indexed.putpalette(palette)
    return indexed.convert("RGB")


def contact_sheet(items: list[tuple[str, Image.Image]], columns: int = 3, width: int = THUMBNAIL_WIDTH) -> bytes:
    """Thumbnails in a grid, each with its caption under it, as PNG."""
    font = style.font(16, bold=True)
    cell_h = max((img.height for _, img in items), default=120) + 30
    rows = max(1, -(-len(items) // columns))
    sheet = Image.new("RGB", (columns * (width + 12) + 12, rows * (cell_h + 12) + 12), style.PANEL_BG)
    draw = ImageDraw.Draw(sheet)
    for i, (caption, img) in enumerate(items):
        x, y = 12 + (i % columns) * (width + 12), 12 + (i // columns) * (cell_h + 12)
        sheet.paste(img, (x, y))
        text = caption if font.getlength(caption) <= width else caption[: max(1, width // 9)] + "…"
        draw.text((x + width / 2, y + img.height + 15), text, font=font, fill=style.TEXT, anchor="mm")
    out = io.BytesIO()
    sheet.save(out, "PNG")
    return out.getvalue()


__all__ = ["MAX_FILES", "contact_sheet", "import_upload", "package_thumbnail", "thumbnail"]
