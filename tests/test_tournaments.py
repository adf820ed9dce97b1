"""``/tournament`` through the real command tree offline: whole tournaments of each format played out (the
players' moves chosen as the normal AI would, applied by the table and told by the announcer as a board's move
is), each table's game in a thread under the channel, the round limit fired by the clock, a restart mid-round, a
no-show who forfeits, and the refusals that change nothing."""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
from pathlib import Path
from typing import Any

import discord
import pytest
from discord_helpers import OfflineDiscord, command_for, make_bot, record_worker_tasks

from cogs.shared.board import BoardNews
from cogs.shared.components import GameButton
from engine.ai import make_ai
from present import verbs as verb
from present.names import safe_name
from store import RUNNING
from table.tournaments import view_standings

PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank")
QUICK = {"turn_time": 300, "max_rounds": 2}   # games that end soon: two rounds, five minutes a turn
THREADS = discord.Permissions(view_channel=True, send_messages=True, send_messages_in_threads=True,
                              create_public_threads=True, embed_links=True, attach_files=True,
                              read_message_history=True, use_application_commands=True)


def cog_of(d: OfflineDiscord) -> Any:
    return d.bot.get_cog("RiskCog")


async def tournament_of(d: OfflineDiscord) -> Any:
    record = await d.bot.store.channel_tournament(d.channel("general").id)
    return await d.bot.store.tournament_view(record.id)


async def open_tournament(d: OfflineDiscord, players: int, **options: Any) -> None:
    """Alice opens a tournament in #general and the first ``players`` players enter."""
    d.server.bot_permissions = THREADS
    step = await d.send_command("alice", "general", "tournament new", {"name": "Cup", **QUICK, **options})
    assert not step.problems and "Cup" in step[0].text, (step.problems, step[0].text if step else None)
    for name in PLAYERS[:players]:
        step = await d.send_command(name, "general", "tournament join", {})
        assert not step.problems and "enters" in step[0].text, step[0].text


async def play_round(d: OfflineDiscord, absent: frozenset[str] = frozenset()) -> bool:
    """The players (but ``absent``) play every game of the round on hand as the normal AI would, each move told
    in its thread; the clock then runs the timers. False once the tournament is over."""
    cog = cog_of(d)
    view = await tournament_of(d)
    if view.record.status != RUNNING:
        return False
    away = {d.user(name).id for name in absent}
    for p in view.pairings:
        if p.pairing.round != view.record.round or p.game_id is None:
            continue
        for _move in range(3000):
            record = await d.bot.store.get_game(p.game_id)
            if record.status != RUNNING:
                break
            game = record.game()
            seat = game.state.current
            player = record.player(seat)
            if player.is_ai or player.user_id in away:
                step = await d.run(d.bot.advance_time(301))  # their time runs out: the stand-in plays
                assert not step.problems, step.problems
                continue
            action = make_ai("normal", salt=str(seat)).choose(game, seat)
            outcome = await cog.table.apply(record, action)
            step = await d.run(BoardNews(cog.announcer).board_move(outcome))
            assert not step.problems, step.problems
    step = await d.run(d.bot.advance_time(1))  # the next round opens (or the final standings)
    assert not step.problems, step.problems
    return True


async def play_out(d: OfflineDiscord, absent: frozenset[str] = frozenset()) -> Any:
    for _ in range(40):
        if not await play_round(d, absent):
            return await tournament_of(d)
    raise AssertionError("the tournament never ended")


def games_in_threads(d: OfflineDiscord, view: Any) -> None:
    """Every table that played has its own thread under #general, and its game was played there."""
    threads = {t.id for t in d.server.threads("general")}
    played = [p for p in view.pairings if not p.pairing.bye]
    assert len({p.thread_id for p in played}) == len(played) and {p.thread_id for p in played} <= threads


