"""Starting the live board with the bot: its server, on the bot's event loop.

The board knows no Discord: the bot (``bot.py``) hands it the store it reads, the table every move goes through
and the channels it tells of a move (``Channels``: the Discord layer's ``cogs.shared.board.BoardNews``), then adds
``/board`` and the Board button itself (``cogs.shared.board.add_board``)."""

from __future__ import annotations

from collections.abc import Callable

from store import StoreReader
from table import Table

from .config import WebConfig
from .server import BoardServer, Channels


async def start_board(config: WebConfig, store: StoreReader, table: Table, channels: Channels,
                      clock: Callable[[], float], *, bot_token: str = "", listen: bool = True) -> BoardServer:
    """The board's server for the games of ``table``, listening unless ``listen`` is false (``bot.py sync``
    registers ``/board`` while the running bot holds the port). ``bot_token``: the Activity asks Discord about its
    instances with the bot's own token."""
    server = BoardServer(config, store, table, channels, clock, bot_token=bot_token)
    if listen:
        await server.start()
    return server


__all__ = ["start_board"]
