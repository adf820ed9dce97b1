"""What the store's SQL needs of a backend (SQLite or PostgreSQL), declared once for every part that uses it.

``Reading`` and ``Writing`` are a backend's connections as the shared SQL sees them; ``Backend`` is what the
parts of the store written on top of them (``SQLStore``, its maps and its results) are given by the backend.

A method of the store runs its database work through one of four decorators, the one mechanism for it:

- ``@reads``: the body gets a ``Reading`` connection (``_reading``) as its first argument after ``self``;
- ``@writes``: the body gets a ``Writing`` transaction (``_transaction()``): committed when the body returns
  (unless it committed with its last statements), rolled back if it raises;
- ``@writes_game``: the same for a change to one game, whose id is the method's first argument: the game's
  writes queue in this process (``_serialised``) and its row is locked against every other writer until the
  commit (``_transaction(game_id)``);
- ``@shielded``: the body alone (work that opens several reads, or a transaction with retries, itself).

Each runs the body in a task of its own (``_run``), so cancelling the caller never leaves a transaction open.
A body that must act only after the commit (remember a game, register a map) commits explicitly first. A body
never calls another decorated method of the store while it holds its connection (SQLite's single connection
would wait for itself).
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Callable, Coroutine, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar, cast

from .records import Shards
from .transaction import Row, Step

T = TypeVar("T")
P = ParamSpec("P")
B = TypeVar("B", bound="Backend")
C = TypeVar("C")
Work = Coroutine[Any, Any, T]


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

    @abc.abstractmethod
    def _serialised(self, game_id: int) -> AbstractAsyncContextManager[None]:
        """Writes to one game in this process, one at a time and in arrival order."""


def shielded(method: Callable[Concatenate[B, P], Work[T]]) -> Callable[Concatenate[B, P], Work[T]]:
    """The method runs in a task of its own: cancelling its caller does not stop it half-way."""
    @functools.wraps(method)
    async def run(self: B, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(method(self, *args, **kwargs))
    return run


async def _inside(opened: AbstractAsyncContextManager[C], method: Callable[Concatenate[B, C, P], Work[T]], self: B,
                  /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``method`` given the connection ``opened`` opens (entered in the task that runs it)."""
    async with opened as db:
        return await method(self, db, *args, **kwargs)


def reads(method: Callable[Concatenate[B, Reading, P], Work[T]]) -> Callable[Concatenate[B, P], Work[T]]:
    """The method reads through a connection it is given (after ``self``), in a task of its own."""
    @functools.wraps(method)
    async def run(self: B, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(_inside(self._reading(), method, self, *args, **kwargs))
    return run


def writes(method: Callable[Concatenate[B, Writing, P], Work[T]]) -> Callable[Concatenate[B, P], Work[T]]:
    """The method is one transaction it is given (after ``self``), in a task of its own."""
    @functools.wraps(method)
    async def run(self: B, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._run(_inside(self._transaction(), method, self, *args, **kwargs))
    return run


def writes_game(method: Callable[Concatenate[B, Writing, P], Work[T]]) -> Callable[Concatenate[B, P], Work[T]]:
    """The method is one transaction on the game whose id is its first argument (after ``self`` and the
    transaction it is given): queued behind the game's other writes in this process, the game's row locked."""
    @functools.wraps(method)
    async def run(self: B, /, *args: P.args, **kwargs: P.kwargs) -> T:
        given = cast(dict[str, Any], kwargs)
        game_id: int = given["game_id"] if "game_id" in given else cast(tuple[Any, ...], args)[0]

        async def work() -> T:
            async with self._serialised(game_id), self._transaction(game_id) as db:
                return await method(self, db, *args, **kwargs)
        return await self._run(work())
    return run


def shard_filter(shards: Shards | None, guild_column: str) -> tuple[str, tuple[int, ...]]:
    """The rows of guilds on some gateway shards (no guild: a direct message, on shard 0), as SQL on
    ``guild_column``; every row when ``shards`` is None."""
    if shards is None:
        return "1 = 1", ()
    marks = ", ".join("?" for _ in shards.ids)
    return f"((COALESCE({guild_column}, 0) >> 22) % ?) IN ({marks})", (shards.count, *shards.ids)


__all__ = ["Backend", "Reading", "Writing", "reads", "shard_filter", "shielded", "writes", "writes_game"]