async def test_a_swiss_is_played_out_in_threads_and_its_standings_are_posted(tmp_path: Path, monkeypatch):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="swiss")) as d:
        await open_tournament(d, 5, format="swiss", rounds=2)
        step = await d.send_command("alice", "general", "tournament start", {})
        assert not step.problems, step.problems
        opening = next(m for m in step if "Round 1 begins" in m.text)
        view = await tournament_of(d)
        first = [p for p in view.pairings if p.pairing.round == 1]
        assert len(first) == 3 and sum(p.pairing.bye for p in first) == 1    # five players: two tables, a bye
        for p in first:
            if not p.pairing.bye:
                assert f"<#{p.thread_id}>" in opening.text
        assert opening.pings == {f"user:{k}" for p in first if not p.pairing.bye for k in p.pairing.entrants}
        for p in first:   # each game begins in its thread, its first player's panel there
            if not p.pairing.bye:
                assert any(m.channel_id == p.thread_id and "begins" in m.text.lower() for m in d.messages)
        table = next(p for p in first if not p.pairing.bye)   # a player plays their first moves in the thread
        for _move in range(5):
            record = await d.bot.store.get_game(table.game_id)
            game = record.game()
            user = d.server.user_by_id(record.player(game.state.current).user_id)
            name, options = command_for(make_ai("normal", salt="t").choose(game, game.state.current), game)
            step = await d.send_command(user, d.server.channel(table.thread_id), name, options)
            assert not step.problems and all(m.channel_id == table.thread_id for m in step), step.problems
        assert (await d.bot.store.get_game(table.game_id)).last_seq > record.last_seq
        view = await play_out(d)
        assert view.record.status == "finished"
        games_in_threads(d, view)
        rounds = [[p.pairing for p in view.pairings if p.pairing.round == r] for r in (1, 2)]
        byes = [p.entrants[0] for r in rounds for p in r if p.bye]
        assert len(byes) == 2 and len(set(byes)) == 2        # nobody has two byes
        standings = view_standings(view)   # points, then the tie-breaks; a shared rank only where all are equal
        order = [(s.points, s.tiebreaks) for s in standings]
        assert order == sorted(order, reverse=True)
        assert all((a.rank == b.rank) == (order[i] == order[i + 1])
                   for i, (a, b) in enumerate(itertools.pairwise(standings)))
        games = [p.game_id for p in view.pairings if not p.pairing.bye]
        assert len(games) == len(set(games)) == 4 and len(view.results) == 4   # one game per pairing
        final = [m for m in d.messages if "The tournament is over" in m.text]
        assert len(final) == 1 and final[0].channel_id == d.channel("general").id
        names = {e.user_id: e.name for e in view.entrants}
        shown = [line.split("** ", 1)[1].split(":")[0] for line in final[0].text.splitlines()[1:]]
        assert shown == [names[s.key] for s in standings]   # the channel reads them in the standings' order
        assert final[0].attachments and final[0].attachments[0].filename == "standings.png"
        drawn = record_worker_tasks(monkeypatch)
        step = await d.send_command("bob", "general", "tournament standings", {})
        assert not step.problems and step[-1].attachments and "**1.**" in step[-1].text
        assert drawn == ["standings_image"]   # drawn in a render worker, not on the event loop
        step = await d.send_command("bob", "general", "tournament status", {})
        assert "finished" in step[0].text and "over" in step[0].text


@pytest.mark.parametrize(("format_", "players", "options"), [
    ("round_robin", 4, {}), ("single_elimination", 5, {}), ("double_elimination", 4, {}),
    ("swiss", 6, {"table_size": 3, "rounds": 2})])
async def test_every_format_is_played_out(tmp_path: Path, format_: str, players: int, options: dict[str, Any]):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed=format_)) as d:
        await open_tournament(d, players, format=format_, **options)
        step = await d.send_command("alice", "general", "tournament start", {})
        assert not step.problems and any("Round 1 begins" in m.text for m in step), step.problems
        view = await play_out(d)
        assert view.record.status == "finished"
        games_in_threads(d, view)
        met = [frozenset(p.pairing.entrants) for p in view.pairings if not p.pairing.bye]
        ids = sorted(d.user(n).id for n in PLAYERS[:players])
        if format_ == "round_robin":   # everyone meets everyone once
            assert sorted(map(sorted, met)) == sorted(map(sorted, itertools.combinations(ids, 2)))
        if format_ == "single_elimination":   # 5 entrants: the top three seeds have a bye, four games in all
            assert len(met) == 4 and sum(p.pairing.bye for p in view.pairings if p.pairing.round == 1) == 3
        if format_ == "double_elimination":
            assert {p.pairing.bracket for p in view.pairings} >= {"winners", "losers", "final"}
        if format_ == "swiss":   # six at tables of three: two free-for-all games a round, three players each
            assert all(len(p.pairing.entrants) == 3 for p in view.pairings) and len(met) == 4
            for p in view.pairings:
                assert len((await d.bot.store.get_game(p.game_id)).players) == 3
        assert len(view.results) == len(met) == len({p.game_id for p in view.pairings if not p.pairing.bye})
        standings = view_standings(view)
        assert sorted(s.key for s in standings) == ids and standings[0].rank == 1
        final = next(m for m in d.messages if "The tournament is over" in m.text)
        winner = next(e.name for e in view.entrants if e.user_id == standings[0].key)
        assert f"{winner} wins it!" in final.text and final.pings == set()
        assert len(d.server.threads("general")) == len(met)   # one thread per game, none for a bye


