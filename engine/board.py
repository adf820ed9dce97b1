"""The board: territories, continents and borders, loaded and validated from a map file."""

from __future__ import annotations

import difflib
import json
import math
import unicodedata
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeGuard

from .errors import MapError, UnknownTerritory, clip
from .errors import Territory as Named

MAPS_DIR = Path(__file__).parent / "maps"
CARD_SYMBOLS = ("infantry", "cavalry", "artillery")
MIN_PLAYERS = 2
MAX_PLAYERS = 8                 # the most seats any map may declare
DEFAULT_MAX_PLAYERS = 6         # a map that declares nothing is played by 2 to 6
LANGUAGES = ("en", "nb", "es")  # languages a map file may give names in
MISSION_KINDS = ("continents", "territories", "destroy")
MAX_TERRITORIES = 200           # the renderer's palette holds each territory's fill and edge shades
DEFAULT_WILDCARDS = 2           # the classic deck's wild cards
MAX_WILDCARDS = 200             # as many as a map may have territories (Domination's Ameroki has 66)
MAX_DESCRIPTION = 400           # characters of a mission's own text
MAX_CONTINENTS = 32
PLAYER_KEYS = frozenset(("min", "max"))


@dataclass(frozen=True)
class Territory:
    id: str
    name: str
    short: str
    continent: str
    card: str | None            # its card's symbol, or None: the territory has no card in the deck
    aliases: tuple[str, ...]
    neighbours: frozenset[str]  # where it may attack or move to (a one-way border only in its direction)


@dataclass(frozen=True)
class Continent:
    id: str
    name: str
    bonus: int
    territories: tuple[str, ...]


# Characters that reorder or hide the text around them (bidirectional overrides, isolates and marks).
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def plain_text(text: str) -> str:
    """``text`` without control characters: bidirectional overrides and the other invisible controls go, line
    breaks and tabs become spaces (a name is one line)."""
    out = []
    for ch in text:
        if ch in BIDI_CONTROLS:
            continue
        category = unicodedata.category(ch)
        if ch.isspace() and ch != " ":
            out.append(" ")
        elif category not in ("Cc", "Cs", "Co", "Cn") and ch not in "\u2028\u2029\ufeff":
            out.append(ch)
    return "".join(out)


def wild_card_ids(count: int) -> tuple[str, ...]:
    """The ids of a deck's wild cards: ``wild_1``, ``wild_2`` ... (the classic deck has two)."""
    return tuple(f"wild_{n}" for n in range(1, count + 1))


