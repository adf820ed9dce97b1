"""Importing Domination (and Lux-style) ``.map`` files into our format.

A ``.map`` file is text in sections:

* ``[files]``: ``pic`` the picture, ``map`` the region image (each territory's pixels carry its index, from
  1; 255 and 0 are no territory), ``crd`` the cards and missions file;
* ``[continents]``: one a line, ``name bonus colour`` (in that order; the n-th line is continent n);
* ``[countries]``: ``index name continent x y``;
* ``[borders]``: ``index neighbour neighbour ...``.

Names write spaces as ``-`` or ``_``. Lines starting with ``;`` are comments. A border listed on one side only
may be crossed only that way (ours: ``one_way``). The cards file has ``[cards]`` (``Infantry|Cavalry|Cannon
index``, ``Wildcard``: the deck exactly, so a country without a line has no card, and the wild cards are as
many as the lines) and ``[missions]``, one a line: ``player countries armies continent continent continent
description``, where a 0 is "none", a ``*`` continent in the n-th place is "n continents in all", and a player
number (from 1) is a mission to destroy that player, which becomes ``countries`` with ``armies`` each if that
player is you or is destroyed by someone else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from PIL import Image

from engine.board import DEFAULT_WILDCARDS, MAX_DESCRIPTION, MAX_PLAYERS, MAX_WILDCARDS

from .errors import MapFileError
from .images import open_image
from .package import MapPackage, load_package, slug

MAX_MAP_BYTES = 512 * 1024
SYMBOLS = {"infantry": "infantry", "cavalry": "cavalry", "cannon": "artillery", "artillery": "artillery"}
# Colour words Domination maps use for continents.
COLOURS = {
    "red": "#e06060", "green": "#70c070", "blue": "#7090e0", "yellow": "#e0d060", "orange": "#e0a050",
    "purple": "#b080d0", "magenta": "#d070c0", "cyan": "#60c8d8", "pink": "#f0a0c0", "brown": "#b08860",
    "white": "#e8e8e8", "gray": "#a0a0a0", "grey": "#a0a0a0", "black": "#606060", "lightgray": "#c8c8c8",
    "darkgray": "#808080", "lime": "#a0e060", "olive": "#b0b060", "teal": "#50a8a0", "navy": "#7080c0",
    "maroon": "#c07070", "silver": "#c0c0c0", "gold": "#e0c050",
}


@dataclass(frozen=True)
class Parsed:
    files: dict[str, str]
    continents: list[tuple[str, int, str]]
    countries: list[tuple[int, str, int, int, int]]
    borders: dict[int, list[int]]


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
    """Each line that says something, with its section and number. A line that starts with ``;`` is a comment;
    elsewhere ``;`` starts one too, except in ``[files]``, whose values are the rest of the line as Domination
    reads them (a file name may hold spaces or a ``;``)."""
    out: list[tuple[str, int, str]] = []
    current = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        whole = raw.strip()
        if whole.startswith(";"):
            continue
        line = whole if current == "files" else raw.split(";", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip().lower()
        out.append((current, number, line))
    return out


def _files(text: str) -> dict[str, str]:
    """The ``[files]`` section: each key (``pic``, ``map``, ``crd`` ...) and the rest of its line."""
    out: dict[str, str] = {}
    for section, _number, line in _lines(text):
        parts = line.split(None, 1)
        if section == "files" and len(parts) == 2 and not line.startswith("["):
            out[parts[0].lower()] = parts[1].strip()
    return out


def _int(word: str, line: int, name: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise MapFileError("Line {line} of {name}: “{word}” should be a whole number.", line=line, name=name,
                           word=word[:30]) from None


def _name(word: str) -> str:
    return word.replace("_", " ").replace("-", " ").strip()[:64]


def parse_map_text(text: str, name: str) -> Parsed:
    """The sections of a ``.map`` file, checked for shape (the board itself is checked later)."""
    sections = _sections(text)
    for needed in ("continents", "countries", "borders"):
        if needed not in sections:
            raise MapFileError("{name} has no [{section}] section: is it a Domination map?", name=name,
                               section=needed)
    files = _files(text)
    continents = []
    for line, words in sections["continents"]:
        if len(words) < 2:
            raise MapFileError("Line {line} of {name}: a continent needs a name and a bonus.", line=line, name=name)
        continents.append((_name(words[0]), _int(words[1], line, name), words[2].lower() if len(words) > 2 else ""))
    countries = []
    for line, words in sections["countries"]:
        if len(words) < 5:
            raise MapFileError("Line {line} of {name}: a country needs an index, a name, a continent and x y.",
                               line=line, name=name)
        index, continent = _int(words[0], line, name), _int(words[2], line, name)
        x, y = _int(words[3], line, name), _int(words[4], line, name)
        if not 1 <= continent <= len(continents):
            raise MapFileError("Line {line} of {name}: there is no continent {number}.", line=line, name=name,
                               number=continent)
        countries.append((index, _name(words[1]), continent, x, y))
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
    return Parsed(files, continents, countries, borders)


@dataclass(frozen=True)
class CardsFile:
    """A Domination cards file: the symbol of each country's card (a country not listed has none), the number
    of wild cards, and the missions in our format (continents, territories, destroy), each with its words."""

    symbols: dict[int, str]
    wildcards: int
    missions: list[dict[str, Any]]


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
    for line, words in sections.get("missions", []):
        if len(words) < 6:
            continue
        mission = _mission(line, words, continents, countries)
        if mission is not None:
            description = " ".join(words[6:])[:MAX_DESCRIPTION]
            missions.append({**mission, **({"description": description} if description else {})})
    return CardsFile(symbols, min(wildcards, MAX_WILDCARDS), missions)


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


def to_our_format(parsed: Parsed, title: str, cards: CardsFile | None,
                  touching: set[tuple[int, int]] | None) -> dict[str, Any]:
    """Our map JSON for a parsed ``.map``: ids ``t1, t2 ...`` and ``c1, c2 ...`` (names can repeat), a border
    listed on one side only made one-way, sea lines for borders whose regions do not touch, and the deck and
    missions of the cards file (without one: a card for every country, symbols in turn, and two wilds)."""
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
    sea = []
    if touching is not None:
        for a, nbs in sorted(borders.items()):
            for b in nbs:   # each border once: a two-way one from its lower end, a one-way one its way
                if (a < b or a not in borders.get(b, [])) and (min(a, b), max(a, b)) not in touching:
                    sea.append([ids[a], ids[b]])
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


def touching_pairs(regions: Image.Image) -> set[tuple[int, int]]:
    """Pairs of region values (smaller first) whose pixels touch, side by side or one above the other:
    the image beside itself shifted by a pixel, as a two-band image whose colours are the pairs."""
    w, h = regions.size
    pairs: set[tuple[int, int]] = set()
    for first, second in (((0, 0, w - 1, h), (1, 0, w, h)), ((0, 0, w, h - 1), (0, 1, w, h))):
        both = Image.merge("LA", (regions.crop(first), regions.crop(second)))
        # A two-band image: each colour is a pair of values (Pillow declares a number too, for one band).
        colours = cast("list[tuple[int, tuple[int, int]]] | None", both.getcolors(maxcolors=65536))
        for _, (a, b) in colours or []:
            if a != b and a and b:
                pairs.add((min(a, b), max(a, b)))
    return pairs


def import_domination(map_blob: bytes, files: Mapping[str, bytes], name: str = "map.map") -> MapPackage:
    """A Domination ``.map`` file and the files it names (by file name) as a checked map package."""
    parsed = parse_map_text(read_text(map_blob, name), name)
    region_name = parsed.files.get("map")
    if region_name is None or region_name not in files:
        raise MapFileError("{name} names its region image {image}, but it was not given.", name=name,
                           image=str(region_name)[:60])
    raw = open_image(files[region_name], region_name).convert("L")
    # Domination marks "no territory" with 255; ours with 0.
    regions = raw.point(lambda v: 0 if v == 255 else v)
    cards = None
    cards_name = parsed.files.get("crd")
    if cards_name and cards_name in files:
        cards = parse_cards(read_text(files[cards_name], cards_name), len(parsed.continents), len(parsed.countries))
    title = _name(name.rsplit(".", 1)[0]).title() or "Map"
    data = to_our_format(parsed, title, cards, touching_pairs(regions))
    given = {"regions": _png(regions)}
    pic = parsed.files.get("pic")
    if pic and pic in files:
        data["images"]["background"] = "background"
        given["background"] = files[pic]
    return load_package(data, given)


def _png(img: Image.Image) -> bytes:
    from .images import png_bytes

    return png_bytes(img)
