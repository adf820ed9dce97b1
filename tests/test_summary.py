"""What a finished game's log says: placements, turns, the armies over time, key moments and dice luck."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from engine.simulate import play_game
from engine.summary import (
    dice_luck,
    expected_loss,
    favourite_continents,
    key_moments,
    placements,
    timeline,
    turns_played,
)


def battle(seat, defender, attacker_dice, defender_dice, attacker_losses, defender_losses, **extra):
    return {"type": "battle", "seat": seat, "from": "alaska", "to": "kamchatka", "defender": defender,
            "attacker_dice": attacker_dice, "defender_dice": defender_dice, "attacker_losses": attacker_losses,
            "defender_losses": defender_losses, **extra}


def test_the_expected_losses_of_one_roll_are_the_exact_odds():
    # 1 die against 1: the attacker loses on a tie, 21 of the 36 pairs.
    mean, variance = expected_loss(1, 1, "attacker")
    assert mean == pytest.approx(21 / 36) and variance == pytest.approx(21 / 36 * 15 / 36)
    # 3 against 2: the defender loses 2 in 2890 of 7776 rolls, each side 1 in 2611, the attacker 2 in 2275.
    mean, variance = expected_loss(3, 2, "attacker")
    assert mean == pytest.approx((2611 + 2 * 2275) / 7776)
    assert variance == pytest.approx((2611 + 4 * 2275) / 7776 - ((2611 + 2 * 2275) / 7776) ** 2)
    mean, _ = expected_loss(3, 2, "defender")
    assert mean == pytest.approx((2611 + 2 * 2890) / 7776)


def test_dice_luck_of_a_small_game_by_hand():
    events = [
        battle(0, 1, [3], [5], 1, 0),        # 1 against 1: seat 0 loses 1
        battle(0, 1, [6, 5, 3], [6, 2], 1, 1),  # 3 against 2: one each
        battle(1, -1, [4, 1], [4], 1, 0),    # 2 against 1 (the neutral army): seat 1 loses 1
    ]
    luck = dice_luck(events)
    assert set(luck) == {0, 1}  # the neutral army has no report
    one = Fraction(21, 36)                                   # 1v1, attacker
    three_two_att = Fraction(2611 + 2 * 2275, 7776)
    three_two_att_sq = Fraction(2611 + 4 * 2275, 7776)
    expected_0 = one + three_two_att
    variance_0 = one * (1 - one) + three_two_att_sq - three_two_att ** 2
    assert (luck[0].rolls, luck[0].lost) == (2, 2)
    assert luck[0].expected == pytest.approx(float(expected_0))
    assert luck[0].variance == pytest.approx(float(variance_0))
    assert luck[0].index == pytest.approx(float(expected_0 - 2) / math.sqrt(variance_0))

    def_one = Fraction(15, 36)                               # 1v1, defender
    three_two_def = Fraction(2611 + 2 * 2890, 7776)
    three_two_def_sq = Fraction(2611 + 4 * 2890, 7776)
    two_one_att = Fraction(91, 216)                          # 2 dice against 1: the attacker loses unless max > d
    expected_1 = def_one + three_two_def + two_one_att
    variance_1 = (def_one * (1 - def_one) + three_two_def_sq - three_two_def ** 2
                  + two_one_att * (1 - two_one_att))
    assert (luck[1].rolls, luck[1].lost) == (3, 2)
    assert luck[1].expected == pytest.approx(float(expected_1))
    assert luck[1].spread == pytest.approx(math.sqrt(variance_1))
    assert (luck[0].index > 0) == (expected_0 > 2)
    assert luck[1].index == pytest.approx(float(expected_1 - 2) / math.sqrt(variance_1))


def started(n, teams=None):
    event = {"type": "game_started", "players": [{"seat": i, "name": f"P{i}", "kind": "human"} for i in range(n)]}
    if teams:
        event["teams"] = {str(s): t for s, t in teams.items()}
    return event


def test_placements_free_for_all_by_elimination_order():
    events = [started(4), {"type": "player_eliminated", "seat": 2, "by": 0},
              {"type": "player_surrendered", "seat": 1}, {"type": "player_eliminated", "seat": 3, "by": 0},
              {"type": "game_over", "winner": 0, "reason": "conquest"}]
    assert placements(events) == {0: 1, 3: 2, 1: 3, 2: 4}


def test_placements_still_standing_at_the_round_limit_share_second_place():
    events = [started(4), {"type": "player_eliminated", "seat": 2, "by": 0},
              {"type": "game_over", "winner": 1, "reason": "round_limit"}]
    assert placements(events) == {1: 1, 0: 2, 3: 2, 2: 4}


def test_placements_of_teams_by_team():
    events = [started(6, {0: 0, 1: 1, 2: 2, 3: 0, 4: 1, 5: 2}),
              {"type": "player_eliminated", "seat": 1, "by": 0},   # team 1 still has seat 4
              {"type": "player_eliminated", "seat": 2, "by": 0},
              {"type": "player_eliminated", "seat": 5, "by": 3},   # team 2 out
              {"type": "player_surrendered", "seat": 4},           # team 1 out
              {"type": "game_over", "winner": 0, "winners": [0, 3], "reason": "teams"}]
    assert placements(events) == {0: 1, 3: 1, 1: 2, 4: 2, 2: 3, 5: 3}


def test_a_whole_game_summarised():
    events = play_game(["easy", "easy", "easy"], "summary-1").events
    places = placements(events)
    winner = next(e for e in events if e["type"] == "game_over")["winner"]
    assert places[winner] == 1 and sorted(places.values()) == [1, 2, 3]
    turns = turns_played(events)
    assert sum(turns.values()) == sum(1 for e in events if e["type"] == "turn_started")
    points = timeline(events)
    assert points[-1].territories == {winner: 42}
    assert all(sum(p.territories.values()) == 42 for p in points)
    moments = key_moments(events)
    battles = [e for e in events if e["type"] == "battle"]
    assert moments.biggest_battle is not None
    assert moments.biggest_battle.armies_lost >= max(e["attacker_losses"] + e["defender_losses"] for e in battles)
    assert any(c.taken_by == winner for c in moments.continents)
    luck = dice_luck(events)
    assert sum(x.lost for x in luck.values()) == sum(e["attacker_losses"] + e["defender_losses"] for e in battles
                                                     if e["defender"] != -1) + sum(
        e["attacker_losses"] for e in battles if e["defender"] == -1)
    assert set(favourite_continents(events)) <= set(places)
