"""The hard AI plays legal, goal-directed turns: in hand-built positions on the classic map, it takes the continent
there to take, guards the border of the one it holds, finishes a player for their cards, trades its sets, keeps
its armies when every attack is bad, hits its real opponent rather than the neutral, and plays for its mission;
with two players it sets the neutral in the enemy's way and ends a stalled duel it leads; with capitals it guards
a capital it took.

Each test plays the AI's decisions through ``Game.apply``, every one checked against the seat's legal choices
(``engine.choices``), and asserts the robust fact of the turn (what it holds at its end, where the armies went),
not an exact count that a stronger AI may play differently. How strong the levels are lives in bench/."""

from __future__ import annotations

import pytest
from conftest import position

from engine import Game
from engine.actions import Action, Blitz, EndAttack, Place, Trade
from engine.ai import make_ai
from engine.choices import choices_for
from engine.events import Event
from engine.missions import continents_mission
from engine.state import ATTACK, NEUTRAL, OVER, REINFORCE, Player

AUSTRALIA = ("indonesia", "new_guinea", "eastern_australia", "western_australia")
SOUTH_AMERICA = ("venezuela", "peru", "brazil", "argentina")


def hard_game(players: int = 3, **settings: str) -> Game:
    """A game of hard AIs on the classic map, its board still to be set (``board``)."""
    seats = [Player(i, f"P{i}", "ai", "hard") for i in range(players)]
    game, _ = Game.new(seats, f"hard-goals:{players}:{sorted(settings.items())}", {"deployment": "auto", **settings})
    return game


def board(game: Game, owners: dict[str, int], armies: dict[str, int], *, phase: str = REINFORCE,
          reinforcements: int = 5) -> Game:
    """Seat 0 to play in ``phase``; every territory not named is seat 1's with 3 armies (with three players, seat 2
    holds Alaska and Kamchatka unless ``owners`` gives it others); no cards in any hand."""
    s = game.state
    if len(s.players) == 3 and 2 not in owners.values():
        owners = {"alaska": 2, "kamchatka": 2, **owners}
    position(game, owners, armies, phase=phase, default_armies=3)
    s.deck += [card for hand in s.hands.values() for card in hand]
    s.hands = {seat: [] for seat in s.hands}
    s.reinforcements = reinforcements if phase == REINFORCE else 0
    s.conquered_this_turn = False
    return game


def play_turn(game: Game, seat: int = 0) -> tuple[list[Action], list[Event]]:
    """Seat's whole turn as the hard AI plays it: every action one of its legal choices, applied by the rules."""
    ai = make_ai("hard")
    actions: list[Action] = []
    events: list[Event] = []
    while game.state.current == seat and game.state.phase != OVER:
        action = ai.choose(game, seat)
        assert choices_for(game, seat).offers(action), f"{action} is not one of seat {seat}'s choices"
        actions.append(action)
        events += game.apply(action)
        assert len(actions) < 200, "the turn does not end"
    return actions, events


def placed(actions: list[Action]) -> dict[str, int]:
    out: dict[str, int] = {}
    for a in actions:
        if isinstance(a, Place):
            out[a.territory] = out.get(a.territory, 0) + a.count
    return out


def battles(events: list[Event]) -> list[Event]:
    return [e for e in events if e["type"] == "battle"]


def holds(game: Game, territories: tuple[str, ...], seat: int = 0) -> bool:
    return all(game.state.owners[t] == seat for t in territories)


# -- it takes a continent that is there to take -------------------------------------------------------------
@pytest.mark.parametrize(("continent", "stack", "last"), [
    (AUSTRALIA, "indonesia", "western_australia"),
    (SOUTH_AMERICA, "brazil", "argentina"),
])
def test_hard_takes_the_continent_whose_last_territory_lies_weak_next_to_its_stack(continent, stack, last):
    game = board(hard_game(), {t: 0 for t in continent if t != last}, {**dict.fromkeys(continent, 2), stack: 10})
    _, events = play_turn(game)
    assert holds(game, continent), "its turn ends with the continent held"
    assert any(e["type"] == "territory_conquered" and e["to"] == last for e in events)
    assert game.state.current != 0, "and the turn ended"


