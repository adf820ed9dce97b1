"""The end of a game: its results and the ratings they give, decided here and written in the change that ends it.

The store reads what they take (the game's turns and seats, the players' ratings, whom they met, the games the same
players played together lately, the ladders) in that change's transaction, under the server's ratings lock
(``GameChange.lock_ratings``), and writes the rows it is given; ``ratings`` rates (docs/history.md). So two games
of one server ending at once are rated one after the other, the second from what the first gave.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ratings import REPEAT_WINDOW, Rating, SeatResult, rebuild, repeats_before, table_of
from ratings.ladders import ALL_TIME, ladder_of, rate_on_ladder, rebuild_ladders, season_start
from ratings.model import Circles, notes, rate_and_meet
from store import GameRecord, ResultRecord, Store
from store.change import GameChange
from store.records import RatingRecord
from store.results import (
    LogFacts,
    RebuiltRatings,
    game_rows,
    names_of,
    rating_rows,
    recent_games,
    result_steps,
    results_of,
)
from store.seasons import ladder_rows, ladder_steps, last_seasons, season_at

log = logging.getLogger(__name__)


def seat_result(r: ResultRecord) -> SeatResult:
    """One row of a game's results as the ratings see it."""
    own = r.turns if r.user_id is None else r.turns - r.ai_turns
    return SeatResult(user_id=r.user_id, ai_level=r.ai_level, placement=r.placement, team=r.team,
                      human_share=r.human_share, own_turns=own, ended_at=r.ended_at, seat=r.seat,
                      substitute=r.since_turn > 0, removed_by=r.removed_by, went_out=r.went_out,
                      ai_version=r.ai_version)


def rebuilt(results: Sequence[ResultRecord], season_of: Mapping[int, int]) -> dict[int, RebuiltRatings]:
    """Every rating again, by server, from the stored results in the order their games ended, as ``finish`` gave
    them one by one: the ratings over every game with their history and whom the players met, and the ladders
    (each game in the season ``season_of`` recorded for it; none: all-time only). The store's rebuild and the
    migrations' backfills write what this decides."""
    by_guild: dict[int, dict[int, list[ResultRecord]]] = {}
    for r in results:
        by_guild.setdefault(r.guild_id, {}).setdefault(r.game_id, []).append(r)
    out = {}
    for guild_id, games in by_guild.items():
        seats = {game_id: [seat_result(r) for r in rows] for game_id, rows in games.items()}
        circles = Circles()
        final, history = rebuild(seats.items(), circles)
        ladders = rebuild_ladders((game_id, season_of.get(game_id, ALL_TIME), rows)
                                  for game_id, rows in seats.items()) if guild_id else {}
        out[guild_id] = RebuiltRatings(final, circles.met, history, ladders)
    return out


async def rebuild_ratings(store: Store) -> int:
    """Every rating, its history and the ladders again from the stored results, in one transaction
    (``bot.py ratings rebuild``): the number of games rated."""
    return await store.rebuild_ratings(rebuilt)


def rated(records: Mapping[int, RatingRecord]) -> dict[int, Rating]:
    return {user: Rating.of(r) for user, r in records.items()}


async def finish(change: GameChange, record: GameRecord, facts: LogFacts | None) -> None:
    """The results of the game ``record`` is (as it was before its ending action) and the ratings they give,
    written with the change that ends it (``facts``: what the results take from the whole log, if worked out
    before; else the log is read here)."""
    await change.flush()  # the last turns' rows, which the results read
    game_id, guild, now = record.id, record.guild_id or 0, change.now
    rows = await game_rows(change, game_id, with_events=facts is None)
    try:
        results = results_of(game_id, record.guild_id, record.channel_id, record.players, facts or rows.events,
                             rows.turns, rows.booted, now, rows.holders, rows.removed)
    except Exception:  # a game must be able to end, without its results (and loudly) if need be
        log.exception("game %s: its results could not be computed", game_id)
        return
    users = sorted({r.user_id for r in results if r.user_id is not None})
    stored = await rating_rows(change, guild, users)
    current = rated(stored.ratings)
    circles = Circles()
    circles.met.update({user: dict(met) for user, met in stored.met.items()})
    circles.players, circles.established = stored.players, stored.established
    seats = [seat_result(r) for r in results]
    repeats = await _repeats(change, guild, seats, now)
    changed = rate_and_meet(current, circles, seats, repeats)
    why = notes(current, seats, repeats, changed)
    results = [replace(r, rating_note=why.get(r.user_id)) if r.user_id is not None else r for r in results]
    names = names_of(results)
    change.write(*result_steps(guild, game_id, results, changed, circles.met, now))
    if changed and guild:
        await _ladders(change, guild, game_id, seats, changed, current, names, now)


async def _repeats(change: GameChange, guild_id: int, seats: Sequence[SeatResult], now: float) -> int:
    """The most rated games two of this game's players played together on the server in the repeat window before
    this one (``repeats_before``)."""
    table = table_of(seats)
    if len(table) < 2:
        return 0
    games = await recent_games(change, guild_id, sorted(table), now - REPEAT_WINDOW)
    return repeats_before(((past[0].ended_at, table_of([seat_result(r) for r in past]))
                           for past, was_rated in games if was_rated), seats)


async def _ladders(change: GameChange, guild_id: int, game_id: int, seats: Sequence[SeatResult],
                   changed: Mapping[int, Rating], record: Mapping[int, Rating], names: Mapping[int, str],
                   now: float) -> None:
    """The ladder ratings a game just rated gives (``changed``: the players its all-time rating moved, from their
    ``record`` before it): on its ladder all-time, and in the server's season whose time holds ``now``, the moment
    the game ended (whichever order a restart handles a due turn and a due season in), where a player's first game
    starts from the soft reset of their last season's rating on that ladder."""
    ladder = ladder_of(seats)
    users = sorted(changed)
    season = await season_at(change, guild_id, now)
    for period in [ALL_TIME] + ([season] if season is not None else []):
        before = rated(await ladder_rows(change, guild_id, ladder, period, users))
        if period != ALL_TIME:
            last = rated(await last_seasons(change, guild_id, ladder, period, users))
            for user in users:
                if user not in before:
                    before[user] = season_start(last.get(user))
        for user in users:   # a first game on the ladder starts from the default
            before.setdefault(user, Rating())
        new = rate_on_ladder(before, seats, users, record)
        change.write(*ladder_steps(guild_id, game_id, ladder, period, new, names, now))


__all__ = ["finish", "rated", "seat_result"]
