"""A vote to end a game, through the real command tree: ``/vote`` calls it, the buttons on its message are the
ballots of the players still in the game; it passes when every one of them votes for, and then the game ends by the
standings or as a draw, as an action in the log (it replays and verifies). A vote that fails or runs out of time
changes nothing; a spectator's, an eliminated player's or a second ballot changes nothing either."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from discord_helpers import OfflineDiscord, command_for, make_bot, start

from engine import Game, RuleError
from engine.actions import VoteEnd
from engine.ai import make_ai
from engine.verify import verify_events
from table.timers import Timer, TimerKind, Vote
from tests.conftest import new_game

DAY = 86400
HUMANS = ("alice", "bob", "carol", "dave")


async def record_of(d: OfflineDiscord) -> Any:
    return (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]


async def timers_of(d: OfflineDiscord) -> list[tuple[int, str, float]]:
    record = await record_of(d)
    return sorted((t.seat, t.kind, t.due_at) for t in await d.bot.store.game_deadlines(record.id))


async def vote_of(d: OfflineDiscord) -> Vote | None:
    return Vote.of(await d.bot.store.game_deadlines((await record_of(d)).id))


async def four_then_dave_surrenders(d: OfflineDiscord, **settings: Any) -> None:
    """Four players; dave resigns, so alice, bob and carol are still in (and vote)."""
    await start(d, HUMANS, 0, deployment="auto", **settings)
    step = await d.send_command("dave", "general", "risk surrender", {})
    step = await d.click("dave", "Yes, surrender", step[0])
    assert not step.problems, step.problems
    assert 3 in (await record_of(d)).game().state.surrendered


def public_since(d: OfflineDiscord, before: int) -> str:
    return "\n".join(m.text for m in d.messages[before:] if not m.ephemeral)


async def call(d: OfflineDiscord, user: str, ending: str | None = None) -> Any:
    step = await d.send_command(user, "general", "vote", {} if ending is None else {"ending": ending})
    assert not step.problems, step.problems
    return step


async def ballot(d: OfflineDiscord, user: str, label: str) -> Any:
    step = await d.click(user, label)
    assert not step.problems, step.problems
    assert step[0].ephemeral, step[0].text
    return step


async def play_until_the_turn_passes(d: OfflineDiscord) -> None:
    """The player on turn plays as a sensible player would, by command, until the next player's turn."""
    turn = (await record_of(d)).game().state.turn
    for _ in range(200):
        record = await record_of(d)
        game = record.game()
        if game.state.turn != turn:
            return
        seat = game.state.current
        user = next(name for name in HUMANS if record.seat_of(d.user(name).id) == seat)
        name, options = command_for(make_ai("normal", salt="h").choose(game, seat), game)
        step = await d.send_command(user, "general", name, options)
        assert not step.problems, (name, options, step.problems)
    raise AssertionError("the turn never passed")


def assert_replays(record: Any, events: list[Any]) -> None:
    assert Game.from_events(events).state.to_dict() == json.loads(record.state_json), "the log replays"
    verify_events(events)


async def test_a_vote_everyone_still_in_votes_for_ends_the_game_by_the_standings(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="vote-pass")) as d:
        await four_then_dave_surrenders(d)
        before = len(d.messages)
        step = await call(d, "bob")
        assert "Your vote is called" in step[0].text and step[0].ephemeral
        called = next(m for m in d.messages[before:] if not m.ephemeral)
        assert "bob calls a vote to end the game by the standings" in called.text
        assert "alice, bob, carol" in called.text and "dave" not in called.text
        assert called.button_labels == ["Vote for", "Vote against"]
        step = await ballot(d, "alice", "Vote for")
        assert "2 of 3 players have voted" in step[0].text
        assert "for: " not in public_since(d, before), "no tally before the vote closes"
        record = await record_of(d)
        leader = record.game().leader()
        before = len(d.messages)
        step = await ballot(d, "carol", "Vote for")
        assert "it was the last" in step[0].text
        said = public_since(d, before)
        assert "The vote passed (for: 3, against: 0): the game ends by the standings." in said
        assert "voted to end it by the standings" in said
        record = await record_of(d)
        assert record.status == "finished"
        events = await d.bot.store.events(record.id)
        assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "vote"
        assert events[-1]["winner"] == leader
        assert_replays(record, events)
        assert not await d.bot.store.game_deadlines(record.id), "no timer is left of the vote"
        places = {r.seat: r.placement for r in await d.bot.store.results(record.id)}
        assert places[leader] == 1 and places[3] == 4


async def test_a_vote_for_a_draw_lets_everyone_still_in_share_first_place(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="vote-draw")) as d:
        await four_then_dave_surrenders(d)
        before = len(d.messages)
        await call(d, "alice", "draw")
        assert "alice calls a vote to end the game as a draw" in public_since(d, before)
        await ballot(d, "bob", "Vote for")
        await ballot(d, "carol", "Vote for")
        said = public_since(d, before)
        assert "the game ends as a draw" in said and "A draw: alice and bob and carol share first place" in said
        record = await record_of(d)
        events = await d.bot.store.events(record.id)
        assert events[-1]["reason"] == "draw" and events[-1]["winners"] == [0, 1, 2]
        assert_replays(record, events)
        results = {r.seat: r for r in await d.bot.store.results(record.id)}
        assert [results[s].placement for s in range(4)] == [1, 1, 1, 4], "those still in share the placement"


