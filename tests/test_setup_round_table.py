"""Set-up in one round at the table: one deadline for the round, reminders to who has armies left, AI seats place
by themselves, the stand-in places the rest at the deadline, and restarts lose nothing and do nothing twice."""

from __future__ import annotations

import pytest

from engine import Place, RuleError
from engine.state import REINFORCE, SETUP, WAITING
from table import Table
from table.scheduler import Scheduler
from tests.test_freestyle_table import DAY, Told, freestyle, timers

pytestmark = pytest.mark.asyncio


async def setup_round(store, ai: bool = False, **settings):
    """Ann, Bo and Cy (and an AI), territories dealt, the starting armies placed in one round."""
    return await freestyle(store, ai, **{"deployment": "deal", "setup": "round", "turn_order": "sequential",
                                         **settings})


async def place_all(table: Table, store, game_id: int, seat: int, sittings: int = 1) -> None:
    """``seat`` places its starting armies on its first territory, in ``sittings`` goes."""
    record = await store.get_game(game_id)
    state = record.game().state
    left = state.setup_remaining[seat]
    for i in range(sittings):
        count = left // sittings + (left % sittings if i == sittings - 1 else 0)
        record = (await table.apply(record, Place(seat, state.territories_of(seat)[0], count))).record


async def test_one_deadline_for_the_round_and_reminders_to_who_has_armies_left(sqlite_store):
    table, _scheduler, _told, now, game_id = await setup_round(sqlite_store)
    state = (await sqlite_store.get_game(game_id)).game().state
    assert state.phase == SETUP and state.sealed is not None
    due = await timers(sqlite_store, game_id)
    assert due[(0, "round|r0")] == now() + DAY
    assert {seat for seat, kind in due if kind == "half|r0"} == {0, 1, 2}
    assert not any(kind.startswith("turn|") for _seat, kind in due)
    now.t += 3000
    await place_all(table, sqlite_store, game_id, 1, sittings=2)
    due = await timers(sqlite_store, game_id)
    assert due[(0, "round|r0")] == 1_000_000.0 + DAY     # the deadline does not move
    assert (1, "half|r0") not in due and (0, "half|r0") in due
    # Everyone places, in any order: revealed together, and the first turn begins with its own timers.
    await place_all(table, sqlite_store, game_id, 2)
    await place_all(table, sqlite_store, game_id, 0)
    state = (await sqlite_store.get_game(game_id)).game().state
    assert state.sealed is None and state.phase == REINFORCE
    due = await timers(sqlite_store, game_id)
    assert (0, "round|r0") not in due and (state.current, f"turn|t{state.turn}") in due


async def test_ai_seats_place_by_themselves_and_a_placement_out_of_range_is_refused(sqlite_store):
    table, _scheduler, _told, _now, game_id = await setup_round(sqlite_store, ai=True)
    record = await sqlite_store.get_game(game_id)
    state = record.game().state
    assert state.setup_remaining[3] == 0 and state.sealed is not None and state.sealed[3]
    with pytest.raises(RuleError, match="belongs to"):
        await table.apply(record, Place(0, state.territories_of(1)[0], 1))
    assert (await sqlite_store.get_game(game_id)).version == record.version


async def test_the_deadline_places_the_rest_counts_the_late_and_a_restart_does_nothing_twice(sqlite_store):
    table, scheduler, _told, now, game_id = await setup_round(sqlite_store, turn_order="freestyle")
    await place_all(table, sqlite_store, game_id, 0)
    record = await sqlite_store.get_game(game_id)
    await table.apply(record, Place(2, record.game().state.territories_of(2)[0], 3))
    now.t += DAY + 5
    # A new process: its own table and scheduler over the same store.
    fresh = Table(sqlite_store, now, lambda: "other-seed")
    await Scheduler(fresh, sqlite_store, now, Told()).run_due()
    state = (await sqlite_store.get_game(game_id)).game().state
    assert state.sealed is None and state.phase == WAITING and state.round == 1
    assert all(v == 0 for v in state.setup_remaining.values())
    assert [(await sqlite_store.seat_status(game_id, s)).missed for s in range(3)] == [0, 1, 1]
    log = await sqlite_store.events(game_id)
    await scheduler.run_due()
    await Scheduler(Table(sqlite_store, now, lambda: "third"), sqlite_store, now, Told()).run_due()
    again = (await sqlite_store.get_game(game_id)).game().state
    assert again.to_dict() == state.to_dict()
    assert [(await sqlite_store.seat_status(game_id, s)).missed for s in range(3)] == [0, 1, 1]
    assert log == await sqlite_store.events(game_id)
    assert (0, "round|r1") in await timers(sqlite_store, game_id)


async def test_an_ai_stopped_at_its_bound_goes_on_placing_from_the_scheduler(sqlite_store, monkeypatch):
    import table.flow
    monkeypatch.setattr(table.flow, "MAX_AI_ACTIONS", 4)
    _table, scheduler, _told, now, game_id = await setup_round(sqlite_store, ai=True)
    state = (await sqlite_store.get_game(game_id)).game().state
    assert state.setup_remaining[3] > 0 and state.sealed is not None   # stopped after four armies
    due = await timers(sqlite_store, game_id)
    assert any(seat == 3 and kind.startswith("ai|") for seat, kind in due)
    for _ in range(20):
        now.t += 60
        await scheduler.run_due()
        if (await sqlite_store.get_game(game_id)).game().state.setup_remaining[3] == 0:
            break
    state = (await sqlite_store.get_game(game_id)).game().state
    assert state.setup_remaining[3] == 0 and state.sealed is not None and state.phase == SETUP
    assert (0, "round|r0") in await timers(sqlite_store, game_id)
