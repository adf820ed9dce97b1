"""Ratings no one can game (docs/history.md, "What a rated game is"): a kick never wins a rated game, a cancel by
the standings makes nobody an early leaver, the pair limit, established opponents, and the two servers of the
rule: one player farming with three alternate accounts, and eight regulars playing in changing groups."""

from __future__ import annotations

import itertools
import random

import pytest
from test_results import store  # noqa: F401 (the fixture, on both databases)

from ratings import EARLY_TURNS, REPEAT_LIMIT, Rating, SeatResult, rate_game, rebuild
from ratings.model import (
    ESTABLISHED_OPPONENTS,
    LEFT_EARLY,
    NEW_OPPONENTS,
    PAIR_LIMIT,
    REMOVED,
    REMOVER,
    TOO_FEW,
    Circles,
    notes,
    rate_and_meet,
    repeats_before,
)
from table.results import rebuild_ratings

HOST, BOB, CAROL, DAVE = 1, 2, 3, 4
SETTLED = {u: Rating(games=30, established=True) for u in (HOST, BOB, CAROL, DAVE)}
DAY = 24 * 3600.0


def seat(user: int, place: int, turns: int = 10, **more: object) -> SeatResult:
    return SeatResult(user, None, place, own_turns=turns, **more)  # type: ignore[arg-type]


def test_a_1v1_ended_by_a_kick_is_not_rated_for_anyone():
    seats = [seat(HOST, 1, 5), seat(BOB, 2, 4, removed_by=HOST, went_out=True)]
    assert rate_game(SETTLED, seats) == {}
    assert notes(SETTLED, seats, 0, {}) == {BOB: REMOVED, HOST: REMOVER}


def test_a_kick_in_a_larger_game_rates_it_without_the_removed_player_and_not_for_the_remover():
    seats = [seat(HOST, 1), seat(BOB, 4, 6, removed_by=HOST, went_out=True), seat(CAROL, 2), seat(DAVE, 3)]
    changed = rate_game(SETTLED, seats)
    assert set(changed) == {CAROL, DAVE}   # the removed player keeps their rating, the host gains nothing
    without = rate_game(SETTLED, [seat(HOST, 1), seat(CAROL, 2), seat(DAVE, 3)])
    for user in (CAROL, DAVE):
        assert changed[user].mu == pytest.approx(without[user].mu)
    # Removing oneself is a surrender: rated as usual.
    assert BOB in rate_game(SETTLED, [seat(HOST, 1), seat(BOB, 2, 6, went_out=True)])


def test_a_cancel_by_the_standings_makes_nobody_an_early_leaver():
    # Ended by the standings at turn 4: the opponent played 2 turns and is second, still in the game.
    standing = [seat(HOST, 1, 2, went_out=False), seat(BOB, 2, 2, went_out=False)]
    changed = rate_game(SETTLED, standing)
    assert notes(SETTLED, standing, 0, changed) == {}
    left = [seat(HOST, 1, 2, went_out=False), seat(BOB, 2, 2, went_out=True)]   # surrendered: their own act
    assert notes(SETTLED, left, 0, rate_game(SETTLED, left)) == {BOB: LEFT_EARLY, HOST: TOO_FEW}
    assert HOST not in rate_game(SETTLED, left)


def test_the_pair_limit_counts_every_game_two_players_share():
    owner, alts = 10, (11, 12, 13)
    rated: list[tuple[float, frozenset[int]]] = []
    for n, group in enumerate(itertools.chain.from_iterable(itertools.combinations(alts, k) for k in (1, 2, 3))):
        rated.append((n * 3600.0, frozenset((owner, *group))))
    # The owner and the first alternate account shared 4 of those 7 sets: any new game of theirs counts 4 already.
    game = [SeatResult(owner, None, 1, own_turns=5, ended_at=8 * 3600.0), SeatResult(11, None, 2, own_turns=5,
                                                                                      ended_at=8 * 3600.0)]
    assert repeats_before(rated, game) == 4
    rated.append((7 * 3600.0, frozenset((owner, 11, 12))))
    assert repeats_before(rated, game) == REPEAT_LIMIT
    assert rate_game({}, game, REPEAT_LIMIT) == {}
    assert notes({}, game, REPEAT_LIMIT, {}) == {owner: PAIR_LIMIT, 11: PAIR_LIMIT}
    # A game of others is not limited by the owner's.
    assert repeats_before(rated, [SeatResult(20, None, 1, own_turns=5, ended_at=8 * 3600.0),
                                  SeatResult(21, None, 2, own_turns=5, ended_at=8 * 3600.0)]) == 0


