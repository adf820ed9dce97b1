"""What one step of a game produced: the parts each actor played, with the board after each, and how it ended.

An ``Outcome`` is plain data: the announcer in ``cogs/`` turns it into messages for each audience, and nothing
here knows about Discord.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import Event, GameState
from engine.events import EventType
from engine.state import OVER, WAITING
from store import GameRecord, SeatStatus

from .timers import Vote

# Who played a part.
PLAYER = "player"    # the player who acted (a command or a tap)
AI = "ai"            # an AI seat
TIMEOUT = "timeout"  # the AI standing in for a player whose time ran out
HOST = "host"        # the host removed a player
START = "start"      # the opening of the game (deal, first player, missions)
VOTE = "vote"        # the players voted to end the game (the table's ``VoteEnd``)


def setup_round_waits(record: GameRecord, state: GameState) -> bool:
    """In a set-up round: whether a human still has starting armies to place (the round's message calls them,
    whichever seat the first turn will be)."""
    return state.sealed is not None and any(
        state.setup_remaining.get(seat, 0) and not record.player(seat).is_ai for seat in state.sealed)


@dataclass
class Part:
    """One actor's share of an outcome: the events, and the board just before and just after them.

    ``before`` is None for the opening part (its events begin with ``game_started``)."""

    seat: int
    by: str
    turn: int
    before: GameState | None
    after: GameState
    events: list[Event] = field(default_factory=list)

    @property
    def ended(self) -> bool:
        return any(e["type"] == "game_over" for e in self.events)


# Events that start or end a turn: after one of them, someone new may be called to move.
TURN_EVENTS: frozenset[EventType] = frozenset({"turn_started", "setup_turn", "turn_ended"})
# In a freestyle game, the events after which the channel is called anew: a turn started (its panel), or the round
# waits for the next player (its message).
ROUND_CALLS: frozenset[EventType] = frozenset({"turn_started", "turn_ended", "round_started", "hold_released",
                                               "round_closed"})

# The events that open a round (a freestyle round, the set-up round): its message pings the players it calls.
ROUND_OPENS: frozenset[EventType] = frozenset({"round_started", "setup_round"})

# Things to announce that are not events.
TIME_RAN_OUT = "time_ran_out"   # a player's turn was played for them (count: missed turns in a row)
SEAT_TO_AI = "seat_to_ai"       # after too many missed turns the AI takes the seat
SEAT_REMOVED = "seat_removed"   # after too many missed turns the seat is resigned
KICKED = "kicked"               # the host removed the player
# A vote to end the game (seat: who called it; count: the ballots for, against: those against; ending: standings
# or draw). Called, it is told with its buttons; closed, with its tally, which nobody is told before.
VOTE_CALLED = "vote_called"     # a player calls a vote (their own ballot is for)
VOTE_PASSED = "vote_passed"     # every player still in voted for: the game ends
VOTE_FAILED = "vote_failed"     # everyone voted, not all for: the game goes on
VOTE_EXPIRED = "vote_expired"   # the vote closed before everyone voted: the game goes on
VOTE_NOTES = frozenset({VOTE_CALLED, VOTE_PASSED, VOTE_FAILED, VOTE_EXPIRED})
# Substitutes (table/seats.py): the host offers a seat the AI took over, another player claims it (count: the
# turn they play it from; name: the seat's player until then), or the offer is withdrawn (by the host, or as its
# player comes back).
SEAT_OFFERED = "seat_offered"
SEAT_CLAIMED = "seat_claimed"
OFFER_WITHDRAWN = "offer_withdrawn"
SEAT_NOTES = frozenset({SEAT_OFFERED, SEAT_CLAIMED, OFFER_WITHDRAWN})


@dataclass(frozen=True)
class Note:
    kind: str
    seat: int
    count: int = 0
    cautious: bool = False
    against: int = 0
    ending: str = ""
    name: str = ""   # a player the note names who is no longer the seat's (a claimed seat's player who left)
    offerable: bool = True   # SEAT_TO_AI: the seat may be offered to a substitute (not a tournament's)


@dataclass
class Outcome:
    """The result of an action, a timer or a start: every part in order, and the game as it is afterwards."""

    record: GameRecord
    parts: list[Part] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    deadline: float | None = None   # when the turn that is now waiting ends, if it has a deadline
    duplicate: bool = False         # the interaction had already been applied: nothing happened now
    seat_status: SeatStatus | None = None  # a seat's missed turns and vacation, when they changed
    vote: Vote | None = None        # the vote to end the game this outcome called, counted or closed
    voters: tuple[int, ...] = ()    # the seats that vote in it (the humans still in the game)
    offer: str | None = None        # the key of the seat's offer to a substitute (the claim button carries it)
    # The channel messages this outcome closes: the seat's offer as it was (a claim or a withdrawal edits it, an
    # offer made again takes its button), and the takeover's message whose offer button goes (an offer, a return).
    offer_message: int | None = None
    takeover_message: int | None = None
    # What a seat's standing orders did (table/orders.py ``OrdersReport``): for that player's eyes only.
    orders: Any = None

    @property
    def state(self) -> GameState | None:
        """The board after everything (None if the game has not started)."""
        return self.parts[-1].after if self.parts else (self.record.game().state if self.record.state_json else None)

    @property
    def events(self) -> list[Event]:
        return [e for part in self.parts for e in part.events]

    @property
    def ended(self) -> bool:
        """The game ended in this outcome."""
        return any(part.ended for part in self.parts)

    @property
    def over(self) -> bool:
        state = self.state
        return state is not None and state.phase == OVER

    def waiting_on(self) -> int | None:
        """The seat whose move it is now, if the game goes on."""
        state = self.state
        return None if state is None or state.phase == OVER else state.current

    def pings(self) -> bool:
        """Whether the message that calls the players pings them: a turn's panel always (it calls one player, once
        a turn); a round's or the set-up round's message only when the round opens, so that each player is pinged
        once a round, not again each time the message is posted anew after a turn."""
        state = self.state
        if state is None or not (state.phase == WAITING or state.sealed is not None):
            return True
        return self.opens_round()

    def shown(self) -> bool:
        """Whether a message of its own shows the board after a part (a move, an AI's or a stand-in's turn), so the
        message that calls the players needs no picture; a secret placement of the set-up round shows nothing."""
        return any(p.by in (PLAYER, AI, TIMEOUT) and p.after.sealed is None for p in self.parts)

    def opens_round(self) -> bool:
        """Whether a round (a freestyle round, or the set-up round) opened here and waits for its players."""
        state = self.state
        return state is not None and (state.phase == WAITING or state.sealed is not None) and any(
            e["type"] in ROUND_OPENS for e in self.events)

    def calls_anew(self) -> bool:
        """Whether someone new must be called: the turn went to another player, or was played for someone; in a
        freestyle round, a turn started (its panel), or the round waits again for a human (its message)."""
        state = self.state
        if state is not None and state.sealed is not None:
            # A set-up round (in either turn order): its message when it opens, whichever seat the first turn will
            # be, or after AIs placed, as long as a human has armies left to place.
            return setup_round_waits(self.record, state) and (any(e["type"] == "setup_round" for e in self.events)
                                                 or any(p.by in (AI, TIMEOUT) for p in self.parts))
        if state is not None and state.freestyle and state.phase != OVER:
            return any(e["type"] in ROUND_CALLS for e in self.events) and (
                state.phase != WAITING or any(not self.record.player(s).is_ai for s in state.to_play))
        waiting = self.waiting_on()
        if waiting is None or self.record.player(waiting).is_ai:
            return False
        if any(p.by in (AI, TIMEOUT, START) for p in self.parts) or any(n.kind == TIME_RAN_OUT for n in self.notes):
            return True
        actor = self.parts[0].seat if self.parts and self.parts[0].by == PLAYER else None
        return any(e["type"] in TURN_EVENTS for e in self.events) and waiting != actor


__all__ = [
    "AI",
    "HOST",
    "KICKED",
    "OFFER_WITHDRAWN",
    "PLAYER",
    "SEAT_CLAIMED",
    "SEAT_NOTES",
    "SEAT_OFFERED",
    "SEAT_REMOVED",
    "SEAT_TO_AI",
    "START",
    "TIMEOUT",
    "TIME_RAN_OUT",
    "TURN_EVENTS",
    "VOTE",
    "VOTE_CALLED",
    "VOTE_EXPIRED",
    "VOTE_FAILED",
    "VOTE_NOTES",
    "VOTE_PASSED",
    "Note",
    "Outcome",
    "Part",
    "setup_round_waits",
]
