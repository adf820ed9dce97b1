"""``/hint``: what the hard AI would do now, and why, told privately to the player on turn.

The hint is worked out from the seat's own view (``engine.ai.hints``: its projection, its memory under fog) in the
AI's worker processes (``Table.hint``), so it never shows what the seat may not know and never holds up the event
loop. A game gives hints only if its host turned them on (the ``hints`` setting, off by default: a rated or
tournament game's players play on their own), and a player gets one hint per phase of each of their turns
(``Table.hint`` counts them).
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from cogs.shared.base import CogBase
from cogs.shared.errors import UserError
from cogs.shared.guards import game_here, on_turn
from engine import Blitz, EndAttack, EndTurn, Fortify, Game, Occupy, Place, Trade
from engine.ai.hints import Hint
from present.i18n import _, continent_name, territory_name


def hint_text(game: Game, hint: Hint, locale: object) -> str:
    """The hint in one or two lines: the move, then why (the odds of an attack, the continent it aims for)."""
    board, a = game.board, hint.action
    aim = continent_name(board, hint.continent, locale) if hint.continent else None
    if isinstance(a, Blitz):
        line = _("💡 The hard AI would attack **{target}** from **{source}**: {odds:.0%} to take it.", locale,
                 target=territory_name(board, a.target, locale), source=territory_name(board, a.source, locale),
                 odds=hint.odds or 0.0)
    elif isinstance(a, Place):
        line = _("💡 The hard AI would place {count} on **{territory}**.", locale, count=a.count,
                 territory=territory_name(board, a.territory, locale))
    elif isinstance(a, Fortify):
        line = _("💡 The hard AI would move {count} from **{source}** to **{target}**.", locale, count=a.count,
                 source=territory_name(board, a.source, locale), target=territory_name(board, a.target, locale))
    elif isinstance(a, Trade):
        line = _("💡 The hard AI would trade a set of cards now.", locale)
    elif isinstance(a, Occupy):
        line = _("💡 The hard AI would move {count} in.", locale, count=a.count)
    elif isinstance(a, EndAttack):
        line = _("💡 The hard AI would stop attacking now.", locale)
    elif isinstance(a, EndTurn):
        line = _("💡 The hard AI would end the turn now.", locale)
    else:
        line = _("💡 The hard AI has no advice for this step.", locale)
    if aim is None:
        return line
    return line + "\n" + _("It aims for {continent}.", locale, continent=aim)


class HintCommands(CogBase):
    @app_commands.command(name="hint", description="What the hard AI would do now, and why; only you see it")
    async def hint(self, interaction: discord.Interaction[Any]) -> None:
        record = await game_here(self.store, interaction)
        game, seat = on_turn(record, interaction)
        if record.settings.get("hints", "off") != "on":
            raise UserError(_("This game gives no hints: its host can allow them before the start.",
                              interaction.locale))
        if not self.table.take_hint(record, seat):
            raise UserError(_("You have had your hint for this step; ask again at the next one.",
                              interaction.locale))
        await interaction.response.defer(ephemeral=True, thinking=True)
        hint = await self.table.hint(record, seat)
        text = hint_text(game, hint, interaction.locale) if hint is not None else \
            _("No hint could be worked out in time; ask again in a moment.", interaction.locale)
        await interaction.followup.send(text, ephemeral=True)


__all__ = ["HintCommands", "hint_text"]
