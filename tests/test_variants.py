"""Variants: secret missions, capitals, teams, fog of war, unlimited fortify and presets."""

from __future__ import annotations

import pytest
from conftest import new_game, position

from engine import (
    Attack,
    Blitz,
    ChooseCapital,
    EndAttack,
    EndTurn,
    Fortify,
    Game,
    Occupy,
    Place,
    Player,
    Settings,
    SettingsError,
    Surrender,
    apply_preset,
    load_map,
    mission_text,
    public_events_for,
    visible_territories,
)
from engine import errors as E
from engine.ai import make_ai
from engine.ai.normal import NormalAI
from engine.log import public_event
from engine.missions import (
    continents_mission,
    destroy_mission,
    mission_complete,
    mission_deck,
    playable,
    territories_mission,
)
from engine.settings import PRESETS
from engine.simulate import main as simulate_main
from engine.simulate import play_game
from engine.state import CAPITAL, FORTIFY, OCCUPY, OVER, REINFORCE, GameState
from engine.verify import Mismatch, verify_events

BOARD = Game.new(["a", "b"], "x")[0].board
CONTINENT = {c.id: list(c.territories) for c in BOARD.continents.values()}


def unchanged(game: Game, action) -> E.RuleError:
    before = game.state.to_dict()
    with pytest.raises(E.RuleError) as info:
        game.apply(action)
    assert game.state.to_dict() == before
    return info.value


def holding(*continents: str) -> dict[str, int]:
    return {t: 0 for c in continents for t in CONTINENT[c]}


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


# -- settings and presets -----------------------------------------------------------------------------------------
def test_variant_settings_have_classic_defaults_and_clear_errors():
    s = Settings()
    assert (s.mode, s.teams, s.fog) == ("classic", "none", "off")
    with pytest.raises(SettingsError, match="mode must be one of classic, missions, capitals"):
        Settings(mode="dragons")
    with pytest.raises(SettingsError, match="fortify must be one of adjacent, connected, unlimited"):
        Settings(fortify="anywhere")
    with pytest.raises(SettingsError, match="teams 2v2 needs exactly 4 players"):
        Game.new(["a", "b", "c"], "seed", {"teams": "2v2"})
    with pytest.raises(SettingsError, match="teams 2v2v2 needs exactly 6 players"):
        Game.new(["a", "b", "c", "d"], "seed", {"teams": "2v2v2"})


def test_variant_settings_are_recorded_in_game_started():
    _game, events = Game.new(["a", "b", "c", "d"], "seed",
                             {"mode": "capitals", "teams": "2v2", "fog": "on", "fortify": "unlimited"})
    settings = events[0]["settings"]
    assert (settings["mode"], settings["teams"], settings["fog"], settings["fortify"]) == \
        ("capitals", "2v2", "on", "unlimited")
    assert events[0]["teams"] == {"0": 0, "1": 1, "2": 0, "3": 1}


def test_classic_preset_is_the_defaults():
    assert apply_preset("classic") == Settings()
    assert PRESETS["classic"] == {}


def test_quick_preset_and_overrides():
    quick = apply_preset("quick")
    assert (quick.deployment, quick.cards, quick.fortify, quick.turn_deadline, quick.max_rounds) == (
        "auto", "escalating", "connected", 43200, 15)
    assert apply_preset("quick", {"cards": "fixed"}).cards == "fixed"
    assert Settings.from_dict({"preset": "quick", "mode": "missions"}) == apply_preset("quick", {"mode": "missions"})
    with pytest.raises(SettingsError, match="there is no preset “epic”; presets: classic, quick"):
        apply_preset("epic")


def test_older_stored_states_without_variant_fields_still_load():
    game = new_game(3)
    data = game.state.to_dict()
    for key in ("winners", "teams", "missions", "capitals"):
        del data[key]
    for key in ("mode", "teams", "fog"):
        del data["settings"][key]
    assert GameState.from_dict(data).to_dict() == game.state.to_dict()


