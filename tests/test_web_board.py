"""The live board's server in the bot's process (web/): signed links and cookies, the page, and every board message
checked like a component value before it reaches the table; the channel is told of a board move as of a tap."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp
import pytest
from discord_helpers import OfflineDiscord, make_bot, start
from web_helpers import SECRET, boarded, free_port, jar, link_for, patched, record_of

from engine import Game
from engine.state import ATTACK, REINFORCE
from web.board import Refused, action_of, legal, view
from web.config import WebConfig
from web.links import LINK, SESSION, BadTicket, Signer, UsedLinks
from web.server import Bucket, cookie_name
from web.trace import territory_paths, trace_regions

__all__ = ["boarded"]  # the fixture, used by name


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


# -- signing ----------------------------------------------------------------------------------------------------
def test_a_link_holds_its_game_user_and_seat_and_nothing_else_opens_with_it():
    clock = Clock()
    signer = Signer(SECRET, clock)
    token = signer.make(LINK, 12, 345, 1, 600, "nb")
    ticket = signer.check(LINK, token, 12)
    assert (ticket.game_id, ticket.user_id, ticket.seat, ticket.language) == (12, 345, 1, "nb")
    with pytest.raises(BadTicket) as other_game:
        signer.check(LINK, token, 13)
    assert other_game.value.reason == "game"
    with pytest.raises(BadTicket) as as_cookie:  # a link is never a cookie
        signer.check(SESSION, token, 12)
    assert as_cookie.value.reason == "forged"
    with pytest.raises(BadTicket) as other_key:
        Signer("another secret of enough length", clock).check(LINK, token)
    assert other_key.value.reason == "forged"
    clock.now += 601
    with pytest.raises(BadTicket) as late:
        signer.check(LINK, token, 12)
    assert late.value.reason == "expired"


@pytest.mark.parametrize("change", ["payload", "signature", "dots", "empty", "long"])
def test_a_tampered_link_is_forged(change: str):
    signer = Signer(SECRET, Clock())
    token = signer.make(LINK, 12, 345, 1, 600)
    payload, signature = token.split(".")
    forged = {"payload": payload[:-2] + ("A" if payload[-2] != "A" else "B") + payload[-1] + "." + signature,
              "signature": payload + "." + signature[::-1], "dots": token + ".x", "empty": "",
              "long": "a" * 500 + "." + signature}[change]
    with pytest.raises(BadTicket) as refused:
        signer.check(LINK, forged)
    assert refused.value.reason == "forged"


def test_a_seat_changed_in_the_payload_breaks_the_signature():
    import base64

    signer = Signer(SECRET, Clock())
    payload, signature = signer.make(LINK, 12, 345, 1, 600).split(".")
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    data["s"] = 0
    changed = base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    with pytest.raises(BadTicket):
        signer.check(LINK, f"{changed}.{signature}")


def test_a_link_opens_the_board_once():
    clock = Clock()
    signer = Signer(SECRET, clock)
    used = UsedLinks(clock)
    ticket = signer.check(LINK, signer.make(LINK, 1, 2, None, 600))
    assert used.use(ticket) and not used.use(ticket)
    assert used.use(signer.check(LINK, signer.make(LINK, 1, 2, None, 600)))  # a new link is a new nonce


def test_a_short_secret_is_refused():
    with pytest.raises(ValueError):
        Signer("short", Clock())


def test_the_rate_limit_allows_a_burst_then_the_rate():
    now = [0.0]
    bucket = Bucket(lambda: now[0], rate=2.0, burst=3)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5
    assert bucket.take() and not bucket.take()


def test_the_config_is_checked_at_start():
    assert not WebConfig().enabled
    config = WebConfig.from_dict({"listen": "0.0.0.0:8443", "public_url": "https://risk.example.org/"})
    assert config.address() == ("0.0.0.0", 8443) and config.origin == "https://risk.example.org"
    assert config.base == "https://risk.example.org"
    for bad in ({"listen": "nowhere"}, {"public_url": "risk.example.org"}, {"colour": "blue"}):
        with pytest.raises(ValueError):
            WebConfig.from_dict(bad)


# -- the outlines -------------------------------------------------------------------------------------------------
def test_every_territory_of_the_classic_map_has_an_outline_and_the_page_stays_light():
    paths = territory_paths("classic")
    assert len(paths) == 42 and all(p.startswith("M") and p.endswith("Z") for p in paths.values())
    assert sum(len(p) for p in paths.values()) < 60_000


def test_a_traced_square_is_its_four_corners_and_a_hole_is_its_own_loop():
    from PIL import Image

    img = Image.new("L", (2400, 480), 0)  # read on a grid of 5 pixels
    img.paste(1, (100, 100, 400, 400))
    img.paste(0, (200, 200, 300, 300))
    img.putpixel((1004, 104), 2)  # too small for the grid: a square round its badge, so it can still be tapped
    paths = trace_regions(img, 2, {2: (1004, 104)})
    assert paths[1].count("M") == 2  # the outside and the hole
    corners = set(paths[1].replace("M", "L").replace("Z", "").split("L")) - {""}
    assert corners == {"100 100", "400 100", "400 400", "100 400", "200 200", "300 200", "300 300", "200 300"}
    assert paths[2] == "M992 92h24v24h-24Z"


# -- what a board may send ------------------------------------------------------------------------------------------
def game_in(phase: str) -> Game:
    game, _events = Game.new(["alice", "bob", "carol"], seed="web", settings={"deployment": "auto"})
    assert game.state.phase == REINFORCE
    if phase == ATTACK:
        seat = game.state.current
        game.apply(action_of(game, seat, {"move": "place", "territory": legal(game, seat)["place"]["territories"][0],
                                          "count": game.state.reinforcements}))
    return game


def test_a_legal_placement_becomes_the_action_and_everything_else_is_refused():
    game = game_in(REINFORCE)
    seat = game.state.current
    mine = legal(game, seat)["place"]["territories"][0]
    theirs = next(t for t, owner in game.state.owners.items() if owner != seat)
    left = game.state.reinforcements
    action = action_of(game, seat, {"move": "place", "territory": mine, "count": left})
    assert (action.territory, action.count) == (mine, left)  # type: ignore[attr-defined]
    refused = [
        {"move": "place", "territory": theirs, "count": 1},        # not theirs
        {"move": "place", "territory": mine, "count": left + 1},   # more than they have
        {"move": "place", "territory": mine, "count": 0},
        {"move": "place", "territory": mine, "count": True},       # JSON true is not a number of armies
        {"move": "place", "territory": mine, "count": "3"},
        {"move": "place", "territory": ["alaska"], "count": 1},
        {"move": "attack", "from": mine, "to": theirs},            # not in this phase
        {"move": "end_turn"}, {"move": "surrender"}, {"move": None}, {},
    ]
    for message in refused:
        with pytest.raises(Refused):
            action_of(game, seat, message)
    other = (seat + 1) % 3
    assert legal(game, other) == {}
    with pytest.raises(Refused):  # out of turn
        action_of(game, other, {"move": "place", "territory": mine, "count": 1})


def test_an_attack_is_offered_with_its_odds_and_checked_against_them():
    game = game_in(ATTACK)
    seat = game.state.current
    attacks = legal(game, seat)["attack"]
    source = next(iter(attacks))
    target = attacks[source][0]
    assert 0 < target["win"] < 1 and target["dice"] == game.allowed_dice(source)
    blitz = action_of(game, seat, {"move": "blitz", "from": source, "to": target["to"]})
    assert (blitz.source, blitz.target, blitz.stop_at) == (source, target["to"], 1)  # type: ignore[attr-defined]
    stopping = action_of(game, seat, {"move": "blitz", "from": source, "to": target["to"], "stop_at": 2})
    assert stopping.stop_at == 2  # type: ignore[attr-defined]
    for stop in (0, game.state.armies[source] + 1, 1.5, None):
        with pytest.raises(Refused):
            action_of(game, seat, {"move": "blitz", "from": source, "to": target["to"], "stop_at": stop})
    far = next(t for t in game.board.territory_ids if t not in {x["to"] for x in attacks[source]} and t != source)
    with pytest.raises(Refused):
        action_of(game, seat, {"move": "attack", "from": source, "to": far})
    with pytest.raises(Refused):
        action_of(game, seat, {"move": "attack", "from": source, "to": target["to"], "dice": 4})


def test_a_viewer_sees_their_own_cards_and_choices_and_a_spectator_neither():
    game = game_in(REINFORCE)
    seat = game.state.current
    mine = view(game, seat, "en", 5)
    assert mine["legal"] and mine["you"] == seat and "hand" in mine and mine["reinforcements"] > 0
    watching = view(game, None, "en", 5)
    assert "legal" not in watching and "hand" not in watching and watching["reinforcements"] == 0
    assert watching["owners"] == game.state.owners  # no fog: the whole board


def test_under_fog_a_board_shows_only_what_its_viewer_may_see():
    game, _events = Game.new(["alice", "bob", "carol"], seed="fog", settings={"deployment": "auto", "fog": "on"})
    watching = view(game, None, "en", 1)
    assert watching["owners"] == {} and watching["armies"] == {}
    seat = game.state.current
    from engine.fog import visible_territories

    assert set(view(game, seat, "en", 1)["owners"]) == visible_territories(game.state, seat)


# -- the server in the bot's process, against the offline Discord -------------------------------------------------
async def test_a_link_becomes_a_cookie_for_that_game_alone_and_opens_nothing_twice(boarded):
    d, _server, base = boarded
    record = await record_of(d)
    url = await link_for(d, "alice")
    assert url.startswith(f"{base}/b/")
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        async with http.get(url, allow_redirects=False) as r:
            assert r.status == 303 and r.headers["Location"] == f"/g/{record.id}"
            assert r.headers["Referrer-Policy"] == "no-referrer"
            cookie = r.headers["Set-Cookie"]
            assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and f"Path=/g/{record.id}" in cookie
        async with http.get(f"{base}/g/{record.id}") as r:
            page = await r.text()
            assert r.status == 200 and "script-src 'self'" in r.headers["Content-Security-Policy"]
            assert '<script src="/static/board.js">' in page and "alaska" in page
        async with http.get(f"{base}/g/{record.id}/map.png") as r:
            assert r.status == 200 and (await r.read()).startswith(b"\x89PNG")
        async with http.get(url, allow_redirects=False) as r:  # the same link again
            assert r.status == 410 and "used already" in await r.text()
    async with aiohttp.ClientSession(cookie_jar=jar()) as stranger:  # no cookie: nothing opens
        async with stranger.get(f"{base}/g/{record.id}") as r:
            assert r.status == 403 and "/board" in await r.text()
        for bad in (url[:-3] + "abc", url.replace("/b/", "/b/x")):
            async with stranger.get(bad, allow_redirects=False) as r:
                assert r.status == 403 and "not valid" in await r.text()


async def test_a_cookie_of_one_game_opens_no_other(boarded):
    d, server, base = boarded
    record = await record_of(d)
    session = server.signer.make(SESSION, record.id, d.user("alice").id, 0, 600)
    cookies = {cookie_name(record.id + 1): session}
    async with aiohttp.ClientSession(cookie_jar=jar(), cookies=cookies) as http, \
            http.get(f"{base}/g/{record.id + 1}") as r:
        assert r.status == 403 and "another game" in await r.text()


async def open_board(http: aiohttp.ClientSession, d: OfflineDiscord, user: str, base: str) -> Any:
    url = await link_for(d, user)
    async with http.get(url) as r:
        assert r.status == 200
    record = await record_of(d)
    ws = await http.ws_connect(f"{base.replace('http', 'ws')}/g/{record.id}/ws", origin=base)
    await ws.send_json({"type": "hello", "since": 0})
    first = await ws.receive_json(timeout=10)
    assert first["type"] == "board"
    return ws, first


async def test_a_move_from_the_board_is_stored_once_and_told_on_the_panel(boarded):
    d, server, base = boarded
    record = await record_of(d)
    game = record.game()
    seat = game.state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        ws, first = await open_board(http, d, who, base)
        board = first["board"]
        assert board["you"] == seat and board["legal"]["place"]
        target = board["legal"]["place"]["territories"][0]
        move = {"type": "move", "id": "tap-1", "move": "place", "territory": target, "count": 1}
        await ws.send_json(move)
        replies = [await ws.receive_json(timeout=10) for _ in range(2)]
        assert {r["type"] for r in replies} == {"done", "board"}
        update = next(r for r in replies if r["type"] == "board")
        assert update["diff"]["armies"] == {target: game.state.armies[target] + 1}  # only what changed
        assert patched(board, update)["armies"][target] == game.state.armies[target] + 1
        assert any("placed" in line for line in update["lines"])
        await ws.send_json(move)  # the same tap again (a double tap, a resend after a reconnect)
        assert (await ws.receive_json(timeout=10))["type"] == "done"
        await server.settled()  # the channel has been told (the announcer waits until its messages are posted)
        after = await record_of(d)
        assert after.last_seq == record.last_seq + 1  # stored once
        assert after.game().state.armies[target] == game.state.armies[target] + 1
        panel = d.message((await d.bot.store.live_panel(record.id)).message_id)
        assert "placed 1" in panel.content  # the channel reads it on the turn panel, as for a tap
        await ws.close()


async def test_forged_and_illegal_messages_change_nothing(boarded):
    d, _server, base = boarded
    record = await record_of(d)
    game = record.game()
    seat = game.state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    other = "bob" if who == "alice" else "alice"
    theirs = next(t for t, owner in game.state.owners.items() if owner != seat)
    async with aiohttp.ClientSession(cookie_jar=jar()) as http, aiohttp.ClientSession(cookie_jar=jar()) as second:
        ws, _first = await open_board(http, d, who, base)
        for message in ("not json", json.dumps([1, 2]), json.dumps({"type": "move", "move": "place",
                                                                     "territory": theirs, "count": 1}),
                        json.dumps({"type": "move", "move": "place", "territory": "atlantis", "count": 1}),
                        json.dumps({"type": "move", "move": "end_turn", "seat": (seat + 1) % 2})):
            await ws.send_str(message)
            reply = await ws.receive_json(timeout=10)
            assert reply["type"] == "refused" and "not available" in reply["text"]
            if message.startswith("{"):
                assert (await ws.receive_json(timeout=10))["type"] == "board"  # the board as it is, again
        theirs_ws, _ = await open_board(second, d, other, base)  # the other player: not their turn
        await theirs_ws.send_json({"type": "move", "id": "x", "move": "place", "territory": theirs, "count": 1})
        assert (await theirs_ws.receive_json(timeout=10))["type"] == "refused"  # handled: nothing was stored
        assert (await record_of(d)).last_seq == record.last_seq
        await ws.close()
        await theirs_ws.close()


async def test_a_websocket_from_another_origin_or_without_a_cookie_is_refused(boarded):
    d, _server, base = boarded
    record = await record_of(d)
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        async with http.get(await link_for(d, "alice")) as r:
            assert r.status == 200
        with pytest.raises(aiohttp.WSServerHandshakeError) as other_origin:
            await http.ws_connect(f"{base.replace('http', 'ws')}/g/{record.id}/ws", origin="https://evil.example")
        assert other_origin.value.status == 403
    async with aiohttp.ClientSession(cookie_jar=jar()) as stranger:
        with pytest.raises(aiohttp.WSServerHandshakeError) as no_cookie:
            await stranger.ws_connect(f"{base.replace('http', 'ws')}/g/{record.id}/ws", origin=base)
        assert no_cookie.value.status == 403


async def test_a_spectator_gets_the_public_board_and_cannot_move(boarded):
    d, _server, base = boarded
    record = await record_of(d)
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        ws, first = await open_board(http, d, "carol", base)
        assert first["board"]["you"] is None and "legal" not in first["board"] and "hand" not in first["board"]
        target = record.game().state.territories_of(record.game().state.current)[0]
        await ws.send_json({"type": "move", "id": "s", "move": "place", "territory": target, "count": 1})
        assert (await ws.receive_json(timeout=10))["type"] == "refused"
        assert (await record_of(d)).last_seq == record.last_seq
        await ws.close()


async def test_a_flood_of_messages_is_slowed_down(boarded):
    d, _server, base = boarded
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        ws, _first = await open_board(http, d, "carol", base)
        for _ in range(40):
            await ws.send_str("{}")
        texts = [(await ws.receive_json(timeout=10))["text"] for _ in range(40)]
        assert any("Slow down" in t for t in texts)
        await ws.close()


async def test_a_reconnected_board_is_sent_what_it_missed(boarded):
    d, _server, base = boarded
    record = await record_of(d)
    seat = record.game().state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        ws, first = await open_board(http, d, who, base)
        seen = first["seq"]
        await ws.close()
        target = first["board"]["legal"]["place"]["territories"][0]
        step = await d.send_command(who, "general", "place", {"territory": record.game().board.name(target),
                                                              "count": 1})
        assert not step.problems
        ws = await http.ws_connect(f"{base.replace('http', 'ws')}/g/{record.id}/ws", origin=base)
        await ws.send_json({"type": "hello", "since": seen})
        again = await ws.receive_json(timeout=10)
        assert again["since"] == seen and again["seq"] == seen + 1 and any("placed" in x for x in again["lines"])
        await ws.close()


async def test_the_turn_panel_carries_a_board_button_that_answers_each_asker_privately(boarded):
    d, _server, base = boarded
    record = await record_of(d)
    panel = d.message((await d.bot.store.live_panel(record.id)).message_id)
    assert "Board" in panel.button_labels
    links = []
    for user in ("alice", "carol"):  # a player and someone who is not seated
        step = await d.click(user, "Board", panel)
        assert not step.problems, step.problems
        assert step[-1].ephemeral
        links.append(next(b["url"] for b in step[-1].buttons if b["url"]))
    assert links[0] != links[1] and all(link.startswith(f"{base}/b/") for link in links)
    assert "spectator" in step[-1].content


async def test_without_a_public_address_there_is_no_board(tmp_path):
    from discord_helpers import make_bot, start

    async with OfflineDiscord(make_bot(tmp_path / "g.db"), strict=True) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        record = await record_of(d)
        panel = d.message((await d.bot.store.live_panel(record.id)).message_id)
        assert "Board" not in panel.button_labels and d.bot.board is None
        assert d.command_node("board") is None


async def test_leaving_revokes_the_cookie(boarded):
    d, _server, base = boarded
    record = await record_of(d)
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        async with http.get(await link_for(d, "alice")) as r:
            assert r.status == 200
        token = next(c.value for c in http.cookie_jar if c.key == f"board{record.id}")
        async with http.post(f"{base}/g/{record.id}/leave", headers={"Origin": "https://evil.example"}) as r:
            assert r.status == 403  # another site cannot log a player out
        async with http.post(f"{base}/g/{record.id}/leave", headers={"Origin": base}) as r:
            assert r.status == 200
    async with aiohttp.ClientSession(cookie_jar=jar(), cookies={f"board{record.id}": token}) as again, \
            again.get(f"{base}/g/{record.id}") as r:
        assert r.status == 403  # the old cookie, kept by hand, opens nothing any more


async def test_under_fog_every_board_message_holds_only_what_its_viewer_may_see(tmp_path):
    """Two players and a spectator watch a game under fog while it is played: every message each board is sent
    shows the territories that viewer may see and no other (the referee: ``visible_territories``)."""
    from discord_helpers import make_bot, start
    from web_helpers import free_port

    from engine.fog import visible_territories

    port = free_port()
    bot = make_bot(tmp_path / "fog.db", seed="fog")
    base = f"http://127.0.0.1:{port}"
    bot.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=base, secret=SECRET)
    async with OfflineDiscord(bot, strict=True) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto", fog="on")
        record = await record_of(d)
        sessions = [aiohttp.ClientSession(cookie_jar=jar()) for _ in range(3)]
        try:
            boards, firsts = {}, {}
            for name, http in zip(("alice", "bob", "carol"), sessions, strict=True):
                boards[name], firsts[name] = await open_board(http, d, name, base)
            seat = record.game().state.current
            who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
            mine = record.game().state.territories_of(seat)
            step = await d.send_command(who, "general", "place", {"territory": record.game().board.name(mine[0]),
                                                                  "count": 1})
            assert not step.problems
            await boards[who].send_json({"type": "move", "id": "f", "move": "place", "territory": mine[1],
                                         "count": 1})
            early = {who: await until_answered(boards[who], "f")}
            await server_settled(d)
            state = (await record_of(d)).game().state
            seats = {"alice": record.seat_of(d.user("alice").id), "bob": record.seat_of(d.user("bob").id),
                     "carol": None}
            for name, ws in boards.items():
                got = early.get(name, []) + await drain(ws)
                assert got, name
                shown = firsts[name]["board"]
                for message in got:
                    if message["type"] != "board":
                        continue
                    shown = patched(shown, message)
                    seen = visible_territories(state, seats[name])
                    assert set(shown["owners"]) <= seen, name
                    assert set(shown["armies"]) <= seen, name
                    if seats[name] is not None:  # a player's own hand, and no one else's
                        assert [c["card"] for c in shown.get("hand", [])] == state.hands.get(seats[name], [])
                    assert shown["you"] == seats[name]
                    if seats[name] is None:
                        assert shown["owners"] == {} and "hand" not in shown
                        names = [record.game().board.name(t) for t in state.owners]
                        assert not [line for line in message["lines"] if any(n in line for n in names)]
                await ws.close()
        finally:
            for http in sessions:
                await http.close()


async def server_settled(d: OfflineDiscord) -> None:
    """The channel told of every board move, and every refresh of the open boards sent (the hub's refreshes are
    tasks of their own, one a game, and a refresh may start another game's)."""
    await d.bot.board.settled()
    hub = d.bot.board.hub
    while hub._running:
        await asyncio.gather(*hub._running.values(), return_exceptions=True)


async def until_answered(ws: Any, tap: str) -> list[Any]:
    """The messages a board receives up to the answer to its move ``tap`` (which must be done), that one included."""
    out = []
    while not out or out[-1].get("id") != tap:
        out.append(await ws.receive_json(timeout=10))
    assert out[-1]["type"] == "done", out[-1]
    return out


async def drain(ws: Any) -> list[Any]:
    out = []
    while True:
        try:
            out.append(await ws.receive_json(timeout=0.5))
        except TimeoutError:
            return out


async def test_every_open_board_sees_a_move_made_in_discord(boarded):
    d, _server, base = boarded
    record = await record_of(d)
    seat = record.game().state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    other = "bob" if who == "alice" else "alice"
    async with aiohttp.ClientSession(cookie_jar=jar()) as one, aiohttp.ClientSession(cookie_jar=jar()) as two, \
            aiohttp.ClientSession(cookie_jar=jar()) as three:
        boards = [await open_board(http, d, name, base) for http, name in ((one, who), (two, other),
                                                                           (three, "carol"))]
        where = record.game().state.territories_of(seat)[0]
        step = await d.send_command(who, "general", "place", {"territory": record.game().board.name(where),
                                                              "count": 2})
        assert not step.problems
        for ws, first in boards:
            update = await ws.receive_json(timeout=10)
            assert update["seq"] == record.last_seq + 1
            assert patched(first["board"], update)["armies"][where] == record.game().state.armies[where] + 2
            await ws.close()


async def test_the_replay_shows_each_moment_as_its_viewer_knew_it_and_plays_nothing(boarded):
    d, _server, base = boarded
    record = await record_of(d)
    game = record.game()
    seat = game.state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        ws, first = await open_board(http, d, who, base)
        where = first["board"]["legal"]["place"]["territories"][0]
        await ws.send_json({"type": "move", "id": "r1", "move": "place", "territory": where, "count": 2})
        waiting = {"done", "board"}
        while waiting:   # the move's answer and the board after it, in either order
            waiting.discard((await ws.receive_json(timeout=10))["type"])
        await ws.send_json({"type": "replay", "seq": record.last_seq})  # just before the placement
        back = await ws.receive_json(timeout=10)
        assert back["type"] == "replay" and back["seq"] == record.last_seq and back["of"] == record.last_seq + 1
        assert back["board"]["armies"][where] == game.state.armies[where] and "legal" not in back["board"]
        await ws.send_json({"type": "replay", "seq": record.last_seq + 1})
        assert any("placed 2" in line for line in (await ws.receive_json(timeout=10))["lines"])
        for bad in (0, record.last_seq + 2, "3", True):
            await ws.send_json({"type": "replay", "seq": bad})
            assert (await ws.receive_json(timeout=10))["type"] == "refused"
        async with http.get(f"{base}/g/{record.id}/map.png?at=1") as r:
            assert r.status == 200 and (await r.read()).startswith(b"\x89PNG")
        await ws.close()


def test_the_web_table_of_config_toml_sets_up_the_board(tmp_path):
    from bot import Config

    path = tmp_path / "config.toml"
    path.write_text('[web]\nlisten = "127.0.0.1:9000"\npublic_url = "https://risk.example.org"\n', encoding="utf-8")
    config = Config.load(path)
    assert config.web.enabled and config.web.address() == ("127.0.0.1", 9000)
    assert not Config.load(tmp_path / "none.toml").web.enabled  # no file, no [web]: no board
    path.write_text('[web]\nlisten = "everywhere"\n', encoding="utf-8")
    with pytest.raises(SystemExit, match="listen must be host:port"):
        Config.load(path)


def test_a_trade_is_one_of_the_sets_offered_with_its_bonus_territory_one_of_the_cards_held():
    from engine.cards import valid_sets

    game = game_in(REINFORCE)
    seat = game.state.current
    board = game.board
    mine = game.state.territories_of(seat)
    hand = next(list(cards) for cards in valid_sets(board, mine[:8]))  # three cards of our own territories
    game.state.hands[seat] = hand
    offered = legal(game, seat)["trade"]
    assert [o["cards"] for o in offered if sorted(o["cards"]) == sorted(hand)]
    chosen = next(o for o in offered if sorted(o["cards"]) == sorted(hand))
    assert set(chosen["bonus"]) == set(hand)  # every card's territory is ours: each may take the +2
    trade = action_of(game, seat, {"move": "trade", "cards": chosen["cards"], "bonus": hand[1]})
    assert trade.bonus_territory == hand[1]  # type: ignore[attr-defined]
    theirs = next(t for t, owner in game.state.owners.items() if owner != seat)
    for message in ({"move": "trade", "cards": chosen["cards"], "bonus": theirs},
                    {"move": "trade", "cards": [*chosen["cards"][:2], theirs]},
                    {"move": "trade", "cards": chosen["cards"][:2]}):
        with pytest.raises(Refused):
            action_of(game, seat, message)
    game.validate(trade)


def test_a_maps_own_wild_cards_are_wild_on_the_board():
    from test_one_way import ONE_WAY

    from engine import parse_map, register_map, registered_map

    if registered_map(ONE_WAY["id"]) is None:
        register_map(parse_map({k: v for k, v in ONE_WAY.items() if k != "missions"}))
    game, _events = Game.new(["alice", "bob"], seed="wilds", settings={"deployment": "auto", "map": ONE_WAY["id"]})
    seat = game.state.current
    assert game.board.wild_cards[-1] == "wild_5"
    mine = next(t for t in game.state.territories_of(seat) if game.board.territories[t].card is not None)
    game.state.hands[seat] = ["wild_5", "wild_4", mine]
    shown = view(game, seat, "en", 5)
    assert [c["name"] for c in shown["hand"]][:2] == ["Wild", "Wild"]
    assert shown["legal"]["trade"] == [{"cards": ["wild_5", "wild_4", mine], "bonus": [mine]}]


async def test_odd_numbers_and_deep_json_are_plain_refusals_never_a_500(boarded):
    """``at`` must be ASCII digits naming an event of the log (``"²"`` passes ``isdigit`` and fails ``int``; five
    thousand digits cost ``int`` dearly); a game's number is bounded in the address; a frame of nested brackets
    is refused before ``json.loads`` (which recurses once per level); nothing is logged as an error."""
    d, _server, base = boarded
    record = await record_of(d)
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        ws, _first = await open_board(http, d, "carol", base)
        for at in ("²", "٣", "1" * 5000, "0", str(record.last_seq + 1), "-1", "1e3", " 1", ""):
            async with http.get(f"{base}/g/{record.id}/map.png", params={"at": at}) as r:
                assert r.status == 400, at
        async with http.get(f"{base}/g/{record.id}/map.png", params={"at": str(record.last_seq)}) as r:
            assert r.status == 200
        async with http.get(f"{base}/g/{'9' * 30}") as r:
            assert r.status == 404
        deep = json.dumps({"type": "hello", "since": [[[[[1]]]]]})
        for frame in ("[" * 1999, "{\"a\":" * 300 + "1" + "}" * 300, deep):
            await ws.send_str(frame)
            reply = await ws.receive_json(timeout=10)
            assert reply["type"] == "refused", frame[:20]
        await ws.send_json({"type": "hello", "since": 0})   # the board still answers
        assert (await ws.receive_json(timeout=10))["type"] == "board"
        await ws.close()


async def collect(ws: Any, quiet: float = 0.5) -> tuple[list[Any], int | None]:
    """What a board was sent until it is quiet, and the code the server closed it with (None: still open)."""
    got = []
    while True:
        try:
            message = await ws.receive(timeout=quiet)
        except TimeoutError:
            return got, None
        if message.type != aiohttp.WSMsgType.TEXT:
            return got, message.data if message.type == aiohttp.WSMsgType.CLOSE else -1
        got.append(message.json())


async def test_open_boards_are_capped_per_session_and_per_game_and_a_socket_gone_ends_quietly(boarded, caplog):
    """One cookie opens a few boards, a game a bounded number: past either the page is told why and closed.
    Sockets that vanish without a word (the page killed) while the game goes on end their boards with nothing
    logged."""
    import logging

    d, server, base = boarded
    server.socket_caps = (3, 5)
    record = await record_of(d)
    url = f"{base.replace('http', 'ws')}/g/{record.id}/ws"
    carol, dave = aiohttp.ClientSession(cookie_jar=jar()), aiohttp.ClientSession(cookie_jar=jar())
    try:
        for http, name in ((carol, "carol"), (dave, "dave")):
            async with http.get(await link_for(d, name)) as r:
                assert r.status == 200
        mine = [await carol.ws_connect(url, origin=base) for _ in range(4)]
        got, code = await collect(mine[3])
        assert code == 4008 and got[0]["reason"] == "sockets" and "too many windows" in got[0]["text"]
        theirs = [await dave.ws_connect(url, origin=base) for _ in range(3)]
        got, code = await collect(theirs[2])
        assert code == 4009 and got[0]["reason"] == "game_sockets"
        for ws in mine[:3] + theirs[:2]:
            await ws.send_json({"type": "hello", "since": 0})
            assert (await ws.receive_json(timeout=10))["type"] == "board"
        caplog.set_level(logging.INFO)
        for ws in mine[:3]:   # the page is gone: no close frame, the connection just drops
            ws._response.connection.transport.abort()
        seat = record.game().state.current
        who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
        where = record.game().state.territories_of(seat)[0]
        for _ in range(2):
            step = await d.send_command(who, "general", "place", {"territory": record.game().board.name(where),
                                                                  "count": 1})
            assert not step.problems
            await server_settled(d)
        for ws in theirs[:2]:
            assert [m["type"] for m in await drain(ws)] == ["board", "board"]
        assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
        assert sum(len(boards) for boards in server.hub.boards.values()) == 2
        third = await carol.ws_connect(url, origin=base)   # the session's boards that went are no longer counted
        await third.send_json({"type": "hello", "since": 0})
        assert (await third.receive_json(timeout=10))["type"] == "board"
    finally:
        await carol.close()
        await dave.close()


async def test_leaving_closes_the_sessions_open_boards_and_lasts_over_a_restart(tmp_path):
    from discord_helpers import make_bot, start
    from web_helpers import free_port

    port = free_port()
    base = f"http://127.0.0.1:{port}"

    def bot() -> Any:
        made = make_bot(tmp_path / "g.db", seed="web")
        made.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=base, secret=SECRET)
        return made

    d = OfflineDiscord(bot(), strict=True)
    await d.setup()
    try:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        record = await record_of(d)
        async with aiohttp.ClientSession(cookie_jar=jar()) as http:
            ws, _first = await open_board(http, d, "alice", base)
            token = next(c.value for c in http.cookie_jar if c.key == f"board{record.id}")
            async with http.post(f"{base}/g/{record.id}/leave", headers={"Origin": base}) as r:
                assert r.status == 200
            got, code = await collect(ws)
            assert code == 4002 and [m["type"] for m in got] == ["closed"]
        d = await d.restart(bot())
        async with aiohttp.ClientSession(cookie_jar=jar(), cookies={f"board{record.id}": token}) as again:
            async with again.get(f"{base}/g/{record.id}") as r:
                assert r.status == 403   # revoked before the restart: still nothing
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await again.ws_connect(f"{base.replace('http', 'ws')}/g/{record.id}/ws", origin=base)
    finally:
        await d.close()


