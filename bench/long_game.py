"""Benchmark: a game of about 100,000 events, read and ended through the offline Discord, with the event loop's
longest stall measured alongside.

    .venv/bin/python bench/long_game.py [--events 100000] [--board]

The game is a duel played by the engine as anyone can make a long game: two players who attack one die at a time
and never conquer, for two thirds of ``--events`` events, then two normal AIs play it out. It is stored directly
in the bot's SQLite database as the store writes it (the events, the turns, where each turn begins) up to the
last action; the winner's seat is the human ``alice``. Then, with a ticker task that wakes every 5 ms and notes
how late it woke (the loop's longest stall), each of these runs alone:

- the running game: ``/risk export`` and ``/risk log`` by ``carol``, who does not play;
- with ``--board``, the live board on loopback: one spectator's four windows say hello from the start, then send
  64 replays at once while ``dave`` asks for ``/risk log`` of another game as long (target: under 1 s), then
  eight pictures of the replay;
- ``alice`` plays the winning move: the game's end (its results, ratings, the end message with the report and
  the timelapse; with ``--board``, the spectator's boards are open);
- the finished game: ``/risk export`` and ``/risk log`` by ``carol``, and the Export button of ``/risk history``.

For each: the time to the first answer (Discord's deadline is 3 s), the whole step, and the longest stall.
Targets: no stall over 50 ms, every first answer within 3 s.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import hashlib
import itertools
import json
import socket
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
from engine import SCHEMA_VERSION, Attack, EndAttack, EndTurn, Game, Place
from engine.ai import make_ai
from engine.choices import armies_to_place
from engine.settings import Settings
from engine.simulate import game_seed
from engine.state import ATTACK, FORTIFY, NEUTRAL, OVER, REINFORCE
from store.records import SeatRecord
from store.results import turn_steps
from tests.discord_helpers import command_for

GUILD = 4242
LEVEL = "normal"
SEATS = 2


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


def duel_move(game: Game, seat: int) -> Any | None:
    """The duel's move for ``seat`` now, or None where the normal AI decides (set-up, trades): all its
    reinforcements on its strongest territory facing the other player, then attacks from there with one die
    against that player's strongest neighbour while it has two armies or more (so it is never taken), then the
    turn's end."""
    s = game.state
    facing = [t for t in s.territories_of(seat)
              if any(s.owners.get(n) not in (seat, NEUTRAL) for n in game.board.neighbours(t))]
    if not facing:
        return None
    source = max(facing, key=lambda t: s.armies[t])
    if s.phase == REINFORCE and not game.must_trade(seat):
        left = armies_to_place(s)
        return Place(seat, source, left) if left else None
    if s.phase == ATTACK:
        targets = [t for t in game.board.neighbours(source) if s.owners.get(t) not in (seat, NEUTRAL)
                   and s.armies[t] >= 2]
        if s.armies[source] >= 2 and targets:
            return Attack(seat, source, max(targets, key=lambda t: s.armies[t]), 1)
        return EndAttack(seat)
    if s.phase == FORTIFY:
        return EndTurn(seat)
    return None


def build_game(target: int, human_user: int) -> LongGame:
    """A game of about ``target`` events: a duel of two players who attack one die at a time and never conquer (as
    anyone can make a long game) for two thirds of them, then two normal AIs play it out; played again with its
    winner as the human alice."""
    seed = game_seed("long-game", 0)
    settings = Settings.from_dict({"deployment": "auto"}).to_dict()
    names = [SeatRecord(seat, None, LEVEL, f"Player {seat + 1}", seat) for seat in range(SEATS)]
    game, events = Game.new([p.engine_player() for p in names], seed, settings)
    ais = [make_ai(LEVEL, salt=str(i)) for i in range(SEATS)]
    moves = []
    count = len(events)
    while game.state.phase != OVER:
        seat = game.state.current
        scripted = duel_move(game, seat) if count < target * 2 // 3 else None   # the AIs' end is about a third
        moves.append(scripted or ais[seat].choose(game, seat))
        count += len(game.apply(moves[-1]))
    winner = game.state.winner
    assert winner is not None
    players = [SeatRecord(seat, human_user if seat == winner else None, None if seat == winner else LEVEL,
                          "alice" if seat == winner else f"Normal AI {seat + 1}", seat) for seat in range(SEATS)]
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
    return LongGame(seed, players, list(events), moves[-1], game, starts, count)


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


