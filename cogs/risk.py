"""The Risk cog: one game per channel, assembled from its rooms.

- ``play/``: a turn: the moves (``moves.py``: ``/place``, ``/attack`` … and the one path every move takes), the
  turn panel's buttons (``panel.py``), what each button and select does (``buttons.py``, each tap a ``tap.Tap``),
  the menus of territories and counts, the territory options with their autocomplete;
- ``game/``: one channel's game under ``/risk``: the lobby, its control (kick, pause, vacation…), its status,
  log and rules, substitutes; and ``/vote``, a vote to end it;
- ``records/``: stats, the leaderboard, past games and the end-of-game report;
- ``maps/``: a server's own maps (``commands.py``);
- ``tournament/``: ``/tournament``, a channel's tournament, its games in threads of their own;
- ``shared/``: the plumbing every room uses: the announcer and the channel queue, components, guards, errors,
  the commands' translator, a map as an attachment, the way into the live board, the services the bot hands over;
  the rooms import it, never each other, and it imports no room: the announcer is handed the rooms' parts here;
- ``present/`` and ``table/`` (outside ``cogs/``): what players read, for Discord and the live board alike, and
  every change to a game, AI turns and timers, with no Discord in either.
"""

from __future__ import annotations

from typing import Any

import discord
from discord.ext import commands

from cogs.game.control import ControlCommands
from cogs.game.info import InfoCommands
from cogs.game.lobby import LobbyButton, LobbyCommands, LobbySelect
from cogs.game.substitutes import SeatCommands
from cogs.game.vote import VoteCommands
from cogs.maps.commands import MapCommands
from cogs.play.buttons import AT_ONCE, BUTTONS, HOSTED, SEATED, Tap, on_select
from cogs.play.hint import HintCommands
from cogs.play.moves import PlayCommands
from cogs.play.panel import controls
from cogs.play.plan import PLAN_BUTTONS, PLAN_SELECTS, PlanCommands, on_plan_select
from cogs.records.history import HistoryCommands
from cogs.records.report import end_of_game_files
from cogs.records.season import SeasonCommands, season_group
from cogs.records.standings import SeasonNews
from cogs.shared.announcer import Announcer
from cogs.shared.base import risk_group
from cogs.shared.components import GameButton, GameSelect
from cogs.shared.errors import UserError, handle_error
from cogs.shared.guards import game_locale, on_turn, require_control, require_permissions, running_game, seat_of
from cogs.shared.rooms import RoomParts
from cogs.shared.services import Services, services_of
from cogs.tournament.commands import TournamentCommands, tournament_group
from cogs.tournament.rooms import ThreadRooms, TournamentNews
from engine import Game
from engine.errors import TurnRunning
from engine.odds import BattleOdds
from engine.state import NEUTRAL
from present import verbs as verb
from present.i18n import _
from store import GameRecord
from table import Scheduler, Table
from table.tournaments import Tournaments


