"""The end-of-game report: its numbers come from the log, it reads on a phone in every language, and it goes
out with the game-over announcement together with the timelapse."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from discord_helpers import OfflineDiscord, make_bot, record_worker_tasks, start
from PIL import Image

from cogs.records.report import build_report
from engine.simulate import play_game
from engine.summary import dice_luck, key_moments
from render.report import WIDTH, draw_report, encode_report, game_timelapse, render_report
from render.seats import colour_distance, seat_colour

LANGUAGES = ("en", "no", "es-ES")


@pytest.fixture(scope="module")
def six_players():
    return play_game(["normal", "easy", "easy", "normal", "easy", "normal"], "report-6")


def test_the_report_carries_each_players_dice_and_the_key_moments(six_players):
    events, state = six_players.events, six_players.game.state
    report = build_report(12, events, state, "en")
    luck = dice_luck(events)
    assert [row.name for row in report.dice] == [state.players[seat].name for seat in luck]
    for row, (seat, x) in zip(report.dice, luck.items(), strict=True):
        assert f"lost {x.lost} armies in {x.rolls} rolls" in row.detail
        assert f"{x.expected:.1f} ± {x.spread:.1f}" in row.detail
        assert row.index == x.index and row.colour == seat_colour(seat, state)
    biggest = key_moments(events).biggest_battle
    assert f"{biggest.armies_lost} armies lost" in report.moments[0]
    assert [s.territories[-1][1] for s in report.series] == [42 if p.seat == state.winner else 0
                                                             for p in state.players]
    assert "/risk verify" in report.footer
    assert report.title == "Game #12: the report"


@pytest.mark.parametrize("locale", LANGUAGES)
def test_the_report_is_a_small_phone_width_image_in_every_language(six_players, locale):
    events, state = six_players.events, six_players.game.state
    data = draw_report(build_report(3, events, state, locale))
    assert len(data) < 300_000
    img = Image.open(io.BytesIO(data))
    assert img.format == "PNG" and img.width == WIDTH and img.height < 2.8 * WIDTH
    # Every player's colour is on it (the legend, the lines and the dice rows), to the eye (a palette image).
    colours = {c for _, c in img.convert("RGB").getcolors(1 << 20)}
    for p in state.players:
        assert min(colour_distance(seat_colour(p.seat, state), c) for c in colours) < 5


def test_the_words_of_the_report_are_translated(six_players):
    events, state = six_players.events, six_players.game.state
    english = build_report(3, events, state, "en")
    for locale in ("no", "es-ES"):
        other = build_report(3, events, state, locale)
        assert other.dice_title != english.dice_title and other.moments_title != english.moments_title
        assert other.dice[0].detail != english.dice[0].detail


def test_every_letter_of_the_report_is_legible_at_phone_width(six_players, monkeypatch):
    """A phone shows the image about 400 px wide: no text may come out smaller than 10.5 px there (Discord's
    own small print is about 12 px)."""
    from render import report

    sizes: list[int] = []
    real = report._font

    def recording(size, bold=False, scale=1):
        sizes.append(size)
        return real(size, bold, scale)

    monkeypatch.setattr(report, "_font", recording)
    for locale in LANGUAGES:
        render_report(build_report(3, six_players.events, six_players.game.state, locale))
    smallest = min(sizes)
    assert smallest * 400 / WIDTH >= 10.5, smallest


def test_a_game_without_battles_still_has_a_report():
    result = play_game(["easy", "easy"], "quiet")
    events = [e for e in result.events if e["type"] != "battle"]
    report = build_report(1, events, result.game.state, "en")
    assert report.dice == [] and report.moments[-1]
    assert render_report(report).width == WIDTH


def test_the_timelapse_is_an_animated_webp_under_ten_mebibytes(six_players):
    data = game_timelapse(six_players.events, max_frames=8)
    img = Image.open(io.BytesIO(data))
    assert img.format == "WEBP" and img.n_frames == 8 and len(data) < 10 * 1024 * 1024
    assert img.width == 800


@pytest.mark.real_render
async def test_the_game_over_announcement_has_the_report_and_the_timelapse(tmp_path: Path, monkeypatch):
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="report")) as d:
        await start(d, ("alice", "bob"), 0, deployment="auto")
        drawn = record_worker_tasks(monkeypatch)
        step = await d.send_command("bob", "general", "risk surrender", {})
        await d.click("bob", "Yes, surrender", step[0])
        over = [m for m in d.messages if m.embeds and "wins" in str(m.embeds[0].get("title"))][-1]
        names = [a.filename for a in over.attachments]
        assert names[0] == "map.png" and names[1].endswith("-report.png") and names[2].endswith("-timelapse.webp")
        report = Image.open(io.BytesIO(over.attachments[1].data))
        assert report.width == WIDTH
        assert Image.open(io.BytesIO(over.attachments[2].data)).format == "WEBP"
        assert over.attachments[2].size < 10 * 1024 * 1024
        assert {"draw_report", "game_timelapse"} <= set(drawn)  # both drawn in worker processes


def test_encode_report_keeps_the_picture():
    img = Image.new("RGB", (WIDTH, 200), (16, 24, 34))
    assert Image.open(io.BytesIO(encode_report(img))).size == (WIDTH, 200)
