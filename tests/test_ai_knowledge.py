"""The AI knows only what its seat may know: what it cannot see never changes its choice."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine import Game
from engine.ai import Recollection, make_ai, seat_view
from engine.fog import friends_of, state_for, visible_territories, visible_to
from engine.state import NEUTRAL, OVER, SETUP, GameState, Player, apply_event, initial_state
from table import Limits, Table

LEVELS = ("easy", "normal", "hard", "random", "cautious")
DECISIONS = 60


def played(mode: str, fog: str, seed: int, actions: int, seats: int = 3) -> tuple[Game, Recollection]:
    """A game of AIs some actions in, with every seat's memory of what it saw (two players: and the neutral; four:
    in two teams)."""
    levels = ("normal", "easy", "normal", "easy")[:seats]
    players = [Player(i, f"P{i}", "ai", level) for i, level in enumerate(levels)]
    settings_ = {"mode": mode, "fog": fog, "cards": "escalating", "deployment": "claim" if seed % 2 else "auto"}
    if seats == 4:
        settings_["teams"] = "2v2"
    game, events = Game.new(players, f"knowledge:{seed}", settings_)
    seen = Recollection.of_log(events)
    ais = [make_ai(p.level or "normal", salt=str(p.seat)) for p in players]
    for _ in range(actions):
        if game.state.phase == OVER:
            break
        seat = game.state.current
        seen.follow(game.apply(ais[seat].choose(game, seat, seen.memory(seat))))
    return game, seen


def with_other_secrets(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The state with everything ``seat`` cannot know drawn at random: the owners and armies of the territories
    out of its sight, the other players' cards (as many each), their missions, the deck's order, the dice seed."""
    out = state.copy()
    friends = friends_of(state, seat)
    shown = visible_to(state, seat)
    others = [p.seat for p in state.players if p.seat not in friends and p.seat in state.active_seats()]
    # A two-player setup's menu shows where the neutral armies may go: which territories are neutral it knows.
    setup = state.phase == SETUP
    if state.two_player and not setup:
        others.append(NEUTRAL)
    if shown is not None and others:
        for t in state.owners:
            if t not in shown and not (setup and state.owners[t] == NEUTRAL):
                out.owners[t] = rng.choice(others)
                out.armies[t] = rng.randint(1, 30)
        for s, t in state.capitals.items():
            hidden = [x for x in state.owners if x not in shown and s not in friends]
            if t not in shown and hidden:
                out.capitals[s] = rng.choice(hidden)
    pool = [c for s, hand in state.hands.items() if s != seat for c in hand] + list(state.deck)
    rng.shuffle(pool)
    for s, hand in state.hands.items():
        if s != seat:
            out.hands[s] = [pool.pop() for _ in hand]
    out.deck = pool
    missions = [m for s, m in state.missions.items() if s != seat]
    rng.shuffle(missions)
    for s in [s for s in state.missions if s != seat]:
        out.missions[s] = missions.pop()
    out.seed = f"{rng.random()}"
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(["classic", "missions", "capitals"]), fog=st.sampled_from(["on", "on", "off"]),
       seed=st.integers(0, 10_000), actions=st.integers(0, 200), level=st.sampled_from(LEVELS),
       shuffle=st.integers(0, 2**32), seats=st.sampled_from([3, 3, 2, 4]))
# A two-player set-up under fog: a neutral territory out of sight still takes only the turn's neutral army.
@example(mode="classic", fog="on", seed=3, actions=0, level="random", shuffle=0, seats=2)
def test_what_a_seat_cannot_see_never_changes_the_ais_choice(mode, fog, seed, actions, level, shuffle, seats):
    """Some actions into a game, the next decisions of every seat, each with the hidden parts drawn anew."""
    if mode == "missions" and seats == 2:
        mode = "classic"
    game, seen = played(mode, fog, seed, actions, seats)
    rng = random.Random(shuffle)
    ais = {p.seat: make_ai(level, salt=str(p.seat)) for p in game.state.players}
    for _ in range(DECISIONS):
        if game.state.phase == OVER:
            break
        seat = game.state.current
        memory = seen.memory(seat)
        chosen = ais[seat].choose(game, seat, memory)
        game.validate(chosen)  # legal in the real game
        other = Game(with_other_secrets(game.state, seat, rng))
        assert state_for(other.state, seat).to_dict() == state_for(game.state, seat).to_dict()
        assert ais[seat].choose(other, seat, memory) == chosen
        seen.follow(game.apply(chosen))


