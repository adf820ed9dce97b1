"""One bot process per SQLite database: an exclusive lock on a file beside it, held for the process's life.

Two bots on one file would both run the scheduler: both post "time ran out" and the turn panel. So the bot, when
it opens its SQLite store, takes an OS lock (``flock``; on Windows ``msvcrt.locking``) on ``<database>.lock``,
and a second bot on the same file refuses to start. The OS drops the lock when the process ends, however it ends,
so a crash leaves nothing to clean up; the file stays (removing it could let two processes lock two files). The
read-only tools (``bot.py export``, ``games``) take no lock. Several processes share a database on PostgreSQL,
each running its gateway shards (docs/deploy.md).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from .errors import DatabaseError


def lock_path(database: Path) -> Path:
    """The lock file of a database: beside it, its name and ``.lock``."""
    return database.with_name(database.name + ".lock")


class ProcessLock:
    """The exclusive lock of one database for this process (per open file: a second ``acquire`` of the same
    database, even in this process, is refused too)."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.path = lock_path(database)
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        """Take the lock, or raise ``DatabaseError`` naming the process that holds it."""
        if self._fd is not None:
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise DatabaseError("Cannot create the lock file {path} beside the database: {error}.",
                                path=self.path, error=exc.strerror) from exc
        try:
            _lock(fd)
        except OSError:
            holder = _read_pid(fd)
            os.close(fd)
            raise DatabaseError("The database {path} is in use by another bot process (pid {pid}): one SQLite "
                                "database has one bot process. Stop the other one first, or run several "
                                "processes on PostgreSQL with shards (docs/deploy.md).", path=self.database,
                                pid=holder or "?") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing the file releases its lock


def _lock(fd: int) -> None:
    if sys.platform == "win32":
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _read_pid(fd: int) -> str:
    with contextlib.suppress(OSError, AttributeError):  # no pread on Windows: the pid stays unknown
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
        if text.isdigit():
            return text
    return ""


__all__ = ["ProcessLock", "lock_path"]
