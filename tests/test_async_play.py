"""Games that never stall: deadlines, reminders, AI takeover, boot and reinstate, pause, restarts.

The bot's clock is moved by hand: nothing here sleeps.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot, open_lobby

from store import UserPrefs
from table import in_quiet_hours

pytestmark = pytest.mark.asyncio
HOUR = 3600


async def record_of(d: OfflineDiscord, channel: str = "general"):
    cog = d.bot.get_cog("RiskCog")
    return await cog.store.get_active_game(d.channel(channel).id) or \
        (await cog.store.list_games(channel_id=d.channel(channel).id))[0]


async def two_humans_and_ai(d: OfflineDiscord, **settings) -> None:
    await open_lobby(d, deployment="auto", **settings)
    await d.send_command("bob", "general", "risk join", {})
    await d.send_command("alice", "general", "risk addbot", {})
    await d.send_command("alice", "general", "risk start", {})


async def advance(d: OfflineDiscord, seconds: float):
    return await d.run(d.bot.advance_time(seconds))


async def human_to_move(d: OfflineDiscord) -> str:
    record = await record_of(d)
    seat = record.game().state.current
    user = record.player(seat).user_id
    return "alice" if user == d.user("alice").id else "bob"


async def test_panel_shows_the_deadline_and_reminders_fire_once_each(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="remind")) as d:
        await two_humans_and_ai(d, turn_deadline=24 * HOUR)
        panel = [m for m in d.messages if "🎯" in m.content][-1]
        assert "Ends <t:" in panel.content
        record = await record_of(d)
        timers = await d.bot.store.game_deadlines(record.id)
        assert sorted(t.kind.split("|")[0] for t in timers) == ["half", "hour", "turn"]
        step = await advance(d, 11 * HOUR)
        assert not [m for m in step if "⏰" in m.content]
        step = await advance(d, 1.5 * HOUR)   # half time
        reminders = [m for m in step if "⏰" in m.content]
        assert len(reminders) == 1 and "<@" in reminders[0].content
        step = await advance(d, 1 * HOUR)
        assert not [m for m in step if "⏰" in m.content]  # never twice for one threshold
        step = await advance(d, 9.6 * HOUR)   # one hour before (23.1 h)
        assert len([m for m in step if "⏰" in m.content]) == 1


async def test_after_downtime_one_reminder_and_none_past_the_deadline(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="downtime")) as d:
        await two_humans_and_ai(d, turn_deadline=24 * HOUR)
        step = await advance(d, 23.5 * HOUR)  # both reminders fell due while the bot was away
        assert len([m for m in step if "⏰" in m.content]) == 1
        await d.send_command(await human_to_move(d), "general", "end", {})  # a new turn, new timers
        step = await advance(d, 25 * HOUR)  # the whole turn passed: no "ends in the past" ping, the turn is played
        assert not [m for m in step if "⏰" in m.content]
        assert [m for m in step if "⌛" in m.content]


async def test_deadline_plays_the_turn_cautiously_and_it_is_in_the_log(tmp_path: Path):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db, seed="timeout")) as d:
        await two_humans_and_ai(d, turn_deadline=HOUR)
        before = await record_of(d)
        seat = before.game().state.current
        turn = before.game().state.turn
        step = await advance(d, HOUR + 1)
        notice = [m for m in step if "⌛" in m.content]
        assert len(notice) == 1 and "missed turns in a row: 1" in notice[0].content
        after = await record_of(d)
        assert after.game().state.current != seat or after.game().state.turn > turn
        events = await d.bot.store.events(after.id, before.last_seq)
        mine = [e for e in events if e.get("seat") == seat]
        assert {e["type"] for e in mine} <= {"armies_placed", "cards_traded", "turn_ended"}
        assert any(e["type"] == "turn_ended" and e["seat"] == seat for e in events)
        status = await d.bot.store.seat_status(after.id, seat)
        assert status.missed == 1


async def test_boot_after_three_missed_turns_then_reinstate(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="boot")) as d:
        await two_humans_and_ai(d, turn_deadline=HOUR)
        record = await record_of(d)
        seat = record.game().state.current
        user = record.player(seat).user_id
        name = "alice" if user == d.user("alice").id else "bob"
        for _ in range(12):
            await advance(d, HOUR + 1)
            record = await record_of(d)
            if record.player(seat).is_ai or record.status != "running":
                break
        assert record.player(seat).is_ai
        assert any("missed 3 turns in a row" in m.content for m in d.messages)
        if name != "alice":  # only the host (alice) may reinstate
            step = await d.send_command(name, "general", "risk reinstate", {"player": name})
            assert step[0].ephemeral and "Only the host" in step[0].content
        step = await d.send_command("alice", "general", "risk reinstate", {"player": name})
        record = await record_of(d)
        assert record.player(seat).user_id == user
        assert (await d.bot.store.seat_status(record.id, seat)).missed == 0


async def test_acting_resets_the_missed_count(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="reset")) as d:
        await two_humans_and_ai(d, turn_deadline=HOUR)
        first = await human_to_move(d)
        first_seat = (await record_of(d)).game().state.current
        await advance(d, HOUR + 1)                      # first misses a turn
        record = await record_of(d)
        assert (await d.bot.store.seat_status(record.id, first_seat)).missed == 1
        for _ in range(6):                               # play on until first's turn comes back
            record = await record_of(d)
            if record.game().state.current == first_seat:
                break
            await advance(d, HOUR + 1)
        record = await record_of(d)
        s = record.game().state
        await d.send_command(first, "general", "place", {"territory": s.territories_of(first_seat)[0]})
        await d.send_command(first, "general", "end", {})
        await d.send_command(first, "general", "end", {})
        assert (await d.bot.store.seat_status(record.id, first_seat)).missed == 0


async def test_pause_stops_deadlines_and_resume_restarts_them(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="pause")) as d:
        await two_humans_and_ai(d, turn_deadline=HOUR)
        step = await d.send_command("bob", "general", "risk pause", {})
        assert step[0].ephemeral and "Only the host" in step[0].content
        await d.send_command("alice", "general", "risk pause", {})
        record = await record_of(d)
        assert record.status == "paused" and await d.bot.store.game_deadlines(record.id) == []
        step = await advance(d, 10 * HOUR)
        assert not [m for m in step if "⌛" in m.content or "⏰" in m.content]
        step = await d.send_command("alice", "general", "place", {"territory": "Alaska"})
        assert step[0].ephemeral and "paused" in step[0].content
        await d.send_command("alice", "general", "risk resume", {})
        record = await record_of(d)
        timers = await d.bot.store.game_deadlines(record.id)
        assert record.status == "running" and [t.kind.split("|")[0] for t in timers if t.kind.startswith("turn")]
        assert min(t.due_at for t in timers) > d.bot.clock()


async def test_vacation_moves_the_deadline_and_is_limited(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="vacation")) as d:
        await two_humans_and_ai(d, turn_deadline=HOUR, max_missed=3)
        who = await human_to_move(d)
        record = await record_of(d)
        due_before = max(t.due_at for t in await d.bot.store.game_deadlines(record.id))
        step = await d.send_command(who, "general", "risk vacation", {"days": 2})
        assert "vacation" in step[0].content
        due_after = max(t.due_at for t in await d.bot.store.game_deadlines(record.id))
        assert due_after >= due_before + 2 * 86400 - 5
        step = await d.send_command(who, "general", "risk vacation", {"days": 6})
        assert step[0].ephemeral and "5 left" in step[0].content


async def test_overdue_deadline_after_a_restart_is_handled_once(tmp_path: Path):
    db = tmp_path / "g.db"
    d = OfflineDiscord(make_bot(db, seed="restart"))
    await d.setup()
    try:
        await two_humans_and_ai(d, turn_deadline=HOUR)
        record = await record_of(d)
        seat = record.game().state.current
        later = make_bot(db, seed="restart")
        later.clock.advance(HOUR * 1.5)   # the bot was down while the deadline passed
        d = await d.restart(later)
        await advance(d, 0)
        await advance(d, 0)
        notices = [m for m in d.messages if "⌛" in m.content]
        assert len(notices) == 1
        assert (await d.bot.store.seat_status(record.id, seat)).missed == 1
    finally:
        await d.close()


async def test_quiet_hours_hold_reminders_until_they_end(tmp_path: Path):
    prefs = UserPrefs(1, notify="mention", quiet_start="22:00", quiet_end="07:00", timezone="Europe/Oslo")
    import datetime as dt
    from zoneinfo import ZoneInfo
    oslo = ZoneInfo("Europe/Oslo")
    night = dt.datetime(2026, 11, 30, 23, 30, tzinfo=oslo).timestamp()
    morning = dt.datetime(2026, 12, 1, 7, 0, tzinfo=oslo).timestamp()
    assert in_quiet_hours(prefs, night) == morning
    assert in_quiet_hours(prefs, dt.datetime(2026, 11, 30, 12, 0, tzinfo=oslo).timestamp()) is None
    early = dt.datetime(2026, 12, 1, 6, 0, tzinfo=oslo).timestamp()
    assert in_quiet_hours(prefs, early) == morning


async def test_notify_refuses_a_time_zone_the_zone_database_does_not_name_in_the_readers_language(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="zones")) as d:
        for locale, words in (("en-US", "Unknown time zone"), ("no", "Ukjent tidssone"),
                              ("es-ES", "Zona horaria desconocida")):
            step = await d.send_command("bob", "general", "risk notify", {"timezone": "😀" * 64}, locale=locale)
            assert not step.problems and step[0].ephemeral and words in step[0].content
            assert "File name" not in step[0].content and "error id" not in step[0].content.casefold()
        assert await d.bot.store.get_user_prefs(d.user("bob").id) == UserPrefs(d.user("bob").id)
        step = await d.send_command("bob", "general", "risk notify", {"timezone": "Europe/Oslo",
                                                                      "quiet_start": "22:00", "quiet_end": "07:00"})
        assert "Europe/Oslo" in step[0].content


async def test_notify_off_drops_the_mention_and_mygames_lists_games(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="notify")) as d:
        step = await d.send_command("bob", "general", "risk notify", {"mode": "off"})
        assert step[0].ephemeral and "off" in step[0].content
        await two_humans_and_ai(d, turn_deadline=24 * HOUR)
        step = await d.send_command("alice", "general", "risk mygames", {})
        assert step[0].ephemeral and f"<#{d.channel('general').id}>" in step[0].content
        step = await d.send_command("carol", "general", "risk mygames", {})
        assert "no running game" in step[0].content
        for _ in range(8):
            panel = [m for m in d.messages if "🎯" in m.content][-1]
            record = await record_of(d)
            if record.player(record.game().state.current).user_id == d.user("bob").id:
                assert f"<@{d.user('bob').id}>" not in panel.content and "bob" in panel.content
                break
            await advance(d, 25 * HOUR)
        else:
            pytest.fail("bob never had a turn")


async def test_scheduler_wakes_only_for_due_timers_among_ten_thousand(tmp_path: Path):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db, seed="many")) as d:
        await two_humans_and_ai(d, turn_deadline=HOUR)
        await d.send_command("carol", "other", "risk new", {})
        other = await record_of(d, "other")
        now = d.bot.clock()
        conn = sqlite3.connect(db)
        # 10,000 timers of another game, due in the coming weeks.
        conn.executemany("INSERT INTO deadlines (game_id, seat, kind, due_at) VALUES (?, ?, ?, ?)",
                         [(other.id, 5, f"turn|t{i}", now + 86400 * 30 + i) for i in range(10_000)])
        conn.commit()
        plan = " ".join(str(r) for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT game_id, seat, kind, due_at FROM deadlines ORDER BY due_at LIMIT 1"))
        conn.close()
        assert "deadlines_by_due" in plan
        scheduler = d.bot.get_cog("RiskCog").scheduler
        fired = scheduler.fired
        await advance(d, HOUR + 1)
        assert scheduler.fired - fired <= 3   # only the timers of the current turn (turn, reminders)
        due = await d.bot.store.due_deadlines(d.bot.clock())
        assert due == []
        assert len(await d.bot.store.game_deadlines(other.id)) == 10_000
