"""Benchmark: the store's action transactions with many running games and concurrent actors (no rendering).

Run: ``.venv/bin/python bench/store.py [--games 1000] [--actors 50] [--actions 5000] [--rate 500]``.
Results go in docs/storage.md. ``--compare`` measures SQLite and PostgreSQL side by side in one run (a
throwaway PostgreSQL from ``pgserver``, or ``--postgres-url``): actions/s and p99 latency, each against an empty
transaction on the same database, as ratios (docs/performance.md). ``--postgres`` measures PostgreSQL alone,
with the round trips of each action counted on the wire (tests/postgres_wire.py), in a pass of its own;
``--latency MS`` puts the server that many milliseconds away (a relay holds back each answer that long).

* paced: the actors together offer ``--rate`` actions/s (exponential think times), the latency of each
  ``Plays.apply`` call is recorded (median, p99): what a player waits for at that load;
* saturated: the actors act without pause; actions/s is the sustained throughput (latency then is mostly
  queueing, by Little's law about actors ÷ throughput);
* floor: the same number of empty ``BEGIN IMMEDIATE; COMMIT`` transactions by as many coroutines through the
  store's transaction lock on the same database; the ratio says what an action costs over an empty transaction;
* start-up: open the store and list the running games, with 10,000 games stored (the rest finished).

Moves are chosen by the easy AI (the cheapest) on the same event loop, outside the timed call; that cost is
reported apart. Run it on a quiet machine: the figures scale with how fast threads wake up.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Action
from engine.ai import make_ai
from store import GameRecord, PostgresStore, Store, open_store
from store.transaction import Step
from table.play import plays_for

# Each PostgreSQL configuration starts from an empty database.
EMPTY_TABLES = "TRUNCATE games, players, events, interactions, deadlines, seat_status CASCADE"
SETTINGS = ({"deployment": "auto"}, {"deployment": "deal", "setup_batch": 5}, {"deployment": "auto", "cards": "fixed"})


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


async def new_game(store: Store, channel: int) -> GameRecord:
    lobby = await store.create_lobby(1, channel, channel, f"Host {channel}", SETTINGS[channel % 3])
    await store.add_ai(lobby.id, "normal")
    await store.add_ai(lobby.id, "easy")
    record, _ = await plays_for(store).start(lobby.id)
    return record


class Actors:
    """Actors each own a share of the games and play them in turn."""

    def __init__(self, store: Store, games: list[GameRecord], actors: int) -> None:
        self.store = store
        self.games = games
        self.actors = actors
        self.latencies: list[float] = []
        self.choosing = 0.0
        self.counter = 0

    def choose(self, record: GameRecord) -> Action:
        started = time.perf_counter()
        game = record.game()
        seat = game.state.current
        action = make_ai("easy", salt=str(seat)).choose(game, seat)
        self.choosing += time.perf_counter() - started
        return action

    async def act(self, index: int) -> None:
        record = self.games[index]
        action = self.choose(record)
        self.counter += 1
        started = time.perf_counter()
        result = await plays_for(self.store).apply(record.id, action, interaction_id=f"bench-{self.counter}",
                                               expected_version=record.version)
        self.latencies.append(time.perf_counter() - started)
        record = result.record
        if record.status != "running":  # a finished game makes room for a new one in its channel
            record = await new_game(self.store, record.channel_id)
        self.games[index] = record

    async def run(self, total: int, think: Callable[[random.Random], Awaitable[None]] | None) -> float:
        self.latencies = []
        self.choosing = 0.0
        remaining = total

        async def actor(number: int) -> None:
            nonlocal remaining
            rng = random.Random(number)
            mine = list(range(number, len(self.games), self.actors))
            turn = 0
            while remaining > 0:
                remaining -= 1
                if think is not None:
                    await think(rng)
                await self.act(mine[turn % len(mine)])
                turn += 1

        started = time.perf_counter()
        await asyncio.gather(*(actor(n) for n in range(self.actors)))
        return time.perf_counter() - started


async def empty_transactions(store: Store, total: int, workers: int, batched: bool) -> tuple[float, list[float]]:
    """Empty write transactions through the store's lock: ``batched`` sends BEGIN IMMEDIATE and COMMIT to the
    connection's thread together (as the store does), otherwise as two plain aiosqlite calls."""
    latencies: list[float] = []
    remaining = total
    db = store._conn()

    async def worker() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            started = time.perf_counter()
            if batched:
                async with store._transaction() as tx:
                    await tx.commit()
            else:
                async with store._tx_lock:
                    await db.execute("BEGIN IMMEDIATE")
                    await db.execute("COMMIT")
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(workers)))
    return time.perf_counter() - started, latencies


