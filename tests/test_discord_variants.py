"""Variants in the Discord layer: missions in private, choosing capitals by taps, teams, fog of war."""

from __future__ import annotations

from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot, start

from present.verbs import ref

pytestmark = pytest.mark.asyncio


async def record_of(d: OfflineDiscord):
    return await d.bot.store.get_active_game(d.channel("general").id)



async def test_mission_is_private(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="mission")) as d:
        await start(d, ["alice", "bob"], 1, deployment="auto", mode="missions")
        step = await d.send_command("alice", "general", "mission", {})
        record = await record_of(d)
        from present.text import mission_line
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
            step = await d.select("alice", [ref(game.board, choice)])
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
        await d.select(mover, [ref(record.game().board, s.territories_of(s.current)[0])])
        step = await d.click(mover, next(b["label"] for b in d.visible_to(mover)[-1].buttons
                                         if b["label"].startswith("All")))
        assert [m for m in step if m.attachments] and all(m.ephemeral for m in step if m.attachments)


async def test_the_rules_tell_the_game_of_this_channel_and_elsewhere_the_defaults_and_the_variants(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="rules")) as d:
        # No game in the channel: the default rule (escalating sets), and what other games may change.
        step = await d.send_command("bob", "general", "risk rules", {"topic": "cards"})
        text = step[0].content
        assert step[0].ephemeral and "Sets are worth 4, 6, 8, 10, 12, 15" in text
        assert "Other games may give sets fixed values" in text and "In this game" not in text
        await d.send_command("alice", "general", "risk new", {"cards": "fixed", "fortify": "unlimited"})
        # The lobby's game: fixed values that do not rise, and which setting says so.
        step = await d.send_command("bob", "general", "risk rules", {"topic": "cards"})
        text = step[0].content
        assert "a set is worth a fixed number of armies by its symbols" in text
        assert "Sets are worth 4, 6, 8, 10, 12, 15" not in text and "Other games" not in text
        assert "In this game: Card sets: **fixed: 4, 6, 8 or 10 armies by symbols**." in text
        step = await d.send_command("bob", "general", "risk rules", {"topic": "mistakes"})
        assert "2. In this game you may fortify as often as you like" in step[0].content
        assert "3. In this game card sets do not escalate" in step[0].content
        step = await d.send_command("bob", "general", "risk rules", {"topic": "capitals"})
        assert "In this game: Goal: **world domination**." in step[0].content
        # Another channel has no game: the defaults again.
        step = await d.send_command("bob", "war-room", "risk rules", {"topic": "fortify"})
        assert "one adjacent territory of yours" in step[0].content and "Other games allow" in step[0].content
        # In Norwegian, the settings label of the game is a noun.
        d.set_locale("ola", "no")
        step = await d.send_command("ola", "general", "risk rules", {"topic": "fortify"})
        assert "I dette spillet: Befesting: **" in step[0].content


async def test_the_star_of_the_card_list_is_explained_only_when_a_card_has_one():
    from types import SimpleNamespace

    from cogs.play.moves import PlayCommands
    from engine import Game, Player
    from engine.state import REINFORCE

    game, _events = Game.new([Player(0, "alice"), Player(1, "bob"), Player(2, "carol")], "stars",
                             {"deployment": "auto"})
    s = game.state
    s.phase, s.current = REINFORCE, 0
    mine = s.territories_of(0)[0]
    others = s.territories_of(1)
    sent: list[str] = []

    async def send_message(text: str, **_options: object) -> None:
        sent.append(text)

    interaction = SimpleNamespace(locale="en", response=SimpleNamespace(send_message=send_message))
    record = SimpleNamespace(id=1, game=lambda: game)
    explained = "★ = a territory you hold: +2 armies there when traded."
    for hand, starred in ((others[:2], False), ([others[0], mine], True), (["wild_1", others[0]], False)):
        s.hands[0] = list(hand)
        await PlayCommands.send_cards(None, interaction, record, 0)  # type: ignore[arg-type]
        assert (explained in sent[-1]) == starred and ("★" in sent[-1]) == starred, sent[-1]
