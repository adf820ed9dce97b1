"""The server side of the offline Discord: one guild, its users and channels, and every message the bot made.

It answers the bot's requests (interaction callbacks and webhooks, REST) with the JSON Discord would send, and
rejects what Discord would reject (empty or oversized messages, a second answer to one interaction, an answer
after three seconds...). It outlives any one bot instance, so a new bot can be started on the same server.
"""

from __future__ import annotations

import copy
import datetime
import json
import logging
import mimetypes
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import unquote

import discord

from discord_offline.payloads import (
    CREATE_FLAGS,
    EDIT_FLAGS,
    INTERACTION_FLAGS,
    Errors,
    choices_errors,
    flags_errors,
    message_errors,
    modal_errors,
    thread_errors,
)
from discord_offline.records import (
    COMPONENTS_V2,
    EPHEMERAL,
    LOADING,
    LogEntry,
    OfflineAttachment,
    OfflineChannel,
    OfflineError,
    OfflineInteraction,
    OfflineMessage,
    OfflineUser,
    RecordedRequest,
    iso,
    stable_snowflake,
)
from discord_offline.registration import MAX_COMMANDS, bulk_errors, command_errors

# What @everyone may do in a fresh server (roughly Discord's defaults).
MEMBER_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, send_messages_in_threads=True, create_public_threads=True,
    embed_links=True, attach_files=True, add_reactions=True, use_external_emojis=True, use_external_stickers=True,
    read_message_history=True, use_application_commands=True, create_instant_invite=True, change_nickname=True,
    connect=True, speak=True, send_polls=True,
)
# What the bot's role may do: what a bot's invite usually asks for (threads included).
BOT_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, send_messages_in_threads=True, create_public_threads=True,
    embed_links=True, attach_files=True,
    add_reactions=True, use_external_emojis=True, read_message_history=True, manage_messages=True,
    use_application_commands=True,
)
DEFAULT_FILESIZE_LIMIT = 10 * 1024 * 1024
# Discord refuses edits of a message older than an hour (a limit on their number, in fact; here: every edit).
EDIT_AGE_LIMIT = datetime.timedelta(hours=1)
OLD_MESSAGE_EDITS = 30046
CDN = "https://cdn.offline.invalid"

_REASONS = {400: "Bad Request", 403: "Forbidden", 404: "Not Found", 413: "Payload Too Large",
            500: "Internal Server Error", 501: "Not Implemented"}
_MENTION = re.compile(r"<@!?(\d+)>")
Handler = Callable[["RequestContext"], Any]


class _FakeResponse:
    """Just enough of ``aiohttp.ClientResponse`` for :class:`discord.HTTPException`."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.reason = _REASONS.get(status, "Error")
        self.headers: dict[str, str] = {}


class RequestContext:
    """One request: route parameters, JSON body, uploaded files and query parameters."""

    def __init__(self, via: str, method: str, path: str, url: str, args: dict[str, str], body: Any,
                 files: list[tuple[str, bytes]], params: dict[str, Any] | None) -> None:
        self.via = via
        self.method = method
        self.path = path
        self.url = url
        self.args = args
        self.body = body
        self.files = files
        self.params = params or {}

    def int_arg(self, name: str) -> int:
        return int(self.args[name])


class MessageRejected(Exception):
    """Internal: a message body Discord would refuse, with Discord's error code and form errors."""

    def __init__(self, status: int, code: int, message: str,
                 errors: Mapping[str, str | tuple[str, str]] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.errors = dict(errors or {})


def _nest_errors(errors: Mapping[str, str | tuple[str, str]]) -> dict[str, Any]:
    """``{"embeds.0.title": "Must be..."}`` (a message, or a ``(code, message)`` pair) in Discord's nested
    ``_errors`` format; the path ``""`` is the body itself."""
    nested: dict[str, Any] = {}
    for path, error in errors.items():
        code, text = error if isinstance(error, tuple) else ("INVALID", error)
        node = nested
        for part in path.split(".") if path else []:
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": code, "message": text})
    return nested


def read_multipart(parts: Iterable[dict[str, Any]] | None) -> tuple[Any, list[tuple[str, bytes]]]:
    """The ``payload_json`` part (decoded) and the file parts (filename, bytes) of a multipart body."""
    body: Any = None
    files: list[tuple[str, bytes]] = []
    for part in parts or []:
        value: Any = part.get("value")
        if part.get("name") == "payload_json":
            body = json.loads(value) if isinstance(value, str | bytes) else value
            continue
        if hasattr(value, "read"):
            data = value.read()
        elif isinstance(value, str):
            data = value.encode()
        else:
            data = bytes(value)
        files.append((str(part.get("filename") or part.get("name")), data))
    return body, files


def _template_regex(template: str) -> re.Pattern[str]:
    pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(template))
    return re.compile(pattern + r"$")