class RiskCog(PlayCommands, PlanCommands, HintCommands, LobbyCommands, InfoCommands, ControlCommands, VoteCommands,
              SeatCommands, HistoryCommands, MapCommands, SeasonCommands, TournamentCommands):
    """Games of Risk, one per channel."""

    risk = risk_group
    season = season_group
    tournament = tournament_group

    def __init__(self, bot: commands.Bot, services: Services) -> None:
        self.bot = bot
        self.store = services.store  # read only here: every change goes through the table
        self.clock = services.clock
        self.table = Table(services.store, self.clock, services.new_seed, services.limits)
        self.announcer = Announcer(bot, services.store, self.table,
                                   RoomParts(controls=controls, report_files=end_of_game_files))
        self.odds_cache: dict[tuple[int, int], BattleOdds] = {}
        self.started = discord.utils.utcnow()
        # A process that runs some of the gateway's shards handles the timers of their guilds' games only.
        self.shards = services.shards
        self.scheduler = Scheduler(self.table, services.store, self.clock, self.announcer, self.shards)
        self.seasons = self.scheduler.seasons  # a server's seasons, ended by the scheduler at their end time
        self.scheduler.season_sink = SeasonNews(self.announcer, bot)
        # Tournaments: each table's game in a thread of the tournament's channel; what their timers do is told
        # through the announcer (cogs/tournament/rooms.py).
        self.tournaments = Tournaments(self.table)
        self.tournaments.rooms = ThreadRooms(bot, services.store)
        self.tournament_news = TournamentNews(self.announcer, bot)
        self.tournaments.sink = self.tournament_news.tell
        self.scheduler.tournaments = self.tournaments
        self.services = services

    async def cog_load(self) -> None:
        self.services.taps = self  # the buttons and selects find their handler here
        self.services.desk = self  # and bot.py the table and announcer it hands the live board
        self.bot.add_dynamic_items(GameButton, GameSelect, LobbyButton, LobbySelect)
        self.use_stored_maps()
        # Timers run once the gateway is ready: their work reads its cache (a tournament's opening after a
        # restart looks there for the thread it made before).
        self.scheduler.start(self.bot.wait_until_ready)

    async def cog_unload(self) -> None:
        await self.scheduler.stop()
        await self.announcer.box.close()
        self.table.thinking.shutdown()

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        require_permissions(interaction)
        command = interaction.command
        if interaction.type == discord.InteractionType.application_command and command is not None \
                and command.extras.get("move"):
            await self.receive(interaction)  # before its options are read: Discord waits 3 s for this
        return True

    # -- taps ---------------------------------------------------------------------------------------------
    async def on_button(self, interaction: discord.Interaction[Any], game_id: int, name: str,
                        args: list[str]) -> None:
        """Every game button lands here: the game, the player, then the verb's handler (cogs/play/buttons.py)."""
        try:
            if name == verb.TAKE_SEAT:  # anyone in the channel; the table checks the offer and the claimer
                await self.claim(interaction, game_id, args)
                return
            if name in AT_ONCE:
                await self.receive(interaction)
            record = await running_game(self.store, interaction, game_id)
            if name == verb.MAP:
                await self.announcer.private_map(interaction, record)
                return
            if name in SEATED or name in PLAN_BUTTONS:  # any time, for a player of the game
                handler = SEATED.get(name) or PLAN_BUTTONS[name]
                seat, game = seat_of(record, interaction), record.game()
            elif name in HOSTED:  # any time, for the host
                await require_control(self.store, record, interaction)
                handler, game = HOSTED[name], record.game()
                held = record.seat_of(interaction.user.id)
                seat = NEUTRAL if held is None else held
            elif name in BUTTONS:  # a move: only the player whose turn it is
                handler = BUTTONS[name]
                game, seat = await self.on_turn(record, interaction)
            else:
                raise UserError(_("This button is from an older version of the bot; use the slash commands.",
                                  interaction.locale))
            await handler(Tap(self, interaction, record, game, seat, args))
        except Exception as exc:  # one handler for every error, as for commands
            await handle_error(interaction, exc, {"button": name, "args": args, "game": game_id})

    async def on_turn(self, record: GameRecord, interaction: discord.Interaction[Any]) -> tuple[Game, int]:
        """The game and the user's seat, if it is their move (``guards.on_turn``); a tap while another player's
        turn runs is told until when it runs at the latest."""
        try:
            return on_turn(record, interaction)
        except TurnRunning as exc:
            raise await self.table.until(record.id, exc) from None

    async def on_select(self, interaction: discord.Interaction[Any], game_id: int, name: str, args: list[str],
                        values: list[str]) -> None:
        try:
            record = await running_game(self.store, interaction, game_id)
            if name in PLAN_SELECTS:  # planning the next turn: any time, for a player of the game
                tap = Tap(self, interaction, record, record.game(), seat_of(record, interaction), args)
                await on_plan_select(tap, name, values)
                return
            game, seat = await self.on_turn(record, interaction)
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
                if told == 0 and record.state_json is not None:   # its start never told: the dice commitment first
                    await self.announcer.post(record, _(
                        "The game begins! Its dice are fixed in advance by a secret seed, sealed by its commitment "
                        "`{c}`; after the game </risk verify> reveals the seed, and anyone can check every roll.",
                        game_locale(record), c=record.game().state.seed_commitment))
                await self.announcer.catch_up(record, told, await self.table.sync(record))
        # A tournament's game that ended while the bot was stopping is scored now (its next round then opens).
        await self.tournaments.catch_up(await self.store.running_tournaments())
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
