"""Every AI level a player may choose plays whole games by the rules and toward the game's goal, and plays the
same game the same way twice. How strong each level is lives in bench/ai_strength.py."""

from __future__ import annotations

import pytest

from engine import Game
from engine.actions import Blitz, Claim, Place, Trade
from engine.ai import PLAYER_LEVELS, make_ai
from engine.missions import territories_mission
from engine.simulate import play_game
from engine.state import ATTACK, OVER, Player

AUSTRALIA = ("indonesia", "new_guinea", "eastern_australia", "western_australia")


@pytest.mark.parametrize("level", PLAYER_LEVELS)
def test_each_level_plays_a_whole_game_to_its_end(level):
    """Three seats of one level: every action legal (``Game.apply`` refuses any other), the game ends in a win."""
    result = play_game([level] * 3, f"levels:{level}", {"cards": "escalating"})
    state = result.game.state
    assert state.phase == OVER and state.winner in (0, 1, 2) and state.result == "conquest"


@pytest.mark.parametrize("mode", ["missions", "capitals"])
def test_hard_plays_the_goal_games_to_their_end(mode):
    result = play_game(["hard", "normal", "normal"], f"levels:{mode}", {"mode": mode, "fog": "on"})
    assert result.game.state.phase == OVER and result.game.state.winner is not None


def test_hard_plays_two_players_with_the_neutral():
    """Two players and the neutral armies: the neutral never wins, the game ends between the players."""
    for i in range(2):
        result = play_game(["hard", "normal"][::1 - 2 * i], f"levels:duel:{i}")
        assert result.game.state.phase == OVER and result.game.state.winner in (0, 1)


def test_the_same_game_twice_gives_the_same_actions():
    first = play_game(["hard", "normal", "easy"], "levels:twice", {"fog": "on"})
    again = play_game(["hard", "normal", "easy"], "levels:twice", {"fog": "on"})
    assert first.events == again.events


def attack_phase(seat: int = 0) -> Game:
    """A 3-player game in ``seat``'s attack phase, every territory first given to seat 1 with 3 armies."""
    players = [Player(i, f"P{i}", "ai", "hard") for i in range(3)]
    game, _ = Game.new(players, "levels:position", {"deployment": "auto"})
    s = game.state
    for t in game.board.territory_ids:
        s.owners[t], s.armies[t] = 1, 3
    s.owners["alaska"], s.owners["kamchatka"] = 2, 2
    s.current, s.phase, s.reinforcements, s.conquered_this_turn = seat, ATTACK, 0, False
    return game


def play_turn(game: Game, seat: int, level: str = "hard") -> None:
    ai = make_ai(level)
    while game.state.current == seat and game.state.phase != OVER:
        game.apply(ai.choose(game, seat))


@pytest.mark.parametrize("level", ["hard", "easy"])
def test_the_level_takes_a_continent_when_it_can(level: str):
    """Three of Australia's four territories and a stack next to the fourth: it takes the continent (easy too
    goes for the continent it holds most of)."""
    game = attack_phase()
    s = game.state
    for t in AUSTRALIA[:3]:
        s.owners[t], s.armies[t] = 0, 2
    s.armies["indonesia"] = 12
    action = make_ai(level).choose(game, 0)
    assert isinstance(action, Blitz) and action.target == "western_australia"
    play_turn(game, 0, level)
    assert all(s.owners[t] == 0 for t in AUSTRALIA)


def test_hard_completes_its_mission():
    """A territories mission one territory short, and a weak neighbour: it wins by its mission on this turn."""
    players = [Player(i, f"P{i}", "ai", "hard") for i in range(3)]
    game, _ = Game.new(players, "levels:mission", {"deployment": "auto", "mode": "missions"})
    s = game.state
    for t in game.board.territory_ids:
        s.owners[t], s.armies[t] = 1, 4
    s.owners["alaska"], s.owners["kamchatka"] = 2, 2
    for t in AUSTRALIA[:3]:
        s.owners[t], s.armies[t] = 0, 2
    s.armies["indonesia"] = 9
    s.owners["siam"], s.armies["siam"] = 2, 1
    s.missions[0] = territories_mission(4)
    s.current, s.phase, s.reinforcements = 0, ATTACK, 0
    play_turn(game, 0)
    assert s.phase == OVER and s.winner == 0 and s.result == "mission"


def australia_with_a_weak_door() -> Game:
    """Seat 0 holds Australia with one army each, Siam's big enemy stack at its door, and 5 armies to place."""
    game = attack_phase()
    s = game.state
    for t in AUSTRALIA:
        s.owners[t], s.armies[t] = 0, 1
    s.armies["siam"] = 9
    s.phase, s.reinforcements = "reinforce", 5
    s.hands[0] = []
    return game


def test_hard_keeps_its_continent_border_held():
    """Holding Australia with a weak door facing a big enemy stack, its reinforcements guard the door."""
    game = australia_with_a_weak_door()
    play_turn_until_attack(game)
    assert game.state.armies["indonesia"] >= 4


def play_turn_until_attack(game: Game) -> None:
    ai = make_ai("hard")
    while game.state.phase == "reinforce":
        game.apply(ai.choose(game, 0))


