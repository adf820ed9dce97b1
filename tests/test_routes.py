"""Sea routes that follow the map: a route never runs straight over other territories' land (it bends round, or
becomes a stub at each end with a ring where no bend stays at sea), a map's own path for a route is drawn as
given, and the import preview shows it. Checked on drawn maps in the shapes real maps have (TEG's New
York–Greenland over Canada, the Lord of the Rings map's routes round its coasts)."""

from __future__ import annotations

import json
import math
from itertools import pairwise

import crowdedmaps
import pytest

from mapfiles import MapFileError, load_package
from render.regions import OFF_COURSE, build_geometry, off_course


def islands(rects: list[tuple[int, int, int, int]], routes: list[list[str]], **extra: object
            ) -> tuple[bytes, dict[str, bytes]]:
    """Islands (one territory each) joined only by the given sea routes, in our format."""
    world = crowdedmaps.Crowded((1400, 800), rects, [f"Isle{chr(65 + i)}" for i in range(len(rects))],
                                [0] * len(rects), continents=1, gap=2, title_corner="upper right")
    blob, files = crowdedmaps.our_files(world)
    data = json.loads(blob)
    for t in data["territories"]:
        t["neighbours"] = sorted({b for a, b in routes if a == t["id"]} | {a for a, b in routes if b == t["id"]})
    data["sea_routes"] = routes
    data.update(extra)
    return json.dumps(data).encode(), files


def drawn(blob: bytes, files: dict[str, bytes], a: str, b: str):
    pkg = load_package(blob, files)
    geo = build_geometry(pkg.id, pkg.data, pkg.regions, pkg.background)
    segments = next(s for x, y, s in geo.sea_routes if {x, y} == {a, b})
    own = {geo.territories[a].value, geo.territories[b].value}
    return geo, segments, off_course(geo.label, segments, own)


def to_segment(p: tuple[float, float], s: tuple[float, float, float, float]) -> float:
    """How far point ``p`` lies from the segment ``s`` (x0, y0, x1, y1)."""
    (x0, y0, x1, y1), (px, py) = s, p
    d2 = (x1 - x0) ** 2 + (y1 - y0) ** 2 or 1.0
    t = max(0.0, min(1.0, ((px - x0) * (x1 - x0) + (py - y0) * (y1 - y0)) / d2))
    return math.dist(p, (x0 + t * (x1 - x0), y0 + t * (y1 - y0)))


def test_a_route_bends_round_land_it_would_cross():
    """West and east islands joined by a route whose straight line runs over the middle island (which is
    another territory): the route bends round it, and still starts and ends at its two badges."""
    blob, files = islands([(80, 300, 300, 500), (600, 150, 800, 650), (1100, 300, 1320, 500)],
                          [["t1", "t3"], ["t1", "t2"]])
    geo, segments, share = drawn(blob, files, "t1", "t3")
    a, b = geo.territories["t1"].anchor, geo.territories["t3"].anchor
    straight = off_course(geo.label, [(a[0], a[1], b[0], b[1])], {geo.territories["t1"].value,
                                                                    geo.territories["t3"].value})
    assert straight > 0.1                              # the straight line would cross the middle island
    assert share <= OFF_COURSE, segments
    assert len(segments) == 2                          # a bend
    assert math.dist(segments[0][:2], a) < geo.badge_size and math.dist(segments[-1][2:], b) < geo.badge_size


def test_where_no_bend_stays_at_sea_a_route_is_two_stubs_with_rings():
    """The middle island reaches from the top of the map to the bottom: no bend passes it. Each badge gets a
    short stub toward the other, ending in a ring; nothing is drawn over the middle island."""
    blob, files = islands([(80, 300, 300, 500), (600, 0, 800, 800), (1100, 300, 1320, 500)],
                          [["t1", "t3"], ["t1", "t2"]])
    geo, segments, share = drawn(blob, files, "t1", "t3")
    assert share <= OFF_COURSE
    a, b = geo.territories["t1"].anchor, geo.territories["t3"].anchor
    d = math.dist(a, b)
    assert all(min(math.dist(p, a), math.dist(p, b)) < d / 3 for s in segments for p in (s[:2], s[2:]))
    assert all(geo.label.getpixel((round(s[2]), round(s[3]))) == 0 for s in segments[1:])   # the rings at sea


def test_a_maps_own_path_for_a_route_is_drawn_as_given():
    path = [[400, 120], [1000, 120]]
    blob, files = islands([(80, 300, 300, 500), (600, 250, 800, 650), (1100, 300, 1320, 500)],
                          [["t1", "t3"], ["t1", "t2"]], route_paths=[{"between": ["t3", "t1"], "path": path}])
    geo, segments, _ = drawn(blob, files, "t1", "t3")
    points = [s[:2] for s in segments] + [segments[-1][2:]]
    scale = geo.width / 1400
    for x, y in path:   # the path's points, scaled with the map, in order (from t3's end, the route reversed)
        assert any(math.dist(p, (x * scale, y * scale)) < 2 for p in points), (x, y, points)


