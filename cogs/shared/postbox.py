"""The way out to a channel: one queue per channel, posts in order, maps drawn as late as possible.

Every channel message of a game goes through ``Postbox.post``. Each channel has one sender at a time, so a
channel's messages never race each other into Discord's per-channel rate limit (discord.py then waits out the
limit it is told of, and the queue behind it simply grows). A post's map is not drawn when the post is made
but when its turn to be sent comes, and under load it is skipped if a newer map for the same channel is
already waiting: the reader gets the words at once and the newest board, not a backlog of stale boards.

A post may also edit a message the bot sent (the live turn panel) or delete one, in the same queue: a burst of
edits of one message coalesces, only the newest pending edit of a message is sent (the older ones' callers get
its result).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, TypedDict

import discord

from cogs.shared.attachments import as_file
from ops import metrics
from present import drawing as maps

log = logging.getLogger(__name__)
STALE = 2.0  # seconds a post may wait in its queue before a newer map makes its own map unnecessary
# In a tap's ``extras``: the edit of the tapped message answered it (a tap whose edit gave way to another tap's, or
# whose token failed, is answered otherwise by the announcer).
ANSWERED_BY_EDIT = "answered by the edit of its message"


class Extras(TypedDict, total=False):
    """What a channel message carries besides its words and its map."""

    embed: discord.Embed
    view: discord.ui.View
    files: list[discord.File]
    allowed_mentions: discord.AllowedMentions


class PostOptions(Extras, total=False):
    """What a message is queued with: its extras and its map, drawn when the message is sent and under load
    skipped if a newer one follows (``keep_map``: never skipped)."""

    map: maps.MapJob | None
    keep_map: bool
    same_map: bool   # an edit without a map that leaves the message's picture as it is (only its words change)


Sent = asyncio.Future[discord.Message | None]  # a queued message: done once it is posted


@dataclass
class Post:
    """One channel message. ``map`` is drawn when the post is sent; ``keep_map``: never skip it (the end)."""

    content: str | None = None
    map: maps.MapJob | None = None
    keep_map: bool = False
    kwargs: Extras = field(default_factory=Extras)
    queued_at: float = field(default_factory=time.monotonic)
    sent: Sent | None = None
    edit: int | None = None  # the id of a message to edit (its words, map, buttons) instead of a new message
    delete: bool = False     # with ``edit``: delete that message instead
    # With ``edit``: a tap on that message, answered by this edit (Discord's update of the tapped message).
    via: discord.Interaction[Any] | None = None
    buttons_only: bool = False  # with ``edit``: change only the message's buttons (its words and files stay)
    same_map: bool = False      # with ``edit`` and no ``map``: the message keeps the picture it has


def _pass_on(done: Sent, *, older: Sent | None) -> None:
    """A coalesced edit is done when the edit that replaced it is."""
    if older is None or older.done():
        return
    if done.cancelled():
        older.cancel()
    elif done.exception() is not None:
        older.set_exception(done.exception() or RuntimeError())
    else:
        older.set_result(done.result())


class Postbox:
    def __init__(self, bot: discord.Client) -> None:
        self.bot = bot
        self.queues: dict[int, deque[Post]] = {}
        self.senders: dict[int, asyncio.Task[None]] = {}

    def enqueue(self, channel_id: int, post: Post) -> Sent:
        """Queue ``post`` for the channel; the future is done when it is sent."""
        post.sent = asyncio.get_running_loop().create_future()
        queue = self.queues.setdefault(channel_id, deque())
        if post.edit is not None and not post.delete:  # a newer edit of the message: the pending one goes
            for older in [p for p in queue if p.edit == post.edit and not p.delete
                          and p.buttons_only == post.buttons_only]:
                queue.remove(older)
                post.via = post.via or older.via  # the tap it answered is answered by the newer edit
                if post.same_map and post.map is None and older.map is not None:   # its picture still goes
                    post.map, post.keep_map, post.same_map = older.map, older.keep_map, older.same_map
                post.sent.add_done_callback(functools.partial(_pass_on, older=older.sent))
        queue.append(post)
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
                metrics.message_sent("delete" if post.delete else "edit" if post.edit is not None else "post")
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
        kwargs = post.kwargs.copy()
        if post.edit is not None and post.delete:
            await channel.get_partial_message(post.edit).delete()
            return None
        if post.edit is not None and post.buttons_only:
            return await channel.get_partial_message(post.edit).edit(view=kwargs.get("view"))
        if post.edit is not None:
            return await self._edit(channel, post, kwargs, spare=self._spare_map(post, queue))
        if post.map is not None and not self._spare_map(post, queue):  # the map first, then the other attachments
            kwargs["files"] = [as_file(await maps.draw(post.map)), *kwargs.get("files", [])]
        return await channel.send(post.content, **kwargs)

    @staticmethod
    async def _edit(channel: discord.PartialMessageable, post: Post, kwargs: Extras, *,
                    spare: bool) -> discord.Message | None:
        """Every part named: what the edit leaves out goes (buttons, an old map). Busy, or with a newer map
        waiting (``spare``), a map that is not to be kept is not drawn again: the message keeps the map it
        shows until a later edit."""
        assert post.edit is not None
        attachments: list[discord.File] | None = None if post.same_map else kwargs.get("files", [])
        if post.map is not None:
            fresh = post.keep_map or not (maps.busy() or spare)
            attachments = [as_file(await maps.draw(post.map))] if fresh else None
        changes: dict[str, Any] = {"content": post.content, "view": kwargs.get("view"),
                                   "allowed_mentions": kwargs.get("allowed_mentions")}
        if attachments is not None:
            changes["attachments"] = attachments
        if post.via is not None:  # the tap's own answer: the same message, edited
            try:
                message = await post.via.edit_original_response(**changes)
            except discord.HTTPException:  # the tap's token expired (15 minutes): as any edit, below
                pass
            else:
                post.via.extras[ANSWERED_BY_EDIT] = True
                return message
        return await channel.get_partial_message(post.edit).edit(**changes)

    async def close(self) -> None:
        for task in list(self.senders.values()):
            task.cancel()
        await asyncio.gather(*self.senders.values(), return_exceptions=True)


__all__ = ["ANSWERED_BY_EDIT", "Extras", "Post", "PostOptions", "Postbox", "Sent"]
