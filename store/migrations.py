"""The database schema as numbered migration steps.

``MIGRATIONS[i]`` takes a database from version ``i`` to ``i + 1``; the version is SQLite's
``PRAGMA user_version``. Steps are only ever appended: a released step is never edited. Steps 1-16 are written
here and again for PostgreSQL (store/postgres_migrations.py); from 17 on a step is written once, for both, in
store/schema.py.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from .errors import DatabaseError
from .schema import STEPS

if TYPE_CHECKING:
    from .results import Rebuild

# 1: games, seats, the event log and processed interactions.
_V1 = """
CREATE TABLE games (
    id           INTEGER PRIMARY KEY,
    guild_id     INTEGER,
    channel_id   INTEGER NOT NULL,
    status       TEXT    NOT NULL DEFAULT 'lobby'
                 CHECK (status IN ('lobby', 'running', 'paused', 'finished', 'cancelled')),
    settings     TEXT    NOT NULL DEFAULT '{}',
    host_id      INTEGER NOT NULL,
    state        TEXT,
    state_schema INTEGER,
    version      INTEGER NOT NULL DEFAULT 0,
    last_seq     INTEGER NOT NULL DEFAULT 0,
    created_at   REAL    NOT NULL,
    updated_at   REAL    NOT NULL
);

-- One active game per channel; finished and cancelled games stay as history.
CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id)
    WHERE status IN ('lobby', 'running', 'paused');
CREATE INDEX games_by_status ON games (status);
CREATE INDEX games_by_channel ON games (channel_id, id);

CREATE TABLE players (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    seat     INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 5),
    user_id  INTEGER,
    ai_level TEXT,
    name     TEXT    NOT NULL,
    colour   INTEGER NOT NULL CHECK (colour BETWEEN 0 AND 5),
    PRIMARY KEY (game_id, seat),
    CHECK ((user_id IS NULL) <> (ai_level IS NULL))
) WITHOUT ROWID;
CREATE UNIQUE INDEX players_user_once ON players (game_id, user_id) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX players_colour_once ON players (game_id, colour);
CREATE INDEX players_by_user ON players (user_id) WHERE user_id IS NOT NULL;

-- The engine's events, in order: seq runs 1, 2, 3, ... per game with no gaps.
CREATE TABLE events (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seq     INTEGER NOT NULL CHECK (seq >= 1),
    event   TEXT    NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TRIGGER events_never_updated BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only');
END;
CREATE TRIGGER events_never_deleted BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'the event log is append-only');
END;

-- Interactions already applied, with a summary of their result, so a repeat is answered, not re-applied.
CREATE TABLE interactions (
    game_id        INTEGER NOT NULL REFERENCES games (id),
    interaction_id TEXT    NOT NULL,
    result         TEXT    NOT NULL,
    created_at     REAL    NOT NULL,
    PRIMARY KEY (game_id, interaction_id)
) WITHOUT ROWID;
"""

# 2: turn deadlines and reminders, user preferences, guild settings.
_V2 = """
CREATE TABLE deadlines (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seat    INTEGER NOT NULL,
    kind    TEXT    NOT NULL,
    due_at  REAL    NOT NULL,
    PRIMARY KEY (game_id, seat, kind)
) WITHOUT ROWID;
CREATE INDEX deadlines_by_due ON deadlines (due_at);

CREATE TABLE user_prefs (
    user_id     INTEGER PRIMARY KEY,
    language    TEXT,
    notify      TEXT NOT NULL DEFAULT 'mention',
    quiet_start TEXT,
    quiet_end   TEXT,
    timezone    TEXT,
    updated_at  REAL NOT NULL
);

CREATE TABLE guild_settings (
    guild_id         INTEGER PRIMARY KEY,
    default_settings TEXT NOT NULL DEFAULT '{}',
    allowed_channels TEXT NOT NULL DEFAULT '[]',
    updated_at       REAL NOT NULL
);
"""

# 3: per seat of a running game: missed turns in a row, vacation, and who was replaced by the AI.
_V3 = """
CREATE TABLE seat_status (
    game_id          INTEGER NOT NULL REFERENCES games (id),
    seat             INTEGER NOT NULL,
    missed           INTEGER NOT NULL DEFAULT 0,
    last_missed_turn TEXT,
    vacation_until   REAL,
    vacation_days    INTEGER NOT NULL DEFAULT 0,
    booted_user_id   INTEGER,
    booted_name      TEXT,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
"""

# 4: every turn of a seat with its times, the results of finished games, ratings per server and their history.
# The results of games that ended before this step are filled in from their logs (``AFTER`` below).
_V4 = """
CREATE TABLE turns (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    turn       INTEGER NOT NULL,
    seat       INTEGER NOT NULL,
    started_at REAL    NOT NULL,
    ended_at   REAL,
    by_ai      INTEGER NOT NULL DEFAULT 0,
    missed     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, turn)
);
CREATE INDEX turns_by_seat ON turns (game_id, seat);

