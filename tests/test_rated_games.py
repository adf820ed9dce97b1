"""What a rated game is, tried as an adversary would, on both databases: a kick before the kicked player's first
turn, instant surrenders by a second account, a cancel to escape a lost game; and the model's limits on farming
(the same players again and again, new accounts)."""

from __future__ import annotations

import pytest
from test_results import ALICE, BOB, CAROL, GUILD, db_rows, new_game, play, store  # noqa: F401 (the fixture)

from engine import Surrender
from ratings import EARLY_TURNS, MIN_GAMES, REPEAT_LIMIT, REPEAT_WINDOW, Rating, SeatResult, rate_game, rebuild
from table import Table
from table.play import apply_action
from table.results import rebuild_ratings


def table_on(store) -> Table:  # noqa: F811
    return Table(store, lambda: 1_700_000_000.0, lambda: "rated-seed")


async def test_a_player_kicked_before_their_first_turn_is_not_rated(store):  # noqa: F811
    record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")], seed="kick")
    kicked = next(p for p in record.players if p.seat != record.game().state.current)  # before their first turn
    outcome = await table_on(store).kick(record.id, kicked.seat)
    record = await play(store, outcome.record)
    assert record.status == "finished"
    results = {r.seat: r for r in await store.results(record.id)}
    assert results[kicked.seat].placement == 3 and results[kicked.seat].turns == 0
    ratings = await store.ratings(GUILD)
    assert kicked.user_id not in ratings  # no rated loss
    stats = await store.player_stats(GUILD, kicked.user_id, minimum=MIN_GAMES)
    assert stats is not None and (stats.games, stats.unrated, stats.average_placement) == (0, 1, None)
    # The two others are rated as a game of two: the kicked seat gives nobody anything.
    others = [r for r in results.values() if r.seat != kicked.seat]
    alone = rate_game({}, [SeatResult(r.user_id, None, 1 if r.placement == 1 else 2) for r in others])
    for r in others:
        assert ratings[r.user_id].mu == pytest.approx(alone[r.user_id].mu)
        assert (await store.player_stats(GUILD, r.user_id, minimum=MIN_GAMES)).games == 1


async def test_instant_surrenders_by_a_second_account_give_the_winner_nothing(store):  # noqa: F811
    contested = 0  # games in which Alice took a turn before Bob surrendered: the others have one side
    for n in range(MIN_GAMES + 1):
        record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], seed=f"farm-{n}")
        bob = record.seat_of(BOB)
        record = await play(store, record, until=lambda s, bob=bob: s.current == bob)
        record = (await apply_action(store, record.id, Surrender(bob))).record
        assert record.status == "finished"
        results = {r.user_id: r for r in await store.results(record.id)}
        assert {u: r.placement for u, r in results.items()} == {ALICE: 1, BOB: 2} and results[BOB].turns == 1
        contested += results[ALICE].turns > 0
    ratings = await store.ratings(GUILD)
    assert ALICE not in ratings
    # The surrender counts against the one who surrendered.
    assert 0 < ratings[BOB].games == contested and ratings[BOB].wins == 0
    assert ratings[BOB].mu < rate_game({}, [SeatResult(ALICE, None, 1), SeatResult(BOB, None, 2)])[BOB].mu < 25
    rows, _ = await store.leaderboard(GUILD, minimum=MIN_GAMES)
    assert ALICE not in {r.user_id for r in rows}
    stats = await store.player_stats(GUILD, ALICE, minimum=MIN_GAMES)
    assert (stats.games, stats.unrated, stats.rating) == (0, MIN_GAMES + 1, None)


async def test_a_surrender_after_the_first_turns_counts_for_the_winner(store):  # noqa: F811
    record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], seed="late")
    bob = record.seat_of(BOB)
    record = await play(store, record, until=lambda s: s.round > EARLY_TURNS and s.current == bob)
    record = (await apply_action(store, record.id, Surrender(bob))).record
    ratings = await store.ratings(GUILD)
    assert ratings[ALICE].mu > 25 > ratings[BOB].mu and ratings[ALICE].games == ratings[BOB].games == 1


