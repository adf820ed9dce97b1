"""``/tournament``: a channel's tournament, from its entries to its standings.

Anyone opens one (``new``: they are its host) and enters (``join``, ``leave``, ``checkin``); the host starts it
(``start``: the bot opens a public thread for each table's game, so it first checks it may create threads and
post in them) and may call it off (``cancel``, as may a server manager). ``status`` and ``standings`` are for
everyone. Every change is a ``Tournaments`` step (table/tournaments.py); the store refuses what the tournament's
state does not allow (a second start, a join after the start) in words for the player.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from cogs.shared.base import CogBase
from cogs.shared.errors import CHANGED, UserError, acknowledge
from cogs.shared.live import NOBODY
from cogs.shared.map_choice import map_choices, resolve_map
from cogs.tournament.rooms import TournamentNews, standings_file
from engine.settings import DEADLINES
from present import tournament as words
from present.i18n import _, language_of, ngettext, pgettext
from present.names import safe_name
from present.turns import deadline_name
from present.wording import clip
from store.tournaments import CHECKIN, TournamentRecord
from table.tournaments import CHECKIN_OPEN, Tournaments, entry_spec, view_standings

tournament_group = app_commands.Group(name="tournament", description="A tournament in this channel: entries, "
                                      "rounds and standings", guild_only=True)
FORMAT_CHOICES = [app_commands.Choice(name=words.FORMAT_NAMES[f], value=f) for f in words.FORMAT_NAMES]
THREADS_NEEDED = ("create_public_threads", "send_messages_in_threads")   # the bot's, to open the tables' threads
HOUR, MINUTE = 3600, 60
TOURNAMENT_GAMES: dict[str, Any] = {"deployment": "auto"}


def in_range(value: int | None, low: int, high: int, locale: object) -> None:
    """An option Discord's client keeps in its range, checked again here (a request may come from elsewhere)."""
    if value is not None and not low <= value <= high:
        raise UserError(_("Choose a number from {low} to {high}.", locale, low=low, high=high))


