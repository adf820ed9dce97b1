"""The live board while seats change hands: every message a board is sent is checked against the store as it goes,
so a player who lost their seat (an AI's takeover, a substitute's claim) is told why and sent nothing of it again;
a kicked player, one who leaves, and everybody at the game's end see what their seat may see then. Through the
real bot in this process, its board server on loopback, and the offline Discord."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiohttp
import pytest
from discord_helpers import OfflineDiscord, make_bot, start
from test_substitutes import play_turn, user_of
from test_web_board import collect
from test_web_board import server_settled as settled
from web_helpers import SECRET, free_port, jar, link_for, patched, record_of

from engine import Game
from engine.fog import visible_territories
from engine.state import OVER
from web.config import WebConfig

HOUR = 3600
NAMES = ("alice", "bob", "carol", "dave", "erin")




class Boards:
    """The open boards of a game, each with the seat its link named, and a referee for everything they are sent:
    the territories the seat (or a spectator) may see at that moment, the seat's own hand and no other."""

    def __init__(self, d: OfflineDiscord, base: str) -> None:
        self.d, self.base = d, base
        self.open: dict[str, tuple[aiohttp.ClientSession, Any, int | None]] = {}
        self.shown: dict[str, dict[str, Any]] = {}  # each board as its page shows it (changes applied)
        self.checked = 0
        self.game_id = 0

    async def add(self, name: str) -> None:
        http = aiohttp.ClientSession(cookie_jar=jar())
        async with http.get(await link_for(self.d, name)) as r:
            assert r.status == 200
        record = await record_of(self.d)
        self.game_id = record.id
        ws = await http.ws_connect(f"{self.base.replace('http', 'ws')}/g/{record.id}/ws", origin=self.base)
        await ws.send_json({"type": "hello", "since": 0})
        self.open[name] = (http, ws, record.seat_of(self.d.user(name).id))
        await self.check(name)

    async def check(self, name: str) -> tuple[list[dict[str, Any]], int | None]:
        """Every message ``name``'s board got since the last check, against the log (the referee)."""
        _http, ws, seat = self.open[name]
        got, closed = await collect(ws)
        log = await self.d.bot.store.events(self.game_id)
        for message in got:
            if message["type"] != "board":
                continue
            state = Game.from_events(log[: message["seq"]]).state
            board = self.shown[name] = patched(self.shown.get(name), message)
            assert board["you"] == seat, name
            seen = set(state.owners) if state.phase == OVER else visible_territories(state, seat)  # the end: all
            assert set(board["owners"]) <= seen and set(board["armies"]) <= seen, (name, message["seq"])
            if seat is None:
                assert "hand" not in board and "mission" not in board, name
            else:
                assert [c["card"] for c in board["hand"]] == state.hands.get(seat, []), name
            self.checked += 1
        return got, closed

    async def check_all(self) -> None:
        await settled(self.d)
        for name in list(self.open):
            await self.check(name)

    async def close(self) -> None:
        for http, ws, _seat in self.open.values():
            await ws.close()
            await http.close()


