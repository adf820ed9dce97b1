"""Scripted players who read the games from PostgreSQL (the bot's database when it runs on a URL).

The players' reads are synchronous (``Table.snapshot``); each runs on its own asyncpg connection in a thread.
Nothing here writes to the database.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
from discord_offline.fake_discord import FakeDiscord

from .players import Snapshot, Table


class _Reader:
    """An event loop in a thread of its own, keeping one connection per database for the players' reads."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.connections: dict[str, asyncpg.Connection] = {}
        self.lock = threading.Lock()

    def start(self) -> asyncio.AbstractEventLoop:
        with self.lock:
            if self.loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="pg-reader", daemon=True).start()
                self.loop = loop
            return self.loop

    async def read(self, url: str, query: Callable[[asyncpg.Connection], Any]) -> Any:
        conn = self.connections.get(url)
        if conn is None or conn.is_closed():
            conn = self.connections[url] = await asyncpg.connect(url)
        try:
            return await query(conn)
        except (asyncpg.PostgresConnectionError, asyncpg.InterfaceError, OSError):
            await conn.close()  # the database went away (dropped at the end of a test): connect again next time
            self.connections.pop(url, None)
            raise


_reader = _Reader()


def read_postgres(url: str, query: Callable[[asyncpg.Connection], Any]) -> Any:
    """Run a read on the reader's connection to ``url`` (the players' reads are synchronous)."""
    future = asyncio.run_coroutine_threadsafe(_reader.read(url, query), _reader.start())
    return future.result(timeout=30)


def latest_game(url: str, channel_id: int) -> Snapshot | None:
    async def query(conn: asyncpg.Connection) -> Snapshot | None:
        try:
            row = await conn.fetchrow("SELECT id, status, version, last_seq, state FROM games WHERE channel_id = $1 "
                                      "ORDER BY id DESC LIMIT 1", channel_id)
        except asyncpg.UndefinedTableError:  # the bot has not created the schema yet
            return None
        if row is None:
            return None
        seats = {r["seat"]: r["user_id"] for r in await conn.fetch(
            "SELECT seat, user_id FROM players WHERE game_id = $1", row["id"])}
        return Snapshot(row["id"], row["status"], row["version"], row["last_seq"],
                        json.loads(row["state"]) if row["state"] else None, seats)
    result: Snapshot | None = read_postgres(url, query)
    return result


class PostgresTable(Table):
    """A scripted table whose players read the game from PostgreSQL."""

    def __init__(self, fake: FakeDiscord, url: str, channel_id: int, humans: list[str], **options: Any) -> None:
        super().__init__(fake, Path("/nonexistent"), channel_id, humans, **options)  # type: ignore[arg-type]
        self.url = url

    def snapshot(self) -> Snapshot | None:
        return latest_game(self.url, self.channel.id)


__all__ = ["PostgresTable", "latest_game", "read_postgres"]
