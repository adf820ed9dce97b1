"""Where a tournament's games are played and how the channel hears of it.

``ThreadRooms`` is the desk's ``Rooms`` (table/tournaments.py): each table's game gets a public thread under the
tournament's channel. ``TournamentNews`` is the desk's ``sink`` and what the commands hand an outcome to: the
tournament's channel reads a round's tables, a round whose time is up, the final standings (with their image,
drawn in a worker process) and a tournament called off, all through the announcer's channel queue; each game the
outcome started or ended is told in its own thread by the announcer, the way any game is.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
from collections.abc import Sequence
from typing import Literal

import discord

import workers
from cogs.shared.announcer import Announcer
from cogs.shared.live import NOBODY
from cogs.shared.postbox import Extras, Post
from competition import Pairing, Standing
from present import tournament as words
from present.i18n import _
from render.standings import standings_image
from store import FINISHED, RUNNING, StoreReader
from store.tournaments import TournamentRecord, TournamentView
from table.tournaments import CANCELLED, FINAL, ROUND, TournamentOutcome

log = logging.getLogger("risk.tournaments")
USER_MENTION = re.compile(r"<@!?(\d+)>")
# Minutes a quiet game's thread stays in the channel's list: a week, Discord's longest.
THREAD_ARCHIVE: Literal[10080] = 10080


def tournament_locale(record: TournamentRecord, bot: discord.Client) -> object:
    """The language of a tournament's public messages: its games', else the server's."""
    language = (record.settings.get("game") or {}).get("language")
    if language:
        return language
    guild = bot.get_guild(record.guild_id) if record.guild_id else None
    return guild.preferred_locale if guild is not None else None


def mentioned(text: str) -> list[int]:
    """The users a message's text mentions, in order."""
    return [int(u) for u in USER_MENTION.findall(text)]


def players_mentioned(user_ids: Sequence[int]) -> discord.AllowedMentions:
    """Mentions that ping exactly these users (a round's players), nobody else."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(u) for u in dict.fromkeys(user_ids)])


async def standings_file(view: TournamentView, standings: Sequence[Standing], locale: object) -> discord.File:
    """The standings as an image, drawn in a render worker (never on the event loop)."""
    png = await workers.run(standings_image, view.record.name, words.standing_rows(view, standings, locale),
                            words.standings_headers(locale, view.team_size > 1))
    return discord.File(io.BytesIO(png), filename="standings.png")


class ThreadRooms:
    """A public thread under the tournament's channel for each table's game. Its name says the tournament, round and
    table; a thread of that name the bot made under the channel and no table holds is the one an opening cut short
    made before it was stored (a restart between Discord's answer and the store): it is taken, not made again."""

    def __init__(self, bot: discord.Client, store: StoreReader) -> None:
        self.bot, self.store = bot, store

    async def open_room(self, tournament: TournamentRecord, pairing: Pairing, names: Sequence[str]) -> int:
        channel = self.bot.get_channel(tournament.channel_id) or await self.bot.fetch_channel(tournament.channel_id)
        if not isinstance(channel, discord.TextChannel):
            raise RuntimeError(f"tournament {tournament.id}: channel {tournament.channel_id} takes no threads")
        locale = tournament_locale(tournament, self.bot)
        # Discord takes 100 characters: a long tournament name is shortened, its round and table kept.
        where = " · " + " · ".join((_("Round {n}", locale, n=pairing.round), _("Table {n}", locale, n=pairing.table)))
        name = " ".join(tournament.name.split())[:100 - len(where)] + where
        me = self.bot.user.id if self.bot.user is not None else None
        mine = [t for t in channel.threads if t.name == name and t.owner_id == me]
        if mine:
            stored = await self.store.tables_in_threads([t.id for t in mine])
            left = [t for t in mine if t.id not in stored]
            if left:
                log.info("tournament %s: round %s table %s takes the thread %s it made before a restart",
                         tournament.id, pairing.round, pairing.table, left[0].id)
                return left[0].id
        thread = await channel.create_thread(name=name, type=discord.ChannelType.public_thread,
                                             auto_archive_duration=THREAD_ARCHIVE)
        return thread.id


class TournamentNews:
    """Tells a tournament's outcome: its channel through the announcer's queue, each game in its thread."""

    def __init__(self, announcer: Announcer, bot: discord.Client) -> None:
        self.announcer, self.bot = announcer, bot

    async def messages(self, outcome: TournamentOutcome) -> list[tuple[str, Extras]]:
        """What the tournament's channel reads of an outcome: each message with its extras (none: nothing)."""
        view = outcome.view
        locale = tournament_locale(outcome.record, self.bot)
        quiet: Extras = {"allowed_mentions": NOBODY}
        if outcome.kind == CANCELLED:  # by a timer: the check-in closed with too few (a host's cancel is answered)
            return [(words.called_off_text(outcome.record, locale, checkin=True), quiet)]
        if view is None:
            return []
        if outcome.kind == FINAL:
            extras: Extras = {"allowed_mentions": NOBODY}
            try:
                extras["files"] = [await standings_file(view, outcome.standings, locale)]
            except Exception:  # the standings still go out, in words
                log.exception("tournament %s: the standings image failed", outcome.record.id)
            return [(words.final_text(view, outcome.standings, locale), extras)]
        if outcome.kind == ROUND and outcome.games:
            if all(g.record.status == FINISHED for g in outcome.games):
                return [(words.time_up_text(view, [g.record.id for g in outcome.games], locale), quiet)]
            # Each message pings the players it names (Discord takes at most 100 users a message).
            players = set(words.round_players(view))
            return [(text, {"allowed_mentions": players_mentioned([u for u in mentioned(text) if u in players])})
                    for text in words.round_texts(view, locale)]
        return []

    async def tell(self, outcome: TournamentOutcome) -> None:
        """The desk's sink: what a timer did (a round opened or out of time, the end, a check-in that failed)."""
        try:
            for text, extras in await self.messages(outcome):
                await asyncio.shield(self.announcer.box.enqueue(outcome.record.channel_id, Post(text, kwargs=extras)))
        except Exception:  # the games are still told in their threads
            log.exception("tournament %s: telling its channel of %s failed", outcome.record.id, outcome.kind)
        await self.games(outcome)

    async def games(self, outcome: TournamentOutcome) -> None:
        """Each game the outcome started, ended or cancelled, told in its thread; one that fails holds up no other
        (it is logged)."""
        locale = tournament_locale(outcome.record, self.bot)
        for game in outcome.games:
            try:
                if game.parts or game.notes:
                    await self.announcer.outcome(game)
                elif game.record.status not in (RUNNING, FINISHED):  # called off with the tournament
                    await self.announcer.post(game.record, _("The tournament was called off: this game is "
                                                             "cancelled.", locale))
            except Exception:
                log.exception("tournament %s: telling game %s failed", outcome.record.id, game.record.id)


__all__ = ["ThreadRooms", "TournamentNews", "mentioned", "players_mentioned", "standings_file", "tournament_locale"]
