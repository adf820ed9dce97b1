"""Backups a host can trust: ``bot.py backup PATH`` and ``bot.py restore PATH`` (docs/deploy.md).

SQLite: a backup is SQLite's online backup API (``sqlite3.Connection.backup``) from a read-only connection, in
one step, so it is one consistent moment of the database even while the bot writes (a plain copy of the file may
catch a write half-way). It is written beside ``PATH`` first, checked (``PRAGMA integrity_check``, the schema
version, the games table) and only then renamed to ``PATH``; an existing file is never overwritten.

A restore checks the backup the same way before anything is replaced, then takes the database's process lock
(store/process_lock.py: a running bot holds it, so a database in use is refused), keeps the database it replaces
beside it (``<database>.replaced-<time>``) and copies the backup in with the same API. An older backup is upgraded
by the next start, as any database is.

PostgreSQL: ``pg_dump --format=custom`` (consistent while the bot runs: one snapshot) and ``pg_restore``, into an
empty database only (a database with the bot's tables in it may be in use by running bots, which PostgreSQL
cannot tell); the dump is listed with ``pg_restore --list`` first, which reads it whole.

``bot.py migrate`` is another thing: it copies the games from one database to another (SQLite to PostgreSQL or
back), checking each by replaying its log. A backup is the whole database, as it is, in its own kind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from .errors import DatabaseError
from .migrations import LATEST_VERSION
from .postgres import is_postgres_url, redacted
from .process_lock import ProcessLock

SQLITE_HEADER = b"SQLite format 3\x00"
COUNTED = ("games", "events", "ratings")  # what a restore reports


@dataclass(frozen=True)
class BackupReport:
    """What a backup or a restore holds: its schema version and how many games, events and ratings."""

    path: str
    version: int
    counts: dict[str, int]

    def lines(self) -> list[str]:
        counts = ", ".join(f"{n} {name if n != 1 else name[:-1]}" for name, n in self.counts.items())
        upgrade = "" if self.version == LATEST_VERSION else \
            f" (database version {self.version}: the bot upgrades it to {LATEST_VERSION} when it starts)"
        return [f"{self.path}: {counts}{upgrade}"]


def _read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)


def check(path: Path) -> BackupReport:
    """Whether ``path`` is a whole, readable database of this bot that this version can run; its contents."""
    if not path.is_file():
        raise DatabaseError("There is no backup at {path}.", path=path)
    with path.open("rb") as f:
        if f.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise DatabaseError("{path} is not a SQLite database (a PostgreSQL dump is restored with a "
                                "postgresql:// --db).", path=path)
    try:
        with contextlib.closing(_read_only(path)) as conn:
            problems = [row[0] for row in conn.execute("PRAGMA integrity_check").fetchall()]
            if problems != ["ok"]:
                raise DatabaseError("The backup {path} is damaged: {problem}.", path=path, problem=problems[0])
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if version > LATEST_VERSION:
                raise DatabaseError("The backup {path} was written by a newer version of the bot (database version "
                                    "{version}; this version knows up to {latest}).", path=path, version=version,
                                    latest=LATEST_VERSION)
            if version == 0 or "games" not in tables:
                raise DatabaseError("{path} is not a database of this bot (it has no games).", path=path)
            counts = {name: int(conn.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0])
                      for name in COUNTED if name in tables}
    except sqlite3.Error as exc:
        raise DatabaseError("Cannot read the backup {path}: {error}.", path=path, error=str(exc)) from exc
    return BackupReport(str(path), version, counts)


def _copy(source: sqlite3.Connection, target: Path) -> None:
    """The whole of ``source`` into ``target`` in one step of the backup API, as a single file (no WAL)."""
    with contextlib.closing(sqlite3.connect(target, isolation_level=None)) as out:
        source.backup(out)
        out.execute("PRAGMA journal_mode = DELETE")


def _new_file(path: Path) -> None:
    """An empty file readable by its owner only (a backup holds every player's hidden cards)."""
    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


def backup_sqlite(database: Path, target: Path) -> BackupReport:
    if target.exists():
        raise DatabaseError("{path} exists already; give a new file for the backup.", path=target)
    if not database.is_file():
        raise DatabaseError("There is no database at {path}.", path=database)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        _new_file(partial)
        with contextlib.closing(_read_only(database)) as source:
            _copy(source, partial)
        report = check(partial)
        os.replace(partial, target)
    except sqlite3.Error as exc:
        raise DatabaseError("The backup of {path} failed: {error}.", path=database, error=str(exc)) from exc
    except OSError as exc:
        raise DatabaseError("Cannot write the backup {path}: {error}.", path=target, error=exc.strerror) from exc
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return BackupReport(str(target), report.version, report.counts)


def restore_sqlite(source: Path, database: Path) -> tuple[BackupReport, Path | None]:
    """The backup ``source`` into ``database``; the replaced database's copy (None if there was none)."""
    report = check(source)  # before anything is touched
    lock = ProcessLock(database)
    database.parent.mkdir(parents=True, exist_ok=True)
    lock.acquire()  # a running bot holds it: refused, nothing replaced
    kept: Path | None = None
    try:
        if database.exists() and database.stat().st_size > 0:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            kept = database.with_name(f"{database.name}.replaced-{stamp}")
            for again in range(2, 100):  # two restores in one second
                if not kept.exists():
                    break
                kept = database.with_name(f"{database.name}.replaced-{stamp}-{again}")
            with contextlib.closing(sqlite3.connect(database)) as old:
                _new_file(kept)
                _copy(old, kept)
        elif not database.exists():
            _new_file(database)
        with contextlib.closing(_read_only(source)) as backup, \
                contextlib.closing(sqlite3.connect(database, isolation_level=None)) as out:
            backup.backup(out)
            out.execute("PRAGMA journal_mode = WAL")
    except sqlite3.Error as exc:
        raise DatabaseError("The restore into {path} failed: {error}.", path=database, error=str(exc)) from exc
    except OSError as exc:
        raise DatabaseError("The restore into {path} failed: {error}.", path=database, error=exc.strerror) from exc
    finally:
        lock.release()
    return BackupReport(str(database), report.version, check(database).counts), kept


# -- PostgreSQL: pg_dump and pg_restore ----------------------------------------------------------------------------
def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise DatabaseError("{tool} is not installed (PostgreSQL's client tools, e.g. the postgresql-client "
                            "package): backups of a PostgreSQL database use it.", tool=name)
    return found


def _run(command: list[str], what: str, url: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        error = done.stderr.strip().replace(url, redacted(url)) or f"exit code {done.returncode}"
        raise DatabaseError("{what} failed: {error}", what=what, error=error)
    return done.stdout


def backup_postgres(url: str, target: Path) -> str:
    if target.exists():
        raise DatabaseError("{path} exists already; give a new file for the backup.", path=target)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    try:
        _new_file(partial)
        _run([_tool("pg_dump"), "--format=custom", "--no-owner", "--file", str(partial), "--dbname", url],
             "pg_dump", url)
        listing = _run([_tool("pg_restore"), "--list", str(partial)], "pg_restore --list", url)
        if " games " not in listing:
            raise DatabaseError("The dump of {url} has no games table: is it the bot's database?",
                                url=redacted(url))
        os.replace(partial, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()
    return f"{target}: a pg_dump of {redacted(url)}"


async def _has_tables(url: str) -> bool:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        return bool(await conn.fetchval("SELECT to_regclass('games') IS NOT NULL"))
    finally:
        await conn.close()


def restore_postgres(source: Path, url: str) -> str:
    import asyncio

    listing = _run([_tool("pg_restore"), "--list", str(source)], "pg_restore --list", url)  # reads it whole
    if " games " not in listing:
        raise DatabaseError("{path} is not a dump of the bot's database (it has no games table).", path=source)
    try:
        in_use = asyncio.run(_has_tables(url))
    except Exception as exc:  # asyncpg's errors and the network's
        raise DatabaseError("Cannot reach the PostgreSQL database {url}: {error}.", url=redacted(url),
                            error=str(exc) or type(exc).__name__) from exc
    if in_use:
        raise DatabaseError("The database {url} already holds the bot's tables (it may be in use by running "
                            "bots): restore into a new, empty database and point the bot at it.", url=redacted(url))
    _run([_tool("pg_restore"), "--no-owner", "--exit-on-error", "--dbname", url, str(source)], "pg_restore", url)
    return f"{redacted(url)}: restored from {source}"


def backup(database: str, target: Path) -> list[str]:
    """Back up the database setting (a SQLite path or a postgresql:// URL) to ``target``; the report's lines."""
    if is_postgres_url(database):
        return [backup_postgres(database.strip(), target)]
    return backup_sqlite(Path(database), target).lines()


def restore(source: Path, database: str) -> list[str]:
    """Restore ``source`` into the database setting; the report's lines."""
    if is_postgres_url(database):
        return [restore_postgres(source, database.strip())]
    report, kept = restore_sqlite(source, Path(database))
    lines = report.lines()
    if kept is not None:
        lines.append(f"the database it replaced is kept as {kept}")
    return lines


__all__ = ["BackupReport", "backup", "backup_postgres", "backup_sqlite", "check", "restore", "restore_postgres",
           "restore_sqlite"]
