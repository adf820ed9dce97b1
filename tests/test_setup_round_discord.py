"""Set-up in one round through the Discord layer: each player places privately, the channel learns only who has
placed, and every placement is revealed together."""

from __future__ import annotations

from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot, open_lobby

from engine.state import SETUP

pytestmark = pytest.mark.asyncio
HOUR = 3600


async def record_of(d: OfflineDiscord):
    return await d.bot.get_cog("RiskCog").store.get_active_game(d.channel("general").id)


async def setup_game(d: OfflineDiscord, **options) -> None:
    await open_lobby(d, deployment="deal", setup="round", turn_deadline=24 * HOUR, **options)
    await d.send_command("bob", "general", "risk join", {})
    await d.send_command("alice", "general", "risk addbot", {})
    await d.send_command("alice", "general", "risk start", {})


def panel(d: OfflineDiscord):
    return [m for m in d.messages if m.content.startswith("🤫 Set-up") and m.raw_components][-1]


def seen_by_others(d: OfflineDiscord, since: int, user: str) -> str:
    """Everything posted since message ``since`` that someone other than ``user`` may read."""
    return "\n".join(m.text for m in d.messages[since:] if m.visible_to != user)


async def test_placements_are_private_until_everyone_has_placed_then_revealed_together(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="setup-round")) as d:
        await setup_game(d)
        record = await record_of(d)
        state = record.game().state
        assert state.phase == SETUP and state.setup_remaining[2] == 0   # the AI placed at once
        assert "Placed: Normal AI" in panel(d).content and "Place" in panel(d).button_labels
        alice_land = state.territories_of(0)[0]
        name = record.game().name(alice_land)
        since = len(d.messages)
        # alice places in two goes: a typed move, then the panel's button and menus; each answer is hers alone.
        step = await d.send_command("alice", "general", "place", {"territory": alice_land, "count": 3})
        assert step[0].visible_to == "alice" and step[0].ephemeral
        step = await d.click("alice", "Place", panel(d))
        assert step[-1].visible_to == "alice" and step[-1].selects
        menu = step[-1].raw_components[0]["components"][0]
        value = next(o["value"] for o in menu["options"] if o["label"].startswith(name))
        step = await d.select("alice", [value], step[-1])
        all_left = next(label for label in step[-1].button_labels if label.startswith("All"))
        step = await d.click("alice", all_left, step[-1])
        assert not step.problems, step.problems
        assert (await record_of(d)).game().state.setup_remaining[0] == 0
        await d.send_command("bob", "general", "risk log", {"count": 200})     # bob and the channel read the log
        await d.send_command("carol", "general", "risk log", {"count": 200})
        step = await d.send_command("alice", "general", "risk log", {"count": 200})   # her own log shows hers
        assert f"placed 3 on {name}, in secret" in step[-1].text and step[-1].visible_to == "alice"
        assert name not in seen_by_others(d, since, "alice")         # nobody else reads where she placed
        assert "Placed: alice, Normal AI" in panel(d).content or "Placed: Normal AI, alice" in panel(d).content
        # bob is refused a territory that is not his, privately, and nothing changes.
        version = (await record_of(d)).version
        step = await d.send_command("bob", "general", "place", {"territory": alice_land, "count": 1})
        assert step[-1].visible_to == "bob" and "belongs to alice" in step[-1].content
        assert (await record_of(d)).version == version
        bob_land = state.territories_of(1)[0]
        step = await d.send_command("bob", "general", "place", {"territory": bob_land,
                                                                "count": state.setup_remaining[1]})
        revealed = [m for m in d.messages if "the starting armies are revealed" in m.content]
        assert revealed and revealed[-1].visible_to is None
        after = (await record_of(d)).game().state
        assert after.sealed is None and after.phase not in (SETUP,)
        assert after.armies[alice_land] >= 1 + 3


