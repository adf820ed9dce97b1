"""Benchmark: the `hard` AI of now (``engine.ai.hard.HardAI`` with its tuned weights) against version 1 of
`hard`, kept byte for byte in ``bench/frozen/hard_v1.py``, and against `normal`; and what its decisions cost.

Run: ``.venv/bin/python bench/ai_versus.py --match all --jobs 2`` (``--match NAME ...`` for some of ``MATCHES``,
``--games N`` to play N games of each instead of its own number). Every game is seeded
(``game_seed("versus:NAME", i)``) and every match has its number of games fixed here, so a run gives the same
count every time on the same code. A side wins a game if one of its seats wins (a whole team with teams); a
game still going after ``MATCH_ACTIONS`` actions is unfinished, a loss. Each line gives the new AI's wins, their
share and its 95% Wilson interval, the goal and whether it was met, the median number of turns, the unfinished
games and how many of the new AI's decisions fell back because its search ran out of its budget (the
``fallbacks`` and ``decisions`` it counts, if it does), as a Markdown table for docs/performance.md. Exits 1
if a match misses its goal.

``--budgets N`` instead times the new AI: the CPU time (``time.process_time``) of each of its decisions and of
each of its whole turns (every decision of one turn of play; set-up decisions count as decisions only), in N
6-player games of each line (one new hard against five normal, the new seat rotating, and six new hards), on
the classic map and on a drawn map of 180 territories (``tests/mapdraw.py``), fog off and on, against its
budget: 100 ms a decision, 1 s a turn. A game is cut after ``BUDGET_ACTIONS`` actions. Exits 1 if a decision
or a turn went over.

The old AI is loaded from its file only if the file's SHA-256 is the one recorded here (``FROZEN_SHA256``).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import hashlib
import importlib.util
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))   # last: its scripts' names must not hide the packages (ops, store, render)

from ai_strength import DECISION_BUDGET, TURN_BUDGET, wilson  # noqa: E402

from engine.actions import Action  # noqa: E402
from engine.ai import Memory, make_ai  # noqa: E402
from engine.ai.hard import HardAI  # noqa: E402
from engine.ai.weights import Weights  # noqa: E402
from engine.game import Game  # noqa: E402
from engine.simulate import AIPlayer, Unfinished, game_seed, play_game  # noqa: E402

FROZEN = ROOT / "bench" / "frozen" / "hard_v1.py"
FROZEN_SHA256 = "c304ecdcc0c49aebd43899ec8bc1b3fff35e3b885337586cdd3b56d362a3b4a6"
FROZEN_MODULE = "engine.ai._hard_v1"   # inside the package, for its relative imports

NEW, OLD, NORMAL = "new", "old", "normal"   # who sits in a seat: the hard of now, version 1 of hard, normal
MATCH_ACTIONS = 50_000    # a match's game still going after this many actions is unfinished (a loss)
BUDGET_ACTIONS = 10_000   # a timed game is cut after this many actions (six hards on a large map play long)
DRAWN_TERRITORIES = 180   # the drawn map timed (tests/mapdraw.py ``SIZED``, as bench/board_phone.py draws it)

T = TypeVar("T")
R = TypeVar("R")


class FrozenChanged(RuntimeError):
    """The file of the old AI is not the one that was frozen."""


def frozen_hard() -> type[Any]:
    """The HardAI class of version 1 of `hard`, loaded from ``FROZEN`` after its SHA-256 is checked."""
    loaded = sys.modules.get(FROZEN_MODULE)
    if loaded is not None:
        return loaded.HardAI  # type: ignore[no-any-return]
    source = FROZEN.read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    if digest != FROZEN_SHA256:
        raise FrozenChanged(f"{FROZEN} has SHA-256 {digest}, not the frozen {FROZEN_SHA256}: "
                            "the old AI is no longer the one measured against")
    spec = importlib.util.spec_from_file_location(FROZEN_MODULE, FROZEN)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[FROZEN_MODULE] = module
    try:  # the very bytes checked, not the file read again
        exec(compile(source, str(FROZEN), "exec"), module.__dict__)
    except BaseException:
        del sys.modules[FROZEN_MODULE]
        raise
    return module.HardAI  # type: ignore[no-any-return]


def new_hard(weights: dict[str, float] | None = None) -> HardAI:
    """The hard AI of now: with its tuned weights, or these values over the defaults (any of its fields)."""
    return HardAI(weights=Weights.tuned() if weights is None else Weights().with_values(weights))


def seat_ai(role: str, seat: int, weights: dict[str, float] | None = None) -> AIPlayer:
    if role == NEW:
        return new_hard(weights)
    if role == OLD:
        return frozen_hard()()  # type: ignore[no-any-return]
    return make_ai(role, salt=str(seat))


def counters(ais: Iterable[Any]) -> tuple[int, int] | None:
    """The decisions of these new AIs that fell back because their search ran out of budget, and all their
    decisions; None if the AI does not count them."""
    ais = [ai.ai if isinstance(ai, Timed) else ai for ai in ais]
    if not any(hasattr(ai, "fallbacks") for ai in ais):
        return None
    return sum(int(getattr(ai, "fallbacks", 0)) for ai in ais), sum(int(getattr(ai, "decisions", 0)) for ai in ais)


@dataclass(frozen=True)
class Played:
    """One game: whether the new AI's side won, its turns (-1 if unfinished), the new AI's fallbacks and
    decisions (None if it does not count them) and the CPU seconds the game took."""

    won: bool
    turns: int
    counted: tuple[int, int] | None
    seconds: float


def play(roles: Sequence[str], seed: str, settings: dict[str, Any], weights: dict[str, float] | None = None,
         max_actions: int = MATCH_ACTIONS) -> Played:
    """One game with these seats (``NEW``, ``OLD`` or an AI level each); ``weights`` for the new AI."""
    ais = [seat_ai(role, seat, weights) for seat, role in enumerate(roles)]
    levels = ["hard" if role in (NEW, OLD) else role for role in roles]
    started = time.process_time()
    mine = [ai for ai, role in zip(ais, roles, strict=True) if role == NEW]
    try:
        result = play_game(levels, seed, dict(settings), max_actions=max_actions, ais=ais)
    except Unfinished:
        return Played(False, -1, counters(mine), time.process_time() - started)
    state = result.game.state
    winners = state.winners or ([] if state.winner is None else [state.winner])
    return Played(any(roles[s] == NEW for s in winners), state.turn, counters(mine), time.process_time() - started)


@dataclass(frozen=True)
class Match:
    """The new AI against ``others`` (``OLD`` or a level) in ``players`` seats under ``settings``. ``lineup``
    ``one``: the new AI in one seat, ``i % players`` in game ``i``; ``half``: in the even seats in even games and
    the odd seats in odd games (with teams, whole teams: a team is the seats of one parity). ``goal``: the share
    of wins aimed at (None: measured only); ``lowest``: what the interval's lower bound must be above."""

    players: int
    games: int
    others: str
    lineup: str = "one"
    settings: dict[str, Any] = field(default_factory=dict)
    goal: float | None = None
    lowest: float | None = None

    def roles(self, i: int) -> tuple[str, ...]:
        if self.lineup == "one":
            return tuple(NEW if s == i % self.players else self.others for s in range(self.players))
        return tuple(NEW if s % 2 == i % 2 else self.others for s in range(self.players))

    def met(self, wins: int, games: int) -> bool:
        if self.goal is None:
            return True
        return wins / games >= self.goal and (self.lowest is None or wilson(wins, games)[0] > self.lowest)

    def goal_text(self) -> str:
        if self.goal is None:
            return "–"
        return f"≥ {self.goal:.0%}" + ("" if self.lowest is None else f", low > {self.lowest:.0%}")


