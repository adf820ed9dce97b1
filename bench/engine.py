"""Benchmark: complete 6-player games of normal AIs. Prints median time per game and actions per second.

Run: ``.venv/bin/python bench/engine.py [--games N]``. Results go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.simulate import game_seed, play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--players", type=int, default=6)
    args = parser.parse_args()
    times: list[float] = []
    actions = events = 0
    for i in range(args.games):
        started = time.perf_counter()
        result = play_game(["normal"] * args.players, game_seed("bench", i))
        times.append(time.perf_counter() - started)
        actions += result.actions
        events += len(result.events)
    total = sum(times)
    print("| games | players | median per game | p90 per game | actions/s | events/s |")
    print("|---|---|---|---|---|---|")
    times.sort()
    print(f"| {args.games} | {args.players} | {statistics.median(times) * 1000:.0f} ms | "
          f"{times[int(len(times) * 0.9)] * 1000:.0f} ms | {actions / total:,.0f} | {events / total:,.0f} |")


if __name__ == "__main__":
    main()
