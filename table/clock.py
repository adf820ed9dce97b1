"""Time for the table: a clock the console and tests can move, and quiet hours."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from zoneinfo import ZoneInfo

from store import UserPrefs, known_time_zone


class Clock:
    """Wall-clock time that the console and tests can move forward."""

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self._now = now
        self.offset = 0.0

    def __call__(self) -> float:
        return self._now() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


def in_quiet_hours(prefs: UserPrefs, now: float) -> float | None:
    """If ``now`` falls in the user's quiet hours, the time they end; else None."""
    if not prefs.quiet_start or not prefs.quiet_end:
        return None
    # A zone saved before only the zone database's names were taken may be any text: UTC then.
    zone = ZoneInfo(prefs.timezone if prefs.timezone and known_time_zone(prefs.timezone) else "UTC")
    local = dt.datetime.fromtimestamp(now, zone)
    start = dt.time.fromisoformat(prefs.quiet_start)
    end = dt.time.fromisoformat(prefs.quiet_end)
    t = local.time()
    quiet = (start <= t < end) if start < end else (t >= start or t < end)
    if not quiet:
        return None
    end_day = local.date() if t < end else local.date() + dt.timedelta(days=1)
    return dt.datetime.combine(end_day, end, zone).timestamp()


__all__ = ["Clock", "in_quiet_hours"]
