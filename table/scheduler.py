"""Games that never stall: one task sleeps until the next timer of any game is due, then handles it.

Timers live in the database, so after a restart every deadline that passed while the bot was down is handled,
once, in order. A timer names the turn it belongs to (``table.timers.Timer``); a timer for a turn that is over is
dropped, and a missed turn is counted once per turn however often the handler runs. The scheduler knows
nothing of Discord: what a timer produced goes to a ``Sink`` (an ``Outcome`` or a ``Reminder``).

A process that runs some of the gateway's shards (``shards``) handles only the timers of games in guilds of
those shards, and of their tournaments and seasons; the processes running the other shards handle theirs, so
each timer has one owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from store import Deadline, GameRecord, Shards, Store

from .clock import in_quiet_hours
from .flow import Table
from .outcome import Outcome
from .seasons import SeasonOutcome, Seasons
from .timers import Timer, TimerKind, round_deadline, turn_deadline

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reminder:
    """A player's turn ends soon: tell them (``dm``: by direct message too)."""

    record: GameRecord
    seat: int
    user_id: int
    due: float | None
    dm: bool


class Sink(Protocol):
    async def outcome(self, outcome: Outcome) -> None: ...

    async def reminder(self, reminder: Reminder) -> None: ...


class SeasonSink(Protocol):
    async def season(self, outcome: SeasonOutcome) -> None: ...
class TournamentTimers(Protocol):
    """The tournaments' own timers (table/tournaments.py): check-in closes, a round opens or runs out of time."""

    async def next_due(self, shards: Shards | None = None) -> float | None: ...

    async def run_due(self, now: float, shards: Shards | None = None) -> int: ...


