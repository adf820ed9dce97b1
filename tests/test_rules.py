"""One test per rule of the seeds, with their own examples."""

from __future__ import annotations

import pytest
from conftest import new_game, position

from engine import (
    Attack,
    Blitz,
    ChooseCapital,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Game,
    Occupy,
    Place,
    Player,
    Surrender,
    Trade,
    Undo,
)
from engine import errors as E
from engine.cards import escalating_value, set_kind
from engine.state import ATTACK, CLAIM, FORTIFY, NEUTRAL, OCCUPY, OVER, REINFORCE, SETUP

NA = ["alaska", "northwest_territory", "greenland", "alberta", "ontario", "quebec", "western_united_states",
      "eastern_united_states", "central_america"]


def unchanged(game: Game, action) -> type[Exception]:
    before = game.state.to_dict()
    with pytest.raises(E.RuleError) as info:
        game.apply(action)
    assert game.state.to_dict() == before
    return type(info.value)


# -- setup --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("players,armies", [(3, 35), (4, 30), (5, 25), (6, 20), (2, 40)])
def test_starting_armies_by_player_count(players, armies):
    _game, events = Game.new([f"P{i}" for i in range(players)], "seed", {"deployment": "claim"})
    started = events[0]
    assert started["starting_armies"]["0"] == armies
    if players == 2:
        assert started["starting_armies"]["-1"] == 40
        assert any(p["kind"] == "neutral" for p in started["players"])


def test_first_player_is_decided_by_a_die_roll_and_claims_first():
    game, events = Game.new(["A", "B", "C"], "seed-x", {"deployment": "claim"})
    first = next(e for e in events if e["type"] == "first_player")
    last_round = first["rounds"][-1]
    assert last_round[str(first["seat"])] == max(last_round.values())
    assert game.state.phase == CLAIM and game.state.current == first["seat"]


def test_claim_goes_in_seat_order_then_placement_one_at_a_time():
    game, _ = Game.new(["A", "B", "C"], "claim-seed", {"deployment": "claim"})
    s = game.state
    seats = []
    while s.phase == CLAIM:
        seats.append(s.current)
        game.apply(Claim(s.current, game.claimable()[0]))
    assert len(s.owners) == 42
    first = seats[0]
    assert seats[:6] == [(first + i) % 3 for i in range(6)]
    assert s.phase == SETUP and s.batch_left == 1
    # Claimed territories hold one army each, 14 per player.
    assert all(s.armies[t] == 1 for t in s.owners) and s.setup_remaining[0] == 35 - 14


def test_cannot_claim_a_held_territory_or_out_of_turn():
    game, _ = Game.new(["A", "B", "C"], "claim-seed", {"deployment": "claim"})
    seat = game.state.current
    game.apply(Claim(seat, "peru"))
    nxt = game.state.current
    assert unchanged(game, Claim(nxt, "peru")) is E.AlreadyClaimed
    assert unchanged(game, Claim(seat, "brazil")) is E.NotYourTurn
    assert unchanged(game, Place(nxt, "brazil")) is E.WrongPhase


def test_setup_batch_places_several_armies_per_turn():
    game, _ = Game.new(["A", "B", "C"], "batch", {"deployment": "deal", "setup_batch": 5})
    s = game.state
    seat = s.current
    mine = game.placeable(seat)
    assert s.batch_left == 5
    game.apply(Place(seat, mine[0], 3))
    assert s.current == seat and s.batch_left == 2
    assert unchanged(game, Place(seat, mine[0], 3)) is E.InvalidCount
    game.apply(Place(seat, mine[1], 2))
    assert s.current != seat


def test_setup_ends_with_first_players_turn_and_deck_of_44():
    game, _events = Game.new(["A", "B", "C"], "deal", {"deployment": "deal", "setup_batch": 50})
    s = game.state
    first = s.current
    while s.phase == SETUP:
        game.apply(Place(s.current, game.placeable(s.current)[0], s.batch_left))
    assert s.phase == REINFORCE and s.current == first and s.turn == 1
    assert len(s.deck) == 44
    assert all(game.state.army_total(seat) == 35 for seat in range(3))


