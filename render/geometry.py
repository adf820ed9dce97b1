"""The committed map data under ``render/data/``, loaded once per process.

Built by ``tools/build_geometry.py`` (see docs/map.md). Everything here is read-only after loading, so
one copy is shared by all threads.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NotRequired, TypedDict

from PIL import Image

DATA_DIR = Path(__file__).parent / "data"

Point = tuple[int, int]


class TerritoryData(TypedDict):
    """A territory in ``geometry.json``: its pixel value less one, badge and label centres, box and area."""

    index: int
    anchor: list[int]
    label: list[int]
    bbox: list[int]
    area: int
    label_given: NotRequired[bool]   # False: the label is a first guess the layout may move (a custom map's)


class SeaRouteData(TypedDict):
    between: list[str]
    segments: list[list[float]]      # x0, y0, x1, y1 each


class GeometryData(TypedDict):
    """The stored layout of a map (``geometry.json``, or built from a map package): what the renderer reads."""

    width: int
    height: int
    territories: dict[str, TerritoryData]
    sea_routes: list[SeaRouteData]
    continent_labels: dict[str, list[int]]
    legend: NotRequired[str]         # the legend's corner ("lower left" when not given)
    labels_given: NotRequired[list[str]]   # continents whose label the map file places: kept where it says


@dataclass(frozen=True)
class TerritoryShape:
    id: str
    value: int                  # pixel value in the label image (territory index + 1)
    anchor: Point               # centre of the army badge
    label: Point                # centre of the short-name label
    bbox: tuple[int, int, int, int]
    area: int


@dataclass(frozen=True)
class Geometry:
    width: int
    height: int
    label: Image.Image          # "L": territory value per pixel, 0 = sea
    coast: Image.Image          # "L" masks of anti-aliased lines
    borders: Image.Image
    continents: Image.Image
    territories: dict[str, TerritoryShape]
    sea_routes: tuple[tuple[str, str, tuple[tuple[float, float, float, float], ...]], ...]
    continent_labels: dict[str, Point]
    raw: GeometryData
    map_id: str = "classic"
    tints: dict[str, tuple[int, int, int]] | None = None   # each continent's coast tint (None: the classic ones)
    background: Image.Image | None = None                 # "RGB": the sea and what the map's picture shows there
    badge_size: int = 34                                   # army badges' diameter (smaller on a dense map)


_lock = threading.Lock()
_cached: Geometry | None = None
# Other maps' geometry, by map id: built on first use from a source given with ``register_geometry``.
_sources: dict[str, Callable[[], Geometry]] = {}
MAX_CACHED_MAPS = 16
_others: dict[str, Geometry] = {}


def _load_l(path: Path) -> Image.Image:
    with Image.open(path) as im:
        im.load()
        if im.mode == "P":   # keep the pixel values, not the preview palette
            return Image.frombytes("L", im.size, im.tobytes())
        return im.convert("L")


def _point(xy: list[int]) -> Point:
    return xy[0], xy[1]


def _box(box: list[int]) -> tuple[int, int, int, int]:
    return box[0], box[1], box[2], box[3]


def load_geometry() -> Geometry:
    """The map geometry (loaded on first use, then shared)."""
    global _cached
    if _cached is not None:
        return _cached
    with _lock:
        if _cached is None:
            raw: GeometryData = json.loads((DATA_DIR / "geometry.json").read_text(encoding="utf-8"))
            shapes = {
                tid: TerritoryShape(tid, info["index"] + 1, _point(info["anchor"]), _point(info["label"]),
                                    _box(info["bbox"]), info["area"])
                for tid, info in raw["territories"].items()
            }
            routes = tuple(
                (r["between"][0], r["between"][1], tuple((s[0], s[1], s[2], s[3]) for s in r["segments"]))
                for r in raw["sea_routes"]
            )
            _cached = Geometry(
                width=raw["width"], height=raw["height"],
                label=_load_l(DATA_DIR / "territories.png"),
                coast=_load_l(DATA_DIR / "coast.png"),
                borders=_load_l(DATA_DIR / "borders.png"),
                continents=_load_l(DATA_DIR / "continents.png"),
                territories=shapes,
                sea_routes=routes,
                continent_labels={k: _point(v) for k, v in raw["continent_labels"].items()},
                raw=raw,
            )
    return _cached


def register_geometry(map_id: str, source: Callable[[], Geometry]) -> None:
    """Make another map drawable: ``source`` builds its geometry (once, on first use)."""
    with _lock:
        _sources[map_id] = source
        _others.pop(map_id, None)


def geometry_for(map_id: str) -> Geometry:
    """The geometry of a map: the classic one, or one given with ``register_geometry``."""
    if map_id == "classic":
        return load_geometry()
    geo = _others.get(map_id)
    if geo is None:
        with _lock:
            geo = _others.get(map_id)
            if geo is None:
                source = _sources.get(map_id)
                built = source() if source is not None else _resolver(map_id) if _resolver is not None else None
                if built is None:
                    raise ValueError(f"there is no geometry for the map “{map_id}”")
                if len(_others) >= MAX_CACHED_MAPS:   # a few maps are in play at once; keep memory bounded
                    _others.pop(next(iter(_others)))
                geo = _others[map_id] = built
    return geo


# Where geometry of a map not registered in this process comes from (a server's map stored in the database):
# a function from a map id to its geometry, or None when it knows no such map.
_resolver: Callable[[str], Geometry | None] | None = None


def set_geometry_resolver(resolver: Callable[[str], Geometry | None] | None) -> None:
    """Let ``geometry_for`` build the geometry of maps it was not given (read from where they are stored)."""
    global _resolver
    _resolver = resolver
