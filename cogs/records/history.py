"""A server's record: a player's stats, the leaderboard, and past games with their report, final map, log, dice and
timelapse.

Everything here reads results written when games ended (store/results.py); every answer is private to whoever
asked. A player's stats come with a chart of their rating after each rated game once the rating is shown, drawn
in a worker process (render/rating_chart.py). Pages and the chosen game live in the view (the server's own
list), never in what a tap sends: a select's value is checked against the games the list offered.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import discord
from discord import app_commands

import workers
from cogs.records.report import past_game_files, stored_log, timelapse_file
from cogs.records.season import LADDER_CHOICES, PERIOD_CHOICES, add_ladders, leaderboard_choice, leaderboard_title
from cogs.shared.announcer import NOBODY
from cogs.shared.base import CogBase, risk_group
from cogs.shared.errors import UserError, handle_error
from cogs.shared.log_files import send_log
from engine.fog import EVERYBODY
from present.i18n import _, continent_name, decimal, language_of, ngettext, percent
from present.names import safe_name
from ratings import MIN_GAMES, Rating
from ratings.model import ESTABLISHED_OPPONENTS
from render.rating_chart import RatingChart, draw_rating_chart
from store import FinishedGame, LeaderboardRow, PlayerStats
from store.records import RatingRecord
from store.seasons import Season

PAGE = 10          # players per page of the leaderboard
HISTORY_GAMES = 10
VIEW_TIMEOUT = 600
CHART_FILE = "rating.png"


def duration_text(seconds: float, locale: object) -> str:
    """A time to move as the reader says it: "3 minutes", "2 timer"."""
    from babel.dates import format_timedelta

    return str(format_timedelta(timedelta(seconds=seconds), threshold=1.5, locale=language_of(locale)))


def stats_embed(stats: PlayerStats, name: str, locale: object) -> discord.Embed:
    from engine import load_map

    embed = discord.Embed(title=_("Record of {player}", locale, player=name), colour=discord.Colour.dark_green())
    games = str(stats.games) if not stats.unrated else ngettext(
        "{games} (and {n} not rated)", "{games} (and {n} not rated)", stats.unrated, locale, games=stats.games)
    embed.add_field(name=_("Games", locale), value=games)
    embed.add_field(name=_("Wins", locale), value=_("{wins} ({rate})", locale, wins=stats.wins,
                                                    rate=percent(stats.win_rate, locale)))
    embed.add_field(name=_("Average placement", locale),
                    value=decimal(stats.average_placement, locale) if stats.average_placement is not None
                    else _("no rated game yet", locale))
    continent = continent_name(load_map(), stats.favourite_continent, locale) \
        if stats.favourite_continent else _("none yet", locale)
    embed.add_field(name=_("Favourite continent", locale), value=continent)
    embed.add_field(name=_("Reliability", locale), value=_("{share} of turns taken before the deadline", locale,
                                                           share=percent(stats.reliability, locale))
                    if stats.reliability is not None else _("not known yet", locale))
    embed.add_field(name=_("Median time to move", locale),
                    value=duration_text(stats.median_move, locale) if stats.median_move is not None
                    else _("not known yet", locale))
    if stats.rating is not None:
        rating = str(Rating.of(stats.rating).score)
    else:
        rating = ngettext("hidden until {n} more rated game", "hidden until {n} more rated games",
                          max(1, MIN_GAMES - stats.games), locale)
    embed.add_field(name=_("Rating", locale), value=rating)
    return embed


def rating_chart(history: Sequence[tuple[int, RatingRecord]], name: str, locale: object) -> RatingChart:
    """The rating chart's numbers and words, in the reader's language: the displayed rating (as the leaderboard
    shows it) after each rated game, oldest first."""
    scores = [Rating.of(rating).score for _, rating in history]
    return RatingChart(name=name, scores=scores, rating_label=_("Rating", locale),
                       games_label=_("Rated games", locale),
                       current_label=_("Now: {score}", locale, score=scores[-1]))


def server_of(interaction: discord.Interaction[Any]) -> tuple[int | None, int | None]:
    """Whose records an interaction reads: its server's, or in a direct message (no server) that channel's
    only, so one user's direct messages never show another's games."""
    return (interaction.guild_id, None) if interaction.guild_id else (None, interaction.channel_id)


class Pager(discord.ui.View):
    """Previous and next for one user's private list; the page is kept here, not in the buttons."""

    def __init__(self, owner: int, locale: object) -> None:
        super().__init__(timeout=VIEW_TIMEOUT)
        self.owner = owner
        self.locale = locale

    async def on_error(self, interaction: discord.Interaction[Any], error: Exception,
                       item: discord.ui.Item[Any]) -> None:
        await handle_error(interaction, error, {"view": type(self).__name__})

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        if interaction.user.id != self.owner:
            raise UserError(_("This list belongs to whoever asked for it; ask for your own.", interaction.locale))
        return True


