"""The store on PostgreSQL, through an asyncpg connection pool: several bot processes can share one database.

The logic and the SQL are shared with SQLite (store/sql.py); this module holds what is PostgreSQL's own: the
``$1`` placeholders, the pool, the migrations (store/postgres_migrations.py) and the game lock. Every write is
one transaction on a connection of the pool; a write to a game first locks its row (``SELECT ... FOR UPDATE``),
so the game stays locked until the commit and two processes never apply two actions to a game at once (the
second waits, then reads the new version and the stored result of a repeated interaction). Within a process
the per-game queue of store/sql.py still orders the taps on one game, so they do not all hold a connection
while they wait.

Round trips: each message to the server and its answer costs more than the statements (see
docs/performance.md), so a transaction sends as few as it can. ``BEGIN`` and the game's lock go together in
one simple query, the reads each take one (a statement of the extended protocol, prepared once per
connection), and the writes go with the ``COMMIT`` as one simple query of several statements: an action is
three round trips (lock, read, write and commit). A simple query carries no parameters, so the writes' values
are written into their SQL as PostgreSQL literals (``literal``, with ``standard_conforming_strings`` on for
the bot's connections: a backslash is an ordinary character). A connection goes back to the pool as it is:
the store changes no session state (no ``SET``, ``LISTEN``, cursor or session lock), and asyncpg rolls back
a transaction left open before then.
"""

from __future__ import annotations

import functools
import math
import re
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from ops import metrics

from .errors import DatabaseError, StoreError
from .postgres_migrations import POSTGRES_LATEST_VERSION, POSTGRES_MIGRATIONS
from .sql import SQLStore, Writing
from .transaction import Row, Step

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy

    # A connection of its own or one of the pool's (which stands for one).
    Connection: TypeAlias = asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]

URL_SCHEMES = ("postgresql://", "postgres://")
# Any constant works: it only keeps two processes that start at once from migrating together.
_MIGRATION_LOCK = 0x5249534B  # "RISK"
# The game's id is an int, written into the SQL: the lock travels with BEGIN in one simple query.
# A server's ratings, locked by the transaction that rates a game of it (the first key of a two-key advisory
# lock; the second is the guild's id, cut to 31 bits: two servers that share it only wait for each other).
_RATINGS_LOCK = 0x52415445  # "RATE"
_BEGIN_AND_LOCK_GAME = "BEGIN; SELECT id FROM games WHERE id = {game_id:d} FOR UPDATE"
_DATABASE_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError)


def is_postgres_url(setting: str) -> bool:
    """Whether a database setting names a PostgreSQL server (otherwise it is a SQLite file)."""
    return setting.strip().lower().startswith(URL_SCHEMES)


def redacted(url: str) -> str:
    """The URL without its password, for logs and messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


@functools.lru_cache(maxsize=1024)
def dollar_params(sql: str) -> str:
    """The shared SQL's ``?`` placeholders as PostgreSQL's ``$1, $2, ...`` (the SQL has no ``?`` in literals)."""
    parts = sql.split("?")
    return parts[0] + "".join(f"${number}{rest}" for number, rest in enumerate(parts[1:], 1))


class PostgresReader:
    """Reads on a connection of the pool."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return [tuple(row) for row in await self.conn.fetch(dollar_params(sql), *params)]


