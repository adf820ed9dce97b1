"""Results and ratings of finished games: written with game_over, per seat; free-for-all, teams, the AI taking
a seat over, surrender; a rebuild gives exactly the ratings the games gave one by one; the migration fills
the results of games that ended before it."""

from __future__ import annotations

import asyncio
import sqlite3
import statistics
from pathlib import Path
from typing import Any

import pytest

from engine import Surrender
from engine.ai import make_ai
from engine.summary import placements, turns_played
from ratings import EARLY_TURNS, MIN_GAMES, Rating, SeatResult, rate_game
from store import DatabaseError, GameRecord, SQLiteStore
from store.migrations import LATEST_VERSION
from table.play import apply_action, start_game
from table.results import rebuild_ratings, rebuilt

GUILD, CHANNEL = 10, 100
ALICE, BOB, CAROL, DAVE = 1001, 1002, 1003, 1004


class Clock:
    """Seven seconds pass every time the store looks at the time."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 7
        return self.now


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path):
    """A fresh store with a clock that moves 7 s a call, on each backend."""
    if request.param == "sqlite":
        s = SQLiteStore(tmp_path / "risk.sqlite3", clock=Clock(), checkpoint_interval=None)
        await s.open()
        yield s
        await s.close()
        return
    from store.postgres import open_postgres
    from tests.postgres_helpers import create_database, drop_database

    server = request.getfixturevalue("postgres_server")
    url = await create_database(server)
    s = await open_postgres(url, clock=Clock())
    try:
        yield s
    finally:
        await s.close()
        await drop_database(server, url)


async def new_game(store: SQLiteStore, humans: list[tuple[int, str]], ais: tuple[str, ...] = (),
                   guild: int = GUILD, channel: int = CHANNEL, seed: str = "results", **settings: object
                   ) -> GameRecord:
    (host, host_name), *others = humans
    lobby = await store.create_lobby(guild, channel, host, host_name)
    for user, name in others:
        await store.join(lobby.id, user, name)
    for level in ais:
        await store.add_ai(lobby.id, level)
    await store.update_settings(lobby.id, {"deployment": "auto", **settings})
    record, _ = await start_game(store, lobby.id, seed=seed)
    return record


async def play(store: SQLiteStore, record: GameRecord, until=None) -> GameRecord:
    """Every seat plays as the normal AI would, until the game ends (or ``until(state)`` holds). The normal AI
    ends a game in a few hundred actions, where three easy AIs take thousands (each one a transaction)."""
    while record.status == "running":
        game = record.game()
        if until is not None and until(game.state):
            break
        seat = game.state.current
        result = await apply_action(store, record.id, make_ai("normal", salt=str(seat)).choose(game, seat))
        record = result.record
    return record


async def db_exec(store: Any, sql: str, *params: Any) -> None:
    """One statement in a transaction of its own, on either backend."""
    from store.transaction import Step

    async with store._transaction() as db:
        await db.run(Step(sql, params))


async def db_rows(store: Any, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Rows of a query, on either backend."""
    async with store._reading() as db:
        return [tuple(row) for row in await db.fetch(sql, params)]


async def test_a_free_for_all_stores_one_result_per_seat_with_game_over(store):
    record = await play(store, await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], ("easy",)))
    assert record.status == "finished"
    events = await store.events(record.id)
    results = await store.results(record.id)
    assert [r.seat for r in results] == [0, 1, 2]
    places = placements(events)
    assert {r.seat: r.placement for r in results} == places and sorted(places.values()) == [1, 2, 3]
    turns = turns_played(events)
    for r in results:
        assert r.turns == turns[r.seat]
        assert r.game_turns == max(e["turn"] for e in events if e["type"] == "turn_started")
        assert r.missed == 0 and not r.ai_took_over and r.guild_id == GUILD and r.channel_id == CHANNEL
    ai = results[2]
    assert (ai.user_id, ai.ai_level, ai.ai_turns) == (None, "easy", ai.turns)
    alice = results[0]
    assert (alice.user_id, alice.name, alice.ai_turns) == (ALICE, "Alice", 0)
    times = [e - s for s, e in await db_rows(store, "SELECT started_at, ended_at FROM turns WHERE game_id = ? "
                                              "AND seat = 0", record.id)]
    assert alice.median_move == statistics.median(times) > 0
    # The ratings moved in the same transaction: the winner up, the others by their placement.
    ratings = await store.ratings(GUILD)
    assert set(ratings) == {ALICE, BOB}
    winner = next(r for r in results if r.placement == 1)
    if winner.user_id is not None:
        assert ratings[winner.user_id].mu > 25 and ratings[winner.user_id].wins == 1
    assert all(x.games == 1 for x in ratings.values())
    history = await store.rating_history(GUILD, ALICE)
    assert [(g, x.mu) for g, x in history] == [(record.id, ratings[ALICE].mu)]


