"""Substitutes: the host offers a seat the AI took over (``/offer``, or the button on the takeover's
message), and a player not in the game claims it with the button on the offer. The table checks every claim
against the offer open now (table/seats.py): a button of an offer withdrawn or claimed since, a made-up custom id,
a player of the game, one below the game's minimum reliability, or a game that is over claims nothing."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from cogs.shared.base import CogBase
from cogs.shared.errors import CHANGED
from cogs.shared.guards import game_here, require_control
from cogs.shared.substitute_news import announce_seat
from present.i18n import _
from present.names import safe_name
from store import GameRecord
from table import SeatRefused


class SeatCommands(CogBase):
    # A command of its own, as /vote is: /risk has as many subcommands as Discord allows (25).
    @app_commands.command(name="offer", description="Offer a seat the AI took over to a substitute, or withdraw "
                                                    "the offer (host)")
    @app_commands.describe(player="The player the AI replaced", withdraw="Withdraw the offer instead")
    async def risk_offer(self, interaction: discord.Interaction[Any], player: discord.User,
                         withdraw: bool = False) -> None:
        record = await game_here(self.store, interaction, running=False)
        await require_control(self.store, record, interaction)
        seat = await self._taken_seat(record, player.id)
        if seat is None:
            raise SeatRefused(SeatRefused.NOT_TAKEN)
        await self.offer(interaction, record, seat, withdraw=withdraw, name=player.display_name)

    async def offer(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int, *,
                    withdraw: bool = False, name: str | None = None) -> None:
        """The host offers the seat (or withdraws the offer); the channel hears it, with the claim button."""
        locale = interaction.locale
        outcome = await (self.table.withdraw_offer(record.id, seat) if withdraw
                         else self.table.offer_seat(record.id, seat))
        if not withdraw and outcome.takeover_message is None and interaction.message is not None:
            outcome.takeover_message = interaction.message.id   # its own button (posted before the store noted it)
        shown = safe_name(name) if name else str(seat + 1)
        await interaction.response.send_message(
            _("🪑 The offer of {player}'s seat is withdrawn.", locale, player=shown) if withdraw else
            _("🪑 {player}'s seat is offered to a substitute.", locale, player=shown), ephemeral=True)
        await announce_seat(self.announcer, outcome)

    async def _taken_seat(self, record: GameRecord, user_id: int) -> int | None:
        """The seat the AI took over from ``user_id`` in this game, if any."""
        for p in record.players:
            if p.is_ai and (await self.store.seat_status(record.id, p.seat)).booted_user_id == user_id:
                return p.seat
        return None

    async def claim(self, interaction: discord.Interaction[Any], game_id: int, args: list[str]) -> None:
        """The claim button of an offer: its seat and key, both checked by the table against the offer open now."""
        locale = interaction.locale
        if len(args) != 2 or not args[0].isdigit() or len(args[0]) > 2:
            raise SeatRefused(SeatRefused.NOT_OFFERED)
        record = await self.store.get_game(game_id)
        if record.channel_id != interaction.channel_id:
            raise SeatRefused(SeatRefused.NOT_OFFERED)
        name = interaction.user.display_name
        outcome = await self.table.claim_seat(game_id, int(args[0]), args[1], interaction.user.id, name)
        interaction.extras[CHANGED] = True
        await interaction.response.send_message(
            _("🪑 The seat is yours: you play it from now on. </cards> and </mission> show its secrets, now yours.",
              locale), ephemeral=True)
        await announce_seat(self.announcer, outcome)


__all__ = ["SeatCommands"]
