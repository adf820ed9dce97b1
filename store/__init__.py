"""Persistence: games, their event logs and the bot's small tables in SQLite.

``open_store(path)`` returns an open ``SQLiteStore``; the cogs use it through the ``Store`` interface.
"""

from .base import Store
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
    MapRecord,
    SeatRecord,
    SeatStatus,
    UserPrefs,
)
from .sqlite import DEFAULT_PATH, SQLiteStore, open_store

__all__ = [
    "ACTIVE_STATUSES", "CANCELLED", "DEFAULT_PATH", "FINISHED", "LATEST_VERSION", "LOBBY", "MAX_SEATS", "PAUSED",
    "RUNNING", "ActionResult", "AlreadySeated", "ChannelBusy", "DatabaseError", "Deadline", "GameNotRunning",
    "GameRecord", "GuildSettings", "InvalidValue", "LobbyFull", "MapRecord", "NotEnoughPlayers", "NotInLobby",
    "NotSeated", "SQLiteStore", "SeatRecord", "SeatStatus", "Store", "StoreError", "UnknownGame", "UserPrefs",
    "VersionConflict", "open_store",
]
