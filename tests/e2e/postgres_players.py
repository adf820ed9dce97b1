"""Scripted players who read the games from PostgreSQL (the bot's database when it runs on a URL).

The players' reads are synchronous (``Table.snapshot``); each runs on its own asyncpg connection in a thread.
Nothing here writes to the database.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg

from .fake_discord import FakeDiscord
from .players import Snapshot, Table

_reader = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="pg-reader")


def read_postgres(url: str, query: Callable[[asyncpg.Connection], Any]) -> Any:
    """Run a read on its own connection in a thread (the players' reads are synchronous)."""
    async def run() -> Any:
        conn = await asyncpg.connect(url)
        try:
            return await query(conn)
        finally:
            await conn.close()
    return _reader.submit(asyncio.run, run()).result(timeout=30)


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
