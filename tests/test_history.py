"""/risk stats, /risk leaderboard and /risk history through the real command tree, offline."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot, play_rounds, record_worker_tasks, start
from PIL import Image

from cogs.records.history import duration_text
from ratings import EARLY_TURNS, MIN_GAMES, Rating


async def finished_games(d: OfflineDiscord, n: int, rounds: int = 0) -> None:
    """``n`` games of alice and bob in #general; bob surrenders each (alice wins): at once, or after ``rounds``
    rounds played by command as the normal AI would."""
    for _ in range(n):
        await start(d, ("alice", "bob"), 0, deployment="auto")
        await play_rounds(d, "general", rounds)
        step = await d.send_command("bob", "general", "risk surrender", {})
        await d.click("bob", "Yes, surrender", step[0])


async def test_stats_of_a_player_after_their_games(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="stats")) as d:
        step = await d.send_command("alice", "general", "risk stats", {})
        assert step[0].ephemeral and "has not finished a game on this server yet" in step[0].content
        await finished_games(d, 2, rounds=EARLY_TURNS)
        step = await d.send_command("bob", "general", "risk stats", {"player": "alice"})
        assert not step.problems and step[0].ephemeral
        text = step[0].text
        assert "Record of alice" in text and "Games" in text and "2 (100%)" in text
        assert "hidden until 3 more rated games" in text and "not rated" not in text
        # An instant surrender is not rated for the winner: it shows as such, and changes nothing else.
        await finished_games(d, 1)
        text = (await d.send_command("bob", "general", "risk stats", {"player": "alice"}))[0].text
        assert "Games: 2 (and 1 not rated)" in text and "2 (100%)" in text
        assert "hidden until 3 more rated games" in text
        step = await d.send_command("bob", "general", "risk stats", {})
        assert "0 (0%)" in step[0].text and "Average placement" in step[0].text


async def test_a_host_who_cancels_a_game_past_its_first_round_takes_the_loss(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="cancel")) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        step = await d.send_command("alice", "general", "risk cancel", {})   # in the first round: nothing recorded
        assert not step.problems and "is cancelled" in step[0].content
        assert "has not finished a game" in (await d.send_command("alice", "general", "risk stats", {}))[0].content
        await start(d, ("alice", "bob"), 0, deployment="auto")
        await play_rounds(d, "general", EARLY_TURNS)
        step = await d.send_command("alice", "general", "risk cancel", {})
        assert not step.problems
        record = (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]
        assert record.status == "finished"
        told = " ".join(m.text for m in d.messages[-6:])
        assert "alice surrendered" in told and "bob wins" in told   # announced like any end
        alice = (await d.send_command("alice", "general", "risk stats", {}))[0].text
        assert "Games: 1\n" in alice and "Wins: 0 (0%)" in alice and "Average placement: 2" in alice
        bob = (await d.send_command("bob", "general", "risk stats", {}))[0].text
        assert "Wins: 1 (100%)" in bob


async def test_the_leaderboard_pages_with_buttons_and_shows_only_rated_players(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="board")) as d:
        # Six instant surrenders by a second account do not put the winner on the board.
        await finished_games(d, MIN_GAMES + 1)
        step = await d.send_command("carol", "general", "risk leaderboard", {})
        assert step[0].ephemeral and "Nobody is rated yet" in step[0].text and "alice" not in step[0].text
        guild = d.server.guild_id
        with sqlite3.connect(tmp_path / "g.db") as conn:  # as after rated games
            conn.executemany("INSERT OR REPLACE INTO ratings (guild_id, user_id, name, mu, sigma, score, games, "
                             "wins, updated_at, established) VALUES (?, ?, ?, ?, 5, ?, 6, 1, 0, 1)",
                             [(guild, d.user("alice").id, "alice", 30, 1200),
                              (guild, d.user("bob").id, "bob", 20, 800)])
        step = await d.send_command("carol", "general", "risk leaderboard", {})
        board = step[0]
        assert board.ephemeral and "**1.** alice" in board.text and "**2.** bob" in board.text
        assert "Page 1 of 1" in board.text
        # Thirty more rated players on this server: three more pages.
        with sqlite3.connect(tmp_path / "g.db") as conn:
            conn.executemany("INSERT INTO ratings (guild_id, user_id, name, mu, sigma, score, games, wins, "
                             "updated_at, established) VALUES (?, ?, ?, 20, 5, ?, 6, 1, 0, 1)",
                             [(guild, 5000 + i, f"p{i:02}", 300 + i) for i in range(30)])
        step = await d.send_command("carol", "general", "risk leaderboard", {})
        board = step[0]
        assert "Page 1 of 4" in board.text and "**1.** alice" in board.text and "**10.** p22" in board.text
        step = await d.click("carol", "Next", board)
        assert not step.problems
        page = d.message(board.id)
        assert "Page 2 of 4" in page.text and "**11.** p21" in page.text and "alice" not in page.text
        await d.click("carol", "Previous", board)
        assert "Page 1 of 4" in d.message(board.id).text


async def test_history_lists_finished_games_and_gives_their_log_dice_and_timelapse(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="history")) as d:
        step = await d.send_command("alice", "general", "risk history", {})
        assert "No game has finished here yet" in step[0].content
        await finished_games(d, 2)
        step = await d.send_command("carol", "general", "risk history", {"where": "channel"})
        listing = step[0]
        assert listing.ephemeral and listing.text.count("won by alice") == 2
        first, _latest = sorted(int(part.split("**")[0]) for part in listing.text.split("**#")[1:])
        # A value the list never offered (a game of another server, say) is refused and changes nothing.
        raw = listing.raw_components[0]["components"][0]
        raw["options"].append({"label": "x", "value": "999"})
        step = await d.select("carol", "999", listing)
        assert step[-1].ephemeral and "Choose one of the games in the list" in step[-1].content
        step = await d.click("carol", "Export", listing)
        assert step[0].attachments[0].filename == f"risk-game-{_latest}.jsonl"  # still the newest, as shown
        await d.select("carol", str(first), listing)
        step = await d.click("carol", "Export", listing)
        log = step[0].attachments[0]
        events = [json.loads(line) for line in log.data.decode().splitlines()]
        assert log.filename == f"risk-game-{first}.jsonl" and events[-1]["type"] == "game_over"
        step = await d.click("carol", "Verify", listing)
        assert events[-1]["seed"] in step[0].content
        step = await d.click("carol", "Timelapse", listing)
        webp = step[-1].attachments[0]
        assert webp.filename.endswith("timelapse.webp") and Image.open(io.BytesIO(webp.data)).format == "WEBP"


def test_times_to_move_read_in_the_players_language():
    assert duration_text(3 * 3600, "en") == "3 hours"
    assert duration_text(3 * 3600, "no") == "3 timer"
    assert duration_text(90, "es-ES") == "2 minutos"


async def test_history_draws_a_past_games_report_and_final_map_again_in_the_workers(tmp_path: Path, monkeypatch):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="history-report")) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto", fog="on")
        step = await d.send_command("bob", "general", "risk surrender", {})
        await d.click("bob", "Yes, surrender", step[0])
        record = await d.bot.store.get_game(1)
        assert record.status == "finished"
        step = await d.send_command("carol", "general", "risk history", {})
        listing = step[0]
        assert "Report and map" in listing.button_labels
        drawn = record_worker_tasks(monkeypatch)
        step = await d.click("carol", "Report and map", listing)
        assert not step.problems
        answer = step[-1]
        # Private to whoever asked, like every answer of the history; a finished game's report is public under fog.
        assert answer.ephemeral and "Game #1: the report and the final map." in answer.content
        assert [a.filename for a in answer.attachments] == ["risk-game-1-report.png", "risk-game-1-map.png"]
        for attachment in answer.attachments:
            assert Image.open(io.BytesIO(attachment.data)).format == "PNG"
        assert sorted(drawn) == ["draw_png", "draw_report"]   # both in worker processes, none on the event loop


async def test_past_game_files_draw_nothing_for_a_game_that_is_not_over(tmp_path: Path):
    from cogs.records.report import past_game_files

    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="history-running")) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        record = await d.bot.store.get_active_game(d.channel("general").id)
        assert await past_game_files(d.bot.store, record, "en") == []


@pytest.mark.slow   # real games and a chart drawn in a worker process: CI's slow suite
async def test_stats_come_with_a_rating_chart_drawn_in_a_worker_once_the_rating_shows(tmp_path: Path, monkeypatch):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="chart")) as d:
        await finished_games(d, MIN_GAMES - 1, rounds=EARLY_TURNS)
        step = await d.send_command("alice", "general", "risk stats", {})
        assert not step.problems and step[0].ephemeral and not step[0].attachments   # the rating is hidden yet
        assert "hidden until 1 more rated game" in step[0].text
        await finished_games(d, 1, rounds=EARLY_TURNS)
        drawn = record_worker_tasks(monkeypatch)
        step = await d.send_command("bob", "general", "risk stats", {"player": "alice"})
        assert not step.problems and step[-1].ephemeral
        chart = step[-1].attachments[0]
        assert chart.filename == "rating.png" and drawn == ["draw_rating_chart"]
        image = Image.open(io.BytesIO(chart.data))
        assert image.format == "PNG" and image.width >= 800
        ratings = await d.bot.store.ratings(d.server.guild_id)
        assert f"Rating: {Rating.of(ratings[d.user('alice').id]).score}" in step[-1].text
        # A player new to the server has no record, and one whose rating is hidden no chart.
        step = await d.send_command("carol", "general", "risk stats", {})
        assert "has not finished a game" in step[0].content and not step[0].attachments


async def test_the_rating_chart_speaks_the_readers_language(tmp_path: Path):
    from cogs.records.history import rating_chart
    from store.records import RatingRecord

    history = [(1, RatingRecord(25.0, 8.0, 1)), (2, RatingRecord(27.0, 7.0, 2))]
    chart = rating_chart(history, "alice", "nb")
    assert chart.scores == [Rating.of(r).score for _, r in history] and chart.name == "alice"
    assert (chart.rating_label, chart.games_label) == ("Rangering", "Rangerte spill")
    assert chart.current_label == f"Nå: {Rating.of(history[-1][1]).score}"
