"""/hint through the offline Discord: what the hard AI would do, privately, for the player on turn, once a step, in a
game whose host turned hints on; refused elsewhere; changing nothing."""

from __future__ import annotations

from pathlib import Path

from discord_helpers import OfflineDiscord, make_bot, open_lobby
from test_discord import game_of

from cogs.play.hint import hint_text
from engine.ai import recollect
from engine.ai.hints import hint_for


async def start_game(d: OfflineDiscord, *, hints: bool) -> None:
    """Alice against two AIs under fog, with hints turned on in the lobby's menu, or left off."""
    await open_lobby(d, deployment="auto", fog="on")
    if hints:
        store = d.bot.get_cog("RiskCog").store
        lobby_id = (await store.list_games(channel_id=d.channel("general").id, limit=1))[0].id
        lobby = next(m for m in reversed(d.messages) if m.selects)
        step = await d.select("alice", ["hints"], lobby, custom_id=f"lobbys:{lobby_id}:set")
        step = await d.select("alice", ["on"], step[-1], custom_id=f"lobbys:{lobby_id}:val:hints")
        assert not step.problems, step.problems
    for _ in range(2):
        await d.send_command("alice", "general", "risk addbot", {})
    await d.send_command("alice", "general", "risk start", {})


async def test_a_hint_is_the_hard_ais_move_from_the_seats_own_view_told_privately_once_a_step(tmp_path: Path):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db, seed="hint")) as d:
        await start_game(d, hints=True)
        record = await game_of(db, d.channel("general").id)
        assert record.settings["hints"] == "on"
        game = record.game()
        seat = record.seat_of(d.user("alice").id)
        assert game.state.current == seat
        public = len([m for m in d.messages if not m.ephemeral])
        step = await d.send_command("alice", "general", "hint", {})
        assert not step.problems, step.problems
        assert step and all(m.ephemeral for m in step)
        # The same hint the hard AI gives on the seat's own view: its fog memory, from the log.
        memory = (await d.bot.get_cog("RiskCog").store.with_log(record.id, recollect)).memory(seat)
        expected = hint_text(game, hint_for(game, seat, memory), "en-US")
        assert step[-1].content == expected
        assert "💡 The hard AI would" in expected and "It aims for" in expected
        again = await d.send_command("alice", "general", "hint", {})
        assert again[-1].ephemeral and again[-1].content.startswith("⛔")
        assert "had your hint for this step" in again[-1].content
        stranger = await d.send_command("carol", "general", "hint", {})
        assert stranger[-1].ephemeral and "not playing" in stranger[-1].content
        assert len([m for m in d.messages if not m.ephemeral]) == public, "a hint is told to nobody else"
        after = await game_of(db, d.channel("general").id)
        assert after.version == record.version and after.state_json == record.state_json, "it changes nothing"


async def test_a_game_without_hints_turned_on_refuses_them(tmp_path: Path):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db, seed="hint")) as d:
        await start_game(d, hints=False)
        step = await d.send_command("alice", "general", "hint", {})
        assert step[-1].ephemeral and step[-1].content.startswith("⛔")
        assert "gives no hints" in step[-1].content