# -- it defends a threatened bonus ----------------------------------------------------------------------------
@pytest.mark.parametrize(("continent", "door", "enemy"), [
    (AUSTRALIA, "indonesia", "siam"),
    (SOUTH_AMERICA, "brazil", "north_africa"),
])
def test_hard_puts_its_reinforcements_on_the_border_a_large_stack_threatens(continent, door, enemy):
    """The continent held with two armies on each territory; one of its borders faces 12 armies, the others (if
    any) three: no attack is worth making, and every reinforcement goes to the threatened border."""
    game = board(hard_game(), dict.fromkeys(continent, 0), {**dict.fromkeys(continent, 2), enemy: 12})
    actions, events = play_turn(game)
    assert placed(actions) == {door: 5}
    assert not any(e["type"] == "battle" and e["from"] == door for e in events), "it does not thin the border"
    assert holds(game, continent) and game.state.armies[door] >= 7


# -- it finishes a player for their cards ---------------------------------------------------------------------
@pytest.mark.parametrize(("theirs", "stacks", "cards"), [
    (("japan",), ("mongolia",), 4),
    (("kamchatka", "japan"), ("yakutsk", "mongolia"), 5),
])
def test_hard_eliminates_a_weak_player_this_turn_and_takes_their_cards(theirs, stacks, cards):
    """Seat 2 is down to one or two territories of two armies, holding four or five cards, next to stacks of
    nine: seat 0 (two cards of its own) takes everything left of it this turn, and its cards with it (six cards
    in hand make it trade down at once: that too by the rules)."""
    owners = {**dict.fromkeys(theirs, 2), **dict.fromkeys(stacks, 0)}
    game = board(hard_game(), owners, {**dict.fromkeys(theirs, 2), **dict.fromkeys(stacks, 9)}, reinforcements=3)
    s = game.state
    s.hands[2] = [s.deck.pop() for _ in range(cards)]
    s.hands[0] = [s.deck.pop() for _ in range(2)]
    hand = list(s.hands[2])
    _, events = play_turn(game)
    [out] = [e for e in events if e["type"] == "player_eliminated"]
    assert out["seat"] == 2 and out["by"] == 0 and sorted(out["cards_taken"]) == sorted(hand)
    assert 2 in s.eliminated and not s.hands[2]
    traded = {c["card"] for e in events if e["type"] == "cards_traded" and e["seat"] == 0 for c in e["cards"]}
    assert set(hand) <= set(s.hands[0]) | traded, "the cards are its own now"


# -- it trades a set when it must, and when it can use it --------------------------------------------------------
def test_hard_with_five_cards_trades_first():
    game = board(hard_game(), dict.fromkeys(AUSTRALIA, 0), dict.fromkeys(AUSTRALIA, 2))
    s = game.state
    s.hands[0] = [s.deck.pop() for _ in range(5)]
    assert game.must_trade(0)
    actions, events = play_turn(game)
    assert isinstance(actions[0], Trade)
    trade = next(e for e in events if e["type"] == "cards_traded")
    assert sum(placed(actions).values()) == 5 + trade["armies"], "the set's armies placed too (its +2 by the rules)"


def test_hard_trades_a_set_of_three_when_its_armies_have_a_use():
    """Three cards of one symbol (none of their territories its own) and the last territory of Australia to
    take: it trades before it places, and places the set's armies too."""
    game = board(hard_game(), dict.fromkeys(AUSTRALIA[:3], 0), dict.fromkeys(AUSTRALIA, 2))
    s, cards = game.state, game.board.territories
    symbol = cards["ontario"].card
    s.hands[0] = [t for t in s.deck if t in cards and cards[t].card == symbol and s.owners[t] != 0][:3]
    s.deck = [c for c in s.deck if c not in s.hands[0]]
    assert game.best_set(0) is not None and not game.must_trade(0)
    actions, events = play_turn(game)
    assert isinstance(actions[0], Trade) and sorted(actions[0].cards) == sorted(s.discard[-3:])
    [trade] = [e for e in events if e["type"] == "cards_traded"]
    assert sum(placed(actions).values()) == 5 + trade["armies"] > 5
    assert holds(game, AUSTRALIA)


