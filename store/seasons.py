"""Seasons of a server and its two ladders (1v1 and free-for-all), every query of them (docs/history.md).

- ``seasons``: one row per season of a server; a server runs at most one at a time (``ended_at`` NULL). A season
  ends once: ``close_season`` writes the end ``table/seasons.py`` decided (a manager's command, or its end time
  passed: the scheduler) by one ``UPDATE ... WHERE ended_at IS NULL``, so with several processes on one database
  exactly one of them ends it and tells the channel.
- ``ladder_ratings``: each player's rating per ladder, all-time (season ``ALL_TIME``) and per season; written in
  the transaction that stores a game's results (``ladder_steps``, called by ``results.finish_steps`` with the
  players the all-time rating moved), and written again by a rebuild (``rebuild_steps``: the ladders
  ``table/results.py`` decided from the results).
- ``season_games``: the season each rated game counted in, so a rebuild puts every game where it was counted. A
  game counts in the season whose time, ``[started_at, ends_at)`` (or up to an early end), holds the moment it
  ended, whatever order a restart handles due turns and due seasons in.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .backend import Backend, Reading, Writing, reads, writes
from .errors import StoreError
from .records import RatingRecord, RatingValues
from .transaction import Step

# The ladders' rows as stored: the season column of a ladder's all-time rating, and the ladders a row may name.
# They are ``ratings.ladders``' ``ALL_TIME`` and ``LADDERS`` (tests/test_seasons.py holds them equal): the store
# keeps its own so that it takes nothing from the ratings.
ALL_TIME = 0
LADDERS = ("1v1", "ffa")

MAX_SEASON_DAYS = 365


@dataclass(frozen=True)
class Season:
    """One season of a server."""

    id: int
    guild_id: int
    channel_id: int    # where it was started: its end is told there
    number: int        # 1, 2, ... per server
    started_at: float
    ends_at: float
    ended_at: float | None = None
    started_by: int = 0
    ended_by: int | None = None   # None: it ended by itself (or runs)

    @property
    def running(self) -> bool:
        """Not closed yet (the scheduler closes a season at its end time, or at once after downtime)."""
        return self.ended_at is None

    def running_at(self, now: float) -> bool:
        """Running at ``now`` by its own time: a season past its end time has ended, closed or not."""
        return self.ended_at is None and now < self.ends_at

    @property
    def end(self) -> float:
        """When it ended (or ends): a manager's early end, else its end time."""
        return self.ends_at if self.ended_at is None else min(self.ended_at, self.ends_at)


_SEASON_COLUMNS = "id, guild_id, channel_id, number, started_at, ends_at, ended_at, started_by, ended_by"


def _season(row: Sequence[Any]) -> Season:
    return Season(int(row[0]), int(row[1]), int(row[2]), int(row[3]), float(row[4]), float(row[5]),
                  None if row[6] is None else float(row[6]), int(row[7]), None if row[8] is None else int(row[8]))


_LADDER_UPSERT = (
    "INSERT INTO ladder_ratings (guild_id, ladder, season, user_id, name, mu, sigma, score, games, wins, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, ladder, season, user_id) DO UPDATE SET "
    "name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, score = excluded.score, "
    "games = excluded.games, wins = excluded.wins, updated_at = excluded.updated_at")


def _rating(row: Sequence[Any]) -> RatingRecord:
    return RatingRecord(float(row[0]), float(row[1]), int(row[2]), int(row[3]))


# The season a moment belongs to: the one whose time holds it, ``[started_at, ends_at)``, cut short where a manager
# ended it early. Not "the season running when the bot noticed": a season whose end passed while the bot was down
# is still open in the table until the scheduler closes it, yet a game that ends after its end is not in it.
_SEASON_AT = ("SELECT id FROM seasons WHERE guild_id = ? AND started_at <= ? AND ends_at > ? "
              "AND (ended_at IS NULL OR ended_at > ?) ORDER BY started_at DESC")


async def season_at(db: Reading, guild_id: int, now: float) -> int | None:
    """The server's season whose time holds ``now`` (None: none)."""
    rows = await db.fetch(_SEASON_AT, (guild_id, now, now, now))
    return int(rows[0][0]) if rows else None


async def ladder_rows(db: Reading, guild_id: int, ladder: str, season: int, users: Sequence[int]
                      ) -> dict[int, RatingRecord]:
    """The ratings of ``users`` on a ladder of the server, all-time (``ALL_TIME``) or in a season."""
    marks = ", ".join("?" * len(users))
    rows = await db.fetch(f"SELECT user_id, mu, sigma, games, wins FROM ladder_ratings WHERE guild_id = ? "
                          f"AND ladder = ? AND season = ? AND user_id IN ({marks})",
                          (guild_id, ladder, season, *users))
    return {int(r[0]): _rating(r[1:]) for r in rows}


