"""The hard AI's turn plan: the board it plans on is put back exactly, the same position gives the same move,
a plan cut short by the work allowed still gives a legal move (and is counted), and the odds it prices a huge
stack with are the exact ones."""

from __future__ import annotations

import pytest
from conftest import position

from engine import Game
from engine.ai import hard, seat_view
from engine.ai.appraisal import Position
from engine.ai.hard import HardAI, fight, overwhelming
from engine.ai.knowledge import Recollection
from engine.choices import choices_for
from engine.odds import battle_odds
from engine.simulate import game_seed, next_starter, setup_mover
from engine.state import ATTACK, OVER, WAITING, Player

SOUTH_AMERICA = ("venezuela", "peru", "brazil", "argentina")


def game_of(players: int = 3, **settings: str) -> Game:
    seats = [Player(i, f"P{i}", "ai", "hard") for i in range(players)]
    game, _ = Game.new(seats, f"plan:{players}:{sorted(settings.items())}", {"deployment": "auto", **settings})
    return game


@pytest.mark.parametrize(("defenders", "stop_at"), [(1, 1), (2, 1), (3, 2), (5, 3), (12, 1), (20, 4)])
def test_a_stack_far_beyond_the_defence_is_priced_with_the_exact_odds(defenders, stop_at):
    for armies in (overwhelming(defenders, stop_at) + 1, overwhelming(defenders, stop_at) + 17):
        if armies * defenders > hard.EXACT:
            continue
        exact, priced = battle_odds(armies, defenders, stop_at), fight(armies, defenders, stop_at)
        assert priced.win == pytest.approx(exact.win, abs=1e-6)
        assert priced.expected_attacker_left == pytest.approx(exact.expected_attacker_left, abs=1e-6)
        assert priced.expected_defender_left == pytest.approx(exact.expected_defender_left, abs=1e-6)


def test_a_plan_puts_the_board_back_as_it_was():
    """Three conquests in a row through South America, one of them a territory the view has no armies for:
    after the plan the view is what it was, owners, armies and the turn's conquest alike."""
    game = position(game_of(), {"central_america": 0}, {"central_america": 30})
    view = seat_view(game, 0)
    del view.state.armies["peru"]  # as under fog: a territory whose armies the seat does not know
    before = (dict(view.state.owners), dict(view.state.armies), view.state.conquered_this_turn)
    ai = HardAI()
    pos = Position.of(view, 0)
    counts = dict(pos.counts)
    score, stop_at = ai.chain(pos, "central_america", 30, "venezuela")
    assert score > 0 and stop_at >= 1
    assert (dict(view.state.owners), dict(view.state.armies), view.state.conquered_this_turn) == before
    assert pos.counts == counts


def test_the_plan_sees_the_continent_its_conquests_complete():
    """Venezuela alone is worth little; Venezuela on the way to the whole of South America is worth the
    continent, which a one-battle price does not see."""
    game = position(game_of(), {"central_america": 0}, {"central_america": 30})
    pos = Position.of(seat_view(game, 0), 0)
    ai = HardAI()
    one = ai.price(pos, "central_america", "venezuela", 30)[0]
    planned = ai.chain(pos, "central_america", 30, "venezuela")[0]
    assert planned > one + game.board.continents["south_america"].bonus


def test_a_plan_cut_short_still_gives_a_legal_move_and_is_counted(monkeypatch):
    game = position(game_of(), {"central_america": 0}, {"central_america": 30}, phase=ATTACK)
    ai = HardAI()
    ai.choose(game, 0)
    assert ai.fallbacks == 0 and ai.decisions == 1
    monkeypatch.setattr(hard, "NODES", 1)
    cut = ai.choose(game, 0)
    assert choices_for(game, 0).offers(cut)
    assert ai.fallbacks == 1 and ai.decisions == 2


def test_the_same_position_gives_the_same_moves_under_fog():
    """A whole fog game of hard AIs twice, each decision on its seat's memory, once with one AI a seat for the
    whole game and once with a new AI for every decision (as after a restart): the same moves, and the real
    state is never touched by a plan (every move is one the seat was offered)."""
    def play(fresh: bool) -> list[str]:
        seats = [Player(i, f"P{i}", "ai", "hard") for i in range(3)]
        seed = game_seed("plan:fog", 0)
        game, events = Game.new(seats, seed, {"fog": "on", "mode": "missions"})
        seen = Recollection.of_log(events)
        ais = [HardAI() for _ in seats]
        moves: list[str] = []
        while game.state.phase != OVER and len(moves) < 3000:
            if game.state.phase == WAITING:
                new = game.apply(next_starter(game, seed))
            else:
                seat = setup_mover(game, seed) if game.state.sealed is not None else game.state.current
                before = game.state.to_dict()
                ai = HardAI() if fresh else ais[seat]
                action = ai.choose(game, seat, seen.memory(seat))
                assert game.state.to_dict() == before
                assert choices_for(game, seat).offers(action)
                moves.append(repr(action))
                new = game.apply(action)
            seen.follow(new)
        return moves

    assert play(False) == play(True)
