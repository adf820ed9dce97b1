"""The lobby: opening a game, taking seats, adding AIs and starting, by commands or by the lobby's buttons."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import discord
from discord import app_commands

from cogs.shared.announcer import NOBODY
from cogs.shared.base import CogBase, risk_group
from cogs.shared.components import Blue, Green, Grey, view_of
from cogs.shared.errors import UserError, acknowledge, handle_error
from cogs.shared.guards import game_here, game_locale, require_control, require_own_seats
from cogs.shared.map_choice import map_choices, resolve_map
from cogs.shared.services import taps_of
from engine import Settings, SettingsError, registered_map
from engine.ai import PLAYER_LEVELS
from engine.settings import DEADLINES, OPTION, OPTIONS, PRESETS, assign_teams
from present.i18n import LANGUAGES, _, _plain, language_of, percent, pgettext
from present.names import safe_name
from present.text import AI_NAMES, _noop, player_name
from present.turns import deadline_name
from ratings import EARLY_TURNS
from store import GameRecord, StoreReader
from store.results import Reliability
from table.flow import LIVE

JOIN, ADD_AI, START = "join", "bot", "start"  # the lobby buttons' verbs
SETTING, VALUE, AI_LEVEL = "set", "val", "ai"  # the lobby menus' verbs: a setting, then its value (arg: the
#                                                setting); an AI of a level
# The settings a host chooses from the lobby's menus, in the order offered (declared in engine.settings.OPTIONS).
MENU_SETTINGS = ("mode", "fog", "teams", "cards", "fortify", "turn_order", "setup", "turn_deadline",
                 "min_reliability", "stand_in", "hints")
# The minimum reliabilities a host can choose from the lobby's menu (/risk new takes any from 0 to 100).
RELIABILITY_STEPS = (0, 50, 70, 80, 90, 95)
# A game without a preset: territories dealt at random and, unless the server or the host chose otherwise, the
# starting armies placed by everyone at once in one set-up round (five at a time with ``setup: turns``), so a game
# over days reaches its first real turn after one deadline at most instead of some seventy set-up turns (see
# docs/rules.md).
ASYNC_DEFAULTS: dict[str, Any] = {"deployment": "deal", "setup_batch": 5}


MAP_LABEL = _noop("Map")


def settings_text(settings: dict[str, Any], locale: object | None = None) -> str:
    """The rules of a game, one line each, in the reader's words."""
    full = Settings.from_dict({k: v for k, v in settings.items() if k in Settings.__dataclass_fields__})
    lines = []
    for key, value in full.to_dict().items():
        option = OPTION.get(key)
        if (option is None and key != "map") or not applies(full, key):
            continue
        label = pgettext("setting", option.label, locale) if option else _(MAP_LABEL, locale)
        if key == "map":
            board = registered_map(str(value))
            shown = safe_name(board.title_in(language_of(locale))) if board else safe_name(str(value)[:60])
        elif key == "turn_deadline":
            shown = deadline_name(value, locale)
        elif key == "min_reliability" and value:
            shown = percent(value / 100, locale)
        elif key == "reminders" and value == "auto" and full.turn_deadline < LIVE:
            shown = _("none (turns shorter than an hour)", locale)
        elif option is not None and (words := option.word(value)) is not None:
            shown = _(words, locale)
        else:
            shown = str(value)
        lines.append(f"{label}: **{shown}**")
    return "\n".join(lines)


def applies(settings: Settings, key: str) -> bool:
    """Whether a setting changes anything in a game with these settings (no set-up turns with deployment auto, no
    stand-in's level when no AI plays for an absent player)."""
    return not ((key == "setup_batch" and (settings.deployment == "auto" or settings.setup == "round"))
                or (key == "setup" and settings.deployment == "auto")
                or (key == "stand_in" and settings.on_timeout != "ai" and settings.on_boot != "ai"))


