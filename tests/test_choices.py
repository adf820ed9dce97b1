"""``engine/choices.py`` lists exactly what ``Game.apply`` accepts.

Random games are walked to reachable states (the classic map and a small map of eight territories with a one-way
border; set-up turns and rounds, every deployment, capitals and missions, two players with the neutral armies,
teams, fog, sequential and freestyle turns). In each state, for every seat: every choice listed is accepted by
``Game.apply`` on a copy, and every action drawn from the whole action space (every action type, every territory
or pair of territories, counts from 0 to one past the most the rules could allow, dice 0 to 4 and none, every
three cards of the hand with every +2 territory) is accepted exactly when it is listed. The candidates never come
from the listed choices. On the small map every pair of territories is tried; on the classic map a sample of
them, half of them neighbours.
"""

from __future__ import annotations

import copy
import random
from itertools import combinations
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game, Player, RuleError, SettingsError, parse_map, register_map
from engine.actions import (
    Action,
    Attack,
    Blitz,
    ChooseCapital,
    Claim,
    ClaimSeat,
    EndAttack,
    EndRound,
    EndTurn,
    Fortify,
    Occupy,
    Place,
    ReleaseHold,
    RoundLimit,
    StartTurn,
    Surrender,
    Trade,
    Undo,
    VoteEnd,
)
from engine.ai.knowledge import seat_view
from engine.choices import TABLE_ACTIONS, Choices, choices_for
from engine.state import NEUTRAL, OVER, SETUP, WAITING

SMALL: dict[str, Any] = {
    "id": "choices-test", "name": "Eight",
    "continents": [{"id": "n", "name": "North", "bonus": 2, "territories": ["a", "b", "c", "d"]},
                   {"id": "s", "name": "South", "bonus": 3, "territories": ["e", "f", "g", "h"]}],
    "territories": [
        {"id": "a", "name": "Ash", "card": "infantry", "neighbours": ["b", "c"]},
        {"id": "b", "name": "Birch", "card": "cavalry", "neighbours": ["a", "d", "e"]},
        {"id": "c", "name": "Cedar", "card": "artillery", "neighbours": ["a", "d"]},
        {"id": "d", "name": "Dogwood", "card": "infantry", "neighbours": ["b", "c", "f"]},
        {"id": "e", "name": "Elm", "card": "cavalry", "neighbours": ["f", "g"]},
        {"id": "f", "name": "Fir", "card": None, "neighbours": ["d", "e", "h"]},
        {"id": "g", "name": "Gum", "card": "artillery", "neighbours": ["e", "h"]},
        {"id": "h", "name": "Holly", "card": "infantry", "neighbours": ["f", "g"]},
    ],
    "one_way": [["b", "e"]],   # crossed only from b to e
    "wildcards": 2,
    "players": {"min": 2, "max": 4},
}
BOARDS: dict[str, Any] = {}


def board_id(name: str) -> str:
    if name == "classic":
        return "classic"
    if "small" not in BOARDS:
        BOARDS["small"] = parse_map(SMALL)
        register_map(BOARDS["small"])
    return str(BOARDS["small"].id)


# -- the walk to a reachable state ------------------------------------------------------------------------------
WEIGHTS = {"start": 1.0, "claim": 1.0, "capital": 1.0, "place": 3.0, "neutral": 3.0, "trade": 2.0, "attack": 1.5,
           "blitz": 4.0, "occupy": 1.0, "end_attack": 0.6, "fortify": 0.8, "end_turn": 0.8, "undo": 0.2,
           "surrender": 0.002}


