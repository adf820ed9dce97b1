"""Capitals are shown on the map (mode capitals)."""

from __future__ import annotations

from engine import Game
from engine.simulate import play_game
from render import render_map
from render.base import static_layers


def test_capitals_are_marked_next_to_their_badge():
    """A star at each capital's badge (on its upper left when that hides no name), and none over a word."""
    from PIL import ImageChops

    result = play_game(["normal"] * 3, "capitals-on-map", {"mode": "capitals", "deployment": "auto"})
    chosen = next(i for i, e in enumerate(result.events) if e["type"] == "turn_started")
    game = Game.from_events(result.events[: chosen + 1], seed=result.game.state.seed)
    assert len(game.state.capitals) == 3
    capitals = list(dict.fromkeys(game.state.capitals.values()))
    marked = render_map(game.state)
    game.state.capitals = {}
    plain = render_map(game.state)
    layers = static_layers(game.board)
    geo = layers.geometry
    diff = ImageChops.difference(marked, plain).convert("L").point(lambda v: 255 if v else 0)
    near = []
    for territory in capitals:
        x, y = geo.territories[territory].anchor
        box = (max(0, x - 50), max(0, y - 45), x + 50, y + 45)
        assert diff.crop(box).getbbox() is not None, territory
        near.append(box)
    # Nothing changed anywhere else, and no star covers a name, a continent name or the legend.
    rest = diff.copy()
    for box in near:
        rest.paste(0, box)
    assert rest.crop((0, 0, geo.width, geo.height)).getbbox() is None
    for b in layers.layout.boxes:
        if b.kind in ("label", "continent", "legend"):
            assert diff.crop(b.box).getbbox() is None, b
    # Where there is room, the star sits on the badge's upper left as before.
    upper_left = 0
    for territory in capitals:
        x, y = geo.territories[territory].anchor
        if diff.crop((max(0, x - 40), max(0, y - 32), x, y)).getbbox() is not None:
            upper_left += 1
    assert upper_left >= 1


def test_teammates_share_a_family_of_shades():
    from render import style
    from render.seats import seat_colour

    result = play_game(["normal"] * 4, "team-colours", {"teams": "2v2", "deployment": "auto"})
    state = Game.from_events(result.events[:80], seed=result.game.state.seed).state
    families = [set(shades) for shades in style.TEAM_SHADES]
    colours = {seat: seat_colour(seat, state) for seat in range(4)}
    assert len(set(colours.values())) == 4                      # everybody still has their own colour
    for seat, colour in colours.items():
        assert colour in families[state.teams[seat]]            # ... in their team's family
    teamed = render_map(state)
    seat = next(s for s in range(4) if colours[s] != style.PLAYER_COLOURS[s])   # a shade, not the usual colour
    territory = next(t for t, owner in state.owners.items() if owner == seat)
    state.teams = {}
    plain = render_map(state)
    x, y = static_layers(Game.from_events(result.events[:1]).board).geometry.territories[territory].anchor
    box = (x - 20, y - 20, x + 20, y + 20)
    assert teamed.crop(box).tobytes() != plain.crop(box).tobytes()
