"""Random play under every variant: refused actions change nothing, armies are accounted for, the log replays."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    Attack,
    Blitz,
    ChooseCapital,
    EndAttack,
    EndTurn,
    Fortify,
    Game,
    GameState,
    Occupy,
    Place,
    RuleError,
    Surrender,
    public_events_for,
)
from engine.ai import make_ai
from engine.state import OVER

TERRITORIES = Game.new(["a", "b"], "x")[0].board.territory_ids
PLAYERS = {"none": [2, 3, 4, 5, 6], "2v2": [4], "3v3": [6], "2v2v2": [6]}


def candidate(game: Game, draw: st.DataObject):
    s = game.state
    seat = draw.draw(st.sampled_from([s.current, s.current, (s.current + 1) % len(s.players)]))
    kind = draw.draw(st.integers(0, 12))
    if kind <= 4:
        return make_ai(draw.draw(st.sampled_from(["easy", "normal"])), str(seat)).choose(game, s.current)
    t1, t2 = draw.draw(st.sampled_from(TERRITORIES)), draw.draw(st.sampled_from(TERRITORIES))
    n = draw.draw(st.integers(-1, 30))
    options = [ChooseCapital(seat, t1), Place(seat, t1, n), Attack(seat, t1, t2), Blitz(seat, t1, t2, max(n, 1)),
               Occupy(seat, n), EndAttack(seat), Fortify(seat, t1, t2, n), EndTurn(seat)]
    if kind == 12:
        return Surrender(seat)
    return options[(kind - 5) % len(options)]


def placed(events: list[dict]) -> int:
    total = 0
    for e in events:
        if e["type"] == "territory_claimed":
            total += 1
        elif e["type"] == "territories_dealt":
            total += len(e["owners"])
        elif e["type"] == "armies_placed":
            total += e["count"]
        elif e["type"] == "battle":
            total -= e["attacker_losses"] + e["defender_losses"]
    return total


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(["classic", "missions", "capitals"]), teams=st.sampled_from(list(PLAYERS)),
       fortify=st.sampled_from(["adjacent", "connected", "unlimited"]), fog=st.sampled_from(["off", "on"]),
       deployment=st.sampled_from(["deal", "auto"]), seed=st.text(min_size=1, max_size=6), data=st.data())
def test_random_variant_play_keeps_invariants_and_replays(mode, teams, fortify, fog, deployment, seed, data):
    players = data.draw(st.sampled_from(PLAYERS[teams]))
    game, events = Game.new([f"P{i}" for i in range(players)], seed,
                            {"mode": mode, "teams": teams, "fortify": fortify, "fog": fog, "deployment": deployment,
                             "setup_batch": 5})
    armies = placed(events)
    for _ in range(data.draw(st.integers(20, 250))):
        if game.state.phase == OVER:
            break
        action = candidate(game, data)
        before = game.state.to_dict()
        new: list[dict] = []
        try:
            new = game.apply(action)
        except RuleError as exc:
            assert game.state.to_dict() == before, f"{action} changed the state although refused: {exc}"
        else:
            events += new
            armies += placed(new)
        s = game.state
        assert sum(s.armies.values()) == armies
        assert all(a >= 1 for a in s.armies.values())
        if s.teams:  # no territory ever changes hands between teammates
            for e in new:
                if e["type"] == "territory_conquered" and e["defender"] >= 0:
                    assert s.teams[e["seat"]] != s.teams[e["defender"]]
    replayed = Game.from_events(events, seed=game.state.seed)
    assert replayed.state.to_dict() == game.state.to_dict()
    assert GameState.from_dict(json.loads(json.dumps(game.state.to_dict()))).to_dict() == game.state.to_dict()
    for seat in (0, None):
        assert len(public_events_for(events, seat)) == len(events)