def test_auto_deployment_places_everything_at_random():
    game = new_game(4, deployment="auto")
    s = game.state
    assert s.phase == REINFORCE
    assert [s.army_total(seat) for seat in range(4)] == [30, 30, 30, 30]
    assert sorted(len(s.territories_of(seat)) for seat in range(4)) == [10, 10, 11, 11]


def test_two_player_neutral_setup():
    game, events = Game.new(["A", "B"], "two", {"deployment": "claim"})
    s = game.state
    dealt = next(e for e in events if e["type"] == "territories_dealt")
    counts = {seat: list(dealt["owners"].values()).count(seat) for seat in (0, 1, NEUTRAL)}
    assert counts == {0: 14, 1: 14, NEUTRAL: 14}
    assert s.phase == SETUP and s.batch_left == 2 and s.neutral_left == 1
    seat = s.current
    mine = game.placeable(seat)
    neutral = [t for t in game.board.territory_ids if s.owners[t] == NEUTRAL]
    game.apply(Place(seat, next(t for t in mine if s.owners[t] == seat), 1))
    game.apply(Place(seat, [t for t in mine if s.owners[t] == seat][1], 1))
    assert s.current == seat  # the neutral army is still to place
    assert unchanged(game, Place(seat, next(t for t in mine if s.owners[t] == seat), 1)) is E.InvalidCount
    game.apply(Place(seat, neutral[0], 1))
    assert s.current != seat
    while s.phase == SETUP:
        cur = s.current
        if s.batch_left:
            game.apply(Place(cur, s.territories_of(cur)[0], s.batch_left))
        else:
            game.apply(Place(cur, neutral[0], 1))
    assert s.army_total(0) == s.army_total(1) == 40 and s.army_total(NEUTRAL) == 40
    assert len(s.deck) == 44  # wilds go back in before play


# -- reinforcements -----------------------------------------------------------------------------------
@pytest.mark.parametrize("held,expected", [(11, 3), (14, 4), (17, 5), (2, 3), (8, 3), (9, 3), (15, 5)])
def test_reinforcements_territories_divided_by_three_minimum_three(held, expected, game3):
    one_short = ("alaska", "argentina", "iceland", "madagascar", "japan", "new_guinea")  # no continent is whole
    ids = [t for t in game3.board.territory_ids if t not in one_short]
    owners = dict.fromkeys(ids[:held], 0)
    position(game3, owners)
    r = game3.reinforcement_breakdown(0)
    assert r["territories"] == expected and r["continents"] == {}


def test_continent_bonus_for_whole_continents(game3):
    owners = dict.fromkeys([*NA, "venezuela", "peru", "brazil", "argentina"], 0)
    position(game3, owners)
    r = game3.reinforcement_breakdown(0)
    assert r["continents"] == {"north_america": 5, "south_america": 2}
    assert r["total"] == 4 + 7


def test_all_reinforcements_must_be_placed_before_attacking(game3):
    s = game3.state
    seat = s.current
    assert s.phase == REINFORCE
    src = next(t for t in s.territories_of(seat) if s.armies[t] >= 2 and game3.attack_targets(seat, t))
    dst = game3.attack_targets(seat, src)[0]
    assert unchanged(game3, Attack(seat, src, dst)) is E.WrongPhase
    game3.apply(Place(seat, src, s.reinforcements))
    assert s.phase == ATTACK


def test_cannot_place_on_someone_elses_territory_or_more_than_you_have(game3):
    s = game3.state
    seat = s.current
    theirs = next(t for t, o in s.owners.items() if o != seat)
    assert unchanged(game3, Place(seat, theirs, 1)) is E.NotOwner
    mine = s.territories_of(seat)[0]
    assert unchanged(game3, Place(seat, mine, s.reinforcements + 1)) is E.InvalidCount
    assert unchanged(game3, Place(seat, mine, 0)) is E.InvalidCount
    assert unchanged(game3, Place(seat, mine, -2)) is E.InvalidCount
    assert unchanged(game3, Place(seat, "atlantis", 1)) is E.UnknownTerritory


