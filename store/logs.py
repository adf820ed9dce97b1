"""A game's event log, worked on off the event loop: a long game's log is 100,000 events and more (tens of MB).

The store reads the log's rows in chunks (each read is short) and hands them on as they are stored, JSON Lines
text; everything that grows with the log's length runs in a worker process of the log's own, never in the bot's
process: decoding the events, the audience's projection (``engine.fog``, exactly as for a short game), writing
the export, the end-of-game figures. Not a thread: a thread holds the GIL for its work, and 100,000 decoded
events in the bot's process make each of its full garbage collections last a third of a second. The render
workers stay free for maps: the log's process is a pool of its own on their machinery (``workers.Workers``,
as the AIs' decisions are: table/thinking.py), started with ``spawn`` when first needed, below the bot's priority,
ended when the bot's process is gone, and replaced if it dies (the work is tried once more, its server maps given
again); only text goes in, and only the result (an export's bytes, a few events, a summary) comes back.

``/risk log`` reads only the turns it shows: ``log_turns`` (migration 8) notes where each turn begins in the log
(the first event of the action that started it) and the game just before that action, so the projection of the
last turns starts there (``tail_view``) and gives what the projection of the whole log would end with.

The live boards' work on logs (a replay's moment, the last lines for a board far behind: ``Store.with_window``,
``recent_events(..., for_board=True)``) runs in a second worker process of the same kind, so that one game's boards,
however busy, never hold up another game's ``/risk log``, export or end-of-game report.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from engine import Board, Event, GameState, register_map, registered_map, registered_maps
from engine.events import View
from engine.fog import Audience, events_for, without_hidden
from engine.log import dumps
from workers import Workers

T = TypeVar("T")
Chunks = Sequence[bytes]   # stored events as JSON Lines, a chunk of the log each

CHUNK = 5_000        # events read from the database at a time
INLINE = 2_000       # fewer events than this are decoded where they are read
_threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="risk-log")


class LogWorker:
    """One worker process for logs (workers/: spawned, below the bot's priority, gone with it), and the
    server maps it was given (it knows the built-in ones by itself; a new pool has been given none)."""

    def __init__(self, name: str) -> None:
        self.workers = Workers(1, name)
        self.sent: set[str] = set()
        self.sent_to = 0   # the pool they were given to (``Workers.pools``)

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        return await self.workers.run_task(lambda: self._call(work, args))

    def _call(self, work: Callable[..., T], args: tuple[Any, ...]) -> tuple[Callable[..., T], tuple[Any, ...]]:
        """The call for the worker, with the server maps (boards) it has not been given yet: a game's log on a
        server's map is projected on that board. Each is given once to a pool (its one worker does its work in
        order), and again to the pool that replaces it."""
        if self.sent_to != self.workers.pools:
            self.sent.clear()
            self.sent_to = self.workers.pools
        fresh = tuple(board for board in registered_maps() if board.id not in self.sent)
        self.sent.update(board.id for board in fresh)
        return _with_maps, (fresh, work, *args)

    def shutdown(self) -> None:
        self.workers.shutdown()
        self.sent.clear()


_log = LogWorker("log")   # whole logs: /risk log, exports, the end's report, the AIs' recollection
# the live boards' replays and catch-ups: a game's boards never hold up another's log reads
_boards = LogWorker("board")
_workers = _log.workers


async def in_worker(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in the log's worker process (``work`` a module-level function, ``args`` picklable). A worker
    that died (killed, out of memory) is replaced, and the work tried once more."""
    return await _log.run(work, *args)


async def in_board_worker(work: Callable[..., T], *args: Any) -> T:
    """``in_worker`` in the live boards' own worker process."""
    return await _boards.run(work, *args)


def _with_maps(boards: tuple[Board, ...], work: Callable[..., T], *args: Any) -> T:
    """In the worker: make ``boards`` known, then ``work(*args)``."""
    for board in boards:
        if registered_map(board.id) is None:
            register_map(board)
    return work(*args)


async def in_thread(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in a thread: for work that lets go of the GIL (compressing), or holds it only briefly."""
    return await asyncio.get_running_loop().run_in_executor(_threads, functools.partial(work, *args))


def shutdown() -> None:
    _log.shutdown()
    _boards.shutdown()


def broken() -> bool:
    """Whether a log process pool is broken (a worker died; the next task replaces it)."""
    return _log.workers.broken or _boards.workers.broken


def chunk(rows: Sequence[str]) -> bytes:
    """Stored events (their JSON text) as one chunk of JSON Lines."""
    return ("\n".join(rows) + "\n").encode() if rows else b""


def decode(chunks: Chunks) -> list[Event]:
    """The events of chunks of JSON Lines."""
    return [json.loads(line) for part in chunks for line in part.splitlines() if line]


def export_text(chunks: Chunks, audience: Audience) -> bytes:
    """The log as an audience may read it (``/risk export``, the history's Export): JSON Lines, UTF-8."""
    return dumps(without_hidden(events_for(decode(chunks), audience))).encode()


def tail_view(chunks: Chunks, before: str | None, audience: Audience, count: int,
              whole: bool) -> list[View] | None:
    """The last ``count`` events an audience sees, from a window at the end of the log.

    ``before`` is the game (its state as JSON) just before the window's first event; None for a window that
    starts at ``game_started`` (``whole``: the whole log) or for a finished game's last events (after the end
    every event is shown as it is). None when the window shows fewer than ``count`` events and the log goes
    further back."""
    events = decode(chunks)
    if before is None and not whole:
        if not any(e["type"] == "game_over" for e in events):
            return None
        shown = without_hidden(events_for(events, audience))
    else:
        state = None if before is None else GameState.from_dict(json.loads(before))
        shown = without_hidden(events_for(events, audience, before=state))
    if len(shown) < count and not whole:
        return None
    return shown[-count:]


def with_events(chunks: Chunks, work: Callable[..., T], *args: Any) -> T:
    """``work(events, *args)`` on the decoded log (in the worker)."""
    return work(decode(chunks), *args)


__all__ = ["CHUNK", "INLINE", "Chunks", "LogWorker", "chunk", "decode", "export_text", "in_board_worker", "in_thread",
           "in_worker", "shutdown", "tail_view", "with_events"]
