"""The engine under adversarial play, at length: whole games of random legal players under random settings, with
illegal actions of every kind tried at random points (see tests/test_adversarial.py, which plays a fixed set of
shorter games on CI).

Run: ``.venv/bin/python bench/adversarial.py [--games 150] [--seed 0]``. Prints how many games, actions and illegal
actions were played and tried, how the games ended, and every failure with the settings and seed that reproduce it
(``play_adversarially(config, seed)``). Exits with 1 if anything failed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_adversarial import Tally, play_adversarially, random_config  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=150, help="games to play (default 150)")
    parser.add_argument("--seed", default="0", help="base seed: the same seed plays the same games")
    parser.add_argument("--max-actions", type=int, default=50_000, help="legal actions at most per game")
    parser.add_argument("--illegal-rate", type=float, default=0.3,
                        help="chance, before each legal action, of trying a round of illegal ones (default 0.3)")
    parser.add_argument("--surrender-rate", type=float, default=0.002,
                        help="chance, at each legal action, that someone surrenders (default 0.002)")
    parser.add_argument("--unlimited", type=float, default=0.5,
                        help="share of games without a round limit, played to the end (default 0.5)")
    args = parser.parse_args(argv)
    pick = random.Random(f"bench-adversarial:{args.seed}")
    total = Tally()
    endings: Counter[str] = Counter()
    failures: list[str] = []
    started = time.perf_counter()
    for i in range(args.games):
        config = random_config(pick)
        if pick.random() < args.unlimited:
            config["max_rounds"] = 0
        seed = pick.randrange(2**32)
        try:
            tally = play_adversarially(config, seed, max_actions=args.max_actions, illegal_rate=args.illegal_rate,
                                       surrender_rate=args.surrender_rate)
        except AssertionError as exc:
            failures.append(f"game {i + 1}: play_adversarially({config!r}, {seed}): {exc}")
            continue
        total.add(tally)
        endings[tally.result or "not finished"] += 1
        if sys.stderr.isatty():
            print(f"\r{i + 1}/{args.games} games", end="", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    seconds = time.perf_counter() - started
    print(f"{args.games} games (seed {args.seed}) in {seconds:.0f} s: {total.actions:,} legal actions, "
          f"{total.illegal:,} illegal actions tried, {total.offered:,} offered actions checked, "
          f"{total.surrenders} surrenders, {total.undos} undos")
    print("endings: " + ", ".join(f"{reason} {n}" for reason, n in endings.most_common()))
    print("illegal actions by mistake: " + ", ".join(f"{why} {n:,}" for why, n in total.kinds.most_common()))
    print("refusals by error: " + ", ".join(f"{code} {n:,}" for code, n in total.codes.most_common()))
    print("corners reached: " + ", ".join(f"{what} {n:,}" for what, n in sorted(total.corners.items())))
    print(f"failures: {len(failures)}")
    for failure in failures:
        print(f"  {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