def literal(value: object) -> str:
    """A value as a PostgreSQL literal, for a statement sent without parameters (the bot's connections have
    ``standard_conforming_strings`` on: in a quoted string only the quote itself is doubled)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):  # quoted, so it fits an INTEGER column (as asyncpg sends it) and a BOOLEAN one
        return "'1'" if value else "'0'"
    if isinstance(value, int):
        return f"({value:d})" if value < 0 else f"{value:d}"
    if isinstance(value, float):
        if math.isnan(value):
            return "'NaN'::float8"
        if math.isinf(value):
            return "'Infinity'::float8" if value > 0 else "'-Infinity'::float8"
        return f"'{value!r}'::float8"  # parsed as a float, not a numeric: exact, and -0.0 keeps its sign
    if isinstance(value, str):
        if "\x00" in value:  # a query is a C string to the server; PostgreSQL's text cannot hold it either
            raise DatabaseError("PostgreSQL cannot store the character NUL; the bot wrote nothing.")
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bytes | bytearray | memoryview):
        return "'\\x" + bytes(value).hex() + "'::bytea"
    raise TypeError(f"no PostgreSQL literal for {type(value).__name__}")


def inline(sql: str, params: Sequence[Any]) -> str:
    """The shared SQL with its ``?`` placeholders replaced by the values as literals."""
    parts = sql.split("?")
    if len(parts) != len(params) + 1:
        raise ValueError(f"{len(parts) - 1} placeholders for {len(params)} values in {sql!r}")
    return parts[0] + "".join(literal(value) + rest for value, rest in zip(params, parts[1:], strict=True))


# An insert of one row of values, whose rows may go in one statement: every row is inserted or (DO NOTHING)
# skipped as by one statement each. With DO UPDATE two rows on one key would fail, so those stay one a row.
_ONE_ROW_INSERT = re.compile(r"(INSERT INTO [^;]+? VALUES )(\([^()]*\))((?: ON CONFLICT [^;]*DO NOTHING)?)", re.S)


def statements(steps: Sequence[Step]) -> list[str]:
    """Steps as statements with their values written in. The rows of a ``many`` step: one insert of them all
    if it is a plain insert of values, else one statement a row, in order."""
    written: list[str] = []
    for step in steps:
        if not step.many:
            written.append(inline(step.sql, step.params))
            continue
        insert = _ONE_ROW_INSERT.fullmatch(step.sql)
        if insert is not None and len(step.params) > 1:
            head, row, tail = insert.groups()
            written.append(head + ", ".join(inline(row, values) for values in step.params) + tail)
        else:
            written.extend(inline(step.sql, values) for values in step.params)
    return written


class PostgresTransaction(PostgresReader):
    """One transaction on a connection of the pool. It begins with its first message to the server (a game's
    transaction begins with the lock); ``run`` and ``commit`` send their writes as one simple query each, and
    ``commit`` ends the transaction in that same round trip."""

    def __init__(self, conn: Connection, *, begun: bool = False) -> None:
        super().__init__(conn)
        self.begun = begun
        self.committed = False

    def _open(self) -> None:
        if self.committed:
            raise RuntimeError("the transaction is already committed")

    async def fetch(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        if not self.begun and not self.committed:  # a read cannot carry BEGIN with it: BEGIN goes first, alone
            await self.conn.execute("BEGIN")
            self.begun = True
        return await super().fetch(sql, params)

    async def _send(self, written: list[str]) -> None:
        if not self.begun:
            written.insert(0, "BEGIN")
        if written:
            await self.conn.execute(";\n".join(written))
            self.begun = True

    async def run(self, *steps: Step) -> list[Row]:
        """The steps in order; the rows of the last. The steps before the last go in one round trip, the last
        in another (its rows come back only through the extended protocol) unless it is a ``many`` step."""
        self._open()
        if not steps:
            return []
        *leading, last = steps
        if last.many:
            await self._send(statements(steps))
            return []
        if leading:
            await self._send(statements(leading))
        return await self.fetch(last.sql, last.params)

    async def commit(self, *steps: Step) -> None:
        """The last steps and ``COMMIT``, in one round trip."""
        self._open()
        await self._send([*statements(steps), "COMMIT"])
        self.committed = True


async def _keep_session(conn: asyncpg.Connection[asyncpg.Record]) -> None:
    """A connection goes back to the pool as it is: the store leaves no session state to reset (asyncpg has
    rolled back any transaction left open before it calls this)."""


def _database_error(exc: BaseException, url: str) -> DatabaseError:
    metrics.database_failed()
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError | asyncpg.CannotConnectNowError | asyncpg.ConnectionDoesNotExistError):
        return DatabaseError("Cannot reach the PostgreSQL database {url}: {error}.", url=redacted(url), error=text)
    if isinstance(exc, asyncpg.InvalidPasswordError | asyncpg.InvalidAuthorizationSpecificationError):
        return DatabaseError("PostgreSQL refused the bot's login to {url}: {error}.", url=redacted(url), error=text)
    if isinstance(exc, asyncpg.ReadOnlySQLTransactionError):
        return DatabaseError("The database {url} is read-only: the bot cannot save anything to it.",
                             url=redacted(url))
    return DatabaseError("The database {url} failed: {error}.", url=redacted(url), error=text)


class PostgresStore(SQLStore):
    """The store on a PostgreSQL server (``postgresql://user:password@host/dbname``).

    ``pool_size`` connections at most; ``command_timeout`` seconds for one statement; ``server_settings`` are
    PostgreSQL settings for the bot's connections (for example ``{"synchronous_commit": "off"}``).
    """

    _row_lock = " FOR UPDATE"  # a tournament's row, locked by the transaction that pairs its next round

    def __init__(self, url: str, *, pool_size: int = 10, command_timeout: float = 30.0, cache_size: int = 2048,
                 server_settings: Mapping[str, str] | None = None, clock: Callable[[], float] = time.time) -> None:
        super().__init__(cache_size=cache_size, clock=clock)
        if not is_postgres_url(url):
            raise ValueError("a PostgreSQL URL starts with postgresql://")
        self.url = url
        self.pool_size = pool_size
        self.command_timeout = command_timeout
        # Literals in the writes' SQL (``literal``) rely on it; it is PostgreSQL's default since 9.1.
        self.server_settings = {**dict(server_settings or {}), "standard_conforming_strings": "on"}
        self._pool: asyncpg.Pool | None = None

    def __repr__(self) -> str:
        return f"PostgresStore({redacted(self.url)!r})"

    # -- lifetime ----------------------------------------------------------------------------------
    async def open(self) -> None:
        if self._pool is not None:
            return
        try:
            pool = await asyncpg.create_pool(self.url, min_size=1, max_size=self.pool_size,
                                             command_timeout=self.command_timeout, reset=_keep_session,
                                             server_settings=self.server_settings)
        except _DATABASE_ERRORS as exc:
            raise _database_error(exc, self.url) from exc
        try:
            async with pool.acquire() as conn:
                await migrate_postgres(conn, self.url)
        except BaseException as exc:
            await pool.close()
            if isinstance(exc, _DATABASE_ERRORS):
                raise _database_error(exc, self.url) from exc
            raise
        self._pool = pool
        await self._register_stored_maps()

    async def close(self) -> None:
        await self._wait_inflight()
        pool, self._pool = self._pool, None
        self._closed()
        if pool is not None:
            await pool.close()

    @property
    def schema_version(self) -> int:
        return POSTGRES_LATEST_VERSION

    def _pool_or_fail(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("the store is not open")
        return self._pool

    # -- transactions ------------------------------------------------------------------------------
    @asynccontextmanager
    async def _transaction(self, game_id: int | None = None) -> AsyncIterator[PostgresTransaction]:
        """One transaction. With ``game_id`` it first locks the game's row, in a statement of its own (sent with
        BEGIN): under READ COMMITTED each later statement takes a new snapshot, so it sees what the lock's last
        holder committed."""
        try:
            async with metrics.transaction(), self._pool_or_fail().acquire() as conn:
                tx = PostgresTransaction(conn)
                try:
                    if game_id is not None:
                        await conn.execute(_BEGIN_AND_LOCK_GAME.format(game_id=int(game_id)))
                        tx.begun = True
                    yield tx
                    if tx.begun and not tx.committed:
                        await tx.commit()
                except BaseException:
                    if not conn.is_closed() and conn.is_in_transaction():
                        await conn.execute("ROLLBACK")
                    raise
        except StoreError:
            raise
        except _DATABASE_ERRORS as exc:
            if self._unique_violation(exc):
                raise
            raise _database_error(exc, self.url) from exc

    @asynccontextmanager
    async def _reading(self) -> AsyncIterator[PostgresReader]:
        try:
            async with self._pool_or_fail().acquire() as conn:
                yield PostgresReader(conn)
        except StoreError:
            raise
        except _DATABASE_ERRORS as exc:
            raise _database_error(exc, self.url) from exc

    def _unique_violation(self, exc: BaseException) -> bool:
        return isinstance(exc, asyncpg.UniqueViolationError)

    async def _lock_ratings(self, db: Writing, guild_id: int) -> None:
        """Two games of one server ending at once: each transaction would read the ratings the other is about
        to change, and under READ COMMITTED not see that change (a lost update). This lock, held until the
        commit, makes the second wait for the first's commit; its next statements then read what it wrote."""
        await db.fetch("SELECT pg_advisory_xact_lock(?, ?)", (_RATINGS_LOCK, guild_id % 2**31))