@pytest.mark.parametrize("paths", [
    [{"between": ["t1", "t2"], "path": [[10, 10]]}],                 # not a sea route of the map
    [{"between": ["t1", "t3"], "path": []}],                         # no point
    [{"between": ["t1", "t3"], "path": [[10, 10]] * 21}],            # too many
    [{"between": ["t1", "t3"], "path": [[10, 99_999]]}],             # outside the map
    {"t1": [[10, 10]]},                                              # not a list
    [{"between": [["t1"], "t3"], "path": [[10, 10]]}],               # not ids
])
def test_a_bad_route_path_is_refused(paths):
    blob, files = islands([(80, 300, 300, 500), (600, 250, 800, 650), (1100, 300, 1320, 500)],
                          [["t1", "t3"], ["t3", "t2"]], route_paths=paths)
    with pytest.raises(MapFileError):
        load_package(blob, files)


def test_the_import_preview_draws_a_maps_own_route_path_and_label():
    """The preview a manager sees (`/risk map add`, `python -m mapfiles`) draws the map's own route path and
    continent label where the file puts them: a map maker fixes them without code."""
    import io

    from PIL import Image

    from mapfiles.cli import preview
    from render.style import ROUTE

    path = [[700, 60]]
    blob, files = islands([(80, 300, 300, 500), (600, 250, 800, 650), (1100, 300, 1320, 500)],
                          [["t1", "t3"], ["t1", "t2"]], route_paths=[{"between": ["t1", "t3"], "path": path}])
    data = json.loads(blob)
    data["continents"][0]["label"] = [700, 720]
    pkg = load_package(json.dumps(data).encode(), files)
    img = Image.open(io.BytesIO(preview(pkg))).convert("RGB")
    scale = img.width / 1400
    x, y = round(path[0][0] * scale), round(path[0][1] * scale)
    near = [img.getpixel((i, j)) for i in range(x - 12, x + 13) for j in range(y - 4, y + 5)]
    assert any(sum(abs(a - b) for a, b in zip(p, ROUTE, strict=True)) < 60 for p in near)   # the route's dashes
    from render.base import static_layers

    layers = static_layers(pkg.board)
    assert layers.layout is not None      # the name where the file puts it, far from its coast as it is
    assert layers.layout.continents["c1"] == (round(700 * scale), round(720 * scale))


def test_a_route_whose_ends_face_other_land_is_a_stub_out_to_open_sea_never_a_line_over_land():
    """TEG's Chile–Australia and the classic picture's Alaska–Kamchatka (that go round the world where the
    picture says so, but do not reach the map's edge): each end faces another territory's land all the way
    across the map, so no bend and no stub toward the other end stays at sea. Each end gets its stub the nearest way
    its own coast is open, never a straight line over land."""
    blob, files = islands([(80, 300, 300, 500), (300, 0, 420, 800), (980, 0, 1100, 800), (1100, 300, 1320, 500)],
                          [["t1", "t4"], ["t1", "t2"], ["t2", "t3"], ["t3", "t4"]])
    geo, segments, share = drawn(blob, files, "t1", "t4")
    assert share <= OFF_COURSE, segments
    a, b = geo.territories["t1"].anchor, geo.territories["t4"].anchor
    stubs = [s for s in segments if math.dist(s[:2], a) < geo.badge_size or math.dist(s[:2], b) < geo.badge_size]
    assert len(stubs) == 2                                             # one from each badge
    assert all(geo.label.getpixel((round(s[2]), round(s[3]))) == 0 for s in stubs)     # each out at sea
    assert all(geo.label.getpixel((round(s[2]), round(s[3]))) == 0 for s in segments if s not in stubs)


def test_a_route_the_picture_draws_itself_is_drawn_along_it_not_beside_it():
    """TEG's New York–Greenland, Risk Europe's Iceland–Norway: the picture draws the route itself, a dotted
    arc (here round the foot of the middle island). The bot's line follows the picture's arc, one route in one
    place, rather than a second line of its own (a bend over the island's top) beside it."""
    import io

    from PIL import Image, ImageDraw

    blob, files = islands([(80, 300, 300, 500), (600, 250, 800, 650), (1100, 300, 1320, 500)],
                          [["t1", "t3"], ["t1", "t2"]])
    picture = Image.open(io.BytesIO(files["picture.png"])).convert("RGB")
    draw = ImageDraw.Draw(picture)
    arc = [(306, 470), (450, 650), (700, 750), (950, 650), (1094, 470)]
    for (x0, y0), (x1, y1) in pairwise(arc):
        steps = round(math.dist((x0, y0), (x1, y1)) / 10)
        for k in range(steps):
            x, y = x0 + (x1 - x0) * k / steps, y0 + (y1 - y0) * k / steps
            draw.ellipse((x - 3, y - 3, x + 3, y + 3), fill=(20, 20, 30))
    out = io.BytesIO()
    picture.save(out, "PNG")
    geo, segments, share = drawn(blob, {**files, "picture.png": out.getvalue()}, "t1", "t3")
    assert share <= OFF_COURSE
    scale = geo.width / 1400
    for x, y in arc[1:-1]:     # by the arc's points, as the picture draws them
        assert min(to_segment((x * scale, y * scale), s) for s in segments) < 10 * scale, (x, y, segments)
    # Without the picture's arc, the same route bends another way: the arc is what the line followed.
    _, plain, _ = drawn(blob, files, "t1", "t3")
    assert min(to_segment((700 * scale, 750 * scale), s) for s in plain) > 60 * scale
