"""Running a game: removing and resigning players, cancelling, pausing, vacations and notifications."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord
from discord import app_commands

from cogs.game.lobby import lobby_embed, lobby_figures, lobby_view
from cogs.shared.announcer import NOBODY
from cogs.shared.base import CogBase, risk_group
from cogs.shared.components import GameButton, Red, view_of
from cogs.shared.errors import UserError, acknowledge
from cogs.shared.guards import game_here, game_locale, require_control, seat_of
from cogs.shared.substitute_news import announce_seat
from engine import Surrender
from engine.fog import fog_hides_board
from present import verbs as verb
from present.i18n import _, ngettext
from present.names import safe_name
from store import GameRecord


class ControlCommands(CogBase):
    @risk_group.command(name="kick", description="Remove a player (host): from the lobby, or resign them in a game")
    async def risk_kick(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        record = await game_here(self.store, interaction, running=False)
        await require_control(self.store, record, interaction)
        seat = record.seat_of(player.id)
        if seat is None:
            raise UserError(_("{name} is not playing in this game.", interaction.locale,
                              name=safe_name(player.display_name)))
        if record.status == "lobby":
            if player.id == interaction.user.id:
                raise UserError(_("To leave your own lobby, use </risk leave> (or </risk cancel> to close it).",
                                  interaction.locale))
            record = (await self.table.kick(record.id, seat)).record
            figures = await lobby_figures(self.store, record)
            await interaction.response.send_message(embed=lobby_embed(record, interaction, figures),
                                                    view=lobby_view(record, interaction), allowed_mentions=NOBODY)
            return
        record = await game_here(self.store, interaction)
        record.game().validate(Surrender(seat))
        locale = interaction.locale
        question = _("Remove yourself from game #{id}? That resigns you: your territories become neutral.", locale,
                     id=record.id) if player.id == interaction.user.id else \
            _("Remove {player} from game #{id}? Their territories become neutral.", locale, id=record.id,
              player=safe_name(player.display_name))
        await interaction.response.send_message(question, ephemeral=True, view=view_of(GameButton(
            record.id, verb.KICK, seat, label=_("Yes, remove", locale), style=Red)))

    async def remove_player(self, interaction: discord.Interaction[Any], record: GameRecord, seat: int) -> None:
        """The host confirmed: the player leaves the game, their territories become neutral."""
        game = record.game()
        game.validate(Surrender(seat))
        private = fog_hides_board(game.state)
        await acknowledge(interaction, private)
        await self.announcer.answer(interaction, await self.table.kick(record.id, seat, by=interaction.user.id),
                                    private=private)

    @risk_group.command(name="cancel", description="Cancel this channel's game (host)")
    async def risk_cancel(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction, running=False)
        await require_control(self.store, record, interaction)
        # Past its first round the host resigns and the standings decide; a tournament's game ends by the
        # standings whenever it is in play (nobody resigns), so its round goes on.
        if await self.table.cancel_ends_by_standings(record):
            private = fog_hides_board(record.game().state)
            await acknowledge(interaction, private)
            await self.announcer.answer(interaction, await self.table.cancel(record.id), private=private)
            return
        await self.table.cancel(record.id)
        await interaction.response.send_message(_("Game #{id} is cancelled.", game_locale(record, interaction),
                                                  id=record.id))

    @risk_group.command(name="surrender", description="Resign: your territories become neutral")
    async def risk_surrender(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction)
        record.game().validate(Surrender(seat_of(record, interaction)))
        locale = interaction.locale
        await interaction.response.send_message(
            _("Surrender game #{id}? Your territories become neutral and you cannot come back.", locale,
              id=record.id), ephemeral=True,
            view=view_of(GameButton(record.id, verb.SURRENDER, label=_("Yes, surrender", locale), style=Red,
                                    emoji="🏳️")))

    @risk_group.command(name="pause", description="Pause the game: deadlines stop (host)")
    async def risk_pause(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction)
        await require_control(self.store, record, interaction)
        record = (await self.table.pause(record.id)).record
        await interaction.response.send_message(_("⏸️ Game #{id} is paused. </risk resume> goes on.",
                                                  game_locale(record, interaction), id=record.id))

    @risk_group.command(name="resume", description="Resume a paused game (host)")
    async def risk_resume(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction, running=False)
        await require_control(self.store, record, interaction)
        outcome = await self.table.resume(record.id)
        await interaction.response.send_message(_("▶️ Game #{id} goes on.", game_locale(record, interaction),
                                                  id=record.id))
        if outcome.parts:
            await self.announcer.publish(outcome)
        elif outcome.waiting_on() is not None:
            await self.announcer.panel(outcome.record, outcome.deadline)

    @risk_group.command(name="vacation", description="Take days off: your deadlines in this game move back")
    @app_commands.describe(days="How many days")
    async def risk_vacation(self, interaction: discord.Interaction[Any], days: app_commands.Range[int, 1, 60]) -> None:
        record = await game_here(self.store, interaction)
        seat = seat_of(record, interaction)
        if seat not in record.game().state.active_seats():
            raise UserError(_("You are out of this game: there is no deadline to move.", interaction.locale))
        limit = record.game().state.settings.vacation_days
        status = (await self.table.take_vacation(record.id, seat, days)).seat_status
        assert status is not None and status.vacation_until is not None
        await interaction.response.send_message(
            ngettext("🏖️ {player} is on vacation until <t:{t}:f>; their deadlines wait until then ({n} day left).",
                     "🏖️ {player} is on vacation until <t:{t}:f>; their deadlines wait until then ({n} days left).",
                     limit - status.vacation_days, game_locale(record, interaction),
                     player=safe_name(interaction.user.display_name), t=int(status.vacation_until)),
            allowed_mentions=NOBODY)

    @risk_group.command(name="reinstate", description="Give a player replaced by the AI their seat back (host)")
    async def risk_reinstate(self, interaction: discord.Interaction[Any], player: discord.User) -> None:
        record = await game_here(self.store, interaction)
        await require_control(self.store, record, interaction)
        outcome = await self.table.reinstate(record.id, player.id)
        await interaction.response.send_message(_("↩️ {player} has their seat back.", game_locale(record, interaction),
                                                  player=safe_name(player.display_name)), allowed_mentions=NOBODY)
        await announce_seat(self.announcer, outcome)  # an offer of their seat is withdrawn

    @risk_group.command(name="notify", description="How the bot tells you it is your turn, and your quiet hours")
    @app_commands.describe(mode="mention in the channel, also a direct message, or nothing",
                           quiet_start="Quiet hours start, HH:MM", quiet_end="Quiet hours end, HH:MM",
                           timezone="Your time zone, e.g. Europe/Oslo")
    @app_commands.choices(mode=[app_commands.Choice(name=n, value=n) for n in ("mention", "dm", "off")])
    async def risk_notify(self, interaction: discord.Interaction[Any], mode: str | None = None,
                          quiet_start: app_commands.Range[str, 1, 5] | None = None,
                          quiet_end: app_commands.Range[str, 1, 5] | None = None,
                          timezone: app_commands.Range[str, 1, 64] | None = None) -> None:
        prefs = await self.store.get_user_prefs(interaction.user.id)
        prefs = await self.table.save_prefs(replace(  # an option not given keeps its stored value
            prefs, notify=prefs.notify if mode is None else mode,
            quiet_start=prefs.quiet_start if quiet_start is None else quiet_start,
            quiet_end=prefs.quiet_end if quiet_end is None else quiet_end,
            timezone=prefs.timezone if timezone is None else timezone))
        quiet = f"{prefs.quiet_start}–{prefs.quiet_end} ({prefs.timezone or 'UTC'})" if prefs.quiet_start else "—"
        await interaction.response.send_message(
            _("Notifications: {mode}. Quiet hours: {quiet}.", interaction.locale, mode=prefs.notify,
              quiet=discord.utils.escape_markdown(quiet)), ephemeral=True)


__all__ = ["ControlCommands"]