async def last_seasons(db: Reading, guild_id: int, ladder: str, season: int, users: Sequence[int]
                       ) -> dict[int, RatingRecord]:
    """Each of ``users``' rating on a ladder in the last season before ``season`` they played in."""
    marks = ", ".join("?" * len(users))
    earlier = await db.fetch(
        f"SELECT user_id, mu, sigma, games, wins FROM ladder_ratings WHERE guild_id = ? AND ladder = ? "
        f"AND season <> ? AND season < ? AND user_id IN ({marks}) ORDER BY season",
        (guild_id, ladder, ALL_TIME, season, *users))
    return {int(r[0]): _rating(r[1:]) for r in earlier}  # the latest season's wins (ORDER BY season)


def ladder_steps(guild_id: int, game_id: int, ladder: str, season: int, new: Mapping[int, RatingValues],
                 names: Mapping[int, str], now: float) -> list[Step]:
    """The ladder ratings a game gave, all-time (``ALL_TIME``) or in a season (the game counted in it)."""
    steps = [] if season == ALL_TIME else [
        Step("INSERT INTO season_games (game_id, season) VALUES (?, ?)", (game_id, season))]
    steps.append(Step(_LADDER_UPSERT, [(guild_id, ladder, season, u, names[u], r.mu, r.sigma, r.score, r.games,
                                        r.wins, now) for u, r in sorted(new.items())], many=True))
    return steps


def players_last_seen(games: Iterable[Sequence[Any]]) -> tuple[dict[int, str], dict[int, float]]:
    """Each player's name and the end of their last game, over the games' results (``ResultRecord``, oldest
    first)."""
    names: dict[int, str] = {}
    last: dict[int, float] = {}
    for rows in games:
        for r in rows:
            if r.user_id is not None:
                names[r.user_id], last[r.user_id] = r.name, r.ended_at
    return names, last


def rebuild_steps(results: Sequence[Any], rebuilt: Mapping[int, Any]) -> list[Step]:
    """The rows of every ladder rating again: each server's ``RebuiltRatings.ladders`` (``rebuilt``, decided
    from ``results``, the stored ``ResultRecord`` in the order their games ended)."""
    by_guild: dict[int, dict[int, list[Any]]] = {}
    for r in results:
        by_guild.setdefault(r.guild_id, {}).setdefault(r.game_id, []).append(r)
    steps = [Step("DELETE FROM ladder_ratings")]
    for guild_id, games in by_guild.items():
        decided = rebuilt.get(guild_id)
        if not guild_id or decided is None:
            continue
        final = decided.ladders
        names, last = players_last_seen(games.values())
        if final:
            steps.append(Step(_LADDER_UPSERT, [(guild_id, ladder, season, u, names[u], x.mu, x.sigma, x.score,
                                                x.games, x.wins, last[u])
                                               for (ladder, season, u), x in sorted(final.items())], many=True))
    return steps


@dataclass(frozen=True)
class LeaderboardRow:
    """A place on a leaderboard: the record over every game, or a ladder's (all-time or a season's)."""

    rank: int
    user_id: int
    name: str
    score: int
    games: int
    wins: int


# A ladder lists the players established on the server (their record over every game: docs/history.md).
_ESTABLISHED = "user_id IN (SELECT user_id FROM ratings WHERE guild_id = ? AND established = 1)"


def _check_ladder(ladder: str) -> None:
    if ladder not in LADDERS:
        raise StoreError("Unknown ladder “{ladder}”; choose {ladders}.", ladder=ladder[:20], ladders=", ".join(LADDERS))