# -- cards --------------------------------------------------------------------------------------------
def test_valid_sets(game3):
    b = game3.board
    inf = [t for t in b.territory_ids if b.territories[t].card == "infantry"]
    cav = [t for t in b.territory_ids if b.territories[t].card == "cavalry"]
    art = [t for t in b.territory_ids if b.territories[t].card == "artillery"]
    assert set_kind(b, (inf[0], inf[1], inf[2])) == "infantry"
    assert set_kind(b, (inf[0], cav[0], art[0])) == "mixed"
    assert set_kind(b, (inf[0], cav[0], "wild_1")) == "mixed"
    assert set_kind(b, (art[0], art[1], "wild_1")) == "artillery"
    assert set_kind(b, (inf[0], inf[1], cav[0])) is None
    assert set_kind(b, (inf[0], inf[0], inf[1])) is None


def test_escalating_values_are_global():
    assert [escalating_value(n) for n in range(1, 10)] == [4, 6, 8, 10, 12, 15, 20, 25, 30]


def _hand(game: Game, seat: int, cards: list[str]) -> None:
    s = game.state
    for c in cards:
        if c in s.deck:
            s.deck.remove(c)
    s.hands[seat] = list(cards)


def _three_infantry(game: Game, avoid_owner: int | None = None) -> list[str]:
    b, s = game.board, game.state
    return [t for t in b.territory_ids if b.territories[t].card == "infantry" and s.owners[t] != avoid_owner][:3]


def test_third_set_of_the_game_gives_8_even_if_it_is_your_first(game3):
    s = game3.state
    seat = s.current
    s.sets_traded = 2
    cards = _three_infantry(game3, avoid_owner=seat)
    _hand(game3, seat, cards)
    before = s.reinforcements
    events = game3.apply(Trade(seat, tuple(cards)))
    assert events[0]["set_number"] == 3 and events[0]["armies"] == 8
    assert s.reinforcements == before + 8 and s.sets_traded == 3
    assert s.discard[-3:] == cards


def test_fixed_card_values():
    game = new_game(3, cards="fixed")
    s = game.state
    seat = s.current
    cards = _three_infantry(game, avoid_owner=seat)
    _hand(game, seat, cards)
    assert game.apply(Trade(seat, tuple(cards)))[0]["armies"] == 4


def test_territory_bonus_two_armies_on_that_territory_capped_per_turn(game3):
    s = game3.state
    b = game3.board
    inf = [t for t in b.territory_ids if b.territories[t].card == "infantry"][:3]
    cav = [t for t in b.territory_ids if b.territories[t].card == "cavalry"][:3]
    position(game3, dict.fromkeys(inf + cav, 0), seat=0, phase=REINFORCE)
    s.reinforcements = 3
    _hand(game3, 0, inf + cav)
    s.hands[0] = inf[:3] + cav[:2]  # five cards: must trade, may trade a second set
    s.hands[0].append(cav[2])
    target = inf[1]
    armies = s.armies[target]
    events = game3.apply(Trade(0, tuple(inf), bonus_territory=target))
    assert events[1] == {"type": "armies_placed", "seat": 0, "territory": target, "count": 2,
                         "source": "card_bonus"}
    assert s.armies[target] == armies + 2
    events = game3.apply(Trade(0, tuple(cav)))
    assert events[0]["bonus_armies"] == 0 and len(events) == 1  # at most 2 bonus armies per turn
    assert unchanged(game3, Trade(0, tuple(inf))) is E.InvalidSet  # cards no longer held


