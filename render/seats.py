"""How each seat looks: colour, badge shape, and the order the panel lists players in."""

from __future__ import annotations

from typing import Any

from . import style

NEUTRAL = -1
Colour = tuple[int, int, int]


def seat_colour(seat: int, state: Any = None) -> Colour:
    """A seat's colour; in a teams game, teammates get related shades of their team's colour."""
    if seat == NEUTRAL:
        return style.NEUTRAL_COLOUR
    teams = getattr(state, "teams", None)
    if teams and seat in teams:
        team = teams[seat]
        mates = sorted(s for s, t in teams.items() if t == team)
        shades = style.TEAM_SHADES[team % len(style.TEAM_SHADES)]
        return shades[mates.index(seat) % len(shades)]
    return style.PLAYER_COLOURS[seat % len(style.PLAYER_COLOURS)]


def seat_shape(seat: int) -> str:
    if seat == NEUTRAL:
        return style.NEUTRAL_SHAPE
    return style.PLAYER_SHAPES[seat % len(style.PLAYER_SHAPES)]


def fill_colour(seat: int, state: Any = None) -> Colour:
    """The colour a territory is filled with: the seat's colour, a little softened so that the badges (in the
    full colour) stand out from their territory."""
    c = seat_colour(seat, state)
    return tuple(round(v * 0.92 + 255 * 0.08) for v in c)  # type: ignore[return-value]


def turn_order(state: Any) -> list[int]:
    """Player seats in turn order, starting from the seat that moved first."""
    seats = [p.seat for p in state.players]
    if not seats:
        return []
    first = getattr(state, "first_seat", seats[0])
    if first in seats:
        i = seats.index(first)
        seats = seats[i:] + seats[:i]
    return seats
