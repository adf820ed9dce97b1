"""The geometry of any map, built from its region image: the same layers the classic map ships precomputed.

A region image is an "L" image whose pixel value is a territory's index + 1 (0 is the sea). From it come
the coastlines, borders and continent borders (edges between different values), each territory's box and
area, the badge anchors (given by the map, or the deepest point inside the territory), the label centres (given
by the map, else a first guess under the badge: ``layout.localise_layout`` places every name that was not
given, and moves any given one that collides), the continent names' places and the legend's corner (where it
hides the least land and the least of the map's picture).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from PIL import Image, ImageChops, ImageFilter

from . import style
from .geometry import Geometry, GeometryData, TerritoryData, TerritoryShape
from .layout import label_box
from .traces import PictureRoutes

Colour = tuple[int, int, int]
# Coast tints of continents that do not give a colour, in the order of the map's continents.
TINTS: tuple[Colour, ...] = ((232, 196, 104), (236, 142, 112), (140, 168, 240), (226, 170, 90), (132, 206, 152),
                             (220, 140, 210), (120, 210, 220), (240, 240, 150), (200, 160, 250), (250, 170, 170))


def _edges(values: Image.Image) -> tuple[Image.Image, Image.Image]:
    """Where a pixel's 3x3 neighbourhood holds two different values, and the neighbourhood's smallest value."""
    high = values.filter(ImageFilter.MaxFilter(3))
    low = values.filter(ImageFilter.MinFilter(3))
    return ImageChops.difference(high, low).point(lambda v: 255 if v else 0), low


def _soft(mask: Image.Image) -> Image.Image:
    return mask.filter(ImageFilter.GaussianBlur(0.6))


def interior_point(mask: Image.Image) -> tuple[int, int]:
    """A point deep inside a region (a "1" or "L" mask): the middle of what is left when it is worn away
    one pixel at a time, so the badge of a crescent or a ring sits on land, not in its hole.

    The mask is first framed in one pixel of nothing: Pillow's ``MinFilter`` repeats the edge pixels, so a
    region that fills its box (a plain rectangle) would otherwise never wear away. Framed, every pixel on the
    edge of what is left has nothing beside it, so each pass takes a pixel off every side and the passes are
    at most half the shorter side. A large region is first worn away at a coarser scale (blocks wholly inside
    it, a few dozen across its shorter side), which finds nearly the same point in a fraction of the time."""
    solid = mask.convert("L").point(lambda v: 255 if v else 0)
    if solid.getbbox() is None:
        raise ValueError("an empty region has no interior point")
    k = min(solid.size) // COARSE_SIDE
    if k >= 2:
        coarse = solid.reduce(k).point(lambda v: 255 if v == 255 else 0)
        if coarse.getbbox() is not None:
            cx, cy = _worn_centre(coarse)
            x, y = min(solid.width - 1, cx * k + k // 2), min(solid.height - 1, cy * k + k // 2)
            if solid.getpixel((x, y)):
                return x, y
    return _worn_centre(solid)


COARSE_SIDE = 24      # a region's shorter side, in blocks, where it is worn away at a coarser scale


def _worn_centre(solid: Image.Image) -> tuple[int, int]:
    """``interior_point`` of a mask of 0 and 255 at its own scale."""
    current = Image.new("L", (solid.width + 2, solid.height + 2), 0)
    current.paste(solid, (1, 1))
    last = current.getbbox()
    for _ in range(min(solid.size) // 2 + 1):
        worn = current.filter(ImageFilter.MinFilter(3))
        box = worn.getbbox()
        if box is None:
            break
        current, last = worn, box
    assert last is not None
    # The worn-away remainder's pixels: take the one nearest the centre of its box.
    x0, y0, x1, y1 = last
    crop = current.crop(last)
    cx, cy = (x1 - x0 - 1) / 2, (y1 - y0 - 1) / 2
    data = crop.tobytes()
    w = crop.width
    best = min((i for i, v in enumerate(data) if v), key=lambda i: (i % w - cx) ** 2 + (i // w - cy) ** 2)
    return x0 + best % w - 1, y0 + best // w - 1   # back from the frame to the mask's own pixels


def parse_colour(text: object) -> Colour | None:
    """``"#rrggbb"`` as a colour, or None."""
    if isinstance(text, str) and len(text) == 7 and text.startswith("#"):
        try:
            return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)
        except ValueError:
            return None
    return None


def pair_box(boxes: dict[int, tuple[int, int, int, int]], one: int, other: int, reach: int,
             size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The box around two territories' ``rough_boxes``, widened by ``reach`` and kept within the image."""
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = boxes[one], boxes[other]
    return (max(0, min(ax0, bx0) - reach), max(0, min(ay0, by0) - reach),
            min(size[0], max(ax1, bx1) + reach), min(size[1], max(ay1, by1) + reach))


