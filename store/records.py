"""What the store hands back: plain frozen values, detached from the database."""

from __future__ import annotations

import json
import zoneinfo
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any, Protocol

from engine import Event, Game, GameState, Player

from .errors import GameNotRunning, StatusWord

MAX_SEATS = 8   # the most any map may declare; the classic map is played by 6
LOBBY, RUNNING, PAUSED, FINISHED, CANCELLED = "lobby", "running", "paused", "finished", "cancelled"
STATUSES = (LOBBY, RUNNING, PAUSED, FINISHED, CANCELLED)
ACTIVE_STATUSES = (LOBBY, RUNNING, PAUSED)
AI_LEVELS = ("easy", "normal", "hard")
NOTIFY_MODES = ("mention", "dm", "off")

STATUS_WORDS = {
    LOBBY: "waiting in its lobby", RUNNING: "running", PAUSED: "paused", FINISHED: "over",
    CANCELLED: "cancelled",
}


def status_word(status: str) -> StatusWord:
    """A status as it reads in a refusal ("Game #3 is {status}"), translated by the Discord layer."""
    return StatusWord(status, STATUS_WORDS[status])


@dataclass(frozen=True)
class MapRecord:
    """One of a server's maps (its files are read separately, with ``Store.map_files``)."""

    guild_id: int
    map_id: str
    name: str
    added_by: int
    created_at: float


@dataclass(frozen=True)
class SeatRecord:
    """One seat at the table: a Discord user, or an AI (``user_id`` None and an ``ai_level``)."""

    seat: int
    user_id: int | None
    ai_level: str | None
    name: str
    colour: int

    @property
    def is_ai(self) -> bool:
        return self.user_id is None

    def engine_player(self) -> Player:
        if self.is_ai:
            return Player(self.seat, self.name, "ai", self.ai_level)
        return Player(self.seat, self.name, "human", None)


@dataclass(frozen=True)
class GameRecord:
    """A game as stored at one ``version``. ``state_json`` is the engine state (None before the start)."""

    id: int
    guild_id: int | None
    channel_id: int
    status: str
    settings: dict[str, Any]
    host_id: int
    players: tuple[SeatRecord, ...]
    state_json: str | None
    state_schema: int | None
    version: int
    last_seq: int
    created_at: float
    updated_at: float

    @cached_property
    def state(self) -> dict[str, Any] | None:
        """The engine state as a dict (parsed once per record). Treat it as read-only."""
        return None if self.state_json is None else dict(json.loads(self.state_json))

    def game(self) -> Game:
        """A fresh engine ``Game`` built from the stored state; changing it changes nothing stored."""
        if self.state_json is None:
            raise GameNotRunning("Game #{id} has not started yet.", id=self.id)
        return Game(GameState.from_dict(json.loads(self.state_json)))

    def seat_of(self, user_id: int) -> int | None:
        """The seat of a Discord user in this game, or None."""
        for p in self.players:
            if p.user_id == user_id:
                return p.seat
        return None

    def player(self, seat: int) -> SeatRecord:
        return self.players[seat]


@dataclass(frozen=True)
class RatingRecord:
    """A rating as stored: a player's on a server (or on one of its ladders), and the games and wins it counts.
    ``ratings.Rating.of`` makes it the ratings' own value (its score, whether it is shown)."""

    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    trusted: int = 0
    established: bool = False


class RatingValues(Protocol):
    """A rating to store (``ratings.Rating``): its numbers and its score."""

    @property
    def mu(self) -> float: ...
    @property
    def sigma(self) -> float: ...
    @property
    def games(self) -> int: ...
    @property
    def wins(self) -> int: ...
    @property
    def trusted(self) -> int: ...
    @property
    def established(self) -> bool: ...
    @property
    def score(self) -> int: ...


@dataclass(frozen=True)
class ActionResult:
    """The outcome of an action (``table.play.Plays.apply``).

    ``record`` is the game as stored now; ``events`` are the events the action produced. When ``duplicate``
    is true the interaction had already been applied: nothing was written, and ``events`` are those of the
    first application.
    """

    record: GameRecord
    events: list[Event]
    duplicate: bool = False
    first_seq: int = 0


@cache
def _zone_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def known_time_zone(name: str) -> bool:
    """Whether ``name`` is a time zone of the zone database (``Europe/Oslo``, ``UTC``). Only its own names: any
    other text never reaches ``ZoneInfo``, which would take it for a file name (too long, a path, ...)."""
    return name in _zone_names()


