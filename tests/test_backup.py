"""Backups and restores (``bot.py backup`` / ``restore``), the schema steps a start would run (``bot.py schema``)
and the limits a host can see (``bot.py limits``): through ``bot.main``, on real SQLite databases."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import sys
from pathlib import Path

import pytest

import bot
from engine import Game, Place, Surrender
from engine.ai import make_ai
from engine.state import OVER
from engine.verify import verify_events
from store import LATEST_VERSION, DatabaseError, open_store
from store.backup import backup_sqlite, check, restore_sqlite
from store.migrations import migrate_sync
from store.sqlite import SQLiteStore
from table.play import apply_action, start_game

TABLES = ("games", "players", "events", "interactions", "results", "ratings", "rating_history")


def rows(path: Path, table: str) -> list[tuple[object, ...]]:
    with contextlib.closing(sqlite3.connect(path)) as conn:
        return sorted(conn.execute(f"SELECT * FROM {table}").fetchall(), key=repr)


async def game_with_moves(store: SQLiteStore, channel: int, finish: bool, turns: int = 0) -> int:
    """A game of two players: one move, or ``turns`` turns played by the easy AI for both; then, with ``finish``,
    one of them surrenders (after enough turns the game is rated)."""
    lobby = await store.create_lobby(1, channel, 100 + channel, f"host{channel}", {"deployment": "auto"})
    await store.join(lobby.id, 500 + channel, f"guest{channel}")
    record, _ = await start_game(store, lobby.id, seed=f"backup-{channel}")
    state = record.game().state
    await apply_action(store, record.id, Place(state.current, state.territories_of(state.current)[0], 1))
    while (game := (await store.get_game(record.id)).game()).state.turn < turns and game.state.phase != OVER:
        await apply_action(store, record.id, make_ai("easy").choose(game, game.state.current))
    if finish and game.state.phase != OVER:
        await apply_action(store, record.id, Surrender(1 - game.state.current))
    return record.id


def replays(path: Path) -> int:
    """Every game of the database replays from its log to its stored state; how many games there are."""
    with contextlib.closing(sqlite3.connect(path)) as conn:
        games = conn.execute("SELECT id, state FROM games WHERE state IS NOT NULL").fetchall()
        for game_id, state in games:
            events = [json.loads(e) for (e,) in conn.execute(
                "SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,))]
            if events[-1]["type"] == "game_over":  # its dice are revealed: checked against the seed
                verify_events(events)
            stored = json.loads(state)
            assert Game.from_events(events, stored["seed"]).state.to_dict() == stored, game_id
    return len(games)


async def pg_rows(url: str, table: str) -> list[tuple[object, ...]]:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return sorted((tuple(r) for r in await conn.fetch(f"SELECT * FROM {table}")), key=repr)
    finally:
        await conn.close()


def main(*args: str) -> int:
    return bot.main([*args])


async def test_a_backup_taken_while_the_bot_writes_is_one_consistent_moment(tmp_path: Path):
    database = tmp_path / "risk.sqlite3"
    store = await open_store(database)
    try:
        for channel in range(3):
            await game_with_moves(store, channel, finish=channel == 0)

        async def keep_writing() -> None:
            for channel in range(10, 40):
                await game_with_moves(store, channel, finish=channel % 2 == 0)

        writing = asyncio.create_task(keep_writing())
        backups = []
        while not writing.done():  # backups while games are created, played and finished
            target = tmp_path / f"backup-{len(backups)}.sqlite3"
            await asyncio.to_thread(backup_sqlite, database, target)
            backups.append(target)
            await asyncio.sleep(0.01)
        await writing
        assert len(backups) >= 2
        for target in backups:
            assert check(target).version == LATEST_VERSION
            assert replays(target) >= 3  # each game whole: never a move without its state, nor the reverse
            assert target.stat().st_mode & 0o077 == 0  # the owner's only: the games hold hidden cards
        assert main("backup", "--db", str(database), str(tmp_path / "final.sqlite3")) == 0  # the bot still runs
    finally:
        await store.close()
    final = tmp_path / "final.sqlite3"
    for table in TABLES:
        assert rows(final, table) == rows(database, table), table
    assert replays(final) == 33
    # A backup never overwrites a file.
    assert main("backup", "--db", str(database), str(final)) == 1


async def test_restore_checks_the_backup_refuses_a_database_in_use_and_keeps_what_it_replaces(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    source = tmp_path / "risk.sqlite3"
    async with await open_store(source) as store:
        for channel in range(2):
            await game_with_moves(store, channel, finish=True, turns=8)
    backup = tmp_path / "backup.sqlite3"
    assert main("backup", "--db", str(source), str(backup)) == 0

    # Into a fresh database: every game, event and rating.
    fresh = tmp_path / "fresh" / "risk.sqlite3"
    assert main("restore", "--db", str(fresh), str(backup)) == 0
    assert "2 games" in capsys.readouterr().out
    for table in TABLES:
        assert rows(fresh, table) == rows(source, table), table
    assert rows(fresh, "ratings") and replays(fresh) == 2
    async with await open_store(fresh) as store:  # the bot runs on it
        assert len(await store.list_games("finished")) == 2

    # A database a bot runs on is refused, untouched.
    running = SQLiteStore(fresh, sole_process=True)
    await running.open()
    try:
        async with await open_store(tmp_path / "other.sqlite3") as other:
            await game_with_moves(other, 9, finish=False)
        before = rows(fresh, "games")
        assert main("restore", "--db", str(fresh), str(tmp_path / "other.sqlite3")) == 1
        assert "in use by another bot process" in capsys.readouterr().err
        assert rows(fresh, "games") == before
    finally:
        await running.close()

    # A damaged backup, a file that is no database, a backup from a newer version: refused before anything changes.
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(backup.read_bytes()[: backup.stat().st_size // 2])
    newer = tmp_path / "newer.sqlite3"
    newer.write_bytes(backup.read_bytes())
    with contextlib.closing(sqlite3.connect(newer)) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    (tmp_path / "text.sqlite3").write_text("not a database")
    before_bytes = fresh.read_bytes()
    for bad, words in ((damaged, "damaged"), (newer, "newer version"), (tmp_path / "text.sqlite3", "not a SQLite")):
        with pytest.raises(DatabaseError, match=words):
            restore_sqlite(bad, fresh)
    assert fresh.read_bytes() == before_bytes

    # Over a database with games: the replaced one is kept beside it.
    restored, kept = restore_sqlite(tmp_path / "other.sqlite3", fresh)
    assert kept is not None and kept.exists()
    assert rows(kept, "games") == rows(source, "games")
    _, again = restore_sqlite(tmp_path / "other.sqlite3", fresh)  # at once again: the first copy stays
    assert again is not None and again != kept and rows(again, "games") == rows(tmp_path / "other.sqlite3", "games")
    assert restored.counts["games"] == 1 and len(rows(fresh, "games")) == 1


def test_schema_says_which_steps_a_start_would_run_and_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    # A database made by the first released schema, with a lobby in it.
    path = tmp_path / "first.sqlite3"
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as conn:
        assert migrate_sync(conn, target=1) == 1
        conn.execute("INSERT INTO games (id, guild_id, channel_id, status, settings, host_id, created_at, updated_at) "
                     "VALUES (7, 1, 55, 'lobby', '{\"deployment\": \"auto\"}', 900, 1.0, 1.0)")
        conn.execute("INSERT INTO players VALUES (7, 0, 900, NULL, 'Old host', 0)")
    before = path.read_bytes()
    assert main("schema", "--db", str(path)) == 0
    out = capsys.readouterr().out
    assert f"database version 1; the next start runs {LATEST_VERSION - 1} steps to version {LATEST_VERSION}" in out
    assert "  2: tables deadlines, user_prefs, guild_settings" in out
    assert f"  {LATEST_VERSION}: " in out and "  1: " not in out
    assert path.read_bytes() == before

    # The start upgrades it by itself; the old lobby plays on.
    async def upgrade() -> str:
        async with await open_store(path) as store:
            await store.join(7, 901, "New guest")
            record, _ = await start_game(store, 7, seed="first")
            return record.status

    assert asyncio.run(upgrade()) == "running"
    assert main("schema", "--db", str(path)) == 0
    assert f"database version {LATEST_VERSION}, up to date" in capsys.readouterr().out

    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    assert main("schema", "--db", str(path)) == 0
    assert "newer than this bot's" in capsys.readouterr().out


def test_limits_lists_the_configured_and_the_fixed_limits(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    config = tmp_path / "config.toml"
    config.write_text("games_per_server = 7\nrounds_without_humans = 0\n", encoding="utf-8")
    assert main("--config", str(config), "limits") == 0
    out = capsys.readouterr().out
    assert "games_per_server = 7  [25]" in out and "rounds_without_humans = 0  [200]" in out
    assert "lobbies_per_user = 2" in out and "maps per server: 25" in out and "size of a map upload: 20 MiB" in out


async def test_a_postgres_backup_restores_into_an_empty_database_only(
        postgres_server: str, postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import pgserver

    from store.backup import backup, restore
    from store.postgres import open_postgres
    from tests.postgres_helpers import create_database, drop_database

    # PostgreSQL's client tools, from the server the tests run (a host installs postgresql-client).
    tools = Path(pgserver.__file__).parent / "pginstall" / "bin"
    monkeypatch.setenv("PATH", f"{tools}:{Path(sys.executable).parent}:/usr/bin:/bin")
    store = await open_postgres(postgres_url)
    try:
        for channel in range(2):
            await game_with_moves(store, channel, finish=True, turns=8)  # type: ignore[arg-type]
        dump = tmp_path / "risk.dump"
        [line] = await asyncio.to_thread(backup, postgres_url, dump)
        assert dump.is_file() and "pg_dump" in line
        with pytest.raises(DatabaseError, match="exists already"):
            await asyncio.to_thread(backup, postgres_url, dump)
        # The database the bot runs on is not empty: refused, whatever the dump.
        with pytest.raises(DatabaseError, match="already holds the bot's tables"):
            await asyncio.to_thread(restore, dump, postgres_url)
        fresh = await create_database(postgres_server)
        try:
            await asyncio.to_thread(restore, dump, fresh)
            copy = await open_postgres(fresh)
            try:
                for status in ("finished", "running"):
                    assert [g.id for g in await copy.list_games(status)] == \
                        [g.id for g in await store.list_games(status)]
                for game in await store.list_games("finished"):
                    assert await copy.events(game.id) == await store.events(game.id)
                    verify_events(await copy.events(game.id))
            finally:
                await copy.close()
            for table in ("ratings", "rating_history", "results", "interactions"):
                before, after = await pg_rows(postgres_url, table), await pg_rows(fresh, table)
                assert before == after, table
            assert await pg_rows(fresh, "ratings")
        finally:
            await drop_database(postgres_server, fresh)
        bad = tmp_path / "bad.dump"
        bad.write_bytes(b"not a dump")
        with pytest.raises(DatabaseError, match="pg_restore --list failed"):
            await asyncio.to_thread(restore, bad, postgres_url)
    finally:
        await store.close()
