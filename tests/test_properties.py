"""Properties over random play: invariants hold, illegal actions change nothing, the log replays the game."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Attack,
    Blitz,
    Claim,
    EndAttack,
    EndTurn,
    Fortify,
    Game,
    Occupy,
    Place,
    RuleError,
    Surrender,
    Trade,
)
from engine.ai import make_ai
from engine.state import CLAIM, OVER, SETUP

TERRITORIES = Game.new(["a", "b"], "x")[0].board.territory_ids


def candidate(game: Game, draw: st.DataObject):
    """A random action: sometimes what the AI would do, sometimes anything at all (often illegal)."""
    s = game.state
    seat = draw.draw(st.sampled_from([s.current, s.current, s.current, (s.current + 1) % len(s.players)]))
    kind = draw.draw(st.integers(0, 11))
    t1 = draw.draw(st.sampled_from(TERRITORIES))
    t2 = draw.draw(st.sampled_from(TERRITORIES))
    n = draw.draw(st.integers(-2, 60))
    if kind <= 3:
        return make_ai(draw.draw(st.sampled_from(["easy", "normal"])), str(seat)).choose(game, s.current)
    hand = s.hands.get(seat, [])
    options = [
        Claim(seat, t1), Place(seat, t1, n), Attack(seat, t1, t2, draw.draw(st.integers(0, 4))),
        Blitz(seat, t1, t2, n), Occupy(seat, n), EndAttack(seat), Fortify(seat, t1, t2, n), EndTurn(seat),
        Trade(seat, tuple(hand[:3])) if len(hand) >= 3 else Surrender(seat),
    ]
    return options[kind - 4 if kind - 4 < len(options) else 0]


def army_delta(events: list[dict]) -> int:
    """Armies the events put on the board (claims, deals, placements) less those battles removed."""
    added = 0
    for e in events:
        if e["type"] == "territory_claimed":
            added += 1
        elif e["type"] == "territories_dealt":
            added += len(e["owners"])
        elif e["type"] == "armies_placed":
            added += e["count"]
        elif e["type"] == "battle":
            added -= e["attacker_losses"] + e["defender_losses"]
    return added


def check_invariants(game: Game, armies_expected: int) -> None:
    s = game.state
    board = game.board
    if s.phase not in (CLAIM,):
        assert set(s.owners) == set(board.territory_ids)
    for t, owner in s.owners.items():
        assert s.armies[t] >= 1, t
        assert owner == -1 or 0 <= owner < len(s.players)
    # Every army on the board is accounted for by the events.
    assert sum(s.armies.values()) == armies_expected
    # Cards are conserved once the deck is in play.
    if s.turn >= 1 and s.settings.cards != "none":
        cards = s.deck + s.discard + [c for h in s.hands.values() for c in h]
        assert len(cards) == 44 and len(set(cards)) == 44


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 6), deployment=st.sampled_from(["claim", "deal", "auto"]),
       cards=st.sampled_from(["escalating", "fixed", "none"]), fortify=st.sampled_from(["adjacent", "connected"]),
       batch=st.integers(1, 4), seed=st.text(min_size=1, max_size=8), data=st.data())
def test_random_play_keeps_invariants_and_replays(players, deployment, cards, fortify, batch, seed, data):
    game, events = Game.new([f"P{i}" for i in range(players)], seed,
                            {"deployment": deployment, "cards": cards, "fortify": fortify, "setup_batch": batch})
    armies = army_delta(events)
    for _ in range(data.draw(st.integers(20, 300))):
        if game.state.phase == OVER:
            break
        action = candidate(game, data)
        before = game.state.to_dict()
        try:
            new = game.apply(action)
        except RuleError as exc:
            assert game.state.to_dict() == before, f"{action} changed the state although refused: {exc}"
            assert str(exc)
        else:
            events += new
            armies += army_delta(new)
        check_invariants(game, armies)
    replayed = Game.from_events(events, seed=game.state.seed)
    assert replayed.state.to_dict() == game.state.to_dict()


@settings(max_examples=25, deadline=None)
@given(seed=st.text(min_size=1, max_size=10), players=st.integers(3, 6))
def test_state_serialises_to_json_and_back(seed, players):
    import json

    from engine import GameState
    game, _ = Game.new([f"P{i}" for i in range(players)], seed, {"deployment": "auto"})
    ai = make_ai("normal")
    for _ in range(50):
        if game.state.phase == OVER:
            break
        game.apply(ai.choose(game, game.state.current))
    text = json.dumps(game.state.to_dict())
    assert GameState.from_dict(json.loads(text)).to_dict() == game.state.to_dict()


def test_setup_phases_accept_only_setup_actions():
    game, _ = Game.new(["A", "B", "C"], "x", {"deployment": "deal"})
    assert game.state.phase == SETUP
    for action in (EndTurn(game.state.current), Attack(game.state.current, "alaska", "kamchatka"),
                   Claim(game.state.current, "alaska")):
        before = game.state.to_dict()
        try:
            game.apply(action)
        except RuleError:
            pass
        else:  # pragma: no cover - a failure path
            raise AssertionError(f"{action} accepted during setup")
        assert game.state.to_dict() == before
