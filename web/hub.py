"""The open boards of every game, and what each is sent when its game changes.

The table tells the hub that a game changed (``Table.watchers``); the hub reads the events stored since each
board's last one and sends every board its own projection: the events as ``engine.fog.events_for`` shows them
to that viewer (in the words the channel reads, ``present.text.describe``) and the board as
``web.board.view`` builds it from ``engine.fog.state_for``. A board that reconnects says the last event it saw
and is sent what came after. One refresh of a game at a time; changes that arrive meanwhile are taken in the
next one.

Every message is checked against the store as it goes: before a board is sent anything (an update, the answer to
its ``hello``), its viewer's ``still`` is asked whether the game as just read still lets them see it (the seat still
theirs, the session not revoked); if not, the board is closed with the reason (``close``) and sent nothing more,
so a seat that changed hands (an AI's takeover, a substitute's claim) is never shown to its former player again.
A board whose socket has closed is dropped quietly.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from engine import Event, Game, GameState
from engine.fog import Audience, events_for
from ops import metrics
from present.text import describe
from store import GameRecord, StoreReader
from table import turn_deadline

from .board import battles, diff, view, window_state

log = logging.getLogger(__name__)
MAX_LOG_LINES = 60
MAX_BATTLES = 60  # rolls and conquests sent at once (a long blitz's, or what a page missed)
CATCH_UP = 500   # events a board may be behind and still be told them one by one on the event loop


class Gone(Exception):
    """A board that may not be sent anything more (``reason``: seat, session, missing), or whose socket closed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _always(record: GameRecord) -> str | None:
    return None


async def _nothing(reason: str) -> None:
    return None


@dataclass(eq=False)
class Viewer:
    """One open board: who looks (``audience``: their seat, None for a spectator), in which language, and the
    last event it was sent. ``still`` says why the viewer may no longer see the game as ``record`` holds it
    (None: they may); ``close`` ends the board with that reason."""

    game_id: int
    audience: Audience
    language: str
    send: Callable[[dict[str, Any]], Awaitable[None]]
    seq: int = -1  # nothing sent yet
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    still: Callable[[GameRecord], str | None] = _always
    close: Callable[[str], Awaitable[None]] = _nothing
    closed: bool = False
    shown: dict[str, Any] | None = None  # the board last sent (None: the next is sent whole, not as a change)


