"""The live board: a web page per game, served by the bot, where players tap the map itself.

``config`` (the ``[web]`` settings), ``links`` (signed links and cookies), ``trace`` (territory outlines from a
map's region image), ``board`` (what a viewer may see and send), ``hub`` (the open boards and their updates),
``page`` and ``static/`` (the page), ``server`` (aiohttp on the bot's event loop). See docs/board.md.
"""

from .config import WebConfig

__all__ = ["WebConfig"]