async def test_a_replay_reads_one_turn_of_the_log_and_one_session_works_out_one_at_a_time(boarded):
    """A replay's moment is the turn that holds it, replayed from the board noted at the turn's start
    (``log_turns``), not the log from its start: the same board as the whole log gives. One spectator's four
    sockets asking for sixty-four moments at once get each a frame or "Slow down", with one worked out at a time;
    a moment asked for again comes from what was kept."""
    from test_substitutes import play_turn, user_of

    from web.board import window_state

    d, _server, base = boarded
    for _ in range(3):
        record = await record_of(d)
        await play_turn(d, user_of(d, record, record.game().state.current) or "")
    record = await record_of(d)
    store = d.bot.store
    log = await store.events(record.id)
    reads: list[tuple[int, int | None]] = []
    chunks = store._event_chunks

    async def counted(game_id: int, since_seq: int = 0, upto: int | None = None) -> Any:
        reads.append((since_seq, upto))
        return await chunks(game_id, since_seq, upto)

    store._event_chunks = counted
    for seq in range(1, record.last_seq + 1, 3):
        replayed = (await store.with_window(record.id, seq, window_state)).to_dict()
        assert {**replayed, "seed": ""} == Game.from_events(log[:seq]).state.to_dict()   # the log has no seed
    late = reads[-1]
    assert late[0] > 0 and late[1] - late[0] < record.last_seq // 2   # the last turn's events only
    from store import logs

    await store.export_log(record.id, None)   # the log's own worker, for the next check
    board_worker, log_worker = logs._boards.workers.pids(), logs._log.workers.pids()
    assert board_worker and log_worker and not set(board_worker) & set(log_worker)   # boards never queue there

    in_flight = most = calls = 0
    window = store.with_window

    async def watched(*args: Any) -> Any:
        nonlocal in_flight, most, calls
        in_flight += 1
        calls += 1
        most = max(most, in_flight)
        try:
            return await window(*args)
        finally:
            in_flight -= 1

    store.with_window = watched
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        async with http.get(await link_for(d, "carol")) as r:
            assert r.status == 200
        url = f"{base.replace('http', 'ws')}/g/{record.id}/ws"
        sockets = [await http.ws_connect(url, origin=base) for _ in range(4)]
        for i, ws in enumerate(sockets):
            for j in range(16):
                await ws.send_json({"type": "replay", "seq": 1 + (i * 16 + j) % record.last_seq})
        answers = [m for ws in sockets for m in await drain(ws)]
        assert len(answers) == 64
        assert {m["type"] for m in answers} <= {"replay", "refused"}
        assert all("Slow down" in m["text"] for m in answers if m["type"] == "refused")
        assert most == 1 and calls == sum(1 for m in answers if m["type"] == "replay")
        frame = next(m for m in answers if m["type"] == "replay")
        await sockets[0].send_json({"type": "replay", "seq": frame["seq"]})
        assert (await sockets[0].receive_json(timeout=10)) == frame   # kept: nothing worked out again
        assert calls == sum(1 for m in answers if m["type"] == "replay")
        for ws in sockets:
            await ws.close()


