"""An offline Discord: a bot's real command tree and views driven with no connection.

``OfflineDiscord`` (tests and scripts) and ``run_console`` (a text console for people) share one fake server
that answers the bot the way Discord does.
"""

from offline.console import run_console, run_console_sync
from offline.harness import OfflineDiscord
from offline.records import (
    OfflineAttachment,
    OfflineChannel,
    OfflineError,
    OfflineInteraction,
    OfflineMessage,
    OfflineUser,
    Step,
)
from offline.server import OfflineServer

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
