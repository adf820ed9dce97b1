"""Tournaments run by the table: every game opened by the bot, played (players here play as the AI would, on
the real ``Table.apply``), scored as it ends, the next round paired once; restarts, no-shows, a round's time
limit and two processes racing to pair a round."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence

import pytest

from competition import Pairing, Result, Spec
from engine.ai import make_ai
from store import RUNNING, Store, open_store
from store.postgres import open_postgres
from store.tournaments import TournamentRecord
from table import Clock, Scheduler, Table
from table.outcome import Outcome
from table.scheduler import Reminder
from table.tournaments import Tournaments

GAME = {"deployment": "auto", "max_rounds": 3, "turn_deadline": 300, "on_timeout": "ai", "max_missed": 2,
        "reminders": "none"}
GUILD, CHANNEL, HOST = 1, 500, 9


class Threads:
    """The tournament's rooms as the Discord layer opens them: a new channel id per table."""

    def __init__(self) -> None:
        self.ids = itertools.count(10_000)
        self.opened: list[tuple[int, int]] = []

    async def open_room(self, tournament: TournamentRecord, pairing: Pairing, names: Sequence[str]) -> int:
        self.opened.append((pairing.round, pairing.table))
        return next(self.ids)


class Told:
    def __init__(self) -> None:
        self.outcomes: list[Outcome] = []

    async def outcome(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)

    async def reminder(self, reminder: Reminder) -> None:
        pass


def desk_on(store: Store, clock: Clock, threads: Threads) -> tuple[Tournaments, Scheduler]:
    table = Table(store, clock)
    desk = Tournaments(table)
    desk.rooms = threads
    scheduler = Scheduler(table, store, clock, Told())
    scheduler.tournaments = desk
    return desk, scheduler


async def play_out(desk: Tournaments, scheduler: Scheduler, clock: Clock, tournament_id: int,
                   absent: frozenset[int] = frozenset(), steps: int = 400) -> None:
    """Players (all but ``absent``) play their turns as the AI would; the clock runs the timers."""
    store = desk.store
    for _ in range(steps):
        await scheduler.run_due()
        view = await store.tournament_view(tournament_id)
        if view.record.status != RUNNING:
            return
        moved = False
        for p in view.pairings:
            if p.game_id is None or p.pairing.round != view.record.round:
                continue
            for _move in range(500):  # the player's whole turn
                record = await store.get_game(p.game_id)
                if record.status != RUNNING:
                    break
                game = record.game()
                seat = game.state.current
                player = record.player(seat)
                if player.is_ai or player.user_id in absent:
                    break
                await desk.table.apply(record, make_ai("normal", salt=str(seat)).choose(game, seat))
                moved = True
        if not moved:
            clock.advance(301)
    raise AssertionError("the tournament did not finish")


async def new_tournament(desk: Tournaments, spec: Spec, players: int, **settings: object) -> int:
    created = await desk.create(GUILD, CHANNEL, HOST, "Cup", spec, {"game": GAME, **settings})
    for user in range(1, players + 1):
        await desk.join(created.record.id, 100 + user, f"p{user}")
    return created.record.id


async def test_a_swiss_plays_its_rounds_pairs_each_round_once_and_ranks(tmp_path):
    clock = Clock(lambda: 1_000_000.0)
    store = await open_store(tmp_path / "t.sqlite3", clock=clock)
    threads = Threads()
    desk, scheduler = desk_on(store, clock, threads)
    tid = await new_tournament(desk, Spec("swiss", rounds=3), 5)
    first = await desk.start(tid)
    assert len(first.games) == 2 and all(o.record.status == RUNNING for o in first.games)
    await play_out(desk, scheduler, clock, tid)
    view = await store.tournament_view(tid)
    assert view.record.status == "finished"
    rounds = [[p.pairing for p in view.pairings if p.pairing.round == r] for r in (1, 2, 3)]
    assert all(len(r) == 3 and sum(p.bye for p in r) == 1 for r in rounds)  # 5 players: two tables and a bye
    byes = [p.entrants[0] for r in rounds for p in r if p.bye]
    assert len(set(byes)) == 3  # nobody has two byes
    games = [p.game_id for p in view.pairings if not p.pairing.bye]
    assert len(games) == len(set(games)) == 6 and len(threads.opened) == 6
    assert len(view.results) == 6
    await store.close()


async def test_round_robin_and_both_eliminations_play_to_their_end(tmp_path):
    clock = Clock(lambda: 1_000_000.0)
    store = await open_store(tmp_path / "t.sqlite3", clock=clock)
    desk, scheduler = desk_on(store, clock, Threads())
    for n, (fmt, players) in enumerate((("round_robin", 4), ("single_elimination", 5), ("double_elimination", 4))):
        created = await desk.create(GUILD, CHANNEL + n, HOST, fmt, Spec(fmt), {"game": GAME})
        tid = created.record.id
        for user in range(1, players + 1):
            await desk.join(tid, 100 + user, f"p{user}")
        await desk.start(tid)
        await play_out(desk, scheduler, clock, tid)
        view = await store.tournament_view(tid)
        assert view.record.status == "finished", fmt
        met = [frozenset(p.pairing.entrants) for p in view.pairings if not p.pairing.bye]
        if fmt == "round_robin":  # everyone meets everyone once
            assert sorted(map(sorted, met)) == sorted(sorted(pair) for pair in itertools.combinations(
                range(101, 105), 2))
        if fmt == "single_elimination":  # 5 entrants: three byes in round 1, four games in all
            assert len(met) == 4
            assert sum(p.pairing.bye for p in view.pairings if p.pairing.round == 1) == 3
        if fmt == "double_elimination":
            assert {p.pairing.bracket for p in view.pairings} >= {"winners", "losers", "final"}
        assert len({p.game_id for p in view.pairings if not p.pairing.bye}) == len(met)
    await store.close()


