"""A typed move acknowledged publicly ("thinking…") and then refused: the refusal reaches only the player, never
the channel (Discord gives the first follow-up after a deferral the deferral's visibility)."""

from __future__ import annotations

from pathlib import Path

from discord_helpers import OfflineDiscord, make_bot, start


async def test_a_move_refused_after_a_public_thinking_is_told_to_the_player_alone(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="refusal")) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        record = await d.bot.store.get_active_game(d.channel("general").id)
        current = record.game().state.current
        waiting = next(p.name for p in record.game().state.players if p.seat != current)
        before = len(d.visible_to("carol", "general"))
        for _ in range(2):   # the second time as the channel's game was last seen: acknowledged publicly at once
            step = await d.send_command(waiting, "general", "end", {})
            assert not step.problems, step.problems
            told = [m for m in step if not m.deleted]
            assert told and all(m.ephemeral and m.visible_to == waiting for m in told), \
                [(m.content, m.ephemeral) for m in told]
            assert "turn" in told[-1].content
        assert len(d.visible_to("carol", "general")) == before   # the channel saw nothing of it