async def test_a_cancel_in_the_first_round_records_nothing(store):  # noqa: F811
    record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], seed="early-cancel")
    outcome = await table_on(store).cancel(record.id)
    assert outcome.record.status == "cancelled" and not outcome.parts
    assert await store.results(record.id) == [] and await store.ratings(GUILD) == {}


@pytest.mark.parametrize("paused", [False, True])
async def test_a_host_who_cancels_a_running_game_resigns_and_the_standings_decide(store, paused):  # noqa: F811
    record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")], seed="cancel")
    record = await play(store, record, until=lambda s: s.round > EARLY_TURNS)
    table = table_on(store)
    if paused:
        await table.pause(record.id)
    outcome = await table.cancel(record.id)
    record = outcome.record
    assert record.status == "finished"
    events = await store.events(record.id)
    assert {"type": "player_surrendered", "seat": record.seat_of(ALICE)} in events
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "round_limit"
    results = {r.user_id: r for r in await store.results(record.id)}
    assert results[ALICE].placement == 3 and {results[BOB].placement, results[CAROL].placement} == {1, 2}
    ratings = await store.ratings(GUILD)
    assert ratings[ALICE].mu < 25 and ratings[ALICE].games == 1  # the host took the loss


def _game(at: float, *users: int) -> list[SeatResult]:
    return [SeatResult(u, None, place, own_turns=10, ended_at=at) for place, u in enumerate(users, 1)]


def test_the_same_players_count_only_so_many_rated_games_in_a_week():
    hour = 3600.0
    games = [(n, _game(n * hour, ALICE, BOB)) for n in range(REPEAT_LIMIT + 2)]
    games.append((99, _game(REPEAT_LIMIT * hour + REPEAT_WINDOW, ALICE, BOB)))   # a week after the fifth
    games.append((100, _game(REPEAT_LIMIT * hour, ALICE, CAROL)))                # other players
    final, history = rebuild(games)
    rated = sorted({g for g, _, _ in history})
    assert rated == [*range(REPEAT_LIMIT), 99, 100]
    assert final[BOB].games == REPEAT_LIMIT + 1


def test_a_new_account_moves_its_opponents_little():
    settled = {ALICE: Rating(games=20), BOB: Rating(games=20, established=True)}
    against_settled = rate_game(settled, _game(0, ALICE, BOB))[ALICE].mu - 25
    against_new = rate_game({ALICE: Rating(games=20)}, _game(0, ALICE, BOB))[ALICE].mu - 25
    assert 0 < against_new == pytest.approx(against_settled / (MIN_GAMES + 1) ** 2)
    # The new account's own rating moves in full: its games are what make it known.
    assert rate_game(settled, _game(0, ALICE, BOB))[BOB].mu == pytest.approx(
        rate_game({ALICE: Rating(games=20)}, _game(0, ALICE, BOB))[BOB].mu)


async def test_the_same_two_players_count_five_rated_games_a_week_and_a_rebuild_agrees(store):  # noqa: F811
    for n in range(REPEAT_LIMIT + 1):
        record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], seed=f"again-{n}")
        bob = record.seat_of(BOB)
        record = await play(store, record, until=lambda s, bob=bob: s.round > EARLY_TURNS and s.current == bob)
        record = (await apply_action(store, record.id, Surrender(bob))).record
        assert record.status == "finished"
    ratings = await store.ratings(GUILD)
    assert ratings[ALICE].games == ratings[BOB].games == REPEAT_LIMIT and ratings[ALICE].wins == REPEAT_LIMIT
    stats = await store.player_stats(GUILD, ALICE, minimum=MIN_GAMES)
    assert (stats.games, stats.unrated) == (REPEAT_LIMIT, 1)
    history = "SELECT guild_id, user_id, game_id, mu, sigma, score, games FROM rating_history ORDER BY 1, 2, 3"
    before = await db_rows(store, history)
    await rebuild_ratings(store)
    assert await db_rows(store, history) == before
