"""One live message per turn: the turn panel is edited as the player acts, becomes the turn's summary, survives a
restart, gives way to a fresh one when it is too old to edit, and its edits coalesce in the channel's queue."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from discord_helpers import OfflineDiscord, make_bot, record_worker_tasks, start

from cogs.shared.live import EDIT_WINDOW
from cogs.shared.postbox import ANSWERED_BY_EDIT, Post
from engine.state import ATTACK, OCCUPY, REINFORCE
from table.play import apply_action

pytestmark = pytest.mark.asyncio
MINUTE = 60


async def record_of(d: OfflineDiscord) -> Any:
    cog = d.bot.get_cog("RiskCog")
    return await cog.store.get_active_game(d.channel("general").id)


async def to_move(d: OfflineDiscord) -> tuple[str, Any]:
    record = await record_of(d)
    user = record.player(record.game().state.current).user_id
    return next(name for name in ("alice", "bob", "carol") if d.user(name).id == user), record


async def panel_of(d: OfflineDiscord) -> Any:
    record = await record_of(d)
    panel = await d.bot.store.live_panel(record.id)
    assert panel is not None
    return d.message(panel.message_id)


async def play_a_turn(d: OfflineDiscord) -> str:
    """The player on turn places everything by taps, attacks once by command, moves in by a tap if they took the
    territory, and ends the turn by taps. Each step is checked to change nothing it should not."""
    who, record = await to_move(d)
    game = record.game()
    assert game.state.phase == REINFORCE
    step = await d.click(who, "Place", await panel_of(d))
    assert step[-1].ephemeral and step[-1].selects  # the menu is the player's alone
    step = await d.select(who, step[-1].selects[0]["options"][0]["value"], step[-1])
    everything = next(label for label in step[-1].button_labels if label.startswith("All"))
    step = await d.click(who, everything, step[-1])
    assert not step.problems, step.problems
    game = (await record_of(d)).game()
    seat = game.state.current
    if game.state.phase == ATTACK and game.attack_sources(seat):
        source = game.attack_sources(seat)[0]
        target = game.attack_targets(seat, source)[0]
        step = await d.send_command(who, "general", "attack", {"from": game.board.name(source),
                                                               "to": game.board.name(target)})
        assert not step.problems, step.problems
        assert step[0].ephemeral  # the answer is private; the channel reads the panel
        if (await record_of(d)).game().state.phase == OCCUPY:
            move = next(label for label in (await panel_of(d)).button_labels if label.startswith("Move all"))
            step = await d.click(who, move, await panel_of(d))
            assert not step.problems, step.problems
    step = await d.click(who, "End turn", await panel_of(d))
    if step and step[-1].ephemeral and "Yes, end my turn" in step[-1].button_labels:
        step = await d.click(who, "Yes, end my turn", step[-1])
    assert not step.problems, step.problems
    return who


def created(d: OfflineDiscord, since: int) -> list[Any]:
    """The channel messages posted since log entry ``since`` (not private answers, not edits)."""
    return [e for e in d.server.log[since:] if e.action == "create" and not d.message(e.message_id).ephemeral]


def uploads(d: OfflineDiscord, since: int) -> list[Any]:
    """The pictures uploaded to the channel since log entry ``since``, by new messages and by edits alike (an
    edit that keeps a message's picture uploads nothing)."""
    seen: set[int] = set()
    for e in d.server.log[:since]:
        if e.action in ("create", "edit") and getattr(e, "version", None) is not None:
            seen.update(a.id for a in e.version.attachments)
    out = []
    for e in d.server.log[since:]:
        if e.action in ("create", "edit") and not d.message(e.message_id).ephemeral:
            fresh = [a for a in e.version.attachments if a.id not in seen]
            seen.update(a.id for a in fresh)
            out += fresh
    return out


async def test_a_human_turn_posts_one_message_and_a_picture_only_at_its_key_moments(tmp_path: Path):
    """The turn's panel is its one new message, posted without a picture (the turn's summary above it shows the
    board); as the turn goes its picture is sent again only after placing, at the end of the attack phase (if
    the board changed) and at the end: three at most. An edit that changes only its words keeps its picture."""
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="count"), strict=True) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        assert (await panel_of(d)).attachments    # the game's first panel: nothing above it shows the board
        measured = []
        for _ in range(4):
            mark, panel = len(d.server.log), await panel_of(d)
            initial = [a.id for a in panel.attachments]
            who = await play_a_turn(d)
            posts = created(d, mark)
            images = sum(len(e.version.attachments) for e in posts)
            edits = [e for e in d.server.log[mark:] if e.action == "edit" and e.message_id == panel.id]
            measured.append((len(posts), images, len(edits), len(uploads(d, mark))))
            assert len(posts) <= 2 and images <= 1 and len(uploads(d, mark)) <= 3, measured
            # The edits that sent no picture kept the one the panel had.
            shown, kept = initial, 0
            for e in edits:
                now = [a.id for a in e.version.attachments]
                kept += bool(now) and now == shown
                shown = now
            assert kept >= len(edits) - len(uploads(d, mark)) - (0 if initial else 1), measured
            assert kept, measured
            # The panel was edited in place as the turn went, and is now the turn's summary: no buttons, the
            # final map of the turn, what was done.
            assert edits, "the panel follows the turn"
            summary = d.message(panel.id)
            assert summary.content.startswith(f"✅ {who} played turn") and not summary.button_labels
            assert len(summary.attachments) == 1 and "placed" in summary.content
            # The next player's panel pings only them.
            nxt, _ = await to_move(d)
            fresh = await panel_of(d)
            assert fresh.id != panel.id and fresh.content.startswith(f"🎯 <@{d.user(nxt).id}>")
            assert fresh.allowed_mentions is not None and fresh.allowed_mentions.get("users") == [d.user(nxt).id]
        assert all(posts == 1 and images == 0 for posts, images, _, _ in measured), measured