async def empty_transactions_any(store: Store, total: int, workers: int) -> tuple[float, list[float]]:
    """Empty write transactions (begin, commit) through the store's own transaction path, on any backend."""
    latencies: list[float] = []
    remaining = total

    async def worker() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            started = time.perf_counter()
            async with store._transaction() as tx:  # type: ignore[attr-defined]
                await tx.commit()
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(workers)))
    return time.perf_counter() - started, latencies


async def measure(store: Store, args: argparse.Namespace) -> dict[str, float]:
    """One backend: paced and saturated actions, and empty transactions on the same database."""
    games = [await new_game(store, channel) for channel in range(1, args.games + 1)]
    actors = Actors(store, games, args.actors)
    mean_think = args.actors / args.rate

    async def think(rng: random.Random) -> None:
        await asyncio.sleep(rng.expovariate(1 / mean_think))

    await actors.run(args.actors * 2, None)  # warm-up
    await actors.run(args.actions, think)
    paced = list(actors.latencies)
    saturated_time = await actors.run(args.actions, None)
    saturated = list(actors.latencies)
    store_time = saturated_time - actors.choosing
    await empty_transactions_any(store, args.actors * 2, args.actors)  # warm-up
    paced_empty: list[float] = []
    for _ in range(min(args.actions, 2000)):  # one at a time: the latency of an empty transaction, unqueued
        _elapsed, one = await empty_transactions_any(store, 1, 1)
        paced_empty += one
    floor_time, floor = await empty_transactions_any(store, args.actions, args.actors)
    return {
        "actions/s (saturated, store time)": len(saturated) / store_time,
        "empty transactions/s (saturated)": len(floor) / floor_time,
        "p99 action, paced (ms)": percentile(paced, 0.99) * 1000,
        "p99 empty transaction, one at a time (ms)": percentile(paced_empty, 0.99) * 1000,
        "median action, paced (ms)": statistics.median(paced) * 1000,
        "median empty transaction, one at a time (ms)": statistics.median(paced_empty) * 1000,
    }


def _figure(value: float) -> str:
    return f"{value:,.2f}" if value < 100 else f"{value:,.0f}"


async def compare(args: argparse.Namespace, folder: Path) -> list[tuple[str, str, str, str]]:
    """SQLite and PostgreSQL side by side in one run."""
    results: dict[str, dict[str, float]] = {}
    sqlite_store = await open_store(folder / "compare.sqlite3", synchronous=args.synchronous)
    try:
        results["SQLite"] = await measure(sqlite_store, args)
    finally:
        await sqlite_store.close()
    server = None
    url = args.postgres_url
    if not url:
        import pgserver

        data = tempfile.mkdtemp(prefix="risk-bench-pg-")
        server = pgserver.get_server(data, cleanup_mode="delete")
        url = server.get_uri()
    try:
        configurations = (("PostgreSQL", {}), ("PostgreSQL, synchronous_commit=off", {"synchronous_commit": "off"}))
        for name, settings in configurations:
            pg = PostgresStore(url, pool_size=args.pool, server_settings=settings)
            await pg.open()
            try:
                async with pg._transaction() as tx:  # each configuration starts from an empty database
                    await tx.commit(Step(EMPTY_TABLES))
                results[name] = await measure(pg, args)
            finally:
                await pg.close()
    finally:
        if server is not None:
            server.cleanup()
    rows = []
    for key in results["SQLite"]:
        a, b = results["SQLite"][key], results["PostgreSQL"][key]
        c = results["PostgreSQL, synchronous_commit=off"][key]
        rows.append((key, _figure(a), f"{_figure(b)} ({_figure(c)})", f"{b / a:.2f} ({c / a:.2f})"))
    for name, r in results.items():
        cost = r["empty transactions/s (saturated)"] / r["actions/s (saturated, store time)"]
        tail = r["p99 action, paced (ms)"] / r["p99 empty transaction, one at a time (ms)"]
        rows.append((f"{name}: empty transactions/s ÷ actions/s", f"{cost:.1f}", "", ""))
        rows.append((f"{name}: p99 action ÷ p99 empty transaction", f"{tail:.1f}", "", ""))
    return rows


