"""A unit of work on one game: ``Store.change(game_id, work)`` runs ``work(change)`` inside one transaction that
locks the game, and commits what ``work`` wrote through ``change`` when it returns, in the round trip of the
``COMMIT``.

``table/`` decides every change to a game (the action and its events, the missed-turn counters, the timers, a
vote's close, a round's opening, the results and ratings of an ending) and writes it through a ``GameChange``:
the store only reads the rows it is asked for and writes the rows it is given, so what one change writes is
stored whole or not at all, however the process stops. The reads go to the database at once (each a round
trip: the game's head, its timers, a seat's status); the writes wait and travel together with the commit,
unless ``work`` sends them first (``flush``) to read what they changed.

An action is three round trips on PostgreSQL (the lock with ``BEGIN``, the head, the writes with ``COMMIT``)
and two on SQLite (``BEGIN IMMEDIATE`` with the head, the writes with ``COMMIT``), as before the rules left the
store.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine import SCHEMA_VERSION, Event

from .backend import Reading, Writing
from .errors import InvalidValue, UnknownGame
from .records import Deadline, GameRecord, OrdersProgress, SeatRecord, SeatStatus
from .results import MISSED_TURN, turn_steps
from .transaction import Row, Step

# The head of an action: the version, the status, the state only if the cached one is stale, and the stored
# result if this interaction was applied before.
_ACTION_HEAD = (
    "SELECT g.version, g.status, g.last_seq, CASE WHEN g.version = ? THEN NULL ELSE g.state END, "
    "(SELECT i.result FROM interactions i WHERE i.game_id = g.id AND i.interaction_id = ?) "
    "FROM games g WHERE g.id = ?"
)
_SEAT_STATUS = ("SELECT game_id, seat, missed, last_missed_turn, vacation_until, vacation_days, booted_user_id, "
                "booted_name, offer, offer_message, takeover_message FROM seat_status "
                "WHERE game_id = ? AND seat = ?")
_SEAT_ROW = Step("INSERT INTO seat_status (game_id, seat) VALUES (?, ?) ON CONFLICT DO NOTHING")


GAME_COLUMNS = ("g.id, g.guild_id, g.channel_id, g.status, g.settings, g.host_id, g.state, g.state_schema, "
                "g.version, g.last_seq, g.created_at, g.updated_at")
_SEAT_COLUMNS = "p.seat, p.user_id, p.ai_level, p.name, p.colour"
GAME_WITH_SEATS = (f"SELECT {GAME_COLUMNS}, {_SEAT_COLUMNS} FROM games g "
                   "LEFT JOIN players p ON p.game_id = g.id")


def _seat(row: Sequence[Any], offset: int) -> SeatRecord | None:
    if row[offset] is None:
        return None
    return SeatRecord(seat=row[offset], user_id=row[offset + 1], ai_level=row[offset + 2], name=row[offset + 3],
                      colour=row[offset + 4])


def records(rows: Iterable[Sequence[Any]]) -> list[GameRecord]:
    """Build records from ``GAME_WITH_SEATS`` rows (one row per seat, seats in order)."""
    heads: dict[int, Sequence[Any]] = {}
    seats: dict[int, list[SeatRecord]] = {}
    for row in rows:
        game_id = row[0]
        if game_id not in heads:
            heads[game_id] = row
            seats[game_id] = []
        seat = _seat(row, 12)
        if seat is not None:
            seats[game_id].append(seat)
    return [_record(head, seats[game_id]) for game_id, head in heads.items()]


def _record(row: Sequence[Any], seats: Iterable[SeatRecord]) -> GameRecord:
    return GameRecord(
        id=row[0], guild_id=row[1], channel_id=row[2], status=row[3], settings=json.loads(row[4]), host_id=row[5],
        players=tuple(sorted(seats, key=lambda s: s.seat)), state_json=row[6], state_schema=row[7], version=row[8],
        last_seq=row[9], created_at=row[10], updated_at=row[11],
    )


async def load_game(db: Reading, game_id: int) -> GameRecord:
    """A game and its seats (``UnknownGame`` if there is none)."""
    found = records(await db.fetch(f"{GAME_WITH_SEATS} WHERE g.id = ? ORDER BY p.seat", (game_id,)))
    if not found:
        raise UnknownGame("There is no game #{id}.", id=game_id)
    return found[0]


def seat_name(name: str) -> str:
    """A player's name as a seat keeps it: its spaces folded, at most 64 characters (``InvalidValue`` if empty)."""
    name = " ".join(name.split())
    if not name:
        raise InvalidValue("A player needs a name.")
    return name[:64]


