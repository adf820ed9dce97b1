"""The turn panel: the line that calls the player to move, and the buttons for the phase the game is in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from engine import Game
from engine.fog import fog_hides_board
from engine.state import ATTACK, CAPITAL, CLAIM, FORTIFY, OCCUPY, OVER, REINFORCE, SETUP, Event

from . import components as verb
from .components import GameButton, view_of
from .i18n import _
from .text import phase_text

Blue, Grey, Green, Red = (discord.ButtonStyle.primary, discord.ButtonStyle.secondary, discord.ButtonStyle.success,
                          discord.ButtonStyle.danger)


def turn_prompt(game: Game, locale: object, who: str) -> str:
    """The panel's line: the channel reads it, so under fog it names no figure that tells about the board."""
    s = game.state
    if s.phase == CLAIM:
        return _("🎯 {who}, claim a territory ({left} left).", locale, who=who, left=len(game.claimable()))
    if s.phase == CAPITAL:
        return _("🎯 {who}, choose your capital.", locale, who=who)
    if s.phase == SETUP:
        if s.batch_left:
            return _("🎯 {who}, place {n} of your starting armies.", locale, who=who, n=s.batch_left)
        return _("🎯 {who}, place {n} neutral army.", locale, who=who, n=s.neutral_left)
    if s.phase == REINFORCE:
        extra = _(" You hold {n} cards: trade a set first.", locale, n=len(s.hands[s.current])) \
            if game.must_trade(s.current) else ""
        if fog_hides_board(s):
            return _("🎯 {who}, turn {turn}: place your reinforcements.", locale, who=who, turn=s.turn) + extra
        return _("🎯 {who}, turn {turn}: place {n} armies.", locale, who=who, turn=s.turn, n=s.reinforcements) + extra
    return _("🎯 {who}, it is your turn ({phase}).", locale, who=who, phase=phase_text(s, locale))


def controls(game_id: int, game: Game, locale: object, events: Sequence[Event] = ()) -> discord.ui.View | None:
    """The buttons for the player whose move it is; ``events`` (the last action's) offer "attack again"."""
    s = game.state
    seat = s.current
    items: list[discord.ui.Item[Any]] = []
    if s.phase == OVER:
        return None
    if s.phase == CLAIM:
        items.append(GameButton(game_id, verb.CLAIM, label=_("Claim", locale), style=Blue, emoji="🚩"))
    elif s.phase == CAPITAL:
        items.append(GameButton(game_id, verb.CAPITAL, label=_("Capital", locale), style=Blue, emoji="🏰"))
    elif s.phase == SETUP:
        if s.batch_left:
            items.append(GameButton(game_id, verb.PLACE, label=_("Place", locale), style=Blue, emoji="➕"))
        if s.neutral_left:
            items.append(GameButton(game_id, verb.NEUTRAL, label=_("Neutral", locale), style=Grey, emoji="⬜"))
    elif s.phase == REINFORCE:
        items.append(GameButton(game_id, verb.PLACE, label=_("Place", locale), style=Blue, emoji="➕"))
        if s.settings.cards != "none":
            items.append(GameButton(game_id, verb.CARDS, label=_("Cards", locale), style=Grey, emoji="🃏"))
    elif s.phase == OCCUPY:
        assert s.pending is not None
        lo, hi = s.pending["min"], s.pending["max"]
        for n in sorted({lo, (lo + hi + 1) // 2, hi}):
            label = _("Move {n}", locale, n=n) if n != hi else _("Move all ({n})", locale, n=n)
            items.append(GameButton(game_id, verb.MOVE, n, label=label, style=Blue if n == hi else Grey))
    elif s.phase == ATTACK:
        last = next(((e["from"], e["to"]) for e in reversed(events) if e["type"] == "battle" and "from" in e), None)
        if last and last[0] in game.attack_sources(seat) and last[1] in game.attack_targets(seat, last[0]):
            src, dst = last
            items.append(GameButton(game_id, verb.ROLL, src, dst, 0, label=_("Attack again", locale), style=Red,
                                    emoji="⚔️"))
            items.append(GameButton(game_id, verb.BLITZ, src, dst, label=_("Blitz", locale), style=Red, emoji="⚡"))
            items.append(GameButton(game_id, verb.STOP, label=_("Stop", locale), style=Grey, emoji="✋"))
        items.append(GameButton(game_id, verb.ATTACK, label=_("Attack", locale), style=Red if not items else Grey,
                                emoji="🎯"))
        items.append(GameButton(game_id, verb.FORTIFY, label=_("Fortify", locale), style=Grey, emoji="🛡️"))
        items.append(GameButton(game_id, verb.END, label=_("End turn", locale), style=Grey, emoji="⏭️"))
    elif s.phase == FORTIFY:
        items.append(GameButton(game_id, verb.FORTIFY, label=_("Fortify", locale), style=Blue, emoji="🛡️"))
        items.append(GameButton(game_id, verb.END_CONFIRMED, label=_("End turn", locale), style=Grey, emoji="⏭️"))
    items.append(GameButton(game_id, verb.MAP, label=_("Map", locale), style=Grey, emoji="🗺️"))
    return view_of(*items[:25])


__all__ = ["Blue", "Green", "Grey", "Red", "controls", "turn_prompt"]
