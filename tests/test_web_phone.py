"""The live board as a phone client, in Debian's Chromium at 360×740 with touch: the page draws the board itself
over the map's background (loaded once), opens on the viewer's front with readable numbers, plays the reference
turn within its budget of taps, shows every battle, and moves cost a few kilobytes.

Slow (a browser): ``make test-slow`` and CI run it. ``RISK_BOARD_SHOTS=folder`` keeps its screenshots.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import boarded, chromium, link_for, play_until, record_of, reference_ready

from engine import Place
from engine.state import ATTACK, REINFORCE

pytestmark = [pytest.mark.slow]
__all__ = ["boarded"]  # the fixture, used by name
PHONE = {"width": 360, "height": 740}
SHOTS = os.environ.get("RISK_BOARD_SHOTS")


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    async with chromium() as launched:
        yield launched


async def phone(browser: Any, **more: Any) -> tuple[Any, Any]:
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True,
                                        **more)
    return context, await context.new_page()


async def shot(page: Any, tmp_path: Path, name: str) -> None:
    folder = Path(SHOTS) if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=str(folder / f"{name}.png"))


async def until(page: Any, expression: str, seconds: float = 15) -> None:
    """Wait until ``expression`` is true in the page (asked from outside: the page's policy allows no eval)."""
    for _ in range(int(seconds / 0.05)):
        if await page.evaluate(expression):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"the page never got {expression}")


SHOWN = "(t) => { const r = document.getElementById('t-' + t).getBoundingClientRect();" \
        " const v = document.getElementById('viewport').getBoundingClientRect();" \
        " return r.right > v.left && r.left < v.right && r.bottom > v.top && r.top < v.bottom; }"
ON_SCREEN = "(q) => { const r = document.querySelector(q).getBoundingClientRect();" \
            " return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0; }"
NUMBER_PX = "(t) => { const g = document.querySelector(`.badge[data-territory='${t}'] text`);" \
            " return g.getBoundingClientRect().height; }"


async def test_the_board_opens_on_the_players_front_with_numbers_readable_at_any_zoom(boarded, browser, tmp_path):
    d, _server, _base = boarded
    record = await record_of(d)
    game = record.game()
    seat = game.state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    context, page = await phone(browser)
    await page.goto(await link_for(d, who))
    await until(page, "document.querySelector('.badge text').textContent !== ''")
    await shot(page, tmp_path, "1-first-load")
    zoom = await page.evaluate("document.getElementById('stage').getBoundingClientRect().width / "
                               "document.getElementById('viewport').clientWidth")
    assert zoom > 1.5  # zoomed in on the front, not the whole world in 360 px
    mine = game.state.territories_of(seat)
    shown = [t for t in mine if await page.evaluate(f"({SHOWN})({t!r})")]
    assert shown
    for t in shown:  # the army numbers there, from the page's own geometry
        assert await page.evaluate(f"({NUMBER_PX})({t!r})") >= 12
    await page.locator("#zoom-fit").tap()
    for t in shown:  # the whole map in 360 px: the numbers keep their size
        assert await page.evaluate(f"({NUMBER_PX})({t!r})") >= 12
    await shot(page, tmp_path, "2-fit")
    # Nothing overlaps in the header at 360 px: the name chips and the Leave button.
    boxes = await page.evaluate("[...document.querySelectorAll('#players li, #leave-button')].map((n) => {"
                                " const r = n.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })")
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # Turned to landscape: nothing wider than the screen, the map still there, the numbers still 12 px.
    await page.set_viewport_size({"width": 740, "height": 360})
    await page.locator("#zoom-in").tap()
    assert await page.evaluate("document.documentElement.scrollWidth") <= 740
    assert await page.evaluate("document.getElementById('viewport').getBoundingClientRect().height") >= 150
    for t in shown:
        assert await page.evaluate(f"({NUMBER_PX})({t!r})") >= 12
    await shot(page, tmp_path, "2-landscape")
    await context.close()