async def test_a_round_past_its_time_ends_by_the_standings_and_the_next_round_opens(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="time")) as d:
        await open_tournament(d, 4, format="swiss", rounds=2, round_time=1, max_rounds=0, turn_time=86400)
        await d.send_command("alice", "general", "tournament start", {})
        step = await d.run(d.bot.advance_time(3601))   # nobody has played: the round's hour is up
        assert not step.problems, step.problems
        step = await d.run(d.bot.advance_time(1))
        assert not step.problems, step.problems
        view = await tournament_of(d)
        assert view.forced == frozenset({(1, 1), (1, 2)}) and view.record.round == 2
        told = [m for m in d.messages if "Round 1's time is up" in m.text]
        assert len(told) == 1 and told[0].channel_id == d.channel("general").id
        for p in view.pairings:
            if p.pairing.round == 1:   # each game's end is told in its own thread
                assert (await d.bot.store.get_game(p.game_id)).status == "finished"
                assert any(m.channel_id == p.thread_id and m.attachments for m in d.messages)
        assert any("Round 2 begins" in m.text for m in d.messages)


async def test_a_restart_mid_round_goes_on_and_opens_nothing_twice(tmp_path: Path):
    db = tmp_path / "t.db"
    d = OfflineDiscord(make_bot(db, seed="restart"))
    await d.setup()
    try:
        await open_tournament(d, 4, format="swiss", rounds=2)
        await d.send_command("alice", "general", "tournament start", {})
        view = await tournament_of(d)
        cog = cog_of(d)
        one = next(p for p in view.pairings if p.pairing.round == 1)
        for _move in range(3000):   # the first table's game is played out before the restart; the other goes on
            record = await d.bot.store.get_game(one.game_id)
            if record.status != RUNNING:
                break
            game = record.game()
            outcome = await cog.table.apply(record, make_ai("normal", salt="r").choose(game, game.state.current))
            await d.run(BoardNews(cog.announcer).board_move(outcome))
        assert len((await tournament_of(d)).results) == 1
        await d.close()
        with sqlite3.connect(db) as conn:   # as if the bot had stopped between the game's end and its result
            conn.execute("DELETE FROM tournament_results")
        d = await d.restart(make_bot(db, seed="restart"))
        assert len((await tournament_of(d)).results) == 1   # scored at start-up (Tournaments.catch_up)
        view = await play_out(d)
        assert view.record.status == "finished" and len(view.results) == 4
        games_in_threads(d, view)
        assert len(d.server.threads("general")) == 4    # round 1's threads were not opened again
        assert len([m for m in d.messages if "Round 1 begins" in m.text]) == 1
        assert len([m for m in d.messages if "The tournament is over" in m.text]) == 1
    finally:
        await d.close()


async def test_a_no_show_forfeits_their_table_and_the_standings_say_so(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="noshow")) as d:
        await open_tournament(d, 2, format="swiss", rounds=1, max_missed=1, max_rounds=0)
        await d.send_command("alice", "general", "tournament start", {})
        view = await play_out(d, absent=frozenset({"bob"}))
        bob, alice = d.user("bob").id, d.user("alice").id
        assert view.results[0].forfeits == frozenset({bob})
        table = {s.key: s for s in view_standings(view)}
        assert table[bob].forfeits == 1 and table[alice].rank == 1
        final = next(m for m in d.messages if "The tournament is over" in m.text)
        assert "alice wins it!" in final.text and "1 forfeit" in final.text