async def test_a_first_hello_far_behind_is_told_the_last_lines_without_reading_the_whole_log(boarded, monkeypatch):
    """A board that says hello far behind (the first on a long game) is told the last lines as ``/risk log``
    reads them (the last turns, projected in the log's worker), and the event loop never reads the log from its
    start; a board close behind is told every event it missed, as before."""
    from test_substitutes import play_turn, user_of

    import web.hub

    d, _server, base = boarded
    for _ in range(2):
        record = await record_of(d)
        await play_turn(d, user_of(d, record, record.game().state.current) or "")
    record = await record_of(d)
    async with aiohttp.ClientSession(cookie_jar=jar()) as http:
        _ws, whole = await open_board(http, d, "carol", base)   # told one by one: the old way, for comparison
        await _ws.close()
        monkeypatch.setattr(web.hub, "CATCH_UP", 5)
        reads: list[int] = []
        events = d.bot.store.events

        async def counted(game_id: int, since_seq: int = 0) -> Any:
            reads.append(since_seq)
            return await events(game_id, since_seq)

        d.bot.store.events = counted
        ws, far = await open_board(http, d, "carol", base)
        assert far["seq"] == record.last_seq and far["since"] == 0 and far["board"] == whole["board"]
        assert far["lines"] and far["lines"][-1] == whole["lines"][-1]
        assert all(since >= record.last_seq - 5 for since in reads), reads
        await ws.send_json({"type": "hello", "since": record.last_seq - 3})   # close behind: every event
        near = await ws.receive_json(timeout=10)
        assert near["since"] == record.last_seq - 3 and near["lines"] == \
            (await _lines_since(d, record.id, record.last_seq - 3))
        await ws.close()


