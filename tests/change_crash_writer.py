"""A writer for the change crash test (tests/test_change_crash.py): makes one change to a game and is killed
before its n-th SQL statement.

    python tests/change_crash_writer.py DATABASE NOW KILL_AT SCENARIO ARGUMENT

DATABASE is a SQLite file or a PostgreSQL URL; NOW the table's clock. On SQLite the statements of the scenario are
counted as the store sends them (each statement of a batch on its own); on PostgreSQL its round trips in a
transaction (a simple query of several statements goes to the server whole). Just before the one numbered KILL_AT
the process kills itself with SIGKILL. SCENARIO is ``ballot`` (ARGUMENT: the game, the seat and the vote's key,
as JSON: the last ballot, which closes a vote that passes and ends the game) or ``move`` (ARGUMENT: the game and
the action as JSON: the last move of a freestyle round, which opens the next one). It prints how many statements
the scenario sent when it was not killed.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import action_from_dict
from store import SQLiteStore, Store, store_for, transaction
from store.postgres import PostgresTransaction, is_postgres_url
from table import Table

sent = 0
kill_at = 0


def _counted(conn: sqlite3.Connection, steps: Iterable[transaction.Step]) -> list[transaction.Row]:
    """``store.transaction._execute_steps``, killed before the statement numbered ``kill_at``."""
    global sent
    rows: list[transaction.Row] = []
    for step in steps:
        sent += 1
        if sent == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        rows = _plain(conn, (step,))
    return rows


def _round_trip() -> None:
    global sent
    sent += 1
    if sent == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)


_plain_send, _plain_fetch = PostgresTransaction._send, PostgresTransaction.fetch


async def _send(self: PostgresTransaction, written: list[str]) -> None:
    _round_trip()
    await _plain_send(self, written)


async def _fetch(self: PostgresTransaction, sql: str, params: Any = ()) -> list[transaction.Row]:
    _round_trip()
    return await _plain_fetch(self, sql, params)


def counting(on: bool) -> None:
    """Count (and kill at) the scenario's statements, or stop counting."""
    transaction._execute_steps = _counted if on else _plain
    PostgresTransaction._send = _send if on else _plain_send  # type: ignore[method-assign]
    PostgresTransaction.fetch = _fetch if on else _plain_fetch  # type: ignore[method-assign]


async def main(database: str, now: float, scenario: str, argument: dict[str, Any]) -> None:
    global sent
    store: Store = store_for(database, clock=lambda: now) if is_postgres_url(database) else \
        SQLiteStore(database, checkpoint_interval=None, clock=lambda: now)
    async with store:
        table = Table(store, lambda: now)
        record = await store.get_game(argument["game"])
        sent = 0
        counting(True)
        if scenario == "ballot":
            await table.cast_ballot(record.id, argument["seat"], argument["key"], True)
        else:
            await table.apply(record, action_from_dict(argument["action"]))
        counting(False)
    print(sent, flush=True)


_plain = transaction._execute_steps

if __name__ == "__main__":
    kill_at = int(sys.argv[3])
    asyncio.run(main(sys.argv[1], float(sys.argv[2]), sys.argv[4], json.loads(sys.argv[5])))