async def test_refusals_are_in_the_players_words_and_change_nothing(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="refusals")) as d:
        step = await d.send_command("bob", "general", "tournament join", {})
        assert step[0].ephemeral and "There is no tournament in this channel" in step[0].text
        await open_tournament(d, 4, format="swiss", rounds=1)
        step = await d.send_command("bob", "general", "tournament new", {"name": "Another"})
        assert step[0].ephemeral and "This channel already has a tournament" in step[0].text
        step = await d.send_command("bob", "general", "tournament join", {})
        assert step[0].ephemeral and "You are already in this tournament" in step[0].text
        step = await d.send_command("bob", "general", "tournament start", {})   # not the host
        assert step[0].ephemeral and "Only the tournament's host can start it" in step[0].text
        step = await d.send_command("bob", "general", "tournament cancel", {})
        assert step[0].ephemeral and "Only the tournament's host or a member with Manage Server" in step[0].text
        step = await d.send_command("erin", "general", "tournament checkin", {})
        assert step[0].ephemeral and "check-in is not open" in step[0].text
        # The bot may not open threads here: the start is refused with the permission's name, nothing changes.
        d.server.bot_permissions = discord.Permissions(THREADS.value & ~discord.Permissions(
            create_public_threads=True).value)
        step = await d.send_command("alice", "general", "tournament start", {})
        assert step[0].ephemeral and "Create Public Threads" in step[0].text and not step.problems
        d.server.bot_permissions = discord.Permissions(THREADS.value & ~discord.Permissions(
            send_messages_in_threads=True).value)
        step = await d.send_command("alice", "general", "tournament start", {})
        assert step[0].ephemeral and "Send Messages in Threads" in step[0].text
        view = await tournament_of(d)
        assert view.record.status == "open" and not view.pairings and not d.server.threads("general")
        step = await d.send_command("dave", "general", "tournament leave", {})
        assert "dave leaves Cup" in step[0].text
        step = await d.send_command("dave", "general", "tournament leave", {})
        assert step[0].ephemeral and "You are not in this tournament" in step[0].text
        await d.send_command("dave", "general", "tournament join", {})
        d.server.bot_permissions = THREADS
        step = await d.send_command("alice", "general", "tournament start", {})
        assert not step.problems, step.problems
        # A second start (a double tap) pairs nothing more; nobody joins or leaves a tournament under way.
        step = await d.send_command("alice", "general", "tournament start", {})
        assert step[-1].ephemeral and "This tournament has started already" in step[-1].text
        assert not step.problems, step.problems
        step = await d.send_command("frank", "general", "tournament join", {})
        assert step[0].ephemeral and "This tournament has started: it takes no more entrants" in step[0].text
        step = await d.send_command("bob", "general", "tournament leave", {})
        assert step[0].ephemeral and "its entrants play it out" in step[0].text
        view = await tournament_of(d)
        assert len(view.pairings) == 2 and len(view.entrants) == 4 and len(d.server.threads("general")) == 2
        # In a table's thread: the tournament is the channel's; its game's own host (one of its players) neither
        # pauses nor cancels it, nor removes anyone: the tournament's host runs its games.
        thread = d.server.channel(view.pairings[0].thread_id)
        record = await d.bot.store.get_game(view.pairings[0].game_id)
        host = d.server.user_by_id(record.host_id)
        step = await d.send_command("carol", thread, "tournament status", {})
        assert "Cup" in step[0].text and "under way" in step[0].text
        for command in ("risk cancel", "risk pause"):
            step = await d.send_command(host, thread, command, {})
            assert step[0].ephemeral and "its host runs its games" in step[0].text, step[0].text
        other = d.server.user_by_id(next(p.user_id for p in record.players if p.user_id != record.host_id))
        step = await d.send_command(host, thread, "risk kick", {"player": other})
        assert step[0].ephemeral and "its host runs its games" in step[0].text, step[0].text
        seat = record.seat_of(other.id)   # nor by a button made up with the removal's id
        forged = d.server.create_message(thread, {"content": "old", "components": [{"type": 1, "components": [
            {"type": 2, "style": 4, "label": "Yes, remove", "custom_id": f"risk:{record.id}:kick:{seat}"}]}]}, [])
        step = await d.click(host, "Yes, remove", forged)
        assert step[-1].ephemeral and "its host runs its games" in step[-1].text, step[-1].text
        assert (await d.bot.store.get_game(record.id)).status == "running"
        assert (await d.bot.store.get_game(record.id)).version == record.version
        # A server manager may call it off: its games end by the standings and each thread hears it.
        d.set_permissions("frank", manage_guild=True)
        step = await d.send_command("frank", "general", "tournament cancel", {})
        assert not step.problems and "The tournament was called off" in step[0].text
        view = await tournament_of(d)
        assert view.record.status == "cancelled"
        for p in view.pairings:
            assert (await d.bot.store.get_game(p.game_id)).status == "finished"   # in play: ended by the standings
            assert any(m.channel_id == p.thread_id and "Cup" in m.text for m in d.messages)
        step = await d.send_command("alice", "general", "tournament start", {})
        assert step[0].ephemeral and "There is no tournament in this channel" in step[0].text