# -- missions -------------------------------------------------------------------------------------------------------
def test_missions_are_dealt_one_per_player_from_the_shuffle_stream():
    game, events = Game.new(["a", "b", "c", "d"], "mission-seed", {"mode": "missions", "deployment": "auto"})
    dealt = next(e for e in events if e["type"] == "missions_dealt")
    assert sorted(dealt["missions"]) == ["0", "1", "2", "3"] and dealt["draws"] > 0
    assert types(events).index("missions_dealt") == types(events).index("first_player") + 1
    for seat in range(4):
        assert game.mission(seat) == dealt["missions"][str(seat)]
        mission = game.mission(seat)
        assert mission is not None
        assert not (mission["kind"] == "destroy" and mission["seat"] == seat)
    ids = {m["id"] for m in dealt["missions"].values()}
    assert len(ids) == 4 or "territories-24" in ids  # distinct cards, unless two fell back to 24 territories
    assert public_event(dealt)["missions"] is None


def test_mission_deck_has_the_classic_cards_and_one_destroy_card_per_seat():
    deck = mission_deck(BOARD, [0, 1, 2])
    ids = [m["id"] for m in deck]
    assert ids == ["north_america+africa", "north_america+australia", "asia+south_america", "asia+africa",
                   "europe+south_america+any", "europe+australia+any", "territories-24", "territories-18x2",
                   "destroy-0", "destroy-1", "destroy-2"]


@pytest.mark.parametrize("continents,plus_any", [
    (("north_america", "africa"), 0), (("north_america", "australia"), 0), (("asia", "south_america"), 0),
    (("asia", "africa"), 0), (("europe", "south_america"), 1), (("europe", "australia"), 1)])
def test_continent_missions(continents, plus_any):
    mission = continents_mission(continents, plus_any)
    game = new_game(3, mode="missions")
    position(game, holding(*continents))
    assert mission_complete(mission, game.state, game.board, 0) is (plus_any == 0)
    if plus_any:
        third = "africa" if "africa" not in continents else "asia"
        position(game, holding(*continents, third))
        assert mission_complete(mission, game.state, game.board, 0)
    one_short = holding(*continents)
    del one_short[CONTINENT[continents[0]][0]]
    position(game, one_short)
    assert not mission_complete(mission, game.state, game.board, 0)


def test_24_territories_mission():
    game = new_game(3, mode="missions")
    ids = game.board.territory_ids
    mission = territories_mission(24)
    position(game, dict.fromkeys(ids[:24], 0))
    assert mission_complete(mission, game.state, game.board, 0)
    position(game, dict.fromkeys(ids[:23], 0))
    assert not mission_complete(mission, game.state, game.board, 0)


def test_18_territories_with_two_armies_mission():
    game = new_game(3, mode="missions")
    ids = game.board.territory_ids
    mission = territories_mission(18, 2)
    position(game, dict.fromkeys(ids[:20], 0), dict.fromkeys(ids[:18], 2))
    assert mission_complete(mission, game.state, game.board, 0)
    position(game, dict.fromkeys(ids[:20], 0), dict.fromkeys(ids[:17], 2))
    assert not mission_complete(mission, game.state, game.board, 0)


def test_destroy_mission_is_complete_when_you_eliminate_the_player():
    game = new_game(3, mode="missions")
    s = game.state
    position(game, {"alaska": 2}, {"kamchatka": 30, "alaska": 1}, default_owner=0)
    s.owners["brazil"] = 1
    s.missions = {0: destroy_mission(2), 1: territories_mission(24), 2: territories_mission(24)}
    assert not mission_complete(destroy_mission(2), s, game.board, 0)
    events = game.apply(Blitz(0, "kamchatka", "alaska"))
    if s.phase == OCCUPY:
        events += game.apply(Occupy(0, s.pending["min"]))
    assert "player_eliminated" in types(events) and "mission_changed" not in types(events)
    assert events[-1]["type"] == "game_over"
    assert events[-1]["reason"] == "mission" and events[-1]["winner"] == 0
    assert events[-1]["mission"] == destroy_mission(2)


