"""Ladders and seasons: which ladder a game counts on, and where a player starts a new season.

- A game counts on the all-time rating (``ratings.model``) and on one ladder (``ladder_of``): **1v1** when exactly
  two seats took part and neither belongs to a team (a 2-player game, the neutral armies being no seat), else
  **free-for-all**. Team games count on the free-for-all ladder: they rank more than one side of several players,
  as a free-for-all ranks seats, and a server rarely plays enough of them for a ladder of their own.
- Each ladder has an all-time rating and, while a server runs seasons, one per season. Whether a game is rated at
  all is decided once, by the all-time rating (``rate_game`` with the repeat limit): a game that moved nobody
  there moves no ladder either; how established an opponent is (``opponent_weight``) is read from the all-time
  record too.
- A new season starts each player from their last season's rating on that ladder, moved part-way back to the
  start (``soft_reset``): ``mu' = MU + (1 - RESET_SHARE) * (mu - MU)`` and
  ``sigma' = sigma + RESET_SHARE * (SIGMA - sigma)`` (the uncertainty widened towards a new player's), games and
  wins counted from zero. A player with no earlier season starts from the default.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from .model import (
    MU,
    SIGMA,
    Circles,
    Rating,
    SeatResult,
    counted,
    rate_and_meet,
    rate_game,
    recent,
    repeats_before,
    table_of,
)

ONE_V_ONE = "1v1"
FREE_FOR_ALL = "ffa"
LADDERS = (ONE_V_ONE, FREE_FOR_ALL)
ALL_TIME = 0           # the season number of a ladder's all-time rating
RESET_SHARE = 0.5      # how far a new season moves a rating back to the start


def ladder_of(seats: Sequence[SeatResult]) -> str:
    """The ladder a game counts on: 1v1 for two seats that took part and no teams, else free-for-all."""
    playing = counted(seats)
    if len(playing) == 2 and all(s.team is None for s in playing):
        return ONE_V_ONE
    return FREE_FOR_ALL


def soft_reset(rating: Rating) -> Rating:
    """Where a player starts a season from their rating at the end of the last one (module docstring)."""
    return Rating(mu=MU + (1 - RESET_SHARE) * (rating.mu - MU),
                  sigma=rating.sigma + RESET_SHARE * (SIGMA - rating.sigma))


def season_start(previous: Rating | None) -> Rating:
    """A player's rating at the start of a season: the soft reset of their last season's, else the default."""
    return Rating() if previous is None else soft_reset(previous)


def rate_on_ladder(before: Mapping[int, Rating], seats: Sequence[SeatResult], users: Iterable[int],
                   record: Mapping[int, Rating]) -> dict[int, Rating]:
    """The new ladder ratings of ``users`` (the players the all-time rating moved) from their ladder ratings
    ``before`` (a season's already soft-reset), by the same ``rate_game``. The repeat limit was applied once, on
    the all-time rating; how established an opponent is (the damping of new accounts) is read from their record
    over every game before this one (``record``), so a new season, where everyone's count starts at zero, does not
    damp everyone."""
    mixed = {u: replace(record.get(u, Rating()), mu=r.mu, sigma=r.sigma) for u, r in before.items()}
    changed = rate_game(mixed, seats)
    out = {}
    for user in users:
        if user in changed:
            old, new = before.get(user, Rating()), changed[user]
            out[user] = Rating(new.mu, new.sigma, old.games + 1, old.wins + new.wins)
    return out


Key = tuple[str, int, int]   # (ladder, season or ALL_TIME, user id)


def rebuild_ladders(games: Iterable[tuple[int, int, Sequence[SeatResult]]]) -> dict[Key, Rating]:
    """Every ladder rating from games in the order they ended (``(game id, season or ALL_TIME, seats)``), as
    ``finish`` gave them one by one: by (ladder, season, user)."""
    overall: dict[int, Rating] = {}
    circles = Circles()
    rated: list[tuple[float, frozenset[int]]] = []
    out: dict[Key, Rating] = {}
    latest_season: dict[tuple[str, int], int] = {}   # (ladder, user) -> their latest season with a rating
    for _game_id, season, seats in games:
        rated = recent(rated, seats)
        changed = rate_and_meet(overall, circles, seats, repeats_before(rated, seats))
        if not changed:
            continue
        rated.append((max((s.ended_at for s in seats), default=0.0), table_of(seats)))
        record = dict(overall)
        overall.update(changed)
        ladder = ladder_of(seats)
        periods = [ALL_TIME] + ([season] if season != ALL_TIME else [])
        for period in periods:
            before: dict[int, Rating] = {}
            for user in changed:
                known = out.get((ladder, period, user))
                if known is None and period != ALL_TIME:
                    last = latest_season.get((ladder, user))
                    known = season_start(out[(ladder, last, user)] if last is not None else None)
                before[user] = known if known is not None else Rating()
            for user, rating in rate_on_ladder(before, seats, changed, record).items():
                out[(ladder, period, user)] = rating
                if period != ALL_TIME:
                    latest_season[(ladder, user)] = period
    return out


__all__ = ["ALL_TIME", "FREE_FOR_ALL", "LADDERS", "ONE_V_ONE", "RESET_SHARE", "Key", "ladder_of", "rate_on_ladder",
           "rebuild_ladders", "season_start", "soft_reset"]
