"""Seasons and ladders: /season through the real command tree offline, a season that ends by itself (across a
restart), the soft reset's figures, the ladders of /risk stats and /risk leaderboard, the rebuild, and a season
ended exactly once by several processes on PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot, play_rounds, start
from hypothesis import given, settings
from hypothesis import strategies as st
from test_history import finished_games
from test_results import ALICE, BOB, CAROL, DAVE, GUILD, db_exec, db_rows, new_game, play, store  # noqa: F401 (fixture)

from engine import Surrender
from ratings import EARLY_TURNS, Rating, SeatResult, rate_game
from ratings.ladders import (
    ALL_TIME,
    FREE_FOR_ALL,
    ONE_V_ONE,
    RESET_SHARE,
    ladder_of,
    rate_on_ladder,
    rebuild_ladders,
    season_start,
    soft_reset,
)
from ratings.model import MU, SIGMA, rebuild
from table.play import apply_action
from table.results import rebuild_ratings, seat_result
from table.scheduler import Scheduler
from table.seasons import Seasons

DAY = 86400.0


# -- the model ----------------------------------------------------------------------------------------------------
def test_a_game_of_two_seats_is_1v1_and_three_or_teams_are_free_for_all():
    two = [SeatResult(1, None, 1), SeatResult(2, None, 2)]
    assert ladder_of(two) == ONE_V_ONE
    assert ladder_of([SeatResult(1, None, 1), SeatResult(None, "easy", 2)]) == ONE_V_ONE   # a human and an AI
    assert ladder_of([*two, SeatResult(3, None, 3)]) == FREE_FOR_ALL
    # A seat that never took a turn does not count: a kicked third player leaves a 1v1.
    assert ladder_of([*two, SeatResult(3, None, 3, own_turns=0)]) == ONE_V_ONE
    teams = [SeatResult(1, None, 1, team=0), SeatResult(2, None, 2, team=1)]
    assert ladder_of(teams) == FREE_FOR_ALL


def test_the_soft_reset_moves_half_way_back_to_the_start_and_widens_sigma():
    assert RESET_SHARE == 0.5
    strong = soft_reset(Rating(mu=35.0, sigma=3.0, games=40, wins=30))
    assert strong.mu == pytest.approx(MU + 0.5 * (35.0 - MU)) == pytest.approx(30.0)
    assert strong.sigma == pytest.approx(3.0 + 0.5 * (SIGMA - 3.0))
    assert (strong.games, strong.wins) == (0, 0)
    weak = soft_reset(Rating(mu=15.0, sigma=2.0))
    assert weak.mu == pytest.approx(20.0) and weak.sigma == pytest.approx(2.0 + 0.5 * (SIGMA - 2.0))
    assert soft_reset(Rating()) == Rating() and season_start(None) == Rating()
    # The displayed number: a player at 1800 starts the next season a good deal lower, and far above a newcomer.
    assert Rating().score < strong.score < Rating(mu=35.0, sigma=3.0).score


# -- the store, on both databases -------------------------------------------------------------------------------
async def ladder_rows(store):  # noqa: F811
    return sorted(await db_rows(store, "SELECT guild_id, ladder, season, user_id, name, mu, sigma, score, games, "
                                       "wins FROM ladder_ratings"))


async def test_ladders_per_season_with_a_soft_reset_and_a_rebuild_that_gives_the_same(store):  # noqa: F811
    clock = store._clock   # the store's time: a game counts in the season whose time holds its end
    await play(store, await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], seed="a"))      # before any season
    first = await store.start_season(GUILD, 100, 30, ALICE, clock.now)
    with pytest.raises(Exception, match="running"):
        await store.start_season(GUILD, 100, 30, ALICE, clock.now)
    await play(store, await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], seed="b"))
    await play(store, await new_game(store, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")], seed="c"))
    seasons = Seasons(store, lambda: clock.now)
    told = await seasons.end(GUILD, ALICE)
    assert told is not None and await seasons.end(GUILD, ALICE) is None
    ended = told.season
    assert ended.id == first.id
    assert ended.ended_at == clock.now and ended.ended_by == ALICE   # ended early, by a manager
    in_first = await store.ladder_ratings(GUILD, ONE_V_ONE, first.id)
    clock.now += DAY
    second = await store.start_season(GUILD, 100, 30, ALICE, clock.now)
    assert second.number == 2
    established = await store.ratings(GUILD)   # the record over every game, before the next game
    record = await play(store, await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], seed="d"))
    results = await store.results(record.id)
    # The second season's first game starts each player from the soft reset of their first season's rating,
    # damped by how established the opponent is over every game (a new server of two regulars: established), not
    # by the season's own count of games (none yet).
    seats = [seat_result(r) for r in results]
    starts = {u: soft_reset(in_first[u]) for u in (ALICE, BOB)}
    expected = rate_on_ladder(starts, seats, (ALICE, BOB), established)
    assert established[ALICE].established and established[BOB].established
    undamped = rate_game({u: Rating(r.mu, r.sigma, established[u].games, established=True) for u, r in starts.items()},
                         seats)
    assert expected[ALICE].mu == pytest.approx(undamped[ALICE].mu)
    assert abs(expected[ALICE].mu - starts[ALICE].mu) > abs(rate_game(starts, seats)[ALICE].mu - starts[ALICE].mu)
    season = await store.ratings(GUILD, ladder=ONE_V_ONE, season=second.id)
    for user in (ALICE, BOB):
        assert season[user].mu == pytest.approx(expected[user].mu)
        assert season[user].sigma == pytest.approx(expected[user].sigma) and season[user].games == 1
    # All-time: every 1v1 game, the three-player game on the other ladder.
    all_time = await store.ratings(GUILD, ladder=ONE_V_ONE)
    assert all_time[ALICE].games == 3 and (await store.ratings(GUILD, ladder=FREE_FOR_ALL))[CAROL].games == 1
    assert (await store.ratings(GUILD, ladder=FREE_FOR_ALL, season=second.id)) == {}
    assert (await store.ratings(GUILD))[ALICE].games == 4     # the record over every game, as before
    rows, total = await store.ladder(GUILD, ONE_V_ONE, first.id)   # Carol played only the three-player game
    assert total == 2 and {r.user_id for r in rows} == {ALICE, BOB}
    before = await ladder_rows(store)
    assert {(r[1], r[2]) for r in before} == {(ONE_V_ONE, ALL_TIME), (ONE_V_ONE, first.id), (ONE_V_ONE, second.id),
                                               (FREE_FOR_ALL, ALL_TIME), (FREE_FOR_ALL, first.id)}
    await rebuild_ratings(store)
    after = await ladder_rows(store)
    assert [r[:5] + r[7:] for r in after] == [r[:5] + r[7:] for r in before]
    assert all(a[5] == pytest.approx(b[5]) and a[6] == pytest.approx(b[6]) for a, b in zip(after, before, strict=True))


async def test_an_unrated_game_moves_no_ladder(store):  # noqa: F811
    await store.start_season(GUILD, 100, 30, ALICE, store._clock.now)
    record = await new_game(store, [(ALICE, "Alice"), (DAVE, "Dave")], seed="farm")
    dave = record.seat_of(DAVE)
    record = await play(store, record, until=lambda s: s.current == dave)
    await apply_action(store, record.id, Surrender(dave))
    assert ALICE not in await store.ratings(GUILD, ladder=ONE_V_ONE)
    assert await db_rows(store, "SELECT COUNT(*) FROM season_games") == [(0,)]


async def test_a_season_is_ended_once_by_several_processes_on_postgresql(postgres_url):
    from store.postgres import open_postgres

    stores = [await open_postgres(postgres_url) for _ in range(3)]
    try:
        season = await stores[0].start_season(GUILD, 100, 1, ALICE, 1_800_000_000.0)
        with pytest.raises(Exception, match="running"):
            await stores[1].start_season(GUILD, 100, 1, BOB, 1_800_000_000.0)
        later = 1_800_000_000.0 + 2 * DAY
        ended = await asyncio.gather(*(Seasons(s, lambda: later).end_due() for s in stores),
                                     Seasons(stores[0], lambda: later).end(GUILD, 1))
        winners = [e.season for e in ended[:3] for e in e] + ([ended[3].season] if ended[3] is not None else [])
        assert [w.id for w in winners] == [season.id]
        # Closed a day after its end time, it ended by itself at its end time, whoever closed it.
        closed = await stores[2].current_season(GUILD)
        assert closed.ended_at == season.ends_at and closed.ended_by is None
    finally:
        for s in stores:
            await s.close()


# -- through the command tree -------------------------------------------------------------------------------------
async def test_season_commands_are_for_managers_and_the_status_for_everyone(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="season")) as d:
        step = await d.send_command("bob", "general", "season status", {})
        assert step[0].ephemeral and "has not run a season yet" in step[0].content
        step = await d.send_command("bob", "general", "season start", {"days": 7})
        assert step[0].ephemeral and "Only a member with Manage Server can start or end a season" in step[0].content
        d.set_permissions("alice", manage_guild=True)
        step = await d.send_command("alice", "general", "season start", {"days": 7})
        assert not step.problems and not step[0].ephemeral and "Season 1 begins" in step[0].content
        step = await d.send_command("alice", "general", "season start", {})
        ends = int((await d.bot.store.current_season(d.server.guild_id)).ends_at)
        # The date is Discord's timestamp, markup of the message: the reader sees a date in their own time zone.
        assert step[0].ephemeral and step[0].content == f"⛔ Season 1 is running until <t:{ends}:f>; end it first."
        d.set_locale("alice", "no")
        step = await d.send_command("alice", "general", "season start", {})
        assert step[0].content == f"⛔ Sesong 1 pågår til <t:{ends}:f>; avslutt den først."
        d.set_locale("alice", "en-US")
        step = await d.send_command("bob", "general", "season status", {})
        assert step[0].ephemeral and "Season 1" in step[0].text and "Ends" in step[0].text
        assert "1v1" in step[0].text and "Free-for-all" in step[0].text
        step = await d.send_command("bob", "general", "season end", {})
        assert "Only a member with Manage Server" in step[0].content
        step = await d.send_command("alice", "general", "season end", {})
        assert not step.problems and "Season 1 was ended by a manager" in step[0].content
        step = await d.send_command("alice", "general", "season end", {})
        assert step[0].ephemeral and "No season is running" in step[0].content
        step = await d.send_command("bob", "general", "season status", {})
        assert "Season 1 (over)" in step[0].text


async def test_a_season_ends_by_itself_once_even_across_a_restart(tmp_path: Path):
    db = tmp_path / "g.db"
    d = OfflineDiscord(make_bot(db, seed="season-end"))
    await d.setup()
    try:
        d.set_permissions("alice", manage_guild=True)
        step = await d.send_command("alice", "general", "season start", {"days": 2})
        assert "Season 1 begins" in step[0].content
        await finished_games(d, 2, rounds=EARLY_TURNS)
        text = (await d.send_command("bob", "general", "risk stats", {"player": "alice"}))[0].text
        assert "1v1" in text and "All time: hidden until 3 more games" in text and "Season 1: hidden" in text
        assert "Free-for-all" in text and "no game yet" in text
        await d.run(d.bot.advance_time(DAY))   # a day in: the season runs on
        assert not any("is over" in m.text for m in d.messages)
        d = await d.restart(make_bot(db, seed="season-end"))   # a restart mid-season
        later = make_bot(db, seed="season-end")
        later.clock.advance(3 * DAY)   # the bot was down when the season's time was up
        before = len(d.messages)
        d = await d.restart(later)
        await d.run(d.bot.advance_time(0))
        told = [m for m in d.messages[before:] if "Season 1 is over" in m.text]
        assert len(told) == 1 and not told[0].ephemeral and told[0].channel_id == d.channel("general").id
        assert "1v1" in told[0].text and "Free-for-all" in told[0].text
        await d.run(d.bot.advance_time(DAY))
        assert len([m for m in d.messages if "Season 1 is over" in m.text]) == 1    # once
        step = await d.send_command("bob", "general", "season status", {})
        assert "Season 1 (over)" in step[0].text
        step = await d.send_command("bob", "general", "risk leaderboard", {"period": "season"})
        assert step[0].ephemeral and "No season is running" in step[0].content
        step = await d.send_command("bob", "general", "risk leaderboard", {"ladder": ONE_V_ONE})
        assert step[0].ephemeral and "Leaderboard · 1v1 · all time" in step[0].text
    finally:
        await d.close()


# -- a season keeps its own time -------------------------------------------------------------------------------------
HOUR = 3600.0
LAST_TURN = {"deployment": "auto", "turn_deadline": 2 * 86400, "max_missed": 1, "on_boot": "neutral"}


def season_games(db: Path) -> list[tuple[int, int]]:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return sorted(conn.execute("SELECT game_id, season FROM season_games"))


ORIGINAL_RUN_DUE = Scheduler.run_due


async def seasons_end_first(self: Scheduler) -> int:   # run_due, with the due seasons ended before the due timers
    return await self.end_seasons() + await ORIGINAL_RUN_DUE(self)


@pytest.mark.parametrize("order", ["timers first", "seasons first"])
async def test_a_game_that_ends_after_the_season_while_the_bot_was_down_counts_in_no_season(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str):
    """A 1-day season; a 2-player game on its last turn (one missed turn ends it) two hours before the season's
    end, its deadline four hours after the end; the bot down until eight hours after the end. Whichever the restart
    handles first, the game ended after the season and the season ended at its end time."""
    db = tmp_path / "g.db"
    d = OfflineDiscord(make_bot(db, seed="downtime"))
    await d.setup()
    try:
        d.set_permissions("alice", manage_guild=True)
        await start(d, ("alice", "bob"), 0, **LAST_TURN)
        await play_rounds(d, "general", EARLY_TURNS)   # its last turn begins, with two days to play
        await d.run(d.bot.advance_time(20 * HOUR))
        await d.send_command("alice", "general", "season start", {"days": 1})
        season = await d.bot.store.current_season(d.server.guild_id)
        record = (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]
        deadline = max(t.due_at for t in await d.bot.store.game_deadlines(record.id))
        assert deadline == pytest.approx(season.ends_at + 4 * HOUR, abs=60)   # four hours after the end
        await d.run(d.bot.advance_time(season.ends_at - 2 * HOUR - d.bot.clock()))   # two hours before the end
        assert (await d.bot.store.get_game(record.id)).status == "running"
        assert (await d.bot.store.current_season(d.server.guild_id)).running
        if order == "seasons first":
            monkeypatch.setattr(Scheduler, "run_due", seasons_end_first)
        later = make_bot(db, seed="downtime")
        later.clock.advance(season.ends_at + 8 * HOUR - later.clock())   # the bot was down until then
        before = len(d.messages)
        d = await d.restart(later)
        await d.run(d.bot.advance_time(0))
        finished = await d.bot.store.get_game(record.id)
        assert finished.status == "finished"
        results = await d.bot.store.results(record.id)
        assert results[0].ended_at >= season.ends_at + 8 * HOUR
        # Rated, on the 1v1 ladder all-time; in no season: it ended after the season's end.
        assert (await d.bot.store.ratings(d.server.guild_id, ladder=ONE_V_ONE))[d.user("alice").id].games == 1
        assert await d.bot.store.ladder_ratings(d.server.guild_id, ONE_V_ONE, season.id) == {}
        assert season_games(db) == []
        # The season ended at its end time, by itself, and is told so once.
        ended = await d.bot.store.current_season(d.server.guild_id)
        assert ended.id == season.id and ended.ended_at == season.ends_at and ended.ended_by is None
        told = [m for m in d.messages[before:] if "Season 1 is over" in m.text]
        assert len(told) == 1 and f"it ended <t:{int(season.ends_at)}:f>" in told[0].text
        assert "nobody rated" in told[0].text
        step = await d.send_command("bob", "general", "season status", {})
        assert f"Ended <t:{int(season.ends_at)}:f>" in step[0].text
        await rebuild_ratings(d.bot.store)   # the rebuild keeps it out of the season too
        assert await d.bot.store.ladder_ratings(d.server.guild_id, ONE_V_ONE, season.id) == {}
    finally:
        await d.close()


async def test_a_season_ended_late_by_a_manager_ended_by_itself_at_its_end_time(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="late-end")) as d:
        d.set_permissions("alice", manage_guild=True)
        await d.send_command("alice", "general", "season start", {"days": 1})
        season = await d.bot.store.current_season(d.server.guild_id)
        # Its end passes before the scheduler gets to it (as right after a restart): a manager ends it first.
        await d.bot.get_cog("RiskCog").scheduler.stop()
        d.bot.clock.advance(2 * DAY)
        # Not closed yet, it reads as over already: it ended at its end time.
        step = await d.send_command("bob", "general", "season status", {})
        assert "Season 1 (over)" in step[0].text and f"Ended <t:{int(season.ends_at)}:f>" in step[0].text
        step = await d.send_command("bob", "general", "risk leaderboard", {"period": "season"})
        assert "No season is running" in step[0].content
        for command in ("season start", "season end"):   # still the managers' alone, to start or to close
            step = await d.send_command("bob", "general", command, {})
            assert "Only a member with Manage Server" in step[0].content
        assert (await d.bot.store.current_season(d.server.guild_id)).ended_at is None
        step = await d.send_command("alice", "general", "season end", {})
        assert not step.problems and not step[0].ephemeral
        assert f"Season 1 is over: it ended <t:{int(season.ends_at)}:f>." in step[0].content
        assert "ended by a manager" not in step[0].content
        ended = await d.bot.store.current_season(d.server.guild_id)
        assert ended.ended_at == season.ends_at and ended.ended_by is None
        step = await d.send_command("bob", "general", "season status", {})
        assert f"Ended <t:{int(season.ends_at)}:f>" in step[0].text
        # A season whose end passed does not stand in the way of the next: it is closed (and told) first.
        await d.send_command("alice", "general", "season start", {"days": 1})
        d.bot.clock.advance(2 * DAY)
        step = await d.send_command("alice", "general", "season start", {"days": 7})
        second = (await d.bot.store.current_season(d.server.guild_id))
        assert second.number == 3 and second.running
        text = step[0].content
        assert "Season 2 is over: it ended <t:" in text and "Season 3 begins" in text
        assert text.index("Season 2 is over") < text.index("Season 3 begins")
        # A manager who ends a season before its end time ends it then.
        step = await d.send_command("alice", "general", "season end", {})
        assert "Season 3 was ended by a manager" in step[0].content
        assert (await d.bot.store.current_season(d.server.guild_id)).ended_at == pytest.approx(d.bot.clock(), abs=5)


async def test_a_game_that_spans_a_seasons_end_counts_once_in_the_season_it_ended_in(tmp_path: Path):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db, seed="span")) as d:
        d.set_permissions("alice", manage_guild=True)
        await d.send_command("alice", "general", "season start", {"days": 1})
        first = await d.bot.store.current_season(d.server.guild_id)
        await start(d, ("alice", "bob"), 0, deployment="auto", turn_deadline=7 * 86400)
        await play_rounds(d, "general", EARLY_TURNS)
        step = await d.run(d.bot.advance_time(DAY))   # the first season ends by itself, the game goes on
        assert any("Season 1 is over" in m.text for m in step)
        await d.send_command("alice", "general", "season start", {"days": 7})
        second = await d.bot.store.current_season(d.server.guild_id)
        step = await d.send_command("bob", "general", "risk surrender", {})
        await d.click("bob", "Yes, surrender", step[0])
        record = (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]
        assert record.status == "finished"
        assert season_games(db) == [(record.id, second.id)]
        assert await d.bot.store.ladder_ratings(d.server.guild_id, ONE_V_ONE, first.id) == {}
        in_second = await d.bot.store.ladder_ratings(d.server.guild_id, ONE_V_ONE, second.id)
        assert {u: r.games for u, r in in_second.items()} == {d.user("alice").id: 1, d.user("bob").id: 1}
        assert (await d.bot.store.ratings(d.server.guild_id, ladder=ONE_V_ONE))[d.user("alice").id].games == 1


async def test_the_leaderboard_shows_a_seasons_ladder(tmp_path: Path):
    import sqlite3

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="season-board")) as d:
        d.set_permissions("alice", manage_guild=True)
        await d.send_command("alice", "general", "season start", {"days": 30})
        guild = d.server.guild_id
        with sqlite3.connect(tmp_path / "g.db") as conn:  # as after rated games
            season = conn.execute("SELECT id FROM seasons").fetchone()[0]
            conn.executemany("INSERT INTO ladder_ratings (guild_id, ladder, season, user_id, name, mu, sigma, score, "
                             "games, wins, updated_at) VALUES (?, ?, ?, ?, ?, 30, 5, ?, 6, 2, 0)",
                             [(guild, ONE_V_ONE, season, d.user("bob").id, "bob", 1300),
                              (guild, ONE_V_ONE, season, d.user("carol").id, "carol", 1100),
                              (guild, FREE_FOR_ALL, 0, d.user("dave").id, "dave", 1500)])
            conn.executemany("INSERT INTO ratings (guild_id, user_id, name, mu, sigma, score, games, wins, updated_at, "
                             "established) VALUES (?, ?, ?, 30, 5, 1300, 6, 2, 0, 1)",
                             [(guild, d.user(name).id, name) for name in ("bob", "carol", "dave")])
        step = await d.send_command("carol", "general", "risk leaderboard", {"ladder": ONE_V_ONE, "period": "season"})
        text = step[0].text
        assert "Leaderboard · 1v1 · Season 1" in text and "**1.** bob: **1300**" in text and "**2.** carol" in text
        assert "dave" not in text
        step = await d.send_command("carol", "general", "risk leaderboard", {"ladder": FREE_FOR_ALL})
        assert "**1.** dave: **1500**" in step[0].text and "bob" not in step[0].text


# -- properties -----------------------------------------------------------------------------------------------------


@given(mu=st.floats(0, 60), sigma=st.floats(0.5, SIGMA))
def test_the_soft_reset_halves_the_distance_to_the_start(mu: float, sigma: float):
    reset = soft_reset(Rating(mu=mu, sigma=sigma, games=9, wins=3))
    assert abs(reset.mu - MU) == pytest.approx(abs(mu - MU) * (1 - RESET_SHARE))
    assert sigma - 1e-9 <= reset.sigma <= SIGMA + 1e-9 and (reset.games, reset.wins) == (0, 0)


players = st.permutations([1, 2, 3, 4])
game = st.tuples(st.integers(0, 3),   # the season (0: none ran)
                 players.map(lambda p: p[:2]) | players.map(lambda p: p[:3]))


@settings(max_examples=50, deadline=None)
@given(st.lists(game, min_size=1, max_size=25))
def test_the_ladders_count_every_rated_game_on_its_ladder_and_season(games):
    sequence = [(n, season, [SeatResult(u, None, place + 1, ended_at=n * 90000.0) for place, u in enumerate(seats)])
                for n, (season, seats) in enumerate(games)]
    ladders = rebuild_ladders(sequence)
    overall, history = rebuild((n, seats) for n, _season, seats in sequence)
    rated = {n for n, _user, _rating in history}
    for (ladder, season, user), rating in ladders.items():
        mine = [n for n, s, seats in sequence if n in rated and ladder_of(seats) == ladder
                and user in {x.user_id for x in seats} and season in (ALL_TIME, s)]
        assert rating.games == len(mine)
    # Every game the all-time record rated is on exactly one ladder's all-time board.
    assert sum(r.games for (_l, s, _u), r in ladders.items() if s == ALL_TIME) == sum(r.games for r in overall.values())


def test_the_store_names_the_ladders_as_the_ratings_do():
    """store/ keeps the ladders' stored names and the all-time season's number itself (it imports nothing of
    ratings/): they are the ratings' own."""
    from ratings import ladders
    from store import seasons as stored

    assert stored.LADDERS == ladders.LADDERS and stored.ALL_TIME == ladders.ALL_TIME
