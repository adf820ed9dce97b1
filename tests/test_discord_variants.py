"""Variants in the Discord layer: missions in private, choosing capitals by taps, teams, fog of war."""

from __future__ import annotations

from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot, start

pytestmark = pytest.mark.asyncio


async def record_of(d: OfflineDiscord):
    return await d.bot.store.get_active_game(d.channel("general").id)



async def test_mission_is_private(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="mission")) as d:
        await start(d, ["alice", "bob"], 1, deployment="auto", mode="missions")
        step = await d.send_command("alice", "general", "mission", {})
        record = await record_of(d)
        from cogs.shared.text import mission_line
        game = record.game()
        text = mission_line(game.mission(0), game.board, game.state)
        assert game.mission_text(0) == text  # the same words as the engine's, in English
        assert step[0].ephemeral and text in step[0].content
        assert not any(text in m.content for m in d.messages if not m.ephemeral)
        step = await d.send_command("carol", "general", "mission", {})
        assert step[0].ephemeral and "not playing" in step[0].content


async def test_capitals_are_chosen_with_taps(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="capital")) as d:
        await start(d, ["alice"], 2, deployment="auto", mode="capitals")
        record = await record_of(d)
        game = record.game()
        if game.state.phase == "capital" and game.state.current == 0:
            step = await d.click("alice", "Capital")
            choice = game.capital_choices(0)[0]
            step = await d.select("alice", [choice])
            assert not step.problems
        record = await record_of(d)
        assert record.game().capital_of(0) is not None


async def test_teammates_cannot_attack_each_other(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="teams")) as d:
        await start(d, ["alice"], 3, deployment="auto", teams="2v2")
        record = await record_of(d)
        game = record.game()
        s = game.state
        assert s.current == 0 and s.phase == "reinforce"  # (this seed)
        mate = game.teammates(0)[0]
        # The teammate check comes before any other: the armies on either side do not matter.
        pair = next((a, b) for a in s.territories_of(0) for b in game.board.neighbours(a) if s.owners[b] == mate)
        await d.send_command("alice", "general", "place", {"territory": pair[0]})
        step = await d.send_command("alice", "general", "attack", {"from": pair[0], "to": pair[1]})
        assert step[0].ephemeral and "teammate" in step[0].content


async def test_fog_answers_privately_and_hides_the_map_from_the_channel(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="fog")) as d:
        await start(d, ["alice", "bob"], 1, deployment="auto", fog="on")
        public_maps = [m for m in d.messages if not m.ephemeral and m.attachments]
        assert public_maps == []
        record = await record_of(d)
        game = record.game()
        s = game.state
        mover = "alice" if record.player(s.current).user_id == d.user("alice").id else "bob"
        seat = s.current
        step = await d.send_command(mover, "general", "place", {"territory": s.territories_of(seat)[0]})
        private = [m for m in step if m.ephemeral]
        public = [m for m in step if not m.ephemeral]
        assert private and private[0].attachments        # the player's own view
        assert all(not m.attachments for m in public)
        assert not any(game.board.name(s.territories_of(seat)[0]) in m.content for m in public)
        step = await d.send_command(mover, "general", "map", {})
        assert step[0].ephemeral and step[0].attachments
        from engine.fog import visible_territories
        hidden = next(t for t in game.board.territory_ids if t not in visible_territories(s, seat))
        step = await d.send_command(mover, "general", "odds", {"from": s.territories_of(seat)[0], "to": hidden})
        assert step[0].ephemeral and "fog" in step[0].content


async def test_fog_taps_answer_privately_too(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="fogtap")) as d:
        await start(d, ["alice", "bob"], 1, deployment="auto", fog="on")
        record = await record_of(d)
        s = record.game().state
        mover = "alice" if record.player(s.current).user_id == d.user("alice").id else "bob"
        await d.click(mover, "Place")
        await d.select(mover, [s.territories_of(s.current)[0]])
        step = await d.click(mover, next(b["label"] for b in d.visible_to(mover)[-1].buttons
                                         if b["label"].startswith("All")))
        assert [m for m in step if m.attachments] and all(m.ephemeral for m in step if m.attachments)
