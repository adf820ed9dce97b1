"""A long game never holds up the bot: its export, its log, its end-of-game results and report are read in chunks
and worked out in the log's worker process (store/logs.py), never decoded in the bot's process, and give exactly
what the projection of the whole log gave (``engine.fog``, for each audience); ``/risk log`` reads only its last
turns (``log_turns``, migration 8)."""

from __future__ import annotations

import asyncio
import gzip
import os
import signal
import time
from dataclasses import replace
from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot, start

from cogs.records.report import _report_of, build_report
from cogs.shared.log_files import _fitted
from engine import Surrender, parse_map, register_map
from engine.ai import make_ai
from engine.fog import events_for, without_hidden
from engine.log import dumps, read_log
from engine.state import OVER
from store import GameRecord, SQLiteStore, logs, results, sql
from store.results import TurnRow, results_of
from store.transaction import Step
from table.play import apply_action
from tests import test_results
from tests.test_history import finished_games
from tests.test_results import CHANNEL, GUILD, db_rows, new_game

store_on_each_backend = test_results.store  # the fixture ``store``: a store on each backend
ALICE, BOB = 101, 102
TURNS = 100


async def play_easy(store: SQLiteStore, record: GameRecord, until_turn: int | None = None) -> GameRecord:
    """Every seat plays as the easy AI until the turn ``until_turn`` (or the end)."""
    while record.status == "running":
        game = record.game()
        if until_turn is not None and game.state.turn >= until_turn:
            break
        seat = game.state.current
        record = (await apply_action(store, record.id, make_ai("easy", salt=str(seat)).choose(game, seat))).record
    return record


def expected_export(events: list, audience: int | None) -> bytes:
    """The export as it was written before: the whole log decoded, projected and written at once."""
    return dumps(without_hidden(events_for(events, audience))).encode()


def audiences(record: GameRecord) -> list[int | None]:
    return [None, *(p.seat for p in record.players)]


