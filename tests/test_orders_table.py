"""Standing orders at the table (table/orders.py): kept privately, run when their timer fires after a random
delay, played as the player's own moves, told to the player only, run once across a restart."""

from __future__ import annotations

import contextlib
import random

import pytest
from test_freestyle_table import Now, Told

from engine import EndTurn, Place
from engine.orders import FRONT, Orders, Placing
from engine.state import ATTACK, REINFORCE, WAITING
from table import Table, Timer
from table.orders import DELAY_HIGH, DELAY_LEAST
from table.outcome import PLAYER, TIMEOUT
from table.scheduler import Scheduler
from table.thinking import Thinking

pytestmark = pytest.mark.asyncio
GUILD, CHANNEL = 1, 10
USERS = (100, 200, 300)
DAY = 86400.0


async def new_game(store, **settings):
    now = Now()
    table = Table(store, now, lambda: "orders-table-seed")
    table.orders_random = random.Random(7)
    told = Told()
    scheduler = Scheduler(table, store, now, told)
    lobby = await table.open_lobby(GUILD, CHANNEL, USERS[0], "Ann", {
        "deployment": "auto", "turn_deadline": int(DAY), **settings})
    await table.join(lobby.record.id, USERS[1], "Bo")
    await table.join(lobby.record.id, USERS[2], "Cy")
    started = await table.start(lobby.record.id)
    return table, scheduler, told, now, started.record.id


async def orders_timers(store, game_id: int) -> dict[tuple[int, str], float]:
    return {(d.seat, d.kind): d.due_at for d in await store.game_deadlines(game_id) if d.kind.startswith("orders|")}


def user_of(record, seat: int) -> int:
    user = record.player(seat).user_id
    assert user is not None
    return user


@contextlib.contextmanager
def bot_stops_after(table, steps: int):
    """The bot's process dies once the ``steps``-th action through ``table`` is stored (its change committed)."""
    real = table.plays.apply
    calls = 0

    async def apply(*args, **kwargs):
        nonlocal calls
        calls += 1
        result = await real(*args, **kwargs)
        if calls == steps:
            raise SystemExit("the bot stopped")
        return result

    table.plays.apply = apply
    try:
        with pytest.raises(SystemExit):
            yield
    finally:
        table.plays.apply = real


async def test_orders_run_after_a_random_delay_as_the_players_own_moves(sqlite_store):
    table, scheduler, told, now, game_id = await new_game(sqlite_store)
    record = await sqlite_store.get_game(game_id)
    state = record.game().state
    seat = state.current
    income = state.reinforcements
    assert state.phase == REINFORCE and await orders_timers(sqlite_store, game_id) == {}
    await table.leave_orders(record, seat, user_of(record, seat), Orders(place=(Placing(FRONT),), end=False))
    due = await orders_timers(sqlite_store, game_id)
    [(key, at)] = due.items()
    assert key == (seat, f"orders|t{state.turn}")
    assert now() + DELAY_LEAST <= at <= now() + DELAY_HIGH * DAY
    now.t = at - 1
    await scheduler.run_due()
    assert told.outcomes == []   # not before its time
    now.t = at
    await scheduler.run_due()
    [outcome] = told.outcomes
    assert [p.by for p in outcome.parts] == [PLAYER] and outcome.parts[0].seat == seat
    placed = [e for e in outcome.events if e["type"] == "armies_placed"]
    assert sum(e["count"] for e in placed) == income
    report = outcome.orders
    assert report.seat == seat and report.user_id == user_of(record, seat)
    assert report.done and len(report.ran) == 1 and report.stop.template.startswith("Your orders ran")
    after = (await sqlite_store.get_game(game_id)).game().state
    assert after.phase == ATTACK and after.current == seat   # the rest of the turn is the player's
    assert await sqlite_store.standing_orders(game_id, seat) is None   # run once
    assert await orders_timers(sqlite_store, game_id) == {}