async def test_the_entry_rules_keep_out_whom_they_name(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="rules")) as d:
        step = await d.send_command("alice", "general", "tournament new", {"name": "Masters", "min_games": 3})
        assert "Entrants need 3 rated games here" in step[0].text
        step = await d.send_command("bob", "general", "tournament join", {})
        assert step[0].ephemeral and "You have played 0 rated games here" in step[0].text
        assert not (await tournament_of(d)).entrants
        step = await d.send_command("alice", "general", "tournament cancel", {})
        assert "called off" in step[0].text
        step = await d.send_command("alice", "general", "tournament new", {"name": "Open", "min_rating": 1200})
        step = await d.send_command("bob", "general", "tournament join", {})
        assert step[0].ephemeral and "Your rating here is 1000" in step[0].text
        step = await d.send_command("alice", "general", "tournament cancel", {})
        for options, words in (({"min_rating": 1500, "max_rating": 1200}, "The lowest rating must not be above"),
                               ({"team_size": 3, "table_size": 3}, "Teams play 2 or 3 to a table"),
                               ({"format": "round_robin", "rounds": 3}, "Only a Swiss tournament takes a number"),
                               ({"round_time": -1}, "Choose a number from 0 to 720"),
                               ({"format": "knockout"}, "There is no tournament format knockout")):
            step = await d.send_command("alice", "general", "tournament new", {"name": "Bad", **options},
                                        client_checks=False)   # as a request that never went through the client
            assert step[0].ephemeral and words in step[0].text, (options, step[0].text)
        assert (await d.bot.store.channel_tournament(d.channel("general").id)).status == "cancelled"


async def test_a_check_in_starts_with_those_who_checked_in_or_calls_it_off(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="checkin")) as d:
        await open_tournament(d, 4, format="swiss", rounds=1, checkin=10)
        step = await d.send_command("alice", "general", "tournament start", {})
        assert not step.problems and "Check-in is open" in step[0].text
        for name in ("alice", "bob", "carol"):
            step = await d.send_command(name, "general", "tournament checkin", {})
            assert "checks in" in step[0].text
        step = await d.send_command("alice", "general", "tournament start", {})   # a second tap: nothing more
        assert step[0].ephemeral and "starts by itself when it closes" in step[0].text
        step = await d.send_command("erin", "general", "tournament join", {})   # joining now checks in
        step = await d.send_command("bob", "general", "tournament status", {})
        assert "check-in open" in step[0].text and "bob ✅" in step[0].text and "dave ✅" not in step[0].text
        step = await d.run(d.bot.advance_time(601))
        assert not step.problems, step.problems
        view = await tournament_of(d)
        seated = {k for p in view.pairings for k in p.pairing.entrants}
        assert seated == {d.user(n).id for n in ("alice", "bob", "carol", "erin")}   # dave did not check in
        assert any("Round 1 begins" in m.text for m in step)
    async with OfflineDiscord(make_bot(tmp_path / "u.db", seed="checkin")) as d:
        await open_tournament(d, 3, format="swiss", rounds=1, checkin=10)
        await d.send_command("alice", "general", "tournament start", {})
        await d.send_command("alice", "general", "tournament checkin", {})
        step = await d.run(d.bot.advance_time(601))
        assert not step.problems, step.problems
        told = [m for m in d.messages if "too few entrants" in m.text]
        assert len(told) == 1 and told[0].channel_id == d.channel("general").id
        assert (await tournament_of(d)).record.status == "cancelled"


async def test_names_are_escaped_and_only_a_rounds_players_are_pinged(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="names")) as d:
        d.server.bot_permissions = THREADS
        step = await d.send_command("alice", "general", "tournament new", {"name": "@everyone **Cup** <@&1>"})
        assert step[0].pings == set() and "**Cup**" not in step[0].text
        mallory = "__mallory__ @here <@&1>"
        for name in ("alice", mallory):
            step = await d.send_command(name, "general", "tournament join", {})
            assert step[0].pings == set() and "__mallory__" not in step[0].text
        step = await d.send_command("alice", "general", "tournament start", {})
        opening = next(m for m in step if "Round 1 begins" in m.text)
        assert opening.pings == {f"user:{d.user('alice').id}", f"user:{d.user(mallory).id}"}
        step = await d.send_command("carol", "general", "tournament status", {})
        assert "__mallory__" not in step[0].text and "<@&1>" not in step[0].text and step[0].pings == set()
        step = await d.send_command("carol", "general", "tournament status", {}, locale="no")
        assert "2 deltakere" in step[0].text and "i gang" in step[0].text
        step = await d.send_command("carol", "general", "tournament join", {}, locale="es-ES")
        assert step[0].ephemeral and "Este torneo ha empezado: no admite más participantes" in step[0].text