async def test_a_panel_too_old_to_edit_gives_way_to_a_fresh_one_that_tells_the_whole_turn(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="old"), strict=True) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto", turn_deadline=3 * 86400)
        who, record = await to_move(d)
        game = record.game()
        mine = game.state.territories_of(game.state.current)
        await d.send_command(who, "general", "place", {"territory": game.board.name(mine[0]), "count": 1})
        first = await panel_of(d)
        await d.run(d.bot.advance_time(2 * 3600))  # a new sitting, hours later: Discord refuses the edit now
        step = await d.send_command(who, "general", "place", {"territory": game.board.name(mine[1]), "count": 1})
        assert not step.problems, step.problems  # no edit of the old message was even tried
        fresh = await panel_of(d)
        assert fresh.id != first.id and not fresh.ephemeral
        assert game.board.name(mine[0]) in fresh.content and game.board.name(mine[1]) in fresh.content
        assert d.message(first.id).deleted  # everything it said is on the fresh one
        assert "<@" in fresh.content and fresh.allowed_mentions == {"parse": []}  # the player is here: no ping


async def test_a_panel_near_the_hour_shrinks_to_what_it_told(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="near"), strict=True) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        who, record = await to_move(d)
        game = record.game()
        mine = game.state.territories_of(game.state.current)
        first = await panel_of(d)
        await d.run(d.bot.advance_time(EDIT_WINDOW + MINUTE))
        step = await d.send_command(who, "general", "place", {"territory": game.board.name(mine[0]), "count": 1})
        assert not step.problems, step.problems
        fresh = await panel_of(d)
        old = d.message(first.id)
        assert fresh.id != first.id and not old.deleted and not old.button_labels and not old.attachments
        assert "goes on in a newer message" in old.content and game.board.name(mine[0]) in old.content


