"""The game flow: apply an action or a timer, let the AI play the seats no human plays, set the next deadline.

Every entry point returns an ``Outcome``. AI seats and a player whose time ran out are played by the same
loop (``_stand_ins``): one action at a time, each its own transaction, grouped into parts of one actor's turn
with the board after each part. Timers live in the store; ``sync`` makes them match whose turn it is.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from engine import Action, Game, GameState, RuleError, Surrender
from engine.ai import make_ai
from engine.state import OVER
from store import ActionResult, GameRecord, Store, StoreError, VersionConflict

from .clock import turn_key
from .outcome import (
    AI,
    HOST,
    KICKED,
    PLAYER,
    SEAT_REMOVED,
    SEAT_TO_AI,
    START,
    TIME_RAN_OUT,
    TIMEOUT,
    TURN_EVENTS,
    Note,
    Outcome,
    Part,
)

log = logging.getLogger(__name__)

# The AI takes at most this many actions in one go (a whole AI turn is some 20 to 200); a game of AIs alone
# goes on in such steps, each a second after the last, from the scheduler: no interaction waits on it.
MAX_AI_ACTIONS = 1_000
AI_PAUSE = 1.0
AI_GOES_ON = "ai"  # the kind of the timer that lets the AI go on
# What plays a turn whose time ran out, by the game's ``on_timeout`` setting.
TIMEOUT_PLAYERS = {"cautious": "cautious", "skip": "skip", "ai": "normal"}
LIVE = 3600  # deadlines shorter than this are live games: no reminders


@dataclass(frozen=True)
class StandIn:
    """The AI playing one turn (``key``) of a seat whose time ran out."""

    seat: int
    key: str
    level: str


class Table:
    """Runs games: the one place where actions, AI turns and timers change a game."""

    def __init__(self, store: Store, clock: Callable[[], float], new_seed: Callable[[], str] | None = None) -> None:
        self.store = store
        self.clock = clock
        self.new_seed = new_seed or (lambda: secrets.token_hex(32))
        self.timers_changed: Callable[[], None] = lambda: None
        self._locks: dict[int, asyncio.Lock] = {}

    def lock(self, game_id: int) -> asyncio.Lock:
        """Serialises the stand-in work (AI turns, timeouts) of one game inside this process."""
        return self._locks.setdefault(game_id, asyncio.Lock())

    # -- entry points ----------------------------------------------------------------------------------
    async def start(self, game_id: int) -> Outcome:
        started, events = await self.store.start_game(game_id, seed=self.new_seed())
        state = started.game().state
        parts = [Part(seat=state.current, by=START, turn=state.turn, before=None, after=state, events=events)]
        return await self._finish(started, parts)

    async def apply(self, record: GameRecord, action: Action, interaction_id: str | None = None) -> Outcome:
        """A player's action (``RuleError`` or ``StoreError`` if refused: nothing changes)."""
        result = await self.store.apply_action(record.id, action, interaction_id=interaction_id)
        if result.duplicate:
            return Outcome(result.record, duplicate=True)
        part = self._part(action.seat, PLAYER, await self._state_before(record, result.first_seq), result)
        if any(e["type"] in TURN_EVENTS for e in result.events):
            await self.store.reset_missed(record.id, action.seat)  # they played: no longer absent
        return await self._finish(result.record, [part])

    async def remove(self, record: GameRecord, seat: int) -> Outcome:
        """The host removes a player from a running game: their territories become neutral."""
        result = await self.store.apply_action(record.id, Surrender(seat))
        part = self._part(seat, HOST, await self._state_before(record, result.first_seq), result)
        return await self._finish(result.record, [part], [Note(KICKED, seat)])

    async def resume(self, game_id: int) -> Outcome:
        """Let the AIs play if it is their turn (after a restart or a resume)."""
        return await self._finish(await self.store.get_game(game_id), [])

    async def time_up(self, record: GameRecord, seat: int, key: str) -> Outcome:
        """A player's time ran out: the AI plays their turn; after too many missed turns, their seat goes.

        Nothing happens (an empty outcome) if the turn ended meanwhile: the player moved just in time."""
        settings = record.game().state.settings
        stand_in = StandIn(seat, key, TIMEOUT_PLAYERS[settings.on_timeout])
        parts: list[Part] = []
        async with self.lock(record.id):
            record = await self.store.get_game(record.id)
            if not self._still_due(record, stand_in):
                return Outcome(record)
            status = await self.store.record_missed_turn(record.id, seat, key)
            notes = [Note(TIME_RAN_OUT, seat, status.missed, cautious=settings.on_timeout != "ai")]
            record = await self._stand_ins(record, parts, stand_in)
        if settings.max_missed and status.missed >= settings.max_missed:
            if settings.on_boot == "ai":
                record = await self.store.replace_with_ai(record.id, seat)
                notes.append(Note(SEAT_TO_AI, seat, status.missed))
            elif record.status == "running" and seat in (before := record.game().state).active_seats():
                result = await self.store.apply_action(record.id, Surrender(seat))
                parts.append(self._part(seat, TIMEOUT, before, result))
                record = result.record
                notes.append(Note(SEAT_REMOVED, seat, status.missed))
        return await self._finish(record, parts, notes)

    @staticmethod
    def _part(seat: int, by: str, before: GameState, result: ActionResult) -> Part:
        """One action's part: its events and the board before and after."""
        return Part(seat=seat, by=by, turn=before.turn, before=before, after=result.record.game().state,
                    events=result.events)

    @staticmethod
    def _still_due(record: GameRecord, stand_in: StandIn) -> bool:
        """The turn a timer was set for is still being waited on."""
        if record.status != "running" or record.state_json is None:
            return False
        s = record.game().state
        return s.phase != OVER and s.current == stand_in.seat and turn_key(s) == stand_in.key \
            and not record.player(stand_in.seat).is_ai

    # -- the loop --------------------------------------------------------------------------------------
    async def _finish(self, record: GameRecord, parts: list[Part], notes: list[Note] | None = None) -> Outcome:
        """Let the AIs play if it is their turn, then set the timers; ``record`` is the game as stored now."""
        known = parts[-1].after if parts and parts[-1].by != START else None
        if known is None or known.phase == OVER or record.player(known.current).is_ai:
            async with self.lock(record.id):
                record = await self._stand_ins(await self.store.get_game(record.id), parts)
            known = None
        try:
            deadline = await self.sync(record, known)
        except StoreError:  # paused or cancelled meanwhile: it has no timers
            deadline = None
        return Outcome(record, parts, notes or [], deadline)

    async def _stand_ins(self, record: GameRecord, parts: list[Part], stand_in: StandIn | None = None) -> GameRecord:
        """Play for every seat no human plays now (AI seats; a turn whose time ran out) until a human must act."""
        for _ in range(MAX_AI_ACTIONS):
            if record.status != "running" or record.state_json is None:
                break
            game = record.game()
            s = game.state
            if s.phase == OVER:
                break
            seat = s.current
            if stand_in is not None and seat == stand_in.seat and turn_key(s) == stand_in.key:
                level, by = stand_in.level, TIMEOUT
            elif record.player(seat).is_ai:
                level, by = record.player(seat).ai_level or "normal", AI
            else:
                break
            action = make_ai(level, salt=str(seat)).choose(game, seat)
            try:  # chosen on this version of the game: if anything came between, look again
                result = await self.store.apply_action(record.id, action, expected_version=record.version)
            except VersionConflict:
                record = await self.store.get_game(record.id)
                continue
            except (StoreError, RuleError) as exc:  # paused, cancelled: stop here, what was played is told
                log.info("game %s: the AI stopped: %s", record.id, exc)
                record = await self.store.get_game(record.id)
                break
            last = parts[-1] if parts else None
            if last is None or (last.seat, last.by, last.turn) != (seat, by, s.turn) or last.ended:
                if last is not None and last.by in (AI, TIMEOUT):
                    last.after = s.copy()
                parts.append(Part(seat=seat, by=by, turn=s.turn, before=s.copy(), after=s))
            parts[-1].events.extend(result.events)
            record = result.record
        else:
            log.info("game %s: the AI goes on after %s actions", record.id, MAX_AI_ACTIONS)
        if parts and parts[-1].by in (AI, TIMEOUT) and record.state_json is not None:
            parts[-1].after = record.game().state
        return record

    async def _state_before(self, record: GameRecord, first_seq: int) -> GameState:
        """The board just before the events from ``first_seq``: the caller's copy if nothing came between."""
        if record.state_json is not None and record.last_seq + 1 == first_seq:
            return record.game().state
        events = await self.store.events(record.id)
        return Game.from_events(events[: first_seq - 1]).state

    # -- timers ------------------------------------------------------------------------------------------
    async def sync(self, record: GameRecord, state: GameState | None = None) -> float | None:
        """Make the game's timers match whose turn it is (``state``: the record's, if the caller has it at hand).
        Returns the current turn's deadline, if any."""
        timers = await self.store.game_deadlines(record.id)
        if record.status == "running" and record.state_json is not None:
            state = state or record.game().state
            seat = state.current
            if state.phase != OVER and not record.player(seat).is_ai:
                key = turn_key(state)
                for t in timers:
                    if t.seat == seat and t.kind == f"turn|{key}":
                        return t.due_at
                if timers:
                    await self.store.clear_deadlines(record.id)
                return await self._set_timers(record, state, seat, key)
            if state.phase != OVER:  # the AI stopped at its bound: it goes on shortly, from the scheduler
                kind = f"{AI_GOES_ON}|{turn_key(state)}"
                if not any(t.kind == kind for t in timers):
                    await self.store.clear_deadlines(record.id)
                    await self.store.set_deadline(record.id, seat, kind, self.clock() + AI_PAUSE)
                    self.timers_changed()
                return None
        if timers:
            await self.store.clear_deadlines(record.id)
            self.timers_changed()
        return None

    async def _set_timers(self, record: GameRecord, state: GameState, seat: int, key: str) -> float:
        settings = state.settings
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
        self.timers_changed()
        return due

    async def restart_timers(self, record: GameRecord) -> float | None:
        """Drop the game's timers and set them anew (after a vacation or a resume)."""
        await self.store.clear_deadlines(record.id)
        return await self.sync(record)


__all__ = ["LIVE", "MAX_AI_ACTIONS", "TIMEOUT_PLAYERS", "StandIn", "Table"]
