"""Where badges and labels go, and the boxes they take up.

The positions are computed once by ``render/tools/build_geometry.py`` (with ``place_labels``) and stored in
``render/data/geometry.json``; at run time ``layout_boxes`` turns them back into boxes with the shipped
font, so a test can check that nothing overlaps.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image

from . import style

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class LaidOut:
    """One thing drawn on the map: a badge, a territory label or a continent label."""

    kind: str      # "badge" | "label" | "continent"
    owner: str     # territory or continent id
    box: Box


def badge_box(anchor: Sequence[float]) -> Box:
    r = style.BADGE_SIZE // 2 + 1
    x, y = round(anchor[0]), round(anchor[1])
    return (x - r, y - r, x + r, y + r)


def text_box(text: str, centre: Sequence[float], font: object, stroke: int) -> Box:
    """The box of text drawn centred on a point (anchor "mm"), stroke included; the height is that of the
    font's ascent and descent so that every label of one font has the same height."""
    left, _, right, _ = font.getbbox(text, stroke_width=stroke, anchor="mm")  # type: ignore[attr-defined]
    _, top, _, bottom = font.getbbox("Ág", stroke_width=stroke, anchor="mm")  # type: ignore[attr-defined]
    x, y = round(centre[0]), round(centre[1])
    return (x + left, y + top, x + right, y + bottom)


def label_box(text: str, centre: Sequence[float]) -> Box:
    return text_box(text, centre, style.label_font(), style.LABEL_STROKE)


def continent_text(name: str, bonus: int) -> str:
    return f"{name.upper()} +{bonus}"


def continent_box(text: str, centre: Sequence[float]) -> Box:
    return text_box(text, centre, style.font(style.CONTINENT_FONT_SIZE, bold=True), style.CONTINENT_STROKE)


def overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def layout_boxes(geometry: dict, board: object) -> list[LaidOut]:  # type: ignore[type-arg]
    """Every badge, territory label and continent label box, from the stored geometry and the board's
    names."""
    out: list[LaidOut] = []
    for tid, info in geometry["territories"].items():
        out.append(LaidOut("badge", tid, badge_box(info["anchor"])))
        out.append(LaidOut("label", tid, label_box(board.territories[tid].short, info["label"])))  # type: ignore[attr-defined]
    for cid, centre in geometry["continent_labels"].items():
        c = board.continents[cid]  # type: ignore[attr-defined]
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


def _label_spots(anchor: tuple[int, int], text: str) -> list[tuple[float, float, float, int]]:
    """Candidate label centres round a badge: (x, y, how far out, direction in degrees, 90 = below)."""
    ax, ay = anchor
    r = style.BADGE_SIZE // 2 + 1 + style.BADGE_GAP
    probe = label_box(text, (0, 0))
    half_w, half_h = (probe[2] - probe[0]) / 2, (probe[3] - probe[1]) / 2
    spots = []
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
        x0, y0, x1, y1 = label.point(lambda v, value=value: 255 if v == value else 0).getbbox()  # type: ignore[misc]
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
        while label_box(names[tid], centre) != box:
            b2 = label_box(names[tid], centre)
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
