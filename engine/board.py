"""The board: territories, continents and borders, loaded and validated from a map file."""

from __future__ import annotations

import difflib
import json
import unicodedata
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .errors import MapError, UnknownTerritory, clip
from .errors import Territory as Named

MAPS_DIR = Path(__file__).parent / "maps"
CARD_SYMBOLS = ("infantry", "cavalry", "artillery")


@dataclass(frozen=True)
class Territory:
    id: str
    name: str
    short: str
    continent: str
    card: str
    aliases: tuple[str, ...]
    neighbours: frozenset[str]


@dataclass(frozen=True)
class Continent:
    id: str
    name: str
    bonus: int
    territories: tuple[str, ...]


def normalise_name(text: str) -> str:
    """Fold a typed name for matching: case, accents, punctuation and spacing do not matter."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    kept = "".join(ch for ch in decomposed if ch.isalnum())
    return kept.replace("ø", "o").replace("æ", "ae").replace("ß", "ss")


def closest_names(text: str, names: Mapping[str, str], limit: int = 3, cutoff: float = 0.6,
                  margin: float = 0.15) -> list[str]:
    """The ids of up to ``limit`` territories whose names are closest to ``text``, closest first.

    ``names`` maps normalised names (see ``normalise_name``) to territory ids. Names that begin with what is
    typed come first, then names alike by ``difflib``: a ratio of at least ``cutoff``, and no more than
    ``margin`` below the closest one (so "Jpan" suggests Japan, not Spain too).
    """
    key = normalise_name(text)
    if not key:
        return []
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(key)
    prefixed: set[str] = set()
    ratios: dict[str, float] = {}
    for label, tid in names.items():
        if label.startswith(key):
            prefixed.add(tid)
        matcher.set_seq1(label)
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff:
            ratio = matcher.ratio()
            if ratio >= cutoff and ratio > ratios.get(tid, 0.0):
                ratios[tid] = ratio
    top = max(ratios.values(), default=1.0)
    alike = [tid for tid, ratio in ratios.items() if ratio >= top - margin and tid not in prefixed]
    ranked = sorted(prefixed, key=lambda tid: (-ratios.get(tid, 0.0), tid)) + sorted(
        alike, key=lambda tid: (-ratios[tid], tid))
    return ranked[:limit]


class Board:
    """A validated map. Territory and continent ids are stable strings used everywhere."""

    def __init__(self, map_id: str, name: str, territories: list[Territory], continents: list[Continent],
                 sea_routes: list[tuple[str, str]]) -> None:
        self.id = map_id
        self.title = name
        self.territories: dict[str, Territory] = {t.id: t for t in territories}
        self.continents: dict[str, Continent] = {c.id: c for c in continents}
        self.sea_routes = tuple(sea_routes)
        self.territory_ids: tuple[str, ...] = tuple(t.id for t in territories)
        self._names: dict[str, str] = {}
        for t in territories:
            for label in (t.id, t.name, t.short, *t.aliases):
                self._names.setdefault(normalise_name(label), t.id)

    def neighbours(self, territory: str) -> frozenset[str]:
        return self.territories[territory].neighbours

    def adjacent(self, a: str, b: str) -> bool:
        return b in self.territories[a].neighbours

    def name(self, territory: str) -> str:
        return self.territories[territory].name

    def continent_of(self, territory: str) -> Continent:
        return self.continents[self.territories[territory].continent]

    def border_count(self) -> int:
        return sum(len(t.neighbours) for t in self.territories.values()) // 2

    def resolve(self, text: str) -> str:
        """Resolve an id, name or alias typed by a player to a territory id, or raise UnknownTerritory (with the
        closest names as suggestions)."""
        key = normalise_name(text)
        if key in self._names:
            return self._names[key]
        matches = {tid for label, tid in self._names.items() if key and label.startswith(key)}
        if len(matches) == 1:
            return matches.pop()
        if matches:
            names = ", ".join(sorted(self.name(t) for t in matches))
            exc = UnknownTerritory("“{text}” could mean {names}: type more of the name.", text=clip(text),
                                   names=names)
            exc.suggestions = tuple(sorted(matches, key=self.name))
            exc.ambiguous = True
            raise exc
        raise self.unknown(text)

    def suggest(self, text: str, also: Mapping[str, str] | None = None, limit: int = 3) -> list[str]:
        """The territories whose names are closest to ``text``: English names and aliases, and the names in
        ``also`` (normalised names to ids, such as the names in other languages)."""
        names = {**(also or {}), **self._names}
        return [t for t in closest_names(text, names, limit=len(names)) if t in self.territories][:limit]

    def unknown(self, text: str, also: Mapping[str, str] | None = None) -> UnknownTerritory:
        """The refusal of a name that is no territory, suggesting the closest ones (see ``suggest``)."""
        return UnknownTerritory.called(text, [Named(t, self.name(t)) for t in self.suggest(text, also)])


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise MapError(message)


def parse_map(data: dict[str, Any]) -> Board:
    """Build a Board from map data, refusing any map that breaks the shape of a board."""
    _require(isinstance(data, dict), "a map file must hold a JSON object")
    for key in ("id", "continents", "territories"):
        _require(key in data, f"the map has no “{key}”")
    raw_territories = data["territories"]
    ids = [t.get("id") for t in raw_territories]
    seen: set[str] = set()
    for tid in ids:
        _require(isinstance(tid, str) and tid != "", "every territory needs a non-empty string id")
        _require(tid not in seen, f"territory id “{tid}” appears twice")
        seen.add(tid)
    continent_ids: set[str] = set()
    member_of: dict[str, str] = {}
    continents: list[Continent] = []
    for c in data["continents"]:
        cid = c.get("id")
        _require(isinstance(cid, str) and cid != "", "every continent needs a non-empty string id")
        _require(cid not in continent_ids, f"continent id “{cid}” appears twice")
        _require(cid not in seen, f"“{cid}” is both a continent and a territory id")
        continent_ids.add(cid)
        bonus = c.get("bonus")
        _require(isinstance(bonus, int) and bonus >= 0, f"continent “{cid}” needs a bonus of 0 or more")
        members = c.get("territories") or []
        _require(len(members) > 0, f"continent “{cid}” has no territories")
        for tid in members:
            _require(tid in seen, f"continent “{cid}” lists unknown territory “{tid}”")
            _require(tid not in member_of,
                     f"territory “{tid}” is in two continents: “{member_of.get(tid)}” and “{cid}”")
            member_of[tid] = cid
        continents.append(Continent(cid, c.get("name", cid), bonus, tuple(members)))
    territories: list[Territory] = []
    neighbours: dict[str, set[str]] = {}
    for t in raw_territories:
        tid = t["id"]
        _require(tid in member_of, f"territory “{tid}” is in no continent")
        _require(t.get("continent", member_of[tid]) == member_of[tid],
                 f"territory “{tid}” says continent “{t.get('continent')}” but is listed in “{member_of[tid]}”")
        nbs = t.get("neighbours") or []
        for n in nbs:
            _require(n in seen, f"territory “{tid}” borders unknown territory “{n}”")
            _require(n != tid, f"territory “{tid}” borders itself")
        _require(len(set(nbs)) == len(nbs), f"territory “{tid}” lists a neighbour twice")
        neighbours[tid] = set(nbs)
        card = t.get("card", "infantry")
        _require(card in CARD_SYMBOLS, f"territory “{tid}” has unknown card symbol “{card}”")
    for tid, nbs in neighbours.items():
        for n in nbs:
            _require(tid in neighbours[n], f"one-way border: “{tid}” lists “{n}” but “{n}” does not list “{tid}”")
    # The whole board must be one connected graph.
    start = ids[0]
    reached = {start}
    queue = deque([start])
    while queue:
        for n in neighbours[queue.popleft()]:
            if n not in reached:
                reached.add(n)
                queue.append(n)
    missing = sorted(set(ids) - reached)
    _require(not missing, f"the map is not connected: {', '.join(missing)} cannot be reached from “{start}”")
    for t in raw_territories:
        tid = t["id"]
        territories.append(Territory(
            id=tid, name=t.get("name", tid), short=t.get("short", t.get("name", tid)), continent=member_of[tid],
            card=t.get("card", "infantry"), aliases=tuple(t.get("aliases", ())), neighbours=frozenset(neighbours[tid]),
        ))
    sea_routes: list[tuple[str, str]] = []
    for pair in data.get("sea_routes", []):
        _require(len(pair) == 2 and pair[1] in neighbours.get(pair[0], set()),
                 f"sea route {pair} is not a border of the map")
        sea_routes.append((pair[0], pair[1]))
    return Board(data["id"], data.get("name", data["id"]), territories, continents, sea_routes)


def load_map_file(path: str | Path) -> Board:
    """Load and validate a map from a JSON file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise MapError(f"{path} is not valid JSON: {exc}") from exc
    return parse_map(data)


@cache
def load_map(map_id: str = "classic") -> Board:
    """Load one of the maps shipped with the engine by id (cached)."""
    path = MAPS_DIR / f"{map_id}.json"
    if not path.is_file():
        raise MapError(f"there is no map called “{map_id}”")
    return load_map_file(path)