# -- it does not throw armies away -----------------------------------------------------------------------------
def test_hard_with_only_bad_odds_ends_its_attack_without_a_battle():
    """Australia held with three armies on each territory, ten on every enemy territory."""
    game = board(hard_game(), dict.fromkeys(AUSTRALIA, 0), {"siam": 10}, phase=ATTACK)
    for t in game.board.territory_ids:
        if game.state.owners[t] != 0:
            game.state.armies[t] = 10
    actions, events = play_turn(game)
    assert isinstance(actions[0], EndAttack)
    assert not battles(events)


def test_hard_with_only_bad_odds_places_and_keeps_its_armies():
    """The same from the start of the turn, twelve on every enemy territory: it places and fights no battle."""
    game = board(hard_game(), dict.fromkeys(AUSTRALIA, 0), dict.fromkeys(AUSTRALIA, 2), reinforcements=3)
    for t in game.board.territory_ids:
        if game.state.owners[t] != 0:
            game.state.armies[t] = 12
    actions, events = play_turn(game)
    assert sum(placed(actions).values()) == 3
    assert not battles(events)
    assert holds(game, AUSTRALIA)


def test_hard_does_not_open_its_continents_border_for_a_poor_attack():
    """Australia held, seven armies at its door and three to place; Siam has six, with twelve in India and China
    behind it: taking Siam would cost most of the door's armies and leave Australia open to the stacks beyond.
    Its turn ends with Australia held and its border (wherever it is then) not left bare."""
    armies = {**dict.fromkeys(AUSTRALIA, 1), "indonesia": 7, "siam": 6, "india": 12, "china": 12}
    game = board(hard_game(), dict.fromkeys(AUSTRALIA, 0), armies, reinforcements=3)
    play_turn(game)
    s = game.state
    assert holds(game, AUSTRALIA)
    borders = [t for t in s.territories_of(0)
               if any(s.owners[n] != 0 for n in game.board.neighbours(t))]
    assert borders and all(s.armies[t] >= 5 for t in borders), {t: s.armies[t] for t in borders}


# -- two players and the neutral ----------------------------------------------------------------------------------
def test_hard_in_a_two_player_game_hits_its_opponent_rather_than_the_neutral():
    """Two players: a stack in Siam between India (neutral, one army) and China (the opponent's, three), with
    no continent of the neutral's cheap to take (Australia's four hold eight each): the turn goes on the
    opponent, and the neutral is left alone. (With Australia's at three, taking it whole is a fair turn too.)"""
    game = hard_game(players=2)
    owners = dict.fromkeys(game.board.territory_ids, NEUTRAL)
    for continent in ("north_america", "europe", "africa"):
        owners.update(dict.fromkeys(game.board.continents[continent].territories, 1))
    owners.update({"siam": 0, "china": 1})
    board(game, owners, {"siam": 12, "india": 1, **dict.fromkeys(AUSTRALIA, 8)})
    actions, events = play_turn(game)
    first = next(a for a in actions if isinstance(a, Blitz))
    assert first.target == "china"
    assert game.state.owners["china"] == 0
    assert not any(e["type"] == "battle" and e["to"] == "india" for e in events)


# -- missions --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("mission", "continent"), [
    (("asia", "south_america"), SOUTH_AMERICA),
    (("north_america", "africa"), ("western_united_states", "eastern_united_states")),
])
def test_hard_attacks_first_into_its_missions_continent(mission, continent):
    """A stack in Central America, between South America and North America (one army on each of their
    territories): its first attack goes into the continent its mission names."""
    game = hard_game(mode="missions")
    armies = dict.fromkeys((*SOUTH_AMERICA, *game.board.continents["north_america"].territories), 1)
    board(game, {"central_america": 0}, {**armies, "central_america": 14})
    game.state.missions[0] = continents_mission(mission)
    actions, _ = play_turn(game)
    first = next(a for a in actions if isinstance(a, Blitz))
    assert first.target in continent