class SeasonQueries(Backend):
    """Seasons and ladders: the reads, and the writes of a season (the backend supplies the connection)."""

    @abc.abstractmethod
    def _unique_violation(self, exc: BaseException) -> bool:
        """The error is a unique index refusing a row (the backend knows its errors)."""

    @reads
    async def current_season(self, db: Reading, guild_id: int) -> Season | None:
        """The server's running season, or its last one if none runs (None: it never ran one)."""
        rows = await db.fetch(f"SELECT {_SEASON_COLUMNS} FROM seasons WHERE guild_id = ? "
                              "ORDER BY number DESC LIMIT 1", (guild_id,))
        return _season(rows[0]) if rows else None

    async def start_season(self, guild_id: int, channel_id: int, days: int, by: int, now: float) -> Season:
        """Start a season of ``days`` days; a ``StoreError`` if one runs already."""
        if not 1 <= days <= MAX_SEASON_DAYS:
            raise StoreError("A season lasts 1 to {most} days.", most=MAX_SEASON_DAYS)
        try:
            return await self._start_season(guild_id, channel_id, days, by, now)
        except Exception as exc:
            if self._unique_violation(exc):  # another process started one at the same moment
                raise StoreError("A season is already running here.") from exc
            raise

    @writes
    async def _start_season(self, db: Writing, guild_id: int, channel_id: int, days: int, by: int,
                            now: float) -> Season:
        running = await db.fetch("SELECT number, ends_at FROM seasons WHERE guild_id = ? "
                                 "AND ended_at IS NULL", (guild_id,))
        if running:
            raise StoreError("Season {number} is running until <t:{ends}:f>; end it first.",
                             number=int(running[0][0]), ends=int(running[0][1]))
        number = await db.fetch("SELECT COALESCE(MAX(number), 0) + 1 FROM seasons WHERE guild_id = ?",
                                (guild_id,))
        rows = await db.run(Step(
            "INSERT INTO seasons (guild_id, channel_id, number, started_at, ends_at, started_by) "
            f"VALUES (?, ?, ?, ?, ?, ?) RETURNING {_SEASON_COLUMNS}",
            (guild_id, channel_id, int(number[0][0]), now, now + days * 86400.0, by)))
        await db.commit()
        return _season(rows[0])

    @writes
    async def close_season(self, db: Writing, season_id: int, ended_at: float, by: int | None) -> Season | None:
        """Close a running season as ended at ``ended_at`` by ``by`` (None: by itself), as ``table/seasons.py``
        decided; None if it is closed already. One conditional update: of several processes one closes it."""
        rows = await db.run(Step(
            f"UPDATE seasons SET ended_at = ?, ended_by = ? WHERE id = ? AND ended_at IS NULL "
            f"RETURNING {_SEASON_COLUMNS}", (ended_at, by, season_id)))
        await db.commit()
        return _season(rows[0]) if rows else None

    @reads
    async def running_seasons(self, db: Reading) -> list[Season]:
        """Every running season (the scheduler sleeps until the first ends)."""
        rows = await db.fetch(f"SELECT {_SEASON_COLUMNS} FROM seasons WHERE ended_at IS NULL "
                              "ORDER BY ends_at")
        return [_season(r) for r in rows]

    @reads
    async def ladder(self, db: Reading, guild_id: int, ladder: str, season: int | None = None, offset: int = 0,
                     limit: int = 10, minimum: int = 0) -> tuple[list[LeaderboardRow], int]:
        """A page of a ladder (all-time, or of the season ``season``), best first, of players with at least
        ``minimum`` games on it, and how many there are."""
        _check_ladder(ladder)
        period = ALL_TIME if season is None else season
        rows = await db.fetch(
            "SELECT user_id, name, score, games, wins FROM ladder_ratings WHERE guild_id = ? AND ladder = ? "
            f"AND season = ? AND games >= ? AND {_ESTABLISHED} ORDER BY score DESC, user_id LIMIT ? OFFSET ?",
            (guild_id, ladder, period, minimum, guild_id, int(limit), int(offset)))
        total = await db.fetch("SELECT COUNT(*) FROM ladder_ratings WHERE guild_id = ? AND ladder = ? "
                               f"AND season = ? AND games >= ? AND {_ESTABLISHED}",
                               (guild_id, ladder, period, minimum, guild_id))
        return ([LeaderboardRow(offset + i + 1, int(r[0]), str(r[1]), int(r[2]), int(r[3]), int(r[4]))
                 for i, r in enumerate(rows)], int(total[0][0]))

    @reads
    async def ladder_ratings(self, db: Reading, guild_id: int, ladder: str,
                             season: int | None = None) -> dict[int, RatingRecord]:
        """Every rating on a ladder of a server (all-time, or of the season ``season``), by user id."""
        _check_ladder(ladder)
        period = ALL_TIME if season is None else season
        rows = await db.fetch("SELECT user_id, mu, sigma, games, wins FROM ladder_ratings WHERE guild_id = ? "
                              "AND ladder = ? AND season = ?", (guild_id, ladder, period))
        return {int(r[0]): _rating(r[1:]) for r in rows}

    @reads
    async def player_ladders(self, db: Reading, guild_id: int, user_id: int, season: int | None = None
                             ) -> dict[tuple[str, int], RatingRecord]:
        """A player's ratings on both ladders, all-time and in the season ``season``: by (ladder, season or
        ``ALL_TIME``)."""
        periods = (ALL_TIME,) if season is None else (ALL_TIME, season)
        rows = await db.fetch(
            "SELECT ladder, season, mu, sigma, games, wins FROM ladder_ratings WHERE guild_id = ? "
            f"AND user_id = ? AND season IN ({', '.join('?' * len(periods))})", (guild_id, user_id, *periods))
        return {(str(r[0]), int(r[1])): _rating(r[2:]) for r in rows}


__all__ = ["MAX_SEASON_DAYS", "LeaderboardRow", "Season", "SeasonQueries", "ladder_rows", "ladder_steps",
           "last_seasons", "rebuild_steps", "season_at"]
