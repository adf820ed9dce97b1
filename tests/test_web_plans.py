"""Plan my turn on the live board (web/plans.py): a plan left through the board's WebSocket is checked like the
turn panel's flow, kept through the table, shown to its own seat only, and a forged one changes nothing."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
from web_helpers import boarded, jar, link_for, record_of

from engine import Game
from engine.orders import Orders

__all__ = ["boarded"]  # the fixture, used by name


async def open_board(http: aiohttp.ClientSession, d: Any, user: str, base: str) -> Any:
    async with http.get(await link_for(d, user)) as r:
        assert r.status == 200
    record = await record_of(d)
    ws = await http.ws_connect(f"{base.replace('http', 'ws')}/g/{record.id}/ws", origin=base)
    await ws.send_json({"type": "hello", "since": 0})
    assert (await ws.receive_json(timeout=10))["type"] == "board"
    return ws


async def heard(ws: Any, quiet: float = 0.4) -> list[str]:
    """Every text a board was sent until it is quiet or closed."""
    got = []
    while True:
        try:
            message = await ws.receive(timeout=quiet)
        except TimeoutError:
            return got
        if message.type != aiohttp.WSMsgType.TEXT:
            return got
        got.append(message.data)


def example_plan(game: Game, seat: int) -> dict[str, Any]:
    """Place all on a territory with an enemy next door, attack it with a stop, fortify between two of the seat's
    neighbouring territories, end."""
    s = game.state
    mine = s.territories_of(seat)
    source, target = next((t, n) for t in mine for n in sorted(game.board.neighbours(t)) if s.owners[n] != seat)
    f_from, f_to = next((t, n) for t in mine for n in sorted(game.board.neighbours(t)) if s.owners[n] == seat)
    return {"type": "plan", "id": "plan-1", "place": source,
            "attacks": [{"from": source, "to": target, "stop": "s3", "move": "a"}],
            "fortify": {"from": f_from, "to": f_to}, "end": True, "repeat": False}


async def test_a_plan_left_on_the_board_is_kept_shown_to_its_owner_alone_and_forgeries_change_nothing(boarded):
    d, _server, base = boarded
    record = await record_of(d)
    game = record.game()
    s = game.state
    waiting = next(p.seat for p in record.players if p.seat != s.current)   # a seated player not on turn
    who = "alice" if record.player(waiting).user_id == d.user("alice").id else "bob"
    other = "bob" if who == "alice" else "alice"
    plan = example_plan(game, waiting)
    async with aiohttp.ClientSession(cookie_jar=jar()) as mine_http, \
            aiohttp.ClientSession(cookie_jar=jar()) as their_http, \
            aiohttp.ClientSession(cookie_jar=jar()) as watching_http:
        mine = await open_board(mine_http, d, who, base)
        theirs = await open_board(their_http, d, other, base)
        watching = await open_board(watching_http, d, "carol", base)

        await mine.send_json(plan)
        kept = await mine.receive_json(timeout=10)
        assert kept["type"] == "plan" and kept["id"] == "plan-1"
        assert kept["plan"] == {k: plan[k] for k in ("place", "attacks", "fortify", "end", "repeat")}
        assert kept["lines"][0].startswith("• Trade") and kept["lines"][-1] == "• Then end my turn."
        stored = await d.bot.store.standing_orders(record.id, waiting)
        assert stored is not None and stored.user_id == d.user(who).id
        orders = Orders.from_dict(stored.orders)
        assert orders.place[0].territory == plan["place"] and orders.attacks[0].stop_at == 3 and orders.end

        await mine.send_json({"type": "plan_show", "id": "again"})   # read back, as its owner
        assert (await mine.receive_json(timeout=10))["plan"] == kept["plan"]

        theirs_s = s.territories_of(s.current)
        neighbours = set(game.board.neighbours(plan["place"]))
        far = next(t for t in s.territories_of(waiting) if t not in neighbours and t != plan["place"])
        enemy = next(t for t in theirs_s if t not in game.board.neighbours(far))
        attack = plan["attacks"][0]
        forged = [
            {**plan, "place": theirs_s[0]},                                        # not their territory
            {**plan, "attacks": [{**attack, "from": far, "to": enemy}]},           # not neighbours
            {**plan, "attacks": [{**attack, "to": plan["fortify"]["to"]}]},        # their own territory
            {**plan, "attacks": [attack] * 6},                                     # too many attacks
            {**plan, "place": "x" * 1500},                                         # oversized name
            {**plan, "attacks": [{**attack, "stop": "s1"}]},                       # a stop never offered
            {**plan, "seat": (waiting + 1) % 2},                                   # a key never sent
            {**plan, "end": "yes"},
        ]
        for message in forged:
            await mine.send_json(message)
            reply = await mine.receive_json(timeout=10)
            assert reply["type"] == "refused" and reply["text"], message
        after = await d.bot.store.standing_orders(record.id, waiting)
        assert after is not None and after.orders == stored.orders   # nothing changed

        # Another player and a spectator: they never heard of it, and may neither read nor leave it.
        await theirs.send_json({"type": "plan_show", "id": "peek"})
        peek = await theirs.receive_json(timeout=10)
        assert peek["type"] == "plan" and peek["plan"] is None and peek["lines"] == []   # their own: none
        await watching.send_json({"type": "plan_show"})
        assert (await watching.receive_json(timeout=10))["type"] == "refused"
        await watching.send_json(plan)
        assert (await watching.receive_json(timeout=10))["type"] == "refused"
        # The player on turn moves: every board is told, and no board but the owner's ever holds the plan.
        move = s.territories_of(s.current)[0]
        await theirs.send_json({"type": "move", "id": "m1", "move": "place", "territory": move, "count": 1})
        for ws in (theirs, watching):
            texts = await heard(ws)
            assert any('"type":"board"' in t for t in texts)
            for text in texts:
                assert '"type":"plan"' not in text and "Then end my turn" not in text and "Attack " not in text

        assert all('"type":"plan"' not in t for t in await heard(mine))   # the board's news carries no plan
        await mine.send_json({"type": "plan_cancel", "id": "c"})
        gone = await mine.receive_json(timeout=10)
        assert gone["type"] == "plan" and gone["plan"] is None
        assert await d.bot.store.standing_orders(record.id, waiting) is None
        for ws in (mine, theirs, watching):
            await ws.close()


async def test_a_plan_is_not_shown_after_the_seat_changed_hands(boarded):
    """The seat changes in the store before the hub hears of it: asking for the plan is answered with why not."""
    d, _server, base = boarded
    record = await record_of(d)
    game = record.game()
    waiting = next(p.seat for p in record.players if p.seat != game.state.current)
    who = "alice" if record.player(waiting).user_id == d.user("alice").id else "bob"
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        ws = await open_board(http, d, who, base)
        await ws.send_json(example_plan(game, waiting))
        assert (await ws.receive_json(timeout=10))["type"] == "plan"
        await d.bot.store.replace_with_ai(record.id, waiting)   # as a takeover the hub has not heard of yet
        await ws.send_json({"type": "plan_show", "id": "after"})
        texts = await heard(ws, 1.0)
        got = [json.loads(t) for t in texts]
        assert [m["type"] for m in got] == ["closed"] and got[0]["reason"] == "seat", got
