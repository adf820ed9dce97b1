"""End to end: the real ``bot.py`` process against a fake Discord on 127.0.0.1 (tests/e2e, docs/e2e.md).

Each test starts the bot as a child process (``tests/e2e/launch.py``), talks to it only through the fake's
gateway and REST API, and reads its SQLite database read-only to check what it stored. Every wait is on a
condition with a deadline; every child process is killed when its test ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import json
import random
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import discord
import pytest
from discord_helpers import command_for
from discord_offline.fake_discord import IDENTIFY, RESUME, CommandCatalog, FakeDiscord, Interaction
from e2e.launch import BotProcess, command_specs
from e2e.players import ACTION, Table, engine_game, stored_game
from PIL import Image

from engine import Game
from engine.verify import verify_events

pytestmark = [pytest.mark.asyncio, pytest.mark.slow,  # the real bot process against the fake Discord
              # aiohttp's own multipart reader (the fake's uploads) calls its deprecated unread_data().
              pytest.mark.filterwarnings("ignore:unread_data:DeprecationWarning")]

SETTINGS = {"deployment": "auto", "setup_batch": 10}
# Dice seeds (E2E_SEED) whose first game is short when the scripted humans (seats 1-2) play against two AIs:
# 94 and 122 human actions (engine_game computes it; see docs/e2e.md for how to pick others).
SHORT_GAME = "game-147"
KILL_GAME = "game-135"
CALLBACK = "/interactions/{webhook_id}/{webhook_token}/callback"
FOLLOWUP = "/webhooks/{webhook_id}/{webhook_token}"
CHANNEL_MESSAGES = "/channels/{channel_id}/messages"


@pytest.fixture(scope="session")
def command_payload(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return command_specs(tmp_path_factory.mktemp("commands"))


@pytest.fixture
async def fake(command_payload: list[dict[str, Any]]) -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord(commands=CommandCatalog(command_payload)) as server:
        server.channel("general")
        yield server


@pytest.fixture
def bots(fake: FakeDiscord, tmp_path: Path) -> Iterator[Callable[..., BotProcess]]:
    """Make bot processes for this test; every one is killed when the test ends, whatever happened."""
    made: list[BotProcess] = []

    def make(**options: Any) -> BotProcess:
        process = BotProcess(fake.url, tmp_path / f"bot-{len(made)}", **options)
        made.append(process)
        return process

    try:
        yield make
    finally:
        for process in made:
            process.stop()


def clean(fake: FakeDiscord, bot: BotProcess) -> None:
    """Nothing went wrong: no request Discord would refuse, no error in the bot's log."""
    assert not fake.problems, fake.problems[:5]
    assert not fake.rejected(), [(c.route, c.status, c.json) for c in fake.rejected()][:5]
    assert not bot.errors(), "\n".join(bot.errors()[:20])


def without_localizations(value: Any) -> Any:
    """The command payload without the ``*_localizations`` maps that a real sync adds (the translator runs
    only then; ``sync --dry-run`` prints the payload before translation)."""
    if isinstance(value, list):
        return [without_localizations(v) for v in value]
    if isinstance(value, dict):
        return {k: without_localizations(v) for k, v in value.items() if not k.endswith("_localizations")}
    return value


def actions_of(interactions: list[Interaction]) -> list[Interaction]:
    return [i for i in interactions if isinstance(i.tag, tuple) and i.tag[0] == ACTION]


# ---------------------------------------------------------------------------------------------- start-up