def menu_values(name: str) -> tuple[object, ...]:
    """The values a lobby menu offers for a setting: its declared words, or the turn deadlines."""
    if name == "min_reliability":
        return RELIABILITY_STEPS
    return DEADLINES if name == "turn_deadline" else OPTION[name].values


def value_label(name: str, value: object, locale: object | None = None) -> str:
    if name == "turn_deadline" and isinstance(value, int):
        return deadline_name(value, locale)
    words = OPTION[name].word(value)
    if words is None and name == "min_reliability" and isinstance(value, int):
        return percent(value / 100, locale)
    return (_(words, locale) if words is not None else str(value))[:100]


def teams_text(record: GameRecord, locale: object | None = None) -> str | None:
    """Who plays with whom (seat order decides: teams are dealt in turn), or None without teams."""
    full = Settings.from_dict({k: v for k, v in record.settings.items() if k in Settings.__dataclass_fields__})
    try:
        teams = assign_teams(full, len(record.players))
    except SettingsError:  # not yet the number of players the format needs
        return _("{teams}: the first player joins team 1, the next team 2, and so on.", locale, teams=full.teams) \
            if full.teams != "none" else None
    if not teams:
        return None
    names = {p.seat: safe_name(player_name(p.name, p.is_ai, locale)) for p in record.players}
    return "\n".join(_("Team {n}: {players}", locale, n=team + 1,
                        players=", ".join(names[s] for s in sorted(teams) if teams[s] == team))
                      for team in sorted(set(teams.values())))


def reliability_text(figure: Reliability, locale: object | None = None) -> str:
    """A player's reliability as the lobby shows it: "new" without a finished game, else the figure, with ✅ for
    a reliable player (docs/history.md, "Reliability")."""
    if figure.percent is None:
        return pgettext("reliability", "new", locale)
    return percent(figure.percent / 100, locale) + (" ✅" if figure.reliable else "")


async def lobby_figures(store: StoreReader, record: GameRecord) -> dict[int, Reliability]:
    """The reliability of the lobby's humans on its server."""
    humans = [p.user_id for p in record.players if p.user_id is not None and not p.is_ai]
    if not humans:
        return {}
    return await store.reliability(record.guild_id, humans, record.channel_id, early_turns=EARLY_TURNS)


def lobby_embed(record: GameRecord, interaction: discord.Interaction[Any],
                figures: Mapping[int, Reliability] | None = None) -> discord.Embed:
    """The lobby's message: its seats (with each human's reliability, if ``figures`` are given), teams and
    settings."""
    locale = game_locale(record, interaction)
    embed = discord.Embed(title=_("Risk: game #{id} lobby", locale, id=record.id), colour=discord.Colour.blue())
    figures = figures or {}

    def seat_line(p: Any) -> str:
        figure = figures.get(p.user_id) if p.user_id is not None and not p.is_ai else None
        return (f"{p.seat + 1}. {safe_name(player_name(p.name, p.is_ai, locale))}" + (" 🤖" if p.is_ai else "") +
                (" 👑" if p.user_id == record.host_id else "") +
                (f" · {reliability_text(figure, locale)}" if figure is not None else ""))
    seats = "\n".join(seat_line(p) for p in record.players)
    most = registered_map(str(record.settings.get("map") or "classic"))
    embed.add_field(name=_("Players ({n}/{most})", locale, n=len(record.players), most=most.players[1] if most else 6),
                    value=seats or "—", inline=False)
    teams = teams_text(record, locale)
    if teams:
        embed.add_field(name=_("Teams", locale), value=teams, inline=False)
    embed.add_field(name=_("Settings", locale), value=settings_text(record.settings, locale), inline=False)
    embed.set_footer(text=_plain("</risk join> to take a seat · the host starts with </risk start>", locale))
    return embed


