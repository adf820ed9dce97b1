"""What the bot sends besides its commands, checked by the offline Discord as strictly as Discord documents it.

The routes the bot uses (the end-to-end suite and the offline harness record them): channel messages (create, edit,
delete), interaction callbacks (a message, a deferral, an update, autocomplete choices, a modal, an Activity's
launch), follow-ups and edits of the original answer through the interaction's webhook, a thread opened under a
channel, a DM channel. For each documented limit a payload over it is refused (400, code 50035 and the field's
path) and the edge that is allowed passes.
"""

from __future__ import annotations

import time
from typing import Any

import discord
import pytest
from discord_offline.records import OfflineInteraction
from discord_offline.server import OfflineServer

MESSAGES = "/channels/{channel_id}/messages"
MESSAGE = "/channels/{channel_id}/messages/{message_id}"
CALLBACK = "/interactions/{webhook_id}/{webhook_token}/callback"
FOLLOWUP = "/webhooks/{webhook_id}/{webhook_token}"
THREADS = "/channels/{channel_id}/threads"
V2 = 1 << 15


@pytest.fixture
def server() -> OfflineServer:
    return OfflineServer()


def send(server: OfflineServer, body: dict[str, Any], channel: str = "general") -> dict[str, Any]:
    where = server.channel(channel).id
    return server.handle("http", "POST", MESSAGES, f"/channels/{where}/messages", body, [], None)  # type: ignore[no-any-return]


