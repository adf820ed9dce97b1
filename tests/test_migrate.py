"""``bot.py migrate``: a SQLite database copied to PostgreSQL (and back) with every game checked by replaying its
log; a second run adds nothing; the games play on in the new database."""

from __future__ import annotations

import json
import sqlite3

import pytest
from command_line import bot_main, bot_py

from store import DatabaseError, GuildSettings, PostgresStore, SQLiteStore, UserPrefs
from store.transfer import transfer
from table.play import apply_action, start_game
from table.seasons import Seasons
from tests.test_store_concurrency import assert_log_matches_state, next_action

TABLES = ("games", "players", "events", "interactions", "deadlines", "user_prefs", "guild_settings", "seat_status",
          "turns", "results", "ratings", "rating_history",
          "announced", "maps", "live_panels", "log_turns", "seat_holders", "seasons", "ladder_ratings", "season_games",
          "tournaments", "tournament_entrants", "tournament_pairings", "tournament_results", "tournament_teams",
          "board_revocations", "rated_opponents", "tournament_invites", "standing_orders")


async def fill(store) -> dict[str, int]:
    """A database with a game of every kind: played for a while, finished, in its lobby, cancelled, and timers,
    preferences, settings, missed turns."""
    await store.set_guild_settings(GuildSettings(10, {"turn_deadline": 86400}, (100, 101)))
    await store.set_user_prefs(UserPrefs(1000, "nb", "dm", "22:00", "07:00", "Europe/Oslo"))
    await store.revoke_session("a-left-session", 4_000_000_000.0, 1_700_000_000.0)   # a board session ended by Leave
    ids = {}
    for channel, plays in ((100, 30), (101, 10_000)):
        lobby = await store.create_lobby(10, channel, 1000, "Ann", {"deployment": "auto"})
        await store.add_ai(lobby.id, "normal")
        await store.add_ai(lobby.id, "easy")
        record, _ = await start_game(store, lobby.id)
        for n in range(plays):
            if record.status != "running":
                break
            record = (await apply_action(store, record.id, next_action(record), interaction_id=f"{channel}-{n}")).record
        ids[f"played{channel}"] = record.id
    assert (await store.get_game(ids["played101"])).status == "finished"
    running = await store.get_game(ids["played100"])
    await store.set_deadline(running.id, 0, "turn|t9", 5000.0)
    await store.record_missed_turn(running.id, 0, "t8")
    await store.leave_orders(running.id, 0, 1000, {"place": [{"territory": "front", "count": None}]})   # a plan
    ids["lobby"] = (await store.create_lobby(None, 102, 1000, "Ann")).id
    cancelled = await store.create_lobby(10, 103, 1000, "Ann")
    await store.cancel(cancelled.id)
    await store.start_season(10, 100, 30, 1000, 1_700_000_000.0)
    return ids


async def counts(store) -> dict[str, int]:
    async with store._reading() as db:
        return {t: (await db.fetch(f"SELECT count(*) FROM {t}"))[0][0] for t in TABLES}


