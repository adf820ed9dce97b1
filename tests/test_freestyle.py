"""Freestyle rounds (turn order ``freestyle``): each round every player still in takes one turn, in any order, one
at a time; reinforcements fixed when the round opens; the player who ended a round waits before going first."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import EndTurn, Game, Place, RuleError, Surrender
from engine.actions import EndRound, ReleaseHold, StartTurn
from engine.ai import make_ai
from engine.fog import events_for
from engine.settings import Settings, hold_time, turn_limit
from engine.simulate import next_starter, play_game
from engine.state import OVER, REINFORCE, WAITING, GameState
from engine.verify import verify_events

FREESTYLE = {"turn_order": "freestyle", "deployment": "auto"}


def new_game(players: int = 4, **extra: object) -> tuple[Game, list]:
    return Game.new([f"P{i}" for i in range(players)], "freestyle-seed", {**FREESTYLE, **extra})


def play_turn(game: Game, seat: int, events: list) -> None:
    """``seat`` plays a whole turn as the normal AI would, starting it first if no turn runs."""
    ai = make_ai("normal")
    if game.state.phase == WAITING:
        events += game.apply(StartTurn(seat))
    while game.state.phase not in (WAITING, OVER) and game.state.current == seat:
        events += game.apply(ai.choose(game, seat))


def test_a_round_opens_for_everyone_with_no_turn_running():
    game, events = new_game()
    s = game.state
    assert s.phase == WAITING and s.round == 1 and s.to_play == [0, 1, 2, 3] and s.held is None
    assert game.playing() is None and game.starters() == [0, 1, 2, 3]
    opened = [e for e in events if e["type"] == "round_started"]
    assert len(opened) == 1 and opened[0]["seats"] == [0, 1, 2, 3]
    assert not any(e["type"] == "turn_started" for e in events)


def test_players_play_in_any_order_and_a_started_turn_locks_the_board():
    game, events = new_game()
    events += game.apply(StartTurn(2))
    assert game.state.phase == REINFORCE and game.playing() == 2 and game.state.to_play == [0, 1, 3]
    # Nobody else may start, nor move, while seat 2 plays: they are told who is playing.
    for seat in (0, 1, 3):
        with pytest.raises(RuleError, match="P2 is playing their turn now"):
            game.apply(StartTurn(seat))
        mine = game.state.territories_of(seat)[0]
        with pytest.raises(RuleError, match="P2 is playing their turn now"):
            game.apply(Place(seat, mine, 1))
    with pytest.raises(RuleError, match="already running"):
        game.apply(StartTurn(2))
    play_turn(game, 2, events)
    assert game.state.phase == WAITING and game.state.to_play == [0, 1, 3]
    with pytest.raises(RuleError, match="played your turn this round"):
        game.apply(StartTurn(2))
    play_turn(game, 0, events)
    play_turn(game, 3, events)
    assert game.state.round == 1
    play_turn(game, 1, events)
    # Everyone played: the next round opens at once, seat 1 (who ended it) held back.
    assert game.state.round == 2 and game.state.to_play == [0, 1, 2, 3] and game.state.held == 1
    order = [e["seat"] for e in events if e["type"] == "turn_started"]
    assert order == [2, 0, 3, 1]


def test_any_move_starts_the_turn_and_a_refused_one_starts_nothing():
    game, _ = new_game()
    seat = 1
    theirs = game.state.territories_of(0)[0]
    before = game.state.to_dict()
    with pytest.raises(RuleError):
        game.apply(Place(seat, theirs, 1))       # not their territory: refused, and no turn started
    assert game.state.to_dict() == before
    with pytest.raises(RuleError):
        game.apply(EndTurn(seat))               # not in the reinforcement phase: refused, nothing started
    assert game.state.to_dict() == before
    mine = game.state.territories_of(seat)[0]
    new = game.apply(Place(seat, mine, 1))
    assert [e["type"] for e in new][:2] == ["turn_started", "armies_placed"]
    assert game.playing() == seat


def test_the_player_who_ended_a_round_waits_until_another_starts_or_the_hold_is_released():
    game, events = new_game(3)
    for seat in (0, 1, 2):
        play_turn(game, seat, events)
    assert game.state.held == 2 and game.starters() == [0, 1]
    with pytest.raises(RuleError, match="ended the last round"):
        game.apply(StartTurn(2))
    with pytest.raises(RuleError, match="Nobody is waiting"):
        game.apply(ReleaseHold(1))
    # Another player starts: the hold is over, seat 2 may play after them.
    play_turn(game, 0, events)
    assert game.state.held is None and 2 in game.starters()
    play_turn(game, 1, events)
    play_turn(game, 2, events)
    assert game.state.held == 2
    # Nobody else comes: the table releases the hold once the wait passed, and seat 2 may go first.
    released = game.apply(ReleaseHold(2))
    assert released[0] == {"type": "hold_released", "seat": 2}
    play_turn(game, 2, events)
    assert game.state.to_play == [0, 1]


def test_reinforcements_are_fixed_when_the_round_opens():
    """Over whole games, every turn's reinforcements are the ones its round fixed, and some of them differ from
    what the board gave at the moment the turn began (a player lost or won territories meanwhile)."""
    differed = 0
    for seed in ("a", "b", "c"):
        result = play_game(["normal"] * 5, seed, {**FREESTYLE})
        replay = Game.from_events(result.events[:1])
        income: dict[str, dict] = {}
        for event in result.events[1:]:
            if event["type"] == "round_started":
                income = event["income"]
            if event["type"] == "turn_started":
                fixed = income[str(event["seat"])]
                assert event["reinforcements"] == fixed
                assert event["total"] == fixed["territories"] + sum(fixed["continents"].values())
                live = replay.reinforcement_breakdown(event["seat"])
                differed += live["total"] != event["total"]
            replay._emit_all([event])
    assert differed > 0


def test_card_trades_still_add_at_the_time_of_the_trade():
    result = play_game(["normal"] * 4, "trades", {**FREESTYLE})
    trades = [e for e in result.events if e["type"] == "cards_traded"]
    assert trades and all(e["armies"] > 0 for e in trades)


def test_the_round_deadline_closes_the_round_with_the_missing_players_out_of_it():
    game, events = new_game()
    play_turn(game, 3, events)
    events += game.apply(StartTurn(1))
    with pytest.raises(RuleError, match="no turn runs"):
        game.apply(EndRound(0))                 # a running turn is ended first (the table times it out)
    play_turn(game, 1, events)
    closed = game.apply(EndRound(0))
    assert closed[0] == {"type": "round_closed", "round": 1, "missed": [0, 2]}
    assert closed[1]["type"] == "round_started" and closed[1]["held"] is None
    assert game.state.round == 2 and game.state.to_play == [0, 1, 2, 3]


def test_the_round_limit_ends_the_game_after_the_last_round():
    game, events = new_game(3, max_rounds=2)
    for _ in range(2):
        for seat in game.state.to_play[::-1]:
            if game.state.held == seat:
                events += game.apply(ReleaseHold(seat))
            play_turn(game, seat, events)
            if game.state.phase == OVER:
                break
    assert game.state.phase == OVER and game.state.result in ("round_limit", "conquest")
    assert game.state.round == 2


def test_a_surrender_takes_the_player_out_of_the_round_and_may_close_it():
    game, events = new_game(3)
    play_turn(game, 0, events)
    play_turn(game, 1, events)
    new = game.apply(Surrender(2))             # the last player the round waited for gives up
    assert [e["type"] for e in new] == ["player_surrendered", "round_started"]
    assert game.state.to_play == [0, 1] and game.state.held == 1
    # Surrendering during one's own running turn ends it; the round goes on for the other player.
    game2, events2 = new_game(3)
    events2 += game2.apply(StartTurn(0))
    new = game2.apply(Surrender(0))
    assert [e["type"] for e in new] == ["player_surrendered", "turn_ended"]
    assert game2.state.phase == WAITING and game2.state.to_play == [1, 2] and game2.starters() == [1, 2]


def test_teams_play_in_any_order_one_player_at_a_time():
    game, events = Game.new([f"P{i}" for i in range(4)], "teams", {**FREESTYLE, "teams": "2v2"})
    assert game.state.to_play == [0, 1, 2, 3]
    events += game.apply(StartTurn(0))
    mate = game.teammates(0)[0]
    with pytest.raises(RuleError, match="P0 is playing"):
        game.apply(StartTurn(mate))            # a teammate too waits for the running turn
    play_turn(game, 0, events)
    play_turn(game, mate, events)               # teammates may play one after the other
    assert sorted(game.state.to_play) == sorted({1, 2, 3} - {mate})


def test_two_players_the_neutral_plays_no_turn_and_turns_alternate_while_both_come():
    game, events = Game.new(["A", "B"], "duel", {**FREESTYLE, "deployment": "deal"})
    while game.state.phase != WAITING:          # two-player set-up: armies placed turn by turn
        seat = game.state.current
        events += game.apply(make_ai("normal").choose(game, seat))
    assert game.state.to_play == [0, 1]
    last = None
    for _ in range(6):
        starters = game.starters()
        assert -1 not in game.state.to_play
        assert last not in starters or (len(game.state.to_play) == 1 and game.state.held is None)
        seat = starters[0]
        play_turn(game, seat, events)
        if game.state.phase == OVER:
            break
        last = seat
    turns = [e["seat"] for e in events if e["type"] == "turn_started"]
    # The one who ended a round never begins the next: with both coming, turns alternate A, B, A, B...
    assert all(a != b for a, b in itertools.pairwise(turns))


def test_sequential_games_are_unchanged_and_refuse_start_turn():
    game, _ = Game.new(["A", "B", "C"], "seq", {"deployment": "auto"})
    assert "to_play" not in game.state.to_dict() and "turn_order" not in game.state.to_dict()["settings"]
    with pytest.raises(RuleError, match="seat order"):
        game.apply(StartTurn(game.state.current))


def test_the_turn_limit_and_the_hold_scale_with_the_round():
    day = Settings(turn_deadline=86400)
    assert turn_limit(day) == 3600 and hold_time(day) == 6 * 3600
    assert turn_limit(Settings(turn_deadline=7 * 86400)) == 7 * 3600
    assert turn_limit(Settings(turn_deadline=300)) == 60


def test_under_fog_a_round_tells_each_player_only_their_own_income():
    _game, events = new_game(4, fog="on")
    opened = next(e for e in events if e["type"] == "round_started")
    assert len(opened["income"]) == 4
    for seat in range(4):
        view = next(e for e in events_for(events, seat) if e["type"] == "round_started")
        assert set(view["income"]) == {str(seat)}
    public = next(e for e in events_for(events, None) if e["type"] == "round_started")
    assert public["income"] == {} and public["seats"] == [0, 1, 2, 3]


def test_state_survives_json_mid_round():
    game, events = new_game()
    play_turn(game, 1, events)
    events += game.apply(StartTurn(3))
    data = game.state.to_dict()
    back = GameState.from_dict(data)
    assert back.to_dict() == data and back.to_play == [0, 2] and back.income == game.state.income


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), deployment=st.sampled_from(["deal", "auto", "claim"]),
       mode=st.sampled_from(["classic", "missions", "capitals"]), fog=st.sampled_from(["off", "on"]),
       seed=st.text(min_size=1, max_size=8), data=st.data())
def test_random_freestyle_games_replay_and_verify(players, deployment, mode, fog, seed, data):
    """Random players, random starters, holds released and rounds closed at random moments: the log replays to
    the same state, a refused action changes nothing, and a finished game verifies."""
    game, events = Game.new([f"P{i}" for i in range(players)], seed,
                            {"turn_order": "freestyle", "deployment": deployment, "mode": mode, "fog": fog})
    ais = [make_ai("random", str(i), seed) for i in range(players)]
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    for _ in range(3000):
        s = game.state
        if s.phase == OVER:
            break
        if s.phase == WAITING:
            roll = rng.random()
            if roll < 0.05:
                action = EndRound(s.active_seats()[0])
            elif roll < 0.1 and s.held is not None:
                action = ReleaseHold(s.held)
            elif roll < 0.2:   # anyone tries, often refused
                action = StartTurn(rng.choice(range(players)))
            else:
                action = next_starter(game, seed)
        else:
            action = ais[s.current].choose(game, s.current)
        before = s.to_dict()
        try:
            events += game.apply(action)
        except RuleError:
            assert game.state.to_dict() == before
            continue
        assert game.state.held is None or game.state.held in game.state.to_play or game.state.phase != WAITING
    replayed = Game.from_events(events, seed=game.state.seed)
    assert replayed.state.to_dict() == game.state.to_dict()
    if game.state.phase == OVER:
        verify_events(events)
