"""The live board in a real browser (Playwright with Debian's Chromium): a player opens the link the bot gave them,
plays a whole turn by tapping the map at 360 px, and the store and the channel hold what a turn of taps in Discord
gives; a forged message and a move out of turn from the page change nothing.

Slow (a browser): ``make test-slow`` and CI run it; it never skips (``.ci/run`` installs Chromium when missing).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from discord_helpers import OfflineDiscord
from web_helpers import boarded, chromium, link_for, record_of

from engine import Game
from engine.state import ATTACK, FORTIFY, OCCUPY, REINFORCE
from present.menus import attack_pairs

pytestmark = [pytest.mark.slow, pytest.mark.real_render]  # the map as the renderer draws it
__all__ = ["boarded"]  # the fixture, used by name
PHONE = {"width": 360, "height": 740}
SHOTS = os.environ.get("RISK_BOARD_SHOTS")  # a folder to keep the page's screenshots in, to look at them


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    async with chromium() as launched:
        yield launched


async def shot(page: Any, tmp_path: Path, name: str) -> None:
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


async def until(page: Any, expression: str, seconds: float = 15) -> None:
    """Wait until ``expression`` is true in the page (asked from outside: the page's policy allows no eval, so
    Playwright's own polling, which evaluates strings in the page, is not used)."""
    for _ in range(int(seconds / 0.05)):
        if await page.evaluate(expression):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the page never got {expression}")


async def board_seq(page: Any, seq: int) -> None:
    """Wait until the page shows the board after event ``seq``."""
    await until(page, f"document.body.dataset.seq === '{seq}'")


async def tap(page: Any, territory: str) -> None:
    """A tap on the map, on the territory's army number (where a finger goes; the map scrolls to it first)."""
    await page.locator(f".badge[data-territory='{territory}']").click()


async def settle(d: OfflineDiscord, server: Any, page: Any = None, seq: int | None = None) -> Any:
    """The game once the page's move was applied (the page shows a board after event ``seq``) and the channel was
    told of it (the announcer waits until its messages are posted)."""
    if page is not None:
        await until(page, f"document.body.dataset.seq !== '{seq}'")
    await server.settled()
    return await record_of(d)


async def test_a_whole_turn_by_tapping_the_map_is_stored_once_and_told_in_the_channel(boarded, browser, tmp_path):
    d, server, _base = boarded
    record = await record_of(d)
    seat = record.game().state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = await context.new_page()
    weight = {"bytes": 0}

    async def counted(response: Any) -> None:
        if 300 <= response.status < 400:  # the link's redirect has no body
            return
        body = await response.body()
        weight["bytes"] += len(body)
    page.on("response", counted)

    start_seq = record.last_seq
    await page.goto(await link_for(d, who))
    assert page.url.endswith(f"/g/{record.id}")  # the link left the address bar
    assert "board" not in await page.evaluate("document.cookie")  # HttpOnly: the page's script cannot read it
    await board_seq(page, record.last_seq)
    await page.wait_for_load_state("networkidle")
    assert weight["bytes"] < 300_000, weight  # the first load, map included
    scroll = await page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= PHONE["width"]  # nothing wider than the phone
    names = await page.locator("#board path[aria-label]").count()
    assert names == 42
    await shot(page, tmp_path, "1-reinforce")

    # Place every army on one territory: tap it, then Place (the count starts at all of them).
    game = record.game()
    assert game.state.phase == REINFORCE
    pairs = attack_pairs(game, seat)
    mine = [t for t in game.state.territories_of(seat) if any(a == t for a, _b in pairs)] or \
        game.state.territories_of(seat)
    where = mine[0]
    left = game.state.reinforcements
    await tap(page, where)
    await page.locator("#all-here").click()
    record = await settle(d, server, page, record.last_seq)
    await board_seq(page, record.last_seq)
    game = record.game()
    assert game.state.phase == ATTACK and game.state.armies[where] >= left + 1

    # Attack: the territory just reinforced stays chosen, its targets lit with their odds; Blitz, then a target.
    source, target = next((a, b) for a, b in attack_pairs(game, seat) if a == where)
    await until(page, "document.querySelectorAll('#board path.lit').length > 0")
    odds = [t for t in await page.locator(".badge text.odds").all_text_contents() if t]
    assert odds and all(t.endswith("%") for t in odds)
    await shot(page, tmp_path, "2-targets")
    await page.locator("#blitz-next").click()
    await tap(page, target)
    record = await settle(d, server, page, record.last_seq)
    await board_seq(page, record.last_seq)
    game = record.game()
    if game.state.phase == OCCUPY:  # it fell: move in
        await shot(page, tmp_path, "3-move-in")
        await page.locator("#move-in").click()
        record = await settle(d, server, page, record.last_seq)
        await board_seq(page, record.last_seq)
        game = record.game()
    assert game.state.phase == ATTACK

    # End the attacks, fortify once (that ends the turn), all by taps.
    await page.get_by_role("button", name="End attacks").click()
    record = await settle(d, server, page, record.last_seq)
    await board_seq(page, record.last_seq)
    game = record.game()
    assert game.state.phase == FORTIFY
    sources = game.fortify_sources(seat)
    if sources:
        source = sources[0]
        to = game.fortify_targets(seat, source)[0]
        await tap(page, source)
        await tap(page, to)
        await page.locator("#controls button.go").first.click()  # Move: the most it may, in one tap
    else:
        await page.get_by_role("button", name="End turn").click()
    record = await settle(d, server, page, record.last_seq)
    await board_seq(page, record.last_seq)
    await shot(page, tmp_path, "4-turn-over")
    game = record.game()
    assert game.state.current != seat

    # The store holds each move once, and the channel read the turn as it reads a turn of taps.
    events = await d.bot.store.events(record.id)
    turn = [e for e in events[start_seq:] if e.get("seat") == seat]
    placed = [e for e in turn if e["type"] == "armies_placed"]
    assert [(e["territory"], e["count"]) for e in placed] == [(where, left)]  # one tap, one placement
    assert sum(1 for e in turn if e["type"] == "turn_ended") == 1
    Game.from_events(events)  # the log replays
    channel = [m for m in d.messages if not m.ephemeral]
    summary = next(m for m in reversed(channel) if m.content.startswith(f"✅ {who} played turn"))
    assert "placed" in summary.content and game.board.name(where) in summary.content
    nxt = channel[-1]
    assert nxt.content.startswith("🎯") and nxt.id != summary.id  # the next player's panel, as after a tap

    # A forged message and a move out of turn, from the page itself: refused, nothing changed.
    before = record.last_seq
    replies = await page.evaluate("""async () => {
        const ws = new WebSocket(location.origin.replace('http', 'ws') + location.pathname + '/ws');
        const got = [];
        await new Promise((ok) => ws.addEventListener('open', ok));
        ws.addEventListener('message', (e) => got.push(JSON.parse(e.data)));
        ws.send(JSON.stringify({type: 'move', id: 'f1', move: 'place', territory: 'alaska', count: 99, seat: 1}));
        ws.send(JSON.stringify({type: 'move', id: 'f2', move: 'end_turn'}));
        ws.send('{"type": "move", "move": "__proto__"}');
        await new Promise((ok) => setTimeout(ok, 1500));
        ws.close();
        return got.filter((m) => m.type === 'refused').length;
    }""")
    assert replies == 3
    assert (await settle(d, server)).last_seq == before
    await context.close()


async def test_the_page_reads_in_norwegian_for_a_norwegian_player(boarded, browser, tmp_path):
    d, _server, _base = boarded
    d.set_locale("carol", "no")
    context = await browser.new_context(viewport=PHONE)
    page = await context.new_page()
    await page.goto(await link_for(d, "carol"))
    await page.wait_for_selector("#players li")
    assert await page.locator("html").get_attribute("lang") == "nb"
    assert "Du ser på dette spillet." in await page.locator("#prompt").inner_text()  # a spectator
    await shot(page, tmp_path, "5-spectator-nb")
    await context.close()


async def test_a_page_whose_seat_changed_hands_says_why_and_shows_nothing_of_it(boarded, browser, tmp_path):
    """The AI takes bob's seat while his page is open: the page says why in his language (Norwegian here), shows
    nothing of the seat any more (no map, no cards, no territories), does not retry in a loop, and offers to open
    the board again, which his old cookie no longer does."""
    d, server, _base = boarded
    d.set_locale("bob", "no")
    record = await record_of(d)
    bob = record.seat_of(d.user("bob").id)
    context = await browser.new_context(viewport=PHONE)
    page = await context.new_page()
    await page.goto(await link_for(d, "bob"))
    await board_seq(page, record.last_seq)
    await d.bot.store.replace_with_ai(record.id, bob)   # as a takeover does; the table then tells the hub
    server.hub.changed(record.id)
    await until(page, "document.getElementById('prompt').textContent.includes('Du har ikke lenger den plassen')")
    assert await page.evaluate("document.querySelectorAll('#board path').length") == 0
    assert await page.evaluate("document.getElementById('hand').children.length") == 0
    assert await page.evaluate("document.getElementById('mapbox').style.display === 'none'")
    await shot(page, tmp_path, "6-seat-lost-nb")
    await page.locator("#controls button", has_text="Åpne brettet igjen").click()
    await page.wait_for_load_state()
    # The refusal page is in the browser's language (English here): the old cookie opens nothing, a new link does.
    assert "You no longer hold that seat" in await page.locator("body").inner_text()
    await context.close()


async def test_two_players_and_a_spectator_see_each_move_live_from_their_own_view(boarded, browser, tmp_path):
    d, server, _base = boarded
    record = await record_of(d)
    seat = record.game().state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    other = "bob" if who == "alice" else "alice"
    pages = {}
    for name in (who, other, "carol"):
        context = await browser.new_context(viewport=PHONE)
        pages[name] = await context.new_page()
        await pages[name].goto(await link_for(d, name))
        await board_seq(pages[name], record.last_seq)
    where = record.game().state.territories_of(seat)[0]
    before = record.game().state.armies[where]
    await tap(pages[who], where)
    await pages[who].locator("#controls button.go").click()
    record = await settle(d, server, pages[who], record.last_seq)
    label = f"document.getElementById('t-{where}').getAttribute('aria-label')"
    for name, page in pages.items():
        await board_seq(page, record.last_seq)
        assert (await page.evaluate(label)).endswith(f"Armies: {record.game().state.armies[where]}"), name
    assert record.game().state.armies[where] > before
    # Each sees it from their own seat: the mover's choices, the other's wait, the spectator's watch.
    assert await pages[who].locator("#controls button").count() > 0
    assert "Waiting for" in await pages[other].locator("#prompt").inner_text()
    assert "watching" in await pages["carol"].locator("#prompt").inner_text()
    assert await pages["carol"].locator("#hand-box").is_hidden()
    await shot(pages[other], tmp_path, "6-the-other-player")
    # The spectator scrubs back to the first event: the map of that moment, and back to now.
    watcher = pages["carol"]
    await watcher.locator("#replay-title").click()
    await watcher.locator("#scrub").fill("1")
    await until(watcher, "document.getElementById('prompt').textContent.includes('event 1 of')")
    assert "Turn " in await watcher.locator("#scrub-at").inner_text()  # which turn and event the scrubber shows
    await shot(watcher, tmp_path, "7-replay")
    await watcher.get_by_role("button", name="Back to now").click()
    await board_seq(watcher, record.last_seq)
    for page in pages.values():
        await page.context.close()


async def test_two_fingers_pinch_the_map_and_the_point_between_them_stays_put(boarded, browser, tmp_path):
    d, _server, _base = boarded
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = await context.new_page()
    await page.goto(await link_for(d, "alice"))
    await page.wait_for_selector("#players li")
    await page.click("#zoom-fit")  # it opened on the player's front: the whole map first
    box = await page.locator("#viewport").bounding_box()
    width = box["width"]
    assert await page.evaluate("document.getElementById('stage').getBoundingClientRect().width") == width
    # A real two-finger touch (Chromium's touch input): the fingers 60 px apart, then 150 px, around a point
    # left of the map's middle.
    touch = await context.new_cdp_session(page)
    y = box["y"] + box["height"] / 2
    mid = box["x"] + width / 3

    def points(apart: float) -> list[dict[str, float]]:
        return [{"x": mid - apart / 2, "y": y, "id": 1}, {"x": mid + apart / 2, "y": y, "id": 2}]

    await touch.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": points(60)})
    for apart in range(70, 151, 10):
        await touch.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": points(apart)})
    await touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    stage = await page.evaluate("document.getElementById('stage').getBoundingClientRect().width")
    assert stage == pytest.approx(2.5 * width, rel=0.02)   # 150 / 60: the map follows the fingers
    scrolled = await page.evaluate("document.getElementById('viewport').scrollLeft")
    # The point under the fingers' middle is the same point of the map as before the pinch.
    assert (scrolled + (mid - box["x"])) / 2.5 == pytest.approx(mid - box["x"], abs=3)
    await shot(page, tmp_path, "6-pinched")
    # The buttons zoom back out, and no further than the whole map.
    for _ in range(4):
        await page.click("#zoom-out")
    assert await page.evaluate("document.getElementById('stage').getBoundingClientRect().width") == width
    await context.close()
