"""The live board's web server: aiohttp on the bot's own event loop, serving one page per game.

- ``GET /b/{link}``: a signed link from ``/board`` or the Board button (``web.links``). It opens the board once:
  the answer sets an HttpOnly, SameSite cookie for that game alone and sends the browser on to ``/g/{game}``,
  so the link leaves the address bar (and no page of ours sends a Referer: ``Referrer-Policy: no-referrer``).
- ``GET /g/{game}``: the page (self-contained: its script, style and the map's outlines come from here);
  ``/g/{game}/map.png``: the board as the renderer draws it for this viewer; ``/g/{game}/ws``: the WebSocket.
- A board's messages are checked like a component's values (``web.board.action_of``: a legal choice now, from
  the seat the cookie names), rate-limited per connection, and only from the board's own origin. A move goes
  through ``Table.apply`` and the announcer, exactly as a tap on the turn panel: the channel is told the same.
- The Activity (``[web] client_id``): ``GET /`` is the page Discord opens in its iframe; it authenticates with
  the Embedded App SDK (``/static/sdk/``) and ``POST /activity/session`` (``web.activity``), then holds a
  session token in memory, the cookie's equal, sent as ``Authorization: Bearer`` with every request
  (``/g/{game}/data`` gives the page's data) and as the WebSocket's subprotocol ``session.TOKEN``.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

import aiohttp
from aiohttp import WSMsgType, web

import workers
from engine import GameState, RuleError
from engine.fog import Audience
from present import drawing
from present.i18n import _, _plain, language_of, map_labels
from present.refusals import translate_rule, translate_template
from render.geometry import geometry_for
from store import FINISHED, PAUSED, RUNNING, StoreError, StoreReader
from table import Outcome, Table

from . import sdk
from .activity import ActivityRefused, DiscordOAuth
from .background import background_png, digest
from .board import MAX_MESSAGE, Refused, action_of, replay_frame, territory_names, window_state
from .config import WebConfig
from .hub import Gone, Hub, Viewer
from .inputs import BadInput, loads, number
from .links import LINK, SESSION, BadTicket, Signer, Ticket, UsedLinks, UsedNames
from .page import activity_html, page_html, ui_strings
from .plans import PLAN_TYPES, plan_message, plan_of
from .trace import territory_paths

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
RATE = 8.0    # a board's messages per second, on average
BURST = 16    # and at most this many at once
SIGN_INS = (5.0, 20)  # Activity sign-ins that reach Discord, a second and at once, for the whole server (each asks
SIGN_IN_WAIT = 10.0   # Discord three times); one waits this long at most for its turn
FAILURES = (0.2, 10)  # sign-ins Discord refused, of one address: ten at once, then one more every five seconds
FAILED_FOR = 600.0    # seconds a code already presented, or an instance Discord does not know, is refused at once
MAX_SIGN_IN = 1_000  # bytes of an Activity's sign-in: a code, an instance id and a channel id
MAX_MAPS = 64  # rendered maps kept (a few per game: one per viewer's language and projection)
MAX_FRAMES = 256  # replay frames kept (a game's moment for one audience and language)
REPLAYS_PER_GAME = 2  # replays (and their pictures) worked out at once for one game; one per session and kind
OPEN = (RUNNING, PAUSED, FINISHED)
HEADERS = {
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
                               "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "Cache-Control": "no-store",
}
SOCKETS = (4, 120)  # open boards of one session, of one game: beyond, a socket is told why and closed
# Why the server closes a board (the reason, sent first in a "closed" message, and the WebSocket's close code). The
# page reconnects by itself after a restart; after the others it says why and offers to open the board again.
CLOSE_CODES = {"seat": 4001, "session": 4002, "missing": 4004, "sockets": 4008, "game_sockets": 4009,
               "restart": 1012}
WS_PROTOCOL = "risk-board"  # the board's WebSocket subprotocol; a page without its cookie offers session.TOKEN too
BEARER = "Bearer "


class Bucket:
    """A token bucket: ``RATE`` messages a second, ``BURST`` at once (``clock``: monotonic seconds)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, rate: float = RATE, burst: int = BURST) -> None:
        self.clock, self.rate, self.burst = clock, rate, burst
        self.tokens = float(burst)
        self.at = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now

    def take(self) -> bool:
        self._refill()
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def ready(self) -> bool:
        """A token is there (none is taken)."""
        self._refill()
        return self.tokens >= 1

    def full(self) -> bool:
        self._refill()
        return self.tokens >= self.burst

    def reserve(self, most_wait: float) -> float | None:
        """Take a token, waiting for it if need be: the seconds to wait first (0: none), or None if that would
        be more than ``most_wait`` (nothing is taken)."""
        self._refill()
        if self.tokens - 1 < -self.rate * most_wait:
            return None
        self.tokens -= 1
        return max(0.0, -self.tokens / self.rate)


