"""The SQL every backend shares: lobbies, actions, timers and preferences, written once.

``SQLStore`` holds the logic of the store and its SQL (written with ``?`` placeholders); a backend supplies the
connection: ``_transaction(game_id)`` (one atomic write that first locks the game it changes, until the commit),
``_reading()`` and ``_unique_violation``. ``SQLiteStore`` (store/sqlite.py) serialises every write with
``BEGIN IMMEDIATE`` and needs no other lock; ``PostgresStore`` (store/postgres.py) locks the game's row with
``SELECT ... FOR UPDATE`` in a statement of its own before the transaction reads the game (each later statement
then sees what the previous holder of the lock committed), so processes sharing one database never apply two
actions to a game at once.

Within one process, writes to one game are also serialised by a per-game lock taken *before* a connection, so
a burst of taps on one game queues behind that game's lock and never in front of other games. Each write runs
in its own task, shielded from the caller's cancellation, so a transaction is never abandoned half-way.

A small cache keeps the engine ``Game`` of recently played games with the version it matches; an action
checks the stored version in its transaction (under the game's lock) and reads and parses the state again only
when it differs, so a game changed by another process is read afresh.
"""

from __future__ import annotations

import abc
import asyncio
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any, TypeVar, cast

from engine import Event, Settings, registered_map
from engine.errors import Phrase
from engine.events import View
from engine.fog import Audience

from .backend import Reading, Writing, reads, shard_filter, shielded, writes, writes_game
from .base import Store
from .change import GAME_WITH_SEATS, GameChange, dumps, load_game, orders_step, records, seat_name
from .errors import (
    AlreadySeated,
    ChannelBusy,
    GameNotRunning,
    InvalidValue,
    LobbyFull,
    NotInLobby,
    NotSeated,
    StatusWord,
    StoreError,
    UnknownGame,
)
from .logs import (
    CHUNK,
    INLINE,
    chunk,
    export_text,
    in_board_worker,
    in_thread,
    in_worker,
    tail_view,
    with_events,
)
from .maps import MapsMixin
from .records import (
    ACTIVE_STATUSES,
    AI_LEVELS,
    CANCELLED,
    FINISHED,
    LOBBY,
    MAX_SEATS,
    NOTIFY_MODES,
    PAUSED,
    RUNNING,
    STATUSES,
    Deadline,
    GameRecord,
    GuildSettings,
    HealthCounts,
    LivePanel,
    OrdersProgress,
    SeatRecord,
    SeatStatus,
    Shards,
    StoredOrders,
    UserPrefs,
    known_time_zone,
    status_word,
)
from .results import MISSED_TURN, ResultQueries
from .seasons import SeasonQueries
from .tournaments import TournamentsMixin
from .transaction import Step

T = TypeVar("T")
log = logging.getLogger(__name__)

_ACTIVE_SQL = "('lobby', 'running', 'paused')"
_GAME_WITH_SEATS = GAME_WITH_SEATS
# Used at start-up to resume games: it must stay a search of the status index (a test checks the plan).
RUNNING_GAMES_SQL = "SELECT id FROM games WHERE status = 'running'"
_HHMM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")


def _decode_rows(rows: Sequence[str]) -> list[Event]:
    return [json.loads(row) for row in rows]


@dataclass
class _GameLock:
    lock: asyncio.Lock
    users: int = 0