async def test_a_turn_begun_by_the_player_is_theirs_and_the_plan_waits(sqlite_store):
    table, scheduler, told, now, game_id = await new_game(sqlite_store)
    record = await sqlite_store.get_game(game_id)
    state = record.game().state
    seat = state.current
    await table.leave_orders(record, seat, user_of(record, seat), Orders(place=(Placing(FRONT),), end=True))
    record = (await table.apply(record, Place(seat, state.territories_of(seat)[0], 1))).record
    now.t += DAY / 2
    await scheduler.run_due()
    assert all(outcome.orders is None for outcome in told.outcomes)
    assert (await sqlite_store.get_game(game_id)).game().state.reinforcements == state.reinforcements - 1
    assert await sqlite_store.standing_orders(game_id, seat) is not None   # kept for a turn it may run


async def test_orders_of_a_seat_that_changed_hands_are_neither_shown_nor_run(sqlite_store):
    table, _scheduler, _told, _now, game_id = await new_game(sqlite_store)
    record = await sqlite_store.get_game(game_id)
    seat = record.game().state.current
    await table.leave_orders(record, seat, user_of(record, seat), Orders(place=(Placing(FRONT),)))
    assert await table.orders_of(record, seat, user_of(record, seat)) is not None
    assert await table.orders_of(record, seat, USERS[0] + USERS[1] + USERS[2]) is None   # another user
    record = await sqlite_store.replace_with_ai(game_id, seat)   # the seat is the AI's now (and so plays)
    assert await table.orders_of(record, seat, USERS[0]) is None
    assert await sqlite_store.standing_orders(game_id, seat) is None


async def test_a_cancelled_plan_does_not_run(sqlite_store):
    table, scheduler, told, now, game_id = await new_game(sqlite_store)
    record = await sqlite_store.get_game(game_id)
    seat = record.game().state.current
    user = user_of(record, seat)
    await table.leave_orders(record, seat, user, Orders(place=(Placing(FRONT),)))
    assert await table.cancel_orders(record, seat, user)
    assert not await table.cancel_orders(record, seat, user)
    now.t += DAY / 2
    await scheduler.run_due()
    assert all(o.orders is None for o in told.outcomes)
    assert (await sqlite_store.get_game(game_id)).game().state.phase == REINFORCE


async def test_a_repeating_plan_is_kept_for_the_next_turn(sqlite_store):
    table, scheduler, told, now, game_id = await new_game(sqlite_store)
    record = await sqlite_store.get_game(game_id)
    seat = record.game().state.current
    await table.leave_orders(record, seat, user_of(record, seat), Orders(place=(Placing(FRONT),), repeat=True))
    now.t += DAY / 2
    await scheduler.run_due()
    kept = await sqlite_store.standing_orders(game_id, seat)
    assert kept is not None and kept.cursor == 0 and kept.turn is None and kept.orders["repeat"]
    record = await sqlite_store.get_game(game_id)
    while (state := record.game().state).current != seat:   # the others play their turns by hand
        other = state.current
        record = (await table.apply(record, Place(other, state.territories_of(other)[0], state.reinforcements))).record
        record = (await table.apply(record, EndTurn(other))).record
    assert state.phase == REINFORCE and await orders_timers(sqlite_store, game_id)   # its turn again: it runs again
    now.t += DAY / 2
    await scheduler.run_due()
    state = (await sqlite_store.get_game(game_id)).game().state
    assert state.current != seat and [o.orders.done for o in told.outcomes if o.orders is not None] == [True, True]
    assert await sqlite_store.standing_orders(game_id, seat) is not None


async def test_a_restart_in_the_middle_of_a_plan_does_nothing_twice(sqlite_store):
    table, _scheduler, _told, now, game_id = await new_game(sqlite_store)
    record = await sqlite_store.get_game(game_id)
    state = record.game().state
    seat = state.current
    mine = state.territories_of(seat)
    income = state.reinforcements
    plan = Orders(place=(Placing(mine[0], 1), Placing(mine[1], 1), Placing(mine[2])), end=True)
    await table.leave_orders(record, seat, user_of(record, seat), plan)
    [(_, kind)] = (await orders_timers(sqlite_store, game_id)).keys()
    with bot_stops_after(table, 2):   # once the second step is stored
        await table.run_orders(game_id, seat, Timer.parse(kind))
    stored = await sqlite_store.standing_orders(game_id, seat)
    assert stored is not None and stored.cursor == 3   # the trade (none), then two placings
    again = Table(sqlite_store, now, lambda: "orders-table-seed")   # the bot after its restart
    outcome = await again.run_orders(game_id, seat, Timer.parse(kind))
    events = await sqlite_store.events(game_id)
    placed = [e for e in events if e["type"] == "armies_placed" and e.get("source") == "reinforcement"
              and e["seat"] == seat]
    assert [(e["territory"], e["count"]) for e in placed] == [(mine[0], 1), (mine[1], 1), (mine[2], income - 2)]
    assert sum(1 for e in events if e["type"] == "turn_ended" and e["seat"] == seat) == 1
    assert outcome.orders.done and await sqlite_store.standing_orders(game_id, seat) is None


