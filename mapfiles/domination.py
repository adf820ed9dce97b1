"""Importing Domination (and Lux-style) ``.map`` files into our format, read as Domination's own
``RiskGame.loadMap`` reads them.

A ``.map`` file is text in sections, after a header:

* the header (lines before the first section), ``key value``: ``name`` is the map's title; ``circle`` (the
  size of Domination's army circles) and ``ver`` (the map's version, for Domination's saved games) are read
  and ignored on purpose, as is anything else there (``test``, a map maker's own keys);
* ``[files]``: ``pic`` the picture, ``map`` the region image (its blue channel carries each territory's
  index, from 1; 255, and 0, are no territory), ``crd`` the cards and missions file, ``prv`` a preview
  picture (ignored: we draw our own); each value is the rest of its line;
* ``[continents]``: one a line, ``name bonus colour`` (the n-th line is continent n); the colour a colour
  word, ``#rrggbb``, ``0xrrggbb`` or a decimal number, as Domination's ``ColorUtil`` reads it;
* ``[countries]``: ``index name continent x y``;
* ``[borders]``: ``index neighbour neighbour ...``.

Names write a space as ``_``; a ``-`` stays a hyphen ("Nordrhein-Westfalen"), except in the names of
Domination's classic map ("North-America"), which it shows with spaces. Only a line that starts with ``;`` is
a comment: elsewhere a ``;`` is part of a word, and a word too many on a continent's or a country's line is
refused, as Domination refuses it. A map's ``MAP_nb.properties`` (or ``_no``) and ``MAP_es.properties``,
named after the map file, give its names in Norwegian and Spanish (Domination's ``MapTranslator``). A border
listed on one side only may be crossed only that way (ours: ``one_way``).

The cards file has ``[cards]`` (``Infantry|Cavalry|Cannon index``, ``Wildcard``: the deck exactly, so a
country without a line has no card, and the wild cards are as many as the lines) and ``[missions]``, one a
line: ``player countries armies continent continent continent description``, where a 0 is "none", a ``*``
continent in the n-th place is "n continents in all", and a player number (from 1) is a mission to destroy
that player, which becomes ``countries`` with ``armies`` each if that player is you or is destroyed by
someone else. The cards file's ``.properties`` in our languages (``risk.cards``: ``risk_nb.properties``,
``risk_es.properties``; often the map's own file of names) give a mission's words in that language, keyed by
the mission's first six words (``0-0-0-1-3-0``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from PIL import Image, ImageChops, ImageFilter

from engine.board import DEFAULT_WILDCARDS, MAX_DESCRIPTION, MAX_PLAYERS, MAX_WILDCARDS
from render.regions import pair_box, rough_boxes

from .errors import MapFileError
from .images import open_image
from .package import MapPackage, load_package, slug

MAX_MAP_BYTES = 512 * 1024
MAX_PROPERTIES_BYTES = 1024 * 1024
SYMBOLS = {"infantry": "infantry", "cavalry": "cavalry", "cannon": "artillery", "artillery": "artillery"}
# Colour words Domination maps use for continents (its ``ColorUtil`` knows the first thirteen), in tints
# that suit our map; any other colour is given as a number.
COLOURS = {
    "red": "#e06060", "green": "#70c070", "blue": "#7090e0", "yellow": "#e0d060", "orange": "#e0a050",
    "purple": "#b080d0", "magenta": "#d070c0", "cyan": "#60c8d8", "pink": "#f0a0c0", "brown": "#b08860",
    "white": "#e8e8e8", "gray": "#a0a0a0", "grey": "#a0a0a0", "black": "#606060", "lightgray": "#c8c8c8",
    "darkgray": "#808080", "lime": "#a0e060", "olive": "#b0b060", "teal": "#50a8a0", "navy": "#7080c0",
    "maroon": "#c07070", "silver": "#c0c0c0", "gold": "#e0c050",
}
# Regions this close (in pixels, across or diagonally) share a land border: Domination's region images
# leave a line of "no territory" 1-3 px wide between neighbours, or let them meet only at a corner.
LAND_REACH = 4
# Some maps leave 4 or 5 px between neighbours along a whole border (Eurasien's Tschad–Sudan): regions within
# SEAM_REACH px of each other along at least LONG_SEAM pixels share a land border too. A strait is narrow and
# short (two coasts face each other over a few pixels); a border runs along.
SEAM_REACH = 6
LONG_SEAM = 60
# Regions 4 to 7 px apart (a gap of up to PICTURE_REACH px) may be either: a short land border in a wide line
# (Eurasien's Irak–Jordanien, 5 px) or a strait (the classic board's Gibraltar, Bosporus and Red Sea, 5 px
# too). The region image cannot tell them apart; the picture can, where it draws its borders as lines of one
# colour: a gap drawn in that colour is a border, a gap drawn as the sea is a strait.
PICTURE_REACH = 8
LINE_MATCH = 30       # how near (RGB distance) a colour is to the picture's border line to be that line
LINE_STEADY = 0.6     # the share of the thin seams in the line's colour for a picture to draw its borders as lines
# Our languages and the ``MAP_xx.properties`` files that give them (Java once called Bokmål "no").
PROPERTIES_LANGUAGES = {"nb": ("nb", "no"), "es": ("es",)}


@cache
def _classic_names() -> dict[str, str]:
    """Names of Domination's classic map as it writes them ("North-America", "Great-Britain") and as it
    shows them (its own English translation: "North America"), which are our classic map's names; our
    catalogs then give them in Norwegian and Spanish."""
    from engine import load_map

    board = load_map("classic")
    names = [board.name(t) for t in board.territory_ids] + [c.name for c in board.continents.values()]
    out = {name.replace(" ", "-"): name for name in names if " " in name}
    out["North-West-Territory"] = board.name("northwest_territory")
    return out


@dataclass(frozen=True)
class Parsed:
    files: dict[str, str]
    continents: list[tuple[str, int, str]]
    countries: list[tuple[int, str, int, int, int]]
    borders: dict[int, list[int]]
    header: dict[str, str] = field(default_factory=dict)
    # The words the names were written as (``North-America``), which a properties file translates.
    continent_words: list[str] = field(default_factory=list)
    country_words: list[str] = field(default_factory=list)


def read_text(blob: bytes, name: str, limit: int = MAX_MAP_BYTES) -> str:
    if len(blob) > limit:
        raise MapFileError("The map file {name} is larger than {limit} KB.", name=name, limit=limit // 1024)
    try:
        return blob.decode("utf-8-sig")
    except UnicodeDecodeError:
        return blob.decode("latin-1")


def _sections(text: str) -> dict[str, list[tuple[int, list[str]]]]:
    out: dict[str, list[tuple[int, list[str]]]] = {}
    for current, number, line in _lines(text):
        if line.startswith("[") and line.endswith("]"):
            out.setdefault(line[1:-1].strip().lower(), [])
            continue
        out.setdefault(current, []).append((number, line.split()))
    return out


def _lines(text: str) -> list[tuple[str, int, str]]:
    """Each line that says something, with its section ("" before the first) and number. Only a line that
    starts with ``;`` is a comment, as in Domination: elsewhere a ``;`` is part of the line."""
    out: list[tuple[str, int, str]] = []
    current = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(";"):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip().lower()
        out.append((current, number, line))
    return out


def _files(text: str) -> dict[str, str]:
    """The ``[files]`` section: each key (``pic``, ``map``, ``crd`` ...) and the rest of its line."""
    return _keys(text, "files")


def _keys(text: str, section: str) -> dict[str, str]:
    """``key value`` lines of a section (``""``: the header before the first section), the value the rest
    of the line."""
    out: dict[str, str] = {}
    for current, _number, line in _lines(text):
        parts = line.split(None, 1)
        if current == section and len(parts) == 2 and not line.startswith("["):
            out[parts[0].lower()] = parts[1].strip()     # a later line wins, as in Domination
    return out


def _int(word: str, line: int, name: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise MapFileError("Line {line} of {name}: “{word}” should be a whole number.", line=line, name=name,
                           word=word[:30]) from None


def _name(word: str) -> str:
    """A name as Domination shows it: ``_`` is a space, ``-`` a hyphen (but see ``_classic_names``)."""
    return word.replace("_", " ").strip()[:64]


def _too_many(words: list[str], wanted: int, line: int, name: str) -> None:
    if len(words) > wanted:
        raise MapFileError("Line {line} of {name}: “{word}” is one word too many (a comment is a line of its own, "
                           "starting with ;).", line=line, name=name, word=words[wanted][:30])


def colour_value(word: str) -> str | None:
    """A continent's colour as ``#rrggbb``: a colour word, or a number as Java's ``Integer.decode`` reads it
    (``#`` or ``0x`` hexadecimal, a leading ``0`` octal, else decimal, a sign allowed), as Domination does;
    None for anything else (Domination then picks a colour at random, and so does our renderer)."""
    if word.lower() in COLOURS:
        return COLOURS[word.lower()]
    body = word[1:] if word[:1] in ("+", "-") else word
    if body[:2] in ("0x", "0X"):
        base, digits = 16, body[2:]
    elif body[:1] == "#":
        base, digits = 16, body[1:]
    elif body[:1] == "0" and len(body) > 1:
        base, digits = 8, body[1:]
    else:
        base, digits = 10, body
    allowed = {8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}[base]
    if not digits or any(ch not in allowed for ch in digits):
        return None
    value = int(digits, base) * (-1 if word[:1] == "-" else 1)
    if not -(2 ** 31) <= value < 2 ** 31:
        return None      # more than Java's int holds: Integer.decode refuses it
    return f"#{value & 0xFFFFFF:06x}"


def parse_map_text(text: str, name: str) -> Parsed:
    """The sections of a ``.map`` file, checked for shape (the board itself is checked later)."""
    sections = _sections(text)
    for needed in ("continents", "countries", "borders"):
        if needed not in sections:
            raise MapFileError("{name} has no [{section}] section: is it a Domination map?", name=name,
                               section=needed)
    files = _files(text)
    classic = _classic_names()
    continents, continent_words = [], []
    for line, words in sections["continents"]:
        if len(words) < 2:
            raise MapFileError("Line {line} of {name}: a continent needs a name and a bonus.", line=line, name=name)
        _too_many(words, 3, line, name)
        continent_words.append(words[0])
        colour = colour_value(words[2]) if len(words) > 2 else None
        continents.append((classic.get(words[0]) or _name(words[0]), _int(words[1], line, name), colour or ""))
    countries, country_words = [], []
    for line, words in sections["countries"]:
        if len(words) < 5:
            raise MapFileError("Line {line} of {name}: a country needs an index, a name, a continent and x y.",
                               line=line, name=name)
        _too_many(words, 5, line, name)
        index, continent = _int(words[0], line, name), _int(words[2], line, name)
        x, y = _int(words[3], line, name), _int(words[4], line, name)
        if not 1 <= continent <= len(continents):
            raise MapFileError("Line {line} of {name}: there is no continent {number}.", line=line, name=name,
                               number=continent)
        country_words.append(words[1])
        countries.append((index, classic.get(words[1]) or _name(words[1]), continent, x, y))
    indexes = [c[0] for c in countries]
    if indexes != list(range(1, len(countries) + 1)):
        raise MapFileError("{name}: the countries must be numbered 1, 2, 3 ... in order.", name=name)
    borders: dict[int, list[int]] = {}
    for line, words in sections["borders"]:
        numbers = [_int(w, line, name) for w in words]
        for n in numbers:
            if not 1 <= n <= len(countries):
                raise MapFileError("Line {line} of {name}: there is no country {number}.", line=line, name=name,
                                   number=n)
        borders.setdefault(numbers[0], []).extend(n for n in numbers[1:] if n not in borders.get(numbers[0], []))
    return Parsed(files, continents, countries, borders, _keys(text, ""), continent_words, country_words)


@dataclass(frozen=True)
class CardsFile:
    """A Domination cards file: the symbol of each country's card (a country not listed has none), the number
    of wild cards, and the missions in our format (continents, territories, destroy), each with its words."""

    symbols: dict[int, str]
    wildcards: int
    missions: list[dict[str, Any]]
    # Each mission's code, as a translation of the cards file names it (``0-0-0-1-3-0``: its first six words,
    # the numbers as Java reads them), in the order of ``missions``.
    codes: list[str] = field(default_factory=list)


def parse_cards(text: str, continents: int, countries: int) -> CardsFile:
    """The deck and the missions of a cards file, as Domination deals them (``RiskGame.loadCards``)."""
    sections = _sections(text)
    symbols: dict[int, str] = {}
    wildcards = 0
    for _, words in sections.get("cards", []):
        if words[0].lower() == "wildcard":
            wildcards += 1
            continue
        kind = SYMBOLS.get(words[0].lower())
        if kind and len(words) > 1 and words[1].isdigit() and 1 <= int(words[1]) <= countries:
            symbols[int(words[1])] = kind
    missions: list[dict[str, Any]] = []
    codes: list[str] = []
    for line, words in sections.get("missions", []):
        if len(words) < 6:
            continue
        mission = _mission(line, words, continents, countries)
        if mission is not None:
            description = " ".join(words[6:])[:MAX_DESCRIPTION]
            missions.append({**mission, **({"description": description} if description else {})})
            codes.append("-".join([*(str(int(w)) for w in words[:3]), *words[3:6]]))
    return CardsFile(symbols, min(wildcards, MAX_WILDCARDS), missions, codes)


def mission_translations(cards: CardsFile, files: Mapping[str, bytes], cards_name: str) -> None:
    """Each mission's words in our other languages from the cards file's own ``.properties`` beside it
    (``risk.cards``: ``risk_es.properties``, keyed by the mission's code), as Domination's ``MapTranslator``
    reads them, into its ``descriptions``."""
    by_lower = {n.lower(): n for n in files}
    for language, candidates in properties_names(cards_name).items():
        found = next((by_lower[c.lower()] for c in candidates if c.lower() in by_lower), None)
        if found is None:
            continue
        words = read_properties_blob(files[found], found)
        for mission, code in zip(cards.missions, cards.codes, strict=True):
            text = " ".join(words.get(code, "").split())[:MAX_DESCRIPTION]
            if text:
                mission.setdefault("descriptions", {})[language] = text


def _mission(line: int, words: list[str], continents: int, countries: int) -> dict[str, Any] | None:
    """One mission line in our format, or None for one no game of ours can deal."""
    player, count, armies = (_int(w, line, "cards") for w in words[:3])
    slots = words[3:6]
    if player:
        if player > MAX_PLAYERS:
            return None   # a seat no game has: Domination leaves it out too
        fallback = {"count": min(count, countries), "armies": max(1, armies)} if count > 0 else {}
        return {"kind": "destroy", "seat": player - 1, **fallback}
    if count:
        return {"kind": "territories", "count": min(count, countries), "armies": max(1, armies)}
    numbers = [_int(w, line, "cards") for w in slots if w not in ("0", "*")]
    # A "*" in the n-th place: n continents held in all (Domination's ``checkPlayerOwnesContinentForMission``).
    held = max((n for n, w in enumerate(slots, start=1) if w == "*"), default=0)
    plus_any = max(0, held - len(numbers))
    if (not numbers and not plus_any) or not all(1 <= n <= continents for n in numbers) \
            or len(set(numbers)) + plus_any > continents:
        return None
    return {"kind": "continents", "continents": [f"c{n}" for n in dict.fromkeys(numbers)], "plus_any": plus_any}


WRAP_SHORTER = 0.7   # a sea line goes round the world only if that way is at most this share of the way across
EDGE = 3             # px from the picture's west or east edge within which a region "touches" it


def edge_values(regions: Image.Image, margin: int = EDGE) -> tuple[set[int], set[int]]:
    """The region values that reach the picture's west edge and its east edge."""
    w, h = regions.size

    def held(box: tuple[int, int, int, int]) -> set[int]:
        counts = regions.crop(box).histogram()
        return {v for v in range(1, 256) if counts[v]}

    return held((0, 0, min(w, margin), h)), held((max(0, w - margin), 0, w, h))


def wraps_round(xa: int, xb: int, a: int, b: int, width: int, sides: tuple[set[int], set[int]]) -> bool:
    """Whether the sea line between regions ``a`` (badge at ``xa``) and ``b`` goes round the world: only when
    that way is clearly shorter than across the map and each end reaches the edge it would leave by (a route
    between two coasts that merely lie far apart, Minhiriath–Umbar, is drawn across)."""
    across = abs(xa - xb)
    if width - across > WRAP_SHORTER * across:
        return False
    west, east = (a, b) if xa < xb else (b, a)
    return west in sides[0] and east in sides[1]


def to_our_format(parsed: Parsed, title: str, cards: CardsFile | None,
                  touching: set[tuple[int, int]] | None, width: int | None = None,
                  sides: tuple[set[int], set[int]] = (set(), set())) -> dict[str, Any]:
    """Our map JSON for a parsed ``.map``: ids ``t1, t2 ...`` and ``c1, c2 ...`` (names can repeat), a border
    listed on one side only made one-way, sea lines for borders whose regions do not touch, and the deck and
    missions of the cards file (without one: a card for every country, symbols in turn, and two wilds). On a
    map ``width`` pixels wide, a sea line goes round the world (``"wrap"``: off one edge and in at the other)
    when ``wraps_round`` says so (``sides``: the regions that reach the west and the east edge)."""
    ids = {c[0]: f"t{c[0]}" for c in parsed.countries}
    cycle = ("infantry", "cavalry", "artillery")
    borders = {a: [b for b in nbs if b != a] for a, nbs in parsed.borders.items()}
    one_way = [[ids[a], ids[b]] for a, nbs in sorted(borders.items()) for b in nbs if a not in borders.get(b, [])]
    territories = []
    for index, name, continent, x, y in parsed.countries:
        territories.append({
            "id": ids[index], "name": name, "short": name, "continent": f"c{continent}",
            "card": cards.symbols.get(index) if cards is not None else cycle[(index - 1) % 3], "aliases": [],
            "neighbours": [ids[n] for n in borders.get(index, [])],
            "anchor": [x, y],
        })
    continents = [{"id": f"c{i}", "name": name, "bonus": bonus,
                   "territories": [ids[c[0]] for c in parsed.countries if c[2] == i],
                   **({"colour": COLOURS[colour]} if colour in COLOURS else
                      {"colour": colour} if colour.startswith("#") and len(colour) == 7 else {})}
                  for i, (name, bonus, colour) in enumerate(parsed.continents, start=1)]
    continents = [c for c in continents if c["territories"]]
    anchors = {c[0]: c[3] for c in parsed.countries}
    sea: list[list[str]] = []
    if touching is not None:
        for a, nbs in sorted(borders.items()):
            for b in nbs:   # each border once: a two-way one from its lower end, a one-way one its way
                if (a < b or a not in borders.get(b, [])) and (min(a, b), max(a, b)) not in touching:
                    wraps = width is not None and wraps_round(anchors[a], anchors[b], a, b, width, sides)
                    sea.append([ids[a], ids[b], "wrap"] if wraps else [ids[a], ids[b]])
    data: dict[str, Any] = {"id": slug(title), "name": title, "continents": continents, "territories": territories,
                            "sea_routes": sea, "images": {"regions": "regions"}}
    if one_way:
        data["one_way"] = one_way
    if cards is not None and cards.wildcards != DEFAULT_WILDCARDS:
        data["wildcards"] = cards.wildcards
    if cards is not None and cards.missions:
        data["missions"] = cards.missions
    # Up to 8 players, with at least three territories each.
    data["players"] = {"min": 2, "max": min(8, max(2, len(parsed.countries) // 3))}
    return data


def touching_pairs(regions: Image.Image, reach: int = LAND_REACH, *, seam: int = SEAM_REACH,
                   along: int = LONG_SEAM) -> set[tuple[int, int]]:
    """Pairs of region values (smaller first) with pixels at most ``reach`` pixels apart across, down or
    diagonally (the larger of the two distances), or at most ``seam`` pixels apart along a border: ``along``
    pixels or more of one within ``seam`` of the other.

    For each value, around the box that holds its region: its pixels as a mask, spread ``reach`` pixels
    every way by a box blur (any pixel the blur reaches is no longer 0; the blur repeats the edge pixels,
    which reaches nothing further than the pixels themselves do), and the histogram of the region image
    under that mask, which counts the values that near. One pass over a few times each region's box."""
    w, h = regions.size
    counts = regions.histogram()
    values = [v for v in range(1, 256) if counts[v]]
    if not values:
        return set()
    boxes = rough_boxes(regions, values[-1])
    pairs: set[tuple[int, int]] = set()
    wide = max(reach, seam)
    for a in values:   # at most 255
        x0, y0, x1, y1 = boxes[a]
        around = regions.crop((max(0, x0 - wide), max(0, y0 - wide), min(w, x1 + wide), min(h, y1 + wide)))
        mask = around.point([255 if v == a else 0 for v in range(256)])
        near = around.histogram(mask=mask.filter(ImageFilter.BoxBlur(reach)))
        pairs.update((min(a, b), max(a, b)) for b in range(1, 256) if near[b] and b != a)
        if seam > reach:
            by = around.histogram(mask=mask.filter(ImageFilter.BoxBlur(seam)))
            pairs.update((min(a, b), max(a, b)) for b in range(1, 256) if by[b] >= along and b != a)
    return pairs


def _median(picture: Image.Image, mask: Image.Image) -> tuple[int, int, int] | None:
    """The median colour of ``picture`` ("RGB") under ``mask`` ("L", non-zero: counted); None where it is empty."""
    counts = picture.histogram(mask=mask)
    total = sum(counts[:256])
    if not total:
        return None
    out = []
    for channel in range(3):
        seen, hist = 0, counts[channel * 256:(channel + 1) * 256]
        for value, n in enumerate(hist):
            seen += n
            if 2 * seen >= total:
                out.append(value)
                break
    return out[0], out[1], out[2]


def _distance(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    return float(sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5)


def picture_borders(regions: Image.Image, picture: Image.Image, pairs: set[tuple[int, int]]
                    ) -> dict[tuple[int, int], bool]:
    """For the pairs of region values among ``pairs`` (borders the map declares, whose regions lie more than
    ``LAND_REACH`` px apart) that the picture decides, whether it draws them as a land border (True: regions up
    to ``PICTURE_REACH`` px apart whose gap the picture paints in the colour of its border lines) or as a strait
    (False: the gap painted in the sea's colour). Pairs further apart, or a picture that draws no border lines,
    decide nothing.

    The line's colour is the median of the thin seams (1 or 2 px between two lands, borders for certain); the
    picture draws its borders as lines only if most of those seams are that colour (a satellite picture or a
    shaded one does not, and then nothing is decided here). The sea's colour is the median of the open sea
    (6 px or more from land)."""
    from render.regions import close_seams

    if not pairs:
        return {}
    picture = picture.convert("RGB")
    if picture.size != regions.size:
        picture = picture.resize(regions.size, Image.Resampling.NEAREST)
    sea = regions.point([255] + [0] * 255)
    seams = ImageChops.multiply(close_seams(regions, 2).point([0] + [255] * 255), sea)
    line = _median(picture, seams)
    sea_colour = _median(picture, sea.filter(ImageFilter.BoxBlur(5)).point(lambda v: 255 if v == 255 else 0))
    if line is None or sea_colour is None or seams.histogram()[255] < 50:
        return {}
    red, green, blue = ImageChops.difference(picture, Image.new("RGB", picture.size, line)).split()
    off = ImageChops.lighter(ImageChops.lighter(red, green), blue)      # the largest difference of the three
    steady = picture.histogram(mask=ImageChops.multiply(seams, off.point(lambda v: 255 if v <= LINE_MATCH * 0.6
                                                                         else 0)))
    if sum(steady[:256]) < LINE_STEADY * seams.histogram()[255] or _distance(line, sea_colour) < 2 * LINE_MATCH:
        return {}
    w, h = regions.size
    boxes = rough_boxes(regions, max(max(p) for p in pairs))
    within = touching_pairs(regions, PICTURE_REACH, seam=PICTURE_REACH)     # one pass: the pairs near enough
    out: dict[tuple[int, int], bool] = {}
    for a, b in sorted(pairs & within):
        if a not in boxes or b not in boxes:
            continue
        box = pair_box(boxes, a, b, PICTURE_REACH, (w, h))
        around = regions.crop(box)
        masks = [around.point([255 if v == value else 0 for v in range(256)]) for value in (a, b)]
        open_water = sea.crop(box)
        for k in range(2, PICTURE_REACH // 2 + 1):
            # The middle of the gap: no territory within k px of both (the first k where there is any).
            grown = [m.filter(ImageFilter.BoxBlur(k)).point(lambda v: 255 if v else 0) for m in masks]
            gap = ImageChops.multiply(ImageChops.multiply(grown[0], grown[1]), open_water)
            if gap.getbbox() is None:
                continue
            colour = _median(picture.crop(box), gap)
            if colour is not None:
                out[(a, b)] = _distance(colour, line) <= LINE_MATCH and \
                    2 * _distance(colour, line) < _distance(colour, sea_colour)
            break
    return out


def region_values(image: Image.Image) -> Image.Image:
    """The region image as Domination reads it: each pixel's blue channel is its territory (so a colour
    image may carry the index in its blue), 255 is no territory; ours marks no territory with 0."""
    if image.mode == "L":
        blue = image                      # a grey image's blue is its grey
    else:
        plain = image.copy()
        plain.info.pop("transparency", None)  # a transparent colour is still its colour to Domination
        blue = plain.convert("RGB").getchannel("B")
    return blue.point(lambda v: 0 if v == 255 else v)


def read_properties(text: str) -> dict[str, str]:
    """A Java ``.properties`` file as Java reads one: ``key=value``, ``key: value`` or ``key value``, ``#`` and
    ``!`` comments, a ``\\`` at the end of a line continues it, ``\\uXXXX`` and the other escapes."""
    out: dict[str, str] = {}
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.lstrip(" \t\f")
        if not pending and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2:
            pending += line[:-1]
            continue
        logical.append(pending + line)
        pending = ""
    if pending:
        logical.append(pending)
    for line in logical:
        key, value = _split_property(line)
        out[_unescape(key)] = _unescape(value)     # a later line wins, as in Java
    return out


def _split_property(line: str) -> tuple[str, str]:
    """A logical line's key (up to the first ``=``, ``:`` or blank not escaped) and value."""
    i = 0
    while i < len(line) and line[i] not in "=: \t\f":
        i += 2 if line[i] == "\\" else 1
    key, rest = line[:i], line[i:]
    if rest[:1] in (" ", "\t", "\f"):
        rest = rest.lstrip(" \t\f")
        if rest[:1] in ("=", ":"):
            rest = rest[1:]
    elif rest[:1] in ("=", ":"):
        rest = rest[1:]
    return key, rest.lstrip(" \t\f")


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("u"):
            return chr(int(code[1:], 16)) if len(code) == 5 else code[1:]
        return _ESCAPES.get(code, code)

    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", one, text)


def read_properties_blob(blob: bytes, name: str) -> dict[str, str]:
    """A properties file's bytes: UTF-8 if they are (as Java 9 on reads them), else ISO-8859-1 (Java 8)."""
    if len(blob) > MAX_PROPERTIES_BYTES:
        raise MapFileError("The file {name} is larger than {limit} MB.", name=name,
                           limit=MAX_PROPERTIES_BYTES // (1024 * 1024))
    try:
        return read_properties(blob.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return read_properties(blob.decode("latin-1"))


def properties_names(map_name: str) -> dict[str, tuple[str, ...]]:
    """For each of our languages, the names its ``.properties`` files may have beside ``map_name``
    (``roman_empire.map``: ``roman_empire_es.properties``), as Domination's ``MapTranslator`` looks them up."""
    stem = map_name.rsplit(".", 1)[0]
    return {language: tuple(f"{stem}_{code}.properties" for code in codes)
            for language, codes in PROPERTIES_LANGUAGES.items()}


def translations(parsed: Parsed, files: Mapping[str, bytes], map_name: str) -> dict[str, Any]:
    """Our ``translations`` from the map's own ``MAP_nb.properties`` and ``MAP_es.properties`` among
    ``files``: each key is a continent's or a country's word in the ``.map`` (``North-America``), each value
    its name in that language (``_`` a space, as Domination shows it). A file's other keys (missions) are
    the cards file's."""
    by_lower = {n.lower(): n for n in files}
    held = {c[2] for c in parsed.countries}      # a continent without countries is left out of the map
    out: dict[str, Any] = {}
    for language, candidates in properties_names(map_name).items():
        found = next((by_lower[c.lower()] for c in candidates if c.lower() in by_lower), None)
        if found is None:
            continue
        names = read_properties_blob(files[found], found)
        territories = {f"t{i}": {"name": _name(names[word]), "short": _name(names[word])}
                       for i, word in enumerate(parsed.country_words, start=1)
                       if _name(names.get(word, ""))}
        continents = {f"c{i}": _name(names[word]) for i, word in enumerate(parsed.continent_words, start=1)
                      if i in held and _name(names.get(word, ""))}
        if territories or continents:
            out[language] = {"territories": territories, "continents": continents}
    return out


def import_domination(map_blob: bytes, files: Mapping[str, bytes], name: str = "map.map") -> MapPackage:
    """A Domination ``.map`` file and the files it names (by file name), and its ``.properties`` files of
    names in our languages, as a checked map package."""
    parsed = parse_map_text(read_text(map_blob, name), name)
    region_name = parsed.files.get("map")
    if region_name is None or region_name not in files:
        raise MapFileError("{name} names its region image {image}, but it was not given.", name=name,
                           image=str(region_name)[:60])
    regions = region_values(open_image(files[region_name], region_name))
    cards = None
    cards_name = parsed.files.get("crd")
    if cards_name and cards_name in files:
        cards = parse_cards(read_text(files[cards_name], cards_name), len(parsed.continents), len(parsed.countries))
        mission_translations(cards, files, cards_name)
    title = map_title(parsed, name)
    touching = touching_pairs(regions)
    pic = parsed.files.get("pic")
    if pic and pic in files:   # gaps of 4 to 7 px: the picture has the last word where it draws border lines
        declared = {(min(a, b), max(a, b)) for a, nbs in parsed.borders.items() for b in nbs if a != b}
        near = touching_pairs(regions, seam=LAND_REACH)
        judged = picture_borders(regions, open_image(files[pic], pic), declared - near)
        touching = (touching - judged.keys()) | {pair for pair, land in judged.items() if land}
    data = to_our_format(parsed, title, cards, touching, regions.width, edge_values(regions))
    named = translations(parsed, files, name)
    if named:
        data["translations"] = named
    given = {"regions": _png(regions)}
    if pic and pic in files:
        data["images"]["background"] = "background"
        given["background"] = files[pic]
    return load_package(data, given)


def map_title(parsed: Parsed, file_name: str) -> str:
    """The map's title: the header's ``name`` (``name Classic Risk``), else its file's name in words."""
    given = parsed.header.get("name", "").strip()[:64]     # as written: Domination shows it as it is
    if given:
        return given
    stem = file_name.rsplit(".", 1)[0]
    return stem.replace("_", " ").replace("-", " ").strip()[:64].title() or "Map"


def _png(img: Image.Image) -> bytes:
    from .images import png_bytes

    return png_bytes(img)
