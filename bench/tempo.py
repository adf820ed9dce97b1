"""Benchmark: how long an asynchronous game lasts, in days, when players log in at random times.

    .venv/bin/python bench/tempo.py [--games 50] [--players 4,6] [--logins 1,2,4] [--order sequential,freestyle]
                                    [--timeout cautious,ai] [--setup turns,round] [--orders none,half] [--seed 1]
                                    [--jobs 1]

The model: each player logs in as a Poisson process of ``L`` logins a day, independent of the game; a player acts
only at a login, and a turn takes no time: at a login, a player whose move it is (in seat order; in a freestyle
round, one who may start) plays the whole turn, or set-up turn, at once (in a set-up round, all their starting
armies). A turn not played by its deadline is
played by the game's ``on_timeout``, a freestyle round not finished by its deadline likewise; after
``max_missed`` misses in a row the AI takes the seat (the plain ``/risk new`` settings otherwise: territories
dealt, a 24-hour deadline; the starting armies five at a time with ``--setup turns``, in one set-up round, the
default of ``/risk new``, with ``--setup round``). Every seat's moves are chosen by the ``normal`` AI
and played through the real table (``table.Table``) on a SQLite store, its timers run by the real scheduler on a
virtual clock.

With ``--orders half`` a chosen half of the players (drawn per game) also leave standing orders for their next
turn at each login (engine/orders.py; the issue's model, fixed so the figure means one thing): place all their
armies on the territory ``normal`` would reinforce; attack as ``normal`` would from there (its enemy neighbours,
the likeliest first) while the odds of taking the target are at least 60% and the attacking territory keeps at
least 3 armies; move in all but 2; fortify as ``normal`` would; end. The plan is stale (stops at once) if any
territory it names changed owner since it was left. The table runs it as it runs any plan (a random delay into
the turn, through the scheduler). Turns played to their end by orders are counted apart.

For each setting it prints the median and 90th-percentile game length in days, the median number of rounds, and
the share of turns played for an absent player (timed out, or played by the AI after a boot), over the seeded
games. Games run past 400 days are stopped and counted at 400 (none did in the figures of docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import statistics
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.actions import Fortify, StartTurn
from engine.ai import make_ai
from engine.ai.knowledge import seat_view
from engine.ai.normal import NormalAI
from engine.odds import QUICK_LIMIT, odds
from engine.orders import ENDED, AttackOrder, FortifyOrder, Orders, Placing
from engine.state import CAPITAL, CLAIM, OVER, SETUP, WAITING
from store import open_store
from table import Table
from table.scheduler import Scheduler

DAY = 86400.0
LIMIT_DAYS = 400
# The plain /risk new, but a player is never replaced: in this model every player keeps logging in.
DEFAULTS = {"deployment": "deal", "setup_batch": 5, "turn_deadline": int(DAY), "max_missed": 0}


class Clock:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


class Quiet:
    """The scheduler's sink: nobody reads the channel; it counts the turns standing orders played to their end."""

    def __init__(self) -> None:
        self.by_orders = 0
        self.stale = 0       # plans that did not run: a territory they named changed owner
        self.runs = 0        # plans run (to their end, in part, or not at all)

    async def outcome(self, outcome: Any) -> None:
        report = outcome.orders
        self.runs += report is not None
        if report is not None and report.done and report.stop is not None and report.stop.template == ENDED:
            self.by_orders += 1
        if report is not None and not report.ran and report.stop is not None \
                and report.stop.template.startswith("{territory} changed hands"):
            self.stale += 1

    async def reminder(self, reminder: Any) -> None:
        return None


@dataclass(frozen=True)
class Setting:
    players: int
    logins: float
    order: str
    timeout: str
    setup: str = "turns"
    orders: str = "none"   # "half": half the players leave standing orders at each login


@dataclass(frozen=True)
class Result:
    days: float
    rounds: int
    turns: int
    absent: int   # turns (set-up turns aside) played for a player who was not there
    setup_days: float  # until the first turn of play began
    by_orders: int = 0   # turns standing orders played to their end
    stale: int = 0       # plans that did not run, stale
    runs: int = 0        # plans run