def test_must_trade_with_five_cards(game3):
    s = game3.state
    seat = s.current
    b = game3.board
    cards = [*[t for t in b.territory_ids if b.territories[t].card == "infantry"][:3], "wild_1", "wild_2"]
    _hand(game3, seat, cards)
    assert game3.must_trade(seat)
    assert unchanged(game3, Place(seat, s.territories_of(seat)[0], 1)) is E.MustTrade
    game3.apply(Trade(seat, tuple(cards[:3])))
    game3.apply(Place(seat, s.territories_of(seat)[0], 1))


def test_trading_refuses_non_sets_and_cards_not_held(game3):
    s = game3.state
    seat = s.current
    b = game3.board
    inf = [t for t in b.territory_ids if b.territories[t].card == "infantry"]
    cav = [t for t in b.territory_ids if b.territories[t].card == "cavalry"]
    _hand(game3, seat, [inf[0], inf[1], cav[0]])
    assert unchanged(game3, Trade(seat, (inf[0], inf[1], cav[0]))) is E.InvalidSet
    assert unchanged(game3, Trade(seat, (inf[0], inf[1], inf[2]))) is E.InvalidSet


def test_no_cards_setting():
    game = new_game(3, cards="none")
    assert game.state.deck == []
    seat = game.state.current
    assert unchanged(game, Trade(seat, ("wild_1", "wild_2", "alaska"))) is E.InvalidSet


def test_one_card_per_turn_only_after_a_conquest(game3):
    s = game3.state
    position(game3, {"alaska": 0, "northwest_territory": 1}, {"alaska": 30, "northwest_territory": 1}, seat=0)
    s.hands = {0: [], 1: [], 2: []}
    game3.apply(EndTurn(0))
    assert s.hands[0] == []
    position(game3, {"alaska": 0, "kamchatka": 0}, {"alaska": 40, "northwest_territory": 1, "alberta": 1,
                                                    "kamchatka": 20}, seat=0)
    game3.apply(Blitz(0, "alaska", "northwest_territory"))
    game3.apply(Occupy(0, s.pending["max"]) if s.phase == OCCUPY else EndAttack(0))
    game3.apply(Blitz(0, "kamchatka", "yakutsk"))
    if s.phase == OCCUPY:
        game3.apply(Occupy(0, s.pending["min"]))
    top = s.deck[0]
    events = game3.apply(EndTurn(0))
    assert [e for e in events if e["type"] == "card_drawn"] == [{"type": "card_drawn", "seat": 0, "card": top}]
    assert s.hands[0] == [top]


def test_deck_reshuffles_the_discard_pile_when_empty(game3):
    s = game3.state
    position(game3, {"alaska": 0}, {"alaska": 40}, seat=0)
    s.discard = s.deck[:]
    s.deck = []
    s.conquered_this_turn = True
    events = game3.apply(EndTurn(0))
    assert events[0]["type"] == "deck_shuffled" and events[0]["from_discard"]
    assert events[1]["type"] == "card_drawn" and len(s.hands[0]) == 1 and s.discard == []


# -- attack -------------------------------------------------------------------------------------------
def test_attack_requires_adjacency_ownership_and_two_armies(game3):
    position(game3, {"alaska": 0, "peru": 0, "brazil": 0}, {"alaska": 5, "peru": 1, "brazil": 3})
    assert unchanged(game3, Attack(0, "alaska", "peru")) is E.NotOwner  # peru is yours
    assert unchanged(game3, Attack(0, "brazil", "kamchatka")) is E.NotAdjacent
    assert unchanged(game3, Attack(0, "peru", "argentina")) is E.NotEnoughArmies
    assert unchanged(game3, Attack(0, "kamchatka", "alaska")) is E.NotOwner
    assert unchanged(game3, Attack(1, "kamchatka", "alaska")) is E.NotYourTurn
    with pytest.raises(E.NotAdjacent, match="Brazil is not adjacent to Kamchatka"):
        game3.apply(Attack(0, "brazil", "kamchatka"))