def dumps(value: Any) -> str:
    """JSON as the store writes it: compact, unescaped."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def append_events(game_id: int, first_seq: int, events: Sequence[Event]) -> Step:
    """The events of a change, numbered from ``first_seq``."""
    return Step("INSERT INTO events (game_id, seq, event) VALUES (?, ?, ?)",
                [(game_id, first_seq + i, dumps(e)) for i, e in enumerate(events)], many=True)


def orders_step(game_id: int, progress: OrdersProgress) -> Step:
    """Where a seat's standing orders stand: gone, renewed (a repeating plan), or further on in their turn."""
    if progress.gone:
        return Step("DELETE FROM standing_orders WHERE game_id = ? AND seat = ?", (game_id, progress.seat))
    if progress.orders is not None:
        return Step("UPDATE standing_orders SET orders = ?, cursor = ?, turn = ? WHERE game_id = ? AND seat = ?",
                    (dumps(progress.orders), progress.cursor, progress.turn, game_id, progress.seat))
    return Step("UPDATE standing_orders SET cursor = ?, turn = ? WHERE game_id = ? AND seat = ?",
                (progress.cursor, progress.turn, game_id, progress.seat))


@dataclass(frozen=True)
class Head:
    """What an action first reads of its game: its version, status and last event; its state only when the
    caller's copy (of ``cached_version``) is stale; and the summary stored for a repeated interaction."""

    version: int
    status: str
    last_seq: int
    state_json: str | None
    previous: dict[str, Any] | None


@dataclass(frozen=True)
class Played:
    """An action decided in ``table/``: the game before it (``record``), its state after it (as JSON), its
    status and version after it, and its events."""

    record: GameRecord
    state_json: str
    status: str
    version: int
    first_seq: int
    events: Sequence[Event]