def _finite_point(value: object) -> bool:
    """Whether ``value`` is a position ``[x, y]`` of two finite numbers."""
    return isinstance(value, list) and len(value) == 2 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)


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
                 sea_routes: list[tuple[str, str]], *, players: tuple[int, int] = (MIN_PLAYERS, DEFAULT_MAX_PLAYERS),
                 missions: tuple[dict[str, Any], ...] = (),
                 translations: Mapping[str, Mapping[str, Any]] | None = None,
                 one_way: Iterable[tuple[str, str]] = (), wildcards: int = DEFAULT_WILDCARDS) -> None:
        self.id = map_id
        self.title = name
        self.players = players           # (fewest, most) players the map is played by
        self.missions = missions         # the map's own mission cards (destroy cards are added per seat)
        # Names in other languages: {"nb": {"name": ..., "territories": {id: {"name", "short"}},
        # "continents": {id: name}}}
        self.translations: dict[str, Mapping[str, Any]] = dict(translations or {})
        self.territories: dict[str, Territory] = {t.id: t for t in territories}
        self.continents: dict[str, Continent] = {c.id: c for c in continents}
        self.sea_routes = tuple(sea_routes)
        self.territory_ids: tuple[str, ...] = tuple(t.id for t in territories)
        # Borders that may be crossed one way only, (from, to): ``to`` is among ``from``'s neighbours, not back.
        self.one_way: frozenset[tuple[str, str]] = frozenset(one_way)
        self.wild_cards: tuple[str, ...] = wild_card_ids(wildcards)   # the deck's wild cards, by id
        self._wilds = frozenset(self.wild_cards)
        attackers: dict[str, set[str]] = {t.id: set() for t in territories}
        for t in territories:
            for n in t.neighbours:
                attackers[n].add(t.id)
        # Who may attack (or move into) each territory: its neighbours but for one-way borders.
        self._attackers = {tid: (self.territories[tid].neighbours if froms == self.territories[tid].neighbours
                                 else frozenset(froms)) for tid, froms in attackers.items()}
        self._names: dict[str, str] = {}
        for t in territories:
            for label in (t.id, t.name, t.short, *t.aliases):
                self._names.setdefault(normalise_name(label), t.id)

    def neighbours(self, territory: str) -> frozenset[str]:
        """Where ``territory`` may attack or move to (across a one-way border only in its direction)."""
        return self.territories[territory].neighbours

    def attackers(self, territory: str) -> frozenset[str]:
        """Who may attack (or move into) ``territory``: the territories that list it as a neighbour."""
        return self._attackers[territory]

    def touching(self, territory: str) -> frozenset[str]:
        """Every territory across a border from ``territory``, whichever way the border may be crossed."""
        out, back = self.territories[territory].neighbours, self._attackers[territory]
        return out if out is back else out | back

    def adjacent(self, a: str, b: str) -> bool:
        """Whether ``a`` may attack or move to ``b`` (a one-way border only in its direction)."""
        return b in self.territories[a].neighbours

    def is_wild(self, card: str) -> bool:
        """Whether ``card`` is one of this deck's wild cards."""
        return card in self._wilds

    def name(self, territory: str) -> str:
        return self.territories[territory].name

    def territory_name_in(self, language: str, territory: str, *, short: bool = False) -> str | None:
        """The territory's name in ``language`` as the map file gives it, or None."""
        names = self.translations.get(language, {}).get("territories", {}).get(territory, {})
        found = names.get("short" if short else "name") or (names.get("name") if short else None)
        return str(found) if found else None

    def continent_name_in(self, language: str, continent: str) -> str | None:
        """The continent's name in ``language`` as the map file gives it, or None."""
        found = self.translations.get(language, {}).get("continents", {}).get(continent)
        return str(found) if found else None

    def title_in(self, language: str) -> str:
        """The map's name in ``language`` (the English one when the file gives none)."""
        return str(self.translations.get(language, {}).get("name") or self.title)

    @property
    def has_missions(self) -> bool:
        return bool(self.missions)

    @property
    def has_destroy_missions(self) -> bool:
        """Whether the map lists its own destroy cards (then no destroy card is added per seat)."""
        return any(m["kind"] == "destroy" for m in self.missions)

    @property
    def mission_fallback(self) -> int:
        """The territories a destroy mission that cannot be played stands for: the map's first territories
        mission (24 on the classic map), else four sevenths of the map."""
        for mission in self.missions:
            if mission["kind"] == "territories":
                return int(mission["count"])
        return max(1, round(len(self.territory_ids) * 4 / 7))

    def continent_of(self, territory: str) -> Continent:
        return self.continents[self.territories[territory].continent]

    def border_count(self) -> int:
        """How many borders the map has (a one-way border is one)."""
        return (sum(len(t.neighbours) for t in self.territories.values()) + len(self.one_way)) // 2

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


def _require(cond: bool, template: str, **params: object) -> None:
    """Refuse the map unless ``cond``: ``template`` is the English refusal, translated by the Discord layer."""
    if not cond:
        raise MapError(template, **params)