async def test_the_board_catches_up_by_itself_after_the_connection_drops_or_the_phone_wakes(boarded, browser):
    d, server, _base = boarded
    record = await record_of(d)
    context, page = await phone(browser)
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload))))
    await page.goto(await link_for(d, "carol"))
    await until(page, f"document.body.dataset.seq === '{record.last_seq}'")
    # The connection drops (the server goes away), a move is made meanwhile: the page reconnects and shows it.
    for boards in list(server._sockets.values()):
        for board in list(boards):
            await server.hub.drop(board, "restart")
    game = record.game()
    seat = game.state.current
    await server.table.apply(record, Place(seat, game.state.territories_of(seat)[0], 1), None)
    record = await record_of(d)
    await until(page, f"document.body.dataset.seq === '{record.last_seq}'")
    assert "reconnecting" not in (await page.locator("#status").inner_text()).lower()
    # The phone wakes up (the page shows again): it asks for the whole board anew.
    hellos = len([m for m in sent if '"hello"' in m])
    await page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    for _ in range(100):
        if len([m for m in sent if '"hello"' in m]) > hellos:
            break
        await asyncio.sleep(0.05)
    assert len([m for m in sent if '"hello"' in m]) == hellos + 1
    await context.close()


class Taps:
    """Every tap of the turn, counted; each waits for the board the move led to (the page's ``data-seq``)."""

    def __init__(self, d: Any, page: Any) -> None:
        self.d, self.page, self.count, self.waits = d, page, 0, []

    async def tap(self, locator: Any, moves: bool = True) -> None:
        before = (await record_of(self.d)).last_seq
        self.count += 1
        started = time.perf_counter()
        await locator.tap()
        if moves:
            for _ in range(300):
                last = (await record_of(self.d)).last_seq
                if last > before and await self.page.evaluate(f"document.body.dataset.seq === '{last}'"):
                    break
                await asyncio.sleep(0.02)
            else:
                raise AssertionError(f"tap {self.count} changed nothing")
            self.waits.append(time.perf_counter() - started)

    def territory(self, t: str) -> Any:
        return self.page.locator(f".badge[data-territory='{t}']")


