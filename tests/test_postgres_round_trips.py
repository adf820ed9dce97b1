"""An action on PostgreSQL is three round trips (the lock with BEGIN, the read, the writes with COMMIT), counted
on the wire by a relay (tests/postgres_wire.py); the writes' values, written into their SQL as literals, come
back from the database exactly as they went in, and a write that fails leaves nothing behind."""

from __future__ import annotations

import math

import asyncpg
import pytest

from store import DatabaseError, PostgresStore
from store.postgres import inline, literal
from store.transaction import Step
from table.play import apply_action
from tests.postgres_wire import RoundTrips
from tests.test_store_concurrency import assert_log_matches_state, next_action, started_game


async def test_an_action_on_postgres_is_three_round_trips_and_a_read_one(postgres_url):
    async with RoundTrips(postgres_url) as trips, PostgresStore(trips.url, pool_size=1) as store:
        record = await started_game(store, 1)
        counted: list[int] = []
        for number in range(30):  # turns start and end, cards, conquests: every kind of write an action has
            before = trips.count
            result = await apply_action(store, record.id, next_action(record), interaction_id=f"tap-{number}")
            counted.append(trips.count - before)
            record = result.record
            if record.status != "running":
                break
        assert counted == [3] * len(counted), "lock with BEGIN; the game's head; the writes with COMMIT"

        before = trips.count
        again = await apply_action(store, record.id, next_action(record), interaction_id="tap-0")
        assert again.duplicate
        assert trips.count - before == 4, "lock; head; the first time's events; COMMIT"

        before = trips.count
        await store.get_game(record.id)
        assert trips.count - before == 1, "a read is one statement, and the connection goes back as it is"
        await assert_log_matches_state(store, record.id)


VALUES = [
    None, 0, 1, -1, 2**62, -(2**62), 0.0, -0.0, 1.5, -2.25, 1e-05, 1e16, 1764612345.123456, math.pi,
    "", "plain", "it's", "''", "back\\slash", "\\x41", "$1 ? ;", "-- not a comment", "/* nor this */",
    "línea\nnueva\ttab", "emoji 🎲🗺️", "E'\\n'", "dollar $$quoted$$", b"", b"\x00\x01\xff'\\",
]


async def test_values_written_as_literals_read_back_as_they_went_in(postgres_url):
    async with PostgresStore(postgres_url, pool_size=1) as store:
        async with store._transaction() as db:
            await db.commit(Step("CREATE TABLE literals (n INTEGER PRIMARY KEY, i BIGINT, f DOUBLE PRECISION, "
                                 "t TEXT, b BYTEA)"))
        rows = []
        for n, value in enumerate(VALUES):
            rows.append((n, value if isinstance(value, int) else None, value if isinstance(value, float) else None,
                         value if isinstance(value, str) else None, value if isinstance(value, bytes) else None))
        async with store._transaction() as db:
            await db.commit(Step("INSERT INTO literals (n, i, f, t, b) VALUES (?, ?, ?, ?, ?)", rows, many=True))
        async with store._reading() as db:
            stored = await db.fetch("SELECT n, i, f, t, b FROM literals ORDER BY n")
        assert stored == rows
        assert [math.copysign(1, r[2]) for r in stored if r[2] == 0.0] == [1.0, -1.0]  # -0.0 stays negative


def test_a_value_is_a_literal_of_its_own_kind_and_nothing_else_is_written():
    assert literal(None) == "NULL"
    assert literal(-3) == "(-3)"
    assert literal(float("inf")) == "'Infinity'::float8"
    assert literal(True) == "'1'"
    assert literal("a'b") == "'a''b'"
    assert literal(b"\x01") == "'\\x01'::bytea"
    assert inline("UPDATE t SET a = ? WHERE id = ?", ("x", 4)) == "UPDATE t SET a = 'x' WHERE id = 4"
    with pytest.raises(ValueError):
        inline("UPDATE t SET a = ?", ())
    with pytest.raises(TypeError):
        literal(object())


async def test_a_write_that_fails_on_postgres_leaves_nothing_and_the_connection_works_on(postgres_url):
    async with PostgresStore(postgres_url, pool_size=1) as store:
        record = await started_game(store, 1)
        async with store._transaction() as db:
            await db.commit(Step("CREATE TABLE written (n INTEGER PRIMARY KEY, t TEXT)"))
        insert = "INSERT INTO written (n, t) VALUES (?, ?)"
        with pytest.raises(asyncpg.UniqueViolationError):  # the second row fails, in the round trip of the first
            async with store._transaction() as db:
                await db.commit(Step(insert, [(1, "first"), (1, "again")], many=True))
        with pytest.raises(DatabaseError):  # refused before anything is sent
            async with store._transaction() as db:
                await db.run(Step(insert, (2, "sent")))
                await db.commit(Step(insert, (3, "nul \x00 inside")))
        async with store._reading() as db:
            assert await db.fetch("SELECT n FROM written") == []
        result = await apply_action(store, record.id, next_action(record), interaction_id="after")
        assert result.record.version == record.version + 1
        await assert_log_matches_state(store, record.id)


async def test_the_rows_of_one_write_go_in_order_as_one_statement_each_would(postgres_url):
    async with PostgresStore(postgres_url, pool_size=1) as store:
        async with store._transaction() as db:
            await db.commit(Step("CREATE TABLE keyed (k INTEGER PRIMARY KEY, v TEXT)"))
        async with store._transaction() as db:
            await db.commit(
                Step("INSERT INTO keyed (k, v) VALUES (?, ?)", [(1, "one"), (2, "two")], many=True),
                Step("INSERT INTO keyed (k, v) VALUES (?, ?) ON CONFLICT DO NOTHING", [(2, "not"), (3, "three"),
                                                                                      (3, "nor")], many=True),
                Step("INSERT INTO keyed (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v",
                     [(1, "first"), (1, "last")], many=True))
        async with store._reading() as db:
            assert await db.fetch("SELECT k, v FROM keyed ORDER BY k") == [(1, "last"), (2, "two"), (3, "three")]
