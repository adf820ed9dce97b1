"""A small fake Discord on 127.0.0.1: enough of REST API v10 and of the gateway for discord.py 2.7 and a bot.

What Discord answers and remembers (guild, channels, members, messages, interaction callbacks, webhooks,
command sync) comes from the offline Discord's server (``discord_offline.server``); this module puts it behind
a real HTTP server and a real websocket gateway, so a real bot process can connect to it:

* REST under ``/api/v10``: every route of ``OfflineServer`` (interaction callbacks with ``with_response``,
  follow-ups and ``@original`` edits through webhooks, channel messages with multipart attachments, edits,
  DM channels, command sync), plus ``/gateway``, ``/gateway/bot``, and a 401 for a wrong token. Answers carry
  ``Content-Type: application/json`` exactly, as Discord's do.
* Rate limits on demand: :meth:`FakeDiscord.rate_limit` makes chosen routes answer 429 with ``Retry-After``,
  the ``X-RateLimit-*`` headers and the ``Via`` header discord.py looks for (without ``Via`` it takes a 429 for
  a Cloudflare ban and gives up).
* The Activity (:meth:`FakeDiscord.enable_activities`): the launch callback (type 12) opens an activity instance
  in the interaction's channel with its user (:attr:`FakeDiscord.activity_instances`); ``GET /applications/{app}/
  activity-instances/{instance}`` (bot token) lists its channel and users; :meth:`FakeDiscord.authorize` gives a
  user's OAuth2 code, ``POST /oauth2/token`` exchanges it (client id and secret) for an access token, with which
  ``GET /users/@me`` and ``GET /oauth2/@me`` answer as that user. A global bulk command update that drops the
  Entry Point command (type 4) is refused, as Discord does.
* The gateway: plain JSON text frames (no zlib), sharded with ``shard_count`` (IDENTIFY names its shard, each
  guild of ``extra_guilds`` and the first is dispatched on its shard, direct messages on shard 0, and
  ``/gateway/bot`` gives the count). HELLO; IDENTIFY -> READY (with ``session_id`` and a
  ``resume_gateway_url`` pointing back here) then GUILD_CREATE; heartbeat ACKs; RESUME -> the missed
  dispatches then RESUMED, or INVALID_SESSION for an unknown session. :meth:`FakeDiscord.drop_gateway`
  closes the connection from Discord's side.
* Scripted people: :meth:`FakeDiscord.command`, :meth:`FakeDiscord.press` and :meth:`FakeDiscord.choose` send
  INTERACTION_CREATE dispatches shaped like Discord's, and return an :class:`Interaction` that records how the
  bot answered (:meth:`Interaction.wait_answered`, :meth:`Interaction.wait_settled`).

Everything is recorded: :attr:`FakeDiscord.calls` (every REST request), :attr:`FakeDiscord.gateway_log`
(every gateway frame the bot sent), :attr:`FakeDiscord.problems` (requests Discord would have rejected).
The server listens on 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import math
import secrets
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import discord
from aiohttp import BodyPartReader, WSMsgType, web

from discord_offline.records import (
    EPHEMERAL,
    OfflineAttachment,
    OfflineChannel,
    OfflineError,
    OfflineInteraction,
    OfflineMessage,
    OfflineUser,
    embed_lines,
    stable_snowflake,
)
from discord_offline.server import MessageRejected, OfflineServer

HOST = "127.0.0.1"
API = "/api/v10"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Gateway opcodes.
DISPATCH, HEARTBEAT, IDENTIFY, RESUME, RECONNECT, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 0, 1, 2, 6, 7, 9, 10, 11
OP_NAMES = {0: "DISPATCH", 1: "HEARTBEAT", 2: "IDENTIFY", 3: "PRESENCE_UPDATE", 4: "VOICE_STATE_UPDATE",
            6: "RESUME", 7: "RECONNECT", 8: "REQUEST_GUILD_MEMBERS", 9: "INVALID_SESSION", 10: "HELLO",
            11: "HEARTBEAT_ACK"}
# Callback types that complete the answer at once; 5 and 6 (deferred) wait for a follow-up or an edit.
FINAL_CALLBACKS = {1, 4, 7, 8, 9, 12}
LAUNCH_ACTIVITY = 12
REFUSAL_MARK = "⛔"
FAILURE_TEXT = "something went wrong"

T = TypeVar("T")


# ---------------------------------------------------------------------------------------------- records

@dataclass(frozen=True)
class Upload:
    """A file the bot uploaded: its name, size and first bytes (the whole file when the fake keeps files)."""

    filename: str
    size: int
    head: bytes = field(repr=False)
    data: bytes | None = field(default=None, repr=False)

    @property
    def is_png(self) -> bool:
        return self.head.startswith(PNG_SIGNATURE)


@dataclass
class Call:
    """One REST request the bot made, and the status the fake answered."""

    method: str
    path: str
    template: str | None
    params: dict[str, str]
    json: Any
    uploads: list[Upload]
    at: float
    status: int = 0

    @property
    def route(self) -> str:
        return f"{self.method} {self.template or self.path}"


@dataclass(frozen=True)
class GatewayFrame:
    """A frame the bot sent on the gateway (tokens removed)."""

    at: float
    op: int
    data: Any
    path: str
    session_id: str | None
    query: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return OP_NAMES.get(self.op, str(self.op))


@dataclass(frozen=True)
class Answer:
    """One message of the bot's answer to an interaction (initial response, follow-up or edit)."""

    via: str
    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    ephemeral: bool
    uploads: list[Upload]

    @property
    def text(self) -> str:
        lines = [self.content] if self.content else []
        for embed in self.embeds:
            lines.extend(embed_lines(embed))
        return "\n".join(lines)


