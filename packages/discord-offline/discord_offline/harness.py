"""Drive a bot's real command tree and views with no connection to Discord.

:class:`OfflineDiscord` binds a ``discord.Client`` or ``commands.Bot`` (with a ``tree``) to an
:class:`~offline.server.OfflineServer`: it runs the bot's setup without logging in, then sends the bot the same
INTERACTION_CREATE payloads Discord sends (slash commands, autocomplete, button presses, select menus) and waits
until everything the bot started has finished. Every answer goes through discord.py's own code down to the HTTP
layer, where the offline server records it and answers with Discord's JSON.

Example::

    async with OfflineDiscord(bot) as discord_:
        step = await discord_.send_command("alice", "general", "game start", {"players": 3})
        assert "started" in step[0].content
        await discord_.click("bob", "Join")
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import discord
import discord.client
from discord import app_commands
from discord.http import Route
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from discord_offline.records import (
    OfflineAttachment,
    OfflineChannel,
    OfflineError,
    OfflineInteraction,
    OfflineMessage,
    OfflineUser,
    Step,
    modal_fields,
    stable_snowflake,
)
from discord_offline.server import MEMBER_PERMISSIONS, OfflineServer, ProblemLogHandler, read_multipart

# Coroutines that live for minutes by design (view timeouts, task loops, delayed deletes): never waited for.
LONG_LIVED_TASKS = (
    "BaseView.__timeout_task_impl",
    "Loop._loop",
    ".<locals>.inner_call",
    ".delete.<locals>.delete",
)
# Tasks named with this prefix are the bot's own long-lived loops (a scheduler, a checkpointer): never waited for.
BACKGROUND_PREFIX = "background:"

UserLike = str | OfflineUser | int
ChannelLike = str | OfflineChannel | int
MessageLike = OfflineMessage | int


class RecordingWebhookAdapter(AsyncWebhookAdapter):
    """Sends interaction responses and webhook calls to the offline server instead of the network."""

    def __init__(self, server: OfflineServer) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.server = server

    async def request(
        self,
        route: Route,
        session: Any,
        *,
        payload: dict[str, Any] | None = None,
        multipart: list[dict[str, Any]] | None = None,
        proxy: str | None = None,
        proxy_auth: Any = None,
        files: Sequence[discord.File] | None = None,
        reason: str | None = None,
        auth_token: str | None = None,
        params: dict[str, Any] | None = None,
    ) -> Any:
        for file in files or []:
            file.reset(seek=True)
        body, uploaded = read_multipart(multipart) if multipart else (payload, [])
        await asyncio.sleep(0)  # a request is never instantaneous; let other tasks interleave as they would
        return self.server.handle("webhook", route.method, route.path, route.url, body, uploaded, params)


def _qualname(task: asyncio.Task[Any]) -> str:
    return str(getattr(task.get_coro(), "__qualname__", task.get_name()))


class OfflineDiscord:
    """A bot connected to an offline Discord; see the module docstring.

    ``server`` lets a new bot instance continue on the same guild and messages (a restart); other keyword
    arguments create the server (``guild_id``, ``guild_name``, ``bot_name``, ``owner_name``, ``guild_locale``,
    ``filesize_limit``, ``response_deadline``). ``idle_timeout`` bounds how long one step may keep the bot busy.
    With ``strict`` a step that has problems (unanswered interaction, rejected request, logged error) raises.
    ``ignore_task`` marks more background tasks as long-lived (never waited for). The server dates messages by
    ``clock`` (Unix seconds), by default the bot's own ``clock`` if it has a callable one (so a bot that moves
    its clock forward finds its messages an hour older, and their edits refused as Discord refuses them).
    """

    def __init__(self, bot: discord.Client, *, server: OfflineServer | None = None, idle_timeout: float = 10.0,
                 strict: bool = False, ready: bool = True,
                 ignore_task: Callable[[asyncio.Task[Any]], bool] | None = None,
                 clock: Callable[[], float] | None = None, **server_options: Any) -> None:
        if server is not None and server_options:
            raise TypeError("pass either an existing server or options for a new one, not both")
        tree = getattr(bot, "tree", None)
        if not isinstance(tree, app_commands.CommandTree):
            raise TypeError("the bot needs a `tree` attribute holding its app_commands.CommandTree")
        self.bot = bot
        self.tree: app_commands.CommandTree[Any] = tree
        self.server = server if server is not None else OfflineServer(**server_options)
        lent = clock if clock is not None else getattr(bot, "clock", None)
        if callable(lent):
            self.server.clock = lent
        self.idle_timeout = idle_timeout
        self.strict = strict
        self.ready = ready
        self.ignore_task = ignore_task
        self.guild: discord.Guild | None = None
        self.last_step: Step | None = None
        self.setup_step: Step | None = None
        self._adapter = RecordingWebhookAdapter(self.server)
        self._log_handler = ProblemLogHandler(self.server)
        self._spawned: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()
        self._closed = False

    # ------------------------------------------------------------------ life cycle

    async def setup(self) -> Step:
        """Run what ``login`` runs (without the network), register the guild, then ``setup_hook`` and READY."""
        if self.setup_step is not None or self._closed:
            raise OfflineError("setup() runs once per OfflineDiscord; use restart() for a new bot")
        bot, server = self.bot, self.server
        if bot.loop is discord.client._loop:
            await bot._async_setup_hook()
        self._install_rest()
        state = bot._connection
        state.user = discord.ClientUser(state=state, data=server.bot_user.payload())  # type: ignore[arg-type]
        if state.application_id is None:
            state.application_id = server.application_id
        else:
            server.application_id = state.application_id
        logging.getLogger("discord").addHandler(self._log_handler)
        async_context.set(self._adapter)
        bot._application = await bot.application_info()
        if not state.application_flags:
            state.application_flags = bot._application.flags
        members = server.members if state.member_cache_flags.joined else []
        self.guild = state._add_guild_from_data(server.guild_payload(members=members))  # type: ignore[arg-type]
        server.on_user_added(self._cache_member)
        server.on_channel_added(self._cache_channel)

        async def start() -> None:
            await bot.setup_hook()
            if self.ready:
                bot.dispatch("connect")
                bot.dispatch("guild_available", self.guild)
                bot._ready.set()
                bot.dispatch("ready")

        self.setup_step = await self._step(start)
        return self.setup_step

    async def close(self) -> None:
        """Close the bot (cogs unload) and cancel what it left running (view timeouts, loops)."""
        if self._closed:
            return
        self._closed = True
        try:
            await self.bot.close()
        finally:
            leftovers = [t for t in self._spawned if not t.done()]
            for task in leftovers:
                task.cancel()
            if leftovers:
                await asyncio.gather(*leftovers, return_exceptions=True)
            logging.getLogger("discord").removeHandler(self._log_handler)
            self.server.forget_listeners()

    async def restart(self, bot: discord.Client) -> OfflineDiscord:
        """Close this bot and start ``bot`` on the same server: messages, users and channels remain."""
        await self.close()
        fresh = OfflineDiscord(bot, server=self.server, idle_timeout=self.idle_timeout, strict=self.strict,
                               ready=self.ready, ignore_task=self.ignore_task)
        await fresh.setup()
        return fresh

    async def __aenter__(self) -> OfflineDiscord:
        await self.setup()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        await self.close()

    def _install_rest(self) -> None:
        server = self.server
        http = self.bot.http

        async def request(route: Route, *, files: Sequence[discord.File] | None = None,
                          form: Iterable[dict[str, Any]] | None = None, **kwargs: Any) -> Any:
            for file in files or []:
                file.reset(seek=True)
            body, uploaded = read_multipart(form) if form else (kwargs.get("json"), [])
            await asyncio.sleep(0)
            return server.handle("rest", route.method, route.path, route.url, body, uploaded, kwargs.get("params"))

        async def get_from_cdn(url: str) -> bytes:
            await asyncio.sleep(0)
            if url not in server.cdn:
                raise OfflineError(f"the offline CDN has no file at {url}")
            return server.cdn[url]

        http.request = request  # type: ignore[method-assign]
        http.get_from_cdn = get_from_cdn  # type: ignore[method-assign]

    def _cache_member(self, user: OfflineUser) -> None:
        state = self.bot._connection
        if self.guild is not None and state.member_cache_flags.joined:
            member = discord.Member(data=self.server.member_payload(user), guild=self.guild,  # type: ignore[arg-type]
                                    state=state)
            self.guild._add_member(member)

    def _cache_channel(self, channel: OfflineChannel) -> None:
        if self.guild is not None and channel.parent_id is not None:  # a thread, as the gateway's THREAD_CREATE
            self.guild._add_thread(discord.Thread(guild=self.guild, state=self.bot._connection,
                                                  data=self.server.channel_payload(channel)))  # type: ignore[arg-type]
        elif self.guild is not None and channel.recipient is None:
            data = self.server.channel_payload(channel)
            self.guild._add_channel(discord.TextChannel(state=self.bot._connection, guild=self.guild,
                                                        data=data))  # type: ignore[arg-type]

    # ------------------------------------------------------------------ users, channels, settings

    def user(self, name: UserLike) -> OfflineUser:
        """The guild member ``name`` (``"alice"`` or ``"@alice"``), created with a stable id on first use."""
        return self.server.user(name)

    def channel(self, name: ChannelLike) -> OfflineChannel:
        """The text channel ``name`` (``"general"`` or ``"#general"``), created on first use."""
        return self.server.channel(name)

    def dm_channel(self, user: UserLike) -> OfflineChannel:
        return self.server.dm_channel(self.user(user))

    def set_permissions(self, user: UserLike, permissions: discord.Permissions | None = None,
                        **flags: bool) -> discord.Permissions:
        """Give ``user`` these guild permissions (default: a plain member's), e.g. ``manage_guild=True``."""
        member = self.user(user)
        value = discord.Permissions((permissions or MEMBER_PERMISSIONS).value)
        value.update(**flags)
        self.server.permissions[member.id] = value
        if self.guild is not None:
            role_data = next(r for r in self.server.roles() if int(r["id"]) == self.server.user_role_id(member))
            self.guild._add_role(discord.Role(guild=self.guild, state=self.bot._connection,
                                              data=role_data))  # type: ignore[arg-type]
            cached = self.guild.get_member(member.id)
            if cached is not None:
                cached._roles = discord.utils.SnowflakeList([int(role_data["id"])])
        return value

    def set_locale(self, user: UserLike, locale: str) -> None:
        """The client language of ``user`` for the next interactions (``"no"``, ``"es-ES"``, ``"en-US"``...)."""
        self.server.locales[self.user(user).id] = locale

    # ------------------------------------------------------------------ queries

    @property
    def messages(self) -> list[OfflineMessage]:
        """Every message the bot produced, in order of creation (deleted ones included, marked ``deleted``)."""
        return list(self.server.messages.values())

    def visible_to(self, user: UserLike, channel: ChannelLike | None = None) -> list[OfflineMessage]:
        """Messages ``user`` can see: public ones, their ephemeral answers and their DMs (not deleted)."""
        who = self.user(user)
        where = None if channel is None else self._channel_arg(channel)
        return [
            m for m in self.server.messages.values()
            if not m.deleted
            and (m.visible_to == who.name or (m.visible_to is None and not m.is_dm))
            and (where is None or m.channel_id == where.id)
        ]

    def message(self, message_id: int) -> OfflineMessage:
        if message_id not in self.server.messages:
            raise OfflineError(f"no message with id {message_id}")
        return self.server.messages[message_id]

    def dms(self, user: UserLike) -> list[OfflineMessage]:
        who = self.user(user)
        return [m for m in self.server.messages.values() if m.is_dm and m.visible_to == who.name and not m.deleted]

    def command_paths(self) -> list[tuple[str, app_commands.Command[Any, ..., Any]]]:
        """Every slash command as (``"group sub"``, command), guild commands first."""
        roots: dict[str, app_commands.Command[Any, ..., Any] | app_commands.Group] = {}
        for found in self.tree.get_commands(guild=discord.Object(self.server.guild_id),
                                            type=discord.AppCommandType.chat_input):
            roots[found.name] = found
        for found in self.tree.get_commands(type=discord.AppCommandType.chat_input):
            roots.setdefault(found.name, found)
        paths: list[tuple[str, app_commands.Command[Any, ..., Any]]] = []
        for root in roots.values():
            if isinstance(root, app_commands.Group):
                paths.extend((command.qualified_name, command) for command in root.walk_commands()
                             if isinstance(command, app_commands.Command))
            else:
                paths.append((root.name, root))
        return paths

    def command_node(self, path: str) -> app_commands.Command[Any, ..., Any] | app_commands.Group | None:
        """The command or group at ``path`` (``"game"``, ``"game start"``), or None."""
        names = self._clean(path).split()
        if not names:
            return None
        node: Any = (self.tree.get_command(names[0], guild=discord.Object(self.server.guild_id))
                     or self.tree.get_command(names[0]))
        for name in names[1:]:
            if not isinstance(node, app_commands.Group):
                return None
            node = node.get_command(name)
        return node if isinstance(node, app_commands.Command | app_commands.Group) else None

    def find_command(self, path: str) -> tuple[app_commands.Command[Any, ..., Any], list[dict[str, Any]]]:
        """The command at ``path`` (``"game start"``) and its options as Discord registers them."""
        command, _, specs, _ = self._resolve(path)
        return command, specs

    # ------------------------------------------------------------------ actions

    async def send_command(self, user: UserLike, channel: ChannelLike, command: str,
                           options: Mapping[str, Any] | None = None, *, locale: str | None = None,
                           client_checks: bool = True) -> Step:
        """Run ``/command`` as ``user`` in ``channel`` and wait until the bot is idle.

        ``command`` is the full path (``"game start"``); options are keyed by their Discord (or Python) names.
        Values: ``str``, ``int``, ``float``, ``bool``; a user name / :class:`OfflineUser` for user options; a
        channel name for channel options; ``(filename, bytes)`` or a ``Path`` for attachments. With
        ``client_checks`` the checks Discord's client makes are applied first (required options, choices, ranges,
        lengths, default member permissions), so an impossible invocation raises :class:`OfflineError`.
        """
        who, where = self.user(user), self._channel_arg(channel)
        data = self._command_data(who, where, command, dict(options or {}), focused=None, checks=client_checks)
        payload, interaction = self._interaction_payload(2, who, where, data, name=f"/{self._clean(command)}",
                                                         locale=locale)
        return await self._dispatch(payload, interaction)

    async def autocomplete(self, user: UserLike, channel: ChannelLike, command: str,
                           options: Mapping[str, Any] | None = None, *, focused: str,
                           locale: str | None = None) -> list[dict[str, Any]]:
        """The choices the bot offers while ``user`` types option ``focused`` (its text is ``options[focused]``)."""
        who, where = self.user(user), self._channel_arg(channel)
        data = self._command_data(who, where, command, dict(options or {}), focused=focused, checks=True)
        payload, interaction = self._interaction_payload(4, who, where, data, name=f"/{self._clean(command)}",
                                                         locale=locale)
        step = await self._dispatch(payload, interaction)
        return step.choices

    async def click(self, user: UserLike, label: str, message: MessageLike | None = None, *,
                    locale: str | None = None) -> Step:
        """Press the button labelled ``label`` (case-insensitive; else a custom_id) as ``user``.

        Without ``message``, the button is searched on the messages ``user`` sees, newest first.
        """
        who = self.user(user)
        target, button = self._find_button(who, label, message)
        if button["url"]:
            raise OfflineError(f"button {label!r} is a link to {button['url']}; it sends no interaction")
        if button["disabled"]:
            raise OfflineError(f"button {label!r} is disabled")
        data = {"custom_id": button["custom_id"], "component_type": 2}
        name = f"button {button['label'] or button['emoji'] or button['custom_id']}"
        payload, interaction = self._interaction_payload(3, who, self.server.channels[target.channel_id], data,
                                                         name=name, message=target, locale=locale)
        return await self._dispatch(payload, interaction)

    async def select(self, user: UserLike, values: str | Sequence[str], message: MessageLike | None = None, *,
                     custom_id: str | None = None, locale: str | None = None) -> Step:
        """Choose ``values`` in a select menu (by option value or label) as ``user``.

        Without ``message``/``custom_id``, the newest select menu ``user`` sees is used.
        """
        who = self.user(user)
        wanted = [values] if isinstance(values, str) else list(values)
        target, menu = self._find_select(who, custom_id, message)
        if menu["disabled"]:
            raise OfflineError(f"the select menu {menu['custom_id']!r} is disabled")
        chosen, resolved = self._select_values(menu, wanted)
        data: dict[str, Any] = {"custom_id": menu["custom_id"], "component_type": menu["component_type"],
                                "values": chosen}
        if resolved:
            data["resolved"] = resolved
        payload, interaction = self._interaction_payload(3, who, self.server.channels[target.channel_id], data,
                                                         name=f"select {', '.join(wanted)}", message=target,
                                                         locale=locale)
        return await self._dispatch(payload, interaction)

    def open_form(self, user: UserLike) -> tuple[OfflineInteraction, dict[str, Any]]:
        """The newest modal (form) the bot showed ``user`` that is not submitted yet, and its interaction."""
        who = self.user(user)
        for interaction in reversed(list(self.server.interactions.values())):
            if interaction.user.id == who.id and interaction.modal is not None and not interaction.modal_submitted:
                return interaction, interaction.modal
        raise OfflineError(f"no form is open for @{who.name}")

    async def submit_form(self, user: UserLike, values: Mapping[str, str | Sequence[str]], *,
                          locale: str | None = None, client_checks: bool = True) -> Step:
        """Fill and submit the open modal of ``user``; fields are named by label (case-insensitive) or custom_id."""
        who = self.user(user)
        opener, modal = self.open_form(who)
        fields = modal_fields(modal)

        def field_for(key: str) -> dict[str, Any]:
            for field in fields:
                if key.strip().casefold() == str(field["label"]).casefold() or key == field["custom_id"]:
                    return field
            labels = " | ".join(str(f["label"]) for f in fields)
            raise OfflineError(f"the form {modal.get('title')!r} has no field {key!r}; fields: {labels}")

        given = {field_for(key)["custom_id"]: value for key, value in values.items()}
        submitted: list[dict[str, Any]] = []
        for field in fields:
            value = given.get(field["custom_id"])
            if field["kind"] == "text":
                text = "" if value is None else value if isinstance(value, str) else " ".join(value)
                if client_checks:
                    self._check_text_field(field, text)
                inner: dict[str, Any] = {"type": 4, "custom_id": field["custom_id"], "value": text}
            else:
                chosen = [] if value is None else [value] if isinstance(value, str) else list(value)
                if client_checks and field["required"] and not chosen:
                    raise OfflineError(f"the form field {field['label']!r} is required")
                menu = {**field, "kind": "string", "disabled": False,
                        "min_values": 0 if not field["required"] else field["min_values"]}
                picked, _ = self._select_values(menu, chosen) if chosen else ([], {})
                inner = {"type": field["component_type"], "custom_id": field["custom_id"], "values": picked}
            submitted.append({"type": 1, "components": [inner]} if field["wrapper"] == 1
                             else {"type": 18, "component": inner})
        opener.modal_submitted = True
        origin = self.server.messages.get(opener.message_id) if opener.message_id is not None else None
        data = {"custom_id": modal.get("custom_id"), "components": submitted}
        payload, interaction = self._interaction_payload(5, who, self.server.channels[opener.channel_id], data,
                                                         name=f"form {modal.get('title')}", message=origin,
                                                         locale=locale)
        return await self._dispatch(payload, interaction)

    @staticmethod
    def _check_text_field(field: dict[str, Any], text: str) -> None:
        label = field["label"]
        if field["required"] and not text:
            raise OfflineError(f"the form field {label!r} is required")
        low, high = field["min_length"], field["max_length"]
        if text and low is not None and len(text) < low:
            raise OfflineError(f"the form field {label!r} needs at least {low} characters")
        if high is not None and len(text) > high:
            raise OfflineError(f"the form field {label!r} takes at most {high} characters")

    async def run(self, action: Awaitable[Any] | Callable[[], Any]) -> Step:
        """Run bot code that is not an interaction (a reminder, a scheduled job) and wait until idle."""
        return await self._step(action if callable(action) else (lambda: action))

    # ------------------------------------------------------------------ stepping and waiting

    async def _dispatch(self, payload: dict[str, Any], interaction: OfflineInteraction) -> Step:
        state = self.bot._connection
        return await self._step(lambda: state.parse_interaction_create(payload),  # type: ignore[arg-type]
                                interaction)

    async def _step(self, action: Callable[[], Any], interaction: OfflineInteraction | None = None) -> Step:
        if self._closed:
            raise OfflineError("this offline Discord is closed")
        before = set(asyncio.all_tasks())
        async_context.set(self._adapter)
        outcome = action()
        if inspect.isawaitable(outcome):
            await outcome
        await self.wait_until_idle(before)
        messages, problems = self.server.take_step()
        if interaction is not None and not interaction.answered:
            problems.insert(0, self._unanswered(interaction))
        step = Step([m for m in messages if not m.deleted], interaction, problems)
        self.last_step = step
        if self.strict and problems:
            raise OfflineError("; ".join(problems))
        return step

    @staticmethod
    def _unanswered(interaction: OfflineInteraction) -> str:
        if interaction.type == 4:
            return f"the bot did not answer the autocomplete of {interaction.name}"
        return (f"the bot did not answer {interaction.name} by @{interaction.user.name} "
                "(Discord shows 'This interaction failed')")

    def _long_lived(self, task: asyncio.Task[Any]) -> bool:
        if self.ignore_task is not None and self.ignore_task(task):
            return True
        if task.get_name().startswith(BACKGROUND_PREFIX):
            return True
        name = _qualname(task)
        return any(name == known or (known.startswith(".") and name.endswith(known)) for known in LONG_LIVED_TASKS)

    async def wait_until_idle(self, before: set[asyncio.Task[Any]] | None = None) -> None:
        """Wait until every task started since ``before`` (a snapshot of ``asyncio.all_tasks()``) has finished.

        Tasks that run for minutes by design (view timeouts, ``tasks.loop``, delayed deletes) are not waited for.
        Raises :class:`OfflineError` after ``idle_timeout`` seconds, naming what is still running.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.idle_timeout
        current = asyncio.current_task()
        known = before if before is not None else set()
        seen: set[asyncio.Task[Any]] = set()
        quiet = 0
        while True:
            running = [t for t in asyncio.all_tasks() if t not in known and t is not current and not t.done()]
            seen.update(running)
            for task in running:
                self._spawned.add(task)
            busy = [t for t in running if not self._long_lived(t)]
            if not busy:
                quiet += 1
                if quiet >= 3:
                    break
                await asyncio.sleep(0)
                continue
            quiet = 0
            remaining = deadline - loop.time()
            if remaining <= 0:
                names = ", ".join(f"{t.get_name()} ({_qualname(t)})" for t in busy)
                raise OfflineError(f"the bot is still busy after {self.idle_timeout:g} s: {names}. "
                                   "Is it waiting for something that never comes (wait_for, a long sleep)? "
                                   "Pass ignore_task= for background loops.")
            await asyncio.wait(busy, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
        for task in seen:
            if task.done() and not task.cancelled() and task.exception() is not None:
                error = task.exception()
                self.server.problem(f"background task {task.get_name()} ({_qualname(task)}) crashed: "
                                    f"{type(error).__name__}: {error}")

    # ------------------------------------------------------------------ payloads

    @staticmethod
    def _clean(command: str) -> str:
        return " ".join(command.strip().lstrip("/").split())

    def _channel_arg(self, channel: ChannelLike) -> OfflineChannel:
        if isinstance(channel, str) and channel.strip().lower().startswith("dm @"):
            return self.dm_channel(channel.strip()[4:])
        return self.server.channel(channel)

    def _interaction_payload(self, kind: int, user: OfflineUser, channel: OfflineChannel, data: dict[str, Any], *,
                             name: str, message: OfflineMessage | None = None,
                             locale: str | None = None) -> tuple[dict[str, Any], OfflineInteraction]:
        server = self.server
        interaction_id = server.next_id()
        token = f"offline-interaction-token-{interaction_id}"
        interaction = OfflineInteraction(interaction_id, token, kind, user, channel.id, name, time.monotonic(),
                                         message_id=message.id if message is not None else None)
        server.add_interaction(interaction)
        channel_data = server.channel_payload(channel)
        payload: dict[str, Any] = {
            "id": str(interaction_id), "application_id": str(server.application_id), "type": kind,
            "token": token, "version": 1, "data": data, "channel_id": str(channel.id), "channel": channel_data,
            "locale": locale or server.locales.get(user.id, "en-US"),
            "app_permissions": str(server.bot_permissions.value), "entitlements": [],
            "entitlement_sku_ids": [], "attachment_size_limit": server.filesize_limit,
        }
        if channel.is_dm:
            payload.update(user=user.payload(), context=1, authorizing_integration_owners={"0": "0"})
        else:
            channel_data["permissions"] = str(server.permissions_of(user).value)
            payload.update(
                guild_id=str(server.guild_id), guild_locale=server.guild_locale, context=0,
                guild={"id": str(server.guild_id), "locale": server.guild_locale, "features": []},
                member=server.member_payload(user, with_permissions=True),
                authorizing_integration_owners={"0": str(server.guild_id)},
            )
        if message is not None:
            payload["message"] = server.message_payload(message)
        return payload, interaction

    def _resolve(self, path: str) -> tuple[app_commands.Command[Any, ..., Any], list[tuple[str, int]],
                                           list[dict[str, Any]], bool]:
        names = self._clean(path).split()
        if not names:
            raise OfflineError("no command given")
        root: Any = self.tree.get_command(names[0], guild=discord.Object(self.server.guild_id))
        is_guild = root is not None
        if root is None:
            root = self.tree.get_command(names[0])
        if root is None:
            known = ", ".join(sorted(f"/{p}" for p, _ in self.command_paths())) or "none"
            raise OfflineError(f"unknown command /{names[0]}; commands: {known}")
        spec: dict[str, Any] = root.to_dict(self.tree)
        node = root
        chain: list[tuple[str, int]] = []
        for depth, name in enumerate(names[1:], start=1):
            here = "/" + " ".join(names[:depth])
            if not isinstance(node, app_commands.Group):
                raise OfflineError(f"{here} has no subcommands (got {name!r})")
            child = node.get_command(name)
            if child is None:
                subs = ", ".join(c.name for c in node.commands)
                raise OfflineError(f"unknown subcommand {name!r} of {here}; choose from: {subs}")
            kind = 2 if isinstance(child, app_commands.Group) else 1
            spec = next(o for o in spec.get("options", []) if o["name"] == child.name and o["type"] == kind)
            chain.append((child.name, kind))
            node = child
        if isinstance(node, app_commands.Group):
            subs = ", ".join(c.name for c in node.commands)
            raise OfflineError(f"/{' '.join(names)} needs a subcommand: {subs}")
        return node, chain, list(spec.get("options", [])), is_guild

    def _command_data(self, user: OfflineUser, channel: OfflineChannel, path: str, given: dict[str, Any], *,
                      focused: str | None, checks: bool) -> dict[str, Any]:
        command, chain, specs, is_guild = self._resolve(path)
        shown = "/" + self._clean(path)
        root = command.root_parent or command
        if checks:
            self._check_access(user, channel, root, shown)
        resolved: dict[str, dict[str, Any]] = {}
        params = getattr(command, "_params", {})
        by_name = {spec["name"]: spec for spec in specs}

        def canonical(key: str) -> str:
            if key in by_name:
                return key
            if key in params and params[key].display_name in by_name:
                return str(params[key].display_name)
            names = ", ".join(by_name) or "none"
            raise OfflineError(f"{shown} has no option {key!r}; options: {names}")

        values = {canonical(k): v for k, v in given.items()}
        if focused is not None:
            focused = canonical(focused)
            values.setdefault(focused, "")
        options: list[dict[str, Any]] = []
        for spec in specs:
            name = spec["name"]
            if name not in values:
                if spec.get("required") and checks and focused is None:
                    raise OfflineError(f"{shown} needs option {name!r} ({self.describe_option(spec)})")
                continue
            if name == focused:
                options.append({"name": name, "type": spec["type"], "value": str(values[name]), "focused": True})
                continue
            try:
                value = self._option_value(spec, values[name], resolved, channel, checks=checks)
            except OfflineError as error:
                raise OfflineError(f"{shown}: {error}") from None
            options.append({"name": name, "type": spec["type"], "value": value})
        for name, kind in reversed(chain):
            options = [{"name": name, "type": kind, "options": options}]
        names = self._clean(path).split()
        guild_key = self.server.guild_id if is_guild else None
        synced = {c["name"]: c for c in self.server.commands.get(guild_key, [])}
        command_id = synced[names[0]]["id"] if names[0] in synced else str(
            stable_snowflake("command", f"{guild_key}:1:{names[0]}"))
        data: dict[str, Any] = {"id": command_id, "name": names[0], "type": 1, "options": options}
        if resolved:
            data["resolved"] = resolved
        if is_guild:
            data["guild_id"] = str(self.server.guild_id)
        return data

    def _check_access(self, user: OfflineUser, channel: OfflineChannel,
                      root: app_commands.Command[Any, ..., Any] | app_commands.Group, shown: str) -> None:
        if channel.is_dm and (root.guild_only or (root.allowed_contexts is not None
                                                   and not root.allowed_contexts.dm_channel)):
            raise OfflineError(f"{shown} cannot be used in DMs")
        required = root.default_permissions
        if required is not None and not channel.is_dm:
            has = self.server.permissions_of(user)
            if not has.administrator and user.id != self.server.owner.id and not required <= has:
                missing = [name for name, wanted in required if wanted and not getattr(has, name)]
                raise OfflineError(f"@{user.name} cannot see {shown}: it needs {', '.join(missing)} "
                                   "(set_permissions gives them)")

    @staticmethod
    def describe_option(spec: dict[str, Any]) -> str:
        names = {3: "text", 4: "integer", 5: "true/false", 6: "user", 7: "channel", 8: "role", 9: "user or role",
                 10: "number", 11: "file"}
        text = names.get(spec["type"], "value")
        if spec.get("choices"):
            text += ": " + " | ".join(str(c["name"]) for c in spec["choices"])
        return text

    def _option_value(self, spec: dict[str, Any], raw: Any, resolved: dict[str, dict[str, Any]],
                      channel: OfflineChannel, *, checks: bool) -> Any:
        kind, name = spec["type"], spec["name"]
        choices = spec.get("choices") or []
        if choices:
            for choice in choices:
                if raw == choice["value"] or str(raw) == str(choice["value"]):
                    return choice["value"]
            for choice in choices:
                if str(raw).casefold() == str(choice["name"]).casefold():
                    return choice["value"]
            if checks:
                allowed = ", ".join(str(c["name"]) for c in choices)
                raise OfflineError(f"option {name!r} must be one of: {allowed} (got {raw!r})")
        if kind == 3:
            value: Any = str(raw)
            if checks:
                low, high = spec.get("min_length"), spec.get("max_length")
                if low is not None and len(value) < low:
                    raise OfflineError(f"option {name!r} needs at least {low} characters")
                if high is not None and len(value) > high:
                    raise OfflineError(f"option {name!r} takes at most {high} characters")
            return value
        if kind in (4, 10):
            value = self._number(raw, integer=kind == 4, name=name)
            if checks:
                low, high = spec.get("min_value"), spec.get("max_value")
                if (low is not None and value < low) or (high is not None and value > high):
                    raise OfflineError(f"option {name!r} must be between {low} and {high} (got {value})")
            return value
        if kind == 5:
            return self._boolean(raw, name)
        if kind in (6, 9):
            user = self._user_arg(raw)
            resolved.setdefault("users", {})[str(user.id)] = user.payload()
            if not channel.is_dm:
                member = self.server.member_payload(user, with_permissions=True)
                del member["user"]
                resolved.setdefault("members", {})[str(user.id)] = member
            return str(user.id)
        if kind == 7:
            target = self._channel_arg(raw.name if isinstance(raw, discord.abc.GuildChannel) else raw)
            types = spec.get("channel_types")
            if checks and types and 0 not in types:
                raise OfflineError(f"option {name!r} takes other kinds of channels than text channels")
            data = self.server.channel_payload(target)
            data["permissions"] = str(self.server.permissions_of(self.server.owner).value)
            resolved.setdefault("channels", {})[str(target.id)] = data
            return str(target.id)
        if kind == 11:
            attachment = self._upload(raw, channel)
            resolved.setdefault("attachments", {})[str(attachment.id)] = attachment.payload(ephemeral=True)
            return str(attachment.id)
        raise OfflineError(f"option {name!r} has a type the offline Discord does not support ({kind})")

    @staticmethod
    def _number(raw: Any, *, integer: bool, name: str) -> int | float:
        if isinstance(raw, bool):
            raise OfflineError(f"option {name!r} takes a number, not {raw!r}")
        try:
            if integer:
                if isinstance(raw, float) and not raw.is_integer():
                    raise ValueError
                return int(str(raw).strip()) if not isinstance(raw, int | float) else int(raw)
            return float(raw)
        except (TypeError, ValueError):
            kind = "a whole number" if integer else "a number"
            raise OfflineError(f"option {name!r} takes {kind}, not {raw!r}") from None

    @staticmethod
    def _boolean(raw: Any, name: str) -> bool:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("true", "yes", "y", "on", "1"):
            return True
        if text in ("false", "no", "n", "off", "0"):
            return False
        raise OfflineError(f"option {name!r} takes true or false, not {raw!r}")

    def _user_arg(self, raw: Any) -> OfflineUser:
        if isinstance(raw, discord.abc.User):
            found = self.server.user_by_id(raw.id)
            if found is None:
                raise OfflineError(f"{raw} is not a user of the offline guild")
            return found
        if isinstance(raw, str):
            text = raw.strip()
            if text.startswith("<@") and text.endswith(">"):
                return self.server.user(int(text.strip("<@!>")))
        return self.server.user(raw)

    def _upload(self, raw: Any, channel: OfflineChannel) -> OfflineAttachment:
        if isinstance(raw, OfflineAttachment):
            return raw
        if isinstance(raw, str | Path):
            path = Path(raw)
            if not path.is_file():
                raise OfflineError(f"no file at {path}")
            filename, data = path.name, path.read_bytes()
        elif isinstance(raw, tuple) and len(raw) == 2:
            filename, data = str(raw[0]), bytes(raw[1])
        else:
            raise OfflineError(f"an attachment is a path or (filename, bytes), not {type(raw).__name__}")
        return self.server._store_file(channel.id, filename, data)

    # ------------------------------------------------------------------ components

    def _message_arg(self, user: OfflineUser, message: MessageLike) -> OfflineMessage:
        found = self.message(message) if isinstance(message, int) else message
        if found.deleted:
            raise OfflineError(f"message {found.id} was deleted")
        if found.visible_to not in (None, user.name) or (found.visible_to is None and found.is_dm):
            raise OfflineError(f"@{user.name} cannot see message {found.id}")
        return found

    def _find_button(self, user: OfflineUser, label: str,
                     message: MessageLike | None) -> tuple[OfflineMessage, dict[str, Any]]:
        candidates = [self._message_arg(user, message)] if message is not None else self.visible_to(user)[::-1]
        wanted = label.strip().casefold()
        for candidate in candidates:
            for button in candidate.buttons:
                if wanted in ((button["label"] or "").strip().casefold(), (button["emoji"] or "").casefold()):
                    return candidate, button
        for candidate in candidates:
            for button in candidate.buttons:
                if button["custom_id"] == label.strip():
                    return candidate, button
        seen = next((m for m in candidates if m.buttons), None)
        hint = f"; the newest buttons are: {' | '.join(seen.button_labels)}" if seen else "; none has buttons"
        raise OfflineError(f"no button {label!r} on the messages @{user.name} can see{hint}")

    def _find_select(self, user: OfflineUser, custom_id: str | None,
                     message: MessageLike | None) -> tuple[OfflineMessage, dict[str, Any]]:
        candidates = [self._message_arg(user, message)] if message is not None else self.visible_to(user)[::-1]
        for candidate in candidates:
            for menu in candidate.selects:
                if custom_id is None or menu["custom_id"] == custom_id:
                    return candidate, menu
        which = f" {custom_id!r}" if custom_id else ""
        raise OfflineError(f"no select menu{which} on the messages @{user.name} can see")

    def _select_values(self, menu: dict[str, Any],
                       wanted: list[str]) -> tuple[list[str], dict[str, dict[str, Any]]]:
        if not menu["min_values"] <= len(wanted) <= menu["max_values"]:
            raise OfflineError(f"this select menu takes {menu['min_values']} to {menu['max_values']} values, "
                               f"not {len(wanted)}")
        resolved: dict[str, dict[str, Any]] = {}
        if menu["kind"] == "string":
            chosen = []
            for text in wanted:
                option = next((o for o in menu["options"] if o["value"] == text), None) or next(
                    (o for o in menu["options"]
                     if text.casefold() in (str(o["label"]).casefold(), str(o["value"]).casefold())), None)
                if option is None:
                    labels = " | ".join(str(o["label"]) for o in menu["options"])
                    raise OfflineError(f"no option {text!r} in the select menu; options: {labels}")
                chosen.append(str(option["value"]))
            return chosen, resolved
        if menu["kind"] in ("user", "mentionable"):
            users = [self._user_arg(text) for text in wanted]
            for user in users:
                resolved.setdefault("users", {})[str(user.id)] = user.payload()
                member = self.server.member_payload(user, with_permissions=True)
                del member["user"]
                resolved.setdefault("members", {})[str(user.id)] = member
            return [str(u.id) for u in users], resolved
        if menu["kind"] == "channel":
            channels = [self._channel_arg(text) for text in wanted]
            for channel in channels:
                data = self.server.channel_payload(channel)
                data["permissions"] = str(MEMBER_PERMISSIONS.value)
                resolved.setdefault("channels", {})[str(channel.id)] = data
            return [str(c.id) for c in channels], resolved
        raise OfflineError(f"{menu['kind']} select menus are not supported by the offline Discord")
