"""What the store's SQL needs of a backend (SQLite or PostgreSQL), declared once for every part that uses it.

``Reading`` and ``Writing`` are a backend's connections as the shared SQL sees them; ``Backend`` is what the
parts of the store written on top of them (``SQLStore``, its maps and its results) are given by the backend.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Coroutine, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, TypeVar

from .records import Shards
from .transaction import Row, Step

T = TypeVar("T")


class Reading(Protocol):
    """Reads on a backend's connection."""

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...


class Writing(Reading, Protocol):
    """One transaction: ``run`` statements in it, ``commit`` the last ones with it.

    The steps of one call travel together, in as few round trips as the backend can (SQLite: one batch for
    the connection's thread; PostgreSQL: one simple query of several statements, the last step of ``run``
    apart), so only the last step's rows come back, and a failing step stops the ones after it."""

    async def run(self, *steps: Step) -> list[Row]: ...

    async def commit(self, *steps: Step) -> None: ...


class Backend(abc.ABC):
    """A connection to a database: transactions, reads, work shielded from cancellation, and a clock."""

    _clock: Callable[[], float]

    @abc.abstractmethod
    def _transaction(self, game_id: int | None = None) -> AbstractAsyncContextManager[Writing]:
        """One atomic write: committed at the end of the block unless the block committed it; any exception
        rolls it back. With ``game_id`` the game is locked against every other writer (other processes
        included) before the block reads anything, until the commit."""

    @abc.abstractmethod
    def _reading(self) -> AbstractAsyncContextManager[Reading]:
        """A connection for reads, each a single statement (one consistent moment)."""

    @abc.abstractmethod
    async def _run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run database work in its own task, so cancelling the caller never leaves a transaction open."""


def shard_filter(shards: Shards | None, guild_column: str) -> tuple[str, tuple[int, ...]]:
    """The rows of guilds on some gateway shards (no guild: a direct message, on shard 0), as SQL on
    ``guild_column``; every row when ``shards`` is None."""
    if shards is None:
        return "1 = 1", ()
    marks = ", ".join("?" for _ in shards.ids)
    return f"((COALESCE({guild_column}, 0) >> 22) % ?) IN ({marks})", (shards.count, *shards.ids)


__all__ = ["Backend", "Reading", "Writing", "shard_filter"]
