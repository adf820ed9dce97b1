"""Territory menus: which territories a menu offers now, their labels, and the select that offers them.

The same ``choices`` decide what a menu shows and what a tap on it may choose (cogs/play/buttons.py checks every value
against them), so a menu never offers, and a tap never gets, a territory the player may not pick or see.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from cogs.shared import components as verb
from cogs.shared.components import GameSelect, view_of
from cogs.shared.errors import UserError
from cogs.shared.i18n import _, continent_name, percent, territory_name
from cogs.shared.text import label_name
from engine import Game
from engine.fog import visible_to
from engine.odds import QUICK_LIMIT, odds
from engine.state import NEUTRAL

MAX_OPTIONS = 25  # Discord's limit on a select's options


def choices(game: Game, seat: int, purpose: str, extra: Sequence[str] = ()) -> list[str]:
    """The territories a menu offers now; the extras (a source) are checked first."""
    s = game.state
    if purpose == verb.CLAIM:
        return game.claimable()
    if purpose == verb.CAPITAL:
        return game.capital_choices(seat)
    if purpose == verb.PLACE:
        return [t for t in game.placeable(seat) if s.owners.get(t) == seat]
    if purpose == verb.NEUTRAL:  # under fog, the neutral territories in sight (all of them if none is)
        neutral = [t for t in game.placeable(seat) if s.owners.get(t) == NEUTRAL]
        seen = visible_to(s, seat)
        return [t for t in neutral if seen is None or t in seen] or neutral
    if purpose == verb.ATTACK_FROM:
        return game.attack_sources(seat)
    if purpose == verb.ATTACK_TO:
        source = extra[0] if extra else ""
        return game.attack_targets(seat, source) if source in game.attack_sources(seat) else []
    if purpose == verb.FORTIFY_FROM:
        return game.fortify_sources(seat)
    if purpose == verb.FORTIFY_TO:
        source = extra[0] if extra else ""
        return game.fortify_targets(seat, source) if source in game.fortify_sources(seat) else []
    return []


async def pick_territory(interaction: discord.Interaction[Any], game_id: int, game: Game, purpose: str,
                         territories: Sequence[str], prompt: str, *extra: str) -> None:
    """A private select of territories; more than 25 are grouped by continent first."""
    locale = interaction.locale
    if not territories:
        raise UserError(_("There is no territory to choose.", locale))
    if len(territories) > MAX_OPTIONS:
        board = game.board
        continents = sorted({board.territories[t].continent for t in territories})
        options = [discord.SelectOption(label=continent_name(board, c, locale), value=c,
                                        description=str(sum(1 for t in territories
                                                            if board.territories[t].continent == c)))
                   for c in continents]
        select = GameSelect(game_id, verb.CONTINENT, purpose, *extra, options=options,
                            placeholder=_("Choose a continent", locale))
    else:
        options = [discord.SelectOption(label=option_label(game, t, purpose, extra, locale), value=t)
                   for t in territories]
        select = GameSelect(game_id, purpose, *extra, options=options, placeholder=prompt)
    if interaction.response.is_done():
        await interaction.followup.send(prompt, view=view_of(select), ephemeral=True)
    elif interaction.message is not None and interaction.message.flags.ephemeral:
        await interaction.response.edit_message(content=prompt, view=view_of(select), attachments=[])
    else:
        await interaction.response.send_message(prompt, view=view_of(select), ephemeral=True)


def option_label(game: Game, territory: str, purpose: str, extra: Sequence[str], locale: object = None) -> str:
    """A territory in a menu, with its armies (the menus only offer territories the player can see)."""
    s = game.state
    name = territory_name(game.board, territory, locale)
    seen = visible_to(s, s.current)
    label = f"{name} ({s.armies.get(territory, 0)})" if territory in s.owners and (seen is None or territory in seen) \
        else name
    if purpose == verb.ATTACK_TO and extra:
        chance = odds(s.armies[extra[0]], s.armies[territory], QUICK_LIMIT)[0]
        label += f" · {label_name(s, s.owners[territory], locale)}" \
                 f" · {percent(chance.win, locale)}"  # a label renders no markdown: the name as written
    return label[:100]


__all__ = ["MAX_OPTIONS", "choices", "option_label", "pick_territory"]
