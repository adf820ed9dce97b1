"""A writer for the crash test (tests/test_store_crash.py): plays AI moves in several games until killed.

    python tests/store_crash_writer.py DATABASE COMMITTED_LOG GAMES

DATABASE is a SQLite file or a PostgreSQL URL. Each channel 1..GAMES always has a game: a finished one is
followed by a new lobby. After every action the store reports committed, the writer appends "game_id
interaction_id" to COMMITTED_LOG with one os.write (in the kernel once the call returns, so a SIGKILL after it
cannot lose the line). It prints "ready" once the database is open.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.ai import make_ai
from store import Store, store_for
from table.play import apply_action, start_game

SETTINGS = ({"deployment": "auto"}, {"deployment": "deal", "setup_batch": 5}, {"deployment": "auto", "cards": "fixed"})


async def keep_playing(store: Store, channel: int, log_fd: int, tag: str) -> None:
    count = 0
    while True:
        record = await store.get_active_game(channel)
        if record is None:
            record = await store.create_lobby(1, channel, channel, f"Host {channel}", SETTINGS[channel % 3])
        while record.status == "lobby" and len(record.players) < 3:
            record = await store.add_ai(record.id, "easy" if channel % 2 else "normal")
        if record.status == "lobby":
            record, _ = await start_game(store, record.id)
        last: tuple[object, str] | None = None
        while record.status == "running":
            game = record.game()
            seat = game.state.current
            level = record.players[seat].ai_level or "normal"
            action = make_ai(level, salt=str(seat)).choose(game, seat)
            count += 1
            if last is not None and count % 7 == 0:  # a repeated tap now and then
                result = await apply_action(store, record.id, last[0], interaction_id=last[1])  # type: ignore[arg-type]
                assert result.duplicate
            interaction = f"{tag}-{channel}-{count}"
            result = await apply_action(store, record.id, action, interaction_id=interaction)
            os.write(log_fd, f"{record.id} {interaction}\n".encode())
            last = (action, interaction)
            record = result.record


async def main() -> None:
    database, committed_log, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
    log_fd = os.open(committed_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    store = store_for(database)
    await store.open()
    print("ready", flush=True)
    tag = f"{os.getpid()}.{secrets.token_hex(3)}"
    await asyncio.gather(*(keep_playing(store, channel, log_fd, tag) for channel in range(1, games + 1)))


if __name__ == "__main__":
    asyncio.run(main())
