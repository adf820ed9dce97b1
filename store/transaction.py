"""Statements sent to aiosqlite's thread in batches.

aiosqlite runs each statement on its own thread and hands the result back to the event loop: one round trip
per statement, which costs more than the statement itself (tens to hundreds of microseconds, depending on how
busy the machine is). A write here is a few statements, so ``Transaction`` sends them in batches: ``BEGIN
IMMEDIATE`` travels with the first statement, ``COMMIT`` with the last. An action is two round trips (begin
and read the game; write and commit) instead of six; the engine applies the action between them, on the
event loop.

aiosqlite queues callables for its thread with ``Connection._execute`` (the method behind all of its own
calls) and keeps the ``sqlite3`` connection in ``Connection._conn``. Neither is public: aiosqlite is pinned
to 0.22 in pyproject.toml, and this module is the only place that reaches inside it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import aiosqlite

if not callable(getattr(aiosqlite.Connection, "_execute", None)):  # pragma: no cover - a guard for upgrades
    raise ImportError("store needs aiosqlite 0.22 (Connection._execute); see store/transaction.py")

Row = tuple[Any, ...]
T = TypeVar("T")


@dataclass(frozen=True)
class Step:
    """One SQL statement; with ``many`` its ``params`` is a list of parameter rows (``executemany``)."""

    sql: str
    params: Sequence[Any] = ()
    many: bool = False


BEGIN = Step("BEGIN IMMEDIATE")
COMMIT = Step("COMMIT")


def _execute_steps(conn: sqlite3.Connection, steps: Iterable[Step]) -> list[Row]:
    """Run statements in order (on the connection's thread); return the rows of the last one."""
    rows: list[Row] = []
    for step in steps:
        if step.many:
            conn.executemany(step.sql, step.params)
            rows = []
        else:
            rows = conn.execute(step.sql, step.params).fetchall()
    return rows


async def _on_thread(db: aiosqlite.Connection, work: Callable[[], T]) -> T:
    """``work()`` on aiosqlite's thread."""
    # aiosqlite leaves its private ``_execute`` unannotated.
    result: T = await db._execute(work)  # type: ignore[no-untyped-call]
    return result


async def run_steps(db: aiosqlite.Connection, steps: Sequence[Step]) -> list[Row]:
    """Run statements back to back on aiosqlite's thread, in one round trip."""

    def work() -> list[Row]:
        return _execute_steps(db._conn, steps)

    return await _on_thread(db, work)


async def run_on_connection(db: aiosqlite.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """``work(connection)`` on aiosqlite's thread, with the plain ``sqlite3`` connection (migration steps)."""

    def call() -> T:
        return work(db._conn)

    return await _on_thread(db, call)


class Reader:
    """Reads on the shared connection (outside any transaction)."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await run_steps(self.db, (Step(sql, params),))


class Transaction(Reader):
    """One ``BEGIN IMMEDIATE ... COMMIT``. The first batch begins it; ``commit`` ends it with its last batch."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        super().__init__(db)
        self.begun = False
        self.committed = False

    async def run(self, *steps: Step) -> list[Row]:
        """Run statements inside the transaction; return the rows of the last one."""
        if self.committed:
            raise RuntimeError("the transaction is already committed")
        batch = steps if self.begun else (BEGIN, *steps)
        self.begun = True
        return await run_steps(self.db, batch)

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return await self.run(Step(sql, params))

    async def commit(self, *steps: Step) -> None:
        """Run the last statements and commit, in one round trip."""
        await self.run(*steps, COMMIT)
        self.committed = True


__all__ = ["BEGIN", "COMMIT", "Reader", "Row", "Step", "Transaction", "run_on_connection", "run_steps"]
