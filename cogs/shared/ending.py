"""The end of a game in words: who won, how, every mission, and the dice to check (the channel's last message)."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from cogs.shared.guards import game_locale
from cogs.shared.postbox import PostOptions
from cogs.shared.rooms import ReportFiles
from engine import Game, GameState
from engine.fog import EVERYBODY
from engine.state import NEUTRAL
from present.drawing import prepare
from present.i18n import _, ngettext
from present.names import safe_name
from present.text import mission_line, seat_name, winner_names
from ratings import REPEAT_LIMIT
from ratings.model import (
    AI_PLAYED,
    EARLY_TURNS,
    LEFT_EARLY,
    NEW_OPPONENTS,
    NO_TURN,
    PAIR_LIMIT,
    REMOVED,
    REMOVER,
    TOO_FEW,
)
from store import GameRecord, ResultRecord, StoreReader


def winner_title(state: GameState, locale: object, stand_ins: frozenset[int] = frozenset()) -> str:
    """The end's headline. ``stand_ins``: the seats the AI played for an absent player (a tournament counts each as
    a forfeit): a win of theirs is told as the AI's, standing in."""
    names = winner_names(state, locale) or [seat_name(state, NEUTRAL, locale)]
    winners = set(state.winners or ([state.winner] if state.winner is not None else []))
    if winners and winners <= stand_ins and state.result != "draw":
        return _("🤖 The AI standing in for {players} wins the game", locale,
                 players=_(" and ", locale).join(names))
    if state.result == "draw":
        return _("🤝 A draw: {players} share first place", locale, players=_(" and ", locale).join(names))
    if len(names) > 1:
        return _("🏆 {players} win!", locale, players=_(" and ", locale).join(names))
    return _("🏆 {player} wins!", locale, player=names[0])


def how_won(state: GameState, locale: object, tournament: str | None = None) -> list[str]:
    """The reason the game ended, in the reader's words (with the standings of a round limit). ``tournament``:
    the name of the tournament the game is a table of (it may end the game before its finish)."""
    reason = state.result
    winner = seat_name(state, state.winner if state.winner is not None else NEUTRAL, locale)
    if reason == "mission" and state.winner is not None and state.winner in state.missions:
        game = Game(state)
        return [_("{player} completed their secret mission: {mission}", locale, player=winner,
                  mission=mission_line(game.mission(state.winner), game.board, state, locale))]
    if reason == "capitals":
        return [_("{player} holds every capital.", locale, player=winner)]
    if reason == "teams":
        return [_("Every player of the other teams is out.", locale)]
    if reason == "surrender":
        return [_("{player} is the last player in the game: the last opponent left it.", locale, player=winner)]
    if reason == "draw":
        return [_("The players still in the game voted for a draw: they share first place.", locale)]
    if reason in ("round_limit", "vote"):
        ranked = sorted(state.active_seats(), key=lambda seat: (-len(state.territories_of(seat)),
                                                                -state.army_total(seat), seat))
        limit = state.settings.max_rounds
        lines = [ngettext("The game reached its limit of {n} round: the most territories win, then the most armies.",
                          "The game reached its limit of {n} rounds: the most territories win, then the most armies.",
                          limit, locale) if reason == "round_limit" and limit and state.round >= limit else
                 _("The players still in the game voted to end it by the standings: the most territories win, then "
                   "the most armies.", locale) if reason == "vote" else
                 _("The game ended by the standings before its finish, as a game of the tournament {name} does when "
                   "its host calls it off, its round's time is up or no human is left in it: the most territories "
                   "win, then the most armies.", locale, name=safe_name(tournament))
                 if tournament is not None else  # else: no human was left
                 _("No human was left in the game and the AIs played on alone as long as they may: the most "
                   "territories win, then the most armies.", locale)]
        for place, seat in enumerate(ranked, 1):
            lines.append(f"{place}. {seat_name(state, seat, locale)}: " + ", ".join([
                ngettext("{n} territory", "{n} territories", len(state.territories_of(seat)), locale),
                ngettext("{n} army", "{n} armies", state.army_total(seat), locale)]))
        return lines
    if len(set(state.owners.values())) == 1:
        return [_("{player} holds every territory: world domination.", locale, player=winner)]
    return [_("{player} is the last player standing.", locale, player=winner)]


