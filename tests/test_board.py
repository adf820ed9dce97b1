import json
from pathlib import Path

import pytest

from engine import MapError, load_map, parse_map
from engine.board import MAPS_DIR
from engine.errors import UnknownTerritory

CANONICAL = [
    "alaska", "northwest_territory", "greenland", "alberta", "ontario", "quebec", "western_united_states",
    "eastern_united_states", "central_america", "venezuela", "peru", "brazil", "argentina", "iceland",
    "scandinavia", "ukraine", "great_britain", "northern_europe", "southern_europe", "western_europe",
    "north_africa", "egypt", "east_africa", "congo", "south_africa", "madagascar", "ural", "siberia", "yakutsk",
    "kamchatka", "irkutsk", "mongolia", "japan", "afghanistan", "china", "middle_east", "india", "siam",
    "indonesia", "new_guinea", "western_australia", "eastern_australia",
]


def raw() -> dict:
    return json.loads((MAPS_DIR / "classic.json").read_text())


def test_classic_board_has_42_territories_6_continents_83_borders():
    board = load_map("classic")
    assert sorted(board.territory_ids) == sorted(CANONICAL)
    assert len(board.continents) == 6
    assert board.border_count() == 83


def test_continent_sizes_and_bonuses():
    board = load_map("classic")
    expected = {"north_america": (9, 5), "south_america": (4, 2), "europe": (7, 5), "africa": (6, 3),
                "asia": (12, 7), "australia": (4, 2)}
    assert {c.id: (len(c.territories), c.bonus) for c in board.continents.values()} == expected


@pytest.mark.parametrize("a,b", [("alaska", "kamchatka"), ("greenland", "iceland"), ("brazil", "north_africa"),
                                 ("siam", "indonesia"), ("east_africa", "middle_east"), ("egypt", "southern_europe"),
                                 ("ukraine", "afghanistan"), ("new_guinea", "western_australia")])
def test_known_borders_including_sea_routes(a, b):
    board = load_map()
    assert board.adjacent(a, b) and board.adjacent(b, a)


@pytest.mark.parametrize("a,b", [("quebec", "northwest_territory"), ("peru", "kamchatka"), ("japan", "china"),
                                 ("india", "indonesia")])
def test_non_borders(a, b):
    assert not load_map().adjacent(a, b)


def test_every_border_is_symmetric_and_sea_routes_are_borders():
    board = load_map()
    for t in board.territories.values():
        for n in t.neighbours:
            assert t.id in board.neighbours(n)
    for a, b in board.sea_routes:
        assert board.adjacent(a, b)


def test_card_symbols_make_a_deck_of_14_each():
    board = load_map()
    symbols = [t.card for t in board.territories.values()]
    assert {s: symbols.count(s) for s in set(symbols)} == {"infantry": 14, "cavalry": 14, "artillery": 14}


@pytest.mark.parametrize("typed,expected", [
    ("Siam", "siam"), ("Southeast Asia", "siam"), ("E. Australia", "eastern_australia"),
    ("NW Territory", "northwest_territory"), ("Mexico", "central_america"), ("kamchatka", "kamchatka"),
    ("  GREAT britain ", "great_britain"), ("madag", "madagascar"), ("Québec", "quebec"),
])
def test_names_and_aliases_resolve(typed, expected):
    assert load_map().resolve(typed) == expected


def test_unknown_and_ambiguous_names_are_refused_clearly():
    board = load_map()
    with pytest.raises(UnknownTerritory, match="no territory called “Atlantis”"):
        board.resolve("Atlantis")
    with pytest.raises(UnknownTerritory, match="could mean"):
        board.resolve("ea")


def _broken(mutate) -> dict:
    data = raw()
    mutate(data)
    return data


def test_loader_refuses_unknown_territory_in_border():
    data = _broken(lambda d: d["territories"][0]["neighbours"].append("atlantis"))
    with pytest.raises(MapError, match="unknown territory “atlantis”"):
        parse_map(data)


def test_loader_refuses_one_way_border():
    def one_way(d):
        alaska = next(t for t in d["territories"] if t["id"] == "alaska")
        alaska["neighbours"].append("peru")
    with pytest.raises(MapError, match="one-way border"):
        parse_map(_broken(one_way))


def test_loader_refuses_territory_in_no_continent_or_two():
    def none(d):
        d["continents"][0]["territories"].remove("alaska")
    with pytest.raises(MapError, match="“alaska” is in no continent"):
        parse_map(_broken(none))

    def two(d):
        d["continents"][1]["territories"].append("alaska")
    with pytest.raises(MapError, match="two continents"):
        parse_map(_broken(two))


def test_loader_refuses_duplicate_ids_and_disconnected_maps():
    def dup(d):
        d["territories"].append(dict(d["territories"][0]))
    with pytest.raises(MapError, match="appears twice"):
        parse_map(_broken(dup))

    def island(d):
        for t in d["territories"]:
            if t["id"] in ("argentina",):
                for n in t["neighbours"]:
                    other = next(x for x in d["territories"] if x["id"] == n)
                    other["neighbours"].remove("argentina")
                t["neighbours"] = []
        d["sea_routes"] = []
    with pytest.raises(MapError, match="not connected"):
        parse_map(_broken(island))


def test_load_map_file_refuses_bad_json(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    from engine import load_map_file
    with pytest.raises(MapError, match="not valid JSON"):
        load_map_file(bad)
