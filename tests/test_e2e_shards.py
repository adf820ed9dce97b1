"""End to end, past one machine: two ``bot.py`` processes, each running one of the fake Discord's two gateway
shards, share one PostgreSQL database (tests/e2e, docs/e2e.md, docs/deploy.md).

Each guild's events reach only the process of its shard; each process handles the timers of its own guilds'
games. One process is killed with SIGKILL: the other's games go on. Restarted, it takes up its games and the
deadline that fell due while it was away, once. A SQLite database migrated with ``bot.py migrate`` plays on
under PostgreSQL. The scripted players read the games from PostgreSQL and never write.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from discord_offline.fake_discord import IDENTIFY, CommandCatalog, FakeDiscord
from e2e.launch import BotProcess, command_specs
from e2e.ops import get, until
from e2e.players import Snapshot, Table
from e2e.postgres_players import PostgresTable, latest_game

from engine import Game
from store import PostgresStore
from table import turn_key

pytestmark = [pytest.mark.asyncio, pytest.mark.slow,  # real bot processes on one PostgreSQL
              pytest.mark.filterwarnings("ignore:unread_data:DeprecationWarning")]

SETTINGS = {"deployment": "auto", "setup_batch": 10}
SHARDS = 2
async def replays(url: str, game_id: int) -> bool:
    async with PostgresStore(url) as store:
        record = await store.get_game(game_id)
        events = await store.events(game_id)
    return len(events) == record.last_seq and \
        Game.from_events(events, record.state["seed"]).state.to_dict() == record.state


def guild_on_shard(shard: int, avoid: int) -> int:
    """A guild id on ``shard`` of SHARDS."""
    guild = ((1234 * SHARDS + shard) << 22) + 777
    assert guild != avoid
    return guild


@pytest.fixture(scope="module")
def command_payload(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return command_specs(tmp_path_factory.mktemp("commands"))


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[list[BotProcess]]:
    made: list[BotProcess] = []
    try:
        yield made
    finally:
        for process in made:
            process.stop()


@pytest.fixture
async def fake(command_payload: list[dict[str, Any]]) -> AsyncIterator[FakeDiscord]:
    first = FakeDiscord(commands=CommandCatalog(command_payload), shard_count=SHARDS)
    other_shard = 1 - first.shard_of(first.guild_id)
    async with FakeDiscord(commands=CommandCatalog(command_payload), shard_count=SHARDS,
                           extra_guilds=[guild_on_shard(other_shard, first.guild_id)]) as server:
        yield server


def clean(fake: FakeDiscord, *bots: BotProcess) -> None:
    assert not fake.problems, fake.problems[:5]
    assert not fake.rejected(), [(c.route, c.status, c.json) for c in fake.rejected()][:5]
    for bot in bots:
        assert not bot.errors(), "\n".join(bot.errors()[:20])


async def human_to_move(table: PostgresTable, seconds: float) -> Snapshot:
    """Wait until a human has the turn (the AIs play in between)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        snap = table.snapshot()
        if snap is not None and snap.status == "running" and snap.seats.get(snap.current) is not None:
            return snap
        await asyncio.sleep(0.1)
    raise AssertionError("no human got the turn")


