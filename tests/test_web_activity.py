"""The live board as a Discord Activity (web/activity.py, web/sdk.py): the page inside Discord's iframe has no
cookie, so it proves who it is with an OAuth2 code, which the bot exchanges and checks with Discord itself (the
user, the activity instance, its channel: here the fake Discord on 127.0.0.1), and then holds a session token that
opens the channel's game exactly as the cookie does. The bot in this process, against the offline Discord."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from discord_helpers import OfflineDiscord, make_bot
from discord_offline.fake_discord import FakeDiscord
from web_helpers import SECRET, activity_game, free_port, record_of

from web import sdk
from web.config import WebConfig


@pytest.fixture
async def activity(tmp_path: Path) -> AsyncIterator[tuple[OfflineDiscord, FakeDiscord, str]]:
    async with activity_game(tmp_path) as served:
        yield served


async def open_session(http: aiohttp.ClientSession, base: str, body: dict[str, Any],
                       origin: str | None = None) -> tuple[int, dict[str, Any]]:
    async with http.post(f"{base}/activity/session", json=body, headers={"Origin": origin or base}) as r:
        return r.status, (await r.json() if r.content_type == "application/json" else {})


def test_the_vendored_sdk_is_the_registrys_pinned_tarball_with_its_licence():
    data = sdk.TARBALL.read_bytes()
    assert sdk.integrity_of(data) == sdk.INTEGRITY == (
        "sha512-FNoe5PbSkoKEbqPubaBmq6tlEMOftMjR3gu55YrdrrKmBfKKM4i9P/Z+Zxl0RZdJcKviBwVcTyYMMPM/aGex/w==")
    assert "MIT License" in (sdk.TARBALL.parent / "LICENSE.md").read_text(encoding="utf-8")
    modules = sdk.modules()
    assert "index.mjs" in modules and "Discord.mjs" in modules and "commands/authorize.mjs" in modules
    imports = [line for body in modules.values() for line in body.decode().splitlines()
               if line.startswith(("import ", "export ")) and " from '" in line]
    assert imports and all(" from '." in line for line in imports)  # relative imports only: no bundler needed


def test_the_activity_needs_both_its_client_id_and_secret():
    assert not WebConfig(public_url="https://risk.example.org").activity
    config = WebConfig.from_dict({"public_url": "https://risk.example.org", "client_id": "123",
                                  "client_secret": "s"})
    assert config.activity and config.origins == {"https://risk.example.org", "https://123.discordsays.com"}
    for bad in ({"client_id": "123"}, {"client_id": "abc", "client_secret": "s"}):
        with pytest.raises(ValueError):
            WebConfig.from_dict({"public_url": "https://risk.example.org", **bad})


def test_the_activity_is_set_up_from_config_toml(tmp_path):
    from bot import Config

    path = tmp_path / "config.toml"
    path.write_text('[web]\npublic_url = "https://risk.example.org"\nclient_id = "123"\nclient_secret = "s"\n',
                    encoding="utf-8")
    web = Config.load(path).web
    assert web.activity and web.discord_api == "https://discord.com/api/v10"
    assert "https://discord.com" in web.frame_ancestors.split()
    path.write_text('[web]\npublic_url = "https://risk.example.org"\nclient_id = "123"\n', encoding="utf-8")
    with pytest.raises(SystemExit, match="client_id and client_secret"):
        Config.load(path)


async def test_a_player_in_the_activity_gets_a_session_for_their_seat_and_plays_with_it(activity):
    d, fake, base = activity
    record = await record_of(d)
    seat = record.game().state.current
    who = "alice" if record.player(seat).user_id == d.user("alice").id else "bob"
    instance = fake.launch_activity(who, "general")
    async with aiohttp.ClientSession() as http:  # no cookie jar: everything rides on the token
        async with http.get(f"{base}/?frame_id=f&instance_id={instance.id}&channel_id={instance.channel_id}"
                            "&platform=desktop") as r:
            page = await r.text()
            assert r.status == 200 and "/static/activity.js" in page
            assert "frame-ancestors https://discord.com" in r.headers["Content-Security-Policy"]
        async with http.get(f"{base}/static/sdk/commands/authorize.mjs") as r:
            assert r.status == 200 and r.content_type == "text/javascript"
        status, got = await open_session(http, base, {"code": fake.authorize(who), "instance_id": instance.id,
                                                      "channel_id": str(instance.channel_id)})
        assert status == 200 and got["game"] == record.id, got
        assert fake.access_tokens[got["access_token"]] == d.user(who).id  # what the page hands to authenticate
        bearer = {"Authorization": f"Bearer {got['session']}"}
        async with http.get(f"{base}/g/{record.id}/data", headers=bearer) as r:
            data = await r.json()
            assert r.status == 200 and data["you"] == seat and data["game"] == record.id
        async with http.get(f"{base}/g/{record.id}/map.png", headers=bearer) as r:
            assert r.status == 200 and (await r.read()).startswith(b"\x89PNG")
        ws = await http.ws_connect(f"{base.replace('http', 'ws')}/g/{record.id}/ws", origin=base,
                                   protocols=("risk-board", f"session.{got['session']}"))
        assert ws.protocol == "risk-board"
        await ws.send_json({"type": "hello", "since": 0})
        board = (await ws.receive_json(timeout=10))["board"]
        assert board["you"] == seat
        where = board["legal"]["place"]["territories"][0]
        await ws.send_json({"type": "move", "id": "a1", "move": "place", "territory": where, "count": 1})
        types = {(await ws.receive_json(timeout=10))["type"] for _ in range(2)}
        assert types == {"done", "board"}
        await ws.close()
        await d.bot.board.settled()
    after = await record_of(d)
    assert after.last_seq == record.last_seq + 1 and after.game().state.armies[where] == \
        record.game().state.armies[where] + 1


async def test_someone_not_seated_gets_the_spectators_board(activity):
    d, fake, base = activity
    record = await record_of(d)
    instance = fake.launch_activity("carol", "general")
    async with aiohttp.ClientSession() as http:
        status, got = await open_session(http, base, {"code": fake.authorize("carol"), "instance_id": instance.id,
                                                      "channel_id": str(instance.channel_id)})
        assert status == 200
        ws = await http.ws_connect(f"{base.replace('http', 'ws')}/g/{record.id}/ws", origin=base,
                                   protocols=("risk-board", f"session.{got['session']}"))
        await ws.send_json({"type": "hello", "since": 0})
        board = (await ws.receive_json(timeout=10))["board"]
        assert board["you"] is None and "legal" not in board and "hand" not in board
        await ws.close()


async def test_the_pages_word_is_never_taken_for_who_or_where_it_is(activity):
    d, fake, base = activity
    record = await record_of(d)
    instance = fake.launch_activity("alice", "general")
    other = fake.channel("elsewhere")
    good = {"instance_id": instance.id, "channel_id": str(instance.channel_id)}
    async with aiohttp.ClientSession() as http:
        cases = {
            "instance": {**good, "instance_id": "i-forged"},
            "channel": {**good, "channel_id": str(other.id)},    # a real instance, another channel claimed
            "user": good,                                          # bob's own code, but bob is not in the instance
        }
        for reason, body in cases.items():
            code = fake.authorize("bob" if reason == "user" else "alice")
            status, got = await open_session(http, base, {**body, "code": code})
            assert (status, got["refused"]) == (403, reason), reason
            assert "could not confirm" in got["text"]
        status, got = await open_session(http, base, {**good, "code": "not-a-code"})
        assert (status, got["refused"]) == (403, "code")
        code = fake.authorize("alice")
        assert (await open_session(http, base, {**good, "code": code}))[0] == 200
        assert (await open_session(http, base, {**good, "code": code}))[1]["refused"] == "code"  # used once
        status, _ = await open_session(http, base, {**good, "code": fake.authorize("alice")},
                                       origin="https://evil.example")
        assert status == 403
        # A session token opens its own game only, in a header or as the WebSocket's subprotocol.
        _, got = await open_session(http, base, {**good, "code": fake.authorize("alice")})
        token = got["session"]
        async with http.get(f"{base}/g/{record.id + 1}/data", headers={"Authorization": f"Bearer {token}"}) as r:
            assert r.status == 403
        async with http.get(f"{base}/g/{record.id}/data", headers={"Authorization": f"Bearer {token}x"}) as r:
            assert r.status == 403
        async with http.get(f"{base}/g/{record.id}/data", headers={"Authorization": f"Bearer {token}",
                                                                  "Origin": "https://evil.example"}) as r:
            assert r.status == 403
        for protocols, origin in (((f"session.{token}x",), base), ((f"session.{token}",), "https://evil.example")):
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(f"{base.replace('http', 'ws')}/g/{record.id}/ws", origin=origin,
                                      protocols=protocols)
            assert refused.value.status == 403


async def test_without_activity_settings_there_is_no_activity_page(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    bot = make_bot(tmp_path / "g.db")
    bot.config.web = WebConfig(listen=f"127.0.0.1:{port}", public_url=base, secret=SECRET)
    async with OfflineDiscord(bot, strict=True), aiohttp.ClientSession() as http:
        for method, path in (("GET", "/"), ("POST", "/activity/session"), ("GET", "/static/sdk/index.mjs")):
            async with http.request(method, f"{base}{path}", headers={"Origin": base}) as r:
                assert r.status in (404, 405), path


async def test_the_board_button_and_the_board_command_launch_the_activity(activity):
    d, _fake, _base = activity
    d.server.enable_activities()
    record = await record_of(d)
    panel = d.message((await d.bot.store.live_panel(record.id)).message_id)
    for step in (await d.click("alice", "Board", panel), await d.send_command("carol", "general", "board", {})):
        assert not step.problems, step.problems
        assert step.interaction is not None and step.interaction.response_type == 12  # LAUNCH_ACTIVITY
        assert not [m for m in step if m.ephemeral]  # no link: Discord opens the board itself


async def test_syncing_the_commands_keeps_the_activitys_entry_point_command(tmp_path, monkeypatch):
    import discord.http

    import bot as bot_module

    async with FakeDiscord() as fake:
        entry = fake.enable_activities()
        monkeypatch.setattr(discord.http.Route, "BASE", fake.api_url)
        config = bot_module.Config(database=str(tmp_path / "sync.db"), token=fake.token)
        assert await bot_module._sync(config, None, False) == 0
        registered = fake.server.commands[None]
        assert [c for c in registered if c.get("type") == 4] == [{**entry, "version": registered[-1]["version"],
                                                                   "id": entry["id"]}]
        assert {"risk", "board"} - {c["name"] for c in registered} == {"board"}  # no [web]: no /board
        assert "risk" in {c["name"] for c in registered}
        assert not fake.problems, fake.problems
        # What Discord does with a bulk update that drops it, which tree.sync() alone would send:
        bot = bot_module.create_bot(config)
        async with bot:
            await bot.login(fake.token)
            with pytest.raises(discord.HTTPException) as refused:
                await bot.tree.sync()
            assert (refused.value.status, refused.value.code) == (400, 50240)  # Discord's own code
        assert [c for c in fake.server.commands[None] if c.get("type") == 4]


async def test_sign_ins_are_limited_for_the_whole_server(activity):
    d, fake, base = activity
    from web.server import Bucket

    d.bot.board.sign_ins = Bucket(lambda: 0.0, rate=1.0, burst=2)  # no time passes: two, then no more
    d.bot.board.sign_in_wait = 0.0
    instance = fake.launch_activity("alice", "general")
    body = {"instance_id": instance.id, "channel_id": str(instance.channel_id)}
    async with aiohttp.ClientSession() as http:
        statuses = [(await open_session(http, base, {**body, "code": fake.authorize("alice")}))[0] for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert len(fake.access_tokens) == 2  # the third never reached Discord


async def test_when_discord_cannot_be_reached_the_sign_in_fails_plainly(activity):
    d, fake, base = activity
    d.bot.board.discord.api = f"http://127.0.0.1:{free_port()}/api/v10"  # nobody listens there
    instance = fake.launch_activity("alice", "general")
    async with aiohttp.ClientSession() as http:
        status, _ = await open_session(http, base, {"code": fake.authorize("alice"), "instance_id": instance.id,
                                                    "channel_id": str(instance.channel_id)})
    assert status == 502


def token_calls(fake: FakeDiscord) -> int:
    return sum(1 for c in fake.calls if c.path.endswith("/oauth2/token"))


async def test_an_outsiders_malformed_sign_ins_cost_nothing_and_delay_no_genuine_one(activity):
    """Hundreds of sign-ins of the wrong shape at once (from any origin a script likes) are refused before the
    shared budget is touched, and never reach Discord: a genuine sign-in right after goes straight through."""
    import asyncio

    d, fake, base = activity
    instance = fake.launch_activity("alice", "general")
    good = {"instance_id": instance.id, "channel_id": str(instance.channel_id)}
    bad: list[Any] = [{}, {**good}, {**good, "code": ""}, {**good, "code": "a b"}, {**good, "code": "x" * 201},
                      {**good, "code": "c", "instance_id": "forged"}, {**good, "code": "c", "channel_id": "12ab"},
                      {**good, "code": "c", "channel_id": 1234567890123456789}, {**good, "code": "c", "more": 1},
                      [good], "[" * 1999, "not json", {**good, "code": {"nested": ["deep"]}}]
    async with aiohttp.ClientSession() as http:
        async def outsider(body: Any) -> int:
            data = body if isinstance(body, str) else json.dumps(body)
            async with http.post(f"{base}/activity/session", data=data, headers={"Origin": base}) as r:
                return r.status
        statuses = await asyncio.gather(*(outsider(body) for body in bad * 25))
        assert set(statuses) == {400}
        assert token_calls(fake) == 0 and d.bot.board.sign_ins.ready()
        started = asyncio.get_running_loop().time()
        status, got = await open_session(http, base, {**good, "code": fake.authorize("alice")})
        assert status == 200 and got["game"] == (await record_of(d)).id
        assert asyncio.get_running_loop().time() - started < 1.0   # it waited for nobody


async def test_many_genuine_users_behind_one_proxy_address_all_sign_in(activity):
    """Thirty players open the Activity at once, all through one address (as inside Discord, whose proxy names
    no client): more than the shared budget holds at once, so some wait their turn; every one signs in."""
    import asyncio

    _d, fake, base = activity
    names = [f"player{i}" for i in range(30)]
    instance = None
    for name in names:
        instance = fake.launch_activity(name, "general")
    assert instance is not None
    async with aiohttp.ClientSession() as http:
        answers = await asyncio.gather(*(open_session(http, base, {
            "code": fake.authorize(name), "instance_id": instance.id, "channel_id": str(instance.channel_id)})
            for name in names))
    assert [status for status, _ in answers] == [200] * 30
    assert token_calls(fake) == 30


async def test_a_failed_code_or_instance_is_refused_at_once_and_an_address_that_keeps_failing_waits(activity):
    """A code is good once, and an instance Discord did not know stays unknown for a while: asked again, the bot
    refuses without asking Discord. An address whose sign-ins Discord keeps refusing is slowed down, by the
    address the configured proxy header names; another address signs in meanwhile."""
    d, fake, base = activity
    d.bot.board.config = WebConfig(**{**d.bot.board.config.__dict__, "client_address_header": "X-Client-Address"})
    instance = fake.launch_activity("alice", "general")
    good = {"instance_id": instance.id, "channel_id": str(instance.channel_id)}
    async with aiohttp.ClientSession() as http:
        async def sign_in(body: dict[str, Any], address: str) -> tuple[int, Any]:
            async with http.post(f"{base}/activity/session", json=body,
                                 headers={"Origin": base, "X-Client-Address": address}) as r:
                return r.status, await r.json()
        status, got = await sign_in({**good, "code": "never-issued"}, "203.0.113.9")
        assert (status, got["refused"]) == (403, "code") and token_calls(fake) == 1
        status, got = await sign_in({**good, "code": "never-issued"}, "203.0.113.9")
        assert (status, got["refused"]) == (403, "code") and token_calls(fake) == 1   # not asked again
        status, got = await sign_in({**good, "instance_id": "i-unknown", "code": fake.authorize("alice")},
                                    "203.0.113.9")
        assert (status, got["refused"]) == (403, "instance")
        calls = len(fake.calls)
        status, got = await sign_in({**good, "instance_id": "i-unknown", "code": fake.authorize("alice")},
                                    "203.0.113.9")
        assert (status, got["refused"]) == (403, "instance") and len(fake.calls) == calls
        for i in range(20):
            await sign_in({**good, "code": f"made-up-{i}"}, "203.0.113.9")
        status, got = await sign_in({**good, "code": fake.authorize("alice")}, "203.0.113.9")
        assert (status, got["refused"]) == (429, "slow")   # that address has failed too often
        status, got = await sign_in({**good, "code": fake.authorize("alice")}, "198.51.100.7")
        assert status == 200, got


async def test_leave_works_inside_the_activity_with_its_session(activity):
    """Inside Discord the page has no cookie and comes from Discord's proxy: Leave with its Bearer session, from
    that origin, revokes the session and closes its board."""
    d, fake, base = activity
    record = await record_of(d)
    instance = fake.launch_activity("alice", "general")
    proxy = f"https://{fake.application_id}.discordsays.com"
    async with aiohttp.ClientSession() as http:
        status, got = await open_session(http, base, {"code": fake.authorize("alice"), "instance_id": instance.id,
                                                      "channel_id": str(instance.channel_id)}, origin=proxy)
        assert status == 200
        bearer = {"Authorization": f"Bearer {got['session']}"}
        ws = await http.ws_connect(f"{base.replace('http', 'ws')}/g/{record.id}/ws", origin=proxy,
                                   protocols=("risk-board", f"session.{got['session']}"))
        await ws.send_json({"type": "hello", "since": 0})
        assert (await ws.receive_json(timeout=10))["type"] == "board"
        async with http.post(f"{base}/g/{record.id}/leave", headers={**bearer, "Origin": proxy}) as r:
            assert r.status == 200
        closed = await ws.receive_json(timeout=10)
        assert closed["type"] == "closed" and closed["reason"] == "session"
        async with http.get(f"{base}/g/{record.id}/data", headers={**bearer, "Origin": proxy}) as r:
            assert r.status == 403