@pytest.mark.slow   # a game of thousands of events played on both databases: CI's slow suite
async def test_a_long_games_export_and_log_are_those_of_the_whole_log_for_each_audience(store, monkeypatch):
    record = await play_easy(store, await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], ("easy",),
                                                   seed="long", fog="on"), until_turn=TURNS)
    events = await store.events(record.id)
    assert record.status == "running" and len(events) > 1000
    expected = {a: expected_export(events, a) for a in audiences(record)}
    views = {a: without_hidden(events_for(events, a)) for a in audiences(record)}
    # Where each turn begins in the log, with the game just before: one row a turn since the first.
    starts = await db_rows(store, "SELECT turn, seq FROM log_turns WHERE game_id = ? ORDER BY turn", record.id)
    assert [t for t, _ in starts] == list(range(starts[0][0], record.game().state.turn + 1))
    begins = {e["turn"]: n for n, e in enumerate(events, 1) if e["type"] == "turn_started"}
    assert all(seq <= begins[turn] < seq + 20 for turn, seq in starts)  # the first event of the action that began it
    read: list[int] = []
    chunks = sql.SQLStore._event_chunks

    async def reading(self, game_id, since_seq=0, upto=None):
        read.append(since_seq)
        return await chunks(self, game_id, since_seq, upto)

    monkeypatch.setattr(sql.SQLStore, "_event_chunks", reading)
    monkeypatch.setattr(logs, "decode", lambda chunks: pytest.fail("decoded in the bot's process"))
    for audience in audiences(record):
        assert await store.export_log(record.id, audience) == expected[audience]
        for count in (1, 20, 200):
            read.clear()
            assert await store.recent_events(record.id, audience, count) == views[audience][-count:]
            if count == 20 and audience is not None:  # a player sees enough of the last turns to fill it
                assert min(read) > 0  # not the whole log: from the start of one of the last turns
    # A replay's moment (the live board) is its turn replayed from the game noted at the turn's start.
    from engine import Game
    from web.board import window_state

    for seq in (1, 2, len(events) // 2, len(events) - 1, len(events)):
        read.clear()
        replayed = (await store.with_window(record.id, seq, window_state)).to_dict()
        assert {**replayed, "seed": ""} == Game.from_events(events[:seq]).state.to_dict()   # the log has no seed
        if seq >= len(events) // 2:
            assert min(read) > len(events) // 3   # one turn of the log, not the log from its start
    # After the end everything is shown, and the log reads only its last events.
    record = await play_easy(store, record)
    events = await store.events(record.id)
    assert record.status == "finished"
    for audience in audiences(record):
        assert await store.export_log(record.id, audience) == expected_export(events, audience)
        read.clear()
        assert await store.recent_events(record.id, audience, 20) == without_hidden(events_for(events, audience))[-20:]
        assert read == [len(events) - 20]


async def test_the_log_of_a_game_from_before_the_turns_were_noted_is_read_whole(store):
    record = await play_easy(store, await new_game(store, [(ALICE, "Alice")], ("easy", "easy"), seed="old"),
                             until_turn=8)
    async with store._transaction() as db:  # as a game from before migration 8
        await db.commit(Step("DELETE FROM log_turns WHERE game_id = ?", (record.id,)))
    events = await store.events(record.id)
    for audience in audiences(record):
        assert await store.recent_events(record.id, audience, 50) == without_hidden(events_for(events, audience))[-50:]


@pytest.mark.slow   # a long game played to its end on both databases: CI's slow suite
async def test_a_long_game_ends_with_the_same_results_and_report_none_decoded_in_the_bots_process(
        store, monkeypatch):
    record = await play_easy(store, await new_game(store, [(ALICE, "Alice"), (BOB, "Bob")], ("easy",),
                                                   seed="ending"), until_turn=TURNS)
    state = record.game().state
    assert record.status == "running" and record.last_seq > 1000
    *first, last = [seat for seat in state.active_seats() if seat != state.current]
    for seat in first:  # all but one leave the game: the last surrender ends it
        record = (await apply_action(store, record.id, Surrender(seat))).record
    action = Surrender(last)
    before = await store.events(record.id)
    refused: list[object] = []
    monkeypatch.setattr(results, "log_facts", refused.append)  # the bot's process
    monkeypatch.setattr(sql, "_decode_rows", lambda rows: pytest.fail("decoded in the bot's process"))
    ended = (await apply_action(store, record.id, action)).record
    assert ended.status == "finished" and not refused
    monkeypatch.undo()
    events = await store.events(record.id)
    assert events[:len(before)] == before and events[-1]["type"] == "game_over"
    turn_rows = [TurnRow(*r) for r in await db_rows(
        store, "SELECT seat, started_at, ended_at, by_ai, missed FROM turns WHERE game_id = ? ORDER BY turn",
        record.id)]
    players = list(ended.players)
    stored = [replace(r, rating_note=None) for r in await store.results(record.id)]  # the note is the rating's
    assert stored == results_of(record.id, GUILD, CHANNEL, players, events, turn_rows, {}, stored[0].ended_at)
    state = ended.game().state
    assert state.phase == OVER
    monkeypatch.setattr(logs, "decode", lambda chunks: pytest.fail("decoded in the bot's process"))
    assert await store.with_log(record.id, _report_of, record.id, state, "nb") == \
        build_report(record.id, events, state, "nb")
    assert await store.log_text(record.id) == dumps(events).encode()


def test_a_log_over_the_limit_is_compressed_and_split_in_parts_that_each_fit():
    log = dumps({"type": "battle", "seat": i % 5, "n": i, "rolls": [i * 7 % 6, i * 11 % 6]}
                for i in range(20_000)).encode()
    assert _fitted(log, "risk-game-9", len(log)) == [("risk-game-9.jsonl", log)]
    (name, packed), = _fitted(log, "risk-game-9", len(log) // 2)
    assert name == "risk-game-9.jsonl.gz" and len(packed) <= len(log) // 2 and gzip.decompress(packed) == log
    limit = len(packed) // 3
    parts = _fitted(log, "risk-game-9", limit)
    assert len(parts) >= 3 and all(len(data) <= limit for _, data in parts)
    assert [n for n, _ in parts] == [f"risk-game-9.part{i}of{len(parts)}.jsonl.gz" for i in range(1, len(parts) + 1)]
    assert gzip.decompress(b"".join(data for _, data in parts)) == log  # joined with cat: one gzip file
    assert _fitted(log, "risk-game-9", 10) == []


async def test_the_history_export_answers_first_and_sends_a_log_over_the_limit_compressed(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="history-limit")) as d:
        await finished_games(d, 1)
        listing = (await d.send_command("carol", "general", "risk history", {}))[0]
        step = await d.click("carol", "Export", listing)
        assert step.interaction.response_type == 5  # deferred at once, the log follows
        log = step[-1].attachments[0].data
        assert step[-1].attachments[0].filename.endswith(".jsonl")
        d.server.filesize_limit = len(log) // 2
        step = await d.click("carol", "Export", listing)
        assert not step.problems and step.interaction.response_type == 5
        packed = step[-1].attachments[0]
        assert packed.filename.endswith(".jsonl.gz") and gzip.decompress(packed.data) == log
        assert "compressed with gzip" in step[-1].content
        d.server.filesize_limit = len(packed.data) // 3
        step = await d.click("carol", "Export", listing)
        parts = [a for m in step for a in m.attachments]
        assert not step.problems and len(parts) >= 3 and all(a.size <= d.server.filesize_limit for a in parts)
        assert gzip.decompress(b"".join(a.data for a in parts)) == log
        assert f"{len(parts)} gzip parts" in step[-len(parts)].content
        path = tmp_path / "game.jsonl.gz"
        path.write_bytes(b"".join(a.data for a in parts))
        assert dumps(read_log(path)).encode() == log  # engine.verify reads the joined parts as they are


async def test_risk_export_answers_first_and_compresses_a_log_over_the_limit(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="export-limit")) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        step = await d.send_command("carol", "general", "risk export", {})
        assert step.interaction.response_type == 5 and step[-1].ephemeral
        log = step[-1].attachments[0].data
        d.server.filesize_limit = len(log) // 2
        step = await d.send_command("carol", "general", "risk export", {})
        packed = step[-1].attachments[0]
        assert not step.problems and step.interaction.response_type == 5 and step[-1].ephemeral
        assert packed.filename.endswith(".jsonl.gz") and gzip.decompress(packed.data) == log


