"""The Discord layer through discord.py's real interaction pipeline, offline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, command_for, make_bot, open_lobby

from engine.ai import make_ai
from present.verbs import ref
from store import SQLiteStore

pytestmark = pytest.mark.asyncio


async def game_of(db: Path, channel_id: int):
    store = SQLiteStore(db)
    await store.open()
    try:
        return await store.get_active_game(channel_id) or (await store.list_games(channel_id=channel_id))[0]
    finally:
        await store.close()


async def test_lobby_join_addbot_start_posts_the_turn_panel(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await open_lobby(d, deployment="auto")
        step = await d.send_command("bob", "general", "risk join", {})
        assert "bob" in str(step[0].embeds)
        step = await d.send_command("alice", "general", "risk addbot", {"level": "easy"})
        assert "Easy AI" in str(step[0].embeds)
        step = await d.send_command("alice", "general", "risk start", {})
        assert not step.problems
        public = [m for m in step if not m.ephemeral]
        assert any("The game begins" in m.content for m in public)
        panel = [m for m in public if "🎯" in m.content]
        assert panel, [m.content for m in public]
        assert re.search(r"<@\d+>", panel[-1].content)  # the panel mentions the player whose turn it is
        # The board as the player finds it: on the panel, or (when the AI played first) on the AI's turn just
        # above it, never both.
        pictured = [m for m in public[: public.index(panel[-1]) + 1] if m.attachments]
        assert pictured and pictured[-1].attachments[0].filename == "map.png"
        assert pictured[-1] is panel[-1] or (not panel[-1].attachments and "🤖" in pictured[-1].content)
        labels = [b["label"] for b in panel[-1].buttons]
        assert "Place" in labels


async def test_second_game_in_a_channel_is_refused_privately(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await open_lobby(d)
        step = await d.send_command("bob", "general", "risk new", {})
        assert step[0].ephemeral and "already" in step[0].content.lower()
        other = await d.send_command("bob", "other", "risk new", {})
        assert not other[0].ephemeral


async def test_only_the_host_starts_and_commands_need_a_game(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        step = await d.send_command("alice", "general", "map", {})
        assert step[0].ephemeral and "no game in this channel" in step[0].content
        await open_lobby(d)
        await d.send_command("bob", "general", "risk join", {})
        step = await d.send_command("bob", "general", "risk start", {})
        assert step[0].ephemeral and "Only the host" in step[0].content
        step = await d.send_command("alice", "general", "risk start", {})
        assert not step.problems


async def start_vs_ai(d: OfflineDiscord, ais: int = 2, **settings) -> None:
    await open_lobby(d, **settings)
    for _ in range(ais):
        await d.send_command("alice", "general", "risk addbot", {})
    await d.send_command("alice", "general", "risk start", {})


async def test_refusals_are_private_and_change_nothing(tmp_path: Path):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db)) as d:
        await start_vs_ai(d, deployment="auto")
        before = await game_of(db, d.channel("general").id)
        for name, options in [("attack", {"from": "Alaska", "to": "Peru"}),
                              ("place", {"territory": "Atlantis", "count": 1}),
                              ("place", {"territory": "Alaska", "count": -3}),
                              ("move", {"count": 3}), ("fortify", {"from": "Peru", "to": "Brazil", "count": 1})]:
            step = await d.send_command("alice", "general", name, options, client_checks=False)
            assert step and all(m.ephemeral for m in step), (name, [m.content for m in step])
            assert step[0].content.startswith("⛔")
            assert not step.problems
        after = await game_of(db, d.channel("general").id)
        assert after.version == before.version and after.state_json == before.state_json
        step = await d.send_command("carol", "general", "end", {})
        assert step[0].ephemeral and "not playing" in step[0].content


async def test_a_tap_by_anyone_but_the_current_player_is_refused(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await open_lobby(d, deployment="auto")
        await d.send_command("bob", "general", "risk join", {})
        await d.send_command("alice", "general", "risk start", {})
        panel = [m for m in d.messages if "🎯" in m.content][-1]
        current = "alice" if str(d.user("alice").id) in panel.content else "bob"
        other = "bob" if current == "alice" else "alice"
        step = await d.click(other, "Place", message=panel)
        assert step[0].ephemeral and "turn" in step[0].content
        step = await d.click(current, "Place", message=panel)
        assert step[0].ephemeral and step[0].selects


async def test_whole_turn_by_taps(tmp_path: Path):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db, seed="taps")) as d:
        await start_vs_ai(d, deployment="auto")
        record = await game_of(db, d.channel("general").id)
        game = record.game()
        assert game.state.current == 0 and game.state.phase == "reinforce"
        await d.click("alice", "Place")
        target = game.attack_sources(0)[0] if game.attack_sources(0) else game.placeable(0)[0]
        step = await d.select("alice", [ref(game.board, target)])
        labels = [b["label"] for b in step[0].buttons]
        assert any(label.startswith("All") for label in labels)
        step = await d.click("alice", next(label for label in labels if label.startswith("All")))
        public = [m for m in step if not m.ephemeral]
        assert public and "placed" in public[0].content and public[0].attachments
        step = await d.click("alice", "Attack", message=public[0])
        assert step[0].selects
        record = await game_of(db, d.channel("general").id)
        game = record.game()
        src = max(game.attack_sources(0), key=lambda t: game.state.armies[t])
        await d.select("alice", [ref(game.board, src)])
        dst = game.attack_targets(0, src)[0]
        step = await d.select("alice", [ref(game.board, dst)])
        assert "Blitz" in [b["label"] for b in step[0].buttons]
        step = await d.click("alice", step[0].buttons[0]["label"])  # one roll
        battle = next(m for m in step if not m.ephemeral)
        assert "⚔️" in battle.content and " vs " in battle.content
        record = await game_of(db, d.channel("general").id)
        if record.game().state.phase == "occupy":
            step = await d.click("alice", next(b["label"] for b in battle.buttons
                                               if b["label"].startswith("Move all")))
        step = await d.click("alice", "End turn")
        step = await d.click("alice", "Yes, end my turn")
        assert any("🤖" in m.content for m in step)  # the AIs played
        record = await game_of(db, d.channel("general").id)
        assert record.game().state.current == 0 or record.status == "finished"


async def test_a_complete_game_through_interactions(tmp_path: Path):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db, seed="complete")) as d:
        await start_vs_ai(d, ais=2, deployment="claim", setup_batch=10)
        channel = d.channel("general").id
        ai = make_ai("normal")
        for _ in range(3000):
            record = await game_of(db, channel)
            if record.status != "running":
                break
            game = record.game()
            assert game.state.current == 0
            name, options = command_for(ai.choose(game, 0), game)
            step = await d.send_command("alice", "general", name, options)
            assert not step.problems, (name, options, step.problems)
            assert not any(m.ephemeral and m.content.startswith("⛔") for m in step), [m.content for m in step]
        record = await game_of(db, channel)
        assert record.status == "finished"
        over = [m for m in d.messages if m.embeds and "wins" in str(m.embeds[0].get("title", ""))]
        assert over and over[-1].attachments
        seed = record.game().state.seed
        assert seed in str(over[-1].embeds)
        # The seed appears nowhere public before the end.
        before = d.messages[: d.messages.index(over[-1])]
        assert not any(seed in m.content or seed in str(m.embeds) for m in before)
        step = await d.send_command("alice", "general", "risk verify", {})
        assert seed in step[0].content
        step = await d.send_command("alice", "general", "risk export", {})
        assert step[0].attachments and step[0].attachments[0].filename.endswith(".jsonl")
        from engine.log import iter_log
        from engine.verify import verify_events
        verify_events(list(iter_log(step[0].attachments[0].data.decode().splitlines())))


async def test_autocomplete_ranks_legal_choices_with_odds(tmp_path: Path):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db, seed="ac")) as d:
        await start_vs_ai(d, deployment="auto")
        record = await game_of(db, d.channel("general").id)
        game = record.game()
        choices = await d.autocomplete("alice", "general", "attack", {"from": ""}, focused="from")
        sources = game.attack_sources(0)
        assert [c["value"] for c in choices[: len(sources)]] == sorted(sources, key=lambda t: -game.state.armies[t])
        src = choices[0]["value"]
        choices = await d.autocomplete("alice", "general", "attack", {"from": src, "to": ""}, focused="to")
        targets = game.attack_targets(0, src)
        assert {c["value"] for c in choices[: len(targets)]} == set(targets)
        assert all("%" in c["name"] for c in choices[: len(targets)])
        typed = await d.autocomplete("alice", "general", "place", {"territory": "kam"}, focused="territory")
        assert typed and all("kam" in c["name"].lower() for c in typed)
        step = await d.send_command("alice", "general", "odds", {"attackers": 10, "defenders": 8})
        assert step[0].ephemeral and "64.6%" in step[0].content


async def test_buttons_keep_working_after_a_restart(tmp_path: Path):
    db = tmp_path / "g.db"
    d = OfflineDiscord(make_bot(db, seed="restart"))
    await d.setup()
    try:
        await start_vs_ai(d, deployment="auto")
        panel = [m for m in d.messages if "🎯" in m.content][-1]
        d = await d.restart(make_bot(db, seed="restart"))
        step = await d.click("alice", "Place", message=panel)
        assert step[0].ephemeral and step[0].selects and not step.problems
        step = await d.click("alice", "Map", message=panel)
        assert step[0].attachments
    finally:
        await d.close()


async def test_cards_are_private_and_an_unexpected_error_gets_an_error_id(tmp_path: Path, caplog):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db)) as d:
        await start_vs_ai(d, deployment="auto")
        step = await d.send_command("alice", "general", "cards", {})
        assert step[0].ephemeral
        cog = d.bot.get_cog("RiskCog")

        async def broken(channel_id):
            raise RuntimeError("disk on fire")
        cog.store.get_active_game = broken
        step = await d.send_command("alice", "general", "map", {})
        assert step[0].ephemeral and "error" in step[0].content and "disk on fire" not in step[0].content
        assert "disk on fire" in caplog.text


async def test_lobby_buttons_join_and_start(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await open_lobby(d, deployment="auto")
        await d.click("bob", "Join")
        step = await d.click("bob", "Start")
        assert step[0].ephemeral and "Only the host" in step[0].content
        step = await d.click("alice", "Start")
        assert any("The game begins" in m.content for m in step)


async def test_after_a_battle_the_answer_offers_attack_again_blitz_and_stop(tmp_path: Path):
    db = tmp_path / "g.db"
    async with OfflineDiscord(make_bot(db, seed="again")) as d:
        await start_vs_ai(d, deployment="auto")
        record = await game_of(db, d.channel("general").id)
        game = record.game()
        s = game.state
        src = max((t for t in s.territories_of(0) if game.attack_targets(0, t)), key=lambda t: s.armies[t])
        await d.send_command("alice", "general", "place", {"territory": src, "count": s.reinforcements})
        record = await game_of(db, d.channel("general").id)
        game = record.game()
        dst = max(game.attack_targets(0, src), key=lambda t: game.state.armies[t])
        step = await d.send_command("alice", "general", "attack", {"from": src, "to": dst, "dice": 1})
        answer = next(m for m in step if not m.ephemeral)
        labels = [b["label"] for b in answer.buttons]
        record = await game_of(db, d.channel("general").id)
        assert record.game().state.phase == "attack" and record.game().state.owners[dst] != 0  # (this seed)
        assert labels[:3] == ["Attack again", "Blitz", "Stop"]
        step = await d.click("alice", "Stop", message=answer)  # this battle only: the attack phase goes on
        assert (await game_of(db, d.channel("general").id)).game().state.phase == "attack"
        stopped = d.message(answer.id)  # the same message, its buttons without this battle
        assert "Attack again" not in stopped.button_labels and "End attacks" in stopped.button_labels
        step = await d.click("alice", "End attacks", message=stopped)  # ending every attack asks first
        assert step[0].ephemeral and (await game_of(db, d.channel("general").id)).game().state.phase == "attack"
        await d.click("alice", "Yes, end my attacks", message=step[0])
        assert (await game_of(db, d.channel("general").id)).game().state.phase == "fortify"


async def test_a_cog_that_fails_to_load_stops_the_bot(tmp_path: Path, monkeypatch, caplog):
    import bot as bot_module

    monkeypatch.setattr(bot_module, "EXTENSIONS", ("cogs.risk", "cogs.does_not_exist"))
    broken = make_bot(tmp_path / "g.db")
    with pytest.raises(Exception, match="does_not_exist"):
        await broken.setup_hook()
    await broken.store.close()
    assert "failed to load" in caplog.text

    async def start(self, token, *, reconnect=True):
        await self.setup_hook()
    monkeypatch.setattr(bot_module.RiskBot, "start", start)
    assert await bot_module._run(bot_module.Config(token="x", database=str(tmp_path / "h.db"))) == 1
