"""The map renderer draws real game states: every badge in place and in its owner's colour, nothing
overlapping, fog hiding what it should, the same picture every time."""

from __future__ import annotations

import io
import threading
from collections import Counter
from functools import cache

import pytest
from PIL import Image, ImageChops, ImageDraw

from engine import NEUTRAL, Game, load_map
from engine.ai import choose_action
from render import encode_png, render_map
from render import style as st
from render.base import static_layers
from render.geometry import load_geometry
from render.layout import layout_boxes, overlaps
from render.replay import last_action, visible_to
from render.seats import fill_colour, seat_colour

BOARD = load_map("classic")
NAMES = ["Anna", "Bjørn", "Çelik", "Dána", "Émile", "Fríða"]


def play(players: int, seed: str, until_turn: int | None = None, settings: dict | None = None,
         ) -> tuple[Game, list[dict]]:
    game, events = Game.new([(n, "normal") for n in NAMES[:players]], seed, settings or {})
    while not game.over and (until_turn is None or game.state.turn < until_turn):
        events += game.apply(choose_action(game, game.state.current, "normal"))
    return game, events


@pytest.fixture(scope="module")
def midgame() -> tuple[Game, list[dict]]:
    return play(6, "render-mid", until_turn=12)


@pytest.fixture(scope="module")
def two_player() -> tuple[Game, list[dict]]:
    return play(2, "render-two", until_turn=5)


@pytest.fixture(scope="module")
def finished() -> tuple[Game, list[dict]]:
    game, events = play(4, "render-end")
    assert game.over
    return game, events


def pixels_of(img: Image.Image, box: tuple[int, int, int, int]) -> Counter:
    return Counter({colour: n for n, colour in img.crop(box).getcolors(1 << 16)})


def assert_badges(img: Image.Image, state, hidden: frozenset[str] = frozenset()) -> None:
    geo = load_geometry()
    for tid, shape in geo.territories.items():
        x, y = shape.anchor
        inner = pixels_of(img, (x - 8, y - 8, x + 9, y + 9))
        if tid in hidden:
            assert inner[st.FOG_BADGE] >= 20, tid
            for seat in range(6):
                assert inner[seat_colour(seat)] == 0, tid
            continue
        owner = state.owners[tid]
        assert inner[seat_colour(owner)] >= 20, f"{tid}: no badge in {owner}'s colour at {shape.anchor}"
        others = [s for s in [*range(6), NEUTRAL] if seat_colour(s) != seat_colour(owner)]
        for s in others:
            assert inner[seat_colour(s)] == 0, f"{tid}: badge shows seat {s}'s colour"


@cache
def pure_fill_pixel(tid: str) -> tuple[int, int]:
    """A pixel of a territory that shows nothing but its fill (no border, name or badge) when nothing is
    highlighted."""
    layers = static_layers(BOARD)
    geo = layers.geometry
    shape = geo.territories[tid]
    values = Image.frombytes("L", layers.index.size, layers.index.tobytes())
    values = values.crop((0, 0, geo.width, geo.height))
    own = values.point(lambda v: 255 if v == shape.value else 0)
    busy = Image.new("L", own.size, 0)
    draw = ImageDraw.Draw(busy)
    for b in layout_boxes(geo.raw, BOARD):
        x0, y0, x1, y1 = b.box
        draw.rectangle((x0 - 2, y0 - 2, x1 + 2, y1 + 2), fill=255)
    free = ImageChops.subtract(own, busy)
    box = free.getbbox()
    assert box is not None, f"no plain pixel in {tid}"
    x0, y0, x1, y1 = box
    for y in range(y0, y1):
        for x in range(x0, x1):
            if free.getpixel((x, y)):
                return x, y
    raise AssertionError(tid)


def test_image_is_the_map_above_the_panel(midgame):
    game, _ = midgame
    img = render_map(game.state)
    geo = load_geometry()
    assert img.mode == "RGB"
    assert img.size == (1600, geo.height + st.PANEL_HEIGHT)
    assert geo.width == 1600 and 700 < geo.height < 900


def test_setup_board_before_any_claim_has_no_badges():
    game, _ = Game.new([(n, "normal") for n in NAMES[:3]], "render-setup", {})
    img = render_map(game.state)
    geo = load_geometry()
    for tid in BOARD.territory_ids:
        x, y = pure_fill_pixel(tid)
        assert img.getpixel((x, y)) == st.UNOWNED_COLOUR
        ax, ay = geo.territories[tid].anchor
        assert not any(pixels_of(img, (ax - 8, ay - 8, ax + 9, ay + 9))[seat_colour(s)] for s in range(6))


