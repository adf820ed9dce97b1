"""The rating chart of /risk stats: its size, its axes, and text that reads at phone width (400 px)."""

from __future__ import annotations

import io

from PIL import Image

from render import style
from render.rating_chart import (
    HEIGHT,
    PAD,
    TEXT_SIZE,
    TITLE_SIZE,
    WIDTH,
    RatingChart,
    draw_rating_chart,
    game_ticks,
    rating_axis,
    render_rating_chart,
)

PHONE = 400


def chart(scores: list[int], name: str = "alice") -> RatingChart:
    return RatingChart(name=name, scores=scores, rating_label="Rating", games_label="Rated games",
                       current_label=f"Now: {scores[-1]}")


def ink_runs(image: Image.Image, left: int, right: int) -> list[int]:
    """Heights of the runs of rows holding text between columns ``left`` and ``right``."""
    grey = image.convert("L")
    background = grey.getpixel((0, 0))
    rows = [any(abs(grey.getpixel((x, y)) - background) > 60 for x in range(left, right)) for y in range(HEIGHT)]
    runs, run = [], 0
    for ink in rows:
        if ink:
            run += 1
        elif run:
            runs.append(run)
            run = 0
    return runs


def test_the_chart_is_a_png_of_its_size():
    data = draw_rating_chart(chart([1000, 1012, 990, 1040]))
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size == (WIDTH, HEIGHT)
    assert len(data) < 200_000


def test_its_smallest_text_reads_at_phone_width():
    assert TEXT_SIZE * PHONE / WIDTH >= 12      # every text at least a 12 px font when shown 400 px wide
    image = render_rating_chart(chart([1000, 1030, 1080, 1050, 1120]))
    # The axis numbers as drawn: at least as tall as the digits of a 12 px font at phone width.
    numbers = ink_runs(image, PAD, PAD + 40)
    digit = style.font(12).getbbox("0")
    assert len(numbers) >= 4
    assert min(numbers) * PHONE / WIDTH >= digit[3] - digit[1] - 0.5


def test_the_axes_are_round_numbers_around_the_ratings():
    assert rating_axis([1000, 1012]) == (1000, 1020, 10)
    low, high, step = rating_axis([960, 1180, 1075])
    assert (low, high, step) == (900, 1200, 100)
    assert rating_axis([1000, 1000])[1] > 1000
    assert game_ticks(2) == [1, 2]
    assert game_ticks(25) == [1, 5, 10, 15, 20, 25]
    assert game_ticks(300)[:2] == [1, 50] and len(game_ticks(300)) <= 8


def test_a_long_name_is_cut_before_the_current_rating():
    image = render_rating_chart(chart([1000, 1010, 1005], name="W" * 80)).convert("L")
    background = image.getpixel((0, 0))
    # The name stops short of "Now: 1005": a strip of background between them, across the title's rows.
    current = style.font(28, bold=True).getlength("Now: 1005")
    gap = range(int(WIDTH - PAD - current - 20), int(WIDTH - PAD - current - 4))
    assert all(abs(image.getpixel((x, y)) - background) < 30 for x in gap for y in range(PAD, PAD + TITLE_SIZE))
    assert any(abs(image.getpixel((x, PAD + TITLE_SIZE // 2)) - background) > 60 for x in range(PAD, 300))


def test_hundreds_of_games_draw_as_a_line():
    scores = [1000 + (n * 37) % 150 for n in range(300)]
    image = render_rating_chart(chart(scores))
    assert image.size == (WIDTH, HEIGHT)
