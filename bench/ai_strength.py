"""Benchmark: how often the `normal` AI beats two `easy` AIs (seat 0 against seats 1 and 2, whole games).

Run: ``.venv/bin/python bench/ai_strength.py [--games N]``. The games are seeded (``game_seed("strength", i)``),
so a run gives the same count every time on the same code. Exits 1 if the normal AI wins fewer than 80% of
them (the target). Results go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.simulate import game_seed, play_game

TARGET = 0.8


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    started = time.perf_counter()
    wins = sum(1 for i in range(args.games)
               if play_game(["normal", "easy", "easy"], game_seed("strength", i)).winner == 0)
    elapsed = time.perf_counter() - started
    share = wins / args.games
    print("| games | normal AI wins | share | target | time |")
    print("|---|---|---|---|---|")
    print(f"| {args.games} | {wins} | {share:.1%} | {TARGET:.0%} | {elapsed:.1f} s |")
    return 0 if share >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
