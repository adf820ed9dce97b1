"""The Risk cog: one game per channel, assembled from its parts.

- ``play.py``: the moves (``/place``, ``/attack`` …) and the one path every move takes;
- ``lobby.py``, ``info.py``, ``control.py``, ``history.py``, ``mapcmds.py``: the ``/risk`` commands (a server's
  maps in the last);
- ``taps.py``: what each button and select does; ``panel.py``: the turn panel's buttons;
- ``announcer.py``: every message about a game, per audience; ``guards.py``: who may act;
- ``table/`` (outside ``cogs/``): the game flow, AI turns and timers, with no Discord in it.
"""

from __future__ import annotations

from typing import Any

import discord
from discord.ext import commands

from engine.odds import BattleOdds
from engine.state import NEUTRAL
from table import Scheduler, Table

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
from .services import Services, services_of
from .taps import AT_ONCE, BUTTONS, HOSTED, SEATED, Tap, on_select


class RiskCog(PlayCommands, LobbyCommands, InfoCommands, ControlCommands, HistoryCommands, MapCommands):
    """Games of Risk, one per channel."""

    risk = risk_group

    def __init__(self, bot: commands.Bot, services: Services) -> None:
        self.bot = bot
        self.store = services.store  # read only here: every change goes through the table
        self.clock = services.clock
        self.table = Table(services.store, self.clock, services.new_seed, services.limits)
        self.announcer = Announcer(bot, services.store, self.table)
        self.fogged: dict[int, bool] = {}  # channel -> whether its game answers privately (fog of war)
        self.odds_cache: dict[tuple[int, int], BattleOdds] = {}
        self.started = discord.utils.utcnow()
        # A process that runs some of the gateway's shards handles the timers of their guilds' games only.
        self.shards = services.shards
        self.scheduler = Scheduler(self.table, services.store, self.clock, self.announcer, self.shards)
        self.services = services

    async def cog_load(self) -> None:
        self.services.taps = self  # the buttons and selects find their handler here
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

    async def run_due(self) -> int:
        """Handle every timer that is due now (the console's clock moved)."""
        return await self.scheduler.run_due()

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
                await self.announcer.publish(await self.table.go_on(record.id))
                resumed += 1
        return resumed


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(RiskCog(bot, services_of(bot)))


__all__ = ["RiskCog", "setup"]
