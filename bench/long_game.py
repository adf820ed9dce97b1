"""Benchmark: a game of about 100,000 events, read and ended through the offline Discord, with the event loop's
longest stall measured alongside.

    .venv/bin/python bench/long_game.py [--events 100000] [--seeds 8]

The game is six `easy` AIs played by the engine (the seed of ``--seeds`` whose game comes closest to
``--events``), stored directly in the bot's SQLite database as the store writes it (the events, the turns, where
each turn begins) up to the last action; the winner's seat is the human ``alice``. Then, with a ticker task
that wakes every 5 ms and notes how late it woke (the loop's longest stall), each of these runs alone:

- the running game: ``/risk export`` and ``/risk log`` by ``carol``, who does not play;
- ``alice`` plays the winning move: the game's end (its results, ratings, the end message with the report and
  the timelapse);
- the finished game: ``/risk export`` and ``/risk log`` by ``carol``, and the Export button of ``/risk history``.

For each: the time to the first answer (Discord's deadline is 3 s), the whole step, and the longest stall.
Targets: no stall over 50 ms, every first answer within 3 s. The script runs against older versions of the bot
too (the rows a newer store writes are written only if its tables exist).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import itertools
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from discord_offline import OfflineDiscord
from discord_offline.harness import BACKGROUND_PREFIX

from bot import Config, create_bot
from engine import SCHEMA_VERSION, Game
from engine.ai import make_ai
from engine.settings import Settings
from engine.simulate import game_seed, play_game
from engine.state import OVER
from store.records import SeatRecord
from store.results import turn_steps
from tests.discord_helpers import command_for

GUILD = 4242
LEVEL = "easy"
SEATS = 6


@dataclass
class LongGame:
    seed: str
    players: list[SeatRecord]
    events: list[dict[str, Any]]       # every event but the last action's
    last_action: Any                    # the winning move, the human's
    before_last: Game                   # the game just before it
    turn_starts: list[tuple[int, int, str]] = field(default_factory=list)  # (turn, first seq, state before)
    total_events: int = 0


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def build_game(target: int, seeds: int, human_user: int) -> LongGame:
    """The seed whose all-AI game is closest to ``target`` events, played again with its winner as a human."""
    lengths = {}
    for i in range(seeds):
        seed = game_seed("long-game", i)
        lengths[seed] = len(play_game([LEVEL] * SEATS, seed).events)
    seed = min(lengths, key=lambda s: abs(lengths[s] - target))
    settings = Settings.from_dict({}).to_dict()
    # Who wins: play it once with AIs only (the players' kinds and names change no roll and no choice).
    played = play_game([LEVEL] * SEATS, seed, settings)
    winner = played.game.state.winner
    assert winner is not None
    players = [SeatRecord(seat, human_user if seat == winner else None, None if seat == winner else LEVEL,
                          "alice" if seat == winner else f"Easy AI {seat + 1}", seat) for seat in range(SEATS)]
    game, events = Game.new([p.engine_player() for p in players], seed, settings)
    ais = [make_ai(LEVEL, salt=str(i)) for i in range(SEATS)]
    moves = []
    while game.state.phase != OVER:
        seat = game.state.current
        moves.append(ais[seat].choose(game, seat))
        game.apply(moves[-1])
    assert game.state.winner == winner
    # Again, to the move before the last, noting where each turn begins and the game just before that action.
    game, events = Game.new([p.engine_player() for p in players], seed, settings)
    starts = []
    for action in moves[:-1]:
        before = _dumps(game.state.to_dict())
        first_seq = len(events) + 1
        new = game.apply(action)
        starts += [(e["turn"], first_seq, before) for e in new if e["type"] == "turn_started"]
        events += new
    assert game.state.current == winner
    return LongGame(seed, players, list(events), moves[-1], game, starts, lengths[seed])


def store_game(db: Path, long: LongGame, channel_id: int, host_id: int) -> int:
    """Write the game into the bot's database as the store would have; returns its id."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    now = time.time()
    state = _dumps(long.before_last.state.to_dict())
    game_id = conn.execute(
        "INSERT INTO games (guild_id, channel_id, status, settings, host_id, state, state_schema, version, last_seq, "
        "created_at, updated_at) VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (GUILD, channel_id, _dumps(long.before_last.state.settings.to_dict()), host_id, state, SCHEMA_VERSION,
         len(long.events), len(long.events), now, now)).fetchone()[0]
    conn.executemany("INSERT INTO players (game_id, seat, user_id, ai_level, name, colour) VALUES (?, ?, ?, ?, ?, ?)",
                     [(game_id, p.seat, p.user_id, p.ai_level, p.name, p.colour) for p in long.players])
    conn.executemany("INSERT INTO events (game_id, seq, event) VALUES (?, ?, ?)",
                     [(game_id, i, _dumps(e)) for i, e in enumerate(long.events, 1)])
    for step in turn_steps(game_id, long.events, now):  # type: ignore[arg-type]
        conn.execute(step.sql, step.params)
    conn.execute("INSERT INTO announced (game_id, seq) VALUES (?, ?)", (game_id, len(long.events)))
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "log_turns" in tables:
        conn.executemany("INSERT INTO log_turns (game_id, turn, seq, state) VALUES (?, ?, ?, ?)",
                         [(game_id, turn, seq, before) for turn, seq, before in long.turn_starts])
    conn.execute("COMMIT")
    conn.close()
    return int(game_id)