CODE = re.compile(r"[A-Za-z0-9._~-]{1,200}")        # an OAuth2 code: URL-safe characters
INSTANCE = re.compile(r"i-[A-Za-z0-9-]{1,120}")      # Discord's activity instance ids: "i-" and the launch's ids
SNOWFLAKE = re.compile(r"[0-9]{15,20}")


def sign_in_body(body: object) -> tuple[str, str, int]:
    """An Activity's sign-in (code, instance id, channel id) if it has the form Discord's are of, else
    ``BadInput``: refused before anything is spent on it."""
    if not isinstance(body, dict) or set(body) != {"code", "instance_id", "channel_id"}:
        raise BadInput("body")
    code, instance, channel = body["code"], body["instance_id"], body["channel_id"]
    if not isinstance(code, str) or not CODE.fullmatch(code):
        raise BadInput("code")
    if not isinstance(instance, str) or not INSTANCE.fullmatch(instance):
        raise BadInput("instance")
    if not isinstance(channel, str) or not SNOWFLAKE.fullmatch(channel):
        raise BadInput("channel")
    return code, instance, int(channel)


class Busy(Exception):
    """A session's replay is still being worked out: the next is refused ("Slow down") until it is done."""


def cookie_name(game_id: int) -> str:
    return f"board{game_id}"


class Channels(Protocol):
    """What the board needs of the chat it is a board of: a game's channel told of a move made on a board, as of a
    tap (``cogs/shared/board.py``'s ``BoardNews``, through the announcer)."""

    async def board_move(self, outcome: Outcome) -> None: ...


