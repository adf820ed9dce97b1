"""The ``--map FILE|ID`` of the command-line tools (``engine.simulate``, ``engine.verify``, ``python -m render``).

FILE is a map in our format (docs/maps.md): its ``map.json``, or the folder a map package was written to
(``bot.py map import``), whose JSON file is used. The board is registered under the id in the file, so a game
played on it, or a log of one, finds it as the bot does. ID is a built-in map's id (``classic``). Only the board is
read here: ``python -m render`` reads a package's pictures itself.
"""

from __future__ import annotations

from pathlib import Path

from .board import Board, load_map, load_map_file, register_map, registered_map
from .errors import MapError


def map_file(text: str) -> Path | None:
    """The JSON file ``text`` names (itself, or the first ``.json`` in a folder; ``map.json`` first), None if
    ``text`` names no file or folder."""
    path = Path(text)
    if path.is_dir():
        named = path / "map.json"
        found = [named] if named.is_file() else sorted(p for p in path.iterdir() if p.suffix.lower() == ".json")
        if not found:
            raise MapError("there is no map file (.json) in {folder}", folder=str(path))
        return found[0]
    return path if path.is_file() else None


def board_for(text: str) -> Board:
    """The board ``--map`` names: a map file or folder (registered under its id), or a built-in map's id."""
    path = map_file(text)
    if path is None:
        return load_map(text)
    board = load_map_file(path)
    if registered_map(board.id) is None:
        register_map(board)
    return board


__all__ = ["board_for", "map_file"]
