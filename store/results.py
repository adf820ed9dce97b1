"""Results of finished games, each seat's turns, and ratings per server: every query of them is in this module.

- ``turn_steps``: written with each action, one row per turn (when it started and ended, whether the AI
  played it, whether its time ran out).
- ``result_steps``: when a game ends, in the transaction that writes ``game_over``: one result row per seat
  (``results_of``, from the log and the turns) and the new ratings of its humans, which ``table/results.py``
  decides with ``ratings`` from what it read here (``game_rows``, ``rating_rows``, ``recent_games``), with a row
  of rating history each. A game that moved a player's rating is a rated game of theirs: the stats count those,
  and the others as not rated.
- ``backfill``: migration 4 fills the results of games that ended before it, from their logs, then writes the
  ratings the rebuild the store was handed (``Rebuild``, the table's ``rebuilt``) decides from them.
- ``ResultQueries``: the reads of the ``/risk stats``, ``leaderboard`` and ``history`` commands, a player's
  reliability (``reliability``, shown in the lobby and checked against a lobby's ``min_reliability``), and the
  rebuild of every rating (``bot.py ratings rebuild``: ``table/results.py`` decides, the store reads the results
  and writes what it decided in one transaction).

The store decides no rating and imports nothing of ``ratings/``: the thresholds its reads filter by (the games
before a rating is shown, the early turns of an abandon) are their callers' parameters.

A server is ``guild_id`` 0 for games played outside one, in a direct message: there the records are those of
that one direct message channel (``_where``), so a user's direct messages never show another user's games,
stats or rating. The SQL is plain (no SQLite-only functions) so it ports to another database as it is.
"""

from __future__ import annotations

import abc
import json
import logging
import sqlite3
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine import Event
from engine.ai import version_of
from engine.summary import favourite_continents, placements, teams, turns_played

from .backend import Backend, Reading, Writing, reads, writes
from .errors import StoreError
from .records import RatingRecord, RatingValues, SeatRecord
from .seasons import LeaderboardRow, players_last_seen, rebuild_steps
from .transaction import Reader, Step

log = logging.getLogger(__name__)

# -- turns ------------------------------------------------------------------------------------------------
_TURN_START = ("INSERT INTO turns (game_id, turn, seat, started_at, by_ai) VALUES (?, ?, ?, ?, "
               "(SELECT CASE WHEN ai_level IS NULL THEN 0 ELSE 1 END FROM players WHERE game_id = ? AND seat = ?)) "
               "ON CONFLICT (game_id, turn) DO NOTHING")
_TURN_END = "UPDATE turns SET ended_at = ? WHERE game_id = ? AND seat = ? AND ended_at IS NULL"
_ALL_TURNS_END = "UPDATE turns SET ended_at = ? WHERE game_id = ? AND ended_at IS NULL"
# The AI plays the turn of a player whose time ran out.
MISSED_TURN = "UPDATE turns SET missed = 1, by_ai = 1 WHERE game_id = ? AND seat = ? AND ended_at IS NULL"


def turn_steps(game_id: int, events: Iterable[Event], now: float) -> list[Step]:
    """The turns' rows for an action's events: a turn starts, a turn ends, the game ends."""
    steps = []
    for e in events:
        match e["type"]:
            case "turn_started":
                steps.append(Step(_TURN_START, (game_id, e["turn"], e["seat"], now, game_id, e["seat"])))
            case "turn_ended":
                steps.append(Step(_TURN_END, (now, game_id, e["seat"])))
            case "game_over":
                steps.append(Step(_ALL_TURNS_END, (now, game_id)))
            case _:
                pass
    return steps


# -- results --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TurnRow:
    seat: int
    started_at: float
    ended_at: float | None
    by_ai: bool
    missed: bool
    turn: int = 0


@dataclass(frozen=True)
class ResultRecord:
    """One seat of a finished game."""

    game_id: int
    seat: int
    guild_id: int
    channel_id: int
    user_id: int | None       # the human of the seat (also when the AI took it over); None for an AI seat
    ai_level: str | None      # the AI's level, if an AI played the seat at the end
    name: str
    placement: int            # 1 the best (by elimination order; teams by team)
    team: int | None
    ai_took_over: bool        # the AI was given the seat of its absent human
    ai_turns: int             # turns the AI played for the seat (an AI seat: all of them)
    turns: int
    missed: int               # turns whose deadline passed
    median_move: float | None  # seconds from the start of the seat's turn to its end, turns the human played
    continent: str | None     # the continent whose bonus the seat collected most often
    game_turns: int           # the length of the game in turns
    ended_at: float
    # The turn from which this player held the seat: 0 for its first player, a substitute's claim after it. A
    # seat that changed hands has a row per player; in each, ``ai_turns`` counts the seat's turns not their own.
    since_turn: int = 0
    removed_by: int | None = None   # the user who removed the seat's player after the start (another's kick)
    went_out: bool | None = None    # the seat went out before the end (None: not recorded, an older game)
    rating_note: str | None = None  # why the game was not rated for this player, or counted less (``notes``)
    ai_version: int | None = None   # the version of ``ai_level`` the AI played (engine/ai ``VERSIONS``)

    @property
    def human_share(self) -> float:
        return 1.0 if not self.turns else (self.turns - self.ai_turns) / self.turns


