"""The words of a season and its ladders, for the channel (the announcer) and the commands (cogs/records/season.py)."""

from __future__ import annotations

import asyncio

import discord

from cogs.shared.announcer import Announcer
from cogs.shared.live import NOBODY
from cogs.shared.postbox import Post
from present.i18n import _, ngettext
from present.names import safe_name
from ratings.ladders import LADDERS, ONE_V_ONE
from store import LeaderboardRow
from table.seasons import SeasonOutcome


def ladder_name(ladder: str, locale: object) -> str:
    return _("1v1", locale) if ladder == ONE_V_ONE else _("Free-for-all", locale)


def standings_lines(rows: list[LeaderboardRow], locale: object) -> str:
    return "\n".join(f"**{r.rank}.** {safe_name(r.name)}: **{r.score}** · "
                     + ngettext("{n} game", "{n} games", r.games, locale) for r in rows) or _("nobody rated", locale)


def season_text(outcome: SeasonOutcome, locale: object) -> str:
    """What the channel is told of a season that starts (after the one it closed, if any) or ends."""
    season = outcome.season
    if outcome.started:
        begins = _("🏁 Season {number} begins: it ends <t:{end}:f> (<t:{end}:R>). Ratings on the 1v1 and "
                   "free-for-all ladders start again, moved part-way back to the start.", locale,
                   number=season.number, end=int(season.ends_at))
        return begins if outcome.closed is None else season_text(outcome.closed, locale) + "\n\n" + begins
    head = _("🏆 Season {number} is over: it ended <t:{end}:f>.", locale, number=season.number,
             end=int(season.end)) if outcome.by_itself else \
        _("🏆 Season {number} was ended by a manager.", locale, number=season.number)
    parts = [head]
    for ladder in LADDERS:
        parts.append(f"**{ladder_name(ladder, locale)}**\n{standings_lines(outcome.standings.get(ladder, []), locale)}")
    return "\n\n".join(parts)


class SeasonNews:
    """Tells the channel a season was started in that it ended by itself (the scheduler's season sink), through
    the announcer's channel queue, in the server's language."""

    def __init__(self, announcer: Announcer, bot: discord.Client) -> None:
        self.announcer, self.bot = announcer, bot

    async def season(self, outcome: SeasonOutcome) -> None:
        guild = self.bot.get_guild(outcome.season.guild_id)
        text = season_text(outcome, guild.preferred_locale if guild is not None else None)
        await asyncio.shield(self.announcer.box.enqueue(outcome.season.channel_id,
                                                        Post(text, kwargs={"allowed_mentions": NOBODY})))


__all__ = ["SeasonNews", "ladder_name", "season_text", "standings_lines"]