@pytest.mark.parametrize("target,why", [(0, "your own seat"), (5, "a seat not in play")])
def test_destroy_mission_that_cannot_be_played_is_dealt_as_24_territories(target, why):
    game = new_game(3, mode="missions")
    dealt = playable(destroy_mission(target), 0, game.state, load_map())
    assert dealt["kind"] == "territories" and dealt["count"] == 24, why
    assert dealt["replaces"] == f"destroy-{target}"
    assert playable(destroy_mission(1), 0, game.state, load_map()) == destroy_mission(1)


def test_destroy_mission_against_a_teammate_is_dealt_as_24_territories():
    game, _ = Game.new([f"P{i}" for i in range(4)], "s", {"mode": "missions", "teams": "2v2", "deployment": "auto"})
    assert playable(destroy_mission(2), 0, game.state, load_map())["kind"] == "territories"
    assert playable(destroy_mission(1), 0, game.state, load_map()) == destroy_mission(1)


def test_deal_turns_own_colour_into_24_territories():
    # Find a seed where someone draws their own destroy card; the deal must have replaced it.
    for i in range(200):
        _game, events = Game.new(["a", "b", "c"], f"own-{i}", {"mode": "missions", "deployment": "auto"})
        dealt = next(e for e in events if e["type"] == "missions_dealt")["missions"]
        replaced = {seat: m for seat, m in dealt.items() if m.get("replaces") == f"destroy-{seat}"}
        if replaced:
            assert all(m["kind"] == "territories" and m["count"] == 24 for m in replaced.values())
            return
    pytest.fail("no seed dealt a player their own colour")


def test_destroy_mission_becomes_24_territories_when_another_player_eliminates_the_target():
    game = new_game(3, mode="missions")
    s = game.state
    position(game, {"alaska": 2, "brazil": 0}, {"kamchatka": 30, "alaska": 1}, seat=1)
    s.missions = {0: destroy_mission(2), 1: territories_mission(24), 2: territories_mission(24)}
    events = game.apply(Blitz(1, "kamchatka", "alaska"))
    changed = next(e for e in events if e["type"] == "mission_changed")
    assert changed["seat"] == 0 and changed["from"] == destroy_mission(2) and changed["reason"] == "eliminated"
    assert game.mission(0) == {**territories_mission(24), "replaces": "destroy-2"}
    assert public_event(changed)["to"] is None and public_event(changed)["seat"] is None
    replayed = [e for e in events if e["type"] == "mission_changed"]
    assert replayed == [changed]


def test_destroy_mission_becomes_24_territories_when_the_target_surrenders():
    game = new_game(3, mode="missions")
    s = game.state
    position(game, {"alaska": 2, "brazil": 0}, seat=1)
    s.missions = {0: destroy_mission(2), 1: territories_mission(24), 2: territories_mission(24)}
    events = game.apply(Surrender(2))
    changed = next(e for e in events if e["type"] == "mission_changed")
    assert changed["seat"] == 0 and changed["reason"] == "surrendered"
    assert game.mission(0)["kind"] == "territories"


def test_mission_wins_only_on_your_own_turn_and_at_its_start():
    game = new_game(3, mode="missions")
    s = game.state
    ids = game.board.territory_ids
    owners = dict.fromkeys(ids[:24], 0) | dict.fromkeys(ids[30:36], 2)
    position(game, owners, seat=2)
    s.missions = {0: territories_mission(24), 1: territories_mission(24), 2: destroy_mission(1)}
    events = game.apply(EndAttack(2))
    assert "game_over" not in types(events) and s.phase == FORTIFY
    events = game.apply(EndTurn(2))
    assert types(events)[-2:] == ["turn_started", "game_over"]
    over = events[-1]
    assert over["winner"] == 0 and over["reason"] == "mission" and over["mission"] == territories_mission(24)
    assert s.phase == OVER and s.result == "mission" and s.winners == [0]