def some_choice(game: Game, c: Choices, rng: random.Random) -> Action | None:
    """One of the listed choices, at random (the walk only: the checks draw from the whole action space)."""
    seat = c.seat
    kinds = [k for k in WEIGHTS if getattr(c, k if k != "blitz" else "attack", None)]
    if c.must_trade and c.trade:
        kinds = ["trade"]
    if not kinds:
        return None
    # After the turn's conquest (its card) the walk attacks no more, so the games last and hands fill up.
    if game.state.conquered_this_turn and len(kinds) > 2:
        kinds = [k for k in kinds if k not in ("attack", "blitz")]
    kind = rng.choices(kinds, [WEIGHTS[k] for k in kinds])[0]
    if kind == "start":
        return StartTurn(seat)
    if kind in ("claim", "capital"):
        territory = rng.choice(getattr(c, kind))
        return Claim(seat, territory) if kind == "claim" else ChooseCapital(seat, territory)
    if kind in ("place", "neutral"):
        placing = getattr(c, kind)
        return Place(seat, rng.choice(placing.territories), rng.randint(1, placing.most))
    if kind == "trade":
        option = rng.choice(c.trade)
        return Trade(seat, option.cards, rng.choice([None, *option.bonus]))
    if kind in ("attack", "blitz"):
        source, target = rng.choice(c.attack_pairs())
        if kind == "blitz":
            return Blitz(seat, source, target, rng.randint(1, c.attack[source].stop_most))
        return Attack(seat, source, target, rng.choice([None, *c.attack[source].dice]))
    if kind == "occupy":
        assert c.occupy is not None
        return Occupy(seat, rng.randint(c.occupy.least, c.occupy.most))
    if kind == "fortify":
        source, target = rng.choice(c.fortify_pairs())
        return Fortify(seat, source, target, rng.randint(1, c.fortify[source].most))
    return {"end_attack": EndAttack, "end_turn": EndTurn, "undo": Undo, "surrender": Surrender}[kind](seat)


def step(game: Game, rng: random.Random) -> bool:
    """One move of the walk (now and then one of the table's); False once nothing can be done."""
    s = game.state
    if s.phase == OVER:
        return False
    if s.held is not None and rng.random() < 0.3:
        game.apply(ReleaseHold(s.held))
        return True
    if (s.phase == WAITING or (s.phase == SETUP and s.sealed is not None)) and rng.random() < 0.05:
        game.apply(EndRound(s.active_seats()[0]))
        return True
    movers = [c for c in (choices_for(game, seat) for seat in range(len(s.players))) if c]
    if not movers:
        return False
    c = rng.choice(movers)
    action = some_choice(game, c, rng)
    if action is None:
        return False
    game.apply(action)
    return True


# -- the whole action space -------------------------------------------------------------------------------------
def counts(rng: random.Random, most: int) -> set[int]:
    """Counts from 0 to one past ``most``: the edges, and one between."""
    return {0, 1, most, most + 1, rng.randint(0, most + 1)}


def candidates(game: Game, seat: int, rng: random.Random, every_pair: bool) -> list[Action]:
    s = game.state
    ids = list(game.board.territory_ids)
    out: list[Action] = [StartTurn(seat), EndAttack(seat), EndTurn(seat), Undo(seat), Surrender(seat)]
    out += [Claim(seat, t) for t in ids] + [ChooseCapital(seat, t) for t in ids]
    most_placed = max(s.reinforcements, s.batch_left, s.neutral_left, s.setup_remaining.get(seat, 0),
                      s.setup_remaining.get(NEUTRAL, 0))
    out += [Place(seat, t, n) for t in ids for n in counts(rng, most_placed)]
    hand = s.hands.get(seat, [])
    for cards in combinations(hand, 3):
        out += [Trade(seat, cards, bonus) for bonus in (None, *cards)]
    if s.pending is not None:
        out += [Occupy(seat, n) for n in range(s.pending["max"] + 2)]
    else:
        out += [Occupy(seat, n) for n in (0, 1, 2, 3)]
    if every_pair:
        pairs = [(a, b) for a in ids for b in ids]
    else:
        near = [(a, b) for a in ids for b in sorted(game.board.neighbours(a))]
        pairs = rng.sample(near, min(30, len(near))) + [(rng.choice(ids), rng.choice(ids)) for _ in range(30)]
    for a, b in pairs:
        most = s.armies.get(a, 0) - 1
        out += [Attack(seat, a, b, dice) for dice in (None, 0, 1, 2, 3, 4)]
        out += [Blitz(seat, a, b, n) for n in counts(rng, most)]
        out += [Fortify(seat, a, b, n) for n in counts(rng, most)]
    return out