@dataclass(frozen=True)
class RebuiltRatings:
    """A server's ratings decided again from its stored results, in the order its games ended (by the table,
    ``table/results.py`` ``rebuilt``): what the store writes in place of every rating."""

    ratings: Mapping[int, RatingValues]                   # user -> rating over every game
    met: Mapping[int, Mapping[int, bool]]                 # user -> opponent -> whether that opponent was trusted
    history: Sequence[tuple[int, int, RatingValues]]      # (game, user, the user's rating after it), in order
    ladders: Mapping[tuple[str, int, int], RatingValues] = field(default_factory=dict)  # (ladder, season, user)


# Decides every rating again from the stored results (in the order their games ended) and the season each game
# counted in (``season_games``): by server. The table's ``rebuilt``; the migrations' backfills are handed one.
Rebuild = Callable[[Sequence["ResultRecord"], Mapping[int, int]], Mapping[int, RebuiltRatings]]


# The columns of migration 4 (its backfill writes them), then those of later steps.
_V4_COLUMNS = ("game_id, seat, guild_id, channel_id, user_id, ai_level, name, placement, team, ai_took_over, "
               "ai_turns, turns, missed, median_move, continent, game_turns, ended_at")
_RESULT_COLUMNS = f"{_V4_COLUMNS}, since_turn, removed_by, went_out, rating_note, ai_version"


def _result_row(r: ResultRecord) -> tuple[Any, ...]:
    return (r.game_id, r.seat, r.guild_id, r.channel_id, r.user_id, r.ai_level, r.name, r.placement, r.team,
            int(r.ai_took_over), r.ai_turns, r.turns, r.missed, r.median_move, r.continent, r.game_turns, r.ended_at,
            r.since_turn, r.removed_by, None if r.went_out is None else int(r.went_out), r.rating_note, r.ai_version)


def _result(row: Sequence[Any]) -> ResultRecord:
    return ResultRecord(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], bool(row[9]),
                        row[10], row[11], row[12], row[13], row[14], row[15], row[16],
                        row[17] if len(row) > 17 and row[17] is not None else 0,
                        row[18] if len(row) > 18 else None,
                        None if len(row) <= 19 or row[19] is None else bool(row[19]),
                        row[20] if len(row) > 20 else None,
                        row[21] if len(row) > 21 else None)


@dataclass(frozen=True)
class LogFacts:
    """What a finished game's results take from its log (``log_facts``): worked out once, off the event loop
    for a long game (store/logs.py)."""

    placements: Mapping[int, int]
    teams: Mapping[int, int]
    favourite_continents: Mapping[int, str]
    turns_played: Mapping[int, int]
    game_turns: int
    went_out: frozenset[int] = frozenset()   # the seats that went out before the end (eliminated, surrendered)


def log_facts(events: Sequence[Event]) -> LogFacts:
    """The placements, teams, favourite continents and turns of a finished game's log, and who went out."""
    return LogFacts(placements(events), teams(events), favourite_continents(events), turns_played(events),
                    max((int(e["turn"]) for e in events if e["type"] == "turn_started"), default=0),
                    frozenset(int(e["seat"]) for e in events
                              if e["type"] in ("player_eliminated", "player_surrendered")))


def results_of(game_id: int, guild_id: int | None, channel_id: int, players: Sequence[SeatRecord],
               events: Sequence[Event] | LogFacts, turn_rows: Sequence[TurnRow], booted: Mapping[int, int],
               ended_at: float, holders: Mapping[int, Sequence[tuple[int, int, str]]] | None = None,
               removed: Mapping[int, int] | None = None) -> list[ResultRecord]:
    """The result of every seat of a finished game, from its log (or what ``log_facts`` took from it), its turns
    (none for a game that ended before turns were recorded: then the log counts them, and times are unknown)
    and the users the AI replaced. A seat that changed hands (``holders``: ``(since turn, user id, name)`` of each
    of its players, from ``seat_holders``) has a row per player, each with the seat's turns they played.
    ``removed``: the user who removed each seat's player after the start (``seat_status.removed_by``)."""
    facts = events if isinstance(events, LogFacts) else log_facts(events)
    places, team_of, favourite = facts.placements, facts.teams, facts.favourite_continents
    logged_turns, game_turns = facts.turns_played, facts.game_turns
    out = []
    for p in players:
        mine = [t for t in turn_rows if t.seat == p.seat]
        # The log counts every turn; the rows only those played since turns were recorded (migration 4).
        turns = max(logged_turns.get(p.seat, 0), len(mine))
        unrecorded = turns - len(mine)
        ai_turns = sum(1 for t in mine if t.by_ai) + (unrecorded if p.is_ai and p.seat not in booted else 0)
        missed = sum(1 for t in mine if t.missed)
        times = [t.ended_at - t.started_at for t in mine if not t.by_ai and t.ended_at is not None]
        median = statistics.median(times) if times else None
        user_id = p.user_id if p.user_id is not None else booted.get(p.seat)
        took_over = user_id is not None and (p.seat in booted or ai_turns > missed)
        row = ResultRecord(
            game_id=game_id, seat=p.seat, guild_id=guild_id or 0, channel_id=channel_id, user_id=user_id,
            ai_level=p.ai_level, name=p.name, placement=places.get(p.seat, len(players)), team=team_of.get(p.seat),
            ai_took_over=took_over, ai_turns=ai_turns, turns=turns, missed=missed, median_move=median,
            continent=favourite.get(p.seat), game_turns=game_turns, ended_at=ended_at,
            removed_by=(removed or {}).get(p.seat), went_out=p.seat in facts.went_out,
            ai_version=version_of(p.ai_level))
        out.extend(_shares(row, mine, (holders or {}).get(p.seat, ()), p.seat in booted or p.is_ai))
    return out