def test_mission_completed_by_a_conquest_wins_once_the_armies_have_moved_in():
    game = new_game(3, mode="missions")
    s = game.state
    owners = holding("north_america", "australia") | {"alaska": 1, "brazil": 2}
    position(game, owners, {"northwest_territory": 30, "alaska": 1})
    s.missions = {0: continents_mission(("north_america", "australia")), 1: territories_mission(24),
                  2: territories_mission(24)}
    events = game.apply(Blitz(0, "northwest_territory", "alaska"))
    assert "game_over" not in types(events) and s.phase == OCCUPY
    events = game.apply(Occupy(0, s.pending["min"]))
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "mission"


def test_mission_completed_by_the_fortify_move_wins_before_the_turn_passes():
    game = new_game(3, mode="missions")
    s = game.state
    mine = [*CONTINENT["north_america"], *CONTINENT["south_america"], *CONTINENT["africa"]]
    mine.remove("madagascar")
    armies = dict.fromkeys(mine, 2) | {"alaska": 1, "alberta": 5}
    position(game, dict.fromkeys(mine, 0) | {"siam": 2}, armies)
    s.missions = {0: territories_mission(18, 2), 1: territories_mission(24), 2: territories_mission(24)}
    game.apply(EndAttack(0))
    events = game.apply(Fortify(0, "alberta", "alaska", 1))
    assert types(events) == ["fortified", "game_over"]
    assert events[-1]["winner"] == 0 and events[-1]["mission"]["id"] == "territories-18x2"


def test_mission_texts():
    players = [Player(0, "Ann"), Player(1, "Bob"), Player(2, "Cy")]
    assert mission_text(continents_mission(("north_america", "africa")), BOARD, players) == \
        "Conquer North America and Africa."
    assert mission_text(continents_mission(("europe", "south_america"), 1), BOARD, players) == \
        "Conquer Europe, South America and one more continent of your choice."
    assert mission_text(territories_mission(24), BOARD, players) == "Occupy 24 territories."
    assert mission_text(territories_mission(18, 2), BOARD, players) == \
        "Occupy 18 territories with at least 2 armies in each."
    assert mission_text(destroy_mission(1), BOARD, players).startswith("Destroy all of Bob's armies")
    fallback = playable(destroy_mission(0), 0, new_game(3).state, load_map())
    assert mission_text(fallback, BOARD, players) == "Occupy 24 territories. (This replaces destroying Ann.)"
    game, _ = Game.new(players, "texts", {"mode": "missions"})
    assert game.mission_text(0) == mission_text(game.state.missions[0], game.board, players)
    assert new_game(3).mission(0) is None and new_game(3).mission_text(0) is None


def test_normal_ai_plays_toward_its_mission():
    game = new_game(3, mode="missions")
    s = game.state
    s.missions[0] = continents_mission(("asia", "africa"))
    assert NormalAI().target_continent(game, 0) in ("asia", "africa")
    # Attacks at equal odds on two players; the AI picks the player its destroy mission names.
    owners = {"ural": 0, "siberia": 1, "ukraine": 1, "china": 1, "afghanistan": 2} \
        | dict.fromkeys(CONTINENT["south_america"] + CONTINENT["north_america"] + CONTINENT["australia"], 2)
    for prey in (2, 1):
        position(game, owners, {"ural": 10, "siberia": 2, "ukraine": 2, "china": 2, "afghanistan": 2})
        s.missions[0] = destroy_mission(prey)
        action = NormalAI().choose(game, 0)
        assert isinstance(action, Blitz) and s.owners[action.target] == prey