MATCHES = {
    "new-vs-old-2p": Match(2, 400, OLD, goal=0.65, lowest=0.55),
    "new-vs-old-3v3": Match(6, 400, OLD, "half", goal=0.65, lowest=0.55),
    "new-vs-5-normal": Match(6, 400, NORMAL, goal=0.60),
    "new-vs-old-3v3-missions": Match(6, 200, OLD, "half", {"mode": "missions"}),
    "new-vs-old-3v3-capitals": Match(6, 200, OLD, "half", {"mode": "capitals"}),
    "new-vs-old-3v3-fog": Match(6, 200, OLD, "half", {"fog": "on"}),
    "new-vs-old-teams-2v2": Match(4, 200, OLD, "half", {"teams": "2v2"}),
    "new-vs-old-teams-3v3": Match(6, 200, OLD, "half", {"teams": "3v3"}),
    "new-vs-5-normal-missions": Match(6, 200, NORMAL, settings={"mode": "missions"}),
    "new-vs-5-normal-capitals": Match(6, 200, NORMAL, settings={"mode": "capitals"}),
    "new-vs-5-normal-fog": Match(6, 200, NORMAL, settings={"fog": "on"}),
}


def pooled(work: Callable[[T], R], items: Sequence[T], jobs: int) -> list[R]:
    """``work`` of every item, in order; on ``jobs`` processes, closed and joined before this returns."""
    if jobs <= 1:
        return [work(item) for item in items]
    with Pool(jobs) as pool:
        results = pool.map(work, items, chunksize=1)
        pool.close()
        pool.join()
    return results


