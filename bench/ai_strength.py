"""Benchmark: how often the `normal` AI beats two `easy` AIs (seat 0 against seats 1 and 2, whole games), and
what an AI decision costs.

Run: ``.venv/bin/python bench/ai_strength.py [--games N] [--fog]``. The games are seeded
(``game_seed("strength", i)``), so a run gives the same count every time on the same code. Exits 1 if the normal
AI wins fewer than 60% of them (the target: nearly twice its fair third). ``--fog`` plays them under fog of war,
where each AI decides on what its seat saw (``engine.ai.knowledge``).

``--decisions N`` instead times the AI's decisions over N such games, fog off and on: each call of ``choose``
(the seat's projection, its memory under fog and the decision), and under fog the memory's upkeep per event
(``Recollection.follow``); then the CPU time of the hard AI's decisions and whole turns in N 6-player games
(one hard against five normal) against its budget (100 ms a decision, 1 s a turn). Results go in
docs/performance.md.

``--match NAME [NAME ...] --games N [--jobs 2]`` plays the level matches instead (``MATCHES``: one hard against
five normal, and so on), the tested seat rotating over the games (seat ``i % players``), and prints each
match's wins with a 95% Wilson interval, and how often a seat held a whole continent at the start of one of
its turns: the share of games in which the tested seat did, and the share of the other seats (one per game and
seat) that did, each with its interval. ``--match all`` plays every match, each with its own number of games
(``--games`` overrides it).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ai import make_ai
from engine.game import Game
from engine.simulate import game_seed, play_game
from engine.state import OVER, Player

try:  # the AIs' memory under fog (absent from older code, which this script also times)
    from engine.ai import Recollection
except ImportError:  # pragma: no cover
    Recollection = None  # type: ignore[assignment,misc]

TARGET = 0.6
LEVELS = ["normal", "easy", "easy"]
DECISION_BUDGET = 0.100  # seconds of CPU a decision may take
TURN_BUDGET = 1.0        # and a whole AI turn
MATCH_ACTIONS = 50_000   # a match's game still going after this many actions is counted as unfinished


@dataclass(frozen=True)
class Match:
    """One level (``tested``) against ``others`` in every other seat, under ``settings``; ``goal`` is the share
    of wins it is held to (at least, or with ``below`` under), None if the share is only reported."""

    tested: str
    others: str
    players: int
    games: int
    settings: dict[str, Any] = field(default_factory=dict)
    goal: float | None = None
    below: bool = False


MATCHES = {
    "hard-vs-5-normal": Match("hard", "normal", 6, 500, goal=0.35),
    "normal-vs-5-hard": Match("normal", "hard", 6, 200, goal=1 / 6, below=True),
    "hard-vs-normal-2p": Match("hard", "normal", 2, 200, goal=0.75),
    "hard-vs-5-normal-missions": Match("hard", "normal", 6, 200, {"mode": "missions"}),
    "hard-vs-5-normal-capitals": Match("hard", "normal", 6, 200, {"mode": "capitals"}),
    "hard-vs-5-normal-fog": Match("hard", "normal", 6, 200, {"fog": "on"}),
    "normal-vs-5-easy": Match("normal", "easy", 6, 200),
    "easy-vs-5-normal": Match("easy", "normal", 6, 200),
    "easy-vs-normal-2p": Match("easy", "normal", 2, 200),
    "easy-vs-5-easy": Match("easy", "easy", 6, 200),
}


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share of wins."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class MatchGame:
    """One game of a match: whether the tested seat won, the game's turns (-1: a game that did not end within
    ``MATCH_ACTIONS`` actions, a loss), whether the tested seat held a whole continent at the start of one of
    its turns, and how many of the other seats did."""

    won: bool
    turns: int
    tested_held: bool = False
    others_held: int = 0


def continent_holders(events: list[Any]) -> set[int]:
    """The seats that held a whole continent at the start of one of their turns (its bonus counted)."""
    return {int(e["seat"]) for e in events
            if e["type"] == "turn_started" and e["reinforcements"]["continents"]}


def match_game(args: tuple[str, int]) -> MatchGame:
    """Game ``i`` of a match."""
    name, i = args
    match = MATCHES[name]
    seat = i % match.players
    levels = [match.tested if s == seat else match.others for s in range(match.players)]
    try:
        result = play_game(levels, game_seed(f"match:{name}", i), dict(match.settings),
                           max_actions=MATCH_ACTIONS)
    except RuntimeError:
        return MatchGame(False, -1)
    state = result.game.state
    won = seat in (state.winners or ([] if result.winner is None else [result.winner]))
    held = continent_holders(result.events)
    return MatchGame(won, state.turn, seat in held, len(held - {seat}))


def play_match(name: str, games: int, jobs: int) -> bool:
    """Play a match and print its line; False if it misses its goal."""
    match = MATCHES[name]
    started = time.perf_counter()
    work = [(name, i) for i in range(games)]
    if jobs > 1:
        with Pool(jobs) as pool:
            results = pool.map(match_game, work, chunksize=1)
    else:
        results = [match_game(w) for w in work]
    wins = sum(1 for r in results if r.won)
    low, high = wilson(wins, games)
    share = wins / games
    goal = "–" if match.goal is None else f"{'<' if match.below else '≥'} {match.goal:.1%}"
    met = match.goal is None or (high < match.goal if match.below else share >= match.goal)
    turns = statistics.median(r.turns for r in results if r.turns >= 0)
    unfinished = sum(1 for r in results if r.turns < 0)
    print(f"| {name} | {games} | {wins} | {share:.1%} | {low:.1%}–{high:.1%} | {goal} | "
          f"{'yes' if met else 'no'} | {turns:.0f} | {unfinished} | "
          f"{held(sum(r.tested_held for r in results), games)} | "
          f"{held(sum(r.others_held for r in results), games * (match.players - 1))} | "
          f"{time.perf_counter() - started:.0f} s |", flush=True)
    return met


def held(count: int, of: int) -> str:
    """A share with its 95% interval: ``61.0% (54.1–67.5%)``."""
    low, high = wilson(count, of)
    return f"{count / of:.1%} ({low:.1%}–{high:.1%})"


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


def budget(games: int) -> None:
    """The CPU time of the hard AI's decisions and whole turns in 6-player games (hard against five normal,
    the hard seat rotating), fog off and on."""
    print("| fog | decisions | median | p99 | max | turns | turn median | turn p99 | turn max | over budget |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for fog in (False, True):
        spent: list[float] = []
        turns: list[float] = []
        for i in range(games):
            hard = i % 6
            levels = ["hard" if s == hard else "normal" for s in range(6)]
            players = [Player(s, f"{level} {s}", "ai", level) for s, level in enumerate(levels)]
            game, events = Game.new(players, game_seed("budget", i), {"fog": "on"} if fog else {})
            ais = [make_ai(level, salt=str(s)) for s, level in enumerate(levels)]
            seen = Recollection.of_log(events) if fog else None
            turn, this_turn = -1, 0.0
            while game.state.phase != OVER:
                seat = game.state.current
                if seat == hard and game.state.turn != turn:
                    if turn >= 0:
                        turns.append(this_turn)
                    turn, this_turn = game.state.turn, 0.0
                start = time.process_time()
                action = ais[seat].choose(game, seat, seen.memory(seat) if seen is not None else None)
                if seat == hard:
                    took = time.process_time() - start
                    spent.append(took)
                    this_turn += took
                new = game.apply(action)
                if seen is not None:
                    seen.follow(new)
            if turn >= 0:
                turns.append(this_turn)
        ms = sorted(x * 1000 for x in spent)
        tm = sorted(x * 1000 for x in turns)
        over = sum(1 for x in spent if x > DECISION_BUDGET) + sum(1 for x in turns if x > TURN_BUDGET)
        q, qt = statistics.quantiles(ms, n=100), statistics.quantiles(tm, n=100)
        print(f"| {'on' if fog else 'off'} | {len(ms):,} | {statistics.median(ms):.2f} ms | {q[98]:.2f} ms | "
              f"{ms[-1]:.1f} ms | {len(tm):,} | {statistics.median(tm):.1f} ms | {qt[98]:.1f} ms | "
              f"{tm[-1]:.0f} ms | {over} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=None, help="games (default 200; a match's own number)")
    parser.add_argument("--fog", action="store_true", help="play the games under fog of war")
    parser.add_argument("--decisions", type=int, metavar="N", help="time the decisions of N games instead")
    parser.add_argument("--match", nargs="+", metavar="NAME", choices=[*MATCHES, "all"],
                        help="play level matches instead: " + ", ".join(MATCHES) + ", or all")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once, one process each")
    args = parser.parse_args()
    if args.decisions:
        decisions(args.decisions)
        budget(args.decisions)
        return 0
    if args.match:
        names = list(MATCHES) if "all" in args.match else args.match
        print("| match | games | wins | share | 95% interval | goal | met | median turns | unfinished | "
              "tested held a continent | others held one | time |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        met = [play_match(name, args.games or MATCHES[name].games, args.jobs) for name in names]
        return 0 if all(met) else 1
    return strength(args.games or 200, args.fog)


if __name__ == "__main__":
    sys.exit(main())