class Hub:
    def __init__(self, store: StoreReader, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.boards: dict[int, set[Viewer]] = {}
        metrics.boards_open(lambda: sum(len(boards) for boards in self.boards.values()))
        self._dirty: set[int] = set()
        self._running: dict[int, asyncio.Task[None]] = {}
        self._states: dict[int, tuple[int, GameState]] = {}  # the last board of each game the hub read

    def join(self, board: Viewer) -> None:
        self.boards.setdefault(board.game_id, set()).add(board)

    def leave(self, board: Viewer) -> None:
        boards = self.boards.get(board.game_id)
        if boards is not None:
            boards.discard(board)
            if not boards:
                del self.boards[board.game_id]
                self._states.pop(board.game_id, None)

    def changed(self, game_id: int) -> None:
        """A game changed (called by the table): every open board of it is brought up to date, soon."""
        if game_id not in self.boards:
            return
        self._dirty.add(game_id)
        if game_id not in self._running:
            self._running[game_id] = asyncio.get_running_loop().create_task(self._refresh_loop(game_id))

    async def _refresh_loop(self, game_id: int) -> None:
        try:
            while game_id in self._dirty:
                self._dirty.discard(game_id)
                boards = [b for b in self.boards.get(game_id, ()) if b.seq >= 0]  # the others are saying hello
                if not boards:
                    continue
                moment = await self._moment(game_id, min(b.seq for b in boards))
                for board in boards:
                    try:
                        await self._send(board, moment)
                    except Gone as gone:
                        await self.drop(board, gone.reason)
                    except Exception:  # one board's failure never stops the others
                        log.exception("board of game %s: the update failed", game_id)
                self._remember(moment)
        finally:
            self._running.pop(game_id, None)

    async def _state_at(self, game_id: int, seq: int) -> GameState | None:
        """The full board after event ``seq`` (None before the game started)."""
        cached = self._states.get(game_id)
        if cached is not None and cached[0] == seq:
            return cached[1]
        if seq <= 0:
            return None
        return await self.store.with_window(game_id, seq, window_state)   # in the log's worker: one turn of it

    async def _moment(self, game_id: int, since: int) -> _Moment:
        """The game as stored now, and its events after ``since`` (read once for every board of the game)."""
        record = await self.store.get_game(game_id)
        since = max(0, min(since, record.last_seq))
        events = await self.store.events(game_id, since_seq=since) if since < record.last_seq else []
        game = record.game() if record.state_json is not None else None
        return _Moment(game_id, record, record.last_seq, game, since, events, await self._deadline(game_id))

    async def _deadline(self, game_id: int) -> float | None:
        """The seconds left in the current turn (None: no deadline runs)."""
        due = turn_deadline(await self.store.game_deadlines(game_id))
        return None if due is None else max(0.0, due.due_at - self.clock())

    async def drop(self, board: Viewer, reason: str) -> None:
        """Close ``board`` for ``reason`` (``closed``: its socket is gone already) and forget it."""
        self.leave(board)
        if not board.closed:
            board.closed = True
            await board.close(reason)

    def _remember(self, moment: _Moment) -> None:
        if moment.game is not None and moment.game_id in self.boards:
            self._states[moment.game_id] = (moment.seq, moment.game.state)

    async def _send(self, board: Viewer, moment: _Moment, since: int | None = None,
                    lines: list[str] | None = None) -> None:
        """Send ``board`` what happened after event ``since`` (default: the last it was sent) and the board now."""
        async with board.lock:
            game = moment.game
            if board.closed:
                raise Gone("closed")
            refused = board.still(moment.record)
            if refused is not None:
                raise Gone(refused)
            if game is None:
                return
            seen = max(moment.since, min(board.seq if since is None else since, moment.seq))
            if since is None and board.seq == moment.seq:
                return  # nothing new for this board
            key = (board.audience, board.language, seen)
            if lines is not None:
                moment.told[key] = lines
            if key not in moment.told:
                new = moment.events[seen - moment.since:]
                told: list[str] = []
                fights: list[dict[str, Any]] = []
                if new:
                    before = await self._state_at(board.game_id, seen)
                    shown = events_for(new, board.audience, before=before)
                    visible = [e for e in shown if not e.get("hidden")]
                    told = describe(visible, game.state, game.board, board.language, page=True)[-MAX_LOG_LINES:]
                    fights = battles(visible)[-MAX_BATTLES:]
                moment.told[key] = told
                moment.fights[key] = fights
            viewed = (board.audience, board.language)
            if viewed not in moment.views:
                moment.views[viewed] = view(game, board.audience, board.language, moment.seq, moment.deadline)
            now = moment.views[viewed]
            message: dict[str, Any] = {"type": "board", "seq": moment.seq, "since": seen, "lines": moment.told[key],
                                       "battles": moment.fights.get(key, [])}
            if board.shown is None:
                message["board"] = now
            else:
                message["diff"] = diff(board.shown, now)
            await board.send(message)
            board.seq = moment.seq
            board.shown = now

    async def bring_up_to_date(self, board: Viewer, since: int | None = None) -> None:
        """Send ``board`` what happened after event ``since`` (default: the last it was sent) and the board now
        (a board that connects or reconnects; a refused move, so the board shows the game as it is)."""
        start = max(0, board.seq if since is None else since)
        record = await self.store.get_game(board.game_id)
        lines = None
        if record.last_seq - start > CATCH_UP and record.state_json is not None:
            # Far behind (a first hello on a long game): the last lines only, as /risk log reads them (the last
            # turns' events, projected in the boards' worker), not the whole log described on the event loop.
            game = record.game()
            if board.still(record) is None:
                shown = await self.store.recent_events(board.game_id, board.audience, MAX_LOG_LINES,
                                                       for_board=True)
                lines = describe(shown, game.state, game.board, board.language, page=True)[-MAX_LOG_LINES:]
            moment = _Moment(board.game_id, record, record.last_seq, game, start, [],
                             await self._deadline(board.game_id))
        else:
            moment = await self._moment(board.game_id, start)
        try:
            await self._send(board, moment, start, lines)
        except Gone as gone:
            await self.drop(board, gone.reason)
            return
        if self._states.get(board.game_id, (-1,))[0] < moment.seq:
            self._remember(moment)  # the next change's events are projected from this board, not the log's worker


@dataclass
class _Moment:
    """One read of a game for its boards: the record's board and the events after ``since``, and what was built
    from them for each audience and language (built once, sent to every board that shares it)."""

    game_id: int
    record: GameRecord
    seq: int
    game: Game | None
    since: int
    events: list[Event]
    deadline: float | None = None
    views: dict[tuple[Audience, str], dict[str, Any]] = field(default_factory=dict)
    told: dict[tuple[Audience, str, int], list[str]] = field(default_factory=dict)
    fights: dict[tuple[Audience, str, int], list[dict[str, Any]]] = field(default_factory=dict)


__all__ = ["Gone", "Hub", "Viewer"]