async def test_teams_share_their_placement_and_are_rated_as_teams(store):
    record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")],
                            teams="2v2")
    record = await play(store, record)
    results = await store.results(record.id)
    team_of = {r.seat: r.team for r in results}
    assert sorted(set(team_of.values())) == [0, 1]
    for team in (0, 1):
        assert len({r.placement for r in results if r.team == team}) == 1
    assert sorted(r.placement for r in results) == [1, 1, 2, 2]  # placed by team
    ratings = await store.ratings(GUILD)
    winners = [r.user_id for r in results if r.placement == 1]
    losers = [r.user_id for r in results if r.placement == 2]
    assert all(ratings[u].mu > 25 for u in winners) and all(ratings[u].mu < 25 for u in losers)
    assert ratings[winners[0]].mu == pytest.approx(ratings[winners[1]].mu)  # equal ratings, equal change


async def test_a_surrender_places_the_player_after_everyone_who_outlasted_them(store):
    record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], ("easy", "easy"))
    record = await play(store, record, until=lambda s: s.turn >= 3)
    record = (await apply_action(store, record.id, Surrender(0))).record
    record = await play(store, record)
    results = {r.seat: r for r in await store.results(record.id)}
    assert results[0].placement == 4
    assert (await store.ratings(GUILD))[ALICE].mu < 25


async def test_a_seat_the_ai_took_over_is_marked_and_weighted_down(store):
    record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], ("easy",))
    record = await play(store, record, until=lambda s: s.turn >= 3 * EARLY_TURNS + 2 and s.current == 1)
    # Bob played his first turns (enough not to have left early); then his time runs out (the AI plays the turn),
    # and his seat is given to the AI for good.
    await store.record_missed_turn(record.id, 1, "t")
    record = await store.replace_with_ai(record.id, 1, "easy")
    record = await play(store, record)
    results = {r.seat: r for r in await store.results(record.id)}
    bob = results[1]
    assert bob.user_id == BOB and bob.ai_took_over and bob.ai_level == "easy"
    assert bob.missed == 1 and bob.ai_turns == bob.turns - EARLY_TURNS and bob.human_share < 0.5
    # His rating moved by the share of the turns he played, not as if he had played the game.
    full = rate_game({}, [SeatResult(r.user_id, r.ai_level, r.placement, r.team) for r in results.values()])
    moved = abs((await store.ratings(GUILD))[BOB].mu - 25)
    assert moved == pytest.approx(abs(full[BOB].mu - 25) * max(0.1, bob.human_share))
    assert moved < abs(full[BOB].mu - 25)
    stats = await store.player_stats(GUILD, BOB, minimum=MIN_GAMES)
    assert stats is not None and stats.reliability == pytest.approx((bob.turns - bob.ai_turns)
                                                                    / (bob.turns - bob.ai_turns + 1))


def test_beating_an_easy_ai_counts_less_than_beating_a_normal_one():
    easy = rate_game({}, [SeatResult(ALICE, None, 1), SeatResult(None, "easy", 2)])[ALICE]
    normal = rate_game({}, [SeatResult(ALICE, None, 1), SeatResult(None, "normal", 2)])[ALICE]
    assert 25 < easy.mu < normal.mu