class Trial:
    """Actions tried on a copy of a game: a refused one leaves the copy as it was (``Game.apply`` is all or
    nothing), an accepted one is followed by a fresh copy."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.copy = self._fresh()

    def _fresh(self) -> Game:
        trial = copy.copy(self.game)
        trial.state = self.game.state.copy()
        return trial

    def accepts(self, action: Action) -> bool:
        try:
            self.copy.apply(action)
        except RuleError:
            return False
        self.copy = self._fresh()
        return True


def accepted(game: Game, action: Action) -> bool:
    return Trial(game).accepts(action)


def listed(c: Choices) -> list[Action]:
    """Each listed choice at the edges of its counts."""
    seat = c.seat
    out: list[Action] = [StartTurn(seat)] if c.start else []
    out += [Claim(seat, t) for t in c.claim] + [ChooseCapital(seat, t) for t in c.capital]
    for placing in (c.place, c.neutral):
        if placing is not None:
            out += [Place(seat, t, n) for t in placing.territories for n in {1, placing.most}]
    out += [Trade(seat, o.cards, bonus) for o in c.trade for bonus in (None, *o.bonus)]
    for source, target in c.attack_pairs():
        options = c.attack[source]
        out += [Attack(seat, source, target, dice) for dice in (None, *options.dice)]
        out += [Blitz(seat, source, target, n) for n in {1, options.stop_most}]
    if c.occupy is not None:
        out += [Occupy(seat, n) for n in range(c.occupy.least, c.occupy.most + 1)]
    for source, target in c.fortify_pairs():
        out += [Fortify(seat, source, target, n) for n in {1, c.fortify[source].most}]
    flags = ((c.end_attack, EndAttack), (c.end_turn, EndTurn), (c.undo, Undo), (c.surrender, Surrender))
    return out + [kind(seat) for flag, kind in flags if flag]


def check(game: Game, rng: random.Random, every_pair: bool) -> None:
    s = game.state
    trial = Trial(game)
    # The seats with a move, and one of the others (whose every action is refused alike).
    moving = [seat for seat in range(len(s.players)) if choices_for(game, seat)]
    others = [seat for seat in range(len(s.players)) if seat not in moving]
    for seat in moving + rng.sample(others, min(1, len(others))):
        c = choices_for(game, seat)
        for action in listed(c):
            assert trial.accepts(action), f"{action} is listed but refused in {s.phase}"
        for action in candidates(game, seat, rng, every_pair):
            ok = trial.accepts(action)
            assert ok == c.offers(action), \
                f"{action}: {'accepted' if ok else 'refused'} by the rules, {'' if c.offers(action) else 'not '}listed"
        # What the seat may know gives it the same choices (its own territories and their neighbours are exact).
        if seat == s.current and s.phase not in (OVER, WAITING) and not (s.phase == SETUP and s.two_player):
            assert choices_for(seat_view(game, seat), seat) == c


SETTINGS = st.fixed_dictionaries({
    "deployment": st.sampled_from(("claim", "deal", "auto")),
    "setup": st.sampled_from(("turns", "round")),
    "cards": st.sampled_from(("escalating", "fixed", "none")),
    "fortify": st.sampled_from(("adjacent", "connected", "unlimited")),
    "mode": st.sampled_from(("classic", "missions", "capitals")),
    "fog": st.sampled_from(("off", "on")),
    "turn_order": st.sampled_from(("sequential", "freestyle")),
    "setup_batch": st.sampled_from((1, 3)),
})


def walk_and_check(map_name: str, players: int, teams: bool, config: dict[str, Any], seed: int, steps: int,
                   checks: int, every_pair: bool) -> None:
    config = {**config, "map": board_id(map_name), "teams": "2v2" if teams and players == 4 else "none"}
    try:
        game, _ = Game.new([Player(i, f"P{i}") for i in range(players)], f"seed-{seed}", config)
    except SettingsError:   # missions the small map has too few of: the same game without them
        game, _ = Game.new([Player(i, f"P{i}") for i in range(players)], f"seed-{seed}", {**config, "mode": "classic"})
    rng = random.Random(seed)
    at = set(rng.sample(range(steps + 1), min(checks, steps + 1)))
    rare = {"occupy": 1, "trade": 1}   # a check kept for each of the rarer states: a conquest, a set to trade
    for n in range(steps + 1):
        s = game.state
        if rare["occupy"] and s.pending is not None:
            rare["occupy"] = 0
            at.add(n)
        if rare["trade"] and any(choices_for(game, seat).trade for seat in range(len(s.players))):
            rare["trade"] = 0
            at.add(n)
        if n in at or n == steps:
            check(game, rng, every_pair)
        if not step(game, rng):
            check(game, rng, every_pair)   # the game is over: nothing is listed, and nothing accepted
            return


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), teams=st.booleans(), config=SETTINGS, seed=st.integers(0, 2**32),
       steps=st.integers(0, 400))
def test_the_choices_are_what_the_rules_accept_on_a_small_map(players, teams, config, seed, steps):
    walk_and_check("small", players, teams, config, seed, steps, checks=2, every_pair=True)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), teams=st.booleans(), config=SETTINGS, seed=st.integers(0, 2**32),
       steps=st.integers(0, 300))
def test_the_choices_are_what_the_rules_accept_on_the_classic_map(players, teams, config, seed, steps):
    walk_and_check("classic", players, teams, config, seed, steps, checks=1, every_pair=False)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(map_name=st.sampled_from(("small", "classic")), players=st.integers(2, 6), teams=st.booleans(),
       config=SETTINGS, seed=st.integers(0, 2**32), steps=st.integers(0, 600))
def test_the_choices_are_what_the_rules_accept_in_long_games(map_name, players, teams, config, seed, steps):
    players = min(players, 4) if map_name == "small" else players
    walk_and_check(map_name, players, teams, config, seed, steps, checks=6, every_pair=map_name == "small")


def test_the_tables_actions_are_never_a_seats_choice():
    """The rules accept the table's actions (a round's deadline, a vote's end, a seat claimed...) from any seat,
    but no seat chooses them: they are never listed."""
    game, _ = Game.new(["a", "b", "c"], "s", {"deployment": "auto", "turn_order": "freestyle"})
    c = choices_for(game, 0)
    assert c.start and c.surrender and c.place is not None and not c.attack
    table = [RoundLimit(0), VoteEnd(0), ClaimSeat(0, "Sub"), EndRound(0)]
    assert {type(a) for a in table} | {ReleaseHold} == TABLE_ACTIONS
    for action in table:
        assert accepted(game, action) and not c.offers(action)


# -- what the answer says, case by case -------------------------------------------------------------------------
def test_two_players_place_their_own_armies_then_the_neutral_ones_in_a_set_up_turn():
    game, _ = Game.new(["a", "b"], "two", {"deployment": "deal", "setup_batch": 2})
    s = game.state
    c = choices_for(game, s.current)
    assert c.place is not None and c.place.most == s.batch_left == 4
    assert c.neutral is not None and c.neutral.most == s.neutral_left == 2
    assert all(s.owners[t] == s.current for t in c.place.territories)
    assert all(s.owners[t] == NEUTRAL for t in c.neutral.territories)
    assert not choices_for(game, 1 - s.current)   # the other player waits


def test_in_a_set_up_round_everyone_places_what_they_have_left():
    game, _ = Game.new(["a", "b", "c"], "round", {"deployment": "deal", "setup": "round"})
    s = game.state
    for seat in range(3):
        c = choices_for(game, seat)
        assert c.place is not None and c.place.most == s.setup_remaining[seat]
        assert set(c.place.territories) == set(s.territories_of(seat)) and not c.surrender
    game.apply(Place(0, s.territories_of(0)[0], s.setup_remaining[0]))
    assert not choices_for(game, 0) and choices_for(game, 1).place is not None


def test_a_freestyle_round_offers_a_start_and_the_first_moves_of_the_turn_to_who_may_start():
    game, _ = Game.new(["a", "b", "c"], "free", {"deployment": "auto", "turn_order": "freestyle"})
    c = choices_for(game, 1)
    assert c.phase == WAITING and c.start and c.surrender
    assert c.place is not None and c.place.most == game.state.income[1]["territories"] + sum(
        game.state.income[1]["continents"].values())
    assert not c.attack and not c.end_turn   # a turn starts with its reinforcements
    game.apply(StartTurn(1))
    assert choices_for(game, 1).place is not None and not choices_for(game, 1).start
    others = choices_for(game, 0)
    assert not others and others.surrender   # while seat 1 plays, the others may only give up


def test_a_hand_of_five_must_trade_before_placing():
    game, _ = Game.new(["a", "b", "c"], "hand", {"deployment": "auto"})
    s = game.state
    seat = s.current
    s.hands[seat] = [t for t in game.board.territory_ids if game.board.territories[t].card == "infantry"][:5]
    c = choices_for(game, seat)
    assert c.must_trade and c.place is None and c.trade
    assert c.trade[0].cards == game.best_set(seat)
    assert not c.offers(Place(seat, s.territories_of(seat)[0], 1))


def test_teammates_are_never_attacked_and_may_be_fortified():
    game, _ = Game.new(["a", "b", "c", "d"], "team", {"deployment": "auto", "teams": "2v2"})
    s = game.state
    seat = s.current
    mate = game.teammates(seat)[0]
    game.apply(Place(seat, s.territories_of(seat)[0], s.reinforcements))
    c = choices_for(game, seat)
    assert c.end_attack and c.end_turn
    assert all(s.owners[t] not in (seat, mate) for _, t in c.attack_pairs())
    assert all(s.owners[t] in (seat, mate) for _, t in c.fortify_pairs())
