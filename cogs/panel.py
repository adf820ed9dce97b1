"""The turn panel: the line that calls the player to move, and the buttons for the phase the game is in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

from engine import Game, GameState
from engine.fog import fog_hides_board
from engine.state import ATTACK, CAPITAL, CLAIM, FORTIFY, OCCUPY, OVER, REINFORCE, SETUP, Event

from . import components as verb
from .components import GameButton, GameSelect, view_of
from .i18n import _, ngettext
from .text import phase_text

Blue, Grey, Green, Red = (discord.ButtonStyle.primary, discord.ButtonStyle.secondary, discord.ButtonStyle.success,
                          discord.ButtonStyle.danger)


def armies_to_place(state: GameState) -> int:
    """The armies the player to move still has to place (none outside placing)."""
    return state.reinforcements if state.phase == REINFORCE else state.batch_left if state.phase == SETUP else 0


def turn_prompt(game: Game, locale: object, who: str) -> str:
    """The panel's line: the channel reads it, so under fog it names no figure that tells about the board."""
    s = game.state
    if s.phase == CLAIM:
        return _("🎯 {who}, claim a territory ({left} left).", locale, who=who, left=len(game.claimable()))
    if s.phase == CAPITAL:
        return _("🎯 {who}, choose your capital.", locale, who=who)
    if s.phase == SETUP:
        if s.batch_left:
            return ngettext("🎯 {who}, place {n} of your starting armies.", "🎯 {who}, place {n} of your starting "
                            "armies.", s.batch_left, locale, who=who)
        return ngettext("🎯 {who}, place {n} neutral army.", "🎯 {who}, place {n} neutral armies.", s.neutral_left,
                        locale, who=who)
    if s.phase == REINFORCE:
        extra = ngettext(" You hold {n} card: trade a set first.", " You hold {n} cards: trade a set first.",
                         len(s.hands[s.current]), locale) if game.must_trade(s.current) else ""
        if fog_hides_board(s):
            return _("🎯 {who}, turn {turn}: place your reinforcements.", locale, who=who, turn=s.turn) + extra
        return ngettext("🎯 {who}, turn {turn}: place {n} army.", "🎯 {who}, turn {turn}: place {n} armies.",
                        s.reinforcements, locale, who=who, turn=s.turn) + extra
    return _("🎯 {who}, it is your turn ({phase}).", locale, who=who, phase=phase_text(s, locale))


