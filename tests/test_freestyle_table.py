"""Freestyle rounds at the table: the round's deadline, a started turn's own limit, the hold, missed turns, and
restarts that lose nothing and do nothing twice."""

from __future__ import annotations

import time

import pytest

from engine import Place, RuleError
from engine.ai import make_ai
from engine.state import REINFORCE, WAITING
from present.refusals import translate_rule
from table import Table, Timer
from table.scheduler import Scheduler

pytestmark = pytest.mark.asyncio
GUILD, CHANNEL = 1, 10
USERS = (100, 200, 300)
DAY = 86400.0


class Now:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


class Told:
    def __init__(self) -> None:
        self.outcomes: list = []
        self.reminders: list = []

    async def outcome(self, outcome) -> None:
        self.outcomes.append(outcome)

    async def reminder(self, reminder) -> None:
        self.reminders.append(reminder)


async def freestyle(store, ai: bool = False, **settings):
    now = Now()
    table = Table(store, now, lambda: "freestyle-table-seed")
    told = Told()
    scheduler = Scheduler(table, store, now, told)
    lobby = await table.open_lobby(GUILD, CHANNEL, USERS[0], "Ann", {
        "deployment": "auto", "turn_order": "freestyle", "turn_deadline": int(DAY), **settings})
    await table.join(lobby.record.id, USERS[1], "Bo")
    await table.join(lobby.record.id, USERS[2], "Cy")
    if ai:
        await table.add_ai(lobby.record.id)
    started = await table.start(lobby.record.id)
    return table, scheduler, told, now, started.record.id


async def timers(store, game_id: int) -> dict[tuple[int, str], float]:
    return {(d.seat, d.kind): d.due_at for d in await store.game_deadlines(game_id)}


async def play_whole_turn(table: Table, store, game_id: int, seat: int) -> None:
    """``seat`` starts a turn by placing all its armies on one territory, then plays it out as the normal AI."""
    ai = make_ai("normal")
    record = await store.get_game(game_id)
    state = record.game().state
    income = state.income[seat]
    record = (await table.apply(record, Place(seat, state.territories_of(seat)[0],
                                              income["territories"] + sum(income["continents"].values())))).record
    while (state := record.game().state).phase not in (WAITING, "over") and state.current == seat:
        record = (await table.apply(record, ai.choose(record.game(), seat))).record


async def test_a_round_has_one_deadline_reminders_to_who_has_not_played_and_a_turn_limit(sqlite_store):
    table, _scheduler, _told, now, game_id = await freestyle(sqlite_store)
    state = (await sqlite_store.get_game(game_id)).game().state
    assert state.phase == WAITING and state.round == 1
    due = await timers(sqlite_store, game_id)
    assert due[(0, "round|r1")] == now() + DAY
    assert {seat for seat, kind in due if kind == "half|r1"} == {0, 1, 2}
    # Bo starts by placing: the board is claimed for an hour (a 24th of the round), and Bo gets no reminders.
    now.t += 3000
    record = await sqlite_store.get_game(game_id)
    out = await table.apply(record, Place(1, state.territories_of(1)[0], 1))
    assert out.record.game().state.phase == REINFORCE and out.deadline == now() + 3600
    due = await timers(sqlite_store, game_id)
    assert due[(1, f"turn|t{out.record.game().state.turn}")] == now() + 3600
    assert due[(0, "round|r1")] == 1_000_000.0 + DAY    # the round's deadline does not move
    assert (1, "half|r1") not in due and (0, "half|r1") in due
    # Ann racing to start is told who is playing, and until when at the latest (the turn's limit): in Discord
    # as a timestamp, on the board (no markup) as the time of day in UTC.
    with pytest.raises(RuleError, match=r"Bo is playing their turn now, until .* at the latest") as refused:
        await table.apply(out.record, Place(0, state.territories_of(0)[0], 1))
    limit = int(now() + 3600)
    assert refused.value.params["until"] == limit
    clock = time.strftime("%H:%M", time.gmtime(limit))
    assert translate_rule(refused.value, "nb", plain=True) == f"Bo spiller turen sin nå, senest til {clock} UTC: " \
        "vent til den er slutt."
    assert f"until <t:{limit}:t> at the latest" in translate_rule(refused.value, "en-US")
    assert (await sqlite_store.get_game(game_id)).version == out.record.version


async def test_a_started_turn_that_runs_out_is_played_for_its_player_and_counts_as_a_miss(sqlite_store):
    table, scheduler, told, now, game_id = await freestyle(sqlite_store)
    record = await sqlite_store.get_game(game_id)
    state = record.game().state
    await table.apply(record, Place(2, state.territories_of(2)[0], 1))
    now.t += 3601
    assert await scheduler.run_due() >= 1
    after = (await sqlite_store.get_game(game_id)).game().state
    assert after.phase == WAITING and after.to_play == [0, 1] and after.round == 1
    assert (await sqlite_store.seat_status(game_id, 2)).missed == 1
    assert any(n.kind == "time_ran_out" and n.seat == 2 for o in told.outcomes for n in o.notes)
    again = await scheduler.run_due()    # nothing is due twice
    assert again == 0 and (await sqlite_store.seat_status(game_id, 2)).missed == 1