def parse_map(data: dict[str, Any]) -> Board:
    """Build a Board from map data, refusing any map that breaks the shape of a board."""
    _require(isinstance(data, dict), "a map file must hold a JSON object")
    for key in ("id", "continents", "territories"):
        _require(key in data, "the map has no “{key}”", key=key)
    _require(isinstance(data["id"], str) and 0 < len(data["id"]) <= 64,
             "the map's id must be text of 1 to 64 characters")
    _require(isinstance(data.get("name", ""), str), "the map's name must be text")
    raw_territories = data["territories"]
    _require(isinstance(raw_territories, list) and all(isinstance(t, dict) for t in raw_territories),
             "“territories” must be a list of objects")
    _require(isinstance(data["continents"], list) and all(isinstance(c, dict) for c in data["continents"]),
             "“continents” must be a list of objects")
    _require(2 <= len(raw_territories) <= MAX_TERRITORIES,
             "a map has 2 to {most} territories, not {count}", most=MAX_TERRITORIES, count=len(raw_territories))
    _require(1 <= len(data["continents"]) <= MAX_CONTINENTS,
             "a map has 1 to {most} continents, not {count}", most=MAX_CONTINENTS, count=len(data['continents']))
    for t in raw_territories:
        for key in ("name", "short", "continent", "card"):
            if key == "card" and t.get(key, "") is None:
                continue   # a territory without a card in the deck
            _require(isinstance(t.get(key, ""), str) and len(t.get(key, "")) <= 64,
                     "a territory's “{key}” must be text of at most 64 characters", key=key)
        _require(_texts(t.get("neighbours", [])) and _texts(t.get("aliases", [])),
                 "a territory's neighbours and aliases must be lists of text")
        for key in ("anchor", "label"):
            _require(key not in t or _finite_point(t[key]),
                     "the “{key}” of territory “{territory}” must be two finite numbers [x, y]", key=key,
                     territory=clip(str(t.get("id")), 40))
    for c in data["continents"]:
        _require(_texts(c.get("territories", [])) and isinstance(c.get("name", ""), str),
                 "a continent's territories must be a list of ids and its name text")
        _require("label" not in c or _finite_point(c["label"]),
                 "the “{key}” of continent “{continent}” must be two finite numbers [x, y]", key="label",
                 continent=clip(str(c.get("id")), 40))
    for key in ("sea_routes", "missions", "one_way"):
        _require(isinstance(data.get(key, []), list), "“{key}” must be a list", key=key)
    wildcards = data.get("wildcards", DEFAULT_WILDCARDS)
    _require(_whole(wildcards) and 0 <= wildcards <= MAX_WILDCARDS,
             "“wildcards” must be a whole number from 0 to {most}", most=MAX_WILDCARDS)
    _require(isinstance(data.get("translations", {}), dict), "“{key}” must be an object", key="translations")
    ids = [t.get("id") for t in raw_territories]
    seen: set[str] = set()
    for tid in ids:
        _require(isinstance(tid, str) and tid != "", "every territory needs a non-empty string id")
        _require(len(tid) <= 64, "a territory id has at most 64 characters")
        _require(tid not in seen, "territory id “{territory}” appears twice", territory=tid)
        _require(tid not in wild_card_ids(wildcards), "“{territory}” is the id of a wild card, not of a territory",
                 territory=tid)
        seen.add(tid)
    continent_ids: set[str] = set()
    member_of: dict[str, str] = {}
    continents: list[Continent] = []
    for c in data["continents"]:
        cid = c.get("id")
        _require(isinstance(cid, str) and 0 < len(cid) <= 64, "every continent needs a string id of 1 to 64 characters")
        _require(cid not in continent_ids, "continent id “{continent}” appears twice", continent=cid)
        _require(cid not in seen, "“{continent}” is both a continent and a territory id", continent=cid)
        continent_ids.add(cid)
        bonus = c.get("bonus")
        _require(isinstance(bonus, int) and not isinstance(bonus, bool) and 0 <= bonus <= 100,
                 "continent “{continent}” needs a bonus from 0 to 100", continent=cid)
        members = c.get("territories") or []
        _require(len(members) > 0, "continent “{continent}” has no territories", continent=cid)
        for tid in members:
            _require(tid in seen, "continent “{continent}” lists unknown territory “{territory}”",
                                  continent=cid, territory=tid)
            _require(tid not in member_of,
                     "territory “{territory}” is in two continents: “{first}” and “{continent}”",
                     territory=tid, first=member_of.get(tid), continent=cid)
            member_of[tid] = cid
        continents.append(Continent(cid, c.get("name", cid), bonus, tuple(members)))
    territories: list[Territory] = []
    neighbours: dict[str, set[str]] = {}
    for t in raw_territories:
        tid = t["id"]
        _require(tid in member_of, "territory “{territory}” is in no continent", territory=tid)
        _require(t.get("continent", member_of[tid]) == member_of[tid],
                 "territory “{territory}” says continent “{said}” but is listed in “{listed}”",
                 territory=tid, said=t.get('continent'), listed=member_of[tid])
        nbs = t.get("neighbours") or []
        for n in nbs:
            _require(n in seen, "territory “{territory}” borders unknown territory “{other}”", territory=tid, other=n)
            _require(n != tid, "territory “{territory}” borders itself", territory=tid)
        _require(len(set(nbs)) == len(nbs), "territory “{territory}” lists a neighbour twice", territory=tid)
        neighbours[tid] = set(nbs)
        card = t.get("card", "infantry")
        _require(card is None or card in CARD_SYMBOLS, "territory “{territory}” has unknown card symbol “{card}”",
                 territory=tid, card=card)
    one_way = _one_way(data.get("one_way", []), neighbours)
    for tid, nbs in neighbours.items():
        for n in nbs:
            _require(tid in neighbours[n] or (tid, n) in one_way,
                     "one-way border: “{territory}” lists “{other}” but “{other}” does not list “{territory}”",
                     territory=tid, other=n)
    # The whole board must be one connected graph (a one-way border joins it too).
    touching: dict[str, set[str]] = {tid: set(nbs) for tid, nbs in neighbours.items()}
    for a, b in one_way:
        touching[b].add(a)
    start = ids[0]
    reached = {start}
    queue = deque([start])
    while queue:
        for n in touching[queue.popleft()]:
            if n not in reached:
                reached.add(n)
                queue.append(n)
    missing = sorted(set(ids) - reached)
    _require(not missing, "the map is not connected: {missing} cannot be reached from “{start}”",
                          missing=clip(', '.join(missing)), start=start)
    for t in raw_territories:
        tid = t["id"]
        territories.append(Territory(
            id=tid, name=t.get("name", tid), short=t.get("short", t.get("name", tid)), continent=member_of[tid],
            card=t.get("card", "infantry"), aliases=tuple(t.get("aliases", ())), neighbours=frozenset(neighbours[tid]),
        ))
    sea_routes: list[tuple[str, str]] = []
    for pair in data.get("sea_routes", []):
        _require(isinstance(pair, list) and len(pair) in (2, 3) and _texts(pair) and pair[0] in neighbours
                 and pair[1] in neighbours and (pair[1] in neighbours[pair[0]] or pair[0] in neighbours[pair[1]]),
                 "sea route {route} is not a border of the map", route=clip(str(pair), 60))
        _require(len(pair) == 2 or pair[2] == "wrap", "a sea route's third element can only be “wrap”")
        sea_routes.append((pair[0], pair[1]))
    players = _players(data.get("players"), len(ids))
    missions = tuple(_mission(m, continent_ids, len(ids)) for m in data.get("missions", []))
    translations = _translations(data.get("translations"), seen, continent_ids)
    aliases = _aliases_by_language(data.get("translations"))
    territories = [Territory(t.id, t.name, t.short, t.continent, t.card,
                             t.aliases + tuple(a for a in aliases.get(t.id, ()) if a not in t.aliases), t.neighbours)
                   for t in territories]
    return Board(data["id"], data.get("name", data["id"]), territories, continents, sea_routes, players=players,
                 missions=missions, translations=translations, one_way=sorted(one_way), wildcards=wildcards)


