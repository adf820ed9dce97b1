"""A tournament's standings as a table image: rank, name, points, games played, wins, and a note.

``standings_image(title, rows, headers)`` takes words already in the reader's language (the Discord layer writes
them) and returns the PNG; it runs in a worker process. Nothing here knows Discord, the database or the
tournament's rules.

The image is 800 px wide with text of 24 px and more: a phone shows it about 400 px wide, where that is 12 px.
It grows downwards, one row of 44 px per entrant (64 entrants: about 3,000 px, which Discord shows whole and
lets the reader zoom). A name too long for its column is cut with an ellipsis. A name is drawn in the shipped
DejaVu Sans (Latin, Greek, Cyrillic, Hebrew, Arabic, Armenian, Georgian and most symbols); a character it lacks
is drawn in the first system font that has it (``FALLBACK_FONTS``: Noto CJK and Noto Sans, where installed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from . import style
from .report import encode_report

WIDTH = 800
PAD = 28
TITLE_SIZE = 32
TEXT_SIZE = 24
NOTE_SIZE = 20
ROW = 44
HEADER_ROW = 40
BACKGROUND = style.PANEL_BG
STRIPE = (44, 48, 56)
RULE = style.PANEL_LINE
PODIUM = ((240, 200, 80), (200, 205, 215), (215, 150, 95))     # gold, silver, bronze ranks

FALLBACK_FONTS = (
    Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
    Path("/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"),
    Path("/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf"),
    Path("/usr/share/fonts/truetype/noto/NotoSansThai-Regular.ttf"),
    Path("/usr/share/fonts/truetype/unifont/unifont.ttf"),
)


@dataclass(frozen=True)
class StandingRow:
    """One line of the table, in the reader's words."""

    rank: int
    name: str                   # already the display name; the renderer draws it as text (no markdown)
    points: float
    played: int
    wins: int
    note: str = ""              # e.g. "out in round 2", "forfeit", "bye" (already translated)


def points_text(points: float) -> str:
    """Points as short as they are exact enough: 3, 2.5, 1.67."""
    return f"{round(points, 2):g}"


@cache
def _fallbacks(size: int) -> tuple[ImageFont.FreeTypeFont, ...]:
    return tuple(ImageFont.truetype(str(path), size) for path in FALLBACK_FONTS if path.exists())


@cache
def _has(font: ImageFont.FreeTypeFont, char: str) -> bool:
    """Whether ``font`` has a glyph for ``char`` (it draws something other than its missing-glyph box)."""
    if char.isspace():
        return True
    missing = bytes(font.getmask("\U0010fffd"))
    return bytes(font.getmask(char)) != missing


def _runs(text: str, size: int, bold: bool) -> list[tuple[str, ImageFont.FreeTypeFont]]:
    """``text`` in runs, each with the first font that has its characters."""
    main = style.font(size, bold=bold)
    runs: list[tuple[str, ImageFont.FreeTypeFont]] = []
    for char in text:
        font = main
        if not _has(main, char):
            font = next((f for f in _fallbacks(size) if _has(f, char)), main)
        if runs and runs[-1][1] is font:
            runs[-1] = (runs[-1][0] + char, font)
        else:
            runs.append((char, font))
    return runs


def _width(draw: ImageDraw.ImageDraw, text: str, size: int, bold: bool = False) -> float:
    return sum(draw.textlength(run, font=font) for run, font in _runs(text, size, bold))


def _clipped(draw: ImageDraw.ImageDraw, text: str, size: int, width: float, bold: bool = False) -> str:
    """``text`` cut with an ellipsis to fit ``width``."""
    if _width(draw, text, size, bold) <= width:
        return text
    while text and _width(draw, text + "…", size, bold) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill: style.Colour,
          bold: bool = False, anchor: str = "lm") -> None:
    """Draw ``text`` run by run (left, or right with ``anchor`` "rm"), vertically centred on ``xy``."""
    x, y = xy
    if anchor == "rm":
        x -= _width(draw, text, size, bold)
    for run, font in _runs(text, size, bold):
        draw.text((x, y), run, font=font, fill=fill, anchor="lm")
        x += draw.textlength(run, font=font)


