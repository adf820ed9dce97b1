"""What the offline Discord remembers: users, channels, messages, interactions and requests."""

from __future__ import annotations

import copy
import datetime
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

EPHEMERAL = 1 << 6
LOADING = 1 << 7
COMPONENTS_V2 = 1 << 15

# Component types that are select menus, by Discord's numbering.
SELECT_KINDS: dict[int, str] = {3: "string", 5: "user", 6: "role", 7: "mentionable", 8: "channel"}

# 2020-01-01 in milliseconds since Discord's epoch (2015-01-01).
_STABLE_ID_BASE_MS = 157_766_400_000


class OfflineError(Exception):
    """A step cannot be performed: unknown command, no such button, bad option, bot still busy..."""


def stable_snowflake(kind: str, name: str) -> int:
    """A valid-looking snowflake that depends only on ``kind`` and ``name`` (case-insensitive)."""
    digest = int.from_bytes(hashlib.sha256(f"{kind}:{name.lower()}".encode()).digest()[:8], "big")
    milliseconds = _STABLE_ID_BASE_MS + digest % (1 << 31)
    return (milliseconds << 22) | ((digest >> 31) & 0x3FFFFF)


def iso(moment: datetime.datetime) -> str:
    return moment.isoformat()


@dataclass(frozen=True)
class OfflineUser:
    """A member of the offline guild, created on demand from a name."""

    id: int
    name: str
    bot: bool = False

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": None if self.bot else self.name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }


@dataclass
class OfflineChannel:
    """A text channel of the offline guild, or the DM channel between the bot and one user."""

    id: int
    name: str
    recipient: OfflineUser | None = None
    topic: str | None = None
    parent_id: int | None = None  # a thread: the channel it was created under

    @property
    def is_thread(self) -> bool:
        return self.parent_id is not None

    @property
    def is_dm(self) -> bool:
        return self.recipient is not None

    @property
    def label(self) -> str:
        """How the channel is shown: ``#general`` or ``DM @bob``."""
        return f"DM @{self.recipient.name}" if self.recipient is not None else f"#{self.name}"


@dataclass(frozen=True)
class OfflineAttachment:
    """A file the bot uploaded, with its bytes."""

    id: int
    filename: str
    data: bytes
    content_type: str
    url: str
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)

    def payload(self, *, ephemeral: bool = False) -> dict[str, Any]:
        result: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            result["description"] = self.description
        if ephemeral:
            result["ephemeral"] = True
        return result


@dataclass(frozen=True)
class MessageVersion:
    """The visible state of a message at one moment (kept when it is edited)."""

    content: str
    embeds: list[dict[str, Any]]
    raw_components: list[dict[str, Any]]
    attachments: list[OfflineAttachment]
    flags: int


def _emoji_text(emoji: dict[str, Any] | None) -> str | None:
    if not emoji:
        return None
    return emoji.get("name") or None