def _shares(row: ResultRecord, mine: Sequence[TurnRow], holders: Sequence[tuple[int, int, str]],
            left_at_end: bool) -> list[ResultRecord]:
    """A seat's row, or for a seat that changed hands one row per player who held it: the turns from their claim
    to the next player's are theirs (``ai_turns``: the seat's other turns), and each one but the last left it to
    the AI (an abandon); the last left it only if the AI holds it at the end."""
    if len(holders) < 2:
        return [row]
    out = []
    for i, (since, user, name) in enumerate(holders):
        until = holders[i + 1][0] if i + 1 < len(holders) else None
        held = [t for t in mine if t.turn >= since and (until is None or t.turn < until)]
        own = [t for t in held if not t.by_ai]
        times = [t.ended_at - t.started_at for t in own if t.ended_at is not None]
        out.append(replace(row, user_id=user, name=name, ai_level=None if until is not None else row.ai_level,
                           ai_version=None if until is not None else row.ai_version,
                           ai_took_over=until is not None or left_at_end, ai_turns=row.turns - len(own),
                           missed=sum(1 for t in held if t.missed),
                           median_move=statistics.median(times) if times else None, since_turn=since))
    return out


# -- ratings ------------------------------------------------------------------------------------------------
_RATING_UPSERT = (
    "INSERT INTO ratings (guild_id, user_id, name, mu, sigma, score, games, wins, updated_at, trusted, established) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET name = excluded.name, "
    "mu = excluded.mu, sigma = excluded.sigma, score = excluded.score, games = excluded.games, "
    "wins = excluded.wins, updated_at = excluded.updated_at, trusted = excluded.trusted, "
    "established = excluded.established")
_RATING_UPSERT_V4 = (   # migration 4's columns (its backfill)
    "INSERT INTO ratings (guild_id, user_id, name, mu, sigma, score, games, wins, updated_at) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id) DO UPDATE SET name = excluded.name, "
    "mu = excluded.mu, sigma = excluded.sigma, score = excluded.score, games = excluded.games, "
    "wins = excluded.wins, updated_at = excluded.updated_at")
_MET_UPSERT = ("INSERT INTO rated_opponents (guild_id, user_id, opponent_id, trusted) VALUES (?, ?, ?, ?) "
               "ON CONFLICT (guild_id, user_id, opponent_id) DO UPDATE SET trusted = excluded.trusted")
_HISTORY_INSERT = ("INSERT INTO rating_history (guild_id, user_id, game_id, mu, sigma, score, games, at) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")


def _rating_steps(guild_id: int, game_id: int, names: Mapping[int, str], changed: Mapping[int, RatingValues],
                  at: float) -> list[Step]:
    if not changed:
        return []
    users = sorted(changed)
    return [
        Step(_RATING_UPSERT, [(guild_id, u, names[u], changed[u].mu, changed[u].sigma, changed[u].score,
                               changed[u].games, changed[u].wins, at, changed[u].trusted,
                               int(changed[u].established)) for u in users], many=True),
        Step(_HISTORY_INSERT, [(guild_id, u, game_id, changed[u].mu, changed[u].sigma, changed[u].score,
                                changed[u].games, at) for u in users], many=True),
    ]


def names_of(results: Iterable[ResultRecord]) -> dict[int, str]:
    """The name of each user in a game's results."""
    return _names(results)


def _names(results: Iterable[ResultRecord]) -> dict[int, str]:
    return {r.user_id: r.name for r in results if r.user_id is not None}


@dataclass(frozen=True)
class GameRows:
    """What a finished game's results take from its rows (``game_rows``): its log (when what it gives was not
    worked out before), its turns, the users the AI replaced, the players of each seat that changed hands and
    who removed whom."""

    events: list[Event]
    turns: list[TurnRow]
    booted: dict[int, int]
    holders: dict[int, list[tuple[int, int, str]]]
    removed: dict[int, int]