async def test_a_restart_mid_round_goes_on_and_a_double_start_starts_once(tmp_path):
    clock = Clock(lambda: 1_000_000.0)
    path = tmp_path / "t.sqlite3"
    store = await open_store(path, clock=clock)
    desk, scheduler = desk_on(store, clock, Threads())
    tid = await new_tournament(desk, Spec("swiss", rounds=2), 4)
    await desk.start(tid)
    try:
        await desk.start(tid)
    except Exception as exc:
        assert "started already" in str(exc)
    else:
        raise AssertionError("a second start was accepted")
    view = await store.tournament_view(tid)
    assert len([p for p in view.pairings if p.pairing.round == 1]) == 2
    await store.close()
    # a new process on the same database: the running games go on and the tournament ends
    store = await open_store(path, clock=clock)
    threads = Threads()
    desk, scheduler = desk_on(store, clock, threads)
    await desk.catch_up([tid])
    await play_out(desk, scheduler, clock, tid)
    view = await store.tournament_view(tid)
    assert view.record.status == "finished" and len(view.results) == 4
    assert threads.opened == [(2, 1), (2, 2)]  # round 1's games were not opened again
    await store.close()


async def test_a_no_show_forfeits_their_table_and_the_standings_count_it(tmp_path):
    clock = Clock(lambda: 1_000_000.0)
    store = await open_store(tmp_path / "t.sqlite3", clock=clock)
    desk, scheduler = desk_on(store, clock, Threads())
    tid = await new_tournament(desk, Spec("swiss", rounds=1), 2)
    await desk.start(tid)
    await play_out(desk, scheduler, clock, tid, absent=frozenset({102}))
    view = await store.tournament_view(tid)
    assert view.results[0].forfeits == frozenset({102})
    from table.tournaments import view_standings
    table = {s.key: s for s in view_standings(view)}
    assert table[102].forfeits == 1 and table[101].rank == 1
    await store.close()


async def test_a_round_past_its_time_limit_ends_by_the_standings(tmp_path):
    clock = Clock(lambda: 1_000_000.0)
    store = await open_store(tmp_path / "t.sqlite3", clock=clock)
    desk, scheduler = desk_on(store, clock, Threads())
    tid = await new_tournament(desk, Spec("swiss", rounds=1), 2, round_time=3600)
    await desk.start(tid)
    clock.advance(3601)
    await scheduler.run_due()
    view = await store.tournament_view(tid)
    assert view.record.status == "finished" and view.forced == frozenset({(1, 1)})
    game = await store.get_game(view.pairings[0].game_id or 0)
    assert game.status == "finished"
    await store.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
async def test_two_processes_on_one_database_pair_a_round_once(backend, tmp_path, request):
    """Two stores on one database (two bot processes) store a round's last two results at once: the round after
    is paired exactly once."""
    if backend == "sqlite":
        first_store, second_store = await open_store(tmp_path / "t.sqlite3"), await open_store(tmp_path / "t.sqlite3")
    else:
        from tests.postgres_helpers import create_database, drop_database

        server = request.getfixturevalue("postgres_server")
        url = await create_database(server)
        first_store, second_store = await open_postgres(url), await open_postgres(url)
    clock = Clock()
    desk, _scheduler = desk_on(first_store, clock, Threads())
    tid = await new_tournament(desk, Spec("swiss", rounds=2), 4)
    await desk.start(tid)
    view = await first_store.tournament_view(tid)
    one, two = (p.pairing for p in view.pairings)
    paired = await asyncio.gather(
        first_store.record_table_result(Result(1, 1, ((one.entrants[0], 1), (one.entrants[1], 2))), tid),
        second_store.record_table_result(Result(1, 2, ((two.entrants[0], 1), (two.entrants[1], 2))), tid))
    assert sum(new is not None for _view, new in paired) == 1
    view = await second_store.tournament_view(tid)
    assert len([p for p in view.pairings if p.pairing.round == 2]) == 2 and view.record.round == 2
    await first_store.close()
    await second_store.close()
    if backend == "postgres":
        await drop_database(server, url)


async def test_the_timers_wait_for_the_connection_before_a_cut_short_opening_goes_on(tmp_path):
    """An opening cut short (the process stopped while opening the round's rooms) is due again at once after a
    restart; the scheduler runs it only once the bot is ready (its cache holds the threads made before)."""
    clock = Clock(lambda: 1_000_000.0)
    store = await open_store(tmp_path / "t.sqlite3", clock=clock)

    class Stopped(Threads):
        async def open_room(self, tournament: TournamentRecord, pairing: Pairing, names: Sequence[str]) -> int:
            raise ConnectionError("the process stopped here")

    desk, _ = desk_on(store, clock, Stopped())
    tid = await new_tournament(desk, Spec("swiss", rounds=1), 2)
    with pytest.raises(ConnectionError):
        await desk.start(tid)
    threads = Threads()
    desk, scheduler = desk_on(store, clock, threads)
    ready = asyncio.Event()
    scheduler.start(ready.wait)
    try:
        for _ in range(20):
            await asyncio.sleep(0.01)
        assert threads.opened == [] and (await store.get_tournament(tid)).due_kind == "open"
        ready.set()
        async with asyncio.timeout(10):
            while not threads.opened:
                await asyncio.sleep(0.01)
        assert threads.opened == [(1, 1)]
    finally:
        await scheduler.stop()
        await store.close()