def test_a_ring_of_accounts_never_becomes_established():
    circles = Circles(established=ESTABLISHED_OPPONENTS)   # a server whose regulars are established
    ring = (10, 11, 12, 13, 14, 15)
    current: dict[int, Rating] = {}
    for n, (a, b) in enumerate(itertools.cycle(itertools.combinations(ring, 2))):
        if n == 200:
            break
        current.update(rate_and_meet(current, circles, [seat(a, 1), seat(b, 2)]))
    assert all(not current[u].established and current[u].trusted == 0 for u in ring)
    # Meeting established players establishes an account.
    settled = {u: Rating(games=30, established=True) for u in (1, 2, 3, 4)}
    mine = {**settled, 10: current[10]}
    for other in (1, 2, 3, 4):
        mine.update(rate_and_meet(mine, circles, [seat(10, 2), seat(other, 1)]))
    assert mine[10].established and mine[10].trusted == 4


def _regulars_and_a_farm(weeks: int, farm: bool) -> tuple[dict[int, Rating], list[tuple[int, int, Rating]]]:
    """Eight regulars (1 to 8) play about three games a week each in changing groups of 3 or 4; with ``farm`` one
    player (20) plays their three alternate accounts (21, 22, 23), alone and in every set, winning each game and
    the accounts surrendering after three rounds, eight games a day."""
    chance = random.Random(38)
    regulars = list(range(1, 9))
    games: list[tuple[float, list[SeatResult]]] = []
    for week in range(weeks):
        for slot in range(6):   # six games a week, 3 or 4 players each: about 3 games a player
            at = week * 7 * DAY + slot * DAY + 3600.0
            group = chance.sample(regulars, chance.choice((3, 4)))
            order = chance.sample(group, len(group))
            games.append((at, [SeatResult(u, None, place, own_turns=12, ended_at=at, went_out=place > 1)
                               for place, u in enumerate(order, 1)]))
        if farm:
            sets = [s for k in (1, 2, 3) for s in itertools.combinations((21, 22, 23), k)]
            for day in range(7):
                for n in range(8):
                    at = week * 7 * DAY + day * DAY + n * 600.0 + 7200.0
                    group = sets[(day * 8 + n) % len(sets)]
                    games.append((at, [SeatResult(20, None, 1, own_turns=4, ended_at=at, went_out=False)]
                                  + [SeatResult(u, None, 2 + i, own_turns=3, ended_at=at, went_out=True)
                                     for i, u in enumerate(group)]))
    games.sort(key=lambda g: g[0])
    return rebuild((i, seats) for i, (_at, seats) in enumerate(games))


def shown(ratings: dict[int, Rating]) -> list[int]:
    """The leaderboard: players with 5 rated games and established, best first."""
    return [u for u, r in sorted(ratings.items(), key=lambda kv: -kv[1].score) if r.shown and r.established]


def test_eight_regulars_stay_rated_and_their_ladder_moves():
    final, history = _regulars_and_a_farm(8, farm=False)
    assert set(shown(final)) == set(range(1, 9))   # every regular is listed
    scores = [r.score for r in final.values()]
    assert max(scores) - min(scores) > 100   # the ladder tells them apart
    for user in range(1, 9):   # every rated game of theirs moved them: nothing was cut off
        assert len([h for h in history if h[1] == user]) == final[user].games >= 10


