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
    from present import menus
    from present import verbs as verb

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


# -- a Domination map's one-way borders, deck and missions -----------------------------------------------------
@pytest.fixture(scope="module")
def world():
    import mapdraw

    return mapdraw.draw_world()


def domination_variant(world) -> tuple[bytes, dict[str, bytes], tuple[int, int]]:
    """The drawn map as Domination files, with one border listed on one side only, a deck without the first
    two countries and 66 wild cards (as Ameroki's), and destroy missions for players 1, 2 and 9."""
    import mapdraw

    text, files = mapdraw.domination_files(world)
    a = 1
    b = next(n + 1 for n in world.neighbours(a - 1))
    lines = text.decode().splitlines()
    row = lines.index(next(line for line in lines if line.startswith(f"{b} ") and "[" not in line
                           and lines.index(line) > lines.index("[borders]")))
    lines[row] = " ".join(w for w in lines[row].split() if w != str(a))   # b no longer lists a
    cards = files["drawn.cards"].decode().splitlines()
    cards = [c for c in cards if c not in (f"Infantry {1}", f"Cavalry {2}") and c != "Wildcard"]
    at = cards.index("[missions]")
    cards[at:at] = ["wildcard"] * 66
    cards += ["2 5 2 0 0 0 Destroy all of PLAYER2's TROOPS, or occupy 5 with 2 each",
              "9 0 0 0 0 0 Destroy a player no game has",
              "0 0 0 * * 0 Conquer @everyone **two**",
              "0 0 0 1 * * Conquer three of two continents: never dealt"]
    files = {**files, "drawn.cards": "\n".join(cards).encode()}
    return "\n".join(lines).encode(), files, (a, b)


def test_a_domination_map_keeps_its_one_way_borders_deck_and_missions(world):
    from mapfiles.domination import import_domination

    text, files, (a, b) = domination_variant(world)
    package = import_domination(text, files, "drawn.map")
    board = package.board
    assert board.one_way == {(f"t{a}", f"t{b}")} and package.data["one_way"] == [[f"t{a}", f"t{b}"]]
    assert board.adjacent(f"t{a}", f"t{b}") and not board.adjacent(f"t{b}", f"t{a}")
    assert board.territories["t1"].card is None and board.territories["t2"].card is None
    assert board.territories["t3"].card == "artillery"
    assert len(board.wild_cards) == 66 and board.wild_cards[-1] == "wild_66"
    assert len(full_deck(board)) == world.count - 2 + 66
    kinds = [(m["kind"], m.get("seat")) for m in board.missions]
    assert kinds == [("continents", None), ("territories", None), ("destroy", 0), ("destroy", 1),
                     ("continents", None)]
    assert board.missions[3] == {"id": "destroy-1", "kind": "destroy", "seat": 1, "count": 5, "armies": 2,
                                 "description": "Destroy all of PLAYER2's TROOPS, or occupy 5 with 2 each"}
    assert board.missions[4]["plus_any"] == 2 and board.missions[4]["continents"] == []
    assert board.missions[4]["id"] == "any+any"
    # Its whole games verify, and its one-way route is drawn with an arrowhead into b.
    from mapfiles import install
    from render import render_map
    from render.geometry import geometry_for

    install(package)
    result = play_game(["normal", "easy", "normal"], "domination-one-way", {"map": board.id, "mode": "missions"})
    assert result.game.over
    verify_events(result.events)
    routes = {(x, y): segments for x, y, segments in geometry_for(board.id).sea_routes}
    assert len(routes[(f"t{a}", f"t{b}")]) >= 5        # the line and the arrowhead's four strokes
    tip = routes[(f"t{a}", f"t{b}")][-1]
    anchor = geometry_for(board.id).territories[f"t{b}"].anchor
    line_end = routes[(f"t{a}", f"t{b}")][0][2:]
    assert abs(tip[0] - line_end[0]) + abs(tip[1] - line_end[1]) < 30
    assert (tip[0] - anchor[0]) ** 2 + (tip[1] - anchor[1]) ** 2 < 60 ** 2
    assert render_map(result.game.state).width == 1600


def test_a_domination_cards_file_without_wild_cards_has_none(world):
    import mapdraw

    from mapfiles.domination import import_domination

    text, files = mapdraw.domination_files(world)
    cards = [c for c in files["drawn.cards"].decode().splitlines() if c != "Wildcard"]
    package = import_domination(text, {**files, "drawn.cards": "\n".join(cards).encode()}, "drawn.map")
    assert package.board.wild_cards == () and package.data["wildcards"] == 0
    assert all(t.card is not None for t in package.board.territories.values())


