"""Undo: a player takes back this turn's reinforcement placements before the turn's first battle or fortify move."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import new_game, position
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import army_delta, candidate, check_invariants

from engine import (
    Attack,
    EndAttack,
    EndTurn,
    Fortify,
    Game,
    Place,
    Player,
    Trade,
    Undo,
    action_from_dict,
)
from engine import errors as E
from engine.ai import make_ai
from engine.fog import events_for, state_for, visible_territories
from engine.simulate import play_game
from engine.state import ATTACK, FORTIFY, OVER, REINFORCE, SETUP
from engine.verify import verify_events

ATTACKED = "You have attacked this turn: your placements can no longer be undone."
FORTIFYING = "You have moved on to fortifying: your placements can no longer be undone."
NOTHING = "You have placed no reinforcements this turn: there is nothing to undo."
DEPLOYMENT = "Starting armies cannot be taken back: you can undo only the reinforcements you place during your turn."


def refused(game: Game, action: Any) -> E.RuleError:
    """Apply ``action``, expecting a refusal that leaves the state exactly as it was."""
    before = game.state.to_dict()
    with pytest.raises(E.RuleError) as info:
        game.apply(action)
    assert game.state.to_dict() == before
    return info.value


def without_count(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != "event_count"}


def front(game: Game, seat: int) -> str:
    """A territory of ``seat`` next to an enemy."""
    return next(t for t in game.placeable(seat) if game.attack_targets(seat, t))


def place_all(game: Game, seat: int, territory: str) -> list[dict[str, Any]]:
    return game.apply(Place(seat, territory, game.state.reinforcements))


# -- the action ------------------------------------------------------------------------------------------
def test_undo_is_an_action_like_the_others():
    assert Undo(2).to_dict() == {"type": "undo", "seat": 2}
    assert action_from_dict({"type": "undo", "seat": 2}) == Undo(2)
    with pytest.raises(AttributeError):
        Undo(2).seat = 1  # type: ignore[misc]


def test_undo_after_several_placements_restores_owners_armies_and_reinforcements():
    game = new_game(3)
    s = game.state
    seat = s.current
    assert s.phase == REINFORCE and s.reinforcements >= 3
    before = s.to_dict()
    mine = game.placeable(seat)
    a, b = mine[0], mine[1]
    game.apply(Place(seat, a, 1))
    game.apply(Place(seat, b, 1))
    game.apply(Place(seat, a, 1))
    assert game.can_undo(seat) and game.undoable(seat) == {a: 2, b: 1}
    events = game.apply(Undo(seat))
    assert events == [{"type": "placements_undone", "seat": seat, "placements": {a: 2, b: 1}, "armies": 3}]
    assert without_count(s.to_dict()) == without_count(before)
    assert not game.can_undo(seat) and game.undoable(seat) == {}


def test_undo_after_every_army_is_placed_goes_back_to_reinforce():
    game = new_game(3)
    s = game.state
    seat = s.current
    total = s.reinforcements
    armies, owners = dict(s.armies), dict(s.owners)
    t = front(game, seat)
    place_all(game, seat, t)
    assert s.phase == ATTACK and s.reinforcements == 0
    assert game.undoable(seat) == {t: total}
    game.apply(Undo(seat))
    assert s.phase == REINFORCE and s.reinforcements == total
    assert s.armies == armies and s.owners == owners
    # and the turn goes on as usual: place again, then attack
    place_all(game, seat, t)
    assert s.phase == ATTACK
    game.apply(Attack(seat, t, game.attack_targets(seat, t)[0]))


def test_a_trades_card_bonus_stays_and_its_armies_stay_to_place():
    game = new_game(3)
    s = game.state
    b = game.board
    seat = s.current
    owned = next(t for t in s.territories_of(seat) if b.territories[t].card == "infantry")
    other = next(t for t in b.territory_ids if t != owned and b.territories[t].card == "cavalry")
    cards = [owned, other, "wild_1"]
    for c in cards:
        s.deck.remove(c)
    s.hands[seat] = list(cards)
    total = s.reinforcements
    armies = dict(s.armies)
    spot = next(t for t in s.territories_of(seat) if t != owned)
    game.apply(Place(seat, spot, 1))
    traded = game.apply(Trade(seat, tuple(cards), bonus_territory=owned))
    value = traded[0]["armies"]
    assert traded[1]["source"] == "card_bonus" and s.armies[owned] == armies[owned] + 2
    game.apply(Place(seat, owned, 3))
    assert game.undoable(seat) == {spot: 1, owned: 3}  # the reinforcements only, not the card bonus
    game.apply(Undo(seat))
    assert s.armies == {**armies, owned: armies[owned] + 2}  # the +2 of the trade stays where it was placed
    assert s.reinforcements == total + value
    assert s.hands[seat] == [] and s.sets_traded == 1 and s.bonus_this_turn == 2  # the trade stands
    assert s.phase == REINFORCE


def test_only_a_trades_bonus_is_nothing_to_undo():
    game = new_game(3)
    s = game.state
    b = game.board
    seat = s.current
    owned = next(t for t in s.territories_of(seat) if b.territories[t].card == "artillery")
    cards = [owned, "wild_1", "wild_2"]
    for c in cards:
        s.deck.remove(c)
    s.hands[seat] = list(cards)
    game.apply(Trade(seat, tuple(cards)))
    exc = refused(game, Undo(seat))
    assert isinstance(exc, E.NothingToUndo) and exc.template == NOTHING


# -- refusals ----------------------------------------------------------------------------------------------
def test_refused_with_nothing_to_undo():
    game = new_game(3)
    seat = game.state.current
    exc = refused(game, Undo(seat))
    assert isinstance(exc, E.NothingToUndo) and exc.code == "nothing_to_undo"
    assert exc.template == NOTHING and exc.params == {} and str(exc) == NOTHING
    game.apply(Place(seat, game.placeable(seat)[0], 1))
    game.apply(Undo(seat))
    assert refused(game, Undo(seat)).template == NOTHING  # a second undo has nothing left to take back


def test_refused_after_an_attack():
    game = new_game(3)
    s = game.state
    seat = s.current
    t = front(game, seat)
    place_all(game, seat, t)
    game.apply(Attack(seat, t, game.attack_targets(seat, t)[0], 1))
    assert not game.can_undo(seat) and game.undoable(seat) == {}
    exc = refused(game, Undo(seat))
    assert isinstance(exc, E.WrongPhase) and exc.template == ATTACKED


def test_refused_after_a_conquest_and_after_a_trade_down():
    game = new_game(3)
    s = game.state
    position(game, {"alaska": 0}, {"alaska": 30}, seat=0)
    s.undoable_placements = {"alaska": 5}  # as if the armies had just been placed
    game.apply(Attack(0, "alaska", "kamchatka"))
    while s.phase == ATTACK and s.owners["kamchatka"] != 0:
        game.apply(Attack(0, "alaska", "kamchatka"))
    assert refused(game, Undo(0)).template == ATTACKED  # moving in (or attacking again) after the battles
    s.phase = REINFORCE  # the reinforcement phase of a trade-down after an elimination comes after battles too
    s.pending = None
    s.trade_down = True
    assert refused(game, Undo(0)).template == ATTACKED


def test_refused_after_ending_the_attacks_or_a_fortify_move():
    game = new_game(3, fortify="unlimited")
    s = game.state
    seat = s.current
    t = front(game, seat)
    place_all(game, seat, t)
    game.apply(EndAttack(seat))
    assert s.phase == FORTIFY and not game.can_undo(seat)
    exc = refused(game, Undo(seat))
    assert isinstance(exc, E.WrongPhase) and exc.template == FORTIFYING

    game = new_game(3, fortify="unlimited")
    s = game.state
    seat = s.current
    source = front(game, seat)
    place_all(game, seat, source)
    target = game.fortify_targets(seat, source)[0]
    game.apply(Fortify(seat, source, target, 1))  # a fortify move while attacking ends the attacks
    assert s.current == seat and s.phase == FORTIFY
    assert refused(game, Undo(seat)).template == FORTIFYING


def test_a_fortify_move_or_end_turn_passes_the_turn_and_the_placements_stay():
    game = new_game(3)
    s = game.state
    seat = s.current
    t = front(game, seat)
    place_all(game, seat, t)
    game.apply(EndTurn(seat))
    exc = refused(game, Undo(seat))
    assert isinstance(exc, E.NotYourTurn)
    assert refused(game, Undo(s.current)).template == NOTHING  # the next player has placed nothing yet


def test_refused_out_of_turn():
    game = new_game(3)
    s = game.state
    seat = s.current
    game.apply(Place(seat, game.placeable(seat)[0], 1))
    other = (seat + 1) % 3
    assert not game.can_undo(other) and game.undoable(other) == {}
    exc = refused(game, Undo(other))
    assert isinstance(exc, E.NotYourTurn) and exc.template == "It is {player}'s turn, not yours."
    assert isinstance(refused(game, Undo(7)), E.NotYourTurn)
    assert game.can_undo(seat)  # still the player's own to undo


def test_refused_during_deployment():
    game, _ = Game.new([Player(i, f"P{i + 1}") for i in range(3)], "deploy", {"deployment": "deal"})
    s = game.state
    assert s.phase == SETUP
    seat = s.current
    game.apply(Place(seat, game.placeable(seat)[0], 1))
    seat = s.current
    assert not game.can_undo(seat)
    exc = refused(game, Undo(seat))
    assert isinstance(exc, E.WrongPhase) and exc.template == DEPLOYMENT


def test_refused_once_the_game_is_over():
    game = new_game(3)
    s = game.state
    s.phase = OVER
    assert isinstance(refused(game, Undo(s.current)), E.GameOver)


def test_validate_changes_nothing():
    game = new_game(3)
    s = game.state
    seat = s.current
    game.apply(Place(seat, game.placeable(seat)[0], 2))
    before = s.to_dict()
    game.validate(Undo(seat))
    assert s.to_dict() == before


# -- logs ---------------------------------------------------------------------------------------------------
def play_with_undos(levels: list[str], seed: str, settings: dict[str, Any]) -> tuple[Game, list[dict[str, Any]], int]:
    """A whole game between AIs in which every other turn's player undoes their first placements once."""
    players = [Player(i, f"P{i + 1}", "ai", level) for i, level in enumerate(levels)]
    game, events = Game.new(players, seed, settings)
    ais = [make_ai(level, salt=str(i)) for i, level in enumerate(levels)]
    s = game.state
    undone_in: set[int] = set()
    undos = 0
    for _ in range(50_000):
        if s.phase == OVER:
            break
        seat = s.current
        action = ais[seat].choose(game, seat)
        before_armies = sum(s.armies.values())
        events += game.apply(action)
        if isinstance(action, Place) and s.phase in (REINFORCE, ATTACK) and s.turn % 2 == 0 \
                and s.turn not in undone_in and game.can_undo(seat):
            undone_in.add(s.turn)
            to_place = s.reinforcements
            placed = game.undoable(seat)
            events += game.apply(Undo(seat))
            undos += 1
            assert s.phase == REINFORCE and s.reinforcements == to_place + sum(placed.values())
            assert sum(s.armies.values()) == before_armies + action.count - sum(placed.values())
    assert s.phase == OVER
    return game, events, undos