# -- capitals -------------------------------------------------------------------------------------------------------
def test_capitals_are_chosen_after_deployment_in_turn_order():
    game, events = Game.new(["a", "b", "c"], "cap", {"mode": "capitals", "deployment": "auto"})
    s = game.state
    assert s.phase == CAPITAL and "turn_started" not in types(events)
    first = s.first_seat
    assert s.current == first
    assert sorted(game.capital_choices(first)) == sorted(s.territories_of(first))
    assert game.capital_choices((first + 1) % 3) == []
    other = (first + 1) % 3
    assert isinstance(unchanged(game, ChooseCapital(other, s.territories_of(other)[0])), E.NotYourTurn)
    assert isinstance(unchanged(game, ChooseCapital(first, s.territories_of(other)[0])), E.NotOwner)
    assert isinstance(unchanged(game, Surrender(first)), E.WrongPhase)
    order = []
    while s.phase == CAPITAL:
        order.append(s.current)
        events = game.apply(ChooseCapital(s.current, s.territories_of(s.current)[0]))
        assert events[0] == {"type": "capital_chosen", "seat": order[-1], "territory": s.capitals[order[-1]]}
    assert order == [first, (first + 1) % 3, (first + 2) % 3]
    assert events[-1]["type"] == "turn_started" and events[-1]["turn"] == 1 and s.current == first
    assert s.phase == REINFORCE and len(s.capitals) == 3
    replayed = Game.from_events(Game.new(["a", "b", "c"], "cap", {"mode": "capitals", "deployment": "auto"})[1])
    assert replayed.state.phase == CAPITAL


@pytest.mark.parametrize("level", ["normal", "easy"])
def test_ai_chooses_a_capital(level):
    game, _ = Game.new(["a", "b", "c"], "cap-ai", {"mode": "capitals", "deployment": "auto"})
    seat = game.state.current
    action = make_ai(level, str(seat)).choose(game, seat)
    assert isinstance(action, ChooseCapital) and action.territory in game.capital_choices(seat)
    game.apply(action)
    assert game.state.capitals[seat] == action.territory


def test_normal_ai_capital_is_well_defended():
    game = new_game(3, mode="capitals")
    position(game, holding("australia") | {"alaska": 0}, {"eastern_australia": 9, "alaska": 9}, phase=CAPITAL)
    # Eastern Australia is surrounded by our own territories; Alaska borders only enemies.
    assert NormalAI().capital_choice(game, 0) == "eastern_australia"


def test_two_player_capitals_are_only_the_players():
    game, _ = Game.new(["a", "b"], "cap-2", {"mode": "capitals"})
    s = game.state
    while s.phase != CAPITAL:
        seat = s.current
        game.apply(make_ai("normal").choose(game, seat))
    while s.phase == CAPITAL:
        game.apply(ChooseCapital(s.current, game.capital_choices(s.current)[0]))
    assert sorted(s.capitals) == [0, 1]


def test_capturing_a_capital_counts_for_its_new_owner_and_holding_all_wins():
    game = new_game(3, mode="capitals")
    s = game.state
    owners = {"egypt": 2, "congo": 2, "alaska": 0, "brazil": 1, "peru": 1}
    position(game, owners, {"north_africa": 30, "brazil": 1, "egypt": 1}, default_owner=0)
    s.capitals = {0: "alaska", 1: "brazil", 2: "egypt"}
    events = game.apply(Blitz(0, "north_africa", "brazil"))
    assert "territory_conquered" in types(events) and "game_over" not in types(events)
    if s.phase == OCCUPY:
        game.apply(Occupy(0, s.pending["min"]))
    assert game.mode.victory(game, 0) is None  # two of three capitals
    events = game.apply(Blitz(0, "north_africa", "egypt"))
    assert types(events)[-2:] == ["occupied", "game_over"]
    assert events[-1]["reason"] == "capitals" and events[-1]["winner"] == 0
    assert 2 not in s.eliminated  # seat 2 still holds Congo: the capitals decided the game
    # The win is the moment the last capital falls, in the middle of the turn, not at its end (the rule texts in
    # cogs/game/rules_text.py and docs/rules.md say so: tests/test_languages.py).
    assert "turn_ended" not in types(events) and "attack_ended" not in types(events) and s.phase == OVER


# -- teams ----------------------------------------------------------------------------------------------------------
def team_game(fmt: str = "2v2", team_of=None, **settings) -> Game:
    n = {"2v2": 4, "3v3": 6, "2v2v2": 6}[fmt]
    settings.setdefault("deployment", "auto")
    game, _ = Game.new([Player(i, f"P{i + 1}") for i in range(n)], "team-seed", {"teams": fmt, **settings},
                       team_of=team_of)
    return game