def flatten_components(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Buttons, selects and texts of a message in display order, as simple dicts."""
    found: list[dict[str, Any]] = []

    def walk(component: dict[str, Any]) -> None:
        kind = component.get("type")
        if kind == 2:
            found.append({
                "type": "button",
                "label": component.get("label"),
                "emoji": _emoji_text(component.get("emoji")),
                "custom_id": component.get("custom_id"),
                "style": component.get("style", 1),
                "disabled": bool(component.get("disabled", False)),
                "url": component.get("url"),
            })
        elif kind in SELECT_KINDS:
            found.append({
                "type": "select",
                "kind": SELECT_KINDS[kind],
                "component_type": kind,
                "custom_id": component.get("custom_id"),
                "placeholder": component.get("placeholder"),
                "options": [
                    {
                        "label": option.get("label"),
                        "value": option.get("value"),
                        "description": option.get("description"),
                        "default": bool(option.get("default", False)),
                    }
                    for option in component.get("options", []) or []
                ],
                "min_values": component.get("min_values", 1),
                "max_values": component.get("max_values", 1),
                "disabled": bool(component.get("disabled", False)),
            })
        elif kind == 10:
            found.append({"type": "text", "content": component.get("content", "")})
        for child in component.get("components", []) or []:
            walk(child)
        accessory = component.get("accessory")
        if accessory:
            walk(accessory)

    for top in raw:
        walk(top)
    return found


def modal_fields(modal: dict[str, Any]) -> list[dict[str, Any]]:
    """The inputs of a modal (form) as simple dicts: custom_id, label, kind (``text``/``select``), limits."""
    fields: list[dict[str, Any]] = []

    def add(component: dict[str, Any], label: str | None, wrapper: int) -> None:
        kind = component.get("type")
        if kind == 4:
            fields.append({
                "kind": "text", "custom_id": component.get("custom_id"), "wrapper": wrapper,
                "label": label or component.get("label") or component.get("custom_id"),
                "required": component.get("required", True), "min_length": component.get("min_length"),
                "max_length": component.get("max_length"), "value": component.get("value"),
                "style": component.get("style", 1),
            })
        elif kind in SELECT_KINDS:
            fields.append({
                "kind": "select", "component_type": kind, "custom_id": component.get("custom_id"), "wrapper": wrapper,
                "label": label or component.get("placeholder") or component.get("custom_id"),
                "required": component.get("required", True), "min_values": component.get("min_values", 1),
                "max_values": component.get("max_values", 1),
                "options": [{"label": o.get("label"), "value": o.get("value")} for o in component.get("options", [])],
            })

    for top in modal.get("components", []) or []:
        if top.get("type") == 1:
            for child in top.get("components", []) or []:
                add(child, None, 1)
        elif top.get("type") == 18:
            add(top.get("component") or {}, top.get("label"), 18)
    return fields


def embed_lines(embed: dict[str, Any]) -> list[str]:
    """An embed as plain lines: author, title, description, fields (``name: value``), image, footer."""
    lines: list[str] = []
    author = (embed.get("author") or {}).get("name")
    if author:
        lines.append(author)
    if embed.get("title"):
        lines.append(str(embed["title"]))
    if embed.get("description"):
        lines.extend(str(embed["description"]).splitlines())
    for embed_field in embed.get("fields", []) or []:
        value_lines = str(embed_field.get("value", "")).splitlines() or [""]
        lines.append(f"{embed_field.get('name', '')}: {value_lines[0]}")
        lines.extend(f"  {line}" for line in value_lines[1:])
    for key in ("image", "thumbnail"):
        url = (embed.get(key) or {}).get("url")
        if url:
            lines.append(f"{key}: {url}")
    footer = (embed.get("footer") or {}).get("text")
    if footer:
        lines.append(str(footer))
    return lines


@dataclass
class OfflineMessage:
    """A message the bot produced; edits update it in place and keep the earlier versions."""

    id: int
    channel_id: int
    channel_name: str
    is_dm: bool
    author: str
    content: str
    embeds: list[dict[str, Any]]
    raw_components: list[dict[str, Any]]
    attachments: list[OfflineAttachment]
    flags: int
    visible_to: str | None
    created_at: datetime.datetime
    interaction_id: int | None = None
    interaction_name: str | None = None
    interaction_user: str | None = None
    message_type: int = 0
    edited: bool = False
    edited_at: datetime.datetime | None = None
    deleted: bool = False
    reactions: list[str] = field(default_factory=list)
    versions: list[MessageVersion] = field(default_factory=list)
    reference_id: int | None = None
    allowed_mentions: dict[str, Any] | None = None

    @property
    def pings(self) -> set[str]:
        """Whom the message notifies, as Discord decides from its content and ``allowed_mentions``:
        ``"everyone"`` (for @everyone and @here), ``"user:ID"`` and ``"role:ID"``. Without ``allowed_mentions``
        Discord parses every kind."""
        allowed = self.allowed_mentions
        parse = set(allowed.get("parse", [])) if allowed is not None else {"everyone", "users", "roles"}
        users = {str(u) for u in (allowed or {}).get("users", [])}
        roles = {str(r) for r in (allowed or {}).get("roles", [])}
        text = self.text
        out: set[str] = set()
        if "everyone" in parse and ("@everyone" in text or "@here" in text):
            out.add("everyone")
        for user in re.findall(r"<@!?(\d+)>", text):
            if "users" in parse or user in users:
                out.add(f"user:{user}")
        for role in re.findall(r"<@&(\d+)>", text):
            if "roles" in parse or role in roles:
                out.add(f"role:{role}")
        return out

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while the message is a deferred "bot is thinking..." placeholder."""
        return bool(self.flags & LOADING)

    @property
    def components(self) -> list[dict[str, Any]]:
        return flatten_components(self.raw_components)

    @property
    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.components if c["type"] == "button"]

    @property
    def selects(self) -> list[dict[str, Any]]:
        return [c for c in self.components if c["type"] == "select"]

    @property
    def button_labels(self) -> list[str]:
        return [b["label"] or b["emoji"] or "" for b in self.buttons]

    @property
    def text(self) -> str:
        """Content, embeds and text components as plain text, for assertions."""
        lines = self.content.splitlines() if self.content else []
        for embed in self.embeds:
            lines.extend(embed_lines(embed))
        lines.extend(c["content"] for c in self.components if c["type"] == "text")
        return "\n".join(lines)

    def attachment(self, filename: str) -> OfflineAttachment:
        for attached in self.attachments:
            if attached.filename == filename:
                return attached
        raise OfflineError(f"message {self.id} has no attachment {filename!r}; it has {self.filenames()}")

    def filenames(self) -> list[str]:
        return [a.filename for a in self.attachments]

    def snapshot(self) -> MessageVersion:
        return MessageVersion(
            content=self.content,
            embeds=copy.deepcopy(self.embeds),
            raw_components=copy.deepcopy(self.raw_components),
            attachments=list(self.attachments),
            flags=self.flags,
        )


