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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
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


def text_box(text: str, centre: Sequence[float], font: ImageFont.FreeTypeFont, stroke: int) -> Box:
    """The box of text drawn centred on a point (anchor "mm"), stroke included; the height is that of the
    font's ascent and descent so that every label of one font has the same height."""
    left, _, right, _ = style.text_bbox(font, text, stroke=stroke, anchor="mm")
    _, top, _, bottom = style.text_bbox(font, "Ág", stroke=stroke, anchor="mm")
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


def legend_rows(words: Sequence[str], map_height: int, corner: str = "lower left", map_width: int = 0
                ) -> tuple[Box, list[tuple[int, int]]]:
    """The legend's box in a corner of the map (the lower left, over the South Pacific, on the classic map)
    and, for each row, the centre of its symbol and the left end (vertical middle) of its words."""
    font = legend_font()
    pad, row, icon = style.LEGEND_PAD, style.LEGEND_ROW, style.LEGEND_ICON
    text_w = max(round(font.getlength(w)) for w in words)
    width = pad + icon + text_w + pad + 2
    height = pad + row * len(words) + pad - 4
    x0, y1 = MARGIN + 2, map_height - MARGIN - 2
    if corner.endswith("right"):
        x0 = map_width - MARGIN - 2 - width
    if corner.startswith("upper"):
        y1 = MARGIN + 2 + height
    y0 = y1 - height
    box = (x0, y0, x0 + width, y1)
    rows = [(y0 + pad + row * i + row // 2 - 2) for i in range(len(words))]
    return box, [(x0 + pad + icon // 2, y) for y in rows]


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


@dataclass(frozen=True)
class MapLayout:
    """Where one language's words go on the map: territory label centres, continent label centres, the
    legend's box, and every box (badges, labels, continent labels, legend) for collision checks."""

    labels: dict[str, Point]
    continents: dict[str, Point]
    legend: Box
    boxes: tuple[LaidOut, ...]

    def of_kind(self, kind: str) -> list[LaidOut]:
        return [b for b in self.boxes if b.kind == kind]


def _inside_map(box: Box, width: int, height: int) -> bool:
    return box[0] >= MARGIN and box[1] >= MARGIN and box[2] <= width - MARGIN and box[3] <= height - MARGIN


def _angle_gap(a: float, b: float) -> float:
    d = abs(a - b) % 360
    return min(d, 360 - d)


def _place_continent(label: Image.Image, text: str, preferred: Point, blocked: list[Box], labels: list[Box]
                     ) -> Point:
    """A continent name's centre: where it was meant to go if it fits there (in the map, at sea, clear of
    badges, the legend, other continent names and territory names), else the nearby spot that covers the
    least land and fewest names."""
    w, h = label.size
    at0 = continent_box(text, (0, 0))

    def cost(centre: Point) -> float | None:
        box = (at0[0] + centre[0], at0[1] + centre[1], at0[2] + centre[0], at0[3] + centre[1])
        if not _inside_map(box, w, h) or any(overlaps(box, b) for b in blocked):
            return None
        # Land under the words or within a few pixels of them: the coast's tint must not touch them.
        land = 1.0 - _sea_fraction(label, (box[0] - 4, box[1] - 4, box[2] + 4, box[3] + 4))
        names = sum(1 for b in labels if overlaps(box, b))
        return 400 * land + 6 * names + 0.02 * math.hypot(centre[0] - preferred[0], 2 * (centre[1] - preferred[1]))

    first = cost(preferred)
    if first is not None and first < 1.0:
        return preferred
    best: tuple[float, Point] | None = None if first is None else (first, preferred)
    # Nearest first: once the distance alone costs more than the best found, nothing further can win.
    offsets = sorted(((dx, dy) for dy in range(-90, 91, 4) for dx in range(-160, 161, 8)),
                     key=lambda o: (math.hypot(o[0], 2 * o[1]), o[1], o[0]))
    for dx, dy in offsets:
        if best is not None and 0.02 * math.hypot(dx, 2 * dy) >= best[0]:
            break
        centre = (preferred[0] + dx, preferred[1] + dy)
        c = cost(centre)
        if c is not None and (best is None or c < best[0]):
            best = (c, centre)
    return preferred if best is None else best[1]


def _place_label(label: Image.Image, tid: str, value: int, area: int, anchor: Point, text: str,
                 blocked: list[Box], anchors: dict[str, Point], towards: float, badge: int = style.BADGE_SIZE
                 ) -> Point | None:
    """A new centre for a territory name that does not fit where the stored layout put it (a longer
    translation): round its badge, clear of everything in ``blocked``, preferably inside its territory,
    else over the sea, near the side it had."""
    w, h = label.size
    best: tuple[float, Point] | None = None
    at0 = label_box(text, (0, 0))
    for x, y, away, angle in _label_spots(anchor, text, badge):
        centre = (round(x), round(y))
        box = (at0[0] + centre[0], at0[1] + centre[1], at0[2] + centre[0], at0[3] + centre[1])
        if not _inside_map(box, w, h) or any(overlaps(box, b) for b in blocked):
            continue
        own = _inside_fraction(label, box, value)
        sea = _sea_fraction(label, box)
        covered = own * (box[2] - box[0]) * (box[3] - box[1]) / max(1, area)
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        d_own = math.hypot(cx - anchor[0], cy - anchor[1])
        confusing = sum(1 for t, a in anchors.items()
                        if t != tid and math.hypot(cx - a[0], cy - a[1]) < d_own * 0.9)
        score = (10 * own + 4 * sea - 12 * covered - 2.5 * confusing - 0.08 * away
                 - 0.02 * _angle_gap(angle, towards))
        if best is None or score > best[0]:
            best = (score, centre)
    return None if best is None else best[1]


def localise_layout(label: Image.Image, geometry: GeometryData, names: dict[str, str],
                    continent_texts: dict[str, str], legend: Box, badge: int = style.BADGE_SIZE) -> MapLayout:
    """The stored layout (``geometry.json``, made for the English names) fitted to one language's words.

    Badges stay where they are. Each continent name keeps its place unless, in this language, it runs off
    the map, over land, a badge, the legend or a territory name; then it moves to the nearest good spot.
    Each territory name keeps its centre unless its text now touches a badge, a continent name, the legend,
    another name or the map's edge; then it takes the best free spot round its badge, preferably on the side
    it had. The result is computed once per language (see ``render.base``).
    """
    w, h = label.size
    terr = geometry["territories"]
    anchors: dict[str, Point] = {tid: (int(info["anchor"][0]), int(info["anchor"][1])) for tid, info in terr.items()}
    stored: dict[str, Point] = {tid: (int(info["label"][0]), int(info["label"][1])) for tid, info in terr.items()}
    badges = {tid: badge_box(a, badge) for tid, a in anchors.items()}
    counts = label.histogram()

    # Continent names first: they are the largest, and a territory name can move more easily.
    name_boxes = [label_box(names[tid], stored[tid]) for tid in terr]
    continents: dict[str, Point] = {}
    continent_boxes: list[Box] = []
    for cid, centre in geometry["continent_labels"].items():
        at = _place_continent(label, continent_texts[cid], (int(centre[0]), int(centre[1])),
                              [*badges.values(), legend, *continent_boxes], name_boxes)
        continents[cid] = at
        continent_boxes.append(continent_box(continent_texts[cid], at))

    # Territory names: keep those that fit, then move the others one by one.
    fixed = [*badges.values(), *continent_boxes, legend]
    centres: dict[str, Point] = {}
    kept: list[Box] = []
    moving: list[str] = []
    for tid in terr:
        box = label_box(names[tid], stored[tid])
        if _inside_map(box, w, h) and not any(overlaps(box, b) for b in [*fixed, *kept]):
            centres[tid] = stored[tid]
            kept.append(box)
        else:
            moving.append(tid)
    for tid in moving:
        value = terr[tid]["index"] + 1
        ax, ay = anchors[tid]
        towards = math.degrees(math.atan2(stored[tid][1] - ay, stored[tid][0] - ax)) % 360
        spot = _place_label(label, tid, value, counts[value], anchors[tid], names[tid], [*fixed, *kept], anchors,
                            towards, badge)
        centres[tid] = spot if spot is not None else stored[tid]
        kept.append(label_box(names[tid], centres[tid]))

    boxes: list[LaidOut] = []
    for tid in terr:
        boxes.append(LaidOut("badge", tid, badges[tid]))
        boxes.append(LaidOut("label", tid, label_box(names[tid], centres[tid])))
    for cid, at in continents.items():
        boxes.append(LaidOut("continent", cid, continent_box(continent_texts[cid], at)))
    boxes.append(LaidOut("legend", "legend", legend))
    return MapLayout(labels=centres, continents=continents, legend=legend, boxes=tuple(boxes))


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
