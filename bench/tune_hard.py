"""Tune the hard AI's weights (``engine.ai.weights.Weights``) by successive halving against version 1 of `hard`.

Run: ``.venv/bin/python bench/tune_hard.py [--candidates K] [--sigma S] [--games G] [--proxy 2p|3v3|mixed]
[--seed TEXT] [--jobs 2] [--write]``.

The candidates are the weights tuned now (``Weights.tuned()``, candidate 0) and K others, each field of the
tuned ones multiplied by ``exp(N(0, S))`` (a random stream seeded with ``--seed``). Every stage plays each
candidate still in the running as the new AI against the frozen version 1 (``bench/ai_versus.py``) in the same
seeded games, keeps the better half by share of wins (a tie goes to the lower number, the tuned weights
first), and doubles the games for the next stage, until one is left: G games a candidate in the first stage,
2G in the second, and so on. The games are the cheap proxy ``--proxy``: two players and the neutral (``2p``,
the new AI's seat alternating), six players with three new seats and three old (``3v3``, the even or the odd
seats), or both in turn (``mixed``, the default); a game still going after ``TUNE_ACTIONS`` actions is a
loss (weights that stall the game lose). Their seeds (``game_seed("tune:SEED:stage:N", i)``) differ
from stage to stage and from the games of ``bench/ai_versus.py`` (``versus:...``), which then measure the
winner on games it was not chosen on.

``--write`` writes the winner to ``engine/ai/hard_weights.json`` with how it was found: the command line, the
date, every stage's games and scores, so anyone can run it again. Works on whatever fields ``Weights`` has.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))   # last: its scripts' names must not hide the packages (ops, store, render)

from ai_versus import NEW, OLD, Played, frozen_hard, play, pooled  # noqa: E402

from engine.ai import weights as weights_module  # noqa: E402
from engine.ai.weights import Weights  # noqa: E402
from engine.simulate import game_seed  # noqa: E402

PROXIES = ("2p", "3v3", "mixed")
TUNE_ACTIONS = 10_000   # a proxy game still going after this many actions (ten times a long one) is a loss


def candidates(count: int, sigma: float, seed: str, start: dict[str, float],
               only: Sequence[str] | None = None) -> list[dict[str, float]]:
    """``start`` and ``count`` perturbations of it: each field (of ``only``, if given; the others as they are)
    times exp(N(0, sigma)), from a seeded stream."""
    rng = random.Random(f"tune:{seed}")
    names = [f.name for f in fields(Weights) if only is None or f.name in only]
    out = [dict(start)]
    for _ in range(count):
        out.append({**start, **{name: start[name] * math.exp(rng.gauss(0.0, sigma)) for name in names}})
    return out


def proxy_game(proxy: str, i: int) -> tuple[str, ...]:
    """The seats (``NEW``, ``OLD``) of game ``i`` of the proxy: ``mixed`` plays two players in its even games
    and six in its odd ones; within each kind the new side takes the even and the odd seats in turn."""
    kind = proxy if proxy != "mixed" else ("2p" if i % 2 == 0 else "3v3")
    side = (i // 2 if proxy == "mixed" else i) % 2
    return tuple(NEW if s % 2 == side else OLD for s in range(2 if kind == "2p" else 6))


def tune_game(job: tuple[dict[str, float], str, str, int]) -> Played:
    """Game ``i`` of the proxy for the candidate ``weights`` (the new AI), whose seeds are ``stage``'s."""
    weights, proxy, stage, i = job
    return play(proxy_game(proxy, i), game_seed(stage, i), {}, weights, max_actions=TUNE_ACTIONS)


@dataclass(frozen=True)
class Stage:
    number: int
    games: int                  # a candidate's
    seeds: str                  # the base of its games' seeds
    scores: dict[int, int]      # candidate: wins
    unfinished: dict[int, int]  # candidate: games that did not end (losses)
    seconds: float              # CPU of the stage's games

    def ranked(self) -> list[int]:
        return sorted(self.scores, key=lambda c: (-self.scores[c], c))

    def record(self) -> dict[str, Any]:
        return {"stage": self.number, "games_per_candidate": self.games, "seeds": self.seeds,
                "games": self.games * len(self.scores),
                "wins": {str(c): w for c, w in sorted(self.scores.items())},
                "unfinished": {str(c): u for c, u in sorted(self.unfinished.items()) if u},
                "cpu_seconds": round(self.seconds)}