def test_teams_split_by_seat_order_by_default():
    assert team_game("2v2").state.teams == {0: 0, 1: 1, 2: 0, 3: 1}
    assert team_game("3v3").state.teams == {0: 0, 1: 1, 2: 0, 3: 1, 4: 0, 5: 1}
    game = team_game("2v2v2")
    assert game.state.teams == {0: 0, 1: 1, 2: 2, 3: 0, 4: 1, 5: 2}
    assert game.teammates(1) == [4] and game.team_of(5) == 2
    assert new_game(3).team_of(0) is None and new_game(3).teammates(0) == []


def test_teams_can_be_given_explicitly():
    game = team_game("2v2", team_of=[0, 0, 1, 1])
    assert game.teammates(0) == [1] and game.teammates(3) == [2]
    with pytest.raises(SettingsError, match="needs 2 players in each team"):
        team_game("2v2", team_of=[0, 0, 0, 1])
    with pytest.raises(SettingsError, match="teams are numbered 0 to 1"):
        team_game("2v2", team_of=[0, 1, 2, 1])
    with pytest.raises(SettingsError, match="without teams"):
        Game.new(["a", "b", "c"], "s", {}, team_of=[0, 1, 0])


def test_teammates_cannot_attack_each_other():
    game = team_game()
    position(game, {"alaska": 0, "kamchatka": 2, "alberta": 1}, {"alaska": 5})
    err = unchanged(game, Attack(0, "alaska", "kamchatka"))
    assert isinstance(err, E.Teammate)
    assert err.message == "Kamchatka is held by your teammate P3: teammates cannot attack each other."
    assert isinstance(unchanged(game, Blitz(0, "alaska", "kamchatka")), E.Teammate)
    assert "kamchatka" not in game.attack_targets(0, "alaska") and "alberta" in game.attack_targets(0, "alaska")


def test_fortify_into_a_teammates_territory():
    game = team_game()
    s = game.state
    position(game, {"alaska": 0, "alberta": 2}, {"alaska": 5, "alberta": 1})
    events = game.apply(Fortify(0, "alaska", "alberta", 3))
    assert events[0] == {"type": "fortified", "seat": 0, "from": "alaska", "to": "alberta", "count": 3}
    assert s.armies["alberta"] == 4 and s.owners["alberta"] == 2 and s.current != 0
    # Never from a teammate's territory, never into an enemy's.
    position(game, {"alaska": 0, "alberta": 2, "kamchatka": 1}, {"alaska": 5, "alberta": 5})
    assert isinstance(unchanged(game, Fortify(0, "alberta", "alaska", 1)), E.NotOwner)
    assert isinstance(unchanged(game, Fortify(0, "alaska", "kamchatka", 1)), E.NotOwner)


def test_connected_fortify_runs_through_teammates_territories():
    game = team_game(fortify="connected")
    position(game, {"alaska": 0, "northwest_territory": 2, "greenland": 0}, {"alaska": 5})
    assert "greenland" in game.fortify_targets(0, "alaska")
    game.apply(Fortify(0, "alaska", "greenland", 4))
    assert game.state.armies["greenland"] == 5
    solo = new_game(4, fortify="connected")
    position(solo, {"alaska": 0, "northwest_territory": 2, "greenland": 0}, {"alaska": 5})
    assert isinstance(unchanged(solo, Fortify(0, "alaska", "greenland", 4)), E.NotConnected)


def test_team_wins_together_when_the_other_team_is_gone():
    game = team_game()
    s = game.state
    position(game, {"alaska": 3, "brazil": 2}, {"kamchatka": 30, "alaska": 1}, default_owner=0)
    s.eliminated = [1]
    events = game.apply(Blitz(0, "kamchatka", "alaska"))
    over = events[-1]
    assert over["type"] == "game_over" and over["reason"] == "teams"
    assert over["winner"] == 0 and over["winners"] == [0, 2]
    assert s.winners == [0, 2]