async def test_at_the_round_deadline_the_missing_turns_are_played_and_the_next_round_opens(sqlite_store):
    table, scheduler, _told, now, game_id = await freestyle(sqlite_store, on_timeout="ai")
    await play_whole_turn(table, sqlite_store, game_id, 1)
    now.t += DAY + 1
    await scheduler.run_due()
    state = (await sqlite_store.get_game(game_id)).game().state
    assert state.round == 2 and state.phase == WAITING and state.to_play == [0, 1, 2]
    assert [(await sqlite_store.seat_status(game_id, s)).missed for s in range(3)] == [1, 0, 1]
    # The round ran out: a stand-in's turn ended it, so its player (away all round) is not held back from the
    # next round's first hours as the player who ended a round by playing is.
    assert state.held is None
    due = await timers(sqlite_store, game_id)
    assert due[(0, "round|r2")] == now() + DAY
    assert not [key for key in due if key[1].startswith("hold|")]


async def test_everyone_played_closes_the_round_at_once_and_the_last_waits(sqlite_store):
    table, scheduler, _told, now, game_id = await freestyle(sqlite_store)
    for seat in (2, 0, 1):
        await play_whole_turn(table, sqlite_store, game_id, seat)
    state = (await sqlite_store.get_game(game_id)).game().state
    assert state.round == 2 and state.held == 1
    due = await timers(sqlite_store, game_id)
    assert due[(1, "hold|r2")] == now() + DAY / 4
    # The hold is released by its timer after a quarter of the round if nobody else starts.
    now.t += DAY / 4 + 1
    await scheduler.run_due()
    assert (await sqlite_store.get_game(game_id)).game().state.held is None


async def test_ai_seats_take_their_turns_by_themselves(sqlite_store):
    _table, _scheduler, _told, _now, game_id = await freestyle(sqlite_store, ai=True)
    state = (await sqlite_store.get_game(game_id)).game().state
    assert state.phase == WAITING and 3 not in state.to_play and state.to_play == [0, 1, 2]


async def test_a_restart_during_a_running_turn_and_at_the_round_deadline_does_nothing_twice(sqlite_store):
    table, _scheduler, _told, now, game_id = await freestyle(sqlite_store)
    record = await sqlite_store.get_game(game_id)
    await table.apply(record, Place(0, record.game().state.territories_of(0)[0], 1))
    now.t += DAY + 5   # down past the turn's limit and the round's deadline
    # A new process: its own table and scheduler over the same store.
    told = Told()
    fresh = Table(sqlite_store, now, lambda: "other-seed")
    await Scheduler(fresh, sqlite_store, now, told).run_due()
    state = (await sqlite_store.get_game(game_id)).game().state
    assert state.round == 2
    assert [(await sqlite_store.seat_status(game_id, s)).missed for s in range(3)] == [1, 1, 1]
    await Scheduler(Table(sqlite_store, now, lambda: "third"), sqlite_store, now, Told()).run_due()
    assert (await sqlite_store.get_game(game_id)).game().state.round == 2
    assert [(await sqlite_store.seat_status(game_id, s)).missed for s in range(3)] == [1, 1, 1]
    assert Timer.parse("round|r2") in {Timer.of(d) for d in await sqlite_store.game_deadlines(game_id)}


async def test_a_vacation_does_not_move_the_round_and_its_missed_turn_is_not_counted(sqlite_store):
    table, scheduler, _told, now, game_id = await freestyle(sqlite_store, vacation_days=3)
    ends = (await timers(sqlite_store, game_id))[(0, "round|r1")]
    away = await table.take_vacation(game_id, 2, 2)
    assert away.seat_status is not None and away.seat_status.vacation_days == 2
    assert (await timers(sqlite_store, game_id))[(0, "round|r1")] == ends
    now.t = ends + 1
    await scheduler.run_due()
    assert (await sqlite_store.get_game(game_id)).game().state.round == 2
    assert [(await sqlite_store.seat_status(game_id, s)).missed for s in range(3)] == [1, 1, 0]


async def test_a_pause_stops_the_round_and_resume_gives_it_a_fresh_deadline(sqlite_store):
    table, _scheduler, _told, now, game_id = await freestyle(sqlite_store)
    await table.pause(game_id)
    assert await timers(sqlite_store, game_id) == {}
    now.t += 5 * DAY
    await table.resume(game_id)
    assert (await timers(sqlite_store, game_id))[(0, "round|r1")] == now() + DAY
