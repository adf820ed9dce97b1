"""The store under concurrent use: repeated taps, racing versions, many games, two connections, cancellation."""

from __future__ import annotations

import asyncio

from engine import Game
from engine.ai import make_ai
from store import GameRecord, SQLiteStore, VersionConflict
from table.play import apply_action, start_game

GUILD, HOST = 10, 1000


async def started_game(store: SQLiteStore, channel: int) -> GameRecord:
    lobby = await store.create_lobby(GUILD, channel, HOST, "Host", {"deployment": "auto"})
    await store.add_ai(lobby.id, "normal")
    await store.add_ai(lobby.id, "easy")
    record, _ = await start_game(store, lobby.id)
    return record


def next_action(record: GameRecord):
    game = record.game()
    seat = game.state.current
    return make_ai(record.players[seat].ai_level or "normal", salt=str(seat)).choose(game, seat)


async def assert_log_matches_state(store: SQLiteStore, game_id: int) -> None:
    record = await store.get_game(game_id)
    events = await store.events(game_id)
    assert len(events) == record.last_seq
    assert Game.from_events(events, record.state["seed"]).state.to_dict() == record.state


async def test_a_storm_of_repeated_taps_is_applied_once_per_interaction(store):
    record = await started_game(store, 1)
    for step in range(12):
        action = next_action(record)
        results = await asyncio.gather(*(
            apply_action(store, record.id, action, interaction_id=f"tap-{step}") for _ in range(25)))
        fresh = [r for r in results if not r.duplicate]
        assert len(fresh) == 1, "exactly one of the repeated taps is applied"
        assert all(r.events == fresh[0].events and r.first_seq == fresh[0].first_seq for r in results)
        assert fresh[0].record.version == record.version + 1
        record = fresh[0].record
        assert all(r.record == record for r in results)
    assert (await store.get_game(record.id)).version == record.version
    await assert_log_matches_state(store, record.id)


async def test_racing_actions_on_a_stale_version_commit_exactly_one(store):
    record = await started_game(store, 1)
    action = next_action(record)
    outcomes = await asyncio.gather(*(
        apply_action(store, record.id, action, interaction_id=f"player-{i}", expected_version=record.version)
        for i in range(20)), return_exceptions=True)
    applied = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(applied) == 1
    assert all(isinstance(o, VersionConflict) for o in outcomes if isinstance(o, BaseException))
    assert (await store.get_game(record.id)).version == record.version + 1
    await assert_log_matches_state(store, record.id)


async def play(store: SQLiteStore, record: GameRecord, actions: int, tag: str) -> int:
    done = 0
    while done < actions and record.status == "running":
        result = await apply_action(store, record.id, next_action(record), interaction_id=f"{tag}-{done}",
                                          expected_version=record.version)
        assert not result.duplicate
        record = result.record
        done += 1
    return done


async def test_many_games_on_two_connections_never_find_the_database_locked(tmp_path):
    path = tmp_path / "risk.sqlite3"
    async with SQLiteStore(path) as first, SQLiteStore(path, busy_timeout_ms=10_000) as second:
        games = [(first if i % 4 else second, await started_game(first if i % 4 else second, 100 + i))
                 for i in range(32)]
        played = await asyncio.gather(*(play(s, g, 25, f"g{g.id}") for s, g in games))
        assert sum(played) > 25 * 25
        for s, g in games:
            await assert_log_matches_state(s, g.id)
            stored = await s.get_game(g.id)
            assert stored.version == g.version + played[games.index((s, g))]


async def test_a_busy_game_does_not_hold_up_another_game(store):
    busy = await started_game(store, 1)
    calm = await started_game(store, 2)
    action = next_action(busy)
    finished: list[str] = []

    async def tap(game_id: int, act, label: str) -> None:
        await apply_action(store, game_id, act, interaction_id=label)
        finished.append(label)

    flood = [asyncio.create_task(tap(busy.id, action, "busy")) for _ in range(60)]
    await asyncio.sleep(0)  # the flood is queued first
    await asyncio.gather(tap(calm.id, next_action(calm), "calm"), *flood)
    if isinstance(store, SQLiteStore):  # one connection: it waited for the transaction in progress only
        assert finished.index("calm") <= 2
    else:  # a connection of its own: it ran beside the queue (repeats, a few round trips each), not behind it
        assert finished.index("calm") < len(flood) // 2


async def test_a_cancelled_caller_never_leaves_a_transaction_half_done(store):
    record = await started_game(store, 1)
    cancelled = 0
    for i in range(16):
        task = asyncio.create_task(apply_action(store, record.id, next_action(record), interaction_id=f"c{i}"))
        for _ in range(i % 8):
            await asyncio.sleep(0)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            cancelled += 1
        record = await store.get_game(record.id)  # waits for the transaction, which runs to its end
        # Every cancelled tap either happened completely (a retry is a duplicate) or not at all.
        retry = await apply_action(store, record.id, next_action(record), interaction_id=f"c{i}")
        record = retry.record
    assert cancelled > 4
    await assert_log_matches_state(store, record.id)