@dataclass(frozen=True)
class UserPrefs:
    """Per-user preferences. Quiet hours are local "HH:MM" times in ``timezone`` (an IANA name)."""

    user_id: int
    language: str | None = None
    notify: str = "mention"
    quiet_start: str | None = None
    quiet_end: str | None = None
    timezone: str | None = None


@dataclass(frozen=True)
class GuildSettings:
    """Per-guild settings: default game settings for new lobbies and the channels games may use (empty: any)."""

    guild_id: int
    default_settings: dict[str, Any] = field(default_factory=dict)
    allowed_channels: tuple[int, ...] = ()


@dataclass(frozen=True)
class SeatStatus:
    """How a seat of a running game is doing with its deadlines."""

    game_id: int
    seat: int
    missed: int = 0
    last_missed_turn: str | None = None
    vacation_until: float | None = None
    vacation_days: int = 0
    booted_user_id: int | None = None
    booted_name: str | None = None
    offer: str | None = None    # the key of the host's offer of the seat to another player (the AI plays it)
    offer_message: int | None = None     # the channel message of the offer (its claim button), once posted
    takeover_message: int | None = None  # the message that told of the AI's takeover, with the host's offer button


@dataclass(frozen=True)
class StoredOrders:
    """A seat's standing orders (engine/orders.py ``Orders.to_dict``), private to ``user_id``, who left them: how
    far their run got (``cursor``) in the turn numbered ``turn`` (None: not started)."""

    game_id: int
    seat: int
    user_id: int
    orders: dict[str, Any]
    cursor: int = 0
    turn: int | None = None
    left_at: float = 0.0


@dataclass(frozen=True)
class OrdersProgress:
    """Where a seat's standing orders stand once the action they go with is applied: written in that action's
    transaction (``Store.apply_action``). ``orders``: the plan to keep from now on (a repeating plan renewed);
    ``gone``: the plan ran to its end and goes."""

    seat: int
    cursor: int
    turn: int | None
    orders: dict[str, Any] | None = None
    gone: bool = False


@dataclass(frozen=True)
class Deadline:
    """A timer for one seat of a game: a turn deadline or a reminder. ``due_at`` is a Unix time in seconds."""

    game_id: int
    seat: int
    kind: str
    due_at: float


@dataclass(frozen=True)
class HealthCounts:
    """What the operator's metrics read from the database: games by status, timers due and overdue."""

    games: dict[str, int]
    timers_due: int
    timers_overdue: int


@dataclass(frozen=True)
class LivePanel:
    """The channel message that is a running game's turn panel, edited as the turn goes on.

    ``seat`` and ``turn``: whose turn it tells; ``since_seq``: the last event before that turn; ``posted_at``: when
    it was posted (Unix seconds, by the bot's clock)."""

    game_id: int
    channel_id: int
    message_id: int
    seat: int
    turn: int
    since_seq: int
    posted_at: float


@dataclass(frozen=True)
class Shards:
    """The gateway shards one process runs, of ``count``: it handles the timers of games in their guilds only.

    Discord puts a guild on shard ``(guild_id >> 22) % count``; direct messages (a game without a guild) come
    on shard 0.
    """

    count: int
    ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError("the shard count must be at least 1")
        if not self.ids or len(set(self.ids)) != len(self.ids) or not all(0 <= i < self.count for i in self.ids):
            raise ValueError(f"shards must be distinct numbers from 0 to {self.count - 1}")

    @staticmethod
    def of(guild_id: int | None, count: int) -> int:
        """The shard a guild's events arrive on."""
        return 0 if guild_id is None else (guild_id >> 22) % count

    def owns(self, guild_id: int | None) -> bool:
        return self.of(guild_id, self.count) in self.ids

    @property
    def all(self) -> bool:
        return len(self.ids) == self.count

    def __str__(self) -> str:
        return f"shards {','.join(map(str, self.ids))} of {self.count}"


__all__ = [
    "ACTIVE_STATUSES", "AI_LEVELS", "CANCELLED", "FINISHED", "LOBBY", "MAX_SEATS", "NOTIFY_MODES", "PAUSED",
    "RUNNING", "STATUSES", "STATUS_WORDS", "ActionResult", "Deadline", "GameRecord", "GuildSettings", "HealthCounts",
    "MapRecord", "RatingRecord", "RatingValues", "SeatRecord", "SeatStatus", "Shards", "UserPrefs", "known_time_zone",
    "status_word",
]
