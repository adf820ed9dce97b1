"""The bot's Prometheus metrics: every metric object, and the hooks the layers call where things happen.

Each hook is one line at its point (``metrics.action_applied(action)``), so the code that does the work stays
readable and a metric can change here without touching it. Labels take a few fixed values only (kinds, outcomes,
AI levels, pool names, action types): never a game, a user, a guild or a channel, so the number of series stays
bounded however many games a host runs. What to watch, and which values mean trouble: docs/deploy.md.

Gauges that are a count of something stored (games by status, timers due and overdue) are read from the database
when ``/metrics`` is asked (``stored_counts``, from ``ops.probes``), not kept up to date by every write.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)

# No "_created" series beside each counter: a restart shows as a counter's reset anyway.
disable_created_metrics()  # type: ignore[no-untyped-call]
REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)  # the bot's memory, CPU time, open files

DISCORD_DEADLINE = 3.0  # seconds: Discord's limit on an interaction's first response
KINDS = {2: "command", 3: "component", 4: "autocomplete", 5: "modal"}

INTERACTIONS = Counter("risk_interactions", "Interactions by kind and outcome, each counted once at its first "
                       "response: answered (within Discord's 3 s), late (after them)", ["kind", "outcome"],
                       registry=REGISTRY)
INTERACTION_ERRORS = Counter("risk_interaction_errors", "Interactions that ended in the error handler: refused (the "
                             "player's mistake, told in their words) or error (the bot's fault, logged with an id)",
                             ["kind", "reason"], registry=REGISTRY)
FIRST_RESPONSE = Histogram("risk_interaction_first_response_seconds", "From receiving an interaction to its first "
                           "response (Discord's limit: 3 s)", ["kind"], registry=REGISTRY,
                           buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0))
LOOP_LAG = Histogram("risk_event_loop_lag_seconds", "How late the event loop ran a timer it was given (a busy loop "
                     "answers Discord late)", registry=REGISTRY,
                     buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0))
LOOP_LAG_LAST = Gauge("risk_event_loop_lag_last_seconds", "The event loop's lag at its latest measure",
                      registry=REGISTRY)
GAMES = Gauge("risk_games", "Games in the database by status (this process's shards)", ["status"],
              registry=REGISTRY)
ACTIONS = Counter("risk_actions_applied", "Game actions stored, by the action's type (players', AIs' and "
                  "stand-ins' alike)", ["action"], registry=REGISTRY)
TIMERS_DUE = Gauge("risk_timers_due", "Timers (deadlines, reminders, votes) whose time has come", registry=REGISTRY)
TIMERS_OVERDUE = Gauge("risk_timers_overdue", "Timers due for over a minute: handled late, or stuck",
                       registry=REGISTRY)
AI_DECISIONS = Counter("risk_ai_decisions", "AI decisions by level and where they were made: bot (in the bot's "
                       "process), worker (a worker process), fallback (the worker was late or failed)",
                       ["level", "where"], registry=REGISTRY)
AI_SECONDS = Histogram("risk_ai_decision_seconds", "Time an AI took to decide one action", ["level"],
                       registry=REGISTRY, buckets=(0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0))
WORKER_QUEUE = Gauge("risk_worker_queue", "Tasks handed to a worker pool and not finished yet (render: maps and "
                     "reports; log: long game logs; ai: hard AI decisions)", ["pool"], registry=REGISTRY)
WORKER_RESTARTS = Counter("risk_worker_restarts", "Worker pools replaced after a worker died or overran",
                          ["pool"], registry=REGISTRY)
DB_SECONDS = Histogram("risk_db_transaction_seconds", "Time a database transaction took, waiting for the "
                       "connection included", registry=REGISTRY,
                       buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0))
DB_RETRIES = Counter("risk_db_transaction_retries", "Transactions run again (an action that ends a game first "
                     "reads the game's whole log)", registry=REGISTRY)
DB_ERRORS = Counter("risk_db_errors", "Database errors (the database unreachable, locked, full)",
                    registry=REGISTRY)
BOARDS = Gauge("risk_board_connections", "Live boards open (WebSocket connections)", registry=REGISTRY)
MESSAGES = Counter("risk_messages_sent", "Channel messages sent through the channels' queues, by kind (post, edit, "
                   "delete)", ["kind"], registry=REGISTRY)
RATE_LIMITED = Counter("risk_rate_limited", "Requests Discord answered with 429 (rate limited; discord.py waits "
                       "and retries)", ["api"], registry=REGISTRY)


# -- interactions ---------------------------------------------------------------------------------------------------
_received: collections.OrderedDict[int, tuple[float, str]] = collections.OrderedDict()
_RECEIVED_KEPT = 10_000  # interactions waiting for a first response (older ones are forgotten)


def kind_of(interaction_type: int) -> str:
    return KINDS.get(int(interaction_type), "other")


def interaction_received(interaction_id: int, interaction_type: int) -> None:
    """An interaction arrived (before any handler ran)."""
    _received[int(interaction_id)] = (time.monotonic(), kind_of(interaction_type))
    while len(_received) > _RECEIVED_KEPT:
        _received.popitem(last=False)


def interaction_answered(interaction_id: int) -> None:
    """The first response to an interaction went out (the callback route): its time, and its outcome."""
    entry = _received.pop(int(interaction_id), None)
    if entry is None:
        return
    started, kind = entry
    seconds = time.monotonic() - started
    FIRST_RESPONSE.labels(kind).observe(seconds)
    INTERACTIONS.labels(kind, "answered" if seconds <= DISCORD_DEADLINE else "late").inc()


def interaction_failed(interaction_type: int, refused: bool) -> None:
    """An interaction reached the error handler: a refusal, or the bot's own error."""
    INTERACTION_ERRORS.labels(kind_of(interaction_type), "refused" if refused else "error").inc()


