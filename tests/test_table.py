"""The table: every change to a game is one of its methods, keeps the timers right and returns an Outcome."""

from __future__ import annotations

import asyncio

import pytest

from engine.ai import make_ai
from engine.state import OVER
from store import InvalidValue, NotSeated
from table import LimitReached, Limits, Table, Timer, TimerKind, turn_deadline, turn_key
from table.play import apply_action

pytestmark = pytest.mark.asyncio
GUILD, CHANNEL, HOST, OTHER = 1, 10, 100, 200
DAY = 86400.0


class Now:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


def table_on(store, limits: Limits | None = None) -> tuple[Table, Now]:
    now = Now()
    return Table(store, now, lambda: "table-seed", limits), now


async def two_humans(table: Table, **settings):
    lobby = await table.open_lobby(GUILD, CHANNEL, HOST, "Host", {"deployment": "auto", **settings})
    await table.join(lobby.record.id, OTHER, "Other")
    return await table.start(lobby.record.id)


async def kinds(table: Table, game_id: int) -> list[str]:
    return sorted(str(Timer.of(d)) for d in await table.store.game_deadlines(game_id))


async def test_lobby_changes_come_back_as_outcomes(sqlite_store):
    table, _ = table_on(sqlite_store)
    lobby = await table.open_lobby(GUILD, CHANNEL, HOST, "Host")
    assert lobby.record.status == "lobby" and [p.user_id for p in lobby.record.players] == [HOST]
    joined = await table.join(lobby.record.id, OTHER, "Other")
    seated = await table.add_ai(lobby.record.id, "easy")
    assert [p.is_ai for p in seated.record.players] == [False, False, True]
    kicked = await table.kick(lobby.record.id, 2)
    assert len(kicked.record.players) == 2 and not kicked.parts and joined.record.version < kicked.record.version
    left = await table.leave(lobby.record.id, OTHER)
    assert [p.user_id for p in left.record.players] == [HOST]
    with pytest.raises(NotSeated):
        await table.leave(lobby.record.id, OTHER)


async def test_the_server_owners_limits_are_kept_by_the_table(sqlite_store):
    table, _ = table_on(sqlite_store, Limits(games_per_server=2, lobbies_per_user=1, ai_seats_per_game=1))
    first = await table.open_lobby(GUILD, CHANNEL, HOST, "Host")
    with pytest.raises(LimitReached) as refused:
        await table.open_lobby(GUILD, CHANNEL + 1, HOST, "Host")
    assert refused.value.kind == LimitReached.LOBBIES and refused.value.count == 1
    await table.open_lobby(GUILD, CHANNEL + 1, OTHER, "Other")
    with pytest.raises(LimitReached) as full:
        await table.open_lobby(GUILD, CHANNEL + 2, 300, "Third")
    assert full.value.kind == LimitReached.GAMES and full.value.count == 2
    await table.open_lobby(GUILD + 1, CHANNEL + 2, 300, "Third")  # another server has its own count
    await table.add_ai(first.record.id)
    with pytest.raises(LimitReached) as ais:
        await table.add_ai(first.record.id)
    assert ais.value.kind == LimitReached.AI_SEATS
    assert sum(p.is_ai for p in (await sqlite_store.get_game(first.record.id)).players) == 1


async def test_two_taps_at_once_never_pass_a_limit(sqlite_store):
    table, _ = table_on(sqlite_store, Limits(ai_seats_per_game=2))
    lobby = await table.open_lobby(GUILD, CHANNEL, HOST, "Host")
    results = await asyncio.gather(*(table.add_ai(lobby.record.id) for _ in range(4)), return_exceptions=True)
    assert sum(isinstance(r, LimitReached) for r in results) == 2
    assert sum(p.is_ai for p in (await sqlite_store.get_game(lobby.record.id)).players) == 2


async def test_a_start_sets_the_turns_timers_and_pause_and_resume_keep_them_right(sqlite_store):
    table, now = table_on(sqlite_store)
    started = await two_humans(table, turn_deadline=int(DAY))
    game_id, state = started.record.id, started.state
    assert state is not None and started.deadline == now() + DAY
    key = turn_key(state)
    assert await kinds(table, game_id) == [f"half|{key}", f"hour|{key}", f"turn|{key}"]
    await table.pause(game_id)
    assert await kinds(table, game_id) == []
    now.t += 5 * DAY
    resumed = await table.resume(game_id)
    assert resumed.deadline == now() + DAY and len(await kinds(table, game_id)) == 3
    await table.cancel(game_id)
    assert await kinds(table, game_id) == [] and (await sqlite_store.get_game(game_id)).status == "cancelled"