async def test_rebuilding_the_ratings_gives_exactly_the_ratings_of_the_games_one_by_one(store):
    players = [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
    for n in range(7):
        humans = [players[(n + i) % 4] for i in range(2 + n % 3)]
        guild = GUILD if n % 4 else GUILD + 1
        record = await new_game(store, humans, ("easy",) if n % 2 else (), guild=guild, channel=CHANNEL + n,
                                seed=f"rebuild-{n}")
        if n:  # one game played out; the others, a few turns and then resignations (in varied orders) end them
            record = await play(store, record, until=lambda s, n=n: s.turn > 2 + n)
            seats = list(record.game().state.active_seats())
            for seat in (seats[1:] if n % 2 else seats[:-1]):
                record = (await apply_action(store, record.id, Surrender(seat))).record
        await play(store, record)
    ratings_sql = ("SELECT guild_id, user_id, name, mu, sigma, score, games, wins, trusted, established FROM ratings "
                   "ORDER BY 1, 2")
    met_sql = "SELECT guild_id, user_id, opponent_id, trusted FROM rated_opponents ORDER BY 1, 2, 3"
    history_sql = "SELECT guild_id, user_id, game_id, mu, sigma, score, games FROM rating_history ORDER BY 1, 2, 3"
    incremental = await db_rows(store, ratings_sql), await db_rows(store, history_sql), await db_rows(store, met_sql)
    assert len(incremental[1]) > len(incremental[0]) > 0 and incremental[2]
    assert await rebuild_ratings(store) == 7
    assert (await db_rows(store, ratings_sql), await db_rows(store, history_sql),
            await db_rows(store, met_sql)) == incremental


async def test_the_leaderboard_shows_players_with_enough_games_best_first(store):
    for n in range(MIN_GAMES):
        await play(store, await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], channel=CHANNEL + n,
                                         seed=f"board-{n}"))
    await play(store, await new_game(store, [(CAROL, "Carol"), (ALICE, "Alice")], channel=CHANNEL + 9))
    # A new server of two regulars: each has met every other player it had rated, so both are established.
    rows, total = await store.leaderboard(GUILD, minimum=MIN_GAMES)
    assert total == 2 and [r.rank for r in rows] == [1, 2]  # Carol has one game: not yet on the board
    assert {r.user_id for r in rows} == {ALICE, BOB} and rows[0].score >= rows[1].score
    ratings = await store.ratings(GUILD)
    assert rows[0].score == Rating.of(ratings[rows[0].user_id]).score
    assert (await store.player_stats(GUILD, CAROL, minimum=MIN_GAMES)).rating is None
    page, _ = await store.leaderboard(GUILD, offset=1, limit=1, minimum=MIN_GAMES)
    assert [r.user_id for r in page] == [rows[1].user_id]
    games = await store.finished_games(GUILD)
    assert len(games) == MIN_GAMES + 1 and games[0].channel_id == CHANNEL + 9
    assert [g.game_id for g in await store.finished_games(GUILD, channel_id=CHANNEL + 2)] == [games[-3].game_id]