def edit(server: OfflineServer, message: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    url = f"/channels/{message['channel_id']}/messages/{message['id']}"
    return server.handle("http", "PATCH", MESSAGE, url, body, [], None)  # type: ignore[no-any-return]


def interaction(server: OfflineServer, kind: int = 2) -> OfflineInteraction:
    made = OfflineInteraction(server.next_id(), f"token-{server.next_id()}", kind, server.user("alice"),
                              server.channel("general").id, "/play", time.monotonic())
    server.add_interaction(made)
    return made


def callback(server: OfflineServer, body: dict[str, Any], kind: int = 2) -> Any:
    made = interaction(server, kind)
    return server.handle("http", "POST", CALLBACK, f"/interactions/{made.id}/{made.token}/callback", body, [], None)


def refusal(call: Any, *args: Any, **kwargs: Any) -> str:
    """The refusal's text (``In embeds.0.title: Must be ...``) after checking that it is a 400 with code 50035."""
    with pytest.raises(discord.HTTPException) as refused:
        call(*args, **kwargs)
    assert (refused.value.status, refused.value.code) == (400, 50035), refused.value
    return refused.value.text


def button(custom_id: str, label: str = "Go", **more: Any) -> dict[str, Any]:
    return {"type": 2, "style": 1, "custom_id": custom_id, "label": label, **more}


def row(*children: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(children)}


def select(custom_id: str, count: int, **more: Any) -> dict[str, Any]:
    options = [{"label": f"Option {i}", "value": str(i)} for i in range(count)]
    return {"type": 3, "custom_id": custom_id, "options": options, **more}


def text(content: str) -> dict[str, Any]:
    return {"type": 10, "content": content}


def test_content_is_at_most_2000_characters(server: OfflineServer):
    assert "In content: Must be 2000 or fewer" in refusal(send, server, {"content": "x" * 2001})
    assert send(server, {"content": "x" * 2000})["content"] == "x" * 2000
    message = send(server, {"content": "short"})
    assert "In content" in refusal(edit, server, message, {"content": "y" * 2001})
    assert edit(server, message, {"content": "y" * 2000})["content"] == "y" * 2000


def test_embed_limits(server: OfflineServer):
    over = [({"title": "t" * 257}, "embeds.0.title"), ({"description": "d" * 4097}, "embeds.0.description"),
            ({"footer": {"text": "f" * 2049}}, "embeds.0.footer.text"),
            ({"author": {"name": "a" * 257}}, "embeds.0.author.name"),
            ({"fields": [{"name": "n", "value": "v"}] * 26}, "embeds.0.fields"),
            ({"fields": [{"name": "n" * 257, "value": "v"}]}, "embeds.0.fields.0.name"),
            ({"fields": [{"name": "n", "value": "v" * 1025}]}, "embeds.0.fields.0.value"),
            ({"fields": [{"name": "n", "value": " "}]}, "embeds.0.fields.0.value"),
            ({"color": 0x1000000}, "embeds.0.color"), ({"image": {"url": "ftp://x/map.png"}}, "embeds.0.image.url")]
    for embed, path in over:
        assert f"In {path}: " in refusal(send, server, {"embeds": [embed]}), path
    assert "In embeds: Must be 10 or fewer" in refusal(send, server, {"embeds": [{"title": "t"}] * 11})
    # 6,000 characters across every embed of the message.
    assert "Embed size exceeds maximum size of 6000" in refusal(
        send, server, {"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]})
    edge = {"title": "t" * 256, "description": "d" * 3000, "footer": {"text": "f" * 1000}, "color": 0xFFFFFF,
            "fields": [{"name": "n" * 256, "value": "v" * 1024}] + [{"name": "n", "value": "v"}] * 24,
            "image": {"url": "attachment://map.png"}}
    assert sum(len(x) for x in ("t" * 256, "d" * 3000, "f" * 1000, "n" * 256, "v" * 1024)) + 48 <= 6000
    assert send(server, {"embeds": [edge] + [{"title": "t"}] * 9})["embeds"][0]["title"] == "t" * 256


def test_action_rows_buttons_and_selects(server: OfflineServer):
    rows = [row(button(f"b{i}")) for i in range(6)]
    assert "In components: Must be 5 or fewer" in refusal(send, server, {"content": "x", "components": rows})
    assert "In components.0.components: " in refusal(
        send, server, {"content": "x", "components": [row(*[button(f"b{i}") for i in range(6)])]})
    assert "In components.0.components.0.custom_id: Must be 100 or fewer" in refusal(
        send, server, {"content": "x", "components": [row(button("c" * 101))]})
    assert "custom id cannot be duplicated" in refusal(
        send, server, {"content": "x", "components": [row(button("same")), row(button("same"))]})
    assert "In components.0.components.0.label: Must be 80 or fewer" in refusal(
        send, server, {"content": "x", "components": [row(button("b", "l" * 81))]})
    assert "In components.0.components.0.options: " in refusal(
        send, server, {"content": "x", "components": [row(select("s", 26))]})
    assert "In components.0.components.0.options: " in refusal(
        send, server, {"content": "x", "components": [row(select("s", 0))]})
    assert "In components.0.components: A select menu must be alone" in refusal(
        send, server, {"content": "x", "components": [row(select("s", 2), button("b"))]})
    assert "In components.0.components.0.max_values" in refusal(
        send, server, {"content": "x", "components": [row(select("s", 2, max_values=3))]})
    assert "In components.0.components.0.placeholder" in refusal(
        send, server, {"content": "x", "components": [row(select("s", 2, placeholder="p" * 151))]})
    long_label = select("s", 1)
    long_label["options"][0]["label"] = "l" * 101
    assert "In components.0.components.0.options.0.label" in refusal(
        send, server, {"content": "x", "components": [row(long_label)]})
    link = {"type": 2, "style": 5, "url": "https://example.org", "label": "Web", "custom_id": "x"}
    assert "In components.0.components.0.custom_id" in refusal(send, server, {"content": "x",
                                                                              "components": [row(link)]})
    edge = [row(*[button(f"{i}{j}" + "c" * 98, "l" * 80) for j in range(5)]) for i in range(4)]
    widest = select("s" * 100, 25, max_values=25, placeholder="p" * 150)
    widest["options"][0].update(label="l" * 100, value="v" * 100, description="d" * 100)
    link.pop("custom_id")
    assert len(send(server, {"content": "x", "components": [*edge, row(widest)]})["components"]) == 5
    assert send(server, {"content": "x", "components": [row(link)]})


def test_components_v2_rules(server: OfflineServer):
    assert "In content: " in refusal(send, server, {"content": "x", "flags": V2, "components": [text("t")]})
    assert "In embeds: " in refusal(send, server, {"embeds": [{"title": "t"}], "flags": V2,
                                                   "components": [text("t")]})
    # 40 components, counted nested (a container and its children, a row and its buttons).
    container = {"type": 17, "components": [text(f"t{i}") for i in range(39)]}
    assert "at most 40 components" in refusal(send, server, {"flags": V2, "components": [container, text("x")]})
    assert send(server, {"flags": V2, "components": [container]})
    # 4,000 characters of text across the components.
    assert "at most 4000 characters" in refusal(send, server, {"flags": V2,
                                                               "components": [text("a" * 2000), text("b" * 2001)]})
    assert send(server, {"flags": V2, "components": [text("a" * 2000), text("b" * 2000)]})
    # What may go where: no thumbnail on its own, a section's accessory, 1-10 gallery items, files by attachment.
    assert "In components.0.type" in refusal(send, server, {"flags": V2, "components": [
        {"type": 11, "media": {"url": "https://x/y.png"}}]})
    section = {"type": 9, "components": [text("a")], "accessory": {"type": 11, "media": {"url": "attachment://m.png"}}}
    assert "In components.0.components: " in refusal(send, server, {"flags": V2, "components": [
        {**section, "components": [text(str(i)) for i in range(4)]}]})
    assert "In components.0.accessory" in refusal(send, server, {"flags": V2, "components": [
        {**section, "accessory": text("no")}]})
    assert "In components.0.items: " in refusal(send, server, {"flags": V2, "components": [
        {"type": 12, "items": [{"media": {"url": "attachment://m.png"}}] * 11}]})
    assert "In components.0.file.url" in refusal(send, server, {"flags": V2, "components": [
        {"type": 13, "file": {"url": "https://x/y.png"}}]})
    assert "custom id cannot be duplicated" in refusal(send, server, {"flags": V2, "components": [
        {**section, "accessory": button("same")}, row(button("same"))]})
    gallery = {"type": 12, "items": [{"media": {"url": "https://x/y.png"}}] * 10}
    assert send(server, {"flags": V2, "components": [section, {"type": 14}, row(button("b")), gallery]})
    # The flag cannot be removed once set; set by an edit, the old content must go.
    card = send(server, {"flags": V2, "components": [text("card")]})
    assert "In flags: " in refusal(edit, server, card, {"flags": 0, "content": "plain"})
    plain = send(server, {"content": "plain"})
    assert "In content: " in refusal(edit, server, plain, {"flags": V2, "components": [text("card")]})
    assert edit(server, plain, {"flags": V2, "content": None, "components": [text("card")]})["flags"] & V2


def test_allowed_mentions(server: OfflineServer):
    alice = str(server.user("alice").id)
    assert "mutually exclusive" in refusal(
        send, server, {"content": "hi", "allowed_mentions": {"parse": ["users"], "users": [alice]}})
    assert "In allowed_mentions.parse" in refusal(send, server, {"content": "hi",
                                                                 "allowed_mentions": {"parse": ["here"]}})
    assert "In allowed_mentions.users" in refusal(send, server, {"content": "hi",
                                                                 "allowed_mentions": {"users": [alice] * 101}})
    # discord.py's shapes: nobody (AllowedMentions.none()), one user only, and parse with an empty list.
    for shape in ({"parse": []}, {"parse": [], "users": [alice], "replied_user": False},
                  {"parse": ["users", "roles", "everyone"]}, {"parse": ["users"], "users": []}):
        assert send(server, {"content": f"<@{alice}>", "allowed_mentions": shape})


def test_flags_a_request_may_set(server: OfflineServer):
    assert "In flags: " in refusal(send, server, {"content": "x", "flags": 64})  # ephemeral: interactions only
    assert "In flags: " in refusal(send, server, {"content": "x", "flags": 1 << 1})  # Discord's own flag
    assert send(server, {"content": "x", "flags": (1 << 2) | (1 << 12)})  # suppress embeds, notifications
    assert "In data.flags: " in refusal(callback, server, {"type": 4, "data": {"content": "x", "flags": 1 << 1}})
    assert callback(server, {"type": 4, "data": {"content": "x", "flags": 64}})


def test_interaction_answers_are_checked_with_their_data_path(server: OfflineServer):
    assert "In data.content: Must be 2000" in refusal(callback, server, {"type": 4, "data": {"content": "x" * 2001}})
    choices = [{"name": f"c{i}", "value": str(i)} for i in range(26)]
    assert "In data.choices: Must be 25 or fewer" in refusal(
        callback, server, {"type": 8, "data": {"choices": choices}}, kind=4)
    assert "In data.choices.0.name" in refusal(callback, server,
                                               {"type": 8, "data": {"choices": [{"name": "n" * 101, "value": "v"}]}},
                                               kind=4)
    assert callback(server, {"type": 8, "data": {"choices": [{"name": "n" * 100, "value": "v" * 100}] * 25}}, kind=4)
    made = interaction(server)
    url = f"/interactions/{made.id}/{made.token}/callback"
    server.handle("http", "POST", CALLBACK, url, {"type": 5, "data": {"flags": 64}}, [], None)
    follow = f"/webhooks/{made.id}/{made.token}"
    assert "In components.0.components.0.custom_id" in refusal(
        server.handle, "http", "POST", FOLLOWUP, follow, {"content": "x", "components": [row(button("c" * 101))]}, [],
        None)


def test_a_modal(server: OfflineServer):
    field = {"type": 4, "custom_id": "name", "style": 1, "label": "Name"}
    good = {"title": "t" * 45, "custom_id": "form", "components": [row(field)]}
    assert callback(server, {"type": 9, "data": good})
    assert "In data.title: Must be 45" in refusal(callback, server, {"type": 9, "data": {**good, "title": "t" * 46}})
    assert "In data.components: " in refusal(callback, server, {"type": 9, "data": {**good, "components": []}})
    assert "In data.components.0.components.0.label" in refusal(
        callback, server, {"type": 9, "data": {**good, "components": [row({**field, "label": "l" * 46})]}})


def test_a_thread_name_is_1_to_100_characters(server: OfflineServer):
    channel = server.channel("general").id

    def thread(body: dict[str, Any]) -> dict[str, Any]:
        return server.handle("http", "POST", THREADS, f"/channels/{channel}/threads", body, [], None)  # type: ignore[no-any-return]

    assert "In name: Must be 100 or fewer" in refusal(thread, {"name": "n" * 101, "type": 11})
    assert "In name: " in refusal(thread, {"name": "", "type": 11})
    assert "In auto_archive_duration" in refusal(thread, {"name": "Round 1", "type": 11, "auto_archive_duration": 99})
    assert thread({"name": "n" * 100, "type": 11, "auto_archive_duration": 10080})["name"] == "n" * 100


def test_at_most_10_files(server: OfflineServer):
    channel = server.channel("general").id
    files = [(f"f{i}.txt", b"x") for i in range(11)]
    assert "In attachments: Must be 10 or fewer" in refusal(
        server.handle, "http", "POST", MESSAGES, f"/channels/{channel}/messages", {"content": "x"}, files, None)
    assert len(server.handle("http", "POST", MESSAGES, f"/channels/{channel}/messages", {"content": "x"}, files[:10],
                             None)["attachments"]) == 10