@pytest.mark.parametrize("settings", [
    {"deployment": "auto"},
    {"deployment": "deal", "cards": "fixed", "fortify": "connected"},
    {"deployment": "auto", "cards": "none", "fortify": "unlimited", "fog": "on"},
    {"deployment": "auto", "mode": "missions"},
], ids=lambda s: "-".join(str(v) for v in s.values()))
def test_a_log_with_undos_replays_to_the_same_state_and_verifies(settings):
    game, events, undos = play_with_undos(["normal", "easy", "normal"], f"undo-{settings}", settings)
    assert undos > 0
    assert sum(1 for e in events if e["type"] == "placements_undone") == undos
    replayed = Game.from_events(events, seed=game.state.seed)
    assert replayed.state.to_dict() == game.state.to_dict()
    verify_events(events)
    # and in the middle of a game, right after an undo
    at = next(i for i, e in enumerate(events) if e["type"] == "placements_undone") + 1
    partial = Game.from_events(events[:at])
    assert partial.state.phase == REINFORCE and partial.state.undoable_placements == {}


def test_the_ais_never_undo():
    for levels in (["easy", "easy", "easy"], ["normal", "easy", "normal", "easy"]):
        result = play_game(levels, f"no-undo-{len(levels)}", {"deployment": "auto"})
        assert not any(e["type"] == "placements_undone" for e in result.events)


