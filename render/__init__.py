"""The map renderer: a pure function from a game state to a Pillow image.

``render_map(state, board=None, *, highlight_events=None, viewer=None, visible=None)`` draws the board;
``render_phone(state, ..., focus=...)`` the phone view, the part of it that matters now, legible at phone width;
``encode_png(img)`` turns either into PNG bytes. Nothing here knows about Discord or the database.
"""

from .labels import Labels
from .mapview import draw_png, encode_png, render_map, warm_up
from .phone import draw_phone_png, render_phone

__all__ = ["Labels", "draw_phone_png", "draw_png", "encode_png", "render_map", "render_phone", "warm_up"]