class Ticker:
    """Wakes every 5 ms and keeps the longest lateness since the last ``reset``: the loop's longest stall."""

    PERIOD = 0.005

    def __init__(self) -> None:
        self.worst = 0.0

    def reset(self) -> None:
        self.worst = 0.0

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(self.PERIOD)
            self.worst = max(self.worst, loop.time() - start - self.PERIOD)


@dataclass
class Figure:
    what: str
    first_answer: float | None
    total: float
    stall: float
    note: str = ""


async def measure(what: str, ticker: Ticker, answers: list[float], step: Callable[[], Awaitable[Any]],
                  note: Callable[[Any], str] = lambda s: "") -> Figure:
    await asyncio.sleep(0.05)
    answers.clear()
    ticker.reset()
    started = time.perf_counter()
    result = await step()
    total = time.perf_counter() - started
    first = answers[0] - started if answers else None
    problems = [p for p in getattr(result, "problems", []) if "did not answer" in p or "Unknown" in p]
    text = note(result) + ("; " + "; ".join(problems) if problems else "")
    return Figure(what, first, total, ticker.worst, text)


def _attachment_note(step: Any) -> str:
    files = [a for m in step for a in m.attachments]
    return ", ".join(f"{a.filename} {len(a.data) / 1e6:.1f} MB" for a in files) or "no file"


async def run(target: int, seeds: int) -> tuple[LongGame, list[Figure]]:
    db = Path(tempfile.mkdtemp()) / "long.sqlite3"
    bot = create_bot(Config(database=str(db)))
    numbers = itertools.count()
    bot.new_seed = lambda: hashlib.sha256(f"long:{next(numbers)}".encode()).hexdigest()  # type: ignore[attr-defined]
    figures: list[Figure] = []
    async with OfflineDiscord(bot, guild_id=GUILD, response_deadline=None, idle_timeout=600.0) as d:
        server = d.server
        answers: list[float] = []
        handle = server.handle

        def timed_handle(kind: str, method: str, path: str, *args: Any) -> Any:
            if path.endswith("/callback"):  # an interaction's first answer (a deferral counts)
                answers.append(time.perf_counter())
            return handle(kind, method, path, *args)

        server.handle = timed_handle  # type: ignore[method-assign]
        alice, carol, channel = d.user("alice"), d.user("carol"), d.channel("general")
        long = build_game(target, seeds, alice.id)
        store_game(db, long, channel.id, alice.id)
        # The bench keeps none of the game's events: the bot's process would not hold them (their garbage
        # collections would be the bench's, not the bot's).
        long.events, long.turn_starts = [], []
        gc.collect()
        ticker = Ticker()
        task = asyncio.get_running_loop().create_task(ticker.run(), name=BACKGROUND_PREFIX + "ticker")

        async def command(user: str, name: str, options: dict[str, Any] | None = None) -> Any:
            return await d.send_command(user, "general", name, options or {})

        figures.append(await measure("running: /risk export (not a player)", ticker, answers,
                                     lambda: command("carol", "risk export"), _attachment_note))
        figures.append(await measure("running: /risk log (not a player)", ticker, answers,
                                     lambda: command("carol", "risk log")))
        figures.append(await measure("running: /risk log count:200 (not a player)", ticker, answers,
                                     lambda: command("carol", "risk log", {"count": 200})))
        name, options = command_for(long.last_action, long.before_last)
        figures.append(await measure("the winning move: the game's end", ticker, answers,
                                     lambda: command("alice", name, options), _attachment_note))
        figures.append(await measure("finished: /risk export", ticker, answers,
                                     lambda: command("carol", "risk export"), _attachment_note))
        figures.append(await measure("finished: /risk log", ticker, answers, lambda: command("carol", "risk log")))
        listing = (await command("carol", "risk history"))[0]
        figures.append(await measure("finished: /risk history, Export", ticker, answers,
                                     lambda: d.click("carol", "Export", listing), _attachment_note))
        task.cancel()
        del carol
    return long, figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--seeds", type=int, default=8)
    args = parser.parse_args()
    long, figures = asyncio.run(run(args.events, args.seeds))
    print(f"game: {long.total_events:,} events, {long.before_last.state.turn} turns, seed {long.seed[:12]}…")
    print("| step | first answer | whole step | longest stall | note |")
    print("|---|---|---|---|---|")
    for f in figures:
        first = "none" if f.first_answer is None else f"{f.first_answer:.2f} s"
        print(f"| {f.what} | {first} | {f.total:.2f} s | {f.stall * 1000:.0f} ms | {f.note} |")


if __name__ == "__main__":
    main()