async def test_the_bot_logs_in_and_answers_a_first_command(fake: FakeDiscord, bots: Callable[..., BotProcess]):
    async with asyncio.timeout(60):
        assert all(host == "127.0.0.1" for host, *_ in fake._runner.addresses)  # type: ignore[union-attr]
        bot = bots()
        bot.start()
        await bot.wait_ready()
        routes = [(c.route, c.status) for c in fake.calls]
        assert ("GET /users/@me", 200) in routes
        assert ("GET /oauth2/applications/@me", 200) in routes
        identify = fake.frames(IDENTIFY)
        assert len(identify) == 1 and identify[0].path == "/"
        assert identify[0].query["v"] == "10" and identify[0].query["encoding"] == "json"
        assert identify[0].data["intents"] == discord.Intents.default().value  # no privileged intents

        answer = await (await fake.command("alice", "general", "risk help")).wait_settled(20)
        assert answer.callback_type == 4 and answer.answers[0].ephemeral
        assert "/risk new" in answer.text
        assert answer.latency is not None and answer.latency < 3  # Discord's deadline for a first response
        clean(fake, bot)

        [callback] = fake.calls_to("POST", CALLBACK)
        assert callback.params == {"with_response": "1"}


async def test_the_fake_answers_as_discord_does(fake: FakeDiscord):
    """The fake's own contract, without a bot: what discord.py relies on."""
    alice = fake.user("alice")
    channel = fake.channel("general")
    auth = {"Authorization": "Bot e2e-token"}
    async with asyncio.timeout(30), aiohttp.ClientSession(headers=auth) as session:
        async with session.get(f"{fake.api_url}/gateway/bot") as r:
            assert r.status == 200 and r.headers["Content-Type"] == "application/json"  # exactly, no charset
            assert (await r.json())["url"] == fake.gateway_url
        async with session.get(f"{fake.api_url}/users/@me", headers={"Authorization": "Bot wrong"}) as r:
            assert r.status == 401
        async with session.post(f"{fake.api_url}/users/@me/channels", json={"recipient_id": str(alice.id)}) as r:
            assert r.status == 200 and (await r.json())["type"] == 1  # a DM channel
        form = aiohttp.FormData()
        form.add_field("payload_json", '{"content": "hello", "attachments": [{"id": 0, "filename": "a.png"}]}')
        form.add_field("files[0]", b"\x89PNG\r\n\x1a\n" + b"0" * 100, filename="a.png", content_type="image/png")
        async with session.post(f"{fake.api_url}/channels/{channel.id}/messages", data=form) as r:
            message = await r.json()
            assert r.status == 200 and message["attachments"][0]["filename"] == "a.png"
        async with session.patch(f"{fake.api_url}/channels/{channel.id}/messages/{message['id']}",
                                 json={"content": "edited"}) as r:
            assert r.status == 200 and (await r.json())["content"] == "edited"
        fake.rate_limit("POST", CHANNEL_MESSAGES, times=1, retry_after=0.25)
        async with session.post(f"{fake.api_url}/channels/{channel.id}/messages", json={"content": "x"}) as r:
            assert r.status == 429 and r.headers["Via"] and r.headers["X-RateLimit-Remaining"] == "0"
            assert r.headers["Retry-After"] == "1" and r.headers["X-RateLimit-Reset-After"] == "0.250"
            assert await r.json() == {"message": "You are being rate limited.", "retry_after": 0.25, "global": False}
        async with session.post(f"{fake.api_url}/channels/{channel.id}/messages", json={"content": ""}) as r:
            assert r.status == 400 and (await r.json())["code"] == 50006  # Discord refuses empty messages
        async with session.get(f"{fake.api_url}/no/such/route") as r:
            assert r.status == 404
        async with session.ws_connect(fake.gateway_url + "?v=10&encoding=json") as ws:
            hello = await ws.receive_json(timeout=5)
            assert hello["op"] == 10 and hello["d"]["heartbeat_interval"] > 0
            await ws.send_json({"op": 2, "d": {"token": "e2e-token", "intents": 0, "properties": {}}})
            ready = await ws.receive_json(timeout=5)
            guild = await ws.receive_json(timeout=5)
            assert (ready["t"], ready["s"], guild["t"], guild["s"]) == ("READY", 1, "GUILD_CREATE", 2)
            assert ready["d"]["resume_gateway_url"].startswith("ws://127.0.0.1:")
            assert {c["name"] for c in guild["d"]["channels"]} >= {"general"}
            await ws.send_json({"op": 1, "d": 2})
            assert (await ws.receive_json(timeout=5))["op"] == 11
    assert [c.status for c in fake.rejected()] == [401, 400, 404]


