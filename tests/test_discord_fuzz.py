"""Fuzz the Discord layer: random commands, options, users and taps over real game states.

No unhandled exception; every refusal private and explanatory; a refused interaction changes nothing;
nothing hidden (hands, the dice seed) in any public message.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot
from discord_offline import OfflineError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import load_map
from store import SQLiteStore

NAMES = [t.name for t in load_map().territories.values()]
WEIRD = ["", "  ", "Atlantis", "ALASKA", "kamchatka ", "Groenlandia", "🏴‍☠️", "x" * 120, "'; DROP TABLE games;--",
         "Peru\x00", "Ελλάδα", "-1", "wild"]
texts = st.one_of(st.sampled_from(NAMES), st.sampled_from(WEIRD), st.text(max_size=30))
counts = st.one_of(st.integers(-5, 60), st.sampled_from([0, 10**9, -(10**9)]))
users = st.sampled_from(["alice", "alice", "alice", "bob", "carol"])


def command(data: st.DataObject) -> tuple[str, dict]:
    kind = data.draw(st.sampled_from(["place", "attack", "blitz", "move", "fortify", "trade", "end", "map", "cards",
                                      "odds", "risk status", "risk log", "risk rules", "risk surrender", "risk start",
                                      "risk join", "risk addbot", "risk kick", "risk verify", "risk settings"]))
    options: dict = {}
    if kind == "place":
        options = {"territory": data.draw(texts), "count": data.draw(counts)}
    elif kind in ("attack", "blitz", "fortify"):
        options = {"from": data.draw(texts), "to": data.draw(texts)}
        if kind == "attack" and data.draw(st.booleans()):
            options["dice"] = data.draw(st.integers(-2, 9))
        if kind == "blitz":
            options["stop_at"] = data.draw(counts)
        if kind == "fortify":
            options["count"] = data.draw(counts)
    elif kind == "move":
        options = {"count": data.draw(counts)}
    elif kind == "trade" and data.draw(st.booleans()):
        options = {"cards": ", ".join(data.draw(st.lists(texts, max_size=4)))}
    elif kind == "odds":
        options = {"attackers": data.draw(counts), "defenders": data.draw(counts)}
    elif kind == "risk kick":
        options = {"player": data.draw(users)}
    return kind, options


async def version(store: SQLiteStore, channel: int) -> tuple[int, str | None]:
    """The channel's game as stored (read on a connection of its own, not the bot's)."""
    record = await store.get_active_game(channel) or (await store.list_games(channel_id=channel))[0]
    return record.version, record.state_json


async def session(db: Path, data: st.DataObject, steps: int) -> int:
    interactions = 0
    async with OfflineDiscord(make_bot(db, seed="fuzz")) as d, SQLiteStore(db, checkpoint_interval=None) as stored:
        await d.send_command("alice", "general", "risk new", {"deployment": data.draw(st.sampled_from(
            ["auto", "claim", "deal"])), "setup_batch": 5})
        await d.send_command("bob", "general", "risk join", {})
        await d.send_command("alice", "general", "risk addbot", {})
        await d.send_command("alice", "general", "risk start", {})
        channel = d.channel("general").id
        for _ in range(steps):
            user = data.draw(users)
            before = await version(stored, channel)
            try:
                if data.draw(st.integers(0, 3)) == 0:
                    visible = [m for m in d.visible_to(user) if m.buttons][-3:]
                    if not visible:
                        continue
                    message = data.draw(st.sampled_from(visible))
                    label = data.draw(st.sampled_from([b["label"] for b in message.buttons]))
                    step = await d.click(user, label, message=message)
                else:
                    name, options = command(data)
                    step = await d.send_command(user, "general", name, options, client_checks=False)
            except OfflineError:
                continue  # something the Discord client itself would not send
            interactions += 1
            assert not step.problems, step.problems
            refused = [m for m in step if m.content.startswith("⛔")]
            for m in refused:
                assert m.ephemeral, m.content
                assert len(m.content) > 3
            if refused:
                assert await version(stored, channel) == before
            state = (await version(stored, channel))[1] or ""
            for m in step:
                if not m.ephemeral:
                    assert "Your cards" not in m.content
                    if '"phase": "over"' not in state:
                        seed_marker = state.split('"seed": "')[1][:64] if '"seed": "' in state else None
                        if seed_marker:
                            assert seed_marker not in m.content and seed_marker not in str(m.embeds)
    return interactions


@pytest.mark.slow   # 25 random sequences of interactions through the real pipeline: CI's slow suite
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_interactions_never_crash_leak_or_change_state_when_refused(tmp_path_factory, data):
    db = tmp_path_factory.mktemp("fuzz") / "g.db"
    count = asyncio.run(session(db, data, steps=80))
    assert count > 0