def _one_way(raw: object, neighbours: Mapping[str, set[str]]) -> set[tuple[str, str]]:
    """The map's one-way borders ``[from, to]``: ``from`` lists ``to`` as a neighbour and ``to`` does not list
    ``from`` (a border listed on one side only and not declared here is refused, as a typo)."""
    out: set[tuple[str, str]] = set()
    for pair in raw if isinstance(raw, list) else ():
        _require(isinstance(pair, list) and len(pair) == 2 and _texts(pair),
                 "a one-way border must be two territory ids [from, to], not {border}", border=clip(str(pair), 60))
        a, b = pair
        _require(a in neighbours and b in neighbours, "one-way border {border} names an unknown territory",
                 border=clip(str(pair), 60))
        _require(b in neighbours[a] and a not in neighbours[b],
                 "one-way border {border}: “{territory}” must list “{other}” as a neighbour and “{other}” must not "
                 "list “{territory}”", border=clip(str(pair), 60), territory=a, other=b)
        _require((a, b) not in out, "one-way border {border} appears twice", border=clip(str(pair), 60))
        out.add((a, b))
    return out


def _texts(items: object) -> bool:
    """Whether ``items`` is a list of strings."""
    return isinstance(items, list) and all(isinstance(i, str) for i in items)


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _players(raw: object, territories: int) -> tuple[int, int]:
    """The fewest and most players of a map: as declared, or 2 to 6 (at most one player a territory)."""
    if raw is None:
        return (MIN_PLAYERS, max(MIN_PLAYERS, min(DEFAULT_MAX_PLAYERS, territories)))
    _require(isinstance(raw, dict) and set(raw) <= PLAYER_KEYS,
             "“players” must be an object with “min” and “max”")
    assert isinstance(raw, dict)
    low, high = raw.get("min", MIN_PLAYERS), raw.get("max", DEFAULT_MAX_PLAYERS)
    _require(_whole(low) and _whole(high) and MIN_PLAYERS <= low <= high <= MAX_PLAYERS,
             "the map's players must be from {low} to {high}, the fewest first", low=MIN_PLAYERS, high=MAX_PLAYERS)
    # Each army starts on a territory of its own: every player's, and the neutral army's in a game of two.
    armies = max(high, 3) if low == 2 else high
    _require(armies <= territories, "the map has {count} territories, too few for {armies} armies: each player, "
             "and the neutral army of a game of two, starts on one at least", count=territories, armies=armies)
    return (low, high)


