"""CPU work off the event loop: a pool of worker processes, sized to the cores, started when first needed.

Threads would not do: the work holds the GIL, and the event loop must stay free to answer Discord within its
three seconds. The workers import only the engine; they are started with ``spawn`` so they inherit none of the
bot's threads or connections.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
_pool: ProcessPoolExecutor | None = None


def pool() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ProcessPoolExecutor(max_workers=os.cpu_count() or 1,
                                    mp_context=multiprocessing.get_context("spawn"))
    return _pool


async def run(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` in a worker process (``work`` must be a module-level function of the engine)."""
    return await asyncio.get_running_loop().run_in_executor(pool(), work, *args)


def shutdown() -> None:
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=False, cancel_futures=True)
        _pool = None


__all__ = ["pool", "run", "shutdown"]