@pytest.mark.slow   # three players and two spectators' boards through five changes of seat: CI's slow suite
async def test_seats_changing_hands_with_boards_open(tmp_path: Path):
    """Under fog, with the boards of three players and two spectators open: the AI takes Bob's seat (his board is
    closed with the reason, his cookie opens nothing), Dave claims it (his spectator's board stays a spectator's; a
    new link gives him the seat), the host kicks Carol, Erin leaves, the game ends: every message of every board is
    what its viewer may see at that moment."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    bot = make_bot(tmp_path / "seats.db", seed="seats")
    bot.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=base, secret=SECRET)
    async with OfflineDiscord(bot, strict=True) as d:
        await start(d, ("alice", "bob", "carol"), 0, deployment="auto", fog="on", turn_deadline=HOUR,
                    max_missed=1)
        record = await record_of(d)
        bob = record.seat_of(d.user("bob").id)
        boards = Boards(d, base)
        try:
            for name in ("alice", "bob", "carol", "dave", "erin"):
                await boards.add(name)
            # Until it is Bob's turn, the others play theirs; then his time runs out and the AI takes his seat.
            for _ in range(6):
                record = await record_of(d)
                if record.game().state.current == bob:
                    break
                await play_turn(d, user_of(d, record, record.game().state.current) or "")
            await boards.check_all()
            await d.run(d.bot.advance_time(HOUR + 1))
            record = await record_of(d)
            assert record.player(bob).is_ai and record.seat_of(d.user("bob").id) is None
            await settled(d)
            got, closed = await boards.check("bob")
            assert closed == 4001 and [m["type"] for m in got] == ["closed"], got  # nothing of the seat, only why
            assert got[0]["reason"] == "seat" and "no longer hold that seat" in got[0]["text"]
            http = boards.open["bob"][0]
            try:
                await http.ws_connect(f"{base.replace('http', 'ws')}/g/{record.id}/ws", origin=base)
                raise AssertionError("the old cookie opened the board")
            except aiohttp.WSServerHandshakeError as refused:
                assert refused.status == 403
            async with http.get(f"{base}/g/{record.id}/map.png") as r:
                assert r.status == 403
            del boards.open["bob"]
            await http.close()
            await boards.check_all()

            # The host offers the seat, Dave claims it: his open board stays a spectator's, a new one is the seat's.
            takeover = next(m for m in reversed(d.messages) if "Offer the seat to a substitute" in m.button_labels)
            step = await d.click("alice", "Offer the seat to a substitute", takeover)
            offer = next(m for m in step if "Take this seat" in m.button_labels)
            step = await d.click("dave", "Take this seat", offer)
            assert not step.problems, step.problems
            await boards.check_all()
            boards.open["dave-seat"] = boards.open.pop("dave")
            boards.shown["dave-seat"] = boards.shown.pop("dave")
            await boards.add("dave")
            dave_spectator, dave_seat = boards.open["dave-seat"], boards.open["dave"]
            assert dave_spectator[2] is None and dave_seat[2] == bob

            # The host kicks Carol: she keeps her seat, resigned, and sees what it may see.
            record = await record_of(d)
            carol = record.seat_of(d.user("carol").id)
            step = await d.send_command("alice", "general", "risk kick", {"player": "@carol"})
            step = await d.click("alice", "Yes, remove", step[0])
            assert not step.problems, step.problems
            assert carol in (await record_of(d)).game().state.surrendered
            await boards.check_all()

            # Erin leaves: her board is closed, her cookie opens nothing.
            http, ws, _seat = boards.open["erin"]
            async with http.post(f"{base}/g/{record.id}/leave", headers={"Origin": base}) as r:
                assert r.status == 200
            got, closed = await collect(ws)
            assert closed == 4002 and [m["type"] for m in got][-1:] == ["closed"] and got[-1]["reason"] == "session"
            del boards.open["erin"]
            await http.close()

            # The game ends by a vote of the players still in: every board sees the end as its seat may.
            for user in ("alice", "dave"):
                if (await d.bot.store.get_game(record.id)).status == "running":
                    voted = await (d.send_command(user, "general", "vote", {}) if user == "alice"
                                   else d.click(user, "Vote for"))
                    assert not voted.problems, voted.problems
            assert (await d.bot.store.get_game(record.id)).status == "finished"
            await boards.check_all()
            assert boards.checked > 10
        finally:
            await boards.close()


async def test_a_hello_or_replay_after_the_seat_changed_hands_is_answered_with_why_not_the_seat(tmp_path: Path):
    """The seat changes in the store before the hub hears of it: the former player's ``hello`` and ``replay`` are
    checked against the store too, and answered with the reason, never the seat's hand or its fogged view."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    bot = make_bot(tmp_path / "race.db", seed="race")
    bot.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=base, secret=SECRET)
    async with OfflineDiscord(bot, strict=True) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto", fog="on")
        record = await record_of(d)
        bob = record.seat_of(d.user("bob").id)
        for ask in ({"type": "replay", "seq": 1}, {"type": "hello", "since": 0}):
            boards = Boards(d, base)
            try:
                await boards.add("bob")
                await d.bot.store.replace_with_ai(record.id, bob)   # as a takeover the hub has not heard of yet
                _http, ws, _seat = boards.open["bob"]
                await ws.send_json(ask)
                got, closed = await collect(ws)
                assert closed == 4001 and [m["type"] for m in got] == ["closed"] and got[0]["reason"] == "seat", ask
            finally:
                await boards.close()
            await d.bot.store.reinstate(record.id, d.user("bob").id)
