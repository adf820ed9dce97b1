"""A change to a game is all or nothing, across a crash: a writer process (tests/change_crash_writer.py) makes one
change and is killed with SIGKILL before each of its SQL statements in turn (on PostgreSQL, each of its round
trips), on a copy of the same database; after each kill the database opens and holds either the whole change or
none of it. On SQLite and on PostgreSQL (whose server lives on and rolls back what the killed writer left).

- The last ballot of a vote that passes: the ballot, the vote's timers going, the engine's ``VoteEnd`` with the
  game's end, its results and ratings. Never a vote gone with the game still running (a passed vote lost), nor
  a finished game with a vote still open.
- The last move of a freestyle round: the move, the next round's opening and its timers (its deadline, the hold of
  the player who ended it). Never a round open without its deadline, nor the last round's timers left over.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from engine import Place
from engine.ai import make_ai
from engine.state import WAITING
from store import Store, store_for
from table import Table
from table.timers import Timer, TimerKind, Vote
from tests.postgres_helpers import database_url

ROOT = Path(__file__).resolve().parents[1]
WRITER = Path(__file__).with_name("change_crash_writer.py")
NOW = 1_000_000.0
DAY = 86400

pytestmark = [pytest.mark.slow,  # a writer process killed before each statement of a change
              pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")]


class Databases:
    """The template database a test sets up, and copies of it (a SQLite file's, or PostgreSQL's ``TEMPLATE``)."""

    def __init__(self, tmp_path: Path, server: str | None) -> None:
        self.tmp_path, self.server = tmp_path, server
        self.made: list[str] = []      # the PostgreSQL databases made, by name
        self.settings: list[str] = []  # and their URLs

    def name(self, tag: str) -> str:
        if self.server is None:
            return str(self.tmp_path / f"{tag}.sqlite")
        return database_url(self.server, f"risk_crash_{os.getpid()}_{tag}")

    async def make(self, tag: str, template: str | None = None) -> str:
        setting = self.name(tag)
        if self.server is None:
            if template is not None:
                for file in Path(template).parent.glob(Path(template).name + "*"):
                    shutil.copy(file, file.with_name(file.name.replace(Path(template).name, Path(setting).name)))
            return setting
        conn = await asyncpg.connect(self.server)
        try:
            name = f"risk_crash_{os.getpid()}_{tag}"
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            copy = f' TEMPLATE "{self.made[self.settings.index(template)]}"' if template is not None else ""
            await conn.execute(f'CREATE DATABASE "{name}"{copy}')
        finally:
            await conn.close()
        self.made.append(name)
        self.settings.append(setting)
        return setting

    def store(self, setting: str) -> Store:
        return store_for(setting, clock=lambda: NOW) if self.server else \
            store_for(setting, clock=lambda: NOW, checkpoint_interval=None)

    async def drop(self) -> None:
        if self.server is None:
            return
        conn = await asyncpg.connect(self.server)
        try:
            for name in self.made:
                await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()


@pytest.fixture(params=["sqlite", "postgres"])
async def databases(request: pytest.FixtureRequest, tmp_path: Path):
    found = Databases(tmp_path, request.getfixturevalue("postgres_server") if request.param == "postgres" else None)
    yield found
    await found.drop()


async def kill_before_each_statement(databases: Databases, template: str, scenario: str, argument: dict[str, Any]
                                     ) -> list[tuple[int, str]]:
    """Run the writer on a fresh copy of ``template`` for each statement of the change, killed before it; the
    last run is not killed. Returns each run's kill point and database (the last run's point: 0)."""
    runs = []
    for kill_at in range(1, 1000):
        database = await databases.make(f"{scenario}{kill_at}", template)
        done = subprocess.run([sys.executable, str(WRITER), database, str(NOW), str(kill_at), scenario,
                               json.dumps(argument)], cwd=ROOT, capture_output=True, text=True, timeout=120)
        if done.returncode == 0:
            assert int(done.stdout.split()[-1]) == kill_at - 1, done.stdout  # every statement had its kill
            runs.append((0, database))
            return runs
        assert done.returncode == -signal.SIGKILL, done.stderr
        runs.append((kill_at, database))
    raise AssertionError("the change never finished")


async def game_of(databases: Databases, database: str, game_id: int
                  ) -> tuple[Any, list[Any], list[dict[str, Any]], int]:
    """The game, its timers, its events and how many result rows it has, read by a store opened afresh."""
    async with databases.store(database) as store:
        record = await store.get_game(game_id)
        events = await store.events(game_id)
        assert len(events) == record.last_seq  # no event half-written
        return record, await store.game_deadlines(game_id), events, len(await store.results(game_id))


async def test_a_vote_closed_by_its_last_ballot_is_stored_whole_or_not_at_all(databases: Databases):
    template = await databases.make("vote")
    async with databases.store(template) as store:
        table = Table(store, lambda: NOW, lambda: "crash-vote")
        lobby = await table.open_lobby(1, 10, 100, "Ann", {"deployment": "auto", "turn_deadline": DAY})
        await table.join(lobby.record.id, 200, "Bo")
        game_id = (await table.start(lobby.record.id)).record.id
        called = await table.call_vote(game_id, 0, draw=False)
        assert called.vote is not None
        key, before = called.vote.key, await store.get_game(game_id)
    runs = await kill_before_each_statement(databases, template, "ballot", {"game": game_id, "seat": 1, "key": key})
    assert len(runs) > 5  # the ballot, the vote's close, the end and its results: many statements, round trips
    outcomes = []
    for kill_at, database in runs:
        record, timers, events, results = await game_of(databases, database, game_id)
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
        databases: Databases):
    template = await databases.make("round")
    async with databases.store(template) as store:
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
    runs = await kill_before_each_statement(databases, template, "move", {"game": game_id, "action": last.to_dict()})
    assert len(runs) > 3
    outcomes = []
    for kill_at, database in runs:
        record, timers, _events, _results = await game_of(databases, database, game_id)
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
