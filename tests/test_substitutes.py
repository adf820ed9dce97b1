"""Substitutes: the host offers a seat the AI took over, another player claims it with the button on the offer and
plays it from then on; the seat's record is split between its players (the one who left keeps the game so far and
its abandon, the substitute's part starts at the claim), and the ratings weigh each by their share of the seat's
turns. Through the real command tree, and on both backends for the store's part."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from discord_helpers import OfflineDiscord, command_for, make_bot, start
from test_results import ALICE, BOB, CAROL, DAVE, GUILD, db_rows, new_game, play, store  # noqa: F401 (the fixture)

from engine import Player
from engine.ai import make_ai
from ratings import EARLY_TURNS, Rating, SeatResult, rate_game
from store.transaction import Step
from table import SeatRefused, Table
from table.results import rebuild_ratings

HOUR = 3600
ERIN = 1005


async def record_of(d: OfflineDiscord) -> Any:
    return (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]


async def play_turn(d: OfflineDiscord, user: str) -> None:
    """``user`` plays the turn on hand by command, as the normal AI would, until the turn passes."""
    turn = (await record_of(d)).game().state.turn
    for _ in range(300):
        record = await record_of(d)
        game = record.game()
        if game.state.turn != turn or record.status != "running":
            return
        name, options = command_for(make_ai("normal", salt="s").choose(game, game.state.current), game)
        step = await d.send_command(user, "general", name, options)
        assert not step.problems, (name, options, step.problems)
    raise AssertionError("the turn never passed")


async def press_stale(d: OfflineDiscord, user: str, custom_id: str) -> Any:
    """``user`` presses a button with this custom id on an old message (one edited since keeps no button)."""
    message = d.server.create_message(d.channel("general"), {"content": "old", "components": [
        {"type": 1, "components": [{"type": 2, "style": 2, "label": "old", "custom_id": custom_id}]}]}, [])
    return await d.click(user, custom_id, message)


def user_of(d: OfflineDiscord, record: Any, seat: int) -> str | None:
    return next((n for n in ("alice", "bob", "carol", "dave", "erin")
                 if record.player(seat).user_id == d.user(n).id), None)


async def bob_plays_once_then_goes(d: OfflineDiscord) -> int:
    """Alice, Bob and Carol; Bob plays his first turn, then misses two in a row: the AI takes his seat."""
    await start(d, ("alice", "bob", "carol"), 0, deployment="auto", turn_deadline=HOUR, max_missed=2)
    record = await record_of(d)
    seat = record.seat_of(d.user("bob").id)
    bob_played = False
    for _ in range(40):
        record = await record_of(d)
        if record.player(seat).is_ai:
            return seat
        current = record.game().state.current
        if current == seat and bob_played:
            await d.run(d.bot.advance_time(HOUR + 1))
        else:
            bob_played |= current == seat
            await play_turn(d, user_of(d, record, current) or "")
    raise AssertionError("the AI never took Bob's seat")


async def test_a_substitute_claims_an_offered_seat_and_plays_it(tmp_path: Path):
    d = OfflineDiscord(make_bot(tmp_path / "g.db", seed="subs"))
    await d.setup()
    try:
        seat = await bob_plays_once_then_goes(d)
        takeover = next(m for m in reversed(d.messages) if "Offer the seat to a substitute" in m.button_labels)
        assert "missed 2 turns in a row" in takeover.text and not takeover.ephemeral

        # Only the host offers; then the offer is in the channel with its claim button.
        step = await d.click("carol", "Offer the seat to a substitute", takeover)
        assert step[0].ephemeral and "Only the host" in step[0].text
        words, files = takeover.text, takeover.filenames()
        record = await record_of(d)
        assert (await d.bot.store.seat_status(record.id, seat)).takeover_message == takeover.id
        async with d.bot.store._transaction() as db:   # as a message posted before the store noted it
            await db.commit(Step("UPDATE seat_status SET takeover_message = NULL WHERE game_id = ?", (record.id,)))
        step = await d.click("alice", "Offer the seat to a substitute", takeover)
        assert not step.problems, step.problems
        offer = next(m for m in step if "Take this seat" in m.button_labels)
        assert not offer.ephemeral and "offers bob's seat to a substitute" in offer.text
        # The takeover's message keeps its words and map, not its button: the seat is offered.
        takeover = d.message(takeover.id)
        assert takeover.button_labels == [] and takeover.text == words and takeover.filenames() == files
        take = offer.buttons[0]["custom_id"]
        record = await record_of(d)
        key = (await d.bot.store.seat_status(record.id, seat)).offer
        assert key

        # Refused, and nothing changes: a player of the game, the player who left, a made-up or stale id.
        version = record.version
        for user, words in (("carol", "You play in this game already"), ("bob", "You play in this game already")):
            step = await d.click(user, "Take this seat", offer)
            assert step[0].ephemeral and words in step[0].text, step[0].text
        other = next(s for s in range(3) if s != seat)
        for custom_id in (f"risk:{record.id}:takeseat:{seat}:deadbeef", f"risk:{record.id}:takeseat:{other}:{key}",
                          f"risk:{record.id}:takeseat:{seat}", f"risk:{record.id}:takeseat:99:{key}"):
            message = d.server.create_message(d.channel("general"), {"content": "old", "components": [
                {"type": 1, "components": [{"type": 2, "style": 2, "label": "old", "custom_id": custom_id}]}]}, [])
            step = await d.click("dave", custom_id, message)
            assert step[-1].ephemeral and "This seat is not offered" in step[-1].text, (custom_id, step[-1].text)
        assert (await record_of(d)).version == version

        # Dave claims it; a second claim of the same offer is refused.
        step = await d.click("dave", "Take this seat", offer)
        assert not step.problems, step.problems
        assert step[0].ephemeral and "The seat is yours" in step[0].text
        assert any("dave takes over bob's seat" in m.text and not m.ephemeral for m in step)
        offer = d.message(offer.id)   # the offer says who took the seat, without its button
        assert offer.text == f"🪑 The host offered bob's seat to a substitute: dave took it over from turn " \
                             f"{(await d.bot.store.seat_holders(record.id))[seat][1][0]} on."
        assert offer.button_labels == [] and not offer.ephemeral
        step = await press_stale(d, "erin", take)
        assert step[-1].ephemeral and "This seat is not offered" in step[-1].text
        record = await record_of(d)
        assert record.player(seat).user_id == d.user("dave").id and record.seat_of(d.user("bob").id) is None
        assert (await d.bot.store.seat_status(record.id, seat)).offer is None

        # From the claim on the seat bears Dave's name for every reader; the log names Bob up to the claim.
        assert record.game().state.players[seat].name == "dave"
        lines = (await d.send_command("carol", "general", "risk log", {"count": 20}))[0].text.splitlines()
        assert lines[-1] == "🪑 dave takes over bob's seat." and any("bob" in line for line in lines[:-1])
        claimed_at, claim_seq = len(d.messages), record.last_seq
        mark = len(d.server.log)
        d = await d.restart(make_bot(tmp_path / "g.db", seed="subs"))
        assert len(d.server.log) == mark   # a restart has nothing to tell: the claim was told once

        # The seat's private views are Dave's now, not Bob's.
        step = await d.send_command("dave", "general", "cards", {})
        assert step[0].ephemeral and "not playing" not in step[0].text
        step = await d.send_command("bob", "general", "cards", {})
        assert "You are not playing in this game." in step[0].text

        # Dave plays the seat's turns.
        played = False
        for _ in range(12):
            record = await record_of(d)
            current = record.game().state.current
            if current == seat:
                if played:
                    break
                played = True
            await play_turn(d, user_of(d, record, current) or "")
        assert played
        told = [m for m in d.messages[claimed_at:] if not m.ephemeral]
        assert any(m.text.startswith("✅ dave played turn") for m in told)   # Dave's panel, as its summary
        assert not any("bob" in m.text for m in told), [m.text for m in told if "bob" in m.text]
        since = (await record_of(d)).last_seq - claim_seq   # the log since the claim names only Dave
        after = (await d.send_command("carol", "general", "risk log", {"count": min(since, 200)}))[0].text
        assert "dave" in after and "bob" not in after
        holders = await d.bot.store.seat_holders(record.id)
        assert [(u, n) for _, u, n in holders[seat]] == [(d.user("bob").id, "bob"), (d.user("dave").id, "dave")]

        # A vote of the players still in ends the game: both of the seat's players have their part.
        for user in ("alice", "carol", "dave"):
            if (await record_of(d)).status == "running":
                voted = await (d.send_command(user, "general", "vote", {}) if user == "alice"
                               else d.click(user, "Vote for"))
                assert not voted.problems, voted.problems
        record = await record_of(d)
        assert record.status == "finished"
        rows = [r for r in await d.bot.store.results(record.id) if r.seat == seat]
        assert [(r.user_id, r.ai_took_over, r.since_turn > 0) for r in rows] == [
            (d.user("bob").id, True, False), (d.user("dave").id, False, True)]
        bob, dave = rows
        assert bob.turns == dave.turns and bob.turns - bob.ai_turns == 1 and dave.turns - dave.ai_turns >= 1
        figures = await d.bot.store.reliability(d.server.guild_id, [d.user("bob").id, d.user("dave").id],
                                                early_turns=EARLY_TURNS)
        assert figures[d.user("bob").id].abandoned == 1 and figures[d.user("dave").id].abandoned == 0
        ratings = await d.bot.store.ratings(d.server.guild_id)
        assert d.user("bob").id in ratings and d.user("dave").id in ratings
        await rebuild_ratings(d.bot.store)  # bot.py ratings rebuild gives the same
        assert await d.bot.store.ratings(d.server.guild_id) == ratings
    finally:
        await d.close()


async def test_reinstating_the_player_withdraws_the_offer_and_a_claim_after_the_end_is_refused(tmp_path: Path):
    d = OfflineDiscord(make_bot(tmp_path / "g.db", seed="subs-back"))
    await d.setup()
    try:
        seat = await bob_plays_once_then_goes(d)
        step = await d.send_command("carol", "general", "offer", {"player": "bob"})
        assert step[0].ephemeral and "Only the host" in step[0].text
        step = await d.send_command("alice", "general", "offer", {"player": "carol"})
        assert step[0].ephemeral and "did not take that player's seat over" in step[0].text
        step = await d.send_command("alice", "general", "offer", {"player": "bob"})
        assert not step.problems, step.problems
        offer = next(m for m in step if "Take this seat" in m.button_labels)
        take = offer.buttons[0]["custom_id"]
        takeover = next(m for m in d.messages if "missed 2 turns in a row" in m.text)
        assert takeover.button_labels == []   # offered: the takeover's button went
        d = await d.restart(make_bot(tmp_path / "g.db", seed="subs-back"))   # the store knows the offer's message
        step = await d.send_command("alice", "general", "risk reinstate", {"player": "bob"})
        assert any("The offer of bob's seat is withdrawn" in m.text for m in step)
        offer = d.message(offer.id)
        assert offer.text == "🪑 The host offered bob's seat to a substitute; the offer was withdrawn."
        assert offer.button_labels == []
        step = await press_stale(d, "dave", take)
        assert "This seat is not offered" in step[-1].text
        record = await record_of(d)
        assert record.player(seat).user_id == d.user("bob").id

        # Offered again after another takeover, withdrawn by the host; then the game ends: no claim.
        await d.send_command("alice", "general", "risk kick", {"player": "bob"})
        step = await d.send_command("alice", "general", "offer", {"player": "bob"})
        assert "did not take that player's seat over" in step[0].text   # a kick resigns: nothing to offer
        await d.bot.store.replace_with_ai(record.id, seat)
        step = await d.send_command("alice", "general", "offer", {"player": "bob"})
        offer = next(m for m in step if "Take this seat" in m.button_labels)
        take = offer.buttons[0]["custom_id"]
        step = await d.send_command("alice", "general", "offer", {"player": "bob", "withdraw": True})
        assert any("withdrawn" in m.text and not m.ephemeral for m in step)
        assert d.message(offer.id).button_labels == [] and "the offer was withdrawn" in d.message(offer.id).text
        step = await press_stale(d, "dave", take)
        assert "This seat is not offered" in step[-1].text
        step = await d.send_command("alice", "general", "offer", {"player": "bob"})
        older = next(m for m in step if "Take this seat" in m.button_labels)
        step = await d.send_command("alice", "general", "offer", {"player": "bob"})   # offered again: one button
        offer = next(m for m in step if "Take this seat" in m.button_labels)
        assert offer.id != older.id and d.message(older.id).button_labels == []
        assert "offers bob's seat" in d.message(older.id).text
        await d.send_command("alice", "general", "risk cancel", {})
        step = await d.click("dave", "Take this seat", offer)
        assert step[0].ephemeral and "This game is over" in step[0].text
    finally:
        await d.close()


async def test_a_claimer_below_the_games_minimum_reliability_is_refused_with_both_figures(store):  # noqa: F811
    for n in range(2):  # Erin abandons two games: a figure of 0%
        record = await new_game(store, [(ALICE, "Alice"), (ERIN, "Erin")], seed=f"erin-{n}")
        await store.replace_with_ai(record.id, record.seat_of(ERIN))
        await play(store, await store.get_game(record.id))
    record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")], seed="min",
                            min_reliability=50)
    await store.replace_with_ai(record.id, record.seat_of(BOB))
    table = Table(store, store._clock)
    key = (await table.offer_seat(record.id, record.seat_of(BOB) or 0)).offer
    assert key is not None
    with pytest.raises(SeatRefused) as refused:
        await table.claim_seat(record.id, 1, key, ERIN, "Erin")
    assert refused.value.kind == SeatRefused.BELOW and refused.value.minimum == 50
    assert refused.value.reliability is not None and refused.value.reliability.percent == 0


async def test_two_claims_at_once_exactly_one_wins_and_the_record_is_split(store):  # noqa: F811
    record = await new_game(store, [(ALICE, "Alice"), (BOB, "Bob"), (CAROL, "Carol")], seed="split", max_rounds=8)
    bob = record.seat_of(BOB)
    assert bob is not None
    record = await play(store, record, until=lambda s: s.round >= 3)
    await store.replace_with_ai(record.id, bob)
    record = await play(store, await store.get_game(record.id), until=lambda s: s.round >= 5)
    table = Table(store, store._clock)
    key = (await table.offer_seat(record.id, bob)).offer
    await table.seat_message_posted(record.id, bob, offer_message=7001)   # the offer's message, as posted
    again = await table.offer_seat(record.id, bob)
    assert again.offer == key and again.offer_message == 7001   # offered again: the same key; the older message
    await table.seat_message_posted(record.id, bob, offer_message=7002)
    assert (await store.seat_status(record.id, bob)).offer_message == 7002
    claims = await asyncio.gather(table.claim_seat(record.id, bob, key, DAVE, "Dave"),
                                  table.claim_seat(record.id, bob, key, ERIN, "Erin"), return_exceptions=True)
    won = [c for c in claims if not isinstance(c, BaseException)]
    assert [c.offer_message for c in won] == [7002]   # the claim closes the offer's message
    status = await store.seat_status(record.id, bob)
    assert status.offer is None and status.offer_message is None and status.takeover_message is None
    lost = [c for c in claims if isinstance(c, SeatRefused)]
    assert len(won) == 1 and len(lost) == 1 and lost[0].kind == SeatRefused.NOT_OFFERED
    record = await store.get_game(record.id)
    assert record.player(bob).user_id == DAVE
    since = (await store.seat_holders(record.id))[bob][1][0]
    record = await play(store, record)
    assert record.status == "finished"
    rows = {r.user_id: r for r in await store.results(record.id)}
    assert len(rows) == 4 and rows[BOB].seat == rows[DAVE].seat == bob
    assert rows[BOB].ai_took_over and not rows[DAVE].ai_took_over and rows[DAVE].since_turn == since
    turns = await db_rows(store, "SELECT turn, by_ai FROM turns WHERE game_id = ? AND seat = ?", record.id, bob)
    assert rows[DAVE].turns - rows[DAVE].ai_turns == sum(1 for t, ai in turns if t >= since and not ai)
    assert rows[BOB].turns - rows[BOB].ai_turns == sum(1 for t, ai in turns if t < since and not ai)
    history = await db_rows(store, "SELECT user_id FROM rating_history WHERE game_id = ?", record.id)
    assert {BOB, DAVE} <= {h[0] for h in history}
    ratings = await store.ratings(GUILD)
    await rebuild_ratings(store)
    assert await store.ratings(GUILD) == ratings


def test_a_seat_with_two_players_rates_each_by_their_share_and_the_others_against_its_main_player():
    alice = SeatResult(1, None, 1, own_turns=10, seat=0)
    carol = SeatResult(3, None, 3, own_turns=10, seat=2)
    bob = SeatResult(2, None, 2, human_share=0.3, own_turns=3, seat=1)
    dave = SeatResult(4, None, 2, human_share=0.7, own_turns=7, seat=1, substitute=True)
    ratings = {1: Rating(games=9), 2: Rating(games=9), 3: Rating(games=9), 4: Rating(games=9)}
    both = rate_game(ratings, [alice, bob, dave, carol])
    with_dave = rate_game(ratings, [alice, dave, carol])
    with_bob = rate_game(ratings, [alice, bob, carol])
    assert both[1] == with_dave[1] and both[3] == with_dave[3]   # the others: against its main player
    assert both[4] == with_dave[4] and both[2] == with_bob[2]     # each of the seat's players, by their share
    assert both[2].mu - ratings[2].mu < both[4].mu - ratings[4].mu  # a 0.3 share moves less than 0.7
    # A substitute who lost soon after the claim did not leave early: rated with the others, damped as they are.
    late = SeatResult(4, None, 3, human_share=0.1, own_turns=1, seat=1, substitute=True)
    assert not late.left_early and SeatResult(4, None, 3, own_turns=1).left_early


def test_a_claim_renames_the_seat_in_the_log_and_every_reader_names_the_leaver_before_it_and_the_substitute_after():
    from engine import Game
    from engine import errors as E
    from engine.actions import ClaimSeat
    from engine.ai import make_ai
    from engine.fog import events_for
    from engine.verify import verify_events
    from present.text import describe

    game, log = Game.new([Player(i, f"P{i + 1}") for i in range(3)], "claim-names", {"fog": "on"})

    def play_turns(n: int) -> None:
        for _ in range(n * 400):
            if game.over or game.state.turn > n:
                return
            seat = game.state.current
            log.extend(game.apply(make_ai("normal", salt=str(seat)).choose(game, seat)))

    play_turns(3)
    before = game.state.copy()
    for refused, error in ((ClaimSeat(7, "Dave"), E.NotYourTurn), (ClaimSeat(1, " \t "), E.RuleError)):
        with pytest.raises(error):
            game.apply(refused)
        assert game.state.to_dict() == before.to_dict()   # refused: nothing changed
    events = game.apply(ClaimSeat(1, "  **Dave**   the second "))
    assert events == [{"type": "seat_claimed", "seat": 1, "name": "**Dave** the second", "former": "P2"}]
    log.extend(events)
    assert game.state.players[1].name == "**Dave** the second" and game.state.players[1].kind == "human"
    claim = len(log) - 1
    play_turns(6)
    assert Game.from_events(log, "claim-names").state.to_dict() == game.state.to_dict()   # the log replays it
    # Under fog everybody learns of the claim (names only); the lines name P2 before it and Dave after, escaped.
    for audience in (None, 0, 1):
        seen = events_for(log, audience)
        assert seen[claim] == events[0]
        lines = describe(seen, game.state, game.board)
        at = lines.index("🪑 \\*\\*Dave\\*\\* the second takes over P2's seat.")
        assert all("Dave" not in line for line in lines[:at]) and all("P2" not in line for line in lines[at + 1:])
        assert any("P2" in line for line in lines[:at]) and any("Dave" in line for line in lines[at + 1:])
    while not game.over:   # a finished game's log, its claim in it, checks out
        seat = game.state.current
        log.extend(game.apply(make_ai("normal", salt=str(seat)).choose(game, seat)))
    verify_events(log)
    with pytest.raises(E.GameOver):
        game.apply(ClaimSeat(0, "Erin"))


async def test_the_takeovers_offer_button_goes_when_the_player_comes_back(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="subs-return")) as d:
        await bob_plays_once_then_goes(d)
        takeover = next(m for m in reversed(d.messages) if "Offer the seat to a substitute" in m.button_labels)
        words = takeover.text
        step = await d.send_command("alice", "general", "risk reinstate", {"player": "bob"})
        assert not step.problems, step.problems
        takeover = d.message(takeover.id)
        assert takeover.button_labels == [] and takeover.text == words
        assert not any("withdrawn" in m.text for m in step)   # nothing was offered