async def test_a_burst_of_edits_of_one_message_is_one_edit(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        box = d.bot.get_cog("RiskCog").announcer.box
        channel = d.channel("general").id

        async def burst() -> None:
            message = await box.post(channel, Post("panel"))
            assert message is not None
            waiting = [box.enqueue(channel, Post(f"edit {n}", edit=message.id)) for n in range(5)]
            await asyncio.gather(*waiting)  # every caller learns its edit is done
            edits = [e for e in d.server.log if e.message_id == message.id and e.action == "edit"]
            assert [e.version.content for e in edits] == ["edit 4"]

        step = await d.run(burst())
        assert not step.problems


async def test_the_live_panel_survives_a_restart_between_storing_a_move_and_editing_it(tmp_path: Path):
    db = tmp_path / "g.db"
    d = OfflineDiscord(make_bot(db, seed="crash"), strict=True)
    await d.setup()
    try:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        who, record = await to_move(d)
        game = record.game()
        panel = await panel_of(d)
        cog = d.bot.get_cog("RiskCog")

        async def stopped(*args: Any, **kwargs: Any) -> None:  # the bot stops before it tells the channel
            raise asyncio.CancelledError
        cog.announcer.publish = stopped
        territory = game.board.name(game.state.territories_of(game.state.current)[0])
        d.strict = False
        step = await d.send_command(who, "general", "place", {"territory": territory, "count": 1})
        d.strict = True
        assert step[0].ephemeral and territory in step[0].content  # the player was answered, privately
        assert territory not in d.message(panel.id).content  # the panel was not edited
        mark, messages = len(d.server.log), len(d.messages)
        d = await d.restart(make_bot(db, seed="crash"))
        # The same panel, now telling the move; no new message; nothing told twice.
        assert (await panel_of(d)).id == panel.id
        assert territory in d.message(panel.id).content and "Place" in d.message(panel.id).button_labels
        assert len(d.messages) == messages
        assert [e.action for e in d.server.log[mark:]] == ["edit"]
        assert await d.bot.store.unannounced() == []
        # And it goes on: the next move edits it again.
        step = await d.send_command(who, "general", "place", {"territory": territory, "count": 1})
        assert not step.problems and (await panel_of(d)).id == panel.id
        mark = len(d.server.log)
        d = await d.restart(make_bot(db, seed="crash"))
        assert len(d.server.log) == mark  # a second restart has nothing to tell
    finally:
        await d.close()


async def test_a_turn_that_ended_while_the_bot_was_away_closes_its_panel_and_calls_the_next_player(tmp_path: Path):
    from engine import EndAttack, EndTurn, Place

    db = tmp_path / "g.db"
    d = OfflineDiscord(make_bot(db, seed="away"), strict=True)
    await d.setup()
    try:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        who, record = await to_move(d)
        game = record.game()
        panel = await panel_of(d)
        seat = game.state.current
        territory = game.state.territories_of(seat)[0]
        await apply_action(d.bot.store, record.id, Place(seat, territory, game.state.reinforcements))
        record = await record_of(d)
        while record.game().state.current == seat:  # the store alone: the bot is not running
            await apply_action(d.bot.store, record.id, EndTurn(seat) if record.game().allows(EndTurn)
                                           else EndAttack(seat))
            record = await record_of(d)
        d = await d.restart(make_bot(db, seed="away"))
        summary = d.message(panel.id)
        assert summary.content.startswith(f"✅ {who} played turn") and not summary.button_labels
        assert game.board.name(territory) in summary.content
        nxt, _ = await to_move(d)
        fresh = await panel_of(d)
        assert fresh.id != panel.id and f"<@{d.user(nxt).id}>" in fresh.content
        away = [m for m in d.messages if "While the bot was away" in m.content]
        assert len(away) <= 1 and not any(game.board.name(territory) in m.content for m in away)  # told once
    finally:
        await d.close()


async def test_a_surrender_out_of_turn_leaves_the_panel_of_the_player_on_turn_live(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="quit"), strict=True) as d:
        await start(d, ("alice", "bob", "carol"), 0, deployment="auto")
        who, _record = await to_move(d)
        other = next(name for name in ("alice", "bob", "carol") if name != who)
        panel = await panel_of(d)
        step = await d.send_command(other, "general", "risk surrender", {})
        step = await d.click(other, "Yes, surrender", step[0])
        assert not step.problems, step.problems
        assert any("surrendered" in m.content for m in step if not m.ephemeral)  # told in a message of its own
        assert (await panel_of(d)).id == panel.id and "Place" in d.message(panel.id).button_labels


async def test_the_panel_shows_the_phone_view_and_the_map_button_the_whole_map(tmp_path: Path, monkeypatch):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="phone")) as d:
        drawn = record_worker_tasks(monkeypatch)
        await start(d, ("alice", "bob"), 0, deployment="auto")
        panel = await panel_of(d)
        assert panel.attachments and "draw_phone_png" in drawn and "draw_png" not in drawn
        who, _record = await to_move(d)
        drawn.clear()
        step = await d.click(who, "Map", panel)
        assert not step.problems, step.problems
        assert step[-1].ephemeral and step[-1].attachments and drawn == ["draw_png"]


async def test_a_tap_on_a_panel_too_old_to_edit_is_answered_privately_and_a_fresh_panel_follows(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="old-tap"), strict=True) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto", turn_deadline=3 * 86400)
        who, record = await to_move(d)
        first = await panel_of(d)
        await d.run(d.bot.advance_time(2 * 3600))  # the panel is too old to edit when the player comes back
        menu = next(s for s in first.selects if s["options"])
        step = await d.select(who, menu["options"][0]["value"], first, custom_id=menu["custom_id"])
        assert not step.problems, step.problems
        answers = [m for m in step if m.ephemeral]
        assert answers and "placed" in answers[-1].content  # the tap is answered, privately
        fresh = await panel_of(d)
        assert fresh.id != first.id and "placed" in fresh.content
        assert (await record_of(d)).version > record.version