async def test_sync_registers_the_commands_in_the_guild(fake: FakeDiscord, bots: Callable[..., BotProcess],
                                                        command_payload: list[dict[str, Any]]):
    async with asyncio.timeout(60):
        bot = bots()
        bot.start("sync", "--guild", str(fake.guild_id))
        assert await bot.wait_exit(30) == 0, bot.stderr()
        assert f"to guild {fake.guild_id}" in bot.stdout()
        [put] = fake.calls_to("PUT", "/applications/{application_id}/guilds/{guild_id}/commands")
        assert put.status == 200
        assert f"/applications/{fake.application_id}/guilds/{fake.guild_id}/commands" == put.path
        assert [c["name"] for c in put.json] == [c["name"] for c in command_payload]
        assert without_localizations(put.json) == without_localizations(command_payload)
        assert [c["name"] for c in fake.server.commands[fake.guild_id]] == [c["name"] for c in command_payload]
        assert not fake.frames(IDENTIFY)  # syncing does not connect to the gateway
        clean(fake, bot)


async def test_the_running_bot_names_commands_by_the_mentions_of_the_ids_discord_gave(fake: FakeDiscord,
                                                                                      bots: Callable[..., BotProcess]):
    """`bot.py sync --guild` registers the commands; the bot started next asks Discord for them (the global ones
    and its development server's) and its sentences carry `</risk new:ID>`, which Discord shows localized."""
    async with asyncio.timeout(90):
        sync = bots()
        sync.start("sync", "--guild", str(fake.guild_id))
        assert await sync.wait_exit(30) == 0, sync.stderr()
        assert not fake.calls_to("GET", "/applications/{application_id}/guilds/{guild_id}/commands")  # not syncing
        risk = next(c for c in fake.server.commands[fake.guild_id] if c["name"] == "risk")
        bot = bots(settings={"dev_guild": fake.guild_id})
        bot.start()
        await bot.wait_ready()
        assert [c.status for c in fake.calls_to("GET", "/applications/{application_id}/commands")] == [200]
        assert [c.status for c in fake.calls_to("GET", "/applications/{application_id}/guilds/{guild_id}/commands")
                ] == [200]
        answer = await (await fake.command("alice", "general", "risk help", locale="no")).wait_settled(20)
        assert f"</risk new:{risk['id']}>" in answer.text and "/risk ny" not in answer.text
        clean(fake, bot)


async def test_a_wrong_token_stops_the_bot_with_a_clear_message(fake: FakeDiscord,
                                                                 bots: Callable[..., BotProcess]):
    async with asyncio.timeout(60):
        bot = bots()
        bot.start(token="not-the-token")
        code = await bot.wait_exit(30)
        assert code != 0
        assert "Discord refused the token" in bot.stderr()
        assert [(c.route, c.status) for c in fake.calls] == [("GET /users/@me", 401)]
        assert not fake.frames(IDENTIFY)


# ---------------------------------------------------------------------------------------------- a whole game


