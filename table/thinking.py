"""The AIs' decisions, off the event loop: a level that thinks long (``hard``: up to 100 ms a decision) decides in
worker processes of its own, so the bot's event loop stays free for every other game while it thinks.

A decision is sent as what it is made from: the game's state, the seat, the level and, under fog, the seat's
memory of the board (``engine.ai.Memory``). A server's own map travels with it (a worker that has not met the
board cannot load it by its id); a built-in one the worker loads itself. The pool is bounded (``workers``
machinery: spawned, below the bot's priority, gone with the bot), and so is each decision: one that takes longer
than ``timeout``, or a worker that dies twice, ends in the ``normal`` AI's choice made here, logged as a warning,
and the game goes on. A decision whose worker died is made again in a fresh pool, which has the time a fresh
pool's first decision has (its processes start first). The levels that take under a millisecond (easy, normal,
and the stand-ins' cautious and skip) decide in the bot's process: sending them costs more than they take
(docs/performance.md).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool

from engine import Action, Board, Game, GameState, register_map, registered_map, registered_maps
from engine.ai import Memory, make_ai
from engine.ai.hints import Hint, hint_for
from ops import metrics
from workers import Workers

log = logging.getLogger(__name__)

# The levels that decide in the worker processes.
ELSEWHERE = frozenset({"hard"})
TIMEOUT = 3.0          # seconds a decision may take in a worker, once the worker is up
FIRST_TIMEOUT = 20.0   # the first decision of a fresh pool waits for its processes to start too
FALLBACK = "normal"    # what decides here when a worker did not


def decide(state: GameState, board: Board | None, seat: int, level: str, memory: Memory | None
           ) -> tuple[Action, int]:
    """In a worker: the AI's choice, and the id of the process that made it. ``board``: a server's map the worker
    may not have met (None for a built-in one)."""
    if board is not None and registered_map(board.id) is None:
        register_map(board)
    return make_ai(level, salt=str(seat)).choose(Game(state), seat, memory), os.getpid()


def explain(state: GameState, board: Board | None, seat: int, memory: Memory | None) -> Hint:
    """In a worker: the hint for ``seat`` (``engine.ai.hints``). ``board``: as for ``decide``."""
    if board is not None and registered_map(board.id) is None:
        register_map(board)
    return hint_for(Game(state), seat, memory)


class Thinking:
    """Where each AI decision is made: a bounded pool of worker processes for the levels in ``elsewhere``, the
    bot's process for the others and for the fallback. ``thought_in`` counts the decisions each worker made."""

    def __init__(self, processes: int | None = None, timeout: float = TIMEOUT,
                 elsewhere: frozenset[str] = ELSEWHERE) -> None:
        self.workers = Workers(processes, "ai")
        self.timeout = timeout
        self.elsewhere = elsewhere
        self.thought_in: Counter[int] = Counter()
        self.fallbacks = 0
        self._slots: asyncio.Semaphore | None = None   # a decision waits for a free worker here, not in the pool

    async def choose(self, game: Game, seat: int, level: str, memory: Memory | None = None) -> Action:
        """The next action of ``seat`` played by an AI of ``level``."""
        if level not in self.elsewhere:
            start = time.perf_counter()
            action = make_ai(level, salt=str(seat)).choose(game, seat, memory)
            metrics.ai_decided(level, "bot", time.perf_counter() - start)
            return action
        board = game.board if any(b.id == game.board.id for b in registered_maps()) else None
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.workers.size)
        async with self._slots:
            limit = self.timeout if self.workers.started else max(self.timeout, FIRST_TIMEOUT)
            start, pools = time.monotonic(), self.workers.pools
            loop = asyncio.get_running_loop()
            try:
                async with asyncio.timeout(limit) as deadline:
                    def task() -> tuple[Callable[..., tuple[Action, int]], tuple[object, ...]]:
                        if self.workers.pools != pools:  # a fresh pool (its worker died): its processes start first
                            deadline.reschedule(loop.time() + max(self.timeout, FIRST_TIMEOUT))
                        return decide, (game.state, board, seat, level, memory)
                    action, pid = await self.workers.run_task(task)
            except TimeoutError:
                log.warning("an AI of level %s took over %.1f s to decide; its workers are restarted and the %s AI "
                            "decides instead", level, limit, FALLBACK)
                self.workers.kill()
            except (BrokenProcessPool, OSError) as exc:
                log.warning("the AI's worker ended while deciding (%s); the %s AI decides instead",
                            exc.__class__.__name__, FALLBACK)
                self.workers.shutdown()
            except Exception:  # the level's own fault: the game must not stall on it either
                log.warning("an AI of level %s failed to decide; the %s AI decides instead", level, FALLBACK,
                            exc_info=True)
            else:
                self.thought_in[pid] += 1
                metrics.ai_decided(level, "worker", time.monotonic() - start)
                log.debug("an AI of level %s decided in process %s in %.3f s", level, pid, time.monotonic() - start)
                return action
        self.fallbacks += 1
        action = make_ai(FALLBACK, salt=str(seat)).choose(game, seat, memory)
        metrics.ai_decided(level, "fallback", time.monotonic() - start)
        return action

    async def hint(self, game: Game, seat: int, memory: Memory | None = None) -> Hint | None:
        """What the hard AI would do now for ``seat`` and why (``engine.ai.hints``), worked out in the workers as
        its decisions are; None if it could not be within the time a decision has (the player asks again)."""
        board = game.board if any(b.id == game.board.id for b in registered_maps()) else None
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.workers.size)
        async with self._slots:   # a hint waits for a free worker as a decision does, outside its time
            limit = self.timeout if self.workers.started else max(self.timeout, FIRST_TIMEOUT)
            try:
                async with asyncio.timeout(limit):
                    return await self.workers.run_task(lambda: (explain, (game.state, board, seat, memory)))
            except TimeoutError:
                log.warning("a hint took over %.1f s; the AI's workers are restarted", limit)
                self.workers.kill()
            except (BrokenProcessPool, OSError) as exc:
                log.warning("the AI's worker ended while working out a hint (%s)", exc.__class__.__name__)
                self.workers.shutdown()
            except Exception:  # the AI's own fault: the player is told no hint could be worked out
                log.warning("the hard AI failed to work out a hint", exc_info=True)
        return None

    def shutdown(self) -> None:
        self.workers.shutdown()


__all__ = ["ELSEWHERE", "FALLBACK", "TIMEOUT", "Thinking", "decide", "explain"]
