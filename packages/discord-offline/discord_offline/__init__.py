"""An offline Discord: a bot's real command tree and views driven with no connection.

``OfflineDiscord`` (tests and scripts) and ``run_console`` (a text console for people) share one fake server
that answers the bot the way Discord does.
"""

from discord_offline.console import run_console, run_console_sync
from discord_offline.harness import OfflineDiscord
from discord_offline.records import (
    OfflineAttachment,
    OfflineChannel,
    OfflineError,
    OfflineInteraction,
    OfflineMessage,
    OfflineUser,
    Step,
)
from discord_offline.server import OfflineServer

__all__ = [
    "OfflineAttachment",
    "OfflineChannel",
    "OfflineDiscord",
    "OfflineError",
    "OfflineInteraction",
    "OfflineMessage",
    "OfflineServer",
    "OfflineUser",
    "Step",
    "run_console",
    "run_console_sync",
]
