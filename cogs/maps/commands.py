"""A server's own maps: ``/risk map add`` and ``remove`` (server managers), ``/risk map list``, and the choice of a
map for ``/risk new``.

Attachments are untrusted: their sizes are checked before they are read, their names only say what each
file is and which file a map names, and everything (import, checks, preview, thumbnail) is done by ``mapfiles``
in a process of its own stopped at a time limit (``mapfiles.checking``), whose refusals (``MapFileError``) reach
the player translated; the map is stored only after that. The sheet of maps is drawn in a worker process
(``mapfiles.previews``) from thumbnails drawn once and kept here by map id. A map's names reach messages
through ``safe_name`` (escaped) and labels as written, without control characters.
"""

from __future__ import annotations

import asyncio
import io
from typing import Any

import discord
from discord import app_commands

import workers
from cogs.shared.announcer import NOBODY
from cogs.shared.base import CogBase, risk_group
from cogs.shared.errors import UserError
from cogs.shared.map_choice import server_maps
from engine import Board, builtin_maps, registered_map
from engine.board import plain_text
from mapfiles.checking import UPLOAD_SECONDS, check_upload_bounded
from mapfiles.images import MAX_IMAGE_BYTES
from mapfiles.previews import sheet_png
from mapfiles.registry import install_files, use_database
from mapfiles.upload import MAX_FILES
from present import drawing as maps
from present.i18n import _, _plain, language_of, pgettext
from present.names import safe_name

map_group = app_commands.Group(name="map", description="The maps games here are played on (adding one: managers)",
                               parent=risk_group)


# Only a member who may manage the server adds or removes its maps (checked here, not only by Discord: a DM
# grants no Manage Server).
managers_only = app_commands.checks.has_permissions(manage_guild=True)


def map_title(board: Board, locale: object | None) -> str:
    return safe_name(board.title_in(language_of(locale)))


def board_summary(board: Board, locale: object | None) -> str:
    low, high = board.players
    text = _("{territories} territories, {continents} continents, {low} to {high} players", locale,
             territories=len(board.territory_ids), continents=len(board.continents), low=low, high=high)
    if board.has_missions:
        text += " · " + _("missions", locale)
    return text


# Each map's thumbnail, drawn once (at upload, or when a sheet first shows the map) and kept by map id: an id
# names one content, so a kept thumbnail is never stale. A few KB each; the oldest go past the bound.
_thumbnails: dict[str, bytes] = {}
MAX_THUMBNAILS = 1000


def keep_thumbnail(map_id: str, picture: bytes) -> None:
    _thumbnails.pop(map_id, None)
    _thumbnails[map_id] = picture
    while len(_thumbnails) > MAX_THUMBNAILS:
        _thumbnails.pop(next(iter(_thumbnails)))


