"""The map renderer: a pure function from a game state to a Pillow image.

``render_map(state, board=None, *, highlight_events=None, viewer=None, visible=None)`` draws the board;
``encode_png(img)`` turns it into PNG bytes. Nothing here knows about Discord or the database.
"""

from .labels import Labels
from .mapview import draw_png, encode_png, render_map, warm_up

__all__ = ["Labels", "draw_png", "encode_png", "render_map", "warm_up"]
