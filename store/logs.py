"""A game's event log, read off the event loop: a long game's log is 100,000 events and more (tens of MB of JSON).

The store reads the log's rows in chunks (each read is short), and everything that grows with the log's length
runs in one of the threads here, never on the event loop: decoding the JSON, the audience's projection
(``engine.fog``, exactly as for a short game), writing the export, the end-of-game figures. The threads are the
log's own: the render workers (render/workers.py) stay free for maps. A thread holds the GIL for one small step
at a time (an event decoded, projected or written), so the loop keeps being served while it works.

``/risk log`` reads only the turns it shows: ``log_turns`` (migration 8) notes where each turn begins in the log
(the first event of the action that started it) and the game just before that action, so the projection of the
last turns starts from there (``tail_view``), as if the whole log had been projected.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from engine import Event, GameState
from engine.events import View
from engine.fog import Audience, events_for, without_hidden
from engine.log import dumps

T = TypeVar("T")

CHUNK = 5_000        # events read from the database at a time
INLINE = 2_000       # fewer events than this are decoded at once, where they are read
_WORKERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="risk-log")


async def in_worker(work: Callable[..., T], *args: Any) -> T:
    """Run ``work(*args)`` in one of the log's threads, off the event loop."""
    return await asyncio.get_running_loop().run_in_executor(_WORKERS, functools.partial(work, *args))


def decode(rows: Sequence[str]) -> list[Event]:
    """Stored events (their JSON text) as events."""
    return [json.loads(row) for row in rows]


def export_text(rows: Sequence[str], audience: Audience) -> bytes:
    """The log as an audience may read it (``/risk export``, the history's Export): JSON Lines, UTF-8."""
    return dumps(without_hidden(events_for(decode(rows), audience))).encode()


def tail_view(rows: Sequence[str], before: str | None, audience: Audience, count: int,
              whole: bool) -> list[View] | None:
    """The last ``count`` events an audience sees, from a window at the end of the log.

    ``before`` is the game (its state as JSON) just before the window's first event, None for a window that
    starts at ``game_started`` (``whole``: the whole log) or, in a finished game, its last events (shown whole
    after the end). None when the window shows fewer than ``count`` events and the log goes further back."""
    events = decode(rows)
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


def encoded(rows: Sequence[str]) -> bytes:
    """The stored events as one JSON Lines text, to hand to a worker process in one piece."""
    return ("\n".join(rows) + "\n").encode() if rows else b""


__all__ = ["CHUNK", "INLINE", "decode", "encoded", "export_text", "in_worker", "tail_view"]