def test_dealt_setup_shows_every_badge_in_its_owners_colour():
    game, _ = Game.new([(n, "normal") for n in NAMES[:4]], "render-deal", {"deployment": "deal"})
    assert len(game.state.owners) == 42
    assert_badges(render_map(game.state), game.state)


def test_midgame_six_players_every_badge_and_fill(midgame):
    game, events = midgame
    state = game.state
    assert len(set(state.owners.values())) >= 3
    assert_badges(render_map(state, highlight_events=last_action(events)), state)
    img = render_map(state)
    for tid in BOARD.territory_ids:
        assert img.getpixel(pure_fill_pixel(tid)) == fill_colour(state.owners[tid]), tid


def test_two_players_with_neutral(two_player):
    game, events = two_player
    state = game.state
    assert NEUTRAL in state.owners.values()
    assert_badges(render_map(state, highlight_events=last_action(events)), state)
    neutral = [t for t, s in state.owners.items() if s == NEUTRAL]
    assert render_map(state).getpixel(pure_fill_pixel(neutral[0])) == fill_colour(NEUTRAL)


def test_fog_hides_owner_and_count_of_unseen_territories(midgame):
    game, events = midgame
    state = game.state
    viewer = next(s for s in range(6) if s not in state.eliminated and state.territories_of(s))
    visible = visible_to(state, viewer)
    assert visible and len(visible) < 42
    hidden = frozenset(BOARD.territory_ids) - visible
    assert_badges(render_map(state, highlight_events=last_action(events), viewer=viewer, visible=visible),
                  state, hidden)
    img = render_map(state, viewer=viewer, visible=visible)
    for tid in hidden:
        assert img.getpixel(pure_fill_pixel(tid)) == st.FOG_COLOUR
    for tid in visible:
        assert img.getpixel(pure_fill_pixel(tid)) == fill_colour(state.owners[tid])


def test_finished_game(finished):
    game, events = finished
    img = render_map(game.state, highlight_events=last_action(events))
    assert_badges(img, game.state)
    assert set(game.state.owners.values()) == {game.state.winner}


def test_layout_nothing_overlaps_and_all_inside_the_map():
    geo = load_geometry()
    boxes = layout_boxes(geo.raw, BOARD)
    assert len([b for b in boxes if b.kind == "badge"]) == 42
    assert len([b for b in boxes if b.kind == "label"]) == 42
    assert len([b for b in boxes if b.kind == "continent"]) == 6
    for b in boxes:
        x0, y0, x1, y1 = b.box
        assert 0 <= x0 < x1 <= geo.width and 0 <= y0 < y1 <= geo.height, b
    clashes = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if overlaps(a.box, b.box)]
    assert clashes == []


def test_anchors_lie_inside_their_territory():
    geo = load_geometry()
    for shape in geo.territories.values():
        assert geo.label.getpixel(shape.anchor) == shape.value


def test_same_state_same_picture(midgame):
    game, events = midgame
    a = render_map(game.state, highlight_events=last_action(events))
    b = render_map(game.state, highlight_events=last_action(events))
    assert a.tobytes() == b.tobytes()
    assert encode_png(a) == encode_png(b)


def test_renders_in_parallel_threads_match(midgame, two_player):
    states = [midgame[0].state, two_player[0].state] * 4
    expected = [render_map(s).tobytes() for s in states]
    results: list[bytes | None] = [None] * len(states)

    def work(i: int) -> None:
        results[i] = render_map(states[i]).tobytes()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(states))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == expected