@pytest.mark.parametrize("names", [("snake_case", "*bold*"), ("*bold*", "snake_case")])
async def test_the_boards_log_names_a_player_as_typed_and_the_channel_escapes_the_markdown(tmp_path, names):
    """The board's page puts each line of its log in as text (the browser escapes it for HTML): a name reads there
    exactly as typed. The channel's messages are markdown: there the same name has its markdown escaped."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    bot = make_bot(tmp_path / "g.db", seed="web names")
    bot.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=base, secret=SECRET)
    async with OfflineDiscord(bot, strict=True) as d:
        await start(d, names, 0, deployment="auto")
        record = await record_of(d)
        game = record.game()
        seat = game.state.current
        who = next(n for n in names if record.player(seat).user_id == d.user(n).id)
        assert record.player(seat).name == who
        async with aiohttp.ClientSession(cookie_jar=jar()) as http:
            ws, first = await open_board(http, d, who, base)
            target = first["board"]["legal"]["place"]["territories"][0]
            await ws.send_json({"type": "move", "id": "tap-1", "move": "place", "territory": target, "count": 1})
            replies = [await ws.receive_json(timeout=10) for _ in range(2)]
            update = next(r for r in replies if r["type"] == "board")
            told = [line for line in update["lines"] if "placed" in line]
            assert told and all(line.startswith(f"{who} placed 1") for line in told), told
            assert not any("\\" in line for line in update["lines"] + first["lines"]), update["lines"]
            await bot.board.settled()
            await ws.close()
        panel = d.message((await d.bot.store.live_panel(record.id)).message_id)
        escaped = who.replace("_", "\\_").replace("*", "\\*")
        assert f"{escaped} placed 1" in panel.content, panel.content
        assert f" {who} placed" not in panel.content and not panel.content.startswith(f"{who} placed")


async def _lines_since(d: OfflineDiscord, game_id: int, since: int) -> list[str]:
    from engine.fog import events_for
    from present.text import describe

    log = await d.bot.store.events(game_id)
    game = Game.from_events(log)
    shown = [e for e in events_for(log[since:], None, before=Game.from_events(log[:since]).state)
             if not e.get("hidden")]
    return describe(shown, game.state, game.board, "en", page=True)