@dataclass(eq=False)
class Interaction:
    """An interaction a scripted person sent, and how the bot answered it.

    ``sent_at``, ``first_response_at`` and ``settled_at`` are ``time.monotonic()`` values. The answer is
    *settled* when it is complete: at once for a message, an update or autocomplete choices; after the
    follow-up or edit for a deferred answer ("thinking...").
    """

    id: int
    token: str
    kind: int
    name: str
    user: OfflineUser
    channel_id: int
    payload: dict[str, Any]
    tag: Any = None
    sent_at: float = 0.0
    delivered: bool = False
    first_response_at: float | None = None
    settled_at: float | None = None
    callback_type: int | None = None
    launched: ActivityInstance | None = None  # the Activity a launch callback opened
    answers: list[Answer] = field(default_factory=list)
    _answered: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _settled: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    @property
    def answered(self) -> bool:
        return self.first_response_at is not None

    @property
    def settled(self) -> bool:
        return self.settled_at is not None

    @property
    def latency(self) -> float | None:
        """Seconds from the dispatch to the bot's first response."""
        return None if self.first_response_at is None else self.first_response_at - self.sent_at

    @property
    def text(self) -> str:
        return "\n".join(a.text for a in self.answers)

    @property
    def refused(self) -> bool:
        """The bot explained privately why it would not do it (a rule, a wrong turn...)."""
        return any(a.text.startswith(REFUSAL_MARK) for a in self.answers)

    @property
    def failed(self) -> bool:
        """The bot apologised for an error on its side."""
        return FAILURE_TEXT in self.text

    @property
    def uploads(self) -> list[Upload]:
        return [u for a in self.answers for u in a.uploads]

    async def wait_answered(self, timeout: float) -> Interaction:
        await _wait_event(self._answered, timeout, f"the first response to {self.name} ({self.id})")
        return self

    async def wait_settled(self, timeout: float) -> Interaction:
        await _wait_event(self._settled, timeout, f"the complete answer to {self.name} ({self.id})")
        return self

    def _respond(self, at: float, callback_type: int | None) -> None:
        if self.first_response_at is None:
            self.first_response_at = at
            self.callback_type = callback_type
            self._answered.set()

    def _settle(self, at: float) -> None:
        if self.settled_at is None:
            self.settled_at = at
            self._settled.set()


@dataclass
class ActivityInstance:
    """An open Activity: where it runs and who is connected to it."""

    id: str
    channel_id: int
    guild_id: int | None
    users: list[int]
    launch_id: str = ""


@dataclass
class RateLimit:
    """Answer 429 to the next ``times`` requests of a route (``method`` and template, e.g.
    ``POST /channels/{channel_id}/messages``), asking the bot to retry after ``retry_after`` seconds."""

    method: str
    template: str
    times: int
    retry_after: float
    is_global: bool = False
    served: int = 0

    @property
    def left(self) -> int:
        return self.times - self.served


@dataclass
class LostAnswer:
    """Carry out the next ``times`` requests of a route, then hold their answers for ``hold`` seconds (the bot waits,
    and a test kills it meanwhile): Discord did it, the bot never heard so."""

    method: str
    template: str
    times: int
    hold: float
    served: int = 0

    @property
    def left(self) -> int:
        return self.times - self.served


@dataclass(eq=False)
class Session:
    """A gateway session: its sequence number and the dispatches sent in it (replayed on RESUME)."""

    id: str
    seq: int = 0
    ws: web.WebSocketResponse | None = None
    buffer: collections.deque[dict[str, Any]] = field(default_factory=lambda: collections.deque(maxlen=2000))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    resumes: int = 0
    shard: int = 0


async def _wait_event(event: asyncio.Event, timeout: float, what: str) -> None:
    try:
        await asyncio.wait_for(event.wait(), timeout)
    except TimeoutError:
        raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}") from None


# ---------------------------------------------------------------------------------------------- the server


@dataclass(frozen=True)
class _SizedAttachment(OfflineAttachment):
    """An attachment whose bytes were not kept (long runs): only its real size."""

    real_size: int = 0

    @property
    def size(self) -> int:
        return self.real_size


class _Server(OfflineServer):
    """The offline Discord's server, tuned for a long-lived fake: no per-step bookkeeping, optional bytes."""

    def __init__(self, fake: FakeDiscord, *, keep_files: bool, **options: Any) -> None:
        self._fake = fake
        self.keep_files = keep_files
        self._last_ids: dict[int, int] = {}
        super().__init__(**options)
        if not keep_files:
            self.requests = collections.deque(maxlen=100)  # type: ignore[assignment]
            self.log = collections.deque(maxlen=100)  # type: ignore[assignment]

    def touch(self, message: OfflineMessage) -> None:  # steps are not used here
        return

    def problem(self, text: str) -> None:
        self._fake.problems.append(text)

    def last_message_id(self, channel: OfflineChannel) -> int | None:
        return self._last_ids.get(channel.id)

    def create_message(self, channel: OfflineChannel, body: dict[str, Any], files: list[tuple[str, bytes]],
                       **options: Any) -> OfflineMessage:
        message = super().create_message(channel, body, files, **options)
        if not message.ephemeral:
            self._last_ids[channel.id] = message.id
        return message

    def _store_file(self, channel_id: int, filename: str, data: bytes, *,
                    description: str | None = None) -> OfflineAttachment:
        if self.keep_files:
            return super()._store_file(channel_id, filename, data, description=description)
        if len(data) > self.filesize_limit:
            raise MessageRejected(413, 40005, "Request entity too large")
        attachment_id = self.next_id()
        url = f"https://cdn.e2e.invalid/attachments/{channel_id}/{attachment_id}/{filename}"
        kind = "image/png" if filename.endswith(".png") else "application/octet-stream"
        return _SizedAttachment(attachment_id, filename, data[:16], kind, url, description, real_size=len(data))


# ---------------------------------------------------------------------------------------------- commands


