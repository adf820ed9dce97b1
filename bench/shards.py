"""Load on PostgreSQL: one bot process running both gateway shards against two processes running one each.

Run: ``.venv/bin/python bench/shards.py --games 40 --seconds 60 [--postgres-url URL]``. The fake Discord on
127.0.0.1 serves two guilds, one on each of its two shards, with half of the games in each; the scripted
players read the games from PostgreSQL (a throwaway ``pgserver`` unless ``--postgres-url`` is given; each
configuration gets a fresh database). Both configurations play for ``--seconds`` in one run; the table gives
game actions/s (players and AIs, counted in the database), player interactions/s and the first response p50
and p99, and the ratio of two processes to one. Results go in docs/performance.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from discord_offline.fake_discord import CommandCatalog, FakeDiscord  # noqa: E402
from e2e.launch import BotProcess, command_specs  # noqa: E402
from e2e.postgres_players import PostgresTable  # noqa: E402
from postgres_helpers import create_database, drop_database, postgres_server  # noqa: E402

SETTINGS = {"deployment": "auto", "setup_batch": 10}
SHARDS = 2


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def other_guild(first: int) -> int:
    """A guild id on the other shard than ``first``."""
    shard = 1 - (first >> 22) % SHARDS
    return ((4321 * SHARDS + shard) << 22) + 99


async def play(work: Path, catalog: CommandCatalog, server: str, processes: int, games: int,
               seconds: float) -> dict[str, float]:
    url = await create_database(server)
    probe = FakeDiscord(commands=catalog, shard_count=SHARDS)
    fake = FakeDiscord(commands=catalog, keep_files=False, history=5_000, shard_count=SHARDS,
                       extra_guilds=[other_guild(probe.guild_id)])
    bots: list[BotProcess] = []
    try:
        await fake.start()
        channels = [fake.channel_in(n % 2, f"p{processes}-load-{n}").id for n in range(games)]
        for n in range(games):
            for h in range(2):
                fake.servers[1].user(f"p{n}-{h}")
        shard_sets = [["0", "1"]] if processes == 1 else [["0"], ["1"]]
        for number, shards in enumerate(shard_sets):
            bot = BotProcess(fake.url, work / f"p{processes}-{number}", database=url, seed=f"shards-{number}")
            bots.append(bot)
            bot.start("run", "--shard-count", str(SHARDS), "--shards", ",".join(shards))
        for bot in bots:
            await bot.wait_ready(60)
        tables = [PostgresTable(fake, url, c, [f"p{n}-0", f"p{n}-1"], settings=SETTINGS, timeout=120)
                  for n, c in enumerate(channels)]
        await asyncio.gather(*(t.open() for t in tables))
        sent_before = {id(t): len(t.sent) for t in tables}
        before = sum(s.version for t in tables if (s := t.snapshot()) is not None)
        began = time.monotonic()
        await asyncio.gather(*(t.play(max_steps=1_000_000, seconds=seconds) for t in tables))
        elapsed = time.monotonic() - began
        after = sum(s.version for t in tables if (s := t.snapshot()) is not None)
        played = [i for t in tables for i in t.sent[sent_before[id(t)]:]]
        first = [i.latency for i in played if i.latency is not None]
        errors = [e for t in tables for e in t.errors] + fake.problems + [e for b in bots for e in b.errors()]
        return {"actions/s": (after - before) / elapsed, "interactions/s": sum(i.settled for i in played) / elapsed,
                "p50": percentile(first, 0.5), "p99": percentile(first, 0.99), "errors": len(errors)}
    finally:
        for bot in bots:
            bot.stop()
        await fake.close()
        await drop_database(server, url)


async def run(args: argparse.Namespace) -> list[tuple[str, str, str, str]]:
    work = Path(tempfile.mkdtemp(prefix="risk-shards-"))
    try:
        catalog = CommandCatalog(command_specs(work / "commands"))
        with contextlib.nullcontext(args.postgres_url) if args.postgres_url else postgres_server() as server:
            one = await play(work, catalog, server, 1, args.games, args.seconds)
            two = await play(work, catalog, server, 2, args.games, args.seconds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = []
    for key, unit in (("actions/s", ""), ("interactions/s", ""), ("p50", " s"), ("p99", " s"), ("errors", "")):
        ratio = f"{two[key] / one[key]:.2f}" if one[key] else ""
        rows.append((f"{key}", f"{one[key]:.2f}{unit}", f"{two[key]:.2f}{unit}", ratio))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games at once, half in each guild (default 40)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long each configuration plays")
    parser.add_argument("--postgres-url", default="", help="a PostgreSQL server (default: a throwaway one)")
    args = parser.parse_args(argv)
    rows = asyncio.run(run(args))
    print(f"| measure ({args.games} games, {args.seconds:g} s each) | one process, shards 0,1 | "
          "two processes, a shard each | two ÷ one |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
