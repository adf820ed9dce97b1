"""A tournament's game that does not finish by itself still gives its table a result, so the round goes on: the
tournament's host cancelling it (nobody resigns), a vote to end it, a round's time limit reaching a paused game or
one still in its set-up. Its own game host is refused the controls that would break the tournament."""

from __future__ import annotations

from competition import Spec
from engine.ai import make_ai
from store import CANCELLED, FINISHED, PAUSED, RUNNING, open_store
from table import Clock
from table.tournaments import control_refusal, view_standings
from tests.test_tournament_flow import GAME, HOST, Threads, desk_on, new_tournament, play_out


async def one_table(tmp_path, players: int = 2, **settings: object):
    clock = Clock(lambda: 1_000_000.0)
    store = await open_store(tmp_path / "t.sqlite3", clock=clock)
    desk, scheduler = desk_on(store, clock, Threads())
    tid = await new_tournament(desk, Spec("swiss", rounds=2), players, **settings)
    await desk.start(tid)
    return store, clock, desk, scheduler, tid


async def test_the_tournament_hosts_cancel_in_the_first_round_ends_the_game_by_the_standings_and_nobody_resigns(
        tmp_path):
    store, clock, desk, scheduler, tid = await one_table(tmp_path, 4)
    view = await store.tournament_view(tid)
    first = view.pairings[0]
    game = await store.get_game(first.game_id or 0)
    assert game.status == RUNNING and game.game().state.round == 1  # a plain game's cancel would record nothing
    outcome = await desk.table.cancel(game.id)
    assert outcome.record.status == FINISHED
    events = [e for part in outcome.parts for e in part.events]
    assert [e["type"] for e in events] == ["game_over"] and events[0]["reason"] == "round_limit"  # no surrender
    view = await store.tournament_view(tid)
    assert [(r.round, r.table) for r in view.results] == [(1, 1)]
    assert {key for key, _place in view.results[0].places} == set(first.pairing.entrants)
    await play_out(desk, scheduler, clock, tid)  # the other table finishes, round 2 is paired and played
    view = await store.tournament_view(tid)
    assert view.record.status == "finished" and len(view.results) == 4
    await store.close()


async def test_a_game_cancelled_in_its_set_up_is_a_draw_and_the_round_goes_on(tmp_path):
    clock = Clock(lambda: 1_000_000.0)
    store = await open_store(tmp_path / "t.sqlite3", clock=clock)
    desk, _scheduler = desk_on(store, clock, Threads())
    created = await desk.create(1, 500, HOST, "Cup", Spec("swiss", rounds=1), {"game": {**GAME, "deployment": "claim"}})
    for user in (101, 102):
        await desk.join(created.record.id, user, f"p{user}")
    tid = created.record.id
    await desk.start(tid)
    game_id = (await store.tournament_view(tid)).pairings[0].game_id or 0
    assert (await store.get_game(game_id)).game().state.phase in ("claim", "setup")
    outcome = await desk.table.cancel(game_id)
    assert outcome.record.status == CANCELLED
    view = await store.tournament_view(tid)
    assert view.results[0].places == ((101, 1), (102, 1))  # nobody was ahead yet
    assert view.record.status == "finished"
    standings = view_standings(view)
    assert [s.points for s in standings] == [0.5, 0.5]
    await store.close()


async def test_a_vote_to_end_as_a_draw_scores_the_table_as_a_draw(tmp_path):
    store, _clock, desk, _scheduler, tid = await one_table(tmp_path, 2)
    game_id = (await store.tournament_view(tid)).pairings[0].game_id or 0
    record = await store.get_game(game_id)
    for _ in range(200):  # to the first turn's play (past any set-up)
        game = record.game()
        if game.state.phase in ("reinforce", "attack", "fortify"):
            break
        record = (await desk.table.apply(record, make_ai("normal").choose(game, game.state.current))).record
    voters = desk.table.voters(record)
    called = await desk.table.call_vote(game_id, voters[0], draw=True)
    assert called.vote is not None
    closed = await desk.table.cast_ballot(game_id, voters[1], called.vote.key, True)
    assert closed.record.status == FINISHED
    view = await store.tournament_view(tid)
    assert sorted(place for _key, place in view.results[0].places) == [1, 1]
    assert view.record.round == 2  # the round went on
    await store.close()


async def test_a_round_past_its_time_ends_a_paused_game_too(tmp_path):
    store, clock, desk, scheduler, tid = await one_table(tmp_path, 2, round_time=3600)
    game_id = (await store.tournament_view(tid)).pairings[0].game_id or 0
    assert (await desk.table.pause(game_id)).record.status == PAUSED
    clock.advance(3601)
    await scheduler.run_due()
    view = await store.tournament_view(tid)
    assert (await store.get_game(game_id)).status == FINISHED
    assert view.forced == frozenset({(1, 1)}) and view.record.round == 2
    await store.close()


async def test_a_tournament_called_off_ends_its_games_by_the_standings_without_anyone_resigning(tmp_path):
    store, _clock, desk, _scheduler, tid = await one_table(tmp_path, 2)
    game_id = (await store.tournament_view(tid)).pairings[0].game_id or 0
    outcome = await desk.cancel(tid)
    assert [o.record.status for o in outcome.games] == [FINISHED]
    events = [e["type"] for o in outcome.games for part in o.parts for e in part.events]
    assert "player_surrendered" not in events and "game_over" in events
    assert (await store.get_game(game_id)).status == FINISHED
    assert (await store.tournament_view(tid)).results == []  # called off: nothing more is scored
    await store.close()


async def test_only_the_tournaments_host_runs_its_games(tmp_path):
    store, _clock, desk, _scheduler, tid = await one_table(tmp_path, 2)
    record = await store.get_game((await store.tournament_view(tid)).pairings[0].game_id or 0)
    refusal = await control_refusal(store, record, record.host_id)  # the game's own host: its first seat
    assert refusal is not None and refusal.id == tid and refusal.name == "Cup"
    assert await control_refusal(store, record, HOST) is None
    lobby = await store.create_lobby(1, 999, 5, "Eve", None)  # a game no tournament opened
    assert await control_refusal(store, lobby, 5) is None
    await desk.cancel(tid)
    assert await control_refusal(store, record, record.host_id) is None  # the tournament is over
    await store.close()


async def test_a_table_opened_but_not_started_before_a_restart_is_started_when_its_round_opens_again(tmp_path):
    clock = Clock(lambda: 1_000_000.0)
    path = tmp_path / "t.sqlite3"
    store = await open_store(path, clock=clock)
    desk, _scheduler = desk_on(store, clock, Threads())
    tid = await new_tournament(desk, Spec("swiss", rounds=1), 2)

    async def cut_short(game_id: int) -> None:  # the process stops just before the game's start
        raise ConnectionResetError("stopped")

    desk.table.start = cut_short  # type: ignore[method-assign]
    try:
        await desk.start(tid)
    except ConnectionResetError:
        pass
    else:
        raise AssertionError("the opening was not cut short")
    pairing = (await store.tournament_view(tid)).pairings[0]
    assert pairing.game_id is not None and (await store.get_game(pairing.game_id)).status == "lobby"
    await store.close()
    store = await open_store(path, clock=clock)  # the next process: the round's timer opens it again
    desk, scheduler = desk_on(store, clock, Threads())
    await scheduler.run_due()
    assert (await store.get_game(pairing.game_id)).status == RUNNING
    view = await store.tournament_view(tid)
    assert [p.game_id for p in view.pairings] == [pairing.game_id]  # the same game, not a second one
    await store.close()
