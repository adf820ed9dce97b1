"""Maps that Domination's format can express: one-way borders, a deck with countries left out and as many wild
cards as the cards file lists, and a map's own destroy missions with their words."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from conftest import position

from engine import Attack, Blitz, Fortify, Game, Player, SettingsError, Trade, parse_map
from engine import errors as E
from engine.ai.easy import EasyAI
from engine.ai.normal import NormalAI
from engine.board import MapError, register_map
from engine.cards import full_deck, set_kind, symbol
from engine.fog import visible_territories
from engine.missions import mission_deck, mission_text, playable
from engine.simulate import play_game
from engine.state import ATTACK, FORTIFY
from engine.verify import verify_events

# a ⇄ b → c ⇄ d ⇄ a: the border between b and c may be crossed only from b to c.
ONE_WAY: dict[str, Any] = {
    "id": "one-way-test", "name": "One way",
    "continents": [{"id": "x", "name": "X", "bonus": 2, "territories": ["a", "b"]},
                   {"id": "y", "name": "Y", "bonus": 3, "territories": ["c", "d"]}],
    "territories": [
        {"id": "a", "name": "Alpha", "card": "infantry", "neighbours": ["b", "d"]},
        {"id": "b", "name": "Beta", "card": "cavalry", "neighbours": ["a", "c"]},
        {"id": "c", "name": "Gamma", "card": None, "neighbours": ["d"]},
        {"id": "d", "name": "Delta", "card": "artillery", "neighbours": ["c", "a"]},
    ],
    "one_way": [["b", "c"]],
    "wildcards": 5,
    "missions": [
        {"kind": "continents", "continents": ["x"], "plus_any": 1, "description": "Hold @everyone **X** and more"},
        {"kind": "territories", "count": 3},
        {"kind": "destroy", "seat": 0, "count": 3, "armies": 2, "description": "Destroy PLAYER1's armies"},
        {"kind": "destroy", "seat": 1, "description": "Destroy {PLAYER2}"},
        {"kind": "destroy", "seat": 5},
    ],
}


def one_way_map(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(ONE_WAY)
    data.update(changes)
    return data


@pytest.fixture(scope="module")
def board():
    b = parse_map(one_way_map())
    register_map(b)
    return b


def game_on(board, players: int = 2, **settings: Any) -> Game:
    game, _ = Game.new([Player(i, f"P{i + 1}") for i in range(players)], "one-way-seed",
                       {"map": board.id, "deployment": "auto", **settings})
    return game


# -- the board ------------------------------------------------------------------------------------------------
def test_a_one_way_border_is_crossed_only_its_way_and_both_sides_know_it(board):
    assert board.neighbours("b") == {"a", "c"} and board.neighbours("c") == {"d"}
    assert board.adjacent("b", "c") and not board.adjacent("c", "b")
    assert board.attackers("c") == {"b", "d"} and board.attackers("b") == {"a"}
    assert board.touching("c") == {"b", "d"}
    assert board.one_way == {("b", "c")}
    assert board.border_count() == 4


@pytest.mark.parametrize("change,words", [
    (lambda d: d.update(one_way=[]), "one-way border: “b” lists “c”"),
    (lambda d: d.update(one_way=[["c", "b"]]), "must list “b” as a neighbour"),
    (lambda d: d.update(one_way=[["a", "b"]]), "“b” must not list “a”"),
    (lambda d: d.update(one_way=[["b", "c"], ["b", "c"]]), "appears twice"),
    (lambda d: d.update(one_way=[["b", "zz"]]), "unknown territory"),
    (lambda d: d.update(one_way=[["b"]]), "two territory ids"),
    (lambda d: d.update(wildcards=-1), "“wildcards” must be a whole number from 0 to 200"),
    (lambda d: d.update(wildcards=True), "“wildcards” must be a whole number"),
    (lambda d: d["territories"][0].update(id="wild_3", neighbours=["b", "d"]), "the id of a wild card"),
    (lambda d: d["territories"][0].update(card="joker"), "unknown card symbol"),
    (lambda d: d["missions"].append({"kind": "destroy", "seat": 8}), "from 0 to 7"),
    (lambda d: d["missions"].append({"kind": "destroy", "seat": 1, "count": 9}), "must be 1 to 4"),
    (lambda d: d["missions"].append({"kind": "territories", "count": 2, "description": 5}), "description must be"),
    (lambda d: d["missions"].append({"kind": "continents", "continents": ["x"], "plus_any": 2}), "plus_any"),
])
def test_a_map_that_misuses_the_new_fields_is_refused(change, words):
    data = one_way_map()
    change(data)
    with pytest.raises(MapError, match=words):
        parse_map(data)


def test_a_board_joined_only_by_a_one_way_border_is_connected():
    data = one_way_map(one_way=[["b", "c"], ["d", "a"]])
    data["territories"][0]["neighbours"] = ["b"]      # d → a only
    board = parse_map(data)
    assert board.attackers("a") == {"b", "d"} and board.neighbours("a") == {"b"}


# -- attack and fortify ---------------------------------------------------------------------------------------
def test_an_attack_against_the_border_s_way_is_refused_with_its_way(board):
    game = position(game_on(board), {"a": 1, "b": 1, "c": 0, "d": 1}, {"c": 5})
    with pytest.raises(E.NotAdjacent, match="one-way: it may be crossed only from Beta to Gamma") as info:
        game.apply(Attack(0, "c", "b"))
    assert info.value.params["source"].territory == "c"   # named for translation
    with pytest.raises(E.NotAdjacent, match="one-way"):
        game.apply(Blitz(0, "c", "b"))
    assert game.attack_targets(0, "c") == ["d"]
    # Its own way the attack goes.
    game = position(game_on(board), {"a": 1, "b": 0, "c": 1, "d": 1}, {"b": 5})
    assert game.attack_targets(0, "b") == ["a", "c"]
    game.apply(Attack(0, "b", "c", 1))


@pytest.mark.parametrize("rule", ["adjacent", "connected", "unlimited"])
def test_fortify_follows_a_one_way_border_only_its_way(board, rule):
    game = position(game_on(board, fortify=rule), {"a": 1, "b": 0, "c": 0, "d": 0}, {"b": 4, "c": 4, "d": 4},
                    phase=FORTIFY)
    assert "c" in game.fortify_targets(0, "b")
    # From c (or d beyond it) nothing leads back to b: c → d only, and d borders a, the enemy's.
    assert "b" not in game.fortify_targets(0, "c") and "b" not in game.fortify_targets(0, "d")
    with pytest.raises((E.NotAdjacent, E.NotConnected)) as info:
        game.apply(Fortify(0, "c", "b", 1))
    if rule == "adjacent":
        assert "one-way" in str(info.value)
    game.apply(Fortify(0, "b", "c", 1))


def test_a_chain_of_fortify_follows_the_borders_way(board):
    game = position(game_on(board, fortify="connected"), {"a": 0, "b": 0, "c": 0, "d": 1}, {"a": 3},
                    phase=FORTIFY)
    assert game.fortify_targets(0, "a") == ["b", "c"]       # a → b → c
    assert game.fortify_targets(0, "c") == []               # c → d is the enemy's


def test_the_ai_sees_who_can_attack_it_across_a_one_way_border(board):
    game = position(game_on(board), {"a": 1, "b": 1, "c": 0, "d": 0}, {"b": 7, "a": 2, "c": 1, "d": 1})
    ai = NormalAI()
    # b can attack c, but c can never attack b: c feels only what may reach it.
    assert ai.enemy_pressure(game, 0, "c") == 7
    assert ai.enemy_pressure(game, 1, "b") == 0
    assert ai.is_border(game, 1, "b")
    # The AIs only ever choose attacks the border allows.
    for player in (NormalAI(), EasyAI()):
        game = position(game_on(board), {"a": 1, "b": 1, "c": 0, "d": 0}, {"c": 9, "d": 1}, phase=ATTACK)
        action = player.choose(game, 0)
        assert not (isinstance(action, (Attack, Blitz)) and action.target == "b")


def test_fog_shows_both_sides_of_a_one_way_border(board):
    game = position(game_on(board, fog="on"), {"a": 1, "b": 1, "c": 0, "d": 1})
    assert visible_territories(game, 0) == {"b", "c", "d"}   # b may attack c: c's owner sees b
    game = position(game_on(board, fog="on"), {"a": 0, "b": 0, "c": 1, "d": 1})
    assert visible_territories(game, 0) == {"a", "b", "c", "d"}


@pytest.mark.parametrize("settings", [{}, {"fortify": "unlimited", "fog": "on"}, {"mode": "missions"},
                                      {"cards": "fixed"}])
def test_whole_ai_games_on_a_one_way_map_end_and_verify(board, settings):
    for levels in (["normal", "easy"], ["easy", "normal", "normal"]):
        result = play_game(levels, "one-way-game", {"map": board.id, **settings})
        assert result.game.over
        verify_events(result.events)
        for event in result.events:
            if event["type"] == "battle":
                assert board.adjacent(event["from"], event["to"])
            if event["type"] == "fortified" and settings.get("fortify") != "unlimited":
                assert event["from"] != "c" or event["to"] != "b"


def test_menus_offer_only_the_attacks_and_moves_the_borders_allow(board):
    from cogs.play import menus
    from cogs.shared import components as verb

    game = position(game_on(board), {"a": 1, "b": 1, "c": 0, "d": 0}, {"c": 5, "d": 5})
    assert menus.choices(game, 0, verb.ATTACK_TO, ["c"]) == []
    assert menus.choices(game, 0, verb.ATTACK_FROM) == ["d"]
    assert ("c", "b") not in menus.attack_pairs(game, 0)
    game = position(game_on(board), {"a": 1, "b": 0, "c": 0, "d": 1}, {"b": 5, "c": 5}, phase=FORTIFY)
    assert menus.choices(game, 0, verb.FORTIFY_TO, ["c"]) == []
    assert menus.fortify_pairs(game, 0) == [("b", "c")]


# -- cards ----------------------------------------------------------------------------------------------------
def test_the_deck_is_the_map_s_cards_and_its_wild_cards(board):
    deck = full_deck(board)
    assert deck == ["a", "b", "d", "wild_1", "wild_2", "wild_3", "wild_4", "wild_5"]
    assert full_deck(board, wilds=False) == ["a", "b", "d"]
    assert symbol(board, "wild_5") == "wild" and symbol(board, "d") == "artillery"
    assert set_kind(board, ("wild_3", "wild_4", "wild_5")) == "mixed"
    game = game_on(board)
    assert sorted(game.state.deck) == sorted(deck)
    no_wilds = parse_map(one_way_map(id="no-wilds", wildcards=0))
    assert full_deck(no_wilds) == ["a", "b", "d"]


def test_a_card_that_is_not_in_the_deck_cannot_be_traded(board):
    game = position(game_on(board), {"a": 0, "b": 0, "c": 0, "d": 1}, phase="reinforce")
    game.state.hands[0] = ["a", "wild_4", "wild_5"]
    with pytest.raises(E.InvalidSet, match="Gamma has no card in this map's deck"):
        game.apply(Trade(0, ("c", "wild_4", "wild_5")))
    with pytest.raises(E.InvalidSet, match="There is no card “wild_6”"):
        game.apply(Trade(0, ("a", "wild_5", "wild_6")))
    events = game.apply(Trade(0, ("a", "wild_4", "wild_5")))
    assert [c["territory"] for c in events[0]["cards"]] == ["a", None, None]
    assert game.ranked_sets(0) == []


# -- missions -------------------------------------------------------------------------------------------------
def test_a_map_s_destroy_cards_are_its_own_without_the_absent_seats(board):
    deck = mission_deck(board, [0, 1, 2])
    assert [m["id"] for m in deck] == ["x+any", "territories-3", "destroy-0", "destroy-1"]
    assert deck[2] == {"id": "destroy-0", "kind": "destroy", "seat": 0, "count": 3, "armies": 2,
                       "description": "Destroy PLAYER1's armies"}
    # The classic map lists none: one per seat in play is added.
    from engine import load_map
    assert [m["id"] for m in mission_deck(load_map(), [0, 1])][-2:] == ["destroy-0", "destroy-1"]


def test_a_destroy_card_for_yourself_becomes_its_own_fallback(board):
    game = game_on(board, players=3, mode="missions")
    own = playable(board.missions[2], 0, game.state, board)
    assert own == {"id": "territories-3x2", "kind": "territories", "count": 3, "armies": 2,
                   "replaces": "destroy-0"}
    other = playable(board.missions[3], 0, game.state, board)
    assert other["kind"] == "destroy" and other["seat"] == 1
    assert playable(board.missions[3], 1, game.state, board)["count"] == board.mission_fallback


def test_too_few_missions_for_the_players_is_refused():
    data = one_way_map(id="few-missions", missions=[{"kind": "territories", "count": 3},
                                                    {"kind": "destroy", "seat": 0}])
    few = parse_map(data)
    register_map(few)
    with pytest.raises(SettingsError, match="has 2 missions for 3 players"):
        Game.new(["a", "b", "c"], "seed", {"map": few.id, "mode": "missions"})
    Game.new(["a", "b"], "seed", {"map": few.id, "mode": "missions"})


def test_a_mission_s_own_words_name_the_player_it_targets(board):
    players = [Player(0, "Ann"), Player(1, "Bo")]
    assert mission_text(board.missions[2], board, players) == "Destroy Ann's armies"
    assert mission_text(board.missions[3], board, players) == "Destroy Bo"
    assert mission_text(board.missions[4], board, players).startswith("Destroy all of seat 6's armies")
    assert mission_text(board.missions[1], board, players) == "Occupy 3 territories."
