"""Pictures of maps for the people who choose them: a new map's preview and the sheet of a server's maps.

Both are whole renders, so the bot has them drawn in a worker process (``workers``): they take map ids,
and a worker that has not met a server's map finds it in the database (``registry.use_database``).

A map's thumbnail is drawn once: at upload (``mapfiles.checking``) or the first time a sheet shows it, and the
bot keeps it by map id (an id names one content, so a kept thumbnail is never stale). A thumbnail of a stored
map is drawn from its stored region image alone, without building the map's geometry.
"""

from __future__ import annotations

import io
import json

from PIL import Image

from engine import Board, Game, builtin_maps, load_map
from render import encode_png, render_map
from render.geometry import geometry_for
from store.maps import read_map_files

from .images import open_image, png_bytes
from .package import MAP_FILE, REGIONS_FILE
from .registry import database
from .upload import contact_sheet, package_thumbnail, thumbnail


def _board(map_id: str) -> Board:
    geometry_for(map_id)  # a stored map this process has not met: its geometry's source registers its board
    return load_map(map_id)


def preview_png(map_id: str) -> bytes:
    """The map with nothing owned yet: names, continents and bonuses, sea lines."""
    board = _board(map_id)
    game, _events = Game.new([f"Player {i + 1}" for i in range(board.players[0])], "preview", {"map": map_id})
    state = game.state.copy()
    state.owners.clear()
    state.armies.clear()
    return encode_png(render_map(state))


def thumbnail_png(map_id: str) -> bytes:
    """A map's thumbnail as PNG: a built-in map's from its geometry, a stored map's from its stored files."""
    if map_id not in builtin_maps():
        path = database()
        files = read_map_files(path, map_id) if path is not None else None
        if files is not None:
            data = json.loads(files[MAP_FILE])
            return png_bytes(package_thumbnail(data, open_image(files[REGIONS_FILE], REGIONS_FILE)))
    return png_bytes(thumbnail(geometry_for(map_id), _board(map_id)))


def sheet_png(maps: list[tuple[str, str, bytes | None]]) -> tuple[bytes, dict[str, bytes]]:
    """Thumbnails of the maps (id, caption and the thumbnail if the bot has it already) in a grid, each
    captioned, as PNG; and the thumbnails it had to draw, by map id, for the bot to keep."""
    drawn = {map_id: thumbnail_png(map_id) for map_id, _caption, known in maps if known is None}
    pictures = [(caption, Image.open(io.BytesIO(known if known is not None else drawn[map_id])).convert("RGB"))
                for map_id, caption, known in maps]
    return contact_sheet(pictures), drawn


__all__ = ["preview_png", "sheet_png", "thumbnail_png"]
