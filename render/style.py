"""The look of the map: colours, sizes and fonts, in one place.

Sizes are in pixels of the production image (the map is 1600 px wide and is shown about 400 px wide on a
phone, so everything that must be read there is drawn large).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PIL import ImageFont

FONT_DIR = Path(__file__).parent / "fonts"
FONT_REGULAR = FONT_DIR / "DejaVuSans.ttf"
FONT_BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"
FONT_CONDENSED_BOLD = FONT_DIR / "DejaVuSansCondensed-Bold.ttf"

Colour = tuple[int, int, int]

# -- sizes -------------------------------------------------------------------------------------------
BADGE_SIZE = 34            # army badge, outer diameter (px at production size)
LABEL_FONT_SIZE = 15       # territory short names
LABEL_STROKE = 2           # dark halo around label text
BADGE_GAP = 1              # space kept between a badge and its label
CONTINENT_FONT_SIZE = 17   # "ASIA +7" in the sea
CONTINENT_STROKE = 3
LEGEND_FONT_SIZE = 20      # the legend in the lower left corner
LEGEND_ROW = 32
LEGEND_PAD = 8
LEGEND_ICON = 46           # the symbols' column
PANEL_HEIGHT = 206         # the players and turn panel under the map

# -- colours -----------------------------------------------------------------------------------------
# Okabe & Ito's colour-blind-safe palette, minus its blue (too close to the sea) and black. Each seat also
# has a badge shape, the second cue for readers who cannot tell two colours apart.
PLAYER_COLOURS: tuple[Colour, ...] = (
    (213, 94, 0),     # vermillion
    (86, 180, 233),   # sky blue
    (240, 228, 66),   # yellow
    (0, 158, 115),    # bluish green
    (204, 121, 167),  # reddish purple
    (230, 159, 0),    # orange
    (236, 236, 232),  # white (seventh and eighth seats, on larger maps)
    (128, 84, 56),    # brown
)
PLAYER_SHAPES: tuple[str, ...] = ("circle", "square", "diamond", "hexagon", "shield", "house", "cross", "triangle")
# Teams: one hue per team, in a light, a middle and a dark shade, far enough apart in lightness (about 25 L*
# between neighbours) to tell teammates apart at a glance while the team still reads as one colour; the badge
# shapes, which follow the seat, are the second cue. Each shade keeps its army numbers at a contrast of 4.5:1
# or more (dark digits on the light and middle shades, light digits on the dark one).
TEAM_SHADES: tuple[tuple[Colour, ...], ...] = (
    ((252, 184, 128), (222, 100, 16), (140, 44, 0)),     # vermillion: peach, vermillion, rust
    ((172, 218, 250), (52, 146, 226), (22, 78, 160)),    # blue: pale, sky, deep
    ((150, 228, 186), (0, 164, 114), (0, 94, 62)),       # green: mint, bluish green, forest
)
# Which shades a team of n players uses, in seat order: two teammates get the light and the dark one.
TEAM_PICKS: dict[int, tuple[int, ...]] = {1: (1,), 2: (0, 2), 3: (1, 0, 2)}
# The neutral's grey is as light as the seat colours' middle: at 150 it was within 6.2 (CIEDE2000) of reddish
# purple for a deuteranope; at 185 every pair of the eight seat colours and the neutral stays 10 or more apart
# under protan, deutan and tritan simulation (tests/test_palette.py).
NEUTRAL_COLOUR: Colour = (185, 185, 185)
NEUTRAL_SHAPE = "octagon"
FOG_COLOUR: Colour = (62, 72, 84)
UNOWNED_COLOUR: Colour = (206, 199, 182)   # before territories are claimed

SEA: Colour = (22, 46, 72)
SEA_MID: Colour = (28, 56, 86)             # bands of shallow water along the coasts
SEA_LIGHT: Colour = (36, 70, 104)
INK: Colour = (20, 22, 26)                 # coastlines, borders, outlines
TEXT: Colour = (248, 248, 244)
TEXT_DIM: Colour = (170, 180, 190)
PANEL_BG: Colour = (16, 24, 34)
PANEL_LINE: Colour = (52, 66, 82)
# A highlight (the outline of a conquered territory, a territory lit on the board) is light or dark, whichever
# contrasts more with the territory's colour (`render.seats.highlight_for`): white vanishes on the white seat,
# yellow on the yellow one.
HIGHLIGHT: Colour = (255, 255, 255)
HIGHLIGHT_DARK: Colour = (20, 22, 26)
BADGE_RING: Colour = (255, 255, 255)       # thin light ring inside a badge's dark outline
BADGE_RING_WIDTH = 1.5
ROUTE: Colour = (196, 214, 232)            # dashed sea routes
ATTACK_ARROW: Colour = (255, 244, 214)
FORTIFY_ARROW: Colour = (170, 235, 190)
FOG_BADGE: Colour = (104, 116, 130)

# Continents are told apart by a tint along their coasts and by their name and bonus in the sea.
CONTINENT_TINTS: dict[str, Colour] = {
    "north_america": (232, 196, 104),
    "south_america": (236, 142, 112),
    "europe": (140, 168, 240),
    "africa": (226, 170, 90),
    "asia": (132, 206, 152),
    "australia": (220, 140, 210),
}


@cache
def font(size: int, bold: bool = False, condensed: bool = False) -> ImageFont.FreeTypeFont:
    """The shipped DejaVu font at a size (cached; FreeType fonts are safe to share between threads)."""
    path = FONT_CONDENSED_BOLD if condensed else FONT_BOLD if bold else FONT_REGULAR
    return ImageFont.truetype(str(path), size)


def label_font() -> ImageFont.FreeTypeFont:
    return font(LABEL_FONT_SIZE, condensed=True)


def text_bbox(font: ImageFont.FreeTypeFont, text: str, *, stroke: int = 0, anchor: str | None = None
              ) -> tuple[int, int, int, int]:
    """``font.getbbox`` in whole pixels. With a whole stroke width FreeType's box is whole pixels already;
    Pillow declares floats because a stroke width may be fractional."""
    left, top, right, bottom = font.getbbox(text, stroke_width=stroke, anchor=anchor)
    return int(left), int(top), int(right), int(bottom)