def test_a_package_checks_the_new_fields_as_the_board_does(world):
    import json

    import mapdraw

    from mapfiles import MapFileError, load_package

    blob, files = mapdraw.our_files(world)
    data = json.loads(blob)
    data["wildcards"] = 500
    with pytest.raises(MapFileError, match="from 0 to 200"):
        load_package(data, files)
    data = json.loads(blob)
    data["missions"][0]["description"] = "Hold\u202e both\nislands"
    data["territories"][0]["card"] = None
    package = load_package(data, files)
    assert package.board.missions[0]["description"] == "Hold both islands"   # no control character kept
    assert package.board.territories["t1"].card is None


# -- a mission's words in messages ---------------------------------------------------------------------------
def test_a_mission_s_own_words_are_shown_escaped_and_in_the_reader_s_language(board):
    from present.text import mission_line

    game = game_on(board, players=2, mode="missions")
    game.state.players[0] = Player(0, "<@123> **Ann**")
    line = mission_line(board.missions[0], board, game.state, "en-US")
    assert "@everyone" not in line and "**" not in line
    assert line == "Hold @\u200beveryone \\*\\*X\\*\\* and more"
    destroy = mission_line(board.missions[2], board, game.state, "en-GB")
    assert destroy.startswith("Destroy <\u200b") and "\\*\\*Ann\\*\\*" in destroy and "PLAYER1" not in destroy
    # A reader of another language reads our words for the mission, in their language.
    assert mission_line(board.missions[0], board, game.state, "no") == \
        "Erobre X og 1 kontinent til etter eget valg."
    assert mission_line(board.missions[3], board, game.state, "es-ES").startswith("Destruye todos los ejércitos")
    # Its fallback is the map's: its territories mission.
    assert "ocupar 3 territorios" in mission_line(board.missions[3], board, game.state, "es-ES")
    assert "occupying 3 territories with at least 2 armies" in mission_line(
        {k: v for k, v in board.missions[2].items() if k != "description"}, board, game.state, "en-US")


def test_the_one_way_refusal_reads_in_the_player_s_language(board):
    from present.refusals import translate_rule

    game = position(game_on(board), {"a": 1, "b": 1, "c": 0, "d": 1}, {"c": 5})
    with pytest.raises(E.NotAdjacent) as info:
        game.apply(Attack(0, "c", "b"))
    assert translate_rule(info.value, "no") == \
        "Grensen mellom Gamma og Beta er enveis: den kan bare krysses fra Beta til Gamma."
    assert translate_rule(info.value, "es-ES").startswith("La frontera entre Gamma y Beta es de un solo sentido")


@pytest.mark.asyncio
async def test_a_one_way_map_with_its_own_missions_plays_through_discord_with_its_words_escaped(tmp_path, world):
    from discord_helpers import OfflineDiscord, make_bot, start

    text, files, _ = domination_variant(world)
    lines = files["drawn.cards"].decode().splitlines()
    start_at = lines.index("[missions]")
    lines[start_at + 1:] = [line if line.startswith(";") else line + " **now** @here <@1>"
                            for line in lines[start_at + 1:]]
    files = {**files, "drawn.cards": "\n".join(lines).encode()}
    options: dict[str, Any] = {"file": ("drawn.map", text)}
    for key, (name, blob) in zip(("file2", "file3", "file4"), files.items(), strict=True):
        options[key] = (name, blob)
    async with OfflineDiscord(make_bot(tmp_path / "g.db", seed="one-way")) as d:
        d.set_permissions("alice", manage_guild=True)
        step = await d.send_command("alice", "general", "risk map add", options)
        assert not step.problems and "Added the map Drawn" in step[-1].content, step[-1].content
        map_id = (await d.bot.store.list_maps(d.guild.id))[0].map_id
        await start(d, ["alice", "bob"], 1, map=map_id, mode="missions", deployment="auto")
        game = (await d.bot.store.get_active_game(d.channel("general").id)).game()
        for seat, user in ((0, "alice"), (1, "bob")):
            mission = game.mission(seat)
            answer = (await d.send_command(user, "general", "mission", {}))[0]
            assert answer.ephemeral and mission["description"].endswith("**now** @here <@1>")
            # The map's own words, escaped: no bold, no mention.
            assert answer.content.endswith("\\*\\*now\\*\\* @\u200bhere <\u200b@1>"), answer.content
            assert mission["description"].split()[0] in answer.content
        assert not any("\\*\\*" in m.content for m in d.messages if not m.ephemeral)