CREATE TABLE results (
    game_id      INTEGER NOT NULL REFERENCES games (id),
    seat         INTEGER NOT NULL,
    guild_id     INTEGER NOT NULL,
    channel_id   INTEGER NOT NULL,
    user_id      INTEGER,
    ai_level     TEXT,
    name         TEXT    NOT NULL,
    placement    INTEGER NOT NULL,
    team         INTEGER,
    ai_took_over INTEGER NOT NULL DEFAULT 0,
    ai_turns     INTEGER NOT NULL DEFAULT 0,
    turns        INTEGER NOT NULL DEFAULT 0,
    missed       INTEGER NOT NULL DEFAULT 0,
    median_move  REAL,
    continent    TEXT,
    game_turns   INTEGER NOT NULL DEFAULT 0,
    ended_at     REAL    NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX results_by_player ON results (guild_id, user_id, ended_at);
CREATE INDEX results_by_guild ON results (guild_id, seat, ended_at);
CREATE INDEX results_by_channel ON results (channel_id, seat, ended_at);

CREATE TABLE ratings (
    guild_id   INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    mu         REAL    NOT NULL,
    sigma      REAL    NOT NULL,
    score      INTEGER NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    updated_at REAL    NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX ratings_board ON ratings (guild_id, score);

CREATE TABLE rating_history (
    guild_id INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    game_id  INTEGER NOT NULL,
    mu       REAL    NOT NULL,
    sigma    REAL    NOT NULL,
    score    INTEGER NOT NULL,
    games    INTEGER NOT NULL,
    at       REAL    NOT NULL,
    PRIMARY KEY (guild_id, user_id, game_id)
);
"""


# 5: what the channel was told: the last event of each game announced, so a restart tells what it missed, once,
# and never tells anything twice. Games stored before this step count as told.
_V_ANNOUNCED = """
CREATE TABLE announced (
    game_id INTEGER PRIMARY KEY REFERENCES games (id),
    seq     INTEGER NOT NULL
);
INSERT INTO announced (game_id, seq) SELECT id, last_seq FROM games;
"""

# 6: custom maps: up to 8 seats (the seat and colour checks of ``players`` said 0..5, and SQLite changes a CHECK
# only by rebuilding the table), and each server's maps with their files. A removed map keeps its files (its
# games still replay and draw); it is only hidden from the server's list.
_V_MAPS = """
CREATE TABLE players_8 (
    game_id  INTEGER NOT NULL REFERENCES games (id),
    seat     INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 7),
    user_id  INTEGER,
    ai_level TEXT,
    name     TEXT    NOT NULL,
    colour   INTEGER NOT NULL CHECK (colour BETWEEN 0 AND 7),
    PRIMARY KEY (game_id, seat),
    CHECK ((user_id IS NULL) <> (ai_level IS NULL))
) WITHOUT ROWID;
INSERT INTO players_8 (game_id, seat, user_id, ai_level, name, colour)
    SELECT game_id, seat, user_id, ai_level, name, colour FROM players;
DROP TABLE players;
ALTER TABLE players_8 RENAME TO players;
CREATE UNIQUE INDEX players_user_once ON players (game_id, user_id) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX players_colour_once ON players (game_id, colour);
CREATE INDEX players_by_user ON players (user_id) WHERE user_id IS NOT NULL;

CREATE TABLE maps (
    guild_id   INTEGER NOT NULL,
    map_id     TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    added_by   INTEGER NOT NULL,
    data       BLOB    NOT NULL,
    regions    BLOB    NOT NULL,
    background BLOB,
    removed    INTEGER NOT NULL DEFAULT 0,
    created_at REAL    NOT NULL,
    PRIMARY KEY (guild_id, map_id)
);
CREATE INDEX maps_by_id ON maps (map_id);
"""

# 7: the live turn panel of each running game: the channel message edited as the turn goes on, so a restart goes on
# editing it (or posts a new one). ``since_seq``: the last event before the turn it tells; ``posted_at``: when it
# was posted, by the bot's clock (Discord refuses some edits of a message older than an hour).
_V_PANELS = """
CREATE TABLE live_panels (
    game_id    INTEGER PRIMARY KEY REFERENCES games (id),
    channel_id INTEGER NOT NULL,
    message_id INTEGER NOT NULL,
    seat       INTEGER NOT NULL,
    turn       INTEGER NOT NULL,
    since_seq  INTEGER NOT NULL,
    posted_at  REAL    NOT NULL
);
"""

# 8: where each turn begins in the log, so ``/risk log`` reads only the turns it shows (store/logs.py): the first
# event of the action that started the turn, and the game (its state as JSON) just before that action. Turns
# begun before this step have no row: their log is read from the start.
_V_LOG_TURNS = """
CREATE TABLE log_turns (
    game_id INTEGER NOT NULL REFERENCES games (id),
    turn    INTEGER NOT NULL,
    seq     INTEGER NOT NULL,
    state   TEXT    NOT NULL,
    PRIMARY KEY (game_id, turn)
);
"""

# 9: substitutes. A seat the AI took from its player can be offered to another player (``seat_status.offer``: the
# offer's key, which the claim button carries) and claimed; ``seat_holders`` lists the players who held a seat
# that changed hands, each from the turn they took it (the seat's first player from 0). A finished game's results
# have a row per seat and player who held it (``since_turn``: 0 for the seat's first player), so the primary key
# of ``results`` grows a column (SQLite changes a key only by rebuilding the table).
_V_SUBSTITUTES = """
ALTER TABLE seat_status ADD COLUMN offer TEXT;

CREATE TABLE seat_holders (
    game_id    INTEGER NOT NULL REFERENCES games (id),
    seat       INTEGER NOT NULL,
    since_turn INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    PRIMARY KEY (game_id, seat, since_turn)
);

CREATE TABLE results_9 (
    game_id      INTEGER NOT NULL REFERENCES games (id),
    seat         INTEGER NOT NULL,
    guild_id     INTEGER NOT NULL,
    channel_id   INTEGER NOT NULL,
    user_id      INTEGER,
    ai_level     TEXT,
    name         TEXT    NOT NULL,
    placement    INTEGER NOT NULL,
    team         INTEGER,
    ai_took_over INTEGER NOT NULL DEFAULT 0,
    ai_turns     INTEGER NOT NULL DEFAULT 0,
    turns        INTEGER NOT NULL DEFAULT 0,
    missed       INTEGER NOT NULL DEFAULT 0,
    median_move  REAL,
    continent    TEXT,
    game_turns   INTEGER NOT NULL DEFAULT 0,
    ended_at     REAL    NOT NULL,
    since_turn   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seat, since_turn)
);
INSERT INTO results_9 (game_id, seat, guild_id, channel_id, user_id, ai_level, name, placement, team, ai_took_over,
                       ai_turns, turns, missed, median_move, continent, game_turns, ended_at)
    SELECT game_id, seat, guild_id, channel_id, user_id, ai_level, name, placement, team, ai_took_over, ai_turns,
           turns, missed, median_move, continent, game_turns, ended_at FROM results;
