"""The board as a Discord Activity in a real browser (Playwright with Debian's Chromium): a parent page at
``http://localhost:3333`` (an origin the SDK accepts as a Discord client's) plays Discord's side of the Embedded App
SDK's handshake in postMessage frames; the unmodified vendored SDK in the board's iframe authorizes and
authenticates against the fake Discord; the player places their armies, ends their attacks and their turn on the
board. A forged instance or channel and a user not in the instance are refused in the page, with nothing stored.

Slow (a browser): ``make test-slow`` and CI run it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from discord_helpers import OfflineDiscord
from discord_offline.fake_discord import FakeDiscord
from web_helpers import activity_game, chromium, record_of

pytestmark = [pytest.mark.slow, pytest.mark.real_render]
PARENT = "http://localhost:3333"

# Discord's side of the SDK's RPC: HANDSHAKE (opcode 0) is answered with the READY dispatch, each FRAME (1) with
# the answer to its command. AUTHORIZE and AUTHENTICATE are asked of the test (the fake Discord's OAuth2).
PARENT_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Discord</title></head><body>
<iframe id="app" src="SRC" style="width:360px;height:700px;border:0"></iframe>
<script>
const frame = document.getElementById("app");
window.addEventListener("message", async (e) => {
  if (e.source !== frame.contentWindow || !Array.isArray(e.data)) return;
  const [op, data] = e.data;
  const reply = (payload) => frame.contentWindow.postMessage([1, payload], "*");
  if (op === 0) {
    reply({ cmd: "DISPATCH", evt: "READY", nonce: null, data: { v: 1, config: {
      api_endpoint: "//discord.com/api", environment: "production", cdn_host: "cdn.discordapp.com" } } });
    return;
  }
  if (op !== 1) return;
  let answer = {};
  try {
    if (data.cmd === "AUTHORIZE") answer = { code: await window.discordAuthorize(data.args) };
    else if (data.cmd === "AUTHENTICATE") answer = await window.discordAuthenticate(data.args.access_token);
  } catch (error) {  // Discord's refusal of a command: an ERROR frame with its nonce
    reply({ cmd: data.cmd, evt: "ERROR", nonce: data.nonce, data: { code: 4009, message: "Invalid token" } });
    return;
  }
  reply({ cmd: data.cmd, evt: null, nonce: data.nonce, data: answer });
});
</script></body></html>"""


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    """Chromium as the other browser tests launch it; the parent page is served by Playwright itself, which
    Chromium takes for a public address, so its local-network check (a public page framing a loopback one) is off."""
    async with chromium("--disable-features=LocalNetworkAccessChecks,PrivateNetworkAccessRespectPreflightResults") as b:
        yield b


@pytest.fixture
async def activity(tmp_path: Path) -> AsyncIterator[tuple[OfflineDiscord, FakeDiscord, str]]:
    async with activity_game(tmp_path, frame_ancestors=PARENT) as served:
        yield served


async def open_in_discord(browser: Any, fake: FakeDiscord, src: str, user: str,
                          code_of: str | None = None) -> tuple[Any, Any, list[str]]:
    """A phone-sized Discord client showing the Activity at ``src`` for ``user``; its iframe's frame. ``code_of``:
    the user whose code the client hands out (a forged answer to ``authorize``)."""
    context = await browser.new_context(viewport={"width": 380, "height": 740})
    page = await context.new_page()
    asked: list[str] = []

    async def authorize(args: Any) -> str:
        asked.append(f"authorize {','.join(args['scope'])}")
        return fake.authorize(code_of or user)

    async def authenticate(token: str) -> dict[str, Any]:  # what Discord answers: the token's user and grant
        asked.append("authenticate")
        me = fake.server.user_by_id(fake.access_tokens.get(token, 0))
        if me is None or me.id != fake.user(user).id:  # Discord's client authenticates its own user only
            asked.append("refused")
            raise ValueError("Invalid token")
        return {"access_token": token, "user": {**me.payload(), "public_flags": 0}, "scopes": ["identify"],
                "expires": "2100-01-01T00:00:00Z",
                "application": {"id": str(fake.application_id), "name": "bot", "description": "", "icon": None}}

    await page.expose_function("discordAuthorize", authorize)
    await page.expose_function("discordAuthenticate", authenticate)
    await page.route(f"{PARENT}/**", lambda route: route.fulfill(
        status=200, content_type="text/html", body=PARENT_PAGE.replace("SRC", src)))
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(f"{request.url}: {request.failure}"))
    await page.goto(f"{PARENT}/channels/activity")
    for _ in range(200):
        frame = next((f for f in page.frames if f.url.startswith(src.split("?", maxsplit=1)[0])), None)
        if frame is not None:
            return page, frame, asked
        await asyncio.sleep(0.05)
    raise AssertionError(f"the Activity's iframe never loaded: {[f.url for f in page.frames]} {failed}")