async def flood(d: OfflineDiscord, ticker: Ticker, answers: list[float], base: str, game_id: int,
                last_seq: int) -> list[Figure]:
    """One spectator (carol) opens the board of the long game in four windows, each says hello from the start;
    then the four send 16 replays each at once (64, within each connection's limit) while dave asks for
    ``/risk log`` of the other game; then eight pictures of moments of the replay, one after the other."""
    import random

    import aiohttp

    figures: list[Figure] = []
    step = await d.send_command("carol", "general", "board", {})
    url = next(b["url"] for b in step[-1].buttons if b["url"])
    rng = random.Random(7)
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        async with http.get(url) as r:
            assert r.status == 200, r.status
        ws_url = f"{base.replace('http', 'ws')}/g/{game_id}/ws"
        sockets = [await http.ws_connect(ws_url, origin=base, max_msg_size=0) for _ in range(4)]

        async def hellos() -> str:
            for ws in sockets:
                await ws.send_json({"type": "hello", "since": 0})
            got = [await ws.receive_json(timeout=120) for ws in sockets]
            return f"{sum(len(m['lines']) for m in got) // 4} lines each"

        figures.append(await measure("board: 4 windows of one spectator say hello from the start (the boards' worker "
                                     "starts)", ticker, answers, hellos, lambda note: note))
        figures.append(await measure("board: the same 4 say hello from the start again", ticker, answers, hellos,
                                     lambda note: note))

        async def replays() -> tuple[int, int]:
            for ws in sockets:
                for _ in range(16):
                    await ws.send_json({"type": "replay", "seq": rng.randint(1, last_seq)})
            got = [await ws.receive_json(timeout=300) for ws in sockets for _ in range(16)]
            return sum(1 for m in got if m["type"] == "replay"), sum(1 for m in got if m["type"] == "refused")

        async def log_meanwhile() -> Any:
            return await d.send_command("dave", "other", "risk log", {})

        ticker.reset()
        started = time.perf_counter()
        flooding = asyncio.get_running_loop().create_task(replays())
        await asyncio.sleep(0.05)   # the flood is on its way first
        log_figure = await measure("board flood: meanwhile, /risk log of another game", ticker, answers,
                                   log_meanwhile)
        frames, refused = await flooding
        figures.append(Figure("board flood: 64 replays from 4 windows of one spectator", None,
                              time.perf_counter() - started, ticker.worst,
                              f"{frames} frames, {refused} refused (Slow down)"))
        figures.append(log_figure)

        async def pictures() -> str:
            sizes = []
            for _ in range(8):
                async with http.get(f"{base}/g/{game_id}/map.png", params={"at": str(rng.randint(1, last_seq))}) as r:
                    assert r.status == 200, r.status
                    sizes.append(len(await r.read()))
            return f"{sum(sizes) // len(sizes) // 1000} KB each"

        figures.append(await measure("board: 8 pictures of the replay (map.png?at=), one after the other (the "
                                     "render workers start)", ticker, answers, pictures, lambda note: note))
        figures.append(await measure("board: 8 more pictures of other moments", ticker, answers, pictures,
                                     lambda note: note))
        for ws in sockets:
            await ws.close()
    return figures


async def run(target: int, with_board: bool) -> tuple[LongGame, list[Figure]]:
    from web.config import WebConfig

    db = Path(tempfile.mkdtemp()) / "long.sqlite3"
    config = Config(database=str(db))
    if with_board:
        with socket.socket() as free:
            free.bind(("127.0.0.1", 0))
            port = free.getsockname()[1]
        config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=f"http://127.0.0.1:{port}",
                               secret="the long game's board secret")
    bot = create_bot(config)
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
        long = build_game(target, alice.id)
        game_id = store_game(db, long, channel.id, alice.id)
        stored = len(long.events)
        if with_board:   # another game as long, in another channel: its /risk log while the board is flooded
            store_game(db, long, d.channel("other").id, d.user("dave").id)
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
        if with_board:
            figures += await flood(d, ticker, answers, config.web.base, game_id, stored)
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
    parser.add_argument("--board", action="store_true", help="with the live board: the flood of replays")
    args = parser.parse_args()
    long, figures = asyncio.run(run(args.events, args.board))
    print(f"game: {long.total_events:,} events, {long.before_last.state.turn} turns, seed {long.seed[:12]}…")
    print("| step | first answer | whole step | longest stall | note |")
    print("|---|---|---|---|---|")
    for f in figures:
        first = "none" if f.first_answer is None else f"{f.first_answer:.2f} s"
        print(f"| {f.what} | {first} | {f.total:.2f} s | {f.stall * 1000:.0f} ms | {f.note} |")


if __name__ == "__main__":
    main()