def test_the_state_keeps_the_placements_to_undo_through_json():
    import json

    from engine import GameState

    game = new_game(3)
    seat = game.state.current
    t = game.placeable(seat)[0]
    game.apply(Place(seat, t, 2))
    data = json.loads(json.dumps(game.state.to_dict()))
    assert data["undoable_placements"] == {t: 2}
    restored = Game(GameState.from_dict(data))
    assert restored.undoable(seat) == {t: 2}
    del data["undoable_placements"]  # a state stored before undo existed: nothing to undo
    old = Game(GameState.from_dict(data))
    assert old.state.undoable_placements == {} and not old.can_undo(seat)
    assert refused(old, Undo(seat)).template == NOTHING


# -- fog of war ---------------------------------------------------------------------------------------------
def test_under_fog_an_undo_shows_only_the_placements_in_sight():
    game = new_game(3, fog="on")
    s = game.state
    position(game, {"alaska": 0, "egypt": 2, "kamchatka": 2}, seat=1, phase=REINFORCE)
    s.reinforcements = 6
    s.undoable_placements = {}
    before = s.copy()
    events = game.apply(Place(1, "ural", 3))  # out of seat 0's sight
    events += game.apply(Place(1, "northwest_territory", 3))  # next to seat 0's alaska
    undo = game.apply(Undo(1))
    events += undo
    assert undo == [{"type": "placements_undone", "seat": 1,
                     "placements": {"northwest_territory": 3, "ural": 3}, "armies": 6}]
    view = events_for(events, 0, before=before)
    assert view[0] == {"type": "armies_placed", "seat": 1, "hidden": True}
    assert view[2] == {"type": "placements_undone", "seat": 1, "placements": {"northwest_territory": 3},
                       "armies": 3}
    assert events_for(events, 2, before=before)[1:] == [  # seat 2 sees neither territory
        {"type": "armies_placed", "seat": 1, "hidden": True}, {"type": "placements_undone", "seat": 1, "hidden": True}]
    assert events_for(events, 1, before=before) == events  # the player's own undo, whole
    assert all(e.get("hidden") for e in events_for(events, None, before=before))


