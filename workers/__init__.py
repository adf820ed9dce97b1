"""CPU work off the event loop: pools of worker processes, sized to the cores, started when first needed.

Threads would not do: the work (drawing maps, reports and timelapses, large odds) holds the GIL, and the event
loop must stay free to answer Discord within its three seconds. The workers import only what their work needs
(the engine, the renderer, the map files); they are started with ``spawn`` so they inherit none of the bot's
threads or connections, run below the bot's priority and end by themselves when the bot's process is gone. The
pool lives as long as the process (a bot that restarts its cogs keeps its warm workers); ``shutdown`` stops it.

On the ground floor: nothing here knows Discord, the game or the store (it imports only the metrics); the
renderer, the store, the table, the cogs and the web board hand it module-level functions (picklable) and their
arguments. ``set_up`` names what each worker does before its next task, such as finding a server's stored
maps in the database (``mapfiles.registry.use_database``).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ops import metrics

T = TypeVar("T")
Setup = tuple[Callable[..., object], tuple[Any, ...]]
_done: Setup | None = None    # in a worker: the set-up it has done
NICENESS = 10  # the workers' priority below the bot's


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


def _perform(setup: Setup | None, work: Callable[..., T], args: tuple[Any, ...]) -> T:
    """In a worker: the set-up the bot asked for, if this worker has not done it yet, then the work."""
    global _done
    if setup is not None and setup != _done:
        setup[0](*setup[1])
        _done = setup
    return work(*args)


class Workers:
    """A pool of worker processes, started when first needed: spawned, below the bot's priority, gone with the
    bot. ``shared`` below draws the maps, reports and timelapses; work that must not wait behind them has a pool of
    its own, such as the AIs' decisions (``table/thinking.py``) and the logs (``store/logs.py``). A task that
    overruns cannot be cancelled in a process: ``kill`` ends the pool's processes, and the next task starts a new
    pool. ``name`` labels the pool in the metrics (``ops/metrics.py``)."""

    def __init__(self, processes: int | None = None, name: str = "other") -> None:
        self.name = name  # in the metrics (ops/metrics.py): "render", "log", "ai"
        self._pool: ProcessPoolExecutor | None = None
        self._setup: Setup | None = None
        self.size = 1
        self.pools = 0   # how many pools were started: a new one's processes have been given nothing yet
        self.configure(processes)

    def configure(self, processes: int | None) -> None:
        """How many processes (``None`` or 0: one per core); takes effect when the pool next starts."""
        self.size = max(1, processes or os.cpu_count() or 1)

    def set_up(self, setup: Callable[..., object] | None, *args: Any) -> None:
        """Have each process call ``setup(*args)`` before its next task: once, and again after a change (``None``:
        nothing more). ``setup`` and ``args`` must be picklable, like the work."""
        self._setup = None if setup is None else (setup, args)

    @property
    def started(self) -> bool:
        return self._pool is not None

    def pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.size, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_follow_parent, initargs=(os.getpid(),))
            self.pools += 1
        return self._pool

    def pids(self) -> tuple[int, ...]:
        """The ids of the pool's processes now (none before it starts)."""
        processes = getattr(self._pool, "_processes", None) or {}
        return tuple(p.pid for p in processes.values() if p.pid is not None)

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in one of the processes; a pool whose worker died is replaced, and the work tried once
        more (a second death raises ``BrokenProcessPool``)."""
        return await self.run_task(lambda: (work, args))

    async def run_task(self, task: Callable[[], tuple[Callable[..., T], tuple[Any, ...]]]) -> T:
        """``run`` for work whose arguments depend on the pool it goes to: ``task()`` gives the work and its
        arguments, and is asked again for the fresh pool that replaces one whose worker died (what the dead pool
        was given, the new one was not)."""
        loop = asyncio.get_running_loop()
        with metrics.worker_task(self.name):
            try:
                pool = self.pool()
                return await loop.run_in_executor(pool, _perform, self._setup, *task())
            except BrokenProcessPool:
                self.shutdown()
                metrics.worker_restarted(self.name)
                pool = self.pool()
                return await loop.run_in_executor(pool, _perform, self._setup, *task())

    @property
    def broken(self) -> bool:
        """Whether the pool is started and broken (the next task replaces it)."""
        return bool(getattr(self._pool, "_broken", False))

    def kill(self) -> None:
        """End the processes now, whatever they are doing (their pending work fails), and forget the pool."""
        processes = list(getattr(self._pool, "_processes", None) or {})
        if processes:
            metrics.worker_restarted(self.name)
        for pid in processes:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        self.shutdown()

    def shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


shared = Workers(name="render")  # the bot's pool: maps, reports, timelapses, large odds


async def run(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in a process of the shared pool (``work`` must be a module-level function, and ``args``
    picklable)."""
    return await shared.run(work, *args)


def configure(processes: int | None) -> None:
    """How many processes the shared pool has (``None`` or 0: one per core); takes effect when it next starts."""
    shared.configure(processes)


def size() -> int:
    return shared.size


def set_up(setup: Callable[..., object] | None, *args: Any) -> None:
    """What each process of the shared pool does before its next task (``Workers.set_up``)."""
    shared.set_up(setup, *args)


def pool() -> ProcessPoolExecutor:
    return shared.pool()


def broken() -> bool:
    """Whether the shared pool is started and broken (a worker died; the next task replaces it)."""
    return shared.broken


def shutdown() -> None:
    shared.shutdown()


__all__ = ["Workers", "broken", "configure", "pool", "run", "set_up", "shared", "shutdown", "size"]
