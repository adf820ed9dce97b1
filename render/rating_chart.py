"""A player's rating after each of their rated games, as a line chart in the report's style.

``draw_rating_chart(chart)`` draws a ``RatingChart`` whose words are already written in the reader's language
(the Discord layer writes them) and returns the PNG; it runs in a worker process. Nothing here knows Discord or
the database.

The image is 800 px wide with text of 24 px and more: a phone shows it about 400 px wide, where that is 12 px
and more. The line is drawn at twice the size and reduced, for smoothness.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

from . import style
from .report import encode_report

WIDTH = 800
HEIGHT = 460
PAD = 32
SCALE = 2                  # drawn at twice the size, then reduced
TITLE_SIZE = 32
TEXT_SIZE = 24             # the smallest text: axis numbers and labels
CURRENT_SIZE = 28
LINE_COLOUR = (86, 180, 233)   # the palette's sky blue, clear on the dark panel
BACKGROUND = style.PANEL_BG
GRID = style.PANEL_LINE


@dataclass(frozen=True)
class RatingChart:
    """What the chart shows: the player's name, the rating after each rated game (oldest first, at least two),
    and its words in the reader's language."""

    name: str
    scores: Sequence[int]
    rating_label: str     # "Rating"
    games_label: str      # "Rated games"
    current_label: str    # "Now: 1042"


def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return style.font(size * SCALE, bold=bold)


def _clipped(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont, width: float) -> str:
    """``text`` cut with an ellipsis to fit ``width`` (drawn pixels)."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _nice_step(raw: float) -> int:
    """The first round step (1, 2, 5 times a power of ten) at least ``raw``."""
    power = int(10 ** max(0, math.floor(math.log10(max(raw, 1)))))
    for factor in (1, 2, 5, 10):
        if factor * power >= raw:
            return factor * power
    return 10 * power


def rating_axis(scores: Sequence[int]) -> tuple[int, int, int]:
    """The vertical axis: ``(low, high, step)``, round numbers around the scores, about four steps."""
    low, high = min(scores), max(scores)
    step = _nice_step(max(high - low, 40) / 4)
    bottom = math.floor(low / step) * step
    top = math.ceil(high / step) * step
    if top == bottom:
        top += step
    return bottom, top, step


def game_ticks(games: int) -> list[int]:
    """Game numbers marked on the horizontal axis: the first, then round numbers, about six in all."""
    step = _nice_step(games / 6)
    return sorted({1, *range(step, games + 1, step)})


def render_rating_chart(chart: RatingChart) -> Image.Image:
    """The chart as an RGB image, ``WIDTH`` × ``HEIGHT``."""
    k = SCALE
    image = Image.new("RGB", (WIDTH * k, HEIGHT * k), BACKGROUND)
    draw = ImageDraw.Draw(image)
    small, bold = _font(TEXT_SIZE), _font(CURRENT_SIZE, bold=True)

    # The name on the left, the current rating on the right; the name gives way.
    current = chart.current_label
    current_width = draw.textlength(current, font=bold) / k
    draw.text(((WIDTH - PAD) * k, (PAD + TITLE_SIZE / 2) * k), current, font=bold, fill=style.TEXT,
              anchor="rm")
    title = _font(TITLE_SIZE, bold=True)
    name = _clipped(draw, chart.name, title, (WIDTH - 2 * PAD - current_width - 24) * k)
    draw.text((PAD * k, (PAD + TITLE_SIZE / 2) * k), name, font=title, fill=style.TEXT, anchor="lm")
    draw.text((PAD * k, (PAD + TITLE_SIZE + 14) * k), chart.rating_label, font=small, fill=style.TEXT_DIM)

    low, high, step = rating_axis(chart.scores)
    labels = [str(v) for v in range(low, high + 1, step)]
    left = PAD + max(draw.textlength(t, font=small) for t in labels) / k + 12
    right = WIDTH - PAD - 20
    top = PAD + TITLE_SIZE + 14 + TEXT_SIZE + 32
    bottom = HEIGHT - PAD - 2 * TEXT_SIZE - 16
    games = len(chart.scores)

    def x_of(game: int) -> float:
        return left + (right - left) * (game - 1) / (games - 1)

    def y_of(score: float) -> float:
        return bottom - (bottom - top) * (score - low) / (high - low)

    for value, text in zip(range(low, high + 1, step), labels, strict=True):
        y = y_of(value)
        draw.line([(left * k, y * k), (right * k, y * k)], fill=GRID, width=k)
        draw.text(((left - 12) * k, y * k), text, font=small, fill=style.TEXT_DIM, anchor="rm")
    for game in game_ticks(games):
        draw.text((x_of(game) * k, (bottom + 8) * k), str(game), font=small, fill=style.TEXT_DIM, anchor="ma")
    draw.text((((left + right) / 2) * k, (HEIGHT - PAD) * k), chart.games_label, font=small,
              fill=style.TEXT_DIM, anchor="md")

    points = [(x_of(n) * k, y_of(s) * k) for n, s in enumerate(chart.scores, start=1)]
    draw.line(points, fill=LINE_COLOUR, width=4 * k, joint="curve")
    dot = (5 if games <= 40 else 0) * k
    for x, y in points[:-1]:
        if dot:
            draw.ellipse([x - dot, y - dot, x + dot, y + dot], fill=LINE_COLOUR)
    x, y = points[-1]
    r = 9 * k
    draw.ellipse([x - r, y - r, x + r, y + r], fill=style.TEXT, outline=LINE_COLOUR, width=3 * k)
    return image.reduce(k)


def draw_rating_chart(chart: RatingChart) -> bytes:
    """The chart drawn and encoded as PNG (in a worker process), reduced to a palette as the report is."""
    return encode_report(render_rating_chart(chart))


__all__ = ["HEIGHT", "TEXT_SIZE", "WIDTH", "RatingChart", "draw_rating_chart", "game_ticks",
           "rating_axis", "render_rating_chart"]
