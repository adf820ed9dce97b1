"""The end-of-game report as an image, in the map's style: the territories and armies of each player over the
turns, the key moments, and each player's dice against fair dice.

``render_report(report)`` draws a ``Report`` whose words are already written in the reader's language (the
Discord layer writes them); ``encode_report`` makes the PNG. ``game_timelapse`` is the game as an animated
WebP with a bounded number of frames. Nothing here knows about Discord or the database.

The image is 900 px wide with text of 24 px and more (26 px and more but the charts' axes): a phone shows it
about 400 px wide, where that is 11-12 px and more. The charts are drawn at twice the size and reduced, for
smooth lines.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw, ImageFont

from . import style
from .mapview import render_map
from .replay import replay_states
from .seats import on_dark

if TYPE_CHECKING:
    from engine import Event

Colour = tuple[int, int, int]
WIDTH = 900
SCALE = 1
CHART_SCALE = 2           # charts are drawn at twice the size, then reduced
PAD = 36
CHART_HEIGHT = 210
LUCK_RANGE = 3.0          # the gauge runs from -3 to +3 standard deviations
FAIR_BAND = 2.0           # fair dice land within ±2 about 95% of the time
BACKGROUND = style.PANEL_BG
LINE = style.PANEL_LINE


@dataclass(frozen=True)
class Series:
    """One player's line in the charts: ``(turn, value)`` points."""

    name: str
    colour: Colour
    territories: Sequence[tuple[int, int]]
    armies: Sequence[tuple[int, int]]


@dataclass(frozen=True)
class DiceRow:
    name: str
    colour: Colour
    detail: str       # "lost 12 armies in 20 rolls; fair dice: 14.3 ± 3.1"
    index: float      # the luck index, in standard deviations (above 0: lucky)
    index_text: str   # "+0.8"


@dataclass(frozen=True)
class Report:
    title: str
    subtitle: str
    territories_label: str
    armies_label: str
    series: Sequence[Series]
    moments_title: str
    moments: Sequence[str]
    dice_title: str
    dice_note: str
    dice: Sequence[DiceRow]
    footer: str
    scale_words: tuple[str, str] = ("", "")   # the gauge's ends: "unlucky", "lucky"


def _font(size: int, bold: bool = False, scale: int = SCALE) -> ImageFont.FreeTypeFont:
    """The font for text of ``size`` px in the final image, drawn at ``scale`` times the size."""
    return style.font(size * scale, bold=bold)


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont, width: int) -> list[str]:
    lines: list[str] = []
    text = text.replace(" ± ", "\u00a0±\u00a0")  # "14.3 ± 3.1" stays on one line
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            attempt = f"{line} {word}".strip()
            if line and draw.textlength(attempt, font=font) > width:
                lines.append(line)
                line = word
            else:
                line = attempt
        lines.append(line)
    return lines


