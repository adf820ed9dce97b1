"""Build the classic map's territory geometry from Natural Earth coastlines (public domain).

Run by hand when the geometry or the label layout should change; the output is committed under
``render/data/``. Getting the input (the npm package ``world-atlas`` holds Natural Earth's 1:50m countries as
TopoJSON)::

    cd "$(mktemp -d)" && npm pack world-atlas@2 && tar xzf world-atlas-2.*.tgz
    python /path/to/repo/tools/build_geometry.py "$PWD/package/countries-50m.json"

(or ``python -m tools.build_geometry FILE`` from the repository's root).

What it does: decodes the TopoJSON in pure Python, unwraps the antimeridian so that the map runs from the
Bering Strait (Alaska at the top left) eastwards round the world to Chukotka and Kamchatka (top right), drops
Antarctica, remote islands and specks, projects with Miller's cylindrical projection, and paints every country
(or part of a country, for the large ones that the classic board splits) with the territory it belongs to, at
four times the production resolution. From that it derives:

- ``territories.png``: the label image at production size (palette image; pixel = territory index + 1 in
  ``engine/maps/classic.json`` order, 0 = sea);
- ``coast.png``, ``borders.png``, ``continents.png``: anti-aliased line masks (coastlines, borders between
  territories, borders between continents) made at 4x and reduced, so the renderer draws smooth lines cheaply;
- ``geometry.json``: size and projection, each territory's badge anchor (the point of the territory farthest
  from its edges, found with a distance transform), its label position (placed so that no label overlaps a
  badge or another label), its bounding box and area, and the two ends of every sea route.

The script also prints which territories touch on land, so a change to the rules below can be checked against
the board's neighbour list.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw, ImageFilter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from render import layout  # noqa: E402

MAP_FILE = ROOT / "engine" / "maps" / "classic.json"
OUT_DIR = ROOT / "render" / "data"

# -- projection ---------------------------------------------------------------------------------------
WIDTH = 1600                 # production width of the map in pixels
SUPER = 4                    # the geometry is painted at 4x and reduced
WEST = -169.5                # longitude of the left edge; the map spans 360 degrees from here
NORTH, SOUTH = 83.65, -56.0  # latitude crop
MIN_AREA = 10.0              # drop rings smaller than this many square pixels (at production size)
SIMPLIFY = 0.55 * 360.0 / WIDTH  # Douglas-Peucker tolerance: 0.55 production pixels, in degrees
ROUTE_MIN = 26.0             # shortest sea-route line drawn (px)
WRAP_LAT = 57.5              # latitude at which Alaska-Kamchatka leaves and re-enters the map


def miller(lat: float) -> float:
    return 1.25 * math.log(math.tan(math.pi / 4 + 0.4 * math.radians(lat)))


K = WIDTH / (2 * math.pi)            # pixels per radian
Y_TOP = miller(NORTH)
HEIGHT = round((Y_TOP - miller(SOUTH)) * K)


def project(lon: float, lat: float) -> tuple[float, float]:
    """Longitude (already unwrapped to WEST..WEST+360) and latitude to production pixels."""
    return (lon - WEST) / 360.0 * WIDTH, (Y_TOP - miller(max(min(lat, 89.0), -89.0))) * K


def unproject(x: float, y: float) -> tuple[float, float]:
    lon = WEST + x / WIDTH * 360.0
    m = Y_TOP - y / K
    lat = math.degrees(2.5 * math.atan(math.exp(0.8 * m)) - 0.625 * math.pi)
    return lon, lat


# -- which territory each country (or part of one) belongs to ----------------------------------------------
Rule = Callable[[float, float], "str | None"]


def inside(poly: list[tuple[float, float]], lon: float, lat: float) -> bool:
    """Point in polygon (even-odd), polygon given as (lon, lat) pairs."""
    hit = False
    j = len(poly) - 1
    for i, (xi, yi) in enumerate(poly):
        xj, yj = poly[j]
        if (yi > lat) != (yj > lat) and lon < (xj - xi) * (lat - yi) / (yj - yi) + xi:
            hit = not hit
        j = i
    return hit


def interp(points: list[tuple[float, float]], v: float) -> float:
    """Piecewise-linear function through (v, value) points, flat beyond the ends."""
    if v <= points[0][0]:
        return points[0][1]
    for (v0, a), (v1, b) in itertools.pairwise(points):
        if v <= v1:
            return a + (b - a) * (v - v0) / (v1 - v0)
    return points[-1][1]


# Quebec (with Labrador and the Maritimes): east of the Ottawa river and of James Bay, south of Hudson Strait.
QUEBEC = [(-74.3, 40.0), (-74.3, 44.9), (-74.7, 45.6), (-75.7, 45.5), (-77.1, 45.9), (-78.7, 46.3),
          (-79.5, 47.2), (-79.5, 54.0), (-80.5, 62.9), (-75.6, 62.6), (-72.0, 62.1), (-69.6, 61.6),
          (-66.0, 61.1), (-64.5, 60.9), (-50.0, 60.7), (-50.0, 40.0)]
# The Urals, then across the Kara Sea east of Novaya Zemlya: (latitude, longitude) of the Ukraine/Ural line.
URALS = [(40.0, 58.0), (64.0, 59.5), (67.5, 65.5), (69.5, 66.0), (72.0, 66.0), (78.0, 75.0)]
# Siberia's eastern edge: the Yenisei-Lena watershed, bending east round the Taymyr peninsula.
SIBERIA_EAST = [(58.0, 100.0), (60.0, 100.0), (66.0, 109.0), (90.0, 112.0)]


def canada(lon: float, lat: float) -> str | None:
    if inside(QUEBEC, lon, lat):
        return "quebec"
    if lat < 60.0:
        return "alberta" if lon < -110.0 else "ontario"
    # North of 60: the west and the high Arctic are the Northwest Territory; Kivalliq and Baffin Island
    # round Hudson Bay go with Ontario, which gives Greenland's three sea routes short crossings.
    if lon < -95.0 or lat > 73.8:
        return "northwest_territory"
    return "ontario"


def usa(lon: float, lat: float) -> str | None:
    if lon > 0.0 or (lat < 30.0 and lon < -140.0):   # Aleutians past the map edge; Hawaii
        return None
    if lon < -129.9 and lat > 51.0:
        return "alaska"
    return "western_united_states" if lon < -100.0 else "eastern_united_states"


def russia(lon: float, lat: float) -> str | None:
    if lon < interp(URALS, lat):
        return "ukraine"
    if lon < 77.0:
        return "ural"
    if lon < interp(SIBERIA_EAST, lat):
        return "siberia"
    if lat >= 58.0:
        return "yakutsk" if lon < (150.0 if lat > 68.0 else 146.0) else "kamchatka"
    return "irkutsk" if lon < 130.0 else "kamchatka"


def kazakhstan(lon: float, lat: float) -> str | None:
    # Afghanistan takes the steppe, Ural its north-east and Siberia the far corner, so that Ural and Siberia
    # both reach China as on the board.
    if lon > 82.0 and lat > 47.0:
        return "siberia"
    if lat > 45.5 and lon > 65.0:
        return "ural"
    return "afghanistan"


def china(lon: float, lat: float) -> str | None:
    # Manchuria goes with Mongolia, which on the board reaches the sea opposite Japan.
    return "mongolia" if lat > 41.5 and lon > 114.0 else "china"


def france(lon: float, lat: float) -> str | None:
    if lon < -30.0:
        return "venezuela" if lat < 8.0 else "central_america"   # French Guiana; the Antilles
    if lon > 30.0 or lat < 35.0:
        return None                                               # Réunion, Mayotte
    return "western_europe"


def spain(lon: float, lat: float) -> str | None:
    return "north_africa" if lat < 35.95 else "western_europe"     # Canaries, Ceuta, Melilla


def portugal(lon: float, lat: float) -> str | None:
    return None if lon < -10.0 else "western_europe"               # Azores, Madeira


def netherlands(lon: float, lat: float) -> str | None:
    return "venezuela" if lon < -30.0 else "northern_europe"


def norway(lon: float, lat: float) -> str | None:
    return None if lat < 50.0 else "scandinavia"                   # Bouvet Island


def chile(lon: float, lat: float) -> str | None:
    if lon < -80.0:
        return None                                                # Easter Island, Juan Fernández
    return "peru" if lat > -23.0 else "argentina"


def ecuador(lon: float, lat: float) -> str | None:
    return None if lon < -85.0 else "peru"                         # Galápagos


def indonesia(lon: float, lat: float) -> str | None:
    return "new_guinea" if lon > 130.8 else "indonesia"            # Papua and the Aru/Kai islands


def malaysia(lon: float, lat: float) -> str | None:
    return "siam" if lon < 105.0 else "indonesia"                  # the peninsula; Borneo


def australia(lon: float, lat: float) -> str | None:
    if lat < -50.0 or lon > 160.0:
        return None                                                # Macquarie Island
    return "western_australia" if lon < 135.0 else "eastern_australia"


SPLIT: dict[str, Rule] = {
    "Canada": canada, "United States of America": usa, "Russia": russia, "Kazakhstan": kazakhstan,
    "China": china, "France": france, "Spain": spain, "Portugal": portugal, "Netherlands": netherlands,
    "Norway": norway, "Chile": chile, "Ecuador": ecuador, "Indonesia": indonesia, "Malaysia": malaysia,
    "Australia": australia,
}

WHOLE: dict[str, list[str]] = {
    "greenland": ["Greenland"],
    "central_america": [
        "Mexico", "Guatemala", "Belize", "Honduras", "El Salvador", "Nicaragua", "Costa Rica", "Panama",
        "Cuba",
        "Jamaica", "Haiti", "Dominican Rep.", "Puerto Rico", "Bahamas", "Cayman Is.", "Turks and Caicos Is.",
        "Antigua and Barb.", "Dominica", "Grenada", "St. Kitts and Nevis", "Saint Lucia",
        "St. Vin. and Gren.",
        "Barbados", "British Virgin Is.", "U.S. Virgin Is.", "Anguilla", "Montserrat", "St-Barthélemy",
        "St-Martin", "Sint Maarten",
    ],
    "venezuela": ["Venezuela", "Colombia", "Guyana", "Suriname", "Trinidad and Tobago", "Aruba", "Curaçao"],
    "peru": ["Peru", "Bolivia"],
    "brazil": ["Brazil"],
    "argentina": ["Argentina", "Uruguay", "Paraguay", "Falkland Is."],
    "iceland": ["Iceland"],
    "great_britain": ["United Kingdom", "Ireland", "Isle of Man", "Guernsey", "Jersey"],
    "scandinavia": ["Sweden", "Finland", "Denmark", "Åland", "Faeroe Is."],
    "northern_europe": [
        "Germany", "Belgium", "Luxembourg", "Poland", "Czechia", "Slovakia", "Austria", "Switzerland",
        "Liechtenstein", "Hungary",
    ],
    "southern_europe": [
        "Italy", "San Marino", "Vatican", "Malta", "Slovenia", "Croatia", "Bosnia and Herz.", "Serbia",
        "Kosovo",
        "Montenegro", "Albania", "Macedonia", "Greece", "Bulgaria", "Romania",
    ],
    "western_europe": ["Andorra", "Monaco"],
    "ukraine": ["Ukraine", "Belarus", "Moldova", "Lithuania", "Latvia", "Estonia"],
    "north_africa": [
        "Morocco", "W. Sahara", "Algeria", "Tunisia", "Mauritania", "Mali", "Niger", "Chad", "Senegal",
        "Gambia",
        "Guinea-Bissau", "Guinea", "Sierra Leone", "Liberia", "Côte d'Ivoire", "Ghana", "Togo", "Benin",
        "Burkina Faso", "Nigeria", "Cabo Verde",
    ],
    "egypt": ["Egypt", "Libya"],
    "east_africa": [
        "Sudan", "S. Sudan", "Ethiopia", "Eritrea", "Djibouti", "Somalia", "Somaliland", "Kenya", "Uganda",
        "Rwanda", "Burundi", "Tanzania",
    ],
    "congo": [
        "Dem. Rep. Congo", "Congo", "Gabon", "Eq. Guinea", "Cameroon", "Central African Rep.", "Angola",
        "São Tomé and Principe",
    ],
    "south_africa": [
        "South Africa", "Namibia", "Botswana", "Zimbabwe", "Zambia", "Malawi", "Mozambique", "Lesotho",
        "eSwatini",
    ],
    "madagascar": ["Madagascar", "Comoros", "Mauritius", "Seychelles"],
    "middle_east": [
        "Turkey", "Syria", "Lebanon", "Israel", "Palestine", "Jordan", "Iraq", "Iran", "Saudi Arabia",
        "Yemen",
        "Oman", "United Arab Emirates", "Qatar", "Bahrain", "Kuwait", "Cyprus", "N. Cyprus", "Georgia",
        "Armenia", "Azerbaijan",
    ],
    "afghanistan": ["Afghanistan", "Turkmenistan", "Uzbekistan", "Tajikistan", "Kyrgyzstan"],
    "india": [
        "India", "Pakistan", "Bangladesh", "Sri Lanka", "Nepal", "Bhutan", "Siachen Glacier", "Maldives",
    ],
    "siam": ["Myanmar", "Thailand", "Laos", "Cambodia", "Vietnam", "Singapore"],
    "mongolia": ["Mongolia", "North Korea", "South Korea"],
    "china": ["Taiwan", "Hong Kong", "Macao"],
    "japan": ["Japan"],
    "indonesia": ["Philippines", "Brunei", "Timor-Leste"],
    "new_guinea": ["Papua New Guinea", "Solomon Is."],
    "eastern_australia": ["New Zealand"],
}

DROPPED = {
    "Antarctica", "Fr. S. Antarctic Lands", "Heard I. and McDonald Is.", "S. Geo. and the Is.",
    "Saint Helena",
    "Pitcairn Is.", "Fr. Polynesia", "Cook Is.", "Niue", "Tonga", "Samoa", "American Samoa",
    "Wallis and Futuna Is.", "Kiribati", "Marshall Is.", "Micronesia", "Palau", "Guam", "N. Mariana Is.",
    "Nauru", "Norfolk Island", "Br. Indian Ocean Ter.", "Indian Ocean Ter.", "Bermuda",
    "St. Pierre and Miquelon", "Fiji", "Vanuatu", "New Caledonia", "Ashmore and Cartier Is.",
}


def _whole(territory: str) -> Rule:
    """The rule of a country that lies all in one territory."""
    def rule(lon: float, lat: float) -> str:
        return territory
    return rule


def rule_for(country: str) -> Rule | None:
    if country in SPLIT:
        return SPLIT[country]
    for territory, names in WHOLE.items():
        if country in names:
            return _whole(territory)
    if country in DROPPED:
        return None
    raise SystemExit(f"no territory rule for the country “{country}”: add it to WHOLE, SPLIT or DROPPED")


# Where badges and names go in crowded places: a preferred badge position (longitude, latitude) and the
# preferred directions of the name from the badge (degrees clockwise from east: 90 below, 270 above).
LAYOUT_HINTS: dict[str, tuple[tuple[float, float] | None, tuple[int, ...]]] = {
    "western_europe": ((2.5, 46.8), (90, 60, 120)),
    "great_britain": ((-1.6, 53.2), (180, 150, 210)),
    "northern_europe": ((15.0, 51.5), (270, 300, 240)),
    "southern_europe": ((21.5, 43.0), (90, 60, 120)),
    "scandinavia": ((15.5, 62.5), (270, 300, 240)),
    "iceland": (None, (90, 60, 120)),
    "siam": (None, (0, 30, 330)),
}


# -- TopoJSON --------------------------------------------------------------------------------------------
Ring = list[tuple[float, float]]


def decode_topojson(path: Path) -> dict[str, list[list[Ring]]]:
    """Country name -> polygons (each a list of rings, outer first) in longitude/latitude."""
    topo = json.loads(path.read_text(encoding="utf-8"))
    (sx, sy), (tx, ty) = topo["transform"]["scale"], topo["transform"]["translate"]
    arcs: list[Ring] = []
    for arc in topo["arcs"]:
        x = y = 0
        points = []
        for dx, dy in arc:
            x += dx
            y += dy
            points.append((x * sx + tx, y * sy + ty))
        # Arcs are shared by neighbouring countries: simplifying arcs (not rings) keeps borders gap-free.
        arcs.append(simplify(points, SIMPLIFY))

    def ring(indices: list[int]) -> Ring:
        out: Ring = []
        for i in indices:
            part = arcs[i] if i >= 0 else arcs[~i][::-1]
            out.extend(part[1:] if out else part)
        return out

    countries: dict[str, list[list[Ring]]] = {}
    for geometry in topo["objects"]["countries"]["geometries"]:
        name = geometry["properties"]["name"]
        if geometry["type"] == "Polygon":
            polygons = [geometry["arcs"]]
        elif geometry["type"] == "MultiPolygon":
            polygons = geometry["arcs"]
        else:
            continue
        countries.setdefault(name, []).extend([[ring(r) for r in poly] for poly in polygons])
    return countries


def simplify(points: Ring, tolerance: float) -> Ring:
    """Douglas-Peucker in the projection's own units (longitude degrees and Miller y in degrees), which drops
    sub-pixel wiggles that only cost PNG bytes. The ends of an arc are always kept."""
    if len(points) < 3 or tolerance <= 0:
        return points
    proj = [(lon, math.degrees(miller(max(min(lat, 89.0), -89.0)))) for lon, lat in points]
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        i, j = stack.pop()
        (x0, y0), (x1, y1) = proj[i], proj[j]
        dx, dy = x1 - x0, y1 - y0
        norm = math.hypot(dx, dy)
        best, at = -1.0, -1
        for k in range(i + 1, j):
            px, py = proj[k]
            d = abs(dy * (px - x0) - dx * (py - y0)) / norm if norm else math.hypot(px - x0, py - y0)
            if d > best:
                best, at = d, k
        if best > tolerance:
            keep[at] = True
            stack += [(i, at), (at, j)]
    return [p for p, k in zip(points, keep, strict=True) if k]


def unwrap(ring: Ring) -> Ring:
    """Make a ring's longitudes continuous where it crosses the antimeridian (Russia's main ring runs on past
    180 to Chukotka), then move rings west of the map's left edge (Chukotka, the far Aleutians) round to the
    right."""
    out: Ring = []
    shift = 0.0
    prev = ring[0][0]
    for lon, lat in ring:
        if lon - prev > 180.0:
            shift -= 360.0
        elif prev - lon > 180.0:
            shift += 360.0
        prev = lon
        out.append((lon + shift, lat))
    mean = sum(lon for lon, _ in out) / len(out)
    if mean < WEST:
        return [(lon + 360.0, lat) for lon, lat in out]
    if mean > WEST + 360.0:
        return [(lon - 360.0, lat) for lon, lat in out]
    return out


def area(points: list[tuple[float, float]]) -> float:
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1],
                                                                     strict=True))) / 2


# -- painting ---------------------------------------------------------------------------------------------
def paint(countries: dict[str, list[list[Ring]]], index: dict[str, int]) -> Image.Image:
    """The label image at SUPER times the production size."""
    w, h = WIDTH * SUPER, HEIGHT * SUPER
    label = Image.new("L", (w, h), 0)
    for name in sorted(countries):
        rule = rule_for(name)
        if rule is None:
            continue
        polygons = []
        for poly in countries[name]:
            rings = [[project(*p) for p in unwrap(r)] for r in poly]
            # A hole is unwrapped like its outer ring.
            if area(rings[0]) < MIN_AREA:
                continue
            polygons.append([[(x * SUPER, y * SUPER) for x, y in r] for r in rings])
        if not polygons:
            continue
        xs = [x for poly in polygons for x, _ in poly[0]]
        ys = [y for poly in polygons for _, y in poly[0]]
        box = (max(0, int(min(xs)) - 1), max(0, int(min(ys)) - 1), min(w, int(max(xs)) + 2),
               min(h, int(max(ys)) + 2))
        if box[0] >= box[2] or box[1] >= box[3]:
            continue
        mask = Image.new("L", (box[2] - box[0], box[3] - box[1]), 0)
        draw = ImageDraw.Draw(mask)
        for poly in polygons:
            for k, r in enumerate(poly):
                pts = [(x - box[0], y - box[1]) for x, y in r]
                if len(pts) >= 3:
                    draw.polygon(pts, fill=0 if k else 255)
        values = rule_image(rule, box, index)
        label.paste(values, box, mask)
    return label


def rule_image(rule: Rule, box: tuple[int, int, int, int], index: dict[str, int]) -> Image.Image:
    """Territory values over a box (super-sampled pixels), evaluating the rule once per production pixel
    where all four corners agree and per super-sampled pixel elsewhere."""
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    cx0, cy0 = x0 // SUPER, y0 // SUPER
    cx1, cy1 = -(-x1 // SUPER), -(-y1 // SUPER)
    cache: dict[tuple[float, float], int] = {}

    def value_at(sx: float, sy: float) -> int:
        key = (sx, sy)
        if key not in cache:
            t = rule(*unproject(sx / SUPER, sy / SUPER))
            cache[key] = 0 if t is None else index[t] + 1
        return cache[key]

    data = bytearray(bw * bh)
    for cy in range(cy0, cy1):
        for cx in range(cx0, cx1):
            corners = {value_at(cx * SUPER, cy * SUPER), value_at((cx + 1) * SUPER, cy * SUPER),
                       value_at(cx * SUPER, (cy + 1) * SUPER), value_at((cx + 1) * SUPER, (cy + 1) * SUPER)}
            for sy in range(cy * SUPER, (cy + 1) * SUPER):
                if not y0 <= sy < y1:
                    continue
                row = (sy - y0) * bw
                if len(corners) == 1:
                    v = next(iter(corners))
                    a, b = max(cx * SUPER, x0), min((cx + 1) * SUPER, x1)
                    data[row + a - x0: row + b - x0] = bytes([v]) * (b - a)
                else:
                    for sx in range(max(cx * SUPER, x0), min((cx + 1) * SUPER, x1)):
                        data[row + sx - x0] = value_at(sx + 0.5, sy + 0.5)
    return Image.frombytes("L", (bw, bh), bytes(data))


# -- lines ------------------------------------------------------------------------------------------------
def edges(img: Image.Image) -> Image.Image:
    """255 where a pixel differs from its right or lower neighbour."""
    w, h = img.size
    out = Image.new("L", (w, h), 0)
    right = ImageChops.difference(img.crop((0, 0, w - 1, h)), img.crop((1, 0, w, h)))
    down = ImageChops.difference(img.crop((0, 0, w, h - 1)), img.crop((0, 1, w, h)))
    out.paste(right.point(lambda v: 255 if v else 0), (0, 0))
    down_mask = down.point(lambda v: 255 if v else 0)
    out.paste(ImageChops.lighter(out.crop((0, 0, w, h - 1)), down_mask), (0, 0))
    return out


def thicken(line: Image.Image, steps: int) -> Image.Image:
    for _ in range(steps):
        line = line.filter(ImageFilter.MaxFilter(3))
    return line


def line_masks(label4: Image.Image, continent_lut: list[int]) -> dict[str, Image.Image]:
    land = label4.point(lambda v: 255 if v else 0)
    coast = edges(land)
    right = land.transform(land.size, Image.Transform.AFFINE, (1, 0, 1, 0, 1, 0))
    both_land = ImageChops.multiply(land, right)
    both_land = ImageChops.multiply(both_land, land.transform(land.size, Image.Transform.AFFINE,
                                                               (1, 0, 0, 0, 1, 1)))
    borders = ImageChops.multiply(edges(label4), both_land)
    continents = ImageChops.multiply(edges(label4.point(continent_lut)), both_land)
    return {
        # widths at production size: coast ~1.75 px, borders ~1.25 px, continent borders ~2.75 px
        "coast": thicken(coast, 3).reduce(SUPER),
        "borders": thicken(borders, 2).reduce(SUPER),
        "continents": thicken(continents, 5).reduce(SUPER),
    }


# -- anchors ----------------------------------------------------------------------------------------------
def distance_transform(label: Image.Image) -> list[float]:
    """Chamfer (3-4) distance, in pixels, from each pixel to the nearest pixel of another value or the
    edge."""
    w, h = label.size
    px = label.tobytes()
    inf = 1 << 30
    d = [inf] * (w * h)
    for y in range(h):
        for x in range(w):
            i = y * w + x
            v = px[i]
            if x in (0, w - 1) or y in (0, h - 1):
                d[i] = 3
                continue
            if px[i - 1] != v or px[i + 1] != v or px[i - w] != v or px[i + w] != v:
                d[i] = 3
    for y in range(1, h - 1):
        row = y * w
        for x in range(1, w - 1):
            i = row + x
            v = d[i]
            if v == 3:
                continue
            c = min(d[i - 1] + 3, d[i - w] + 3, d[i - w - 1] + 4, d[i - w + 1] + 4)
            if c < v:
                d[i] = c
    for y in range(h - 2, 0, -1):
        row = y * w
        for x in range(w - 2, 0, -1):
            i = row + x
            v = d[i]
            if v == 3:
                continue
            c = min(d[i + 1] + 3, d[i + w] + 3, d[i + w + 1] + 4, d[i + w - 1] + 4)
            if c < v:
                d[i] = c
    return [v / 3.0 for v in d]


def contacts(label: Image.Image) -> dict[tuple[int, int], int]:
    """Pixel edges shared by each pair of territory values on land."""
    w, h = label.size
    px = label.tobytes()
    out: dict[tuple[int, int], int] = {}
    for i in range(w * h - w - 1):
        a = px[i]
        if not a:
            continue
        for b in (px[i + 1], px[i + w]):
            if b and b != a:
                key = (min(a, b), max(a, b))
                out[key] = out.get(key, 0) + 1
    return out


def coast_pixels(label: Image.Image, value: int) -> list[tuple[int, int]]:
    w, h = label.size
    px = label.tobytes()
    out = []
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            i = y * w + x
            if px[i] == value and 0 in (px[i - 1], px[i + 1], px[i - w], px[i + w]):
                out.append((x, y))
    return out


def sea_route(label: Image.Image, a: int, b: int, anchors: tuple[tuple[int, int], tuple[int, int]]
              ) -> list[float]:
    """The shortest crossing between two territories' coasts, lengthened to at least ROUTE_MIN px so that
    narrow straits still show a visible dashed line."""
    pa, pb = coast_pixels(label, a), coast_pixels(label, b)
    best = None
    for ca in pa[::2]:
        for cb in pb[::2]:
            dist = (cb[0] - ca[0]) ** 2 + (cb[1] - ca[1]) ** 2
            if best is None or dist < best[0]:
                best = (dist, ca, cb)
    assert best is not None
    xa: float
    ya: float
    xb: float
    yb: float
    (xa, ya), (xb, yb) = best[1], best[2]
    length = math.hypot(xb - xa, yb - ya)
    if length < ROUTE_MIN:
        if length < 4:   # too short to have a direction of its own: use the line between the badges
            (ax, ay), (bx, by) = anchors
            dx, dy = bx - ax, by - ay
        else:
            dx, dy = xb - xa, yb - ya
        n = math.hypot(dx, dy)
        mx, my = (xa + xb) / 2, (ya + yb) / 2
        half = ROUTE_MIN / 2
        xa, ya, xb, yb = mx - dx / n * half, my - dy / n * half, mx + dx / n * half, my + dy / n * half
    return [round(xa, 1), round(ya, 1), round(xb, 1), round(yb, 1)]


def wrap_route(label: Image.Image, west: int, east: int) -> list[list[float]]:
    """Alaska-Kamchatka crosses the Bering Strait, which is cut by the map's edges: draw it through the Bering
    Sea, leaving the west edge from Alaska and coming back at the east edge to Kamchatka, at one height."""
    _, y = project(0.0, WRAP_LAT)
    y = round(y)
    row = label.crop((0, y, WIDTH, y + 1)).tobytes()
    xw = row.index(west)                 # Alaska's first coast pixel from the west edge at that height
    xe = WIDTH - 1 - row[::-1].index(east)
    return [[xw, y, 0, y], [xe, y, WIDTH, y]]


# -- main ---------------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("countries", type=Path, help="path to world-atlas's countries-50m.json")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="output folder (default: render/data)")
    args = parser.parse_args(argv)

    board = json.loads(MAP_FILE.read_text(encoding="utf-8"))
    ids = [t["id"] for t in board["territories"]]
    index = {tid: i for i, tid in enumerate(ids)}
    continent_of = {tid: c["id"] for c in board["continents"] for tid in c["territories"]}
    continent_ids = [c["id"] for c in board["continents"]]

    countries = decode_topojson(args.countries)
    unknown = [n for n in countries if n not in SPLIT and n not in DROPPED
               and not any(n in names for names in WHOLE.values())]
    if unknown:
        raise SystemExit(f"countries without a rule: {unknown}")
    print(f"map {WIDTH}x{HEIGHT}, painting at {SUPER}x ...", flush=True)
    label4 = paint(countries, index)
    label = label4.resize((WIDTH, HEIGHT), Image.Resampling.NEAREST)

    continent_lut = [0] + [continent_ids.index(continent_of[t]) + 1 for t in ids]
    continent_lut += [0] * (256 - len(continent_lut))
    masks = line_masks(label4, continent_lut)

    # Which territories touch on land, against the board.
    touching = contacts(label)
    neighbours = {frozenset((t["id"], n)) for t in board["territories"] for n in t["neighbours"]}
    sea = {frozenset(p) for p in board.get("sea_routes", [])}
    linked: list[list[str]] = []
    for pair in sorted(neighbours, key=sorted):
        a, b = sorted(pair)
        n = touching.get((min(index[a], index[b]) + 1, max(index[a], index[b]) + 1), 0)
        if pair in sea:
            if n:
                print(f"  note: sea route {a}-{b} also touches on land ({n} px)")
            continue
        if n < 3:
            print(f"  {a}-{b}: neighbours but touch on {n} px: drawn as a crossing")
            linked.append([a, b])
    for (va, vb), n in sorted(touching.items()):
        pair = frozenset((ids[va - 1], ids[vb - 1]))
        if pair not in neighbours:
            print(f"  WARNING: {ids[va - 1]} and {ids[vb - 1]} touch ({n} px) but are not neighbours")

    print("distance transform ...", flush=True)
    dist = distance_transform(label)
    pixels = label.tobytes()
    deepest: dict[int, tuple[float, int]] = {}
    for i, d in enumerate(dist):
        v = pixels[i]
        if v and (v not in deepest or d > deepest[v][0]):
            deepest[v] = (d, i)
    anchors = {tid: (deepest[index[tid] + 1][1] % WIDTH, deepest[index[tid] + 1][1] // WIDTH) for tid in ids}

    print("placing labels ...", flush=True)
    names = {t["id"]: t["short"] for t in board["territories"]}
    texts = {c["id"]: layout.continent_text(c["name"], c["bonus"]) for c in board["continents"]}
    continent_labels, continent_boxes = layout.place_continent_labels(texts, project)
    hints = {tid: (project(*at) if at else None, sides) for tid, (at, sides) in LAYOUT_HINTS.items()}
    placed = layout.place_labels(label, dist, anchors, names, index, continent_boxes, hints)

    routes = []
    for a, b in [*board.get("sea_routes", []), *linked]:
        if {a, b} == {"alaska", "kamchatka"}:
            west, east = (a, b) if a == "alaska" else (b, a)
            segments = wrap_route(label, index[west] + 1, index[east] + 1)
            routes.append({"between": [west, east], "segments": segments})
        else:
            ends = (anchors[a], anchors[b])
            segment = sea_route(label, index[a] + 1, index[b] + 1, ends)
            routes.append({"between": [a, b], "segments": [segment]})

    territories = {}
    for tid in ids:
        v = index[tid] + 1
        bbox = label.point(lambda p, v=v: 255 if p == v else 0).getbbox()
        territories[tid] = {
            "index": index[tid],
            "anchor": list(placed[tid]["anchor"]),
            "label": list(placed[tid]["label"]),
            "bbox": list(bbox) if bbox else None,
            "area": label.histogram()[v],
        }
    geometry = {
        "source": "Natural Earth 1:50m admin-0 countries via world-atlas 2 (public domain)",
        "projection": {"name": "miller", "west": WEST, "north": NORTH, "south": SOUTH},
        "width": WIDTH, "height": HEIGHT,
        "territories": territories,
        "sea_routes": routes,
        "continent_labels": continent_labels,
    }

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    pal = Image.frombytes("P", label.size, label.tobytes())
    pal.putpalette(_debug_palette(len(ids)))
    pal.save(out / "territories.png", optimize=True)
    for name, mask in masks.items():
        mask.save(out / f"{name}.png", optimize=True)
    (out / "geometry.json").write_text(json.dumps(geometry, separators=(",", ":"), ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    print(f"wrote {out}")


def _debug_palette(n: int) -> list[int]:
    """A palette that makes territories.png readable when opened by hand (the renderer ignores it)."""
    pal = [24, 48, 80]
    for i in range(n):
        h = (i * 0.618034) % 1.0
        r, g, b = (int(160 + 80 * math.cos(2 * math.pi * (h + k / 3))) for k in range(3))
        pal += [r, g, b]
    return pal + [0] * (768 - len(pal))


if __name__ == "__main__":
    main()