async def test_a_whole_game_of_two_humans_and_two_ais(fake: FakeDiscord, bots: Callable[..., BotProcess]):
    humans, ais, expected = engine_game(SHORT_GAME, settings=SETTINGS)
    async with asyncio.timeout(150):
        bot = bots(seed=SHORT_GAME)
        bot.start()
        await bot.wait_ready()
        # Placing and occupying go through the bot's buttons and menus; the rest are slash commands.
        table = Table(fake, bot.database, "world", ["alice", "bob"], settings=SETTINGS, buttons=1.0)
        game_id = await table.open()
        result = await table.play(max_steps=4 * (humans + ais) + 100, seconds=120)
        assert result == "over", (result, table.errors)
        assert not table.errors, table.errors[:5]
        assert table.actions == humans
        assert 0 < table.by_buttons < humans
        kinds = {i.kind for i in table.sent}
        assert kinds == {2, 3}  # slash commands, and button presses and menu choices
        assert any("values" in i.payload["data"] for i in table.sent)

        # Every move was answered (privately, in words, or by the edit of the panel tapped); the channel reads
        # it on the turn panel, edited in place with the map: a real PNG, sent as a multipart upload.
        moves = actions_of(table.sent)
        assert len(moves) == humans and all(move.settled and move.answers for move in moves)
        over = await fake.wait_message(lambda m: any("wins" in (e.get("title") or "") for e in m.embeds), 30,
                                       channel=table.channel, what="the game-over message")
        public = fake.messages(table.channel, public=True)  # the channel has told everything
        turns = [m for m in public if m.content.startswith("✅")]  # each human turn's panel, now its summary
        assert turns and all(m.filenames() == ["map.png"] for m in turns)
        assert any(m.versions for m in turns)  # edited in place as the turns went
        data = turns[-1].attachments[0].data
        assert len(data) > 10_000 and data.startswith(b"\x89PNG")
        assert Image.open(io.BytesIO(data)).size[0] >= 800
        # The AIs' turns and the turn panels are channel messages with the map too.
        ai_turns = [m for m in public if m.content.startswith("🤖")]
        # (but a run of AI turns that ended the game: the game-over message right after it carries the final map)
        last = [m.id for m in public if m.content.startswith("🤖")][-1]
        assert ai_turns and all(m.filenames() == ["map.png"] for m in ai_turns if m.id != last or not any(
            "wins" in (e.get("title") or "") for n in public if n.id > last for e in n.embeds))
        # The turn panels, as they were while live (each is its turn's summary now), had the Map button.
        panels = [v for m in public for v in m.versions if v.content.startswith("🎯")]
        assert panels and all('"Map"' in json.dumps(v.raw_components, ensure_ascii=False) for v in panels)
        assert over.filenames() == ["map.png", f"risk-game-{game_id}-report.png",
                                    f"risk-game-{game_id}-timelapse.webp"]

        # The stored game: exactly the engine's game, its dice verifiable, its log replaying to its state.
        state, events, done = stored_game(bot.database, game_id)
        assert events[1:] == expected[1:]
        verify_events(events)
        assert Game.from_events(events, state["seed"]).state.to_dict() == state
        assert sorted(i for i, _ in done) == sorted(str(m.id) for m in moves)
        clean(fake, bot)


# ---------------------------------------------------------------------------------------------- crashes