# -- the game ---------------------------------------------------------------------------------------------------
def action_applied(action: object) -> None:
    ACTIONS.labels(type(action).__name__).inc()


def ai_decided(level: str, where: str, seconds: float) -> None:
    AI_DECISIONS.labels(level, where).inc()
    AI_SECONDS.labels(level).observe(seconds)


def message_sent(kind: str) -> None:
    MESSAGES.labels(kind).inc()


# -- workers and the database -------------------------------------------------------------------------------------
@contextlib.contextmanager
def worker_task(pool: str) -> Any:
    """A task handed to the pool ``pool`` for as long as the block runs."""
    gauge = WORKER_QUEUE.labels(pool)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


def worker_restarted(pool: str) -> None:
    WORKER_RESTARTS.labels(pool).inc()


class transaction:
    """Time one database transaction (a plain class: a few microseconds less than a generator, on every write)."""

    __slots__ = ("started",)

    async def __aenter__(self) -> None:
        self.started = time.perf_counter()

    async def __aexit__(self, *_exc: object) -> None:
        DB_SECONDS.observe(time.perf_counter() - self.started)


def transaction_retried() -> None:
    DB_RETRIES.inc()


def database_failed() -> None:
    DB_ERRORS.inc()


def boards_open(count: Callable[[], int]) -> None:
    """Where the number of open boards is read at each scrape."""
    BOARDS.set_function(count)


# -- Discord's rate limits, as discord.py logs them -------------------------------------------------------------
class RateLimits(logging.Filter):
    """Counts discord.py's "rate limited" warnings (REST and webhooks); lets every record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING and "rate limited" in str(record.msg):
            RATE_LIMITED.labels("webhook" if record.name.startswith("discord.webhook") else "rest").inc()
        return True


def count_rate_limits() -> None:
    """Attach the counter to discord.py's loggers (once)."""
    for name in ("discord.http", "discord.webhook.async_"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RateLimits) for f in logger.filters):
            logger.addFilter(RateLimits())


# -- the event loop ---------------------------------------------------------------------------------------------
async def watch_loop(interval: float = 0.5) -> None:
    """Measure how late the loop wakes this task, for ever (run it as a task)."""
    loop = asyncio.get_running_loop()
    while True:
        started = loop.time()
        await asyncio.sleep(interval)
        lag = max(0.0, loop.time() - started - interval)
        LOOP_LAG.observe(lag)
        LOOP_LAG_LAST.set(lag)


# -- at each scrape ------------------------------------------------------------------------------------------------
def stored_counts(games: dict[str, int], due: int, overdue: int) -> None:
    for status in ("lobby", "running", "paused", "finished", "cancelled"):
        GAMES.labels(status).set(games.get(status, 0))
    TIMERS_DUE.set(due)
    TIMERS_OVERDUE.set(overdue)


def exposition() -> bytes:
    """The metrics in Prometheus's text format."""
    return generate_latest(REGISTRY)


def value(name: str, **labels: str) -> float:
    """One sample's value now (0 if it has none yet): for tests and probes."""
    found = REGISTRY.get_sample_value(name, labels)
    return float(found or 0.0)


__all__ = ["REGISTRY", "RateLimits", "action_applied", "ai_decided", "boards_open", "count_rate_limits",
           "database_failed", "exposition", "interaction_answered", "interaction_failed", "interaction_received",
           "message_sent", "stored_counts", "transaction", "transaction_retried", "value",
           "watch_loop", "worker_restarted", "worker_task"]
