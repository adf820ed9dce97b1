"""The AIs that think long decide in worker processes of their own: never on the event loop, bounded (a worker
that hangs or dies is replaced and the game goes on), and in slices the scheduler carries on, across a restart."""

from __future__ import annotations

import asyncio
import logging
import os
import signal

import pytest

from engine.ai import make_ai
from table import Table
from table import flow as table_flow
from table.thinking import Thinking

GUILD, CHANNEL, HOST = 1, 10, 100
LEVEL = "hard"


def table_on(store, thinking: Thinking | None = None, seed: str = "thinking-seed") -> Table:
    return Table(store, lambda: 1_000_000.0, lambda: seed, thinking=thinking or Thinking(processes=1))


async def game_with_ais(table: Table, ais: int = 2, level: str = LEVEL, channel: int = CHANNEL) -> int:
    """A started game: the host (a human, seat 0) and ``ais`` AIs of ``level``."""
    lobby = await table.open_lobby(GUILD, channel, HOST, "Host", {"deployment": "auto"})
    for _ in range(ais):
        await table.add_ai(lobby.record.id, level)
    await table.start(lobby.record.id)
    return lobby.record.id


async def human_moves(table: Table, game_id: int, turns: int = 1) -> None:
    """The host plays (as the normal AI would) until ``turns`` of their turns are over, the AIs in between."""
    record = await table.store.get_game(game_id)
    start = record.game().state.turn
    for _ in range(500):
        game = record.game()
        if record.status != "running" or game.state.turn >= start + 2 * turns + 1:
            return
        seat = game.state.current
        assert not record.player(seat).is_ai, "the AIs play on until it is the human's turn again"
        record = (await table.apply(record, make_ai("normal", salt="h").choose(game, seat))).record


async def test_the_ai_decides_in_a_worker_process_and_the_game_goes_on(sqlite_store):
    thinking = Thinking(processes=1)
    table = table_on(sqlite_store, thinking)
    game_id = await game_with_ais(table)
    await human_moves(table, game_id, turns=2)
    events = await sqlite_store.events(game_id)
    assert {e["seat"] for e in events if e["type"] == "turn_started"} == {0, 1, 2}, "every AI played its turns"
    workers = set(thinking.thought_in)
    assert workers and os.getpid() not in workers, "every decision came from another process"
    assert workers <= set(thinking.workers.pids()) | workers and thinking.fallbacks == 0
    thinking.shutdown()


async def test_a_worker_that_hangs_or_dies_is_replaced_and_the_game_goes_on(sqlite_store, caplog):
    caplog.set_level(logging.INFO)
    # A worker's start and its decisions may take long on a loaded machine: the time limit is short only while
    # a worker is stopped, so that only the stopped one misses it.
    thinking = Thinking(processes=1, timeout=60.0)
    table = table_on(sqlite_store, thinking)
    game_id = await game_with_ais(table)                 # three players: the game outlasts the three steps
    await human_moves(table, game_id)                    # the pool is up: one worker
    (first,) = thinking.workers.pids()
    os.kill(first, signal.SIGSTOP)                       # it stops answering in the middle of its work
    thinking.timeout = 1.0
    await human_moves(table, game_id)
    thinking.timeout = 60.0
    assert thinking.fallbacks >= 1, "the decision it did not make was made here"
    assert first not in thinking.workers.pids()
    await human_moves(table, game_id)                    # a fresh worker thinks again
    (second,) = thinking.workers.pids()
    assert second != first and thinking.thought_in[second] > 0
    os.kill(second, signal.SIGKILL)                      # a worker killed (out of memory, say)
    fallbacks = thinking.fallbacks
    await human_moves(table, game_id)
    (third,) = thinking.workers.pids()
    assert third != second and thinking.thought_in[third] > 0
    assert thinking.fallbacks == fallbacks, "a dead worker's decision is made again in a new one"
    record = await sqlite_store.get_game(game_id)
    assert record.status == "finished" or not record.player(record.game().state.current).is_ai, "it goes on"
    assert any(r.name == "table.thinking" and r.levelno == logging.WARNING for r in caplog.records)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    thinking.shutdown()


