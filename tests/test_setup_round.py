"""Set-up in one round (``setup: round``): every player places all their starting armies privately, in any order
and in as many sittings as they like; nobody sees another's until all have placed (or the deadline's stand-in
placed the rest), then all are revealed together and play begins."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game, Place, RuleError
from engine.actions import EndRound
from engine.ai import make_ai
from engine.fog import events_for, state_for, visible_territories, without_hidden
from engine.log import public_event
from engine.settings import Settings
from engine.simulate import next_starter, play_game
from engine.state import NEUTRAL, OVER, REINFORCE, SETUP, WAITING, GameState
from engine.verify import verify_events

ROUND = {"deployment": "deal", "setup": "round"}


def new_game(players: int = 4, **extra: object) -> tuple[Game, list]:
    return Game.new([f"P{i}" for i in range(players)], "setup-round-seed", {**ROUND, **extra})


def place_all(game: Game, seat: int, events: list, per_sitting: int | None = None) -> None:
    """``seat`` places its remaining starting armies on its first territory, ``per_sitting`` at a time."""
    mine = sorted(game.state.territories_of(seat))
    while game.setup_left(seat):
        count = min(per_sitting or game.setup_left(seat), game.setup_left(seat))
        events += game.apply(Place(seat, mine[0], count))


def test_the_round_opens_for_everyone_and_nothing_is_on_the_board_until_all_have_placed():
    game, events = new_game()
    s = game.state
    assert s.phase == SETUP and s.sealed == {0: {}, 1: {}, 2: {}, 3: {}}
    assert game.setup_waiting() == [0, 1, 2, 3]
    assert [e for e in events if e["type"] == "setup_round"] == [{"type": "setup_round", "seats": [0, 1, 2, 3]}]
    board = dict(s.armies)
    # Players place in any order (not seat order), in several sittings.
    for seat in (2, 0, 3):
        place_all(game, seat, events, per_sitting=7)
        assert game.state.armies == board     # sealed: nothing on the board yet
        assert seat not in game.setup_waiting()
    assert game.setup_waiting() == [1] and game.state.phase == SETUP
    mine = sorted(game.state.territories_of(1))
    events += game.apply(Place(1, mine[1], 1))
    place_all(game, 1, events)
    revealed = [e for e in events if e["type"] == "placements_revealed"]
    assert len(revealed) == 1 and revealed[0]["stand_in"] == []
    s = game.state
    assert s.sealed is None and s.phase == REINFORCE and s.current == s.first_seat
    for seat in range(4):
        assert sum(s.armies[t] for t in s.territories_of(seat)) == 30   # four players start with 30 each
        assert s.setup_remaining[seat] == 0
    assert s.armies[mine[1]] == 2


def test_a_placement_is_checked_and_a_refused_one_changes_nothing():
    game, _ = new_game()
    s = game.state
    theirs = s.territories_of(1)[0]
    mine = s.territories_of(0)[0]
    before = s.to_dict()
    with pytest.raises(RuleError, match="belongs to P1"):
        game.apply(Place(0, theirs, 1))
    left = 30 - len(s.territories_of(0))   # 30 starting armies, one on each territory dealt
    with pytest.raises(RuleError, match=f"only {left} left to place, not {left + 1}"):
        game.apply(Place(0, mine, left + 1))
    with pytest.raises(RuleError, match="not playing"):
        game.apply(Place(7, mine, 1))
    assert s.to_dict() == before
    events: list = []
    place_all(game, 0, events)
    with pytest.raises(RuleError, match="placed all your starting armies"):
        game.apply(Place(0, mine, 1))


def test_the_deadline_stand_in_places_the_rest_at_random_and_all_are_revealed():
    game, events = new_game()
    place_all(game, 0, events)
    mine = game.state.territories_of(2)[0]
    events += game.apply(Place(2, mine, 5))
    board = dict(game.state.armies)
    sealed = sum(game.state.setup_remaining.values()) + 30 - len(game.state.territories_of(0)) + 5
    events += game.apply(EndRound(0))
    revealed = next(e for e in events if e["type"] == "placements_revealed")
    assert revealed["stand_in"] == [1, 2, 3]
    s = game.state
    assert s.phase == REINFORCE and s.sealed is None
    assert sum(s.armies.values()) == sum(board.values()) + sealed
    assert s.armies[mine] >= board[mine] + 5
    assert all(v == 0 for v in s.setup_remaining.values())


def test_two_players_the_neutral_armies_go_at_random_when_the_round_opens():
    game, events = new_game(2)
    s = game.state
    assert s.sealed == {0: {}, 1: {}} and s.setup_remaining[NEUTRAL] == 0
    neutral = [t for t, o in s.owners.items() if o == NEUTRAL]
    assert sum(s.armies[t] for t in neutral) == 40
    assert game.placeable(0) == sorted(s.territories_of(0), key=game.board.territory_ids.index)
    for seat in (1, 0):
        place_all(game, seat, events)
    assert game.state.phase == REINFORCE


def test_claim_then_the_armies_in_one_round():
    game, events = Game.new([f"P{i}" for i in range(3)], "claims", {"deployment": "claim", "setup": "round"})
    ai = make_ai("normal")
    while game.state.phase == "claim":
        events += game.apply(ai.choose(game, game.state.current))
    assert game.state.phase == SETUP and game.state.sealed is not None
    for seat in (1, 2, 0):
        while game.setup_left(seat):
            events += game.apply(ai.choose(game, seat))
    assert game.state.phase == REINFORCE
    assert Game.from_events(events, seed=game.state.seed).state.to_dict() == game.state.to_dict()


def test_nobody_sees_another_players_placements_until_they_are_revealed():
    game, events = new_game(3, fog="off")
    told = len(events)
    place_all(game, 0, events, per_sitting=4)
    place_all(game, 1, events, per_sitting=4)
    sealed = events[told:]
    for audience in (1, 2, None):
        for event in events_for(events, audience)[told:]:
            if event.get("seat") == 0:
                assert event == {"type": "armies_placed", "seat": 0, "hidden": True}
    own = events_for(events, 0)[told:]
    assert own == [e for e in sealed if e["seat"] == 0] + [{"type": "armies_placed", "seat": 1, "hidden": True}
                                                             for e in sealed if e["seat"] == 1]
    for event in sealed:   # a public export names neither where nor how many
        view = public_event(event)
        assert view["territory"] is None and view["count"] is None and view["seat"] == event["seat"]
    view = state_for(game.state, 2)
    assert view.sealed == {0: {}, 1: {}, 2: {}} and view.armies == game.state.armies
    assert state_for(game.state, 0).sealed == {0: game.state.sealed[0], 1: {}, 2: {}}
    place_all(game, 2, events)
    # Revealed: every audience sees every placement of the round, at once.
    for audience in (0, 1, 2, None):
        shown = [e for e in without_hidden(events_for(events, audience)) if e["type"] == "placements_revealed"]
        assert len(shown) == 1 and set(shown[0]["placements"]) == {"0", "1", "2"}


def test_under_fog_the_reveal_shows_only_the_territories_in_sight():
    game, events = new_game(3, fog="on")
    for seat in range(3):
        place_all(game, seat, events)
    for seat in range(3):
        shown = next(e for e in events_for(events, seat) if e["type"] == "placements_revealed")
        seen = set().union(*(set(p) for p in shown["placements"].values()))
        assert seen and seen <= visible_territories(game.state, seat)


def test_old_records_mean_set_up_turns():
    assert "setup" not in Settings(deployment="deal").game_dict()
    assert Settings.from_dict({"deployment": "deal"}).setup == "turns"
    assert Settings(setup="round").game_dict()["setup"] == "round"
    game, _ = Game.new(["a", "b", "c"], "turns", {"deployment": "deal"})
    assert game.state.sealed is None and game.state.phase == SETUP and game.state.batch_left == 1


def test_state_survives_json_mid_round():
    game, events = new_game()
    place_all(game, 3, events, per_sitting=5)
    events += game.apply(Place(1, game.state.territories_of(1)[0], 2))
    data = game.state.to_dict()
    back = GameState.from_dict(data)
    assert back.to_dict() == data and back.sealed == game.state.sealed and back.sealed[1]


def test_whole_ai_games_with_a_set_up_round_verify():
    for order in ("sequential", "freestyle"):
        result = play_game(["normal"] * 4, f"whole-{order}", {**ROUND, "turn_order": order, "max_rounds": 30})
        assert result.game.state.phase == OVER
        verify_events(result.events)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), deployment=st.sampled_from(["deal", "claim"]),
       mode=st.sampled_from(["classic", "missions", "capitals"]), fog=st.sampled_from(["off", "on"]),
       order=st.sampled_from(["sequential", "freestyle"]), seed=st.text(min_size=1, max_size=8), data=st.data())
def test_random_set_up_rounds_replay_and_verify(players, deployment, mode, fog, order, seed, data):
    """Random players place at random in a random order, the deadline sometimes closes the round: the log
    replays to the same state, a refused action changes nothing, and a finished game verifies."""
    game, events = Game.new([f"P{i}" for i in range(players)], seed,
                            {"setup": "round", "deployment": deployment, "mode": mode, "fog": fog,
                             "turn_order": order, "max_rounds": 12})
    ais = [make_ai("random", str(i), seed) for i in range(players)]
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    for _ in range(4000):
        s = game.state
        if s.phase == OVER:
            break
        if s.sealed is not None:
            roll = rng.random()
            if roll < 0.03:
                action = EndRound(rng.choice(range(players)))
            elif roll < 0.1:   # anyone places anywhere: often refused
                action = Place(rng.choice(range(players)), rng.choice(game.board.territory_ids), rng.randint(1, 9))
            else:
                seat = rng.choice(game.setup_waiting())
                action = ais[seat].choose(game, seat)
        elif s.phase == WAITING:
            action = next_starter(game, seed) if rng.random() > 0.05 else EndRound(s.active_seats()[0])
        else:
            action = ais[s.current].choose(game, s.current)
        before = s.to_dict()
        try:
            events += game.apply(action)
        except RuleError:
            assert game.state.to_dict() == before
            continue
    replayed = Game.from_events(events, seed=game.state.seed)
    assert replayed.state.to_dict() == game.state.to_dict()
    if game.state.phase == OVER:
        verify_events(events)
