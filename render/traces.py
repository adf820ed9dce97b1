"""The sea routes a map's picture draws itself (the classic Domination picture's blue lines, TEG's dotted
arcs, Risk Europe's dotted way round Scotland): found so that the bot draws its own line along them, not a
second one beside them in another style.

The picture's ink at sea is what stands out from the sea around it (a line, a dot, a letter): the pixels whose
colour is far from the local average, more than a coast's width from any land. Dots of a dotted line a few
pixels apart are joined. A route is the picture's when such ink leads, through the sea, from within a few
pixels of one end's coast to within a few pixels of the other's, by a way not much longer than the straight
line; the bot then draws it along that way (a few points, simplified). Worked at half the drawn size.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from PIL import Image, ImageChops, ImageFilter

SCALE = 2            # the picture is searched at half the drawn size
INK = 60             # a pixel this far (the largest of its three channels) from the local average is ink
COAST = 2            # px (searched size) from land where ink is the coast's line, not a route's
JOIN = 2             # px (searched size): ink this near other ink is one line (the dots of a dotted line)
REACH = 6            # px (searched size) from an end's coast where a route's ink may start
DETOUR = 2.0         # a route's way may be this many times the straight line (plus SLACK) and no more
SLACK = 40
MAX_VISIT = 12_000   # pixels a search may visit: a frame or a grid round the whole picture is not a route
SIMPLIFY = 3.0       # px (searched size) a simplified way may stray from the traced one


class PictureRoutes:
    """The ink of a map's picture at sea, ready to be searched route by route."""

    def __init__(self, regions: Image.Image, background: Image.Image) -> None:
        w, h = regions.size
        self.size = (max(1, w // SCALE), max(1, h // SCALE))
        self.regions = regions.resize(self.size, Image.Resampling.NEAREST)
        picture = background.convert("RGB").resize(self.size, Image.Resampling.BILINEAR)
        red, green, blue = ImageChops.difference(picture, picture.filter(ImageFilter.BoxBlur(5))).split()
        ink = ImageChops.lighter(ImageChops.lighter(red, green), blue).point(lambda v: 255 if v > INK else 0)
        sea = self.regions.point([255] + [0] * 255)
        open_sea = sea.filter(ImageFilter.MinFilter(2 * COAST + 1))
        trail = ImageChops.multiply(ImageChops.multiply(ink, open_sea).filter(ImageFilter.MaxFilter(2 * JOIN + 1)),
                                    sea)
        self.trail = trail
        self.pixels = trail.tobytes()
        self._nears: dict[int, set[int]] = {}

    def _near(self, value: int) -> set[int]:
        """The trail's pixels (as indexes) within ``REACH`` px of a territory's land (kept: routes share ends)."""
        if value in self._nears:
            return self._nears[value]
        w, h = self.size
        lut = [255 if v == value else 0 for v in range(256)]
        box = self.regions.point(lut).getbbox()
        found: set[int] = set()
        if box is not None:
            x0, y0 = max(0, box[0] - REACH), max(0, box[1] - REACH)
            x1, y1 = min(w, box[2] + REACH), min(h, box[3] + REACH)
            # Spread by a box blur (what it reaches is no longer 0): the land's pixels grown REACH px every way.
            grown = self.regions.crop((x0, y0, x1, y1)).point(lut).filter(ImageFilter.BoxBlur(REACH))
            on_trail = ImageChops.multiply(grown.point(lambda v: 255 if v else 0), self.trail.crop((x0, y0, x1, y1)))
            cw = x1 - x0
            found = {(y0 + i // cw) * w + x0 + i % cw for i, v in enumerate(on_trail.tobytes()) if v}
        self._nears[value] = found
        return found

    def way(self, a: Sequence[float], b: Sequence[float], values: tuple[int, int]) -> list[tuple[float, float]] | None:
        """The picture's own way from the badge at ``a`` to the one at ``b`` (their territories' region values),
        as a few points in drawn pixels between them, or None where the picture draws no such route."""
        starts, goals = self._near(values[0]), self._near(values[1])
        if not starts or not goals or starts & goals:
            return None          # nothing to follow, or the two coasts so near that no line is needed between
        w, h = self.size
        straight = math.dist(a, b) / SCALE
        limit = DETOUR * straight + SLACK     # steps: a way longer than this is not the route's
        parent: dict[int, int] = dict.fromkeys(starts, -1)
        layer, steps, found = list(starts), 0, -1
        steps_round = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
        while layer and found < 0 and steps < limit and len(parent) < MAX_VISIT:
            following: list[int] = []
            for i in layer:
                if i in goals:
                    found = i
                    break
                x, y = i % w, i // w
                for dx, dy in steps_round:
                    nx, ny = x + dx, y + dy
                    j = ny * w + nx
                    if 0 <= nx < w and 0 <= ny < h and j not in parent and self.pixels[j]:
                        parent[j] = i
                        following.append(j)
            layer, steps = following, steps + 1
        if found < 0:
            return None
        path = []
        while found >= 0:
            path.append((found % w, found // w))
            found = parent[found]
        path.reverse()
        # The way from one badge to the other along the ink: no longer than a fair detour.
        length = sum(math.dist(p, q) for p, q in pairwise(path))
        if length + math.dist(path[0], (a[0] / SCALE, a[1] / SCALE)) + math.dist(path[-1], (b[0] / SCALE,
                                                                                              b[1] / SCALE)) \
                > DETOUR * straight + SLACK:
            return None
        points = _simplified(path, SIMPLIFY)
        return [(x * SCALE + SCALE / 2, y * SCALE + SCALE / 2) for x, y in points]


def _simplified(points: list[tuple[int, int]], tolerance: float) -> list[tuple[int, int]]:
    """Ramer–Douglas–Peucker: the fewest of ``points`` that stray from the line through them by at most
    ``tolerance``, the two ends kept."""
    if len(points) < 3:
        return points
    (x0, y0), (x1, y1) = points[0], points[-1]
    d = math.hypot(x1 - x0, y1 - y0) or 1.0
    far, at = -1.0, 0
    for k, (x, y) in enumerate(points[1:-1], start=1):
        off = abs((x1 - x0) * (y0 - y) - (x0 - x) * (y1 - y0)) / d
        if off > far:
            far, at = off, k
    if far <= tolerance:
        return [points[0], points[-1]]
    return _simplified(points[:at + 1], tolerance)[:-1] + _simplified(points[at:], tolerance)