async def test_two_sharded_processes_share_one_postgres_and_survive_a_kill(
        fake: FakeDiscord, processes: list[BotProcess], postgres_url: str, tmp_path: Path):
    async with asyncio.timeout(240):
        guilds = [s.guild_id for s in fake.servers]
        shard_of = {g: fake.shard_of(g) for g in guilds}
        assert sorted(shard_of.values()) == [0, 1]
        channels = [fake.channel_in(0, "alpha").id, fake.channel_in(1, "beta").id]
        for name in ("alice", "bob"):
            fake.servers[1].user(name)  # members of both guilds
        args = {g: ("run", "--shard-count", str(SHARDS), "--shards", str(shard_of[g])) for g in guilds}
        bots = {}
        for n, guild in enumerate(guilds):
            bots[guild] = BotProcess(fake.url, tmp_path / f"bot-{n}", database=postgres_url,  # type: ignore[arg-type]
                                     seed=f"shard-{n}")
            processes.append(bots[guild])
            bots[guild].start(*args[guild])
        for bot in bots.values():
            await bot.wait_ready(60)
        identified = sorted(tuple(f.data["shard"]) for f in fake.frames(IDENTIFY))
        assert identified == [(0, SHARDS), (1, SHARDS)]
        for guild, bot in bots.items():
            assert f"shards {shard_of[guild]} of {SHARDS}" in bot.stderr()
            # Each process's /readyz answers for its own shard only.
            ready = await until(await bot.ops_url() + "/readyz", 200, 30)
            assert ready["checks"]["gateway"]["detail"] == {str(shard_of[guild]): "connected"}

        tables = [PostgresTable(fake, postgres_url, c, ["alice", "bob"], settings=SETTINGS, timeout=30)
                  for c in channels]
        game_ids = await asyncio.gather(*(t.open() for t in tables))
        results = await asyncio.gather(*(t.play(max_steps=16, seconds=90) for t in tables))
        assert all(r in ("acted", "waited", "over") for r in results), (results, [t.errors for t in tables])
        assert all(t.actions > 0 and not t.errors for t in tables)

        # SIGKILL the process of the second guild while one of its humans has the turn.
        victim = bots[guilds[1]]
        snap = await human_to_move(tables[1], 60)
        victim.kill()
        assert (await get(await bots[guilds[0]].ops_url() + "/readyz"))[0] == 200  # the other process stays ready
        # A deadline falls due while that process is away: only it may handle it, when it is back.
        state = snap.game().state
        async with PostgresStore(postgres_url) as store:
            await store.set_deadline(snap.game_id, snap.current, f"turn|{turn_key(state)}", time.time() - 1)
        before = tables[0].snapshot()
        assert before is not None
        result = await tables[0].play(max_steps=12, seconds=60)  # the other process's game goes on
        assert result in ("acted", "waited", "over") and not tables[0].errors, tables[0].errors
        after = tables[0].snapshot()
        assert after is not None and after.version > before.version
        async with PostgresStore(postgres_url) as store:
            assert [d.seat for d in await store.game_deadlines(snap.game_id) if d.kind.startswith("turn|")] == \
                [snap.current]  # untouched by the other process
        assert latest_game(postgres_url, channels[1]).version == snap.version  # type: ignore[union-attr]

        victim.start(*args[guilds[1]])
        await victim.wait_ready(60)
        timed_out = await fake.wait_message(lambda m: m.content.startswith("⌛"), 60, channel=channels[1],
                                            what="the deadline's message")
        assert timed_out is not None
        async with PostgresStore(postgres_url) as store:
            assert (await store.seat_status(snap.game_id, snap.current)).missed == 1
        result = await tables[1].play(max_steps=10, seconds=60)  # and its game goes on
        assert result in ("acted", "waited", "over") and not tables[1].errors, tables[1].errors
        # Handled once: by now (the game went on, answered by that process) a second handling would have posted.
        assert len([m for m in fake.messages(channels[1], public=True) if m.content.startswith("⌛")]) == 1
        assert not [m for m in fake.messages(channels[0], public=True) if m.content.startswith("⌛")]
        for game_id in game_ids:
            assert await replays(postgres_url, game_id)
        clean(fake, *bots.values())


async def test_a_migrated_sqlite_database_plays_on_under_postgres(
        fake: FakeDiscord, processes: list[BotProcess], postgres_url: str, tmp_path: Path):
    async with asyncio.timeout(200):
        channel = fake.channel_in(0, "gamma").id
        first = BotProcess(fake.url, tmp_path / "sqlite", seed="migrate")
        processes.append(first)
        first.start("run", "--shard-count", str(SHARDS))  # one process, both shards, SQLite
        await first.wait_ready(60)
        table = Table(fake, first.database, channel, ["alice", "bob"], settings=SETTINGS, timeout=30)  # type: ignore[arg-type]
        game_id = await table.open()
        assert await table.play(max_steps=10, seconds=60) in ("acted", "waited")
        await human_to_move(table, 60)  # type: ignore[arg-type]
        first.stop()
        migrate = await asyncio.create_subprocess_exec(
            sys.executable, "bot.py", "migrate", "--from", str(first.database), "--to", postgres_url,
            cwd=str(Path(__file__).resolve().parent.parent), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        out, err = await migrate.communicate()
        assert migrate.returncode == 0, err.decode()
        assert "1 replayed and verified" in out.decode()

        second = BotProcess(fake.url, tmp_path / "postgres", database=postgres_url,  # type: ignore[arg-type]
                            seed="migrate-2")
        processes.append(second)
        second.start("run", "--shard-count", str(SHARDS))
        await second.wait_ready(60)
        moved = PostgresTable(fake, postgres_url, channel, ["alice", "bob"], settings=SETTINGS, timeout=30)
        before = moved.snapshot()
        assert before is not None and before.game_id == game_id
        assert await moved.play(max_steps=10, seconds=60) in ("acted", "waited", "over"), moved.errors
        after = moved.snapshot()
        assert after is not None and after.version > before.version and not moved.errors
        assert await replays(postgres_url, game_id)
        clean(fake, first, second)
