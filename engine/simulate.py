"""Play whole games between AIs.

``python -m engine.simulate --players 4 --games 100 --seed 7 --ai normal,easy,easy,easy
--set cards=escalating --set fortify=adjacent --out DIR`` writes one ``DIR/game-N.jsonl`` log per game and
prints a summary: wins by seat and by AI level, how games ended, turns, and time per game.

Every setting works, variants included: ``--set mode=missions``, ``--set mode=capitals``, ``--set teams=2v2``
(4 players; seats split by seat order), ``--set fog=on``, ``--set fortify=unlimited``, ``--set preset=quick``.

``--map FILE|ID`` plays on a custom map: its ``map.json`` (or the folder of a map package), or a built-in map's id
(``engine/mapoption.py``); its logs then replay and verify with the same ``--map``.

``--ai random`` plays any legal move at random (``engine.ai.RandomAI``): games that reach the corners of the rules
sensible players rarely reach. Random players surrender more and more readily after some rounds, so every game ends.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .actions import Action, ReleaseHold, StartTurn
from .ai import ALL_LEVELS, Memory, Recollection, make_ai
from .errors import MapError
from .game import Game
from .log import write_log
from .mapoption import board_for
from .settings import Settings
from .state import OVER, WAITING, Event, Player

MAX_ACTIONS = 200_000


class Unfinished(RuntimeError):
    """A game still going after the most actions it was allowed (``play_game``'s ``max_actions``)."""


class AIPlayer(Protocol):
    """Anything that plays a seat: the next action of ``seat`` from what it may know (``memory`` under fog)."""

    def choose(self, game: Game, seat: int, memory: Memory | None = None) -> Action: ...


@dataclass
class GameResult:
    game: Game
    events: list[Event]
    actions: int
    seconds: float

    @property
    def winner(self) -> int | None:
        return self.game.state.winner


def game_seed(base: str | int, index: int) -> str:
    """A reproducible secret seed for game ``index`` of a run."""
    return hashlib.sha256(f"simulate:{base}:{index}".encode()).hexdigest()


def play_game(levels: Sequence[str], seed: str, settings: Settings | dict[str, Any] | None = None,
              max_actions: int = MAX_ACTIONS, ais: Sequence[AIPlayer] | None = None) -> GameResult:
    """Play one game to the end with an AI in every seat: ``make_ai`` of each seat's level, or the ready-made
    ``ais`` (one a seat; ``levels`` then only names the seats), e.g. an AI with other weights or an old version."""
    if ais is not None and len(ais) != len(levels):
        raise ValueError(f"{len(ais)} AIs for {len(levels)} seats")
    started = time.perf_counter()
    players = [Player(i, f"{level.title()} {i + 1}", "ai", level) for i, level in enumerate(levels)]
    game, events = Game.new(players, seed, settings)
    if ais is None:
        ais = [make_ai(level, salt=str(i)) for i, level in enumerate(levels)]
    # Under fog each AI remembers what its seat saw, followed from the log.
    seen = Recollection.of_log(events) if game.state.settings.fog == "on" else None
    actions = 0
    while game.state.phase != OVER:
        if actions >= max_actions:
            raise Unfinished(f"game with seed {seed} did not finish in {max_actions} actions")
        if game.state.phase == WAITING:  # a freestyle round between turns: who logs in first starts
            new = game.apply(next_starter(game, seed))
        else:
            seat = setup_mover(game, seed) if game.state.sealed is not None else game.state.current
            new = game.apply(ais[seat].choose(game, seat, seen.memory(seat) if seen is not None else None))
        if seen is not None:
            seen.follow(new)
        events += new
        actions += 1
    return GameResult(game, events, actions, time.perf_counter() - started)


def next_starter(game: Game, seed: str) -> Action:
    """In a freestyle round while no turn runs: a player who may start, chosen at random (the seed and the
    position give the same one), or the release of the held player when nobody else is left to start."""
    starters = game.starters()
    if not starters:
        held = game.state.held
        assert held is not None, "a freestyle round with nobody to start"
        return ReleaseHold(held)
    rng = random.Random(f"starter:{seed}:{game.state.event_count}")
    return StartTurn(rng.choice(starters))


def setup_mover(game: Game, seed: str) -> int:
    """In a set-up round: a player with starting armies left, chosen at random (the seed and the position give
    the same one), so the players' sittings interleave as they would in a real game."""
    rng = random.Random(f"setup:{seed}:{game.state.event_count}")
    return rng.choice(game.setup_waiting())


def parse_settings(pairs: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise argparse.ArgumentTypeError(f"--set takes key=value, not “{pair}”")
        out[key.strip()] = value.strip()
    Settings.from_dict(out)  # validate early with a clear message
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.simulate", description="Play whole games between AIs.")
    parser.add_argument("--players", type=int, default=4,
                        help="players per game, 2 to the map's most: 6 on the classic map (default 4)")
    parser.add_argument("--games", type=int, default=10, help="number of games (default 10)")
    parser.add_argument("--seed", default="0", help="base seed; the same seed replays the same games")
    parser.add_argument("--ai", default="normal",
                        help=f"one level for every seat or a comma list, one per seat ({', '.join(ALL_LEVELS)})")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a game setting, e.g. cards=fixed, mode=missions, teams=2v2, preset=quick")
    parser.add_argument("--map", help="a custom map: its map.json or package folder, or a built-in map's id "
                                      "(default: the game's setting, classic)")
    parser.add_argument("--out", type=Path, help="directory for one game-N.jsonl event log per game")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    args = parser.parse_args(argv)
    levels = [x.strip() for x in args.ai.split(",")]
    if len(levels) == 1:
        levels = levels * args.players
    if len(levels) != args.players:
        parser.error(f"--ai lists {len(levels)} levels for {args.players} players")
    unknown = [lv for lv in levels if lv not in ALL_LEVELS]
    if unknown:
        parser.error(f"unknown AI level {unknown[0]}; levels: {', '.join(ALL_LEVELS)}")
    try:
        settings = parse_settings(args.set)
        if args.map:
            settings["map"] = board_for(args.map).id
        Settings.from_dict(settings).check_players(args.players)
    except MapError as exc:
        print(f"cannot use the map {args.map}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"cannot read the map {args.map}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except (argparse.ArgumentTypeError, ValueError) as exc:
        parser.error(str(exc))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    wins: Counter[int] = Counter()
    endings: Counter[str] = Counter()
    turns: list[int] = []
    times: list[float] = []
    for i in range(args.games):
        result = play_game(levels, game_seed(args.seed, i), settings)
        state = result.game.state
        for seat in state.winners or ([] if result.winner is None else [result.winner]):
            wins[seat] += 1
        endings[state.result or "none"] += 1
        turns.append(result.game.state.turn)
        times.append(result.seconds)
        if args.out:
            write_log(args.out / f"game-{i + 1}.jsonl", result.events)
        if not args.quiet and sys.stderr.isatty():
            print(f"\r{i + 1}/{args.games} games", end="", file=sys.stderr, flush=True)
    if not args.quiet and sys.stderr.isatty():
        print(file=sys.stderr)
    print(f"{args.games} games, {args.players} players, settings {Settings.from_dict(settings).to_dict()}")
    teams = Settings.from_dict(settings).teams != "none"
    print("wins by seat (a team's win counts for each of its players):" if teams else "wins by seat:")
    for seat, level in enumerate(levels):
        share = wins[seat] / args.games if args.games else 0.0
        print(f"  seat {seat + 1} ({level}): {wins[seat]} ({share:.0%})")
    by_level: Counter[str] = Counter()
    for seat, count in wins.items():
        by_level[levels[seat]] += count
    print("wins by AI level: " + ", ".join(f"{lv} {by_level[lv]}" for lv in sorted(set(levels))))
    print("endings: " + ", ".join(f"{reason} {count}" for reason, count in endings.most_common()))
    if turns:
        print(f"turns: median {statistics.median(turns)}, min {min(turns)}, max {max(turns)}")
        print(f"time per game: median {statistics.median(times) * 1000:.1f} ms, total {sum(times):.2f} s")
    if args.out:
        print(f"logs in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
