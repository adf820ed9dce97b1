"""The log as JSON lines (``--log-format json``) or as text, with what each line is about, and never a secret.

Each record carries the ids of what the task that logged it is handling, where known: the guild, the channel
and the interaction (set when an interaction arrives, before any handler runs, so every task it starts inherits
them: ``ops.gateway``) and the game (set when the table takes a game's lock). They live in context variables,
which asyncio copies into each task a task creates.

``Redact`` replaces the bot's token, the board's secrets and the database's password with ``***`` in every
record, whatever logged it.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import sys
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote, urlsplit

guild_id: contextvars.ContextVar[int | None] = contextvars.ContextVar("guild_id", default=None)
channel_id: contextvars.ContextVar[int | None] = contextvars.ContextVar("channel_id", default=None)
game_id: contextvars.ContextVar[int | None] = contextvars.ContextVar("game_id", default=None)
interaction_id: contextvars.ContextVar[int | None] = contextvars.ContextVar("interaction_id", default=None)
IDS = {"guild_id": guild_id, "channel_id": channel_id, "game_id": game_id, "interaction_id": interaction_id}
FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


def playing(game: int) -> None:
    """The current task handles this game from now on (its log lines name it)."""
    game_id.set(game)


def url_passwords(url: str) -> list[str]:
    """The password in a database URL (``postgresql://user:PASSWORD@host/db``), as written and decoded."""
    if "://" not in url:
        return []
    with contextlib.suppress(ValueError):
        password = urlsplit(url).password
        if password:
            return sorted({password, unquote(password)})
    return []


def ids() -> dict[str, int]:
    """The ids known in the current context."""
    return {name: value for name, var in IDS.items() if (value := var.get()) is not None}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the known ids, the exception."""

    def format(self, record: logging.LogRecord) -> str:
        body: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname, "logger": record.name, "message": record.getMessage()}
        body.update(getattr(record, "ids", None) or {})
        if record.exc_info:
            body["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            body["stack"] = self.formatStack(record.stack_info)
        return json.dumps(body, ensure_ascii=False, default=str)


class Context(logging.Filter):
    """Puts the ids of the current context on each record (``record.ids``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "ids"):
            record.ids = ids()
        return True


class Redact(logging.Filter):
    """Replaces secrets in each record's message and arguments with ``***`` (the record is rendered first)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        self.secrets = sorted({s for s in secrets if s and len(s) >= 6}, key=len, reverse=True)

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.secrets:
            return True
        message = record.getMessage()
        cleaned = self._clean(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            text = logging.Formatter().formatException(record.exc_info)
            if self._clean(text) != text:
                record.msg = f"{record.msg}\n{self._clean(text)}"
                record.exc_info = None
                record.exc_text = None
        return True

    def _clean(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text


def setup(level: int, log_format: str = "text", secrets: Iterable[str] = (), filters: Iterable[logging.Filter] = ()
          ) -> None:
    """The root logger on standard error, in ``log_format``, with the ids and without the secrets (as
    ``logging.basicConfig``, nothing changes a root logger that has handlers already, such as a test runner's, but
    the filters)."""
    if log_format not in FORMATS:
        raise ValueError(f"log format must be one of {', '.join(FORMATS)}, not {log_format!r}")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level, handlers=[handler])
    for each in logging.getLogger().handlers:
        for extra in (Context(), Redact(secrets), *filters):
            if not any(type(f) is type(extra) for f in each.filters):
                each.addFilter(extra)


__all__ = ["FORMATS", "IDS", "Context", "JsonFormatter", "Redact", "ids", "playing", "setup"]
