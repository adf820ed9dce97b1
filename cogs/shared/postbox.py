"""The way out to a channel: one queue per channel, posts in order, maps drawn as late as possible.

Every channel message of a game goes through ``Postbox.post``. Each channel has one sender at a time, so a
channel's messages never race each other into Discord's per-channel rate limit (discord.py then waits out the
limit it is told of, and the queue behind it simply grows). A post's map is not drawn when the post is made
but when its turn to be sent comes, and under load it is skipped if a newer map for the same channel is
already waiting: the reader gets the words at once and the newest board, not a backlog of stale boards.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import discord

from cogs.maps import drawing as maps

log = logging.getLogger(__name__)
STALE = 2.0  # seconds a post may wait in its queue before a newer map makes its own map unnecessary


@dataclass
class Post:
    """One channel message. ``map`` is drawn when the post is sent; ``keep_map``: never skip it (the end)."""

    content: str | None = None
    map: maps.MapJob | None = None
    keep_map: bool = False
    kwargs: dict[str, Any] = field(default_factory=dict)  # embed, view, allowed_mentions
    queued_at: float = field(default_factory=time.monotonic)
    sent: asyncio.Future[discord.Message | None] | None = None


class Postbox:
    def __init__(self, bot: discord.Client) -> None:
        self.bot = bot
        self.queues: dict[int, deque[Post]] = {}
        self.senders: dict[int, asyncio.Task[None]] = {}

    def enqueue(self, channel_id: int, post: Post) -> asyncio.Future[discord.Message | None]:
        """Queue ``post`` for the channel; the future is done when it is sent."""
        post.sent = asyncio.get_running_loop().create_future()
        self.queues.setdefault(channel_id, deque()).append(post)
        if channel_id not in self.senders:
            self.senders[channel_id] = asyncio.create_task(self._send_all(channel_id), name=f"post-{channel_id}")
        return post.sent

    async def post(self, channel_id: int, post: Post) -> discord.Message | None:
        """Queue ``post`` for the channel and wait until it is sent."""
        return await asyncio.shield(self.enqueue(channel_id, post))

    def _spare_map(self, post: Post, queue: deque[Post]) -> bool:
        """Whether to send ``post`` without its map: a newer map for this channel waits behind it, and the bot
        is busy drawing or this post has waited long (a rate limit)."""
        if post.keep_map or not any(p.map is not None for p in queue):
            return False
        return maps.busy() or time.monotonic() - post.queued_at > STALE

    async def _send_all(self, channel_id: int) -> None:
        queue = self.queues[channel_id]
        channel = self.bot.get_partial_messageable(channel_id)
        try:
            while queue:
                post = queue.popleft()
                assert post.sent is not None
                try:
                    message = await self._send(channel, post, queue)
                except Exception as exc:  # the caller learns of it; the channel's queue goes on
                    if not post.sent.done():
                        post.sent.set_exception(exc)
                    continue
                if not post.sent.done():
                    post.sent.set_result(message)
        finally:
            del self.senders[channel_id]
            del self.queues[channel_id]
            for post in queue:  # cancelled with posts left (shutting down): they will not be sent
                if post.sent is not None and not post.sent.done():
                    post.sent.cancel()

    async def _send(self, channel: discord.PartialMessageable, post: Post,
                    queue: deque[Post]) -> discord.Message | None:
        kwargs = dict(post.kwargs)
        if post.map is not None and not self._spare_map(post, queue):
            drawn = maps.as_file(await maps.draw(post.map))
            if "files" in kwargs:  # the map first, then the other attachments
                kwargs["files"] = [drawn, *kwargs["files"]]
            else:
                kwargs["file"] = drawn
        return await channel.send(post.content, **kwargs)

    async def close(self) -> None:
        for task in list(self.senders.values()):
            task.cancel()
        await asyncio.gather(*self.senders.values(), return_exceptions=True)


__all__ = ["Post", "Postbox"]