async def test_the_reference_turn_takes_at_most_ten_taps(boarded, browser, tmp_path):
    """Trade the best set; all armies on one territory; three attacks (one a blitz, one moving in a number that is
    not the default); one fortify of a chosen count, which ends the turn: ten taps at 360×740 with touch. Each
    battle's dice are on the board after it; each move costs a few kilobytes."""
    d, server, _base = boarded
    record, where = await play_until(d, server, reference_ready)
    game = record.game()
    seat = game.state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    context, page = await phone(browser)
    frames = {"bytes": 0}
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.__setitem__(
        "bytes", frames["bytes"] + len(payload if isinstance(payload, bytes) else payload.encode()))))
    await page.goto(await link_for(d, who))
    await until(page, f"document.body.dataset.seq === '{record.last_seq}'")
    start_seq, start_bytes = record.last_seq, frames["bytes"]
    taps = Taps(d, page)

    await taps.tap(page.locator("#trade"))                                  # 1: the best set
    await taps.tap(taps.territory(where["x"]), moves=False)                 # 2: where the armies go
    await taps.tap(page.locator("#all-here"))                               # 3: all of them
    assert (await record_of(d)).game().state.phase == ATTACK
    await taps.tap(page.locator("#blitz-next"), moves=False)                # 4: the next attack is a blitz
    await taps.tap(taps.territory(where["blitz"]))                          # 5: blitzed
    occupy = (await record_of(d)).game().state.pending
    assert occupy is not None and occupy["min"] < occupy["max"], occupy
    assert await page.locator("#battle .die").count() >= 2                  # its last roll's dice, at the battle
    assert "conquered" in await page.locator("#battle").inner_text()
    assert await page.evaluate(f"({ON_SCREEN})('#battle')")  # the card and its move-in, with no scrolling
    await shot(page, tmp_path, "3-battle-blitz")
    await taps.tap(page.get_by_role("button", name=f"Move {occupy['min']}", exact=True))  # 6: not the default
    await taps.tap(taps.territory(where["t1"]))                             # 7: one roll
    assert await page.locator("#battle .die").count() >= 2
    await shot(page, tmp_path, "4-battle-roll")
    await taps.tap(taps.territory(where["t2"]))                             # 8: one roll
    game = (await record_of(d)).game()
    assert game.state.phase == ATTACK and game.state.owners[where["t2"]] != seat
    await taps.tap(taps.territory(where["f"]), moves=False)                 # 9: fortify from there to here
    most = game.state.armies[where["x"]] - 1
    count = 1 if most == 1 else max(1, -(-(1 + most) // 2))
    await taps.tap(page.get_by_role("button", name=f"Move {count}", exact=True))  # 10: that many; the turn ends
    assert taps.count <= 10

    events = await d.bot.store.events(record.id)
    turn = [e for e in events[start_seq:] if e.get("seat") == seat]
    kinds = [e["type"] for e in turn]
    assert kinds.count("cards_traded") == 1 and kinds.count("turn_ended") == 1
    placed = [e for e in turn if e["type"] == "armies_placed" and e.get("source") == "reinforcement"]
    assert [e["territory"] for e in placed] == [where["x"]]  # all in one tap
    assert any(e["type"] == "occupied" and e["count"] == occupy["min"] for e in turn)
    assert [e["count"] for e in turn if e["type"] == "fortified"] == [count]
    assert len({e.get("blitz") for e in turn if e["type"] == "battle" and e.get("blitz") is not None}) == 1
    per_move = (frames["bytes"] - start_bytes) / 7   # the moves sent: trade, place, blitz, move-in, 2 rolls, fortify
    assert per_move <= 20_000, per_move
    await context.close()


async def test_a_blitz_from_the_battle_card_stops_where_the_player_chose(boarded, browser, tmp_path):
    """Beside the battle card's Blitz, a stop: the blitz ends when the attacking territory is down to that many
    armies (1, the default, blitzes to the end), with no tap more when it is left alone."""
    d, server, _base = boarded
    record, where = await play_until(d, server, reference_ready)
    seat = record.game().state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    context, page = await phone(browser)
    sent: list[dict[str, Any]] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(json.loads(payload))))
    await page.goto(await link_for(d, who))
    await until(page, f"document.body.dataset.seq === '{record.last_seq}'")
    taps = Taps(d, page)
    await taps.tap(page.locator("#trade"))
    await taps.tap(taps.territory(where["x"]), moves=False)
    await taps.tap(page.locator("#all-here"))
    await taps.tap(taps.territory(where["t1"]))                              # one roll: the card offers more
    game = (await record_of(d)).game()
    assert game.state.owners[where["t1"]] != seat
    stop = page.locator("#battle #stop-at")
    assert await stop.input_value() == "1"                                   # the default: to the end
    assert await stop.get_attribute("aria-label") == "Stop when your territory is down to this many armies " \
        "(default 1)"
    before = game.state.armies[where["x"]]
    choices = await stop.locator("option").evaluate_all("(o) => o.map((e) => Number(e.value))")
    assert choices == list(range(1, before))
    chosen = before - 1
    assert chosen >= 3, before
    await stop.select_option(str(chosen))
    await shot(page, tmp_path, "5-blitz-stop")
    await taps.tap(page.locator("#battle").get_by_role("button", name="Blitz", exact=True))
    assert [(m["from"], m["to"], m["stop_at"]) for m in sent if m.get("move") == "blitz"] == \
        [(where["x"], where["t1"], chosen)]
    after = (await record_of(d)).game().state
    events = await d.bot.store.events(record.id)
    blitz = [e for e in events[record.last_seq:] if e["type"] == "battle" and e.get("blitz") is not None]
    lost = [e["attacker_losses"] for e in blitz]
    # A blitz rolls while the territory has more than its stop, one army under its start here: it rolls on only
    # while it loses nothing, and ends at the first loss (two at most) or with the conquest.
    assert blitz and sum(lost[:-1]) == 0 and lost[-1] <= 2, lost
    if after.owners[where["t1"]] != seat:
        assert after.armies[where["x"]] in (chosen - 1, chosen) and lost[-1] > 0, (before, after.armies)
    await context.close()