def test_continent_bonus_only_for_a_player_holding_it_alone():
    game = team_game()
    position(game, {"indonesia": 0, "new_guinea": 0, "western_australia": 2, "eastern_australia": 2})
    assert game.reinforcement_breakdown(0)["continents"] == {}
    position(game, holding("australia"))
    assert game.reinforcement_breakdown(0)["continents"] == {"australia": 2}


# -- fog of war -----------------------------------------------------------------------------------------------------
def test_visible_territories_are_your_own_and_their_neighbours():
    game = new_game(3, fog="on")
    position(game, {"alaska": 0})
    assert visible_territories(game, 0) == {"alaska", "kamchatka", "northwest_territory", "alberta"}
    assert visible_territories(game.state, None) == set()
    teams = team_game(fog="on")
    position(teams, {"alaska": 0, "argentina": 2})
    assert visible_territories(teams, 0) == {"alaska", "kamchatka", "northwest_territory", "alberta", "argentina",
                                             "brazil", "peru"}


def test_events_out_of_sight_are_hidden_from_a_viewer():
    game = new_game(3, fog="on")
    s = game.state
    position(game, {"alaska": 0, "egypt": 2, "kamchatka": 2}, {"north_africa": 10, "egypt": 5, "yakutsk": 10,
                                                                "kamchatka": 5}, seat=1, phase=REINFORCE)
    s.reinforcements = 6
    before = s.copy()
    events = game.apply(Place(1, "ural", 3))
    events += game.apply(Place(1, "northwest_territory", 3))
    events += game.apply(Attack(1, "north_africa", "egypt", 1))
    events += game.apply(Attack(1, "yakutsk", "kamchatka", 1))
    _far_place, near_place, far_battle, near_battle = events
    view = public_events_for(events, 0, before=before)
    assert view[0] == {"type": "armies_placed", "seat": 1, "hidden": True}
    assert view[1] == near_place
    assert view[2] == {"type": "battle", "seat": 1, "hidden": True}
    assert view[3] == {**near_battle, "from": None}  # attacked from the fog: the source stays unknown
    assert public_events_for(events, 2, before=before)[2:] == [far_battle, near_battle]
    assert all(e.get("hidden") for e in public_events_for(events, None, before=before))
    assert public_events_for(events, 0, before=before, game_over=True) == events
    assert before.to_dict() != s.to_dict()  # the given state is left as it was
    no_fog = new_game(3)
    position(no_fog, {"alaska": 0, "egypt": 2}, {"north_africa": 10, "egypt": 5}, seat=1)
    start = no_fog.state.copy()
    battle = no_fog.apply(Attack(1, "north_africa", "egypt", 1))
    assert public_events_for(battle, 0, before=start) == battle


def test_a_viewer_sees_their_own_secrets_only():
    result = play_game(["normal", "normal", "normal"], "fog-secrets", {"mode": "missions", "fog": "on"})
    events = result.events
    for seat in range(3):
        view = public_events_for(events[:-1], seat)
        assert len(view) == len(events) - 1
        dealt = next(e for e in view if e["type"] == "missions_dealt")
        assert list(dealt["missions"]) == [str(seat)]
        for original, seen in zip(events, view, strict=False):
            if original["type"] == "card_drawn":
                assert (seen.get("card") is not None) is (original["seat"] == seat)
            if original["type"] == "battle" and original["seat"] == seat:
                assert seen == original  # your own attacks are always in sight
    assert public_events_for(events, 0, game_over=True) == events


# -- unlimited fortify ------------------------------------------------------------------------------------------------
def test_unlimited_fortify_allows_several_moves_then_end_turn():
    game = new_game(3, fortify="unlimited")
    s = game.state
    position(game, holding("north_america") | {"argentina": 0}, {"alaska": 6, "alberta": 4, "argentina": 3})
    events = game.apply(Fortify(0, "alaska", "greenland", 2))
    assert types(events) == ["attack_ended", "fortified"]
    assert s.phase == FORTIFY and s.current == 0
    events = game.apply(Fortify(0, "alberta", "quebec", 3))
    assert types(events) == ["fortified"] and s.current == 0
    game.apply(Fortify(0, "alaska", "quebec", 1))
    assert isinstance(unchanged(game, Fortify(0, "argentina", "alaska", 1)), E.NotConnected)
    assert isinstance(unchanged(game, EndAttack(0)), E.WrongPhase)
    events = game.apply(EndTurn(0))
    assert "turn_started" in types(events) and s.current != 0
    assert (s.armies["alaska"], s.armies["greenland"], s.armies["quebec"]) == (3, 3, 5)


