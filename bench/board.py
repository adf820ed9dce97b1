"""Benchmark of the live board: a tap on the board to the updated board back, on loopback.

The bot runs in this process against the offline Discord (as in tests/test_web_board.py) with its board server on
127.0.0.1; a board (aiohttp's WebSocket client, standing in for the browser) places one army and takes it back
(``place`` then ``undo``), again and again in one turn, seven a second (within the rate limit). Each is timed
from sending the move to receiving the board after it: WebSocket → checks → table → store → the hub → WebSocket
back. The channel is told of each as of a tap (the turn panel edited), as in production. For comparison, the same
placement typed as ``/place`` through the offline Discord, from the interaction to its settled answer.

    .venv/bin/python bench/board.py [--taps 200] [--commands 40]
    .venv/bin/python bench/board.py --load [--games 50] [--moves 20]

``--load``: many games at once, each in its channel with two players and two spectators, every board open (200
boards for 50 games); in every game the player to move places an army and takes it back once a second. Each board
records when each update arrives; the figures are how many updates were delivered, the latency from a move to each
board's update (p50, p99), and the bot's peak memory.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import aiohttp  # noqa: E402
from discord_helpers import OfflineDiscord, make_bot, start  # noqa: E402
from web_helpers import SECRET, free_port, jar, link_for, record_of  # noqa: E402

from web.config import WebConfig  # noqa: E402


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def run(taps: int, commands: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        bot = make_bot(Path(folder) / "bench.db", seed="bench")
        bot.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=f"http://127.0.0.1:{port}", secret=SECRET)
        base = f"http://127.0.0.1:{port}"
        async with OfflineDiscord(bot, strict=True) as d:
            await start(d, ("alice", "bob"), 0, deployment="auto")
            record = await record_of(d)
            seat = record.game().state.current
            who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
            where = record.game().state.territories_of(seat)[0]
            times: list[float] = []
            sizes: list[int] = []
            async with aiohttp.ClientSession(cookie_jar=jar()) as http:
                async with http.get(await link_for(d, who)) as r:
                    page = await r.read()
                async with http.get(f"{base}/static/board.js") as r:
                    script = await r.read()
                async with http.get(f"{base}/static/board.css") as r:
                    style = await r.read()
                async with http.get(f"{base}/g/{record.id}/map.png") as r:
                    picture = await r.read()
                ws = await http.ws_connect(f"ws://127.0.0.1:{port}/g/{record.id}/ws", origin=base)
                await ws.send_json({"type": "hello", "since": 0})
                seq = (await ws.receive_json())["seq"]
                for n in range(taps):
                    move = {"move": "place", "territory": where, "count": 1} if n % 2 == 0 else {"move": "undo"}
                    started = time.perf_counter()
                    await ws.send_json({"type": "move", "id": f"b{n}", **move})
                    while True:
                        message = await ws.receive()
                        data = message.json()
                        if data["type"] == "board" and data["seq"] > seq:
                            times.append(time.perf_counter() - started)
                            sizes.append(len(message.data))
                            seq = data["seq"]
                            break
                        if data["type"] == "refused":
                            raise SystemExit(f"refused: {data}")
                    await bot.board.settled()
                    await asyncio.sleep(0.13)  # within the board's rate limit (8 messages a second)
                await ws.close()
            typed: list[float] = []
            name = record.game().board.name(where)
            for n in range(commands):
                started = time.perf_counter()
                step = await d.send_command(who, "general", "place" if n % 2 == 0 else "undo",
                                            {"territory": name, "count": 1} if n % 2 == 0 else {})
                typed.append(time.perf_counter() - started)
                assert not step.problems, step.problems
    ms = [t * 1000 for t in times]
    print(f"board tap -> updated board, {len(ms)} taps: p50 {quantile(ms, 0.5):.1f} ms, "
          f"p99 {quantile(ms, 0.99):.1f} ms, mean {statistics.mean(ms):.1f} ms")
    if typed:
        tms = [t * 1000 for t in typed]
        print(f"/place or /undo through the offline Discord, {len(tms)}: p50 {quantile(tms, 0.5):.1f} ms, "
              f"p99 {quantile(tms, 0.99):.1f} ms")
    print(f"first load: page {len(page)} B, script {len(script)} B, style {len(style)} B, map {len(picture)} B, "
          f"total {len(page) + len(script) + len(style) + len(picture)} B")
    print(f"per update: board message p50 {int(quantile(sizes, 0.5))} B (then the map's picture, "
          f"{len(picture)} B)")


async def board_link(d: OfflineDiscord, user: str, channel: str) -> str:
    step = await d.send_command(user, channel, "board", {})
    return str(next(b["url"] for b in step[-1].buttons if b["url"]))


async def load(games: int, moves: int) -> None:
    import resource

    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        bot = make_bot(Path(folder) / "load.db", seed="load")
        bot.config.games_per_server = games  # every game in the one server of the offline Discord
        base = f"http://127.0.0.1:{port}"
        bot.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=base, secret=SECRET)
        async with OfflineDiscord(bot, strict=True) as d:
            tables = []
            for g in range(games):
                channel, a, b = f"game-{g}", f"p{g}a", f"p{g}b"
                await d.send_command(a, channel, "risk new", {"deployment": "auto"})
                await d.send_command(b, channel, "risk join", {})
                await d.send_command(a, channel, "risk start", {})
                record = await d.bot.store.get_active_game(d.channel(channel).id)
                seat = record.game().state.current
                mover = a if record.player(seat).user_id == d.user(a).id else b
                tables.append((channel, record, mover, [a, b, f"s{g}a", f"s{g}b"]))
            sent: dict[int, dict[int, float]] = {}
            received: list[tuple[int, int, float]] = []
            sockets = []
            for channel, record, _mover, viewers in tables:
                sent[record.id] = {}
                for user in viewers:
                    jarred = aiohttp.ClientSession(cookie_jar=jar())
                    async with jarred.get(await board_link(d, user, channel)) as r:
                        await r.read()
                    ws = await jarred.ws_connect(f"ws://127.0.0.1:{port}/g/{record.id}/ws", origin=base)
                    await ws.send_json({"type": "hello", "since": record.last_seq})
                    await ws.receive_json()
                    sockets.append((jarred, ws, record.id, user))
            started_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

            async def listen(ws: aiohttp.ClientWebSocketResponse, game_id: int) -> None:
                async for message in ws:
                    data = message.json()
                    if data["type"] == "board":
                        received.append((game_id, data["seq"], time.perf_counter()))

            listeners = [asyncio.create_task(listen(ws, gid)) for _s, ws, gid, _u in sockets]

            async def play(channel: str, record: object, mover: str) -> None:
                game = record.game()  # type: ignore[attr-defined]
                where = game.state.territories_of(game.state.current)[0]
                ws = next(w for _s, w, gid, u in sockets if gid == record.id and u == mover)  # type: ignore[attr-defined]
                for n in range(moves):
                    move = {"move": "place", "territory": where, "count": 1} if n % 2 == 0 else {"move": "undo"}
                    sent[record.id][record.last_seq + n + 1] = time.perf_counter()  # type: ignore[attr-defined]
                    await ws.send_json({"type": "move", "id": f"l{n}", **move})
                    await asyncio.sleep(1.0)

            clock = time.perf_counter()
            await asyncio.gather(*(play(c, r, m) for c, r, m, _v in tables))
            await asyncio.sleep(3)
            elapsed = time.perf_counter() - clock
            for task in listeners:
                task.cancel()
            for jarred, ws, _gid, _user in sockets:
                await ws.close()
                await jarred.close()
            await bot.board.settled()
    latencies = [(at - sent[g][s]) * 1000 for g, s, at in received if s in sent[g]]
    expected = len(sockets) * moves
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{games} games, {len(sockets)} boards, {moves} moves a game over {elapsed:.0f} s: "
          f"{len(latencies)} of {expected} updates delivered")
    print(f"move -> each board's update: p50 {quantile(latencies, 0.5):.1f} ms, "
          f"p99 {quantile(latencies, 0.99):.1f} ms, max {max(latencies):.1f} ms")
    print(f"peak memory of the process (bot, offline Discord and the clients): {peak / 1024:.0f} MB "
          f"({started_rss / 1024:.0f} MB with every board open, before the moves)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--taps", type=int, default=200)
    parser.add_argument("--commands", type=int, default=40)
    parser.add_argument("--load", action="store_true", help="many games and boards at once")
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--moves", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(load(args.games, args.moves) if args.load else run(args.taps, args.commands))


if __name__ == "__main__":
    main()
