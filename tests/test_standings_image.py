"""The standings image: a PNG 800 px wide whose text stays legible at a phone's 400 px, every row of a
64-entrant tournament on it, long names cut, names of other scripts drawn."""

from __future__ import annotations

import io

from PIL import Image, ImageDraw

from render import standings as drawing
from render.standings import ROW, TEXT_SIZE, WIDTH, StandingRow, points_text, standings_image

HEADERS = ("#", "Player", "Points", "Played", "Wins")
NAMES = ("Ærlige Åse Øvrebø", "José Ñúñez", "Владимир", "Ελένη", "עדי", "Zoë " * 30)


def rows(count: int) -> list[StandingRow]:
    return [StandingRow(rank=i + 1, name=NAMES[i % len(NAMES)], points=(count - i) / 3, played=6, wins=i % 4,
                        note="out in round 2" if i % 5 == 4 else "") for i in range(count)]


def test_sixty_four_rows_fit_on_one_tall_image():
    image = Image.open(io.BytesIO(standings_image("Spring Swiss", rows(64), HEADERS)))
    assert image.format == "PNG"
    assert image.width == WIDTH and image.height >= 64 * ROW
    # Every row is drawn: the last row's band holds text (light pixels) as the first does.
    rgb = image.convert("RGB")
    last_row = rgb.crop((0, image.height - 28 - ROW, WIDTH, image.height - 28))
    assert max(high for _, high in last_row.getextrema()) > 200


def test_text_is_at_least_twelve_pixels_at_phone_width():
    assert TEXT_SIZE * 400 / WIDTH >= 12
    assert drawing.NOTE_SIZE * 400 / WIDTH >= 10


def test_a_long_name_is_cut_with_an_ellipsis_inside_its_column():
    draw = ImageDraw.Draw(Image.new("RGB", (10, 10)))
    name = "Zoë " * 30
    cut = drawing._clipped(draw, name, TEXT_SIZE, 300)
    assert cut.endswith("…") and drawing._width(draw, cut, TEXT_SIZE) <= 300
    assert drawing._clipped(draw, "Ola", TEXT_SIZE, 300) == "Ola"


def test_names_of_other_scripts_are_drawn_with_real_glyphs():
    font = drawing.style.font(TEXT_SIZE)
    for char in "ÆøñЖλעج":
        assert drawing._has(font, char), char
    assert not drawing._has(font, "\ue000")  # a private-use character: no font has it


def test_points_read_short():
    assert [points_text(p) for p in (3.0, 2.5, 5 / 3, 0.0)] == ["3", "2.5", "1.67", "0"]


def test_an_empty_table_still_draws():
    image = Image.open(io.BytesIO(standings_image("Nobody yet", [], HEADERS)))
    assert image.width == WIDTH