async def stored_version(conn: Connection) -> int:
    """The schema version of a PostgreSQL database (0 if the bot never used it)."""
    await conn.execute("CREATE TABLE IF NOT EXISTS store_schema (version INTEGER NOT NULL)")
    return int(await conn.fetchval("SELECT COALESCE(max(version), 0) FROM store_schema"))


async def migrate_postgres(conn: Connection, url: str, target: int = POSTGRES_LATEST_VERSION) -> int:
    """Bring the database up to ``target`` in one transaction (two processes starting at once take turns)."""
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
        version = await stored_version(conn)
        if version > POSTGRES_LATEST_VERSION:
            raise DatabaseError("The database {path} was written by a newer version of the bot (database version "
                                "{version}; this version knows up to {latest}). Upgrade the bot; the database was "
                                "left unchanged.", path=redacted(url), version=version,
                                latest=POSTGRES_LATEST_VERSION)
        for number in range(version, target):
            await conn.execute(POSTGRES_MIGRATIONS[number])
        if target > version:
            await conn.execute("INSERT INTO store_schema (version) VALUES ($1)", target)
    return max(version, target)



async def open_postgres(url: str, **options: Any) -> PostgresStore:
    """Open (creating or upgrading the schema of) the PostgreSQL database at ``url``."""
    store = PostgresStore(url, **options)
    await store.open()
    return store


__all__ = ["PostgresStore", "dollar_params", "inline", "is_postgres_url", "literal", "migrate_postgres",
           "open_postgres", "redacted"]
