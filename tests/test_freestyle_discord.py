"""Freestyle rounds through the Discord layer: the round's message, a race to start, a turn that runs out."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot, open_lobby

from engine.state import REINFORCE, WAITING
from table.timers import round_deadline, turn_deadline

pytestmark = pytest.mark.asyncio
HOUR = 3600


async def record_of(d: OfflineDiscord):
    return await d.bot.get_cog("RiskCog").store.get_active_game(d.channel("general").id)


async def freestyle_game(d: OfflineDiscord) -> None:
    await open_lobby(d, deployment="auto", turn_order="freestyle", turn_deadline=24 * HOUR)
    await d.send_command("bob", "general", "risk join", {})
    await d.send_command("alice", "general", "risk addbot", {})
    await d.send_command("alice", "general", "risk start", {})


def round_message(d: OfflineDiscord):
    return [m for m in d.messages if m.content.startswith("🔄 Round") and m.raw_components][-1]


async def test_the_round_message_calls_each_human_once_and_the_ai_plays_by_itself(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="round-message")) as d:
        await freestyle_game(d)
        message = round_message(d)
        alice, bob = d.user("alice").id, d.user("bob").id
        assert f"<@{alice}>" in message.content and f"<@{bob}>" in message.content
        assert sorted(message.allowed_mentions["users"]) == sorted([alice, bob])
        assert "Played: Normal AI" in message.content and "The round ends <t:" in message.content
        state = (await record_of(d)).game().state
        assert state.phase == WAITING and state.to_play == [0, 1]


async def test_two_players_race_to_start_one_wins_and_the_other_is_told_who_plays(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="race")) as d:
        await freestyle_game(d)
        message = round_message(d)
        await asyncio.gather(d.click("alice", "Start my turn", message), d.click("bob", "Start my turn", message))
        record = await record_of(d)
        state = record.game().state
        assert state.phase == REINFORCE
        events = await d.bot.store.events(record.id)
        started = [e for e in events if e["type"] == "turn_started" and e["seat"] in (0, 1)]
        assert len(started) == 1 and started[0]["seat"] == state.current
        winner, loser = ("alice", "bob") if state.current == 0 else ("bob", "alice")
        told = [m for m in d.messages if m.visible_to == loser and "is playing their turn now" in m.content]
        assert len(told) == 1 and winner in told[0].content
        # ... and until when, at the latest: the started turn's limit, as a timestamp in the reader's time zone.
        limit = int(turn_deadline(await d.bot.store.game_deadlines(record.id)).due_at)
        assert f"until <t:{limit}:t> at the latest" in told[0].content
        # A tap on the winner's turn panel, and a typed move in Spanish, are told the same; nothing changes.
        step = await d.click(loser, "Place", d.message((await d.bot.store.live_panel(record.id)).message_id))
        assert step[-1].visible_to == loser and f"<t:{limit}:t>" in step[-1].content and winner in step[-1].content
        territory = state.territories_of(1 - state.current)[0]
        step = await d.send_command(loser, "general", "place", {"territory": territory, "count": 1}, locale="es-ES")
        assert step[-1].visible_to == loser
        assert f"{winner} está jugando su turno ahora, como mucho hasta las <t:{limit}:t>" in step[-1].content
        assert (await record_of(d)).version == record.version


async def test_a_started_turn_that_runs_out_is_played_for_the_player_and_the_round_goes_on(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="runs-out")) as d:
        await freestyle_game(d)
        await d.click("bob", "Start my turn", round_message(d))
        record = await record_of(d)
        assert record.game().state.current == 1 and record.game().state.phase == REINFORCE
        step = await d.run(d.bot.advance_time(HOUR + 1))   # a started turn has an hour of a one-day round
        assert [m for m in step if "⌛" in m.content]
        record = await record_of(d)
        state = record.game().state
        assert state.phase == WAITING and state.to_play == [0] and state.round == 1
        assert (await d.bot.store.seat_status(record.id, 1)).missed == 1
        message = round_message(d)
        assert f"<@{d.user('alice').id}>" in message.content and f"<@{d.user('bob').id}>" not in message.content


async def test_under_fog_the_round_message_tells_no_figure_of_the_board(tmp_path: Path):
    import re
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="fog-round")) as d:
        await open_lobby(d, deployment="auto", turn_order="freestyle", turn_deadline=24 * HOUR, fog="on")
        await d.send_command("bob", "general", "risk join", {})
        await d.send_command("alice", "general", "risk addbot", {})
        await d.send_command("alice", "general", "risk start", {})
        message = round_message(d)
        text = re.sub(r"<[@t][^>]*>", "", message.content)   # mentions and the deadline's timestamp
        assert re.findall(r"\d+", text) == ["1"]              # the round's number, nothing of the board
        assert not message.attachments


async def test_each_player_is_told_once_a_round_as_they_chose_and_not_in_their_quiet_hours(tmp_path: Path):
    import time

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="told-once")) as d:
        now = d.bot.clock()
        around = (time.strftime("%H:%M", time.gmtime(now - HOUR)), time.strftime("%H:%M", time.gmtime(now + 14 * HOUR)))
        await d.send_command("alice", "general", "risk notify", {"mode": "dm"})
        await d.send_command("bob", "general", "risk notify", {"mode": "dm", "quiet_start": around[0],
                                                               "quiet_end": around[1], "timezone": "UTC"})
        await freestyle_game(d)
        alice, bob = d.user("alice").id, d.user("bob").id
        # Round 1 opens: the message pings both; alice also gets a direct message, bob (in his quiet hours) not.
        message = round_message(d)
        assert sorted(message.allowed_mentions["users"]) == sorted([alice, bob])
        record = await record_of(d)
        ends = int(round_deadline(await d.bot.store.game_deadlines(record.id)).due_at)
        assert [m.content for m in d.dms("alice")] == [
            f"🔄 Game #{record.id} in <#{d.channel('general').id}>: round 1 is open, take your turn before "
            f"<t:{ends}:R>."]
        assert d.dms("bob") == []
        # alice plays her turn: the round's message is posted again for bob, without pinging him a second time.
        await d.click("alice", "Start my turn", message)
        state = (await record_of(d)).game().state
        await d.send_command("alice", "general", "place", {"territory": state.territories_of(0)[0],
                                                           "count": state.reinforcements})
        await d.send_command("alice", "general", "end", {})
        await d.send_command("alice", "general", "end", {})
        again = round_message(d)
        assert again.id != message.id and f"<@{bob}>" in again.content and f"<@{alice}>" not in again.content
        assert again.allowed_mentions == {"parse": []}
        assert len(d.dms("alice")) == 1 and d.dms("bob") == []
        # Half the round gone, his quiet hours are not over: his reminder waits for them to end, then comes once,
        # in the channel and as a direct message; alice, who played, is not reminded.
        await d.run(d.bot.advance_time(12 * HOUR + 60))
        assert d.dms("bob") == []
        await d.run(d.bot.advance_time(3 * HOUR))
        reminders = [m for m in d.messages if m.content.startswith("⏰") and not m.is_dm]
        assert [m.content.split(",")[0] for m in reminders] == [f"⏰ <@{bob}>"]
        assert len(d.dms("bob")) == 1 and d.dms("bob")[0].content == reminders[0].content
        assert len(d.dms("alice")) == 1