def controls(game_id: int, game: Game, locale: object, events: Sequence[Event] = (), *,
             public: bool = False) -> discord.ui.View | None:
    """The buttons for the player whose move it is; ``events`` (the last action's) offer "attack again".

    ``public``: the buttons sit on a message everybody reads; under fog, those that would show figures (how
    many armies can move in) are behind one button that answers the player privately."""
    s = game.state
    seat = s.current
    items: list[discord.ui.Item[Any]] = []
    if s.phase == OVER:
        return None
    if public and fog_hides_board(s) and s.phase == OCCUPY:
        items.append(GameButton(game_id, verb.CONTROLS, label=_("Continue", locale), style=Blue, emoji="▶️"))
    elif s.phase == CLAIM:
        items.append(GameButton(game_id, verb.CLAIM, label=_("Claim", locale), style=Blue, emoji="🚩"))
    elif s.phase == CAPITAL:
        items.append(GameButton(game_id, verb.CAPITAL, label=_("Capital", locale), style=Blue, emoji="🏰"))
    elif s.phase == SETUP:
        if s.batch_left:
            items.append(GameButton(game_id, verb.PLACE, label=_("Place", locale), style=Blue, emoji="➕"))
        if s.neutral_left:
            items.append(GameButton(game_id, verb.NEUTRAL, label=_("Neutral", locale), style=Grey, emoji="⬜"))
    elif s.phase == REINFORCE:
        if game.must_trade(seat):  # nothing to place before a set is traded: the cards only
            items.append(GameButton(game_id, verb.CARDS, label=_("Trade cards", locale), style=Blue, emoji="🃏"))
        else:
            items.append(GameButton(game_id, verb.PLACE, label=_("Place", locale), style=Blue, emoji="➕"))
            if s.settings.cards != "none":
                items.append(GameButton(game_id, verb.CARDS, label=_("Cards", locale), style=Grey, emoji="🃏"))
    elif s.phase == OCCUPY:
        assert s.pending is not None
        lo, hi = s.pending["min"], s.pending["max"]
        for n in sorted({lo, (lo + hi + 1) // 2, hi}):
            label = _("Move {n}", locale, n=n) if n != hi else _("Move all ({n})", locale, n=n)
            items.append(GameButton(game_id, verb.MOVE, n, label=label, style=Blue if n == hi else Grey))
        if hi - lo > 2:  # any other number, from a menu on its own row
            items.append(count_select(game_id, verb.MOVE_COUNT, range(lo, hi + 1), _("Another number…", locale),
                                      row=1))
    elif s.phase == ATTACK:
        last = next(((e["from"], e["to"]) for e in reversed(events) if e["type"] == "battle" and "from" in e), None)
        if last and last[0] in game.attack_sources(seat) and last[1] in game.attack_targets(seat, last[0]):
            src, dst = last
            items.append(GameButton(game_id, verb.ROLL, src, dst, 0, label=_("Attack again", locale), style=Red,
                                    emoji="⚔️"))
            items.append(GameButton(game_id, verb.BLITZ, src, dst, label=_("Blitz", locale), style=Red, emoji="⚡"))
            items.append(GameButton(game_id, verb.STOP, label=_("Stop", locale), style=Grey, emoji="✋"))
        if game.attack_sources(seat):  # only what can be done: no button that would only be refused
            items.append(GameButton(game_id, verb.ATTACK, label=_("Attack", locale),
                                    style=Red if not items else Grey, emoji="🎯"))
        if game.fortify_sources(seat):
            items.append(GameButton(game_id, verb.FORTIFY, label=_("Fortify", locale), style=Grey, emoji="🛡️"))
        items.append(GameButton(game_id, verb.END, label=_("End turn", locale), style=Grey, emoji="⏭️"))
    elif s.phase == FORTIFY:
        if game.fortify_sources(seat):
            items.append(GameButton(game_id, verb.FORTIFY, label=_("Fortify", locale), style=Blue, emoji="🛡️"))
        items.append(GameButton(game_id, verb.END_CONFIRMED, label=_("End turn", locale), style=Grey, emoji="⏭️"))
    if public and fog_hides_board(s) and s.phase != OCCUPY:  # the answers to a move are private under fog: the
        # buttons of the move as it is now, whenever the player lost them
        items.append(GameButton(game_id, verb.CONTROLS, label=_("Continue", locale), style=Grey, emoji="▶️"))
    if s.phase in (REINFORCE, ATTACK) and game.can_undo(seat):
        items.append(GameButton(game_id, verb.UNDO, label=_("Undo placements", locale), style=Grey, emoji="↩️"))
    items.append(GameButton(game_id, verb.MAP, label=_("Map", locale), style=Grey, emoji="🗺️"))
    if s.missions:
        items.append(GameButton(game_id, verb.MISSION, label=_("Mission", locale), style=Grey, emoji="🎯"))
    buttons = [i for i in items if isinstance(i, GameButton)]
    for index, button in enumerate(buttons):  # five buttons a row; a count menu keeps its own row below
        button.item.row = 0 if index < 5 else 2
    return view_of(*items)


def count_options(numbers: range, most: int = 25) -> list[discord.SelectOption]:
    """Every number of the range as a choice; more than ``most`` are offered as ranges ("26–50"), each of which
    opens a menu of its own numbers (so any number is reached in two or three taps)."""
    low, high = numbers.start, numbers.stop - 1
    if high - low + 1 <= most:
        return [discord.SelectOption(label=str(n), value=str(n)) for n in numbers]
    size = -(-(high - low + 1) // most)  # ceiling: at most ``most`` ranges
    starts = range(low, high + 1, size)
    return [discord.SelectOption(label=f"{a}–{min(a + size - 1, high)}", value=f"{a}-{min(a + size - 1, high)}")
            for a in starts]


def count_select(game_id: int, purpose: str, numbers: range, placeholder: str, *extra: str,
                 row: int | None = None) -> GameSelect:
    """A menu of army counts (Discord allows 25 options: a long range comes in ranges first)."""
    return GameSelect(game_id, purpose, *extra, options=count_options(numbers), placeholder=placeholder, row=row)


__all__ = ["Blue", "Green", "Grey", "Red", "armies_to_place", "controls", "turn_prompt"]