def test_a_big_rounds_opening_fits_discords_limits_and_names_every_table():
    """128 entrants with long names: the opening is split into messages under 2,000 characters, none pinging more
    than the 100 users Discord allows, together naming every table's thread and player once."""
    from cogs.tournament.rooms import mentioned
    from competition import Pairing, Spec
    from present import tournament as words
    from store.tournaments import EntrantRecord, PairingRecord, TournamentRecord, TournamentView

    keys = [10**17 + n for n in range(128)]
    record = TournamentRecord(1, 1, 2, keys[0], "Cup", Spec("swiss"), {}, "running", 1, 0.0, None, None, 0.0, 0.0)
    entrants = [EntrantRecord(k, "ø" * 60 + str(n), 1000.0, False, 0.0) for n, k in enumerate(keys)]
    pairings = [PairingRecord(Pairing(1, t + 1, (keys[2 * t], keys[2 * t + 1])), 5 * 10**17 + t, t + 1)
                for t in range(64)]
    view = TournamentView(record, entrants, pairings, [])
    texts = words.round_texts(view, "en")
    assert len(texts) > 1 and all(len(t) <= 2000 for t in texts)
    assert all(len(mentioned(t)) <= 100 for t in texts)
    assert sorted(u for t in texts for u in mentioned(t)) == sorted(keys)
    threads = [p.thread_id for p in pairings]
    assert sum(f"<#{th}>" in t for t in texts for th in threads) == 64


def takeover_offer_id(game_id: int, seat: int) -> str:
    """The custom id of the host's offer button on a takeover message (as a plain game's has it)."""
    return str(GameButton(game_id, verb.OFFER, seat, label="x").custom_id)


async def test_a_seat_left_in_a_tournament_is_not_offered_to_a_substitute(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="substitute")) as d:
        await open_tournament(d, 2, format="swiss", rounds=1, max_missed=1, max_rounds=0)
        await d.send_command("alice", "general", "tournament start", {})
        [table] = (await tournament_of(d)).pairings
        cog, bob = cog_of(d), d.user("bob").id
        bobs = (await d.bot.store.get_game(table.game_id)).seat_of(bob)
        for _ in range(200):   # alice plays, bob never does: the AI takes his seat
            record = await d.bot.store.get_game(table.game_id)
            seat = record.game().state.current
            if record.player(bobs).is_ai:
                break
            if seat == bobs:
                await d.run(d.bot.advance_time(301))
            else:
                outcome = await cog.table.apply(record, make_ai("normal", salt="s").choose(record.game(), seat))
                await d.run(BoardNews(cog.announcer).board_move(outcome))
        takeover = next(m for m in d.messages if "the AI takes their seat" in m.text)
        assert "not offered to a substitute" in takeover.text and not takeover.button_labels
        assert not any("Offer the seat to a substitute" in m.button_labels for m in d.messages)
        host = d.user("dave")   # a manager who does not play at this table (its players run nothing there)
        d.set_permissions(host, manage_guild=True)
        forged = d.server.create_message(d.server.channel(table.thread_id), {"content": "old", "components": [
            {"type": 1, "components": [{"type": 2, "style": 2, "label": "Offer the seat to a substitute",
                                        "custom_id": takeover_offer_id(record.id, bobs)}]}]}, [])
        step = await d.click(host, "Offer the seat to a substitute", forged)   # a button made up: refused
        assert step[-1].ephemeral and "not offered to a substitute" in step[-1].text, step[-1].text
        step = await d.send_command(host, d.server.channel(table.thread_id), "offer", {"player": "bob"})
        assert step[-1].ephemeral and "not offered to a substitute" in step[-1].text, step[-1].text
        assert (await d.bot.store.seat_status(record.id, bobs)).offer is None


async def test_the_store_lists_the_tournaments_under_way_for_a_restart(store):
    from competition import Spec

    first = await store.create_tournament(1, 10, 9, "One", Spec("swiss", rounds=1), {})
    second = await store.create_tournament(1, 11, 9, "Two", Spec("swiss", rounds=1), {})
    for record in (first, second):
        for user in (101, 102):
            await store.join_tournament(record.id, user, f"p{user}", 1000.0)
    assert await store.running_tournaments() == []
    await store.start_tournament(second.id)
    await store.start_tournament(first.id)
    assert await store.running_tournaments() == [first.id, second.id]
    await store.cancel_tournament(first.id)
    assert await store.running_tournaments() == [second.id]