class CommandCatalog:
    """The bot's application commands as Discord knows them (the sync payload), to build slash interactions."""

    def __init__(self, specs: Iterable[Mapping[str, Any]]) -> None:
        self.specs = {str(c["name"]): dict(c) for c in specs}

    def data(self, path: str, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The ``data`` of an INTERACTION_CREATE for ``/path`` with ``options``, typed as Discord sends them."""
        names = path.strip().lstrip("/").split()
        if not names or names[0] not in self.specs:
            raise KeyError(f"unknown command /{path}; known: {', '.join(sorted(self.specs))}")
        node: Mapping[str, Any] = self.specs[names[0]]
        chain: list[tuple[str, int]] = []
        for name in names[1:]:
            node = next((o for o in node.get("options", []) if o["name"] == name and o["type"] in (1, 2)), {})
            if not node:
                raise KeyError(f"/{path}: no subcommand {name!r}")
            chain.append((name, int(node["type"])))
        specs = {o["name"]: o for o in node.get("options", []) if o["type"] not in (1, 2)}
        given = dict(options or {})
        unknown = set(given) - set(specs)
        if unknown:
            raise KeyError(f"/{path} has no option {sorted(unknown)}; options: {sorted(specs)}")
        built: list[dict[str, Any]] = []
        for name, spec in specs.items():
            if name not in given:
                if spec.get("required"):
                    raise KeyError(f"/{path} needs option {name!r}")
                continue
            built.append({"name": name, "type": spec["type"], "value": self._value(spec, given[name])})
        for name, kind in reversed(chain):
            built = [{"name": name, "type": kind, "options": built}]
        return {"id": str(stable_snowflake("command", f"None:1:{names[0]}")), "name": names[0], "type": 1,
                "options": built}

    @staticmethod
    def _value(spec: Mapping[str, Any], raw: Any) -> Any:
        for choice in spec.get("choices") or []:
            if str(raw) in (str(choice["value"]), str(choice["name"])):
                return choice["value"]
        kind = spec["type"]
        if kind == 4:
            return int(raw)
        if kind == 10:
            return float(raw)
        if kind == 5:
            return bool(raw)
        return str(raw)


# ---------------------------------------------------------------------------------------------- the fake


class FakeDiscord:
    """One guild on a fake Discord at ``http://127.0.0.1:<port>``; see the module docstring."""

    def __init__(self, *, token: str = "e2e-token", guild_name: str = "E2E", bot_name: str = "bot",
                 keep_files: bool = True, commands: CommandCatalog | None = None,
                 heartbeat_interval_ms: int = 41_250, history: int | None = None,
                 shard_count: int = 1, extra_guilds: Sequence[int] = (), client_secret: str = "e2e-client-secret",
                 ) -> None:
        self.token = token
        self.client_secret = client_secret
        self.activity_instances: dict[str, ActivityInstance] = {}
        self._codes: dict[str, int] = {}           # OAuth2 code -> user id (each used once)
        self.access_tokens: dict[str, int] = {}    # access token -> user id
        self.keep_files = keep_files
        self.commands = commands
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.problems: list[str] = []
        self.server = _Server(self, keep_files=keep_files, guild_name=guild_name, bot_name=bot_name,
                              response_deadline=None)
        # A sharded gateway: IDENTIFY names a shard; each guild is dispatched on shard (id >> 22) % count, direct
        # messages on shard 0. More guilds than the first share its users, application and id sequence; give
        # their channels names of their own (a channel's id comes from its name).
        self.shard_count = shard_count
        self.servers: list[_Server] = [self.server]
        for number, guild_id in enumerate(extra_guilds, 2):
            extra = _Server(self, keep_files=keep_files, guild_id=guild_id, guild_name=f"{guild_name} {number}",
                            bot_name=bot_name, response_deadline=None)
            extra.next_id = self.server.next_id  # type: ignore[method-assign]
            extra.channels.clear()  # no #general of its own: that name is the first guild's
            self.servers.append(extra)
        self.shard_sessions: dict[int, Session] = {}
        # Every REST call (bounded when ``history`` is given, for long runs).
        self.calls: collections.deque[Call] = collections.deque(maxlen=history)
        self.status_counts: collections.Counter[tuple[str, int]] = collections.Counter()
        self.gateway_log: list[GatewayFrame] = []
        self.interactions: dict[int, Interaction] = {}
        self.sessions: dict[str, Session] = {}
        self.session: Session | None = None
        self.identifies = 0
        self.resumes = 0
        self.rate_limits: list[RateLimit] = []
        self.lost_answers: list[LostAnswer] = []
        self.port = 0
        self._by_token: dict[str, Interaction] = {}
        self._routes: dict[str, list[tuple[str, Any]]] = {}
        for (method, template), (pattern, _handler) in self.server._routes.items():
            self._routes.setdefault(method, []).append((template, pattern))
        for entries in self._routes.values():
            entries.sort(key=lambda e: e[0].count("{"))
        self._tick = asyncio.Event()
        self._activity: dict[int, int] = {}
        self._activity_events: dict[int, asyncio.Event] = {}
        self._sockets: set[web.WebSocketResponse] = set()
        self._send_locks: dict[web.WebSocketResponse, asyncio.Lock] = {}
        self._runner: web.AppRunner | None = None
        self._accepting = asyncio.Event()
        self._accepting.set()

    # ------------------------------------------------------------------ life cycle

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def api_url(self) -> str:
        return f"{self.url}{API}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{HOST}:{self.port}/"

    async def start(self) -> FakeDiscord:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/", self._gateway)
        app.router.add_get("/resume", self._gateway)
        app.router.add_route("*", API + "/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, HOST, 0)
        await site.start()
        self.port = int(self._runner.addresses[0][1])
        return self

    async def close(self) -> None:
        self._accepting.set()
        for ws in list(self._sockets):
            await ws.close(code=1001, message=b"the fake Discord is shutting down")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *_exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ guild

    def user(self, name: str) -> OfflineUser:
        """A member of the guild, created on first use."""
        return self.server.user(name)

    def channel(self, name: str | int) -> OfflineChannel:
        """A text channel of the guild, created on first use (create channels before the bot connects, or use
        :meth:`add_channel` so the bot hears of it); by id, a channel of any guild."""
        if isinstance(name, int):
            return self.server_of(name).channel(name)
        return self.server.channel(name)

    def channel_in(self, guild: int, name: str) -> OfflineChannel:
        """A text channel of the guild numbered ``guild`` (0: the first), created on first use."""
        server = self.servers[guild]
        channel = server.channel(name)
        if any(other is not server and channel.id in other.channels for other in self.servers):
            raise ValueError(f"a channel named {name!r} is in another guild already")
        return channel

    def server_of(self, channel_id: int | None) -> _Server:
        """The guild a channel belongs to (the first guild for direct messages and unknown channels)."""
        return next((s for s in self.servers if channel_id in s.channels), self.server)

    def shard_of(self, guild_id: int | None) -> int:
        return 0 if guild_id is None else (guild_id >> 22) % self.shard_count

    async def add_channel(self, name: str) -> OfflineChannel:
        """A new text channel, announced with CHANNEL_CREATE when the bot is connected."""
        existing = {c.id for c in self.server.text_channels()}
        channel = self.server.channel(name)
        if channel.id not in existing and self.session is not None:
            await self.dispatch("CHANNEL_CREATE", self.server.channel_payload(channel))
        return channel

    @property
    def guild_id(self) -> int:
        return self.server.guild_id

    @property
    def application_id(self) -> int:
        return self.server.application_id

    # ------------------------------------------------------------------ the Activity

    def enable_activities(self) -> dict[str, Any]:
        """Activities on in the Developer Portal: the default Entry Point command exists from now on."""
        return self.server.enable_activities()

    def launch_activity(self, user: OfflineUser | str, channel: OfflineChannel | str | int) -> ActivityInstance:
        """The Activity opened by ``user`` in ``channel`` (as a launch callback or the Entry Point command does)."""
        who = self.user(user) if isinstance(user, str) else user
        where = self.channel(channel) if not isinstance(channel, OfflineChannel) else channel
        instance = next((i for i in self.activity_instances.values() if i.channel_id == where.id), None)
        if instance is None:
            instance = ActivityInstance(f"i-{secrets.token_hex(8)}", where.id, self.server_of(where.id).guild_id,
                                        [], launch_id=str(self.server.next_id()))
            self.activity_instances[instance.id] = instance
        if who.id not in instance.users:
            instance.users.append(who.id)
        return instance

    def authorize(self, user: OfflineUser | str) -> str:
        """The OAuth2 code Discord's client hands the Activity after ``authorize`` (scope identify) for ``user``."""
        who = self.user(user) if isinstance(user, str) else user
        code = secrets.token_urlsafe(12)
        self._codes[code] = who.id
        return code

    def _oauth_token(self, call: Call, body: Any) -> web.Response:
        form = body if isinstance(body, dict) else {}
        if form.get("client_id") != str(self.application_id) or form.get("client_secret") != self.client_secret:
            call.status = 401
            return _json_response(401, {"error": "invalid_client"})
        user_id = self._codes.pop(str(form.get("code")), None)
        if form.get("grant_type") != "authorization_code" or user_id is None:
            call.status = 400
            return _json_response(400, {"error": "invalid_grant", "error_description": "Invalid \"code\" in request."})
        token = secrets.token_urlsafe(18)
        self.access_tokens[token] = user_id
        call.status = 200
        return _json_response(200, {"access_token": token, "token_type": "Bearer", "expires_in": 604800,
                                    "refresh_token": secrets.token_urlsafe(18), "scope": "identify"})

    def _as_user(self, call: Call, bearer: str) -> web.Response:
        user_id = self.access_tokens.get(bearer)
        user = self.server.user_by_id(user_id) if user_id is not None else None
        if user is None:
            call.status = 401
            return _json_response(401, {"message": "401: Unauthorized", "code": 0})
        me = {**user.payload(), "locale": self.server.locales.get(user.id, "en-US"), "mfa_enabled": False}
        if call.method == "GET" and call.path == "/users/@me":
            call.status = 200
            return _json_response(200, me)
        if call.method == "GET" and call.path == "/oauth2/@me":
            call.status = 200
            return _json_response(200, {"application": {"id": str(self.application_id), "name": "bot",
                                                        "description": "", "icon": None},
                                        "scopes": ["identify"], "expires": "2100-01-01T00:00:00+00:00", "user": me})
        call.status = 403
        return _json_response(403, {"message": "Missing Access", "code": 50001})

    def _activity_instance(self, call: Call) -> web.Response | None:
        parts = call.path.strip("/").split("/")
        if call.method != "GET" or len(parts) != 4 or parts[0] != "applications" or parts[2] != "activity-instances":
            return None
        instance = self.activity_instances.get(parts[3])
        if parts[1] != str(self.application_id) or instance is None:
            call.status = 404
            return _json_response(404, {"message": "Unknown Activity Instance", "code": 10043})
        call.status = 200
        return _json_response(200, {
            "application_id": str(self.application_id), "instance_id": instance.id, "launch_id": instance.launch_id,
            "location": {"id": f"gc-{instance.guild_id}-{instance.channel_id}", "kind": "gc",
                         "channel_id": str(instance.channel_id),
                         "guild_id": str(instance.guild_id) if instance.guild_id else None},
            "users": [str(u) for u in instance.users]})

    # ------------------------------------------------------------------ waiting

    def _changed(self, channel_id: int | None = None) -> None:
        tick, self._tick = self._tick, asyncio.Event()
        tick.set()
        if channel_id is not None:
            self._activity[channel_id] = self._activity.get(channel_id, 0) + 1
            event = self._activity_events.pop(channel_id, None)
            if event is not None:
                event.set()

    async def wait_for(self, predicate: Callable[[], T | None], timeout: float, what: str = "a condition") -> T:
        """Wait until ``predicate()`` is truthy (checked after every request and gateway frame); return it."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"timed out after {timeout:g} s waiting for {what}")
            tick = self._tick
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(tick.wait(), remaining)

    def activity(self, channel_id: int) -> int:
        """A counter that grows with every request the bot makes about a channel (messages, answers)."""
        return self._activity.get(channel_id, 0)

    async def wait_activity(self, channel_id: int, since: int, timeout: float) -> bool:
        """Wait until :meth:`activity` of the channel exceeds ``since``; False on timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._activity.get(channel_id, 0) <= since:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            event = self._activity_events.setdefault(channel_id, asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), remaining)
            except TimeoutError:
                return False
        return True

    def messages(self, channel: OfflineChannel | int | None = None, *, public: bool = False) -> list[OfflineMessage]:
        """Messages the bot made (oldest first), optionally in one channel and without ephemeral ones."""
        channel_id = channel.id if isinstance(channel, OfflineChannel) else channel
        return [m for server in self.servers for m in server.messages.values()
                if not m.deleted and (channel_id is None or m.channel_id == channel_id)
                and not (public and m.ephemeral)]

    async def wait_message(self, predicate: Callable[[OfflineMessage], bool], timeout: float, *,
                           channel: OfflineChannel | int | None = None, after: int = 0,
                           what: str = "a message") -> OfflineMessage:
        """Wait for a message of the bot (newer than message id ``after``) that matches ``predicate``."""
        def found() -> OfflineMessage | None:
            return next((m for m in self.messages(channel) if m.id > after and not m.loading and predicate(m)), None)
        return await self.wait_for(found, timeout, what)

    def calls_to(self, method: str, template: str) -> list[Call]:
        return [c for c in self.calls if c.method == method and c.template == template]

    def frames(self, op: int) -> list[GatewayFrame]:
        return [f for f in self.gateway_log if f.op == op]

    # ------------------------------------------------------------------ rate limits

    def rate_limit(self, method: str, template: str, *, times: int = 1, retry_after: float = 0.5,
                   is_global: bool = False) -> RateLimit:
        """Answer 429 to the next ``times`` requests of the route ``method template``."""
        known = {t for t, _ in self._routes.get(method, [])}
        if template not in known:
            raise KeyError(f"no route {method} {template}; routes: {sorted(known)}")
        rule = RateLimit(method, template, times, retry_after, is_global)
        self.rate_limits.append(rule)
        return rule

    def lose_answers(self, method: str, template: str, *, times: int = 1, hold: float = 20.0) -> LostAnswer:
        """Carry out the next ``times`` requests of the route ``method template`` and hold each answer ``hold``
        seconds: a test kills the bot between Discord doing something and the bot hearing of it."""
        known = {t for t, _ in self._routes.get(method, [])}
        if template not in known:
            raise KeyError(f"no route {method} {template}; routes: {sorted(known)}")
        rule = LostAnswer(method, template, times, hold)
        self.lost_answers.append(rule)
        return rule

    def _limit(self, method: str, template: str | None) -> RateLimit | None:
        for rule in self.rate_limits:
            if rule.method == method and rule.template == template and rule.left > 0:
                rule.served += 1
                return rule
        return None

    @staticmethod
    def _too_many(rule: RateLimit) -> web.Response:
        headers = {
            "Retry-After": str(max(1, math.ceil(rule.retry_after))),
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": f"{time.time() + rule.retry_after:.3f}",
            "X-RateLimit-Reset-After": f"{rule.retry_after:.3f}",
            "X-RateLimit-Bucket": secrets.token_hex(8),
            "X-RateLimit-Scope": "global" if rule.is_global else "user",
            "Via": "1.1 google",
        }
        if rule.is_global:
            headers["X-RateLimit-Global"] = "true"
        body = {"message": "You are being rate limited.", "retry_after": rule.retry_after, "global": rule.is_global}
        return _json_response(429, body, headers)

    # ------------------------------------------------------------------ REST

    def _template(self, method: str, path: str) -> tuple[str | None, dict[str, str]]:
        for template, pattern in self._routes.get(method, []):
            match = pattern.fullmatch(path)
            if match:
                return template, match.groupdict()
        return None, {}

    async def _read_body(self, request: web.Request) -> tuple[Any, list[tuple[str, bytes]]]:
        kind = request.content_type
        if kind.startswith("multipart/"):
            body: Any = None
            files: list[tuple[str, bytes]] = []
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):  # pragma: no cover - nested multipart
                    continue
                data = bytes(await part.read())
                if part.name == "payload_json":
                    body = json.loads(data)
                else:
                    files.append((part.filename or part.name or "file", data))
            return body, files
        if kind == "application/x-www-form-urlencoded":
            return dict(await request.post()), []
        raw = await request.read()
        if not raw:
            return None, []
        return json.loads(raw), []

    def _upload(self, name: str, data: bytes) -> Upload:
        return Upload(name, len(data), data[:16], data if self.keep_files else None)

    async def _rest(self, request: web.Request) -> web.Response:
        now = time.monotonic()
        path = "/" + request.match_info["tail"]
        method = request.method
        params = dict(request.query)
        try:
            body, files = await self._read_body(request)
        except ConnectionResetError:  # the bot went away mid-request (killed or stopped): nothing arrived
            return web.Response(status=400)
        except (ValueError, UnicodeDecodeError) as exc:
            self.problems.append(f"{method} {path}: unreadable body: {exc}")
            return _json_response(400, {"code": 50109, "message": "The request body contains invalid JSON."})
        template, args = self._template(method, path)
        call = Call(method, path, template, params, body, [self._upload(n, d) for n, d in files], now)
        self.calls.append(call)
        try:
            response = self._answer(request, call, args, body, files)
        except Exception as exc:  # a bug of the fake: make it loud in the test, not a silent retry loop
            call.status = 500
            self.problems.append(f"the fake Discord failed on {method} {path}: {type(exc).__name__}: {exc}")
            response = _json_response(500, {"code": 0, "message": "500: Internal Server Error"})
        self.status_counts[(call.route, call.status)] += 1
        self._changed(self._channel_of(template, args))
        lost = next((r for r in self.lost_answers if r.method == method and r.template == template and r.left > 0
                     and call.status == 200), None)
        if lost is not None:   # done; the answer waits (the bot is killed meanwhile)
            lost.served += 1
            await asyncio.sleep(lost.hold)
        return response

    def _answer(self, request: web.Request, call: Call, args: dict[str, str], body: Any,
                files: list[tuple[str, bytes]]) -> web.Response:
        method, path, template = call.method, call.path, call.template
        webhook = path.startswith(("/interactions/", "/webhooks/"))
        authorization = request.headers.get("Authorization", "")
        if method == "POST" and path == "/oauth2/token":
            return self._oauth_token(call, body)
        if authorization.startswith("Bearer "):
            return self._as_user(call, authorization[len("Bearer "):])
        if not webhook and authorization != f"Bot {self.token}":
            call.status = 401
            return _json_response(401, {"message": "401: Unauthorized", "code": 0})
        if method == "GET" and path in ("/gateway", "/gateway/bot"):
            call.status = 200
            answer: dict[str, Any] = {"url": self.gateway_url}
            if path == "/gateway/bot":
                answer.update(shards=self.shard_count, session_start_limit={
                    "total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1})
            return _json_response(200, answer)
        instance = self._activity_instance(call)
        if instance is not None:
            return instance
        rule = self._limit(method, template)
        if rule is not None:
            call.status = 429
            return self._too_many(rule)
        if template is None:
            call.status = 404
            self.problems.append(f"the fake Discord does not implement {method} {path}")
            return _json_response(404, {"message": "404: Not Found", "code": 0})
        try:
            result = self._server_for(args).handle("http", method, template, path, body, files, call.params)
        except discord.HTTPException as exc:
            call.status = exc.status
            return _json_response(exc.status, {"code": exc.code, "message": exc.text})
        except OfflineError as exc:
            call.status = 404
            return _json_response(404, {"code": 0, "message": str(exc)})
        self._track(call, args, body)
        if result is None:
            call.status = 204
            return web.Response(status=204)
        call.status = 200
        return _json_response(200, result)

    def _server_for(self, args: dict[str, str]) -> _Server:
        """The guild a request is about: by its interaction, its channel or its guild (else the first)."""
        if len(self.servers) == 1:
            return self.server
        if "webhook_token" in args:
            tracked = self._by_token.get(args["webhook_token"])
            return self.server_of(tracked.channel_id if tracked is not None else None)
        if args.get("channel_id", "").isdigit():
            return self.server_of(int(args["channel_id"]))
        if args.get("guild_id", "").isdigit():
            return next((s for s in self.servers if s.guild_id == int(args["guild_id"])), self.server)
        return self.server

    def _channel_of(self, template: str | None, args: dict[str, str]) -> int | None:
        if "webhook_token" in args:
            tracked = self._by_token.get(args["webhook_token"])
            return tracked.channel_id if tracked is not None else None
        if "channel_id" in args and args["channel_id"].isdigit():
            return int(args["channel_id"])
        return None

    def _track(self, call: Call, args: dict[str, str], body: Any) -> None:
        """Note an interaction's answer: the callback, a follow-up, an edit of the original response."""
        token = args.get("webhook_token")
        tracked = self._by_token.get(token or "")
        if tracked is None:
            return
        body = body if isinstance(body, dict) else {}
        if call.template == "/interactions/{webhook_id}/{webhook_token}/callback":
            kind = int(body.get("type", 0))
            tracked._respond(call.at, kind)
            if kind in (4, 7):
                tracked.answers.append(self._answer_of("callback", body.get("data") or {}, call.uploads))
            if kind == LAUNCH_ACTIVITY:
                tracked.launched = self.launch_activity(tracked.user, tracked.channel_id)
            if kind in FINAL_CALLBACKS:
                tracked._settle(call.at)
        elif call.method == "POST" and call.template == "/webhooks/{webhook_id}/{webhook_token}":
            tracked._respond(call.at, None)
            tracked.answers.append(self._answer_of("followup", body, call.uploads))
            tracked._settle(call.at)
        elif call.method == "PATCH" and call.template == "/webhooks/{webhook_id}/{webhook_token}/messages/@original":
            tracked.answers.append(self._answer_of("edit", body, call.uploads))
            tracked._settle(call.at)

    @staticmethod
    def _answer_of(via: str, body: Mapping[str, Any], uploads: list[Upload]) -> Answer:
        return Answer(via, str(body.get("content") or ""), list(body.get("embeds") or []),
                      list(body.get("components") or []), bool(int(body.get("flags") or 0) & EPHEMERAL), uploads)

    # ------------------------------------------------------------------ gateway

    async def _send(self, ws: web.WebSocketResponse, frame: Mapping[str, Any]) -> None:
        lock = self._send_locks.setdefault(ws, asyncio.Lock())
        async with lock:
            await ws.send_str(json.dumps(frame, separators=(",", ":")))

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        self._sockets.add(ws)
        current: Session | None = None
        try:
            await self._accepting.wait()
            await self._send(ws, {"op": HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(message.data)
                op, data = frame.get("op"), frame.get("d")
                shown = {k: v for k, v in data.items() if k != "token"} if isinstance(data, dict) else data
                self.gateway_log.append(GatewayFrame(time.monotonic(), op, shown, request.path,
                                                     current.id if current else None, dict(request.query)))
                if op == HEARTBEAT:
                    await self._send(ws, {"op": HEARTBEAT_ACK})
                elif op == IDENTIFY:
                    if (data or {}).get("token") != self.token:
                        await ws.close(code=4004, message=b"Authentication failed.")
                        break
                    current = await self._identify(ws, data or {})
                elif op == RESUME:
                    current = await self._resume(ws, data or {})
                self._changed()
        except ConnectionResetError:  # the bot vanished (killed): its session waits for a RESUME
            pass
        finally:
            self._sockets.discard(ws)
            self._send_locks.pop(ws, None)
            for session in self.sessions.values():
                if session.ws is ws:
                    session.ws = None
            self._changed()
        return ws

    async def _identify(self, ws: web.WebSocketResponse, data: Mapping[str, Any]) -> Session:
        self.identifies += 1
        shard, count = data.get("shard") or (0, 1)
        if count != self.shard_count or not 0 <= shard < count:
            self.problems.append(f"IDENTIFY with shard {[shard, count]}; the gateway has {self.shard_count} shards")
        session = Session(secrets.token_hex(16), ws=ws, shard=int(shard))
        self.sessions[session.id] = session
        self.session = session
        self.shard_sessions[session.shard] = session
        guilds = [s for s in self.servers if self.shard_of(s.guild_id) == session.shard]
        bot = self.server.bot_user
        ready = {
            "v": 10, "user": {**bot.payload(), "verified": True, "mfa_enabled": False, "flags": 0},
            "guilds": [{"id": str(s.guild_id), "unavailable": True} for s in guilds], "session_id": session.id,
            "session_type": "normal", "resume_gateway_url": f"ws://{HOST}:{self.port}/resume",
            "shard": [session.shard, self.shard_count], "application": {"id": str(self.application_id), "flags": 0},
            "private_channels": [], "relationships": [], "presences": [], "guild_join_requests": [],
            "geo_ordered_rtc_regions": [], "user_settings": {}, "auth": {},
        }
        await self._dispatch_on(session, "READY", ready)
        for server in guilds:
            await self._dispatch_on(session, "GUILD_CREATE", server.guild_payload(members=server.members))
        return session

    async def _resume(self, ws: web.WebSocketResponse, data: Mapping[str, Any]) -> Session | None:
        session = self.sessions.get(str(data.get("session_id")))
        if session is None or data.get("token") != self.token:
            await self._send(ws, {"op": INVALID_SESSION, "d": False})
            return None
        self.resumes += 1
        session.resumes += 1
        async with session.lock:
            old, session.ws = session.ws, ws
            if old is not None and old is not ws and not old.closed:
                await old.close(code=4000, message=b"resumed elsewhere")
            seq = int(data.get("seq") or 0)
            for frame in list(session.buffer):
                if frame["s"] > seq:
                    await self._send(ws, frame)
            session.seq += 1
            frame = {"op": DISPATCH, "t": "RESUMED", "s": session.seq, "d": {}}
            session.buffer.append(frame)
            await self._send(ws, frame)
        self.session = session
        self.shard_sessions[session.shard] = session
        return session

    async def _dispatch_on(self, session: Session, event: str, data: Any) -> bool:
        async with session.lock:
            session.seq += 1
            frame = {"op": DISPATCH, "t": event, "s": session.seq, "d": data}
            session.buffer.append(frame)
            ws = session.ws
            if ws is None or ws.closed:
                return False
            try:
                await self._send(ws, frame)
            except (ConnectionResetError, RuntimeError):
                return False
            return True

    async def dispatch(self, event: str, data: Any, *, guild_id: int | None = None) -> bool:
        """Send a dispatch in the current session (sharded: the session of the guild's shard, shard 0 for
        direct messages); False if the bot is not connected right now (the event is kept for a RESUME, as
        Discord does)."""
        session = self.shard_sessions.get(self.shard_of(guild_id)) if self.shard_count > 1 else self.session
        if session is None:
            if self.session is None:
                raise RuntimeError("the bot has never connected to the gateway")
            return False  # no process runs that shard now: nobody hears it, as on Discord
        return await self._dispatch_on(session, event, data)

    @property
    def connected(self) -> bool:
        return self.session is not None and self.session.ws is not None and not self.session.ws.closed

    async def drop_gateway(self, code: int = 4000, message: str = "dropped by the fake Discord") -> None:
        """Close the bot's gateway connection from Discord's side (it should resume or reconnect)."""
        session = self.session
        if session is None or session.ws is None:
            raise RuntimeError("the bot is not connected")
        ws = session.ws
        await ws.close(code=code, message=message.encode())
        if session.ws is ws:
            session.ws = None  # from now on dispatches wait in the session for a RESUME

    def hold_connections(self) -> None:
        """New gateway connections wait before HELLO until :meth:`release_connections` (to act while the bot
        is away)."""
        self._accepting.clear()

    def release_connections(self) -> None:
        self._accepting.set()

    def forget_sessions(self) -> None:
        """Make every session unknown: a RESUME gets INVALID_SESSION and the bot must IDENTIFY again."""
        self.sessions.clear()

    # ------------------------------------------------------------------ scripted people

    def _interaction(self, kind: int, user: OfflineUser, channel: OfflineChannel, data: dict[str, Any], *,
                     name: str, message: OfflineMessage | None, locale: str | None) -> Interaction:
        """A new interaction with its INTERACTION_CREATE payload, shaped as Discord sends it."""
        server = self.server_of(channel.id)
        interaction_id = server.next_id()
        token = f"e2e-{interaction_id}-{secrets.token_hex(12)}"
        server.add_interaction(OfflineInteraction(interaction_id, token, kind, user, channel.id, name,
                                                  time.monotonic(),
                                                  message_id=message.id if message is not None else None))
        channel_data = server.channel_payload(channel)
        channel_data["permissions"] = str(server.permissions_of(user).value)
        payload: dict[str, Any] = {
            "id": str(interaction_id), "application_id": str(self.application_id), "type": kind, "token": token,
            "version": 1, "data": data, "channel_id": str(channel.id), "channel": channel_data,
            "guild_id": str(server.guild_id), "guild_locale": server.guild_locale,
            "guild": {"id": str(server.guild_id), "locale": server.guild_locale, "features": []},
            "member": server.member_payload(user, with_permissions=True),
            "locale": locale or server.locales.get(user.id, "en-US"),
            "app_permissions": str(server.bot_permissions.value), "entitlements": [], "entitlement_sku_ids": [],
            "authorizing_integration_owners": {"0": str(server.guild_id)}, "context": 0,
            "attachment_size_limit": server.filesize_limit,
        }
        if message is not None:
            payload["message"] = server.message_payload(message)
        return Interaction(interaction_id, token, kind, name, user, channel.id, payload)

    async def _send_interaction(self, tracked: Interaction) -> Interaction:
        self.interactions[tracked.id] = tracked
        self._by_token[tracked.token] = tracked
        tracked.sent_at = time.monotonic()
        guild = tracked.payload.get("guild_id")
        tracked.delivered = await self.dispatch("INTERACTION_CREATE", tracked.payload,
                                                guild_id=int(guild) if guild else None)
        return tracked

    async def command(self, user: OfflineUser | str, channel: OfflineChannel | str | int, path: str,
                      options: Mapping[str, Any] | None = None, *, locale: str | None = None,
                      tag: Any = None) -> Interaction:
        """A slash command typed by ``user`` in ``channel``: ``await fake.command("alice", "general",
        "game start", {"players": 3})``."""
        if self.commands is None:
            raise RuntimeError("FakeDiscord.commands is not set (the bot's command payload)")
        who = self.user(user) if isinstance(user, str) else user
        where = self.channel(channel) if not isinstance(channel, OfflineChannel) else channel
        data = self.commands.data(path, options)
        tracked = self._interaction(2, who, where, data, name="/" + path.strip().lstrip("/"), message=None,
                                         locale=locale)
        tracked.tag = tag
        return await self._send_interaction(tracked)

    def _message(self, message: OfflineMessage | int) -> OfflineMessage:
        if isinstance(message, OfflineMessage):
            return self.server_of(message.channel_id).message_or_404(message.id)
        server = next((s for s in self.servers if message in s.messages), self.server)
        return server.message_or_404(message)

    async def press(self, user: OfflineUser | str, message: OfflineMessage | int, *, label: str | None = None,
                    custom_id: str | None = None, locale: str | None = None, tag: Any = None) -> Interaction:
        """A button press on a message the bot posted (by label or custom id)."""
        who = self.user(user) if isinstance(user, str) else user
        shown = self._message(message)
        button = next((b for b in shown.buttons if (custom_id is not None and b["custom_id"] == custom_id)
                       or (label is not None and b["label"] == label)), None)
        if button is None:
            raise KeyError(f"message {shown.id} has no button {label or custom_id}; it has {shown.button_labels}")
        data = {"custom_id": button["custom_id"], "component_type": 2}
        tracked = self._interaction(3, who, self.channel(shown.channel_id), data, name=str(button["custom_id"]),
                                         message=shown, locale=locale)
        tracked.tag = tag
        return await self._send_interaction(tracked)

    async def choose(self, user: OfflineUser | str, message: OfflineMessage | int, values: list[str], *,
                     custom_id: str | None = None, locale: str | None = None, tag: Any = None) -> Interaction:
        """A choice in a select menu of a message the bot posted."""
        who = self.user(user) if isinstance(user, str) else user
        shown = self._message(message)
        menu = next((s for s in shown.selects if custom_id is None or s["custom_id"] == custom_id), None)
        if menu is None:
            raise KeyError(f"message {shown.id} has no select menu {custom_id or ''}")
        offered = {o["value"] for o in menu["options"]}
        if not set(values) <= offered:
            raise KeyError(f"{values} not among the options {sorted(offered)}")
        data = {"custom_id": menu["custom_id"], "component_type": menu["component_type"], "values": list(values)}
        tracked = self._interaction(3, who, self.channel(shown.channel_id), data, name=str(menu["custom_id"]),
                                         message=shown, locale=locale)
        tracked.tag = tag
        return await self._send_interaction(tracked)

    async def redeliver(self, interaction: Interaction) -> Interaction:
        """Send the very same interaction again (same id and token), as a retrying client would."""
        tracked = Interaction(interaction.id, interaction.token, interaction.kind, interaction.name,
                              interaction.user, interaction.channel_id, interaction.payload, tag=interaction.tag)
        return await self._send_interaction(tracked)

    # ------------------------------------------------------------------ summaries

    def rejected(self) -> list[Call]:
        """Requests the fake refused (4xx/5xx) other than the 429s asked for with :meth:`rate_limit`."""
        return [c for c in self.calls if c.status >= 400 and c.status != 429]


def _json_response(status: int, payload: Any, headers: Mapping[str, str] | None = None) -> web.Response:
    """A JSON answer with ``Content-Type: application/json`` exactly (no charset), as Discord sends."""
    all_headers = {"Content-Type": "application/json", **(headers or {})}
    return web.Response(status=status, body=json.dumps(payload).encode(), headers=all_headers)


__all__ = ["API", "HOST", "ActivityInstance", "Answer", "Call", "CommandCatalog", "FakeDiscord", "GatewayFrame",
           "Interaction", "LostAnswer", "RateLimit", "Upload"]
