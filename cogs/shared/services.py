"""What the bot hands the Discord layer, passed explicitly: the database, the clock, the dice seeds of new
games, the server owner's limits, the shards this process runs, and (once the cog is loaded) the handler of
every button and select, and what the live board takes from it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import discord

from store import Shards, Store
from table import Clock, Limits, Table


class TapHandler(Protocol):
    """Who handles the taps of the game's buttons and selects, and what the bot asks of the games at start-up
    and when the console moves the clock (the Risk cog)."""

    async def on_button(self, interaction: discord.Interaction[Any], game_id: int, verb: str,
                        args: list[str]) -> None: ...

    async def on_select(self, interaction: discord.Interaction[Any], game_id: int, verb: str, args: list[str],
                        values: list[str]) -> None: ...

    async def lobby_action(self, interaction: discord.Interaction[Any], game_id: int, verb: str, arg: str = "",
                           values: Sequence[str] = ()) -> None: ...

    async def resume_games(self) -> int: ...

    async def run_due(self) -> int: ...


class Desk(Protocol):
    """The loaded Risk cog as the bot hands it to the live board (``bot.py``'s ``open_board``): the table every
    change goes through and the announcer that tells the channels about it (``cogs.shared.board.BoardNews``)."""

    table: Table
    announcer: Any  # cogs/shared/announcer.py's Announcer (which imports this module)


@dataclass
class Services:
    store: Store
    clock: Clock = field(default_factory=Clock)
    new_seed: Callable[[], str] | None = None
    limits: Limits = field(default_factory=Limits)
    shards: Shards | None = None  # None: this process runs every shard
    taps: TapHandler | None = None
    desk: Desk | None = None  # the Risk cog, once loaded


@runtime_checkable
class ServedBot(Protocol):
    """A bot that provides the services (``bot.py``'s bots do)."""

    def services(self) -> Services: ...


def services_of(client: object) -> Services:
    if not isinstance(client, ServedBot):
        raise TypeError("the Risk cog needs a bot that provides its services (bot.py's RiskBot)")
    return client.services()


def taps_of(client: object) -> TapHandler:
    """The handler of the game's buttons and selects, once the cog is loaded."""
    taps = services_of(client).taps
    if taps is None:
        raise RuntimeError("a tap arrived before the Risk cog was loaded")
    return taps


__all__ = ["Desk", "ServedBot", "Services", "TapHandler", "services_of", "taps_of"]
