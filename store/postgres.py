"""The store on PostgreSQL, through an asyncpg connection pool: several bot processes can share one database.

The logic and the SQL are shared with SQLite (store/sql.py); this module holds what is PostgreSQL's own: the
``$1`` placeholders, the pool, the migrations (store/postgres_migrations.py) and the game lock. Every write is
one transaction on a connection of the pool; a write to a game first locks its row (``SELECT ... FOR UPDATE``),
so the game stays locked until the commit and two processes never apply two actions to a game at once (the
second waits, then reads the new version and the stored result of a repeated interaction). Within a process
the per-game queue of store/sql.py still orders the taps on one game, so they do not all hold a connection
while they wait.
"""

from __future__ import annotations

import functools
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TypeAlias
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from .errors import DatabaseError, StoreError
from .postgres_migrations import POSTGRES_LATEST_VERSION, POSTGRES_MIGRATIONS
from .sql import SQLStore
from .transaction import Row, Step

if TYPE_CHECKING:
    from asyncpg.pool import PoolConnectionProxy
    from asyncpg.transaction import Transaction

    # A connection of its own or one of the pool's (which stands for one).
    Connection: TypeAlias = asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]

URL_SCHEMES = ("postgresql://", "postgres://")
# Any constant works: it only keeps two processes that start at once from migrating together.
_MIGRATION_LOCK = 0x5249534B  # "RISK"
_LOCK_GAME = "SELECT id FROM games WHERE id = $1 FOR UPDATE"
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


class PostgresTransaction(PostgresReader):
    """One transaction on a connection of the pool."""

    def __init__(self, conn: Connection, transaction: Transaction) -> None:
        super().__init__(conn)
        self.transaction = transaction
        self.committed = False

    async def run(self, *steps: Step) -> list[Row]:
        if self.committed:
            raise RuntimeError("the transaction is already committed")
        rows: list[Row] = []
        for step in steps:
            if step.many:
                if step.params:
                    await self.conn.executemany(dollar_params(step.sql), step.params)
                rows = []
            else:
                rows = await self.fetch(step.sql, step.params)
        return rows

    async def commit(self, *steps: Step) -> None:
        await self.run(*steps)
        await self.transaction.commit()
        self.committed = True


def _database_error(exc: BaseException, url: str) -> DatabaseError:
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

    def __init__(self, url: str, *, pool_size: int = 10, command_timeout: float = 30.0, cache_size: int = 2048,
                 server_settings: Mapping[str, str] | None = None, clock: Callable[[], float] = time.time) -> None:
        super().__init__(cache_size=cache_size, clock=clock)
        if not is_postgres_url(url):
            raise ValueError("a PostgreSQL URL starts with postgresql://")
        self.url = url
        self.pool_size = pool_size
        self.command_timeout = command_timeout
        self.server_settings = dict(server_settings or {})
        self._pool: asyncpg.Pool | None = None

    def __repr__(self) -> str:
        return f"PostgresStore({redacted(self.url)!r})"

    # -- lifetime ----------------------------------------------------------------------------------
    async def open(self) -> None:
        if self._pool is not None:
            return
        try:
            pool = await asyncpg.create_pool(self.url, min_size=1, max_size=self.pool_size,
                                             command_timeout=self.command_timeout,
                                             server_settings=self.server_settings or None)
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
        self._cache.clear()
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
        """One transaction. With ``game_id`` it first locks the game's row, in a statement of its own: under READ
        COMMITTED each later statement takes a new snapshot, so it sees what the lock's last holder committed."""
        try:
            async with self._pool_or_fail().acquire() as conn:
                transaction = conn.transaction()
                await transaction.start()
                tx = PostgresTransaction(conn, transaction)
                try:
                    if game_id is not None:
                        await conn.execute(_LOCK_GAME, game_id)
                    yield tx
                    if not tx.committed:
                        await transaction.commit()
                        tx.committed = True
                except BaseException:
                    if not tx.committed and not conn.is_closed():
                        await transaction.rollback()
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


__all__ = ["PostgresStore", "dollar_params", "is_postgres_url", "migrate_postgres", "open_postgres", "redacted"]