def test_a_territory_out_of_sight_is_remembered_as_last_seen_and_the_rest_is_unknown():
    game, seen = played("classic", "on", 3, 150)
    seat = game.state.current
    memory = seen.memory(seat)
    view = seat_view(game, seat, memory).state
    shown = visible_to(game.state, seat)
    assert shown is not None
    hidden = set(game.state.owners) - shown
    assert hidden, "the game should have territories out of sight"
    for t in hidden:
        if t in memory.seen:
            assert (view.owners[t], view.armies[t]) == memory.seen[t]
        else:
            assert t not in view.owners and t not in view.armies
    for t in shown:  # in sight: exactly as it is
        assert view.owners.get(t) == game.state.owners.get(t) and view.armies.get(t) == game.state.armies.get(t)
    assert any(t in memory.seen for t in hidden)
    assert all(not h or set(h) == {""} for s, h in view.hands.items() if s != seat)
    assert view.seed == "" and set(view.missions) <= {seat}


@pytest.mark.parametrize("mode", ["classic", "capitals"])
def test_a_recollection_followed_event_by_event_is_what_each_seat_was_shown(mode):
    players = [Player(i, f"P{i}", "ai", "normal") for i in range(3)]
    game, events = Game.new(players, "knowledge:log", {"fog": "on", "mode": mode})
    seen = Recollection.of_log(events)
    ai = make_ai("normal")
    for _ in range(300):
        if game.state.phase == OVER:
            break
        new = game.apply(ai.choose(game, game.state.current, seen.memory(game.state.current)))
        seen.follow(new)
        events += new
    rebuilt = Recollection.of_log(events)
    assert {s: m.seen for s, m in rebuilt.memories.items()} == {s: m.seen for s, m in seen.memories.items()}
    assert rebuilt.event_count == seen.event_count == game.state.event_count
    # What each seat was shown: after every event, the territories in its sight before or after it, as they are.
    state = initial_state(events[0])
    shown: dict[int, dict[str, tuple[int, int]]] = {p.seat: {} for p in players}
    capitals: dict[int, dict[int, str]] = {p.seat: {} for p in players}
    for event in events[1:]:
        before = {s: visible_territories(state, s) for s in shown}
        apply_event(state, event)
        for s, memory in shown.items():
            sight = before[s] | visible_territories(state, s)
            for t in sight:
                if t in state.owners:
                    memory[t] = (state.owners[t], state.armies[t])
                else:
                    memory.pop(t, None)
            capitals[s].update({c: t for c, t in state.capitals.items() if t in sight})
    assert shown == {s: m.seen for s, m in seen.memories.items()}
    assert capitals == {s: m.capitals for s, m in seen.memories.items()}
    assert mode != "capitals" or any(len(c) > 1 for c in capitals.values()), "it saw others' capitals"


async def fog_game_of_ais(store, channel: int, fresh_table_each_step: bool) -> list:
    """A fog game: the host plays two rounds, then leaves their seat to the AI, which plays on with two others."""
    def table() -> Table:
        return Table(store, lambda: 1_000_000.0, lambda: "knowledge-seed", Limits(rounds_without_humans=20))
    first = table()
    lobby = await first.open_lobby(1, channel, 100, "Host", {"fog": "on", "deployment": "auto"})
    game_id = lobby.record.id
    for _ in range(2):
        await first.add_ai(game_id, "normal")
    record = (await first.start(game_id)).record
    while record.game().state.round < 3:
        game = record.game()
        record = (await first.apply(record, make_ai("easy", salt="host").choose(game, game.state.current))).record
    await store.replace_with_ai(game_id, 0)
    current = first
    for _ in range(200):
        if record.status != "running":
            break
        current = table() if fresh_table_each_step else current
        record = (await current.go_on(game_id)).record
    assert record.status == "finished"
    return await store.events(game_id)


async def test_the_table_keeps_each_seats_memory_as_a_restart_rebuilds_it_from_the_log(sqlite_store):
    kept = await fog_game_of_ais(sqlite_store, 10, fresh_table_each_step=False)
    rebuilt = await fog_game_of_ais(sqlite_store, 11, fresh_table_each_step=True)
    assert kept == rebuilt, "the same game, whether the memory was kept or rebuilt from the log after a restart"