async def test_other_games_go_on_while_an_ai_thinks(sqlite_store):
    thinking = Thinking(processes=1, timeout=60.0)
    table = table_on(sqlite_store, thinking)
    thinking_game = await game_with_ais(table, ais=1)
    await human_moves(table, thinking_game)
    other = await game_with_ais(table, ais=1, level="normal", channel=CHANNEL + 1)
    (worker,) = thinking.workers.pids()
    os.kill(worker, signal.SIGSTOP)                      # the AI's next decision waits on its worker
    try:
        busy = asyncio.ensure_future(human_moves(table, thinking_game))
        while not table.lock(thinking_game).locked() or thinking.workers.pids() == ():
            await asyncio.sleep(0)
        await human_moves(table, other, turns=2)         # another game's moves are not held up behind it
        assert not busy.done()
    finally:
        os.kill(worker, signal.SIGCONT)
    await busy
    assert thinking.fallbacks == 0
    thinking.shutdown()


async def test_a_long_run_of_ai_moves_goes_in_slices_and_on_after_a_restart(sqlite_store, monkeypatch):
    """Four AIs alone: each call plays at most ``MAX_THOUGHTS`` decisions and leaves the AI's timer; a new table
    on the same store (a restart) goes on where it stopped, and the game is the one played without cuts."""
    async def played(thinking: Thinking, seed: str, slices: int, bound: int, channel: int) -> list[dict]:
        monkeypatch.setattr(table_flow, "MAX_THOUGHTS", 10_000)   # the same start for both: up to the human
        table = table_on(sqlite_store, thinking, seed)
        game_id = await game_with_ais(table, ais=3, channel=channel)
        await sqlite_store.replace_with_ai(game_id, 0, LEVEL)
        monkeypatch.setattr(table_flow, "MAX_THOUGHTS", bound)
        for _ in range(slices):
            table = table_on(sqlite_store, thinking, seed)           # each slice in a "new process"
            outcome = await table.go_on(game_id)
            assert not table.lock(game_id).locked()
            if bound < 1000:
                timers = await sqlite_store.game_deadlines(game_id)
                assert [t.kind.split("|")[0] for t in timers] == ["ai"], "it goes on from the scheduler"
                assert sum(len(p.events) for p in outcome.parts) > 0
        return await sqlite_store.events(game_id)

    thinking = Thinking(processes=1)
    cut = await played(thinking, "slices", slices=6, bound=5, channel=CHANNEL)
    whole = await played(thinking, "slices", slices=1, bound=30, channel=CHANNEL + 1)
    assert len({e["seat"] for e in cut if e["type"] == "turn_started"}) == 4
    assert cut == whole, "cut short, nothing is lost and nothing changes"
    assert thinking.fallbacks == 0
    thinking.shutdown()


def test_easy_and_normal_decide_here_and_levels_are_checked():
    thinking = Thinking()
    assert {"easy", "normal", "cautious", "skip"}.isdisjoint(thinking.elsewhere)
    assert LEVEL in thinking.elsewhere
    assert not thinking.workers.started


@pytest.mark.parametrize("level", ["genius", "", "random", "hard "])
async def test_a_forged_level_is_refused_by_the_table(sqlite_store, level):
    table = table_on(sqlite_store)
    lobby = await table.open_lobby(GUILD, CHANNEL, HOST, "Host", {})
    with pytest.raises(Exception, match="AI level"):
        await table.add_ai(lobby.record.id, level)
    assert len((await sqlite_store.get_game(lobby.record.id)).players) == 1


