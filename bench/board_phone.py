"""Benchmark of the live board as a phone sees it: bytes and time in Debian's Chromium at 360×740 with touch.

The bot runs in this process against the offline Discord with its board server on 127.0.0.1 (as in
tests/test_web_phone.py); the page is opened from a player's link and everything it receives is counted: every
HTTP answer's body and every WebSocket message.

- **First load**: the page (with the map's outlines and words), its script and style, the map's background and
  the first board, split by kind; then the same page opened again (the background comes from the browser's cache).
- **The reference turn** (``web_helpers.reference_ready``: trade, place all, a blitz with a move-in, two rolls, a
  fortify): the WebSocket bytes per move, and each tap → the page showing the board after it.
- **Taps**: placing every army then undoing it, again and again: tap → updated board (the page's ``data-seq``).
- **A whole game**, fog off and on: both seats played by the normal AI through the table while the page of one
  player is open; the bytes it received per move.
- **A map of 180 territories** (drawn by tests/mapdraw.py, as ``--sizes`` draws it): the first load and the bytes a
  move over a game played by the AI, fog off and on.
- ``--sizes``: the first load's server-side parts for drawn maps of 42, 110 and 180 territories (no browser).

    .venv/bin/python bench/board_phone.py [--taps 60] [--moves 600] [--large-moves 300] [--sizes] [--only-large]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from discord_helpers import OfflineDiscord, make_bot, start  # noqa: E402
from web_helpers import SECRET, chromium, free_port, link_for, play_until, record_of, reference_ready  # noqa: E402

from web.config import WebConfig  # noqa: E402

PHONE = {"width": 360, "height": 740}


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Meter:
    """Bytes a page received: HTTP bodies by address, WebSocket messages."""

    def __init__(self, page: Any) -> None:
        self.http: dict[str, int] = {}
        self.ws = 0
        self.messages = 0
        self.pending: list[asyncio.Task[None]] = []
        page.on("response", lambda r: self.pending.append(asyncio.ensure_future(self._body(r))))
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    async def _body(self, response: Any) -> None:
        if 300 <= response.status < 400:
            return
        try:  # the body as it came over the network (gzipped, or nothing when the cache had it)
            size = (await response.request.sizes())["responseBodySize"]
        except Exception:  # a body the browser dropped (its page closed): nothing received
            return
        key = response.url.split("?")[0]
        self.http[key] = self.http.get(key, 0) + max(0, size)

    def _frame(self, payload: Any) -> None:
        self.ws += len(payload if isinstance(payload, bytes) else payload.encode())
        self.messages += 1

    async def settled(self) -> None:
        await asyncio.gather(*self.pending)
        self.pending.clear()

    def total(self) -> int:
        return sum(self.http.values()) + self.ws


def kind(url: str) -> str:
    if "/bg/" in url:
        return "background"
    if url.endswith(".js"):
        return "script"
    if url.endswith(".css"):
        return "style"
    return "page"


async def seq_shown(page: Any, seq: int, seconds: float = 20) -> None:
    for _ in range(int(seconds / 0.005)):
        if await page.evaluate(f"document.body.dataset.seq === '{seq}'"):
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"the page never showed event {seq}")


IN_PAGE = "(() => { const m = performance.getEntriesByName('risk-move'), b = performance.getEntriesByName(" \
          "'risk-drawn'); return m.length && b.length ? b[b.length - 1].startTime - m[m.length - 1].startTime : -1;" \
          " })()"


async def tap_to_board(d: Any, page: Any, locator: Any) -> float:
    """A tap that moves, timed in the page from its move sent to the board after it drawn (the page's
    ``performance`` marks), in seconds."""
    before = (await record_of(d)).last_seq
    await locator.tap()
    for _ in range(4000):
        if await page.evaluate(f"Number(document.body.dataset.seq) > {before}"):
            took: float = await page.evaluate(IN_PAGE)
            assert took >= 0
            return took / 1000
        await asyncio.sleep(0.005)
    raise AssertionError("the tap changed nothing")


async def game(tmp: Path, fog: str, run: Any, upload: dict[str, Any] | None = None) -> Any:
    """A game of alice and bob, on the classic map or on the map ``upload`` adds (the options of
    ``/risk map add``), run through ``run(d, board server, browser)``."""
    port = free_port()
    bot = make_bot(tmp / f"{fog}.db", seed=f"phone-{fog}")
    bot.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=f"http://127.0.0.1:{port}", secret=SECRET)
    async with OfflineDiscord(bot, strict=True) as d:
        settings = {}
        if upload is not None:
            d.set_permissions("alice", manage_guild=True)
            step = await d.send_command("alice", "general", "risk map add", upload)
            assert not step.problems, step.problems
            settings["map"] = (await d.bot.store.list_maps(d.guild.id))[0].map_id
        await start(d, ("alice", "bob"), 0, deployment="auto", fog=fog, **settings)
        async with chromium() as browser:
            return await run(d, bot.board, browser)


async def open_page(browser: Any, d: Any, who: str, context: Any = None) -> tuple[Any, Any, Meter]:
    context = context or await browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True,
                                                   has_touch=True)
    page = await context.new_page()
    meter = Meter(page)
    record = await record_of(d)
    await page.goto(await link_for(d, who))
    await seq_shown(page, record.last_seq)
    for _ in range(400):
        if await page.evaluate("document.querySelector('#board image.background').getAttribute('data-loaded')"):
            break
        await asyncio.sleep(0.01)
    await meter.settled()
    return context, page, meter


def player(d: Any, record: Any, seat: int) -> str:
    return "alice" if record.player(seat).user_id == d.user("alice").id else "bob"


async def first_load(d: Any, server: Any, browser: Any) -> dict[str, Any]:
    record = await record_of(d)
    context, page, meter = await open_page(browser, d, player(d, record, record.game().state.current))
    parts: dict[str, int] = {}
    for url, size in meter.http.items():
        parts[kind(url)] = parts.get(kind(url), 0) + size
    parts["first board"] = meter.ws
    total = meter.total()
    await page.close()
    _c, again, meter2 = await open_page(browser, d, player(d, record, record.game().state.current), context)
    await again.close()
    await context.close()
    return {"parts": parts, "total": total, "again": meter2.total(), "again_background": sum(
        v for k, v in meter2.http.items() if "/bg/" in k)}


async def reference_turn(d: Any, server: Any, browser: Any) -> dict[str, Any]:
    record, where = await play_until(d, server, reference_ready)
    seat = record.game().state.current
    context, page, meter = await open_page(browser, d, player(d, record, seat))
    start_bytes = meter.ws
    waits: list[float] = []
    t = lambda tid: page.locator(f".badge[data-territory='{tid}']")  # noqa: E731
    waits.append(await tap_to_board(d, page, page.locator("#trade")))
    await t(where["x"]).tap()
    waits.append(await tap_to_board(d, page, page.locator("#all-here")))
    await page.locator("#blitz-next").tap()
    waits.append(await tap_to_board(d, page, t(where["blitz"])))
    pending = (await record_of(d)).game().state.pending
    waits.append(await tap_to_board(d, page, page.get_by_role("button", name=f"Move {pending['min']}", exact=True)))
    waits.append(await tap_to_board(d, page, t(where["t1"])))
    waits.append(await tap_to_board(d, page, t(where["t2"])))
    await t(where["f"]).tap()
    waits.append(await tap_to_board(d, page, page.locator("#controls button.go").first))
    await asyncio.sleep(0.3)
    per_move = (meter.ws - start_bytes) / len(waits)
    await context.close()
    return {"per_move": per_move, "moves": len(waits), "first_tap": waits[0], "waits": waits}


async def taps(d: Any, server: Any, browser: Any, count: int) -> list[float]:
    record = await record_of(d)
    seat = record.game().state.current
    context, page, _meter = await open_page(browser, d, player(d, record, seat))
    where = await page.evaluate("""(seat) => [...document.querySelectorAll('.badge')].map((g) => {
        const r = g.getBoundingClientRect();
        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return hit && hit.closest('.badge') === g && r.bottom < innerHeight ? g.dataset.territory : null;
      }).filter((t) => t)""", seat)
    where = next(t for t in where if record.game().state.owners[t] == seat)
    waits = []
    for _ in range(count // 2):
        if not await page.locator("#all-here").count():
            await page.locator(f".badge[data-territory='{where}']").tap()
        waits.append(await tap_to_board(d, page, page.locator("#all-here")))
        waits.append(await tap_to_board(d, page, page.get_by_role("button", name="Undo placements")))
        await asyncio.sleep(0.15)  # a player's pace, within the board's rate limit
    await context.close()
    return waits


async def whole_game(d: Any, server: Any, browser: Any, moves: int) -> dict[str, Any]:
    from engine.ai import make_ai

    record = await record_of(d)
    context, page, meter = await open_page(browser, d, "alice")
    start_bytes, start_messages = meter.ws, meter.messages
    ai = make_ai("normal", salt="bench")
    applied = 0
    game_id = record.id
    while applied < moves:
        record = await d.bot.store.get_game(game_id)
        if record.status != "running":
            break
        g = record.game()
        await server.table.apply(record, ai.choose(g, g.state.current), None)
        applied += 1
    record = await d.bot.store.get_game(game_id)
    await server.settled()
    await seq_shown(page, record.last_seq, 60)
    result = {"moves": applied, "per_move": (meter.ws - start_bytes) / applied,
              "messages": meter.messages - start_messages, "over": record.status != "running",
              "turn": record.game().state.turn}
    await context.close()
    return result


def drawn_files(count: int) -> tuple[bytes, dict[str, bytes]]:
    """A map of ``count`` territories drawn by tests/mapdraw.py: its Domination map file and the others."""
    import mapdraw  # tests/mapdraw.py

    map_text, files, _ = mapdraw.domination_real_files(mapdraw.sized_world(count), f"sized{count}")
    return map_text, files


def drawn_upload(count: int) -> dict[str, Any]:
    """The options of ``/risk map add`` adding the drawn map of ``count`` territories."""
    map_text, files = drawn_files(count)
    options: dict[str, Any] = {"file": (f"sized{count}.map", map_text)}
    for key, (name, blob) in zip(("file2", "file3", "file4"), files.items(), strict=True):
        options[key] = (name, blob)
    return options


def drawn_map(count: int) -> Any:
    """The drawn map of ``count`` territories, imported and installed in this process; its board."""
    from mapfiles import install
    from mapfiles.domination import import_domination

    map_text, files = drawn_files(count)
    package = import_domination(map_text, files, f"sized{count}.map")
    install(package)
    return package.board


def sizes() -> None:
    """The first load's server-side parts on drawn maps (the page's data, the background), no browser."""
    from present.i18n import map_labels
    from render.geometry import geometry_for
    from web.background import background_png
    from web.page import page_html, ui_strings
    from web.trace import territory_paths

    static = sum((ROOT / "web" / "static" / name).stat().st_size for name in ("board.js", "board.css"))
    import mapdraw  # tests/mapdraw.py

    for count in mapdraw.SIZED:
        board = drawn_map(count)
        geo = geometry_for(board.id)
        data = {"game": 1, "you": 0, "language": "en",
                "map": {"width": geo.width, "height": geo.height, "badge": geo.badge_size, "background": "/bg",
                        "paths": territory_paths(board.id),
                        "anchors": {t: list(s.anchor) for t, s in geo.territories.items()},
                        "links": {t: sorted(board.neighbours(t)) for t in board.territory_ids},
                        "names": {t: board.name(t) for t in board.territory_ids}},
                "strings": ui_strings("en")}
        page = len(page_html(data, "en").encode())
        background = len(background_png(board.id, map_labels("en", board.id)))
        print(f"  {count:3} territories  page {page / 1000:6.1f} KB  background {background / 1000:6.1f} KB  "
              f"script and style {static / 1000:.1f} KB  total {(page + background + static) / 1000:6.1f} KB")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--taps", type=int, default=60)
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--large-moves", type=int, default=300)
    parser.add_argument("--sizes", action="store_true")
    parser.add_argument("--only-large", action="store_true", help="only the map of 180 territories")
    args = parser.parse_args()
    if args.sizes:
        sizes()
        return
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        (tmp / "large").mkdir()
        large = drawn_upload(180)
        load = await game(tmp / "large", "off", first_load, large)
        print(f"180 territories: first load {load['total'] / 1000:.1f} KB  " +
              "  ".join(f"{k} {v / 1000:.1f} KB" for k, v in sorted(load["parts"].items())))
        for fog in ("off", "on"):
            (tmp / f"large-{fog}").mkdir()
            whole = await game(tmp / f"large-{fog}", fog, lambda d, s, b: whole_game(d, s, b, args.large_moves),
                               large)
            print(f"180 territories: whole game, fog {fog:3} {whole['per_move'] / 1000:.2f} KB a move over "
                  f"{whole['moves']} moves ({whole['messages']} messages, to turn {whole['turn']})")
        if args.only_large:
            return
        (tmp / "a").mkdir()
        load = await game(tmp / "a", "off", first_load)
        print(f"first load          {load['total'] / 1000:.1f} KB  " +
              "  ".join(f"{k} {v / 1000:.1f} KB" for k, v in sorted(load["parts"].items())))
        print(f"opened again        {load['again'] / 1000:.1f} KB  (background {load['again_background']} bytes: "
              "from the cache)")
        (tmp / "b").mkdir()
        turn = await game(tmp / "b", "off", reference_turn)
        print(f"reference turn      {turn['per_move'] / 1000:.2f} KB a move over {turn['moves']} moves; first tap → "
              f"board {turn['first_tap'] * 1000:.0f} ms; each: " +
              ", ".join(f"{w * 1000:.0f}" for w in turn["waits"]) + " ms")
        (tmp / "c").mkdir()
        waits = await game(tmp / "c", "off", lambda d, s, b: taps(d, s, b, args.taps))
        print(f"tap → board         p50 {statistics.median(waits) * 1000:.0f} ms  "
              f"p99 {quantile(waits, 0.99) * 1000:.0f} ms  max {max(waits) * 1000:.0f} ms  ({len(waits)} taps)")
        for fog in ("off", "on"):
            (tmp / fog).mkdir()
            whole = await game(tmp / fog, fog, lambda d, s, b: whole_game(d, s, b, args.moves))
            print(f"whole game, fog {fog:3} {whole['per_move'] / 1000:.2f} KB a move over {whole['moves']} moves "
                  f"({whole['messages']} messages, to turn {whole['turn']}{', to its end' if whole['over'] else ''})")


if __name__ == "__main__":
    asyncio.run(main())
