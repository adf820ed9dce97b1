"""Standing orders and the steps a turn takes by itself, run by the table (the plan itself: engine/orders.py).

**Kept private.** A player leaves a plan for their next turn (``leave_orders``); the store keeps it in a table
of its own (``standing_orders``), never in the game's log, its exports or its timers' words: only the table reads
it, and only its player is shown it. A seat that changes hands does not pass its plan on: the AI's takeover and a
substitute's claim remove it, and ``orders_of`` and the run check that the seat is still its player's anyway.

**When it runs.** Not at once: when the turn comes (sequential: it starts; freestyle: the board is free and the
player may start a turn), a timer of the seat (``TimerKind.ORDERS``) is set after a random delay, drawn
uniformly between ``DELAY_LOW`` and ``DELAY_HIGH`` of the time the turn has (the turn's deadline; in a freestyle
round, the time the round has left), and never less than ``DELAY_LEAST`` seconds. So orders look like a visit
at a random moment early in the turn: any player who visits within that window plays first in a freestyle round
(orders do not always move first), and nobody can tell orders from a visit by their timing. A turn's forced step
(``engine.orders.forced_step``: a forced trade with one set, a turn with nothing left to decide) waits for the
same kind of delay, so an automatic step looks the same. Orders run on a turn the player has not begun: when
the timer fires, a turn in which they have placed already is theirs, and the plan waits for the next.

**Run once.** The plan is played through the table like taps (``Plays.apply``), each action with where
the plan stands after it (``OrdersProgress``) in its own transaction; a restart goes on from there, and nothing
is applied twice. Each action is the player's own move in the log and on the turn panel. Then the player is told,
privately, what ran and why it stopped (``Outcome.orders``); the rest of the turn is theirs until its deadline,
where ``on_timeout`` plays only what is left. A plan runs once (a repeating one is renewed for the next turn).
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine import Action, GameState, RuleError
from engine.actions import StartTurn
from engine.errors import BadOrders, TemplateError
from engine.orders import Orders, Stop, forced_step, left, next_step, renewed
from engine.settings import turn_limit
from engine.state import ATTACK, FORTIFY, OCCUPY, OVER, REINFORCE, WAITING
from store import PAUSED, RUNNING, ActionResult, GameRecord, OrdersProgress, Store, StoredOrders, VersionConflict
from store.change import GameChange, orders_step

from .outcome import PLAYER, Note, Outcome, Part
from .play import Also, Plays
from .timers import Timer, TimerKind, turn_key

log = logging.getLogger(__name__)

DELAY_LOW, DELAY_HIGH = 0.01, 0.25   # of the time the turn has
DELAY_LEAST = 30.0                   # seconds
MAX_STEPS = 400                      # actions of one plan at most (each one battle at the most)


@dataclass
class OrdersReport:
    """What a seat's standing orders did, for that player only: the actions applied, and how they stopped."""

    seat: int
    user_id: int
    ran: list[Action] = field(default_factory=list)
    stop: TemplateError | None = None
    done: bool = False      # they ran to their end
    notes: list[TemplateError] = field(default_factory=list)   # attacks their stop ended
    forced: list[Action] = field(default_factory=list)   # the steps taken for the player after them


def running(state: GameState, seat: int) -> bool:
    return state.phase in (REINFORCE, ATTACK, OCCUPY, FORTIFY) and state.current == seat


def untouched(state: GameState, seat: int) -> bool:
    """Whether ``seat``'s turn has not begun (the player has placed nothing in it), or may be started now."""
    if state.phase == WAITING:
        return state.freestyle and seat in state.to_play
    return running(state, seat) and state.phase == REINFORCE and not state.undoable_placements


def _progress(game_id: int, progress: OrdersProgress | None, seat: int) -> Also:
    """Written in the change of a step the seat's plan (or a forced step) takes: where the plan stands after it (a
    plan runs once), and the player's missed turns starting again (their own moves: not absent)."""
    async def write(change: GameChange, _result: ActionResult) -> None:
        if progress is not None:
            change.write(orders_step(game_id, progress))
        change.reset_missed(seat)
    return write