async def test_freestyle_orders_start_the_turn_when_the_board_is_free(sqlite_store):
    table, scheduler, told, now, game_id = await new_game(sqlite_store, turn_order="freestyle")
    record = await sqlite_store.get_game(game_id)
    state = record.game().state
    assert state.phase == WAITING
    await table.leave_orders(record, 1, USERS[1], Orders(place=(Placing(FRONT),), end=False))
    [((seat, kind), at)] = (await orders_timers(sqlite_store, game_id)).items()
    assert seat == 1 and kind == f"orders|w{state.round}.{state.turn}"
    assert at <= now() + DELAY_HIGH * DAY
    now.t = at
    await scheduler.run_due()
    [outcome] = [o for o in told.outcomes if o.orders is not None]
    assert outcome.events[0]["type"] == "turn_started" and outcome.events[0]["seat"] == 1
    after = (await sqlite_store.get_game(game_id)).game().state
    assert after.current == 1 and after.phase == ATTACK


async def test_a_freestyle_plan_waits_while_another_turn_runs(sqlite_store):
    table, scheduler, told, now, game_id = await new_game(sqlite_store, turn_order="freestyle")
    record = await sqlite_store.get_game(game_id)
    state = record.game().state
    await table.leave_orders(record, 1, USERS[1], Orders(place=(Placing(FRONT),)))
    [(_, at)] = (await orders_timers(sqlite_store, game_id)).items()
    # Ann visits first and starts her turn: the board is hers; Bo's orders wait for it to be free again.
    record = (await table.apply(record, Place(0, state.territories_of(0)[0], 1))).record
    now.t = at
    await scheduler.run_due()
    assert all(o.orders is None for o in told.outcomes)
    assert (await sqlite_store.get_game(game_id)).game().state.current == 0
    assert await sqlite_store.standing_orders(game_id, 1) is not None


async def test_a_turn_with_nothing_left_to_decide_ends_by_itself_after_the_same_kind_of_delay(sqlite_store,
                                                                                              monkeypatch):
    """The table's share: a turn whose step is forced (``engine.orders.forced_step``, whose decisions the engine's
    tests check) gets a timer as orders do, and the step is taken as the player's own when it fires."""
    from table import orders

    def nothing_to_decide(game, seat):   # as the engine answers for a turn with no attack and no fortify move
        s = game.state
        return EndTurn(seat) if s.phase == ATTACK and s.current == seat else None

    monkeypatch.setattr(orders, "forced_step", nothing_to_decide)
    table, scheduler, told, now, game_id = await new_game(sqlite_store)
    record = await sqlite_store.get_game(game_id)
    state = record.game().state
    seat = state.current
    assert await orders_timers(sqlite_store, game_id) == {}   # placing is a decision
    record = (await table.apply(record, Place(seat, state.territories_of(seat)[0], state.reinforcements))).record
    [((owner, _kind), at)] = (await orders_timers(sqlite_store, game_id)).items()
    assert owner == seat and now() + DELAY_LEAST <= at <= now() + DELAY_HIGH * DAY
    now.t = at
    await scheduler.run_due()
    [outcome] = told.outcomes
    assert outcome.orders is None and outcome.parts[0].by == PLAYER
    assert any(e["type"] == "turn_ended" and e["seat"] == seat for e in outcome.events)
    assert (await sqlite_store.get_game(game_id)).game().state.current != seat


