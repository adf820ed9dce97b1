"""The words of a turn: the line that calls the player to move (on the turn panel, and the board's status), a
freestyle or set-up round's line, a finished turn's title, and how many armies the player to move has to place."""

from __future__ import annotations

from engine import Game, GameState
from engine.fog import fog_hides_board
from engine.state import CAPITAL, CLAIM, REINFORCE, SETUP, WAITING
from present.i18n import _, ngettext
from present.text import phase_text, seat_name


def turn_prompt(game: Game, locale: object, who: str, *, private: bool = False) -> str:
    """The panel's line: the channel reads it, so under fog it names no figure that tells about the board
    (``private``: only the player reads it, who sees their own reinforcements)."""
    s = game.state
    if s.phase == CLAIM:
        return _("🎯 {who}, claim a territory ({left} left).", locale, who=who, left=len(game.claimable()))
    if s.phase == CAPITAL:
        return _("🎯 {who}, choose your capital.", locale, who=who)
    if s.sealed is not None:
        return round_prompt(game, locale, who)
    if s.phase == SETUP:
        if s.batch_left:
            return ngettext("🎯 {who}, place {n} of your starting armies.", "🎯 {who}, place {n} of your starting "
                            "armies.", s.batch_left, locale, who=who)
        return ngettext("🎯 {who}, place the neutral armies ({n} neutral left).",
                        "🎯 {who}, place the neutral armies ({n} neutral left).", s.neutral_left, locale, who=who)
    if s.phase == WAITING:
        return round_prompt(game, locale, who)
    if s.phase == REINFORCE:
        extra = ngettext(" You hold {n} card: trade a set first.", " You hold {n} cards: trade a set first.",
                         len(s.hands[s.current]), locale) if game.must_trade(s.current) else ""
        if fog_hides_board(s) and not private:
            return _("🎯 {who}, turn {turn}: place your reinforcements.", locale, who=who, turn=s.turn) + extra
        return ngettext("🎯 {who}, turn {turn}: place {n} army.", "🎯 {who}, turn {turn}: place {n} armies.",
                        s.reinforcements, locale, who=who, turn=s.turn) + extra
    return _("🎯 {who}, it is your turn ({phase}).", locale, who=who, phase=phase_text(s, locale))


def round_prompt(game: Game, locale: object, who: str) -> str:
    """A freestyle round between turns: who has played, who has not (``who``: their names or mentions). A set-up
    round: who has placed all their starting armies (never where nor how many), who has not."""
    s = game.state
    if s.sealed is not None:
        done = [seat_name(s, x, locale) for x in sorted(s.sealed) if x not in game.setup_waiting()]
        text = _("🤫 Set-up: {who}, place all your starting armies, in as many goes as you like: nobody sees them "
                 "until everyone has placed, then all are revealed together.", locale, who=who)
        return text + (" " + _("Placed: {players}.", locale, players=", ".join(done)) if done else "")
    played = [seat_name(s, x, locale) for x in s.active_seats() if x not in s.to_play]
    text = _("🔄 Round {round}: {who}, take your turn when you like (one at a time): tap Start, or make a move.",
             locale, round=s.round, who=who)
    if played:
        text += " " + _("Played: {players}.", locale, players=", ".join(played))
    if s.held is not None:
        text += " " + _("{player} ended the last round and may go once another player has started, or after a "
                        "while.", locale, player=seat_name(s, s.held, locale))
    return text


def summary_title(state: GameState, seat: int, turn: int, locale: object, *, going_on: bool = False) -> str:
    """The first line of a turn panel once its turn is over (or, ``going_on``, once a newer panel goes on with it)."""
    name = seat_name(state, seat, locale)
    if going_on:
        return _("⏬ {player}'s turn goes on in a newer message.", locale, player=name)
    if turn:
        return _("✅ {player} played turn {turn}:", locale, player=name, turn=turn)
    return _("✅ {player} played:", locale, player=name)


def deadline_name(seconds: int, locale: object | None = None) -> str:
    if seconds % 86400 == 0:
        return ngettext("{n} day", "{n} days", seconds // 86400, locale)
    if seconds % 3600 == 0:
        return ngettext("{n} hour", "{n} hours", seconds // 3600, locale)
    return ngettext("{n} minute", "{n} minutes", seconds // 60, locale)


__all__ = ["deadline_name", "round_prompt", "summary_title", "turn_prompt"]
