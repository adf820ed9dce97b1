"""Games that never stall: turn deadlines, reminders, and the AI playing for absent players.

One task sleeps until the next timer of any game is due (one indexed query), and is woken when a timer
changes. Timers live in the database, so after a restart every deadline that passed while the bot was down
is handled, once, in order. A timer's kind names the turn it belongs to; a timer for a turn that is over is
dropped, and a missed turn is counted once per turn however often the handler runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import discord

from engine import GameState, Surrender
from engine.ai import make_ai
from engine.state import CLAIM, OVER, SETUP, Event
from store import Deadline, GameRecord, Store, StoreError, UserPrefs

from .i18n import _

if TYPE_CHECKING:
    from .risk import RiskCog

log = logging.getLogger(__name__)
TIMEOUT_PLAYERS = {"cautious": "cautious", "skip": "skip", "ai": "normal"}
LIVE = 3600           # deadlines shorter than this are live games: no reminders
MAX_TIMEOUT_ACTIONS = 2_000


class Clock:
    """Wall-clock time that the console and tests can move forward."""

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self._now = now
        self.offset = 0.0

    def __call__(self) -> float:
        return self._now() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


def turn_key(state: GameState) -> str:
    """Names one turn of one player, so timers of a turn that is over can be recognised."""
    if state.phase == CLAIM:
        return f"c{len(state.owners)}"
    if state.phase == SETUP:
        return f"s{state.current}.{state.setup_remaining.get(state.current, 0)}"
    return f"t{state.turn}"


def in_quiet_hours(prefs: UserPrefs, now: float) -> float | None:
    """If ``now`` falls in the user's quiet hours, the time they end; else None."""
    if not prefs.quiet_start or not prefs.quiet_end:
        return None
    try:
        zone = ZoneInfo(prefs.timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    local = dt.datetime.fromtimestamp(now, zone)
    start = dt.time.fromisoformat(prefs.quiet_start)
    end = dt.time.fromisoformat(prefs.quiet_end)
    t = local.time()
    quiet = (start <= t < end) if start < end else (t >= start or t < end)
    if not quiet:
        return None
    end_day = local.date() if t < end else local.date() + dt.timedelta(days=1)
    return dt.datetime.combine(end_day, end, zone).timestamp()


class Scheduler:
    def __init__(self, cog: RiskCog, store: Store, clock: Callable[[], float]) -> None:
        self.cog = cog
        self.store = store
        self.clock = clock
        self._wake = asyncio.Event()
        self._running = asyncio.Lock()  # one pass over the due timers at a time
        self._task: asyncio.Task[None] | None = None
        self.wakeups = 0      # how often the loop woke (for tests and the curious)
        self.fired = 0        # timers handled

    # -- the loop -----------------------------------------------------------------------------------
    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="background:scheduler")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    def poke(self) -> None:
        """A timer changed: recompute how long to sleep."""
        self._wake.set()

    async def _run(self) -> None:
        while True:
            try:
                nxt = await self.store.next_due()
                now = self.clock()
                if nxt is not None and nxt.due_at <= now:
                    await self.run_due()
                    continue
                self._wake.clear()
                timeout = None if nxt is None else min(nxt.due_at - now, 86400.0)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(timeout):  # no extra task, unlike wait_for
                        await self._wake.wait()
                self.wakeups += 1
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("scheduler error; retrying in 5 s")
                await asyncio.sleep(5)

    async def run_due(self) -> int:
        """Handle every timer due now, earliest first. Returns how many were handled."""
        handled = 0
        async with self._running:
            for deadline in await self.store.due_deadlines(self.clock()):
                try:
                    await self.fire(deadline)
                except Exception:
                    log.exception("timer %s of game %s failed; dropping it", deadline.kind, deadline.game_id)
                    await self.store.clear_deadlines(deadline.game_id, deadline.seat, deadline.kind)
                handled += 1
                self.fired += 1
        return handled

    # -- setting timers -------------------------------------------------------------------------------
    async def sync(self, record: GameRecord) -> float | None:
        """Make the game's timers match whose turn it is. Returns the current turn's deadline, if any."""
        timers = await self.store.game_deadlines(record.id)
        if record.status != "running" or record.state is None:
            if timers:
                await self.store.clear_deadlines(record.id)
                self.poke()
            return None
        state = record.game().state
        seat = state.current
        if state.phase == OVER or record.player(seat).is_ai:
            if timers:
                await self.store.clear_deadlines(record.id)
                self.poke()
            return None
        key = turn_key(state)
        for t in timers:
            if t.seat == seat and t.kind == f"turn|{key}":
                return t.due_at
        if timers:
            await self.store.clear_deadlines(record.id)
        return await self._set_timers(record, seat, key)

    async def _set_timers(self, record: GameRecord, seat: int, key: str) -> float:
        settings = record.game().state.settings
        status = await self.store.seat_status(record.id, seat)
        now = self.clock()
        start = max(now, status.vacation_until or now)
        length = settings.turn_deadline
        due = start + length
        await self.store.set_deadline(record.id, seat, f"turn|{key}", due)
        if settings.reminders == "auto" and length >= LIVE:
            await self.store.set_deadline(record.id, seat, f"half|{key}", start + length / 2)
            if length >= 3 * LIVE:
                await self.store.set_deadline(record.id, seat, f"hour|{key}", due - LIVE)
        self.poke()
        return due

    async def restart_timers(self, record: GameRecord) -> float | None:
        """Drop the game's timers and set them anew (after a vacation or a resume)."""
        await self.store.clear_deadlines(record.id)
        return await self.sync(record)

    # -- firing ----------------------------------------------------------------------------------------
    async def fire(self, deadline: Deadline) -> None:
        what, _sep, key = deadline.kind.partition("|")
        record = await self.store.get_game(deadline.game_id)
        stale = record.status != "running" or record.state is None
        if not stale:
            state = record.game().state
            stale = state.phase == OVER or state.current != deadline.seat or turn_key(state) != key \
                or record.player(deadline.seat).is_ai
        if stale:
            await self.store.clear_deadlines(deadline.game_id, deadline.seat, deadline.kind)
            return
        if what in ("half", "hour"):
            await self.remind(record, deadline)
        else:
            await self.time_up(record, deadline, key)

    def channel(self, record: GameRecord) -> Any:
        return self.cog.bot.get_partial_messageable(record.channel_id)

    async def remind(self, record: GameRecord, deadline: Deadline) -> None:
        player = record.player(deadline.seat)
        assert player.user_id is not None
        prefs = await self.store.get_user_prefs(player.user_id)
        quiet_until = in_quiet_hours(prefs, self.clock())
        due = next((t.due_at for t in await self.store.game_deadlines(record.id) if t.kind.startswith("turn|")), None)
        if quiet_until is not None and (due is None or quiet_until < due):
            await self.store.set_deadline(record.id, deadline.seat, deadline.kind, quiet_until)  # wait until then
            self.poke()
            return
        await self.store.clear_deadlines(record.id, deadline.seat, deadline.kind)
        if prefs.notify == "off":
            return
        from .risk import game_locale
        locale = game_locale(record)
        when = f"<t:{int(due)}:R>" if due else _("soon", locale)
        mention = f"<@{player.user_id}>"
        text = _("⏰ {who}, your turn in game #{id} ends {when}.", locale, who=mention, id=record.id, when=when)
        await self.channel(record).send(text, allowed_mentions=discord.AllowedMentions(users=True))
        if prefs.notify == "dm":
            await self.direct_message(player.user_id, text)

    async def direct_message(self, user_id: int, text: str) -> None:
        try:
            user = self.cog.bot.get_user(user_id) or await self.cog.bot.fetch_user(user_id)
            await user.send(text)
        except discord.HTTPException:
            log.info("could not send a direct message to %s", user_id)

    async def time_up(self, record: GameRecord, deadline: Deadline, key: str) -> None:
        seat = deadline.seat
        state = record.game().state
        settings = state.settings
        status = await self.store.record_missed_turn(record.id, seat, key)
        player = make_ai(TIMEOUT_PLAYERS[settings.on_timeout], salt=str(seat))
        events: list[Event] = []
        for _step in range(MAX_TIMEOUT_ACTIONS):
            game = record.game()
            s = game.state
            if s.phase == OVER or s.current != seat or turn_key(s) != key:
                break
            result = await self.store.apply_action(record.id, player.choose(game, seat))
            events.extend(result.events)
            record = result.record
        await self.store.clear_deadlines(record.id, seat, deadline.kind)
        from .risk import game_locale
        locale = game_locale(record)
        name = record.player(seat).name
        limit = settings.max_missed
        lines = [_("⌛ {player}'s time ran out: the AI played their turn cautiously (missed turns in a row: {n}).",
                   locale, player=name, n=status.missed) if settings.on_timeout != "ai" else
                 _("⌛ {player}'s time ran out: the AI played their turn (missed turns in a row: {n}).", locale,
                   player=name, n=status.missed)]
        booted = bool(limit) and status.missed >= limit
        if booted and settings.on_boot == "ai":
            record = await self.store.replace_with_ai(record.id, seat)
            lines.append(_("🤖 {player} missed {n} turns in a row: the AI takes their seat. The host can give it "
                           "back with /risk reinstate.", locale, player=name, n=status.missed))
        elif booted:
            try:
                result = await self.store.apply_action(record.id, Surrender(seat))
                events.extend(result.events)
                record = result.record
            except (StoreError, Exception) as exc:  # the game may have ended meanwhile
                log.info("could not remove seat %s of game %s: %s", seat, record.id, exc)
            lines.append(_("🏳️ {player} missed {n} turns in a row: their territories are neutral now.", locale,
                           player=name, n=status.missed))
        await self.cog.post_summary(self.channel(record), record, lines, events)
        await self.cog.after_turn(self.channel(record), record, events, actor=seat)