def test_under_fog_a_whole_log_hides_the_undo_from_a_player_who_cannot_see_it():
    game, events = Game.new([Player(i, f"P{i + 1}") for i in range(4)], "fog-undo", {"deployment": "auto",
                                                                                       "fog": "on"})
    s = game.state
    seat = s.current
    other = (seat + 1) % 4
    seen = visible_territories(game, other)
    mine = game.placeable(seat)
    far = next(t for t in mine if t not in seen)
    near = next((t for t in mine if t in seen), None)
    events += game.apply(Place(seat, far, 1))
    if near is not None:
        events += game.apply(Place(seat, near, 2))
    events += game.apply(Undo(seat))
    view = events_for(events, other)
    assert len(view) == len(events)
    if near is None:
        assert view[-1] == {"type": "placements_undone", "seat": seat, "hidden": True}
    else:
        assert view[-1] == {"type": "placements_undone", "seat": seat, "placements": {near: 2}, "armies": 2}
    assert events_for(events, seat)[-1] == events[-1]
    # the state a map is drawn from tells nobody else where the player placed
    game.apply(Place(seat, far, 1))
    assert state_for(s, other).undoable_placements is None
    assert state_for(s, seat).undoable_placements == {far: 1}
    no_fog = new_game(3)
    no_fog.apply(Place(no_fog.state.current, no_fog.placeable(no_fog.state.current)[0], 1))
    assert state_for(no_fog.state, (no_fog.state.current + 1) % 3).undoable_placements


# -- random play --------------------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), deployment=st.sampled_from(["claim", "deal", "auto"]),
       cards=st.sampled_from(["escalating", "fixed", "none"]),
       fortify=st.sampled_from(["adjacent", "connected", "unlimited"]), seed=st.text(min_size=1, max_size=8),
       data=st.data())
def test_random_play_with_undos_keeps_invariants_and_replays(players, deployment, cards, fortify, seed, data):
    game, events = Game.new([f"P{i}" for i in range(players)], seed,
                            {"deployment": deployment, "cards": cards, "fortify": fortify})
    s = game.state
    armies = army_delta(events)
    for _ in range(data.draw(st.integers(20, 300))):
        if s.phase == OVER:
            break
        if data.draw(st.integers(0, 5)) == 0:
            action = Undo(data.draw(st.sampled_from([s.current, s.current, (s.current + 1) % players])))
        else:
            action = candidate(game, data)
        allowed = isinstance(action, Undo) and game.can_undo(action.seat)
        before = s.to_dict()
        try:
            new = game.apply(action)
        except E.RuleError as exc:
            assert s.to_dict() == before, f"{action} changed the state although refused: {exc}"
            assert not allowed
        else:
            assert allowed or not isinstance(action, Undo)
            events += new
            armies += army_delta(new) - sum(e["armies"] for e in new if e["type"] == "placements_undone")
        check_invariants(game, armies)
    replayed = Game.from_events(events, seed=s.seed)
    assert replayed.state.to_dict() == s.to_dict()
