"""The outlines of a map's territories as SVG paths, traced from its region image: the board's tap targets.

A region image holds, per pixel, a territory's index + 1 (0: the sea). Each territory's pixels are read on a
grid a few pixels wide (so a map of any size gives paths of about the same weight), the edges between its cells
and the others are chained into closed loops (holes included: the paths are drawn with ``fill-rule: evenodd``),
straight runs are merged and the loops simplified (Douglas–Peucker, within one cell). This runs once per map, in
a worker process (``workers``), and the result is cached by the server.
"""

from __future__ import annotations

from collections import defaultdict

from PIL import Image

from render.geometry import geometry_for

Point = tuple[int, int]
TARGET_CELLS = 480  # the grid is about this many cells across the map's longer side


def _loops(inside: set[Point]) -> list[list[Point]]:
    """The closed outlines (corner points of the grid) around a set of cells, each walked with the inside on its
    right."""
    edges: dict[Point, list[Point]] = defaultdict(list)
    for x, y in inside:
        if (x, y - 1) not in inside:
            edges[(x, y)].append((x + 1, y))
        if (x + 1, y) not in inside:
            edges[(x + 1, y)].append((x + 1, y + 1))
        if (x, y + 1) not in inside:
            edges[(x + 1, y + 1)].append((x, y + 1))
        if (x - 1, y) not in inside:
            edges[(x, y + 1)].append((x, y))
    loops: list[list[Point]] = []
    while edges:
        start = next(iter(edges))
        loop = [start]
        point = start
        while True:
            targets = edges[point]
            nxt = targets.pop()
            if not targets:
                del edges[point]
            if nxt == start:
                break
            loop.append(nxt)
            point = nxt
        loops.append(loop)
    return loops


def _corners(loop: list[Point]) -> list[Point]:
    """The loop without the points in the middle of a straight run."""
    out: list[Point] = []
    n = len(loop)
    for i, p in enumerate(loop):
        a, b = loop[i - 1], loop[(i + 1) % n]
        if (p[0] - a[0]) * (b[1] - p[1]) != (p[1] - a[1]) * (b[0] - p[0]):
            out.append(p)
    return out or loop


def _simplify(points: list[Point], tolerance: float) -> list[Point]:
    """Douglas–Peucker on an open run of points (its ends kept)."""
    if len(points) < 3:
        return points
    (x0, y0), (x1, y1) = points[0], points[-1]
    dx, dy = x1 - x0, y1 - y0
    length = (dx * dx + dy * dy) ** 0.5
    far, where = -1.0, 0
    for i in range(1, len(points) - 1):
        px, py = points[i]
        d = abs(dy * (px - x0) - dx * (py - y0)) / length if length else ((px - x0) ** 2 + (py - y0) ** 2) ** 0.5
        if d > far:
            far, where = d, i
    if far <= tolerance:
        return [points[0], points[-1]]
    return _simplify(points[: where + 1], tolerance)[:-1] + _simplify(points[where:], tolerance)


def _closed(loop: list[Point], tolerance: float) -> list[Point]:
    corners = _corners(loop)
    if len(corners) <= 4:
        return corners
    half = len(corners) // 2  # split at two far points, so both halves are open runs
    simple = _simplify([*corners[:half + 1]], tolerance)[:-1] + _simplify([*corners[half:], corners[0]], tolerance)[:-1]
    return simple if len(simple) >= 3 else corners


def trace_regions(label: Image.Image, count: int, anchors: dict[int, Point] | None = None) -> dict[int, str]:
    """For each territory value 1..``count`` of a region image, an SVG path in the image's pixels."""
    step = max(1, round(max(label.size) / TARGET_CELLS))
    small = label.resize((-(-label.width // step), -(-label.height // step)), Image.Resampling.NEAREST)
    width = small.width
    cells: dict[int, set[Point]] = defaultdict(set)
    for i, value in enumerate(small.tobytes()):
        if value:
            cells[value].add((i % width, i // width))
    paths: dict[int, str] = {}
    for value in range(1, count + 1):
        inside = cells.get(value)
        if not inside:  # too small for the grid: a square round its badge, so it can still be tapped
            x, y = (anchors or {}).get(value, (0, 0))
            paths[value] = f"M{x - 12} {y - 12}h24v24h-24Z"
            continue
        parts = []
        for loop in _loops(inside):
            points = _closed(loop, 0.75)
            parts.append("M" + "L".join(f"{x * step} {y * step}" for x, y in points) + "Z")
        paths[value] = "".join(parts)
    return paths


def territory_paths(map_id: str) -> dict[str, str]:
    """Each territory's outline on the map ``map_id`` as drawn by the renderer (its id → an SVG path); run in a
    worker process."""
    geo = geometry_for(map_id)
    by_value = {shape.value: tid for tid, shape in geo.territories.items()}
    anchors = {shape.value: shape.anchor for shape in geo.territories.values()}
    traced = trace_regions(geo.label, max(by_value), anchors)
    return {by_value[v]: path for v, path in traced.items() if v in by_value}


__all__ = ["territory_paths", "trace_regions"]
