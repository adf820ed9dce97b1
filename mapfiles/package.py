"""A map in our format (docs/maps.md): the JSON the engine reads, its region image and its picture.

``load_package(data, files)`` checks everything and gives a ``MapPackage`` ready to play and draw: the board
as the engine validates it, the region image scaled to the renderer's width, the badge and label positions
scaled with it, and an id that names exactly this content. Pictures are looked up by name among the files
given, never opened from a path named in a file.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from engine import Board, MapError, parse_map
from engine.board import builtin_maps, plain_text
from render.regions import LEGEND_ROOM, land_in_corners, parse_colour, room_for_legend

from .errors import MapFileError
from .images import open_image, png_bytes, rgb_colours

RENDER_WIDTH = 1600            # every map is drawn this wide
MIN_HEIGHT, MAX_HEIGHT = 300, 1400
MAX_SEAM_SCALE = 4.0          # seams are closed up to this many times their width at the map maker's size
MAX_JSON_BYTES = 1024 * 1024
MIN_REGION_PIXELS = 40         # a territory smaller than this at the drawn size cannot be seen or tapped
MAP_FILE, REGIONS_FILE, BACKGROUND_FILE = "map.json", "regions.png", "background.png"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class MapPackage:
    """A checked map: ``data`` (our format, positions at the drawn size, ``id`` naming this content), the
    region image ("L", territory index + 1 per pixel, 0 the sea), the picture (or None) and the board."""

    data: dict[str, Any]
    regions: Image.Image
    background: Image.Image | None
    board: Board

    @property
    def id(self) -> str:
        return self.board.id

    @property
    def title(self) -> str:
        return self.board.title

    def files(self) -> dict[str, bytes]:
        """The package as files: the JSON, the region image and the picture (if any)."""
        out = {MAP_FILE: json.dumps(self.data, ensure_ascii=False, indent=1).encode("utf-8"),
               REGIONS_FILE: png_bytes(self.regions)}
        if self.background is not None:
            out[BACKGROUND_FILE] = png_bytes(self.background)
        return out


def slug(text: str) -> str:
    """A short lowercase name made of letters, digits and dashes."""
    word = re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")
    return word[:24].strip("-") or "map"


def read_json(blob: bytes, name: str) -> dict[str, Any]:
    if len(blob) > MAX_JSON_BYTES:
        raise MapFileError("The map file {name} is larger than {limit} KB.", name=name,
                           limit=MAX_JSON_BYTES // 1024)
    try:
        data = json.loads(blob.decode("utf-8-sig"))
    except json.JSONDecodeError as exc:   # where it breaks, so the map's maker can find it
        raise MapFileError("Line {line}, column {column} of {name}: this is not valid JSON.", line=exc.lineno,
                           column=exc.colno, name=name) from exc
    except (UnicodeDecodeError, RecursionError) as exc:   # nested too deep: not a map
        raise MapFileError("The map file {name} is not valid JSON.", name=name) from exc
    if not isinstance(data, dict):
        raise MapFileError("The map file {name} must hold a JSON object.", name=name)
    return data


def region_values(img: Image.Image, data: Mapping[str, Any]) -> Image.Image:
    """The region image as territory values ("L": index + 1, 0 the sea).

    A grey image (or a palette of greys) gives the values directly. A coloured one is matched against the
    territories' ``colour``; every colour must be a territory's or the ``sea_colour``.
    """
    if img.mode in ("L", "1"):
        return img.convert("L")
    rgb = img.convert("RGB")
    colours = rgb_colours(rgb)
    if colours is None:
        raise MapFileError("The region image has too many colours: give each territory one flat colour.")
    if all(r == g == b for _, (r, g, b) in colours):
        return rgb.convert("L")
    wanted: dict[tuple[int, int, int], int] = {}
    for i, t in enumerate(data["territories"]):
        colour = parse_colour(t.get("colour"))
        if colour is None:
            raise MapFileError("The region image is in colour, so territory {territory} needs a colour "
                               "like #a1b2c3.", territory=str(t.get("id"))[:40])
        wanted[colour] = i + 1
    sea = parse_colour(data.get("sea_colour", "#000000")) or (0, 0, 0)
    unknown = [c for _, c in colours if c not in wanted and c != sea]
    if unknown:
        raise MapFileError("The region image has {count} colours that are no territory's, such as "
                           "#{colour}.", count=len(unknown), colour=bytes(unknown[0]).hex())
    # Every colour is known: mapping each pixel to the nearest palette colour maps it to its own.
    return values_by_colour(rgb, [c for _, c in colours], wanted)


def values_by_colour(rgb: Image.Image, present: list[tuple[int, int, int]],
                     wanted: Mapping[tuple[int, int, int], int]) -> Image.Image:
    """The region image (one byte a pixel: the territory's number, 0 for sea) of a picture in at most 256 flat
    colours ``present``, each colour the number ``wanted`` gives it (0 if none)."""
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for c in present for v in c] + [0, 0, 0] * (256 - len(present)))
    indexed = rgb.quantize(palette=palette, dither=Image.Dither.NONE)
    lut = [wanted.get(c, 0) for c in present] + [0] * (256 - len(present))
    return Image.frombytes("L", indexed.size, indexed.tobytes()).point(lut)


MAX_PATH_POINTS = 20   # points of a route's path that a map file gives


def _scaled_point(point: object, factor: float, size: tuple[int, int], what: str) -> list[int]:
    if not (isinstance(point, list) and len(point) == 2 and all(isinstance(v, (int, float)) for v in point)):
        raise MapFileError("The position of {what} must be two numbers [x, y].", what=what)
    x, y = round(point[0] * factor), round(point[1] * factor)
    if not (0 <= x < size[0] and 0 <= y < size[1]):
        raise MapFileError("The position of {what} is outside the map.", what=what)
    return [x, y]


def check_regions(regions: Image.Image, data: Mapping[str, Any]) -> None:
    """Refuse a region image whose regions are not the map's territories."""
    counts = regions.histogram()
    n = len(data["territories"])
    strays = [v for v in range(n + 1, 256) if counts[v]]
    if strays:
        raise MapFileError("The region image has pixels of value {value}, but the map has only {count} "
                           "territories.", value=strays[0], count=n)
    for i, t in enumerate(data["territories"]):
        if counts[i + 1] < MIN_REGION_PIXELS:
            raise MapFileError("Territory {territory} has no region in the region image (or one too small to "
                               "see).", territory=str(t["id"])[:40])


def _plain_copy(data: dict[str, Any]) -> dict[str, Any]:
    """A private copy of a map, plain JSON types only."""
    copy: dict[str, Any] = json.loads(json.dumps(data))
    return copy


def _cleaned(value: Any) -> Any:
    """Every text of a map without control characters (``engine.board.plain_text``): no right-to-left override
    or line break in a name reaches a message. Markdown and mentions are escaped where names are shown."""
    if isinstance(value, str):
        return plain_text(value)
    if isinstance(value, list):
        return [_cleaned(v) for v in value]
    if isinstance(value, dict):
        return {plain_text(k): _cleaned(v) for k, v in value.items()}
    return value


def load_package(data: dict[str, Any] | bytes, files: Mapping[str, bytes], *, clean: bool = True,
                 file_name: str = MAP_FILE) -> MapPackage:
    """Check a map in our format and bring it to the drawn size. ``files`` are the pictures by file name;
    the map names its region image and picture under ``images`` (``regions``, ``background``). With ``clean``
    (a new map) its texts lose their control characters; a stored map is read as it was stored, so its id
    stays the same. ``file_name``: the map file's, for its refusals."""
    if isinstance(data, bytes):
        data = read_json(data, file_name[:60])
    data = _plain_copy(data)
    if clean:
        cleaned: dict[str, Any] = _cleaned(data)
        if "images" in data:   # file names are matched as given
            cleaned["images"] = data["images"]
        data = cleaned
    images = data.get("images") or {}
    if not isinstance(images, dict) or not isinstance(images.get("regions"), str):
        raise MapFileError("The map must name its region image under “images”, “regions”.")
    try:
        parse_map({**data, "id": "check"})
    except MapError as exc:
        raise MapFileError.from_map_error(exc) from exc

    def picture(key: str) -> Image.Image | None:
        name = images.get(key)
        if name is None:
            return None
        if not isinstance(name, str) or name not in files:
            raise MapFileError("The map names the picture {name}, but it was not given.", name=str(name)[:60])
        return open_image(files[name], name)

    raw_regions = picture("regions")
    assert raw_regions is not None
    background = picture("background")
    if background is not None and background.size != raw_regions.size:
        raise MapFileError("The picture and the region image must be the same size ({width}×{height}).",
                           width=raw_regions.width, height=raw_regions.height)
    values = region_values(raw_regions, data)
    factor = RENDER_WIDTH / values.width
    size = (RENDER_WIDTH, round(values.height * factor))
    if not MIN_HEIGHT <= size[1] <= MAX_HEIGHT:
        raise MapFileError("At {width} pixels wide the map would be {height} pixels high; it must be "
                           "{low} to {high}.", width=RENDER_WIDTH, height=size[1], low=MIN_HEIGHT, high=MAX_HEIGHT)
    regions = values.resize(size, Image.Resampling.NEAREST)
    if clean:   # how much the region image was enlarged, from the map maker's own size: its seams grew with it
        prior = data.get("seam_scale")
        prior = prior if isinstance(prior, (int, float)) and 1 <= prior <= MAX_SEAM_SCALE else 1.0
        data["seam_scale"] = round(min(MAX_SEAM_SCALE, max(1.0, factor * prior)), 3)
    if background is not None:
        background = background.convert("RGB").resize(size, Image.Resampling.LANCZOS)
    regions, background = _room_for_legend(regions, background, data, clean)
    check_regions(regions, data)
    for t in data["territories"]:
        for key in ("anchor", "label"):
            if key in t:
                t[key] = _scaled_point(t[key], factor, size, str(t["id"])[:40])
    for c in data["continents"]:
        if "label" in c:
            c["label"] = _scaled_point(c["label"], factor, size, str(c["id"])[:40])
    for route in data.get("sea_routes", []):
        if not (isinstance(route, list) and 2 <= len(route) <= 3 and (len(route) == 2 or route[2] == "wrap")):
            raise MapFileError("A sea route must be [a, b] or [a, b, \"wrap\"].")
    routes = {frozenset(r[:2]) for r in data.get("sea_routes", []) if isinstance(r, list)}
    paths = data.get("route_paths", [])
    for entry in paths if isinstance(paths, list) else [None]:
        between = entry.get("between") if isinstance(entry, dict) else None
        points = entry.get("path") if isinstance(entry, dict) else None
        if not (isinstance(entry, dict) and isinstance(between, list) and all(isinstance(t, str) for t in between)
                and frozenset(between) in routes
                and isinstance(points, list) and 1 <= len(points) <= MAX_PATH_POINTS):
            raise MapFileError("A route's path must be {{\"between\": [a, b], \"path\": [[x, y], ...]}} for one of "
                               "the map's sea routes, with 1 to {most} points.", most=MAX_PATH_POINTS)
        entry["path"] = [_scaled_point(p, factor, size, "a point of a route") for p in points]
    data["images"] = {"regions": REGIONS_FILE, **({"background": BACKGROUND_FILE} if background else {})}
    data["format"] = FORMAT_VERSION
    data["id"] = _content_id(data, regions)
    try:
        board = parse_map(data)
    except MapError as exc:
        raise MapFileError.from_map_error(exc) from exc
    return MapPackage(data, regions, background, board)


def _room_for_legend(regions: Image.Image, background: Image.Image | None, data: dict[str, Any], new: bool
                     ) -> tuple[Image.Image, Image.Image | None]:
    """A map with no place for the legend gets a strip of sea at the bottom, where the legend goes: a new map
    (``new``) where every place along its edges hides land or the picture's own text (``room_for_legend``);
    it says so in ``legend_strip``, and a stored map that says so has its strip already. A map stored before
    (read as it was stored, so that its id stays the same) gets one where every corner has land."""
    if new and data.get("legend_strip") is not True:     # (a map that has its strip, written out and read again)
        data["legend_strip"] = not room_for_legend(regions, background) \
            and regions.height + LEGEND_ROOM[1] <= MAX_HEIGHT
        roomy = not data["legend_strip"]
    else:
        roomy = "legend_strip" in data or min(land_in_corners(regions).values()) == 0
    if roomy or regions.height + LEGEND_ROOM[1] > MAX_HEIGHT:
        return regions, background
    size = (regions.width, regions.height + LEGEND_ROOM[1])
    grown = Image.new("L", size, 0)
    grown.paste(regions, (0, 0))
    if background is not None:
        picture = Image.new("RGB", size, background.getpixel((0, background.height - 1)))
        picture.paste(background, (0, 0))
        background = picture
    return grown, background


def _content_id(data: Mapping[str, Any], regions: Image.Image) -> str:
    """An id that names this content: a slug of the map's name and a digest of its data and regions, so a
    stored game always replays on the board it was played on."""
    body = {k: v for k, v in data.items() if k != "id"}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8"))
    digest.update(regions.tobytes())
    base = slug(str(data.get("name") or data.get("id") or "map"))
    if base in builtin_maps():
        base += "-map"
    return f"{base}-{digest.hexdigest()[:10]}"


def reopen(files: Mapping[str, bytes]) -> MapPackage:
    """A package written by ``MapPackage.files`` (as stored), checked again; its id does not change."""
    data = read_json(files[MAP_FILE], MAP_FILE)
    stored_id = data.get("id")
    package = load_package(data, files, clean=False)
    if package.id != stored_id:
        raise MapFileError("The stored map {name} does not match its id.", name=str(stored_id)[:60])
    return package


def write_package_dir(package: MapPackage, out: str | Path) -> Path:
    """Write the package's files into a folder (created if needed); returns the folder."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for name, blob in package.files().items():
        (folder / name).write_bytes(blob)
    return folder


def read_package_dir(folder: str | Path) -> MapPackage:
    """A map in our format from a folder: its JSON file and the pictures it names, found among the folder's
    own files by name (a name with a path in it matches nothing)."""
    folder = Path(folder)
    jsons = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".json" and p.is_file())
    if not jsons:
        raise MapFileError("There is no map file (.json) in {name}.", name=folder.name)
    return load_json_file(jsons[0])


def load_json_file(path: str | Path) -> MapPackage:
    """A map in our format from its JSON file, with the pictures beside it."""
    path = Path(path)
    data = read_json(read_capped(path), path.name)
    return load_package(data, sibling_files(path, data.get("images")))


def sibling_files(path: Path, images: object) -> dict[str, bytes]:
    """The files a map file names, read from its own folder. Names are matched against the folder's
    listing, so a name such as ``../secret`` or ``/etc/passwd`` finds nothing."""
    names = [v for v in images.values() if isinstance(v, str)] if isinstance(images, dict) else []
    listing = {p.name: p for p in path.parent.iterdir() if p.is_file()}
    return {name: read_capped(listing[name]) for name in names if name in listing}


def read_capped(path: Path, limit: int = 8 * 1024 * 1024) -> bytes:
    """A file's bytes, refused if it is larger than ``limit``."""
    with path.open("rb") as fh:
        blob = fh.read(limit + 1)
    if len(blob) > limit:
        raise MapFileError("The file {name} is larger than {limit} MB.", name=path.name, limit=limit // (1024 * 1024))
    return blob