DROP TABLE results;
ALTER TABLE results_9 RENAME TO results;
CREATE INDEX results_by_player ON results (guild_id, user_id, ended_at);
CREATE INDEX results_by_guild ON results (guild_id, seat, ended_at);
CREATE INDEX results_by_channel ON results (channel_id, seat, ended_at);
"""

# Seasons and ladders (store/seasons.py): a server's seasons (at most one running), each player's rating per
# ladder (1v1, free-for-all), all-time (season 0) and per season, and the season each rated game counted in.
# The all-time ladders of games that ended before this step are rebuilt from their results (``AFTER`` below).
_V_SEASONS = """
CREATE TABLE seasons (
    id         INTEGER PRIMARY KEY,
    guild_id   INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    number     INTEGER NOT NULL,
    started_at REAL    NOT NULL,
    ends_at    REAL    NOT NULL,
    ended_at   REAL,
    started_by INTEGER NOT NULL,
    ended_by   INTEGER
);
CREATE UNIQUE INDEX seasons_one_running ON seasons (guild_id) WHERE ended_at IS NULL;
CREATE UNIQUE INDEX seasons_by_number ON seasons (guild_id, number);

CREATE TABLE ladder_ratings (
    guild_id   INTEGER NOT NULL,
    ladder     TEXT    NOT NULL CHECK (ladder IN ('1v1', 'ffa')),
    season     INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    mu         REAL    NOT NULL,
    sigma      REAL    NOT NULL,
    score      INTEGER NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    updated_at REAL    NOT NULL,
    PRIMARY KEY (guild_id, ladder, season, user_id)
);
CREATE INDEX ladder_board ON ladder_ratings (guild_id, ladder, season, score);