def lobby_view(record: GameRecord, interaction: discord.Interaction[Any], setting: str | None = None
               ) -> discord.ui.View:
    """The lobby's buttons, a menu of AI levels, a menu of the settings and (once one is chosen) its values."""
    locale = game_locale(record, interaction)
    full = Settings.from_dict({k: v for k, v in record.settings.items() if k in Settings.__dataclass_fields__})
    levels = [discord.SelectOption(label=_(AI_NAMES.get(level.title(), level), locale), value=level)
              for level in PLAYER_LEVELS]
    settings = [discord.SelectOption(label=pgettext("setting", OPTION[name].label, locale)[:100], value=name,
                                     description=value_label(name, getattr(full, name), locale))
                for name in MENU_SETTINGS]
    items: list[discord.ui.Item[Any]] = [
        LobbyButton(record.id, JOIN, label=_("Join", locale), style=Green),
        LobbyButton(record.id, ADD_AI, label=_("Add AI", locale), style=Grey),
        LobbyButton(record.id, START, label=_("Start", locale), style=Blue),
        LobbySelect(record.id, AI_LEVEL, options=levels, placeholder=_("Add an AI of level…", locale)),
        LobbySelect(record.id, SETTING, options=settings, placeholder=_("Change a setting…", locale))]
    if setting in MENU_SETTINGS:
        values = [discord.SelectOption(label=value_label(setting, v, locale), value=str(v),
                                       default=v == getattr(full, setting)) for v in menu_values(setting)]
        items.append(LobbySelect(record.id, VALUE, setting, options=values,
                                 placeholder=pgettext("setting", OPTION[setting].label, locale)[:150]))
    return view_of(*items)


