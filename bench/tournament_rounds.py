"""Benchmark of a tournament through the Discord layer: how long the bot takes to open a round (a thread per
table, each game started in it and told: its start and its first panel with the map) and to end one by its time
limit (every game ended by the standings and told in its thread: the end, the final map, the report), with the
next round opened by the timer.

    .venv/bin/python bench/tournament_rounds.py [--players 16] [--table 2]

The bot is the real one on the offline Discord (discord_offline), with a SQLite file and real map renders in
its worker processes; the figures are wall times of one step each (from the command or the clock's move until
every message is out). Results go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import itertools
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import discord
from discord_offline import OfflineDiscord

from bot import Config, create_bot

THREADS = discord.Permissions(view_channel=True, send_messages=True, send_messages_in_threads=True,
                              create_public_threads=True, embed_links=True, attach_files=True,
                              read_message_history=True, use_application_commands=True)


async def run(players: int, table: int) -> dict[str, float]:
    db = Path(tempfile.mkdtemp()) / "bench.sqlite3"
    bot = create_bot(Config(database=str(db)))
    numbers = itertools.count()
    bot.new_seed = lambda: hashlib.sha256(f"bench:{next(numbers)}".encode()).hexdigest()  # type: ignore[attr-defined]
    figures: dict[str, float] = {}
    async with OfflineDiscord(bot, idle_timeout=600) as d:
        d.server.bot_permissions = THREADS
        await d.send_command("host", "general", "tournament new", {"name": "Bench", "format": "swiss", "rounds": 2,
                                                                    "table_size": table, "round_time": 1})
        for n in range(players):
            await d.send_command(f"player{n}", "general", "tournament join", {})
        started = time.perf_counter()
        step = await d.send_command("host", "general", "tournament start", {})
        figures["open round 1"] = time.perf_counter() - started
        assert not step.problems, step.problems
        figures["messages"] = len(step)
        started = time.perf_counter()
        step = await d.run(bot.advance_time(3601))   # the round's time is up: every game ends by the standings
        step2 = await d.run(bot.advance_time(1))     # and the next round opens (if the scheduler has not yet)
        figures["end round 1, open round 2"] = time.perf_counter() - started
        assert not step.problems and not step2.problems, (step.problems, step2.problems)
        figures["threads"] = len(d.server.threads("general"))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--table", type=int, default=2)
    args = parser.parse_args()
    figures = asyncio.run(run(args.players, args.table))
    tables = args.players // args.table
    print(f"{args.players} players at tables of {args.table} ({tables} tables a round)")
    for name, value in figures.items():
        print(f"  {name}: {value:.2f} s" if isinstance(value, float) and name.startswith(("open", "end"))
              else f"  {name}: {value:g}")


if __name__ == "__main__":
    main()
