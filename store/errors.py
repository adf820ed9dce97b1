"""Typed storage errors. Every refusal is a template a player or admin reads in their own language.

Like the engine's ``RuleError``, a ``StoreError`` is an ``engine.errors.TemplateError``: it carries the English
``template`` with ``{placeholders}`` and the ``params`` that fill it; ``message`` (and ``str(exc)``) is the English
text. The Discord layer translates the template, the ``Phrase`` values and the ``StatusWord`` values in it.
"""

from __future__ import annotations

from engine.errors import TemplateError


class StatusWord(str):
    """A game's status in a message ("paused", "over"...): reads as its English words and keeps the status, so
    the words can be translated (with the context ``game-status``: they read after "is", as in "Game #3 is over")."""

    status: str

    def __new__(cls, status: str, words: str) -> StatusWord:
        obj = super().__new__(cls, words)
        obj.status = status
        return obj


class StoreError(TemplateError):
    """Something the store refuses to do. Nothing was written when it is raised."""

    code = "store"


class UnknownGame(StoreError):
    code = "unknown_game"


class ChannelBusy(StoreError):
    """The channel already has a game in its lobby, running or paused."""

    code = "channel_busy"


class NotInLobby(StoreError):
    """Seats and settings change only while the game waits in its lobby."""

    code = "not_in_lobby"


class GameNotRunning(StoreError):
    """Moves are accepted only while the game is running (not in the lobby, paused, over or cancelled)."""

    code = "not_running"


class AlreadySeated(StoreError):
    code = "already_seated"


class NotSeated(StoreError):
    code = "not_seated"


class LobbyFull(StoreError):
    code = "lobby_full"


class NotEnoughPlayers(StoreError):
    code = "not_enough_players"


class VersionConflict(StoreError):
    """The game changed since the caller read it (``expected_version`` no longer matches)."""

    code = "version_conflict"


class InvalidValue(StoreError):
    """A preference, AI level or similar value the store does not accept."""

    code = "invalid_value"


class DatabaseError(StoreError):
    """The database file cannot be used: not SQLite, read-only, from a newer version, or failing."""

    code = "database"


__all__ = [
    "AlreadySeated", "ChannelBusy", "DatabaseError", "GameNotRunning", "InvalidValue", "LobbyFull",
    "NotEnoughPlayers", "NotInLobby", "NotSeated", "StatusWord", "StoreError", "UnknownGame", "VersionConflict",
]