class StandingOrders:
    """The table's share of standing orders: leave, read, cancel, and run them when their timer fires."""

    store: Store
    plays: Plays
    clock: Callable[[], float]
    timers_changed: Callable[[], None]
    # Draws the delays (the tests seed their own); nothing of a game's rules or dice comes from it.
    orders_random: random.Random = random.SystemRandom()

    if TYPE_CHECKING:
        def lock(self, game_id: int) -> asyncio.Lock: ...

        async def _finish(self, record: GameRecord, parts: list[Part],
                          notes: list[Note] | None = None) -> Outcome: ...

    async def run_orders(self, game_id: int, seat: int, timer: Timer) -> Outcome:
        """The orders timer of ``seat`` fell due (from the scheduler): their plan runs, then their turn's forced
        steps. Nothing happens if the turn it was set for is over (its key)."""
        async with self.lock(game_id):
            record = await self.store.get_game(game_id)
            if record.status != RUNNING or record.state_json is None:
                return Outcome(record)
            state = record.game().state
            if turn_key(state) != timer.key or record.player(seat).is_ai:
                return Outcome(record)
            parts: list[Part] = []
            record, report = await self._run_orders(record, seat, parts)
            outcome = await self._finish(record, parts)
            outcome.orders = report if report is not None and (report.ran or report.stop is not None) else None
            return outcome

    # -- the player's plan ---------------------------------------------------------------------------------
    async def leave_orders(self, record: GameRecord, seat: int, user_id: int, orders: Orders) -> Orders:
        """``seat``'s player leaves a plan for their next turn (replacing any): checked and noted against the
        board now (``engine.orders.left``), kept privately. ``BadOrders`` or the engine's refusal: nothing kept."""
        if record.status not in (RUNNING, PAUSED) or record.state_json is None:
            raise BadOrders("Orders can be left only in a game that is going on.")
        if record.player(seat).user_id != user_id:
            raise BadOrders("You are not playing in this game.")
        plan = left(record.game(), seat, orders)
        await self.store.leave_orders(record.id, seat, user_id, plan.to_dict())
        await self._orders_timers(await self.store.get_game(record.id))
        return plan

    async def orders_of(self, record: GameRecord, seat: int, user_id: int) -> Orders | None:
        """The plan ``user_id`` left for ``seat``, if the seat is still theirs (a plan of a seat that changed hands
        is dropped here, unread)."""
        stored = await self.store.standing_orders(record.id, seat)
        if stored is None:
            return None
        if stored.user_id != user_id or record.player(seat).user_id != stored.user_id:
            if record.player(seat).user_id != stored.user_id:
                await self.store.cancel_orders(record.id, seat)
            return None
        try:
            return Orders.from_dict(stored.orders)
        except BadOrders:
            await self.store.cancel_orders(record.id, seat)
            return None

    async def cancel_orders(self, record: GameRecord, seat: int, user_id: int) -> bool:
        """The player takes their plan back; whether there was one."""
        if await self.orders_of(record, seat, user_id) is None:
            return False
        return await self.store.cancel_orders(record.id, seat) > 0

    # -- timers ------------------------------------------------------------------------------------------
    def orders_delay(self, state: GameState, room: float) -> float:
        """How long after the turn comes its orders (or its forced step) wait: see the module's doc."""
        share = self.orders_random.uniform(DELAY_LOW, DELAY_HIGH)
        return max(DELAY_LEAST, share * room)

    async def _orders_timers(self, record: GameRecord) -> None:
        """Set the orders timer of each seat whose plan (or forced step) may run now, once per turn key; the
        caller holds the game's lock. A timer of a turn that passed is dropped when it fires."""
        if record.status != RUNNING or record.state_json is None:
            return
        game = record.game()
        state = game.state
        if state.phase == OVER or state.sealed is not None:
            return
        if state.phase == WAITING:
            seats = [x for x in game.starters() if not record.player(x).is_ai]
        elif not record.player(state.current).is_ai:
            seats = [state.current]
        else:
            return
        timers = await self.store.game_deadlines(record.id)
        key = turn_key(state)
        name = str(Timer(TimerKind.ORDERS, key))
        kept = {(t.seat, t.kind) for t in timers}
        now = self.clock()
        room = float(state.settings.turn_deadline if not state.freestyle else turn_limit(state.settings))
        round_ends = next((t.due_at for t in timers if (timer := Timer.of(t)) is not None
                           and timer.kind is TimerKind.ROUND), None)
        if round_ends is not None and state.phase == WAITING:
            room = max(0.0, round_ends - now)
        changed = False
        for seat in seats:
            if (seat, name) in kept:
                continue
            wanted = forced_step(game, seat) is not None
            if not wanted and untouched(state, seat):
                stored = await self.store.standing_orders(record.id, seat)
                wanted = stored is not None and stored.user_id == record.player(seat).user_id
            if wanted:
                await self.store.set_deadline(record.id, seat, name, now + self.orders_delay(state, room))
                changed = True
        if changed:
            self.timers_changed()

    # -- running ------------------------------------------------------------------------------------------
    async def _run_orders(self, record: GameRecord, seat: int, parts: list[Part]) -> tuple[GameRecord,
                                                                                         OrdersReport | None]:
        """Play ``seat``'s plan from where it stands, then the forced steps of their turn; the caller holds the
        game's lock."""
        state = record.game().state
        user = record.player(seat).user_id
        report: OrdersReport | None = None
        stored = await self.store.standing_orders(record.id, seat)
        if stored is not None and (user is None or stored.user_id != user):
            await self.store.cancel_orders(record.id, seat)   # the seat changed hands: the plan was not theirs
            stored = None
        if stored is not None and user is not None and (stored.cursor > 0 or untouched(state, seat)):
            report = OrdersReport(seat, user)
            record = await self._play(record, stored, report, parts)
        record, forced = await self._forced_steps(record, seat, parts)
        if report is not None:
            report.forced = forced
        return record, report

    async def _play(self, record: GameRecord, stored: StoredOrders, report: OrdersReport,
                    parts: list[Part]) -> GameRecord:
        seat = stored.seat
        try:
            orders = Orders.from_dict(stored.orders)
        except BadOrders as exc:
            await self.store.cancel_orders(record.id, seat)
            report.stop = exc
            return record
        state = record.game().state
        cursor = stored.cursor
        if cursor and stored.turn is not None and stored.turn != state.turn and not running(state, seat):
            cursor = len(orders.items())   # a run of an earlier turn, ended before its end was written
        for _ in range(MAX_STEPS):
            game = record.game()
            s = game.state
            answer = next_step(game, seat, orders, cursor)
            report.notes += [n for n in answer.notes if n.message not in {m.message for m in report.notes}]
            if isinstance(answer, Stop):
                report.stop, report.done = answer.reason, answer.done
                if answer.waiting and not report.ran:   # not their turn after all: the plan waits
                    report.stop = None
                    return record
                gone = not orders.repeat
                kept = None if gone else renewed(game, orders).to_dict()
                await self.store.orders_progress(record.id, OrdersProgress(seat, 0, None, kept, gone))
                return record
            turn = s.turn + 1 if isinstance(answer.action, StartTurn) else s.turn
            progress = OrdersProgress(seat, answer.cursor, turn)
            try:
                result = await self.plays.apply(record.id, answer.action, expected_version=record.version,
                                                also=_progress(record.id, progress, seat))
            except VersionConflict:
                record = await self.store.get_game(record.id)
                continue
            except RuleError as exc:   # checked on this board a moment ago: a bug, told as the refusal it is
                log.warning("game %s: seat %s's orders were refused: %s", record.id, seat, exc)
                report.stop = exc
                await self.store.orders_progress(record.id, OrdersProgress(seat, 0, None, None, gone=True))
                return record
            report.ran.append(answer.action)
            self._add(parts, seat, s, result.record.game().state, result.events)
            record = result.record
            cursor = answer.cursor
        log.warning("game %s: seat %s's orders stopped after %s steps", record.id, seat, MAX_STEPS)
        return record

    async def _forced_steps(self, record: GameRecord, seat: int, parts: list[Part]) -> tuple[GameRecord,
                                                                                             list[Action]]:
        taken: list[Action] = []
        for _ in range(8):
            if record.status != RUNNING:
                break
            game = record.game()
            action = forced_step(game, seat)
            if action is None:
                break
            before = game.state
            try:
                result = await self.plays.apply(record.id, action, expected_version=record.version,
                                                also=_progress(record.id, None, seat))
            except (VersionConflict, RuleError):
                break
            taken.append(action)
            self._add(parts, seat, before, result.record.game().state, result.events)
            record = result.record
        return record, taken

    @staticmethod
    def _add(parts: list[Part], seat: int, before: GameState, after: GameState, events: list[Any]) -> None:
        last = parts[-1] if parts else None
        if last is None or (last.seat, last.by) != (seat, PLAYER) or last.ended:
            parts.append(Part(seat=seat, by=PLAYER, turn=before.turn, before=before.copy(), after=after))
        parts[-1].events.extend(events)
        parts[-1].after = after


__all__ = ["DELAY_HIGH", "DELAY_LEAST", "DELAY_LOW", "OrdersReport", "StandingOrders", "untouched"]
