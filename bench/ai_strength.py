"""Benchmark: how often the `normal` AI beats two `easy` AIs (seat 0 against seats 1 and 2, whole games), and
what an AI decision costs.

Run: ``.venv/bin/python bench/ai_strength.py [--games N] [--fog]``. The games are seeded
(``game_seed("strength", i)``), so a run gives the same count every time on the same code. Exits 1 if the normal
AI wins fewer than 80% of them (the target). ``--fog`` plays them under fog of war, where each AI decides on
what its seat saw (``engine.ai.knowledge``).

``--decisions N`` instead times the AI's decisions over N such games, fog off and on: each call of ``choose``
(the seat's projection, its memory under fog and the decision), and under fog the memory's upkeep per event
(``Recollection.follow``). Results go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ai import make_ai
from engine.game import Game
from engine.simulate import game_seed, play_game
from engine.state import OVER, Player

try:  # the AIs' memory under fog (absent from older code, which this script also times)
    from engine.ai import Recollection
except ImportError:  # pragma: no cover
    Recollection = None  # type: ignore[assignment,misc]

TARGET = 0.8
LEVELS = ["normal", "easy", "easy"]


def strength(games: int, fog: bool) -> int:
    settings = {"fog": "on"} if fog else {}
    started = time.perf_counter()
    wins = sum(1 for i in range(games) if play_game(LEVELS, game_seed("strength", i), settings).winner == 0)
    elapsed = time.perf_counter() - started
    share = wins / games
    print("| games | fog | normal AI wins | share | target | time |")
    print("|---|---|---|---|---|---|")
    print(f"| {games} | {'on' if fog else 'off'} | {wins} | {share:.1%} | {TARGET:.0%} | {elapsed:.1f} s |")
    return 0 if share >= TARGET else 1


def decisions(games: int) -> None:
    """Time every decision of ``games`` games, by level, fog off and on."""
    print("| fog | level | decisions | median | p90 | p99 | mean | memory upkeep per event |")
    print("|---|---|---|---|---|---|---|---|")
    for fog in (False, True):
        times: dict[str, list[float]] = {level: [] for level in dict.fromkeys(LEVELS)}
        upkeep: list[float] = []
        for i in range(games):
            players = [Player(s, f"{level} {s}", "ai", level) for s, level in enumerate(LEVELS)]
            game, events = Game.new(players, game_seed("strength", i), {"fog": "on"} if fog else {})
            ais = [make_ai(level, salt=str(s)) for s, level in enumerate(LEVELS)]
            seen = Recollection.of_log(events) if fog and Recollection is not None else None
            while game.state.phase != OVER:
                seat = game.state.current
                start = time.perf_counter()
                if seen is None:
                    action = ais[seat].choose(game, seat)
                else:
                    action = ais[seat].choose(game, seat, seen.memory(seat))
                times[LEVELS[seat]].append(time.perf_counter() - start)
                new = game.apply(action)
                if seen is not None:
                    start = time.perf_counter()
                    seen.follow(new)
                    upkeep.append((time.perf_counter() - start) / len(new))
        for level, spent in times.items():
            ms = sorted(t * 1000 for t in spent)
            q = statistics.quantiles(ms, n=100)
            kept = f"{statistics.mean(upkeep) * 1e6:.0f} µs" if upkeep else "–"
            print(f"| {'on' if fog else 'off'} | {level} | {len(ms):,} | {statistics.median(ms):.3f} ms | "
                  f"{q[89]:.3f} ms | {q[98]:.3f} ms | {statistics.mean(ms):.3f} ms | {kept} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--fog", action="store_true", help="play the games under fog of war")
    parser.add_argument("--decisions", type=int, metavar="N", help="time the decisions of N games instead")
    args = parser.parse_args()
    if args.decisions:
        decisions(args.decisions)
        return 0
    return strength(args.games, args.fog)


if __name__ == "__main__":
    sys.exit(main())