@pytest.fixture
async def fogged(tmp_path: Path) -> AsyncIterator[tuple[Any, Any]]:
    """A game of alice and bob under fog of war, with its board server."""
    from discord_helpers import OfflineDiscord, make_bot, start
    from web_helpers import SECRET, free_port

    from web.config import WebConfig

    port = free_port()
    bot = make_bot(tmp_path / "fog.db", seed="fog")
    bot.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=f"http://127.0.0.1:{port}", secret=SECRET)
    async with OfflineDiscord(bot, strict=True) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto", fog="on")
        yield d, bot.board


DRAWN = "[...document.querySelectorAll('.badge')].filter((g) => g.style.display !== 'none')" \
        ".map((g) => g.dataset.territory).sort()"


async def test_under_fog_each_page_draws_only_what_its_viewer_sees_and_tells_what_changed_since(fogged, browser,
                                                                                                tmp_path):
    d, server = fogged
    from engine.ai import make_ai
    from engine.fog import visible_territories

    record = await record_of(d)
    game = record.game()
    mover = game.state.current
    name = {record.seat_of(d.user(n).id): n for n in ("alice", "bob")}
    other = next(seat for seat in name if seat != mover)
    context, page = await phone(browser)
    await page.goto(await link_for(d, name[other]))
    await until(page, f"document.body.dataset.seq === '{record.last_seq}'")
    assert await page.evaluate(DRAWN) == sorted(visible_territories(game.state, other))
    assert await page.locator("#hand-box").is_visible()
    await shot(page, tmp_path, "5-fog-player")
    watcher_context, watcher = await phone(browser)
    await watcher.goto(await link_for(d, "carol"))
    await until(watcher, f"document.body.dataset.seq === '{record.last_seq}'")
    assert await watcher.evaluate(DRAWN) == []  # a spectator under fog sees no territory
    assert await watcher.locator("#hand-box").is_hidden()
    assert "watching" in await watcher.locator("#prompt").inner_text()
    await shot(watcher, tmp_path, "6-fog-spectator")
    await watcher_context.close()
    await page.close()

    # The other player's turn is played while this player's board is closed; opened again (a new link, the same
    # browser), the page says what changed since they last looked, as fog lets them know it.
    ai = make_ai("normal", salt="phone")
    start = (await record_of(d)).game().state
    for _ in range(400):
        record = await record_of(d)
        game = record.game()
        if game.state.current != mover:
            break
        await server.table.apply(record, ai.choose(game, mover), None)
    await server.settled()
    record = await record_of(d)
    page = await context.new_page()
    await page.goto(await link_for(d, name[other]))
    await until(page, f"document.body.dataset.seq === '{record.last_seq}'")
    assert await page.locator("#since-box").is_visible()
    lines = await page.locator("#since li").all_text_contents()
    assert lines
    seen = visible_territories(record.game().state, other) | visible_territories(start, other)
    hidden = [record.game().board.name(t) for t in record.game().board.territory_ids if t not in seen]
    assert not [line for line in lines if any(h in line for h in hidden)]
    assert await page.evaluate(DRAWN) == sorted(visible_territories(record.game().state, other))
    told = [line for line in lines if "conquered" in line]
    assert told  # this seed's turn took territories in sight
    assert await page.locator("#board path.conquered").count() >= 1  # and the map marks them
    await shot(page, tmp_path, "7-fog-since")
    await context.close()