async def test_when_two_taps_edit_one_message_at_once_the_newer_edit_answers_its_tap_only(tmp_path: Path):
    class Tapped:  # the part of a tap the channel's queue uses: its answer by an edit of the tapped message
        def __init__(self) -> None:
            self.extras: dict[str, Any] = {}
            self.edits: list[dict[str, Any]] = []

        async def edit_original_response(self, **changes: Any) -> None:
            self.edits.append(changes)

    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        box = d.bot.get_cog("RiskCog").announcer.box
        channel = d.channel("general").id

        older, newer = Tapped(), Tapped()

        async def burst() -> None:
            message = await box.post(channel, Post("panel"))
            assert message is not None
            waiting = [box.enqueue(channel, Post("an edit", edit=message.id)),
                       box.enqueue(channel, Post("first tap", edit=message.id, via=older)),
                       box.enqueue(channel, Post("second tap", edit=message.id, via=newer))]
            await asyncio.gather(*waiting)  # the older tap's caller learns its edit is done too

        step = await d.run(burst())
        assert not step.problems
        assert [e["content"] for e in newer.edits] == ["second tap"] and newer.extras.get(ANSWERED_BY_EDIT)
        assert not older.edits and not older.extras  # left for the announcer to answer another way


async def test_a_game_whose_start_was_never_told_posts_its_dice_commitment_first_after_a_restart(tmp_path: Path):
    db = tmp_path / "g.db"
    d = OfflineDiscord(make_bot(db, seed="untold"), strict=True)
    await d.setup()
    try:
        await d.send_command("alice", "general", "risk new", {"deployment": "auto"})
        await d.send_command("bob", "general", "risk join", {})
        cog = d.bot.get_cog("RiskCog")
        lobby = await record_of(d)
        await cog.table.start(lobby.id)   # started and stored; the bot stops before telling the channel
        messages = len(d.messages)
        d = await d.restart(make_bot(db, seed="untold"))
        record = await d.bot.store.get_game(lobby.id)
        told = [m for m in d.messages[messages:] if not m.ephemeral]
        assert told and told[0].content.startswith("The game begins! Its dice are fixed in advance")
        assert record.game().state.seed_commitment in told[0].content   # in full, before any move is told
        assert await d.bot.store.unannounced() == []
    finally:
        await d.close()


async def test_losses_since_the_last_turn_are_the_territories_taken_and_not_taken_back():
    from present.losses import losses_since_last_turn

    events = [
        {"type": "turn_started", "seat": 0},
        {"type": "territory_conquered", "seat": 0, "from": "a", "to": "x", "defender": 1},   # before: not told
        {"type": "turn_started", "seat": 1},
        {"type": "territory_conquered", "seat": 1, "from": "b", "to": "brazil", "defender": 0},
        {"type": "territory_conquered", "seat": 1, "from": "b", "to": "peru", "defender": 0},
        {"type": "turn_started", "seat": 2},
        {"type": "territory_conquered", "seat": 2, "from": "c", "to": "brazil", "defender": 1},  # changes taker
        {"type": "territory_conquered", "seat": 2, "from": "c", "to": "iceland", "defender": 0},
        {"type": "territory_conquered", "seat": 0, "from": "d", "to": "iceland", "defender": 2},  # taken back
        {"type": "turn_started", "seat": 0},
    ]
    assert losses_since_last_turn(events, 0, whole=False) == [("brazil", 2), ("peru", 1)]   # Brazil: its holder
    assert losses_since_last_turn(events[2:], 0, whole=False) == []           # the turn before is not in the tail
    assert losses_since_last_turn(events[2:], 0, whole=True) == [("brazil", 2), ("peru", 1)]  # the whole log
    assert losses_since_last_turn(events, 1, whole=False) == []
    # Under fog, what the player saw: Brazil went to the player who took it from them; who took it on, they may
    # not have seen.
    assert losses_since_last_turn(events, 0, whole=False, fog=True) == [("brazil", 1), ("peru", 1)]


async def test_a_player_is_told_on_their_panel_what_the_ais_took_from_them(tmp_path: Path):
    """Alice plays against two AIs; at the start of each of her turns her panel names every territory an AI took
    from her since her last turn (and says nothing when she lost none)."""
    from discord_helpers import command_for

    from engine.ai import make_ai
    from present.losses import losses_since_last_turn

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="losses"), strict=True) as d:
        await start(d, ("alice",), 2, deployment="auto")
        told = 0
        for _ in range(400):
            record = await record_of(d)
            if record is None or record.status != "running":
                break
            game = record.game()
            seat = game.state.current
            events = await d.bot.store.events(record.id)
            panel = await panel_of(d)
            if game.state.phase == REINFORCE and any(e["type"] == "turn_started" for e in events[-3:]):
                lost = losses_since_last_turn(events, seat, whole=True)
                if lost:
                    told += 1
                    assert "Since your last turn you lost" in panel.content, panel.content
                    for territory, _taker in lost:
                        assert game.board.name(territory) in panel.content, (territory, panel.content)
                else:
                    assert "Since your last turn" not in panel.content
            name, options = command_for(make_ai("easy", salt="a").choose(game, seat), game)
            step = await d.send_command("alice", "general", name, options)
            assert not step.problems, (name, step.problems)
            if told >= 2:
                break
        assert told >= 2, "the AIs took nothing from her"