def knows_map(map_id: str) -> tuple[bool, int]:
    """In the log's worker: whether it knows the map, and its process id."""
    from engine import registered_map

    return registered_map(map_id) is not None, os.getpid()


@pytest.mark.slow   # worker processes started and killed: CI's slow suite
async def test_a_log_worker_that_dies_is_replaced_and_given_the_server_maps_again():
    from engine import board as boards
    from tests.test_one_way import one_way_map

    board = parse_map(one_way_map(id="log-worker-test"))
    register_map(board)
    try:
        known, first = await logs.in_worker(knows_map, board.id)
        assert known and first in logs._workers.pids() and first != os.getpid()
        assert await logs.in_worker(knows_map, board.id) == (True, first)   # the same process, given it once
        os.kill(first, signal.SIGKILL)                                       # killed (out of memory, say)
        await asyncio.get_running_loop().run_in_executor(None, _gone, first)
        known, second = await logs.in_worker(knows_map, board.id)            # the work is tried again
        assert known and second != first and logs._workers.pids() == (second,)
    finally:
        boards._registered.pop(board.id, None)


def _gone(pid: int) -> None:
    """Wait until the killed process has ended (its parent reaps it)."""
    for _ in range(500):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        if Path(f"/proc/{pid}/stat").is_file() and Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not end")