async def until(frame: Any, expression: str, seconds: float = 20) -> None:
    for _ in range(int(seconds / 0.05)):
        if await frame.evaluate(expression):
            return
        await asyncio.sleep(0.05)
    text = await frame.evaluate("document.body.innerText")
    raise AssertionError(f"the Activity never got {expression}; it shows: {text[:500]}")


def src_for(base: str, instance: str, channel: int) -> str:
    return f"{base}/?frame_id=frame-1&instance_id={instance}&channel_id={channel}&platform=desktop"


async def test_a_player_authenticates_in_the_activity_and_plays_a_turn_on_the_board(activity, browser):
    d, fake, base = activity
    record = await record_of(d)
    seat = record.game().state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    instance = fake.launch_activity(who, "general")
    page, frame, asked = await open_in_discord(browser, fake, src_for(base, instance.id, instance.channel_id), who)
    await until(frame, "document.querySelectorAll('#board path.t.lit').length > 0")
    assert asked == ["authorize identify", "authenticate"]
    assert await frame.evaluate("document.cookie") == ""  # no cookie: the session is held in memory
    # The map's background is fetched with the token (an <image> could not send it) and shown from a blob.
    await until(frame, "document.querySelector('#board image.background').getAttribute('href').startsWith('blob:')"
                       " && document.querySelector('#board image.background').getAttribute('data-loaded') === '1'")
    await frame.locator("#board path.t.lit").first.dispatch_event("click")
    await frame.locator("#all-here").click()  # Place: every army on that territory
    await until(frame, "[...document.querySelectorAll('#controls button')].some(b => b.textContent === 'End attacks')")
    await frame.locator("#controls button", has_text="End attacks").click()
    await until(frame, "[...document.querySelectorAll('#controls button')].some(b => b.textContent === 'End turn')")
    await frame.locator("#controls button", has_text="End turn").click()
    for _ in range(400):
        after = await record_of(d)
        if after.game().state.current != seat:
            break
        await asyncio.sleep(0.05)
    await d.bot.board.settled()
    after = await record_of(d)
    assert after.game().state.current != seat and after.last_seq > record.last_seq
    assert sum(after.game().state.armies.values()) > sum(record.game().state.armies.values())
    # Leave works inside Discord too: with the session (no cookie, Discord's proxy's origin), for good.
    await frame.locator("#leave-button").click()
    await until(frame, "document.getElementById('prompt').textContent === 'You left this board.'")
    assert await frame.locator("#controls button", has_text="Open the board again").count() == 1
    assert await frame.evaluate("document.querySelectorAll('#board path').length") == 0  # nothing of the game
    assert len(await d.bot.store.revoked_sessions(0.0)) == 1
    await page.context.close()


@pytest.mark.parametrize("forged", ["instance", "channel", "user"])
async def test_a_forged_instance_or_channel_or_a_user_not_in_it_is_refused_in_the_page(activity, browser, forged):
    d, fake, base = activity
    record = await record_of(d)
    instance = fake.launch_activity("alice", "general")
    src = {"instance": src_for(base, "i-forged", instance.channel_id),
           "channel": src_for(base, instance.id, fake.channel("elsewhere").id),
           "user": src_for(base, instance.id, instance.channel_id)}[forged]
    page, frame, _asked = await open_in_discord(browser, fake, src, "carol" if forged == "user" else "alice")
    await until(frame, "!!document.querySelector('#controls .refusal')")
    assert "could not confirm" in await frame.locator("#controls .refusal").inner_text()
    assert await frame.evaluate("document.querySelectorAll('#board path').length") == 0  # no board at all
    assert (await record_of(d)).last_seq == record.last_seq
    await page.context.close()


async def test_a_token_for_another_user_is_refused_by_discord_and_no_board_opens(activity, browser):
    """Alice's Discord client handed a code of Bob's (both are in the instance): the bot can only see Bob, but
    Discord's client refuses to authenticate Bob's token in Alice's client, and the page never opens the board."""
    d, fake, base = activity
    record = await record_of(d)
    instance = fake.launch_activity("alice", "general")
    fake.launch_activity("bob", "general")
    page, frame, asked = await open_in_discord(browser, fake, src_for(base, instance.id, instance.channel_id),
                                               "alice", code_of="bob")
    await until(frame, "!!document.querySelector('#controls .refusal')")
    assert asked == ["authorize identify", "authenticate", "refused"]
    assert await frame.evaluate("document.querySelectorAll('#board path').length") == 0
    assert (await record_of(d)).last_seq == record.last_seq
    await page.context.close()