@pytest.mark.parametrize("armies,allowed", [(2, [1]), (3, [1, 2]), (4, [1, 2, 3]), (10, [1, 2, 3])])
def test_dice_allowed_armies_minus_one_up_to_three(game3, armies, allowed):
    position(game3, {"alaska": 0}, {"alaska": armies, "kamchatka": 5})
    assert game3.allowed_dice("alaska") == allowed
    assert unchanged(game3, Attack(0, "alaska", "kamchatka", len(allowed) + 1)) is E.InvalidDice
    assert unchanged(game3, Attack(0, "alaska", "kamchatka", 0)) is E.InvalidDice


def test_defender_rolls_two_when_it_has_two_or_more(game3):
    position(game3, {"alaska": 0}, {"alaska": 10, "kamchatka": 2})
    battle = game3.apply(Attack(0, "alaska", "kamchatka"))[0]
    assert len(battle["attacker_dice"]) == 3 and len(battle["defender_dice"]) == 2
    position(game3, {"alaska": 0}, {"alaska": 10, "kamchatka": 1})
    battle = game3.apply(Attack(0, "alaska", "kamchatka", 2))[0]
    assert len(battle["attacker_dice"]) == 2 and len(battle["defender_dice"]) == 1


def test_ties_go_to_the_defender_and_pairs_compare_sorted(game3):
    # Search the seed's dice stream for a tie on the top pair and check the referee's ruling.
    position(game3, {"alaska": 0}, {"alaska": 500, "kamchatka": 500})
    seen_tie = False
    for _ in range(200):
        b = game3.apply(Attack(0, "alaska", "kamchatka"))[0]
        att, dfn = b["attacker_dice"], b["defender_dice"]
        assert att == sorted(att, reverse=True) and dfn == sorted(dfn, reverse=True)
        expected_d = sum(1 for x, y in zip(att, dfn, strict=False) if x > y)
        assert (b["attacker_losses"], b["defender_losses"]) == (2 - expected_d, expected_d)
        if att[0] == dfn[0]:
            seen_tie = True
            assert b["attacker_losses"] >= 1
    assert seen_tie


def test_conquest_moves_at_least_the_dice_rolled_and_leaves_one(game3):
    position(game3, {"alaska": 0}, {"alaska": 8, "kamchatka": 1})
    s = game3.state
    while s.phase == ATTACK:
        game3.apply(Attack(0, "alaska", "kamchatka", 3))
    assert s.phase == OCCUPY
    lo, hi = game3.move_in_range()
    # The three armies of the last roll are already in; up to all but one of the rest may follow.
    assert lo == 3 and s.armies["kamchatka"] == 3 and hi == s.armies["alaska"] + 3 - 1
    assert unchanged(game3, Occupy(0, lo - 1)) is E.InvalidCount
    assert unchanged(game3, Occupy(0, hi + 1)) is E.InvalidCount
    assert unchanged(game3, Attack(0, "alaska", "northwest_territory")) is E.WrongPhase
    game3.apply(Occupy(0, lo + 1))
    assert s.owners["kamchatka"] == 0 and s.armies["kamchatka"] == 4 and s.phase == ATTACK
    # Attacking may continue from the territory just taken.
    game3.apply(Attack(0, "kamchatka", "yakutsk", 2))


def test_move_in_is_automatic_when_there_is_no_choice(game3):
    position(game3, {"alaska": 0}, {"alaska": 2, "kamchatka": 1})
    s = game3.state
    for _ in range(100):
        position(game3, {"alaska": 0}, {"alaska": 2, "kamchatka": 1})
        events = game3.apply(Attack(0, "alaska", "kamchatka"))
        if s.owners["kamchatka"] == 0:
            assert events[-1] == {"type": "occupied", "seat": 0, "from": "alaska", "to": "kamchatka", "count": 1}
            assert s.phase == ATTACK
            return
    pytest.fail("no conquest in 100 tries")