def test_last_battle_is_drawn(midgame):
    game, _ = midgame
    state = game.state
    geo = load_geometry()
    src = next(t for t, s in state.owners.items() if s == state.current)
    dst = next(n for n in BOARD.neighbours(src) if state.owners[n] != state.current)
    battle = {"type": "battle", "seat": state.current, "from": src, "to": dst, "defender": state.owners[dst],
              "attacker_dice": [6, 5, 3], "defender_dice": [6, 2], "attacker_losses": 1, "defender_losses": 1}
    plain = render_map(state)
    img = render_map(state, highlight_events=[battle])
    (ax, ay), (bx, by) = geo.territories[src].anchor, geo.territories[dst].anchor
    if abs(ax - bx) < geo.width / 2:
        mid = ((ax + bx) // 2, (ay + by) // 2)
        near = pixels_of(img, (mid[0] - 3, mid[1] - 3, mid[0] + 4, mid[1] + 4))
        assert near[st.ATTACK_ARROW] > 0
    # The dice appear in the panel: the panel differs from the one without a battle.
    panel = (0, geo.height, geo.width, img.height)
    assert img.crop(panel).tobytes() != plain.crop(panel).tobytes()


def test_placements_are_marked(midgame):
    game, _ = midgame
    state = game.state
    tid = next(t for t, s in state.owners.items() if s == state.current)
    x, y = load_geometry().territories[tid].anchor
    plain = render_map(state)
    placed = {"type": "armies_placed", "seat": state.current, "territory": tid, "count": 3}
    img = render_map(state, highlight_events=[placed])
    box = (x, y - 40, x + 60, y)
    assert img.crop(box).tobytes() != plain.crop(box).tobytes()


def test_png_is_small_and_decodes(midgame):
    game, events = midgame
    img = render_map(game.state, highlight_events=last_action(events))
    data = encode_png(img)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) < 300_000
    back = Image.open(io.BytesIO(data))
    assert back.size == img.size
    exact = Image.open(io.BytesIO(encode_png(img, quantize=False))).convert("RGB")
    assert exact.tobytes() == img.tobytes()


@pytest.mark.parametrize("char", list("æøåñáéÆØÅÑÁÉçðþ"))
def test_font_has_nordic_and_spanish_letters(char):
    notdef = st.font(24, bold=True).getmask("\ue000").getbbox()
    for bold in (False, True):
        mask = st.font(24, bold=bold).getmask(char)
        assert mask.getbbox() is not None
        ref = st.font(24, bold=bold).getmask("\ue000")
        assert bytes(mask) != bytes(ref) or mask.getbbox() != notdef


def test_command_line_renders_a_log_and_a_small_timelapse(tmp_path, finished):
    import json

    from render.__main__ import main

    _, events = finished
    log = tmp_path / "game.jsonl"
    log.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8")
    assert main([str(log), "--out", str(tmp_path / "out"), "--timelapse"]) == 0
    assert main([str(log), "--out", str(tmp_path / "out"), "--turn", "3", "--viewer", "1"]) == 0
    final = Image.open(tmp_path / "out" / "map-final.png")
    assert final.size == (1600, load_geometry().height + st.PANEL_HEIGHT)
    assert (tmp_path / "out" / "map-turn-003.png").stat().st_size < 300_000
    movie = tmp_path / "out" / "timelapse.webp"
    assert movie.stat().st_size < 10_000_000
    assert Image.open(movie).n_frames > 2


def test_last_action_picks_one_attack():
    events = [
        {"type": "armies_placed", "seat": 0, "territory": "alaska", "count": 3},
        {"type": "battle", "seat": 0, "from": "alaska", "to": "kamchatka",
         "attacker_dice": [3], "defender_dice": [4]},
        {"type": "battle", "seat": 0, "from": "alaska", "to": "alberta",
         "attacker_dice": [6], "defender_dice": [1]},
        {"type": "battle", "seat": 0, "from": "alaska", "to": "alberta",
         "attacker_dice": [6], "defender_dice": [2]},
        {"type": "territory_conquered", "seat": 0, "from": "alaska", "to": "alberta", "defender": 1},
        {"type": "occupied", "seat": 0, "from": "alaska", "to": "alberta", "count": 2},
        {"type": "card_drawn", "seat": 0, "card": "peru"},
    ]
    assert [e["type"] for e in last_action(events)] == ["battle", "battle", "territory_conquered", "occupied"]
    assert last_action(events[:1]) == events[:1]


def test_geometry_matches_the_board_borders():
    """Neighbours touch on land or have a drawn crossing; territories that touch are neighbours."""
    geo = load_geometry()
    w = geo.width
    px = geo.label.tobytes()
    touching: set[tuple[int, int]] = set()
    for i in range(len(px) - w - 1):
        a = px[i]
        if a:
            for b in (px[i + 1], px[i + w]):
                if b and b != a:
                    touching.add((min(a, b), max(a, b)))
    value = {tid: s.value for tid, s in geo.territories.items()}
    crossings = {frozenset((a, b)) for a, b, _ in geo.sea_routes}
    assert {frozenset(p) for p in BOARD.sea_routes} <= crossings
    for t in BOARD.territories.values():
        for n in t.neighbours:
            pair = (min(value[t.id], value[n]), max(value[t.id], value[n]))
            assert pair in touching or frozenset((t.id, n)) in crossings, (t.id, n)
    names = {v: k for k, v in value.items()}
    for a, b in touching:
        assert names[b] in BOARD.neighbours(names[a]), (names[a], names[b])
