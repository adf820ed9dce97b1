"""One palette, safe for colour-blind readers: the seat colours and the neutral stay apart under protan, deutan
and tritan simulation (Machado, Oliveira and Fernandes 2009, severity 1, compared with CIEDE2000), and every
highlight contrasts with the territory it is drawn on. The live board gets the renderer's palette."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
from coloraide import Color

from engine import NEUTRAL, Game
from render import render_map
from render import style as st
from render.geometry import load_geometry
from render.seats import contrast, fill_colour, highlight_for, look, seat_colour, unknown_look
from web.board import view

SEATS = [*st.PLAYER_COLOURS, st.NEUTRAL_COLOUR]
TEAM = [c for shades in st.TEAM_SHADES for c in shades]


def colour(rgb: tuple[int, int, int]) -> Color:
    return Color("srgb", [v / 255 for v in rgb])


@pytest.mark.parametrize("vision", [None, "protan", "deutan", "tritan"])
def test_seat_colours_and_the_neutral_stay_apart_under_each_simulation(vision):
    seen = [colour(c) if vision is None else colour(c).filter(vision, 1, method="machado") for c in SEATS]
    closest = min((a.delta_e(b, method="2000"), i, j) for (i, a), (j, b) in itertools.combinations(enumerate(seen), 2))
    assert closest[0] >= 10, f"{SEATS[closest[1]]} and {SEATS[closest[2]]}: ΔE00 {closest[0]:.1f} ({vision})"


def test_the_old_neutral_grey_would_fail():
    """The check can fail: the grey of 150 was 6.2 from reddish purple for a deuteranope."""
    purple = colour(st.PLAYER_COLOURS[4]).filter("deutan", 1, method="machado")
    grey = colour((150, 150, 150)).filter("deutan", 1, method="machado")
    assert grey.delta_e(purple, method="2000") < 10


@pytest.mark.parametrize("rgb", [*SEATS, *TEAM, st.FOG_COLOUR, st.UNOWNED_COLOUR])
def test_highlight_contrasts_with_every_colour_it_is_drawn_on(rgb):
    softened = tuple(round(v * 0.92 + 255 * 0.08) for v in rgb)   # a territory's fill (seats.fill_colour)
    for c in (rgb, softened):
        assert contrast(highlight_for(c), c) >= 3, c


def test_a_single_white_or_yellow_highlight_would_not():
    assert contrast(st.HIGHLIGHT, st.PLAYER_COLOURS[6]) < 3          # white on the white seat
    assert contrast((255, 213, 74), st.PLAYER_COLOURS[2]) < 3        # the board's old yellow on yellow


def _state_with(seat: int):
    game, _ = Game.new([(n, "normal") for n in ("A", "B", "C", "D", "E", "F")], "palette", {"deployment": "deal"})
    state = game.state
    owners = {t: (seat if t in ("brazil", "peru", "argentina", "venezuela") else o) for t, o in state.owners.items()}
    return dataclasses.replace(state, owners=owners)


@pytest.mark.real_render
@pytest.mark.parametrize("seat", range(8))
def test_a_conquered_territory_is_outlined_in_a_colour_that_shows_on_it(seat):
    """The outline of a conquest lies on the territory's own fill, in the highlight chosen for it: on the
    yellow and the white seats too."""
    state = _state_with(seat)
    ev = [{"type": "territory_conquered", "seat": seat, "from": "peru", "to": "brazil", "defender": 0}]
    plain, lit = render_map(state), render_map(state, highlight_events=ev)
    geo = load_geometry()
    value = geo.territories["brazil"].value
    fill = fill_colour(seat, state)
    left, top, right, bottom = geo.territories["brazil"].bbox
    changed = [lit.getpixel((x, y)) for x in range(left, right) for y in range(top, bottom)
               if geo.label.getpixel((x, y)) == value and lit.getpixel((x, y)) != plain.getpixel((x, y))]
    strong = [p for p in changed if contrast(p, fill) >= 3]
    assert len(strong) >= 300, f"seat {seat}: {len(strong)} of {len(changed)} outline pixels show on {fill}"


def hexed(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def test_the_live_board_gets_the_renderers_palette():
    game, _ = Game.new([(n, "normal") for n in ("A", "B", "C")], "palette", {})
    out = view(game, 0, "en", 1)
    for p in out["players"]:
        seat = p["seat"]
        expected = look(seat, game.state)
        assert (p["colour"], p["fill"], p["highlight"], p["shape"]) == (
            hexed(expected.colour), hexed(expected.fill), hexed(expected.highlight), expected.shape)
    assert out["neutral"]["highlight"] == hexed(look(NEUTRAL).highlight)
    assert out["fog"]["highlight"] == hexed(unknown_look().highlight)
    assert seat_colour(NEUTRAL) == st.NEUTRAL_COLOUR