class GameChange:
    """The reads and writes of one change to one game, in one transaction (``Store.change``)."""

    def __init__(self, db: Writing, game_id: int, clock: Callable[[], float],
                 lock_ratings: Callable[[Writing, int], Any]) -> None:
        self.db = db
        self.game_id = game_id
        self._clock = clock
        self.now = clock()
        self._lock_ratings = lock_ratings
        self.writes: list[Step] = []
        self.committed: list[Callable[[], None]] = []

    # -- reads (each sent at once) -------------------------------------------------------------------------
    async def head(self, cached_version: int | None, interaction_id: str | None) -> Head:
        """The game's head (``UnknownGame`` if there is none)."""
        rows = await self.db.fetch(_ACTION_HEAD, (-1 if cached_version is None else cached_version,
                                                  interaction_id, self.game_id))
        if not rows:
            raise UnknownGame("There is no game #{id}.", id=self.game_id)
        version, status, last_seq, state_json, previous = rows[0]
        return Head(int(version), str(status), int(last_seq), state_json,
                    None if previous is None else json.loads(previous))

    async def record(self) -> GameRecord:
        """The game and its seats as stored (with what this change sent so far)."""
        return await load_game(self.db, self.game_id)

    async def events(self, first_seq: int, last_seq: int) -> list[Event]:
        """The stored events ``first_seq`` to ``last_seq`` (a repeated interaction's, from its first time)."""
        rows = await self.db.fetch("SELECT event FROM events WHERE game_id = ? AND seq BETWEEN ? AND ? "
                                   "ORDER BY seq", (self.game_id, first_seq, last_seq))
        return [json.loads(r[0]) for r in rows]

    async def deadlines(self) -> list[Deadline]:
        """The game's timers, the first due first."""
        rows = await self.db.fetch("SELECT game_id, seat, kind, due_at FROM deadlines WHERE game_id = ? "
                                   "ORDER BY due_at", (self.game_id,))
        return [Deadline(*row) for row in rows]

    async def seat_status(self, seat: int) -> SeatStatus:
        """A seat's missed turns, vacation and takeover, as stored."""
        rows = await self.db.fetch(_SEAT_STATUS, (self.game_id, seat))
        return SeatStatus(*rows[0]) if rows else SeatStatus(self.game_id, seat)

    async def ever_seated(self, user_id: int) -> bool:
        """Whether the user holds, or ever held, a seat of the game (a substitute's seat, one the AI took)."""
        rows = await self.db.fetch(
            "SELECT 1 FROM players WHERE game_id = ? AND user_id = ? UNION ALL SELECT 1 FROM seat_holders "
            "WHERE game_id = ? AND user_id = ? UNION ALL SELECT 1 FROM seat_status WHERE game_id = ? AND "
            "booted_user_id = ?", (self.game_id, user_id, self.game_id, user_id, self.game_id, user_id))
        return bool(rows)

    async def holders_noted(self, seat: int) -> bool:
        """Whether the seat's players are remembered already (it changed hands before)."""
        return bool(await self.db.fetch("SELECT 1 FROM seat_holders WHERE game_id = ? AND seat = ?",
                                        (self.game_id, seat)))

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """A read of the store's own (store/results.py reads a finished game's rows through this)."""
        return await self.db.fetch(sql, params)

    async def lock_ratings(self, guild_id: int) -> None:
        """The server's ratings are this transaction's until the commit: two games of one server ending at once
        are rated one after the other (PostgreSQL's advisory lock; SQLite's ``BEGIN IMMEDIATE`` already). The
        change's time (``now``) is taken again once the lock is held: it orders the games as they are rated (a
        rebuild rates them in that order)."""
        await self._lock_ratings(self.db, guild_id)
        self.now = self._clock()

    async def flush(self) -> None:
        """Send the writes gathered so far (still uncommitted), so that the next reads see them."""
        if self.writes:
            steps, self.writes = self.writes, []
            await self.db.run(*steps)

    # -- writes (gathered, sent with the commit) -----------------------------------------------------------
    def write(self, *steps: Step) -> None:
        self.writes.extend(steps)

    def after(self, call: Callable[[], None]) -> None:
        """Call ``call`` once the change is committed (a poke to the scheduler: the timers changed), once."""
        if call not in self.committed:
            self.committed.append(call)

    def store_action(self, played: Played, *, interaction_id: str | None = None,
                     action: Mapping[str, Any] | None = None, removed_by: int | None = None,
                     removed_seat: int | None = None, finished: bool = False) -> None:
        """The rows of an action: the game's new state and version, its events, the turns they start and end,
        where a turn begins (for ``/risk log``), the seat another removed (``removed_by``), the interaction's
        summary (a repeat then writes nothing), and no timers once the game is over (``finished``)."""
        game_id, record = self.game_id, played.record
        last_seq = played.first_seq + len(played.events) - 1
        self.write(
            Step("UPDATE games SET state = ?, state_schema = ?, status = ?, version = ?, last_seq = ?, "
                 "updated_at = ? WHERE id = ?",
                 (played.state_json, SCHEMA_VERSION, played.status, played.version, last_seq, self.now, game_id)),
            append_events(game_id, played.first_seq, played.events),
            *((Step("DELETE FROM deadlines WHERE game_id = ?", (game_id,)),) if finished else ()),
            *turn_steps(game_id, played.events, self.now))
        if removed_by is not None and removed_seat is not None:
            self.write(Step("INSERT INTO seat_status (game_id, seat, removed_by) VALUES (?, ?, ?) "
                            "ON CONFLICT (game_id, seat) DO UPDATE SET removed_by = excluded.removed_by",
                            (game_id, removed_seat, removed_by)))
        if interaction_id is not None:
            summary = {"action": dict(action or {}), "version": played.version, "first_seq": played.first_seq,
                       "last_seq": last_seq, "status": played.status}
            self.write(Step("INSERT INTO interactions (game_id, interaction_id, result, created_at) "
                            "VALUES (?, ?, ?, ?)", (game_id, interaction_id, dumps(summary), self.now)))
        starts = [(game_id, e["turn"], played.first_seq, record.state_json) for e in played.events
                  if e["type"] == "turn_started"]
        if starts and record.state_json is not None:
            self.write(Step("INSERT INTO log_turns (game_id, turn, seq, state) VALUES (?, ?, ?, ?) "
                            "ON CONFLICT (game_id, turn) DO NOTHING", starts, many=True))

    def store_start(self, state_json: str, status: str, events: Sequence[Event]) -> None:
        """The rows of a game's start: its state, status and opening events."""
        self.write(
            Step("UPDATE games SET status = ?, state = ?, state_schema = ?, version = version + 1, "
                 "last_seq = ?, updated_at = ? WHERE id = ?",
                 (status, state_json, SCHEMA_VERSION, len(events), self.now, self.game_id)),
            append_events(self.game_id, 1, events), *turn_steps(self.game_id, events, self.now))

    def store_claim(self, record: GameRecord, seat: int, holders: Iterable[tuple[int, int, str]],
                    user_id: int, name: str, state_json: str, events: Sequence[Event]) -> None:
        """A substitute takes a seat (``holders``: the seat's players to remember, ``(since turn, user, name)``),
        with the events of the claim."""
        self.write(
            Step("INSERT INTO seat_holders (game_id, seat, since_turn, user_id, name) VALUES (?, ?, ?, ?, ?)",
                 [(self.game_id, seat, since, user, who) for since, user, who in holders], many=True),
            Step("UPDATE players SET user_id = ?, ai_level = NULL, name = ? WHERE game_id = ? AND seat = ?",
                 (user_id, name, self.game_id, seat)),
            Step("UPDATE seat_status SET booted_user_id = NULL, booted_name = NULL, missed = 0, offer = NULL, "
                 "offer_message = NULL, takeover_message = NULL, vacation_until = NULL, vacation_days = 0 "
                 "WHERE game_id = ? AND seat = ?", (self.game_id, seat)),
            Step("UPDATE games SET state = ?, state_schema = ?, version = version + 1, last_seq = ?, "
                 "updated_at = ? WHERE id = ?", (state_json, SCHEMA_VERSION, record.last_seq + len(events),
                                                 self.now, self.game_id)),
            append_events(self.game_id, record.last_seq + 1, events))

    def set_deadline(self, seat: int, kind: str, due_at: float) -> Deadline:
        """Set (or move) a seat's timer of a kind (a game that is over or cancelled keeps none)."""
        self.write(Step("INSERT INTO deadlines (game_id, seat, kind, due_at) SELECT ?, ?, ?, ? WHERE EXISTS "
                        "(SELECT 1 FROM games WHERE id = ? AND status IN ('lobby', 'running', 'paused')) "
                        "ON CONFLICT (game_id, seat, kind) DO UPDATE SET due_at = excluded.due_at",
                        (self.game_id, seat, kind, float(due_at), self.game_id)))
        return Deadline(self.game_id, seat, kind, float(due_at))

    def clear_deadlines(self, seat: int | None = None, kind: str | None = None) -> None:
        """Remove the game's timers (only a seat's, or of a kind, if given)."""
        self.write(Step("DELETE FROM deadlines WHERE game_id = ? AND (CAST(? AS INTEGER) IS NULL OR seat = ?) "
                        "AND (CAST(? AS TEXT) IS NULL OR kind = ?)", (self.game_id, seat, seat, kind, kind)))

    def missed_turn(self, status: SeatStatus, turn_key: str) -> SeatStatus:
        """Count a missed turn of the seat ``status`` is of, once per ``turn_key``; the status after it."""
        if status.last_missed_turn == turn_key:
            return status
        self.write(_seat_row(self.game_id, status.seat),
                   Step("UPDATE seat_status SET missed = missed + 1, last_missed_turn = ? WHERE game_id = ? "
                        "AND seat = ?", (turn_key, self.game_id, status.seat)),
                   Step(MISSED_TURN, (self.game_id, status.seat)))
        return replace(status, missed=status.missed + 1, last_missed_turn=turn_key)

    def vacation(self, status: SeatStatus, until: float, days: int) -> SeatStatus:
        """The seat ``status`` is of is on vacation until ``until``, ``days`` more of the game's days taken."""
        self.write(_seat_row(self.game_id, status.seat),
                   Step("UPDATE seat_status SET vacation_until = ?, vacation_days = vacation_days + ? "
                        "WHERE game_id = ? AND seat = ?", (until, days, self.game_id, status.seat)))
        return replace(status, vacation_until=until, vacation_days=status.vacation_days + days)

    def reset_missed(self, seat: int) -> None:
        """The player acted: their count of missed turns in a row starts again."""
        self.write(Step("UPDATE seat_status SET missed = 0 WHERE game_id = ? AND seat = ? AND missed > 0",
                        (self.game_id, seat)))


def _seat_row(game_id: int, seat: int) -> Step:
    return Step(_SEAT_ROW.sql, (game_id, seat))


__all__ = ["GAME_WITH_SEATS", "GameChange", "Head", "Played", "append_events", "dumps", "load_game", "orders_step",
           "records", "seat_name"]
