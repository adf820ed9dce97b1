"""How each seat looks: colour, badge shape, and the order the panel lists players in."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, NamedTuple

from . import style

if TYPE_CHECKING:
    from engine import GameState

NEUTRAL = -1
Colour = tuple[int, int, int]


def seat_colour(seat: int, state: GameState | None = None) -> Colour:
    """A seat's colour; in a teams game, teammates get clearly different shades (light, middle, dark) of
    their team's colour."""
    if seat == NEUTRAL:
        return style.NEUTRAL_COLOUR
    teams = state.teams if state is not None else None
    if teams and seat in teams:
        team = teams[seat]
        mates = sorted(s for s, t in teams.items() if t == team)
        shades = style.TEAM_SHADES[team % len(style.TEAM_SHADES)]
        picks = style.TEAM_PICKS.get(len(mates), tuple(range(len(shades))))
        return shades[picks[mates.index(seat) % len(picks)] % len(shades)]
    return style.PLAYER_COLOURS[seat % len(style.PLAYER_COLOURS)]


def seat_shape(seat: int) -> str:
    if seat == NEUTRAL:
        return style.NEUTRAL_SHAPE
    return style.PLAYER_SHAPES[seat % len(style.PLAYER_SHAPES)]


def fill_colour(seat: int, state: GameState | None = None) -> Colour:
    """The colour a territory is filled with: the seat's colour, a little softened so that the badges (in the
    full colour) stand out from their territory."""
    r, g, b = (round(v * 0.92 + 255 * 0.08) for v in seat_colour(seat, state))
    return r, g, b


def highlight_for(c: Colour) -> Colour:
    """The highlight drawn on or round something of colour ``c``: the light or the dark one, whichever contrasts
    more (every colour has 4.5:1 or more with one of them)."""
    return max((style.HIGHLIGHT, style.HIGHLIGHT_DARK), key=lambda h: contrast(h, c))


class Look(NamedTuple):
    """How a seat looks, for anything that draws it (the renderer, the live board): one palette."""

    colour: Colour      # badges, names on the panel
    fill: Colour        # its territories
    shape: str          # the badge's shape
    highlight: Colour   # an outline on or round its territories


def look(seat: int, state: GameState | None = None) -> Look:
    fill = fill_colour(seat, state)
    return Look(seat_colour(seat, state), fill, seat_shape(seat), highlight_for(fill))


def unknown_look() -> Look:
    """A territory in the fog (its owner unknown)."""
    return Look(style.FOG_BADGE, style.FOG_COLOUR, "", highlight_for(style.FOG_COLOUR))


def turn_order(state: GameState) -> list[int]:
    """Player seats in turn order, starting from the seat that moved first."""
    seats = [p.seat for p in state.players]
    if not seats:
        return []
    first = state.first_seat
    if first in seats:
        i = seats.index(first)
        seats = seats[i:] + seats[:i]
    return seats


# -- colour arithmetic: contrast and CIE L*a*b* distance ---------------------------------------------
def _linear(v: int) -> float:
    x = v / 255
    return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4


def luminance(c: Colour) -> float:
    """Relative luminance (WCAG)."""
    r, g, b = (_linear(v) for v in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Colour, b: Colour) -> float:
    """WCAG contrast ratio, 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def lab(c: Colour) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour."""
    r, g, b = (_linear(v) for v in c)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def colour_distance(a: Colour, b: Colour) -> float:
    """How different two colours look: the CIE 1976 ΔE*ab (about 2.3 is just noticeable)."""
    la, lb = lab(a), lab(b)
    return math.dist(la, lb)


def on_dark(c: Colour, background: Colour = style.PANEL_BG, ratio: float = 3.0) -> Colour:
    """A seat's colour for large bold text or lines on the dark panel: the colour itself, or lightened
    towards white until it reaches ``ratio`` (3:1, WCAG's figure for large text) there, so that a dark team
    shade does not vanish."""
    out = c
    for k in range(1, 11):
        if contrast(out, background) >= ratio:
            break
        r, g, b = (round(v + (255 - v) * k / 10) for v in c)
        out = (r, g, b)
    return out