async def test_a_double_tap_on_start_pairs_and_opens_the_round_once(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="double")) as d:
        await open_tournament(d, 4, format="swiss", rounds=1)
        taps = await asyncio.gather(d.send_command("alice", "general", "tournament start", {}),
                                    d.send_command("alice", "general", "tournament start", {}))
        assert not any(step.problems for step in taps), [step.problems for step in taps]
        told = [m for step in taps for m in step]
        assert len([m for m in told if "Round 1 begins" in m.text]) == 1
        refused = [m for m in told if "This tournament has started already" in m.text]
        assert len(refused) == 1 and refused[0].ephemeral
        view = await tournament_of(d)
        assert len(view.pairings) == 2 and len(d.server.threads("general")) == 2
        assert len({p.game_id for p in view.pairings}) == 2


async def test_a_tournament_of_fixed_teams_is_joined_by_team_name_and_played_in_team_games(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="teams")) as d:
        d.server.bot_permissions = THREADS
        step = await d.send_command("alice", "general", "tournament new", {
            "name": "Pairs", "format": "single_elimination", "team_size": 2, **QUICK})
        assert not step.problems and "teams of 2, 2 teams to a table" in step[0].text, step[0].text
        step = await d.send_command("bob", "general", "tournament join", {})
        assert step[0].ephemeral and "join it with the name of your team" in step[0].text
        step = await d.send_command("alice", "general", "tournament join", {"team": "Red *@everyone*"})
        assert not step.problems and "in the team" in step[0].text, step[0].text
        step = await d.send_command("erin", "general", "tournament join", {"team": " RED *@everyone* "})
        assert step[0].ephemeral and "takes only the players its creator invites" in step[0].text   # a stranger
        step = await d.send_command("bob", "general", "tournament invite", {"player": "@carol"})
        assert step[0].ephemeral and "Only a team's creator invites" in step[0].text
        for creator, invited in (("alice", "bob"), ("carol", "dave")):
            if creator == "carol":
                step = await d.send_command("carol", "general", "tournament join", {"team": "Blue"})
                assert not step.problems and "in the team" in step[0].text, step[0].text
            step = await d.send_command(creator, "general", "tournament invite", {"player": f"@{invited}"})
            assert not step.problems and "/tournament join" in step[0].text, step[0].text
            assert step[0].pings == {f"user:{d.user(invited).id}"}, step[0].pings   # the invited player only
        for name, team in (("bob", "red *@EVERYONE*"), ("dave", "Blue")):
            step = await d.send_command(name, "general", "tournament join", {"team": team})
            assert not step.problems and "in the team" in step[0].text, step[0].text
            assert not step[0].pings, step[0].pings   # a team's name pings nobody
        step = await d.send_command("erin", "general", "tournament join", {"team": "Blue"})
        assert step[0].ephemeral and "is complete" in step[0].text
        step = await d.send_command("carol", "general", "tournament status", {})
        assert "2 teams" in step[0].text and "(2/2)" in step[0].text
        step = await d.send_command("alice", "general", "tournament start", {})
        assert not step.problems, step.problems
        opening = next(m for m in step if "Round 1 begins" in m.text)
        people = {d.user(n).id for n in ("alice", "bob", "carol", "dave")}
        assert opening.pings == {f"user:{k}" for k in people}   # each player of each team, nobody else
        view = await tournament_of(d)
        (table,) = [p for p in view.pairings if p.pairing.round == 1]
        record = await d.bot.store.get_game(table.game_id)
        assert {p.user_id for p in record.players} == people
        game = record.game()
        teams = {record.players[s].user_id: game.state.teams[s] for s in range(4)}
        assert teams[d.user("alice").id] == teams[d.user("bob").id] != teams[d.user("carol").id] \
            == teams[d.user("dave").id]
        view = await play_out(d)
        assert view.record.status == "finished"
        final = view_standings(view)
        assert {s.key for s in final} == {t.number for t in view.teams}
        (over,) = [m for m in d.messages if "The tournament is over" in m.text]
        winner = next(t for t in view.teams if t.number == final[0].key)
        assert safe_name(winner.name) in over.text and over.attachments
        assert over.pings == set()


async def test_a_long_tournament_name_keeps_its_threads_round_and_table(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="long")) as d:
        await open_tournament(d, 2, format="swiss", rounds=1, name="Cup " + "Ω" * 96)
        step = await d.send_command("alice", "general", "tournament start", {})
        assert not step.problems, step.problems
        (thread,) = d.server.threads("general")
        assert len(thread.name) == 100 and thread.name.endswith(" · Round 1 · Table 1"), thread.name


