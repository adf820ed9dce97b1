"""Opening a database: new, older (upgraded in place), newer or foreign (refused untouched), and large."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest

import store.sqlite
from engine import Game, Player
from engine.ai import make_ai
from store import LATEST_VERSION, DatabaseError, UserPrefs, open_store
from store.migrations import MIGRATIONS, migrate_sync, statements


def schema(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall())
    finally:
        conn.close()


def pragma(path: Path, name: str) -> object:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"PRAGMA {name}").fetchone()[0]
    finally:
        conn.close()


async def test_a_new_database_is_created_with_its_folder_in_wal_mode(tmp_path):
    path = tmp_path / "data" / "risk.sqlite3"
    s = await open_store(path)
    await s.close()
    assert pragma(path, "user_version") == LATEST_VERSION
    assert pragma(path, "journal_mode") == "wal"
    twin = tmp_path / "twin.sqlite3"
    conn = sqlite3.connect(twin, isolation_level=None)
    assert migrate_sync(conn) == LATEST_VERSION
    conn.close()
    assert schema(path) == schema(twin)


async def test_an_older_database_is_upgraded_in_place(tmp_path):
    path = tmp_path / "risk.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    assert migrate_sync(conn, target=1) == 1
    conn.execute("INSERT INTO games (id, guild_id, channel_id, status, settings, host_id, created_at, updated_at) "
                 "VALUES (7, 1, 55, 'lobby', '{}', 900, 1.0, 1.0)")
    conn.execute("INSERT INTO players VALUES (7, 0, 900, NULL, 'Old host', 0)")
    conn.close()
    assert not {"deadlines", "user_prefs"} & {name for name, _ in schema(path)}

    async with await open_store(path) as s:
        lobby = await s.get_active_game(55)
        assert lobby.id == 7 and lobby.players[0].name == "Old host"
        await s.add_ai(7, "easy")
        await s.set_deadline(7, 0, "turn", 10.0)
        await s.set_user_prefs(UserPrefs(900, language="en-GB"))
    assert pragma(path, "user_version") == LATEST_VERSION
    assert {"deadlines", "user_prefs", "guild_settings"} <= {name for name, _ in schema(path)}


async def test_a_failing_upgrade_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "risk.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate_sync(conn, target=1)
    conn.close()
    before = schema(path)
    broken = (*MIGRATIONS, "CREATE TABLE half_done (x);\nCREATE TABLE oops (;")
    monkeypatch.setattr(store.sqlite, "MIGRATIONS", broken)
    monkeypatch.setattr(store.sqlite, "LATEST_VERSION", len(broken))
    with pytest.raises(DatabaseError):
        await open_store(path)
    assert pragma(path, "user_version") == 1
    assert schema(path) == before  # step 2 (which worked) was rolled back with the failing step 3


async def test_a_database_from_a_newer_version_is_refused_untouched(tmp_path):
    path = tmp_path / "risk.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate_sync(conn)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(DatabaseError, match="newer version"):
        await open_store(path)
    assert path.read_bytes() == before
    assert pragma(path, "journal_mode") == "delete"  # not even switched to WAL


async def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"shopping list: bread, milk\n" * 10)
    with pytest.raises(DatabaseError, match="not a SQLite database"):
        await open_store(path)
    assert path.read_bytes() == b"shopping list: bread, milk\n" * 10
    with pytest.raises(DatabaseError, match="not a file"):
        await open_store(tmp_path)


async def test_a_read_only_file_is_refused(tmp_path):
    path = tmp_path / "risk.sqlite3"
    s = await open_store(path)
    await s.close()
    before = path.read_bytes()
    path.chmod(stat.S_IRUSR | stat.S_IRGRP)
    try:
        with pytest.raises(DatabaseError, match="read-only"):
            await open_store(path)
        assert path.read_bytes() == before
    finally:
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)


def finished_game() -> tuple[str, str, list[Player]]:
    """A real finished game (its state JSON) and a state from the middle of it."""
    players = [Player(0, "Ann", "human"), Player(1, "Normal AI", "ai", "normal"), Player(2, "Easy AI", "ai", "easy")]
    game, _ = Game.new(players, "c0ffee" * 10, {"deployment": "auto"})
    middle = None
    for step in range(5000):
        if game.over:
            break
        seat = game.state.current
        game.apply(make_ai(players[seat].level or "normal", salt=str(seat)).choose(game, seat))
        if step == 100:
            middle = json.dumps(game.state.to_dict())
    assert game.over and middle is not None
    return json.dumps(game.state.to_dict()), middle, players


async def test_start_up_with_ten_thousand_stored_games_reads_only_what_it_needs(tmp_path):
    path = tmp_path / "risk.sqlite3"
    s = await open_store(path)
    await s.close()
    over, middle, players = finished_game()
    running = set(range(1, 10_001, 500))  # 20 running games among 10,000
    conn = sqlite3.connect(path)
    conn.executemany(
        "INSERT INTO games (id, guild_id, channel_id, status, settings, host_id, state, state_schema, version, "
        "last_seq, created_at, updated_at) VALUES (?, 1, ?, ?, '{}', 900, ?, 1, 50, 0, 0, 0)",
        [(i, 5000 + i, "running" if i in running else "finished", middle if i in running else over)
         for i in range(1, 10_001)])
    conn.executemany(
        "INSERT INTO players VALUES (?, ?, ?, ?, ?, ?)",
        [(i, p.seat, 900 if p.kind == "human" else None, p.level, p.name, p.seat)
         for i in range(1, 10_001) for p in players])
    conn.commit()
    conn.close()

    s = await open_store(path)
    try:
        executed: list[str] = []
        await s._conn().set_trace_callback(executed.append)
        games = await s.running_games()
        active = await s.get_active_game(5000 + 501)
        await s._conn().set_trace_callback(None)
        assert [g.id for g in games] == sorted(running)
        assert all(len(g.players) == 3 and g.state["phase"] != "over" for g in games)
        assert active is not None and active.id == 501
    finally:
        await s.close()
    # One statement for each question, however many games are stored, and each an index lookup (below).
    assert len(executed) == 2, executed
    assert any("status = 'running'" in sql for sql in executed) and any("channel_id =" in sql for sql in executed)
    conn = sqlite3.connect(path)
    for sql in executed:
        plan = " / ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
        assert "SCAN" not in plan, f"{sql} scans a table: {plan}"
        if "status = 'running'" in sql:
            assert "INDEX games_by_status" in plan
        if "channel_id =" in sql:
            assert "INDEX games_one_active_per_channel" in plan
    conn.close()


def test_every_migration_step_is_complete_sql():
    for number, script in enumerate(MIGRATIONS, 1):
        assert all(sqlite3.complete_statement(s) for s in statements(script))
        conn = sqlite3.connect(":memory:", isolation_level=None)
        migrate_sync(conn, target=number)
        assert conn.execute("PRAGMA user_version").fetchone()[0] == number
        conn.close()
    assert os.fspath(store.sqlite.DEFAULT_PATH) == os.path.join("data", "risk.sqlite3")