# -- whole games ----------------------------------------------------------------------------------------------------
VARIANT_GAMES = [
    ("missions-3", 3, {"mode": "missions"}),
    ("missions-2", 2, {"mode": "missions", "deployment": "deal"}),
    ("missions-6", 6, {"mode": "missions", "deployment": "auto"}),
    ("capitals-4", 4, {"mode": "capitals", "deployment": "deal", "setup_batch": 3}),
    ("capitals-2", 2, {"mode": "capitals"}),
    ("teams-2v2", 4, {"teams": "2v2", "deployment": "auto"}),
    ("teams-3v3", 6, {"teams": "3v3", "deployment": "auto", "cards": "fixed"}),
    ("teams-2v2v2-missions", 6, {"teams": "2v2v2", "mode": "missions", "deployment": "auto"}),
    ("teams-2v2-capitals-unlimited", 4, {"teams": "2v2", "mode": "capitals", "fortify": "unlimited",
                                         "deployment": "auto"}),
    ("fog", 3, {"fog": "on", "deployment": "deal", "setup_batch": 5}),
    ("unlimited", 4, {"fortify": "unlimited", "deployment": "auto"}),
    ("unlimited-2", 2, {"fortify": "unlimited", "setup_batch": 5}),
    ("quick", 3, {"preset": "quick"}),
]


@pytest.mark.parametrize("players,settings", [(p, s) for _, p, s in VARIANT_GAMES], ids=[g[0] for g in VARIANT_GAMES])
@pytest.mark.parametrize("seed", ["a", "b"])
def test_variant_games_finish_replay_and_verify(players, settings, seed):
    levels = ["normal", "easy", "normal", "easy", "normal", "easy"][:players]
    result = play_game(levels, f"variant-{seed}-{players}-{settings}", settings)
    s = result.game.state
    assert s.phase == OVER and s.winner is not None and s.winner in s.winners
    over = result.events[-1]
    assert over["type"] == "game_over"
    replayed = Game.from_events(result.events, seed=s.seed)
    assert replayed.state.to_dict() == s.to_dict()
    verify_events(result.events)
    if "teams" in settings:
        assert over["winners"] == sorted(t for t, team in s.teams.items() if team == s.teams[s.winner])
    if settings.get("mode") == "missions":
        assert over["reason"] in ("mission", "conquest", "teams")
        if over["reason"] == "mission":
            assert over["mission"] == replayed.state.missions[s.winner]
    if settings.get("mode") == "capitals":
        assert len(s.capitals) == players


def test_verify_catches_a_tampered_mission_deal():
    result = play_game(["normal", "easy", "easy"], "verify-missions", {"mode": "missions"})
    events = [dict(e) for e in result.events]
    i = next(i for i, e in enumerate(events) if e["type"] == "missions_dealt")
    missions = dict(events[i]["missions"])
    missions["0"], missions["1"] = missions["1"], missions["0"]
    events[i] = {**events[i], "missions": missions}
    assert missions["0"] != missions["1"]  # every card of the deck is different
    with pytest.raises(Mismatch, match="missions are not the ones the seed gives"):
        verify_events(events)


@pytest.mark.parametrize("option", ["mode=missions", "mode=capitals", "teams=2v2", "fog=on", "fortify=unlimited",
                                    "preset=quick"])
def test_simulate_cli_plays_every_variant(option, capsys):
    assert simulate_main(["--players", "4", "--games", "2", "--seed", "v", "--ai", "normal,easy,normal,easy",
                          "--set", option, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "wins by seat" in out and "endings:" in out
