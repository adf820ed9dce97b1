"""A hint tells only what its seat may know: everything the seat cannot see, drawn anew, leaves the hint (the move,
its odds, the continent it aims for) as it was; and it is the hard AI's own move, in words."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_ai_knowledge import played, with_other_secrets

from cogs.play.hint import hint_text
from engine import Blitz, Game
from engine.ai import make_ai
from engine.ai.hints import hint_for
from engine.phases import OVER


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(["classic", "missions", "capitals"]), seed=st.integers(0, 10_000),
       actions=st.integers(0, 200), shuffle=st.integers(0, 2**32))
def test_what_a_seat_cannot_see_never_changes_its_hint(mode, seed, actions, shuffle):
    game, seen = played(mode, "on", seed, actions)
    rng = random.Random(shuffle)
    for _ in range(4):
        if game.state.phase == OVER:
            break
        seat = game.state.current
        memory = seen.memory(seat)
        hint = hint_for(game, seat, memory)
        assert hint.action == make_ai("hard").choose(game, seat, memory)
        assert hint_for(Game(with_other_secrets(game.state, seat, rng)), seat, memory) == hint
        assert hint_text(game, hint, "nb").startswith("💡")
        seen.follow(game.apply(hint.action))


def test_an_attacks_hint_gives_its_odds_and_the_continent_of_its_target():
    for seed in range(40):
        game, seen = played("classic", "off", seed, 120)
        for _ in range(60):
            if game.state.phase == OVER:
                break
            seat = game.state.current
            hint = hint_for(game, seat, seen.memory(seat))
            if isinstance(hint.action, Blitz):
                assert hint.odds is not None and 0.0 < hint.odds <= 1.0
                assert hint.continent == game.board.continent_of(hint.action.target).id
                text = hint_text(game, hint, "en-US")
                assert f"{hint.odds:.0%} to take it" in text and "It aims for" in text
                return
            seen.follow(game.apply(hint.action))
    raise AssertionError("no game came to an attack")
