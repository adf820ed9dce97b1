"""The lobby: opening a game, taking seats, adding AIs and starting, by commands or by the lobby's buttons."""

from __future__ import annotations

import re
from typing import Any

import discord
from discord import app_commands

from engine import Settings
from engine.ai import LEVELS
from engine.settings import CHOICES, DEADLINES, PRESETS
from store import GameRecord

from .announcer import NOBODY
from .base import CogBase, risk_group
from .components import view_of
from .errors import UserError, handle_error
from .guards import game_here, game_locale, require_host
from .i18n import LANGUAGES, _, language_of
from .panel import Blue, Green, Grey
from .play import acknowledge
from .text import safe_name

JOIN, ADD_AI, START = "join", "bot", "start"  # the lobby buttons' verbs


def deadline_name(seconds: int) -> str:
    if seconds % 86400 == 0:
        days = seconds // 86400
        return f"{days} day" if days == 1 else f"{days} days"
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    return f"{seconds // 60} min"


def settings_text(settings: dict[str, Any]) -> str:
    full = Settings.from_dict({k: v for k, v in settings.items() if k in Settings.__dataclass_fields__})
    shown = {k: (deadline_name(v) if k == "turn_deadline" else v) for k, v in full.to_dict().items()
             if k not in ("map", "language")}
    return "\n".join(f"{k}: **{v}**" for k, v in shown.items())


def lobby_embed(record: GameRecord, interaction: discord.Interaction[Any]) -> discord.Embed:
    locale = game_locale(record, interaction)
    embed = discord.Embed(title=_("Risk: game #{id} lobby", locale, id=record.id), colour=discord.Colour.blue())
    seats = "\n".join(f"{p.seat + 1}. {safe_name(p.name)}" + (f" 🤖 {p.ai_level}" if p.is_ai else "") +
                      (" 👑" if p.user_id == record.host_id else "") for p in record.players)
    embed.add_field(name=_("Players ({n}/6)", locale, n=len(record.players)), value=seats or "—", inline=False)
    embed.add_field(name=_("Settings", locale), value=settings_text(record.settings), inline=False)
    embed.set_footer(text=_("/risk join to take a seat · the host starts with /risk start", locale))
    return embed


def lobby_view(record: GameRecord, interaction: discord.Interaction[Any]) -> discord.ui.View:
    locale = game_locale(record, interaction)
    return view_of(LobbyButton(record.id, JOIN, label=_("Join", locale), style=Green),
                   LobbyButton(record.id, ADD_AI, label=_("Add AI", locale), style=Grey),
                   LobbyButton(record.id, START, label=_("Start", locale), style=Blue))


