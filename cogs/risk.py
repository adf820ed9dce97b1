"""The Risk cog: one game per channel, assembled from its parts.

- ``play.py``: the moves (``/place``, ``/attack`` …) and the one path every move takes;
- ``lobby.py``, ``info.py``, ``control.py``, ``history.py``, ``mapcmds.py``: the ``/risk`` commands (a server's
  maps in the last);
- ``taps.py``: what each button and select does; ``panel.py``: the turn panel's buttons;
- ``announcer.py``: every message about a game, per audience; ``guards.py``: who may act;
- ``table/`` (outside ``cogs/``): the game flow, AI turns and timers, with no Discord in it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import discord
from discord.ext import commands

from engine.odds import BattleOdds
from engine.state import NEUTRAL
from store import Store
from table import Clock, Scheduler, Table

from . import components as verb
from .announcer import Announcer
from .base import risk_group
from .components import GameButton, GameSelect
from .control import ControlCommands
from .errors import UserError, handle_error
from .guards import on_turn, require_host, require_permissions, running_game, seat_of
from .history import HistoryCommands
from .i18n import _
from .info import InfoCommands
from .lobby import LobbyButton, LobbyCommands
from .mapcmds import MapCommands
from .play import PlayCommands
from .taps import AT_ONCE, BUTTONS, HOSTED, SEATED, Tap, on_select


class RiskCog(PlayCommands, LobbyCommands, InfoCommands, ControlCommands, HistoryCommands, MapCommands):
    """Games of Risk, one per channel."""

    risk = risk_group

    def __init__(self, bot: commands.Bot, store: Store, new_seed: Callable[[], str] | None = None) -> None:
        self.bot = bot
        self.store = store
        self.clock = getattr(bot, "clock", None) or Clock()
        self.table = Table(store, self.clock, new_seed)
        self.announcer = Announcer(bot, store)
        self.fogged: dict[int, bool] = {}  # channel -> whether its game answers privately (fog of war)
        self.odds_cache: dict[tuple[int, int], BattleOdds] = {}
        self.started = discord.utils.utcnow()
        self.rooms: dict[int, asyncio.Lock] = {}
        # A process that runs some of the gateway's shards handles the timers of their guilds' games only.
        self.shards = getattr(bot, "owned_shards", None)
        self.scheduler = Scheduler(self.table, store, self.clock, self.announcer, self.shards)

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(GameButton, GameSelect, LobbyButton)
        self.use_stored_maps()
        self.scheduler.start()

    async def cog_unload(self) -> None:
        await self.scheduler.stop()
        await self.announcer.box.close()

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:  # type: ignore[override]
        require_permissions(interaction)
        command = interaction.command
        if interaction.type == discord.InteractionType.application_command and command is not None \
                and command.extras.get("move"):
            await self.receive(interaction)  # before its options are read: Discord waits 3 s for this
        return True

    # -- taps ---------------------------------------------------------------------------------------------
    async def on_button(self, interaction: discord.Interaction[Any], game_id: int, name: str,
                        args: list[str]) -> None:
        """Every game button lands here: the game, the player, then the verb's handler (cogs/taps.py)."""
        try:
            if name in AT_ONCE:
                await self.receive(interaction)
            record = await running_game(self.store, interaction, game_id)
            if name == verb.MAP:
                await self.announcer.private_map(interaction, record)
                return
            if name in SEATED:  # any time, for a player of the game
                handler, seat, game = SEATED[name], seat_of(record, interaction), record.game()
            elif name in HOSTED:  # any time, for the host
                require_host(record, interaction)
                handler, game = HOSTED[name], record.game()
                seat = record.seat_of(interaction.user.id)
                seat = NEUTRAL if seat is None else seat
            elif name in BUTTONS:  # a move: only the player whose turn it is
                handler = BUTTONS[name]
                game, seat = on_turn(record, interaction)
            else:
                raise UserError(_("This button is from an older version of the bot; use the slash commands.",
                                  interaction.locale))
            await handler(Tap(self, interaction, record, game, seat, args))
        except Exception as exc:  # one handler for every error, as for commands
            await handle_error(interaction, exc, {"button": name, "args": args, "game": game_id})

    async def on_select(self, interaction: discord.Interaction[Any], game_id: int, name: str, args: list[str],
                        values: list[str]) -> None:
        try:
            record = await running_game(self.store, interaction, game_id)
            game, seat = on_turn(record, interaction)
            await on_select(Tap(self, interaction, record, game, seat, args), name, values)
        except Exception as exc:
            await handle_error(interaction, exc, {"select": name, "args": args, "values": values, "game": game_id})

    # -- start-up: finish AI turns that a restart interrupted ------------------------------------------------
    async def resume_games(self) -> int:
        for record, told in await self.store.unannounced():  # stored, then stopped before telling the channel
            if self.shards is None or self.shards.owns(record.guild_id):
                await self.announcer.catch_up(record, told, await self.table.sync(record))
        resumed = 0
        for record in await self.store.running_games():
            if record.state_json is None or (self.shards is not None and not self.shards.owns(record.guild_id)):
                continue
            state = record.game().state
            if state.phase != "over" and record.player(state.current).is_ai:
                await self.announcer.publish(await self.table.resume(record.id))
                resumed += 1
        return resumed


async def setup(bot: commands.Bot) -> None:
    store: Store = bot.store  # type: ignore[attr-defined]
    await bot.add_cog(RiskCog(bot, store, getattr(bot, "new_seed", None)))


__all__ = ["RiskCog", "setup"]
