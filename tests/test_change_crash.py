"""A change to a game is all or nothing, across a crash: a writer process (tests/change_crash_writer.py) makes one
change and is killed with SIGKILL before each of its SQL statements in turn, on a copy of the same database; after
each kill the database opens and holds either the whole change or none of it.

- The last ballot of a vote that passes: the ballot, the vote's timers going, the engine's ``VoteEnd`` with the
  game's end, its results and ratings. Never a vote gone with the game still running (a passed vote lost), nor
  a finished game with a vote still open.
- The last move of a freestyle round: the move, the next round's opening and its timers (its deadline, the hold of
  the player who ended it). Never a round open without its deadline, nor the last round's timers left over.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import Place
from engine.ai import make_ai
from engine.state import WAITING
from store import SQLiteStore
from table import Table
from table.timers import Timer, TimerKind, Vote

ROOT = Path(__file__).resolve().parents[1]
WRITER = Path(__file__).with_name("change_crash_writer.py")
NOW = 1_000_000.0
DAY = 86400

pytestmark = [pytest.mark.slow,  # a writer process killed before each statement of a change
              pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")]


def copy_database(source: Path, target: Path) -> None:
    for file in source.parent.glob(source.name + "*"):
        shutil.copy(file, target.parent / file.name.replace(source.name, target.name))


def kill_before_each_statement(template: Path, tmp_path: Path, scenario: str, argument: dict[str, Any]
                               ) -> list[tuple[int, Path]]:
    """Run the writer on a fresh copy of ``template`` for each statement of the change, killed before it; the
    last run is not killed. Returns each run's kill point and database (the last run's point: 0)."""
    runs = []
    for kill_at in range(1, 1000):
        database = tmp_path / f"{scenario}-{kill_at}.sqlite"
        copy_database(template, database)
        done = subprocess.run([sys.executable, str(WRITER), str(database), str(NOW), str(kill_at), scenario,
                               json.dumps(argument)], cwd=ROOT, capture_output=True, text=True, timeout=120)
        if done.returncode == 0:
            assert int(done.stdout.split()[-1]) == kill_at - 1, done.stdout  # every statement had its kill
            runs.append((0, database))
            return runs
        assert done.returncode == -signal.SIGKILL, done.stderr
        runs.append((kill_at, database))
    raise AssertionError("the change never finished")


async def game_of(database: Path, game_id: int) -> tuple[Any, list[Any], list[dict[str, Any]], int]:
    """The game, its timers, its events and how many result rows it has, read by a store opened afresh."""
    async with SQLiteStore(database, checkpoint_interval=None) as store:
        record = await store.get_game(game_id)
        events = await store.events(game_id)
        assert len(events) == record.last_seq  # no event half-written
        return record, await store.game_deadlines(game_id), events, len(await store.results(game_id))


async def test_a_vote_closed_by_its_last_ballot_is_stored_whole_or_not_at_all(tmp_path: Path):
    template = tmp_path / "vote.sqlite"
    async with SQLiteStore(template, checkpoint_interval=None, clock=lambda: NOW) as store:
        table = Table(store, lambda: NOW, lambda: "crash-vote")
        lobby = await table.open_lobby(1, 10, 100, "Ann", {"deployment": "auto", "turn_deadline": DAY})
        await table.join(lobby.record.id, 200, "Bo")
        game_id = (await table.start(lobby.record.id)).record.id
        called = await table.call_vote(game_id, 0, draw=False)
        assert called.vote is not None
        key, before = called.vote.key, await store.get_game(game_id)
    runs = kill_before_each_statement(template, tmp_path, "ballot", {"game": game_id, "seat": 1, "key": key})
    assert len(runs) > 10  # the ballot, the vote's close, the end and its results: many statements
    outcomes = []
    for kill_at, database in runs:
        record, timers, events, results = await game_of(database, game_id)
        vote = Vote.of(timers)
        if record.status == "running":  # none of it: the vote still open, as before, with one ballot
            assert record.version == before.version and record.last_seq == before.last_seq, kill_at
            assert vote is not None and vote.key == key and vote.ballots == {0: True}, kill_at
            assert results == 0, kill_at
            outcomes.append("none")
        else:  # all of it: the game ended by the vote, with its results, and no timer left
            assert record.status == "finished", kill_at
            assert vote is None and timers == [], kill_at
            assert [e["type"] for e in events[before.last_seq:]][-1] == "game_over", kill_at
            assert results == 2, kill_at
            outcomes.append("all")
    assert outcomes[0] == "none" and outcomes[-1] == "all"
    assert outcomes == sorted(outcomes, key=lambda o: o == "all")  # nothing until the commit, all after it


async def test_the_move_that_opens_a_freestyle_round_is_stored_whole_with_its_timers_or_not_at_all(
        tmp_path: Path):
    template = tmp_path / "round.sqlite"
    async with SQLiteStore(template, checkpoint_interval=None, clock=lambda: NOW) as store:
        table = Table(store, lambda: NOW, lambda: "crash-round")
        lobby = await table.open_lobby(1, 10, 100, "Ann", {"deployment": "auto", "turn_order": "freestyle",
                                                           "turn_deadline": DAY})
        for user, name in ((200, "Bo"), (300, "Cy")):
            await table.join(lobby.record.id, user, name)
        game_id = (await table.start(lobby.record.id)).record.id
        ai = make_ai("normal")
        last: Any = None
        for seat in (2, 0, 1):  # each plays a whole turn; the last move of the last one is left to the writer
            record = await store.get_game(game_id)
            state = record.game().state
            income = state.income[seat]
            record = (await table.apply(record, Place(seat, state.territories_of(seat)[0], income["territories"]
                                                      + sum(income["continents"].values())))).record
            while (state := record.game().state).phase not in (WAITING, "over") and state.current == seat:
                action = ai.choose(record.game(), seat)
                game = record.game()
                game.apply(action)
                if seat == 1 and game.state.round == 2:
                    last = action
                    break
                record = (await table.apply(record, action)).record
        assert last is not None
        before = await store.get_game(game_id)
        assert before.game().state.round == 1
    runs = kill_before_each_statement(template, tmp_path, "move", {"game": game_id, "action": last.to_dict()})
    assert len(runs) > 3
    outcomes = []
    for kill_at, database in runs:
        record, timers, _events, _results = await game_of(database, game_id)
        state = record.game().state
        kinds = {(t.seat, t.kind) for t in timers}
        if record.version == before.version:  # none of it: round 1 goes on, with its deadline
            assert state.round == 1 and (0, str(Timer(TimerKind.ROUND, "r1"))) in kinds, kill_at
            outcomes.append("none")
        else:  # all of it: round 2 is open with its deadline and the hold, and round 1's timers are gone
            assert state.round == 2 and state.phase == WAITING, kill_at
            assert (0, str(Timer(TimerKind.ROUND, "r2"))) in kinds, kill_at
            assert state.held is None or (state.held, str(Timer(TimerKind.HOLD, "r2"))) in kinds, kill_at
            assert not any(kind.endswith("|r1") for _seat, kind in kinds), kill_at
            outcomes.append("all")
    assert outcomes[0] == "none" and outcomes[-1] == "all"
    assert outcomes == sorted(outcomes, key=lambda o: o == "all")