async def test_the_migration_fills_the_results_of_games_that_ended_before_it(tmp_path):
    path = tmp_path / "old.sqlite3"
    s = SQLiteStore(path, clock=Clock(), checkpoint_interval=None)
    await s.open()
    first = await play(s, await new_game(s, [(ALICE, "Alice"), (BOB, "Bob")], ("easy",)))
    second = await play(s, await new_game(s, [(BOB, "Bob"), (CAROL, "Carol")], channel=CHANNEL + 1, seed="x"))
    expected = {g: [(r.seat, r.user_id, r.placement, r.turns, r.team) for r in await s.results(g)]
                for g in (first.id, second.id)}
    ratings = await s.ratings(GUILD)
    await s.close()
    with sqlite3.connect(path) as conn:  # back to version 3: as a database from before this step
        # The steps after 3.
        for table in ("turns", "results", "ratings", "rating_history", "announced", "maps", "live_panels",
                      "log_turns", "seat_holders", "seasons", "ladder_ratings", "season_games", "tournament_teams",
                      "tournament_results", "tournament_pairings", "tournament_entrants", "tournaments",
                      "board_revocations", "rated_opponents", "tournament_invites", "standing_orders"):
            conn.execute(f"DROP TABLE {table}")
        for column in ("offer", "offer_message", "takeover_message", "removed_by"):
            conn.execute(f"ALTER TABLE seat_status DROP COLUMN {column}")
        conn.execute("PRAGMA user_version = 3")
    # The store decides no rating: a store not handed the table's rebuild refuses the upgrade, and changes nothing.
    s = SQLiteStore(path, checkpoint_interval=None)
    with pytest.raises(DatabaseError, match="ended before ratings were kept"):
        await s.open()
    await s.close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 3
        assert not conn.execute("SELECT name FROM sqlite_master WHERE name = 'results'").fetchall()
    s = SQLiteStore(path, checkpoint_interval=None, rebuild=rebuilt)
    await s.open()
    try:
        assert (await db_rows(s, "PRAGMA user_version"))[0][0] == LATEST_VERSION
        for game_id, rows in expected.items():
            results = await s.results(game_id)
            assert [(r.seat, r.user_id, r.placement, r.turns, r.team) for r in results] == rows
            assert all(r.median_move is None for r in results)  # no times were recorded then
        # The ratings themselves; who is established the migration guesses (5 games) until a rebuild decides it.
        assert {u: (r.mu, r.sigma, r.games, r.wins) for u, r in (await s.ratings(GUILD)).items()} == {
            u: (r.mu, r.sigma, r.games, r.wins) for u, r in ratings.items()}
        old = await s.player_stats(GUILD, ALICE, minimum=MIN_GAMES)
        assert old.games == 1 and old.reliability is None and old.median_move is None  # unknown, not perfect
    finally:
        await s.close()


def test_a_rating_is_shown_from_five_games():
    assert not Rating(games=MIN_GAMES - 1).shown and Rating(games=MIN_GAMES).shown
    assert Rating().score == 1000


async def test_bot_py_ratings_rebuild_recomputes_them_from_the_stored_games(tmp_path, capsys):
    import bot

    path = tmp_path / "risk.sqlite3"
    s = SQLiteStore(path, clock=Clock(), checkpoint_interval=None)
    await s.open()
    await play(s, await new_game(s, [(ALICE, "Alice"), (BOB, "Bob")], ("easy",)))
    before = await s.ratings(GUILD)
    await s.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE ratings SET mu = 0, score = 0")
    assert await asyncio.to_thread(bot.main, ["ratings", "rebuild", "--db", str(path)]) == 0
    assert "ratings rebuilt: 1 finished games" in capsys.readouterr().out
    s = SQLiteStore(path, checkpoint_interval=None)
    await s.open()
    try:
        assert await s.ratings(GUILD) == before
    finally:
        await s.close()


async def test_a_game_running_across_the_upgrade_counts_its_turns_from_the_log(store):
    record = await new_game(store, [(ALICE, "Alice")], ("easy",))
    record = await play(store, record, until=lambda s: s.turn >= 4)
    # As if the first turns were played before turns were recorded:
    await db_exec(store, "DELETE FROM turns WHERE game_id = ? AND turn <= 3", record.id)
    record = await play(store, record)
    turns = turns_played(await store.events(record.id))
    results = await store.results(record.id)
    assert [r.turns for r in results] == [turns[0], turns[1]]
    assert results[1].ai_turns == turns[1] and results[0].ai_turns == 0


async def test_the_results_are_written_in_the_transaction_that_ends_the_game(store):
    from store import DatabaseError

    record = await new_game(store, [(ALICE, "Alice")], ("easy",))
    await db_exec(store, "INSERT INTO results (game_id, seat, guild_id, channel_id, name, placement, ended_at) "
                  "VALUES (?, 0, 0, 0, 'x', 1, 0)", record.id)  # a row in the way: writing the results must fail
    with pytest.raises(Exception) as raised:
        await play(store, record)
    assert isinstance(raised.value, DatabaseError) or store._unique_violation(raised.value)
    after = await store.get_game(record.id)
    events = await store.events(record.id)
    assert after.status == "running" and events[-1]["type"] != "game_over"  # nothing of the last move stayed
    assert len(events) == after.last_seq and not await store.ratings(GUILD)


