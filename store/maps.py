"""Each server's own maps: all their SQL, in one place (the ``maps`` table of migration ``_V_MAPS``).

A map is stored as the files of our map format (``map.json``, ``regions.png``, ``background.png``) under an
id that names its content. Its board is registered with the engine when the store opens and when the map is
added, so games on it load like any other; removing a map hides it from the server's list but keeps its
files, so the games played on it still replay, export and draw.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine import MapError, parse_map, register_map, registered_map

from .backend import Backend, Reading, Writing, reads, writes
from .errors import InvalidValue
from .records import MapRecord
from .transaction import Step

MAPS_PER_SERVER = 25              # as many as one autocomplete list shows
MAP_FILES = ("map.json", "regions.png", "background.png")


def _register(map_id: str, data: bytes | str) -> None:
    """Make a stored map's board known to the engine (its id names its content: registered once)."""
    if registered_map(map_id) is not None:
        return
    try:
        board = parse_map(json.loads(data))
    except (MapError, ValueError):
        return   # a map the engine refuses now stays unplayable; its games report the unknown map
    if board.id == map_id:
        register_map(board)


class MapsMixin(Backend):
    """The maps part of ``SQLStore`` (the backend supplies ``_transaction``, ``_reading``, ``_run`` and
    ``_clock``)."""

    async def _register_stored_maps(self) -> None:
        """Register every stored map's board, removed ones included (their games still load)."""
        async with self._reading() as db:
            rows = await db.fetch("SELECT DISTINCT map_id, data FROM maps")
        for map_id, data in rows:
            _register(map_id, data)

    @writes
    async def add_map(self, db: Writing, guild_id: int, map_id: str, name: str, added_by: int,
                      files: Mapping[str, bytes]) -> MapRecord:
        """Store a checked map for a server (``files``: ``map.json``, ``regions.png``, ``background.png`` if
        any) and register its board. Adding a map the server removed brings it back."""
        if "map.json" not in files or "regions.png" not in files:
            raise InvalidValue("A map needs its map.json and regions.png.")
        now = self._clock()
        record = MapRecord(guild_id, map_id, name[:100], added_by, now)
        rows = await db.fetch("SELECT map_id, removed FROM maps WHERE guild_id = ?", (guild_id,))
        shown = {m for m, removed in rows if not removed}
        if map_id in shown:
            raise InvalidValue("This server already has the map {name}.", name=name[:100])
        if len(shown) >= MAPS_PER_SERVER:
            raise InvalidValue("This server has {n} maps, the most it can keep: remove one first.",
                               n=MAPS_PER_SERVER)
        await db.commit(Step(
            "INSERT INTO maps (guild_id, map_id, name, added_by, data, regions, background, removed, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?) ON CONFLICT (guild_id, map_id) DO UPDATE SET "
            "removed = 0, name = excluded.name, added_by = excluded.added_by, "
            "created_at = excluded.created_at",
            (guild_id, map_id, record.name, added_by, files["map.json"], files["regions.png"],
             files.get("background.png"), now)))
        _register(map_id, files["map.json"])
        return record

    @writes
    async def remove_map(self, db: Writing, guild_id: int, map_id: str) -> MapRecord:
        """Hide a map from a server's list (its files stay for the games played on it)."""
        rows = await db.fetch("SELECT name, added_by, created_at FROM maps WHERE guild_id = ? AND "
                              "map_id = ? AND removed = 0", (guild_id, map_id))
        if not rows:
            raise InvalidValue("This server has no map {name}.", name=map_id[:100])
        await db.commit(Step("UPDATE maps SET removed = 1 WHERE guild_id = ? AND map_id = ?",
                             (guild_id, map_id)))
        name, added_by, created_at = rows[0]
        return MapRecord(guild_id, map_id, name, added_by, created_at)

    @reads
    async def list_maps(self, db: Reading, guild_id: int) -> list[MapRecord]:
        """A server's maps, oldest first."""
        rows = await db.fetch("SELECT map_id, name, added_by, created_at FROM maps WHERE guild_id = ? "
                              "AND removed = 0 ORDER BY created_at, map_id", (guild_id,))
        return [MapRecord(guild_id, m, n, a, c) for m, n, a, c in rows]

    @reads
    async def map_files(self, db: Reading, map_id: str) -> dict[str, bytes] | None:
        """The files of a stored map (of any server, removed or not), or None."""
        rows = await db.fetch("SELECT data, regions, background FROM maps WHERE map_id = ? LIMIT 1",
                              (map_id,))
        return _files(rows[0]) if rows else None


def _files(row: tuple[Any, ...]) -> dict[str, bytes]:
    return {name: bytes(blob) for name, blob in zip(MAP_FILES, row, strict=True) if blob is not None}


def read_map_files(database: str | Path, map_id: str) -> dict[str, bytes] | None:
    """The files of a stored map, read on a connection of its own (read-only for SQLite): for a renderer in a
    worker thread or process that meets a map it has not drawn yet. ``database``: a SQLite file or a
    ``postgresql://`` URL. Not for a thread that runs an event loop."""
    if isinstance(database, str) and database.startswith(("postgresql://", "postgres://")):
        return asyncio.run(_read_postgres(database, map_id))
    conn = sqlite3.connect(f"{Path(database).resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT data, regions, background FROM maps WHERE map_id = ? LIMIT 1",
                            (map_id,)).fetchall()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return _files(rows[0]) if rows else None


async def _read_postgres(url: str, map_id: str) -> dict[str, bytes] | None:
    import asyncpg

    try:
        conn = await asyncpg.connect(url)
    except (OSError, asyncpg.PostgresError):
        return None
    try:
        rows = await conn.fetch("SELECT data, regions, background FROM maps WHERE map_id = $1 LIMIT 1", map_id)
    finally:
        await conn.close()
    return _files(tuple(rows[0])) if rows else None