def render_standings(title: str, rows: Sequence[StandingRow], headers: Sequence[str]) -> Image.Image:
    """The table as an RGB image, ``WIDTH`` wide and as tall as its rows."""
    rank_h, name_h, points_h, played_h, wins_h = (list(headers) + [""] * 5)[:5]
    top = PAD + TITLE_SIZE + 20
    height = top + HEADER_ROW + ROW * max(1, len(rows)) + PAD
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    _text(draw, (PAD, PAD + TITLE_SIZE / 2), _clipped(draw, title, TITLE_SIZE, WIDTH - 2 * PAD, bold=True),
          TITLE_SIZE, style.TEXT, bold=True)

    # Columns: the numbers as wide as their widest entry or heading; the name takes what is left.
    def column(header: str, values: list[str]) -> float:
        return max([_width(draw, header, TEXT_SIZE, True), *(_width(draw, v, TEXT_SIZE) for v in values)]) + 24

    ranks = [str(r.rank) for r in rows]
    points = [points_text(r.points) for r in rows]
    played = [str(r.played) for r in rows]
    wins = [str(r.wins) for r in rows]
    rank_w = column(rank_h, ranks)
    wins_w, played_w, points_w = column(wins_h, wins), column(played_h, played), column(points_h, points)
    right = WIDTH - PAD
    wins_x, played_x, points_x = right, right - wins_w, right - wins_w - played_w
    name_x = PAD + rank_w
    name_right = points_x - points_w - 12

    y = top + HEADER_ROW / 2
    for text, x, anchor in ((rank_h, name_x - 16, "rm"), (name_h, name_x, "lm"), (points_h, points_x, "rm"),
                            (played_h, played_x, "rm"), (wins_h, wins_x, "rm")):
        _text(draw, (x, y), _clipped(draw, text, TEXT_SIZE, name_right - name_x, bold=True), TEXT_SIZE,
              style.TEXT_DIM, bold=True, anchor=anchor)
    draw.line([(PAD, top + HEADER_ROW - 1), (right, top + HEADER_ROW - 1)], fill=RULE, width=2)

    for index, row in enumerate(rows):
        row_top = top + HEADER_ROW + index * ROW
        if index % 2:
            draw.rectangle([PAD, row_top, right, row_top + ROW - 1], fill=STRIPE)
        y = row_top + ROW / 2
        colour = PODIUM[row.rank - 1] if 1 <= row.rank <= 3 else style.TEXT
        _text(draw, (name_x - 16, y), ranks[index], TEXT_SIZE, colour, bold=row.rank <= 3, anchor="rm")
        room = name_right - name_x
        note = ""
        if row.note:
            note = _clipped(draw, row.note, NOTE_SIZE, room * 0.45)
            room -= _width(draw, note, NOTE_SIZE) + 14
        _text(draw, (name_x, y), _clipped(draw, row.name, TEXT_SIZE, room), TEXT_SIZE, style.TEXT)
        if note:
            _text(draw, (name_right, y), note, NOTE_SIZE, style.TEXT_DIM, anchor="rm")
        _text(draw, (points_x, y), points[index], TEXT_SIZE, style.TEXT, bold=True, anchor="rm")
        _text(draw, (played_x, y), played[index], TEXT_SIZE, style.TEXT, anchor="rm")
        _text(draw, (wins_x, y), wins[index], TEXT_SIZE, style.TEXT, anchor="rm")
    return image


def standings_image(title: str, rows: Sequence[StandingRow], headers: Sequence[str]) -> bytes:
    """A PNG of the table, legible at 400 px wide (a phone); ``headers`` are the translated column titles
    (rank, player, points, played, wins)."""
    return encode_report(render_standings(title, rows, headers))


__all__ = ["FALLBACK_FONTS", "ROW", "TEXT_SIZE", "WIDTH", "StandingRow", "points_text", "render_standings",
           "standings_image"]