def test_hard_takes_the_turns_card_and_keeps_its_reserve():
    """Holding Australia with a large stack at its door and weak enemies beyond: one conquest for the card, then
    it keeps its armies rather than spreading them thin over territories it cannot hold."""
    game = attack_phase()
    s = game.state
    for t in AUSTRALIA:
        s.owners[t], s.armies[t] = 0, 1
    s.armies["indonesia"] = 12
    for t in ("siam", "india", "china"):
        s.armies[t] = 1
    play_turn(game, 0)
    assert sum(1 for t in game.board.territory_ids if s.owners[t] == 0) == len(AUSTRALIA) + 1
    assert s.owners["siam"] == 0


def test_hard_finishes_a_weak_player_for_their_cards():
    """A player down to three territories and holding four cards, within reach of two stacks: it takes all
    three in one turn (the first for the card alone; the others for the player's elimination and cards)."""
    game = attack_phase()
    s = game.state
    for t in ("alaska", "kamchatka", "japan"):
        s.owners[t], s.armies[t] = 2, 2
    s.hands[2] = [s.deck.pop() for _ in range(4)]
    s.owners["yakutsk"], s.armies["yakutsk"] = 0, 10
    s.owners["mongolia"], s.armies["mongolia"] = 0, 10
    play_turn(game, 0)
    assert not any(s.owners[t] == 2 for t in game.board.territory_ids)
    assert 2 in s.eliminated


def test_hard_guards_its_continent_against_the_next_turns_reinforcements():
    """The enemy next to Australia's door has few armies there but a large income: the door gets all the
    reinforcements, not just enough for the armies it sees, and none go to an attack elsewhere."""
    game = attack_phase()
    s = game.state
    for t in AUSTRALIA:
        s.owners[t], s.armies[t] = 0, 1
    s.armies["siam"] = 3
    s.owners["ukraine"], s.armies["ukraine"], s.armies["scandinavia"] = 0, 8, 1  # a tempting attack elsewhere
    s.phase, s.reinforcements = "reinforce", 6
    s.hands[0] = []
    play_turn_until_attack(game)
    assert s.armies["indonesia"] == 7


def test_hard_puts_its_reinforcements_on_one_front_toward_its_base():
    """Half of Australia and scattered territories elsewhere: every reinforcement goes on one territory, at the
    door of the rest of Australia."""
    game = attack_phase()
    s = game.state
    mine = ("indonesia", "new_guinea", "ukraine", "argentina", "egypt")
    for t in mine:
        s.owners[t], s.armies[t] = 0, 2
    s.phase, s.reinforcements = "reinforce", 6
    s.hands[0] = []
    before = dict(s.armies)
    play_turn_until_attack(game)
    grown = [t for t in mine if s.armies[t] > before[t]]
    assert len(grown) == 1 and grown[0] in AUSTRALIA


def test_hard_claims_a_small_continent_with_few_ways_in_that_nobody_else_has_a_foot_in():
    """Its first claim is in Australia (one way in); once another player has claimed there, South America."""
    players = [Player(i, f"P{i}", "ai", "hard") for i in range(3)]
    game, _ = Game.new(players, "levels:claim", {"deployment": "claim"})
    s = game.state
    assert s.phase == "claim"
    seat = s.current
    first = make_ai("hard").choose(game, seat)
    assert isinstance(first, Claim) and first.territory in AUSTRALIA
    s.owners["new_guinea"], s.armies["new_guinea"] = (seat + 1) % 3, 1
    second = make_ai("hard").choose(game, seat)
    assert isinstance(second, Claim) and game.board.continent_of(second.territory).id == "south_america"


def test_easy_guards_the_door_of_its_continent():
    """Holding Australia with a weak door facing a big enemy stack, all its reinforcements go to the door."""
    game = australia_with_a_weak_door()
    assert make_ai("easy").choose(game, 0) == Place(0, "indonesia", 5)


def test_easy_trades_a_set_when_it_has_one():
    game = attack_phase()
    s = game.state
    s.phase, s.reinforcements = "reinforce", 3
    symbol = game.board.territories["ontario"].card
    s.hands[0] = [t for t in game.board.territory_ids if game.board.territories[t].card == symbol][:3]
    best = game.best_set(0)
    assert best is not None and not game.must_trade(0)
    assert make_ai("easy").choose(game, 0) == Trade(0, best)


def test_easy_takes_its_card_most_turns_and_trades_its_sets():
    """Whole games of two easy seats and a normal one: most of easy's turns end with a card drawn (it conquered),
    and it trades sets."""
    turns, with_card, trades = 0, 0, 0
    for i in range(3):
        events = play_game(["easy", "normal", "easy"], f"levels:easy-cards:{i}").events
        turn: tuple[int, int] | None = None
        for e in events:
            if e["type"] == "turn_started":
                turn = (e["seat"], e["turn"]) if e["seat"] != 1 else None
                turns += turn is not None
            elif e["type"] == "card_drawn" and turn is not None:
                with_card += 1
            elif e["type"] == "cards_traded" and e["seat"] != 1:
                trades += 1
    assert with_card >= 0.75 * turns and trades >= 3