def rough_boxes(regions: Image.Image, count: int, step: int = 16) -> dict[int, tuple[int, int, int, int]]:
    """For each territory value 1..count, a box that holds all its pixels, to the nearest ``step`` pixels:
    from the histograms of strips of rows and of columns, so each territory is then examined only there."""
    w, h = regions.size
    rows: dict[int, list[int]] = {}
    cols: dict[int, list[int]] = {}
    for spans, length, strip in ((rows, h, lambda a, b: (0, a, w, b)), (cols, w, lambda a, b: (a, 0, b, h))):
        for start in range(0, length, step):
            counts = regions.crop(strip(start, min(length, start + step))).histogram()
            for value in range(1, count + 1):
                if counts[value]:
                    span = spans.setdefault(value, [start, start])
                    span[1] = start
    return {v: (cols[v][0], rows[v][0], min(w, cols[v][1] + step), min(h, rows[v][1] + step))
            for v in range(1, count + 1) if v in rows}


def badge_size(areas: Sequence[int]) -> int:
    """The army badges' diameter for a map: the classic 34 px, or on a map of small territories about a third
    of a typical territory's width (the median area's square root), at least 24 px to stay readable."""
    typical = sorted(areas)[len(areas) // 2] if areas else 0
    return max(MIN_BADGE, min(style.BADGE_SIZE, round(math.sqrt(typical) / 3)))


def route_segments(a: Sequence[float], b: Sequence[float], width: int, wrap: bool, badge: int = style.BADGE_SIZE
                   ) -> tuple[tuple[float, float, float, float], ...]:
    """The dashed line of a sea route between two badges, kept clear of both; with ``wrap`` it leaves the
    map's east or west edge and comes back at the other (like Alaska and Kamchatka)."""
    gap = badge / 2 + 6
    if wrap:
        left, right = (a, b) if a[0] <= b[0] else (b, a)
        return ((left[0] - gap, left[1], 0.0, (left[1] + right[1]) / 2),
                (right[0] + gap, right[1], float(width), (left[1] + right[1]) / 2))
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    cut = min(gap, d / 3)
    return ((a[0] + dx / d * cut, a[1] + dy / d * cut, b[0] - dx / d * cut, b[1] - dy / d * cut),)


Segment = tuple[float, float, float, float]
OFF_COURSE = 0.02   # the share of a sea line that may lie over other territories' land (a coast's pixel or two)


def polyline_segments(points: Sequence[Sequence[float]], badge: int = style.BADGE_SIZE) -> tuple[Segment, ...]:
    """A route through ``points`` (its two badges at the ends and the points between), cut back from both
    badges as a straight one is."""
    gap = badge / 2 + 6
    pts = [(float(p[0]), float(p[1])) for p in points]
    for end, towards in ((0, 1), (len(pts) - 1, len(pts) - 2)):
        (x, y), (tx, ty) = pts[end], pts[towards]
        d = math.hypot(tx - x, ty - y) or 1.0
        cut = min(gap, d / 3)
        pts[end] = (x + (tx - x) / d * cut, y + (ty - y) / d * cut)
    return tuple((p[0], p[1], q[0], q[1]) for p, q in pairwise(pts))


def off_course(regions: Image.Image, segments: Sequence[Segment], own: set[int]) -> float:
    """The share of a route's length that lies over the land of territories other than its own two (``own``:
    their region values) or off the map."""
    w, h = regions.size
    over = total = 0
    for x0, y0, x1, y1 in segments:
        steps = max(1, round(math.hypot(x1 - x0, y1 - y0) / 2))
        for i in range(steps + 1):
            x, y = round(x0 + (x1 - x0) * i / steps), round(y0 + (y1 - y0) * i / steps)
            total += 1
            if not (0 <= x < w and 0 <= y < h):
                over += 1
            else:
                v = regions.getpixel((x, y))
                over += bool(v) and v not in own
    return over / max(1, total)


def _stub_marker(x: float, y: float, r: float = 5.0) -> tuple[Segment, ...]:
    """A small ring at the end of a route's stub: the route goes on across the sea, the picture's own way."""
    pts = [(x + r * math.cos(k * math.pi / 4), y + r * math.sin(k * math.pi / 4)) for k in range(9)]
    return tuple((p[0], p[1], q[0], q[1]) for p, q in pairwise(pts))


STUB = 30.0   # px of a route's stub from its badge


def sea_route(regions: Image.Image, a: Sequence[float], b: Sequence[float], own: set[int], wrap: bool,
              badge: int = style.BADGE_SIZE, path: Sequence[Sequence[float]] | None = None,
              traced: Sequence[Sequence[float]] | None = None) -> tuple[Segment, ...]:
    """How a sea route is drawn: through the map's own ``path`` if it gives one; else along the way the map's
    picture draws it (``traced``: ``traces.PictureRoutes.way``) where that keeps clear of other land; else
    straight, or, where that crosses other territories' land, bent round it, off to one side of the middle and
    then the other, further each time; where no bend stays at sea, a short stub from each badge out to sea,
    ending in a small ring."""
    width = regions.width
    if path:
        return polyline_segments([a, *path, b], badge)
    if traced and not wrap:
        along = polyline_segments([a, *traced, b], badge)
        if off_course(regions, along, own) <= OFF_COURSE:
            return along
    straight = route_segments(a, b, width, wrap, badge)
    if wrap or off_course(regions, straight, own) <= OFF_COURSE:
        return straight
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / d, dx / d
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    for k in (0.15, 0.25, 0.35, 0.5, 0.7):
        for sign in (1, -1):
            bend = (mx + nx * sign * k * d, my + ny * sign * k * d)
            segments = polyline_segments([a, bend, b], badge)
            if off_course(regions, segments, own) <= OFF_COURSE:
                return segments
    out: list[Segment] = []
    round_world = abs(dx) > width / 2    # going round is shorter: each stub sets off toward its own edge
    for end, other in ((a, b), (b, a)):
        toward = (math.pi if end[0] < other[0] else 0.0) if round_world else \
            math.atan2(other[1] - end[1], other[0] - end[0])
        out += _stub(regions, end, toward, own, badge, d)
    return tuple(out)


FAN = (0, 20, -20, 40, -40, 60, -60, 90, -90, 120, -120, 150, -150, 180)   # degrees off the other end's way


def _stub(regions: Image.Image, start: Sequence[float], toward: float, own: set[int], badge: int,
          d: float) -> tuple[Segment, ...]:
    """A route's stub from the badge at ``start``: over its own land to its coast, then ``STUB`` px out to sea
    (short of any other land, of the map's edge and of the middle of the route), ending in a ring. Toward the
    other end (``toward``, an angle) where the way there is clear, else the nearest way round that is (Alaska,
    whose coast toward Kamchatka is across the Bering Strait, off the map's west edge); none where no way is."""
    gap = badge / 2 + 6
    width, height = regions.size
    for degrees in FAN:
        angle = toward + math.radians(degrees)
        ux, uy = math.cos(angle), math.sin(angle)
        reach, at_sea, clear = gap, 0.0, False
        while reach < max(d / 2 - 8, gap + STUB + 8):
            px, py = round(start[0] + ux * (reach + 8)), round(start[1] + uy * (reach + 8))
            if not (0 <= px < width and 0 <= py < height):
                break
            v = regions.getpixel((px, py))
            if v and v not in own:
                break
            at_sea += 0 if v else 2.0
            reach += 2.0
            if at_sea >= STUB:
                clear = True
                break
        if not clear and at_sea < STUB / 2:
            continue
        x0, y0 = start[0] + ux * gap, start[1] + uy * gap
        x1, y1 = start[0] + ux * reach, start[1] + uy * reach
        stub = ((x0, y0, x1, y1), *_stub_marker(x1 + ux * 5, y1 + uy * 5))
        if off_course(regions, stub, own) <= OFF_COURSE:    # its ring too lies clear of other land
            return stub
    return ()


def arrowhead(segments: Sequence[tuple[float, float, float, float]], target: Sequence[float], size: float = 13.0
              ) -> tuple[tuple[float, float, float, float], ...]:
    """The short strokes of an arrowhead where a route's line (its segments x0, y0, x1, y1) ends at the badge
    of ``target``, pointing into it: the way a one-way border may be crossed. Each stroke is shorter than a
    dash, so it is drawn whole."""
    def gap(x: float, y: float) -> float:
        return math.hypot(x - target[0], y - target[1])
    ends = [(gap(sx1, sy1), (sx0, sy0, sx1, sy1)) for sx0, sy0, sx1, sy1 in segments]
    ends += [(gap(sx0, sy0), (sx1, sy1, sx0, sy0)) for sx0, sy0, sx1, sy1 in segments]
    x0, y0, x1, y1 = min(ends)[1]   # the line toward the end nearest the target
    d = math.hypot(x1 - x0, y1 - y0) or 1.0
    ux, uy = (x1 - x0) / d, (y1 - y0) / d
    strokes = []
    pieces = math.ceil(size / 5)   # a dash is 6 px long: each piece is drawn whole
    for angle in (28, -28, 14, -14):
        # Arms either side of the line, back from the tip; the inner pair fills the head.
        cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        bx, by = -(ux * cos - uy * sin), -(uy * cos + ux * sin)
        arm = size if abs(angle) > 20 else size * 0.85
        points = [(x1 + bx * arm * i / pieces, y1 + by * arm * i / pieces) for i in range(pieces + 1)]
        strokes += [(p[0], p[1], q[0], q[1]) for p, q in pairwise(points)]
    return tuple(strokes)


MIN_BADGE = 24
LEGEND_ROOM = (300, 124)   # the legend's box with a margin, for any language


def _corner_boxes(size: tuple[int, int], room: tuple[int, int] = LEGEND_ROOM) -> dict[str, tuple[int, int, int, int]]:
    w, h = size
    return {"lower left": (0, h - room[1], room[0], h), "lower right": (w - room[0], h - room[1], w, h),
            "upper left": (0, 0, room[0], room[1]), "upper right": (w - room[0], 0, w, room[1])}


def land_in_corners(regions: Image.Image, size: tuple[int, int] = LEGEND_ROOM) -> dict[str, int]:
    """How many land pixels the legend would cover in each corner."""
    return {k: sum(regions.crop(box).histogram()[1:]) for k, box in _corner_boxes(regions.size, size).items()}


BUSY_EDGE = 80        # a pixel of the picture whose edge filter reaches this is detail (a line, a letter; the
                      # softer edges of a satellite picture's sea or of a shaded land are not)
BUSY_TRACE = 0.02     # a share of detail below this is a trace (a coast, a wave): above it, text or a table


SLIDE = 100          # px between the places along the lower and upper edges where the legend may also go


def _legend_places(size: tuple[int, int], room: tuple[int, int] = LEGEND_ROOM) -> dict[str, tuple[int, int, int, int]]:
    """Where the legend may go: the four corners, the middle of the lower and the upper edge, then any place
    along those edges (``"lower at X"``: its left end at X), ``SLIDE`` px apart."""
    w, h = size
    middle = (w - room[0]) // 2
    places = {**_corner_boxes(size, room), "lower middle": (middle, h - room[1], middle + room[0], h),
              "upper middle": (middle, 0, middle + room[0], room[1])}
    for x in range(SLIDE, w - room[0] - SLIDE // 2, SLIDE):
        places[f"lower at {x}"] = (x, h - room[1], x + room[0], h)
        places[f"upper at {x}"] = (x, 0, x + room[0], room[1])
    return places


def busy_in_corners(background: Image.Image, size: tuple[int, int] = LEGEND_ROOM) -> dict[str, float]:
    """How much of each place of the legend (``_legend_places``) the map's picture fills with detail (the
    share of its pixels on an edge: the lines and letters of a title box or of the picture's own legend), 0
    where it is plain."""
    edges = background.convert("L").filter(ImageFilter.FIND_EDGES).point(lambda v: 255 if v >= BUSY_EDGE else 0)
    out: dict[str, float] = {}
    for k, box in _legend_places(background.size, size).items():
        crop = edges.crop(box)
        out[k] = crop.histogram()[255] / max(1, crop.width * crop.height)
    return out


def room_for_legend(regions: Image.Image, background: Image.Image | None = None) -> bool:
    """Whether the legend has a place on the map that hides no land and none of the picture's own text (a
    title, its table of bonuses): else it goes in a strip added below the picture."""
    places = _legend_places(regions.size)
    busy = busy_in_corners(background) if background is not None else dict.fromkeys(places, 0.0)
    return any(busy[k] < BUSY_TRACE and regions.crop(box).getbbox() is None for k, box in places.items())


def legend_corner(regions: Image.Image, background: Image.Image | None = None) -> str:
    """Where the legend hides least: the least land (territories, their badges and names), then the least of
    what the map's picture prints there (a title box, the picture's own legend); a corner before the middle
    of an edge, the lower left when several are alike."""
    places = _legend_places(regions.size)
    land = {k: sum(regions.crop(box).histogram()[1:]) for k, box in places.items()}
    area = LEGEND_ROOM[0] * LEGEND_ROOM[1]
    busy = busy_in_corners(background) if background is not None else dict.fromkeys(land, 0.0)
    # Land counts four times as much as the picture's detail (a name or a badge under the legend is lost), and
    # the picture's own text (a title, its table of bonuses) as much as land once it is more than a trace.
    def cost(k: str) -> tuple[float, int, bool]:
        text = busy[k] if busy[k] < BUSY_TRACE else 4 * busy[k]
        kind = 0 if " at " not in k and not k.endswith("middle") else 1 if k.endswith("middle") else 2
        return round(4 * land[k] / area + text, 2), kind, k != "lower left"
    return min(land, key=cost)


SEAM = 3   # px: a line of "no territory" up to this wide between two lands is closed (one border)


def close_seams(regions: Image.Image, reach: int = SEAM, straits: Sequence[tuple[int, int]] = ()) -> Image.Image:
    """The region image with its seams closed: the lines of "no territory" 1 to 3 px wide that many community
    maps leave between neighbours (and in narrow notches of one region) become land of the region beside them,
    so that two neighbours meet in one drawn border, not two coasts with a pale channel between. A pixel is in
    a seam when land lies on both sides of it, across, down or diagonally, at most ``reach`` px apart; not
    between the two regions of one of ``straits`` (pairs of region values: sea routes, whose water stays)."""
    land = regions.point([0] + [255] * 255)
    w, h = regions.size
    seam = Image.new("L", regions.size, 0)
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        # Land within k px one way (ahead[k - 1]) and within reach + 1 - k px the other: a gap of reach at most.
        ahead: list[Image.Image] = []
        behind: list[Image.Image] = []
        for k in range(1, reach + 1):
            a = ImageChops.offset(land, k * dx, k * dy)
            b = ImageChops.offset(land, -k * dx, -k * dy)
            ahead.append(a if not ahead else ImageChops.lighter(ahead[-1], a))
            behind.append(b if not behind else ImageChops.lighter(behind[-1], b))
        for k in range(1, reach + 1):
            seam = ImageChops.lighter(seam, ImageChops.multiply(ahead[k - 1], behind[reach - k]))
    # Not across the picture's edge (offset wraps round), and only where there is no land yet.
    edge = Image.new("L", regions.size, 0)
    edge.paste(255, (reach, reach, w - reach, h - reach))
    seam = ImageChops.multiply(ImageChops.multiply(seam, edge), ImageChops.invert(land))
    if straits and seam.getbbox() is not None:
        seam = _keep_straits(regions, seam, reach, straits)
    box = seam.getbbox()
    if box is None:
        return regions
    # The largest value within reach (a box's maximum, across then down: a few ms where MaxFilter takes 100):
    # a seam between two regions goes to one of them, which then meets the other in one line.
    across = regions
    for k in range(1, reach + 1):
        across = ImageChops.lighter(across, ImageChops.lighter(ImageChops.offset(regions, k, 0),
                                                               ImageChops.offset(regions, -k, 0)))
    near = across
    for k in range(1, reach + 1):
        near = ImageChops.lighter(near, ImageChops.lighter(ImageChops.offset(across, 0, k),
                                                           ImageChops.offset(across, 0, -k)))
    return Image.composite(near, regions, seam)


def _keep_straits(regions: Image.Image, seam: Image.Image, reach: int, straits: Sequence[tuple[int, int]]
                  ) -> Image.Image:
    """``seam`` without the water of ``straits``: the pixels within ``reach`` of both regions of a pair."""
    w, h = regions.size
    boxes = rough_boxes(regions, max(max(pair) for pair in straits))
    out = seam.copy()
    for one, other in straits:
        if one not in boxes or other not in boxes:
            continue
        area = pair_box(boxes, one, other, reach, (w, h))
        around = regions.crop(area)
        spread = [around.point([255 if v == value else 0 for v in range(256)]).filter(ImageFilter.BoxBlur(reach))
                  .point(lambda v: 255 if v else 0) for value in (one, other)]
        water = ImageChops.multiply(spread[0], spread[1])     # within reach of both: the strait's water
        out.paste(ImageChops.subtract(out.crop(area), water), area[:2])
    return out


def build_geometry(map_id: str, data: Mapping[str, Any], regions: Image.Image,
                   background: Image.Image | None = None) -> Geometry:
    """The geometry of a map from its data (our map format, see docs/maps.md) and its region image (its seams
    closed first: ``close_seams``, up to ``SEAM`` px at the size the map maker drew it: ``seam_scale`` times
    that here, where the map's import enlarged it)."""
    scale = data.get("seam_scale", 1)
    if isinstance(scale, (int, float)) and 1 < scale <= 4:
        # Enlarged by its import: seams up to SEAM + 1 px at the map maker's size (a line of 3 px there is 3
        # or 4 px wide along its length), the water of its sea routes kept.
        order = {t["id"]: i + 1 for i, t in enumerate(data["territories"])}
        regions = close_seams(regions, math.ceil((SEAM + 1) * scale),
                              [(order[r[0]], order[r[1]]) for r in data.get("sea_routes", [])])
    else:
        regions = close_seams(regions)
    width, height = regions.size
    territories: list[dict[str, Any]] = list(data["territories"])
    index = {t["id"]: i for i, t in enumerate(territories)}
    continent_of = {tid: c["id"] for c in data["continents"] for tid in c["territories"]}
    continent_order = [c["id"] for c in data["continents"]]
    lut = [0] * 256
    for tid, i in index.items():
        lut[i + 1] = continent_order.index(continent_of[tid]) + 1
    continent_values = regions.point(lut)

    land = regions.point(lambda v: 255 if v else 0)
    coast, _ = _edges(land)
    all_edges, low = _edges(regions)
    inland = low.point(lambda v: 255 if v else 0)
    borders = ImageChops.multiply(all_edges, inland)
    continent_edges, _ = _edges(continent_values)
    continents = ImageChops.multiply(continent_edges, inland)

    histogram = regions.histogram()
    raw_territories: dict[str, TerritoryData] = {}
    shapes: dict[str, TerritoryShape] = {}
    badge = badge_size([histogram[index[t["id"]] + 1] for t in territories])
    # The name just under its badge, clear of it (``localise_layout`` moves it if it touches anything else).
    below = badge // 2 + 2 + style.BADGE_GAP - label_box("Ág", (0, 0))[1]
    near = rough_boxes(regions, len(territories))
    for t in territories:
        tid, value = t["id"], index[t["id"]] + 1
        area = near[value]
        mask = regions.crop(area).point(lambda v, value=value: 255 if v == value else 0)
        found = mask.getbbox()
        assert found is not None, f"territory {tid} has no pixels"
        bbox = (area[0] + found[0], area[1] + found[1], area[0] + found[2], area[1] + found[3])
        if "anchor" in t:
            anchor = (int(t["anchor"][0]), int(t["anchor"][1]))
        else:
            x, y = interior_point(mask.crop(found))
            anchor = (bbox[0] + x, bbox[1] + y)
        label = (int(t["label"][0]), int(t["label"][1])) if "label" in t else (anchor[0], anchor[1] + below)
        raw_territories[tid] = {"index": index[tid], "anchor": list(anchor), "label": list(label),
                                "bbox": list(bbox), "area": histogram[value], "label_given": "label" in t}
        shapes[tid] = TerritoryShape(tid, value, anchor, label, bbox, histogram[value])

    # Continent names: above each continent's box, where ``localise_layout`` looks for a free place at sea.
    continent_labels: dict[str, tuple[int, int]] = {}
    for c in data["continents"]:
        boxes = [shapes[tid].bbox for tid in c["territories"]]
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1 = max(b[2] for b in boxes)
        given = c.get("label")
        continent_labels[c["id"]] = (int(given[0]), int(given[1])) if given else (
            (x0 + x1) // 2, max(style.CONTINENT_FONT_SIZE, y0 - style.CONTINENT_FONT_SIZE))

    routes = []
    one_way = {(str(a), str(b)) for a, b in data.get("one_way", [])}
    drawn: set[tuple[str, str]] = set()
    paths = {tuple(p["between"]): p["path"] for p in data.get("route_paths", [])}
    picture = PictureRoutes(regions, background) if background is not None and data.get("sea_routes") else None
    for route in data.get("sea_routes", []):
        a, b = route[0], route[1]
        wrap = len(route) > 2 and route[2] == "wrap"
        path = paths.get((a, b)) or list(reversed(paths.get((b, a), [])))
        traced = picture.way(shapes[a].anchor, shapes[b].anchor, (shapes[a].value, shapes[b].value)) \
            if picture is not None and not path and not wrap else None
        segments = sea_route(regions, shapes[a].anchor, shapes[b].anchor, {shapes[a].value, shapes[b].value}, wrap,
                             badge, path, traced)
        if (b, a) in one_way:
            a, b = b, a
        if (a, b) in one_way:
            segments += arrowhead(segments, shapes[b].anchor)
        drawn.add((a, b))
        routes.append((a, b, segments))
    # A one-way border between touching regions is drawn too, so its way shows.
    for a, b in sorted(one_way - drawn):
        segments = route_segments(shapes[a].anchor, shapes[b].anchor, width, False, badge)
        routes.append((a, b, segments + arrowhead(segments, shapes[b].anchor)))

    tints = {cid: parse_colour(c.get("colour")) or TINTS[i % len(TINTS)]
             for i, c in enumerate(data["continents"]) for cid in (c["id"],)}
    raw: GeometryData = {
        "width": width, "height": height, "territories": raw_territories, "legend": legend_corner(regions, background),
        "continent_labels": {k: list(v) for k, v in continent_labels.items()},
        "labels_given": [c["id"] for c in data["continents"] if c.get("label")],
        "sea_routes": [{"between": [a, b], "segments": [list(s) for s in segs]} for a, b, segs in routes]}
    return Geometry(width=width, height=height, label=regions, coast=_soft(coast), borders=_soft(borders),
                    continents=_soft(continents), territories=shapes, sea_routes=tuple(routes),
                    continent_labels=continent_labels, raw=raw, map_id=map_id, tints=tints,
                    background=background, badge_size=badge)
