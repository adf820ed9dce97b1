"""Benchmark of a tournament's logic: a Swiss of 64 players, 6 rounds of 4-player tables. For each round, the
wall time of pairing it (``competition.next_round``) and of the standings after it (``competition.standings``),
and at the end the standings image's render time and size.

    .venv/bin/python bench/tournament.py [--players 64] [--rounds 6] [--table 4] [--runs 5] [--ai]

Results come from a seeded random, or with ``--ai`` from whole games played by the normal AI on the classic map
(``engine.simulate.play_game``; winner first, then the seats in the reverse order of their elimination).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from competition import Entrant, Pairing, Result, Spec, next_round, standings
from render.standings import StandingRow, render_standings, standings_image

HEADERS = ("#", "Player", "Points", "Played", "Wins")


def random_result(pairing: Pairing, rng: random.Random) -> Result:
    keys = list(pairing.entrants)
    rng.shuffle(keys)
    return Result(pairing.round, pairing.table, tuple((k, i + 1) for i, k in enumerate(keys)))


def ai_result(pairing: Pairing, seed: str) -> tuple[Result, float]:
    from engine.simulate import play_game

    played = play_game(["normal"] * len(pairing.entrants), seed)
    state = played.game.state
    order = [state.winner] if state.winner is not None else []
    order += [seat for seat in reversed(state.eliminated) if seat not in order]
    order += [seat for seat in range(len(pairing.entrants)) if seat not in order]
    places = tuple((pairing.entrants[seat], place) for place, seat in enumerate(order, start=1))
    return Result(pairing.round, pairing.table, places), played.seconds


def tournament(players: int, rounds: int, table: int, seed: int, ai: bool
               ) -> tuple[list[float], list[float], float, list[StandingRow]]:
    rng = random.Random(seed)
    spec = Spec("swiss", table_size=table, rounds=rounds)
    entrants = [Entrant(key=1000 + i, rating=float(rng.randint(800, 1400)), name=f"Player {i + 1}")
                for i in range(players)]
    pairings: list[Pairing] = []
    results: list[Result] = []
    pair_times, standing_times, game_seconds = [], [], 0.0
    while True:
        started = time.perf_counter()
        upcoming = next_round(spec, entrants, pairings, results)
        pair_times.append(time.perf_counter() - started)
        if upcoming is None:
            pair_times.pop()        # the call that finds the tournament over is not a round's pairing
            break
        pairings += upcoming
        for pairing in upcoming:
            if pairing.bye:
                continue
            if ai:
                result, seconds = ai_result(pairing, f"bench-{seed}-{pairing.round}-{pairing.table}")
                game_seconds += seconds
                results.append(result)
            else:
                results.append(random_result(pairing, rng))
        started = time.perf_counter()
        table_now = standings(spec, entrants, pairings, results)
        standing_times.append(time.perf_counter() - started)
    names = {e.key: e.name for e in entrants}
    rows = [StandingRow(s.rank, names[s.key], s.points, s.played, s.wins, "forfeit" if s.forfeits else "")
            for s in table_now]
    return pair_times, standing_times, game_seconds, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--table", type=int, default=4)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ai", action="store_true", help="results from AI games (one run)")
    args = parser.parse_args()
    runs = 1 if args.ai else args.runs
    by_round: list[list[tuple[float, float]]] = [[] for _ in range(args.rounds)]
    rows: list[StandingRow] = []
    game_seconds = 0.0
    for run in range(runs):
        pair_times, standing_times, game_seconds, rows = tournament(args.players, args.rounds, args.table,
                                                                    run + 1, args.ai)
        for number, timing in enumerate(zip(pair_times, standing_times, strict=True)):
            by_round[number].append(timing)
    print(f"Swiss of {args.players} players, {args.rounds} rounds at tables of {args.table}, {runs} run(s), "
          f"results {'from AI games' if args.ai else 'seeded random'}; median ms")
    print("round  pairing  standings")
    for number, timings in enumerate(by_round, start=1):
        pair = statistics.median(t[0] for t in timings) * 1000
        table = statistics.median(t[1] for t in timings) * 1000
        print(f"{number:>5}  {pair:>7.1f}  {table:>9.1f}")
    if args.ai:
        print(f"AI games: {game_seconds:.0f} s of play in all")
    draws, encodes, size = [], [], 0
    for _ in range(args.runs):
        started = time.perf_counter()
        render_standings("Swiss — final standings", rows, HEADERS)
        drawn = time.perf_counter()
        png = standings_image("Swiss — final standings", rows, HEADERS)
        done = time.perf_counter()
        draws.append(drawn - started)
        encodes.append(done - drawn)
        size = len(png)
    print(f"standings image ({len(rows)} rows): drawn {statistics.median(draws) * 1000:.0f} ms, drawn and "
          f"encoded {statistics.median(encodes) * 1000:.0f} ms, {size / 1024:.0f} KiB PNG")


if __name__ == "__main__":
    main()