def test_one_player_with_three_alternate_accounts_stays_off_the_top_and_moves_little():
    final, _history = _regulars_and_a_farm(4, farm=True)
    board = shown(final)
    assert 20 not in board and not {21, 22, 23} & set(board)   # never met an established player
    regulars = [final[u].score for u in range(1, 9)]
    assert final[20].score < max(regulars)   # off the top even were it listed
    assert final[20].mu - 25 < 5 and final[20].score < 1250   # 40 rated wins moved it little
    assert final[20].games <= 4 * 3 * REPEAT_LIMIT   # each pair counts five games a week
    without, _ = _regulars_and_a_farm(4, farm=False)
    assert {u: final[u] for u in range(1, 9)} == {u: without[u] for u in range(1, 9)}   # nobody else is touched


@pytest.mark.parametrize("friends", [2, 3, 4])
def test_a_small_servers_whole_group_becomes_established_and_its_ladder_moves(friends):
    """A server of two to four friends has fewer players than it takes to meet four established opponents: once
    each has met every other, they are established, listed, and their results count in full."""
    chance = random.Random(friends)
    games = []
    for n in range(3 * 5):   # three games a week, five weeks: within the pair limit
        at = (n // 3) * 7 * DAY + (n % 3) * DAY
        order = chance.sample(range(1, friends + 1), friends)
        order.sort(key=lambda u: u != 1 or chance.random() < 0.2)   # the first friend wins most games
        games.append((n, [SeatResult(u, None, place, own_turns=12, ended_at=at, went_out=place > 1)
                          for place, u in enumerate(order, 1)]))
    final, history = rebuild(games)
    assert set(shown(final)) == set(range(1, friends + 1))
    assert all(final[u].established and final[u].trusted == friends - 1 for u in final)
    assert final[1].score == max(r.score for r in final.values()) and final[1].score > 1100
    assert len(history) == friends * len(games)   # every game moved every friend


def test_a_new_accounts_opponents_are_told_it_counted_less():
    seats = [seat(HOST, 1), seat(BOB, 2)]
    ratings = {HOST: SETTLED[HOST]}
    changed = rate_game(ratings, seats)
    assert notes(ratings, seats, 0, changed) == {HOST: NEW_OPPONENTS}
    assert notes(SETTLED, [seat(HOST, 1), seat(BOB, 2, 0)], 0, {}) == {BOB: "no_turn", HOST: TOO_FEW}


async def test_a_host_who_kicks_the_opponent_of_a_1v1_wins_no_rating_and_the_result_says_why(tmp_path):
    from discord_helpers import OfflineDiscord, make_bot, play_rounds, start

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="kick-1v1")) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        await play_rounds(d, "general", 3)   # past the early turns: a kick was the opponent's loss before
        store = d.bot.store
        record = (await store.list_games(channel_id=d.channel("general").id, limit=1))[0]
        assert record.status == "running"
        step = await d.send_command("alice", "general", "risk kick", {"player": "@bob"})
        step = await d.click("alice", "Yes, remove", step[0])
        assert not step.problems, step.problems
        record = await store.get_game(record.id)
        assert record.status == "finished"
        guild = d.server.guild_id
        assert await store.ratings(guild) == {}   # neither the remover nor the removed player is rated
        notes_of = {r.user_id: r.rating_note for r in await store.results(record.id)}
        assert notes_of == {d.user("alice").id: REMOVER, d.user("bob").id: REMOVED}
        public = "\n".join(m.text for m in d.messages if not m.ephemeral)
        assert "removed bob" in public   # the kick is told in the channel
        assert "bob was removed from the game by another player: it is not rated for them." in public
        assert "alice removed a player from the game: it is not rated for them." in public


