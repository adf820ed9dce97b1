"""The limits a server owner sets: games at once in a server, open lobbies of one host, AI players a game."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot

pytestmark = pytest.mark.asyncio


def limited_bot(db: Path, **limits: int):
    bot = make_bot(db)
    for name, value in limits.items():
        setattr(bot.config, name, value)
    return bot


async def test_a_server_runs_at_most_its_games_and_a_host_their_lobbies(tmp_path: Path):
    async with OfflineDiscord(limited_bot(tmp_path / "g.db", games_per_server=2, lobbies_per_user=1)) as d:
        assert not (await d.send_command("alice", "general", "risk new", {})).problems
        step = await d.send_command("alice", "lounge", "risk new", {})
        assert step[0].ephemeral and "already host 1 open lobby" in step[0].content
        step = await d.send_command("bob", "lounge", "risk new", {})
        assert not step[0].ephemeral  # another host may
        step = await d.send_command("carol", "attic", "risk new", {})
        assert step[0].ephemeral and "already has 2 games going" in step[0].content
        await d.send_command("bob", "lounge", "risk cancel", {})
        step = await d.send_command("carol", "attic", "risk new", {})
        assert not step[0].ephemeral  # room again


async def test_a_game_seats_at_most_its_ai_players(tmp_path: Path):
    async with OfflineDiscord(limited_bot(tmp_path / "g.db", ai_seats_per_game=2)) as d:
        await d.send_command("alice", "general", "risk new", {})
        for _ in range(2):
            step = await d.send_command("alice", "general", "risk addbot", {})
            assert not step[0].ephemeral
        step = await d.send_command("alice", "general", "risk addbot", {})
        assert step[0].ephemeral and "at most 2 AI players" in step[0].content
        step = await d.click("alice", "Add AI")
        assert step[-1].ephemeral and "at most 2 AI players" in step[-1].content
        record = (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]
        assert sum(1 for p in record.players if p.is_ai) == 2


async def test_large_odds_are_computed_in_a_worker_process(tmp_path: Path):
    import workers
    from engine.odds import battle_odds
    from present.i18n import percent

    async with OfflineDiscord(limited_bot(tmp_path / "g.db")) as d:
        step = await d.send_command("alice", "general", "odds", {"attackers": 900, "defenders": 700})
        assert not step.problems, step.problems
        answer = step[-1]
        assert answer.ephemeral and percent(battle_odds(900, 700).win, None, 1) in answer.content
        assert workers.shared.started  # the work went to the pool, not the event loop
        pids = set(workers.shared.pids())
        assert pids and os.getpid() not in pids


async def test_limits_hold_when_many_ask_at_once(tmp_path: Path):
    import asyncio

    async with OfflineDiscord(limited_bot(tmp_path / "g.db", games_per_server=3, ai_seats_per_game=2)) as d:
        channels = [f"room-{n}" for n in range(8)]
        for name in channels:
            d.channel(name)
        hosts = [f"host{n}" for n in range(8)]
        await asyncio.gather(*(d.send_command(h, c, "risk new", {}) for h, c in zip(hosts, channels, strict=True)))
        games = [g for s in ("lobby", "running") for g in await d.bot.store.list_games(s)]
        assert len(games) == 3
        lobby = games[0]
        host = next(h for h in hosts if d.user(h).id == lobby.host_id)
        channel = next(c for c in channels if d.channel(c).id == lobby.channel_id)
        await asyncio.gather(*(d.send_command(host, channel, "risk addbot", {}) for _ in range(5)))
        record = await d.bot.store.get_game(lobby.id)
        assert sum(1 for p in record.players if p.is_ai) == 2
