"""What is PostgreSQL's own: its migrations match SQLite's, several processes share one database, a game is
locked while it changes, and a server that cannot be used is refused in plain words."""

from __future__ import annotations

import asyncio
import sqlite3

import asyncpg
import pytest

from store import DatabaseError, PostgresStore, VersionConflict
from store.migrations import MIGRATIONS, statements
from store.postgres import dollar_params, is_postgres_url, migrate_postgres, redacted
from store.postgres_migrations import POSTGRES_MIGRATIONS
from tests.postgres_helpers import create_database, drop_database
from tests.test_store_concurrency import assert_log_matches_state, next_action, started_game


def sqlite_schema(version: int) -> dict[str, list[str]]:
    conn = sqlite3.connect(":memory:")
    for number in range(version):
        for statement in statements(MIGRATIONS[number]):
            conn.execute(statement)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    schema = {t: sorted(r[1] for r in conn.execute(f"PRAGMA table_info({t})")) for t in tables}
    schema["indexes"] = sorted(r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'"))
    return schema


async def postgres_schema(conn: asyncpg.Connection) -> dict[str, list[str]]:
    rows = await conn.fetch("SELECT table_name, column_name FROM information_schema.columns "
                            "WHERE table_schema = 'public' AND table_name <> 'store_schema'")
    schema: dict[str, list[str]] = {}
    for row in rows:
        schema.setdefault(row["table_name"], []).append(row["column_name"])
    schema = {t: sorted(c) for t, c in schema.items()}
    schema["indexes"] = sorted(r[0] for r in await conn.fetch(
        "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE '%_pkey'"))
    return schema


def test_the_postgres_migrations_are_numbered_like_the_sqlite_ones():
    assert len(POSTGRES_MIGRATIONS) == len(MIGRATIONS)


async def test_every_postgres_migration_gives_the_tables_and_columns_of_its_sqlite_twin(postgres_url):
    conn = await asyncpg.connect(postgres_url)
    try:
        for version in range(1, len(MIGRATIONS) + 1):
            assert await migrate_postgres(conn, postgres_url, target=version) == version
            assert await postgres_schema(conn) == sqlite_schema(version), f"migration {version}"
        assert await migrate_postgres(conn, postgres_url) == len(MIGRATIONS)  # a second run changes nothing
    finally:
        await conn.close()


async def test_two_postgres_processes_on_one_database_apply_each_action_once(postgres_url):
    """Two stores are two bot processes: taps and racing actions on the same games, no lost or doubled action."""
    async with PostgresStore(postgres_url) as first, PostgresStore(postgres_url) as second:
        record = await started_game(first, 1)
        for step in range(10):
            action = next_action(record)
            results = await asyncio.gather(*(
                (first if i % 2 else second).apply_action(record.id, action, interaction_id=f"tap-{step}")
                for i in range(8)))
            fresh = [r for r in results if not r.duplicate]
            assert len(fresh) == 1
            assert all(r.first_seq == fresh[0].first_seq and r.events == fresh[0].events for r in results)
            record = fresh[0].record
        action = next_action(record)
        outcomes = await asyncio.gather(*(
            (first if i % 2 else second).apply_action(record.id, action, interaction_id=f"race-{i}",
                                                      expected_version=record.version)
            for i in range(10)), return_exceptions=True)
        assert len([o for o in outcomes if not isinstance(o, BaseException)]) == 1
        assert all(isinstance(o, VersionConflict) for o in outcomes if isinstance(o, BaseException))
        assert (await first.get_game(record.id)).version == record.version + 1
        await assert_log_matches_state(second, record.id)


async def test_a_postgres_game_waits_while_another_process_holds_its_lock(postgres_url):
    async with PostgresStore(postgres_url) as store:
        record = await started_game(store, 1)
        other = await asyncpg.connect(postgres_url)
        watcher = await asyncpg.connect(postgres_url)  # outside any transaction: each look is a fresh one
        try:
            transaction = other.transaction()
            await transaction.start()
            await other.execute("SELECT id FROM games WHERE id = $1 FOR UPDATE", record.id)
            action = asyncio.ensure_future(store.apply_action(record.id, next_action(record), interaction_id="a"))
            # Wait until the action is seen waiting for a lock, however long the machine takes to get there.
            async with asyncio.timeout(60):
                while not await watcher.fetchval(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                        "AND wait_event_type = 'Lock' AND pid <> $1", other.get_server_pid()):
                    assert not action.done(), "the action waits for the game's lock"
                    await asyncio.sleep(0.01)
            assert not action.done(), "the action waits for the game's lock"
            await other.execute("UPDATE games SET updated_at = updated_at + 1 WHERE id = $1", record.id)
            await transaction.commit()
            result = await action
        finally:
            await other.close()
            await watcher.close()
        assert result.record.version == record.version + 1
        await assert_log_matches_state(store, record.id)


async def test_postgres_itself_allows_one_active_game_per_channel_and_keeps_the_log_append_only(postgres_url):
    async with PostgresStore(postgres_url) as store:
        record = await started_game(store, 1)
    conn = await asyncpg.connect(postgres_url)
    try:
        with pytest.raises(asyncpg.UniqueViolationError):
            await conn.execute("INSERT INTO games (channel_id, status, host_id, created_at, updated_at) "
                               "VALUES (1, 'lobby', 5, 0, 0)")
        with pytest.raises(asyncpg.RaiseError, match="append-only"):
            await conn.execute("DELETE FROM events WHERE game_id = $1", record.id)
        with pytest.raises(asyncpg.RaiseError, match="append-only"):
            await conn.execute("UPDATE events SET event = '{}' WHERE game_id = $1", record.id)
    finally:
        await conn.close()


async def test_a_postgres_database_from_a_newer_version_is_refused_untouched(postgres_url):
    async with PostgresStore(postgres_url):
        pass
    conn = await asyncpg.connect(postgres_url)
    try:
        await conn.execute("INSERT INTO store_schema (version) VALUES (99)")
        with pytest.raises(DatabaseError, match="newer version"):
            async with PostgresStore(postgres_url):
                pass
        assert await conn.fetchval("SELECT max(version) FROM store_schema") == 99
    finally:
        await conn.close()


async def test_an_unreachable_postgres_server_is_refused_in_plain_words_without_its_password(tmp_path):
    url = f"postgresql://bot:s3cret@/risk?host={tmp_path}&port=5999"
    with pytest.raises(DatabaseError) as refused:
        async with PostgresStore(url, command_timeout=5):
            pass
    assert "Cannot reach the PostgreSQL database" in str(refused.value)
    assert "s3cret" not in str(refused.value)


async def test_each_postgres_test_gets_an_empty_database(postgres_server):
    url = await create_database(postgres_server)
    try:
        async with PostgresStore(url) as store:
            assert await store.list_games() == []
    finally:
        await drop_database(postgres_server, url)


def test_postgres_settings_and_placeholders():
    assert is_postgres_url("postgresql://u@h/db") and is_postgres_url(" postgres://h/db")
    assert not is_postgres_url("data/risk.sqlite3")
    assert redacted("postgresql://bot:pw@db.example:5432/risk") == "postgresql://bot:***@db.example:5432/risk"
    assert redacted("postgresql://db.example/risk") == "postgresql://db.example/risk"
    assert dollar_params("SELECT ? WHERE a = ? AND b IN (?, ?)") == "SELECT $1 WHERE a = $2 AND b IN ($3, $4)"
