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

from engine import Action
from engine.actions import EndRound, ReleaseHold, StartTurn
from engine.ai import make_ai
from engine.state import WAITING
from store import GameRecord, Store, store_for
from table.play import apply_action, start_game

# Set-up turns and turns in seat order; freestyle rounds; set-up in one round (in either turn order).
SETTINGS = ({"deployment": "auto"}, {"deployment": "deal", "setup": "turns", "setup_batch": 5},
            {"deployment": "auto", "cards": "fixed"},
            {"deployment": "deal", "setup": "round", "turn_order": "freestyle"},
            {"deployment": "deal", "setup": "round"})


def next_move(record: GameRecord) -> Action:
    """The next AI move: in a set-up round, a placement of a seat with armies left (every seat places at once);
    while a freestyle round waits, a start (or the end of the hold of the player who ended the last round, which
    the bot's timer would release); otherwise the move of the player whose turn it is. Now and then a round's
    deadline passes (the table's ``EndRound``): a set-up round of an odd game once its first seat has placed all,
    every other freestyle round, the first among them, once one turn of it was played."""
    game = record.game()
    s = game.state
    left = [seat for seat in s.sealed if game.setup_left(seat)] if s.sealed is not None else []
    if s.sealed is not None and record.id % 2 and len(left) < len(s.sealed):
        return EndRound(s.active_seats()[0])
    if s.phase == WAITING and s.round % 2 == 1 and 0 < len(s.to_play) < len(s.active_seats()):
        return EndRound(s.active_seats()[0])
    if s.sealed is not None:
        seat = left[0]
    elif s.phase == WAITING:
        starters = game.starters()
        return StartTurn(starters[0]) if starters else ReleaseHold(s.held if s.held is not None else s.to_play[0])
    else:
        seat = s.current
    return make_ai(record.players[seat].ai_level or "normal", salt=str(seat)).choose(game, seat)


async def keep_playing(store: Store, channel: int, log_fd: int, tag: str) -> None:
    count = 0
    while True:
        record = await store.get_active_game(channel)
        if record is None:
            record = await store.create_lobby(1, channel, channel, f"Host {channel}", SETTINGS[channel % len(SETTINGS)])
        while record.status == "lobby" and len(record.players) < 3:
            record = await store.add_ai(record.id, "easy" if channel % 2 else "normal")
        if record.status == "lobby":
            record, _ = await start_game(store, record.id)
        last: tuple[object, str] | None = None
        while record.status == "running":
            action = next_move(record)
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
