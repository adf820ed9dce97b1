"""The store on SQLite, through one long-lived aiosqlite connection.

The logic and the SQL are shared with PostgreSQL (store/sql.py); this module holds what is SQLite's own.
Transactions: every write is one ``BEGIN IMMEDIATE ... COMMIT`` on the single connection, guarded by an
``asyncio.Lock`` (two transactions on one connection would collide); its statements go to the connection's
thread in batches (store/transaction.py). ``BEGIN IMMEDIATE`` serialises every writer of the file, so a game
needs no row lock. A second connection checkpoints the write-ahead log in the background, off the commit path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import stat
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite

from ops import metrics

from .errors import DatabaseError, StoreError
from .migrations import AFTER, LATEST_VERSION, MIGRATIONS, statements
from .process_lock import ProcessLock
from .sql import RUNNING_GAMES_SQL, SQLStore
from .transaction import Reader, Transaction, run_on_connection

if TYPE_CHECKING:
    from .results import Rebuild

log = logging.getLogger(__name__)
DEFAULT_PATH = Path("data/risk.sqlite3")
SQLITE_HEADER = b"SQLite format 3\x00"
SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")


def _database_error(exc: sqlite3.Error, path: str | Path) -> DatabaseError:
    metrics.database_failed()
    text = str(exc)
    if "malformed" in text or "corrupt" in text:
        return DatabaseError("The database {path} is damaged ({error}): restore it from a backup, or move it away "
                             "to start a new one.", path=path, error=text)
    if "not a database" in text:
        return DatabaseError("{path} is not a SQLite database (or it is damaged); the bot left it untouched.",
                             path=path)
    if "readonly" in text or "read-only" in text:
        return DatabaseError("The database {path} is read-only: the bot cannot save anything to it.", path=path)
    if "locked" in text or "busy" in text:
        return DatabaseError("The database is busy (another program is writing to it); try again in a moment.")
    if "disk" in text or "full" in text:
        return DatabaseError("The database {path} cannot be written ({error}); check the free disk space.",
                             path=path, error=text)
    return DatabaseError("The database {path} failed: {error}.", path=path, error=text)


def _check_file(path: Path) -> None:
    """Refuse, before SQLite touches it, a path that is a folder, not SQLite, or read-only. A new folder and a
    new database are the owner's alone (0700 and 0600): the games hold every player's hidden cards."""
    try:
        if not path.parent.exists():
            path.parent.mkdir(parents=True, mode=0o700)
    except OSError as exc:
        raise DatabaseError("Cannot create the folder for the database {path}: {error}.", path=path,
                            error=exc.strerror) from exc
    if not path.exists():
        if not os.access(path.parent, os.W_OK):
            raise DatabaseError("Cannot create the database {path}: its folder is read-only.", path=path)
        with contextlib.suppress(FileExistsError):  # an empty file is a new database to SQLite
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        return
    if not path.is_file():
        raise DatabaseError("{path} is not a file; give the path of a database file.", path=path)
    mode = path.stat().st_mode
    # Root may write anyway; a file without write permission is still meant to stay unchanged.
    if not os.access(path, os.W_OK) or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise DatabaseError("The database {path} is read-only: the bot needs to write to it. "
                            "Make it writable or choose another file.", path=path)
    if not os.access(path.parent, os.W_OK):
        raise DatabaseError("The folder of the database {path} is read-only: SQLite needs to create its "
                            "journal files next to it.", path=path)
    with path.open("rb") as f:
        header = f.read(len(SQLITE_HEADER))
    if header and header != SQLITE_HEADER:
        raise DatabaseError("{path} is not a SQLite database; the bot left it untouched. "
                            "Move it away or choose another file.", path=path)


def _newer_schema(path: str | Path, version: int) -> DatabaseError:
    return DatabaseError("The database {path} was written by a newer version of the bot (database version "
                         "{version}; this version knows up to {latest}). Upgrade the bot; the file was "
                         "left unchanged.", path=path, version=version, latest=LATEST_VERSION)



def _after(hook: Callable[[sqlite3.Connection, Rebuild | None], None], rebuild: Rebuild | None,
           conn: sqlite3.Connection) -> None:
    """A migration step's work beyond its SQL (``migrations.AFTER``), handed the store's rebuild."""
    hook(conn, rebuild)


class SQLiteStore(SQLStore):
    """The store in one SQLite file: WAL journal, foreign keys on, one connection for every read and write.

    ``synchronous`` is SQLite's: NORMAL survives any crash of the bot (only power loss can drop the last
    commits), FULL survives power loss too. ``checkpoint_interval`` (seconds, None to turn off) is how often a
    second connection copies the write-ahead log into the database in the background, so that commits rarely
    have to (see docs/storage.md). ``sole_process``: the bot runs on this file, so no other bot may; the store
    holds an exclusive lock beside it from ``open`` to ``close`` (store/process_lock.py) and ``open`` refuses if
    another process holds it.
    """

    def __init__(self, path: str | os.PathLike[str] = DEFAULT_PATH, *, synchronous: str = "NORMAL",
                 busy_timeout_ms: int = 5000, cache_size: int = 2048, checkpoint_interval: float | None = 0.05,
                 clock: Callable[[], float] = time.time, sole_process: bool = False,
                 rebuild: Rebuild | None = None) -> None:
        if synchronous.upper() not in SYNCHRONOUS_MODES:
            raise ValueError(f"synchronous must be one of {', '.join(SYNCHRONOUS_MODES)}")
        super().__init__(cache_size=cache_size, clock=clock)
        self.path = Path(path)
        self.synchronous = synchronous.upper()
        self.busy_timeout_ms = int(busy_timeout_ms)
        self.checkpoint_interval = checkpoint_interval
        self.rebuild = rebuild   # how the historical migrations' backfills rate (``migrations.AFTER``)
        self._db: aiosqlite.Connection | None = None
        self._checkpointer: asyncio.Task[None] | None = None
        self._stop_checkpoints = asyncio.Event()
        self._commits = 0
        self._tx_lock = asyncio.Lock()
        self._process_lock = ProcessLock(self.path) if sole_process else None

    # -- lifetime ----------------------------------------------------------------------------------
    async def open(self) -> None:
        if self._db is not None:
            return
        _check_file(self.path)
        if self._process_lock is not None:
            self._process_lock.acquire()  # before anything is read or written: a second bot stops here
        try:
            db = await aiosqlite.connect(str(self.path), isolation_level=None)
        except sqlite3.Error as exc:
            self._release()
            raise _database_error(exc, self.path) from exc
        try:
            await self._prepare(db)
        except sqlite3.Error as exc:
            await db.close()
            self._release()
            raise _database_error(exc, self.path) from exc
        except BaseException:
            await db.close()
            self._release()
            raise
        self._db = db
        await self._register_stored_maps()
        if self.checkpoint_interval is not None:
            self._stop_checkpoints.clear()
            self._checkpointer = asyncio.get_running_loop().create_task(
                self._checkpoint_in_background(), name="background:wal-checkpoint")

    async def _prepare(self, db: aiosqlite.Connection) -> None:
        """Settings of the connection, then migrations. Nothing is written before the version is checked."""
        await db.execute(f"PRAGMA busy_timeout = {self.busy_timeout_ms}")
        await db.execute("PRAGMA foreign_keys = ON")
        version = await self._scalar(db, "PRAGMA user_version")
        if version > LATEST_VERSION:
            raise _newer_schema(self.path, version)
        mode = await self._scalar(db, "PRAGMA journal_mode = WAL")
        if str(mode).lower() != "wal":
            raise DatabaseError("The database {path} cannot use write-ahead logging (journal mode {mode}).",
                                path=self.path, mode=mode)
        await db.execute(f"PRAGMA synchronous = {self.synchronous}")
        if version < LATEST_VERSION:
            await self._migrate(db)

    async def _migrate(self, db: aiosqlite.Connection) -> None:
        """Apply the missing migration steps in one transaction."""
        await db.execute("BEGIN IMMEDIATE")
        try:
            version = await self._scalar(db, "PRAGMA user_version")
            if version > LATEST_VERSION:  # another process upgraded it meanwhile
                raise _newer_schema(self.path, version)
            for number in range(version, LATEST_VERSION):
                for statement in statements(MIGRATIONS[number]):
                    await db.execute(statement)
                if number + 1 in AFTER:
                    await run_on_connection(db, partial(_after, AFTER[number + 1], self.rebuild))
            await db.execute(f"PRAGMA user_version = {LATEST_VERSION}")
            await db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                await db.execute("ROLLBACK")
            raise

    @staticmethod
    async def _scalar(db: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = list(await db.execute_fetchall(sql, params))
        return rows[0][0] if rows else None

    async def _checkpoint_in_background(self) -> None:
        """Copy committed pages from the write-ahead log into the database while writers go on.

        SQLite otherwise checkpoints inside the commit that fills the log (every 1000 pages), and that commit,
        with every write queued behind it, waits for the copy and its fsync: the slowest 1% of actions. A
        passive checkpoint on another connection never blocks a writer; the commit that later fills the log
        finds it copied already and only restarts it.

        ``close`` asks it to stop (an event, never a cancellation), so its connection, and the thread behind it,
        is always closed before the store is: a cancellation while connecting would leave that thread to report
        to a loop that may have ended.
        """
        interval = self.checkpoint_interval or 0.05
        seen = self._commits
        try:
            conn = await aiosqlite.connect(str(self.path), isolation_level=None)
        except sqlite3.Error as exc:
            log.warning("no background checkpoints for %s: %s", self.path, exc)
            return
        try:
            while not await self._stopping(interval):
                if self._commits != seen:
                    seen = self._commits
                    try:
                        await conn.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)")
                    except sqlite3.Error as exc:  # the commits checkpoint by themselves meanwhile
                        log.warning("background checkpoint of %s failed: %s", self.path, exc)
                        if await self._stopping(interval * 20):
                            break
        finally:
            await asyncio.shield(conn.close())

    async def _stopping(self, seconds: float) -> bool:
        """Wait ``seconds``, or less when the store is closing: whether it is."""
        try:
            async with asyncio.timeout(seconds):  # no task of its own (wait_for would start one each time)
                await self._stop_checkpoints.wait()
        except TimeoutError:
            return False
        return True

    async def close(self) -> None:
        await self._wait_inflight()
        checkpointer, self._checkpointer = self._checkpointer, None
        if checkpointer is not None:
            self._stop_checkpoints.set()
            await asyncio.gather(checkpointer, return_exceptions=True)
        db, self._db = self._db, None
        self._closed()
        if db is not None:
            await db.close()
        self._release()

    def _release(self) -> None:
        if self._process_lock is not None:
            self._process_lock.release()

    @property
    def schema_version(self) -> int:
        return LATEST_VERSION

    # -- transactions ------------------------------------------------------------------------------
    def _conn(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("the store is not open")
        return self._db

    @asynccontextmanager
    async def _transaction(self, game_id: int | None = None) -> AsyncIterator[Transaction]:
        """One ``BEGIN IMMEDIATE ... COMMIT``: committed at the end of the block unless the block committed it
        with its last statements; any exception rolls it back. ``BEGIN IMMEDIATE`` locks the whole file against
        other writers, so the game needs no lock of its own."""
        db = self._conn()
        async with metrics.transaction(), self._tx_lock:
            tx = Transaction(db)
            try:
                try:
                    yield tx
                    if tx.begun and not tx.committed:
                        await tx.commit()
                    if tx.committed:
                        self._commits += 1
                except BaseException:
                    if db.in_transaction:
                        await db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise _database_error(exc, self.path) from exc

    def _unique_violation(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.IntegrityError)

    @asynccontextmanager
    async def _reading(self) -> AsyncIterator[Reader]:
        """Reads wait for the transaction in progress: on the shared connection they would see its uncommitted
        changes. Each read is a single statement, so it sees one consistent moment."""
        db = self._conn()
        async with self._tx_lock:
            try:
                yield Reader(db)
            except sqlite3.Error as exc:
                raise _database_error(exc, self.path) from exc

async def open_store(path: str | Path = DEFAULT_PATH, **options: Any) -> SQLiteStore:
    """Open (creating or upgrading) the database at ``path``; options go to ``SQLiteStore``."""
    store = SQLiteStore(path, **options)
    await store.open()
    return store


__all__ = ["DEFAULT_PATH", "RUNNING_GAMES_SQL", "SQLiteStore", "StoreError", "open_store"]
