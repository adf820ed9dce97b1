"""Who may act, and on which game: the checks every command and tap makes before it does anything."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from cogs.shared.errors import UserError
from engine import Game
from engine.state import WAITING
from present.i18n import _
from present.names import safe_name
from present.text import seat_name
from store import GameRecord, StoreReader
from table.tournaments import referees_own_game, running_tournament_of


def game_locale(record: GameRecord, interaction: discord.Interaction[Any] | None = None) -> object:
    """The language of the game's public messages: the game's, else the server's."""
    language = record.settings.get("language")
    if language:
        return language
    if interaction is not None and interaction.guild_locale is not None:
        return interaction.guild_locale
    return None


async def channel_game(store: StoreReader, interaction: discord.Interaction[Any]) -> GameRecord | None:
    """The channel's active game, read once per interaction (its options and its body share the read)."""
    if "game" not in interaction.extras:
        found = await store.get_active_game(interaction.channel_id) if interaction.channel_id is not None else None
        interaction.extras["game"] = found
    record: GameRecord | None = interaction.extras["game"]
    return record


async def game_here(store: StoreReader, interaction: discord.Interaction[Any], *, running: bool = True) -> GameRecord:
    """The channel's game; with ``running``, it must be under way (not in its lobby, not paused)."""
    if interaction.channel_id is None:
        raise UserError(_("Games are played in server channels.", interaction.locale))
    record = await channel_game(store, interaction)
    if record is None:
        raise UserError(_("There is no game in this channel. Start one with </risk new>.", interaction.locale))
    if running and record.status == "lobby":
        raise UserError(_("The game has not started yet: the host starts it with </risk start>.", interaction.locale))
    if running and record.status == "paused":
        raise UserError(_("The game is paused.", interaction.locale))
    return record


async def last_game_here(store: StoreReader, interaction: discord.Interaction[Any]) -> GameRecord:
    """The channel's newest game that has started (running, paused or over), for its log and its dice; a lobby
    opened since does not hide it."""
    if interaction.channel_id is None:
        raise UserError(_("Games are played in server channels.", interaction.locale))
    games = await store.list_games(channel_id=interaction.channel_id, limit=5)
    started = next((g for g in games if g.state_json is not None), None)
    if started is None:
        raise UserError(_("There is no game in this channel. Start one with </risk new>.", interaction.locale))
    return started


async def game_or_last(store: StoreReader, interaction: discord.Interaction[Any]) -> GameRecord:
    """The channel's game; once it is over, still the last one until a new game starts."""
    record = await channel_game(store, interaction)
    if record is not None and (record.state_json is not None or record.status == "lobby"):
        return record
    return await last_game_here(store, interaction)


async def running_game(store: StoreReader, interaction: discord.Interaction[Any], game_id: int) -> GameRecord:
    """The game a button or menu belongs to; it must still be running."""
    record = await store.get_game(game_id)
    if record.status != "running" or interaction.channel_id != record.channel_id:
        raise UserError(_("This game is not running any more.", interaction.locale))
    return record


def seat_of(record: GameRecord, interaction: discord.Interaction[Any]) -> int:
    """The user's seat in the game, or a refusal."""
    seat = record.seat_of(interaction.user.id)
    if seat is None:
        raise UserError(_("You are not playing in this game.", interaction.locale))
    return seat


def on_turn(record: GameRecord, interaction: discord.Interaction[Any]) -> tuple[Game, int]:
    """The game and the user's seat, if it is their move."""
    seat = seat_of(record, interaction)
    game = record.game()
    s = game.state
    if s.sealed is not None:  # a set-up round: everyone places at once (the rules refuse what is not allowed)
        return game, seat
    if s.freestyle and (s.phase == WAITING or s.current != seat):  # who may start a turn of the round
        refusal = game.start_refusal(seat)
        if refusal is not None:
            raise refusal
        return game, seat
    if game.state.current != seat:
        raise UserError(_("It is {player}'s turn, not yours.", interaction.locale,
                          player=seat_name(game.state, game.state.current, interaction.locale)))
    return game, seat


def is_host(record: GameRecord, interaction: discord.Interaction[Any]) -> bool:
    perms = getattr(interaction, "permissions", None)
    return record.host_id == interaction.user.id or bool(perms and perms.manage_guild)


def require_host(record: GameRecord, interaction: discord.Interaction[Any]) -> None:
    if not is_host(record, interaction):
        raise UserError(_("Only the host or a member with Manage Server can do that.", interaction.locale))


async def require_control(store: StoreReader, record: GameRecord, interaction: discord.Interaction[Any]) -> None:
    """A host's control of a game (cancel, kick, pause, resume, AIs, settings, seats, start): the game's host
    or a member with Manage Server. A tournament's game (the tournament not over) is run by the tournament's
    host instead of its own (its first seat), so a control cannot stop the tournament's round; and nobody who plays
    in it runs it, the tournament's host or a manager neither (they are players there: ``/vote`` is theirs)."""
    tournament = await running_tournament_of(store, record.id)
    if tournament is None:
        require_host(record, interaction)
        return
    perms = getattr(interaction, "permissions", None)
    if tournament.host_id != interaction.user.id and not (perms and perms.manage_guild):
        raise UserError(_("This game belongs to the tournament {name}; its host runs its games, so only they can "
                          "do that. The players play it out (</vote> ends it by the standings).", interaction.locale,
                          name=safe_name(tournament.name)))
    if referees_own_game(record, interaction.user.id):
        raise UserError(_("You play at this table of the tournament {name}, so you cannot run its game: nobody "
                          "referees their own game. The players can end it with /vote; the tournament's host or a "
                          "member with Manage Server who does not play here can run it.", interaction.locale,
                          name=safe_name(tournament.name)))


async def require_own_seats(store: StoreReader, record: GameRecord, interaction: discord.Interaction[Any]) -> None:
    """Taking or leaving a seat of a lobby: not of a tournament's (its seats are the pairing's)."""
    tournament = await running_tournament_of(store, record.id)
    if tournament is not None:
        raise UserError(_("This game belongs to the tournament {name}: its seats are the tournament's pairing.",
                          interaction.locale, name=safe_name(tournament.name)))


BOT_NEEDS = ("send_messages", "attach_files", "embed_links")


def require_permissions(interaction: discord.Interaction[Any]) -> None:
    """The bot can post in the channel: messages, maps and embeds (in a server; a DM allows them)."""
    perms = interaction.app_permissions
    missing = [name for name in BOT_NEEDS if not getattr(perms, name)]
    if missing and interaction.guild_id is not None:
        raise app_commands.BotMissingPermissions(missing)


__all__ = [
    "channel_game",
    "game_here",
    "game_locale",
    "game_or_last",
    "is_host",
    "last_game_here",
    "on_turn",
    "require_control",
    "require_host",
    "require_own_seats",
    "require_permissions",
    "running_game",
    "seat_of",
]
