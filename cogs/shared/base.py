"""What every part of the Risk cog shares: the ``/risk`` group and the services a command calls."""

from __future__ import annotations

import datetime

from discord import app_commands
from discord.ext import commands

from cogs.shared.announcer import Announcer
from engine.odds import BattleOdds
from store import StoreReader
from table import Clock, Table

risk_group = app_commands.Group(name="risk", description="Games of Risk: lobby, status, rules and help")


class CogBase(commands.Cog):
    """The services: the store (read only), the table (every change to a game) and the announcer (every
    message about one). The command mixins are written against these."""

    bot: commands.Bot
    store: StoreReader
    table: Table
    clock: Clock
    announcer: Announcer
    odds_cache: dict[tuple[int, int], BattleOdds]
    started: datetime.datetime  # when this cog began: older interactions may have been answered before


__all__ = ["CogBase", "risk_group"]