CREATE TABLE season_games (
    game_id INTEGER PRIMARY KEY REFERENCES games (id),
    season  INTEGER NOT NULL
);
"""

# Tournaments: each tournament (its spec, the settings of its games, entry rules, check-in and its status), its
# entrants, its pairings (one row per table of a round: the unique key makes a round's pairing happen once, and
# the row names the game and thread that play it) and the result of each table. ``due_at``/``due_kind``: the
# tournament's one timer (check-in closes, a round's time limit, the next round's games to open).
_V_TOURNAMENTS = """
CREATE TABLE tournaments (
    id         INTEGER PRIMARY KEY,
    guild_id   INTEGER,
    channel_id INTEGER NOT NULL,
    host_id    INTEGER NOT NULL,
    name       TEXT    NOT NULL,
    spec       TEXT    NOT NULL,
    settings   TEXT    NOT NULL DEFAULT '{}',
    status     TEXT    NOT NULL DEFAULT 'open'
               CHECK (status IN ('open', 'checkin', 'running', 'finished', 'cancelled')),
    round      INTEGER NOT NULL DEFAULT 0,
    round_started_at REAL,
    due_at     REAL,
    due_kind   TEXT,
    created_at REAL    NOT NULL,
    updated_at REAL    NOT NULL
);
CREATE INDEX tournaments_by_channel ON tournaments (channel_id, id);
CREATE INDEX tournaments_due ON tournaments (due_at) WHERE due_at IS NOT NULL;

CREATE TABLE tournament_entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    user_id       INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    rating        REAL    NOT NULL,
    team          INTEGER,
    checked_in    INTEGER NOT NULL DEFAULT 0,
    joined_at     REAL    NOT NULL,
    PRIMARY KEY (tournament_id, user_id)
);

CREATE TABLE tournament_pairings (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    round         INTEGER NOT NULL,
    table_no      INTEGER NOT NULL,
    entrants      TEXT    NOT NULL,
    bye           INTEGER NOT NULL DEFAULT 0,
    bracket       TEXT    NOT NULL DEFAULT '',
    thread_id     INTEGER,
    game_id       INTEGER REFERENCES games (id),
    PRIMARY KEY (tournament_id, round, table_no)
);
CREATE UNIQUE INDEX tournament_pairings_by_game ON tournament_pairings (game_id) WHERE game_id IS NOT NULL;

CREATE TABLE tournament_results (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    round         INTEGER NOT NULL,
    table_no      INTEGER NOT NULL,
    places        TEXT    NOT NULL,
    forfeits      TEXT    NOT NULL DEFAULT '[]',
    forced        INTEGER NOT NULL DEFAULT 0,
    at            REAL    NOT NULL,
    PRIMARY KEY (tournament_id, round, table_no)
);
"""

# A tournament of fixed teams: each team's name (one per tournament, compared without case) under its number, the
# key its members' ``tournament_entrants.team`` hold and the one its pairings name.
_V_TOURNAMENT_TEAMS = """
CREATE TABLE tournament_teams (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    team          INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    name_key      TEXT    NOT NULL,
    created_at    REAL    NOT NULL,
    PRIMARY KEY (tournament_id, team)
);
CREATE UNIQUE INDEX tournament_teams_by_name ON tournament_teams (tournament_id, name_key);
"""

# 13: the channel messages of a seat's offer to a substitute and of the AI's takeover that has the host's button to
# offer it, so that a claim or a withdrawal edits the offer (who took it, or that it was withdrawn; no button) and
# an offer takes the takeover's button away, after a restart too.
_V_OFFER_MESSAGES = """
ALTER TABLE seat_status ADD COLUMN offer_message INTEGER;
ALTER TABLE seat_status ADD COLUMN takeover_message INTEGER;
"""

# 14: the live board's sessions ended by Leave (web/server.py), kept until the session would have expired, so that
# a revoked cookie or Activity token opens nothing after a restart either. ``nonce`` is the session's own.
_V_BOARD_REVOCATIONS = """
CREATE TABLE board_revocations (
    nonce      TEXT PRIMARY KEY,
    expires_at REAL NOT NULL
);
"""

# 15: fair ratings (docs/history.md, "What a rated game is"). Who removed a seat's player after the start
# (``seat_status.removed_by``, copied to its result: a kick is not the kicked player's loss and not rated for the
# remover), whether a seat went out before the end (``went_out``: a player still in at an end by the standings did
# not leave early), why a result was not rated or counted less (``rating_note``), and whom each player met in rated
# games (``rated_opponents``; ``ratings.trusted``, ``established``: an opponent weighs fully and a player is listed
# once established). Players already shown (5 rated games) start established; ``ratings rebuild`` applies the rules
# to every stored game.
_V_FAIR_RATINGS = """
ALTER TABLE seat_status ADD COLUMN removed_by INTEGER;
ALTER TABLE results ADD COLUMN removed_by INTEGER;
ALTER TABLE results ADD COLUMN went_out INTEGER;
ALTER TABLE results ADD COLUMN rating_note TEXT;
ALTER TABLE ratings ADD COLUMN trusted INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ratings ADD COLUMN established INTEGER NOT NULL DEFAULT 0;
UPDATE ratings SET established = 1 WHERE games >= 5;
CREATE TABLE rated_opponents (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    opponent_id INTEGER NOT NULL,
    trusted     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, user_id, opponent_id)
) WITHOUT ROWID;
"""

# 16: teams by consent: a team's creator (``tournament_teams.creator``) invites its players
# (``tournament_invites``); a player joins a team by its name only with an invitation.
_V_TEAM_INVITES = """
ALTER TABLE tournament_teams ADD COLUMN creator INTEGER;
CREATE TABLE tournament_invites (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    team          INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, team, user_id)
);
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2, _V3, _V4, _V_ANNOUNCED, _V_MAPS, _V_PANELS, _V_LOG_TURNS,
                               _V_SUBSTITUTES, _V_SEASONS, _V_TOURNAMENTS, _V_TOURNAMENT_TEAMS,
                               _V_OFFER_MESSAGES, _V_BOARD_REVOCATIONS,
                               _V_FAIR_RATINGS, _V_TEAM_INVITES,
                               # From 17 on, each step is written once for both databases (store/schema.py).
                               *(step.sqlite for step in STEPS))