# -- through the real command tree -------------------------------------------------------------------------------
async def test_risk_addbot_level_hard_seats_an_ai_that_thinks_elsewhere(tmp_path):
    from discord_helpers import OfflineDiscord, make_bot, open_lobby, play_rounds

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="hard")) as d:
        await open_lobby(d, deployment="auto")
        for _ in range(2):
            step = await d.send_command("alice", "general", "risk addbot", {"level": "hard"})
            assert not step.problems
        assert "Hard AI" in str(step[0].embeds) and "Hard AI 2" in str(step[0].embeds), "the lobby shows the level"
        refused = await d.send_command("alice", "general", "risk addbot", {"level": "genius"},
                                       client_checks=False)
        assert refused[0].ephemeral and "genius" in refused[0].content
        step = await d.send_command("alice", "general", "risk start", {})
        assert not step.problems
        cog = d.bot.get_cog("RiskCog")
        record = (await cog.store.list_games(channel_id=d.channel("general").id, limit=1))[0]
        assert [p.ai_level for p in record.players] == [None, "hard", "hard"]
        await play_rounds(d, "general", 2)               # the host plays by command, the hard AIs in between
        record = await cog.store.get_game(record.id)
        assert record.status == "finished" or not record.player(record.game().state.current).is_ai
        thinking = cog.table.thinking
        assert thinking.thought_in and os.getpid() not in thinking.thought_in, "they thought in another process"
        assert thinking.fallbacks == 0


async def test_the_host_chooses_the_hard_ai_to_play_for_absent_players(tmp_path):
    from discord_helpers import OfflineDiscord, make_bot, open_lobby

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="stand-in")) as d:
        refused = await d.send_command("alice", "general", "risk new", {"stand_in": "genius"},
                                       client_checks=False)
        assert refused[0].ephemeral and "stand_in" in refused[0].content
        await open_lobby(d, deployment="auto", on_timeout="ai", stand_in="hard", turn_deadline=3600, max_missed=1)
        step = await d.send_command("bob", "general", "risk join", {})
        assert "The AI playing for absent players: **the hard AI**" in str(step[0].embeds)
        await d.send_command("alice", "general", "risk start", {})
        cog = d.bot.get_cog("RiskCog")
        record = (await cog.store.list_games(channel_id=d.channel("general").id, limit=1))[0]
        assert record.game().state.settings.stand_in == "hard"
        absent = record.game().state.current
        await d.run(d.bot.advance_time(3600 + 1))        # their time runs out: the hard AI plays their turn
        thinking = cog.table.thinking
        assert thinking.thought_in and os.getpid() not in thinking.thought_in
        record = await cog.store.get_game(record.id)
        assert record.player(absent).ai_level == "hard", "after too many missed turns the hard AI takes the seat"
        events = await cog.store.events(record.id)
        assert events[0]["settings"]["stand_in"] == "hard", "the game's record keeps the host's choice"


async def test_the_lobby_menu_offers_the_stand_in_and_refuses_a_forged_value(tmp_path):
    from discord_helpers import OfflineDiscord, make_bot, open_lobby

    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await open_lobby(d)
        cog = d.bot.get_cog("RiskCog")
        record = (await cog.store.list_games(channel_id=d.channel("general").id, limit=1))[0]
        lobby = next(m for m in reversed(d.messages) if m.selects)
        step = await d.select("alice", ["stand_in"], lobby, custom_id=f"lobbys:{record.id}:set")
        menu = step[-1]
        raw = next(c for row in menu.raw_components for c in row["components"]
                   if c.get("custom_id") == f"lobbys:{record.id}:val:stand_in")
        assert [o["value"] for o in raw["options"]] == ["normal", "hard"]
        raw["options"].append({"label": "x", "value": "genius"})  # the value a forged request carries
        step = await d.select("alice", ["genius"], menu, custom_id=f"lobbys:{record.id}:val:stand_in")
        assert step[-1].ephemeral
        assert (await cog.store.get_game(record.id)).settings.get("stand_in") == "normal"
        step = await d.select("alice", ["hard"], menu, custom_id=f"lobbys:{record.id}:val:stand_in")
        assert (await cog.store.get_game(record.id)).settings.get("stand_in") == "hard"
        assert "The AI playing for absent players: **the hard AI**" in str(step[-1].embeds), "the lobby shows it"