def match_game(job: tuple[str, int]) -> Played:
    name, i = job
    match = MATCHES[name]
    return play(match.roles(i), game_seed(f"versus:{name}", i), match.settings)


@dataclass(frozen=True)
class Tally:
    """What a set of games gave the new AI."""

    games: int
    wins: int
    turns: float | None   # the median of the finished games
    unfinished: int
    counted: tuple[int, int] | None
    seconds: float        # the median CPU seconds of a game

    @staticmethod
    def of(results: Sequence[Played]) -> Tally:
        finished = [r.turns for r in results if r.turns >= 0]
        counts = [r.counted for r in results if r.counted is not None]
        counted = (sum(c[0] for c in counts), sum(c[1] for c in counts)) if counts else None
        return Tally(len(results), sum(r.won for r in results), statistics.median(finished) if finished else None,
                     len(results) - len(finished), counted, statistics.median(r.seconds for r in results))

    @property
    def share(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def fallbacks(self) -> str:
        if self.counted is None:
            return "–"
        fell, decided = self.counted
        return f"{fell:,} / {decided:,}" + (f" ({fell / decided:.2%})" if decided else "")


MATCH_HEADER = ("| match | games | new wins | share | 95% interval | goal | met | median turns | unfinished | "
                "fallbacks / decisions | CPU a game | time |\n|---|---|---|---|---|---|---|---|---|---|---|---|")


def play_match(name: str, games: int, jobs: int) -> bool:
    """Play a match and print its line; False if it misses its goal."""
    match = MATCHES[name]
    started = time.perf_counter()
    tally = Tally.of(pooled(match_game, [(name, i) for i in range(games)], jobs))
    low, high = wilson(tally.wins, games)
    met = match.met(tally.wins, games)
    turns = "–" if tally.turns is None else f"{tally.turns:g}"
    print(f"| {name} | {games} | {tally.wins} | {tally.share:.1%} | {low:.1%}–{high:.1%} | {match.goal_text()} | "
          f"{'–' if match.goal is None else 'yes' if met else 'no'} | {turns} | {tally.unfinished} | "
          f"{tally.fallbacks()} | {tally.seconds:.2f} s | {time.perf_counter() - started:.0f} s |", flush=True)
    return met


# -- the budget ----------------------------------------------------------------------------------------------

class Timed:
    """An AI whose decisions are timed (CPU): each decision, and each whole turn of play."""

    def __init__(self, ai: AIPlayer) -> None:
        self.ai = ai
        self.decisions: list[float] = []
        self.turns: list[float] = []
        self._turn = 0

    def choose(self, game: Game, seat: int, memory: Memory | None = None) -> Action:
        turn = game.state.turn
        # The bench's own record of the game (every event, every seat's memory) grows to hundreds of thousands of
        # objects that a worker deciding for the bot never holds; frozen, a collection the decision triggers goes
        # through the decision's own objects, as it would in the worker (``budget_game`` lets them go after).
        gc.freeze()
        started = time.process_time()
        action = self.ai.choose(game, seat, memory)
        took = time.process_time() - started
        self.decisions.append(took)
        if turn > 0:   # 0: the set-up, whose decisions are the players' in turn, one each
            if turn != self._turn:
                self.turns.append(0.0)
                self._turn = turn
            self.turns[-1] += took
        return action


def drawn_map_id(count: int = DRAWN_TERRITORIES) -> str:
    """The id of a drawn map of ``count`` territories (``tests/mapdraw.py``), registered in this process."""
    from engine.board import parse_map, register_map, registered_map

    map_id = f"drawn{count}"
    if registered_map(map_id) is None:
        sys.path.insert(0, str(ROOT / "tests"))
        import mapdraw  # type: ignore[import-not-found]

        data = mapdraw.our_map(mapdraw.sized_world(count), players=6)
        data["id"] = map_id
        register_map(parse_map(data))
    return map_id


@dataclass(frozen=True)
class BudgetLine:
    map: str
    fog: str
    lineup: str   # "one": one new hard against five normal; "six": six new hards

    @property
    def settings(self) -> dict[str, Any]:
        return {"fog": self.fog} | ({} if self.map == "classic" else {"map": drawn_map_id()})

    def roles(self, i: int) -> tuple[str, ...]:
        return tuple(NEW if self.lineup == "six" or s == i % 6 else NORMAL for s in range(6))

    def label(self) -> str:
        return "one new hard, five normal" if self.lineup == "one" else "six new hards"


BUDGET_LINES = [BudgetLine(m, fog, lineup) for m in ("classic", "drawn180") for fog in ("off", "on")
                for lineup in ("one", "six")]


@dataclass(frozen=True)
class Spent:
    decisions: list[float]
    turns: list[float]
    counted: tuple[int, int] | None


def budget_game(job: tuple[BudgetLine, int]) -> Spent:
    line, i = job
    roles = line.roles(i)
    ais: list[AIPlayer] = [Timed(new_hard()) if role == NEW else make_ai(role, salt=str(s))
                           for s, role in enumerate(roles)]
    levels = ["hard" if role == NEW else role for role in roles]
    seed = game_seed(f"versus-budget:{line.map}:{line.fog}:{line.lineup}", i)
    try:
        with contextlib.suppress(Unfinished):   # a game cut short: its decisions so far are timed all the same
            play_game(levels, seed, line.settings, max_actions=BUDGET_ACTIONS, ais=ais)
    finally:
        gc.unfreeze()
    timed = [ai for ai in ais if isinstance(ai, Timed)]
    return Spent([d for ai in timed for d in ai.decisions], [t for ai in timed for t in ai.turns], counters(timed))


def percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (nearest rank) of sorted values."""
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


BUDGET_HEADER = ("| map | fog | players | games | decisions | median | p99 | max | turns | turn median | turn p99 | "
                 "turn max | over budget | fallbacks / decisions |\n"
                 "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def budgets(games: int, jobs: int, lines: Sequence[BudgetLine] = BUDGET_LINES) -> int:
    """Time the new AI in ``games`` games of each line and print the table; how many went over budget."""
    if any(line.map != "classic" for line in lines):
        drawn_map_id()   # once, before the workers start
    print(BUDGET_HEADER)
    over_all = 0
    for line in lines:
        spent = pooled(budget_game, [(line, i) for i in range(games)], jobs)
        ms = sorted(d * 1000 for s in spent for d in s.decisions)
        tm = sorted(t * 1000 for s in spent for t in s.turns)
        counts = [s.counted for s in spent if s.counted is not None]
        fell = "–" if not counts else f"{sum(c[0] for c in counts):,} / {sum(c[1] for c in counts):,}"
        over = sum(1 for x in ms if x > DECISION_BUDGET * 1000) + sum(1 for x in tm if x > TURN_BUDGET * 1000)
        over_all += over
        name = "classic" if line.map == "classic" else f"drawn, {DRAWN_TERRITORIES} territories"
        print(f"| {name} | {line.fog} | {line.label()} | {games} | {len(ms):,} | {percentile(ms, 50):.2f} ms | "
              f"{percentile(ms, 99):.2f} ms | {percentile(ms, 100):.1f} ms | {len(tm):,} | "
              f"{percentile(tm, 50):.1f} ms | {percentile(tm, 99):.1f} ms | {percentile(tm, 100):.0f} ms | {over} | "
              f"{fell} |", flush=True)
    return over_all


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--match", nargs="+", metavar="NAME", choices=[*MATCHES, "all"],
                        help="matches to play: " + ", ".join(MATCHES) + ", or all")
    parser.add_argument("--games", type=int, help="games of each match (default: the match's own number)")
    parser.add_argument("--budgets", type=int, metavar="N", help="time the new AI in N games of each line instead")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once, one process each")
    args = parser.parse_args(argv)
    if args.budgets:
        return 1 if budgets(args.budgets, args.jobs) else 0
    if not args.match:
        parser.error("give --match NAME ... (or all), or --budgets N")
    frozen_hard()   # refuse at once if the old AI's file changed
    names = list(MATCHES) if "all" in args.match else args.match
    print(MATCH_HEADER, flush=True)
    met = [play_match(name, args.games or MATCHES[name].games, args.jobs) for name in names]
    return 0 if all(met) else 1


if __name__ == "__main__":
    sys.exit(main())
