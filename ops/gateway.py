"""What the operator's listener needs from discord.py: when an interaction arrives and is first answered, and
whether this process's gateway shards are connected.

discord.py has no hook for either moment, so two of its seams are used (it is pinned to 2.7 in pyproject.toml):
the gateway's parser table (``ConnectionState.parsers``, shared with each shard's websocket), whose
``INTERACTION_CREATE`` entry is wrapped to note the arrival before any handler runs, and the webhook adapter
(``discord.webhook.async_.async_context``) through which every interaction response goes, whose
``create_interaction_response`` (the first response: a message, a deferral, an autocomplete, a modal) notes the
answer.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import discord
from discord.webhook import async_ as webhooks

from ops import logs, metrics, probes
from ops.server import OpsConfig, OpsServer


class _TimedAdapter(webhooks.AsyncWebhookAdapter):
    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]

    def create_interaction_response(self, interaction_id: int, token: str, **options: Any) -> Any:
        metrics.interaction_answered(interaction_id)
        return super().create_interaction_response(interaction_id, token, **options)


def instrument(bot: discord.Client) -> None:
    """Time the bot's interactions (call it before the bot connects, in the task that runs it)."""
    parsers: dict[str, Callable[[Any], Any]] = bot._connection.parsers
    parse = parsers["INTERACTION_CREATE"]

    def received(data: Any) -> Any:
        if not isinstance(data, dict) or "id" not in data:
            return parse(data)
        metrics.interaction_received(int(data["id"]), int(data.get("type") or 0))
        # The tasks the parse starts (the command, the component's callback) copy the context, ids and all.
        tokens = [(var, var.set(int(str(value)) if str(value).isdigit() else None)) for var, value in (
            (logs.interaction_id, data["id"]), (logs.guild_id, data.get("guild_id")),
            (logs.channel_id, data.get("channel_id")))]
        try:
            return parse(data)
        finally:
            for var, token in reversed(tokens):
                var.reset(token)

    parsers["INTERACTION_CREATE"] = received
    webhooks.async_context.set(_TimedAdapter())
    metrics.count_rate_limits()


def shards_state(bot: discord.Client) -> tuple[bool, dict[str, str]]:
    """Whether every gateway shard this process runs is connected, and each one's state."""
    if isinstance(bot, discord.AutoShardedClient):
        states: dict[str, str] = {}
        ids = bot.shard_ids or range(bot.shard_count or 1)
        for shard_id in ids:
            shard = bot.shards.get(shard_id)
            states[str(shard_id)] = "connected" if shard is not None and not shard.is_closed() else "disconnected"
        ok = bot.is_ready() and all(state == "connected" for state in states.values())
        return ok, states
    ws = bot.ws
    connected = bot.is_ready() and not bot.is_closed() and ws is not None and ws.open
    return connected, {"0": "connected" if connected else "disconnected"}


class Operations:
    """The listener and the loop's watch of one running bot; ``stop`` ends both."""

    def __init__(self, server: OpsServer | None, watch: asyncio.Task[None]) -> None:
        self.server = server
        self.watch = watch

    async def stop(self) -> None:
        self.watch.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.watch
        if self.server is not None:
            await self.server.stop()


async def start(bot: discord.Client, config: OpsConfig) -> Operations:
    """Instrument the bot and open its listener (none if ``listen`` is empty). The bot must have an open store
    (``bot.store``), its clock and its shards (``owned_shards``), as ``bot.py``'s bots have."""
    instrument(bot)
    watch = asyncio.get_running_loop().create_task(metrics.watch_loop(), name="ops:loop-lag")
    server = None
    if config.listen:
        server = OpsServer(probes.for_bot(bot, lambda: shards_state(bot)))
        host, port = config.address()
        try:
            await server.start(host, port)
        except OSError as exc:
            watch.cancel()
            raise OpsError(f"cannot listen on {config.listen} for /healthz, /readyz and /metrics ({exc.strerror}): "
                           "give each bot process its own [ops] listen (or --ops-listen), or an empty one for none"
                           ) from exc
    return Operations(server, watch)


class OpsError(Exception):
    """The operator's listener cannot start."""


__all__ = ["Operations", "OpsError", "instrument", "shards_state", "start"]
