"""Benchmark of history and ratings: the leaderboard and the other reads of /risk stats and /risk history over
100,000 stored results, rebuilding every rating from 10,000 games, and the end-of-game report image.

    .venv/bin/python bench/history.py [--games 10000] [--results 100000] [--players 2000] [--runs 30]

Results are synthetic rows (four seats a game, placements 1-4, one AI seat in a game out of three) in one
server: the worst case for a server's queries. The report is drawn for whole games played by the AI.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ratings import MIN_GAMES

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cogs.records.report import build_report
from engine.simulate import play_game
from render.report import encode_report, game_timelapse, render_report
from store import SQLiteStore
from store.migrations import migrate_sync
from table.results import rebuild_ratings

GUILD = 42
SEATS = 4


def fill(path: Path, games: int, players: int, first_game: int = 1, seed: int = 1) -> int:
    """Store ``games`` finished games with their results; returns the number of result rows."""
    rng = random.Random(seed)
    conn = sqlite3.connect(path, isolation_level=None)
    migrate_sync(conn)
    conn.execute("BEGIN")
    game_rows, result_rows = [], []
    for game_id in range(first_game, first_game + games):
        ended = 1_700_000_000 + game_id * 600
        game_rows.append((game_id, GUILD, 1000 + game_id % 50, "finished", 1, ended, ended))
        users = rng.sample(range(1, players + 1), SEATS)
        places = list(range(1, SEATS + 1))
        rng.shuffle(places)
        ai_seat = rng.randrange(SEATS) if game_id % 3 == 0 else None
        for seat in range(SEATS):
            is_ai = seat == ai_seat
            turns = rng.randint(10, 40)
            result_rows.append((game_id, seat, GUILD, 1000 + game_id % 50, None if is_ai else users[seat],
                                "normal" if is_ai else None, f"Player {users[seat]}", places[seat], None, 0,
                                turns if is_ai else 0, turns, rng.randint(0, 2), rng.uniform(60, 7200),
                                rng.choice(["asia", "europe", "australia", None]), 60, ended))
    conn.executemany("INSERT INTO games (id, guild_id, channel_id, status, host_id, created_at, updated_at) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?)", game_rows)
    conn.executemany("INSERT INTO results (game_id, seat, guild_id, channel_id, user_id, ai_level, name, "
                     "placement, team, ai_took_over, ai_turns, turns, missed, median_move, continent, game_turns, "
                     "ended_at) VALUES (" + ", ".join("?" * 17) + ")", result_rows)
    conn.execute("COMMIT")
    conn.close()
    return len(result_rows)


def timed(samples: list[float]) -> str:
    return f"median {statistics.median(samples) * 1000:.2f} ms, max {max(samples) * 1000:.2f} ms"


async def store_figures(path: Path, games: int, results: int, players: int, runs: int) -> None:
    fill(path, games, players)
    store = SQLiteStore(path, checkpoint_interval=None)
    await store.open()
    try:
        started = time.perf_counter()
        rated = await rebuild_ratings(store)
        print(f"ratings rebuild: {rated} games ({rated * SEATS} results) in {time.perf_counter() - started:.2f} s")
    finally:
        await store.close()
    extra = (results - games * SEATS) // SEATS
    if extra > 0:
        fill(path, extra, players, first_game=games + 1, seed=2)
    store = SQLiteStore(path, checkpoint_interval=None)
    await store.open()
    try:
        await rebuild_ratings(store)
        with sqlite3.connect(path) as conn:
            stored = conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
            rated_players = conn.execute("SELECT COUNT(*) FROM ratings").fetchone()[0]
        print(f"stored results: {stored:,}; rated players: {rated_players:,}")
        for name, call in (
            ("leaderboard page 1", lambda: store.leaderboard(GUILD, 0, 10, minimum=MIN_GAMES)),
            ("leaderboard page 50", lambda: store.leaderboard(GUILD, 490, 10, minimum=MIN_GAMES)),
            ("player stats", lambda: store.player_stats(GUILD, random.randint(1, players), minimum=MIN_GAMES)),
            ("history, server", lambda: store.finished_games(GUILD, None, 0, 10)),
            ("history, channel", lambda: store.finished_games(GUILD, 1007, 0, 10)),
        ):
            samples = []
            for _ in range(runs):
                t0 = time.perf_counter()
                await call()
                samples.append(time.perf_counter() - t0)
            print(f"{name}: {timed(samples)}")
    finally:
        await store.close()


def report_figures(runs: int) -> None:
    for levels, seed in ((["normal", "easy", "easy", "normal"], "bench-report-4"),
                         (["normal", "easy", "easy", "normal", "easy", "normal"], "bench-report-6")):
        result = play_game(levels, seed)
        events, state = result.events, result.game.state
        build, render, encode = [], [], []
        size = 0
        for _ in range(runs):
            t0 = time.perf_counter()
            report = build_report(1, events, state, "en")
            t1 = time.perf_counter()
            img = render_report(report)
            t2 = time.perf_counter()
            data = encode_report(img)
            t3 = time.perf_counter()
            build.append(t1 - t0)
            render.append(t2 - t1)
            encode.append(t3 - t2)
            size = len(data)
        total = [a + b for a, b in zip(render, encode, strict=True)]
        print(f"report, {len(levels)} players, {state.turn} turns ({len(events)} events): "
              f"summary {timed(build)}; render + encode {timed(total)} (render {statistics.median(render) * 1000:.1f}"
              f", encode {statistics.median(encode) * 1000:.1f}); {size / 1000:.0f} KB, {img.width}x{img.height}")
        t0 = time.perf_counter()
        webp = game_timelapse(events)
        print(f"timelapse: {time.perf_counter() - t0:.1f} s, {len(webp) / 1e6:.2f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000, help="games for the ratings rebuild")
    parser.add_argument("--results", type=int, default=100_000, help="stored results for the queries")
    parser.add_argument("--players", type=int, default=2_000, help="distinct players on the server")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(store_figures(Path(folder) / "bench.sqlite3", args.games, args.results, args.players, args.runs))
    report_figures(args.runs)


if __name__ == "__main__":
    main()