async def test_a_tournament_refused_by_its_format_is_refused_in_the_players_language(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="words")) as d:
        d.server.bot_permissions = THREADS
        step = await d.send_command("alice", "general", "tournament new", {"name": "Copa", "team_size": 3,
                                                                          "table_size": 3}, locale="es")
        assert step[0].ephemeral and "En cada mesa juegan 2 o 3 equipos, con un máximo de 6" in step[0].text, \
            step[0].text
        step = await d.send_command("alice", "general", "tournament new", {"name": "Copa"}, locale="es")
        assert not step.problems, step.problems
        await d.send_command("alice", "general", "tournament join", {}, locale="es")
        step = await d.send_command("alice", "general", "tournament start", {}, locale="nb")
        assert step[0].ephemeral and "trenger minst 2 deltakere; den har 1" in step[0].text, step[0].text
        assert (await tournament_of(d)).record.status == "open"


async def test_a_table_won_by_a_stand_in_and_a_shared_first_place_are_told_as_they_count(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="all-absent")) as d:
        await open_tournament(d, 2, format="swiss", rounds=1, max_missed=1, max_rounds=0)
        await d.send_command("alice", "general", "tournament start", {})
        view = await play_out(d, absent=frozenset({"alice", "bob"}))   # the AI plays every seat
        alice, bob = d.user("alice").id, d.user("bob").id
        assert view.results[0].forfeits == frozenset({alice, bob})
        assert {s.rank for s in view_standings(view)} == {1}
        [table] = view.pairings
        end = next(m for m in d.messages if m.channel_id == table.thread_id and "wins" in m.text)
        assert "The AI standing in for" in end.text and "🏆" not in end.text
        assert "this table counts as a forfeit for" in end.text
        final = next(m for m in d.messages if "The tournament is over" in m.text)
        assert "share first place!" in final.text and "wins it" not in final.text


async def test_the_host_removes_an_entrant_and_after_the_start_the_removal_forfeits_the_table(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "t.db", seed="remove")) as d:
        await open_tournament(d, 5, format="swiss", rounds=1)   # alice hosts and plays
        step = await d.send_command("bob", "general", "tournament remove", {"player": "@carol"})
        assert step[-1].ephemeral and "Only the tournament's host" in step[-1].text
        step = await d.send_command("alice", "general", "tournament remove", {"player": "@erin"})
        assert not step.problems and "removes erin" in step[-1].text
        view = await tournament_of(d)
        assert d.user("erin").id not in {e.user_id for e in view.entrants}
        await d.send_command("alice", "general", "tournament start", {})
        view = await tournament_of(d)
        alice = d.user("alice").id
        mine = next(p for p in view.pairings if alice in p.pairing.entrants)
        other = next(p for p in view.pairings if alice not in p.pairing.entrants and not p.pairing.bye)
        opponent = next(k for k in mine.pairing.entrants if k != alice)
        name = next(n for n in PLAYERS if d.user(n).id == opponent)
        step = await d.send_command("alice", "general", "tournament remove", {"player": f"@{name}"})
        assert step[-1].ephemeral and "nobody referees their own game" in step[-1].text   # her own table
        assert (await d.bot.store.get_game(mine.game_id)).status == RUNNING
        removed = other.pairing.entrants[0]
        name = next(n for n in PLAYERS if d.user(n).id == removed)
        step = await d.send_command("alice", "general", "tournament remove", {"player": f"@{name}"})
        assert not step.problems and "they forfeit their table" in step[0].text, step[0].text
        assert any(m.channel_id == other.thread_id and f"removed {name}" in m.text for m in d.messages)
        view = await tournament_of(d)
        result = next(r for r in view.results if r.table == other.pairing.table)
        assert result.forfeits == frozenset({removed})
        assert {s.key: s.forfeits for s in view_standings(view)}[removed] == 1


async def test_a_thread_made_for_a_table_but_not_stored_before_a_restart_is_taken_not_made_again(tmp_path: Path):
    from competition import Pairing

    db = tmp_path / "t.db"
    d = OfflineDiscord(make_bot(db, seed="orphan"))
    await d.setup()
    try:
        await open_tournament(d, 2, format="swiss", rounds=1)
        record = (await tournament_of(d)).record
        # An opening cut short: Discord made the thread, the store never heard of it.
        orphan = await cog_of(d).tournaments.rooms.open_room(record, Pairing(1, 1, ()), ["alice", "bob"])
        d = await d.restart(make_bot(db, seed="orphan"))
        d.server.bot_permissions = THREADS
        step = await d.send_command("alice", "general", "tournament start", {})
        assert not step.problems, step.problems
        [table] = (await tournament_of(d)).pairings
        assert table.thread_id == orphan
        assert [t.id for t in d.server.threads("general")] == [orphan]   # no second thread of the same name
        game = await d.bot.store.get_game(table.game_id)
        assert game.channel_id == orphan and game.status == RUNNING
    finally:
        await d.close()