def test_a_removed_player_or_one_still_in_at_the_end_did_not_abandon_the_game():
    from store.results import reliability_of

    # (turns, ai_turns, missed, placement, ai_took_over, longest, round limit, substitute, removed, still in)
    left = (2, 0, 0, 2, False, 3, 0)
    assert reliability_of([left], EARLY_TURNS).abandoned == 1   # an early surrender
    assert reliability_of([(*left, False, True, False)], EARLY_TURNS).abandoned == 0   # removed by the host
    assert reliability_of([(*left, False, False, True)], EARLY_TURNS).abandoned == 0   # still in at the cancel


async def test_kicks_and_standings_ends_are_rated_the_same_by_a_rebuild_on_either_database(store):  # noqa: F811
    """Games with a kick after the start (a 1v1 and a game of four), a cancel by the standings and plain games, on
    both databases: the ratings, the established players and whom they met are what a rebuild gives again."""
    from test_results import ALICE, BOB, CAROL, DAVE, GUILD, db_rows, new_game, play

    from table import Table

    table = Table(store, lambda: 1_700_000_000.0, lambda: "fair-seed")
    four = [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol"), (DAVE, "Dave")]
    for n in range(6):
        record = await new_game(store, four if n % 2 else four[:2], seed=f"fair-{n}")
        record = await play(store, record, until=lambda s: s.round > 3)
        if n in (1, 2):   # the host kicks someone after the start
            active = record.game().state.active_seats()
            victim = next(p for p in record.players if p.user_id != ALICE and p.seat in active)
            record = (await table.kick(record.id, victim.seat, by=ALICE)).record
        if n == 3:        # the host cancels: the game ends by the standings, the host resigning
            record = (await table.cancel(record.id)).record
        record = await play(store, record)
        assert record.status == "finished"
        notes_of = {r.user_id: r.rating_note for r in await store.results(record.id)}
        if n == 2:
            assert notes_of[ALICE] == REMOVER and notes_of[victim.user_id] == REMOVED
    assert ALICE not in {u for u, _ in await db_rows(store, "SELECT user_id, game_id FROM rating_history "
                                                           "WHERE game_id IN (SELECT game_id FROM results WHERE "
                                                           "removed_by IS NOT NULL)")}
    sql = ("SELECT guild_id, user_id, mu, sigma, games, wins, trusted, established FROM ratings ORDER BY 1, 2",
           "SELECT guild_id, user_id, game_id, mu, sigma, games FROM rating_history ORDER BY 1, 2, 3",
           "SELECT guild_id, user_id, opponent_id, trusted FROM rated_opponents ORDER BY 1, 2, 3")
    before = [await db_rows(store, q) for q in sql]
    assert before[0] and before[1]
    await rebuild_ratings(store)
    assert [await db_rows(store, q) for q in sql] == before
    assert (await store.ratings(GUILD))   # somebody was rated


@pytest.mark.slow   # six whole games on both databases: CI's slow suite (the rule itself is a fast test above)
async def test_the_pair_limit_counts_every_game_of_two_players_whoever_else_played(store):  # noqa: F811
    """Through the store, on both databases: alice and bob in changing company (alone, with carol, with dave,
    with both) count five rated games together a week; the sixth game with both of them is not rated, whatever set
    of players it has, and its result says why."""
    from test_results import ALICE, BOB, CAROL, DAVE, GUILD, new_game, play

    names = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol", DAVE: "Dave"}
    sets = [(ALICE, BOB), (ALICE, BOB, CAROL), (ALICE, BOB, DAVE), (ALICE, BOB, CAROL, DAVE), (BOB, ALICE, CAROL),
            (ALICE, BOB, DAVE, CAROL)]
    for n, users in enumerate(sets):
        record = await play(store, await new_game(store, [(u, names[u]) for u in users], seed=f"pairs-{n}"))
        notes_of = {r.user_id: r.rating_note for r in await store.results(record.id)}
        rated = {u for u in users if notes_of[u] != PAIR_LIMIT}
        assert rated == (set(users) if n < REPEAT_LIMIT else set()), (n, notes_of)
    assert (await store.ratings(GUILD))[ALICE].games <= REPEAT_LIMIT
