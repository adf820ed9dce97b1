"""The checks behind ``/healthz`` and ``/readyz``, and the stored counts behind ``/metrics``.

Health is about this process: its event loop answers (the answer itself shows it) and how late it runs; overdue
timers are reported there, never failed on, since one stuck game must not make a supervisor restart the bot in a
loop. Readiness is about serving Discord: this process's gateway shards are connected, the database answers a
write transaction within ``database_bound`` seconds, and the worker pools are not broken. Each check names
itself in the answer, so a failed probe says what failed.

A database check that is slower than its bound is not cancelled (a cancelled write could leave a transaction
half open): it goes on in the background, and the next probes wait on the same attempt instead of piling more
behind it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import workers
from ops import metrics
from store import logs
from store.records import HealthCounts, Shards

T = TypeVar("T")
OVERDUE_AFTER = 60.0  # seconds past due after which a timer counts as overdue
DATABASE_BOUND = 2.0  # seconds the database may take to answer a readiness check


@dataclass
class Check:
    name: str
    ok: bool
    detail: Any = None

    def as_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"ok": self.ok}
        if self.detail is not None:
            body["detail"] = self.detail
        return body


@dataclass
class Probes:
    """``ping`` (the database answers, or raises), ``counts`` (the stored counts), ``gateway`` (whether this
    process's shards are connected, and each one's state), ``pools`` (each worker pool's "broken" flag)."""

    ping: Callable[[], Coroutine[Any, Any, None]]
    counts: Callable[[float], Coroutine[Any, Any, HealthCounts]]
    gateway: Callable[[], tuple[bool, dict[str, str]]]
    pools: Callable[[], dict[str, bool]] = lambda: {"render": workers.broken(), "log": logs.broken()}
    database_bound: float = DATABASE_BOUND
    overdue_after: float = OVERDUE_AFTER
    _ping: asyncio.Task[None] | None = field(default=None, init=False, repr=False)
    _counts: asyncio.Task[HealthCounts] | None = field(default=None, init=False, repr=False)

    async def _bounded(self, attempt: asyncio.Task[Any]) -> tuple[bool, Any]:
        """Wait up to the bound for an attempt (never cancelled): (done in time, its result or error text)."""
        done, _ = await asyncio.wait([attempt], timeout=self.database_bound)
        if not done:
            return False, f"no answer within {self.database_bound:g} s"
        if attempt.exception() is not None:
            return False, str(attempt.exception())
        return True, attempt.result()

    async def database(self) -> Check:
        if self._ping is None or self._ping.done():
            self._ping = _attempt(self.ping(), "ops:ping")
        ok, result = await self._bounded(self._ping)
        return Check("database", ok, None if ok else result)

    async def stored_counts(self) -> HealthCounts | None:
        """The stored counts (None if the database does not answer within the bound); the metrics get them too."""
        if self._counts is None or self._counts.done():
            self._counts = _attempt(self.counts(self.overdue_after), "ops:counts")
        ok, result = await self._bounded(self._counts)
        if not ok:
            return None
        metrics.stored_counts(result.games, result.timers_due, result.timers_overdue)
        return result  # type: ignore[no-any-return]

    def shards(self) -> Check:
        ok, states = self.gateway()
        return Check("gateway", ok, states)

    def workers(self) -> Check:
        broken = sorted(name for name, is_broken in self.pools().items() if is_broken)
        return Check("workers", not broken, {"broken": broken} if broken else None)

    async def health(self) -> tuple[bool, dict[str, Any]]:
        """Alive: always true when this runs at all; the loop's lag and overdue timers are reported."""
        counts = await self.stored_counts()
        timers: dict[str, Any] | str = "unknown (the database did not answer)"
        if counts is not None:
            timers = {"due": counts.timers_due, "overdue": counts.timers_overdue}
        return True, {"status": "alive", "event_loop_lag_seconds": round(metrics.value(
            "risk_event_loop_lag_last_seconds"), 4), "timers": timers}

    async def ready(self) -> tuple[bool, dict[str, Any]]:
        checks = [self.shards(), await self.database(), self.workers()]
        ok = all(check.ok for check in checks)
        failed = [check.name for check in checks if not check.ok]
        body: dict[str, Any] = {"status": "ready" if ok else "unready", "checks": {c.name: c.as_json() for c in checks}}
        if failed:
            body["failed"] = failed
        return ok, body


def _attempt(work: Coroutine[Any, Any, T], name: str) -> asyncio.Task[T]:
    """A task whose failure is read when it ends, whether or not a probe still waits for it (asyncio would
    otherwise log an error for an exception nobody retrieved)."""
    task = asyncio.get_running_loop().create_task(work, name=name)
    task.add_done_callback(lambda done: done.cancelled() or done.exception())
    return task


def for_bot(bot: Any, gateway: Callable[[], tuple[bool, dict[str, str]]]) -> Probes:
    """The probes of a running bot: its store, its clock, its shards."""
    shards: Shards | None = bot.owned_shards
    clock: Callable[[], float] = bot.clock

    async def counts(late: float) -> HealthCounts:
        result: HealthCounts = await bot.store.health_counts(clock(), late, shards)
        return result

    return Probes(ping=bot.store.ping, counts=counts, gateway=gateway)


__all__ = ["DATABASE_BOUND", "OVERDUE_AFTER", "Check", "Probes", "for_bot"]
