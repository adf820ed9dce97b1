"""Capitals are shown on the map (mode capitals)."""

from __future__ import annotations

from engine import Game
from engine.simulate import play_game
from render import render_map
from render.base import static_layers


def test_capitals_are_marked_next_to_their_badge():
    result = play_game(["normal"] * 3, "capitals-on-map", {"mode": "capitals", "deployment": "auto"})
    chosen = next(i for i, e in enumerate(result.events) if e["type"] == "turn_started")
    game = Game.from_events(result.events[: chosen + 1], seed=result.game.state.seed)
    assert len(game.state.capitals) == 3
    marked = render_map(game.state)
    game.state.capitals = {}
    plain = render_map(game.state)
    geo = static_layers(game.board).geometry
    for territory in dict.fromkeys(Game.from_events(result.events[: chosen + 1]).state.capitals.values()):
        x, y = geo.territories[territory].anchor
        box = (max(0, x - 40), max(0, y - 32), x, y)
        assert marked.crop(box).tobytes() != plain.crop(box).tobytes(), territory
