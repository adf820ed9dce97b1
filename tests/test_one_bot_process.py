"""One SQLite database has one bot process: a second bot on the same file refuses to start (both would run the
scheduler and post every "time ran out" twice); the read-only tools still read it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot import Config, create_bot
from store import DatabaseError, SQLiteStore, open_store
from store.process_lock import lock_path

ROOT = Path(__file__).resolve().parent.parent


def bot_py(tmp_path: Path, *words: str) -> list[str]:
    return [sys.executable, "bot.py", "--config", str(tmp_path / "none.toml"), *words]


def wait_for_lock(db: Path, process: subprocess.Popen[str]) -> str:
    """The pid the first bot wrote into the lock file once it holds the lock (it took the lock before that)."""
    deadline = time.monotonic() + 120   # only how long to wait for the first process, never a speed check
    while time.monotonic() < deadline:
        text = lock_path(db).read_text() if lock_path(db).exists() else ""
        if text.strip().isdigit():
            return text.strip()
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    raise AssertionError("the first bot never took the database")


@pytest.mark.slow   # two real bot processes: CI's slow suite
def test_a_second_bot_process_on_one_sqlite_file_refuses_to_start(tmp_path: Path):
    db = tmp_path / "risk.sqlite3"
    first = subprocess.Popen(bot_py(tmp_path, "console", "--db", str(db), "--out", str(tmp_path / "out")), cwd=ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pid = wait_for_lock(db, first)
        assert pid == str(first.pid)
        second = subprocess.run(bot_py(tmp_path, "console", "--db", str(db)), cwd=ROOT, input="/risk new\n",
                                capture_output=True, text=True, timeout=120)
        assert second.returncode == 1 and not second.stdout
        assert f"is in use by another bot process (pid {pid})" in second.stderr
        assert "one SQLite database has one bot process" in second.stderr
        # The read-only tools take no lock: they read the file the first bot holds.
        games = subprocess.run(bot_py(tmp_path, "games", "--db", str(db)), cwd=ROOT, capture_output=True,
                               text=True, timeout=120)
        assert games.returncode == 0, games.stderr
        out, err = first.communicate("/risk new\n", timeout=120)   # the first bot still plays, then quits
        assert first.returncode == 0 and "game #1 lobby" in out, err
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    # Once the first process has ended (its lock goes with it), a bot starts on the file again.
    again = subprocess.run(bot_py(tmp_path, "console", "--db", str(db)), cwd=ROOT, input="/risk help\n",
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr


async def test_the_bot_holds_the_lock_from_opening_its_store_until_it_closes(tmp_path: Path):
    db = tmp_path / "risk.sqlite3"
    first = create_bot(Config(database=str(db)))
    second = create_bot(Config(database=str(db)))
    await first.store.open()
    try:
        # The lock is on an open file, not the process: a second open refuses even in this process.
        with pytest.raises(DatabaseError, match="in use by another bot process"):
            await second.store.open()
        # Tools that open the store for a moment (a rebuild of the ratings, a migration) are no bot: no lock.
        tool = await open_store(db)
        await tool.close()
    finally:
        await first.store.close()
    await second.store.open()   # the first closed: free again
    await second.store.close()


async def test_a_store_that_is_not_the_bots_takes_no_lock(tmp_path: Path):
    db = tmp_path / "risk.sqlite3"
    stores = [SQLiteStore(db), SQLiteStore(db)]
    for store in stores:
        await store.open()
    for store in stores:
        await store.close()
    assert not lock_path(db).exists()


async def test_bot_py_run_refuses_before_logging_in_while_another_bot_holds_the_database(tmp_path: Path, caplog):
    import logging

    import bot as bot_py_module

    db = tmp_path / "risk.sqlite3"
    holder = create_bot(Config(database=str(db)))
    await holder.store.open()
    try:
        config = Config(database=str(db), token="not.a.real.token")
        with caplog.at_level(logging.ERROR):
            assert await bot_py_module._run(config) == 1
        assert "is in use by another bot process" in caplog.text
        assert "Discord refused the token" not in caplog.text   # it never tried to log in
    finally:
        await holder.store.close()