@pytest.mark.parametrize("stack", ["central_america", "north_africa"])
def test_hard_takes_its_missions_continent_when_it_lies_open_to_its_stack(stack):
    """Its mission names South America, held by four single armies next to its stack of fourteen (and five to
    place); every other territory holds three, and from North Africa the rest of Africa lies open too (one army
    each): it ends its turn holding South America, whatever else it takes on the way (which attack comes first is
    left to it: ``test_hard_attacks_first_into_its_missions_continent`` holds the first step)."""
    game = hard_game(mode="missions")
    armies = dict.fromkeys((*SOUTH_AMERICA, *game.board.continents["africa"].territories), 1)
    board(game, {stack: 0}, {**armies, stack: 14})
    game.state.missions[0] = continents_mission(("asia", "south_america"))
    play_turn(game)
    assert holds(game, SOUTH_AMERICA)


def test_hard_in_a_two_player_set_up_puts_the_neutral_army_in_the_way_of_the_enemys_stack():
    """Two players' set-up: each turn also places a neutral army; it goes next to the enemy's stack (which must
    then break through it), not where it would stand in its own way."""
    seats = [Player(i, f"P{i}", "ai", "hard") for i in range(2)]
    game, _ = Game.new(seats, "hard-goals:wall", {"deployment": "deal", "setup": "turns"})
    ai = make_ai("hard")
    for _ in range(50):   # the set-up's placements, up to a turn's neutral army
        seat = game.state.current
        c = choices_for(game, seat)
        if c.neutral is not None and c.place is None:
            break
        game.apply(ai.choose(game, seat))
    else:
        raise AssertionError("no neutral army to place")
    s, board_ = game.state, game.board
    enemy = 1 - seat
    offered = set(c.neutral.territories)
    stack = next(t for t in sorted(s.owners) if s.owners[t] == enemy
                 and any(n in offered for n in board_.neighbours(t)))
    for t, owner in s.owners.items():
        if owner in (0, 1):
            s.armies[t] = 1
    s.armies[stack] = 20
    action = ai.choose(game, seat)
    assert isinstance(action, Place) and action.territory in offered
    assert stack in board_.neighbours(action.territory), (action.territory, stack)
    assert choices_for(game, seat).offers(action)


def test_hard_in_a_stalled_duel_it_leads_by_far_breaks_through_the_neutral_to_end_it():
    """Two players, long past the stall: the opponent is down to Australia behind a neutral Indonesia, the hard
    AI's stack of hundreds in Siam. It attacks through the neutral rather than sit on its stack for ever."""
    game = hard_game(players=2)
    owners = dict.fromkeys(game.board.territory_ids, 0)
    owners.update({"indonesia": NEUTRAL, "new_guinea": 1, "western_australia": 1, "eastern_australia": 1})
    board(game, owners, {"siam": 400, "indonesia": 12, "new_guinea": 40, "western_australia": 40,
                         "eastern_australia": 1})
    game.state.turn = 1_000
    actions, _ = play_turn(game)
    assert any(isinstance(a, Blitz) and a.target == "indonesia" for a in actions)
    assert game.state.owners["indonesia"] == 0


def test_hard_with_capitals_guards_a_capital_it_took():
    """Capitals: an enemy's capital it took (Egypt, two armies) faces a stack of twelve in the Middle East; its
    reinforcements go there, as they would to its own capital."""
    game = hard_game(players=3, mode="capitals")
    owners = {**dict.fromkeys(SOUTH_AMERICA, 0), "north_africa": 0, "egypt": 0}
    board(game, owners, {"egypt": 2, "north_africa": 2, "middle_east": 12}, reinforcements=6)
    game.state.capitals = {0: "argentina", 1: "egypt", 2: "alaska"}
    action = make_ai("hard").choose(game, 0)
    assert isinstance(action, Place) and action.territory == "egypt", action