def test_blitz_attacks_until_conquest_or_stop_threshold(game3):
    position(game3, {"alaska": 0}, {"alaska": 30, "kamchatka": 3})
    events = game3.apply(Blitz(0, "alaska", "kamchatka"))
    assert all(e["type"] != "battle" or len(e["attacker_dice"]) == min(3, 29) for e in events)
    assert game3.state.owners["kamchatka"] == 0
    position(game3, {"alaska": 0}, {"alaska": 6, "kamchatka": 200})
    events = game3.apply(Blitz(0, "alaska", "kamchatka", stop_at=4))
    assert game3.state.armies["alaska"] <= 4 and game3.state.armies["alaska"] >= 3
    assert sum(1 for e in events if e["type"] == "battle") >= 1
    assert unchanged(game3, Blitz(0, "alaska", "kamchatka", stop_at=4)) is E.NotEnoughArmies


def test_elimination_takes_cards_and_forces_trade_down_to_four(game3):
    s = game3.state
    b = game3.board
    position(game3, {"alaska": 0, "kamchatka": 1}, {"alaska": 60, "kamchatka": 1}, default_owner=0)
    inf = [t for t in b.territory_ids if b.territories[t].card == "infantry"]
    cav = [t for t in b.territory_ids if b.territories[t].card == "cavalry"]
    _hand(game3, 0, inf[:3])
    _hand(game3, 1, [*cav[:3], "wild_1"])
    s.hands[0], s.hands[1] = inf[:3], [*cav[:3], "wild_1"]
    # Seat 2 holds one territory so the game goes on.
    s.owners["japan"] = 2
    events = game3.apply(Blitz(0, "alaska", "kamchatka"))
    elim = next(e for e in events if e["type"] == "player_eliminated")
    assert elim["seat"] == 1 and elim["by"] == 0 and len(elim["cards_taken"]) == 4
    if s.phase == OCCUPY:
        game3.apply(Occupy(0, s.pending["min"]))
    assert len(s.hands[0]) == 7 and s.phase == REINFORCE and s.trade_down
    assert unchanged(game3, Attack(0, "kamchatka", "japan")) is E.MustTrade
    assert unchanged(game3, Place(0, "alaska", 1)) is E.MustTrade
    game3.apply(Trade(0, tuple(inf[:3])))
    assert len(s.hands[0]) == 4 and s.phase == REINFORCE
    assert unchanged(game3, Trade(0, tuple(cav[:3]))) is E.WrongPhase  # down to 4: no more trading
    game3.apply(Place(0, "alaska", s.reinforcements))
    assert s.phase == ATTACK and not s.trade_down


# -- fortify, turns, victory ---------------------------------------------------------------------------
def test_fortify_one_move_adjacent_leaving_one_then_turn_ends(game3):
    s = game3.state
    position(game3, {"alaska": 0, "alberta": 0, "ontario": 0}, {"alaska": 5})
    assert unchanged(game3, Fortify(0, "alaska", "ontario", 2)) is E.NotAdjacent
    assert unchanged(game3, Fortify(0, "alaska", "alberta", 5)) is E.NotEnoughArmies
    assert unchanged(game3, Fortify(0, "alaska", "kamchatka", 1)) is E.NotOwner
    events = game3.apply(Fortify(0, "alaska", "alberta", 4))
    assert events[0] == {"type": "fortified", "seat": 0, "from": "alaska", "to": "alberta", "count": 4}
    assert [e["type"] for e in events[1:]] == ["turn_ended", "turn_started"]
    assert s.current == 1 and s.phase == REINFORCE


def test_connected_fortify_moves_along_a_chain():
    game = new_game(3, fortify="connected")
    position(game, {"alaska": 0, "alberta": 0, "ontario": 0, "quebec": 0}, {"alaska": 5})
    game.apply(Fortify(0, "alaska", "quebec", 4))
    assert game.state.armies["quebec"] == 5
    game2 = new_game(3, fortify="connected")
    position(game2, {"alaska": 0, "quebec": 0}, {"alaska": 5})
    assert unchanged(game2, Fortify(0, "alaska", "quebec", 1)) is E.NotConnected


