"""The map's background as the board's page lays it over its own colours: sea, borders, sea routes, names and
continent names, with every territory's fill left transparent, so the owner colours the page paints under
it show as the renderer's fills and its ink and words stay on top. One picture per map and language, drawn once
in a worker process and sent with a long cache: it holds nothing of a game (no owner, no army). It has no
legend of the renderer's marks ("+N", a lost die, the star): the page draws none of them, its own marks explain
themselves. A legend box remains only on a map whose continent or territory names found no room on it.
"""

from __future__ import annotations

import hashlib
import io

from engine import load_map
from render import style
from render.base import palette_for, static_layers
from render.geometry import geometry_for
from render.labels import Labels


def background_png(map_id: str, labels: Labels) -> bytes:
    """The map ``map_id`` without owners, its words in ``labels``, as a palette PNG whose territory fills are
    transparent (their inked edges as ink of the renderer's weight); run in a worker process."""
    geo = geometry_for(map_id)
    layers = static_layers(load_map(map_id), labels, symbols=False)
    image = layers.index.crop((0, 0, geo.width, geo.height))
    values = [shape.value for shape in geo.territories.values()]
    image.putpalette(palette_for(layers, dict.fromkeys(values, style.INK)))
    alpha = bytearray([255] * 256)
    n_values, levels = layers.slots.territories, layers.slots.ink_levels
    for v in values:
        for k in range(levels):
            alpha[v + k * n_values] = round(255 * k / levels)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True, transparency=bytes(alpha))
    return out.getvalue()


def digest(png: bytes) -> str:
    """The background's name in its address: a new picture (a map or its words changed) is a new address."""
    return hashlib.sha256(png).hexdigest()[:16]


__all__ = ["background_png", "digest"]