async def round_trips(url: str, actions: int) -> list[int]:
    """The round trips of each of ``actions`` actions on one connection, counted on the wire, after a warm-up
    (each statement is prepared once per connection)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from postgres_wire import RoundTrips

    async with RoundTrips(url) as trips:
        store = PostgresStore(trips.url, pool_size=1)
        await store.open()
        try:
            games = [await new_game(store, 900_000 + channel) for channel in range(5)]
            actors = Actors(store, games, 1)
            counted: list[int] = []
            for number in range(actions + 10):
                record = games[number % len(games)]
                action = actors.choose(record)
                before = trips.count
                result = await plays_for(store).apply(record.id, action, interaction_id=f"trips-{number}",
                                                  expected_version=record.version)
                if number >= 10:
                    counted.append(trips.count - before)
                games[number % len(games)] = (result.record if result.record.status == "running"
                                              else await new_game(store, result.record.channel_id))
        finally:
            await store.close()
    return counted


async def one_at_a_time(url: str, actions: int) -> list[float]:
    """The latency of each of ``actions`` actions, one after the other on one connection (no queueing at all)."""
    store = PostgresStore(url, pool_size=1)
    await store.open()
    try:
        games = [await new_game(store, 800_000 + channel) for channel in range(20)]
        actors = Actors(store, games, 1)
        await actors.run(100, None)  # warm-up
        await actors.run(actions, None)
        return list(actors.latencies)
    finally:
        await store.close()


async def postgres_alone(args: argparse.Namespace) -> list[tuple[str, str]]:
    """PostgreSQL alone: actions/s and latency, then the round trips of an action."""
    server = None
    url = args.postgres_url
    if not url:
        import pgserver

        data = tempfile.mkdtemp(prefix="risk-bench-pg-")
        server = pgserver.get_server(data, cleanup_mode="delete")
        url = server.get_uri()
    try:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from postgres_wire import RoundTrips

        async with RoundTrips(url, delay=args.latency / 1000) as far:
            pg = PostgresStore(far.url if args.latency else url, pool_size=args.pool)
            await pg.open()
            try:
                async with pg._transaction() as tx:  # an empty database each run
                    await tx.commit(Step(EMPTY_TABLES))
                measured = await measure(pg, args)
            finally:
                await pg.close()
            alone = await one_at_a_time(far.url if args.latency else url, 1000)
        counted = await round_trips(url, 200)
    finally:
        if server is not None:
            server.cleanup()
    rows = [(name, _figure(value)) for name, value in measured.items()]
    rows.append(("mean / p99 action, one connection, one at a time (ms)",
                 f"{statistics.mean(alone) * 1000:.2f} / {percentile(alone, 0.99) * 1000:.2f}"))
    rows.append(("round trips per action (mean / most, one connection, after a warm-up)",
                 f"{statistics.mean(counted):.2f} / {max(counted)}"))
    return rows


def add_finished_games(path: Path, up_to: int) -> None:
    """Fill the database up to ``up_to`` games with copies of a finished game (fast, by plain SQL)."""
    conn = sqlite3.connect(path)
    row = conn.execute("SELECT state FROM games WHERE status = 'finished' LIMIT 1").fetchone()
    state = row[0] if row else json.dumps({"phase": "over"})
    start = conn.execute("SELECT max(id) FROM games").fetchone()[0] + 1
    conn.executemany(
        "INSERT INTO games (id, guild_id, channel_id, status, settings, host_id, state, state_schema, version, "
        "last_seq, created_at, updated_at) VALUES (?, 1, ?, 'finished', '{}', 1, ?, 1, 1, 0, 0, 0)",
        [(i, 10_000_000 + i, state) for i in range(start, up_to + 1)])
    conn.executemany("INSERT INTO players VALUES (?, ?, NULL, 'easy', ?, ?)",
                     [(i, s, f"AI {s}", s) for i in range(start, up_to + 1) for s in range(3)])
    conn.commit()
    conn.close()


async def bench(args: argparse.Namespace, path: Path) -> list[tuple[str, str]]:
    store = await open_store(path, synchronous=args.synchronous)
    games = [await new_game(store, channel) for channel in range(1, args.games + 1)]
    actors = Actors(store, games, args.actors)
    rows: list[tuple[str, str]] = []

    mean_think = args.actors / args.rate

    async def think(rng: random.Random) -> None:
        await asyncio.sleep(rng.expovariate(1 / mean_think))

    await actors.run(args.actors * 2, None)  # warm-up: first parse of a few games, code paths
    paced_time = await actors.run(args.actions, think)
    paced = list(actors.latencies)
    rows.append((f"paced ({args.rate} actions/s offered): commit latency median",
                 f"{statistics.median(paced) * 1000:.2f} ms"))
    rows.append(("paced: commit latency p99", f"{percentile(paced, 0.99) * 1000:.2f} ms"))
    rows.append(("paced: achieved actions/s", f"{len(paced) / paced_time:,.0f}"))

    saturated_time = await actors.run(args.actions, None)
    saturated = list(actors.latencies)
    throughput = len(saturated) / saturated_time
    rows.append((f"saturated ({args.actors} actors, no pause): sustained actions/s", f"{throughput:,.0f}"))
    rows.append(("saturated: latency median / p99 (queueing included)",
                 f"{statistics.median(saturated) * 1000:.1f} / {percentile(saturated, 0.99) * 1000:.1f} ms"))
    rows.append(("saturated: share of the time spent choosing moves and parsing records (actors, not store)",
                 f"{actors.choosing / saturated_time:.0%}"))
    store_rate = len(saturated) / (saturated_time - actors.choosing)
    rows.append(("saturated: actions/s of store time alone (estimate)", f"{store_rate:,.0f}"))

    for batched, label in ((True, "one round trip, as the store sends them"), (False, "two plain aiosqlite calls")):
        floor_time, floor = await empty_transactions(store, args.actions, args.actors, batched)
        floor_rate = len(floor) / floor_time
        rows.append((f"floor: empty BEGIN IMMEDIATE + COMMIT per s, {label}", f"{floor_rate:,.0f}"))
        rows.append(("  floor ÷ sustained actions/s (an action costs this many empty transactions)",
                     f"{floor_rate / throughput:.1f} ({floor_rate / store_rate:.1f} on store time alone)"))
    hits, misses = plays_for(store).stats["cache_hits"], plays_for(store).stats["cache_misses"]
    rows.append(("game cache hits", f"{hits / max(1, hits + misses):.0%}"))
    await store.close()

    add_finished_games(path, 10_000)
    started = time.perf_counter()
    store = await open_store(path)
    running = await store.running_games()
    opened = time.perf_counter() - started
    await store.close()
    rows.append((f"start-up: open + list {len(running):,} running games of 10,000 stored",
                 f"{opened * 1000:.0f} ms"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="running games (default: %(default)s)")
    parser.add_argument("--actors", type=int, default=50, help="concurrent actors (default: %(default)s)")
    parser.add_argument("--actions", type=int, default=5000, help="actions per run (default: %(default)s)")
    parser.add_argument("--rate", type=float, default=500, help="offered actions/s when paced (default: %(default)s)")
    parser.add_argument("--synchronous", default="NORMAL", choices=("NORMAL", "FULL"),
                        help="SQLite synchronous mode (default: %(default)s)")
    parser.add_argument("--compare", action="store_true",
                        help="SQLite and PostgreSQL side by side (actions/s and p99 against empty transactions)")
    parser.add_argument("--postgres", action="store_true",
                        help="PostgreSQL alone: actions/s, p99 and the round trips of an action")
    parser.add_argument("--latency", type=float, default=0.0,
                        help="with --postgres: milliseconds between the bot and the server (default: %(default)s)")
    parser.add_argument("--postgres-url", default="",
                        help="PostgreSQL for --compare and --postgres (default: a throwaway server)")
    parser.add_argument("--pool", type=int, default=10, help="PostgreSQL connections (default: %(default)s)")
    args = parser.parse_args()
    if args.postgres:
        alone = asyncio.run(postgres_alone(args))
        away = f", the server {args.latency:g} ms away" if args.latency else ""
        print(f"| measure ({args.games:,} running games, {args.actors} actors, {args.actions:,} actions, "
              f"{args.rate:g} actions/s offered when paced{away}) | PostgreSQL |")
        print("|---|---|")
        for name, value in alone:
            print(f"| {name} | {value} |")
        return
    if args.compare:
        with tempfile.TemporaryDirectory() as folder:
            compared = asyncio.run(compare(args, Path(folder)))
        print(f"| measure ({args.games:,} running games, {args.actors} actors, {args.actions:,} actions) "
              "| SQLite | PostgreSQL (synchronous_commit=off) | PostgreSQL ÷ SQLite |")
        print("|---|---|---|---|")
        for name, a, b, ratio in compared:
            print(f"| {name} | {a} | {b} | {ratio} |")
        return
    with tempfile.TemporaryDirectory() as folder:
        rows = asyncio.run(bench(args, Path(folder) / "bench.sqlite3"))
    print(f"| measure ({args.games:,} running games, synchronous={args.synchronous}) | value |")
    print("|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
