"""Names (a player's, a map's, a territory's) and a map's own words, written for their medium: a Discord message,
where their markdown and mentions are escaped, or a web page that puts a line in as text (the live board's log:
the browser escapes it for HTML), where a name reads exactly as typed."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

import discord

from engine.board import plain_text

_for_page: ContextVar[bool] = ContextVar("for_page", default=False)


@contextlib.contextmanager
def for_page() -> Iterator[None]:
    """Within the block, names are written for a page that shows them as text (``describe(..., page=True)``)."""
    medium = _for_page.set(True)
    try:
        yield
    finally:
        _for_page.reset(medium)


def safe_name(name: str) -> str:
    """A name as plain text in a message: no mention, no markdown, no masked link, no heading, no control
    character (a right-to-left override would turn the rest around); on a page, only no control character."""
    return safe_text(name, 64)


def safe_text(text: str, limit: int) -> str:
    """A map's own words (a name, a mission's description) as plain text, at most ``limit`` characters of them:
    see ``safe_name``."""
    if _for_page.get():
        return plain_text(text)[:limit] or "?"
    escaped = discord.utils.escape_mentions(discord.utils.escape_markdown(plain_text(text), as_needed=False))
    return escaped.replace("<", "<\u200b").replace("](", "]\u200b(")[:limit] or "?"


__all__ = ["for_page", "safe_name", "safe_text"]