@dataclass
class OfflineInteraction:
    """One interaction sent to the bot and how the bot answered it."""

    id: int
    token: str
    type: int
    user: OfflineUser
    channel_id: int
    name: str
    created: float
    message_id: int | None = None
    response_type: int | None = None
    original_message_id: int | None = None
    choices: list[dict[str, Any]] | None = None
    modal: dict[str, Any] | None = None
    modal_submitted: bool = False
    followup_ids: list[int] = field(default_factory=list)
    filled: bool = False   # a "thinking…" deferral was filled in (by its first follow-up or an edit)

    @property
    def answered(self) -> bool:
        return self.response_type is not None


@dataclass(frozen=True)
class RecordedRequest:
    """A request the bot made: through the interaction webhook or the REST client."""

    via: str
    method: str
    path: str
    url: str
    json: Any
    files: tuple[tuple[str, bytes], ...]
    params: dict[str, Any] | None


@dataclass(frozen=True)
class LogEntry:
    """One change to a message: ``create``, ``fill`` (a deferred placeholder answered), ``edit`` or ``delete``."""

    action: str
    message_id: int
    version: MessageVersion


class Step(list[OfflineMessage]):
    """Messages created or changed by one step, in the order they were first touched (one deleted by the end of
    the step is left out: nobody sees it, like a "thinking…" placeholder withdrawn for a private answer).

    ``interaction`` is the interaction the step sent (None for :meth:`OfflineDiscord.run`); ``problems`` lists
    what a user would notice as a failure: an unanswered interaction, a request Discord rejected, an error the
    bot logged, a background task that crashed.
    """

    def __init__(self, messages: list[OfflineMessage], interaction: OfflineInteraction | None,
                 problems: list[str]) -> None:
        super().__init__(messages)
        self.interaction = interaction
        self.problems = problems

    @property
    def choices(self) -> list[dict[str, Any]]:
        """Autocomplete choices answered in this step (empty if none)."""
        if self.interaction is None or self.interaction.choices is None:
            return []
        return self.interaction.choices
