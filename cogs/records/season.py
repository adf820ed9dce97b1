"""``/season``: a server's seasons (start, end, status), and the ladders' words for the leaderboard and the stats.

Starting and ending a season is for the server's managers (Manage Server); its status is for everyone. A season
that reaches its end time ends by itself (table/seasons.py, through the scheduler) and the channel it was started
in is told through the announcer's channel queue (``standings.SeasonNews``), with the top of each ladder.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

from cogs.records.standings import ladder_name, season_text, standings_lines
from cogs.shared.base import CogBase
from cogs.shared.errors import UserError
from cogs.shared.live import NOBODY
from present.i18n import _, ngettext
from ratings import MIN_GAMES, Rating
from ratings.ladders import ALL_TIME, FREE_FOR_ALL, LADDERS, ONE_V_ONE
from store.records import RatingRecord
from store.seasons import Season
from table.seasons import Seasons

season_group = app_commands.Group(name="season", description="This server's seasons and their ladders",
                                  guild_only=True)


def ladder_value(ratings: Mapping[tuple[str, int], RatingRecord], ladder: str, season: Season | None,
                 locale: object) -> str:
    """A player's line of one ladder in their stats: all-time, and in the running season (``season``)."""
    def shown(stored: RatingRecord | None) -> str:
        if stored is None:
            return _("no game yet", locale)
        rating = Rating.of(stored)
        if rating.games < MIN_GAMES:
            return ngettext("hidden until {n} more game", "hidden until {n} more games", MIN_GAMES - rating.games,
                            locale)
        return str(rating.score)
    lines = [_("All time: {rating}", locale, rating=shown(ratings.get((ladder, ALL_TIME))))]
    if season is not None:
        lines.append(_("Season {number}: {rating}", locale, number=season.number,
                       rating=shown(ratings.get((ladder, season.id)))))
    return "\n".join(lines)


async def add_ladders(cog: CogBase, embed: discord.Embed, guild_id: int | None, user_id: int, locale: object) -> None:
    """The two ladders' fields of a player's stats (a server's only)."""
    if not guild_id:
        return
    season = await cog.store.current_season(guild_id)
    running = season if season is not None and season.running_at(cog.clock()) else None
    ratings = await cog.store.player_ladders(guild_id, user_id, running.id if running else None)
    for ladder in LADDERS:
        embed.add_field(name=ladder_name(ladder, locale), value=ladder_value(ratings, ladder, running, locale))


LADDER_CHOICES = [app_commands.Choice(name="all games", value="all"),
                  app_commands.Choice(name="1v1", value=ONE_V_ONE),
                  app_commands.Choice(name="free-for-all", value=FREE_FOR_ALL)]
PERIOD_CHOICES = [app_commands.Choice(name="all time", value="all-time"),
                  app_commands.Choice(name="this season", value="season")]


async def leaderboard_choice(cog: CogBase, interaction: discord.Interaction[Any], ladder: str, period: str
                             ) -> tuple[str | None, Season | None]:
    """The ladder and season a leaderboard shows: every game (None) or a ladder, all-time (None) or the season
    running now (a refusal if none runs). A season's board is a ladder's: "every game" in a season shows its
    free-for-all ladder."""
    chosen = ladder if ladder in LADDERS else None
    if period != "season":
        return chosen, None
    season = await cog.store.current_season(interaction.guild_id) if interaction.guild_id else None
    if season is None or not season.running_at(cog.clock()):
        raise UserError(_("No season is running on this server.", interaction.locale))
    return chosen or FREE_FOR_ALL, season


def leaderboard_title(ladder: str | None, season: Season | None, locale: object) -> str:
    title = _("Leaderboard", locale)
    if ladder is not None:
        title += " · " + ladder_name(ladder, locale)
    if season is not None:
        title += " · " + _("Season {number}", locale, number=season.number)
    elif ladder is not None:
        title += " · " + _("all time", locale)
    return title


def require_manager(interaction: discord.Interaction[Any]) -> None:
    perms = getattr(interaction, "permissions", None)
    if not (perms and perms.manage_guild):
        raise UserError(_("Only a member with Manage Server can start or end a season.", interaction.locale))


class SeasonCommands(CogBase):
    seasons: Seasons

    @season_group.command(name="start", description="Start a season of this server's ladders (managers only)")
    @app_commands.describe(days="How long the season lasts, in days")
    async def season_start(self, interaction: discord.Interaction[Any],
                           days: app_commands.Range[int, 1, 365] = 30) -> None:
        require_manager(interaction)
        assert interaction.guild_id is not None and interaction.channel_id is not None
        outcome = await self.seasons.start(interaction.guild_id, interaction.channel_id, days, interaction.user.id)
        await interaction.response.send_message(season_text(outcome, interaction.guild_locale or interaction.locale),
                                                allowed_mentions=NOBODY)

    @season_group.command(name="end", description="End this server's season now (managers only)")
    async def season_end(self, interaction: discord.Interaction[Any]) -> None:
        require_manager(interaction)
        assert interaction.guild_id is not None
        outcome = await self.seasons.end(interaction.guild_id, interaction.user.id)
        if outcome is None:
            raise UserError(_("No season is running on this server.", interaction.locale))
        await interaction.response.send_message(season_text(outcome, interaction.guild_locale or interaction.locale),
                                                allowed_mentions=NOBODY)

    @season_group.command(name="status", description="This server's season: when it ends, who leads")
    async def season_status(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.guild_id is not None
        locale = interaction.locale
        season = await self.store.current_season(interaction.guild_id)
        if season is None:
            raise UserError(_("This server has not run a season yet; a manager starts one with </season start>.",
                              locale))
        embed = discord.Embed(colour=discord.Colour.gold())
        if season.running_at(self.clock()):   # a season past its end time has ended, closed yet or not
            embed.title = _("Season {number}", locale, number=season.number)
            embed.description = _("Ends <t:{end}:f> (<t:{end}:R>).", locale, end=int(season.ends_at))
        else:
            embed.title = _("Season {number} (over)", locale, number=season.number)
            embed.description = _("Ended <t:{end}:f>. No season is running.", locale, end=int(season.end))
        for ladder in (ONE_V_ONE, FREE_FOR_ALL):
            rows, _total = await self.store.ladder(interaction.guild_id, ladder, season.id, 0, 5, MIN_GAMES)
            embed.add_field(name=ladder_name(ladder, locale), value=standings_lines(rows, locale), inline=False)
        await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NOBODY)


__all__ = ["LADDER_CHOICES", "PERIOD_CHOICES", "SeasonCommands", "add_ladders", "ladder_name", "leaderboard_choice",
           "leaderboard_title", "season_group", "season_text"]
