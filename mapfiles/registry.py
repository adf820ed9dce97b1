"""Making a map playable and drawable in this process: its board for the engine, its geometry for the
renderer (built on first use)."""

from __future__ import annotations

from engine import register_map, registered_map
from render.geometry import register_geometry
from render.regions import build_geometry

from .package import MapPackage


def install(package: MapPackage) -> None:
    """Register the package's board (``engine.load_map`` finds it by id) and its geometry. Installing the
    same id again changes nothing: an id names one content."""
    if registered_map(package.id) is not None:
        return
    register_map(package.board)
    data, regions, background = package.data, package.regions, package.background
    register_geometry(package.id, lambda: build_geometry(package.id, data, regions, background))
