"""Crash safety for real: a writer process is killed with SIGKILL at random moments, again and again, on SQLite
and on PostgreSQL, in games of every kind of turn: set-up turns and set-up in one round, turns in seat order and
freestyle rounds.

After every kill the database must open, and every game must be whole: its events numbered 1, 2, 3, ... with
no gap, its stored state equal to the replay of its events, its log made of the opening events followed by
the events of each recorded action back to back (no action half-written), and every action the writer saw
committed present. On PostgreSQL the server lives on: it rolls back what the killed writer left uncommitted.
"""

from __future__ import annotations

import asyncio
import json
import random
import select
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from engine import Game, Player, action_from_dict
from store import store_for
from store.postgres import dollar_params
from tests.postgres_helpers import create_database, drop_database

ROOT = Path(__file__).resolve().parents[1]
WRITER = Path(__file__).with_name("store_crash_writer.py")
GAMES = 6
KILLS = 24

pytestmark = [pytest.mark.slow,  # a writer process killed again and again
              pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")]


def opening(started: dict, seed: str) -> tuple[Game, list[dict]]:
    players = [Player(p["seat"], p["name"], p["kind"], p["level"]) for p in started["players"]
               if p["kind"] != "neutral"]
    return Game.new(players, seed, started["settings"])


class Database:
    """The writer's database, read directly (not through the store): a SQLite file or a PostgreSQL URL."""

    def __init__(self, setting: str) -> None:
        self.setting = setting
        self.postgres = setting.startswith("postgresql://")
        self._loop = asyncio.new_event_loop() if self.postgres else None
        self._conn: Any = None

    def exists(self) -> bool:
        """Whether the writer got as far as creating it (a PostgreSQL database exists from the start)."""
        return self.postgres or Path(self.setting).exists()

    def reopen(self) -> None:
        """Open and close the store: SQLite's WAL recovery; a migration cut short is redone."""
        async def reopen() -> None:
            store = store_for(self.setting)
            await store.open()
            await store.close()
        asyncio.run(reopen())

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if self._loop is None:
            if self._conn is None:
                self._conn = sqlite3.connect(self.setting)
            return list(self._conn.execute(sql, params).fetchall())
        if self._conn is None:
            self._conn = self._loop.run_until_complete(asyncpg.connect(self.setting))
        return [tuple(r) for r in self._loop.run_until_complete(self._conn.fetch(dollar_params(sql), *params))]

    def done(self) -> None:
        """End this look: the next one reads afresh."""
        if self._conn is not None:
            if self._loop is None:
                self._conn.close()
            else:
                self._loop.run_until_complete(self._conn.close())
            self._conn = None

    def close(self) -> None:
        self.done()
        if self._loop is not None:
            self._loop.close()


def check_database(db: Database, committed_log: Path, checked: dict[int, int], full: bool = False) -> int:
    """Check every game changed since the last look; with ``full``, also re-apply every recorded action."""
    try:
        games = db.rows("SELECT id, state, version, last_seq FROM games")
        for game_id, state_json, version, last_seq in games:
            if checked.get(game_id) == version and not full:
                continue
            rows = db.rows("SELECT seq, event FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
            assert [seq for seq, _ in rows] == list(range(1, last_seq + 1)), f"game {game_id}: gap in the log"
            if state_json is None:
                assert last_seq == 0
                checked[game_id] = version
                continue
            state = json.loads(state_json)
            events = [json.loads(event) for _, event in rows]
            assert Game.from_events(events, state["seed"]).state.to_dict() == state, f"game {game_id}: replay"

            results = sorted((json.loads(r) for (r,) in
                              db.rows("SELECT result FROM interactions WHERE game_id = ?", (game_id,))),
                             key=lambda r: r["first_seq"])
            game, first_events = opening(events[0], state["seed"])
            assert events[:len(first_events)] == first_events, f"game {game_id}: opening"
            seq = len(first_events) + 1
            for result in results:
                assert result["first_seq"] == seq, f"game {game_id}: events without their action near {seq}"
                if full:
                    produced = game.apply(action_from_dict(result["action"]))
                    assert produced == events[seq - 1:result["last_seq"]], f"game {game_id}: action at {seq}"
                seq = result["last_seq"] + 1
            assert seq == last_seq + 1, f"game {game_id}: events after the last recorded action"
            versions = [r["version"] for r in results]
            assert versions == list(range(version - len(results) + 1, version + 1)), f"game {game_id}: versions"
            checked[game_id] = version

        present = set(db.rows("SELECT game_id, interaction_id FROM interactions"))
        committed = [line.split() for line in committed_log.read_text().splitlines()] if committed_log.exists() else []
        missing = [c for c in committed if (int(c[0]), c[1]) not in present]
        assert not missing, f"actions reported committed but missing: {missing[:5]}"
        return len(committed)
    finally:
        db.done()


def wait_ready(proc: subprocess.Popen[bytes], timeout: float) -> None:
    assert proc.stdout is not None
    readable, _, _ = select.select([proc.stdout], [], [], timeout)
    assert readable, "the writer did not open the database in time"
    line = proc.stdout.readline()
    assert line.strip() == b"ready", (line, proc.stderr.read() if proc.stderr else b"")


def reported(committed_log: Path) -> int:
    """How many actions the writers have reported committed so far."""
    return committed_log.read_bytes().count(b"\n") if committed_log.exists() else 0


def wait_committed(proc: subprocess.Popen[bytes], committed_log: Path, more: int, timeout: float) -> None:
    """Wait until the writer has reported ``more`` actions committed (a kill then lands in the middle of the
    next one, at whatever point the writer has reached); ``timeout`` only guards against a hang."""
    wanted = reported(committed_log) + more
    give_up = time.monotonic() + timeout
    while reported(committed_log) < wanted:
        assert proc.poll() is None, f"the writer stopped by itself: {proc.stderr.read().decode()[-2000:]}"
        assert time.monotonic() < give_up, f"the writer reported no {more} actions in {timeout:g} s"
        time.sleep(0.005)


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A SQLite file not yet created, or a fresh PostgreSQL database on the session's server."""
    if request.param == "sqlite":
        db = Database(str(tmp_path / "crash.sqlite3"))
        yield db
        db.close()
        return
    server = request.getfixturevalue("postgres_server")
    url = asyncio.run(create_database(server))
    db = Database(url)
    try:
        yield db
    finally:
        db.close()
        asyncio.run(drop_database(server, url))


def test_the_database_survives_the_writer_being_killed_mid_write(database: Database, tmp_path: Path) -> None:
    committed_log = tmp_path / "committed.log"
    rng = random.Random(7)
    checked: dict[int, int] = {}
    started = time.monotonic()
    for kill in range(KILLS):
        proc = subprocess.Popen([sys.executable, str(WRITER), database.setting, str(committed_log), str(GAMES)],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            if kill % 5 == 1:
                time.sleep(rng.uniform(0.05, 0.3))  # sometimes during start-up, opening or migrating
            else:
                wait_ready(proc, timeout=120)
                wait_committed(proc, committed_log, rng.randint(12, 40), timeout=120)
            assert proc.poll() is None, f"the writer stopped by itself: {proc.stderr.read().decode()[-2000:]}"
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
        assert proc.returncode == -signal.SIGKILL
        if not database.exists():
            continue
        database.reopen()
        check_database(database, committed_log, checked)

    committed = check_database(database, committed_log, checked, full=True)
    elapsed = time.monotonic() - started
    assert committed > 200, f"too few actions committed ({committed}) for the test to mean anything"
    finished = database.rows("SELECT count(*) FROM games WHERE status = 'finished'")[0][0]
    # The kills landed in set-up rounds (placements sealed, then revealed) and freestyle rounds (turns started
    # in any order, rounds closed) as well as in turns in seat order.
    kinds = {json.loads(event)["type"] for (event,) in database.rows("SELECT event FROM events")}
    assert {"setup_round", "placements_revealed", "round_started", "round_closed", "setup_turn"} <= kinds, kinds
    database.done()
    print(f"{KILLS} kills, {committed} committed actions, {finished} games finished, {elapsed:.1f} s")