LATEST_VERSION = len(MIGRATIONS)


def _fill_results(conn: sqlite3.Connection, rebuild: Rebuild | None) -> None:
    from .results import backfill

    backfill(conn, _rater(conn, rebuild))


def _fill_ladders(conn: sqlite3.Connection, rebuild: Rebuild | None) -> None:
    from .results import backfill_ladders

    backfill_ladders(conn, _rater(conn, rebuild))


def _rater(conn: sqlite3.Connection, rebuild: Rebuild | None) -> Rebuild:
    """What rates the games a backfill finds: the rebuild the store was handed (``table.results.rebuilt``; the
    store decides no rating). A database with finished games to rate needs one: it is refused, untouched, without."""
    if rebuild is not None:
        return rebuild
    if conn.execute("SELECT 1 FROM games WHERE status = 'finished' LIMIT 1").fetchone():
        raise DatabaseError("The database holds games that ended before ratings were kept; upgrade it with the bot "
                            "(bot.py), which rates them.")
    return lambda results, season_of: {}


# Work a step needs beyond its SQL, run after it in the same transaction (on the plain ``sqlite3`` connection),
# given the rebuild that rates the games the backfills find (``SQLiteStore(rebuild=...)``, ``migrate_sync``).
AFTER: dict[int, Callable[[sqlite3.Connection, Rebuild | None], None]] = {4: _fill_results}
AFTER[MIGRATIONS.index(_V_SEASONS) + 1] = _fill_ladders


def statements(script: str) -> Iterator[str]:
    """Split a migration script into complete SQL statements (trigger bodies stay whole)."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statement = buffer.strip()
            buffer = ""
            if statement.rstrip(";").strip():
                yield statement
    if buffer.strip():
        raise ValueError(f"incomplete SQL statement in a migration: {buffer.strip()[:60]!r}")


def migrate_sync(conn: sqlite3.Connection, target: int = LATEST_VERSION, rebuild: Rebuild | None = None) -> int:
    """Bring a plain ``sqlite3`` connection (autocommit) up to ``target`` in one transaction; return the version.

    The store migrates through aiosqlite at open; this twin serves tools and tests.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        for number in range(version, target):
            for statement in statements(MIGRATIONS[number]):
                conn.execute(statement)
            if number + 1 in AFTER:
                AFTER[number + 1](conn, rebuild)
        if target > version:
            conn.execute(f"PRAGMA user_version = {int(target)}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return max(version, target)


__all__ = ["AFTER", "LATEST_VERSION", "MIGRATIONS", "migrate_sync", "statements"]
