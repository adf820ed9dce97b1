"""Benchmark: how long the event loop is held while hard AIs play, with their decisions in the bot's process and
in the worker processes (``table/thinking.py``).

A SQLite store in a temporary folder, a ``Table`` and games of six hard AIs (the host's seat, seat 0, is given
to a hard AI after the start); each call of ``Table.go_on`` plays up to ``MAX_THOUGHTS`` hard decisions. A
heartbeat coroutine ticks every 5 ms meanwhile: the longest gap between two ticks is the longest time the loop was
held, which is what a player's tap waits behind.

Run: ``.venv/bin/python bench/ai_loop.py [--games N] [--slices N]``. Results go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from store import SQLiteStore
from table import Table
from table.thinking import Thinking

TICK = 0.005


async def held(games: int, slices: int, elsewhere: frozenset[str]) -> tuple[list[float], int]:
    """The gaps between heartbeats beyond a tick while ``games`` games of hard AIs each play ``slices`` slices."""
    gaps: list[float] = []
    stop = asyncio.Event()

    async def heartbeat() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(TICK)
            now = time.perf_counter()
            gaps.append(now - last - TICK)
            last = now

    thinking = Thinking(processes=1, elsewhere=elsewhere)
    decisions = 0
    with tempfile.TemporaryDirectory() as folder:
        async with SQLiteStore(Path(folder) / "risk.sqlite3") as store:
            beat = asyncio.create_task(heartbeat())
            for g in range(games):
                table = Table(store, time.time, lambda g=g: f"ai-loop-{g}", thinking=thinking)
                lobby = await table.open_lobby(1, 100 + g, 1, "Host", {"deployment": "auto"})
                for _ in range(5):
                    await table.add_ai(lobby.record.id, "hard")
                await table.start(lobby.record.id)
                await store.replace_with_ai(lobby.record.id, 0, "hard")
                for _ in range(slices):
                    outcome = await table.go_on(lobby.record.id)
                    decisions += sum(1 for p in outcome.parts for e in p.events if e["type"] in (
                        "armies_placed", "battle", "occupied", "fortified", "attack_ended", "turn_ended"))
                    if outcome.record.status != "running":
                        break
            stop.set()
            await beat
    thinking.shutdown()
    return gaps, decisions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--slices", type=int, default=6)
    args = parser.parse_args()
    print("| hard AI decisions | move events played | longest hold of the loop | p99 gap | median gap |")
    print("|---|---|---|---|---|")
    for label, elsewhere in (("in the bot's process", frozenset()), ("in the worker processes", None)):
        gaps, moves = asyncio.run(held(args.games, args.slices, Thinking().elsewhere if elsewhere is None
                                       else elsewhere))
        gaps.sort()
        p99 = gaps[int(len(gaps) * 0.99)] if gaps else 0.0
        print(f"| {label} | {moves} | {gaps[-1] * 1000:.1f} ms | {p99 * 1000:.1f} ms | "
              f"{statistics.median(gaps) * 1000:.2f} ms |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
