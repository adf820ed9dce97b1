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
)
PLAYER_SHAPES: tuple[str, ...] = ("circle", "square", "diamond", "hexagon", "shield", "house")
# Teams: related shades of one colour per team (the badge shapes still tell teammates apart).
TEAM_SHADES: tuple[tuple[Colour, ...], ...] = (
    ((213, 94, 0), (240, 150, 70), (160, 62, 0)),        # vermillion
    ((86, 180, 233), (30, 110, 190), (160, 215, 245)),   # blue
    ((0, 158, 115), (90, 205, 160), (0, 105, 75)),       # green
)
NEUTRAL_COLOUR: Colour = (150, 150, 150)
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
HIGHLIGHT: Colour = (255, 255, 255)
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
