"""Names (a player's, a map's, a territory's) and a map's own words, written for their medium.

- ``MARKDOWN``, a Discord message (the default): markdown, mentions, masked links and headings escaped, so a
  name reads as typed and pings nobody;
- ``TEXT``, a page or a control that puts a line in as text (the live board's log, whose browser escapes it for
  HTML; a select's label, which renders no markdown): the name exactly as typed;
- ``HTML``, markup a page is built from: the name HTML-escaped.

Every medium drops control characters (a right-to-left override would turn the rest around). The escaping of
Discord's markdown is Discord's rule, written here so that this package knows no discord.py: it escapes what
``discord.utils.escape_markdown(text, as_needed=False)`` does, and a test holds the two to the same output.
"""

from __future__ import annotations

import contextlib
import html
import re
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Literal

from engine.board import plain_text

Medium = Literal["markdown", "text", "html"]
MARKDOWN: Medium = "markdown"
TEXT: Medium = "text"
HTML: Medium = "html"

_medium: ContextVar[Medium] = ContextVar("medium", default=MARKDOWN)

# Discord's markdown: a link stays whole; any other markdown character, a quote, a heading, a list's dash and a
# masked link get a backslash. Mentions get a zero-width space after the "@".
_URL = r"(?P<url><[^: >]+:\/[^ >]+>|(?:https?|steam):\/\/[^\s<]+[^<.,:;\"\'\]\s])"
_MARKUP = r"(?P<markdown>[_\\~|\*`]|^>(?:>>)?\s|\[.+\]\(.+\)|^#{1,3}|^\s*-)"
MARKDOWN_CHARACTERS = re.compile(f"(?:{_URL}|{_MARKUP})", re.MULTILINE)
MENTION = re.compile(r"@(everyone|here|[!&]?[0-9]{17,20})")


def escape_markdown(text: str) -> str:
    """``text`` with Discord's markdown escaped and its mentions made harmless (links left whole)."""
    escaped = MARKDOWN_CHARACTERS.sub(lambda m: m["url"] or "\\" + m["markdown"], text)
    return MENTION.sub("@\u200b\\1", escaped)


@contextlib.contextmanager
def written_for(medium: Medium) -> Iterator[None]:
    """Within the block, names are written for ``medium`` (``describe(..., page=True)``: ``TEXT``)."""
    token = _medium.set(medium)
    try:
        yield
    finally:
        _medium.reset(token)


def safe_name(name: str) -> str:
    """A name as plain words in the current medium: see the module's docstring."""
    return safe_text(name, 64)


def safe_text(text: str, limit: int) -> str:
    """A map's own words (a name, a mission's description) as plain words in the current medium, at most ``limit``
    characters of them: see ``safe_name``."""
    plain = plain_text(text)
    medium = _medium.get()
    if medium == TEXT:
        return plain[:limit] or "?"
    if medium == HTML:
        return html.escape(plain[:limit] or "?")
    escaped = escape_markdown(plain)
    return escaped.replace("<", "<\u200b").replace("](", "]\u200b(")[:limit] or "?"


__all__ = ["HTML", "MARKDOWN", "TEXT", "Medium", "escape_markdown", "safe_name", "safe_text", "written_for"]
