"""Maps of a few pixels, for the tests that are not about what a map looks like.

The bot draws its maps in worker processes (``workers``); these functions take the place of the drawing
functions it hands them (``render.draw_png`` and ``render.draw_phone_png`` in ``present.drawing``,
``render.report.game_timelapse`` in ``cogs.records.report``), with the same arguments, and still run in the
workers: the path of a map (prepared for its audience, queued, drawn off the event loop, attached) stays the
bot's own. A tiny map is a real PNG: one pixel per territory in its owner's shade with its army count, and a
digest of everything the map was drawn from in a text chunk, so two maps drawn from different inputs never
have the same bytes (``tests/audience.py`` traces each PNG back to its input by its digest). The conftest
installs them for every test not marked ``real_render``.
"""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any

from PIL import Image, PngImagePlugin


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=repr).encode()).hexdigest()


def _tiny_png(view: Any, visible: set[str] | frozenset[str] | None, *drawn_from: Any) -> bytes:
    territories = sorted(set(view.owners) | set(view.armies) | set(visible or ()))
    img = Image.new("RGB", (max(1, len(territories)), 1))
    for x, territory in enumerate(territories):
        owner = view.owners.get(territory, -1)
        img.putpixel((x, 0), ((owner * 37) % 256, view.armies.get(territory, 0) % 256,
                              255 if visible is None or territory in visible else 0))
    info = PngImagePlugin.PngInfo()
    info.add_text("drawn-from", _digest(view.to_dict(), sorted(visible) if visible is not None else None,
                                        *drawn_from))
    out = io.BytesIO()
    img.save(out, "PNG", pnginfo=info, compress_level=1)
    return out.getvalue()


def draw_png(view: Any, highlight: list[Any], audience: int | None, labels: Any, visible: set[str] | None) -> bytes:
    """What ``render.draw_png`` returns, in a few pixels."""
    return _tiny_png(view, visible, "whole", highlight, audience, repr(labels))


def draw_phone_png(view: Any, highlight: list[Any], labels: Any, visible: set[str] | frozenset[str] | None,
                   focus: dict[str, float]) -> bytes:
    """What ``render.draw_phone_png`` returns (the phone view), in a few pixels."""
    return _tiny_png(view, visible, "phone", highlight, repr(labels), sorted(focus.items()))


def game_timelapse(events: list[dict[str, Any]], **options: Any) -> bytes:
    """What ``render.report.game_timelapse`` returns (an animated WebP), in a few pixels: two frames whose
    colours come from the game's log."""
    digest = bytes.fromhex(_digest(events, options))
    frames = [Image.new("RGB", (4, 4), tuple(digest[i:i + 3])) for i in (0, 3)]
    out = io.BytesIO()
    frames[0].save(out, "WEBP", save_all=True, append_images=frames[1:], duration=[400, 3000], loop=0,
                   lossless=True)
    return out.getvalue()


__all__ = ["draw_phone_png", "draw_png", "game_timelapse"]