class LeaderboardView(Pager):
    def __init__(self, cog: HistoryCommands, owner: int, where: tuple[int | None, int | None], locale: object,
                 ladder: str | None = None, season: Season | None = None) -> None:
        super().__init__(owner, locale)
        self.cog, self.where, self.page, self.total = cog, where, 0, 0
        self.ladder, self.season = ladder, season   # a ladder (cogs/records/season.py), of a season or all-time
        self.turn_back.label = _("Previous", locale)
        self.turn_on.label = _("Next", locale)

    async def embed(self) -> discord.Embed:
        guild_id, channel_id = self.where
        rows: Sequence[LeaderboardRow]
        if self.ladder is not None and guild_id:
            rows, self.total = await self.cog.store.ladder(guild_id, self.ladder, self.season.id if self.season
                                                           else None, self.page * PAGE, PAGE, MIN_GAMES)
        else:
            rows, self.total = await self.cog.store.leaderboard(guild_id, self.page * PAGE, PAGE, channel_id,
                                                                minimum=MIN_GAMES)
        pages = max(1, -(-self.total // PAGE))
        self.turn_back.disabled = self.page == 0
        self.turn_on.disabled = self.page >= pages - 1
        locale = self.locale
        embed = discord.Embed(title=leaderboard_title(self.ladder, self.season, locale), colour=discord.Colour.gold())
        embed.description = "\n".join(
            f"**{r.rank}.** {safe_name(r.name)}: **{r.score}** · " + ngettext(
                "{n} game", "{n} games", r.games, locale) + ", " + ngettext("{n} win", "{n} wins", r.wins, locale)
            for r in rows) or (ngettext(
                "Nobody is rated yet: a player is listed after {n} rated game, having played {k} different "
                "established players.",
                "Nobody is rated yet: a player is listed after {n} rated games, having played {k} different "
                "established players.", MIN_GAMES, locale, k=ESTABLISHED_OPPONENTS) if guild_id else
                ngettext("Nobody is rated yet: a rating shows after {n} rated game.",
                         "Nobody is rated yet: a rating shows after {n} rated games.", MIN_GAMES, locale))
        embed.set_footer(text=_("Page {page} of {pages}", locale, page=self.page + 1, pages=pages))
        return embed

    async def show(self, interaction: discord.Interaction[Any], step: int) -> None:
        pages = max(1, -(-self.total // PAGE))
        self.page = max(0, min(pages - 1, self.page + step))
        await interaction.response.edit_message(embed=await self.embed(), view=self)

    @discord.ui.button(label="Previous", emoji="◀️", style=discord.ButtonStyle.secondary)
    async def turn_back(self, interaction: discord.Interaction[Any], button: discord.ui.Button[LeaderboardView]
                        ) -> None:
        await self.show(interaction, -1)

    @discord.ui.button(label="Next", emoji="▶️", style=discord.ButtonStyle.secondary)
    async def turn_on(self, interaction: discord.Interaction[Any], button: discord.ui.Button[LeaderboardView]
                      ) -> None:
        await self.show(interaction, 1)


class HistoryView(Pager):
    """Past games in a select, and what to do with the chosen one."""

    def __init__(self, cog: HistoryCommands, owner: int, games: list[FinishedGame], locale: object) -> None:
        super().__init__(owner, locale)
        self.cog, self.games, self.chosen = cog, {g.game_id: g for g in games}, games[0].game_id
        self.choose.placeholder = _("Choose a game", locale)
        self.choose.options = [
            discord.SelectOption(label=_("Game #{id}", locale, id=g.game_id),
                                 description=", ".join(g.winners)[:100], value=str(g.game_id),
                                 default=g.game_id == self.chosen) for g in games]
        self.report.label = _("Report and map", locale)
        self.export.label = _("Export", locale)
        self.verify.label = _("Verify", locale)
        self.timelapse.label = _("Timelapse", locale)

    # The select comes first and the buttons follow in this order: items are laid out as they are declared.
    @discord.ui.select(cls=discord.ui.Select)  # the class named, so that mypy knows the kind of select
    async def choose(self, interaction: discord.Interaction[Any], select: discord.ui.Select[HistoryView]) -> None:
        value = select.values[0] if select.values else ""
        if not value.isdigit() or int(value) not in self.games:  # only a game this list offered
            raise UserError(_("Choose one of the games in the list.", interaction.locale))
        self.chosen = int(value)
        for option in select.options:
            option.default = option.value == value
        await interaction.response.edit_message(view=self)

    @discord.ui.button(label="Report and map", style=discord.ButtonStyle.primary)
    async def report(self, interaction: discord.Interaction[Any], button: discord.ui.Button[HistoryView]) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = await self.cog.store.get_game(self.chosen)
        files = await past_game_files(self.cog.store, record, interaction.locale)
        if not files:   # a game in the list has ended; one that has not is no game of the history
            raise UserError(_("Game #{id} has not ended.", interaction.locale, id=self.chosen))
        await interaction.followup.send(_("Game #{id}: the report and the final map.", interaction.locale,
                                          id=self.chosen), files=files, ephemeral=True)

    @discord.ui.button(label="Export", style=discord.ButtonStyle.secondary)
    async def export(self, interaction: discord.Interaction[Any], button: discord.ui.Button[HistoryView]) -> None:
        # Answered at once: a long game's log is read and written off the event loop (store/logs.py), and sent
        # compressed (or in parts) when it is over the upload limit.
        await interaction.response.defer(ephemeral=True, thinking=True)
        chosen, locale = self.chosen, interaction.locale
        data = await self.cog.store.export_log(chosen, EVERYBODY)  # a finished game: every event is public
        await send_log(interaction, lambda name: _(
            "The full log of game #{id}. Check its dice with `python -m engine.verify {name}`.", locale, id=chosen,
            name=name), data, chosen, ephemeral=True)

    @discord.ui.button(label="Verify", style=discord.ButtonStyle.secondary)
    async def verify(self, interaction: discord.Interaction[Any], button: discord.ui.Button[HistoryView]) -> None:
        s = (await self.cog.store.get_game(self.chosen)).game().state
        await interaction.response.send_message(
            _("Seed: `{seed}`\nCommitment: `{c}`\nCheck: sha256(seed) equals the commitment, and "
              "`python -m engine.verify game.jsonl` (the file from </risk export>) re-derives every die. The "
              "method is in docs/dice.md.", interaction.locale, seed=s.seed, c=s.seed_commitment), ephemeral=True)

    @discord.ui.button(label="Timelapse", style=discord.ButtonStyle.secondary)
    async def timelapse(self, interaction: discord.Interaction[Any], button: discord.ui.Button[HistoryView]
                        ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        file = await timelapse_file(await stored_log(self.cog.store, self.chosen), self.chosen,
                                    interaction.filesize_limit)
        if file is None:
            await interaction.followup.send(_("The timelapse of game #{id} is too large to upload here.",
                                              interaction.locale, id=self.chosen), ephemeral=True)
            return
        await interaction.followup.send(_("Game #{id}, turn by turn.", interaction.locale, id=self.chosen),
                                        file=file, ephemeral=True)


class HistoryCommands(CogBase):
    @risk_group.command(name="stats", description="A player's record on this server: games, wins, reliability, "
                                                   "rating")
    @app_commands.describe(player="Whose record (default: yours)")
    async def risk_stats(self, interaction: discord.Interaction[Any], player: discord.User | None = None) -> None:
        who = player or interaction.user
        guild_id, channel_id = server_of(interaction)
        stats = await self.store.player_stats(guild_id, who.id, channel_id, minimum=MIN_GAMES)
        if stats is None:
            raise UserError(_("{player} has not finished a game on this server yet.", interaction.locale,
                              player=safe_name(who.display_name)))
        embed = stats_embed(stats, safe_name(who.display_name), interaction.locale)
        await add_ladders(self, embed, guild_id, who.id, interaction.locale)
        # The chart once the rating is shown (no earlier: it would show the hidden rating) and has two points.
        history = await self.store.rating_history(guild_id, who.id, channel_id) if stats.rating is not None else []
        if len(history) < 2:
            await interaction.response.send_message(embed=embed, ephemeral=True)
            return
        await interaction.response.defer(ephemeral=True, thinking=True)   # the workers may be starting
        png = await workers.run(draw_rating_chart, rating_chart(history, who.display_name, interaction.locale))
        embed.set_image(url=f"attachment://{CHART_FILE}")
        await interaction.followup.send(embed=embed, file=discord.File(io.BytesIO(png), filename=CHART_FILE),
                                        ephemeral=True)

    @risk_group.command(name="leaderboard", description="This server's rated players, best first")
    @app_commands.describe(ladder="Every game (default), or the 1v1 or free-for-all ladder",
                           period="All time (default) or the season running now")
    @app_commands.choices(ladder=LADDER_CHOICES, period=PERIOD_CHOICES)
    async def risk_leaderboard(self, interaction: discord.Interaction[Any], ladder: str = "all",
                               period: str = "all-time") -> None:
        chosen, season = await leaderboard_choice(self, interaction, ladder, period)
        view = LeaderboardView(self, interaction.user.id, server_of(interaction), interaction.locale, chosen, season)
        embed = await view.embed()
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True, allowed_mentions=NOBODY)

    @risk_group.command(name="history", description="Finished games: winners, dates, logs, dice and timelapses")
    @app_commands.describe(where="This server's games (default) or only this channel's")
    @app_commands.choices(where=[app_commands.Choice(name="server", value="server"),
                                 app_commands.Choice(name="channel", value="channel")])
    async def risk_history(self, interaction: discord.Interaction[Any], where: str = "server") -> None:
        locale = interaction.locale
        if where not in ("server", "channel"):
            raise UserError(_("Choose the server's games or this channel's.", locale))
        # Outside a server (a direct message) the server is this channel: nobody else's direct messages.
        channel = interaction.channel_id if where == "channel" or interaction.guild_id is None else None
        games = await self.store.finished_games(interaction.guild_id, channel, 0, HISTORY_GAMES)
        if not games:
            raise UserError(_("No game has finished here yet.", locale))
        lines = [_("**#{id}** <#{channel}> · <t:{ended}:d> · {turns} · won by {names}", locale, id=g.game_id,
                   channel=g.channel_id, ended=int(g.ended_at),
                   turns=ngettext("{n} turn", "{n} turns", g.turns, locale),
                   names=", ".join(safe_name(n) for n in g.winners)) for g in games]
        text = "\n".join([_("The last finished games:", locale), *lines])
        await interaction.response.send_message(text, view=HistoryView(self, interaction.user.id, games, locale),
                                                ephemeral=True, allowed_mentions=NOBODY)


__all__ = ["HistoryCommands", "duration_text", "rating_chart", "stats_embed"]