async def test_both_databases_keep_a_plan_and_its_progress_with_the_step(store):
    table, _scheduler, _told, _now, game_id = await new_game(store)
    record = await store.get_game(game_id)
    state = record.game().state
    seat = state.current
    await table.leave_orders(record, seat, user_of(record, seat), Orders(place=(Placing(FRONT),)))
    kept = await store.standing_orders(game_id, seat)
    assert kept is not None and kept.cursor == 0 and kept.turn is None and kept.orders["place"][0]["territory"] == FRONT
    from store import OrdersProgress
    from table.orders import _progress
    mine = state.territories_of(seat)[0]
    await table.plays.apply(game_id, Place(seat, mine, 1), also=_progress(game_id, OrdersProgress(seat, 2, state.turn),
                                                                          seat))
    kept = await store.standing_orders(game_id, seat)
    assert (kept.cursor, kept.turn) == (2, state.turn)
    await store.orders_progress(game_id, OrdersProgress(seat, 0, None, gone=True))
    assert await store.standing_orders(game_id, seat) is None
    assert await store.cancel_orders(game_id) == 0


async def test_at_the_deadline_the_stand_in_plays_only_what_the_orders_left(sqlite_store):
    _table, scheduler, told, now, game_id, seat, _income = await orders_ran(sqlite_store)
    assert (await sqlite_store.get_game(game_id)).game().state.phase == ATTACK
    now.t += DAY
    await scheduler.run_due()
    timeout = [p for o in told.outcomes for p in o.parts if p.by == "timeout" and p.seat == seat]
    assert timeout and not any(e["type"] == "armies_placed" for p in timeout for e in p.events)
    assert any(e["type"] == "turn_ended" and e["seat"] == seat for p in timeout for e in p.events)


async def test_a_seat_the_ai_takes_over_loses_its_plan(sqlite_store):
    table, scheduler, _told, now, game_id = await new_game(sqlite_store, max_missed=1, on_boot="ai")
    record = await sqlite_store.get_game(game_id)
    state = record.game().state
    seat = state.current
    await table.leave_orders(record, seat, user_of(record, seat), Orders(place=(Placing(FRONT),)))
    await table.apply(record, Place(seat, state.territories_of(seat)[0], 1))   # begun by hand: the plan waits
    now.t += DAY + 1
    await scheduler.run_due()
    assert (await sqlite_store.get_game(game_id)).player(seat).is_ai
    assert await sqlite_store.standing_orders(game_id, seat) is None


class LevelsAsked(Thinking):
    """Every AI decision made here (no worker processes), each one's seat and level noted."""

    def __init__(self) -> None:
        super().__init__(elsewhere=frozenset())
        self.asked: list[tuple[int, str]] = []

    async def choose(self, game, seat, level, memory=None):
        self.asked.append((seat, level))
        return await super().choose(game, seat, level, memory)


async def armies_placed_by_hand(store, game_id: int, seat: int) -> list[tuple[str, int]]:
    return [(e["territory"], e["count"]) for e in await store.events(game_id)
            if e["type"] == "armies_placed" and e.get("source") == "reinforcement" and e["seat"] == seat]


async def orders_ran(store, **settings):
    """A game whose player to move left a plan that places their armies and leaves them the rest of the turn, run
    when its timer fired; every AI decision noted (``LevelsAsked``)."""
    table, scheduler, told, now, game_id = await new_game(store, **settings)
    table.thinking = LevelsAsked()
    record = await store.get_game(game_id)
    state = record.game().state
    seat = state.current
    await table.leave_orders(record, seat, user_of(record, seat), Orders(place=(Placing(FRONT),), end=False))
    now.t += DAY / 2
    await scheduler.run_due()
    return table, scheduler, told, now, game_id, seat, state.reinforcements