async def game_rows(db: Reading, game_id: int, *, with_events: bool) -> GameRows:
    """The rows of a game that has just ended, read in the transaction that ends it (``with_events``: its log
    too)."""
    events = [json.loads(r[0]) for r in await db.fetch(
        "SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,))] if with_events else []
    turn_rows = [TurnRow(*r) for r in await db.fetch(
        "SELECT seat, started_at, ended_at, by_ai, missed, turn FROM turns WHERE game_id = ? ORDER BY turn",
        (game_id,))]
    booted = {r[0]: r[1] for r in await db.fetch(
        "SELECT seat, booted_user_id FROM seat_status WHERE game_id = ? AND booted_user_id IS NOT NULL", (game_id,))}
    holders: dict[int, list[tuple[int, int, str]]] = {}
    for seat, since, user, name in await db.fetch(
            "SELECT seat, since_turn, user_id, name FROM seat_holders WHERE game_id = ? ORDER BY seat, since_turn",
            (game_id,)):
        holders.setdefault(seat, []).append((since, user, name))
    removed = {int(r[0]): int(r[1]) for r in await db.fetch(
        "SELECT seat, removed_by FROM seat_status WHERE game_id = ? AND removed_by IS NOT NULL", (game_id,))}
    return GameRows(events, turn_rows, booted, holders, removed)


@dataclass(frozen=True)
class RatingRows:
    """The stored ratings of some players on a server, whom each met in rated games (``user -> opponent ->
    trusted``), and how many players the server rates and how many of them are established."""

    ratings: dict[int, RatingRecord]
    met: dict[int, dict[int, bool]]
    players: int = 0
    established: int = 0


async def rating_rows(db: Reading, guild_id: int, users: Sequence[int]) -> RatingRows:
    """The ratings of ``users`` on a server, and what ``RatingRows`` holds besides (read under the server's
    ratings lock when a game ends)."""
    if not users:
        return RatingRows({}, {})
    marks = ", ".join("?" * len(users))
    rows = await db.fetch(f"SELECT user_id, mu, sigma, games, wins, trusted, established FROM ratings "
                          f"WHERE guild_id = ? AND user_id IN ({marks})", (guild_id, *users))
    current = {r[0]: RatingRecord(r[1], r[2], r[3], r[4], r[5], bool(r[6])) for r in rows}
    met: dict[int, dict[int, bool]] = {}
    for user, opponent, trusted in await db.fetch(
            f"SELECT user_id, opponent_id, trusted FROM rated_opponents WHERE guild_id = ? "
            f"AND user_id IN ({marks})", (guild_id, *users)):
        met.setdefault(int(user), {})[int(opponent)] = bool(trusted)
    counts = await db.fetch("SELECT COUNT(*), COALESCE(SUM(established), 0) FROM ratings WHERE guild_id = ?",
                            (guild_id,))
    return RatingRows(current, met, int(counts[0][0]), int(counts[0][1]))


async def recent_games(db: Reading, guild_id: int, users: Sequence[int], since: float
                       ) -> list[tuple[list[ResultRecord], bool]]:
    """The games any of ``users`` finished on the server after ``since`` (an index's range): each game's results
    and whether it was rated (a game that moved a rating has a row of rating history)."""
    marks = ", ".join("?" * len(users))
    rows = await db.fetch(
        f"SELECT {', '.join('r.' + c for c in _RESULT_COLUMNS.split(', '))}, EXISTS (SELECT 1 FROM rating_history h "
        "WHERE h.guild_id = r.guild_id AND h.user_id = r.user_id AND h.game_id = r.game_id) FROM results r "
        f"WHERE r.game_id IN (SELECT game_id FROM results WHERE guild_id = ? AND user_id IN ({marks}) "
        "AND ended_at > ?)", (guild_id, *sorted(users), since))
    games: dict[int, list[ResultRecord]] = {}
    rated: set[int] = set()
    for row in rows:
        r = _result(row)
        games.setdefault(r.game_id, []).append(r)
        if row[-1]:
            rated.add(r.game_id)
    return [(results, game in rated) for game, results in games.items()]


def result_steps(guild_id: int, game_id: int, results: Sequence[ResultRecord], changed: Mapping[int, RatingValues],
                 met: Mapping[int, Mapping[int, bool]], at: float) -> list[Step]:
    """The rows of a game's end: its results, the ratings it moved (``changed``) with a row of history each, and
    whom their players met (``met``: the circles of those ``changed``)."""
    pairs = [(guild_id, u, o, int(t)) for u in sorted(changed) for o, t in sorted(met.get(u, {}).items())]
    return [Step(f"INSERT INTO results ({_RESULT_COLUMNS}) VALUES ({', '.join('?' * 22)})",
                 [_result_row(r) for r in results], many=True),
            *_rating_steps(guild_id, game_id, _names(results), changed, at),
            *([Step(_MET_UPSERT, pairs, many=True)] if pairs else [])]


def _rebuilt_ratings(results: Sequence[ResultRecord], rebuilt: Mapping[int, RebuiltRatings], *,
                    met: bool = True) -> list[Step]:
    """The rows of every rating and its history again (``rebuilt``, decided from ``results``). ``met``: with whom
    the players met (false for migration 4's backfill, before the tables of migration 15 exist)."""
    by_guild: dict[int, dict[int, list[ResultRecord]]] = {}
    for r in results:
        by_guild.setdefault(r.guild_id, {}).setdefault(r.game_id, []).append(r)
    steps = [Step("DELETE FROM ratings"), Step("DELETE FROM rating_history"),
             *([Step("DELETE FROM rated_opponents")] if met else [])]
    for guild_id, games in by_guild.items():
        decided = rebuilt.get(guild_id)
        if decided is None:
            continue
        ended = {game_id: rows[0].ended_at for game_id, rows in games.items()}
        names, last = players_last_seen(games.values())
        if decided.ratings:
            rows = [(guild_id, u, names[u], x.mu, x.sigma, x.score, x.games, x.wins, last[u], x.trusted,
                     int(x.established)) for u, x in sorted(decided.ratings.items())]
            steps.append(Step(_RATING_UPSERT, rows, many=True) if met else
                         Step(_RATING_UPSERT_V4, [row[:9] for row in rows], many=True))
        pairs = [(guild_id, u, o, int(t)) for u, circle in sorted(decided.met.items())
                 for o, t in sorted(circle.items())]
        if pairs and met:
            steps.append(Step(_MET_UPSERT, pairs, many=True))
        if decided.history:
            steps.append(Step(_HISTORY_INSERT, [(guild_id, u, g, x.mu, x.sigma, x.score, x.games, ended[g])
                                                for g, u, x in decided.history], many=True))
    return steps


_ALL_RESULTS = f"SELECT {_RESULT_COLUMNS} FROM results ORDER BY ended_at, game_id, seat, since_turn"


def backfill(conn: sqlite3.Connection, rebuild: Rebuild) -> None:
    """Migration 4: the results of every game that already ended, from its log, then the ratings they give
    (decided by ``rebuild``, which the migration runner is handed)."""
    games = conn.execute("SELECT id, guild_id, channel_id, updated_at FROM games WHERE status = 'finished' "
                         "ORDER BY updated_at, id").fetchall()
    for game_id, guild_id, channel_id, ended_at in games:
        players = [SeatRecord(*r) for r in conn.execute(
            "SELECT seat, user_id, ai_level, name, colour FROM players WHERE game_id = ? ORDER BY seat", (game_id,))]
        events = [json.loads(r[0]) for r in conn.execute(
            "SELECT event FROM events WHERE game_id = ? ORDER BY seq", (game_id,))]
        if not events or not players:
            continue
        booted = dict(conn.execute("SELECT seat, booted_user_id FROM seat_status WHERE game_id = ? "
                                   "AND booted_user_id IS NOT NULL", (game_id,)).fetchall())
        results = results_of(game_id, guild_id, channel_id, players, events, [], booted, ended_at)
        conn.executemany(f"INSERT INTO results ({_V4_COLUMNS}) VALUES ({', '.join('?' * 17)})",
                         [_result_row(r)[:17] for r in results])
    results = [_result(r) for r in conn.execute(f"SELECT {_V4_COLUMNS} FROM results ORDER BY ended_at, game_id, seat")]
    for step in _rebuilt_ratings(results, rebuild(results, {}), met=False):
        if step.many:
            conn.executemany(step.sql, step.params)
        else:
            conn.execute(step.sql, step.params)


def backfill_ladders(conn: sqlite3.Connection, rebuild: Rebuild) -> None:
    """The migration of seasons: the all-time ladders of the games that already ended, from their results
    (decided by ``rebuild``, which the migration runner is handed)."""
    results = [_result(r) for r in conn.execute(
        f"SELECT {_V4_COLUMNS}, since_turn FROM results ORDER BY ended_at, game_id, seat, since_turn")]
    for step in rebuild_steps(results, rebuild(results, {})):   # the columns of its time
        if step.many:
            conn.executemany(step.sql, step.params)
        else:
            conn.execute(step.sql, step.params)


# -- reliability ----------------------------------------------------------------------------------------------
RELIABILITY_GAMES = 20   # a player's reliability counts their last this many finished games on the server
RELIABLE_PERCENT = 90    # a reliable player (the lobby's badge): at least this figure ...
RELIABLE_GAMES = 5       # ... over at least this many games


@dataclass(frozen=True)
class Reliability:
    """A player's reliability over their last ``RELIABILITY_GAMES`` finished games on a server
    (docs/history.md, "Reliability"): how many of the turns due to them they took before the deadline, and how
    many of the games they saw through."""

    games: int = 0       # the finished games counted
    abandoned: int = 0   # of them, those they left: the AI took their seat over, or they went out early
    turns: int = 0       # turns due to them: those they played, and those whose deadline passed
    on_time: int = 0     # turns they played themselves, before the deadline

    @property
    def percent(self) -> int | None:
        """The figure, 0 to 100: the share of turns on time times the share of games finished (None: no game)."""
        if not self.games:
            return None
        turns = self.on_time / self.turns if self.turns else 1.0
        return int(100 * turns * (self.games - self.abandoned) / self.games + 0.5)

    @property
    def new(self) -> bool:
        """Too few games for a badge."""
        return self.games < RELIABLE_GAMES

    @property
    def reliable(self) -> bool:
        percent = self.percent
        return not self.new and percent is not None and percent >= RELIABLE_PERCENT


def reliability_of(rows: Iterable[tuple[int, ...]], early_turns: int) -> Reliability:
    """A player's reliability from their results, one ``(turns, ai_turns, missed, placement, ai_took_over,
    most turns of any seat of that game, its round limit or 0)`` each, then optionally whether they were a
    substitute (they took the seat on after its first player, ``since_turn``), whether another player removed them
    (a kick: not their act) and whether they were still in at the end (a game ended by the standings).

    A game is abandoned when the AI took the seat over (missed turns in a row, or the player left), or when the
    player lost having played fewer than ``early_turns`` (the caller's ``ratings.EARLY_TURNS``) turns of their own
    (an early surrender, a kick: the results cannot tell these from an early elimination, which is rare), unless
    they were still playing when the game reached its round limit. The turns the AI played after taking the seat
    over are not due to them: the abandon counts them."""
    games = abandoned = turns = on_time = 0
    for seat_turns, ai_turns, missed, placement, took_over, longest, round_limit, *more in rows:
        own = seat_turns - ai_turns
        games += 1
        standing_at_limit = 0 < round_limit <= longest and seat_turns >= longest - 1
        # A substitute who lost after a few turns did not leave: they took the seat on late; nor did a player
        # another removed, or one still in when the game ended by the standings.
        left = placement > 1 and own < early_turns and not standing_at_limit and not any(more)
        abandoned += bool(took_over) or left
        turns += own + missed
        on_time += own
    return Reliability(games, abandoned, turns, on_time)


def _round_limit(settings: str | None) -> int:
    try:
        limit = json.loads(settings or "{}").get("max_rounds", 0)
    except (ValueError, AttributeError):
        return 0
    return limit if isinstance(limit, int) else 0


def below_minimum(reliability: Reliability, minimum: int) -> StoreError | None:
    """The refusal of a player whose reliability is below a lobby's ``min_reliability`` (None: they may join).
    A player with no finished game on the server may join: a minimum would otherwise shut every new player out
    of such a lobby, and their first games make their figure."""
    percent = reliability.percent
    if not minimum or percent is None or percent >= minimum:
        return None
    return StoreError("Your reliability here is {figure}% (games counted: {games}); this lobby asks for at least "
                      "{minimum}%.", figure=percent, games=reliability.games, minimum=minimum)


# -- what the commands read ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlayerStats:
    user_id: int
    name: str
    games: int                     # rated games (those that moved their rating); wins and placement count these
    wins: int
    average_placement: float | None  # None: no rated game yet
    favourite_continent: str | None
    reliability: float | None      # the share of their own turns taken before the deadline
    median_move: float | None      # seconds
    rating: RatingRecord | None          # None until rated at all
    unrated: int = 0               # finished games that did not count (docs/history.md, "What a rated game is")

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True)
class FinishedGame:
    game_id: int
    channel_id: int
    ended_at: float
    turns: int
    winners: tuple[str, ...]


# A server lists its established players (docs/history.md): a ring of accounts that play each other never is.
LEADERBOARD_SQL = ("SELECT user_id, name, score, games, wins FROM ratings WHERE guild_id = ? AND games >= ? "
                   "AND established = 1 ORDER BY score DESC, user_id LIMIT ? OFFSET ?")
_LEADERBOARD_COUNT = "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND games >= ? AND established = 1"
# Outside a server a rating row is a user's in their direct messages with the bot: one channel, where only they
# can play. It is shown in that channel only, so to the users who played there.
_DM_RATED = "guild_id = 0 AND user_id IN (SELECT user_id FROM results WHERE guild_id = 0 AND channel_id = ?)"
_DM_LEADERBOARD_SQL = (f"SELECT user_id, name, score, games, wins FROM ratings WHERE {_DM_RATED} AND games >= ? "
                       "ORDER BY score DESC, user_id LIMIT ? OFFSET ?")
_DM_LEADERBOARD_COUNT = f"SELECT COUNT(*) FROM ratings WHERE {_DM_RATED} AND games >= ?"


def _where(guild_id: int | None, channel_id: int | None, table: str = "") -> tuple[str, list[Any]] | None:
    """The results of a server as SQL (their columns prefixed with ``table``): a guild's, or outside one (a
    direct message) only those of the channel asked from. None: a direct message's records asked without its
    channel, which are nobody's."""
    if guild_id:
        return f"{table}guild_id = ?", [guild_id]
    if channel_id is None:
        return None
    return f"{table}guild_id = 0 AND {table}channel_id = ?", [channel_id]


class ResultQueries(Backend):
    """The reads and the rebuild (the backend supplies ``_reading``, ``_transaction`` and ``_run``)."""

    @abc.abstractmethod
    async def ladder_ratings(self, guild_id: int, ladder: str, season: int | None = None) -> dict[int, RatingRecord]:
        """A ladder's ratings (store/seasons.py, ``SeasonQueries``)."""

    @reads
    async def player_stats(self, db: Reading, guild_id: int | None, user_id: int, channel_id: int | None = None,
                           *, minimum: int) -> PlayerStats | None:
        """A player's record on a server (None if they finished no game there), their rating from ``minimum``
        games; outside a server, in the direct message ``channel_id``."""
        guild = guild_id or 0
        scope, scope_r = _where(guild_id, channel_id), _where(guild_id, channel_id, "r.")
        if scope is None or scope_r is None:
            return None
        (where, values), joined = scope, scope_r[0]
        place = tuple(values)
        head = await db.fetch(
            # Reliability counts only games whose turns were timed (not those filled in from old logs).
            "SELECT COUNT(*), "
            "SUM(CASE WHEN median_move IS NOT NULL OR missed > 0 THEN turns - ai_turns ELSE 0 END), "
            f"SUM(missed) FROM results WHERE {where} AND user_id = ?",
            (*place, user_id))
        if not head or not head[0][0]:
            return None
        # Games, wins and placement count the rated games: those that moved the player's rating.
        rated = await db.fetch(
            "SELECT COUNT(*), SUM(CASE WHEN placement = 1 THEN 1 ELSE 0 END), AVG(placement) FROM results "
            f"WHERE {where} AND user_id = ? AND game_id IN "
            "(SELECT game_id FROM rating_history WHERE user_id = ?)", (*place, user_id, user_id))
        name = await db.fetch(f"SELECT name FROM results WHERE {where} AND user_id = ? "
                              "ORDER BY ended_at DESC LIMIT 1", (*place, user_id))
        continent = await db.fetch(
            f"SELECT continent FROM results WHERE {where} AND user_id = ? AND continent IS NOT NULL "
            "GROUP BY continent ORDER BY COUNT(*) DESC, continent LIMIT 1", (*place, user_id))
        times = await db.fetch(
            "SELECT t.ended_at - t.started_at FROM results r JOIN turns t ON t.game_id = r.game_id "
            f"AND t.seat = r.seat WHERE {joined} AND r.user_id = ? "
            "AND t.by_ai = 0 AND t.ended_at IS NOT NULL", (*place, user_id))
        rating = await db.fetch("SELECT mu, sigma, games, wins FROM ratings WHERE guild_id = ? AND user_id = ?",
                                (guild, user_id))
        finished, own, missed = head[0]
        games, wins, average = rated[0] if rated else (0, 0, None)
        own_turns = (own or 0) + (missed or 0)
        return PlayerStats(
            user_id=user_id, name=name[0][0], games=games, wins=wins or 0,
            average_placement=float(average) if average is not None else None, unrated=finished - games,
            favourite_continent=continent[0][0] if continent else None,
            reliability=(own or 0) / own_turns if own_turns else None,
            median_move=statistics.median(r[0] for r in times) if times else None,
            rating=RatingRecord(*rating[0]) if rating and rating[0][2] >= minimum else None)

    @reads
    async def leaderboard(self, db: Reading, guild_id: int | None, offset: int = 0, limit: int = 10,
                          channel_id: int | None = None, *, minimum: int) -> tuple[list[LeaderboardRow], int]:
        """A page of the server's rated players (those with ``minimum`` games or more), best first, and how many
        there are; outside a server, of the direct message ``channel_id``."""
        if guild_id:
            page, count, place = LEADERBOARD_SQL, _LEADERBOARD_COUNT, [guild_id]
        elif channel_id is not None:
            page, count, place = _DM_LEADERBOARD_SQL, _DM_LEADERBOARD_COUNT, [channel_id]
        else:
            return [], 0
        rows = await db.fetch(page, (*place, int(minimum), int(limit), int(offset)))
        total = await db.fetch(count, (*place, int(minimum)))
        return [LeaderboardRow(offset + i + 1, *row) for i, row in enumerate(rows)], int(total[0][0])

    @reads
    async def finished_games(self, db: Reading, guild_id: int | None, channel_id: int | None = None, offset: int = 0,
                             limit: int = 10) -> list[FinishedGame]:
        """The server's (or a channel's) finished games, the latest first, with their winners; outside a server
        only the direct message ``channel_id``'s."""
        if channel_id is not None:
            where, params = "channel_id = ?", [channel_id]
        elif guild_id:
            where, params = "guild_id = ?", [guild_id]
        else:
            return []
        rows = await db.fetch(
            "SELECT g.game_id, g.channel_id, g.ended_at, g.game_turns, w.name FROM "
            f"(SELECT game_id, channel_id, ended_at, game_turns FROM results WHERE {where} AND seat = 0 "
            "AND since_turn = 0 "
            "ORDER BY ended_at DESC, game_id DESC LIMIT ? OFFSET ?) g "
            "JOIN results w ON w.game_id = g.game_id AND w.placement = 1 "
            "ORDER BY g.ended_at DESC, g.game_id DESC, w.seat", (*params, int(limit), int(offset)))
        games: dict[int, FinishedGame] = {}
        for game_id, channel, ended_at, turns, name in rows:
            known = games.get(game_id)
            winners = (*known.winners, name) if known else (name,)
            games[game_id] = FinishedGame(game_id, channel, ended_at, turns, winners)
        return list(games.values())

    @reads
    async def results(self, db: Reading, game_id: int) -> list[ResultRecord]:
        """A finished game's results, by seat (empty for a game not finished)."""
        rows = await db.fetch(f"SELECT {_RESULT_COLUMNS} FROM results WHERE game_id = ? ORDER BY seat",
                              (game_id,))
        return [_result(r) for r in rows]

    async def ratings(self, guild_id: int | None, channel_id: int | None = None, *, ladder: str | None = None,
                      season: int | None = None) -> dict[int, RatingRecord]:
        """Every rating on a server (shown or not yet), by user id; outside a server, of the direct message
        ``channel_id``. With ``ladder`` (``"1v1"`` or ``"ffa"``): that ladder's, all-time or of the season
        ``season`` (store/seasons.py)."""
        if ladder is not None:
            return await self.ladder_ratings(guild_id or 0, ladder, season) if guild_id else {}
        return await self._ratings(guild_id, channel_id)

    @reads
    async def _ratings(self, db: Reading, guild_id: int | None, channel_id: int | None) -> dict[int, RatingRecord]:
        if guild_id:
            where, place = "guild_id = ?", guild_id
        elif channel_id is not None:
            where, place = _DM_RATED, channel_id
        else:
            return {}
        rows = await db.fetch(f"SELECT user_id, mu, sigma, games, wins, trusted, established FROM ratings "
                              f"WHERE {where}", (place,))
        return {r[0]: RatingRecord(r[1], r[2], r[3], r[4], r[5], bool(r[6])) for r in rows}

    @reads
    async def rating_history(self, db: Reading, guild_id: int | None, user_id: int, channel_id: int | None = None
                             ) -> list[tuple[int, RatingRecord]]:
        """A player's rating after each of their games on a server, oldest first: ``(game id, rating)``;
        outside a server, in the direct message ``channel_id``."""
        if guild_id:
            where, place = "guild_id = ?", guild_id
        elif channel_id is not None:
            where, place = ("guild_id = 0 AND game_id IN (SELECT game_id FROM results WHERE guild_id = 0 AND "
                            "channel_id = ?)"), channel_id
        else:
            return []
        rows = await db.fetch(f"SELECT game_id, mu, sigma, games FROM rating_history WHERE {where} "
                              "AND user_id = ? ORDER BY games", (place, user_id))
        return [(r[0], RatingRecord(r[1], r[2], r[3])) for r in rows]

    @reads
    async def reliability(self, db: Reading, guild_id: int | None, user_ids: Iterable[int],
                          channel_id: int | None = None, *, early_turns: int) -> dict[int, Reliability]:
        """The reliability of each of ``user_ids`` over their last ``RELIABILITY_GAMES`` finished games on a
        server (an empty ``Reliability`` for one with none); outside a server, in the direct message
        ``channel_id``."""
        users = sorted(set(user_ids))
        scope = _where(guild_id, channel_id, "r.")
        if scope is None:
            return {u: Reliability() for u in users}
        where, place = scope
        out = {}
        for user in users:
            rows = await db.fetch(
                "SELECT r.turns, r.ai_turns, r.missed, r.placement, r.ai_took_over, "
                "(SELECT MAX(o.turns) FROM results o WHERE o.game_id = r.game_id), g.settings, r.since_turn, "
                "r.removed_by, r.went_out "
                f"FROM results r JOIN games g ON g.id = r.game_id WHERE {where} AND r.user_id = ? "
                "ORDER BY r.ended_at DESC, r.game_id DESC LIMIT ?", (*place, user, RELIABILITY_GAMES))
            out[user] = reliability_of([(int(a), int(b), int(c), int(d), bool(e), int(f), _round_limit(g),
                                         int(h) > 0, i is not None, j is not None and not j)
                                        for a, b, c, d, e, f, g, h, i, j in rows], early_turns)
        return out

    @writes
    async def rebuild_ratings(self, db: Writing, rebuild: Rebuild) -> int:
        """Every rating, its history and the ladders again, as ``rebuild`` decides them from the stored results
        (read and written in one transaction). Returns the number of games rated."""
        rows = await db.fetch(_ALL_RESULTS)
        results = [_result(r) for r in rows]
        season_of = {int(r[0]): int(r[1]) for r in await db.fetch("SELECT game_id, season FROM season_games")}
        rebuilt = rebuild(results, season_of)
        await db.commit(*_rebuilt_ratings(results, rebuilt), *rebuild_steps(results, rebuilt))
        return len({r.game_id for r in results})


__all__ = [
    "LEADERBOARD_SQL",
    "MISSED_TURN",
    "RELIABILITY_GAMES",
    "RELIABLE_GAMES",
    "RELIABLE_PERCENT",
    "FinishedGame",
    "GameRows",
    "LeaderboardRow",
    "LogFacts",
    "PlayerStats",
    "RatingRows",
    "Reader",
    "Reliability",
    "ResultQueries",
    "ResultRecord",
    "TurnRow",
    "backfill",
    "below_minimum",
    "game_rows",
    "log_facts",
    "names_of",
    "rating_rows",
    "recent_games",
    "reliability_of",
    "result_steps",
    "results_of",
    "turn_steps",
]