async def test_a_vote_with_one_ballot_against_fails_and_the_game_goes_on(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="vote-fail")) as d:
        await four_then_dave_surrenders(d)
        version = (await record_of(d)).version
        await call(d, "alice")
        await ballot(d, "carol", "Vote against")
        before = len(d.messages)
        step = await ballot(d, "bob", "Vote for")
        assert "it was the last" in step[0].text
        assert "The vote to end the game failed (for: 2, against: 1): the game goes on." in public_since(d, before)
        record = await record_of(d)
        assert record.status == "running" and record.version == version, "nothing was played"
        kinds = [kind for _seat, kind, _due in await timers_of(d)]
        assert kinds and all(k.startswith(("turn|", "half|", "hour|")) for k in kinds), "the turn's: the vote is gone"
        step = await d.click("alice", "Vote for")
        assert "This vote is over." in step[0].text
        assert (await record_of(d)).version == version
        await call(d, "carol")  # a new vote may be called
        assert await vote_of(d) is not None


async def test_a_vote_not_everyone_answers_closes_at_its_time_and_changes_nothing(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="vote-time")) as d:
        await four_then_dave_surrenders(d, turn_deadline=7 * DAY)
        await call(d, "alice")
        await ballot(d, "bob", "Vote for")
        step = await d.send_command("carol", "general", "vote", {})
        assert "going on already" in step[0].text and step[0].ephemeral
        await play_until_the_turn_passes(d)  # the turn's timers are replaced; the vote's stay
        vote = await vote_of(d)
        assert vote is not None and vote.ballots == {0: True, 1: True}
        version = (await record_of(d)).version
        before = len(d.messages)
        await d.run(d.bot.advance_time(DAY + 1))
        said = public_since(d, before)
        assert "closed before everyone voted (for: 2, against: 0): the game goes on." in said
        record = await record_of(d)
        assert record.status == "running" and record.version == version
        assert await vote_of(d) is None
        assert all(kind.startswith(("turn|", "half|", "hour|")) for _s, kind, _d in await timers_of(d))


async def test_forged_and_repeated_ballots_change_nothing(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="vote-forged")) as d:
        await four_then_dave_surrenders(d)
        await call(d, "alice")
        timers = await timers_of(d)
        version = (await record_of(d)).version
        step = await d.click("erin", "Vote for")  # a spectator
        assert "You are not playing in this game." in step[0].text and step[0].ephemeral
        step = await d.click("dave", "Vote for")  # out of the game: they surrendered
        assert "Only the players still in this game vote" in step[0].text and step[0].ephemeral
        step = await d.send_command("dave", "general", "vote", {})
        assert "Only the players still in this game vote" in step[0].text
        record = await record_of(d)
        for custom_id in (f"risk:{record.id}:ballot:deadbeef:yes",  # a vote that is not going on
                          f"risk:{record.id}:ballot:{(await vote_of(d)).key}:maybe",  # a choice no button has
                          f"risk:{record.id}:ballot"):
            message = d.server.create_message(d.channel("general"), {"content": "an old message", "components": [
                {"type": 1, "components": [{"type": 2, "style": 2, "label": "old", "custom_id": custom_id}]}]}, [])
            step = await d.click("bob", custom_id, message)
            assert "This vote is over." in step[-1].text and step[-1].ephemeral, custom_id
        assert await timers_of(d) == timers and (await record_of(d)).version == version, "nothing changed"
        step = await ballot(d, "bob", "Vote for")
        step = await ballot(d, "bob", "Vote for")  # a double tap
        assert "counted already" in step[0].text
        step = await ballot(d, "bob", "Vote against")  # a change of mind is not counted either
        assert "counted already" in step[0].text
        vote = await vote_of(d)
        assert vote is not None and vote.ballots == {0: True, 1: True}
        assert (await record_of(d)).status == "running"


async def test_a_vote_needs_two_players_still_in(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="vote-alone")) as d:
        await start(d, ("alice",), 2, deployment="auto")
        step = await d.send_command("alice", "general", "vote", {"ending": "draw"})
        assert "at least two players still in it" in step[0].text and step[0].ephemeral
        assert not await timers_of(d) or await vote_of(d) is None


def test_the_vote_end_action_is_the_seat_on_turns_and_only_in_play():
    game = new_game(3)
    with pytest.raises(RuleError):
        game.apply(VoteEnd((game.state.current + 1) % 3))
    state = game.state
    events = game.apply(VoteEnd(state.current, draw=True))
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "draw"
    assert events[-1]["winners"] == sorted(game.state.active_seats())
    with pytest.raises(RuleError):
        game.apply(VoteEnd(game.state.current))


def test_a_vote_reads_back_from_its_timers():
    vote = Vote("ab12", "draw", 2, 100.0, {2: True})
    assert vote.timer == Timer(TimerKind.VOTE, "ab12.draw")
    assert Timer.parse(str(vote.ballot(False))) == Timer(TimerKind.BALLOT, "ab12.no")


async def test_a_vote_survives_a_restart_and_its_buttons_still_count(tmp_path: Path):
    db = tmp_path / "g.db"
    d = OfflineDiscord(make_bot(db, seed="vote-restart"))
    await d.setup()
    try:
        await four_then_dave_surrenders(d, turn_deadline=7 * DAY)
        await call(d, "alice")
        message = next(m for m in d.messages if "Vote for" in m.button_labels)
        d = await d.restart(make_bot(db, seed="vote-restart"))
        step = await d.click("bob", "Vote for", message)
        assert "2 of 3 players have voted" in step[0].text and not step.problems
        later = make_bot(db, seed="vote-restart")
        later.clock.advance(DAY + 1)  # the bot was down while the vote's time ran out
        before = len(d.messages)
        d = await d.restart(later)
        await d.run(d.bot.advance_time(0))
        assert "closed before everyone voted (for: 2, against: 0)" in public_since(d, before)
        assert await vote_of(d) is None and (await record_of(d)).status == "running"
    finally:
        await d.close()
