"""Making a map playable and drawable in this process: its board for the engine, its geometry for the
renderer (built on first use)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from engine import Board, parse_map, register_map, registered_map
from render.geometry import Geometry, register_geometry, set_geometry_resolver
from render.regions import build_geometry
from store.maps import read_map_files

from .errors import MapFileError
from .package import MAP_FILE, MapPackage, reopen


def install(package: MapPackage) -> None:
    """Register the package's board (``engine.load_map`` finds it by id) and its geometry. Installing the
    same id again changes nothing: an id names one content."""
    if registered_map(package.id) is not None:
        return
    register_map(package.board)
    data, regions, background = package.data, package.regions, package.background
    register_geometry(package.id, lambda: build_geometry(package.id, data, regions, background))


def install_files(files: Mapping[str, bytes]) -> Board:
    """Make a checked map's stored files playable and drawable here: its board now (from its JSON alone), its
    geometry when a render first needs it. Returns the board."""
    board = parse_map(json.loads(files[MAP_FILE]))
    known = registered_map(board.id)
    if known is not None:
        return known
    register_map(board)
    stored = dict(files)
    register_geometry(board.id, lambda: _geometry_of(reopen(stored)))
    return board


def _geometry_of(package: MapPackage) -> Geometry:
    return build_geometry(package.id, package.data, package.regions, package.background)


def geometry_from_database(path: str | Path, map_id: str) -> Geometry | None:
    """The geometry of a map stored in the database at ``path`` (None if it has no such map)."""
    files = read_map_files(path, map_id)
    if files is None:
        return None
    try:
        package = reopen(files)
    except MapFileError:
        return None
    if registered_map(package.id) is None:   # a process that has not opened the store (a render worker)
        register_map(package.board)
    return build_geometry(package.id, package.data, package.regions, package.background)


_database: str | None = None   # where this process finds the stored maps (``use_database``)


def database() -> str | None:
    """The database this process reads stored maps from, if ``use_database`` named one."""
    return _database


def use_database(path: str | Path) -> None:
    """Draw the maps stored in the database at ``path`` (a SQLite file or a ``postgresql://`` URL) when a render
    first meets one, in whichever thread or process renders (each render worker, through ``workers.set_up``,
    before its first task)."""
    global _database
    _database = str(path)
    set_geometry_resolver(lambda map_id: geometry_from_database(path, map_id))