def rating_note(note: str, player: str, locale: object) -> str:
    """Why a finished game was not rated for a player, or counted less (``ratings.model.notes``), in words."""
    if note == REMOVED:
        return _("{player} was removed from the game by another player: it is not rated for them.", locale,
                 player=player)
    if note == REMOVER:
        return _("{player} removed a player from the game: it is not rated for them.", locale, player=player)
    if note == NO_TURN:
        return _("{player} took no turn of their own: the game is not rated for them.", locale, player=player)
    if note == PAIR_LIMIT:
        return ngettext("{player}: not rated, two of its players already played {n} rated game together in the "
                        "last seven days.",
                        "{player}: not rated, two of its players already played {n} rated games together in the "
                        "last seven days.", REPEAT_LIMIT, locale, player=player)
    if note == LEFT_EARLY:
        return ngettext("{player} went out within their first {n} turn: rated as placed, and nobody gains on them.",
                        "{player} went out within their first {n} turns: rated as placed, and nobody gains on them.",
                        EARLY_TURNS, locale, player=player)
    if note == TOO_FEW:
        return _("{player}: not rated, fewer than two sides played it out (a game of two ended by a kick or a "
                 "surrender at once).", locale, player=player)
    if note == NEW_OPPONENTS:
        return _("{player}: counted less, their opponents are new here or have played few established players.",
                 locale, player=player)
    if note == AI_PLAYED:
        return _("{player}: counted less, the AI played most of their turns.", locale, player=player)
    return player


def rating_lines(results: Sequence[ResultRecord], locale: object) -> list[str]:
    """For each player of a finished game whose result was not rated or counted less, why."""
    seen: set[int] = set()
    lines = []
    for result in results:
        if result.user_id is None or result.rating_note is None or result.user_id in seen:
            continue
        seen.add(result.user_id)
        lines.append(rating_note(result.rating_note, safe_name(result.name), locale))
    return lines


async def game_over_post(store: StoreReader, record: GameRecord, state: GameState,
                         report_files: ReportFiles) -> PostOptions:
    """How the game was won, the standings where they decided it, every mission, and the dice to check (and the
    report's files)."""
    locale = game_locale(record)
    s = state
    results = await store.results(record.id)
    table = await store.tournament_of_game(record.id)
    tournament = (await store.get_tournament(table[0])).name if table is not None else None
    # A tournament counts the seats the AI took from their absent players as forfeits: told so, here too.
    stand_ins = frozenset(r.seat for r in results if r.ai_took_over) if tournament is not None else frozenset()
    embed = discord.Embed(title=winner_title(s, locale, stand_ins), colour=discord.Colour.gold())
    forfeits = [] if not stand_ins else [_(
        "In the tournament {name} this table counts as a forfeit for {players}: the AI played their seats after they "
        "missed their turns, and they are placed last.", locale, name=safe_name(tournament or ""),
        players=_(" and ", locale).join(seat_name(s, seat, locale) for seat in sorted(stand_ins)))]
    embed.description = "\n".join([*how_won(s, locale, tournament), *forfeits, "", ngettext(
        "The game lasted {n} turn.", "The game lasted {n} turns.", s.turn, locale) + " " + _(
        "Check every die: </risk verify>, then `python -m engine.verify game.jsonl` on the file from </risk export>.",
        locale)])
    if s.missions:  # every mission, each in a field of its own (a field holds 1,024 characters)
        game = Game(s)
        for seat in sorted(s.missions):
            embed.add_field(name=_("Mission of {player}", locale, player=seat_name(s, seat, locale))[:256],
                            value=mission_line(game.mission(seat), game.board, s, locale)[:1024], inline=False)
    ratings = rating_lines(results, locale)
    if ratings:
        embed.add_field(name=_("Ratings", locale), value="\n".join(ratings)[:1024], inline=False)
    embed.add_field(name=_("Dice seed", locale), value=f"`{s.seed}`", inline=False)
    embed.add_field(name=_("Commitment (SHA-256 of the seed)", locale), value=f"`{s.seed_commitment}`",
                    inline=False)
    report = await report_files(store, record, s, locale)  # the report image and the timelapse
    return {"embed": embed, "map": prepare(s, EVERYBODY, locale=locale), "keep_map": True, "files": report}


__all__ = ["game_over_post", "how_won", "rating_lines", "rating_note", "winner_title"]