def test_end_attack_goes_to_fortify_and_end_turn_passes(game3):
    s = game3.state
    position(game3, {"alaska": 0}, {"alaska": 5})
    game3.apply(EndAttack(0))
    assert s.phase == FORTIFY
    assert unchanged(game3, Attack(0, "alaska", "kamchatka")) is E.WrongPhase
    game3.apply(EndTurn(0))
    assert s.current == 1


def test_eliminated_players_are_skipped(game3):
    s = game3.state
    position(game3, {"alaska": 0}, {"alaska": 5}, default_owner=2)
    s.eliminated = [1]
    game3.apply(EndTurn(0))
    assert s.current == 2


def test_victory_by_holding_all_42(game3):
    s = game3.state
    position(game3, {"kamchatka": 1}, {"alaska": 10, "kamchatka": 1}, default_owner=0)
    s.eliminated = [2]
    events = game3.apply(Blitz(0, "alaska", "kamchatka"))
    assert events[-1]["type"] == "game_over" and events[-1]["winner"] == 0 and events[-1]["reason"] == "conquest"
    assert events[-1]["seed"] == s.seed and s.phase == OVER
    assert unchanged(game3, EndTurn(0)) is E.GameOver


def test_two_player_game_is_won_by_eliminating_the_opponent():
    game, _ = Game.new(["A", "B"], "duo", {"deployment": "auto"})
    position(game, {"alaska": 0, "kamchatka": 1}, {"alaska": 20, "kamchatka": 1}, default_owner=NEUTRAL)
    events = game.apply(Blitz(0, "alaska", "kamchatka"))
    assert events[-1]["type"] == "game_over" and events[-1]["winner"] == 0
    assert sum(1 for o in game.state.owners.values() if o == NEUTRAL) == 40


def test_neutral_is_never_reinforced_and_never_has_a_turn():
    game, _ = Game.new(["A", "B"], "duo2", {"deployment": "auto"})
    s = game.state
    seen = set()
    for _ in range(4):
        seen.add(s.current)
        seat = s.current
        game.apply(Place(seat, s.territories_of(seat)[0], s.reinforcements)) if s.phase == REINFORCE else None
        game.apply(EndTurn(seat))
    assert seen == {0, 1}
    assert s.army_total(NEUTRAL) == 40


def test_surrender_turns_territories_neutral_and_passes_the_turn(game3):
    s = game3.state
    seat = s.current
    held = s.territories_of(seat)
    events = game3.apply(Surrender(seat))
    assert events[0] == {"type": "player_surrendered", "seat": seat}
    assert all(s.owners[t] == NEUTRAL for t in held) and s.current != seat
    other = s.current
    events = game3.apply(Surrender(other))
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "surrender"


def test_surrender_is_refused_during_setup():
    game, _ = Game.new(["A", "B", "C"], "s", {"deployment": "claim"})
    assert unchanged(game, Surrender(0)) is E.WrongPhase


def test_new_game_validates_players_and_settings():
    with pytest.raises(E.SettingsError):
        Game.new(["A"], "seed")
    with pytest.raises(E.SettingsError):
        Game.new(["A"] * 7, "seed")
    with pytest.raises(E.SettingsError, match="cards must be one of"):
        Game.new(["A", "B", "C"], "seed", {"cards": "lots"})
    with pytest.raises(E.SettingsError, match="unknown setting"):
        Game.new(["A", "B", "C"], "seed", {"colour": "red"})
    with pytest.raises(E.SettingsError):
        Game.new([Player(0, "A"), Player(1, "B")], "")


