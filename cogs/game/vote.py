"""A vote to end a game: ``/vote`` calls it, the buttons on its message are the ballots.

Discord's polls show who voted and let anyone in the channel vote, so the ballots are buttons that only the
players still in the game can use (``Table.voters``); nobody is told how anyone voted, and the tally only when
the vote closes (everyone voted, or its time is up). The table checks every ballot against the vote going on now:
a button of an older vote, a spectator's or an eliminated player's tap changes nothing.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from cogs.shared.ballots import NO, YES
from cogs.shared.base import CogBase
from cogs.shared.errors import CHANGED
from cogs.shared.guards import game_here, seat_of
from present.i18n import _
from store import GameRecord
from table import VoteRefused
from table.timers import DRAW, STANDINGS


class VoteCommands(CogBase):
    @app_commands.command(name="vote", description="Call a vote to end this channel's game (players still in it)")
    @app_commands.describe(ending="standings: the leader wins, as at a round limit; draw: all still in share first")
    @app_commands.choices(ending=[app_commands.Choice(name=STANDINGS, value=STANDINGS),
                                  app_commands.Choice(name=DRAW, value=DRAW)])
    async def vote(self, interaction: discord.Interaction[Any], ending: str = STANDINGS) -> None:
        record = await game_here(self.store, interaction)
        seat = seat_of(record, interaction)
        outcome = await self.table.call_vote(record.id, seat, ending == DRAW)
        await interaction.response.send_message(
            _("🗳️ Your vote is called, and your ballot is for it.", interaction.locale), ephemeral=True)
        await self.announcer.vote(outcome)

    async def cast_ballot(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int,
                          args: list[str]) -> None:
        """A ballot button: its vote's key and the choice, both checked by the table against the vote going on."""
        locale = interaction.locale
        if len(args) != 2 or args[1] not in (YES, NO):
            raise VoteRefused(VoteRefused.OVER)
        outcome = await self.table.cast_ballot(record.id, seat, args[0], args[1] == YES)
        if outcome.duplicate:
            text = _("🗳️ Your ballot was counted already; it cannot be changed.", locale)
        elif outcome.notes:
            text = _("🗳️ Your ballot is counted; it was the last: the vote is closed.", locale)
        else:
            assert outcome.vote is not None
            text = _("🗳️ Your ballot is counted ({n} of {m} players have voted).", locale,
                     n=sum(1 for v in outcome.voters if v in outcome.vote.ballots), m=len(outcome.voters))
        interaction.extras[CHANGED] = not outcome.duplicate
        await interaction.response.send_message(text, ephemeral=True)
        if outcome.notes:
            await self.announcer.vote(outcome)


__all__ = ["VoteCommands"]
