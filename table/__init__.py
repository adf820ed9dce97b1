"""The table: the game flow between the Discord layer and the store, with no Discord in it.

Applying an action, starting a game or a timer falling due returns an ``Outcome`` (``table.outcome``): the
parts each actor played with the board after each, the notes to announce, and the next deadline. The
announcer in ``cogs/`` decides, through ``engine.fog``, what each audience is told of it.
"""

from .clock import Clock, in_quiet_hours
from .flow import MAX_AI_ACTIONS, Table
from .limits import Limits
from .outcome import Note, Outcome, Part
from .refusals import LimitReached, SeatRefused, VoteRefused
from .scheduler import Reminder, Scheduler, Sink
from .timers import Timer, TimerKind, Vote, turn_deadline, turn_key

__all__ = ["MAX_AI_ACTIONS", "Clock", "LimitReached", "Limits", "Note", "Outcome", "Part", "Reminder", "Scheduler",
           "SeatRefused", "Sink", "Table", "Timer", "TimerKind", "Vote", "VoteRefused", "in_quiet_hours",
           "turn_deadline", "turn_key"]