def _mission(raw: object, continents: set[str], territory_count: int) -> dict[str, Any]:
    """One of the map's mission cards, checked and written as the engine deals it (see engine.missions)."""
    _require(isinstance(raw, dict) and raw.get("kind") in MISSION_KINDS,
             "every mission needs a kind: {kinds}", kinds=', '.join(MISSION_KINDS))
    assert isinstance(raw, dict)
    description = raw.get("description")
    _require(description is None or (isinstance(description, str) and len(description) <= MAX_DESCRIPTION),
             "a mission's description must be text of at most {most} characters", most=MAX_DESCRIPTION)
    descriptions = raw.get("descriptions", {})
    _require(isinstance(descriptions, dict) and set(descriptions) <= set(LANGUAGES)
             and all(isinstance(v, str) and 0 < len(v) <= MAX_DESCRIPTION for v in descriptions.values()),
             "a mission's descriptions must be an object of texts of at most {most} characters keyed by language: "
             "{languages}", most=MAX_DESCRIPTION, languages=', '.join(LANGUAGES))
    card = _mission_card(raw, continents, territory_count)
    if description:
        card["description"] = description
    if descriptions:
        card["descriptions"] = dict(sorted(descriptions.items()))
    return card


def _mission_card(raw: dict[str, Any], continents: set[str], territory_count: int) -> dict[str, Any]:
    if raw["kind"] == "destroy":
        seat, count, armies = raw.get("seat"), raw.get("count"), raw.get("armies", 1)
        # Any seat a game may have: a card naming a seat not in play is left out of the deck (engine.missions).
        _require(_whole(seat) and 0 <= seat < MAX_PLAYERS,
                 "a destroy mission needs the seat it names, from 0 to {last}", last=MAX_PLAYERS - 1)
        _require(count is None or (_whole(count) and 1 <= count <= territory_count),
                 "a destroy mission's “count” (the territories it becomes) must be 1 to {count}",
                 count=territory_count)
        _require(_whole(armies) and 1 <= armies <= 100, "a destroy mission's armies must be 1 to 100")
        card: dict[str, Any] = {"id": f"destroy-{seat}", "kind": "destroy", "seat": seat}
        if count is not None:
            card.update(count=count, armies=armies)
        return card
    if raw["kind"] == "continents":
        chosen = raw.get("continents")
        _require(isinstance(chosen, list) and all(isinstance(c, str) for c in chosen),
                 "a continents mission needs a list of different continents")
        assert isinstance(chosen, list)
        _require(len(chosen) <= len(continents)
                 and len(set(chosen)) == len(chosen), "a continents mission needs a list of different continents")
        for cid in chosen:
            _require(cid in continents, "a mission names unknown continent “{continent}”", continent=clip(str(cid), 40))
        plus_any = raw.get("plus_any", 0)
        # ``plus_any``: that many more continents of the player's choice (Domination's "*"), at least one in all.
        _require(_whole(plus_any) and plus_any >= 0 and 1 <= len(chosen) + plus_any <= len(continents),
                 "a continents mission's “plus_any” (continents of your choice) must leave that many to choose, "
                 "and the mission must ask for a continent at least")
        ident = "+".join([*chosen, *["any"] * plus_any])
        return {"id": ident, "kind": "continents", "continents": list(chosen), "plus_any": plus_any}
    count, armies = raw.get("count"), raw.get("armies", 1)
    _require(_whole(count) and 1 <= count <= territory_count,
             "a territories mission needs a count from 1 to {count}", count=territory_count)
    _require(_whole(armies) and 1 <= armies <= 100, "a territories mission's armies must be 1 to 100")
    ident = f"territories-{count}" + (f"x{armies}" if armies > 1 else "")
    return {"id": ident, "kind": "territories", "count": count, "armies": armies}