class LobbyCommands(CogBase):
    @risk_group.command(name="new", description="Open a game lobby in this channel; you are the host")
    @app_commands.describe(deployment="How territories are taken at the start", setup_batch="Armies per setup turn",
                           cards="Card set values", fortify="The free move at the end of a turn",
                           turn_deadline="Time for each turn", on_timeout="What happens when time runs out",
                           max_missed="Missed turns in a row before the seat is replaced (0: never)",
                           on_boot="Who takes a replaced seat", max_rounds="End after this many rounds (0: no limit)",
                           language="The language of the game's public messages (default: the server's)",
                           mode="Classic world domination, secret missions, or capitals",
                           teams="Play in teams", fog="Fog of war: see only your territories and their neighbours",
                           preset="A set of settings in one choice (other options override it)")
    @app_commands.choices(
        deployment=[app_commands.Choice(name=n, value=n) for n in CHOICES["deployment"]],
        cards=[app_commands.Choice(name=n, value=n) for n in CHOICES["cards"]],
        fortify=[app_commands.Choice(name=n, value=n) for n in CHOICES["fortify"]],
        turn_deadline=[app_commands.Choice(name=deadline_name(v), value=v) for v in DEADLINES],
        on_timeout=[app_commands.Choice(name=n, value=n) for n in CHOICES["on_timeout"]],
        on_boot=[app_commands.Choice(name=n, value=n) for n in CHOICES["on_boot"]],
        language=[app_commands.Choice(name=name, value=code) for code, name in LANGUAGES.items()],
        mode=[app_commands.Choice(name=n, value=n) for n in CHOICES["mode"]],
        teams=[app_commands.Choice(name=n, value=n) for n in CHOICES["teams"]],
        fog=[app_commands.Choice(name=n, value=n) for n in CHOICES["fog"]],
        preset=[app_commands.Choice(name=n, value=n) for n in PRESETS],
    )
    async def risk_new(self, interaction: discord.Interaction[Any], deployment: str | None = None,
                       setup_batch: app_commands.Range[int, 1, 50] | None = None, cards: str | None = None,
                       fortify: str | None = None, turn_deadline: int | None = None, on_timeout: str | None = None,
                       max_missed: app_commands.Range[int, 0, 20] | None = None, on_boot: str | None = None,
                       max_rounds: app_commands.Range[int, 0, 1000] | None = None,
                       language: str | None = None, mode: str | None = None, teams: str | None = None,
                       fog: str | None = None, preset: str | None = None) -> None:
        if interaction.channel_id is None:
            raise UserError(_("Games are played in server channels.", interaction.locale))
        given = {"deployment": deployment, "setup_batch": setup_batch, "cards": cards, "fortify": fortify,
                 "turn_deadline": turn_deadline, "on_timeout": on_timeout, "max_missed": max_missed,
                 "on_boot": on_boot, "max_rounds": max_rounds,
                 "language": language or language_of(interaction.guild_locale), "mode": mode, "teams": teams,
                 "fog": fog}
        chosen = {k: v for k, v in given.items() if v is not None}
        if preset:
            if preset not in PRESETS:
                raise UserError(_("Choose one option.", interaction.locale))
            chosen = {**PRESETS[preset], **chosen}
        record = await self.store.create_lobby(interaction.guild_id, interaction.channel_id, interaction.user.id,
                                               interaction.user.display_name, chosen or None)
        await self.show_lobby(interaction, record)

    async def show_lobby(self, interaction: discord.Interaction[Any], record: GameRecord, *,
                         edit: bool = False) -> None:
        embed = lobby_embed(record, interaction)
        if edit:
            await interaction.response.edit_message(embed=embed)
        else:
            await interaction.response.send_message(embed=embed, view=lobby_view(record, interaction),
                                                    allowed_mentions=NOBODY)

    async def lobby_action(self, interaction: discord.Interaction[Any], game_id: int, verb: str) -> None:
        record = await self.store.get_game(game_id)
        if record.status != "lobby" or record.channel_id != interaction.channel_id:
            raise UserError(_("This lobby is closed.", interaction.locale))
        if verb == JOIN:
            record = await self.store.join(record.id, interaction.user.id, interaction.user.display_name)
            await self.show_lobby(interaction, record, edit=True)
        elif verb == ADD_AI:
            require_host(record, interaction)
            await self.show_lobby(interaction, await self.store.add_ai(record.id, "normal"), edit=True)
        elif verb == START:
            require_host(record, interaction)
            await self.start_game(interaction, record)
        else:
            raise UserError(_("This button is from an older version of the bot; use the slash commands.",
                              interaction.locale))

    @risk_group.command(name="join", description="Take a seat in this channel's lobby")
    async def risk_join(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction, running=False)
        record = await self.store.join(record.id, interaction.user.id, interaction.user.display_name)
        await self.show_lobby(interaction, record)

    @risk_group.command(name="leave", description="Leave this channel's lobby")
    async def risk_leave(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction, running=False)
        if record.status != "lobby":
            raise UserError(_("The game is running: use /risk surrender to resign.", interaction.locale))
        record = await self.store.leave(record.id, interaction.user.id)
        if record.status == "cancelled":
            await interaction.response.send_message(_("The lobby is empty and closed.", interaction.locale))
            return
        await interaction.response.send_message(embed=lobby_embed(record, interaction), allowed_mentions=NOBODY)

    @risk_group.command(name="addbot", description="Seat an AI player (host)")
    @app_commands.choices(level=[app_commands.Choice(name=lv, value=lv) for lv in LEVELS])
    async def risk_addbot(self, interaction: discord.Interaction[Any], level: str = "normal") -> None:
        record = await game_here(self.store, interaction, running=False)
        require_host(record, interaction)
        await self.show_lobby(interaction, await self.store.add_ai(record.id, level))

    @risk_group.command(name="start", description="Start the game (host)")
    async def risk_start(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction, running=False)
        require_host(record, interaction)
        if record.status != "lobby":
            raise UserError(_("The game has already started.", interaction.locale))
        await self.start_game(interaction, record)

    async def start_game(self, interaction: discord.Interaction[Any], record: GameRecord) -> None:
        if len(record.players) < 2:
            raise UserError(_("A game needs at least 2 players: /risk join or /risk addbot.", interaction.locale))
        await acknowledge(interaction, private=False)
        await self.announcer.answer(interaction, await self.table.start(record.id))


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"lobby:(?P<gid>[0-9]+):(?P<verb>[a-z]+)"):
    def __init__(self, game_id: int, verb: str, *, label: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary) -> None:
        super().__init__(discord.ui.Button(label=label or verb, style=style, custom_id=f"lobby:{game_id}:{verb}"))
        self.game_id = game_id
        self.verb = verb

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Button[Any],
                             match: re.Match[str], /) -> LobbyButton:
        return cls(int(match["gid"]), match["verb"], label=item.label or "", style=item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("RiskCog")  # type: ignore[attr-defined]
        try:
            await cog.lobby_action(interaction, self.game_id, self.verb)
        except Exception as exc:
            await handle_error(interaction, exc, {"lobby": self.verb, "game": self.game_id})


__all__ = ["LobbyButton", "LobbyCommands", "deadline_name", "lobby_embed", "lobby_view", "settings_text"]
