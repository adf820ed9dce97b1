"""Where badges and labels go, and the boxes they take up.

The positions are computed once by ``tools/build_geometry.py`` (with ``place_labels``) and stored in
``render/data/geometry.json``; at run time ``layout_boxes`` turns them back into boxes with the shipped
font, so a test can check that nothing overlaps. The stored positions suit the English names; when the
static layer of a language is built, ``localise_layout`` fits them to that language's words (a longer name
or continent name moves to a free spot) and adds the legend's box. ``place_mark`` puts a "+N" tag or a
capital star beside a badge where it covers no word.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PIL import Image, ImageFont

from . import style

if TYPE_CHECKING:
    from engine import Board

    from .geometry import GeometryData

Box = tuple[int, int, int, int]
Point = tuple[int, int]


@dataclass(frozen=True)
class LaidOut:
    """One thing drawn on the map: a badge, a territory label or a continent label."""

    kind: str      # "badge" | "label" | "continent"
    owner: str     # territory or continent id
    box: Box


def badge_box(anchor: Sequence[float], badge: int = style.BADGE_SIZE) -> Box:
    r = badge // 2 + 1
    x, y = round(anchor[0]), round(anchor[1])
    return (x - r, y - r, x + r, y + r)


_lines: dict[tuple[int, int], tuple[ImageFont.FreeTypeFont, int, int]] = {}


def text_box(text: str, centre: Sequence[float], font: ImageFont.FreeTypeFont, stroke: int) -> Box:
    """The box of text drawn centred on a point (anchor "mm"), stroke included; the height is that of the
    font's ascent and descent so that every label of one font has the same height."""
    left, _, right, _ = style.text_bbox(font, text, stroke=stroke, anchor="mm")
    key = (id(font), stroke)
    line = _lines.get(key)
    if line is None:
        _, top, _, bottom = style.text_bbox(font, "Ág", stroke=stroke, anchor="mm")
        line = _lines[key] = (font, top, bottom)   # the font kept with its id, so the id stays its own
    _, top, bottom = line
    x, y = round(centre[0]), round(centre[1])
    return (x + left, y + top, x + right, y + bottom)


def label_box(text: str, centre: Sequence[float]) -> Box:
    return text_box(text, centre, style.label_font(), style.LABEL_STROKE)


def continent_text(name: str, bonus: int) -> str:
    return f"{name.upper()} +{bonus}"


def continent_box(text: str, centre: Sequence[float]) -> Box:
    return text_box(text, centre, style.font(style.CONTINENT_FONT_SIZE, bold=True), style.CONTINENT_STROKE)


def legend_font() -> ImageFont.FreeTypeFont:
    return style.font(style.LEGEND_FONT_SIZE, bold=True, condensed=True)


LEGEND_COLUMN_ROWS = 3   # rows in one column of the legend; more rows (continents named there) add columns


