"""The live board in the real ``bot.py`` process against the fake Discord on 127.0.0.1: the ``[web]`` settings of
its config start the board's server, ``/board`` is synced as a top-level command, a player's link opens the
board, and a move made on it is stored and told in the channel."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from discord_offline.fake_discord import CommandCatalog, FakeDiscord
from discord_offline.records import flatten_components
from e2e.launch import ROOT, BotProcess
from e2e.players import Table, latest_game
from web_helpers import SECRET, free_port, jar

pytestmark = [pytest.mark.asyncio, pytest.mark.slow,
              pytest.mark.filterwarnings("ignore:unread_data:DeprecationWarning")]


def web_settings(port: int) -> str:
    return (f'\n[web]\nlisten = "127.0.0.1:{port}"\npublic_url = "http://127.0.0.1:{port}"\n'
            f"secret = {json.dumps(SECRET)}\n")


def synced_commands(workdir: Path, port: int) -> list[dict[str, Any]]:
    """What ``bot.py sync`` would register with the board set up (``--dry-run``: no network)."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "dry-run.toml"
    config.write_text(f"database = {json.dumps(str(workdir / 'dry-run.sqlite3'))}\nlog_level = \"WARNING\"\n"
                      + web_settings(port), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("E2E_", "DISCORD_"))}
    done = subprocess.run([sys.executable, str(ROOT / "bot.py"), "--config", str(config), "sync", "--dry-run"],
                          cwd=str(ROOT), env=env, capture_output=True, timeout=60, check=True)
    specs: list[dict[str, Any]] = json.loads(done.stdout)
    return specs


async def test_the_bot_process_serves_the_board_its_config_sets_up(tmp_path: Path):
    port = free_port()
    specs = synced_commands(tmp_path / "sync", port)
    assert any(c["name"] == "board" for c in specs)  # a top-level command beside /risk
    async with asyncio.timeout(120), FakeDiscord(commands=CommandCatalog(specs)) as fake:
        fake.channel("general")
        bot = BotProcess(fake.url, tmp_path / "bot")
        bot.config.write_text(bot.config.read_text(encoding="utf-8") + web_settings(port), encoding="utf-8")
        try:
            bot.start()
            await bot.wait_ready()
            assert f"the live board listens on 127.0.0.1:{port}" in bot.all_stderr()
            table = Table(fake, Path(bot.database), "general", ["alice", "bob"], ais=0)
            game_id = await table.open()
            snap = latest_game(Path(bot.database), table.channel.id)
            assert snap is not None and snap.current is not None
            who = next(u for u in table.humans if u.id == snap.seats[snap.current])
            answer = await (await fake.command(who, "general", "board")).wait_settled(20)
            assert answer.answers and all(a.ephemeral for a in answer.answers)
            [url] = [c["url"] for a in answer.answers for c in flatten_components(a.components) if c.get("url")]
            base = f"http://127.0.0.1:{port}"
            assert url.startswith(f"{base}/b/")
            async with aiohttp.ClientSession(cookie_jar=jar()) as http:
                async with http.get(url) as r:
                    assert r.status == 200 and str(r.url).endswith(f"/g/{game_id}")
                ws = await http.ws_connect(f"ws://127.0.0.1:{port}/g/{game_id}/ws", origin=base)
                await ws.send_json({"type": "hello", "since": 0})
                board = (await ws.receive_json(timeout=20))["board"]
                where = board["legal"]["place"]["territories"][0]
                await ws.send_json({"type": "move", "id": "e2e-1", "move": "place", "territory": where, "count": 1})
                types = {(await ws.receive_json(timeout=20))["type"] for _ in range(2)}
                assert types == {"done", "board"}
                await ws.close()
            after = latest_game(Path(bot.database), table.channel.id)
            assert after is not None and after.last_seq == snap.last_seq + 1
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:  # the turn panel is edited with the move, as for a tap
                if any("placed 1" in (m.content or "") for m in fake.server.messages.values() if not m.ephemeral):
                    break
                await asyncio.sleep(0.1)
            else:
                raise AssertionError("the channel was not told of the board's move")
            # Syncing the commands while the bot runs registers /board without taking the board's port.
            assert any(c["name"] == "board" for c in synced_commands(tmp_path / "sync-again", port))
            assert not bot.errors(), bot.errors()
        finally:
            bot.stop()


