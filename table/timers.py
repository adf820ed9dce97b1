"""A game's timers as typed values: what a timer is for, and which turn it belongs to.

The store keeps a timer's kind as text (``turn|t14``: a column of both databases, and of the exports); this is
the one place that writes and reads that text. A timer belongs to one turn of one seat (``turn_key``), so a
timer of a turn that is over is recognised and dropped: ``Timer.due_on`` is that check, written once.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engine import GameState
from engine.state import CLAIM, OVER, SETUP
from store import RUNNING, Deadline, GameRecord


class TimerKind(enum.Enum):
    """What happens when a timer falls due."""

    TURN = "turn"     # the turn's deadline: the AI plays it (``Table.time_up``)
    HALF = "half"     # a reminder at half time
    HOUR = "hour"     # a reminder an hour before the deadline
    AI = "ai"         # the AI stopped at its bound (``MAX_AI_ACTIONS``) and goes on


REMINDERS = frozenset({TimerKind.HALF, TimerKind.HOUR})


def turn_key(state: GameState) -> str:
    """Names one turn of one player, so timers of a turn that is over can be recognised."""
    if state.phase == CLAIM:
        return f"c{len(state.owners)}"
    if state.phase == SETUP:
        return f"s{state.current}.{state.setup_remaining.get(state.current, 0)}"
    return f"t{state.turn}"


@dataclass(frozen=True)
class Timer:
    """One timer of one seat's turn: ``kind`` for the turn named ``key`` (``turn_key``)."""

    kind: TimerKind
    key: str

    @classmethod
    def now(cls, kind: TimerKind, state: GameState) -> Timer:
        """A timer of the turn being played in ``state``."""
        return cls(kind, turn_key(state))

    @classmethod
    def parse(cls, text: str) -> Timer | None:
        """The timer a stored kind names (None for a text no version of the bot wrote)."""
        what, _sep, key = text.partition("|")
        try:
            return cls(TimerKind(what), key)
        except ValueError:
            return None

    @classmethod
    def of(cls, deadline: Deadline) -> Timer | None:
        return cls.parse(deadline.kind)

    def __str__(self) -> str:
        return f"{self.kind.value}|{self.key}"

    @property
    def reminder(self) -> bool:
        return self.kind in REMINDERS

    def due_on(self, record: GameRecord, seat: int) -> bool:
        """The turn this timer was set for is still being waited on: the game runs, and it is still that turn
        of ``seat`` (a human's: an AI seat is never waited on; the AI's own timer, ``TimerKind.AI``, is not about
        a turn being waited on)."""
        if record.status != RUNNING or record.state_json is None:
            return False
        state = record.game().state
        if state.phase == OVER or state.current != seat or turn_key(state) != self.key:
            return False
        return not record.player(seat).is_ai


def turn_deadline(deadlines: list[Deadline]) -> Deadline | None:
    """The current turn's deadline among a game's timers."""
    return next((d for d in deadlines if (t := Timer.of(d)) is not None and t.kind is TimerKind.TURN), None)


__all__ = ["REMINDERS", "Timer", "TimerKind", "turn_deadline", "turn_key"]
