"""What a game is and was: status, settings, its log and export (per reader), the dice, rules and help."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from cogs.game.lobby import lobby_embed, lobby_figures, settings_text
from cogs.game.rules_text import HELP_TEXT, PLAN_HELP, RULE_TOPICS, SUBSTITUTES_HELP, renamed_text, rule_text
from cogs.shared.announcer import NOBODY, clip
from cogs.shared.base import CogBase, risk_group
from cogs.shared.errors import UserError
from cogs.shared.guards import channel_game, game_or_last, last_game_here
from cogs.shared.log_files import send_log
from engine.fog import fog_hides_board
from engine.settings import Settings
from engine.state import OVER, REINFORCE
from present.i18n import _, ngettext
from present.names import safe_name
from present.text import describe, now_text, player_name, seat_name, team_lines
from table import turn_deadline


class InfoCommands(CogBase):
    @risk_group.command(name="status", description="Players, whose turn it is, and the dice commitment")
    async def risk_status(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_or_last(self.store, interaction)
        if record.state_json is None:
            figures = await lobby_figures(self.store, record)
            await interaction.response.send_message(embed=lobby_embed(record, interaction, figures),
                                                    ephemeral=True)
            return
        game = record.game()
        s = game.state
        locale = interaction.locale
        embed = discord.Embed(title=_("Risk: game #{id}, turn {turn}", locale, id=record.id, turn=s.turn),
                              colour=discord.Colour.dark_green())
        viewer = record.seat_of(interaction.user.id)
        rows = []
        for p in record.players:
            name = safe_name(player_name(p.name, p.is_ai, locale))
            cards = ngettext("{n} card", "{n} cards", len(s.hands.get(p.seat, [])), locale)
            if fog_hides_board(s) and p.seat != viewer:  # under fog, other players' totals stay hidden
                facts = [cards]
            else:
                facts = [ngettext("{n} territory", "{n} territories", len(s.territories_of(p.seat)), locale),
                         ngettext("{n} army", "{n} armies", s.army_total(p.seat), locale), cards]
            line = f"{name}: " + ", ".join(facts)
            line = f"~~{line}~~" if p.seat in s.eliminated or p.seat in s.surrendered else line
            rows.append(("▶ " if p.seat == s.current and s.phase != OVER else "") + line)
        embed.add_field(name=_("Players", locale), value="\n".join(rows), inline=False)
        if s.teams:
            embed.add_field(name=_("Teams", locale), value="\n".join(team_lines(s, locale)), inline=False)
        embed.add_field(name=_("Now", locale), value=now_text(s, locale, viewer), inline=False)
        if viewer == s.current and s.phase == REINFORCE:  # their own count, seen privately (also under fog)
            embed.add_field(name=_("To place", locale), value=str(s.reinforcements))
        if s.settings.cards == "escalating" and s.phase != OVER:
            embed.add_field(name=_("Next set", locale), value=str(game.next_set_value()))
        turn_timer = turn_deadline(await self.store.game_deadlines(record.id))
        if turn_timer is not None:
            embed.add_field(name=_("Deadline", locale), value=_("ends <t:{t}:R>", locale, t=int(turn_timer.due_at)))
        if record.status == "paused":
            embed.add_field(name=_("Paused", locale), value=_("The host resumes with </risk resume>.", locale))
        embed.add_field(name=_("Dice commitment", locale), inline=False, value=_(
            "`{c}`\nThe dice are fixed in advance by a secret seed; this commitment seals it. After the game "
            "</risk verify> shows the seed, and anyone can check every roll.", locale, c=s.seed_commitment))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @risk_group.command(name="settings", description="The rules this game is played with")
    async def risk_settings(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_or_last(self.store, interaction)
        await interaction.response.send_message(settings_text(record.settings, interaction.locale), ephemeral=True)

    @risk_group.command(name="log", description="Recent events of this game")
    @app_commands.describe(count="How many events (default 20)")
    async def risk_log(self, interaction: discord.Interaction[Any],
                       count: app_commands.Range[int, 1, 200] = 20) -> None:
        record = await game_or_last(self.store, interaction)
        if record.state_json is None:
            raise UserError(_("The game has not started yet: the host starts it with </risk start>.",
                              interaction.locale))
        # Only the last turns are read (store/logs.py), as the reader may see them (engine.fog): in the log's worker
        # process, which may have to start first, so the answer is deferred within Discord's 3 s.
        await interaction.response.defer(ephemeral=True, thinking=True)
        shown = await self.store.recent_events(record.id, record.seat_of(interaction.user.id), max(1, min(count, 200)))
        game = record.game()
        lines = describe(shown, game.state, game.board, interaction.locale, include_setup=True)
        await interaction.followup.send(clip(lines) or _("Nothing yet.", interaction.locale), ephemeral=True,
                                        allowed_mentions=NOBODY)

    @risk_group.command(name="export", description="The event log of this channel's last game as a file")
    async def risk_export(self, interaction: discord.Interaction[Any]) -> None:
        record = await last_game_here(self.store, interaction)
        over = record.game().state.phase == OVER
        # A long game's log is tens of MB: answered at once, read and written off the event loop, and sent
        # compressed (or in parts) when it is over the upload limit.
        await interaction.response.defer(ephemeral=not over, thinking=True)
        data = await self.store.export_log(record.id, record.seat_of(interaction.user.id))
        locale = interaction.locale

        def note(name: str) -> str:
            if over:
                return _("The full log of game #{id}. Check its dice with `python -m engine.verify {name}`.",
                         locale, id=record.id, name=name)
            return _("The log of game #{id} so far, as you may see it: hidden cards, fogged territories and the "
                     "dice seed are left out until it ends.", locale, id=record.id)
        await send_log(interaction, note, data, record.id, ephemeral=not over)

    @risk_group.command(name="verify", description="A finished game's dice seed and how to check every roll")
    async def risk_verify(self, interaction: discord.Interaction[Any]) -> None:
        s = (await last_game_here(self.store, interaction)).game().state
        locale = interaction.locale
        if s.phase != OVER:
            text = _("The dice of this game are fixed by a secret seed whose SHA-256 commitment is `{c}`. The seed "
                     "is revealed when the game ends; then </risk verify> shows it and anyone can check every roll.",
                     locale, c=s.seed_commitment)
        else:
            text = _("Seed: `{seed}`\nCommitment: `{c}`\nCheck: sha256(seed) equals the commitment, and "
                     "`python -m engine.verify game.jsonl` (the file from </risk export>) re-derives every die. The "
                     "method is in docs/dice.md.", locale, seed=s.seed, c=s.seed_commitment)
        await interaction.response.send_message(text, ephemeral=True)

    @risk_group.command(name="rules", description="Quick rulings: ties, cards, fortify, capture, and more")
    @app_commands.choices(topic=[app_commands.Choice(name=k, value=k) for k in RULE_TOPICS])
    async def risk_rules(self, interaction: discord.Interaction[Any], topic: str = "mistakes") -> None:
        # In a channel with a game (its lobby too), that game's rules; elsewhere the default ones and the variants.
        record = await channel_game(self.store, interaction) if interaction.channel_id is not None else None
        settings = None if record is None else Settings.from_dict(
            {k: v for k, v in record.settings.items() if k in Settings.__dataclass_fields__})
        await interaction.response.send_message(rule_text(topic, settings, interaction.locale), ephemeral=True)

    @risk_group.command(name="help", description="How to play Risk with this bot")
    async def risk_help(self, interaction: discord.Interaction[Any]) -> None:
        parts = [*(_(text, interaction.locale) for text in (HELP_TEXT, PLAN_HELP, SUBSTITUTES_HELP)),
                 renamed_text(interaction.locale)]
        await interaction.response.send_message("\n".join(p for p in parts if p), ephemeral=True)

    @risk_group.command(name="mygames", description="Your running games on this server, and whose turn it is")
    async def risk_mygames(self, interaction: discord.Interaction[Any]) -> None:
        locale = interaction.locale
        rows = []
        # Outside a server (a direct message) only this channel's games: the server of a DM is the DM itself.
        guild = interaction.guild_id
        for record in await self.store.list_games("running", guild_id=guild,
                                                  channel_id=None if guild else interaction.channel_id, limit=200):
            seat = record.seat_of(interaction.user.id)
            if seat is None or record.state_json is None:
                continue
            s = record.game().state
            timer = turn_deadline(await self.store.game_deadlines(record.id))
            mine = s.current == seat
            line = f"<#{record.channel_id}> #{record.id}: " + (_("your turn", locale) if mine else
                                                               _("{player}'s turn", locale,
                                                                 player=seat_name(s, s.current, locale)))
            if timer is not None:
                line += " · " + _("ends <t:{t}:R>", locale, t=int(timer.due_at))
            rows.append(("0" if mine else "1") + line)
        text = "\n".join(r[1:] for r in sorted(rows)) or _("You are in no running game on this server.", locale)
        await interaction.response.send_message(clip(text.split("\n")), ephemeral=True, allowed_mentions=NOBODY)


__all__ = ["InfoCommands"]