class SQLStore(SeasonQueries, ResultQueries, MapsMixin, TournamentsMixin, Store):
    """The store's logic on any SQL backend (see the module's docstring for what a backend supplies)."""

    def __init__(self, *, cache_size: int, clock: Callable[[], float]) -> None:
        self.cache_size = cache_size
        self._clock = clock
        self._game_locks: dict[int, _GameLock] = {}
        self._inflight: set[asyncio.Task[Any]] = set()
        # Called when the store closes: what was kept of its games is forgotten (table/play.py's cache).
        self.on_close: list[Callable[[], None]] = []

    # -- what a backend supplies (and ``_transaction``, ``_reading``: see ``Backend``) --------------------
    @abc.abstractmethod
    def _unique_violation(self, exc: BaseException) -> bool:
        """Whether a write failed on a unique index (a second active game in a channel)."""

    async def _lock_ratings(self, db: Writing, guild_id: int) -> None:
        """Lock a server's ratings until the commit, so that two games of it ending at once are rated one after
        the other (the second from what the first gave). SQLite needs nothing: ``BEGIN IMMEDIATE`` serialises
        every writer of the file."""

    def _closed(self) -> None:
        for forget in self.on_close:
            forget()

    async def _wait_inflight(self) -> None:
        if self._inflight:
            await asyncio.gather(*self._inflight, return_exceptions=True)


    async def _run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run database work in its own task, so cancelling the caller never leaves a transaction open. A refusal
        or an error of the work is raised to the caller, not left on the task (a rolled-back change is expected)."""
        task = asyncio.get_running_loop().create_task(_caught(work))
        self._inflight.add(task)
        task.add_done_callback(self._finished)
        done, error = await asyncio.shield(task)
        if error is not None:
            raise error
        return cast(T, done)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._inflight.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved here in case the caller was cancelled and will never look


    @asynccontextmanager
    async def _serialised(self, game_id: int) -> AsyncIterator[None]:
        """Writes to one game, one at a time and in arrival order."""
        entry = self._game_locks.get(game_id)
        if entry is None:
            entry = self._game_locks[game_id] = _GameLock(asyncio.Lock())
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if entry.users == 0:
                del self._game_locks[game_id]

    # -- a unit of work ----------------------------------------------------------------------------------
    async def change(self, game_id: int, work: Callable[[GameChange], Awaitable[T]]) -> T:
        return await self._change(game_id, work)

    @writes_game
    async def _change(self, db: Writing, game_id: int, work: Callable[[GameChange], Awaitable[T]]) -> T:
        change = GameChange(db, game_id, self._clock, self._lock_ratings)
        done = await work(change)
        await db.commit(*change.writes)
        for call in change.committed:
            call()
        return done

    # -- loading -----------------------------------------------------------------------------------
    @staticmethod
    async def _load(db: Reading, game_id: int) -> GameRecord:
        return await load_game(db, game_id)

    @reads
    async def get_game(self, db: Reading, game_id: int) -> GameRecord:
        return await self._load(db, game_id)

    @reads
    async def get_active_game(self, db: Reading, channel_id: int) -> GameRecord | None:
        rows = await db.fetch(
            f"{_GAME_WITH_SEATS} WHERE g.channel_id = ? AND g.status IN {_ACTIVE_SQL} ORDER BY p.seat",
            (channel_id,))
        found = records(rows)
        return found[0] if found else None

    async def list_games(self, status: str | None = None, *, guild_id: int | None = None,
                         channel_id: int | None = None, limit: int | None = None) -> list[GameRecord]:
        if status is not None and status not in STATUSES:
            raise InvalidValue("Unknown game status “{status}”; statuses: {statuses}.", status=status,
                               statuses=", ".join(STATUSES))
        where: list[str] = []
        params: list[Any] = []
        for column, value in (("status", status), ("guild_id", guild_id), ("channel_id", channel_id)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        chosen = "SELECT id FROM games" + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY id DESC"
        if limit is not None:
            chosen += " LIMIT ?"
            params.append(int(limit))
        return await self._select_games(chosen, params, newest_first=True)

    async def running_games(self) -> list[GameRecord]:
        return await self._select_games(RUNNING_GAMES_SQL, [], newest_first=False)

    @reads
    async def _select_games(self, db: Reading, chosen: str, params: Sequence[Any],
                            newest_first: bool) -> list[GameRecord]:
        """Records of the games whose ids the query ``chosen`` selects, read in one statement."""
        order = "DESC" if newest_first else "ASC"
        sql = f"{_GAME_WITH_SEATS} WHERE g.id IN ({chosen}) ORDER BY g.id {order}, p.seat"
        return records(await db.fetch(sql, params))

    @shielded
    async def events(self, game_id: int, since_seq: int = 0) -> list[Event]:
        rows = [row for part in await self._event_rows(game_id, since_seq) for row in part]
        return _decode_rows(rows) if len(rows) < INLINE else await in_thread(_decode_rows, rows)

    async def _event_rows(self, game_id: int, since_seq: int = 0, upto: int | None = None) -> list[list[str]]:
        """The stored events after ``since_seq`` (up to ``upto``, by default the last) as their JSON text, read
        ``CHUNK`` at a time so that no single read holds the connection for long."""
        return [part async for part in self._event_parts(game_id, since_seq, upto)]

    async def _event_parts(self, game_id: int, since_seq: int, upto: int | None) -> AsyncIterator[list[str]]:
        async with self._reading() as db:
            head = await db.fetch("SELECT last_seq FROM games WHERE id = ?", (game_id,))
        if not head:
            raise UnknownGame("There is no game #{id}.", id=game_id)
        last = int(head[0][0]) if upto is None else min(int(upto), int(head[0][0]))
        after = since_seq
        while after < last:
            async with self._reading() as db:
                rows = await db.fetch("SELECT seq, event FROM events WHERE game_id = ? AND seq > ? AND seq <= ? "
                                      "ORDER BY seq LIMIT ?", (game_id, after, last, CHUNK))
            if not rows:
                break
            after = int(rows[-1][0])
            yield [row[1] for row in rows]

    async def _event_chunks(self, game_id: int, since_seq: int = 0, upto: int | None = None) -> list[bytes]:
        """The stored events as chunks of JSON Lines, to hand to the log's worker process (store/logs.py). Each
        read becomes one chunk at once: the bot's process never holds a long log's rows (its garbage
        collections would walk them all)."""
        return [chunk(part) async for part in self._event_parts(game_id, since_seq, upto)]

    @shielded
    async def log_text(self, game_id: int) -> bytes:
        return b"".join(await self._event_chunks(game_id))

    @shielded
    async def export_log(self, game_id: int, audience: Audience) -> bytes:
        return await in_worker(export_text, await self._event_chunks(game_id), audience)

    @shielded
    async def recent_events(self, game_id: int, audience: Audience, count: int, *,
                            for_board: bool = False) -> list[View]:
        run = in_board_worker if for_board else in_worker
        async with self._reading() as db:
            head = await db.fetch("SELECT status, last_seq FROM games WHERE id = ?", (game_id,))
        if not head:
            raise UnknownGame("There is no game #{id}.", id=game_id)
        status, last = head[0][0], int(head[0][1])
        if status == FINISHED:  # after the end every event is shown as it is: the last ones are enough
            shown = await run(tail_view, await self._event_chunks(game_id, max(0, last - count)), None,
                              audience, count, False)
            if shown is not None:
                return shown
        turns = 2
        while True:  # the last turns, further back while they show this audience too few events
            async with self._reading() as db:
                starts = await db.fetch("SELECT seq, state FROM log_turns WHERE game_id = ? AND seq <= ? "
                                        "ORDER BY turn DESC LIMIT ?", (game_id, last, turns))
            whole = len(starts) < turns  # the turns noted do not go back far enough: the whole log
            since, before = (0, None) if whole else (int(starts[-1][0]) - 1, str(starts[-1][1]))
            shown = await run(tail_view, await self._event_chunks(game_id, since, last), before,
                              audience, count, whole)
            if shown is not None:
                return shown
            turns *= 4

    @shielded
    async def with_window(self, game_id: int, seq: int, work: Callable[..., T], *args: Any) -> T:
        async with self._reading() as db:
            rows = await db.fetch("SELECT seq, state FROM log_turns WHERE game_id = ? AND seq <= ? "
                                  "ORDER BY turn DESC LIMIT 1", (game_id, seq))
        start, before = (int(rows[0][0]), str(rows[0][1])) if rows else (1, None)
        chunks = await self._event_chunks(game_id, start - 1, seq)
        return await in_board_worker(with_events, chunks, work, before, *args)

    @shielded
    async def with_log(self, game_id: int, work: Callable[..., T], *args: Any) -> T:
        return await in_worker(with_events, await self._event_chunks(game_id), work, *args)

    # -- lobby -------------------------------------------------------------------------------------
    @writes
    async def create_lobby(self, db: Writing, guild_id: int | None, channel_id: int, host_id: int, host_name: str,
                           settings: Mapping[str, Any] | None = None) -> GameRecord:
        busy = await db.fetch(
            f"SELECT id, status FROM games WHERE channel_id = ? AND status IN {_ACTIVE_SQL}", (channel_id,))
        if busy:
            raise ChannelBusy("This channel already has a game (#{id}, {status}). Finish or cancel it "
                              "before starting another.", id=busy[0][0], status=status_word(busy[0][1]))
        chosen: dict[str, Any] = {}
        if guild_id is not None:  # the guild's defaults, then what was chosen for this game
            rows = await db.fetch("SELECT default_settings FROM guild_settings WHERE guild_id = ?", (guild_id,))
            chosen = dict(json.loads(rows[0][0])) if rows else {}
        chosen.update(settings or {})
        normalised = Settings.from_dict(chosen).to_dict()
        name = seat_name(host_name)
        now = self._clock()
        try:
            rows = await db.fetch(
                "INSERT INTO games (guild_id, channel_id, status, settings, host_id, created_at, updated_at) "
                "VALUES (?, ?, 'lobby', ?, ?, ?, ?) RETURNING id",
                (guild_id, channel_id, dumps(normalised), host_id, now, now))
        except Exception as exc:
            if not self._unique_violation(exc):
                raise
            raise ChannelBusy("This channel already has a game. Finish or cancel it before starting "
                              "another.") from exc
        game_id = int(rows[0][0])
        await db.commit(Step("INSERT INTO players (game_id, seat, user_id, ai_level, name, colour) "
                             "VALUES (?, 0, ?, NULL, ?, 0)", (game_id, host_id, name)))
        host = SeatRecord(seat=0, user_id=host_id, ai_level=None, name=name, colour=0)
        return GameRecord(id=game_id, guild_id=guild_id, channel_id=channel_id, status=LOBBY,
                          settings=normalised, host_id=host_id, players=(host,), state_json=None,
                          state_schema=None, version=0, last_seq=0, created_at=now, updated_at=now)

    @writes_game
    async def _change_lobby(self, db: Writing, game_id: int, change: Callable[[GameRecord], GameRecord]) -> GameRecord:
        """Read a lobby, let ``change`` return its new seats/settings/host/status, write them as one version."""
        record = await self._load(db, game_id)
        if record.status != LOBBY:
            raise NotInLobby("Game #{id} is {status}: seats and settings change only in the lobby.",
                             id=game_id, status=status_word(record.status))
        changed = change(record)
        seats = [replace(p, seat=i) for i, p in enumerate(changed.players)]
        now = self._clock()
        await db.commit(
            Step("DELETE FROM players WHERE game_id = ?", (game_id,)),
            Step("INSERT INTO players (game_id, seat, user_id, ai_level, name, colour) "
                 "VALUES (?, ?, ?, ?, ?, ?)",
                 [(game_id, p.seat, p.user_id, p.ai_level, p.name, p.colour) for p in seats], many=True),
            Step("UPDATE games SET settings = ?, host_id = ?, status = ?, version = version + 1, "
                 "updated_at = ? WHERE id = ?",
                 (dumps(changed.settings), changed.host_id, changed.status, now, game_id)),
            *_clear_deadlines_if(changed.status == CANCELLED, game_id))
        return replace(changed, players=tuple(seats), version=record.version + 1, updated_at=now)

    async def join(self, game_id: int, user_id: int, name: str) -> GameRecord:
        def change(record: GameRecord) -> GameRecord:
            seat = record.seat_of(user_id)
            if seat is not None:
                raise AlreadySeated("You are already seated in this game (seat {seat}).", seat=seat + 1)
            return replace(record, players=(*record.players, self._new_seat(record, user_id, None, name)))
        return await self._change_lobby(game_id, change)

    async def add_ai(self, game_id: int, level: str = "normal", name: str | None = None) -> GameRecord:
        if level not in AI_LEVELS:
            # The levels are shown as they are written (they are what the store accepts); "or" is translated.
            raise InvalidValue("There is no AI level “{level}”; choose {levels}.", level=level,
                               levels=Phrase(", ".join(AI_LEVELS[:-1]), AI_LEVELS[-1]))

        def change(record: GameRecord) -> GameRecord:
            label = name
            if label is None:
                names = {p.name for p in record.players}
                base = f"{level.capitalize()} AI"
                label = next(n for n in (base, *(f"{base} {i}" for i in range(2, MAX_SEATS + 2))) if n not in names)
            return replace(record, players=(*record.players, self._new_seat(record, None, level, label)))
        return await self._change_lobby(game_id, change)

    @staticmethod
    def _new_seat(record: GameRecord, user_id: int | None, level: str | None, name: str) -> SeatRecord:
        seats = _seats_on_map(record)
        if len(record.players) >= seats:
            raise LobbyFull("The lobby is full: Risk is played by at most {n} players.", n=seats)
        used = {p.colour for p in record.players}
        colour = min(c for c in range(MAX_SEATS) if c not in used)
        return SeatRecord(seat=len(record.players), user_id=user_id, ai_level=level, name=seat_name(name),
                          colour=colour)

    async def leave(self, game_id: int, user_id: int) -> GameRecord:
        def change(record: GameRecord) -> GameRecord:
            seat = record.seat_of(user_id)
            if seat is None:
                raise NotSeated("You are not seated in this game.")
            return self._without_seat(record, seat)
        return await self._change_lobby(game_id, change)

    async def kick(self, game_id: int, seat: int) -> GameRecord:
        def change(record: GameRecord) -> GameRecord:
            if not 0 <= seat < len(record.players):
                raise NotSeated("Nobody sits in seat {seat}.", seat=seat + 1)
            return self._without_seat(record, seat)
        return await self._change_lobby(game_id, change)

    @staticmethod
    def _without_seat(record: GameRecord, seat: int) -> GameRecord:
        """The lobby without a seat; the host role passes to the next human, and a lobby with none is cancelled."""
        leaving = record.players[seat]
        players = tuple(p for p in record.players if p.seat != seat)
        humans = [p for p in players if not p.is_ai]
        host_id, status = record.host_id, record.status
        if leaving.user_id == record.host_id:
            next_host = humans[0].user_id if humans else None
            if next_host is not None:
                host_id = next_host
            else:
                status = CANCELLED
        return replace(record, players=players, host_id=host_id, status=status)

    async def update_settings(self, game_id: int, changes: Mapping[str, Any]) -> GameRecord:
        def change(record: GameRecord) -> GameRecord:
            settings = Settings.from_dict({**record.settings, **changes}).to_dict()
            return replace(record, settings=settings)
        return await self._change_lobby(game_id, change)

    @writes_game
    async def _set_status(self, db: Writing, game_id: int, allowed: Sequence[str], status: str,
                          refusal: Callable[[StatusWord], StoreError]) -> GameRecord:
        """Move a game whose status is one of ``allowed`` to ``status``; otherwise raise ``refusal(its status)``."""
        record = await self._load(db, game_id)
        if record.status not in allowed:
            raise refusal(status_word(record.status))
        now = self._clock()
        await db.commit(Step("UPDATE games SET status = ?, version = version + 1, updated_at = ? WHERE id = ?",
                             (status, now, game_id)),
                        *_clear_deadlines_if(status == CANCELLED, game_id))
        return replace(record, status=status, version=record.version + 1, updated_at=now)

    async def pause(self, game_id: int) -> GameRecord:
        return await self._set_status(game_id, (RUNNING,), PAUSED, lambda now: GameNotRunning(
            "Game #{id} is {status}; only a running game can be paused.", id=game_id, status=now))

    async def resume(self, game_id: int) -> GameRecord:
        return await self._set_status(game_id, (PAUSED,), RUNNING, lambda now: GameNotRunning(
            "Game #{id} is {status}, not paused.", id=game_id, status=now))

    async def cancel(self, game_id: int) -> GameRecord:
        return await self._set_status(game_id, ACTIVE_STATUSES, CANCELLED, lambda now: GameNotRunning(
            "Game #{id} is already {status}.", id=game_id, status=now))

    # -- preferences and settings ------------------------------------------------------------------
    @reads
    async def get_user_prefs(self, db: Reading, user_id: int) -> UserPrefs:
        rows = await db.fetch(
            "SELECT language, notify, quiet_start, quiet_end, timezone FROM user_prefs WHERE user_id = ?",
            (user_id,))
        if not rows:
            return UserPrefs(user_id)
        language, notify, quiet_start, quiet_end, timezone = rows[0]
        return UserPrefs(user_id, language, notify, quiet_start, quiet_end, timezone)

    @writes
    async def set_user_prefs(self, db: Writing, prefs: UserPrefs) -> UserPrefs:
        _check_prefs(prefs)
        await db.commit(Step(
            "INSERT INTO user_prefs (user_id, language, notify, quiet_start, quiet_end, timezone, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET language = excluded.language, "
            "notify = excluded.notify, quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end, "
            "timezone = excluded.timezone, updated_at = excluded.updated_at",
            (prefs.user_id, prefs.language, prefs.notify, prefs.quiet_start, prefs.quiet_end, prefs.timezone,
             self._clock())))
        return prefs

    @reads
    async def get_guild_settings(self, db: Reading, guild_id: int) -> GuildSettings:
        rows = await db.fetch(
            "SELECT default_settings, allowed_channels FROM guild_settings WHERE guild_id = ?", (guild_id,))
        if not rows:
            return GuildSettings(guild_id)
        return GuildSettings(guild_id, json.loads(rows[0][0]), tuple(json.loads(rows[0][1])))

    @writes
    async def set_guild_settings(self, db: Writing, settings: GuildSettings) -> GuildSettings:
        Settings.from_dict(dict(settings.default_settings))  # SettingsError if the engine would refuse them
        channels = tuple(int(c) for c in settings.allowed_channels)
        saved = replace(settings, default_settings=dict(settings.default_settings), allowed_channels=channels)
        await db.commit(Step(
            "INSERT INTO guild_settings (guild_id, default_settings, allowed_channels, updated_at) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET "
            "default_settings = excluded.default_settings, allowed_channels = excluded.allowed_channels, "
            "updated_at = excluded.updated_at",
            (saved.guild_id, dumps(saved.default_settings), dumps(list(channels)), self._clock())))
        return saved

    # -- standing orders ------------------------------------------------------------------------------
    @reads
    async def standing_orders(self, db: Reading, game_id: int, seat: int) -> StoredOrders | None:
        rows = await db.fetch("SELECT game_id, seat, user_id, orders, cursor, turn, left_at FROM standing_orders "
                              "WHERE game_id = ? AND seat = ?", (game_id, seat))
        if not rows:
            return None
        game, seat_, user, text, cursor, turn, left_at = rows[0]
        return StoredOrders(game, seat_, user, json.loads(text), cursor, turn, left_at)

    @writes_game
    async def leave_orders(self, db: Writing, game_id: int, seat: int, user_id: int,
                           orders: Mapping[str, Any]) -> StoredOrders:
        rows = await db.fetch("SELECT status FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise UnknownGame("There is no game #{id}.", id=game_id)
        if rows[0][0] not in (RUNNING, PAUSED):
            raise GameNotRunning("Game #{id} is {status}; no orders can be left.", id=game_id,
                                 status=status_word(rows[0][0]))
        now = self._clock()
        await db.commit(Step(
            "INSERT INTO standing_orders (game_id, seat, user_id, orders, cursor, turn, left_at) "
            "VALUES (?, ?, ?, ?, 0, NULL, ?) ON CONFLICT (game_id, seat) DO UPDATE SET user_id = excluded.user_id, "
            "orders = excluded.orders, cursor = 0, turn = NULL, left_at = excluded.left_at",
            (game_id, seat, user_id, dumps(dict(orders)), now)))
        return StoredOrders(game_id, seat, user_id, dict(orders), 0, None, now)

    @writes_game
    async def cancel_orders(self, db: Writing, game_id: int, seat: int | None = None) -> int:
        where, args = ("game_id = ?", (game_id,)) if seat is None else ("game_id = ? AND seat = ?", (game_id, seat))
        rows = await db.fetch(f"SELECT COUNT(*) FROM standing_orders WHERE {where}", args)
        await db.commit(Step(f"DELETE FROM standing_orders WHERE {where}", args))
        return int(rows[0][0])

    @writes_game
    async def orders_progress(self, db: Writing, game_id: int, progress: OrdersProgress) -> None:
        await db.commit(orders_step(game_id, progress))

    # -- deadlines and reminders ---------------------------------------------------------------------
    @writes_game
    async def set_deadline(self, db: Writing, game_id: int, seat: int, kind: str, due_at: float) -> Deadline:
        if not kind:
            raise InvalidValue("A timer needs a kind (for example “turn” or “reminder”).")
        rows = await db.fetch("SELECT status FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise UnknownGame("There is no game #{id}.", id=game_id)
        if rows[0][0] not in ACTIVE_STATUSES:
            raise GameNotRunning("Game #{id} is {status}; it needs no timers.", id=game_id,
                                 status=status_word(rows[0][0]))
        await db.commit(Step(
            "INSERT INTO deadlines (game_id, seat, kind, due_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (game_id, seat, kind) DO UPDATE SET due_at = excluded.due_at",
            (game_id, seat, kind, float(due_at))))
        return Deadline(game_id, seat, kind, float(due_at))

    @writes
    async def mark_announced(self, db: Writing, game_id: int, seq: int) -> None:
        await db.run(Step(
            "INSERT INTO announced (game_id, seq) VALUES (?, ?) ON CONFLICT (game_id) DO UPDATE SET "
            "seq = CASE WHEN excluded.seq > announced.seq THEN excluded.seq ELSE announced.seq END",
            (game_id, seq)))

    async def unannounced(self) -> list[tuple[GameRecord, int]]:
        return [(await self.get_game(game_id), seq) for game_id, seq in await self._unannounced()]

    @reads
    async def _unannounced(self, db: Reading) -> list[tuple[int, int]]:
        rows = await db.fetch(
            "SELECT g.id, COALESCE(a.seq, 0) FROM games g LEFT JOIN announced a ON a.game_id = g.id "
            "WHERE g.status IN ('running', 'paused') AND g.last_seq > COALESCE(a.seq, 0) ORDER BY g.id")
        return [(int(r[0]), int(r[1])) for r in rows]

    @reads
    async def live_panel(self, db: Reading, game_id: int) -> LivePanel | None:
        rows = await db.fetch("SELECT game_id, channel_id, message_id, seat, turn, since_seq, posted_at "
                              "FROM live_panels WHERE game_id = ?", (game_id,))
        if not rows:
            return None
        r = rows[0]
        return LivePanel(int(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]), int(r[5]), float(r[6]))

    @writes
    async def set_live_panel(self, db: Writing, panel: LivePanel) -> None:
        await db.run(Step(
            "INSERT INTO live_panels (game_id, channel_id, message_id, seat, turn, since_seq, posted_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO UPDATE SET "
            "channel_id = excluded.channel_id, message_id = excluded.message_id, seat = excluded.seat, "
            "turn = excluded.turn, "
            "since_seq = excluded.since_seq, posted_at = excluded.posted_at",
            (panel.game_id, panel.channel_id, panel.message_id, panel.seat, panel.turn, panel.since_seq,
             float(panel.posted_at))))

    @writes
    async def revoke_session(self, db: Writing, nonce: str, expires_at: float, now: float) -> None:
        await db.commit(Step("DELETE FROM board_revocations WHERE expires_at <= ?", (float(now),)),
                        Step("INSERT INTO board_revocations (nonce, expires_at) VALUES (?, ?) "
                             "ON CONFLICT (nonce) DO NOTHING", (nonce, float(expires_at))))

    @reads
    async def revoked_sessions(self, db: Reading, now: float) -> dict[str, float]:
        rows = await db.fetch("SELECT nonce, expires_at FROM board_revocations WHERE expires_at > ?",
                              (float(now),))
        return {str(nonce): float(expires) for nonce, expires in rows}

    @writes
    async def clear_live_panel(self, db: Writing, game_id: int) -> None:
        await db.run(Step("DELETE FROM live_panels WHERE game_id = ?", (game_id,)))

    @writes
    async def clear_deadlines(self, db: Writing, game_id: int, seat: int | None = None, kind: str | None = None) -> int:
        rows = await db.run(Step(
            "DELETE FROM deadlines WHERE game_id = ? AND (CAST(? AS INTEGER) IS NULL OR seat = ?) "
            "AND (CAST(? AS TEXT) IS NULL OR kind = ?) "
            "RETURNING 1", (game_id, seat, seat, kind, kind)))
        return len(rows)

    @reads
    async def next_due(self, db: Reading, shards: Shards | None = None) -> Deadline | None:
        where, params = _shard_filter(shards)
        rows = await db.fetch(f"{_DEADLINES} WHERE {where} ORDER BY d.due_at LIMIT 1", params)
        return Deadline(*rows[0]) if rows else None

    @reads
    async def due_deadlines(self, db: Reading, now: float, shards: Shards | None = None) -> list[Deadline]:
        where, params = _shard_filter(shards)
        rows = await db.fetch(f"{_DEADLINES} WHERE d.due_at <= ? AND {where} ORDER BY d.due_at",
                              (float(now), *params))
        return [Deadline(*row) for row in rows]

    @writes
    async def ping(self, db: Writing) -> None:
        """Whether the database answers: a write transaction that changes nothing (with SQLite it needs the write
        lock, which the bot's every change needs too). Raises ``DatabaseError`` if it cannot."""
        await db.fetch("SELECT 1")

    @reads
    async def health_counts(self, db: Reading, now: float, late: float, shards: Shards | None = None) -> HealthCounts:
        """How many games there are by status, and timers due by ``now`` and due by ``now - late`` (overdue), of
        the games in ``shards``' guilds (for the operator's metrics)."""
        where, params = _shard_filter(shards)
        games = await db.fetch(f"SELECT g.status, COUNT(*) FROM games g WHERE {where} GROUP BY g.status",
                               params)
        timers = await db.fetch(
            "SELECT COALESCE(SUM(CASE WHEN d.due_at <= ? THEN 1 ELSE 0 END), 0), "
            "COALESCE(SUM(CASE WHEN d.due_at <= ? THEN 1 ELSE 0 END), 0) "
            f"FROM deadlines d JOIN games g ON g.id = d.game_id WHERE {where}",
            (float(now), float(now - late), *params))
        return HealthCounts({str(status): int(count) for status, count in games}, int(timers[0][0]),
                            int(timers[0][1]))

    @reads
    async def processed(self, db: Reading, game_id: int, interaction_id: str) -> bool:
        rows = await db.fetch("SELECT 1 FROM interactions WHERE game_id = ? AND interaction_id = ?",
                              (game_id, interaction_id))
        return bool(rows)

    @reads
    async def game_deadlines(self, db: Reading, game_id: int) -> list[Deadline]:
        rows = await db.fetch("SELECT game_id, seat, kind, due_at FROM deadlines WHERE game_id = ? "
                              "ORDER BY due_at", (game_id,))
        return [Deadline(*row) for row in rows]

    # -- absent players ------------------------------------------------------------------------------
    _SEAT_STATUS = ("SELECT game_id, seat, missed, last_missed_turn, vacation_until, vacation_days, booted_user_id, "
                    "booted_name, offer, offer_message, takeover_message FROM seat_status "
                    "WHERE game_id = ? AND seat = ?")

    @reads
    async def seat_status(self, db: Reading, game_id: int, seat: int) -> SeatStatus:
        rows = await db.fetch(self._SEAT_STATUS, (game_id, seat))
        return SeatStatus(*rows[0]) if rows else SeatStatus(game_id, seat)

    async def _seat_change(self, game_id: int, seat: int, *steps: Step) -> SeatStatus:
        await self._change_seat(game_id, seat, *steps)
        return await self.seat_status(game_id, seat)

    @writes_game
    async def _change_seat(self, db: Writing, game_id: int, seat: int, *steps: Step) -> None:
        rows = await db.fetch("SELECT status FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise UnknownGame("There is no game #{id}.", id=game_id)
        await db.commit(Step("INSERT INTO seat_status (game_id, seat) VALUES (?, ?) ON CONFLICT DO NOTHING",
                             (game_id, seat)), *steps)

    async def record_missed_turn(self, game_id: int, seat: int, turn_key: str) -> SeatStatus:
        return await self._seat_change(game_id, seat, Step(
            "UPDATE seat_status SET missed = missed + 1, last_missed_turn = ? WHERE game_id = ? AND seat = ? "
            "AND last_missed_turn IS DISTINCT FROM ?", (turn_key, game_id, seat, turn_key)),
            Step(MISSED_TURN, (game_id, seat)))

    async def replace_with_ai(self, game_id: int, seat: int, level: str = "normal") -> GameRecord:
        await self._replace_with_ai(game_id, seat, level)
        return await self.get_game(game_id)

    @writes_game
    async def _replace_with_ai(self, db: Writing, game_id: int, seat: int, level: str) -> None:
        record = await self._load(db, game_id)
        player = record.player(seat)
        if player.is_ai:
            raise InvalidValue("Seat {seat} is already played by the AI.", seat=seat + 1)
        await db.commit(
            Step("INSERT INTO seat_status (game_id, seat) VALUES (?, ?) ON CONFLICT DO NOTHING",
                 (game_id, seat)),
            Step("UPDATE seat_status SET booted_user_id = ?, booted_name = ?, missed = 0 "
                 "WHERE game_id = ? AND seat = ?", (player.user_id, player.name, game_id, seat)),
            Step("UPDATE players SET user_id = NULL, ai_level = ? WHERE game_id = ? AND seat = ?",
                 (level, game_id, seat)),
            Step("UPDATE games SET version = version + 1, updated_at = ? WHERE id = ?",
                 (self._clock(), game_id)))

    async def reinstate(self, game_id: int, user_id: int) -> GameRecord:
        await self._reinstate(game_id, user_id)
        return await self.get_game(game_id)

    @writes_game
    async def _reinstate(self, db: Writing, game_id: int, user_id: int) -> None:
        rows = await db.fetch("SELECT seat FROM seat_status WHERE game_id = ? AND booted_user_id = ?",
                              (game_id, user_id))
        if not rows:
            raise NotSeated("That player was not replaced in this game.")
        seat = rows[0][0]
        await db.commit(
            Step("UPDATE players SET user_id = ?, ai_level = NULL WHERE game_id = ? AND seat = ?",
                 (user_id, game_id, seat)),
            Step("UPDATE seat_status SET booted_user_id = NULL, booted_name = NULL, missed = 0, "
                 "offer = NULL, offer_message = NULL, takeover_message = NULL WHERE game_id = ? AND seat = ?",
                 (game_id, seat)),
            Step("UPDATE games SET version = version + 1, updated_at = ? WHERE id = ?",
                 (self._clock(), game_id)))

    # -- substitutes: a seat the AI took, offered to another player ------------------------------------------
    @writes_game
    async def set_offer(self, db: Writing, game_id: int, seat: int, offer: str | None) -> SeatStatus:
        """Offer a seat the AI took from its player (``offer``: the offer's key; an open offer keeps its key), or
        withdraw the offer (None). ``NotSeated`` if the seat is not one the AI took over."""
        record = await self._load(db, game_id)
        status = await self._status(db, game_id, seat)
        if not 0 <= seat < len(record.players) or not record.player(seat).is_ai \
                or status.booted_user_id is None:
            raise NotSeated("The AI did not take that seat over from its player.")
        if offer is not None and status.offer is not None:
            return status
        # An offer takes the takeover's button away; a withdrawal closes the offer's message.
        if offer is not None:
            after = replace(status, offer=offer, takeover_message=None)
            change = "offer = ?, takeover_message = NULL"
        else:
            after = replace(status, offer=None, offer_message=None)
            change = "offer = ?, offer_message = NULL"
        await db.commit(Step(f"UPDATE seat_status SET {change} WHERE game_id = ? AND seat = ?",
                             (offer, game_id, seat)))
        return after

    async def _status(self, db: Reading, game_id: int, seat: int) -> SeatStatus:
        rows = await db.fetch(self._SEAT_STATUS, (game_id, seat))
        return SeatStatus(*rows[0]) if rows else SeatStatus(game_id, seat)

    @writes_game
    async def note_seat_message(self, db: Writing, game_id: int, seat: int, *, offer_message: int | None = None,
                                takeover_message: int | None = None) -> None:
        await db.commit(Step(
            "UPDATE seat_status SET offer_message = COALESCE(?, offer_message), "
            "takeover_message = COALESCE(?, takeover_message) WHERE game_id = ? AND seat = ?",
            (offer_message, takeover_message, game_id, seat)))

    @reads
    async def seat_holders(self, db: Reading, game_id: int) -> dict[int, list[tuple[int, int, str]]]:
        rows = await db.fetch("SELECT seat, since_turn, user_id, name FROM seat_holders WHERE game_id = ? "
                              "ORDER BY seat, since_turn", (game_id,))
        out: dict[int, list[tuple[int, int, str]]] = {}
        for seat, since, user, name in rows:
            out.setdefault(int(seat), []).append((int(since), int(user), str(name)))
        return out


_DEADLINES = "SELECT d.game_id, d.seat, d.kind, d.due_at FROM deadlines d JOIN games g ON g.id = d.game_id"


def _shard_filter(shards: Shards | None) -> tuple[str, tuple[int, ...]]:
    """The games of guilds on some gateway shards (a game without a guild is on shard 0), as SQL."""
    return shard_filter(shards, "g.guild_id")


async def _caught(work: Coroutine[Any, Any, T]) -> tuple[T | None, Exception | None]:
    """The work's result, or the exception it raised (the caller raises it)."""
    try:
        return await work, None
    except Exception as exc:
        return None, exc


def _clear_deadlines_if(condition: bool, game_id: int) -> tuple[Step, ...]:
    """Finished and cancelled games keep no timers."""
    return (Step("DELETE FROM deadlines WHERE game_id = ?", (game_id,)),) if condition else ()


def _check_prefs(prefs: UserPrefs) -> None:
    if prefs.language is not None and not _LANGUAGE.match(prefs.language):
        raise InvalidValue("“{language}” is not a language code (like en-GB, no or es-ES).", language=prefs.language)
    if prefs.notify not in NOTIFY_MODES:
        raise InvalidValue("Unknown notification mode “{mode}”; choose {modes}.", mode=prefs.notify,
                           modes=", ".join(NOTIFY_MODES))
    if (prefs.quiet_start is None) != (prefs.quiet_end is None):
        raise InvalidValue("Quiet hours need both a start and an end.")
    for value in (prefs.quiet_start, prefs.quiet_end):
        if value is not None and not _HHMM.match(value):
            raise InvalidValue("“{value}” is not a time of day; write it as HH:MM, like 22:30.", value=value)
    if prefs.timezone is not None and not known_time_zone(prefs.timezone):
        raise InvalidValue("Unknown time zone “{timezone}”; use a name like Europe/Oslo.",
                           timezone=prefs.timezone[:40])


def _seats_on_map(record: GameRecord) -> int:
    """The most players the lobby's map takes (the classic map: 6), never more than ``MAX_SEATS``."""
    board = registered_map(str(record.settings.get("map") or "classic"))
    return min(MAX_SEATS, board.players[1]) if board is not None else MAX_SEATS


__all__ = ["RUNNING_GAMES_SQL", "Reading", "SQLStore", "Writing"]