async def test_killed_and_restarted_the_bot_loses_nothing_and_repeats_nothing(
        fake: FakeDiscord, bots: Callable[..., BotProcess]):
    rng = random.Random(1009)
    humans, ais, expected = engine_game(KILL_GAME, settings=SETTINGS)
    timeline: list[str] = []
    async with asyncio.timeout(170):
        bot = bots(seed=KILL_GAME)
        bot.start()
        await bot.wait_ready()
        table = Table(fake, bot.database, "crashes", ["alice", "bob"], settings=SETTINGS, timeout=30)
        game_id = await table.open()
        await table.step()
        old_panel = await fake.wait_message(lambda m: "Map" in m.button_labels, 30, channel=table.channel,
                                            what="a turn panel")

        async def restart(step: asyncio.Task[str] | None = None) -> None:
            before = table.snapshot()
            bot.kill()
            if step is not None:  # the player gives up on that command; nothing reaches the next process
                step.cancel()
                with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                    await step
            bot.start()
            await bot.wait_ready()
            after = table.snapshot()
            assert before is not None and after is not None and after.version >= before.version
            timeline.append(f"restarted at version {after.version}")

        # Six kills at random moments: during a player's command, its answer, the AIs' turns...
        for _ in range(6):
            for _ in range(rng.randint(1, 5)):
                if await table.step() == "over":
                    break
            step = asyncio.create_task(table.step())
            delay = rng.uniform(0.0, 0.3)
            done_before_kill, _ = await asyncio.wait([step], timeout=delay)
            timeline.append(f"kill {delay:.2f} s into a step ({'done' if done_before_kill else 'in flight'})")
            await restart(step)

        # One kill exactly between "stored" and "answered": the bot acknowledges a legal move at once, stores it,
        # then Discord holds the answer (the follow-up) with a long 429 and the bot dies waiting. The action is
        # stored; when the same interaction comes again it is not applied twice.
        for _ in range(50):
            snap = table.snapshot()
            assert snap is not None and snap.status == "running"
            if table.user_of(snap, snap.current or 0) is not None:
                break
            await table.step()
        snap = table.snapshot()
        assert snap is not None
        game = snap.game()
        seat = snap.current or 0
        path, options = command_for(table._ai.choose(game, seat), game)
        hold = fake.rate_limit("POST", FOLLOWUP, times=1, retry_after=60)
        cut = await fake.command(table.user_of(snap, seat), table.channel, path, options, tag=(ACTION, snap.version))
        table.sent.append(cut)
        await fake.wait_for(lambda: hold.served == 1, 30, "the held answer")
        timeline.append("kill while the answer is held")
        await restart()
        stored = table.snapshot()
        assert stored is not None and stored.version > snap.version  # stored before the answer was lost
        again = await fake.redeliver(cut)
        table.sent.append(again)
        await again.wait_settled(30)
        assert "already done" in again.text, again.text

        # A button on a message posted before the first kill still works.
        pressed = await (await fake.press("bob", old_panel, label="Map")).wait_settled(30)
        assert [u.filename for u in pressed.uploads] == ["map.png"] and not pressed.refused, pressed.text

        result = await table.play(max_steps=4 * (humans + ais) + 100, seconds=100)
        assert result == "over", (result, table.errors, timeline)
        assert not table.errors, (table.errors[:5], timeline)
        assert len(bot.exit_codes) >= 7 and fake.identifies == bot.runs

        # The database against what Discord saw.
        state, events, done = stored_game(bot.database, game_id)
        assert Game.from_events(events, state["seed"]).state.to_dict() == state
        verify_events(events)
        assert events[1:] == expected[1:], timeline  # the very game an uninterrupted run plays
        sent = {str(i.id): i for i in actions_of(table.sent)}
        stored = dict(done)
        assert set(stored) <= set(sent), "an action was stored that no player sent"
        answered = {i for i, s in sent.items() if s.settled and not s.refused and not s.failed}
        assert answered <= set(stored), "an action was answered but not stored"
        assert str(cut.id) in stored
        ranges = sorted((s["first_seq"], s["last_seq"]) for s in stored.values())
        assert all(a[1] < b[0] for a, b in itertools.pairwise(ranges)), "events claimed twice"
        seats = snap.seats
        for interaction_id, summary in stored.items():  # each stored action was sent by the one in that seat
            assert seats[summary["action"]["seat"]] == sent[interaction_id].user.id
        assert len(stored) == humans
        clean(fake, bot)


# ---------------------------------------------------------------------------------------------- the gateway


async def test_a_dropped_gateway_is_resumed_or_reconnected(fake: FakeDiscord, bots: Callable[..., BotProcess]):
    async with asyncio.timeout(90):
        bot = bots()
        bot.start()
        await bot.wait_ready()
        session = fake.session
        assert session is not None

        # Discord closes with 4000: the bot resumes the session on resume_gateway_url and goes on answering.
        await fake.drop_gateway(4000)
        await fake.wait_for(lambda: fake.resumes == 1 and fake.connected, 30, "a RESUME")
        [resume] = fake.frames(RESUME)
        assert resume.path == "/resume" and resume.data["session_id"] == session.id
        assert (await (await fake.command("alice", "general", "risk help")).wait_settled(20)).answers

        # A plain close while an interaction is on its way: the missed dispatch is replayed after the RESUME.
        fake.hold_connections()
        await fake.drop_gateway(1000)
        waiting = await fake.command("bob", "general", "risk help")
        assert not waiting.delivered
        fake.release_connections()
        await waiting.wait_settled(30)
        assert fake.resumes == 2 and fake.identifies == 1

        # The session is gone (INVALID_SESSION): the bot identifies again and answers.
        fake.forget_sessions()
        await fake.drop_gateway(4000)
        await fake.wait_for(lambda: fake.identifies == 2 and fake.connected, 30, "a new IDENTIFY")
        assert fake.session is not session
        assert (await (await fake.command("alice", "general", "risk help")).wait_settled(20)).answers
        assert bot.running
        clean(fake, bot)


