"""Persistence: games, their event logs and the bot's small tables, in SQLite or PostgreSQL.

``open_store(path)`` returns an open ``SQLiteStore``, ``store_for(setting)`` the store a database setting names
(a ``postgresql://`` URL or a SQLite file); the cogs use it through the ``Store`` interface.
"""

import os
from typing import Any

from .base import Store, StoreReader
from .errors import (
    AlreadySeated,
    ChannelBusy,
    DatabaseError,
    GameNotRunning,
    InvalidValue,
    LobbyFull,
    NotEnoughPlayers,
    NotInLobby,
    NotSeated,
    StoreError,
    UnknownGame,
    VersionConflict,
)
from .migrations import LATEST_VERSION
from .postgres import PostgresStore, is_postgres_url, redacted
from .records import (
    ACTIVE_STATUSES,
    CANCELLED,
    FINISHED,
    LOBBY,
    MAX_SEATS,
    PAUSED,
    RUNNING,
    ActionResult,
    Deadline,
    GameRecord,
    GuildSettings,
    LivePanel,
    MapRecord,
    OrdersProgress,
    SeatRecord,
    SeatStatus,
    Shards,
    StoredOrders,
    UserPrefs,
    known_time_zone,
)
from .results import FinishedGame, LeaderboardRow, PlayerStats, Rebuild, ResultRecord
from .sqlite import DEFAULT_PATH, SQLiteStore, open_store


def store_for(database: str | os.PathLike[str], *, bot: bool = False, rebuild: Rebuild | None = None,
              **options: Any) -> Store:
    """The store (not yet open) for a database setting: a ``postgresql://`` URL, or the path of a SQLite file.
    ``bot``: the bot runs on it; a SQLite file then has this one bot process (``sole_process``). ``rebuild``
    (``table.results.rebuilt``): what rates the games an old SQLite file's migrations backfill."""
    if isinstance(database, str) and is_postgres_url(database):
        return PostgresStore(database.strip(), **options)
    return SQLiteStore(database, sole_process=bot, rebuild=rebuild, **options)


__all__ = [
    "ACTIVE_STATUSES", "CANCELLED", "DEFAULT_PATH", "FINISHED", "LATEST_VERSION", "LOBBY", "MAX_SEATS", "PAUSED",
    "RUNNING", "ActionResult", "AlreadySeated", "ChannelBusy", "DatabaseError", "Deadline", "FinishedGame",
    "GameNotRunning", "GameRecord", "GuildSettings", "InvalidValue", "LeaderboardRow", "LivePanel", "LobbyFull",
    "MapRecord",
    "NotEnoughPlayers", "NotInLobby", "NotSeated", "OrdersProgress", "PlayerStats", "PostgresStore", "ResultRecord",
    "SQLiteStore", "SeatRecord", "SeatStatus", "Shards", "Store", "StoreError", "StoreReader", "StoredOrders",
    "UnknownGame",
    "UserPrefs", "VersionConflict", "is_postgres_url", "known_time_zone", "open_store", "redacted", "store_for",
]
