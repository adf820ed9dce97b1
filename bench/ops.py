"""Benchmark: what the host's metrics, probes and backups cost (docs/performance.md, docs/deploy.md).

Run: ``.venv/bin/python bench/ops.py [--games 10000] [--events 200]``.

* the hooks: each one-line hook the layers call (a transaction timed, an action counted, an interaction's
  arrival and first response, a message counted), per call;
* a scrape: ``/metrics``'s stored counts (games by status, timers due and overdue) on a database of
  ``--games`` games, and the text of the whole registry;
* ``/readyz``'s database check (an empty write transaction) on that database;
* ``bot.py backup`` of that database (``--events`` events per game, as a played game has) and its check.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Place
from ops import metrics
from store import open_store
from store.backup import backup_sqlite
from store.migrations import migrate_sync


def per_call(work: Callable[[], object], calls: int = 100_000) -> float:
    """Microseconds per call (the best of three runs)."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(calls):
            work()
        best = min(best, time.perf_counter() - started)
    return best / calls * 1e6


async def per_transaction(calls: int = 100_000) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for _ in range(calls):
            async with metrics.transaction():
                pass
        best = min(best, time.perf_counter() - started)
    return best / calls * 1e6


def fill(path: Path, games: int, events: int) -> None:
    """``games`` games (a tenth running, with a deadline each), each with ``events`` events of a typical size."""
    now = time.time()
    with sqlite3.connect(path, isolation_level=None) as conn:
        migrate_sync(conn)
        conn.execute("BEGIN")
        event = json.dumps({"type": "armies_placed", "seat": 0, "territory": "alaska", "count": 3})
        for game in range(1, games + 1):
            status = "running" if game % 10 == 0 else "finished"
            conn.execute("INSERT INTO games (id, guild_id, channel_id, status, settings, host_id, created_at, "
                         "updated_at) VALUES (?, 1, ?, ?, '{}', 1, ?, ?)", (game, game, status, now, now))
            conn.executemany("INSERT INTO events (game_id, seq, event) VALUES (?, ?, ?)",
                             [(game, seq, event) for seq in range(1, events + 1)])
            if status == "running":
                conn.execute("INSERT INTO deadlines (game_id, seat, kind, due_at) VALUES (?, 0, 'turn', ?)",
                             (game, now + (game % 3 - 1) * 120))
        conn.execute("COMMIT")


async def timed(work: Callable[[], object], times: int = 20) -> float:
    """The median of ``times`` runs, in milliseconds."""
    runs = []
    for _ in range(times):
        started = time.perf_counter()
        result = work()
        if asyncio.iscoroutine(result):
            await result
        runs.append((time.perf_counter() - started) * 1000)
    return statistics.median(runs)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=200)
    args = parser.parse_args()

    place = Place(0, "alaska", 3)
    print("| hook | µs per call |\n|---|---|")
    print(f"| a transaction timed (`metrics.transaction`) | {await per_transaction():.1f} |")
    print(f"| an action counted (`metrics.action_applied`) | {per_call(lambda: metrics.action_applied(place)):.1f} |")
    print(f"| a message counted (`metrics.message_sent`) | {per_call(lambda: metrics.message_sent('post')):.1f} |")

    def interaction() -> None:
        metrics.interaction_received(1, 2)
        metrics.interaction_answered(1)

    print(f"| an interaction's arrival and first response | {per_call(interaction):.1f} |")

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "risk.sqlite3"
        fill(path, args.games, args.events)
        store = await open_store(path)
        try:
            now = time.time()
            counts = await timed(lambda: store.health_counts(now, 60.0))
            ping = await timed(store.ping)
        finally:
            await store.close()
        scrape = await timed(metrics.exposition)
        started = time.perf_counter()
        backup_sqlite(path, Path(folder) / "backup.sqlite3")
        backup_seconds = time.perf_counter() - started
        size = path.stat().st_size / 1024 / 1024
    print(f"\n{args.games:,} games, {args.games * args.events:,} events ({size:.0f} MiB):\n")
    print("| measure | value |\n|---|---|")
    print(f"| the stored counts of a scrape (games by status, timers due, overdue) | {counts:.1f} ms |")
    print(f"| the registry as text | {scrape:.2f} ms |")
    print(f"| `/readyz`'s database check (an empty write transaction) | {ping:.2f} ms |")
    print(f"| `bot.py backup` (the copy and its integrity check) | {backup_seconds:.1f} s |")


if __name__ == "__main__":
    asyncio.run(main())