async def test_the_bot_process_launches_the_activity_checks_it_with_discord_and_keeps_its_entry_point(
        tmp_path: Path):
    """With the Activity set up, /board launches it; the page's code, instance and channel are checked with the
    (fake) Discord by the bot process itself (its OAuth2 credentials, its bot token), the session token then plays
    a move; ``bot.py sync`` (global) keeps the Activity's Entry Point command."""
    port = free_port()
    specs = synced_commands(tmp_path / "sync", port)
    async with asyncio.timeout(120), FakeDiscord(commands=CommandCatalog(specs)) as fake:
        fake.channel("general")
        entry = fake.enable_activities()
        activity = (f'client_id = "{fake.application_id}"\nclient_secret = {json.dumps(fake.client_secret)}\n'
                    f'discord_api = "{fake.api_url}"\n')
        bot = BotProcess(fake.url, tmp_path / "bot")
        bot.config.write_text(bot.config.read_text(encoding="utf-8") + web_settings(port) + activity,
                              encoding="utf-8")
        try:
            bot.start()
            await bot.wait_ready()
            table = Table(fake, Path(bot.database), "general", ["alice", "bob"], ais=0)
            game_id = await table.open()
            snap = latest_game(Path(bot.database), table.channel.id)
            assert snap is not None and snap.current is not None
            who = next(u for u in table.humans if u.id == snap.seats[snap.current])
            launched = await (await fake.command(who, "general", "board")).wait_settled(20)
            assert launched.callback_type == 12 and launched.launched is not None and not launched.answers
            instance = launched.launched
            assert (instance.channel_id, instance.users) == (table.channel.id, [who.id])
            base = f"http://127.0.0.1:{port}"
            async with aiohttp.ClientSession() as http:
                body = {"code": fake.authorize(who), "instance_id": instance.id,
                        "channel_id": str(instance.channel_id)}
                async with http.post(f"{base}/activity/session", json=body, headers={"Origin": base}) as r:
                    assert r.status == 200, await r.text()
                    got = await r.json()
                assert got["game"] == game_id
                ws = await http.ws_connect(f"ws://127.0.0.1:{port}/g/{game_id}/ws", origin=base,
                                           protocols=("risk-board", f"session.{got['session']}"))
                await ws.send_json({"type": "hello", "since": 0})
                board = (await ws.receive_json(timeout=20))["board"]
                where = board["legal"]["place"]["territories"][0]
                await ws.send_json({"type": "move", "id": "act-1", "move": "place", "territory": where, "count": 1})
                types = {(await ws.receive_json(timeout=20))["type"] for _ in range(2)}
                assert types == {"done", "board"}
                await ws.close()
            instances = [c for c in fake.calls if "/activity-instances/" in c.path]
            assert [c.status for c in instances] == [200]  # asked of Discord with the bot's token
            after = latest_game(Path(bot.database), table.channel.id)
            assert after is not None and after.last_seq == snap.last_seq + 1
            assert not bot.errors(), bot.errors()
        finally:
            bot.stop()
        syncing = BotProcess(fake.url, tmp_path / "sync-run")
        syncing.config.write_text(syncing.config.read_text(encoding="utf-8") + web_settings(port) + activity,
                                  encoding="utf-8")
        syncing.start("sync")
        assert await syncing.wait_exit(60) == 0, syncing.stderr()
        registered = fake.server.commands[None]
        assert {c["name"] for c in registered} >= {"risk", "board", "launch"}
        assert [c["id"] for c in registered if c.get("type") == 4] == [entry["id"]]
        assert not [c for c in fake.rejected() if c.method == "PUT"]