@pytest.mark.parametrize(("on_timeout", "stand_in", "level"), [
    ("ai", "hard", "hard"), ("ai", "normal", "normal"), ("cautious", "hard", "cautious"), ("skip", "hard", "skip"),
])
async def test_the_orders_run_first_then_the_stand_in_the_host_chose_plays_the_rest(sqlite_store, on_timeout,
                                                                                      stand_in, level):
    """A player's plan places their armies and leaves them the rest of the turn; they do not come back: at the
    deadline the AI plays what is left, at the level ``on_timeout`` says (``ai``: the host's ``stand_in``)."""
    table, scheduler, told, now, game_id, seat, income = await orders_ran(sqlite_store, on_timeout=on_timeout,
                                                                           stand_in=stand_in)
    thinking = table.thinking
    assert thinking.asked == [], "the plan is the player's own moves"
    assert [p.by for o in told.outcomes for p in o.parts] == [PLAYER]
    now.t += DAY
    await scheduler.run_due()
    parts = [p for o in told.outcomes for p in o.parts if p.seat == seat]
    assert [p.by for p in parts] == [PLAYER, TIMEOUT], "the orders, then the stand-in"
    assert thinking.asked and set(thinking.asked) == {(seat, level)}
    assert not any(e["type"] == "armies_placed" for e in parts[1].events), "it plays only what the plan left"
    assert any(e["type"] == "turn_ended" and e["seat"] == seat for e in parts[1].events)
    assert sum(n for _, n in await armies_placed_by_hand(sqlite_store, game_id, seat)) == income
    assert (await sqlite_store.seat_status(game_id, seat)).missed == 1


async def test_a_restart_during_the_stand_ins_turn_after_the_orders_does_nothing_twice(sqlite_store):
    table, scheduler, _told, now, game_id, seat, income = await orders_ran(sqlite_store, on_timeout="ai",
                                                                            stand_in="hard")
    now.t += DAY
    with bot_stops_after(table, 1):   # once the stand-in's first move is stored
        await scheduler.run_due()
    assert (await sqlite_store.get_game(game_id)).game().state.current == seat, "stopped in the middle of the turn"
    again = Table(sqlite_store, now, lambda: "orders-table-seed", thinking=LevelsAsked())   # after the restart
    told_again = Told()
    await Scheduler(again, sqlite_store, now, told_again).run_due()
    assert again.thinking.asked and set(again.thinking.asked) == {(seat, "hard")}
    events = await sqlite_store.events(game_id)
    assert sum(n for _, n in await armies_placed_by_hand(sqlite_store, game_id, seat)) == income
    assert sum(1 for e in events if e["type"] == "turn_ended" and e["seat"] == seat) == 1
    assert (await sqlite_store.seat_status(game_id, seat)).missed == 1, "one missed turn, counted once"
    assert await sqlite_store.standing_orders(game_id, seat) is None


async def test_a_restart_in_the_middle_of_the_orders_past_the_deadline_runs_their_rest_then_the_stand_in(
        sqlite_store):
    """The bot stops after two steps of a plan and comes back after the turn's deadline: the plan's last step runs
    (once), then the stand-in at the host's level plays the rest of the turn."""
    table, _scheduler, _told, now, game_id = await new_game(sqlite_store, on_timeout="ai", stand_in="hard")
    record = await sqlite_store.get_game(game_id)
    state = record.game().state
    seat, income = state.current, state.reinforcements
    mine = state.territories_of(seat)
    plan = Orders(place=(Placing(mine[0], 1), Placing(mine[1], 1), Placing(mine[2])), end=False)
    await table.leave_orders(record, seat, user_of(record, seat), plan)
    [(_, kind)] = (await orders_timers(sqlite_store, game_id)).keys()
    with bot_stops_after(table, 2):
        await table.run_orders(game_id, seat, Timer.parse(kind))
    now.t += 2 * DAY   # back after the deadline: both timers are due, the plan's first
    again = Table(sqlite_store, now, lambda: "orders-table-seed", thinking=LevelsAsked())
    told = Told()
    await Scheduler(again, sqlite_store, now, told).run_due()
    parts = [p for o in told.outcomes for p in o.parts if p.seat == seat]
    assert [p.by for p in parts] == [PLAYER, TIMEOUT]
    assert set(again.thinking.asked) == {(seat, "hard")}
    assert await armies_placed_by_hand(sqlite_store, game_id, seat) == [(mine[0], 1), (mine[1], 1),
                                                                        (mine[2], income - 2)]
    events = await sqlite_store.events(game_id)
    assert sum(1 for e in events if e["type"] == "turn_ended" and e["seat"] == seat) == 1
    assert await sqlite_store.standing_orders(game_id, seat) is None