async def test_a_vacation_moves_the_deadline_of_the_turn_being_played(sqlite_store):
    table, now = table_on(sqlite_store)
    started = await two_humans(table, turn_deadline=int(DAY), vacation_days=3)
    assert started.state is not None
    seat = started.state.current
    away = await table.take_vacation(started.record.id, seat, 2)
    assert away.seat_status is not None and away.seat_status.vacation_days == 2
    assert away.deadline == now() + 3 * DAY
    turn = turn_deadline(await sqlite_store.game_deadlines(started.record.id))
    assert turn is not None and turn.due_at == now() + 3 * DAY
    with pytest.raises(InvalidValue):
        await table.take_vacation(started.record.id, seat, 2)  # one day left


async def test_a_kick_in_a_running_game_resigns_the_player(sqlite_store):
    table, _ = table_on(sqlite_store)
    lobby = await table.open_lobby(GUILD, CHANNEL, HOST, "Host", {"deployment": "auto"})
    await table.join(lobby.record.id, OTHER, "Other")
    await table.add_ai(lobby.record.id)
    started = await table.start(lobby.record.id)
    assert started.state is not None
    out = await table.kick(started.record.id, 1)
    assert [e["type"] for e in out.parts[0].events][:1] == ["player_surrendered"]
    assert out.notes[0].kind == "kicked" and out.notes[0].seat == 1


async def test_an_action_applied_twice_is_applied_once(sqlite_store):
    table, _ = table_on(sqlite_store)
    started = await two_humans(table)
    state = started.state
    assert state is not None
    record = await sqlite_store.get_game(started.record.id)
    game = record.game()
    action = make_ai("normal").choose(game, state.current)
    first = await table.apply(record, action, "interaction-1")
    again = await table.apply(record, action, "interaction-1")
    assert not first.duplicate and again.duplicate and not again.parts
    assert await table.applied(record.id, "interaction-1")
    assert (await sqlite_store.get_game(record.id)).version == first.record.version


async def test_a_timer_names_its_turn_and_is_due_only_while_that_turn_lasts(sqlite_store):
    table, now = table_on(sqlite_store)
    started = await two_humans(table, turn_deadline=3600)
    record = started.record
    state = record.game().state
    timer = Timer.now(TimerKind.TURN, state)
    assert Timer.parse(str(timer)) == timer and str(timer) == f"turn|{turn_key(state)}"
    assert Timer.parse("bogus|t1") is None and Timer.parse("turn") == Timer(TimerKind.TURN, "")
    assert timer.due_on(record, state.current)
    assert not timer.due_on(record, 1 - state.current)   # not that seat's turn
    assert not Timer(TimerKind.TURN, "t999").due_on(record, state.current)  # another turn
    paused = (await table.pause(record.id)).record
    assert not timer.due_on(paused, state.current)
    await table.resume(record.id)
    now.t += 7200
    out = await table.time_up(record.id, state.current, timer)   # the AI plays the turn
    assert out.notes and out.notes[0].kind == "time_ran_out"
    again = await table.time_up(record.id, state.current, timer)  # that turn is over: nothing happens
    assert not again.parts and not again.notes
    assert (await sqlite_store.get_game(record.id)).game().state.phase != OVER


async def test_the_board_before_a_move_is_rebuilt_from_the_log_when_the_callers_copy_is_behind(sqlite_store):
    from engine import Game

    table, _ = table_on(sqlite_store)
    started = await two_humans(table)
    old = started.record
    game = old.game()
    action = make_ai("normal").choose(game, game.state.current)
    result = await apply_action(sqlite_store, old.id, action)
    newer = await sqlite_store.get_game(old.id)
    game = newer.game()
    second = await apply_action(sqlite_store, old.id, make_ai("normal").choose(game, game.state.current))
    # The caller's copy (``old``) is two moves behind: the board before the second move comes from the log.
    rebuilt = await table._state_before(old, second.first_seq)
    expected = Game.from_events((await sqlite_store.events(old.id))[: second.first_seq - 1]).state
    stored = newer.game().state.to_dict()
    assert rebuilt.to_dict() == expected.to_dict() == {**stored, "seed": ""}  # the log holds no dice seed
    assert result.first_seq < second.first_seq


async def test_a_game_that_starts_while_the_games_are_counted_is_counted_once(sqlite_store, monkeypatch):
    table, _ = table_on(sqlite_store, Limits(games_per_server=2))
    first = await table.open_lobby(GUILD, CHANNEL, HOST, "Host")
    real = sqlite_store.list_games

    async def racing(status, **kwargs):  # the lobby started between the read of lobbies and that of running games
        return await real("lobby" if status == "running" else status, **kwargs)

    monkeypatch.setattr(sqlite_store, "list_games", racing)
    second = await table.open_lobby(GUILD, CHANNEL + 1, OTHER, "Other")
    assert second.record.id != first.record.id
    with pytest.raises(LimitReached):
        await table.open_lobby(GUILD, CHANNEL + 2, OTHER + 1, "Third")