class LobbyCommands(CogBase):
    @risk_group.command(name="new", description="Open a game lobby in this channel; you are the host")
    @app_commands.describe(**{o.name: o.help for o in OPTIONS if o.help},
                           language="The language of the game's public messages (default: the server's)",
                           preset="A set of settings in one choice (other options override it)",
                           map_name="The map (built in, or one of this server's: /risk map list)")
    @app_commands.rename(map_name="map")
    @app_commands.choices(
        **{o.name: [app_commands.Choice(name=v, value=v) for v in o.values] for o in OPTIONS if o.help and o.values},
        language=[app_commands.Choice(name=name, value=code) for code, name in LANGUAGES.items()],
        preset=[app_commands.Choice(name=n, value=n) for n in PRESETS],
    )
    @app_commands.choices(turn_deadline=[app_commands.Choice(name=deadline_name(v), value=v) for v in DEADLINES])
    async def risk_new(self, interaction: discord.Interaction[Any], deployment: str | None = None,
                       setup_batch: app_commands.Range[int, 1, 50] | None = None, cards: str | None = None,
                       fortify: str | None = None, turn_deadline: int | None = None, on_timeout: str | None = None,
                       max_missed: app_commands.Range[int, 0, 20] | None = None, on_boot: str | None = None,
                       stand_in: str | None = None, turn_order: str | None = None, setup: str | None = None,
                       max_rounds: app_commands.Range[int, 0, 1000] | None = None,
                       min_reliability: app_commands.Range[int, 0, 100] | None = None,
                       language: str | None = None, mode: str | None = None, teams: str | None = None,
                       fog: str | None = None, preset: str | None = None, map_name: str | None = None) -> None:
        if interaction.channel_id is None:
            raise UserError(_("Games are played in server channels.", interaction.locale))
        # The settings given, by their declared names (engine.settings.OPTIONS); the engine validates them.
        chosen = {name: value for name, value in interaction.namespace if name in OPTION and value is not None}
        chosen["language"] = language or language_of(interaction.guild_locale)
        if preset:
            if preset not in PRESETS:
                raise UserError(_("Choose one option.", interaction.locale))
            chosen = {**PRESETS[preset], **chosen}
        else:  # the bot's defaults for play over days, under the server's own defaults
            server = await self.store.get_guild_settings(interaction.guild_id) if interaction.guild_id else None
            chosen = {**ASYNC_DEFAULTS, **(server.default_settings if server else {}), **chosen}
            if chosen.get("deployment") == "deal":  # dealt territories: the starting armies in one set-up round
                chosen.setdefault("setup", "round")
        if map_name:
            chosen["map"] = (await resolve_map(self.store, interaction, map_name)).id
        board = registered_map(str(chosen.get("map") or "classic"))
        if board is None:   # a server default naming a map that is gone
            raise UserError(_("There is no map “{name}” here: </risk map list> shows them.", interaction.locale,
                              name=safe_name(str(chosen["map"])[:60])))
        if chosen.get("mode") == "missions" and not board.has_missions:
            raise UserError(_("The map {name} has no missions: choose another goal or another map.",
                              interaction.locale, name=safe_name(board.title_in(language_of(interaction.locale)))))
        outcome = await self.table.open_lobby(interaction.guild_id, interaction.channel_id, interaction.user.id,
                                              interaction.user.display_name, chosen)
        await self.show_lobby(interaction, outcome.record)

    @risk_new.autocomplete("map_name")
    async def risk_new_maps(self, interaction: discord.Interaction[Any], current: str
                            ) -> list[app_commands.Choice[str]]:
        return await map_choices(self.store, interaction, current)

    async def show_lobby(self, interaction: discord.Interaction[Any], record: GameRecord, *,
                         edit: bool = False) -> None:
        embed = lobby_embed(record, interaction, await lobby_figures(self.store, record))
        if edit:
            await interaction.response.edit_message(embed=embed)
        else:
            await interaction.response.send_message(embed=embed, view=lobby_view(record, interaction),
                                                    allowed_mentions=NOBODY)

    async def lobby_action(self, interaction: discord.Interaction[Any], game_id: int, verb: str, arg: str = "",
                           values: Sequence[str] = ()) -> None:
        """A lobby button or menu: every value is checked against what the menu declares before anything changes."""
        record = await self.store.get_game(game_id)
        if record.status != "lobby" or record.channel_id != interaction.channel_id:
            raise UserError(_("This lobby is closed.", interaction.locale))
        refused = UserError(_("That choice is not available now; open the menu again.", interaction.locale))
        value = values[0] if len(values) == 1 else None
        if verb in (SETTING, VALUE, AI_LEVEL):
            await require_control(self.store, record, interaction)
            if value is None:
                raise refused
        if verb == SETTING:
            if value not in MENU_SETTINGS:
                raise refused
            await interaction.response.edit_message(view=lobby_view(record, interaction, value))
        elif verb == VALUE:
            chosen = next((v for v in menu_values(arg) if str(v) == value), None) if arg in MENU_SETTINGS else None
            if chosen is None:
                raise refused
            record = (await self.table.change_settings(record.id, {arg: chosen})).record
            await interaction.response.edit_message(
                embed=lobby_embed(record, interaction, await lobby_figures(self.store, record)),
                view=lobby_view(record, interaction))
        elif verb == AI_LEVEL:
            if value not in PLAYER_LEVELS:
                raise refused
            await self.show_lobby(interaction, (await self.table.add_ai(record.id, value)).record, edit=True)
        elif verb == JOIN:
            await require_own_seats(self.store, record, interaction)
            outcome = await self.table.join(record.id, interaction.user.id, interaction.user.display_name)
            await self.show_lobby(interaction, outcome.record, edit=True)
        elif verb == ADD_AI:
            await require_control(self.store, record, interaction)
            await self.show_lobby(interaction, (await self.table.add_ai(record.id)).record, edit=True)
        elif verb == START:
            await require_control(self.store, record, interaction)
            await self.start_game(interaction, record)
        else:
            raise UserError(_("This button is from an older version of the bot; use the slash commands.",
                              interaction.locale))

    @risk_group.command(name="join", description="Take a seat in this channel's lobby")
    async def risk_join(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction, running=False)
        await require_own_seats(self.store, record, interaction)
        outcome = await self.table.join(record.id, interaction.user.id, interaction.user.display_name)
        await self.show_lobby(interaction, outcome.record)

    @risk_group.command(name="leave", description="Leave this channel's lobby")
    async def risk_leave(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction, running=False)
        if record.status != "lobby":
            raise UserError(_("The game is running: use </risk surrender> to resign.", interaction.locale))
        await require_own_seats(self.store, record, interaction)
        record = (await self.table.leave(record.id, interaction.user.id)).record
        if record.status == "cancelled":
            await interaction.response.send_message(_("The lobby is empty and closed.", interaction.locale))
            return
        await interaction.response.send_message(embed=lobby_embed(record, interaction,
                                                                  await lobby_figures(self.store, record)),
                                                allowed_mentions=NOBODY)

    @risk_group.command(name="addbot", description="Seat an AI player (host)")
    @app_commands.choices(level=[app_commands.Choice(name=lv, value=lv) for lv in PLAYER_LEVELS])
    async def risk_addbot(self, interaction: discord.Interaction[Any], level: str = "normal") -> None:
        record = await game_here(self.store, interaction, running=False)
        await require_control(self.store, record, interaction)
        await self.show_lobby(interaction, (await self.table.add_ai(record.id, level)).record)

    @risk_group.command(name="start", description="Start the game (host)")
    async def risk_start(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction, running=False)
        await require_control(self.store, record, interaction)
        if record.status != "lobby":
            raise UserError(_("The game has already started.", interaction.locale))
        await self.start_game(interaction, record)

    async def start_game(self, interaction: discord.Interaction[Any], record: GameRecord) -> None:
        if len(record.players) < 2:
            raise UserError(_("A game needs at least 2 players: </risk join> or </risk addbot>.", interaction.locale))
        await acknowledge(interaction, private=False)
        await self.announcer.answer(interaction, await self.table.start(record.id), private=False)


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"lobby:(?P<gid>[0-9]+):(?P<verb>[a-z]+)"):
    def __init__(self, game_id: int, verb: str, *, label: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary) -> None:
        super().__init__(discord.ui.Button(label=label or verb, style=style, custom_id=f"lobby:{game_id}:{verb}"))
        self.game_id = game_id
        self.verb = verb

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LobbyButton:
        if not isinstance(item, discord.ui.Button):  # discord.py hands over the tapped component: a button here
            raise TypeError(f"a lobby button's custom id on a {type(item).__name__}")
        return cls(int(match["gid"]), match["verb"], label=item.label or "", style=item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await taps_of(interaction.client).lobby_action(interaction, self.game_id, self.verb)
        except Exception as exc:
            await handle_error(interaction, exc, {"lobby": self.verb, "game": self.game_id})


class LobbySelect(discord.ui.DynamicItem[discord.ui.Select[Any]],
                  template=r"lobbys:(?P<gid>[0-9]+):(?P<verb>[a-z]+)(?::(?P<arg>[a-z_]+))?"):
    def __init__(self, game_id: int, verb: str, arg: str = "", *, options: list[discord.SelectOption] | None = None,
                 placeholder: str | None = None) -> None:
        cid = f"lobbys:{game_id}:{verb}" + (f":{arg}" if arg else "")
        super().__init__(discord.ui.Select(custom_id=cid, options=options or [], placeholder=placeholder,
                                           min_values=1, max_values=1))
        self.game_id, self.verb, self.arg = game_id, verb, arg

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any],
                             match: re.Match[str], /) -> LobbySelect:
        if not isinstance(item, discord.ui.Select):  # discord.py hands over the chosen component: a select here
            raise TypeError(f"a lobby menu's custom id on a {type(item).__name__}")
        return cls(int(match["gid"]), match["verb"], match["arg"] or "", options=list(item.options))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = list(self.item.values)
        try:
            await taps_of(interaction.client).lobby_action(interaction, self.game_id, self.verb, self.arg, values)
        except Exception as exc:
            await handle_error(interaction, exc, {"lobby": self.verb, "arg": self.arg, "values": values,
                                                  "game": self.game_id})


__all__ = ["LobbyButton", "LobbyCommands", "LobbySelect", "lobby_embed", "lobby_figures", "lobby_view",
           "reliability_text", "settings_text"]