def test_round_limit_ends_the_game_with_the_leader_on_territories_then_armies():
    game = new_game(3, max_rounds=2)
    s = game.state
    first = s.current
    rounds = []
    while s.phase != OVER:
        seat = s.current
        rounds.append(s.round)
        if s.phase == REINFORCE:
            game.apply(Place(seat, s.territories_of(seat)[0], s.reinforcements))
        events = game.apply(EndTurn(seat))
    assert rounds == [1, 1, 1, 2, 2, 2] and s.turn == 6 and first == game.state.first_seat
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "round_limit"
    best = max(range(3), key=lambda p: (len(s.territories_of(p)), s.army_total(p), -p))
    assert s.winner == best


def test_cautious_ai_reinforces_and_never_attacks():
    from engine.ai import make_ai
    game = new_game(3)
    s = game.state
    seat = s.current
    ai = make_ai("cautious")
    kinds = []
    while s.current == seat:
        action = ai.choose(game, seat)
        kinds.append(type(action).__name__)
        game.apply(action)
    assert set(kinds) <= {"Place", "Trade", "EndTurn"} and kinds[-1] == "EndTurn"


# -- phases -------------------------------------------------------------------------------------------
OUT_OF_PHASE = [
    (FORTIFY, Place(0, "alaska"),
     "You can do that only while placing starting armies or placing reinforcements; now you are fortifying."),
    (REINFORCE, Fortify(0, "alaska", "alberta", 1),
     "You can do that only while attacking or fortifying; now you are placing reinforcements."),
    (FORTIFY, Attack(0, "alaska", "kamchatka"),
     "You can do that only while attacking or placing reinforcements; now you are fortifying."),
    (OCCUPY, Blitz(0, "alaska", "kamchatka"),
     "You can do that only while attacking or placing reinforcements; now you are moving into a conquered territory."),
    (ATTACK, Trade(0, ("alaska", "alberta", "peru")),
     "You can do that only while placing reinforcements; now you are attacking."),
    (ATTACK, Claim(0, "alaska"), "You can do that only while claiming territories; now you are attacking."),
    (FORTIFY, EndAttack(0), "You can do that only while attacking; now you are fortifying."),
    (ATTACK, Occupy(0, 1), "You can do that only while moving into a conquered territory; now you are attacking."),
    (OCCUPY, EndTurn(0),
     "You can do that only while attacking or fortifying; now you are moving into a conquered territory."),
    (REINFORCE, ChooseCapital(0, "alaska"),
     "You can do that only while choosing capitals; now you are placing reinforcements."),
    (REINFORCE, Attack(0, "alaska", "kamchatka"), "Place all your reinforcements first (3 left)."),
    (FORTIFY, Undo(0), "You have moved on to fortifying: your placements can no longer be undone."),
    (OCCUPY, Undo(0), "You have attacked this turn: your placements can no longer be undone."),
]


@pytest.mark.parametrize("phase,action,message", OUT_OF_PHASE, ids=lambda x: getattr(x, "kind", None))
def test_an_action_out_of_its_phase_is_refused_with_the_phases_it_belongs_to(phase, action, message):
    game = position(new_game(3), {"alaska": 0, "alberta": 0}, {"alaska": 5, "alberta": 3}, phase=phase, seat=0)
    game.state.reinforcements = 3 if phase == REINFORCE else 0
    if phase == OCCUPY:
        game.state.pending = {"from": "alaska", "to": "kamchatka", "min": 1, "max": 4}
    assert unchanged(game, action) is E.WrongPhase
    with pytest.raises(E.WrongPhase) as info:
        game.apply(action)
    assert info.value.message == message


def test_every_action_belongs_to_a_phase_and_a_finished_game_allows_none():
    from engine.actions import ACTION_TYPES
    from engine.phases import PHASES

    assert set(ACTION_TYPES.values()) == {a for phase in PHASES.values() for a in phase.actions}
    assert PHASES[OVER].actions == ()
    assert all(phase.next in PHASES for phase in PHASES.values() if phase.next is not None)
    game = position(new_game(3), {}, phase=ATTACK, seat=0)
    assert game.allows(Attack) and game.allows(Surrender) and not game.allows(Place)
    game.state.phase = OVER
    assert not any(game.allows(action) for action in ACTION_TYPES.values())