async def test_the_deadline_places_the_rest_and_names_who_ran_out(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="setup-deadline")) as d:
        await setup_game(d)
        state = (await record_of(d)).game().state
        await d.send_command("alice", "general", "place", {"territory": state.territories_of(0)[0],
                                                           "count": state.setup_remaining[0]})
        step = await d.run(d.bot.advance_time(24 * HOUR + 1))
        told = [m for m in step if "Time ran out for bob" in m.content]
        assert told and told[0].visible_to is None
        record = await record_of(d)
        assert record.game().state.sealed is None
        assert (await d.bot.store.seat_status(record.id, 1)).missed == 1
        assert (await d.bot.store.seat_status(record.id, 0)).missed == 0


@pytest.mark.parametrize("order", ["sequential", "freestyle"])
async def test_the_default_set_up_round_calls_the_humans_when_an_ai_goes_first(tmp_path: Path, order: str):
    # /risk new without a preset deals the territories and places the starting armies in one round.
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="ai-first-1")) as d:
        await open_lobby(d, turn_order=order)
        await d.send_command("bob", "general", "risk join", {})
        for _ in range(2):
            await d.send_command("alice", "general", "risk addbot", {})
        await d.send_command("alice", "general", "risk start", {})
        record = await record_of(d)
        state = record.game().state
        assert record.settings["setup"] == "round" and record.settings["deployment"] == "deal"
        assert record.player(state.current).is_ai            # an AI seat rolled highest
        assert state.sealed is not None and state.setup_remaining[2] == state.setup_remaining[3] == 0
        message = panel(d)
        alice, bob = d.user("alice").id, d.user("bob").id
        assert f"<@{alice}>" in message.content and f"<@{bob}>" in message.content
        assert sorted(message.allowed_mentions["users"]) == sorted([alice, bob])
        assert "Place" in message.button_labels
        assert (await d.bot.store.live_panel(record.id)).message_id == message.id
        # Each places all theirs in one go; the message follows, and the last placement reveals them all.
        for seat, name in ((0, "alice"), (1, "bob")):
            step = await d.send_command(name, "general", "place", {
                "territory": state.territories_of(seat)[0], "count": state.setup_remaining[seat]})
            assert not step.problems, step.problems
        assert [m for m in d.messages if "the starting armies are revealed" in m.content]
        assert (await record_of(d)).game().state.sealed is None


async def test_a_restart_before_the_set_up_message_posts_it_once_and_the_placements_go_on(tmp_path: Path):
    import asyncio

    db = tmp_path / "g.db"
    d = OfflineDiscord(make_bot(db, seed="ai-first-1"))
    await d.setup()
    try:
        await open_lobby(d)
        await d.send_command("bob", "general", "risk join", {})
        for _ in range(2):
            await d.send_command("alice", "general", "risk addbot", {})
        cog = d.bot.get_cog("RiskCog")

        async def stopped(*args, **kwargs) -> None:   # the bot stops before it tells the channel of the start
            raise asyncio.CancelledError
        cog.announcer.told = stopped
        await d.send_command("alice", "general", "risk start", {})
        assert not [m for m in d.messages if m.content.startswith("🤫 Set-up")]
        assert await d.bot.store.unannounced()
        d = await d.restart(make_bot(db, seed="ai-first-1"))
        calls = [m for m in d.messages if m.content.startswith("🤫 Set-up") and m.raw_components]
        assert len(calls) == 1 and "Place" in calls[0].button_labels
        record = await record_of(d)
        assert record.player(record.game().state.current).is_ai
        assert await d.bot.store.unannounced() == []
        # The AIs placed once, before the stop; the humans place after the restart as before it.
        state = record.game().state
        assert state.setup_remaining[2] == state.setup_remaining[3] == 0
        step = await d.send_command("alice", "general", "place", {
            "territory": state.territories_of(0)[0], "count": state.setup_remaining[0]})
        assert not step.problems, step.problems
        assert "Placed: alice" in panel(d).content
        d = await d.restart(make_bot(db, seed="ai-first-1"))   # a second restart posts nothing again
        assert len([m for m in d.messages if m.content.startswith("🤫 Set-up") and m.raw_components]) == 1
    finally:
        await d.close()