def legend_rows(words: Sequence[str], map_height: int, corner: str = "lower left", map_width: int = 0,
                column: int = LEGEND_COLUMN_ROWS) -> tuple[Box, list[tuple[int, int, int]]]:
    """The legend's box in a corner of the map (the lower left, over the South Pacific, on the classic map)
    and, for each row, the centre of its symbol and the left end of its words (at the symbol's height).
    ``column`` rows a column (the legend's own rows, at most ``LEGEND_COLUMN_ROWS``); a longer legend grows
    sideways, along the map's edge, not over the map, and taller only where the map is not wide enough."""
    font = legend_font()
    pad, row, icon = style.LEGEND_PAD, style.LEGEND_ROW, style.LEGEND_ICON
    lengths = [round(font.getlength(w)) for w in words]
    first = max(2, min(column, LEGEND_COLUMN_ROWS))
    per_column = first
    for per_column in range(first, max(first, len(words)) + 1):
        starts = range(0, len(words), per_column)
        widths = [icon + max(lengths[i:i + per_column]) for i in starts]
        width = pad + sum(widths) + pad * (len(widths) - 1) + pad + 2
        if not map_width or width <= map_width - 2 * MARGIN - 4:   # as wide as the map at most: then taller
            break
    columns = [list(words[i:i + per_column]) for i in range(0, len(words), per_column)]
    height = pad + row * min(len(words), per_column) + pad - 4
    x0, y1 = MARGIN + 2, map_height - MARGIN - 2
    if corner.endswith("right"):
        x0 = map_width - MARGIN - 2 - width
    elif corner.endswith("middle"):
        x0 = max(MARGIN + 2, (map_width - width) // 2)
    elif " at " in corner:   # a place along the edge ("lower at 600": its left end there)
        x0 = max(MARGIN + 2, min(int(corner.rsplit(" ", 1)[1]), map_width - MARGIN - 2 - width))
    if corner.startswith("upper"):
        y1 = MARGIN + 2 + height
    y0 = y1 - height
    box = (x0, y0, x0 + width, y1)
    rows: list[tuple[int, int, int]] = []
    left = x0 + pad
    for rows_here, column_width in zip(columns, widths, strict=True):
        for i in range(len(rows_here)):
            rows.append((left + icon // 2, y0 + pad + row * i + row // 2 - 2, left + icon))
        left += column_width + pad
    return box, rows


def overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def layout_boxes(geometry: GeometryData, board: Board) -> list[LaidOut]:
    """Every badge, territory label and continent label box, from the stored geometry and the board's
    names."""
    out: list[LaidOut] = []
    for tid, info in geometry["territories"].items():
        out.append(LaidOut("badge", tid, badge_box(info["anchor"])))
        out.append(LaidOut("label", tid, label_box(board.territories[tid].short, info["label"])))
    for cid, centre in geometry["continent_labels"].items():
        c = board.continents[cid]
        out.append(LaidOut("continent", cid, continent_box(continent_text(c.name, c.bonus), centre)))
    return out


# -- placement (used by the geometry builder) ---------------------------------------------------------
def _inside_fraction(label: Image.Image, box: Box, value: int) -> float:
    w, h = label.size
    clipped = (max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3]))
    total = (box[2] - box[0]) * (box[3] - box[1])
    if clipped[0] >= clipped[2] or clipped[1] >= clipped[3]:
        return 0.0
    return label.crop(clipped).histogram()[value] / total


def _sea_fraction(label: Image.Image, box: Box) -> float:
    return _inside_fraction(label, box, 0)


def _label_spots(anchor: tuple[int, int], text: str, badge: int = style.BADGE_SIZE
                 ) -> list[tuple[float, float, float, int]]:
    """Candidate label centres round a badge: (x, y, how far out, direction in degrees, 90 = below)."""
    ax, ay = anchor
    r = badge // 2 + 1 + style.BADGE_GAP
    probe = label_box(text, (0, 0))
    half_w, half_h = (probe[2] - probe[0]) / 2, (probe[3] - probe[1]) / 2
    spots: list[tuple[float, float, float, int]] = []
    for extra in (0, 5, 10, 16, 24, 34):
        for angle in (90, 270, 60, 120, 240, 300, 0, 180, 30, 150, 210, 330):
            a = math.radians(angle)
            dx, dy = math.cos(a), math.sin(a)
            tx = (r + half_w) / abs(dx) if abs(dx) > 1e-6 else math.inf
            ty = (r + half_h) / abs(dy) if abs(dy) > 1e-6 else math.inf
            d = min(tx, ty) + extra
            spots.append((ax + dx * d, ay + dy * d, extra + (0 if angle in (90, 270) else 3), angle))
    return spots


def place_labels(label: Image.Image, dist: list[float], anchors: dict[str, tuple[int, int]],
                 names: dict[str, str], index: dict[str, int], obstacles: list[Box],
                 hints: dict[str, tuple[tuple[float, float] | None, tuple[int, ...]]] | None = None,
                 ) -> dict[str, dict[str, tuple[int, int]]]:
    """Choose each territory's badge anchor and label centre.

    The badge goes on one of the territory's most inland points (distance transform near its maximum) and the
    label beside it, preferably inside the territory, else over the sea next to it, never over a badge,
    another label or the map edge. Territories with the least room are placed first; the spots where later
    territories would put their badges are avoided as long as possible. ``hints`` may give a territory a
    preferred badge position (pixels) and preferred label directions, for crowded places like Europe.
    """
    hints = hints or {}
    w, h = label.size
    margin = 4
    pixels = label.tobytes()
    placed_boxes: list[Box] = list(obstacles)
    result: dict[str, dict[str, tuple[int, int]]] = {}
    deepest = {tid: dist[a[1] * w + a[0]] for tid, a in anchors.items()}
    counts = label.histogram()
    area = {tid: counts[index[tid] + 1] for tid in anchors}
    order = sorted(anchors, key=lambda t: deepest[t])
    for n, tid in enumerate(order):
        value = index[tid] + 1
        later_badges = [badge_box(anchors[t]) for t in order[n + 1:]]
        # Candidate anchors: a grid over the territory, the deepest first.
        bbox = label.point(lambda v, value=value: 255 if v == value else 0).getbbox()
        assert bbox is not None, f"{tid} has no pixels in the label image"
        x0, y0, x1, y1 = bbox
        cands = [(dist[y * w + x], x, y) for y in range(y0, y1, 3) for x in range(x0, x1, 3)
                 if pixels[y * w + x] == value]
        cands.append((deepest[tid], *anchors[tid]))
        cands = [c for c in cands if c[0] >= min(deepest[tid], max(6.0, deepest[tid] * 0.55))]
        near, directions = hints.get(tid, (None, ()))
        if near is not None:
            cands = [c for c in cands if c[0] >= min(deepest[tid], 9.0)]
            cands.sort(key=lambda c: math.hypot(c[1] - near[0], c[2] - near[1]))
        else:
            cands.sort(reverse=True)
        best: tuple[float, tuple[int, int], Box] | None = None
        for depth, ax, ay in cands[:40]:
            bbox = badge_box((ax, ay))
            if any(overlaps(bbox, b) for b in placed_boxes):
                continue
            badge_penalty = sum(4.0 for b in later_badges if overlaps(bbox, b))
            for x, y, away, angle in _label_spots((ax, ay), names[tid]):
                box = label_box(names[tid], (x, y))
                if box[0] < margin or box[1] < margin or box[2] > w - margin or box[3] > h - margin:
                    continue
                if overlaps(box, bbox) or any(overlaps(box, b) for b in placed_boxes):
                    continue
                own = _inside_fraction(label, box, value)
                sea = _sea_fraction(label, box)
                # A name must not hide a small territory's colour: penalise covering much of its area.
                covered = own * (box[2] - box[0]) * (box[3] - box[1]) / area[tid]
                # A name nearer another badge than its own reads as that territory's name.
                cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
                d_own = math.hypot(cx - ax, cy - ay)
                confusing = sum(1 for t, a in anchors.items() if t != tid and t not in result
                                and math.hypot(cx - a[0], cy - a[1]) < d_own * 0.9)
                confusing += sum(1 for t, r in result.items()
                                 if math.hypot(cx - r["anchor"][0], cy - r["anchor"][1]) < d_own * 0.9)
                score = (10 * own + 4 * sea - 12 * covered - 2.5 * confusing - 0.08 * away
                         + (3 if angle in directions else 0) + 0.12 * min(depth, 30.0) - badge_penalty
                         - sum(3.0 for b in later_badges if overlaps(box, b)))
                if near is not None:
                    score -= 0.15 * math.hypot(ax - near[0], ay - near[1])
                if best is None or score > best[0]:
                    best = (score, (ax, ay), box)
        if best is None:
            raise RuntimeError(f"no room for the badge and label of {tid}")
        _, anchor, box = best
        placed_boxes += [badge_box(anchor), box]
        centre = (round((box[0] + box[2]) / 2), round((box[1] + box[3]) / 2))
        # Find the centre that gives back exactly this box with label_box.
        for _ in range(4):   # a shift or two in whole pixels; at most a few, whatever the font rounds
            b2 = label_box(names[tid], centre)
            if b2 == box:
                break
            centre = (centre[0] + box[0] - b2[0], centre[1] + box[1] - b2[1])
        result[tid] = {"anchor": anchor, "label": centre}
    return result


# Continent names sit in the sea beside their continent (longitude, latitude of the text's centre).
CONTINENT_LABEL_AT = {
    "north_america": (-140.0, 33.0),
    "south_america": (-102.0, -32.0),
    "europe": (-27.0, 44.0),
    "africa": (-8.0, -24.0),
    "asia": (80.0, -8.0),
    "australia": (100.0, -40.0),
}


def place_continent_labels(texts: dict[str, str], project: Callable[[float, float], tuple[float, float]]
                           ) -> tuple[dict[str, list[int]], list[Box]]:
    """Continent label centres (from CONTINENT_LABEL_AT) and their boxes."""
    out: dict[str, list[int]] = {}
    boxes: list[Box] = []
    for cid, (lon, lat) in CONTINENT_LABEL_AT.items():
        x, y = project(lon, lat)
        out[cid] = [round(x), round(y)]
        boxes.append(continent_box(texts[cid], out[cid]))
    return out, boxes


# -- one language's layout (used when the static layer of a language is built) -----------------------
MARGIN = 4            # kept between any word and the map's edge
PLATE_PAD = 4         # a continent name on a plate: the plate's margin round the words
REACH = 8             # a name's box touches its territory's box grown by this much: it sits by its territory
CELL = 64             # the side of a cell of the boxes' spatial index
WORD_SPACE = 2        # kept beside a moved name, so that two names in a row do not read as one


class _Taken:
    """Boxes already placed, filed by the ``CELL``-pixel squares they touch, so that a test looks only at the
    boxes near it (a dense map has hundreds of boxes, and each name tries a hundred spots)."""

    def __init__(self, boxes: Sequence[Box] = ()) -> None:
        self.cells: dict[tuple[int, int], list[Box]] = {}
        for b in boxes:
            self.add(b)

    @staticmethod
    def _keys(box: Box) -> list[tuple[int, int]]:
        return [(cx, cy) for cx in range(box[0] // CELL, (box[2] - 1) // CELL + 1)
                for cy in range(box[1] // CELL, (box[3] - 1) // CELL + 1)]

    def add(self, box: Box) -> None:
        for key in self._keys(box):
            self.cells.setdefault(key, []).append(box)

    def hits(self, box: Box) -> bool:
        x0, y0, x1, y1 = box
        cells = self.cells
        for cx in range(x0 // CELL, (x1 - 1) // CELL + 1):
            for cy in range(y0 // CELL, (y1 - 1) // CELL + 1):
                for b in cells.get((cx, cy), ()):
                    if x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1:
                        return True
        return False

    def count(self, box: Box) -> int:
        return len({b for key in self._keys(box) for b in self.cells.get(key, ()) if overlaps(box, b)})


class _Anchors:
    """The badges' centres filed by ``CELL``-pixel squares: how many lie nearer a point than a distance."""

    def __init__(self, anchors: Mapping[str, Point]) -> None:
        self.cells: dict[tuple[int, int], list[tuple[str, Point]]] = {}
        for tid, a in anchors.items():
            self.cells.setdefault((a[0] // CELL, a[1] // CELL), []).append((tid, a))

    def nearer(self, x: float, y: float, d: float, other_than: str) -> int:
        reach = math.ceil(d / CELL)
        cx, cy = int(x) // CELL, int(y) // CELL
        return sum(1 for kx in range(cx - reach, cx + reach + 1) for ky in range(cy - reach, cy + reach + 1)
                   for tid, a in self.cells.get((kx, ky), ())
                   if tid != other_than and math.hypot(x - a[0], y - a[1]) < d)


@dataclass(frozen=True)
class MapLayout:
    """Where one language's words go on the map.

    ``labels``: each named territory's label centre, ``texts``: the words drawn there (the short name, or an
    abbreviation of it where the whole name finds no room; a territory with neither has no name on the map).
    ``continents``: continent label centres on the map, ``continent_texts`` the words there (a name on a plate
    may be shortened), those in ``plates`` on a dark plate (no open sea near them); ``in_legend``: continents
    named in the legend instead. ``keys``: territories whose name found no room, each with the number drawn in
    its place (in ``texts`` too), which the legend names. ``boxes``: every box (badges, names, continent names
    or plates, the legend) for collision checks. ``tries``: how many spots were tested, which ``max_tries``
    bounds."""

    labels: dict[str, Point]
    continents: dict[str, Point]
    legend: Box
    boxes: tuple[LaidOut, ...]
    texts: dict[str, str] = field(default_factory=dict)
    plates: frozenset[str] = frozenset()
    in_legend: tuple[str, ...] = ()
    tries: int = 0
    continent_texts: dict[str, str] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)

    def of_kind(self, kind: str) -> list[LaidOut]:
        return [b for b in self.boxes if b.kind == kind]


def _inside_map(box: Box, width: int, height: int) -> bool:
    return box[0] >= MARGIN and box[1] >= MARGIN and box[2] <= width - MARGIN and box[3] <= height - MARGIN


def _angle_gap(a: float, b: float) -> float:
    d = abs(a - b) % 360
    return min(d, 360 - d)


def _moved(box: Box, centre: Point) -> Box:
    return box[0] + centre[0], box[1] + centre[1], box[2] + centre[0], box[3] + centre[1]


def _grown(box: Box, by: int) -> Box:
    return box[0] - by, box[1] - by, box[2] + by, box[3] + by


def _gap(a: Box, b: Box) -> float:
    """How far apart two boxes are (0 when they touch or overlap)."""
    dx = max(0, a[0] - b[2], b[0] - a[2])
    dy = max(0, a[1] - b[3], b[1] - a[3])
    return math.hypot(dx, dy)


def abbreviations(text: str) -> list[str]:
    """A name, then shorter forms of it, each narrower than the one before: the words but the last cut to
    their initial ("North Yorkshire": "N. Yorkshire"), then the name's first 7, 5 and 3 letters with a
    full stop ("Schleswig-Holstein": "Schlesw.", "Schle.", "Sch.")."""
    out = [text]
    words = re.split(r"([ \-/]+)", text.strip())
    if len(words) >= 3:
        initials = "".join(w if i % 2 or i == len(words) - 1 else w[:1] + "." for i, w in enumerate(words))
        out.append(initials)
    for n in (7, 5, 3):
        cut = text[:n].rstrip(" -/.")
        if cut and len(cut) < len(text.rstrip(".")):
            out.append(cut + ".")
    shorter: list[str] = []
    font = style.label_font()
    for word in out:
        if not shorter or font.getlength(word) < font.getlength(shorter[-1]):
            shorter.append(word)
    return shorter


def _continent_spots(preferred: Point, around: Box | None) -> tuple[list[Point], list[Point]]:
    """Candidate centres for a continent name: a ring round ``preferred``, nearest first, and a grid of at
    most about 700 points over the continent's box (``around``), nearest ``preferred`` first."""
    offsets = sorted(((dx, dy) for dy in range(-90, 91, 6) for dx in range(-160, 161, 8)),
                     key=lambda o: (math.hypot(o[0], 2 * o[1]), o[1], o[0]))
    ring = [(preferred[0] + dx, preferred[1] + dy) for dx, dy in offsets]
    grid: list[Point] = []
    if around is not None:
        x0, y0, x1, y1 = around
        step = max(6, math.ceil(math.sqrt(max(1, (x1 - x0) * (y1 - y0)) / 600)))
        grid = [(x, y) for y in range(y0, y1 + 1, step) for x in range(x0, x1 + 1, step)]
        grid.sort(key=lambda p: math.hypot(p[0] - preferred[0], p[1] - preferred[1]))
    return ring, grid[:700]


SEA_BLOCK = 8          # the side of the blocks of ``open_sea``


def open_sea(label: Image.Image) -> Image.Image:
    """Where the sea is open: 255 for each ``SEA_BLOCK``-pixel block of the map that is all sea. A box with
    no land in it holds no block that is not 255, so one look at this small image rules most spots out."""
    sea = label.point([255] + [0] * 255)
    return sea.reduce(SEA_BLOCK).point(lambda v: 255 if v == 255 else 0)


def _has_land_block(coarse: Image.Image, box: Box) -> bool:
    """Whether a block wholly inside ``box`` holds land (so the box does)."""
    b = SEA_BLOCK
    inner = (-(-box[0] // b), -(-box[1] // b), box[2] // b, box[3] // b)
    if inner[0] >= inner[2] or inner[1] >= inner[3]:
        return False
    return bool(coarse.crop(inner).getextrema()[0] == 0)


TOUCH = (4, 8, 12, 16, 20, 24)   # how far from a continent name at sea the land nearest it is looked for


def _by_own_coast(label: Image.Image, box: Box, members: Image.Image, around: Box) -> bool:
    """Whether a continent name at sea in ``box`` touches its own continent: the nearest land round it (within
    ``TOUCH``) is mostly the continent's own (``members``, its mask over its box ``around``), not a neighbour's
    across the water ("AFRICA +3" beside Great Britain)."""
    for d in TOUCH:
        near = _grown(box, d)
        land = sum(label.crop(near).histogram()[1:])
        if land:
            own = members.crop((near[0] - around[0], near[1] - around[1], near[2] - around[0],
                                near[3] - around[1])).histogram()[255]
            return 2 * own >= land
    return False


def _place_continent(label: Image.Image, text: str, preferred: Point, blocked: _Taken, names: _Taken,
                     members: Image.Image | None, around: Box | None, coarse: Image.Image | None = None,
                     given: bool = False) -> tuple[Point, str, bool, int] | None:
    """A continent name's centre, its words, whether it sits on a plate and how many spots were tried; None
    when it finds no room (the legend then names it).

    At sea first: where it was meant to go if open sea is there (no land under the words or within a few
    pixels of them, clear of badges, the legend, other continent names and territory names), else the
    nearby spot of open sea by the continent that covers the fewest names. Where no open sea is near, the
    name goes on a plate over the continent's own land, clear of every badge, covering the fewest names; a
    name too long for any room there is shortened (``abbreviations``), its bonus kept.
    ``members`` is a mask of the continent's land (255) over its box ``around``; ``coarse`` is ``open_sea``.
    ``given``: the map file places this name; where it finds room at sea there it stays, near its coast or not
    (the map's author has the last word)."""
    w, h = label.size
    at0 = continent_box(text, (0, 0))
    tries = 0

    def at_sea(centre: Point) -> float | None:
        box = _moved(at0, centre)
        if not _inside_map(box, w, h) or blocked.hits(box):
            return None
        mine = given and centre == preferred
        if around is not None and _gap(box, around) > TOUCH[-1] and not mine:
            return None
        near = _grown(box, 4)
        if coarse is not None and _has_land_block(coarse, near):
            return None
        if sum(label.crop(near).histogram()[1:]):   # land under the words or at their edge
            return None
        if mine:
            return 0.0
        if members is not None and around is not None and not _by_own_coast(label, box, members, around):
            return None
        return 6 * names.count(box) + 0.02 * math.hypot(centre[0] - preferred[0], 2 * (centre[1] - preferred[1]))

    ring, grid = _continent_spots(preferred, around)
    best: tuple[float, Point] | None = None
    reach = (preferred[0] - 170 + at0[0], preferred[1] - 100 + at0[1], preferred[0] + 170 + at0[2],
             preferred[1] + 100 + at0[3])
    b = SEA_BLOCK
    if coarse is not None and coarse.crop((reach[0] // b, reach[1] // b, reach[2] // b + 1,
                                           reach[3] // b + 1)).getextrema()[1] == 0:
        ring_at_sea: list[Point] = []   # no block of open sea anywhere near: no spot of the ring can be at sea
    else:
        ring_at_sea = ring
    for centre in ring_at_sea:
        tries += 1
        if best is not None and 0.02 * math.hypot(centre[0] - preferred[0], 2 * (centre[1] - preferred[1])) >= best[0]:
            break   # nearest first: once the distance alone costs more than the best, nothing further wins
        c = at_sea(centre)
        if c is not None and (best is None or c < best[0]):
            best = (c, centre)
            if c < 1.0:
                break
    if best is not None:
        return best[1], text, False, tries

    # On a plate: the whole name if it finds room, else a shorter form of it ("KAKATOR. +3").
    cut = text.rfind(" +")
    name, bonus = (text[:cut], text[cut:]) if cut > 0 else (text, "")
    for short in abbreviations(name):
        words = short + bonus
        plate0 = _grown(continent_box(words, (0, 0)), PLATE_PAD)
        plate_best: tuple[float, Point] | None = None
        for centre in [*grid, *ring[::3]]:
            tries += 1
            box = _moved(plate0, centre)
            if not _inside_map(box, w, h) or blocked.hits(box):
                continue
            if around is not None and _gap(box, around) > 0:
                continue
            area = (box[2] - box[0]) * (box[3] - box[1])
            own = 1.0
            if members is not None and around is not None:
                own = members.crop((box[0] - around[0], box[1] - around[1], box[2] - around[0],
                                    box[3] - around[1])).histogram()[255] / area
                if own == 0:    # over none of its own land it would read as a neighbour's name
                    continue
            # A name under the plate would have to move, perhaps into the legend as a number: the plate
            # takes the largest empty part of its continent rather than a territory's name.
            cost = 20 * (1 - own) + 30 * names.count(box) + 0.01 * math.hypot(centre[0] - preferred[0],
                                                                               centre[1] - preferred[1])
            if plate_best is None or cost < plate_best[0]:
                plate_best = (cost, centre)
        if plate_best is not None:
            return plate_best[1], words, True, tries
    return None


def _label_candidates(anchor: Point, text: str, own_box: Box, badge: int) -> list[tuple[float, float, float, int]]:
    """Where a territory's name may go: round its badge (``_label_spots``), then inside its box on a grid
    of at most 48 points, nearest the badge first (a sliver or a long territory can hold its name away from
    the badge): (x, y, how far out, direction in degrees)."""
    spots = _label_spots(anchor, text, badge)
    x0, y0, x1, y1 = own_box
    step = max(8, math.ceil(math.sqrt(max(1, (x1 - x0) * (y1 - y0)) / 48)))
    inside = [(float(x), float(y)) for y in range(y0 + step // 2, y1, step) for x in range(x0 + step // 2, x1, step)]
    inside.sort(key=lambda p: math.hypot(p[0] - anchor[0], p[1] - anchor[1]))
    for x, y in inside[:48]:
        away = math.hypot(x - anchor[0], y - anchor[1]) / 4
        angle = round(math.degrees(math.atan2(y - anchor[1], x - anchor[0]))) % 360
        spots.append((x, y, away, angle))
    return spots


def _place_label(label: Image.Image, tid: str, value: int, area: int, anchor: Point, text: str,
                 blocked: _Taken, anchors: _Anchors, towards: float | None, own_box: Box,
                 badge: int = style.BADGE_SIZE, land_box: Box | None = None) -> tuple[tuple[float, Point] | None, int]:
    """The best free centre for a territory's name, its score and the spots tried: round its badge or inside
    its territory, clear of everything in ``blocked``, touching its territory's box, preferably inside the
    territory, else over the sea, not nearer another badge than its own, near the side ``towards`` (degrees)
    it had. A name off the land's box (``land_box``: in a strip of sea the loader added under the map, or in the
    margin round it) reads as detached from the map: it goes there only where nothing better is."""
    w, h = label.size
    best: tuple[float, Point] | None = None
    at0 = label_box(text, (0, 0))
    near = _grown(own_box, REACH)
    tries = 0
    for x, y, away, angle in _label_candidates(anchor, text, own_box, badge):
        tries += 1
        centre = (round(x), round(y))
        box = _moved(at0, centre)
        if not _inside_map(box, w, h) or not overlaps(box, near) or \
                blocked.hits((box[0] - WORD_SPACE, box[1], box[2] + WORD_SPACE, box[3])):
            continue
        counts = label.crop(box).histogram()
        total = (box[2] - box[0]) * (box[3] - box[1])
        own, sea = counts[value] / total, counts[0] / total
        covered = own * total / max(1, area)
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        d_own = math.hypot(cx - anchor[0], cy - anchor[1])
        confusing = anchors.nearer(cx, cy, d_own * 0.9, tid)
        # A name moved from where it was placed by hand keeps the hand layout's rule: it must not hide a small
        # territory's colour. A custom map's name may cover more of its own territory (it has no other room).
        score = (10 * own + 4 * sea - (12 if towards is not None else 3) * covered - 2.5 * confusing - 0.08 * away
                 - (0.02 * _angle_gap(angle, towards) if towards is not None else 0.0))
        if land_box is not None:
            score -= 8 * (1 - _area(box, land_box) / total)
        if best is None or score > best[0]:
            best = (score, centre)
    return best, tries


SHORTER_COST = 3.0    # an abbreviated name must read that much better than the whole one where it went
# The legend's box when it also names these continents and these territories (a key on the map, the name).
LegendNaming = Callable[[Sequence[str], Sequence[tuple[str, str]]], Box]


def max_tries(territories: int, continents: int) -> int:
    """An upper bound of the spots ``localise_layout`` tests, by construction: each continent name tries at most
    the ring round its spot and its continent's grid, each territory's name each of its forms round its
    badge and inside its territory."""
    ring = len(range(-90, 91, 6)) * len(range(-160, 161, 8))
    per_continent = ring + 5 * (700 + ring // 3 + 1)
    per_name = 5 * (6 * 12 + 48)
    return (continents + 1) * continents * per_continent + territories * per_name   # a round per legend row


def localise_layout(label: Image.Image, geometry: GeometryData, names: dict[str, str],
                    continent_texts: dict[str, str], legend: Box, badge: int = style.BADGE_SIZE, *,
                    members: Mapping[str, Sequence[str]] | None = None,
                    legend_naming: LegendNaming | None = None) -> MapLayout:
    """The stored layout (``geometry.json`` made for the English names, or a custom map's first guess) fitted
    to one language's words, with nothing overlapping.

    Badges stay where they are. Each continent name keeps its place unless, in this language, it runs off
    the map, over land, a badge, the legend or a territory name; then it moves to the nearest spot of open sea
    by its continent, else onto a plate over its continent's land (``members``: each continent's territories),
    else into the legend (``legend_naming`` gives the legend's box naming those continents; without it the
    name takes a plate's best spot however crowded). A territory name placed by hand (the classic map's, or
    one a map file gives) keeps its centre unless its text now touches a badge, a continent name, the legend,
    another name or the map's edge; the others, and the names that must move, take the best free spot round
    their badge or inside their territory, the smallest territory first; where the whole name has no room an
    abbreviation of it goes (``abbreviations``), and where none has, the territory has no name on the map.
    Every loop is bounded: ``tries`` counts the spots tested, at most ``max_tries``. The result is computed
    once per language (see ``render.base``).
    """
    w, h = label.size
    terr = geometry["territories"]
    anchors: dict[str, Point] = {tid: (int(info["anchor"][0]), int(info["anchor"][1])) for tid, info in terr.items()}
    stored: dict[str, Point] = {tid: (int(info["label"][0]), int(info["label"][1])) for tid, info in terr.items()}
    badges = {tid: badge_box(a, badge) for tid, a in anchors.items()}
    counts = label.histogram()
    tries = 0

    # Continent names first: they are the largest, and a territory name can move more easily.
    given = [tid for tid in terr if terr[tid].get("label_given", True)]
    # Where each name would go (placed by hand, or just under its badge): a continent name keeps clear of them.
    name_boxes = _Taken([label_box(names[tid], stored[tid]) for tid in terr])
    continents: dict[str, Point] = {}
    continent_boxes: dict[str, Box] = {}
    continent_words: dict[str, str] = {}
    plates: set[str] = set()
    in_legend: list[str] = []
    coarse = open_sea(label)
    for _ in range(len(geometry["continent_labels"]) + 1):   # the legend grows at most once a continent
        blocked = _Taken([*badges.values(), legend, *continent_boxes.values()])
        for cid, centre in geometry["continent_labels"].items():
            if cid in continents or cid in in_legend:
                continue
            mask, around = None, None
            owned = [t for t in (members or {}).get(cid, ()) if t in terr]
            if owned:
                values = {terr[t]["index"] + 1 for t in owned}
                boxes_of = [terr[t]["bbox"] for t in owned]
                around = (min(b[0] for b in boxes_of), min(b[1] for b in boxes_of), max(b[2] for b in boxes_of),
                          max(b[3] for b in boxes_of))
                mask = label.crop(around).point([255 if v in values else 0 for v in range(256)])
            found = _place_continent(label, continent_texts[cid], (int(centre[0]), int(centre[1])), blocked,
                                     name_boxes, mask, around, coarse, cid in geometry.get("labels_given", ()))
            if found is None and legend_naming is None:
                found = ((int(centre[0]), int(centre[1])), continent_texts[cid], True, 0)
            if found is None:
                in_legend.append(cid)
                continue
            at, words, plate, n = found
            tries += n
            continents[cid], continent_words[cid] = at, words
            box = _grown(continent_box(words, at), PLATE_PAD) if plate else continent_box(words, at)
            if plate:
                plates.add(cid)
            continent_boxes[cid] = box
            blocked.add(box)
        if not in_legend or legend_naming is None:
            break
        grown = legend_naming(in_legend, ())
        if grown == legend:
            break
        legend = grown
        # A larger legend may now cover a continent name: that one moves too.
        for cid in [c for c, b in continent_boxes.items() if overlaps(b, legend)]:
            del continents[cid], continent_boxes[cid]
            plates.discard(cid)

    # Territory names: keep those placed by hand that fit, then place the others one by one, the smallest
    # territory first.
    fixed = _Taken([*badges.values(), *continent_boxes.values(), legend])
    centres: dict[str, Point] = {}
    texts: dict[str, str] = {}
    moving: list[str] = []
    for tid in sorted(terr, key=lambda t: counts[terr[t]["index"] + 1]):
        box = label_box(names[tid], stored[tid])
        if tid in given and _inside_map(box, w, h) and not fixed.hits(box):
            centres[tid], texts[tid] = stored[tid], names[tid]
            fixed.add(box)
        else:
            moving.append(tid)
    near = _Anchors(anchors)
    land_box = (min(i["bbox"][0] for i in terr.values()), min(i["bbox"][1] for i in terr.values()),
                max(i["bbox"][2] for i in terr.values()), max(i["bbox"][3] for i in terr.values()))
    for tid in moving:
        value = terr[tid]["index"] + 1
        ax, ay = anchors[tid]
        towards = math.degrees(math.atan2(stored[tid][1] - ay, stored[tid][0] - ax)) % 360 if tid in given else None
        bbox = terr[tid]["bbox"]
        own_box = (int(bbox[0]), int(bbox[1]), int(bbox[2]), int(bbox[3]))
        choice: tuple[float, Point, str] | None = None
        for k, text in enumerate(abbreviations(names[tid])):
            spot, n = _place_label(label, tid, value, counts[value], anchors[tid], text, fixed, near, towards,
                                   own_box, badge, land_box)
            tries += n
            if spot is None:
                continue
            score, at = spot
            score -= SHORTER_COST * k
            if choice is None or score > choice[0]:
                choice = (score, at, text)
            if score > 2.0:   # the name reads well here: a shorter form cannot do much better
                break
        if choice is None:
            continue
        _, at, text = choice
        centres[tid], texts[tid] = at, text
        fixed.add(label_box(text, at))

    # A territory whose name finds no room in any form gets a number on the map, and the legend gives the
    # number's name, if the legend can grow for it without covering anything; else it has no name on the map.
    keys: dict[str, str] = {}
    unnamed = [tid for tid in moving if tid not in texts]
    if unnamed and legend_naming is not None:
        taken = [*badges.values(), *continent_boxes.values(), *(label_box(texts[t], centres[t]) for t in texts)]
        room = legend
        for many in range(len(unnamed), 0, -1):   # as many as the legend has room for, the smallest first
            grown = legend_naming(in_legend, [(f"#{n + 1}", names[tid]) for n, tid in enumerate(unnamed[:many])])
            if _inside_map(grown, w, h) and not any(overlaps(grown, b) for b in taken):
                room = grown
                unnamed = unnamed[:many]
                break
        if room != legend:
            fixed.add(room)
            for tid in unnamed:
                key = f"#{len(keys) + 1}"
                value = terr[tid]["index"] + 1
                bbox = terr[tid]["bbox"]
                spot, n = _place_label(label, tid, value, counts[value], anchors[tid], key, fixed, near, None,
                                       (int(bbox[0]), int(bbox[1]), int(bbox[2]), int(bbox[3])), badge, land_box)
                tries += n
                if spot is not None:
                    keys[tid] = key
                    centres[tid], texts[tid] = spot[1], key
                    fixed.add(label_box(key, spot[1]))
            final = legend_naming(in_legend, [(keys[t], names[t]) for t in keys])
            if overlaps(final, room) and all(a <= b for a, b in zip(room[:2], final[:2], strict=True)) and \
                    final[2] <= room[2] and final[3] <= room[3]:
                legend = final      # as large at most as the room it was given: it covers nothing
            else:                   # (never smaller rows making a wider box, but if so: no keys)
                for tid in keys:
                    del centres[tid], texts[tid]
                keys = {}

    boxes: list[LaidOut] = []
    for tid in terr:
        boxes.append(LaidOut("badge", tid, badges[tid]))
        if tid in texts:
            boxes.append(LaidOut("label", tid, label_box(texts[tid], centres[tid])))
    for cid in continents:
        boxes.append(LaidOut("continent", cid, continent_boxes[cid]))
    boxes.append(LaidOut("legend", "legend", legend))
    return MapLayout(labels=centres, continents=continents, legend=legend, boxes=tuple(boxes), texts=texts,
                     plates=frozenset(plates), in_legend=tuple(in_legend), tries=tries,
                     continent_texts=continent_words, keys=keys)


# -- small marks beside a badge ("+N" tags, the capital star) -------------------------------------------
# How much covering a thing costs, by kind: names and the legend must stay readable; a badge may lose a
# corner; another mark should not be hidden either.
MARK_WEIGHTS = {"label": 8.0, "continent": 8.0, "legend": 8.0, "mark": 4.0, "badge": 2.0}


def mark_spots(anchor: Sequence[int], size: tuple[int, int], first: str, badge: int = style.BADGE_SIZE
               ) -> list[Box]:
    """Candidate boxes for a small mark of ``size`` at a badge: its corners (overlapping the badge a
    little), its sides, above and below it, then the same a little further out. ``first`` is the corner
    tried first: "upper right" ("+N" tags) or "upper left" (the capital star)."""
    x, y = int(anchor[0]), int(anchor[1])
    half = (badge + 2) // 2
    w, h = size
    ur, ul = (x + half - 8, y - half - 12), (x - half + 8 - w, y - half - 12)
    lr, ll = (x + half - 8, y + half - 10), (x - half + 8 - w, y + half - 10)
    right, left = (x + half + 2, y - h // 2), (x - half - 2 - w, y - h // 2)
    above, below = (x - w // 2, y - half - h - 1), (x - w // 2, y + half + 1)
    near = [ur, ul, lr, ll, right, left, above, below] if first == "upper right" else \
        [ul, ur, ll, lr, left, right, above, below]
    out: list[Box] = []
    for step in (0, 8, 16):
        for sx, sy in near:
            dx = step if sx + w / 2 > x else -step if sx + w / 2 < x else 0
            dy = step if sy + h / 2 > y else -step if sy + h / 2 < y else 0
            out.append((sx + dx, sy + dy, sx + dx + w, sy + dy + h))
    return out


def _area(a: Box, b: Box) -> int:
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


def place_mark(anchor: Sequence[int], size: tuple[int, int], taken: Sequence[tuple[Box, float]],
               width: int, height: int, first: str = "upper right", badge: int = style.BADGE_SIZE) -> Box:
    """Where a mark goes: the first candidate (``mark_spots``) inside the map that covers nothing in
    ``taken`` (boxes with a weight, see ``MARK_WEIGHTS``) except the badge it belongs to; if every candidate
    covers something, the one that covers least."""
    own = badge_box(anchor, badge)
    w, h = size
    best: tuple[float, Box] | None = None
    for n, spot in enumerate(mark_spots(anchor, size, first, badge)):
        sx, sy = min(max(0, spot[0]), width - w), min(max(0, spot[1]), height - h)
        box = (sx, sy, sx + w, sy + h)
        cost = sum(weight * _area(box, b) for b, weight in taken if b != own)
        if cost == 0:
            return box
        cost += n   # at equal cover, the nearer spot
        if best is None or cost < best[0]:
            best = (cost, box)
    assert best is not None
    return best[1]
