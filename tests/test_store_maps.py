"""A server's maps in the store, and the migration that brings them (and eight seats)."""

from __future__ import annotations

import sqlite3

import mapdraw
import pytest

import engine.board
from engine import Game, registered_map
from mapfiles import load_package
from store import InvalidValue, LobbyFull, open_store
from store.maps import MAPS_PER_SERVER, read_map_files
from store.migrations import migrate_sync
from table.play import start_game


@pytest.fixture(scope="module")
def package():
    blob, files = mapdraw.our_files(mapdraw.draw_world(seed=11))
    return load_package(blob, files)


async def test_an_older_database_gets_eight_seats_and_maps_keeping_its_players(tmp_path):
    path = tmp_path / "risk.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate_sync(conn, target=5)  # before step 6: eight seats and maps
    conn.execute("INSERT INTO games (id, guild_id, channel_id, status, settings, host_id, created_at, updated_at) "
                 "VALUES (7, 1, 55, 'lobby', '{}', 900, 1.0, 1.0)")
    conn.execute("INSERT INTO players VALUES (7, 0, 900, NULL, 'Old host', 0)")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO players VALUES (7, 6, NULL, 'easy', 'Seventh', 6)")
    conn.close()
    async with await open_store(path) as s:
        lobby = await s.get_active_game(55)
        assert [p.name for p in lobby.players] == ["Old host"]
        assert await s.list_maps(1) == []
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("INSERT INTO players VALUES (7, 7, NULL, 'easy', 'Eighth', 7)")   # seats 0..7 now
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO players VALUES (7, 8, NULL, 'easy', 'Ninth', 8)")
    indexes = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"players_user_once", "players_colour_once", "players_by_user", "maps_by_id"} <= indexes
    conn.close()


async def test_maps_are_added_listed_and_removed_per_server(store, package):
    files = package.files()
    added = await store.add_map(1, package.id, package.title, 900, files)
    assert added.name == "Drawn Islands"
    assert [m.map_id for m in await store.list_maps(1)] == [package.id]
    assert await store.list_maps(2) == []
    assert await store.map_files(package.id) == files
    assert registered_map(package.id) is package.board or registered_map(package.id).id == package.id
    with pytest.raises(InvalidValue, match="already has the map"):
        await store.add_map(1, package.id, package.title, 900, files)
    await store.remove_map(1, package.id)
    assert await store.list_maps(1) == []
    # Its files stay for the games played on it, and adding it again brings it back.
    assert await store.map_files(package.id) == files
    await store.add_map(1, package.id, package.title, 901, files)
    assert [m.added_by for m in await store.list_maps(1)] == [901]
    with pytest.raises(InvalidValue, match="no map"):
        await store.remove_map(2, package.id)


async def test_a_server_keeps_at_most_25_maps(store, package):
    files = package.files()
    for i in range(MAPS_PER_SERVER):
        await store.add_map(3, f"{package.id}-{i}", f"Map {i}", 900, files)
    with pytest.raises(InvalidValue, match="the most it can keep"):
        await store.add_map(3, package.id, package.title, 900, files)


async def test_stored_maps_are_registered_when_the_store_opens(tmp_path, package, monkeypatch):
    path = tmp_path / "risk.sqlite3"
    async with await open_store(path) as s:
        await s.add_map(1, package.id, package.title, 900, package.files())
    monkeypatch.setattr(engine.board, "_registered", {})
    assert registered_map(package.id) is None
    async with await open_store(path):
        assert registered_map(package.id) is not None
    assert read_map_files(path, package.id) == package.files()
    assert read_map_files(path, "nothing") is None


async def test_a_lobby_takes_as_many_players_as_its_map(store):
    blob, files = mapdraw.our_files(mapdraw.draw_world(blocks=(2, 2), cells=(4, 3), seed=12), players=8)
    big = load_package(blob, files)
    await store.add_map(1, big.id, big.title, 900, big.files())
    lobby = await store.create_lobby(1, 10, 900, "Ann", {"map": big.id})
    for _ in range(7):
        lobby = await store.add_ai(lobby.id, "easy")
    assert len(lobby.players) == 8 and sorted(p.colour for p in lobby.players) == list(range(8))
    with pytest.raises(LobbyFull, match="at most 8"):
        await store.add_ai(lobby.id, "easy")
    record, _ = await start_game(store, lobby.id)
    assert isinstance(record.game(), Game) and len(record.game().state.players) == 8
    classic = await store.create_lobby(1, 11, 900, "Ann")
    for _ in range(5):
        classic = await store.add_ai(classic.id, "easy")
    with pytest.raises(LobbyFull, match="at most 6"):
        await store.add_ai(classic.id, "easy")


async def test_a_render_worker_that_never_opened_the_store_draws_a_stored_map(tmp_path, package, monkeypatch):
    import render.geometry
    from mapfiles.registry import use_database
    from render import render_map

    path = tmp_path / "risk.sqlite3"
    async with await open_store(path) as s:
        await s.add_map(1, package.id, package.title, 900, package.files())
        state = Game.new(["a", "b", "c"], "seed", {"map": package.id})[0].state
    # A fresh worker process: no board registered, no geometry; it is only told where the database is.
    monkeypatch.setattr(engine.board, "_registered", {})
    monkeypatch.setattr(render.geometry, "_sources", {})
    monkeypatch.setattr(render.geometry, "_others", {})
    monkeypatch.setattr(render.geometry, "_resolver", None)
    use_database(path)
    assert render_map(state).width == 1600
    assert registered_map(package.id) is not None