async def test_the_records_of_a_direct_message_are_that_channels_on_either_database(store):
    # Two users, each with a game in their own direct messages (no guild), and a game on a server.
    alice_dm, bob_dm = CHANNEL + 50, CHANNEL + 51
    for user, name, channel in ((ALICE, "Alice", alice_dm), (BOB, "Bob", bob_dm)):
        await play(store, await new_game(store, [(user, name)], ("easy",), guild=None, channel=channel))
    await play(store, await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")]))
    await db_exec(store, "UPDATE ratings SET games = 9, established = 1")   # all rated, as after enough games
    games = await store.finished_games(None, bob_dm)
    assert [g.channel_id for g in games] == [bob_dm]
    assert await store.finished_games(None) == [] and await store.finished_games(0) == []
    assert (await store.player_stats(None, BOB, bob_dm, minimum=MIN_GAMES)).games == 1
    assert await store.player_stats(None, ALICE, bob_dm, minimum=MIN_GAMES) is None
    assert await store.player_stats(None, BOB, minimum=MIN_GAMES) is None
    rows, total = await store.leaderboard(None, channel_id=bob_dm, minimum=MIN_GAMES)
    assert [r.user_id for r in rows] == [BOB] and total == 1
    assert await store.leaderboard(None, minimum=MIN_GAMES) == ([], 0)
    assert set(await store.ratings(None, alice_dm)) == {ALICE} and await store.ratings(None) == {}
    assert [g for g, _ in await store.rating_history(None, ALICE, alice_dm)] == [
        g.game_id for g in await store.finished_games(None, alice_dm)]
    assert await store.rating_history(None, ALICE, bob_dm) == []
    # The server's records are the server's alone.
    assert {r.user_id for r in (await store.leaderboard(GUILD, minimum=MIN_GAMES))[0]} == {ALICE, BOB}
    assert (await store.player_stats(GUILD, BOB, minimum=MIN_GAMES)).games == 1


async def test_two_games_ending_at_once_on_one_server_are_rated_one_after_the_other(store, monkeypatch):
    """Two games of the same players end at once: both are rated, the second from the ratings the first gave (no
    lost update). On PostgreSQL both ending transactions are held open together, each past its game's lock and
    about to take the server's ratings, before either goes on; SQLite's ``BEGIN IMMEDIATE`` never lets them
    overlap."""
    from store.postgres import PostgresStore

    players = [(ALICE, "Alice"), (BOB, "Bob")]
    games = [await new_game(store, players, channel=CHANNEL + n, seed=f"at-once-{n}") for n in range(2)]
    games = [await play(store, g, until=lambda s: s.turn >= 3 * EARLY_TURNS + 2) for g in games]
    arrived: list[int] = []
    both_open = asyncio.Event()
    if isinstance(store, PostgresStore):
        lock = store._lock_ratings

        async def when_both_are_open(db: Any, guild_id: int) -> None:
            arrived.append(guild_id)
            if len(arrived) == 2:
                both_open.set()
            async with asyncio.timeout(30):  # the other game's ending must reach this point while this one waits
                await both_open.wait()
            await lock(db, guild_id)

        monkeypatch.setattr(store, "_lock_ratings", when_both_are_open)
    ended = await asyncio.gather(apply_action(store, games[0].id, Surrender(0)),
                                 apply_action(store, games[1].id, Surrender(1)))
    assert [r.record.status for r in ended] == ["finished", "finished"]
    if isinstance(store, PostgresStore):
        assert arrived == [GUILD, GUILD]  # both ending transactions were open at once
    ratings = await store.ratings(GUILD)
    assert ratings[ALICE].games == ratings[BOB].games == 2
    for user in (ALICE, BOB):
        history = await store.rating_history(GUILD, user)
        assert sorted(g for g, _ in history) == sorted(g.id for g in games)
        assert [r.games for _, r in history] == [1, 2]  # the second rating counted the first game
        assert history[-1][1].mu == ratings[user].mu
    # The games rated one by one, in the order they ended, give exactly the ratings they gave at once.
    ratings_sql = "SELECT user_id, mu, sigma, games, wins FROM ratings ORDER BY user_id"
    at_once = await db_rows(store, ratings_sql)
    assert len(at_once) == 2
    assert await rebuild_ratings(store) == 2
    assert await db_rows(store, ratings_sql) == at_once
