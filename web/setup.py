"""Starting the live board with the bot: its server on the bot's event loop, ``/board`` and the Board button."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cogs.shared.board import BoardButton, BoardCommands
from cogs.shared.services import services_of

from .config import WebConfig
from .server import BoardServer

if TYPE_CHECKING:
    from discord.ext import commands


async def start_board(bot: commands.Bot, config: WebConfig, *, listen: bool = True) -> BoardServer:
    """The board's server for the games of the bot's Risk cog (loaded before this), listening unless ``listen`` is
    false (``bot.py sync`` registers ``/board`` while the running bot holds the port)."""
    # Through the bot's services, where the cog puts itself when it loads (a reloaded extension's cog is of a new
    # class, so not by its class).
    services = services_of(bot)
    if services.desk is None:
        raise RuntimeError("the live board needs the Risk cog, loaded before it")
    # The Activity asks Discord about its instances with the bot's own token.
    token = getattr(bot.http, "token", None) or getattr(getattr(bot, "config", None), "token", "") or ""
    desk = services.desk
    server = BoardServer(config, services.store, desk.table, desk.announcer, services.clock, bot_token=token)
    if listen:
        await server.start()
    bot.add_dynamic_items(BoardButton)
    await bot.add_cog(BoardCommands(bot, server))
    return server


__all__ = ["start_board"]
