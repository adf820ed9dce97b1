"""A game no human plays any more ends by the round limit after ``Limits.rounds_without_humans`` rounds: with the
round limit's standings, as an action in the log, so the game replays and verifies like any other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot import Config, create_bot
from cogs.shared.ending import how_won
from engine import Game, RuleError, Surrender
from engine.actions import RoundLimit
from engine.ai import make_ai
from engine.verify import verify_events
from table import Limits, Table
from table.flow import _round_humans_left
from tests.conftest import new_game

GUILD, CHANNEL, HOST = 1, 10, 100


def table_on(store, rounds: int) -> Table:
    return Table(store, lambda: 1_000_000.0, lambda: "unattended-seed", Limits(rounds_without_humans=rounds))


async def lobby_with_ais(table: Table, ais: int = 2) -> int:
    lobby = await table.open_lobby(GUILD, CHANNEL, HOST, "Host", {"deployment": "auto"})
    for _ in range(ais):
        await table.add_ai(lobby.record.id, "easy")
    return lobby.record.id


async def play_out(table: Table, game_id: int, most: int = 200):
    """Let the AIs go on, as the scheduler does, until the game is over."""
    record = await table.store.get_game(game_id)
    for _ in range(most):
        if record.status != "running":
            break
        record = (await table.go_on(game_id)).record
    return record


async def assert_ended_by_the_bound(table: Table, game_id: int, last_round: int) -> None:
    record = await table.store.get_game(game_id)
    events = await table.store.events(game_id)
    assert record.status == "finished"
    over = events[-1]
    assert over["type"] == "game_over" and over["reason"] == "round_limit"
    started = [e for e in events if e["type"] == "turn_started"]
    assert started[-1]["round"] == last_round + 1, "it ends as the first turn after the bound begins"
    before = Game.from_events(events[:-1])
    assert over["winner"] == before.leader(), "the round limit's standings: the leader wins"
    assert not [e for e in events[:-1] if e["type"] == "game_over"]
    state = json.loads(record.state_json)
    assert Game.from_events(events).state.to_dict() == state, "the log replays to the stored game"
    verify_events(events)  # and its dice, shuffles and seed check out
    said = how_won(Game.from_events(events).state, "en")
    assert said[0].startswith("No human was left in the game"), said  # not "its limit of 0 rounds"
    assert len(said) == 1 + len(Game.from_events(events).state.active_seats()), "then the standings"
    assert [r.placement for r in await table.store.results(game_id)], "the results of an ending like any other"


async def test_a_game_of_ais_alone_from_the_start_ends_by_the_bound(sqlite_store):
    table = table_on(sqlite_store, rounds=3)
    game_id = await lobby_with_ais(table)
    await table.start(game_id)
    # The host's seat goes to the AI before it plays anything: nobody human ever played this game.
    await sqlite_store.replace_with_ai(game_id, 0)
    await play_out(table, game_id)
    await assert_ended_by_the_bound(table, game_id, last_round=3)


async def test_the_bound_counts_from_the_round_the_last_human_left(sqlite_store):
    table = table_on(sqlite_store, rounds=2)
    game_id = await lobby_with_ais(table)
    outcome = await table.start(game_id)
    record = outcome.record
    # The human plays their turns until round 3 begins, then surrenders.
    while record.game().state.round < 3:
        game = record.game()
        seat = game.state.current
        assert not record.player(seat).is_ai
        record = (await table.apply(record, make_ai("easy", salt="human").choose(game, seat))).record
    assert record.status == "running", "a human still plays: no bound"
    record = (await table.apply(record, Surrender(0))).record
    await play_out(table, game_id)
    await assert_ended_by_the_bound(table, game_id, last_round=3 + 2)


async def test_a_human_in_the_game_is_never_bound(sqlite_store):
    table = table_on(sqlite_store, rounds=1)
    game_id = await lobby_with_ais(table)
    record = (await table.start(game_id)).record
    while record.status == "running" and record.game().state.round < 4:
        game = record.game()
        record = (await table.apply(record, make_ai("easy", salt="human").choose(game, game.state.current))).record
    events = await sqlite_store.events(game_id)
    assert not [e for e in events if e.get("reason") == "round_limit"]


async def test_no_bound_when_the_server_owner_sets_none(sqlite_store):
    table = table_on(sqlite_store, rounds=0)
    game_id = await lobby_with_ais(table)
    await table.start(game_id)
    await sqlite_store.replace_with_ai(game_id, 0)
    record = await table.store.get_game(game_id)
    for _ in range(5):
        record = (await table.go_on(game_id)).record
        if record.status != "running":
            break
    events = await sqlite_store.events(game_id)
    assert max(e["round"] for e in events if e["type"] == "turn_started") > 1
    assert not [e for e in events if e.get("reason") == "round_limit"]


def test_the_round_limit_action_is_the_seat_on_turns_and_only_in_play():
    game = new_game(3)
    with pytest.raises(RuleError):
        game.apply(RoundLimit((game.state.current + 1) % 3))
    leader = game.leader()
    events = game.apply(RoundLimit(game.state.current))
    assert [e["type"] for e in events] == ["game_over"]
    assert events[0]["reason"] == "round_limit" and events[0]["winner"] == leader
    with pytest.raises(RuleError):
        game.apply(RoundLimit(game.state.current))
    claiming = new_game(3, deployment="claim")
    with pytest.raises(RuleError):
        claiming.apply(RoundLimit(claiming.state.current))


def test_the_last_human_leaves_by_elimination_surrender_or_the_ais_taking_their_seat():
    def turn(seat: int, number: int, round_: int) -> dict:
        return {"type": "turn_started", "seat": seat, "turn": number, "round": round_}

    events = [turn(0, 1, 1), turn(1, 2, 1), turn(2, 3, 1), turn(0, 4, 2),
              {"type": "player_eliminated", "seat": 1, "by": 0, "cards_taken": []},
              turn(2, 5, 2), turn(0, 6, 3), {"type": "player_surrendered", "seat": 0}, turn(2, 7, 3)]
    assert _round_humans_left(events, humans=set(), replaced_at={}) == 0, "nobody human: from the start"
    assert _round_humans_left(events, humans={1}, replaced_at={}) == 2
    assert _round_humans_left(events, humans={0, 1}, replaced_at={}) == 3
    assert _round_humans_left(events, humans={1}, replaced_at={2: 7}) == 3, "the turn the AI took the seat in"
    assert _round_humans_left(events, humans=set(), replaced_at={2: 0}) == 0, "taken before any turn"


def test_the_server_owner_sets_the_bound_in_the_bots_config(tmp_path):
    config_file = tmp_path / "config.toml"
    config_file.write_text("rounds_without_humans = 50\n")
    config = Config.load(config_file)
    config.database = str(tmp_path / "risk.sqlite3")
    assert create_bot(config).services().limits.rounds_without_humans == 50
    assert Config().rounds_without_humans == Limits().rounds_without_humans == 200
    example = (Path(__file__).resolve().parents[1] / "config.example.toml").read_text()
    assert "rounds_without_humans = 200" in example