# ---------------------------------------------------------------------------------------------- rate limits


async def test_rate_limited_posts_are_retried_and_nothing_is_lost(fake: FakeDiscord,
                                                                   bots: Callable[..., BotProcess]):
    async with asyncio.timeout(90):
        bot = bots(seed=SHORT_GAME)
        bot.start()
        await bot.wait_ready()
        posts = fake.rate_limit("POST", CHANNEL_MESSAGES, times=3, retry_after=0.4)
        followups = fake.rate_limit("POST", FOLLOWUP, times=1, retry_after=0.3)
        table = Table(fake, bot.database, "limits", ["alice"], settings=SETTINGS)
        await table.open()  # /risk start: a follow-up, then the AIs' turns and the panel as channel messages
        await fake.wait_message(lambda m: m.content.startswith("🎯"), 30, channel=table.channel,
                                what="the turn panel")
        assert posts.served == 3 and followups.served == 1
        assert not table.errors, table.errors
        for template, wait in ((CHANNEL_MESSAGES, 0.4), (FOLLOWUP, 0.3)):
            attempts: dict[str, list[Any]] = {}
            for call in fake.calls_to("POST", template):
                attempts.setdefault(call.path + repr(call.json), []).append(call)
            assert any(len(tries) > 1 for tries in attempts.values())
            for tries in attempts.values():  # 429, 429, ..., then 200 once: retried until it arrived, once
                assert [c.status for c in tries] == [429] * (len(tries) - 1) + [200], tries
                for earlier, later in itertools.pairwise(tries):
                    assert later.at - earlier.at >= wait * 0.9  # the bot waited as asked
        created = [c for c in fake.calls_to("POST", CHANNEL_MESSAGES) if c.status == 200]
        public = [m for m in fake.messages(table.channel, public=True) if m.interaction_id is None]
        assert len(created) == len(public)  # every message arrived once, none twice
        assert len({(c.json or {}).get("content") for c in created}) == len(created)
        assert "rate limited" in bot.stderr()
        clean(fake, bot)


# ---------------------------------------------------------------------------------------------- load


async def play_actions(table: Table, actions: int) -> str:
    """Steps until the table's players have sent ``actions`` commands (or the game ends, or nothing happens): a
    fixed amount of play, however fast the machine is."""
    result = "acted"
    while table.actions < actions and result not in ("over", "stalled"):
        result = await table.step()
        if result == "stalled":
            table.errors.append(f"#{table.channel.name}: nothing happened for {table.timeout:g} s")
    return result


async def test_twenty_games_at_once(fake: FakeDiscord, bots: Callable[..., BotProcess]):
    games = 20
    async with asyncio.timeout(600):  # a guard against a hang only: the amount of play is fixed
        bot = bots(seed="load")
        tables = [Table(fake, bot.database, f"load-{n}", [f"p{n}a", f"p{n}b"], settings=SETTINGS, timeout=60,
                        buttons=0.5) for n in range(games)]
        bot.start()
        await bot.wait_ready()
        await asyncio.gather(*(table.open() for table in tables))
        results = await asyncio.gather(*(play_actions(table, 60) for table in tables))
        assert "stalled" not in results, results
        errors = [e for table in tables for e in table.errors]
        assert not errors, errors[:5]
        sent = [i for table in tables for i in table.sent]
        assert all(i.settled for i in sent)
        assert sum(table.actions for table in tables) >= games * 5
        clean(fake, bot)
