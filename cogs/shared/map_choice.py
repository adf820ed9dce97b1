"""The choice of a map for a new game or a tournament: the maps a game here may use (the built-in ones, then the
server's own), by id or name, with autocomplete."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from cogs.shared.errors import UserError
from engine import Board, builtin_maps, load_map, registered_map
from engine.board import plain_text
from present.i18n import _, language_of
from present.names import safe_name
from store import StoreReader


async def server_maps(store: StoreReader, guild_id: int | None) -> list[tuple[str, Board]]:
    """The maps a game here may use: the built-in ones, then the server's (id and board)."""
    out = [(m, load_map(m)) for m in builtin_maps()]
    if guild_id is not None:
        for record in await store.list_maps(guild_id):
            board = registered_map(record.map_id)
            if board is not None:
                out.append((record.map_id, board))
    return out


async def resolve_map(store: StoreReader, interaction: discord.Interaction[Any], text: str) -> Board:
    """The map a player chose, by id or by name: one of the maps a game here may use, nothing else."""
    maps = await server_maps(store, interaction.guild_id)
    key = text.strip().casefold()
    for map_id, board in maps:
        names = {map_id.casefold(), board.title.casefold(),
                 *(board.title_in(lang).casefold() for lang in ("nb", "es"))}
        if key in names:
            return board
    raise UserError(_("There is no map “{name}” here: </risk map list> shows them.", interaction.locale,
                      name=safe_name(text[:60])))


async def map_choices(store: StoreReader, interaction: discord.Interaction[Any], current: str
                      ) -> list[app_commands.Choice[str]]:
    """Autocomplete over the maps a game here may use, those whose name contains what is typed first."""
    key = current.strip().casefold()
    maps = await server_maps(store, interaction.guild_id)
    ranked = sorted(maps, key=lambda m: (key not in m[1].title_in(language_of(interaction.locale)).casefold(),
                                         m[1].title))
    return [app_commands.Choice(name=plain_text(m[1].title_in(language_of(interaction.locale)))[:100] or m[0],
                                value=m[0]) for m in ranked][:25]


__all__ = ["map_choices", "resolve_map", "server_maps"]
