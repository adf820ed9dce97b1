"""CPU work off the event loop: a pool of worker processes, sized to the cores, started when first needed.

Threads would not do: the work (drawing maps, large odds) holds the GIL, and the event loop must stay free to
answer Discord within its three seconds. The workers import only the engine and the renderer; they are
started with ``spawn`` so they inherit none of the bot's threads or connections. The pool lives as long as the
process (a bot that restarts its cogs keeps its warm workers); ``shutdown`` stops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")
_pool: ProcessPoolExecutor | None = None
_size = max(1, os.cpu_count() or 1)
NICENESS = 10  # the workers' priority below the bot's


def configure(processes: int | None) -> None:
    """How many worker processes (``None`` or 0: one per core). Takes effect when the pool next starts."""
    global _size
    _size = max(1, processes or os.cpu_count() or 1)


def size() -> int:
    return _size


def pool() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ProcessPoolExecutor(max_workers=_size, mp_context=multiprocessing.get_context("spawn"),
                                    initializer=_follow_parent, initargs=(os.getpid(),))
    return _pool


def _follow_parent(parent: int) -> None:
    """In each worker: yield the processor to the bot's event loop (a lower priority: a first response never
    waits behind a map), and end when the bot's process is gone, however it ended (a worker of a killed bot
    would otherwise wait for work forever)."""
    with contextlib.suppress(OSError):
        os.nice(NICENESS)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="follow-parent", daemon=True).start()


async def run(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in a worker process (``work`` must be a module-level function of the engine or the
    renderer)."""
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(pool(), work, *args)
    except BrokenProcessPool:  # a worker died (killed, out of memory): start a new pool and try once more
        shutdown()
        return await loop.run_in_executor(pool(), work, *args)


def shutdown() -> None:
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None


__all__ = ["configure", "pool", "run", "shutdown", "size"]