class TournamentCommands(CogBase):
    tournaments: Tournaments
    tournament_news: TournamentNews

    async def tournament_here(self, interaction: discord.Interaction[Any], *, active: bool = True
                              ) -> TournamentRecord:
        """The channel's tournament (with ``active``: one not over); in a table's thread, its channel's."""
        channel = getattr(interaction.channel, "parent_id", None) or interaction.channel_id
        found = await self.store.channel_tournament(channel) if channel else None
        if found is None or (active and not found.active):
            raise UserError(_("There is no tournament in this channel: </tournament new> opens one.",
                              interaction.locale))
        return found

    @tournament_group.command(name="new", description="Open a tournament in this channel; you are its host")
    @app_commands.describe(
        name="The tournament's name", format_="How it is played (default: Swiss)",
        table_size="Players at each table: 2 (1v1) to 6", rounds="A Swiss's rounds (0: enough to find a winner)",
        team_size="Players in a team (1: everyone plays alone)", map_name="The map of every game",
        turn_time="Time for each turn", round_time="Hours a round may last; then its games end by the standings "
        "(0: no limit)", checkin="Minutes of check-in before the first round (0: none)",
        min_games="Rated games here an entrant must have played", min_reliability="Minimum reliability to enter (%)",
        min_rating="Lowest rating that may enter", max_rating="Highest rating that may enter",
        fog="Fog of war in every game", cards="Card set values", max_rounds="A game's round limit (0: none)",
        max_missed="Missed turns in a row before the AI takes the seat and the player forfeits (0: never)")
    @app_commands.rename(format_="format", map_name="map")
    @app_commands.choices(turn_time=[app_commands.Choice(name=deadline_name(v), value=v) for v in DEADLINES])
    @app_commands.choices(format_=FORMAT_CHOICES,
                          fog=[app_commands.Choice(name=v, value=v) for v in ("off", "on")],
                          cards=[app_commands.Choice(name=v, value=v) for v in ("escalating", "fixed", "none")])
    async def tournament_new(self, interaction: discord.Interaction[Any], name: app_commands.Range[str, 1, 100],
                             format_: str = "swiss", table_size: app_commands.Range[int, 2, 6] = 2,
                             rounds: app_commands.Range[int, 0, 64] = 0, team_size: app_commands.Range[int, 1, 3] = 1,
                             map_name: str | None = None, turn_time: int | None = None,
                             round_time: app_commands.Range[int, 0, 720] = 0,
                             checkin: app_commands.Range[int, 0, 1440] = 0,
                             min_games: app_commands.Range[int, 0, 1000] = 0,
                             min_reliability: app_commands.Range[int, 0, 100] = 0,
                             min_rating: app_commands.Range[int, 0, 5000] | None = None,
                             max_rating: app_commands.Range[int, 0, 5000] | None = None,
                             fog: str | None = None, cards: str | None = None,
                             max_rounds: app_commands.Range[int, 0, 1000] | None = None,
                             max_missed: app_commands.Range[int, 0, 20] | None = None) -> None:
        locale = interaction.locale
        assert interaction.channel_id is not None
        if isinstance(interaction.channel, discord.Thread):
            raise UserError(_("A tournament is held in a text channel, not in a thread: its games get threads of "
                              "their own.", locale))
        for value, low, high in ((round_time, 0, 720), (checkin, 0, 1440), (min_games, 0, 1000),
                                 (min_reliability, 0, 100), (min_rating, 0, 5000), (max_rating, 0, 5000),
                                 (max_rounds, 0, 1000), (max_missed, 0, 20)):
            in_range(value, low, high, locale)
        if min_rating is not None and max_rating is not None and min_rating > max_rating:
            raise UserError(_("The lowest rating must not be above the highest.", locale))
        if not name.strip():
            raise UserError(_("Give the tournament a name.", locale))
        spec = entry_spec(format_, table_size, rounds, team_size)
        server = await self.store.get_guild_settings(interaction.guild_id) if interaction.guild_id else None
        # Armies placed for the players (no set-up turns): a round's time limit ends its games by the standings,
        # which only a game past its set-up has.
        game: dict[str, Any] = {**(server.default_settings if server else {}), **TOURNAMENT_GAMES}
        given = {"turn_deadline": turn_time, "fog": fog, "cards": cards, "max_rounds": max_rounds,
                 "max_missed": max_missed}
        game.update({k: v for k, v in given.items() if v is not None})
        game["language"] = language_of(interaction.guild_locale)
        if map_name:
            game["map"] = (await resolve_map(self.store, interaction, map_name)).id
        rules = {"game": game, "round_time": round_time * HOUR, "checkin": checkin * MINUTE, "min_games": min_games,
                 "min_reliability": min_reliability, "min_rating": min_rating, "max_rating": max_rating}
        outcome = await self.tournaments.create(interaction.guild_id, interaction.channel_id, interaction.user.id,
                                                name.strip(), spec, rules)
        record = outcome.record
        lines = [f"{words.title(record)} · " + _("{host} opens a tournament: {format}.", locale,
                                                 host=safe_name(interaction.user.display_name),
                                                 format=words.format_text(record, locale)),
                 *words.rules_lines(record, locale),
                 _("Enter with </tournament join>; the host starts it with </tournament start>.", locale)]
        await interaction.response.send_message("\n".join(lines), allowed_mentions=NOBODY)

    @tournament_new.autocomplete("map_name")
    async def tournament_new_maps(self, interaction: discord.Interaction[Any], current: str
                                  ) -> list[app_commands.Choice[str]]:
        return await map_choices(self.store, interaction, current)

    @tournament_group.command(name="join", description="Enter this channel's tournament")
    @app_commands.describe(team="A team tournament: a new team's name (you make it), or the team that invited you")
    async def tournament_join(self, interaction: discord.Interaction[Any],
                              team: app_commands.Range[str, 1, 32] | None = None) -> None:
        record = await self.tournament_here(interaction)
        outcome = await self.tournaments.join(record.id, interaction.user.id, interaction.user.display_name, team)
        count = len(outcome.view.entrants) if outcome.view is not None else 0
        if outcome.team is not None and outcome.view is not None:
            await interaction.response.send_message(_(
                "{name} enters {tournament} in the team {team} ({members} of {size}).", interaction.locale,
                name=safe_name(interaction.user.display_name), tournament=safe_name(record.name),
                team=safe_name(outcome.team.name), members=len(outcome.team.members), size=outcome.view.team_size),
                allowed_mentions=NOBODY)
            return
        await interaction.response.send_message(
            ngettext("{name} enters {tournament} ({n} entrant).", "{name} enters {tournament} ({n} entrants).", count,
                     interaction.locale, name=safe_name(interaction.user.display_name),
                     tournament=safe_name(record.name)), allowed_mentions=NOBODY)

    @tournament_group.command(name="leave", description="Leave this channel's tournament before it starts")
    async def tournament_leave(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.tournament_here(interaction)
        await self.tournaments.leave(record.id, interaction.user.id)
        await interaction.response.send_message(_("{name} leaves {tournament}.", interaction.locale,
                                                  name=safe_name(interaction.user.display_name),
                                                  tournament=safe_name(record.name)), allowed_mentions=NOBODY)

    @tournament_group.command(name="invite", description="Invite a player to your team (its creator)")
    @app_commands.describe(player="The player to invite: they join with /tournament join and your team's name")
    async def tournament_invite(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        record = await self.tournament_here(interaction)
        team = await self.tournaments.invite(record.id, interaction.user.id, player.id)
        await interaction.response.send_message(_(
            "{name} invites {player} to the team {team} of {tournament}: </tournament join> {option}:{team} accepts.",
            interaction.locale, option=pgettext("option-name", "team", interaction.locale),
            name=safe_name(interaction.user.display_name), player=player.mention,
            team=safe_name(team.name), tournament=safe_name(record.name)),
            allowed_mentions=discord.AllowedMentions(users=[player], everyone=False, roles=False))

    @tournament_group.command(name="remove", description="Remove an entrant (host; a team's creator, from their "
                              "team, before the start)")
    @app_commands.describe(player="The entrant to remove: after the start, they forfeit their table")
    async def tournament_remove(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        record = await self.tournament_here(interaction)
        perms = getattr(interaction, "permissions", None)
        await acknowledge(interaction, private=False)
        outcome = await self.tournaments.remove(record.id, interaction.user.id, player.id,
                                                manager=bool(perms and perms.manage_guild))
        interaction.extras[CHANGED] = True
        text = _("{name} removes {player} from {tournament}.", interaction.locale,
                 name=safe_name(interaction.user.display_name), player=safe_name(player.display_name),
                 tournament=safe_name(record.name)) if outcome is None else _(
            "{name} removes {player} from {tournament}: they forfeit their table.", interaction.locale,
            name=safe_name(interaction.user.display_name), player=safe_name(player.display_name),
            tournament=safe_name(record.name))
        await interaction.followup.send(text, allowed_mentions=NOBODY)
        if outcome is not None:   # told in the table's thread as any kick
            await self.announcer.publish(outcome)

    @tournament_group.command(name="checkin", description="Check in to this channel's tournament while check-in "
                              "is open")
    async def tournament_checkin(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.tournament_here(interaction)
        await self.tournaments.check_in(record.id, interaction.user.id)
        await interaction.response.send_message(_("{name} checks in to {tournament}.", interaction.locale,
                                                  name=safe_name(interaction.user.display_name),
                                                  tournament=safe_name(record.name)), allowed_mentions=NOBODY)

    @tournament_group.command(name="start", description="Start the tournament: its first round, or its check-in "
                              "(host)")
    async def tournament_start(self, interaction: discord.Interaction[Any]) -> None:
        locale = interaction.locale
        record = await self.tournament_here(interaction)
        if record.host_id != interaction.user.id:
            raise UserError(_("Only the tournament's host can start it.", locale))
        if record.status == CHECKIN:  # a second tap of the start that opened it must not cut it short
            raise UserError(_("The check-in is open until <t:{until}:t>: the tournament starts by itself when it "
                              "closes.", locale, until=int(record.due_at or 0)))
        missing = [p for p in THREADS_NEEDED if not getattr(interaction.app_permissions, p)]
        if missing:  # before anything changes: each table's game is played in a thread the bot opens
            raise app_commands.BotMissingPermissions(missing)
        await acknowledge(interaction, private=False)
        outcome = await self.tournaments.start(record.id)
        interaction.extras[CHANGED] = True
        if outcome.kind == CHECKIN_OPEN:
            until = int(outcome.record.due_at or 0)
            text = f"{words.title(record)} · " + _("Check-in is open until <t:{until}:t> (<t:{until}:R>): entrants, "
                                                   "check in with </tournament checkin>. Those who do play.", locale,
                                                   until=until)
            await interaction.followup.send(text, allowed_mentions=NOBODY)
            return
        for text, extras in await self.tournament_news.messages(outcome) or [(words.title(record), {})]:
            await interaction.followup.send(text, allowed_mentions=extras.get("allowed_mentions", NOBODY))
        await self.tournament_news.games(outcome)

    @tournament_group.command(name="status", description="This channel's tournament: entrants, round and tables")
    async def tournament_status(self, interaction: discord.Interaction[Any]) -> None:
        record = await self.tournament_here(interaction, active=False)
        view = await self.store.tournament_view(record.id)
        embed = discord.Embed(title=words.title(record), colour=discord.Colour.gold(),
                              description=clip(words.status_lines(view, interaction.locale)))
        await interaction.response.send_message(embed=embed, ephemeral=True, allowed_mentions=NOBODY)

    @tournament_group.command(name="standings", description="This channel's tournament's standings, with an image")
    async def tournament_standings(self, interaction: discord.Interaction[Any]) -> None:
        locale = interaction.locale
        record = await self.tournament_here(interaction, active=False)
        view = await self.store.tournament_view(record.id)
        standings = view_standings(view)
        if not standings:
            raise UserError(_("The tournament has not started yet: there are no standings.", locale))
        await acknowledge(interaction, private=True)
        file = await standings_file(view, standings, locale)
        text = clip([words.title(record), *words.standings_lines(view, standings, locale)])
        await interaction.followup.send(text, file=file, ephemeral=True, allowed_mentions=NOBODY)

    @tournament_group.command(name="cancel", description="Call the tournament off (host, or a server manager)")
    async def tournament_cancel(self, interaction: discord.Interaction[Any]) -> None:
        locale = interaction.locale
        record = await self.tournament_here(interaction)
        perms = getattr(interaction, "permissions", None)
        if record.host_id != interaction.user.id and not (perms and perms.manage_guild):
            raise UserError(_("Only the tournament's host or a member with Manage Server can call it off.", locale))
        await acknowledge(interaction, private=False)
        outcome = await self.tournaments.cancel(record.id)
        interaction.extras[CHANGED] = True
        await interaction.followup.send(words.called_off_text(record, locale, checkin=False),
                                        allowed_mentions=NOBODY)
        await self.tournament_news.games(outcome)


__all__ = ["TournamentCommands", "tournament_group"]