async def test_a_spectator_watches_the_last_action_and_sees_no_hand(boarded, browser, tmp_path):
    d, server, _base = boarded
    record = await record_of(d)
    game = record.game()
    from engine.ai import make_ai

    ai = make_ai("normal", salt="phone")
    for _ in range(400):   # a turn with a battle
        record = await record_of(d)
        game = record.game()
        if any(e["type"] == "battle" for e in await d.bot.store.events(record.id)) and \
                game.state.phase == REINFORCE:
            break
        await server.table.apply(record, ai.choose(game, game.state.current), None)
    await server.settled()
    record = await record_of(d)
    events = await d.bot.store.events(record.id)
    last = next(e for e in reversed(events) if e["type"] == "battle")
    context, page = await phone(browser)
    await page.goto(await link_for(d, "carol"))
    await until(page, f"document.body.dataset.seq === '{record.last_seq}'")
    assert await page.evaluate(f"({SHOWN})({last['to']!r})")  # framed on the last battle
    assert await page.evaluate(f"({NUMBER_PX})({last['to']!r})") >= 12
    assert await page.locator("#hand-box").is_hidden()
    assert await page.locator("#controls button").count() == 0
    await page.locator("#glance-title").tap()
    rows = await page.locator("table.players tbody tr").count()
    assert rows == len([p for p in game.state.players if p.seat >= 0])
    await shot(page, tmp_path, "8-spectator")
    await context.close()


def plan_ready(game: Any) -> dict[str, Any] | None:
    """A board where the player not on turn holds a territory with three enemies next door and one of theirs: the
    seat, and the territories of the issue's example plan."""
    s = game.state
    if s.phase != REINFORCE:
        return None
    seat = next(p.seat for p in s.players if p.seat != s.current)
    for x in sorted(s.territories_of(seat), key=lambda t: -s.armies[t]):
        near = sorted(game.board.neighbours(x))
        enemies = [t for t in near if s.owners[t] != seat]
        friends = [t for t in near if s.owners[t] == seat]
        if len(enemies) >= 3 and friends:
            return {"seat": seat, "x": x, "targets": enemies[:3], "f": friends[0]}
    return None


async def test_the_example_plan_takes_at_most_twelve_taps_on_the_board(boarded, browser, tmp_path):
    """Plan my turn while another player is on turn: all on one territory, three attacks each with a stop, one
    fortify, end: at most twelve taps at 360×740 with touch; the plan is kept for the seat and shown to it."""
    d, server, _base = boarded
    record, where = await play_until(d, server, plan_ready)
    seat = where["seat"]
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    context, page = await phone(browser)
    await page.goto(await link_for(d, who))
    await until(page, f"document.body.dataset.seq === '{record.last_seq}'")
    await until(page, "document.getElementById('plan-start') !== null")
    taps = Taps(d, page)
    await taps.tap(page.locator("#plan-start"), moves=False)                # 1: plan my turn
    await taps.tap(taps.territory(where["x"]), moves=False)                 # 2: where the armies go
    await taps.tap(page.locator("#plan-all-here"), moves=False)             # 3: all of them
    for target in where["targets"]:                                         # 4-9: three attacks, each with a stop
        await taps.tap(taps.territory(target), moves=False)
        await taps.tap(page.locator("button[data-stop='s3']"), moves=False)
    await taps.tap(taps.territory(where["f"]), moves=False)                 # 10: fortify from there to here
    await shot(page, tmp_path, "5-plan-draft")
    await taps.tap(page.locator("#plan-end"), moves=False)                  # 11: then end my turn
    assert taps.count <= 12
    await until(page, "document.getElementById('plan-kept') !== null")
    await shot(page, tmp_path, "6-plan-kept")
    assert (await record_of(d)).last_seq == record.last_seq   # recorded, not played
    stored = await d.bot.store.standing_orders(record.id, seat)
    assert stored is not None
    from engine.orders import Orders

    plan = Orders.from_dict(stored.orders)
    assert [p.territory for p in plan.place] == [where["x"]] and plan.end
    assert [(a.source, a.target, a.stop_at) for a in plan.attacks] == [(where["x"], t, 3) for t in where["targets"]]
    assert plan.fortify is not None and (plan.fortify.source, plan.fortify.target) == (where["x"], where["f"])
    assert "Then end my turn" in await page.locator("#plan-kept").inner_text()
    await context.close()