def halve(pool: list[dict[str, float]], games: int, proxy: str, seed: str, jobs: int) -> list[Stage]:
    """Successive halving of the candidates ``pool``: every stage's scores; the last stage's first is the winner."""
    running = list(range(len(pool)))
    stages: list[Stage] = []
    while len(running) > 1 or not stages:
        number = len(stages) + 1
        base = f"tune:{seed}:stage:{number}"
        work = [(pool[c], proxy, base, i) for c in running for i in range(games)]
        started = time.perf_counter()
        played = pooled(tune_game, work, jobs)
        mine = {c: played[k * games:(k + 1) * games] for k, c in enumerate(running)}
        stage = Stage(number, games, base, {c: sum(p.won for p in ps) for c, ps in mine.items()},
                      {c: sum(p.turns < 0 for p in ps) for c, ps in mine.items()}, sum(p.seconds for p in played))
        stages.append(stage)
        print(f"stage {number}: {games} games a candidate, {len(running)} candidates, {len(work)} games "
              f"({time.perf_counter() - started:.0f} s, CPU {stage.seconds:.0f} s, longest game "
              f"{max(p.seconds for p in played):.1f} s)", flush=True)
        for c in stage.ranked():
            unfinished = f", {stage.unfinished[c]} unfinished" if stage.unfinished[c] else ""
            print(f"  candidate {c}{' (tuned now)' if c == 0 else ''}: {stage.scores[c]} of {games} "
                  f"({stage.scores[c] / games:.1%}{unfinished})", flush=True)
        running = stage.ranked()[:max(1, len(running) // 2)]
        games *= 2
    return stages


def written(winner: dict[str, float], stages: list[Stage], pool: list[dict[str, float]], args: argparse.Namespace,
            argv: list[str]) -> dict[str, Any]:
    """The contents of hard_weights.json: the winner's weights and how they were found."""
    best = stages[-1].ranked()[0]
    earlier: list[dict[str, Any]] = []
    if weights_module.TUNED.exists():
        found = json.loads(weights_module.TUNED.read_text()).get("found", [])
        earlier = found if isinstance(found, list) else [found]
    return {
        "weights": {k: round(v, 6) for k, v in winner.items()},
        "found": [*earlier, {
            "command": shlex.join([".venv/bin/python", "bench/tune_hard.py", *argv]),
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "method": "successive halving against version 1 of hard (bench/frozen/hard_v1.py)",
            "proxy": args.proxy, "seed": args.seed, "sigma": args.sigma, "fields": args.fields or "all",
            "winner": best,
            "candidates": [{k: round(v, 6) for k, v in c.items()} for c in pool],
            "stages": [s.record() for s in stages],
        }],
    }


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--candidates", type=int, default=8, metavar="K", help="random candidates (default 8)")
    parser.add_argument("--sigma", type=float, default=0.2, help="spread of each field's factor, exp(N(0, sigma))")
    parser.add_argument("--games", type=int, default=20, metavar="G",
                        help="games a candidate in the first stage, doubled every stage (default 20)")
    parser.add_argument("--proxy", choices=PROXIES, default="mixed", help="the games played (default mixed)")
    parser.add_argument("--seed", default="1", help="seeds the candidates and the games (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once, one process each")
    parser.add_argument("--fields", help="the weights to tune, by name, comma-separated (default all)")
    parser.add_argument("--write", action="store_true", help=f"write the winner to {weights_module.TUNED}")
    args = parser.parse_args(argv)
    if args.candidates < 0 or args.games < 1 or args.sigma < 0:
        parser.error("--candidates and --sigma must not be negative, and --games must be at least 1")
    frozen_hard()   # refuse at once if the old AI's file changed
    start = Weights.tuned().as_dict()
    only = [f.strip() for f in args.fields.split(",")] if args.fields else None
    unknown = set(only or ()) - set(start)
    if unknown:
        parser.error(f"unknown weights: {', '.join(sorted(unknown))}; the weights: {', '.join(start)}")
    pool = candidates(args.candidates, args.sigma, args.seed, start, only)
    names = list(start)
    print("| candidate | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for c, values in enumerate(pool):
        print(f"| {c} | " + " | ".join(f"{values[n]:.3f}" for n in names) + " |")
    stages = halve(pool, args.games, args.proxy, args.seed, args.jobs)
    best = stages[-1].ranked()[0]
    print(f"winner: candidate {best}" + (" (the weights tuned now)" if best == 0 else ""))
    if args.write:
        path: Path = weights_module.TUNED
        path.write_text(json.dumps(written(pool[best], stages, pool, args, argv), indent=2) + "\n")
        print(f"written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
