"""A game's timers as typed values: what a timer is for, and which turn it belongs to.

The store keeps a timer's kind as text (``turn|t14``: a column of both databases, and of the exports); this is
the one place that writes and reads that text. A timer belongs to one turn of one seat (``turn_key``), so a
timer of a turn that is over is recognised and dropped: ``Timer.due_on`` is that check, written once.

A vote to end a game (``Vote``) lives among the timers too, so a restart keeps it: its closing time is a timer of
the seat that called it (``vote|<key>.<ending>``), and each ballot is a row of its voter's
(``ballot|<key>.<yes|no>``), due after the vote closes, so it is read while the vote runs and dropped with it. The
turn's timers are replaced as turns pass; a vote's stay until it closes (``Table.sync``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from engine import GameState
from engine.state import ATTACK, CLAIM, FORTIFY, OCCUPY, OVER, REINFORCE, SETUP, WAITING
from store import RUNNING, Deadline, GameRecord


class TimerKind(enum.Enum):
    """What happens when a timer falls due."""

    TURN = "turn"     # the turn's deadline: the AI plays it (``Table.time_up``)
    HALF = "half"     # a reminder at half time
    HOUR = "hour"     # a reminder an hour before the deadline
    AI = "ai"         # the AI stopped at its bound (``MAX_AI_ACTIONS``) and goes on
    VOTE = "vote"     # a vote to end the game closes (``Table.close_vote``); key: the vote's key and its ending
    BALLOT = "ballot"  # one player's ballot in a vote (never acted on: it goes when the vote closes)
    ROUND = "round"   # turn order freestyle: the round's deadline (``Table.round_up``); key: ``round_key``
    HOLD = "hold"     # turn order freestyle: the player who ended the last round may start (``Table.release``)
    ORDERS = "orders"  # a seat's standing orders, or its turn's forced step, run (``Table.run_orders``)


REMINDERS = frozenset({TimerKind.HALF, TimerKind.HOUR})
ROUNDS = frozenset({TimerKind.ROUND, TimerKind.HOLD})
VOTING = frozenset({TimerKind.VOTE, TimerKind.BALLOT})
# How the endings of a vote are written in its timer.
STANDINGS, DRAW = "standings", "draw"
ENDINGS = (STANDINGS, DRAW)


def turn_key(state: GameState) -> str:
    """Names one turn of one player, so timers of a turn that is over can be recognised."""
    if state.phase == CLAIM:
        return f"c{len(state.owners)}"
    if state.phase == SETUP:
        return f"s{state.current}.{state.setup_remaining.get(state.current, 0)}"
    if state.phase == WAITING:  # a freestyle round between turns: no turn is waited on
        return f"w{state.round}.{state.turn}"
    return f"t{state.turn}"


def round_key(state: GameState) -> str:
    """Names one freestyle round: its deadline, its hold and the reminders of the players who have not played.
    A set-up round (``setup: round``) comes before the first round: ``r0``."""
    return f"r{state.round}"


def waited_on(state: GameState) -> list[int]:
    """The players a round still waits on: in a set-up round those with starting armies left to place, in a
    freestyle round those who have not played."""
    if state.sealed is not None:
        return [seat for seat in sorted(state.sealed) if state.setup_remaining.get(seat, 0) > 0]
    return list(state.to_play)


def in_round(state: GameState) -> bool:
    """Whether a round's timers run now: a freestyle round (between turns or during one), or a set-up round."""
    return state.sealed is not None or (state.freestyle and state.phase in (WAITING, REINFORCE, ATTACK, OCCUPY,
                                                                             FORTIFY))


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
        if self.kind in VOTING or self.kind in ROUNDS or self.kind is TimerKind.ORDERS:  # each checked where handled
            return False
        if record.status != RUNNING or record.state_json is None:
            return False
        state = record.game().state
        if (state.freestyle or state.sealed is not None) and self.key.startswith("r"):
            # a reminder of a round: to a player who has not played (or not placed all their starting armies)
            return (state.phase != OVER and self.key == round_key(state) and seat in waited_on(state)
                    and not record.player(seat).is_ai)
        if state.phase == OVER or state.current != seat or turn_key(state) != self.key:
            return False
        return not record.player(seat).is_ai


@dataclass(frozen=True)
class Vote:
    """A vote to end a game, read back from its timers: who called it, how it would end the game, until when it
    runs, and the ballots cast so far (seat: for the ending or not). The tally is told only when it closes."""

    key: str                     # names this vote among the game's votes: its buttons carry it
    ending: str                  # STANDINGS or DRAW
    caller: int
    closes_at: float
    ballots: Mapping[int, bool]

    @property
    def draw(self) -> bool:
        return self.ending == DRAW

    @property
    def timer(self) -> Timer:
        return Timer(TimerKind.VOTE, f"{self.key}.{self.ending}")

    def ballot(self, yes: bool) -> Timer:
        return Timer(TimerKind.BALLOT, f"{self.key}.{'yes' if yes else 'no'}")

    @property
    def yes(self) -> int:
        return sum(1 for v in self.ballots.values() if v)

    @property
    def no(self) -> int:
        return sum(1 for v in self.ballots.values() if not v)

    @classmethod
    def of(cls, deadlines: list[Deadline]) -> Vote | None:
        """The vote going on among a game's timers, if any, with its ballots."""
        called = next(((d, t) for d in deadlines if (t := Timer.of(d)) is not None and t.kind is TimerKind.VOTE),
                      None)
        if called is None:
            return None
        deadline, timer = called
        key, _sep, ending = timer.key.partition(".")
        ballots: dict[int, bool] = {}
        for d in deadlines:
            t = Timer.of(d)
            if t is not None and t.kind is TimerKind.BALLOT:
                vote, _sep, choice = t.key.partition(".")
                if vote == key and d.seat not in ballots:
                    ballots[d.seat] = choice == "yes"
        return cls(key, ending if ending in ENDINGS else STANDINGS, deadline.seat, deadline.due_at, ballots)


def round_deadline(deadlines: list[Deadline]) -> Deadline | None:
    """A freestyle round's deadline among a game's timers."""
    return next((d for d in deadlines if (t := Timer.of(d)) is not None and t.kind is TimerKind.ROUND), None)


def turn_deadline(deadlines: list[Deadline]) -> Deadline | None:
    """The current turn's deadline among a game's timers."""
    return next((d for d in deadlines if (t := Timer.of(d)) is not None and t.kind is TimerKind.TURN), None)


__all__ = ["DRAW", "ENDINGS", "REMINDERS", "ROUNDS", "STANDINGS", "VOTING", "Timer", "TimerKind", "Vote",
           "round_deadline", "round_key", "turn_deadline", "turn_key"]
