"""Starting the live board with the bot: its server on the bot's event loop, ``/board`` and the Board button."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cogs.play.board import BoardButton, BoardCommands

from .config import WebConfig
from .server import BoardServer

if TYPE_CHECKING:
    from discord.ext import commands


async def start_board(bot: commands.Bot, config: WebConfig, *, listen: bool = True) -> BoardServer:
    """The board's server for the games of the bot's Risk cog (loaded before this), listening unless ``listen`` is
    false (``bot.py sync`` registers ``/board`` while the running bot holds the port)."""
    # By name, not by class: discord.py runs an extension's module anew at each load.
    cog: Any = bot.get_cog("RiskCog")
    if cog is None or not hasattr(cog, "table") or not hasattr(cog, "announcer"):
        raise RuntimeError("the live board needs the Risk cog")
    # The Activity asks Discord about its instances with the bot's own token.
    token = getattr(bot.http, "token", None) or getattr(getattr(bot, "config", None), "token", "") or ""
    server = BoardServer(config, cog.store, cog.table, cog.announcer, cog.clock, bot_token=token)
    if listen:
        await server.start()
    bot.add_dynamic_items(BoardButton)
    await bot.add_cog(BoardCommands(bot, server))
    return server


__all__ = ["start_board"]