async def test_a_sqlite_database_migrated_to_postgres_plays_on_there(tmp_path, postgres_url):
    path = tmp_path / "risk.sqlite3"
    async with SQLiteStore(path) as source:
        ids = await fill(source)
        before = await counts(source)
        games = await source.list_games()
    report = await transfer(str(path), postgres_url)
    assert report.games == report.verified == len(games) == 4 and report.conflicts == []
    assert report.added == {t: before[t] for t in report.added} and set(report.added) == set(TABLES)

    again = await transfer(str(path), postgres_url)  # safe to run twice: nothing new to add
    assert set(again.added.values()) == {0} and again.verified == 4

    async with PostgresStore(postgres_url) as target:
        assert await counts(target) == before
        assert await target.list_games() == games
        assert await target.get_user_prefs(1000) == UserPrefs(1000, "nb", "dm", "22:00", "07:00", "Europe/Oslo")
        assert (await target.get_guild_settings(10)).allowed_channels == (100, 101)
        assert [(d.kind, d.due_at) for d in await target.game_deadlines(ids["played100"])] == [("turn|t9", 5000.0)]
        assert (await target.seat_status(ids["played100"], 0)).missed == 1
        record = await target.get_game(ids["played100"])
        repeat = await apply_action(target, record.id, next_action(record), interaction_id="100-3")
        assert repeat.duplicate  # interaction ids came along: a late retry is not applied twice
        played = await apply_action(target, record.id, next_action(record), interaction_id="after-move")
        assert not played.duplicate and played.record.version == record.version + 1
        await assert_log_matches_state(target, record.id)
        fresh = await target.create_lobby(10, 200, 1000, "Ann")  # new ids follow the copied ones
        assert fresh.id == max(g.id for g in games) + 1
        assert await Seasons(target, lambda: 1_700_000_100.0).end(10, 1000) is not None  # the season came along,
        assert (await target.start_season(10, 100, 30, 1000, 1_700_000_200.0)).number == 2  # a new one a new id

    # The games moved on in PostgreSQL: copying the old file again leaves that game alone and says so.
    third = await transfer(str(path), postgres_url)
    assert third.conflicts == [ids["played100"]] and third.verified == 3

    back = tmp_path / "back.sqlite3"  # a new file: the copy creates it
    report = await transfer(postgres_url, str(back))
    assert report.verified == report.games == 5
    async with SQLiteStore(back) as copy:
        assert (await copy.get_game(ids["played100"])).version == played.record.version
        await assert_log_matches_state(copy, ids["played100"])


async def test_a_copy_to_postgres_that_does_not_replay_is_refused(tmp_path, postgres_url):
    path = tmp_path / "risk.sqlite3"
    async with SQLiteStore(path) as source:
        ids = await fill(source)
    db = sqlite3.connect(path)
    state = db.execute("SELECT state FROM games WHERE id = ?", (ids["played100"],)).fetchone()[0]
    db.execute("UPDATE games SET state = ? WHERE id = ?", (state.replace('"turn":', '"turn":1', 1), ids["played100"]))
    db.commit()
    db.close()
    with pytest.raises(DatabaseError, match="does not replay to its stored state"):
        await transfer(str(path), postgres_url)


async def test_bot_py_migrate_to_postgres_and_games_and_export_from_it(tmp_path, postgres_url, capsys):
    path = tmp_path / "risk.sqlite3"
    async with SQLiteStore(path) as source:
        await fill(source)
    done = bot_py("migrate", "--from", str(path), "--to", postgres_url)  # as the README writes it; then via main
    assert done.returncode == 0, done.stderr
    assert "games: 4 in the source, 4 replayed and verified in the target" in done.stdout
    assert "events:" in done.stdout
    listed = await bot_main(capsys, "games", "--db", postgres_url, "--shard-count", "2")
    assert listed.returncode == 0, listed.stderr
    rows = [line.split() for line in listed.stdout.splitlines()]
    assert rows[0][:4] == ["id", "guild", "shard", "channel"] and len(rows) == 5
    assert {row[2] for row in rows[1:] if row[1] == "10"} == {str((10 >> 22) % 2)}
    exported = await bot_main(capsys, "export", "--db", postgres_url, "--channel", "101", "--out", "-")
    assert exported.returncode == 0, exported.stderr
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    assert lines[0]["type"] == "game_started" and lines[-1]["type"] == "game_over" and "seed" in lines[-1]
    missing = await bot_main(capsys, "migrate", "--from", str(tmp_path / "nope.sqlite3"), "--to", postgres_url)
    assert missing.returncode == 1 and "There is no database at" in missing.stderr
    same = await bot_main(capsys, "migrate", "--from", postgres_url, "--to", postgres_url)
    assert same.returncode == 1 and "the same database" in same.stderr