def _translations(raw: object, territories: set[str], continents: set[str]) -> dict[str, dict[str, Any]]:
    if raw is None:
        return {}
    _require(isinstance(raw, dict) and set(raw) <= set(LANGUAGES),
             "“translations” must be an object keyed by language: {languages}", languages=', '.join(LANGUAGES))
    assert isinstance(raw, dict)
    out: dict[str, dict[str, Any]] = {}
    for language, entry in raw.items():
        _require(isinstance(entry, dict) and isinstance(entry.get("territories", {}), dict)
                 and isinstance(entry.get("continents", {}), dict), "the {language} translations must be objects",
                 language=language)
        names: dict[str, dict[str, str]] = {}
        for tid, given in (entry.get("territories") or {}).items():
            _require(tid in territories, "the {language} translations name unknown territory “{territory}”",
                                         language=language, territory=clip(str(tid), 40))
            _require(isinstance(given, dict) and all(isinstance(given.get(k, ""), str) for k in ("name", "short"))
                     and _texts(given.get("aliases", [])),
                     "the {language} name of “{territory}” must be an object with “name”, “short” and “aliases”",
                     language=language, territory=tid)
            names[tid] = {k: given[k] for k in ("name", "short") if given.get(k)}
        conts: dict[str, str] = {}
        for cid, name in (entry.get("continents") or {}).items():
            _require(cid in continents, "the {language} translations name unknown continent “{continent}”",
                                        language=language, continent=clip(str(cid), 40))
            _require(isinstance(name, str), "the {language} name of continent “{continent}” must be text",
                                            language=language, continent=cid)
            conts[cid] = name
        title = entry.get("name", "")
        _require(isinstance(title, str), "the {language} name of the map must be text", language=language)
        out[language] = {"name": title, "territories": names, "continents": conts}
    return out


def _aliases_by_language(raw: object) -> dict[str, tuple[str, ...]]:
    """Every translated name and alias of each territory, so players may type a name in any language."""
    out: dict[str, list[str]] = {}
    for entry in (raw or {}).values() if isinstance(raw, dict) else ():
        for tid, given in (entry.get("territories") or {}).items():
            for label in (given.get("name"), given.get("short"), *(given.get("aliases") or ())):
                if isinstance(label, str) and label and label not in out.setdefault(tid, []):
                    out[tid].append(label)
    return {tid: tuple(labels) for tid, labels in out.items()}


def load_map_file(path: str | Path) -> Board:
    """Load and validate a map from a JSON file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise MapError(f"{path} is not valid JSON: {exc}") from exc
    return parse_map(data)


# Maps that are not shipped with the engine (a server's own maps), by id. Their ids carry a digest of their
# content, so one id always means one board and a game's log replays on the board it was played on.
_registered: dict[str, Board] = {}


def register_map(board: Board) -> None:
    """Make a validated board known to ``load_map`` by its id (a server's map, loaded from the store)."""
    _require(not (MAPS_DIR / f"{board.id}.json").is_file(), "“{map}” is the id of a built-in map", map=board.id)
    _registered[board.id] = board


def registered_maps() -> tuple[Board, ...]:
    """The boards made known with ``register_map`` (not the built-in ones), in the order they were."""
    return tuple(_registered.values())


def registered_map(map_id: str) -> Board | None:
    """The board with this id if it is built in or registered, else None (never raises)."""
    try:
        return load_map(map_id)
    except MapError:
        return None


def builtin_maps() -> tuple[str, ...]:
    """The ids of the maps shipped with the engine."""
    return tuple(sorted(p.stem for p in MAPS_DIR.glob("*.json")))


def load_map(map_id: str = "classic") -> Board:
    """A map by id: one shipped with the engine (loaded once), or one registered with ``register_map``."""
    board = _registered.get(map_id)
    return board if board is not None else _load_builtin(map_id)


@cache
def _load_builtin(map_id: str) -> Board:
    if not isinstance(map_id, str) or not map_id.isidentifier():
        raise MapError("there is no map called “{map}”", map=clip(str(map_id), 40))
    path = MAPS_DIR / f"{map_id}.json"
    if not path.is_file():
        raise MapError("there is no map called “{map}”", map=map_id)
    return load_map_file(path)