class OfflineServer:
    """One guild with its channels, users, messages and interactions, answering a bot's requests."""

    def __init__(self, *, guild_id: int | None = None, guild_name: str = "Offline", bot_name: str = "bot",
                 owner_name: str = "owner", guild_locale: str = "en-US",
                 filesize_limit: int = DEFAULT_FILESIZE_LIMIT, response_deadline: float | None = 3.0) -> None:
        self.guild_id = guild_id if guild_id is not None else stable_snowflake("guild", guild_name)
        self.guild_name = guild_name
        self.guild_locale = guild_locale
        self.filesize_limit = filesize_limit
        self.response_deadline = response_deadline
        self.bot_user = OfflineUser(stable_snowflake("user", bot_name), bot_name, bot=True)
        self.application_id = self.bot_user.id
        self.bot_permissions = BOT_PERMISSIONS
        self.created_at = discord.utils.utcnow()
        # The time messages are dated by, and edits judged by (a bot with a clock it moves lends it: see harness).
        self.clock: Callable[[], float] = time.time

        self.users: dict[str, OfflineUser] = {}
        self.channels: dict[int, OfflineChannel] = {}
        self.messages: dict[int, OfflineMessage] = {}
        self.interactions: dict[str, OfflineInteraction] = {}
        self._interactions_by_id: dict[int, OfflineInteraction] = {}
        self.permissions: dict[int, discord.Permissions] = {}
        self.locales: dict[int, str] = {}
        self.commands: dict[int | None, list[dict[str, Any]]] = {}
        self.activities = False  # the application has an Activity (see enable_activities)
        self.cdn: dict[str, bytes] = {}
        self.requests: list[RecordedRequest] = []
        self.log: list[LogEntry] = []
        self.owner = self.user(owner_name, member=False)
        self._last_id = 0
        self._touched: list[int] = []
        self._problems: list[str] = []
        self._user_added: list[Callable[[OfflineUser], None]] = []
        self._channel_added: list[Callable[[OfflineChannel], None]] = []
        self._members: set[int] = set()
        self.channel("general")
        self._routes: dict[tuple[str, str], tuple[re.Pattern[str], Handler]] = {}
        self._add_routes()

    # ------------------------------------------------------------------ ids, users, channels

    def now(self) -> datetime.datetime:
        """Now, by the server's clock."""
        return datetime.datetime.fromtimestamp(self.clock(), datetime.UTC)

    def next_id(self) -> int:
        """A fresh snowflake, increasing, dated now."""
        self._last_id = max(self._last_id + 1, discord.utils.time_snowflake(discord.utils.utcnow()))
        return self._last_id

    def user(self, name: str | OfflineUser | int, *, member: bool = True) -> OfflineUser:
        """The user named ``name`` (``@`` optional), created with a stable id on first use."""
        if isinstance(name, OfflineUser):
            return name
        if isinstance(name, int):
            found = self.user_by_id(name)
            if found is None:
                raise OfflineError(f"no user with id {name}")
            return found
        clean = name.strip().lstrip("@").strip()
        if not clean:
            raise OfflineError("a user needs a name")
        key = clean.lower()
        if key == self.bot_user.name.lower():
            return self.bot_user
        existing = self.users.get(key)
        if existing is None:
            existing = OfflineUser(stable_snowflake("user", key), clean)
            self.users[key] = existing
        if member and existing.id not in self._members:
            self._members.add(existing.id)
            for listener in self._user_added:
                listener(existing)
        return existing

    def user_by_id(self, user_id: int) -> OfflineUser | None:
        if user_id == self.bot_user.id:
            return self.bot_user
        return next((u for u in self.users.values() if u.id == user_id), None)

    @property
    def members(self) -> list[OfflineUser]:
        return [u for u in self.users.values() if u.id in self._members]

    def channel(self, name: str | OfflineChannel | int) -> OfflineChannel:
        """The text channel ``name`` (``#`` optional), created on first use."""
        if isinstance(name, OfflineChannel):
            return name
        if isinstance(name, int):
            if name not in self.channels:
                raise OfflineError(f"no channel with id {name}")
            return self.channels[name]
        clean = name.strip().lstrip("#").strip().lower()
        if not clean:
            raise OfflineError("a channel needs a name")
        for existing in self.channels.values():
            if existing.recipient is None and existing.name == clean:
                return existing
        created = OfflineChannel(stable_snowflake("channel", clean), clean)
        self.channels[created.id] = created
        for listener in self._channel_added:
            listener(created)
        return created

    def text_channels(self) -> list[OfflineChannel]:
        return [c for c in self.channels.values() if c.recipient is None and c.parent_id is None]

    def threads(self, parent: OfflineChannel | int | str) -> list[OfflineChannel]:
        """The threads created under a channel, oldest first."""
        parent_id = self.channel(parent).id
        return [c for c in self.channels.values() if c.parent_id == parent_id]

    def dm_channel(self, user: OfflineUser) -> OfflineChannel:
        channel_id = stable_snowflake("dm", user.name)
        if channel_id not in self.channels:
            self.channels[channel_id] = OfflineChannel(channel_id, f"DM @{user.name}", recipient=user)
        return self.channels[channel_id]

    def permissions_of(self, user: OfflineUser) -> discord.Permissions:
        return self.permissions.get(user.id, MEMBER_PERMISSIONS)

    def on_user_added(self, listener: Callable[[OfflineUser], None]) -> None:
        self._user_added.append(listener)

    def on_channel_added(self, listener: Callable[[OfflineChannel], None]) -> None:
        self._channel_added.append(listener)

    def forget_listeners(self) -> None:
        self._user_added.clear()
        self._channel_added.clear()

    # ------------------------------------------------------------------ payloads

    def role_payload(self, role_id: int, name: str, permissions: discord.Permissions, *, position: int = 0,
                     bot_id: int | None = None) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "id": str(role_id), "name": name, "permissions": str(permissions.value), "position": position,
            "color": 0, "hoist": False, "managed": bot_id is not None, "mentionable": False, "flags": 0,
        }
        if bot_id is not None:
            payload["tags"] = {"bot_id": str(bot_id)}
        return payload

    def user_role_id(self, user: OfflineUser) -> int:
        return stable_snowflake("role", f"permissions of {user.name}")

    def roles(self) -> list[dict[str, Any]]:
        roles = [
            self.role_payload(self.guild_id, "@everyone", MEMBER_PERMISSIONS),
            self.role_payload(stable_snowflake("role", "bot"), self.bot_user.name, self.bot_permissions,
                              position=1, bot_id=self.bot_user.id),
        ]
        for position, (user_id, permissions) in enumerate(sorted(self.permissions.items()), start=2):
            user = self.user_by_id(user_id)
            if user is not None:
                roles.append(self.role_payload(self.user_role_id(user), f"{user.name}'s role", permissions,
                                               position=position))
        return roles

    def member_roles(self, user: OfflineUser) -> list[str]:
        if user.bot:
            return [str(stable_snowflake("role", "bot"))]
        if user.id in self.permissions:
            return [str(self.user_role_id(user))]
        return []

    def member_payload(self, user: OfflineUser, *, with_permissions: bool = False) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "user": user.payload(), "nick": None, "avatar": None, "roles": self.member_roles(user),
            "joined_at": iso(self.created_at), "premium_since": None, "deaf": False, "mute": False, "flags": 0,
            "pending": False, "communication_disabled_until": None,
        }
        if with_permissions:
            payload["permissions"] = str(self.permissions_of(user).value)
        return payload

    def last_message_id(self, channel: OfflineChannel) -> int | None:
        ids = [m.id for m in self.messages.values() if m.channel_id == channel.id and not m.ephemeral]
        return max(ids) if ids else None

    def channel_payload(self, channel: OfflineChannel) -> dict[str, Any]:
        last = self.last_message_id(channel)
        if channel.recipient is not None:
            return {"id": str(channel.id), "type": 1, "recipients": [channel.recipient.payload()],
                    "last_message_id": None if last is None else str(last), "flags": 0}
        if channel.parent_id is not None:  # a public thread (type 11)
            return {
                "id": str(channel.id), "type": 11, "guild_id": str(self.guild_id), "name": channel.name,
                "parent_id": str(channel.parent_id), "owner_id": str(self.bot_user.id), "flags": 0,
                "rate_limit_per_user": 0, "message_count": 0, "member_count": 1,
                "last_message_id": None if last is None else str(last),
                "thread_metadata": {"archived": False, "auto_archive_duration": 10080,
                                    "archive_timestamp": "2026-01-01T00:00:00+00:00", "locked": False},
            }
        position = self.text_channels().index(channel)
        return {
            "id": str(channel.id), "type": 0, "guild_id": str(self.guild_id), "name": channel.name,
            "position": position, "permission_overwrites": [], "nsfw": False, "parent_id": None,
            "topic": channel.topic, "rate_limit_per_user": 0, "flags": 0,
            "last_message_id": None if last is None else str(last),
        }

    def guild_payload(self, *, members: Sequence[OfflineUser] = ()) -> dict[str, Any]:
        return {
            "id": str(self.guild_id), "name": self.guild_name, "owner_id": str(self.owner.id),
            "icon": None, "splash": None, "discovery_splash": None, "banner": None, "description": None,
            "features": [], "preferred_locale": self.guild_locale, "verification_level": 0,
            "default_message_notifications": 0, "explicit_content_filter": 0, "mfa_level": 0, "nsfw_level": 0,
            "premium_tier": 0, "system_channel_flags": 0, "afk_timeout": 300, "unavailable": False, "large": False,
            "member_count": len(self._members) + 1, "roles": self.roles(), "emojis": [], "stickers": [],
            "channels": [self.channel_payload(c) for c in self.text_channels()],
            "members": [self.member_payload(self.bot_user)] + [self.member_payload(u) for u in members],
            "threads": [self.channel_payload(c) for c in self.channels.values() if c.parent_id is not None],
            "voice_states": [], "presences": [], "stage_instances": [],
            "guild_scheduled_events": [],
        }

    def application_payload(self) -> dict[str, Any]:
        return {
            "id": str(self.application_id), "name": self.bot_user.name, "description": "", "icon": None,
            "rpc_origins": [], "bot_public": False, "bot_require_code_grant": False, "owner": self.owner.payload(),
            "summary": "", "verify_key": "0" * 64, "team": None, "flags": 0, "bot": self.bot_user.payload(),
            "interactions_endpoint_url": None, "tags": [], "install_params": None, "custom_install_url": None,
            "approximate_guild_count": 1,
        }

    def message_payload(self, message: OfflineMessage) -> dict[str, Any]:
        """The message as Discord's JSON (what REST and webhooks answer, what a click carries)."""
        mentions = []
        for match in _MENTION.finditer(message.content or ""):
            user = self.user_by_id(int(match.group(1)))
            if user is not None and user.payload() not in mentions:
                mentions.append(user.payload())
        embeds = []
        for embed in message.embeds:
            shown = copy.deepcopy(embed)
            shown.setdefault("type", "rich")
            embeds.append(shown)
        payload: dict[str, Any] = {
            "id": str(message.id), "channel_id": str(message.channel_id), "author": self.bot_user.payload(),
            "content": message.content, "timestamp": iso(message.created_at),
            "edited_timestamp": iso(message.edited_at) if message.edited_at else None, "tts": False,
            "mention_everyone": False, "mentions": mentions, "mention_roles": [],
            "attachments": [a.payload(ephemeral=message.ephemeral) for a in message.attachments],
            "embeds": embeds, "pinned": False, "type": message.message_type, "flags": message.flags,
            "components": copy.deepcopy(message.raw_components),
        }
        if message.reactions:
            counts: dict[str, int] = {}
            for emoji in message.reactions:
                counts[emoji] = counts.get(emoji, 0) + 1
            payload["reactions"] = [
                {"emoji": {"id": None, "name": emoji}, "count": count, "me": True,
                 "count_details": {"burst": 0, "normal": count}, "burst_colors": [], "me_burst": False,
                 "burst_me": False, "burst_count": 0}
                for emoji, count in counts.items()
            ]
        if not message.is_dm:
            payload["guild_id"] = str(self.guild_id)
        if message.reference_id is not None:
            payload["message_reference"] = {"message_id": str(message.reference_id),
                                            "channel_id": str(message.channel_id)}
        interaction = self.interaction_by_id(message.interaction_id)
        if interaction is not None:
            payload["application_id"] = str(self.application_id)
            payload["webhook_id"] = str(self.application_id)
            metadata: dict[str, Any] = {
                "id": str(interaction.id), "type": interaction.type, "user": interaction.user.payload(),
                "authorizing_integration_owners": {"0": "0" if message.is_dm else str(self.guild_id)},
            }
            if interaction.type == 2:
                metadata["name"] = interaction.name.lstrip("/")
                metadata["command_type"] = 1
            if interaction.message_id is not None:
                metadata["interacted_message_id"] = str(interaction.message_id)
            if interaction.original_message_id not in (None, message.id):
                metadata["original_response_message_id"] = str(interaction.original_message_id)
            payload["interaction_metadata"] = metadata
        return payload

    def add_interaction(self, interaction: OfflineInteraction) -> None:
        self.interactions[interaction.token] = interaction
        self._interactions_by_id[interaction.id] = interaction

    def interaction_by_id(self, interaction_id: int | None) -> OfflineInteraction | None:
        return None if interaction_id is None else self._interactions_by_id.get(interaction_id)

    # ------------------------------------------------------------------ steps

    def touch(self, message: OfflineMessage) -> None:
        if message.id not in self._touched:
            self._touched.append(message.id)

    def problem(self, text: str) -> None:
        self._problems.append(text)

    def take_step(self) -> tuple[list[OfflineMessage], list[str]]:
        """Messages touched and problems noted since the last call."""
        touched = [self.messages[i] for i in self._touched]
        problems = self._problems
        self._touched, self._problems = [], []
        return touched, problems

    # ------------------------------------------------------------------ messages

    def _attachments_for(self, channel_id: int, body: dict[str, Any], files: list[tuple[str, bytes]],
                         existing: list[OfflineAttachment]) -> list[OfflineAttachment]:
        """Attachments after a create or edit: the kept ones listed in ``attachments`` plus the uploads."""
        if "attachments" not in body:
            return existing + [self._store_file(channel_id, name, data) for name, data in files]
        kept = {str(a.id): a for a in existing}
        result: list[OfflineAttachment] = []
        for entry in body.get("attachments") or []:
            entry_id = str(entry.get("id"))
            if entry_id in kept:
                result.append(kept[entry_id])
                continue
            try:
                index = int(entry_id)
                name, data = files[index]
            except (ValueError, IndexError):
                raise MessageRejected(400, 50035, "Invalid Form Body",
                                      {"attachments": f"Unknown attachment {entry_id}"}) from None
            result.append(self._store_file(channel_id, entry.get("filename") or name, data,
                                           description=entry.get("description")))
        listed = {str(e.get("id")) for e in body.get("attachments") or []}
        for index, (name, data) in enumerate(files):
            if str(index) not in listed:
                result.append(self._store_file(channel_id, name, data))
        return result

    def _store_file(self, channel_id: int, filename: str, data: bytes, *,
                    description: str | None = None) -> OfflineAttachment:
        if len(data) > self.filesize_limit:
            raise MessageRejected(413, 40005, "Request entity too large")
        attachment_id = self.next_id()
        url = f"{CDN}/attachments/{channel_id}/{attachment_id}/{filename}"
        self.cdn[url] = data
        content_type = mimetypes.guess_type(filename)[0] or "application/octet-stream"
        return OfflineAttachment(attachment_id, filename, data, content_type, url, description)

    def create_message(self, channel: OfflineChannel, body: dict[str, Any], files: list[tuple[str, bytes]], *,
                       interaction: OfflineInteraction | None = None, ephemeral: bool = False,
                       loading: bool = False, message_type: int = 0,
                       allowed_flags: int = CREATE_FLAGS) -> OfflineMessage:
        """A new message; ``allowed_flags`` are the flags the request may set (an interaction's answers may set
        EPHEMERAL, a channel message may not)."""
        body = body or {}
        errors: Errors = {}
        flags_errors(int(body.get("flags") or 0), allowed_flags, errors)
        if errors:
            raise MessageRejected(400, 50035, "Invalid Form Body", errors)
        flags = int(body.get("flags") or 0) & ~(EPHEMERAL | LOADING)
        if ephemeral:
            flags |= EPHEMERAL
        if loading:
            flags |= LOADING
        content = body.get("content") or ""
        embeds = list(body.get("embeds") or [])
        components = list(body.get("components") or [])
        if not loading:
            self.validate(body, content, embeds, components,
                          files_count=len(files) + len(body.get("attachments") or []), flags=flags,
                          has_poll="poll" in body)
        attachments = self._attachments_for(channel.id, body, files, [])
        if channel.recipient is not None:
            visible_to: str | None = channel.recipient.name
        elif ephemeral and interaction is not None:
            visible_to = interaction.user.name
        else:
            visible_to = None
        reference = (body.get("message_reference") or {}).get("message_id")
        message = OfflineMessage(
            id=self.next_id(), channel_id=channel.id, channel_name=channel.label if channel.is_dm else channel.name,
            is_dm=channel.is_dm, author=self.bot_user.name, content=content, embeds=embeds,
            raw_components=components, attachments=attachments, flags=flags, visible_to=visible_to,
            created_at=self.now(), interaction_id=interaction.id if interaction else None,
            interaction_name=interaction.name if interaction else None,
            interaction_user=interaction.user.name if interaction else None, message_type=message_type,
            reference_id=int(reference) if reference else None, allowed_mentions=body.get("allowed_mentions"),
        )
        self.messages[message.id] = message
        self.log.append(LogEntry("create", message.id, message.snapshot()))
        self.touch(message)
        return message

    def edit_message(self, message: OfflineMessage, body: dict[str, Any], files: list[tuple[str, bytes]]) -> None:
        """Apply an edit; filling a deferred placeholder is not shown as an edit, as in Discord."""
        body = body or {}
        content = message.content
        if "content" in body:
            content = body["content"] or ""
        embeds = list(body["embeds"] or []) if "embeds" in body else message.embeds
        components = list(body["components"] or []) if "components" in body else message.raw_components
        if "allowed_mentions" in body:
            message.allowed_mentions = body["allowed_mentions"]
        flags = message.flags
        if "flags" in body and body["flags"] is not None:
            errors: Errors = {}
            # An edit sets SUPPRESS_EMBEDS or IS_COMPONENTS_V2 (repeating the flags the message has is harmless);
            # IS_COMPONENTS_V2 can be set, never removed.
            flags_errors(int(body["flags"]), EDIT_FLAGS | message.flags, errors)
            if message.flags & COMPONENTS_V2 and not int(body["flags"]) & COMPONENTS_V2:
                errors["flags"] = ("MESSAGE_FLAGS_INVALID", "The IS_COMPONENTS_V2 flag cannot be removed")
            if errors:
                raise MessageRejected(400, 50035, "Invalid Form Body", errors)
            keep = EPHEMERAL if message.ephemeral else 0
            flags = (int(body["flags"]) & ~(EPHEMERAL | LOADING)) | keep | (message.flags & LOADING)
        was_loading = message.loading
        if not was_loading and not message.ephemeral and self.now() - message.created_at > EDIT_AGE_LIMIT:
            raise MessageRejected(400, OLD_MESSAGE_EDITS, "Maximum number of edits to messages older than 1 hour "
                                  "reached. Try again later")
        attachments = self._attachments_for(message.channel_id, body, files, message.attachments)
        self.validate(body, content, embeds, components, files_count=len(attachments), flags=flags,
                      has_poll=False)
        if not was_loading:
            message.versions.append(message.snapshot())
        message.content, message.embeds, message.raw_components = content, embeds, components
        message.attachments = attachments
        message.flags = flags & ~LOADING
        if not was_loading:
            message.edited = True
            message.edited_at = self.now()
        self.log.append(LogEntry("fill" if was_loading else "edit", message.id, message.snapshot()))
        self.touch(message)

    def delete_message(self, message: OfflineMessage) -> None:
        message.deleted = True
        self.log.append(LogEntry("delete", message.id, message.snapshot()))
        self.touch(message)

    def validate(self, body: dict[str, Any], content: str, embeds: list[dict[str, Any]],
                 components: list[dict[str, Any]], *, files_count: int, flags: int, has_poll: bool) -> None:
        """Refuse what Discord refuses: empty messages and anything over its limits (``payloads``)."""
        errors = message_errors(body, content=content, embeds=embeds, components=components, flags=flags,
                                files_count=files_count)
        if errors:
            raise MessageRejected(400, 50035, "Invalid Form Body", errors)
        if not (content or embeds or files_count or has_poll or (components and flags & COMPONENTS_V2)):
            raise MessageRejected(400, 50006, "Cannot send an empty message")

    def message_or_404(self, message_id: int, channel_id: int | None = None) -> OfflineMessage:
        message = self.messages.get(message_id)
        if message is None or message.deleted or (channel_id is not None and message.channel_id != channel_id):
            raise MessageRejected(404, 10008, "Unknown Message")
        return message

    # ------------------------------------------------------------------ requests

    def handle(self, via: str, method: str, template: str, url: str, body: Any, files: list[tuple[str, bytes]],
               params: dict[str, Any] | None) -> Any:
        """Answer one request like Discord: JSON on success, :class:`discord.HTTPException` on refusal."""
        self.requests.append(RecordedRequest(via, method, template, url, copy.deepcopy(body), tuple(files),
                                             dict(params) if params else None))
        route = self._routes.get((method, template))
        if route is None:
            text = f"the offline Discord does not implement {method} {template}"
            self.problem(text)
            raise OfflineError(text)
        pattern, handler = route
        match = pattern.search(url.split("?", 1)[0])
        args = match.groupdict() if match else {}
        context = RequestContext(via, method, template, url, args, body, files, params)
        try:
            return copy.deepcopy(handler(context))
        except MessageRejected as refusal:
            payload: dict[str, Any] = {"code": refusal.code, "message": refusal.message}
            if refusal.errors:
                payload["errors"] = _nest_errors(refusal.errors)
            error_class: type[discord.HTTPException] = {
                403: discord.Forbidden, 404: discord.NotFound}.get(refusal.status, discord.HTTPException)
            error = error_class(_FakeResponse(refusal.status), payload)  # type: ignore[arg-type,unused-ignore]
            self.problem(f"Discord rejected {method} {template}: {error}")
            raise error from None

    def _add_routes(self) -> None:
        table: list[tuple[str, str, Handler]] = [
            ("POST", "/interactions/{webhook_id}/{webhook_token}/callback", self._callback),
            ("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/@original", self._get_original),
            ("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original", self._edit_original),
            ("DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/@original", self._delete_original),
            ("POST", "/webhooks/{webhook_id}/{webhook_token}", self._followup),
            ("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", self._get_webhook_message),
            ("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", self._edit_webhook_message),
            ("DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
             self._delete_webhook_message),
            ("GET", "/users/@me", lambda _: self.bot_user.payload()),
            ("GET", "/users/{user_id}", self._get_user),
            ("POST", "/users/@me/channels", self._open_dm),
            ("GET", "/oauth2/applications/@me", lambda _: self.application_payload()),
            ("GET", "/applications/@me", lambda _: self.application_payload()),
            ("POST", "/channels/{channel_id}/messages", self._send),
            ("GET", "/channels/{channel_id}/messages", self._history),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self._edit),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete),
            ("GET", "/channels/{channel_id}", lambda c: self.channel_payload(self._channel_or_404(c))),
            ("POST", "/channels/{channel_id}/typing", lambda _: None),
            ("POST", "/channels/{channel_id}/threads", self._create_thread),
            ("PUT", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", self._react),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me", self._unreact),
            ("PUT", "/applications/{application_id}/commands", self._sync),
            ("GET", "/applications/{application_id}/commands", lambda _: self.commands.get(None, [])),
            ("POST", "/applications/{application_id}/commands", self._create_command),
            ("GET", "/applications/{application_id}/commands/{command_id}", lambda c: self._command_or_404(c)[1]),
            ("PATCH", "/applications/{application_id}/commands/{command_id}", self._edit_command),
            ("DELETE", "/applications/{application_id}/commands/{command_id}", self._delete_command),
            ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", self._sync),
            ("GET", "/applications/{application_id}/guilds/{guild_id}/commands",
             lambda c: self.commands.get(c.int_arg("guild_id"), [])),
            ("POST", "/applications/{application_id}/guilds/{guild_id}/commands", self._create_command),
            ("GET", "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
             lambda c: self._command_or_404(c)[1]),
            ("PATCH", "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}", self._edit_command),
            ("DELETE", "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
             self._delete_command),
            ("GET", "/guilds/{guild_id}", self._get_guild),
            ("GET", "/guilds/{guild_id}/channels",
             lambda c: [self.channel_payload(ch) for ch in self.text_channels()]),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member),
            ("GET", "/guilds/{guild_id}/members", self._list_members),
        ]
        for method, template, handler in table:
            self._routes[(method, template)] = (_template_regex(template), handler)

    # interaction webhooks

    def _interaction(self, context: RequestContext) -> OfflineInteraction:
        interaction = self.interactions.get(context.args.get("webhook_token", ""))
        if interaction is None:
            raise MessageRejected(404, 10015, "Unknown Webhook")
        return interaction

    def _late(self, interaction: OfflineInteraction) -> bool:
        return (self.response_deadline is not None
                and time.monotonic() - interaction.created > self.response_deadline)

    def _callback(self, context: RequestContext) -> dict[str, Any]:
        interaction = self.interactions.get(context.args["webhook_token"])
        if interaction is None or self._late(interaction):
            raise MessageRejected(404, 10062, "Unknown interaction")
        if interaction.answered:
            raise MessageRejected(400, 40060, "Interaction has already been acknowledged.")
        body = context.body or {}
        kind = int(body.get("type", 0))
        data = body.get("data") or {}
        channel = self.channels[interaction.channel_id]
        ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
        result: dict[str, Any] = {"interaction": {
            "id": str(interaction.id), "type": interaction.type, "response_message_loading": False,
            "response_message_ephemeral": False,
        }}
        resource: dict[str, Any] = {"type": kind}
        try:
            self._respond(interaction, kind, data, context, channel, ephemeral, result, resource)
        except MessageRejected as refusal:  # a message's fields are the callback's data: Discord's paths say so
            refusal.errors = {(p if p.startswith(("data", "type")) else f"data.{p}".rstrip(".")): e
                              for p, e in refusal.errors.items()}
            raise
        interaction.response_type = kind
        result["resource"] = resource
        return result

    def _respond(self, interaction: OfflineInteraction, kind: int, data: dict[str, Any], context: RequestContext,
                 channel: OfflineChannel, ephemeral: bool, result: dict[str, Any], resource: dict[str, Any]) -> None:
        """One interaction callback of type ``kind`` with its ``data``, checked as Discord checks it."""
        if kind in (4, 5):
            if interaction.type == 4:
                raise MessageRejected(400, 50035, "Invalid Form Body", {"type": "Invalid interaction callback"})
            message = self.create_message(channel, data, context.files, interaction=interaction,
                                          ephemeral=ephemeral, loading=kind == 5,
                                          message_type=20 if interaction.type == 2 else 0,
                                          allowed_flags=INTERACTION_FLAGS)
            interaction.original_message_id = message.id
            result["interaction"].update(response_message_id=str(message.id),
                                         response_message_loading=kind == 5,
                                         response_message_ephemeral=ephemeral)
            resource["message"] = self.message_payload(message)
        elif kind in (6, 7):
            if interaction.type not in (3, 5) or interaction.message_id is None:
                raise MessageRejected(400, 50035, "Invalid Form Body", {"type": "Invalid interaction callback"})
            message = self.message_or_404(interaction.message_id)
            if kind == 7:
                self.edit_message(message, data, context.files)
                resource["message"] = self.message_payload(message)
            interaction.original_message_id = message.id
        elif kind == 8:
            choices = list(data.get("choices") or [])
            if interaction.type != 4:
                raise MessageRejected(400, 50035, "Invalid Form Body", {"type": "Invalid interaction callback"})
            errors = choices_errors(choices)
            if errors:
                raise MessageRejected(400, 50035, "Invalid Form Body", errors)
            interaction.choices = choices
        elif kind == 9:
            if interaction.type in (4, 5):
                raise MessageRejected(400, 50035, "Invalid Form Body", {"type": "Invalid interaction callback"})
            errors = modal_errors(data)
            if errors:
                raise MessageRejected(400, 50035, "Invalid Form Body", errors)
            interaction.modal = data
        elif kind == 12:  # LAUNCH_ACTIVITY: Discord opens the app's Activity for the user, no message
            if interaction.type not in (2, 3, 5):
                raise MessageRejected(400, 50035, "Invalid Form Body", {"type": "Invalid interaction callback"})
            if not self.activities:
                raise MessageRejected(400, 50035, "Invalid Form Body",
                                      {"type": "This application has no Activity (enable Activities first)"})
        elif kind != 1:
            raise MessageRejected(400, 50035, "Invalid Form Body", {"type": f"Unknown callback type {kind}"})

    def _original(self, context: RequestContext) -> tuple[OfflineInteraction, OfflineMessage]:
        interaction = self._interaction(context)
        if interaction.original_message_id is None:
            raise MessageRejected(404, 10008, "Unknown Message")
        return interaction, self.message_or_404(interaction.original_message_id)

    def _get_original(self, context: RequestContext) -> dict[str, Any]:
        return self.message_payload(self._original(context)[1])

    def _edit_original(self, context: RequestContext) -> dict[str, Any]:
        interaction, message = self._original(context)
        self.edit_message(message, context.body or {}, context.files)
        interaction.filled = True
        return self.message_payload(message)

    def _delete_original(self, context: RequestContext) -> None:
        self.delete_message(self._original(context)[1])

    def _followup(self, context: RequestContext) -> dict[str, Any]:
        interaction = self._interaction(context)
        if not interaction.answered:
            raise MessageRejected(404, 10015, "Unknown Webhook")
        body = context.body or {}
        original = self.messages.get(interaction.original_message_id or 0)
        first = interaction.response_type == 5 and not interaction.filled and original is not None
        interaction.filled = interaction.filled or interaction.response_type == 5
        if first and original is not None and not original.deleted:
            # The first follow-up after "thinking" replaces the placeholder, keeping its ephemerality.
            self.edit_message(original, {k: v for k, v in body.items() if k != "flags"}, context.files)
            return self.message_payload(original)
        channel = self.channels[interaction.channel_id]
        ephemeral = bool(int(body.get("flags") or 0) & EPHEMERAL)
        if first and original is not None:
            # Discord documents that the first follow-up after a deferral takes the deferral's visibility, and
            # not that deleting the placeholder changes it: so here a public "thinking…" deleted unfilled still
            # makes its first follow-up public, whatever its flags (fill it first, by an edit, to be sure).
            ephemeral = original.ephemeral
        message = self.create_message(channel, body, context.files, interaction=interaction, ephemeral=ephemeral,
                                      allowed_flags=INTERACTION_FLAGS)
        interaction.followup_ids.append(message.id)
        return self.message_payload(message)

    def _webhook_message(self, context: RequestContext) -> OfflineMessage:
        interaction = self._interaction(context)
        message = self.message_or_404(context.int_arg("message_id"))
        if message.id not in (interaction.original_message_id, *interaction.followup_ids):
            raise MessageRejected(404, 10008, "Unknown Message")
        return message

    def _get_webhook_message(self, context: RequestContext) -> dict[str, Any]:
        return self.message_payload(self._webhook_message(context))

    def _edit_webhook_message(self, context: RequestContext) -> dict[str, Any]:
        message = self._webhook_message(context)
        self.edit_message(message, context.body or {}, context.files)
        return self.message_payload(message)

    def _delete_webhook_message(self, context: RequestContext) -> None:
        self.delete_message(self._webhook_message(context))

    # REST

    def _channel_or_404(self, context: RequestContext) -> OfflineChannel:
        channel = self.channels.get(context.int_arg("channel_id"))
        if channel is None:
            raise MessageRejected(404, 10003, "Unknown Channel")
        return channel

    def _rest_message(self, context: RequestContext) -> OfflineMessage:
        channel = self._channel_or_404(context)
        message = self.message_or_404(context.int_arg("message_id"), channel.id)
        if message.ephemeral:
            raise MessageRejected(404, 10008, "Unknown Message")
        return message

    def _send(self, context: RequestContext) -> dict[str, Any]:
        channel = self._channel_or_404(context)
        body = context.body or {}
        if body.get("message_reference"):
            self.message_or_404(int(body["message_reference"]["message_id"]))
        message = self.create_message(channel, body, context.files,
                                      message_type=19 if body.get("message_reference") else 0)
        return self.message_payload(message)

    def _create_thread(self, context: RequestContext) -> dict[str, Any]:
        """A public thread under a text channel (``channel.create_thread`` without a message)."""
        parent = self._channel_or_404(context)
        if parent.recipient is not None or parent.parent_id is not None:
            raise MessageRejected(400, 50024, "Cannot execute action on this channel type")
        body = context.body or {}
        errors = thread_errors(body)
        if errors:
            raise MessageRejected(400, 50035, "Invalid Form Body", errors)
        name = str(body["name"])
        thread = OfflineChannel(stable_snowflake("thread", f"{parent.id}/{len(self.threads(parent))}/{name}"), name,
                                parent_id=parent.id)
        self.channels[thread.id] = thread
        for listener in self._channel_added:
            listener(thread)
        return self.channel_payload(thread)

    def _history(self, context: RequestContext) -> list[dict[str, Any]]:
        channel = self._channel_or_404(context)
        limit = int(context.params.get("limit", 50))
        found = [m for m in self.messages.values() if m.channel_id == channel.id and not m.deleted
                 and not m.ephemeral]
        if "before" in context.params:
            found = [m for m in found if m.id < int(context.params["before"])]
        if "after" in context.params:
            found = [m for m in found if m.id > int(context.params["after"])]
            return [self.message_payload(m) for m in sorted(found, key=lambda m: m.id)[:limit]][::-1]
        return [self.message_payload(m) for m in sorted(found, key=lambda m: m.id, reverse=True)[:limit]]

    def _get_message(self, context: RequestContext) -> dict[str, Any]:
        return self.message_payload(self._rest_message(context))

    def _edit(self, context: RequestContext) -> dict[str, Any]:
        message = self._rest_message(context)
        self.edit_message(message, context.body or {}, context.files)
        return self.message_payload(message)

    def _delete(self, context: RequestContext) -> None:
        self.delete_message(self._rest_message(context))

    def _react(self, context: RequestContext) -> None:
        message = self._rest_message(context)
        emoji = unquote(context.args["emoji"])
        if emoji not in message.reactions:
            message.reactions.append(emoji)
            self.touch(message)

    def _unreact(self, context: RequestContext) -> None:
        message = self._rest_message(context)
        emoji = unquote(context.args["emoji"])
        if emoji in message.reactions:
            message.reactions.remove(emoji)
            self.touch(message)

    def _get_user(self, context: RequestContext) -> dict[str, Any]:
        user = self.user_by_id(context.int_arg("user_id"))
        if user is None:
            raise MessageRejected(404, 10013, "Unknown User")
        return user.payload()

    def _open_dm(self, context: RequestContext) -> dict[str, Any]:
        user = self.user_by_id(int((context.body or {}).get("recipient_id", 0)))
        if user is None or user.bot:
            raise MessageRejected(400, 50007, "Cannot send messages to this user")
        return self.channel_payload(self.dm_channel(user))

    def _get_guild(self, context: RequestContext) -> dict[str, Any]:
        if context.int_arg("guild_id") != self.guild_id:
            raise MessageRejected(404, 10004, "Unknown Guild")
        return self.guild_payload()

    def _get_member(self, context: RequestContext) -> dict[str, Any]:
        user = self.user_by_id(context.int_arg("user_id"))
        if user is None or (not user.bot and user.id not in self._members):
            raise MessageRejected(404, 10007, "Unknown Member")
        return self.member_payload(user)

    def _list_members(self, context: RequestContext) -> list[dict[str, Any]]:
        limit = int(context.params.get("limit", 1))
        after = int(context.params.get("after", 0))
        everyone = sorted([self.bot_user, *self.members], key=lambda u: u.id)
        return [self.member_payload(u) for u in everyone if u.id > after][:limit]

    def enable_activities(self) -> dict[str, Any]:
        """Activities turned on in the Developer Portal: Discord then creates the app's default Entry Point command
        (type 4, PRIMARY_ENTRY_POINT, handled by Discord: handler 2, DISCORD_LAUNCH_ACTIVITY)."""
        self.activities = True
        entry = {"id": str(stable_snowflake("command", "None:4:launch")), "application_id": str(self.application_id),
                 "version": str(self.next_id()), "type": 4, "name": "launch", "description": "",
                 "handler": 2, "integration_types": [0, 1], "contexts": [0, 1, 2],
                 "default_member_permissions": None, "dm_permission": True, "nsfw": False}
        self.commands[None] = [c for c in self.commands.get(None, []) if c.get("type") != 4] + [entry]
        return entry

    def _scope(self, context: RequestContext) -> int | None:
        """The guild of a command route, or None for the global commands."""
        guild_id = int(context.args["guild_id"]) if "guild_id" in context.args else None
        if guild_id is not None and guild_id != self.guild_id:
            raise MessageRejected(403, 50001, "Missing Access")
        return guild_id

    def _registered(self, command: dict[str, Any], guild_id: int | None) -> dict[str, Any]:
        """A command as Discord stores and answers it: its id (the same for the same name and type), version..."""
        entry = copy.deepcopy(command)
        entry.setdefault("type", 1)
        entry["id"] = str(stable_snowflake("command", f"{guild_id}:{entry['type']}:{entry['name']}"))
        entry["application_id"] = str(self.application_id)
        entry["version"] = str(self.next_id())
        entry.setdefault("description", "")
        entry.setdefault("default_member_permissions", None)
        if guild_id is not None:
            entry["guild_id"] = str(guild_id)
        return entry

    def _sync(self, context: RequestContext) -> list[dict[str, Any]]:
        """A bulk overwrite: all or nothing, every rule of ``discord_offline.registration`` checked first."""
        guild_id = self._scope(context)
        body = context.body if context.body is not None else []
        errors = bulk_errors(body, guild=guild_id is not None)
        if errors:
            raise MessageRejected(400, 50035, "Invalid Form Body", errors)
        had_entry = any(c.get("type") == 4 for c in self.commands.get(None, []))
        if guild_id is None and had_entry and not any(int(c.get("type", 1)) == 4 for c in body):
            # Discord refuses a bulk update that would drop the Activity's Entry Point command.
            raise MessageRejected(400, 50240, "You cannot remove this app's Entry Point command in a bulk update "
                                  "operation. Please include the Entry Point command in your update request or "
                                  "delete it separately.")
        self.commands[guild_id] = [self._registered(command, guild_id) for command in body]
        return self.commands[guild_id]

    @staticmethod
    def _same(command: dict[str, Any], other: dict[str, Any]) -> bool:
        return (int(command.get("type") or 1), command.get("name")) == (int(other.get("type") or 1), other.get("name"))

    def _create_command(self, context: RequestContext) -> dict[str, Any]:
        """One command created, or replaced if the scope has one of that name and type (Discord's upsert)."""
        guild_id = self._scope(context)
        command = context.body
        current = self.commands.get(guild_id, [])
        others = [c for c in current if not (isinstance(command, dict) and self._same(command, c))]
        errors = command_errors(command, guild=guild_id is not None, others=others)
        if errors:
            raise MessageRejected(400, 50035, "Invalid Form Body", errors)
        assert isinstance(command, dict)
        kind = int(command.get("type") or 1)
        if len(others) == len(current) and sum(1 for c in current if int(c.get("type") or 1) == kind) \
                >= MAX_COMMANDS[kind]:
            raise MessageRejected(400, 30032, f"Maximum number of application commands reached ({MAX_COMMANDS[kind]})")
        entry = self._registered(command, guild_id)
        self.commands[guild_id] = [c if not self._same(command, c) else entry for c in current]
        if len(others) == len(current):
            self.commands[guild_id].append(entry)
        return entry

    def _command_or_404(self, context: RequestContext) -> tuple[int | None, dict[str, Any]]:
        guild_id = self._scope(context)
        found = next((c for c in self.commands.get(guild_id, []) if c["id"] == context.args["command_id"]), None)
        if found is None:
            raise MessageRejected(404, 10063, "Unknown application command")
        return guild_id, found

    def _edit_command(self, context: RequestContext) -> dict[str, Any]:
        """A command's fields changed; the result must follow every rule, its name unique in its scope."""
        guild_id, found = self._command_or_404(context)
        changes = context.body if isinstance(context.body, dict) else {}
        server_fields = {"id", "application_id", "version", "guild_id"}
        command = {k: v for k, v in found.items() if k not in server_fields} | \
                  {k: v for k, v in changes.items() if k not in server_fields | {"type"}}
        others = [c for c in self.commands.get(guild_id, []) if c is not found]
        errors = command_errors(command, guild=guild_id is not None, others=others)
        if errors:
            raise MessageRejected(400, 50035, "Invalid Form Body", errors)
        entry = self._registered(command, guild_id)
        entry["id"] = found["id"]
        self.commands[guild_id] = [entry if c is found else c for c in self.commands.get(guild_id, [])]
        return entry

    def _delete_command(self, context: RequestContext) -> None:
        guild_id, found = self._command_or_404(context)
        self.commands[guild_id] = [c for c in self.commands.get(guild_id, []) if c is not found]


class ProblemLogHandler(logging.Handler):
    """Turns errors logged by discord.py (ignored exceptions in commands, views, events) into step problems."""

    def __init__(self, server: OfflineServer) -> None:
        super().__init__(level=logging.ERROR)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            text += f": {type(error).__name__}: {error}"
        self.server.problem(f"error logged by {record.name}: {text}")
