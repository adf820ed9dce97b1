"""Standing orders in the engine (engine/orders.py): a plan left for the next turn, played against the board as it
stands; and the steps a turn takes by itself (``forced_step``)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import EndTurn, Game, Place, RuleError
from engine.actions import Attack, Blitz, Fortify, Occupy, StartTurn, Trade
from engine.errors import BadOrders
from engine.fog import state_for
from engine.orders import (
    ENDED,
    FRONT,
    LEFT,
    AttackOrder,
    FortifyOrder,
    Orders,
    Placing,
    Step,
    Stop,
    forced_step,
    front,
    left,
    next_step,
    renewed,
)
from engine.state import ATTACK, OVER, REINFORCE, WAITING

NORTH = ["alaska", "northwest_territory", "alberta", "greenland", "ontario", "quebec"]


def board(**extra: object) -> Game:
    """Seat 0's turn with its reinforcements to place: seat 0 holds North America's north (Alaska with 10),
    seat 1 Kamchatka (2) and every other territory, the armies set by hand."""
    game, _ = Game.new(["Ann", "Bo"], "orders-seed", {"deployment": "auto", **extra})
    s = game.state
    while s.current != 0 or s.phase != REINFORCE:  # play on until it is seat 0's turn
        game.apply(Place(s.current, s.territories_of(s.current)[0], s.reinforcements))
        game.apply(EndTurn(s.current))
    for t in game.board.territory_ids:
        s.owners[t] = 0 if t in NORTH else 1
        s.armies[t] = 1
    s.armies["alaska"] = 10
    s.armies["kamchatka"] = 2
    s.armies["alberta"] = 3
    return game


def run(game: Game, seat: int, orders: Orders, cursor: int = 0, limit: int = 200,
        notes: list | None = None) -> tuple[list, Stop]:
    """Apply the plan's steps until it stops; the actions applied and the stop (``notes``: the attacks whose stop
    ended them)."""
    applied = []
    for _ in range(limit):
        answer = next_step(game, seat, orders, cursor)
        if notes is not None:
            notes += [n.message for n in answer.notes]
        if isinstance(answer, Stop):
            return applied, answer
        game.apply(answer.action)
        applied.append(answer.action)
        cursor = answer.cursor
    raise AssertionError("the plan never stopped")


def test_a_plan_places_attacks_moves_in_fortifies_and_ends_the_turn():
    game = board()
    left_now = game.state.reinforcements
    plan = left(game, 0, Orders(place=(Placing("Alaska"),),
                                attacks=(AttackOrder("alaska", "kamchatka", stop_at=3, leave=2),),
                                fortify=FortifyOrder("alberta", "ontario")))
    assert plan.owners == {"alaska": 0, "kamchatka": 1, "alberta": 0, "ontario": 0}
    actions, stop = run(game, 0, plan)
    assert actions[0] == Place(0, "alaska", left_now)
    assert isinstance(actions[1], Blitz) and actions[1].stop_at == 3
    s = game.state
    assert stop.done and stop.reason.template == ENDED
    assert s.current == 1   # the fortify ended seat 0's turn
    if s.owners["kamchatka"] == 0:   # the dice took it: all but two moved in
        moved = [a for a in actions if isinstance(a, Occupy)]
        assert not moved or s.armies["alaska"] == 2
    assert Fortify(0, "alberta", "ontario", 2) in actions


def test_the_dice_decide_the_attack_but_the_plan_never_goes_past_its_stop():
    for seed in range(12):
        game, _ = Game.new(["Ann", "Bo"], f"stop-{seed}", {"deployment": "auto"})
        g = board()
        g.state.seed = game.state.seed   # another stream of dice each time
        plan = left(g, 0, Orders(place=(Placing(FRONT, 1), Placing("alaska")),
                                 attacks=(AttackOrder("alaska", "kamchatka", stop_at=6),), end=False))
        g.state.armies["kamchatka"] = 8
        notes: list = []
        _, stop = run(g, 0, plan, notes=notes)
        assert stop.done and stop.reason.template == LEFT
        assert g.state.current == 0 and g.state.phase == ATTACK   # the rest of the turn is the player's
        if g.state.owners["kamchatka"] != 0:   # the stop ended the attack, and it was told
            assert g.state.armies["alaska"] <= 6
            assert len(notes) == 1 and "your stop" in notes[0]


def test_stale_orders_do_not_run_at_all():
    game = board()
    plan = left(game, 0, Orders(place=(Placing("alberta"),), attacks=(AttackOrder("alaska", "kamchatka"),)))
    game.state.owners["alberta"] = 1   # lost since the plan was left
    actions, stop = run(game, 0, plan)
    assert actions == [] and not stop.done and stop.cursor == 0
    assert stop.reason.template.startswith("{territory} changed hands")
    assert game.state.phase == REINFORCE


def test_a_territory_lost_after_the_plan_started_stops_it_at_that_order():
    game = board()
    plan = left(game, 0, Orders(place=(Placing("alberta", 1), Placing("ontario"))))
    step = next_step(game, 0, plan)
    assert isinstance(step, Step) and step.action == Place(0, "alberta", 1)
    game.apply(step.action)
    game.state.owners["ontario"] = 1   # (by the rules it could not change hands now: the check is the order's own)
    stop = next_step(game, 0, plan, step.cursor)
    assert isinstance(stop, Stop) and "no longer yours" in stop.reason.message and stop.cursor == step.cursor


def test_odds_below_the_players_stop_the_attack_before_a_roll():
    game = board()
    game.state.armies["kamchatka"] = 30
    plan = left(game, 0, Orders(place=(Placing("alaska"),), attacks=(AttackOrder("alaska", "kamchatka", odds=0.6),)))
    notes: list = []
    actions, stop = run(game, 0, plan, notes=notes)
    # No roll: the odds ended that attack, and the plan went on to its end.
    assert actions == [Place(0, "alaska", actions[0].count), EndTurn(0)]
    assert len(notes) == 1 and "odds of taking" in notes[0] and stop.done


def test_with_odds_each_roll_is_one_attack_and_the_odds_are_checked_again():
    game = board()
    game.state.armies["kamchatka"] = 3
    plan = left(game, 0, Orders(place=(Placing("alaska"),), attacks=(AttackOrder("alaska", "kamchatka", odds=0.5),),
                                end=False))
    actions, stop = run(game, 0, plan)
    rolls = [a for a in actions if isinstance(a, Attack)]
    assert rolls and all(a.dice is None for a in rolls)
    if game.state.owners["kamchatka"] == 0:
        assert stop.done and stop.reason.template == LEFT and game.state.phase == ATTACK


def test_an_illegal_order_stops_with_the_rules_own_refusal():
    game = board()
    plan = left(game, 0, Orders(place=(Placing("alaska"),), fortify=FortifyOrder("greenland", "alaska")))
    game.state.armies["greenland"] = 3
    _, stop = run(game, 0, plan)   # Greenland does not border Alaska, and fortify is between neighbours
    assert isinstance(stop.reason, RuleError) and not stop.done
    assert game.state.current == 0


def test_placements_that_leave_armies_stop_before_the_attacks():
    game = board()
    plan = left(game, 0, Orders(place=(Placing("alaska", 1),), attacks=(AttackOrder("alaska", "kamchatka"),)))
    actions, stop = run(game, 0, plan)
    assert actions == [Place(0, "alaska", 1)] and "armies to place" in stop.reason.message


def test_a_plan_is_checked_when_left():
    game = board()
    with pytest.raises(RuleError, match="no territory called"):
        left(game, 0, Orders(place=(Placing("Atlantis"),)))
    with pytest.raises(BadOrders, match="held by your side"):
        left(game, 0, Orders(attacks=(AttackOrder("alberta", "ontario"),)))
    with pytest.raises(BadOrders, match="do not border"):
        left(game, 0, Orders(attacks=(AttackOrder("alaska", "brazil"),)))
    with pytest.raises(BadOrders, match="Only the last"):
        left(game, 0, Orders(place=(Placing("alaska"), Placing("alberta", 2))))
    with pytest.raises(BadOrders):
        Orders.from_dict({"place": [{"territory": "alaska", "count": 0}]})
    with pytest.raises(BadOrders):
        Orders.from_dict({"attacks": [{"source": "alaska", "target": "kamchatka", "odds": 2}]})
    with pytest.raises(BadOrders):
        Orders.from_dict({"trade": "yes"})


def test_a_plan_survives_storage_unchanged():
    game = board()
    plan = left(game, 0, Orders(trade=False, place=(Placing(FRONT, 2), Placing("alaska")),
                                attacks=(AttackOrder("alaska", "kamchatka", 3, 0.6, None, 2),),
                                fortify=FortifyOrder("alberta", "ontario", 1), end=False, repeat=True))
    assert Orders.from_dict(plan.to_dict()) == plan


def test_on_my_front_is_where_the_enemy_presses_hardest():
    game = board()
    game.state.armies["kamchatka"] = 30        # 30 against Alaska's 10
    assert front(game, 0) == "alaska"
    game.state.armies["eastern_united_states"] = 40   # 41 against Ontario's 1
    assert front(game, 0) == "ontario"
    game.state.armies["iceland"] = 99           # next to Greenland, which is inland otherwise
    assert front(game, 0) == "greenland"


def test_a_repeating_plan_is_renewed_against_the_board_after_its_run():
    game = board()
    plan = left(game, 0, Orders(place=(Placing("alaska"),), repeat=True))
    plan_too = left(game, 0, Orders(attacks=(AttackOrder("alaska", "kamchatka"),), repeat=True))
    game.state.owners["kamchatka"] = 0   # taken by the run
    assert renewed(game, plan).owners == plan.owners   # Kamchatka is not named
    again = renewed(game, plan_too)
    assert again.owners["kamchatka"] == 0 and again.attacks == plan_too.attacks and again.repeat


def test_a_freestyle_plan_starts_its_turn():
    game, _ = Game.new(["Ann", "Bo", "Cy"], "fs", {"deployment": "auto", "turn_order": "freestyle"})
    assert game.state.phase == WAITING
    mine = game.state.territories_of(0)[0]
    plan = left(game, 0, Orders(place=(Placing(mine),)))
    step = next_step(game, 0, plan)
    assert isinstance(step, Step) and step.action == StartTurn(0) and step.cursor == 0
    _, stop = run(game, 0, plan)
    assert stop.done and game.state.phase == WAITING and 0 not in game.state.to_play


def test_not_your_turn_runs_nothing():
    game = board()
    plan = left(game, 1, Orders(place=(Placing("kamchatka"),)))
    stop = next_step(game, 1, plan)
    assert isinstance(stop, Stop) and not stop.done and stop.cursor == 0


# -- no turn waits for nothing -------------------------------------------------------------------------------
def test_a_turn_with_nothing_to_decide_ends_by_itself():
    game = board()
    s = game.state
    game.apply(Place(0, "alaska", s.reinforcements))
    assert forced_step(game, 0) is None        # Alaska can attack
    for t in NORTH:
        s.armies[t] = 1
    assert forced_step(game, 0) == EndTurn(0)
    game.validate(EndTurn(0))


def test_under_fog_no_turn_ends_by_itself():
    game = board(fog="on")
    s = game.state
    game.apply(Place(0, "alberta", s.reinforcements))
    for t in NORTH:
        s.armies[t] = 1
    assert forced_step(game, 0) is None


def test_a_forced_trade_with_one_set_is_taken():
    game = board()
    s = game.state
    hand = ["alaska", "kamchatka", "brazil", "peru", "ukraine"]
    symbols = {c: game.card_symbol(c) for c in hand}
    s.hands[0] = hand
    sets = game.tradeable_sets(0)
    step = forced_step(game, 0)
    if len(sets) == 1:
        assert step == Trade(0, sets[0])
    else:
        assert step is None, symbols


def _random_turn(data: st.DataObject) -> tuple[Game, int]:
    seed = data.draw(st.integers(0, 10_000))
    fog = data.draw(st.sampled_from(["off", "on"]))
    mode = data.draw(st.sampled_from(["classic", "missions"]))
    game, _ = Game.new(["Ann", "Bo", "Cy"], f"forced-{seed}", {"deployment": "auto", "fog": fog, "mode": mode})
    from engine.ai import make_ai
    ai = make_ai("normal")
    for _ in range(data.draw(st.integers(0, 150))):
        if game.state.phase == OVER:
            break
        game.apply(ai.choose(game, game.state.current))
    return game, game.state.current


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_forced_steps_never_read_a_hand_or_a_mission(data: st.DataObject) -> None:
    """What the automation does is legal, and (but for a forced trade, which shows its cards) the same whatever
    the hidden cards and missions are: swap every hand's cards for others of the same number, and every mission."""
    game, seat = _random_turn(data)
    step = forced_step(game, seat)
    if step is not None:
        game.validate(step)
    if isinstance(step, Trade):
        return
    other = Game(game.state.copy())
    deck = [c for c in game.board.territory_ids if game.is_card(c)]
    rng = data.draw(st.randoms(use_true_random=False))
    rng.shuffle(deck)
    for s, hand in other.state.hands.items():
        other.state.hands[s] = [deck.pop() for _ in hand]
    missions = list(other.state.missions.values())
    rng.shuffle(missions)
    other.state.missions = dict(zip(other.state.missions, missions, strict=True))
    public = state_for(game.state, None)
    assert public.hands.keys() == state_for(other.state, None).hands.keys()
    twin = forced_step(other, seat)
    if twin is None or not isinstance(twin, Trade):
        assert twin == step


def test_a_stale_freestyle_plan_does_not_start_the_turn_and_a_held_player_waits():
    game, _ = Game.new(["Ann", "Bo", "Cy"], "fs-stale", {"deployment": "auto", "turn_order": "freestyle"})
    mine = game.state.territories_of(0)[0]
    plan = left(game, 0, Orders(place=(Placing(mine),)))
    game.state.owners[mine] = 1
    stop = next_step(game, 0, plan)
    assert isinstance(stop, Stop) and "changed hands" in stop.reason.message and not stop.waiting
    game.state.owners[mine] = 0
    game.state.held = 0   # the player who ended the last round waits a while: so does their plan
    stop = next_step(game, 0, plan)
    assert isinstance(stop, Stop) and stop.waiting and not stop.done
