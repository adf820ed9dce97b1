"""End to end: a small tournament run by the real ``bot.py`` process against the fake Discord (tests/e2e,
docs/e2e.md). Two players enter, the host starts it, the bot opens the table's game in a thread of the channel,
the scripted players play it there by slash commands, and the bot posts the final standings with their image."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import discord
import pytest
from discord_offline.fake_discord import CommandCatalog, FakeDiscord
from e2e.launch import BotProcess, command_specs
from e2e.players import Table, read_only

pytestmark = [pytest.mark.asyncio, pytest.mark.slow,  # the real bot process against the fake Discord
              pytest.mark.filterwarnings("ignore:unread_data:DeprecationWarning")]

THREADS = discord.Permissions(view_channel=True, send_messages=True, send_messages_in_threads=True,
                              create_public_threads=True, embed_links=True, attach_files=True,
                              read_message_history=True, use_application_commands=True)


@pytest.fixture
async def fake(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(commands=CommandCatalog(command_specs(tmp_path_factory.mktemp("commands")))) as server:
        server.channel("general")
        server.server.bot_permissions = THREADS
        yield server


@pytest.fixture
def bot(fake: FakeDiscord, tmp_path: Path) -> Iterator[BotProcess]:
    process = BotProcess(fake.url, tmp_path / "bot", seed="tournament")
    try:
        yield process
    finally:
        process.stop()


def pairings(db: Path) -> list[tuple[Any, ...]]:
    with contextlib.closing(read_only(db)) as conn:
        return conn.execute("SELECT round, table_no, thread_id, game_id FROM tournament_pairings "
                            "ORDER BY round, table_no").fetchall()


async def test_a_tournament_of_two_is_played_in_a_thread_and_its_standings_posted(fake: FakeDiscord,
                                                                                  bot: BotProcess):
    async with asyncio.timeout(240):
        bot.start()
        await bot.wait_ready()
        general = fake.channel("general")
        step = await (await fake.command("alice", "general", "tournament new", {
            "name": "Cup", "format": "swiss", "rounds": 1, "turn_time": 300, "max_rounds": 2})).wait_settled(20)
        assert "alice opens a tournament" in step.text, step.text
        for name in ("alice", "bob"):
            joined = await (await fake.command(name, "general", "tournament join")).wait_settled(20)
            assert "enters Cup" in joined.text, joined.text
        started = await (await fake.command("alice", "general", "tournament start")).wait_settled(60)
        assert "Round 1 begins" in started.text and not started.refused, started.text

        [(round_, table_no, thread_id, game_id)] = pairings(bot.database)
        assert (round_, table_no) == (1, 1) and game_id is not None
        assert [t.id for t in fake.server.threads(general)] == [thread_id]
        assert f"<#{thread_id}>" in started.text
        table = Table(fake, bot.database, thread_id, ["alice", "bob"], ais=0, timeout=30)
        await fake.wait_message(lambda m: "begins" in m.text.lower(), 30, channel=thread_id, what="the game's start")
        result = await table.play(max_steps=600, seconds=180)
        assert result == "over" and not table.errors and table.actions > 10, (result, table.errors[:5])

        final = await fake.wait_message(lambda m: "The tournament is over" in m.text, 60, channel=general,
                                        what="the final standings")
        assert [a.filename for a in final.attachments] == ["standings.png"]
        assert "wins it!" in final.text
        assert not fake.problems and not fake.rejected(), (fake.problems[:5], fake.rejected()[:5])
        assert not bot.errors(), "\n".join(bot.errors()[:20])


async def test_killed_between_making_a_tables_thread_and_storing_it_the_bot_makes_no_second_thread(
        fake: FakeDiscord, bot: BotProcess):
    """The real process is killed after Discord made the table's thread and before the bot heard of it (the answer
    is held); after the restart the round's opening takes that thread: one thread, the game in it, its start and
    dice commitment told there first."""
    async with asyncio.timeout(240):
        bot.start()
        await bot.wait_ready()
        general = fake.channel("general")
        await (await fake.command("alice", "general", "tournament new", {
            "name": "Cup", "format": "swiss", "rounds": 1, "turn_time": 300, "max_rounds": 2})).wait_settled(20)
        for name in ("alice", "bob"):
            await (await fake.command(name, "general", "tournament join")).wait_settled(20)
        lost = fake.lose_answers("POST", "/channels/{channel_id}/threads", hold=30)
        start = await fake.command("alice", "general", "tournament start")
        await fake.wait_for(lambda: lost.served == 1, 30, "the thread made, its answer held")
        assert len(fake.server.threads(general)) == 1
        bot.kill()
        [(round_, table_no, thread_id, game_id)] = pairings(bot.database)
        assert (round_, table_no, thread_id, game_id) == (1, 1, None, None)   # nothing of the thread was stored
        bot.start()
        await bot.wait_ready()
        del start
        [made] = fake.server.threads(general)
        await fake.wait_for(lambda: pairings(bot.database)[0][3] is not None, 60, "the table's game")
        [(_, _, thread_id, game_id)] = pairings(bot.database)
        assert thread_id == made.id and [t.id for t in fake.server.threads(general)] == [made.id]
        first = await fake.wait_message(lambda m: "begins" in m.text.lower(), 30, channel=thread_id,
                                        what="the game's start")
        assert "Its dice are fixed in advance" in first.text   # the dice commitment, before any move
        assert not bot.errors(), "\n".join(bot.errors()[:20])
