"""Games in direct messages: the "server" of a direct message is that channel alone, so one user's DMs never show
another user's games in /risk history, its export, /risk stats, /risk leaderboard, /risk log or /risk mygames."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from discord_helpers import OfflineDiscord, make_bot, play_rounds, start
from discord_offline import OfflineChannel

from ratings import EARLY_TURNS, MIN_GAMES


async def dm_game(d: OfflineDiscord, user: str, *, finish: bool = True) -> OfflineChannel:
    """A game of ``user`` against one AI in their direct messages with the bot; they surrender it after the first
    rounds (a rated game)."""
    dm = d.dm_channel(user)
    for command, options in (("risk new", {"deployment": "auto"}), ("risk addbot", {}), ("risk start", {})):
        step = await d.send_command(user, dm, command, options)
        assert not step.problems, step.problems
    if finish:
        await play_rounds(d, dm, EARLY_TURNS)
        step = await d.send_command(user, dm, "risk surrender", {})
        await d.click(user, "Yes, surrender", step[0])
    return dm


async def game_ids(d: OfflineDiscord, channel: OfflineChannel) -> list[int]:
    return [g.id for g in await d.bot.store.list_games(channel_id=channel.id)]


async def test_history_and_its_export_in_a_dm_show_only_that_dms_games(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="dm history")) as d:
        alice_dm = await dm_game(d, "alice")
        bob_dm = await dm_game(d, "bob")
        (alices,), (bobs,) = await game_ids(d, alice_dm), await game_ids(d, bob_dm)
        for where in ({}, {"where": "server"}, {"where": "channel"}):
            step = await d.send_command("bob", bob_dm, "risk history", where)
            listing = step[0]
            assert listing.ephemeral and f"**#{bobs}**" in listing.text and f"#{alices}" not in listing.text
            options = listing.raw_components[0]["components"][0]["options"]
            assert [o["value"] for o in options] == [str(bobs)]
        # Alice's game is no choice in Bob's list: picking it anyway is refused, and Export stays on his own game.
        options.append({"label": "x", "value": str(alices)})
        step = await d.select("bob", str(alices), listing)
        assert step[-1].ephemeral and "Choose one of the games in the list" in step[-1].content
        step = await d.click("bob", "Export", listing)
        assert [a.filename for a in step[0].attachments] == [f"risk-game-{bobs}.jsonl"]
        step = await d.send_command("alice", alice_dm, "risk history", {})
        assert f"**#{alices}**" in step[0].text and f"#{bobs}" not in step[0].text


async def test_stats_in_a_dm_are_only_of_that_dms_games(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="dm stats")) as d:
        await dm_game(d, "alice")
        bob_dm = await dm_game(d, "bob")
        step = await d.send_command("bob", bob_dm, "risk stats", {"player": "alice"})
        assert step[0].ephemeral and "alice has not finished a game on this server yet" in step[0].content
        step = await d.send_command("bob", bob_dm, "risk stats", {})
        assert "Record of bob" in step[0].text and "Games: 1" in step[0].text
        # A server's record is the server's: Bob's DM game is not counted in #general, nor the reverse.
        await start(d, ("bob", "carol"), 0, deployment="auto")
        await play_rounds(d, "general", EARLY_TURNS)
        step = await d.send_command("carol", "general", "risk surrender", {})
        await d.click("carol", "Yes, surrender", step[0])
        step = await d.send_command("bob", "general", "risk stats", {})
        assert "Games: 1" in step[0].text and "1 (100%)" in step[0].text
        step = await d.send_command("bob", bob_dm, "risk stats", {})
        assert "Games: 1" in step[0].text and "0 (0%)" in step[0].text


async def test_the_leaderboard_in_a_dm_shows_only_who_played_there(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="dm board")) as d:
        alice_dm = await dm_game(d, "alice")
        bob_dm = await dm_game(d, "bob")
        # Both rated in their direct messages (as after enough games there).
        with sqlite3.connect(tmp_path / "g.db") as conn:
            conn.execute("UPDATE ratings SET games = 6, score = 1000 + user_id % 7 WHERE guild_id = 0")
        step = await d.send_command("bob", bob_dm, "risk leaderboard", {})
        assert "**1.** bob" in step[0].text and "alice" not in step[0].text and "Page 1 of 1" in step[0].text
        step = await d.send_command("alice", alice_dm, "risk leaderboard", {})
        assert "**1.** alice" in step[0].text and "bob" not in step[0].text
        step = await d.send_command("carol", "general", "risk leaderboard", {})
        assert "alice" not in step[0].text and "bob" not in step[0].text


async def test_log_export_and_mygames_in_a_dm_are_that_dms_games(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="dm log")) as d:
        alice_dm = await dm_game(d, "alice", finish=False)
        bob_dm = await dm_game(d, "bob")
        (alices,), (bobs,) = await game_ids(d, alice_dm), await game_ids(d, bob_dm)
        step = await d.send_command("bob", bob_dm, "risk export", {})
        assert [a.filename for a in step[0].attachments] == [f"risk-game-{bobs}.jsonl"]
        step = await d.send_command("bob", bob_dm, "risk log", {})
        assert step[0].ephemeral and "alice" not in step[0].text
        await start(d, ("bob", "carol"), 0, deployment="auto")   # a running game of Bob's on the server
        step = await d.send_command("bob", bob_dm, "risk mygames", {})
        assert "You are in no running game on this server" in step[0].content
        step = await d.send_command("alice", alice_dm, "risk mygames", {})
        assert f"#{alices}" in step[0].content and "general" not in step[0].content
        step = await d.send_command("bob", "general", "risk mygames", {})
        assert f"#{alices}" not in step[0].content and str(d.channel("general").id) in step[0].content


async def test_the_store_reads_no_dms_records_without_the_dm_channel(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="dm store")) as d:
        await dm_game(d, "alice")
        bob_dm = await dm_game(d, "bob")
        store, bob = d.bot.store, d.user("bob").id
        assert await store.finished_games(None) == []
        assert await store.leaderboard(None, minimum=MIN_GAMES) == ([], 0)
        assert await store.player_stats(None, bob, minimum=MIN_GAMES) is None and await store.ratings(None) == {}
        assert await store.rating_history(None, bob) == []
        assert [g.channel_id for g in await store.finished_games(None, bob_dm.id)] == [bob_dm.id]
        assert list(await store.ratings(None, bob_dm.id)) == [bob]
        assert [game for game, _ in await store.rating_history(None, bob, bob_dm.id)] == await game_ids(d, bob_dm)
        assert await store.rating_history(None, d.user("alice").id, bob_dm.id) == []
        assert (await store.player_stats(None, bob, bob_dm.id, minimum=MIN_GAMES)).games == 1


async def test_the_limits_of_a_dm_count_only_that_dms_games(tmp_path: Path):
    bot = make_bot(tmp_path / "g.db", seed="dm limits")
    bot.config.games_per_server = 1
    async with OfflineDiscord(bot) as d:
        assert not (await d.send_command("alice", d.dm_channel("alice"), "risk new", {})).problems
        step = await d.send_command("bob", d.dm_channel("bob"), "risk new", {})
        assert not step[0].ephemeral and "already has" not in step[0].content   # Alice's lobby is not Bob's DMs'
        assert not (await d.send_command("carol", "general", "risk new", {})).problems  # nor the server's
        step = await d.send_command("carol", "lounge", "risk new", {})
        assert step[0].ephemeral and "already has 1 game going" in step[0].content


async def test_a_dm_offers_only_the_built_in_maps(tmp_path: Path):
    from engine import builtin_maps

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="dm maps")) as d:
        choices = await d.autocomplete("bob", d.dm_channel("bob"), "risk new", {"map": ""}, focused="map")
        assert sorted(c["value"] for c in choices) == sorted(builtin_maps())
