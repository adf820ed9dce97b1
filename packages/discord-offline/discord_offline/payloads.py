"""Discord's limits on what a bot sends: messages, components, allowed mentions, modals, choices, threads.

Each function returns the errors Discord would answer with HTTP 400, code 50035 *Invalid Form Body*, keyed by
the field's path (``embeds.0.title``, ``components.1.components.0.custom_id``): a ``(code, message)`` pair per
field. The limits are those of Discord's documentation: ``resources/message.mdx`` (content, embeds, allowed
mentions, flags, nonce, attachments), ``components/reference.mdx`` (action rows, buttons, selects, the
Components V2 layout: sections, text displays, thumbnails, media galleries, files, separators, containers;
text inputs and labels in modals), ``interactions/receiving-and-responding.mdx`` (autocomplete choices, modals)
and ``resources/channel.mdx`` (a thread's name and archive duration).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Errors = dict[str, tuple[str, str]]

SUPPRESS_EMBEDS = 1 << 2
EPHEMERAL = 1 << 6
LOADING = 1 << 7
SUPPRESS_NOTIFICATIONS = 1 << 12
IS_VOICE_MESSAGE = 1 << 13
COMPONENTS_V2 = 1 << 15
# Which flags a request may set (message.mdx: Create Message, Edit Message; interaction responses add EPHEMERAL).
CREATE_FLAGS = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_VOICE_MESSAGE | COMPONENTS_V2
EDIT_FLAGS = SUPPRESS_EMBEDS | COMPONENTS_V2
INTERACTION_FLAGS = EPHEMERAL | SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | COMPONENTS_V2

ACTION_ROW, BUTTON, STRING_SELECT, TEXT_INPUT = 1, 2, 3, 4
USER_SELECT, ROLE_SELECT, MENTIONABLE_SELECT, CHANNEL_SELECT = 5, 6, 7, 8
SECTION, TEXT_DISPLAY, THUMBNAIL, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER, LABEL, FILE_UPLOAD = \
    9, 10, 11, 12, 13, 14, 17, 18, 19
SELECTS = {STRING_SELECT, USER_SELECT, ROLE_SELECT, MENTIONABLE_SELECT, CHANNEL_SELECT}
V2_TOP_LEVEL = {ACTION_ROW, SECTION, TEXT_DISPLAY, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER}
CONTAINER_CHILDREN = {ACTION_ROW, SECTION, TEXT_DISPLAY, MEDIA_GALLERY, FILE, SEPARATOR}
BUTTON_STYLES = {1, 2, 3, 4, 5, 6}
LINK, PREMIUM = 5, 6
MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_FILES = 10
MAX_ROWS = 5
MAX_V2_COMPONENTS = 40
MAX_V2_TEXT = 4000
MAX_NONCE = 25
MAX_MENTION_IDS = 100
THREAD_ARCHIVE_MINUTES = {60, 1440, 4320, 10080}
MENTION_KINDS = {"roles", "users", "everyone"}


def _too_long(limit: int) -> tuple[str, str]:
    return "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length."


def _bad_length(low: int, high: int) -> tuple[str, str]:
    return "BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length."


def _length(errors: Errors, path: str, text: Any, low: int, high: int, *, required: bool = False) -> None:
    """A string field: absent is fine unless ``required``; present, between ``low`` and ``high`` characters."""
    if text is None:
        if required:
            errors.setdefault(path, ("BASE_TYPE_REQUIRED", "This field is required"))
        return
    if not isinstance(text, str):
        errors.setdefault(path, ("BASE_TYPE_STRING", "Must be a string."))
    elif len(text) > high:
        errors.setdefault(path, _too_long(high))
    elif len(text) < low:
        errors.setdefault(path, _bad_length(low, high))


# ---------------------------------------------------------------------------------------------- messages


def flags_errors(flags: int, allowed: int, errors: Errors, path: str = "flags") -> None:
    """Only the flags a request may set (the others are Discord's to set)."""
    if flags & ~allowed:
        errors.setdefault(path, ("MESSAGE_FLAGS_INVALID", f"Flags {flags & ~allowed} cannot be set here"))


def embeds_errors(embeds: Sequence[Any], errors: Errors) -> None:
    if len(embeds) > MAX_EMBEDS:
        errors["embeds"] = _too_long(MAX_EMBEDS)
    total = 0
    for index, embed in enumerate(embeds):
        where = f"embeds.{index}"
        if not isinstance(embed, Mapping):
            errors[where] = ("MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            continue
        for key, limit in (("title", 256), ("description", 4096), ("url", 2048)):
            text = embed.get(key)
            if key != "url":
                total += len(str(text or ""))
            _length(errors, f"{where}.{key}", text, 0, limit)
        for key, inner, limit in (("footer", "text", 2048), ("author", "name", 256)):
            part = embed.get(key)
            if part is None:
                continue
            text = part.get(inner) if isinstance(part, Mapping) else None
            total += len(str(text or ""))
            _length(errors, f"{where}.{key}.{inner}", text, 1, limit, required=True)
        for key in ("image", "thumbnail"):
            part = embed.get(key)
            if part is not None:
                url = part.get("url") if isinstance(part, Mapping) else None
                if not isinstance(url, str) or not url.startswith(("http://", "https://", "attachment://")):
                    errors[f"{where}.{key}.url"] = ("URL_TYPE_INVALID_PROTOCOL",
                                                    "Scheme must be one of ('http', 'https', 'attachment').")
        color = embed.get("color")
        if color is not None and (not isinstance(color, int) or not 0 <= color <= 0xFFFFFF):
            errors[f"{where}.color"] = ("NUMBER_TYPE_MAX", "int value should be between 0 and 16777215.")
        fields = embed.get("fields") or []
        if len(fields) > 25:
            errors[f"{where}.fields"] = _too_long(25)
        for number, embed_field in enumerate(fields):
            for key, limit in (("name", 256), ("value", 1024)):
                text = embed_field.get(key) if isinstance(embed_field, Mapping) else None
                total += len(str(text or ""))
                if not str(text or "").strip():
                    errors[f"{where}.fields.{number}.{key}"] = ("BASE_TYPE_REQUIRED", "This field is required")
                else:
                    _length(errors, f"{where}.fields.{number}.{key}", text, 1, limit)
    if total > MAX_EMBED_TOTAL:
        errors["embeds"] = ("BASE_TYPE_MAX_LENGTH", f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}")


def allowed_mentions_errors(mentions: Any, errors: Errors, path: str = "allowed_mentions") -> None:
    """``parse`` holds roles, users and everyone at most once each, and excludes ``users``/``roles`` lists of the
    same kind; each list holds at most 100 ids."""
    if mentions is None:
        return
    if not isinstance(mentions, Mapping):
        errors[path] = ("MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
        return
    unknown = set(mentions) - {"parse", "roles", "users", "replied_user"}
    if unknown:
        errors[path] = ("MODEL_TYPE_INVALID", f"Unknown fields {sorted(unknown)}")
    parse = mentions.get("parse") or []
    if not isinstance(parse, list) or any(p not in MENTION_KINDS for p in parse):
        errors[f"{path}.parse"] = ("ENUM_TYPE_COERCE", f"Values must be among {sorted(MENTION_KINDS)}.")
        parse = []
    elif len(set(parse)) != len(parse):
        errors[f"{path}.parse"] = ("SET_TYPE_ALREADY_CONTAINS_VALUE", "The set already contains this value.")
    for kind in ("users", "roles"):
        ids = mentions.get(kind)
        if not ids:
            continue  # a falsy list triggers nothing (message.mdx)
        if kind in parse:
            errors[path] = ("MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                            f"parse:[\"{kind}\"] and {kind}: [ids...] are mutually exclusive.")
        if not isinstance(ids, list) or len(ids) > MAX_MENTION_IDS:
            errors[f"{path}.{kind}"] = _too_long(MAX_MENTION_IDS)
        elif any(not str(i).isdigit() for i in ids):
            errors[f"{path}.{kind}"] = ("NUMBER_TYPE_COERCE", "Value is not snowflake.")
    replied = mentions.get("replied_user")
    if replied is not None and not isinstance(replied, bool):
        errors[f"{path}.replied_user"] = ("BASE_TYPE_BOOLEAN", "Must be either true or false.")


def message_errors(body: Mapping[str, Any], *, content: str, embeds: Sequence[Any],
                   components: Sequence[Any], flags: int, files_count: int) -> Errors:
    """Every limit of a message as it will be after a create or an edit (``content``, ``embeds``, ``components``
    and ``flags`` after the change; ``body`` is the request, for the fields only it has)."""
    errors: Errors = {}
    if len(content) > MAX_CONTENT:
        errors["content"] = _too_long(MAX_CONTENT)
    embeds_errors(embeds, errors)
    if files_count > MAX_FILES:
        errors["attachments"] = _too_long(MAX_FILES)
    allowed_mentions_errors(body.get("allowed_mentions"), errors)
    nonce = body.get("nonce")
    if isinstance(nonce, str) and len(nonce) > MAX_NONCE:
        errors["nonce"] = _too_long(MAX_NONCE)
    if flags & COMPONENTS_V2:
        for key, present in (("content", bool(content)), ("embeds", bool(embeds)), ("poll", "poll" in body),
                             ("sticker_ids", bool(body.get("sticker_ids")))):
            if present:
                errors[key] = ("MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
                               "The 'content', 'embeds', 'sticker_ids' and 'poll' fields cannot be used when "
                               "using MessageFlags.IS_COMPONENTS_V2")
        layout_errors(components, errors)
    else:
        rows_errors(components, errors)
    return errors


# ---------------------------------------------------------------------------------------------- components


class _Components:
    """Walks a message's components: every interactive one's checks, custom ids unique across the message."""

    def __init__(self, errors: Errors) -> None:
        self.errors = errors
        self.custom_ids: set[str] = set()
        self.count = 0
        self.text = 0

    def custom_id(self, child: Mapping[str, Any], place: str, *, required: bool) -> None:
        custom_id = child.get("custom_id")
        _length(self.errors, f"{place}.custom_id", custom_id, 1, 100, required=required)
        if isinstance(custom_id, str):
            if custom_id in self.custom_ids:
                self.errors[f"{place}.custom_id"] = ("COMPONENT_CUSTOM_ID_DUPLICATED",
                                                     "Component custom id cannot be duplicated")
            self.custom_ids.add(custom_id)

    def button(self, child: Mapping[str, Any], place: str) -> None:
        style = child.get("style")
        if style not in BUTTON_STYLES:
            self.errors[f"{place}.style"] = ("ENUM_TYPE_COERCE", f"Value \"{style}\" is not a valid enum value.")
        _length(self.errors, f"{place}.label", child.get("label"), 0, 80)
        if style == LINK:
            _length(self.errors, f"{place}.url", child.get("url"), 1, 512, required=True)
            if child.get("custom_id") is not None:
                self.errors[f"{place}.custom_id"] = ("BUTTON_COMPONENT_CUSTOM_ID_INVALID",
                                                     "A link button cannot have a custom id")
        elif style == PREMIUM:
            if not child.get("sku_id"):
                self.errors[f"{place}.sku_id"] = ("BASE_TYPE_REQUIRED", "This field is required")
        else:
            self.custom_id(child, place, required=True)
            if child.get("url") is not None:
                self.errors[f"{place}.url"] = ("BUTTON_COMPONENT_URL_INVALID", "Only link buttons have a url")
            if not child.get("label") and not child.get("emoji"):
                self.errors[place] = ("BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A button needs a label or an emoji.")

    def select(self, child: Mapping[str, Any], place: str) -> None:
        self.custom_id(child, place, required=True)
        _length(self.errors, f"{place}.placeholder", child.get("placeholder"), 0, 150)
        low = child.get("min_values", 1)
        high = child.get("max_values", 1)
        if not isinstance(low, int) or not 0 <= low <= 25:
            self.errors[f"{place}.min_values"] = ("NUMBER_TYPE_MAX", "int value should be between 0 and 25.")
        if not isinstance(high, int) or not 1 <= high <= 25:
            self.errors[f"{place}.max_values"] = ("NUMBER_TYPE_MAX", "int value should be between 1 and 25.")
        elif isinstance(low, int) and low > high:
            self.errors[f"{place}.min_values"] = ("SELECT_COMPONENT_MIN_VALUES_INVALID",
                                                  "min_values must not exceed max_values")
        if child.get("type") != STRING_SELECT:
            return
        options = child.get("options") or []
        if not 1 <= len(options) <= 25:
            self.errors[f"{place}.options"] = _bad_length(1, 25)
        elif isinstance(high, int) and high > len(options):
            self.errors[f"{place}.max_values"] = ("SELECT_COMPONENT_MAX_VALUES_INVALID",
                                                  "max_values must not exceed the number of options")
        values = [o.get("value") for o in options if isinstance(o, Mapping)]
        for number, option in enumerate(options):
            here = f"{place}.options.{number}"
            if not isinstance(option, Mapping):
                self.errors[here] = ("MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
                continue
            _length(self.errors, f"{here}.label", option.get("label"), 1, 100, required=True)
            _length(self.errors, f"{here}.value", option.get("value"), 1, 100, required=True)
            _length(self.errors, f"{here}.description", option.get("description"), 0, 100)
            if option.get("value") in values[:number]:
                self.errors[f"{here}.value"] = ("SELECT_COMPONENT_OPTION_VALUE_DUPLICATED",
                                                "The specified option value is already used")

    def row(self, row: Mapping[str, Any], where: str) -> None:
        children = row.get("components") or []
        selects = [c for c in children if isinstance(c, Mapping) and c.get("type") in SELECTS]
        if not 1 <= len(children) <= 5:
            self.errors[f"{where}.components"] = _bad_length(1, 5)
        elif selects and len(children) > 1:
            self.errors[f"{where}.components"] = ("COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                                                  "A select menu must be alone in its action row.")
        for number, child in enumerate(children):
            place = f"{where}.components.{number}"
            self.count += 1
            kind = child.get("type") if isinstance(child, Mapping) else None
            if kind == BUTTON:
                self.button(child, place)
            elif kind in SELECTS:
                self.select(child, place)
            else:
                self.errors[f"{place}.type"] = ("COMPONENT_TYPE_INVALID",
                                                "An action row holds buttons or one select menu")

    def text_display(self, child: Mapping[str, Any], place: str) -> None:
        content = child.get("content")
        _length(self.errors, f"{place}.content", content, 1, MAX_V2_TEXT, required=True)
        self.text += len(content) if isinstance(content, str) else 0

    def media(self, item: Any, place: str, *, attachment_only: bool = False) -> None:
        url = item.get("url") if isinstance(item, Mapping) else None
        schemes = ("attachment://",) if attachment_only else ("http://", "https://", "attachment://")
        if not isinstance(url, str) or not url.startswith(schemes):
            self.errors[f"{place}.url"] = ("URL_TYPE_INVALID_PROTOCOL", f"Scheme must be one of {schemes}.")

    def layout(self, child: Any, place: str, allowed: set[int]) -> None:
        """One component of a Components V2 message (top level, or in a container)."""
        self.count += 1
        kind = child.get("type") if isinstance(child, Mapping) else None
        if kind not in allowed or not isinstance(child, Mapping):
            self.errors[f"{place}.type"] = ("COMPONENT_TYPE_INVALID", f"Component type {kind} is not allowed here")
            return
        if kind == ACTION_ROW:
            self.row(child, place)
        elif kind == TEXT_DISPLAY:
            self.text_display(child, place)
        elif kind == SECTION:
            texts = child.get("components") or []
            if not 1 <= len(texts) <= 3:
                self.errors[f"{place}.components"] = _bad_length(1, 3)
            for number, text in enumerate(texts):
                self.layout(text, f"{place}.components.{number}", {TEXT_DISPLAY})
            accessory = child.get("accessory")
            self.count += 1
            if isinstance(accessory, Mapping) and accessory.get("type") == BUTTON:
                self.button(accessory, f"{place}.accessory")
            elif isinstance(accessory, Mapping) and accessory.get("type") == THUMBNAIL:
                self.media(accessory.get("media"), f"{place}.accessory.media")
                _length(self.errors, f"{place}.accessory.description", accessory.get("description"), 0, 1024)
            else:
                self.errors[f"{place}.accessory"] = ("COMPONENT_TYPE_INVALID",
                                                     "A section's accessory is a button or a thumbnail")
        elif kind == MEDIA_GALLERY:
            items = child.get("items") or []
            if not 1 <= len(items) <= 10:
                self.errors[f"{place}.items"] = _bad_length(1, 10)
            for number, item in enumerate(items):
                here = f"{place}.items.{number}"
                self.media(item.get("media") if isinstance(item, Mapping) else None, f"{here}.media")
                if isinstance(item, Mapping):
                    _length(self.errors, f"{here}.description", item.get("description"), 0, 1024)
        elif kind == FILE:
            self.media(child.get("file"), f"{place}.file", attachment_only=True)
        elif kind == SEPARATOR:
            if child.get("spacing", 1) not in (1, 2):
                self.errors[f"{place}.spacing"] = ("ENUM_TYPE_COERCE", "Value is not a valid enum value.")
        elif kind == CONTAINER:
            color = child.get("accent_color")
            if color is not None and (not isinstance(color, int) or not 0 <= color <= 0xFFFFFF):
                self.errors[f"{place}.accent_color"] = ("NUMBER_TYPE_MAX", "int value should be between 0 and "
                                                        "16777215.")
            for number, inner in enumerate(child.get("components") or []):
                self.layout(inner, f"{place}.components.{number}", CONTAINER_CHILDREN)


def rows_errors(rows: Sequence[Any], errors: Errors) -> None:
    """The components of a message without the Components V2 flag: up to 5 action rows."""
    if len(rows) > MAX_ROWS:
        errors["components"] = _too_long(MAX_ROWS)
    walk = _Components(errors)
    for index, row in enumerate(rows):
        where = f"components.{index}"
        if not isinstance(row, Mapping) or row.get("type") != ACTION_ROW:
            errors[where] = ("COMPONENT_TYPE_INVALID", "Top-level components must be action rows.")
            continue
        walk.row(row, where)


def layout_errors(components: Sequence[Any], errors: Errors) -> None:
    """The components of a Components V2 message: layout types at the top level, 40 components counted nested,
    4,000 characters of text across them."""
    walk = _Components(errors)
    for index, child in enumerate(components):
        walk.layout(child, f"components.{index}", V2_TOP_LEVEL)
    if walk.count > MAX_V2_COMPONENTS:
        errors["components"] = ("BASE_TYPE_MAX_LENGTH",
                                f"A message holds at most {MAX_V2_COMPONENTS} components, counted nested")
    if walk.text > MAX_V2_TEXT:
        errors["components"] = ("BASE_TYPE_MAX_LENGTH",
                                f"The text of a message's components is at most {MAX_V2_TEXT} characters")


# ---------------------------------------------------------------------------------------------- interactions


def choices_errors(choices: Sequence[Any]) -> Errors:
    """An autocomplete answer: at most 25 choices, each named 1-100 characters, a string value up to 100."""
    errors: Errors = {}
    if len(choices) > 25:
        errors["data.choices"] = _too_long(25)
    for number, choice in enumerate(choices):
        here = f"data.choices.{number}"
        if not isinstance(choice, Mapping):
            errors[here] = ("MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            continue
        _length(errors, f"{here}.name", choice.get("name"), 1, 100, required=True)
        value = choice.get("value")
        if isinstance(value, str):
            _length(errors, f"{here}.value", value, 0, 100)
        elif not isinstance(value, int | float) or isinstance(value, bool):
            errors[f"{here}.value"] = ("BASE_TYPE_REQUIRED", "A choice's value is a string or a number")
    return errors


def modal_errors(data: Mapping[str, Any]) -> Errors:
    """A modal: a title of 1-45 characters, a custom id, 1-5 components (labels or action rows of text inputs)."""
    errors: Errors = {}
    _length(errors, "data.title", data.get("title"), 1, 45, required=True)
    _length(errors, "data.custom_id", data.get("custom_id"), 1, 100, required=True)
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        errors["data.components"] = _bad_length(1, 5)
    for index, child in enumerate(components):
        place = f"data.components.{index}"
        if not isinstance(child, Mapping):
            errors[place] = ("MODEL_TYPE_CONVERT", "Only dictionaries may be used in a ModelType")
            continue
        if child.get("type") == LABEL:
            _length(errors, f"{place}.label", child.get("label"), 1, 45, required=True)
            _length(errors, f"{place}.description", child.get("description"), 0, 100)
            inner = [child.get("component")]
        elif child.get("type") == ACTION_ROW:
            inner = list(child.get("components") or [])
        elif child.get("type") == TEXT_DISPLAY:
            _length(errors, f"{place}.content", child.get("content"), 1, MAX_V2_TEXT, required=True)
            continue
        else:
            errors[f"{place}.type"] = ("COMPONENT_TYPE_INVALID", "A modal holds labels, text displays and rows")
            continue
        for number, field in enumerate(inner):
            here = f"{place}.component" if child.get("type") == LABEL else f"{place}.components.{number}"
            if isinstance(field, Mapping) and field.get("type") == TEXT_INPUT:
                _length(errors, f"{here}.custom_id", field.get("custom_id"), 1, 100, required=True)
                if child.get("type") == ACTION_ROW:
                    _length(errors, f"{here}.label", field.get("label"), 1, 45, required=True)
                _length(errors, f"{here}.placeholder", field.get("placeholder"), 0, 100)
                _length(errors, f"{here}.value", field.get("value"), 0, 4000)
                for key, low in (("min_length", 0), ("max_length", 1)):
                    value = field.get(key)
                    if value is not None and (not isinstance(value, int) or not low <= value <= 4000):
                        errors[f"{here}.{key}"] = ("NUMBER_TYPE_MAX", f"int value should be between {low} and 4000.")
            elif not (isinstance(field, Mapping) and field.get("type") in (*SELECTS, FILE_UPLOAD)):
                errors[f"{here}.type"] = ("COMPONENT_TYPE_INVALID", "Not a modal's input")
    return errors


def thread_errors(body: Mapping[str, Any]) -> Errors:
    """A thread started without a message: a name of 1-100 characters, an archive duration Discord knows."""
    errors: Errors = {}
    name = body.get("name")
    _length(errors, "name", name, 1, 100, required=True)
    if isinstance(name, str) and name and not name.strip():
        errors["name"] = _bad_length(1, 100)
    duration = body.get("auto_archive_duration")
    if duration is not None and duration not in THREAD_ARCHIVE_MINUTES:
        errors["auto_archive_duration"] = ("BASE_TYPE_CHOICES",
                                           f"Value must be one of {sorted(THREAD_ARCHIVE_MINUTES)}.")
    if body.get("type") not in (None, 10, 11, 12):
        errors["type"] = ("BASE_TYPE_CHOICES", "Value must be one of {10, 11, 12}.")
    slow = body.get("rate_limit_per_user")
    if slow is not None and (not isinstance(slow, int) or not 0 <= slow <= 21600):
        errors["rate_limit_per_user"] = ("NUMBER_TYPE_MAX", "int value should be between 0 and 21600.")
    return errors


__all__ = ["COMPONENTS_V2", "CREATE_FLAGS", "EDIT_FLAGS", "INTERACTION_FLAGS", "Errors", "allowed_mentions_errors",
           "choices_errors", "embeds_errors", "flags_errors", "layout_errors", "message_errors", "modal_errors",
           "rows_errors", "thread_errors"]