class _Canvas:
    """Draws top to bottom at ``SCALE`` times the size; ``y`` is where the next thing goes (final pixels)."""

    def __init__(self, height: int) -> None:
        self.image = Image.new("RGB", (WIDTH * SCALE, height * SCALE), BACKGROUND)
        self.draw = ImageDraw.Draw(self.image)
        self.y = PAD

    def text(self, text: str, size: int, colour: Colour = style.TEXT, *, bold: bool = False, x: int = PAD,
             width: int = WIDTH - 2 * PAD, gap: int = 6) -> None:
        font = _font(size, bold)
        for line in _wrap(self.draw, text, font, width * SCALE):
            self.draw.text((x * SCALE, self.y * SCALE), line, font=font, fill=colour)
            self.y += round(size * 1.25)
        self.y += gap

    def rule(self) -> None:
        self.y += 10
        self.draw.line([(PAD * SCALE, self.y * SCALE), ((WIDTH - PAD) * SCALE, self.y * SCALE)], fill=LINE,
                       width=2 * SCALE)
        self.y += 22

    def chart(self, label: str, lines: Sequence[tuple[Colour, Sequence[tuple[int, int]]]]) -> None:
        """A line chart, drawn at twice the size and reduced: smooth lines."""
        self.text(label, 30, bold=True, gap=12)
        k = CHART_SCALE
        height = CHART_HEIGHT + 40
        image = Image.new("RGB", (WIDTH * k, height * k), BACKGROUND)
        draw = ImageDraw.Draw(image)
        top, left, right = 8, PAD + 64, WIDTH - PAD
        bottom = top + CHART_HEIGHT - 8
        last_turn = max((p[0] for _, pts in lines for p in pts), default=1) or 1
        peak = max((p[1] for _, pts in lines for p in pts), default=1) or 1
        step = _nice_step(peak / 4)
        peak = step * max(1, -(-peak // step))
        font = _font(24, scale=k)
        for n in range(int(peak // step) + 1):
            value = n * step
            y = bottom - (bottom - top) * value / peak
            draw.line([(left * k, y * k), (right * k, y * k)], fill=LINE, width=k)
            draw.text(((left - 10) * k, y * k), f"{value:g}", font=font, fill=style.TEXT_DIM, anchor="rm")
        for turn in _ticks(last_turn):
            x = left + (right - left) * turn / last_turn
            draw.text((x * k, (bottom + 6) * k), str(turn), font=font, fill=style.TEXT_DIM, anchor="ma")
        for colour, pts in lines:
            xy = [((left + (right - left) * t / last_turn) * k, (bottom - (bottom - top) * v / peak) * k)
                  for t, v in pts]
            if len(xy) == 1:
                xy.append(xy[0])
            draw.line(xy, fill=on_dark(colour), width=4 * k, joint="curve")
        self.image.paste(image.reduce(k), (0, self.y))
        self.y += height + 8

    def legend(self, items: Sequence[tuple[str, Colour]]) -> None:
        """Players side by side in their colours, on as many lines as they need."""
        font = _font(28, True)
        x = PAD
        for name, colour in items:
            width = 38 + round(self.draw.textlength(name, font=font) / SCALE) + 28
            if x > PAD and x + width > WIDTH - PAD:
                x, self.y = PAD, self.y + 38
            self.draw.rounded_rectangle([x * SCALE, (self.y + 6) * SCALE, (x + 26) * SCALE, (self.y + 30) * SCALE],
                                        radius=5 * SCALE, fill=colour)
            self.draw.text(((x + 36) * SCALE, self.y * SCALE), name, font=font, fill=on_dark(colour))
            x += width
        self.y += 40

    def gauge(self, index: float, text: str, colour: Colour, ends: tuple[str, str] | None) -> None:
        """The luck index on a scale from -3 to +3, the fair band (±2) shaded, the value marked; the words at
        its ends if given."""
        left, right = PAD + 8, WIDTH - PAD - 110
        top, height = self.y + 4, 26

        def x_of(v: float) -> float:
            return left + (right - left) * (max(-LUCK_RANGE, min(LUCK_RANGE, v)) + LUCK_RANGE) / (2 * LUCK_RANGE)

        self.draw.rounded_rectangle([left * SCALE, top * SCALE, right * SCALE, (top + height) * SCALE],
                                    radius=6 * SCALE, fill=(34, 46, 60))
        self.draw.rectangle([x_of(-FAIR_BAND) * SCALE, top * SCALE, x_of(FAIR_BAND) * SCALE,
                             (top + height) * SCALE], fill=(48, 66, 84))
        centre = x_of(0)
        self.draw.line([(centre * SCALE, (top - 4) * SCALE), (centre * SCALE, (top + height + 4) * SCALE)],
                       fill=style.TEXT_DIM, width=2 * SCALE)
        mark = x_of(index)
        self.draw.rounded_rectangle([(mark - 7) * SCALE, (top - 6) * SCALE, (mark + 7) * SCALE,
                                     (top + height + 6) * SCALE], radius=4 * SCALE, fill=on_dark(colour),
                                    outline=style.INK, width=2 * SCALE)
        self.draw.text(((WIDTH - PAD) * SCALE, (top + height / 2) * SCALE), text, font=_font(30, True),
                       fill=style.TEXT, anchor="rm")
        self.y = top + height + 16
        if ends is not None:
            small = _font(24)
            self.draw.text((left * SCALE, (top + height + 8) * SCALE), ends[0], font=small, fill=style.TEXT_DIM)
            self.draw.text((right * SCALE, (top + height + 8) * SCALE), ends[1], font=small, fill=style.TEXT_DIM,
                           anchor="ra")
            self.y += 24

    def result(self, height: int) -> Image.Image:
        return self.image.crop((0, 0, WIDTH, height))


def _nice_step(raw: float) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000):
        if step >= raw:
            return step
    return 10_000


def _ticks(last_turn: int) -> list[int]:
    step = _nice_step(last_turn / 6)
    return list(range(0, last_turn + 1, step))


def render_report(report: Report) -> Image.Image:
    """The report as an RGB image, 900 px wide."""
    # Room for everything (long words wrap onto more lines); the unused part is cut off at the end.
    estimate = 700 + 2 * (CHART_HEIGHT + 110) + 80 * len(report.moments) + 130 * len(report.dice) + 40 * len(
        report.series)
    canvas = _Canvas(estimate)
    canvas.text(report.title, 40, bold=True, gap=2)
    canvas.text(report.subtitle, 28, style.TEXT_DIM, gap=10)
    canvas.legend([(s.name, s.colour) for s in report.series])
    canvas.rule()
    canvas.chart(report.territories_label, [(s.colour, s.territories) for s in report.series])
    canvas.chart(report.armies_label, [(s.colour, s.armies) for s in report.series])
    canvas.rule()
    canvas.text(report.moments_title, 30, bold=True)
    for line in report.moments:
        canvas.text("• " + line, 26, gap=4)
    canvas.rule()
    canvas.text(report.dice_title, 30, bold=True, gap=2)
    canvas.text(report.dice_note, 26, style.TEXT_DIM, gap=10)
    for number, row in enumerate(report.dice):
        canvas.text(row.name, 28, on_dark(row.colour), bold=True, gap=0)
        canvas.text(row.detail, 26, style.TEXT_DIM, gap=2)
        canvas.gauge(row.index, row.index_text, row.colour, report.scale_words if number == 0 else None)
    canvas.rule()
    canvas.text(report.footer, 26, style.TEXT, gap=0)
    return canvas.result(canvas.y + PAD)


def encode_report(img: Image.Image) -> bytes:
    """PNG bytes, reduced to a palette (flat colours and text: hard to tell from the original, a third the size)."""
    out = io.BytesIO()
    img.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE).save(out, "PNG", compress_level=6)
    return out.getvalue()


def draw_report(report: Report) -> bytes:
    """The report drawn and encoded as PNG (a whole render: in a worker process)."""
    return encode_report(render_report(report))


def game_timelapse(events: list[Event] | bytes, *, width: int = 800, max_frames: int = 40, frame_ms: int = 400,
                   limit_bytes: int = 9_500_000) -> bytes:
    """The game as an animated WebP: the board after setup, then after each turn (evenly chosen turns when there
    are more than ``max_frames``; the last one always), the last frame held. Under ``limit_bytes`` (Discord
    takes 10 MiB): if larger, it is made again with half the frames. ``events`` may come as the log's JSON Lines,
    decoded here in the worker (a long game's events would take the bot's process long to hand over)."""
    if isinstance(events, bytes):
        events = [json.loads(line) for line in events.splitlines() if line.strip()]
    states = [state.copy() for _, state, _ in replay_states(events)]
    while True:
        if len(states) > max_frames:
            step = (len(states) - 1) / (max_frames - 1)
            chosen = [states[round(i * step)] for i in range(max_frames)]
        else:
            chosen = states
        frames = []
        for state in chosen:
            img = render_map(state)
            factor = max(1, img.width // width)
            frames.append(img.reduce(factor) if factor > 1 else img)
        out = io.BytesIO()
        frames[0].save(out, "WEBP", save_all=True, append_images=frames[1:],
                       duration=[frame_ms] * (len(frames) - 1) + [3000], loop=0, lossless=False, quality=75,
                       method=0)
        data = out.getvalue()
        if len(data) <= limit_bytes or max_frames <= 4:
            return data
        max_frames //= 2


__all__ = ["DiceRow", "Report", "Series", "draw_report", "encode_report", "game_timelapse", "render_report"]
