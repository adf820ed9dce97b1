"""Which schema steps a start of the bot would run on a database, without running them (``bot.py schema``).

The bot upgrades its database by itself when it starts (``store/migrations.py``, ``store/postgres_migrations.py``:
every missing step in one transaction) and refuses, untouched, a database from a newer version. This reads the
version only (a read-only connection for SQLite, a read-only query for PostgreSQL) and describes each step by
what its SQL creates and changes, so the list stays true as steps are added.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from .errors import DatabaseError
from .migrations import LATEST_VERSION, MIGRATIONS
from .postgres import is_postgres_url, redacted

_FLAGS = re.IGNORECASE | re.MULTILINE
_NAMED = (
    ("tables", re.compile(r"^\s*CREATE TABLE (?:IF NOT EXISTS )?(\w+)", _FLAGS)),
    ("columns", re.compile(r"^\s*ALTER TABLE (\w+)\s+ADD COLUMN (?:IF NOT EXISTS )?(\w+)", _FLAGS)),
    ("rebuilt", re.compile(r"^\s*ALTER TABLE \w+ RENAME TO (\w+)", _FLAGS)),
)
_COUNTED = (
    ("indexes", re.compile(r"^\s*CREATE (?:UNIQUE )?INDEX", _FLAGS)),
    ("triggers", re.compile(r"^\s*CREATE (?:OR REPLACE )?(?:TRIGGER|FUNCTION)", _FLAGS)),
    ("data copied", re.compile(r"^\s*(?:INSERT|UPDATE)\b", _FLAGS)),
)


def describe(step: str) -> str:
    """What one migration step does, in a line: the tables and columns it adds or rebuilds, and how many indexes,
    triggers and data copies it has (SQLite's and PostgreSQL's steps alike)."""
    parts: list[str] = []
    for words, pattern in _NAMED:
        names = [".".join(match.groups()) for match in pattern.finditer(step)]
        if words == "tables":  # not the new copy of a table that is rebuilt (it takes the old one's name)
            names = [n for n in names if not re.search(rf"RENAME TO {re.escape(n)}\b|{re.escape(n)} RENAME TO",
                                                       step, re.IGNORECASE)]
        if names:
            parts.append(f"{words} {', '.join(names)}")
    for words, pattern in _COUNTED:
        count = len(pattern.findall(step))
        if count:
            parts.append(f"{words} {count}")
    return "; ".join(parts)


@dataclass(frozen=True)
class SchemaPlan:
    where: str
    version: int      # the database's (0: new or empty)
    latest: int       # this version of the bot's
    steps: list[str]  # each step that would run, described

    def lines(self) -> list[str]:
        if self.version > self.latest:
            return [f"{self.where}: database version {self.version}, newer than this bot's {self.latest}: the bot "
                    "refuses it, untouched. Upgrade the bot."]
        if not self.steps:
            return [f"{self.where}: database version {self.version}, up to date (nothing to run)."]
        head = (f"{self.where}: database version {self.version}; the next start runs {len(self.steps)} step"
                f"{'s' if len(self.steps) > 1 else ''} to version {self.latest}, in one transaction:")
        return [head, *(f"  {self.version + n + 1}: {step}" for n, step in enumerate(self.steps))]


def _sqlite_version(path: Path) -> int:
    if not path.exists() or path.stat().st_size == 0:
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True)) as conn:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])
    except sqlite3.Error as exc:
        raise DatabaseError("Cannot read the database {path}: {error}.", path=path, error=str(exc)) from exc


async def _postgres_version(url: str) -> int:
    import asyncpg

    try:
        conn = await asyncpg.connect(url)
    except Exception as exc:  # asyncpg's errors and the network's
        raise DatabaseError("Cannot reach the PostgreSQL database {url}: {error}.", url=redacted(url),
                            error=str(exc) or type(exc).__name__) from exc
    try:
        if not await conn.fetchval("SELECT to_regclass('store_schema') IS NOT NULL"):
            return 0
        return int(await conn.fetchval("SELECT COALESCE(max(version), 0) FROM store_schema"))
    finally:
        await conn.close()


async def plan(database: str) -> SchemaPlan:
    """The steps a start of the bot would run on ``database`` (a SQLite path or a postgresql:// URL)."""
    if is_postgres_url(database):
        from .postgres_migrations import POSTGRES_LATEST_VERSION, POSTGRES_MIGRATIONS

        version = await _postgres_version(database.strip())
        steps = [describe(step) for step in POSTGRES_MIGRATIONS[version:]]
        return SchemaPlan(redacted(database.strip()), version, POSTGRES_LATEST_VERSION, steps)
    version = _sqlite_version(Path(database))
    return SchemaPlan(database, version, LATEST_VERSION, [describe(step) for step in MIGRATIONS[version:]])


__all__ = ["SchemaPlan", "describe", "plan"]
