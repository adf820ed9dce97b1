"""Pictures of maps for the people who choose them: a new map's preview and the sheet of a server's maps.

Both are whole renders, so the bot has them drawn in a worker process (``render.workers``): they take map ids,
and a worker that has not met a server's map finds it in the database (``registry.use_database``).
"""

from __future__ import annotations

from engine import Board, Game, load_map
from render import encode_png, render_map
from render.geometry import geometry_for

from .upload import contact_sheet, thumbnail


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


def sheet_png(maps: list[tuple[str, str]]) -> bytes:
    """Thumbnails of the maps (id and caption) in a grid, each captioned, as PNG."""
    return contact_sheet([(caption, thumbnail(geometry_for(map_id), _board(map_id))) for map_id, caption in maps])


__all__ = ["preview_png", "sheet_png"]