class MapCommands(CogBase):
    def use_stored_maps(self) -> None:
        """Renders meet the server's maps by id: draw them from the database (the store registers their
        boards with the engine when it opens)."""
        database = getattr(self.store, "path", None) or getattr(self.store, "url", None)
        if database is not None:
            use_database(str(database))
            maps.stored_maps_in(str(database))  # and so do the map workers

    @map_group.command(name="add", description="Add a map to this server: our .json, a .map, or Conquer Club "
                                               ".xml, with its pictures")
    @app_commands.describe(file="The map file (.json, .map or .xml)", file2="A picture or file the map names",
                           file3="A picture or file the map names", file4="A picture or file the map names",
                           file5="A picture or file the map names", file6="A picture or file the map names",
                           file7="A picture or file the map names", file8="A picture or file the map names")
    @managers_only
    async def map_add(self, interaction: discord.Interaction[Any], file: discord.Attachment,
                      file2: discord.Attachment | None = None, file3: discord.Attachment | None = None,
                      file4: discord.Attachment | None = None, file5: discord.Attachment | None = None,
                      file6: discord.Attachment | None = None, file7: discord.Attachment | None = None,
                      file8: discord.Attachment | None = None) -> None:
        attachments = [a for a in (file, file2, file3, file4, file5, file6, file7, file8) if a is not None]
        names = [a.filename for a in attachments]
        if len(set(names)) != len(names):
            raise UserError(_("Two files have the same name: each file needs its own.", interaction.locale))
        for a in attachments:
            if a.size > MAX_IMAGE_BYTES:
                raise UserError(_("{name} is larger than {limit} MB.", interaction.locale,
                                  name=safe_name(a.filename[:60]), limit=MAX_IMAGE_BYTES // (1024 * 1024)))
        await interaction.response.defer(ephemeral=True, thinking=True)
        files = {a.filename: await a.read() for a in attachments[:MAX_FILES]}
        # The whole check (import, validation, preview, thumbnail) in a process of its own, stopped at a time
        # limit; the map is stored only once it has passed.
        checked = await asyncio.to_thread(check_upload_bounded, files, UPLOAD_SECONDS)
        assert interaction.guild_id is not None
        await self.table.add_map(interaction.guild_id, checked.map_id, checked.title, interaction.user.id,
                                 checked.files)
        board = install_files(checked.files)
        keep_thumbnail(checked.map_id, checked.thumbnail)
        text = _("Added the map {name}: {summary}. Choose it with </risk new> {option}:{name}.", interaction.locale,
                 name=map_title(board, interaction.locale), summary=board_summary(board, interaction.locale),
                 option=pgettext("option-name", "map", interaction.locale))
        if checked.skipped:
            text += "\n" + _("Left out, as bonuses our rules do not have: {names}.", interaction.locale,
                              names=", ".join(safe_name(n) for n in checked.skipped)[:500])
        await interaction.followup.send(text, file=discord.File(io.BytesIO(checked.preview),
                                                                filename="map-preview.png"),
                                        ephemeral=True, allowed_mentions=NOBODY)

    @map_group.command(name="remove", description="Remove one of this server's maps (games played on it keep it)")
    @app_commands.describe(name="The map to remove")
    @managers_only
    async def map_remove(self, interaction: discord.Interaction[Any], name: str) -> None:
        assert interaction.guild_id is not None
        own = {r.map_id: r for r in await self.store.list_maps(interaction.guild_id)}
        if name not in own:
            raise UserError(_("This server has no map “{name}”.", interaction.locale, name=safe_name(name[:60])))
        await self.table.remove_map(interaction.guild_id, name)
        board = registered_map(name)
        shown = map_title(board, interaction.locale) if board else safe_name(own[name].name)
        await interaction.response.send_message(_("Removed the map {name}. Games played on it keep it.",
                                                  interaction.locale, name=shown), ephemeral=True)

    @map_remove.autocomplete("name")
    async def map_remove_names(self, interaction: discord.Interaction[Any], current: str
                               ) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        key = current.strip().casefold()
        own = await self.store.list_maps(interaction.guild_id)
        return [app_commands.Choice(name=plain_text(r.name)[:100] or r.map_id, value=r.map_id) for r in own
                if key in r.name.casefold()][:25]

    @map_group.command(name="list", description="The maps games here can be played on")
    async def risk_maps(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.defer(thinking=True)
        locale = interaction.locale
        maps = await server_maps(self.store, interaction.guild_id)
        built_in = set(builtin_maps())
        lines = [f"**{map_title(board, locale)}**: {board_summary(board, locale)}"
                 + (" · " + _("built in", locale) if map_id in built_in else "") for map_id, board in maps]
        embed = discord.Embed(title=_("Maps", locale), description="\n".join(lines), colour=discord.Colour.blue())
        embed.set_footer(text=_plain("</risk new> {option}:NAME plays on one · server managers add maps with "
                                     "</risk map add>", locale, option=pgettext("option-name", "map", locale)))
        sheet, drawn = await workers.run(sheet_png, [(map_id, board.title_in(language_of(locale)),
                                                      _thumbnails.get(map_id)) for map_id, board in maps])
        for map_id, picture in drawn.items():
            keep_thumbnail(map_id, picture)
        embed.set_image(url="attachment://maps.png")
        await interaction.followup.send(embed=embed, file=discord.File(io.BytesIO(sheet), filename="maps.png"),
                                        allowed_mentions=NOBODY)


__all__ = ["MapCommands", "managers_only", "map_group"]
