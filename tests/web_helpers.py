"""The live board's test fixture: the bot in this process with its board server on a free port of 127.0.0.1,
against the offline Discord, with a game of two players started."""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from discord_helpers import OfflineDiscord, make_bot, start
from discord_offline.fake_discord import FakeDiscord

from engine.state import REINFORCE
from web.config import WebConfig

SECRET = "a test secret of thirty-two bytes!"
CHROMIUM = os.environ.get("RISK_CHROMIUM", "/usr/bin/chromium")  # Debian's, launched by its path


def jar() -> aiohttp.CookieJar:
    return aiohttp.CookieJar(unsafe=True)  # cookies of 127.0.0.1 (an address, not a name) too


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def chromium(*flags: str) -> AsyncIterator[Any]:
    """Debian's Chromium through Playwright (no browser of Playwright's own), with ``flags`` besides the usual."""
    from playwright.async_api import async_playwright

    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does)"
    async with async_playwright() as p:
        launched = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu",
                                                                           "--disable-dev-shm-usage", *flags])
        try:
            yield launched
        finally:
            await launched.close()


@contextlib.asynccontextmanager
async def activity_game(tmp_path: Path, **web: Any) -> AsyncIterator[tuple[OfflineDiscord, FakeDiscord, str]]:
    """The board as an Activity: the bot's board server on a free port, the fake Discord on loopback for its
    OAuth2 and activity instances (``web``: more of the board's config), a game of two players started."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    async with FakeDiscord() as fake:
        bot = make_bot(tmp_path / "g.db", seed="web")
        bot.config.token = fake.token
        bot.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=base, secret=SECRET,
                                   client_id=str(fake.application_id), client_secret=fake.client_secret,
                                   discord_api=fake.api_url, **web)
        async with OfflineDiscord(bot, strict=True) as d:
            await start(d, ("alice", "bob"), 0, deployment="auto")
            yield d, fake, base


@pytest.fixture
async def boarded(tmp_path: Path) -> AsyncIterator[tuple[OfflineDiscord, Any, str]]:
    port = free_port()
    bot = make_bot(tmp_path / "g.db", seed="web")
    bot.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=f"http://127.0.0.1:{port}", secret=SECRET)
    async with OfflineDiscord(bot, strict=True) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        yield d, bot.board, f"http://127.0.0.1:{port}"


async def link_for(d: OfflineDiscord, user: str) -> str:
    step = await d.send_command(user, "general", "board", {})
    assert not step.problems, step.problems
    answer = step[-1]
    assert answer.ephemeral
    [button] = [b for b in answer.buttons if b["url"]]
    url: str = button["url"]
    return url


async def record_of(d: OfflineDiscord) -> Any:
    return await d.bot.store.get_active_game(d.channel("general").id)




def patched(before: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """The board a page shows after a board message: a whole board, or ``before`` with the message's changes
    (``web.board.diff``), applied as ``board.js`` applies them."""
    if "board" in message:
        whole: dict[str, Any] = message["board"]
        return whole
    assert before is not None, "a change came before any whole board"
    change = message["diff"]
    after = {**before, **change.get("set", {})}
    for key in change.get("drop", []):
        after.pop(key, None)
    for key in ("owners", "armies"):
        territories = dict(after.get(key, {}))
        for territory, value in change.get(key, {}).items():
            if value is None:
                territories.pop(territory, None)
            else:
                territories[territory] = value
        after[key] = territories
    return after


def reference_ready(game: Any) -> dict[str, str] | None:
    """A start of a turn where the reference turn can be played whatever the dice: a set to trade, a territory
    with an enemy to blitz, enemies strong enough that two single rolls take none of them, and a territory of
    its own next door to fortify. The territories to tap, or None."""
    s = game.state
    seat = s.current
    if s.phase != REINFORCE or not game.can_trade(seat) or not game.ranked_sets(seat):
        return None
    for x in sorted(s.territories_of(seat), key=lambda t: -s.armies[t]):
        near = sorted(game.board.neighbours(x))
        enemies = sorted((t for t in near if s.owners[t] != seat), key=lambda t: s.armies[t])
        friends = [t for t in near if s.owners[t] == seat]
        if len(enemies) < 2 or not friends:
            continue
        blitz, rest = enemies[0], enemies[1:]
        strong = [t for t in rest if s.armies[t] >= 3]
        if len(strong) >= 2:
            return {"x": x, "blitz": blitz, "t1": strong[0], "t2": strong[1], "f": friends[0]}
        if any(s.armies[t] >= 5 for t in rest):
            t = next(t for t in rest if s.armies[t] >= 5)
            return {"x": x, "blitz": blitz, "t1": t, "t2": t, "f": friends[0]}
    return None


async def play_until(d: Any, server: Any, ready: Any) -> tuple[Any, Any]:
    """The game played on by the normal AI for every seat, through the table, until ``ready(game)`` gives what it
    looks for; the game then, and that."""
    from engine.ai import make_ai

    ai = make_ai("normal", salt="phone")
    for _ in range(3000):
        record = await record_of(d)
        game = record.game()
        found = ready(game)
        if found is not None:
            return record, found
        await server.table.apply(record, ai.choose(game, game.state.current), None)
    raise AssertionError("no turn of the reference kind came up")