async def play(setting: Setting, seed: int) -> Result:
    rng = random.Random(f"tempo:{seed}:{setting}")
    clock = Clock()
    with tempfile.TemporaryDirectory() as folder:
        store = await open_store(Path(folder) / "tempo.sqlite3")
        try:
            table = Table(store, clock, lambda: f"tempo-seed-{seed}")
            table.orders_random = random.Random(f"tempo-orders:{seed}")
            quiet = Quiet()
            scheduler = Scheduler(table, store, clock, quiet)
            settings = {**DEFAULTS, "turn_order": setting.order, "on_timeout": setting.timeout,
                        "setup": setting.setup}
            lobby = await table.open_lobby(1, 10, 100, "P0", settings)
            for seat in range(1, setting.players):
                await table.join(lobby.record.id, 100 + seat, f"P{seat}")
            game_id = (await table.start(lobby.record.id)).record.id
            start = clock()
            rate = setting.logins / DAY
            logins = {seat: start + rng.expovariate(rate) for seat in range(setting.players)}
            ai = make_ai("normal")
            planners = set(rng.sample(range(setting.players), setting.players // 2)) if setting.orders == "half" \
                else set()
            played = 0
            setup_end: float | None = None
            while True:
                record = await store.get_game(game_id)
                state = record.game().state
                if setup_end is None and state.phase not in (CLAIM, SETUP, CAPITAL):
                    setup_end = clock()
                if state.phase == OVER or clock() - start > LIMIT_DAYS * DAY:
                    break
                due = await store.next_due()
                seat, login = min(logins.items(), key=lambda item: item[1])
                if due is not None and due.due_at <= login:
                    clock.t = max(clock.t, due.due_at)
                    await scheduler.run_due()
                    continue
                clock.t = login
                logins[seat] = login + rng.expovariate(rate)
                played += await take_turn(table, store, game_id, seat, ai)
                if seat in planners:
                    await leave_orders(table, store, game_id, seat)
            record = await store.get_game(game_id)
            state = record.game().state
            events = await store.events(game_id)
            turns = sum(1 for e in events if e["type"] == "turn_started")
            return Result((clock() - start) / DAY, state.round, turns, turns - played - quiet.by_orders,
                          ((setup_end or clock()) - start) / DAY, quiet.by_orders, quiet.stale, quiet.runs)
        finally:
            await store.close()


async def take_turn(table: Table, store: Any, game_id: int, seat: int, ai: Any) -> int:
    """At ``seat``'s login: their whole turn (or set-up turn), if it is theirs to play now. Returns 1 for a turn
    of play taken, else 0."""
    record = await store.get_game(game_id)
    if record.player(seat).is_ai:
        return 0
    game = record.game()
    state = game.state
    if state.sealed is not None:  # a set-up round: all of this player's starting armies at once
        while game.setup_left(seat):
            record = (await table.apply(record, ai.choose(game, seat))).record
            game = record.game()
        return 0
    if state.phase == WAITING:
        if not game.may_start(seat):
            return 0
        record = (await table.apply(record, StartTurn(seat))).record
    elif state.current != seat or state.phase == OVER:
        return 0
    setup = state.phase in (CLAIM, SETUP, CAPITAL)
    if not setup:
        await play_out(table, record, seat, ai)
        return 1
    await play_out(table, record, seat, ai, setup=True)
    return 0


async def play_out(table: Table, record: Any, seat: int, ai: Any, *, setup: bool = False) -> None:
    """The moves of ``seat``'s turn (or set-up turn) until it ends."""
    turn = record.game().state.turn
    for _ in range(5000):
        state = record.game().state
        if state.phase in (OVER, WAITING) or state.current != seat or state.turn != turn:
            return
        if setup and state.phase not in (CLAIM, SETUP, CAPITAL):
            return
        before = record.version
        record = (await table.apply(record, ai.choose(record.game(), seat))).record
        if setup and record.version != before and record.game().state.current != seat:
            return


async def leave_orders(table: Table, store: Any, game_id: int, seat: int) -> None:
    """``seat`` leaves the model's standing orders for their next turn (see the module's doc), once play began."""
    record = await store.get_game(game_id)
    game = record.game()
    s = game.state
    if s.phase in (CLAIM, SETUP, CAPITAL, OVER) or seat not in s.active_seats() or s.sealed is not None:
        return
    normal = NormalAI()
    view = seat_view(game, seat)
    front = normal._reinforce_target(view, seat)
    targets = sorted(game.attack_targets(seat, front),
                     key=lambda t: -odds(s.armies[front] + 3, s.armies[t], QUICK_LIMIT)[0].win)
    attacks = tuple(AttackOrder(front, t, stop_at=3, odds=0.6, leave=2) for t in targets[:3])
    move = normal._fortify_choice(view, seat)
    fortify = FortifyOrder(move.source, move.target) if isinstance(move, Fortify) else None
    if fortify is not None and fortify.source in {front, *targets}:
        fortify = None   # armies it plans to use (the model's fortify is normal's on the board as it stands)
    plan = Orders(place=(Placing(front),), attacks=attacks, fortify=fortify, end=True)
    user = record.player(seat).user_id
    assert user is not None
    await table.leave_orders(record, seat, user, plan)


def run_one(args: tuple[Setting, int]) -> Result:
    return asyncio.run(play(*args))


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--players", default="4,6")
    parser.add_argument("--logins", default="1,2,4")
    parser.add_argument("--order", default="sequential,freestyle")
    parser.add_argument("--timeout", default="cautious")
    parser.add_argument("--setup", default="turns,round", help="turns, round, or both: turns,round")
    parser.add_argument("--orders", default="none", help="none, half, or both: none,half")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    settings = [Setting(int(p), float(lg), o, t, u, w) for p, lg, o, t, u, w in itertools.product(
        args.players.split(","), args.logins.split(","), args.order.split(","), args.timeout.split(","),
        args.setup.split(","), args.orders.split(","))]
    print("| turn order | set-up | orders | on_timeout | players | logins a day | days, median (90th percentile) | "
          "rounds, median | turns played for an absent player | turns played by orders | plans run that were stale | "
          "set-up, days, median | games |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    with ProcessPoolExecutor(args.jobs) as pool:
        for setting in settings:
            jobs = [(setting, args.seed * 1000 + i) for i in range(args.games)]
            results = list(pool.map(run_one, jobs)) if args.jobs > 1 else [run_one(j) for j in jobs]
            days = [r.days for r in results]
            absent = sum(r.absent for r in results) / max(1, sum(r.turns for r in results))
            by_orders = sum(r.by_orders for r in results) / max(1, sum(r.turns for r in results))
            stale = sum(r.stale for r in results) / max(1, sum(r.runs for r in results))
            print(f"| {setting.order} | {setting.setup} | {setting.orders} | {setting.timeout} | {setting.players} | "
                  f"{setting.logins:g} | {statistics.median(days):.1f} ({percentile(days, 0.9):.1f}) | "
                  f"{statistics.median(r.rounds for r in results):.0f} | {absent:.0%} | {by_orders:.0%} | "
                  f"{stale:.0%} | "
                  f"{statistics.median(r.setup_days for r in results):.1f} | {len(results)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
