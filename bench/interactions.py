"""Benchmark: an /attack interaction from payload to captured answer (engine, store and map render included).

Run: ``.venv/bin/python bench/interactions.py [--attacks N]``. Results go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from discord_offline import OfflineDiscord

from bot import Config, create_bot
from store import SQLiteStore


async def run(attacks: int) -> list[float]:
    db = Path(tempfile.mkdtemp()) / "bench.sqlite3"
    bot = create_bot(Config(database=str(db)))
    numbers = itertools.count()
    bot.new_seed = lambda: hashlib.sha256(f"bench:{next(numbers)}".encode()).hexdigest()  # type: ignore[attr-defined]
    times: list[float] = []
    store = bot.store
    assert isinstance(store, SQLiteStore)
    async with OfflineDiscord(bot) as d:
        for n in itertools.count():
            if len(times) >= attacks:
                break
            channel = f"bench-{n}"
            await d.send_command("alice", channel, "risk new", {"deployment": "auto"})
            await d.send_command("alice", channel, "risk addbot", {})
            await d.send_command("alice", channel, "risk addbot", {})
            await d.send_command("alice", channel, "risk start", {})
            record = await store.get_active_game(d.channel(channel).id)
            assert record is not None
            game = record.game()
            if game.state.current != 0:
                continue
            s = game.state
            candidates = [t for t in s.territories_of(0) if game.attack_targets(0, t)]
            src = max(candidates, key=lambda t: s.armies[t])
            await d.send_command("alice", channel, "place", {"territory": src, "count": s.reinforcements})
            while len(times) < attacks:
                record = await store.get_active_game(d.channel(channel).id)
                if record is None:
                    break
                game = record.game()
                s = game.state
                if s.phase == "occupy":
                    await d.send_command("alice", channel, "move", {"count": s.pending["max"]})
                    continue
                if s.phase != "attack" or s.current != 0:
                    break
                sources = game.attack_sources(0)
                if not sources:
                    break
                src = max(sources, key=lambda t: s.armies[t])
                dst = min(game.attack_targets(0, src), key=lambda t: s.armies[t])
                started = time.perf_counter()
                step = await d.send_command("alice", channel, "attack", {"from": src, "to": dst})
                times.append(time.perf_counter() - started)
                assert not step.problems and step[0].attachments, step.problems
            await d.send_command("alice", channel, "risk cancel", {})
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--attacks", type=int, default=300)
    args = parser.parse_args()
    times = sorted(asyncio.run(run(args.attacks)))
    p50 = statistics.median(times) * 1000
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))] * 1000
    print("| attacks | p50 | p90 | p99 | max |")
    print("|---|---|---|---|---|")
    print(f"| {len(times)} | {p50:.1f} ms | {times[int(len(times) * 0.9)] * 1000:.1f} ms | {p99:.1f} ms | "
          f"{times[-1] * 1000:.1f} ms |")


if __name__ == "__main__":
    main()