class BoardServer:
    """The server of every game's board; ``start`` and ``stop`` it with the bot."""

    def __init__(self, config: WebConfig, store: StoreReader, table: Table, channels: Channels,
                 clock: Callable[[], float], bot_token: str = "") -> None:
        self.config = config
        self.discord = DiscordOAuth(config, bot_token) if config.activity else None
        # One bucket for all: every page inside Discord comes through Discord's proxy, from the same addresses.
        self.sign_ins = Bucket(rate=SIGN_INS[0], burst=SIGN_INS[1])
        self.sign_in_wait = SIGN_IN_WAIT
        self._failures: dict[str, Bucket] = {}
        self.sign_in_codes = UsedNames(clock)       # every code presented: Discord takes a code once
        self.failed_instances = UsedNames(clock)    # instances Discord did not know
        self.store = store
        self.table = table
        self.channels = channels
        self.signer = Signer(config.secret or secrets.token_hex(32), clock)
        self.used = UsedLinks(clock)
        self.revoked = UsedLinks(clock)  # sessions ended by "leave": their cookie opens nothing any more
        self.hub = Hub(store, clock)
        self.socket_caps = SOCKETS
        self._sockets: dict[str, set[Viewer]] = {}  # the open boards of each session (its nonce)
        self._game_sockets: dict[int, int] = {}
        self._paths: dict[str, dict[str, str]] = {}
        self._backgrounds: dict[tuple[str, str], tuple[str, bytes]] = {}  # (map, language): (digest, PNG)
        self._frames: dict[tuple[int, int, Audience, str], dict[str, Any]] = {}
        # (session, kind) being worked out now: its lock, and how many hold it or wait for it
        self._replaying: dict[tuple[str, str], tuple[asyncio.Lock, int]] = {}
        self._game_replays: dict[int, asyncio.Semaphore] = {}
        self._maps: dict[tuple[int, int, Audience, str], bytes] = {}
        self._telling: dict[int, asyncio.Task[None]] = {}
        self._runner: web.AppRunner | None = None
        self.port: int | None = None
        table.watchers.append(self.hub.changed)

    @property
    def activity(self) -> bool:
        """The board is also a Discord Activity: the Board button and /board launch it."""
        return self.discord is not None

    # -- links -------------------------------------------------------------------------------------------
    def link(self, game_id: int, user_id: int, seat: int | None, language: str) -> str:
        """The address that opens ``game_id``'s board for ``user_id`` at ``seat`` (None: as a spectator)."""
        token = self.signer.make(LINK, game_id, user_id, seat, self.config.link_seconds, language_of(language))
        return f"{self.config.base}/b/{token}"

    def link_minutes(self) -> int:
        """How long a link opens the board, in whole minutes (for the words that hand it out)."""
        return max(1, self.config.link_seconds // 60)

    # -- life cycle ----------------------------------------------------------------------------------------
    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._headers], client_max_size=64 * 1024)
        app.router.add_get("/b/{token}", self.open_link)
        app.router.add_get("/g/{game:[0-9]{1,18}}", self.page)
        app.router.add_get("/g/{game:[0-9]{1,18}}/map.png", self.map_png)
        app.router.add_get("/g/{game:[0-9]{1,18}}/bg/{digest:[0-9a-f]{16}}.png", self.background)
        app.router.add_get("/g/{game:[0-9]{1,18}}/ws", self.websocket)
        app.router.add_post("/g/{game:[0-9]{1,18}}/leave", self.leave)
        app.router.add_get("/g/{game:[0-9]{1,18}}/data", self.page_data)
        app.router.add_get("/static/{name}", self.static)
        if self.discord is not None:
            sdk.modules()  # the pinned SDK, checked at start
            app.router.add_get("/", self.activity_page)
            app.router.add_post("/activity/session", self.activity_session)
            app.router.add_get("/static/sdk/{path:[A-Za-z0-9_./-]+}", self.sdk_module)
        app.router.add_get("/healthz", self.health)
        return app

    async def start(self) -> None:
        for nonce, expires in (await self.store.revoked_sessions(self.signer.clock())).items():
            self.revoked.note(nonce, expires)  # a session ended by Leave stays ended after a restart
        host, port = self.config.address()
        self._runner = web.AppRunner(self.app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port
        log.info("the live board listens on %s:%s for %s", host, self.port, self.config.base)

    async def stop(self) -> None:
        for boards in list(self._sockets.values()):  # each page is told, and reconnects to the next server
            for board in list(boards):
                await self.hub.drop(board, "restart")
        if self.discord is not None:
            await self.discord.close()
        if self.hub.changed in self.table.watchers:
            self.table.watchers.remove(self.hub.changed)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @web.middleware
    async def _headers(self, request: web.Request,
                       handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPException as exc:  # a refusal (403, 404) carries the same headers
            for key, value in HEADERS.items():
                exc.headers.setdefault(key, value)
            raise
        for key, value in HEADERS.items():
            response.headers.setdefault(key, value)  # a handler's own Cache-Control stays
        return response

    # -- pages ---------------------------------------------------------------------------------------------
    def words(self, request: web.Request, reason: str, language: str | None = None) -> str:
        """Why a link, a cookie or an Activity opens nothing, in the asker's language."""
        language = language or language_of(request.headers.get("Accept-Language", "en").split(",")[0].strip())
        words = {
            "forged": _plain("This board link is not valid. Ask the bot for a new one with </board>.", language),
            "expired": _plain("This board link has expired. Ask the bot for a new one with </board>.", language),
            "used": _plain("This board link was used already. Ask the bot for a new one with </board>.", language),
            "game": _plain("This board link is for another game. Ask the bot for a new one with </board>.", language),
            "seat": _plain("You no longer hold that seat in this game. Ask the bot for a new link with </board>.",
                      language),
            "missing": _("This game has no board to show.", language),
            "session": _plain("Open the board from the link the bot gives you with </board>.", language),
            "activity": _("Discord could not confirm who you are in this channel: open the board again from the "
                          "game's Board button.", language),
            "sockets": _("This board is open in too many windows: close one of them first.", language),
            "game_sockets": _("Too many boards of this game are open: try again in a while.", language),
            "restart": _("Connection lost: reconnecting…", language),
        }
        return words.get(reason, words["forged"])

    def refusal(self, request: web.Request, reason: str, status: int = 403) -> web.Response:
        """A clear page for a link or a cookie that opens nothing."""
        language = language_of(request.headers.get("Accept-Language", "en").split(",")[0].strip())
        text = html.escape(self.words(request, reason, language))
        title = html.escape(_("Risk board", language))
        body = (f"<!doctype html><html lang=\"{language}\"><head><meta charset=\"utf-8\">"
                f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title>"
                f"<link rel=\"stylesheet\" href=\"/static/board.css\"></head><body class=\"refused\">"
                f"<main><h1>{title}</h1><p role=\"alert\">{text}</p></main></body></html>")
        return web.Response(text=body, status=status, content_type="text/html")

    async def _game(self, game_id: int) -> Any:
        try:
            record = await self.store.get_game(game_id)
        except StoreError:
            return None
        return record if record.status in OPEN and record.state_json is not None else None

    async def open_link(self, request: web.Request) -> web.StreamResponse:
        try:
            ticket = self.signer.check(LINK, request.match_info["token"])
        except BadTicket as exc:
            return self.refusal(request, exc.reason)
        record = await self._seated(request, ticket)
        if isinstance(record, web.Response):
            return record
        if not self.used.use(ticket):
            return self.refusal(request, "used", 410)
        session = self.signer.make(SESSION, ticket.game_id, ticket.user_id, ticket.seat, self.config.session_seconds,
                                   ticket.language)
        response = web.Response(status=303, headers={"Location": f"/g/{ticket.game_id}"})
        response.set_cookie(cookie_name(ticket.game_id), session, max_age=self.config.session_seconds,
                            path=f"/g/{ticket.game_id}", httponly=True, samesite="Lax",
                            secure=self.config.public_url.startswith("https:"))
        return response

    @staticmethod
    def token_of(request: web.Request) -> str:
        """The session a request carries: the Activity's token (a Bearer header, or the WebSocket's subprotocol
        ``session.TOKEN``), else the board's cookie. Each is checked the same way."""
        authorization = request.headers.get("Authorization", "")
        if authorization.startswith(BEARER):
            return authorization[len(BEARER):].strip()
        for offered in request.headers.get("Sec-WebSocket-Protocol", "").split(","):
            if offered.strip().startswith("session."):
                return offered.strip()[len("session."):]
        return request.cookies.get(cookie_name(int(request.match_info["game"])), "")

    def session(self, request: web.Request) -> Ticket:
        game_id = int(request.match_info["game"])
        token = self.token_of(request)
        if not token:
            raise BadTicket("session")
        ticket = self.signer.check(SESSION, token, game_id)
        if ticket in self.revoked:
            raise BadTicket("session")
        return ticket

    def still(self, ticket: Ticket, record: Any) -> str | None:
        """Why ``ticket`` no longer sees the game as ``record`` holds it (None: it does): its session was revoked,
        the game closed, or the seat is no longer its user's (an AI took it, a substitute claimed it)."""
        if ticket in self.revoked:
            return "session"
        if record.status not in OPEN or record.state_json is None:
            return "missing"
        if ticket.seat is not None and record.seat_of(ticket.user_id) != ticket.seat:
            return "seat"
        return None

    async def _viewer(self, request: web.Request) -> tuple[Ticket, Any] | web.Response:
        try:
            ticket = self.session(request)
        except BadTicket as exc:
            return self.refusal(request, exc.reason)
        record = await self._seated(request, ticket)
        if isinstance(record, web.Response):
            return record
        return ticket, record

    async def _seated(self, request: web.Request, ticket: Ticket) -> Any:
        """The ticket's game if it is still open and the seat still the ticket's user's, else the refusal."""
        record = await self._game(ticket.game_id)
        if record is None:
            return self.refusal(request, "missing", 404)
        if ticket.seat is not None and record.seat_of(ticket.user_id) != ticket.seat:
            return self.refusal(request, "seat")
        return record

    async def paths(self, map_id: str) -> dict[str, str]:
        paths = self._paths.get(map_id)
        if paths is None:
            paths = self._paths[map_id] = await workers.run(territory_paths, map_id)
        return paths

    async def background_of(self, map_id: str, language: str) -> tuple[str, bytes]:
        """The map's background in a language (``web.background``), drawn once in a worker, with its digest."""
        key = (map_id, language)
        found = self._backgrounds.get(key)
        if found is None:
            png = await workers.run(background_png, map_id, map_labels(language, map_id))
            while len(self._backgrounds) >= MAX_MAPS:
                del self._backgrounds[next(iter(self._backgrounds))]
            found = self._backgrounds[key] = (digest(png), png)
        return found

    async def background(self, request: web.Request) -> web.StreamResponse:
        """The viewer's map without owners: the same for every game on that map and language, so its address
        (named by its digest) is kept by the browser for good."""
        found = await self._viewer(request)
        if isinstance(found, web.Response):
            return found
        ticket, record = found
        name, png = await self.background_of(record.game().board.id, ticket.language)
        if name != request.match_info["digest"]:
            raise web.HTTPNotFound()
        return web.Response(body=png, content_type="image/png",
                            headers={"Cache-Control": "private, max-age=31536000, immutable"})

    async def page(self, request: web.Request) -> web.StreamResponse:
        found = await self._viewer(request)
        if isinstance(found, web.Response):
            return found
        ticket, record = found
        data = await self.data_of(ticket, record)
        return web.Response(text=page_html(data, ticket.language), content_type="text/html")

    async def page_data(self, request: web.Request) -> web.StreamResponse:
        """The page's data for the Activity, which gets its page before it knows its game."""
        if not self._origin_ok(request):
            raise web.HTTPForbidden(text="origin")
        found = await self._viewer(request)
        if isinstance(found, web.Response):
            return found
        ticket, record = found
        return web.json_response(await self.data_of(ticket, record))

    async def data_of(self, ticket: Ticket, record: Any) -> dict[str, Any]:
        """What the page starts from: the game, the viewer's seat and language, the map's outlines, the words."""
        game = record.game()
        board = game.board
        geo = geometry_for(board.id)
        language = ticket.language
        name, _png = await self.background_of(board.id, language)
        return {
            "game": record.id, "you": ticket.seat, "language": language,
            "map": {"width": geo.width, "height": geo.height, "badge": geo.badge_size,
                    "background": f"/g/{record.id}/bg/{name}.png",
                    "paths": await self.paths(board.id),
                    "anchors": {t: list(s.anchor) for t, s in geo.territories.items()},
                    "links": {t: sorted(board.neighbours(t)) for t in board.territory_ids},
                    "names": territory_names(game, language)},
            "strings": ui_strings(language),
        }

    def _origin_ok(self, request: web.Request) -> bool:
        """A request with an ``Origin`` (a browser's cross-site or non-GET request) comes from a board's page."""
        origin = request.headers.get("Origin")
        return origin is None or origin in self.config.origins

    # -- the Activity ------------------------------------------------------------------------------------------
    async def activity_page(self, request: web.Request) -> web.StreamResponse:
        """The page Discord opens in its iframe (with ``frame_id``, ``instance_id``, ``channel_id``...)."""
        language = language_of(request.headers.get("Accept-Language", "en").split(",")[0].strip())
        csp = HEADERS["Content-Security-Policy"].replace("frame-ancestors 'none'",
                                                         f"frame-ancestors {self.config.frame_ancestors}")
        return web.Response(text=activity_html(self.config.client_id, language), content_type="text/html",
                            headers={"Content-Security-Policy": csp})

    async def activity_session(self, request: web.Request) -> web.StreamResponse:
        """The SDK's code, instance and channel in; the session token of the channel's game out (with the
        access token the page hands to the SDK's ``authenticate``), once Discord confirmed each of them.

        Sign-ins cost Discord's calls, so the checks that cost nothing come first: the origin, the body's shape
        (``sign_in_body``), a code or instance that failed lately, the asker's address's failures; only then is
        the server's shared budget spent, on a request that will reach Discord."""
        assert self.discord is not None
        if request.headers.get("Origin") not in self.config.origins:
            raise web.HTTPForbidden(text="origin")
        language = language_of(request.headers.get("Accept-Language", "en").split(",")[0].strip())
        try:
            code, instance_id, channel_id = sign_in_body(loads(await request.read(), MAX_SIGN_IN, 1))
        except BadInput:
            return web.json_response({"refused": "body", "text": self.words(request, "activity", language)},
                                     status=400)
        if code in self.sign_in_codes or instance_id in self.failed_instances:
            return web.json_response({"refused": "code" if code in self.sign_in_codes else "instance",
                                      "text": self.words(request, "activity", language)}, status=403)
        addresses = self.addresses_of(request)
        slow = web.json_response({"refused": "slow", "text": _("Slow down: too many taps at once.", language)},
                                 status=429, headers={"Retry-After": "5"})
        if not all(self.failures_of(address).ready() for address in addresses):
            return slow
        wait = self.sign_ins.reserve(self.sign_in_wait)
        if wait is None:
            return slow
        self.sign_in_codes.note(code, self.signer.clock() + FAILED_FOR)  # a code is good once, at Discord too
        if wait:
            await asyncio.sleep(wait)   # the shared budget: a burst of genuine sign-ins waits its turn
        try:
            who = await self.discord.identify(code, instance_id, channel_id)
        except ActivityRefused as refused:
            log.info("the Activity refused a page: %s", refused.reason)
            for address in addresses:
                self.failures_of(address).take()
            if refused.reason == "instance":
                self.failed_instances.note(instance_id, self.signer.clock() + FAILED_FOR)
            return web.json_response({"refused": refused.reason, "text": self.words(request, "activity")},
                                     status=403)
        except (aiohttp.ClientError, TimeoutError):
            log.warning("the Activity could not reach Discord", exc_info=True)
            raise web.HTTPBadGateway() from None
        language = language_of(who.locale)
        try:
            record = await self.store.get_active_game(who.channel_id)
        except StoreError:
            record = None
        if record is None or record.status not in OPEN or record.state_json is None:
            return web.json_response({"refused": "missing", "text": self.words(request, "missing", language)},
                                     status=404)
        seat = record.seat_of(who.user_id)
        session = self.signer.make(SESSION, record.id, who.user_id, seat, self.config.session_seconds, language)
        return web.json_response({"session": session, "game": record.id, "access_token": who.access_token})

    def addresses_of(self, request: web.Request) -> list[str]:
        """Who asks, as far as the server can tell: the address the proxy in front of the board put in ``[web]
        client_address_header`` (its last entry, the one that proxy added), else the direct peer (a proxy's own
        address when there is one, shared by everyone behind it). Inside Discord every page comes through
        Discord's proxy, which documents no such header (docs/deploy.md)."""
        header = self.config.client_address_header
        value = request.headers.get(header, "").split(",")[-1].strip()[:64] if header else ""
        return [f"header:{value}"] if value else [f"peer:{request.remote or ''}"]

    def failures_of(self, address: str) -> Bucket:
        """The sign-ins Discord refused from one address: a few, then one more now and then."""
        bucket = self._failures.get(address)
        if bucket is None:
            if len(self._failures) > 10_000:   # forget the addresses that are whole again
                self._failures = {a: b for a, b in self._failures.items() if not b.full()}
            bucket = self._failures[address] = Bucket(rate=FAILURES[0], burst=FAILURES[1])
        return bucket

    async def sdk_module(self, request: web.Request) -> web.StreamResponse:
        body = sdk.modules().get(request.match_info["path"])
        if body is None:
            raise web.HTTPNotFound()
        return web.Response(body=body, content_type="text/javascript",
                            headers={"Cache-Control": "public, max-age=86400"})

    async def map_png(self, request: web.Request) -> web.StreamResponse:
        found = await self._viewer(request)
        if isinstance(found, web.Response):
            return found
        ticket, record = found
        at = request.query.get("at")
        try:  # a replay's moment: a number of an event of the log, else a plain refusal
            seq = record.last_seq if at is None else number(at, 1, record.last_seq)
        except BadInput:
            raise web.HTTPBadRequest(text="at") from None
        key = (record.id, seq, ticket.seat, ticket.language)
        png = self._maps.get(key)
        if png is None:
            try:
                state = record.game().state if seq == record.last_seq else await self.replay_state(ticket, seq)
            except Busy:
                return web.Response(status=429, text="busy", headers={"Retry-After": "1"})
            png = await drawing.draw(drawing.prepare(state, ticket.seat, locale=ticket.language))
            while len(self._maps) >= MAX_MAPS:
                del self._maps[next(iter(self._maps))]
            self._maps[key] = png
        return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "private, max-age=3600"})

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        types = {"board.js": "text/javascript", "board.css": "text/css", "activity.js": "text/javascript"}
        if name not in types:
            raise web.HTTPNotFound()
        response = web.Response(body=(STATIC / name).read_bytes(), content_type=types[name],
                                headers={"Cache-Control": "public, max-age=300"})
        response.enable_compression()  # the script and the style, gzipped when the browser takes it (a third)
        return response

    async def health(self, request: web.Request) -> web.StreamResponse:
        return web.Response(text="ok")

    async def leave(self, request: web.Request) -> web.StreamResponse:
        """The viewer leaves, from the page (its cookie) or the Activity (its Bearer session): the session opens
        nothing any more, after a restart too, and its open boards are closed; the cookie is cleared."""
        if request.headers.get("Origin") not in self.config.origins:
            raise web.HTTPForbidden()
        try:
            ticket = self.session(request)
        except BadTicket:
            ticket = None
        if ticket is not None:
            self.revoked.use(ticket)
            await self.table.board_left(ticket.nonce, ticket.expires)
            for board in list(self._sockets.get(ticket.nonce, ())):
                await self.hub.drop(board, "session")
        response = self.refusal(request, "session", 200)
        response.del_cookie(cookie_name(int(request.match_info["game"])), path=f"/g/{request.match_info['game']}")
        return response

    # -- the replay ---------------------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def replaying(self, ticket: Ticket, kind: str, wait: bool = False) -> AsyncIterator[None]:
        """Room for one piece of a board's work on the log (a replay's moment, its picture, a hello): one of each
        kind at a time per session (whatever its connections), ``REPLAYS_PER_GAME`` per game. While the session's
        last one is still being worked out the next waits (``wait``) or is refused with ``Busy``."""
        key = (ticket.nonce, kind)
        lock, users = self._replaying.get(key, (asyncio.Lock(), 0))
        if users and not wait:
            raise Busy
        self._replaying[key] = (lock, users + 1)
        try:
            async with lock:
                gate = self._game_replays.setdefault(ticket.game_id, asyncio.Semaphore(REPLAYS_PER_GAME))
                async with gate:
                    yield
        finally:
            lock, users = self._replaying[key]
            if users > 1:
                self._replaying[key] = (lock, users - 1)
            else:
                del self._replaying[key]

    async def replay_state(self, ticket: Ticket, seq: int) -> GameState:
        """The whole board after event ``seq`` (projected for its viewer by the caller): the turn that holds it
        replayed from its start, in the log's worker (``Store.with_window``)."""
        async with self.replaying(ticket, "map"):
            return await self.store.with_window(ticket.game_id, seq, window_state)

    async def replay(self, ticket: Ticket, seq: int, last: int) -> dict[str, Any]:
        """The board after event ``seq`` as the viewer may know it then (``board.replay_frame`` on the turn that
        holds it, in the log's worker), kept for the next viewer who asks for that moment."""
        key = (ticket.game_id, seq, ticket.seat, ticket.language)
        frame = self._frames.get(key)
        if frame is None:
            async with self.replaying(ticket, "frame"):
                frame = await self.store.with_window(ticket.game_id, seq, replay_frame, seq, ticket.seat,
                                                     ticket.language, last)
            while len(self._frames) >= MAX_FRAMES:
                del self._frames[next(iter(self._frames))]
            self._frames[key] = frame
        return {**frame, "of": last}

    # -- the WebSocket -------------------------------------------------------------------------------------
    async def websocket(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Origin") not in self.config.origins:
            raise web.HTTPForbidden(text="origin")
        found = await self._viewer(request)
        if isinstance(found, web.Response):
            raise web.HTTPForbidden(text="session")
        ticket, _record = found
        ws = web.WebSocketResponse(heartbeat=30, max_msg_size=MAX_MESSAGE, protocols=(WS_PROTOCOL,))
        await ws.prepare(request)
        lock = asyncio.Lock()

        async def send(message: dict[str, Any]) -> None:
            async with lock:
                if ws.closed:
                    raise Gone("closed")
                try:
                    await ws.send_str(json.dumps(message, separators=(",", ":")))
                except ConnectionError:  # the page went away meanwhile: its board ends quietly
                    raise Gone("closed") from None

        async def close(reason: str) -> None:
            """Tell the page why its board ends, then close it (a socket already gone is left alone)."""
            try:
                async with lock:
                    if ws.closed:
                        return
                    await ws.send_str(json.dumps({"type": "closed", "reason": reason,
                                                  "text": self.words(request, reason, ticket.language)}))
                    await ws.close(code=CLOSE_CODES.get(reason, 1000), message=reason.encode())
            except ConnectionError:
                pass

        board = Viewer(ticket.game_id, ticket.seat, ticket.language, send,
                       still=lambda record: self.still(ticket, record), close=close)
        full = self._open_socket(ticket, board)
        if full is not None:
            board.closed = True
            await close(full)
            return ws
        self.hub.join(board)
        bucket = Bucket()
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    break
                try:
                    if not bucket.take():
                        await send({"type": "refused",
                                    "text": _("Slow down: too many taps at once.", ticket.language)})
                        continue
                    await self.receive(board, ticket, message.data, send)
                except Gone as gone:
                    await self.hub.drop(board, gone.reason)
                    break
        finally:
            self.hub.leave(board)
            self._close_socket(ticket, board)
        return ws

    def _open_socket(self, ticket: Ticket, board: Viewer) -> str | None:
        """Count a new board of ``ticket``'s session and game; the reason it may not open (too many), else None."""
        per_session, per_game = self.socket_caps
        mine = self._sockets.setdefault(ticket.nonce, set())
        if len(mine) >= per_session:
            return "sockets"
        if self._game_sockets.get(ticket.game_id, 0) >= per_game:
            return "game_sockets"
        mine.add(board)
        self._game_sockets[ticket.game_id] = self._game_sockets.get(ticket.game_id, 0) + 1
        return None

    def _close_socket(self, ticket: Ticket, board: Viewer) -> None:
        mine = self._sockets.get(ticket.nonce)
        if mine is None or board not in mine:
            return
        mine.discard(board)
        if not mine:
            del self._sockets[ticket.nonce]
        left = self._game_sockets.get(ticket.game_id, 1) - 1
        if left > 0:
            self._game_sockets[ticket.game_id] = left
        else:
            self._game_sockets.pop(ticket.game_id, None)

    async def receive(self, board: Viewer, ticket: Ticket, text: str,
                      send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        """One message from a board: ``hello`` (the last event it saw) or ``move``."""
        language = ticket.language
        try:
            data = loads(text, MAX_MESSAGE)
        except BadInput:
            data = None
        if not isinstance(data, dict) or data.get("type") not in ("hello", "move", "replay", *PLAN_TYPES):
            await send({"type": "refused", "text": _("That choice is not available now; open the menu again.",
                                                     language)})
            return
        if data["type"] == "replay":
            at = data.get("seq")
            record = await self.store.get_game(ticket.game_id)
            refused = self.still(ticket, record)
            if refused is not None:
                raise Gone(refused)
            if not isinstance(at, int) or isinstance(at, bool) or not 0 < at <= record.last_seq:
                await send({"type": "refused", "text": _("That choice is not available now; open the menu again.",
                                                         language)})
                return
            try:
                await send(await self.replay(ticket, at, record.last_seq))
            except Busy:
                await send({"type": "refused", "text": _("Slow down: too many taps at once.", language)})
            return
        if data["type"] == "hello":
            since = data.get("since", 0)
            board.shown = None  # a page that says hello is sent the whole board, then changes to it
            async with self.replaying(ticket, "hello", wait=True):
                await self.hub.bring_up_to_date(board, since if isinstance(since, int) and since >= 0 else 0)
            return
        tap = data.get("id")
        tap_id = tap if isinstance(tap, str) and 0 < len(tap) <= 40 else None
        if data["type"] in PLAN_TYPES:
            await self.planning(ticket, data, tap_id, send)
            return
        try:
            await self.move(ticket, data, tap_id)
        except Refused:
            await send({"type": "refused", "id": tap_id,
                        "text": _("That choice is not available now; open the menu again.", language)})
            await self.hub.bring_up_to_date(board, board.seq)
            return
        except RuleError as exc:
            await send({"type": "refused", "id": tap_id, "text": translate_rule(exc, language, plain=True)})
            return
        except StoreError as exc:
            await send({"type": "refused", "id": tap_id,
                        "text": translate_template(exc.template, exc.params, language, plain=True)})
            return
        await send({"type": "done", "id": tap_id})

    async def move(self, ticket: Ticket, data: dict[str, Any], tap_id: str | None) -> Outcome | None:
        """Apply a board's move for the cookie's seat, then tell the channel as a tap on the panel does."""
        if ticket.seat is None:
            raise Refused
        record = await self.store.get_game(ticket.game_id)
        if record.status != RUNNING or record.state_json is None or record.seat_of(ticket.user_id) != ticket.seat:
            raise Refused
        game = record.game()
        action = action_of(game, ticket.seat, data)
        game.validate(action)
        interaction = f"web:{ticket.nonce}:{tap_id}" if tap_id else None
        outcome = await self.table.apply(record, action, interaction)
        if outcome.duplicate:
            return None
        self._tell(outcome)
        return outcome

    async def planning(self, ticket: Ticket, data: dict[str, Any], tap_id: str | None,
                       send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        """Plan my turn (web/plans.py): leave, show or cancel the cookie's seat's own plan, the seat checked again
        first; the answer goes to this socket alone (a seat that changed hands is closed, and sees nothing)."""
        language = ticket.language
        record = await self.store.get_game(ticket.game_id)
        refused = self.still(ticket, record)
        if refused is not None:
            raise Gone(refused)
        if ticket.seat is None or record.status not in (RUNNING, PAUSED):
            await send({"type": "refused", "id": tap_id,
                        "text": _("That choice is not available now; open the menu again.", language)})
            return
        game = record.game()
        seat, user = ticket.seat, ticket.user_id
        try:
            if data["type"] == "plan":
                kept = await self.table.leave_orders(record, seat, user, plan_of(game, seat, data))
            elif data["type"] == "plan_cancel":
                await self.table.cancel_orders(record, seat, user)
                kept = None
            else:
                kept = await self.table.orders_of(record, seat, user)
        except Refused:
            await send({"type": "refused", "id": tap_id,
                        "text": _("That choice is not available now; open the menu again.", language)})
            return
        except RuleError as exc:
            await send({"type": "refused", "id": tap_id, "text": translate_rule(exc, language, plain=True)})
            return
        await send(plan_message(kept, game.board, language, tap_id))

    def _tell(self, outcome: Outcome) -> None:
        """The channel hears of a board's move as of a tap, one outcome of a game after the other."""
        game_id = outcome.record.id
        before = self._telling.get(game_id)

        async def tell() -> None:
            if before is not None:
                await asyncio.gather(before, return_exceptions=True)
            try:
                await self.channels.board_move(outcome)
            except Exception:
                log.exception("game %s: telling the channel of a board's move failed", game_id)
            finally:
                if self._telling.get(game_id) is task:
                    del self._telling[game_id]

        task = asyncio.get_running_loop().create_task(tell())
        self._telling[game_id] = task

    async def settled(self) -> None:
        """Wait until the channel has been told every board move so far (tests, shutdown)."""
        while self._telling:
            await asyncio.gather(*self._telling.values(), return_exceptions=True)


__all__ = ["BoardServer", "Bucket", "Channels", "cookie_name"]