class Scheduler:
    def __init__(self, table: Table, store: Store, clock: Callable[[], float], sink: Sink,
                 shards: Shards | None = None) -> None:
        self.table = table
        self.shards = shards  # None: every game's timers
        self.store = store
        self.clock = clock
        self.sink = sink
        table.timers_changed = self.poke
        self._wake = asyncio.Event()
        self._running = asyncio.Lock()  # one pass over the due timers at a time
        self._task: asyncio.Task[None] | None = None
        self.fired = 0        # timers handled
        # Seasons end by a timer too: the first running season's end time, read with the games' timers.
        self.seasons = Seasons(store, clock, shards)
        self.seasons.changed = self.poke
        self.season_sink: SeasonSink | None = None   # who tells a season that ended by itself
        self.tournaments: TournamentTimers | None = None

    # -- the loop -----------------------------------------------------------------------------------
    def start(self, ready: Callable[[], Awaitable[object]] | None = None) -> None:
        """Run the due timers from now on. ``ready``: what to wait for first (the bot's connection, whose cache a
        timer's work reads: a tournament's opening looks there for the thread it made before a restart)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(ready), name="background:scheduler")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    def poke(self) -> None:
        """A timer changed: recompute how long to sleep."""
        self._wake.set()

    async def _run(self, ready: Callable[[], Awaitable[object]] | None = None) -> None:
        if ready is not None:
            await ready()
        while True:
            try:
                nxt = await self.store.next_due(self.shards)
                due = [t for t in (None if nxt is None else nxt.due_at, await self.seasons.next_end()) if t is not None]
                if self.tournaments is not None and (t := await self.tournaments.next_due(self.shards)) is not None:
                    due.append(t)
                now = self.clock()
                if due and min(due) <= now:
                    await self.run_due()
                    continue
                self._wake.clear()
                timeout = None if not due else min(min(due) - now, 86400.0)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):  # no extra task, unlike wait_for
                        await self._wake.wait()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("scheduler error; retrying in 5 s")
                await asyncio.sleep(5)

    async def run_due(self) -> int:
        """Handle every timer due now, earliest first, then end the seasons whose time is up. Returns how many were
        handled."""
        handled = 0
        async with self._running:
            due = await self.store.due_deadlines(self.clock(), self.shards)
            for deadline in due:
                if self._outdone(deadline, due):
                    await self.store.clear_deadlines(deadline.game_id, deadline.seat, deadline.kind)
                    continue
                try:
                    await self.fire(deadline)
                except Exception:
                    log.exception("timer %s of game %s failed; dropping it", deadline.kind, deadline.game_id)
                    await self.store.clear_deadlines(deadline.game_id, deadline.seat, deadline.kind)
                handled += 1
                self.fired += 1
            handled += await self.end_seasons()
            if self.tournaments is not None:
                count = await self.tournaments.run_due(self.clock(), self.shards)
                handled += count
                self.fired += count
        return handled

    async def end_seasons(self) -> int:
        """End the seasons whose time is up and tell each (the ones another process ended are its to tell)."""
        ended = await self.seasons.end_due()
        for outcome in ended:
            if self.season_sink is not None:
                await self.season_sink.season(outcome)
        return len(ended)

    @staticmethod
    def _outdone(deadline: Deadline, due: list[Deadline]) -> bool:
        """A reminder that another timer of the same turn, due too, makes pointless: after downtime only the last
        reminder is sent, and none at all when the deadline itself has passed (the turn is played instead)."""
        timer = Timer.of(deadline)
        if timer is None or not timer.reminder:
            return False
        return any(d.game_id == deadline.game_id and d.seat == deadline.seat and d.due_at > deadline.due_at
                   and (other := Timer.of(d)) is not None and other.key == timer.key for d in due)

    # -- firing ----------------------------------------------------------------------------------------
    async def fire(self, deadline: Deadline) -> None:
        timer = Timer.of(deadline)
        if timer is not None and timer.kind is TimerKind.AI:  # the AI stopped at its bound: let it play on
            await self.store.clear_deadlines(deadline.game_id, deadline.seat, deadline.kind)
            outcome = await self.table.go_on(deadline.game_id)
            if outcome.parts:
                await self.sink.outcome(outcome)
            return
        if timer is not None and timer.kind is TimerKind.ORDERS:  # standing orders, a forced step: table/orders.py
            outcome = await self.table.run_orders(deadline.game_id, deadline.seat, timer)
            await self.store.clear_deadlines(deadline.game_id, deadline.seat, deadline.kind)
            if outcome.parts or outcome.orders is not None:
                await self.sink.outcome(outcome)
            return
        if timer is not None and timer.kind is TimerKind.VOTE:  # a vote to end the game closes: its tally is told
            outcome = await self.table.close_vote(deadline.game_id, timer)
            await self.store.clear_deadlines(deadline.game_id, deadline.seat, deadline.kind)
            if outcome.notes:
                await self.sink.outcome(outcome)
            return
        if timer is not None and timer.kind in (TimerKind.ROUND, TimerKind.HOLD):  # a freestyle round's
            if timer.kind is TimerKind.ROUND:
                outcome = await self.table.round_up(deadline.game_id, timer)
            else:
                outcome = await self.table.release(deadline.game_id, deadline.seat, timer)
            await self.store.clear_deadlines(deadline.game_id, deadline.seat, deadline.kind)
            if outcome.parts or outcome.notes:
                await self.sink.outcome(outcome)
            return
        record = await self.store.get_game(deadline.game_id)
        if timer is None or not timer.due_on(record, deadline.seat):  # that turn is over (or a timer of no kind)
            await self.store.clear_deadlines(deadline.game_id, deadline.seat, deadline.kind)
            return
        if timer.reminder:
            await self.remind(record, deadline)
            return
        outcome = await self.table.time_up(record.id, deadline.seat, timer)
        await self.store.clear_deadlines(record.id, deadline.seat, deadline.kind)
        if outcome.parts or outcome.notes:
            await self.sink.outcome(outcome)

    async def remind(self, record: GameRecord, deadline: Deadline) -> None:
        player = record.player(deadline.seat)
        assert player.user_id is not None
        prefs = await self.store.get_user_prefs(player.user_id)
        quiet_until = in_quiet_hours(prefs, self.clock())
        timers = await self.store.game_deadlines(record.id)
        reminded = Timer.of(deadline)
        # A freestyle round's reminder tells the round's deadline; a turn's, the turn's.
        turn = (round_deadline(timers) if reminded is not None and reminded.key.startswith("r")
                else turn_deadline(timers))
        due = turn.due_at if turn is not None else None
        if quiet_until is not None and (due is None or quiet_until < due):
            await self.store.set_deadline(record.id, deadline.seat, deadline.kind, quiet_until)  # wait until then
            self.poke()
            return
        await self.store.clear_deadlines(record.id, deadline.seat, deadline.kind)
        if prefs.notify == "off":
            return
        await self.sink.reminder(Reminder(record, deadline.seat, player.user_id, due, prefs.notify == "dm"))

__all__ = ["Reminder", "Scheduler", "SeasonSink", "Sink"]
