"""The phone view: army numbers and names read at phone width, on the classic map and on custom maps up to the
largest allowed; the window over what matters; the "+N" tag as a territory's net gain; the end of a game drawn
whole. Legibility is checked from the renderer's own layout (font sizes and the crop's scale), not by eye."""

from __future__ import annotations

import math

import mapdraw
import pytest
from conftest import new_game, position

from engine import Game
from mapfiles import install, load_package
from render import render_phone
from render.labels import ENGLISH
from render.mapview import net_change
from render.phone import MIN_NAME_PX, MIN_NUMBER_PX, OUTPUT_WIDTH, PHONE_WIDTH, PhoneLayout, choose_window
from render.seats import turn_order
from render.sprites import digit_height
from render.style import font


def assert_legible(layout: PhoneLayout) -> None:
    """Every army number's digits and every name's capitals, shown 400 px wide, at least the minimum."""
    assert layout.size[0] == OUTPUT_WIDTH
    heights = layout.number_heights()
    assert heights, "no army number drawn"
    smallest = min(heights.values())
    assert layout.shown(smallest) >= MIN_NUMBER_PX, (smallest, layout)
    assert layout.shown(layout.name_height()) >= MIN_NAME_PX
    # The "+N" tags' digits too.
    assert layout.shown(digit_height(font(layout.mark_font, bold=True))) >= MIN_NUMBER_PX
    # The check is made at the size drawn: the badge's number font grows with the crop's scale.
    assert all(size >= 12 for size in layout.numbers.values())


def big_armies(game: Game) -> Game:
    """Counts of one, two and three digits, so the smallest font a badge takes is drawn."""
    for n, tid in enumerate(game.board.territory_ids):
        game.state.armies[tid] = (1, 27, 348)[n % 3]
    return game


def focus_of_seat(game: Game, seat: int) -> dict[str, float]:
    own = [t for t, o in game.state.owners.items() if o == seat]
    return {**{n: 0.5 for t in own for n in game.board.neighbours(t)}, **dict.fromkeys(own, 1.0)}


def test_the_phone_view_of_the_classic_map_reads_at_phone_width():
    game = big_armies(new_game(4))
    img, layout = render_phone(game.state, focus=focus_of_seat(game, 0))
    assert img.size == layout.size
    assert_legible(layout)
    x0, y0, x1, y1 = layout.crop
    assert x1 - x0 < 1600 / 3 and abs((x1 - x0) / (y1 - y0) - 4 / 3) < 0.02   # a window, not the map
    assert layout.shown(layout.size[1]) <= 300                                   # 400 x 300 on a phone


def test_the_whole_map_shown_at_phone_width_does_not_read():   # why the phone view exists
    from render.sprites import number_font

    for text in ("7", "27", "348"):
        height = digit_height(number_font("circle", text, 34))
        assert height * PHONE_WIDTH / 1600 < MIN_NUMBER_PX


@pytest.mark.parametrize(("cells", "territories"), [((5, 5), 100), ((8, 5), 160), ((10, 5), 200)])
def test_the_phone_view_reads_on_custom_maps_up_to_the_largest(cells, territories):
    world = mapdraw.draw_world(blocks=(2, 2), cells=cells, size=(1600, 1000), seed=5)
    blob, files = mapdraw.our_files(world)
    pkg = load_package(blob, files)
    install(pkg)
    assert len(pkg.board.territory_ids) == territories
    game = big_armies(Game.new([f"P{i}" for i in range(8)], "seed", {"map": pkg.id, "deployment": "auto"})[0])
    _, layout = render_phone(game.state, focus=focus_of_seat(game, 0))
    assert_legible(layout)


def test_the_window_holds_the_last_battle_and_most_of_the_player():
    game = position(new_game(3), dict.fromkeys(("peru", "brazil", "argentina", "venezuela"), 0),
                    {"brazil": 9, "north_africa": 3}, default_owner=1)
    focus = {"brazil": 8.0, "north_africa": 8.0, **dict.fromkeys(("peru", "argentina", "venezuela"), 1.0),
             "kamchatka": 0.5}
    _, layout = render_phone(game.state, focus=focus)
    from render.geometry import load_geometry

    geo = load_geometry()
    x0, y0, x1, y1 = layout.crop
    for tid in ("brazil", "north_africa"):
        x, y = geo.territories[tid].anchor
        assert x0 < x < x1 and y0 < y < y1, tid
    kx, _ = geo.territories["kamchatka"].anchor
    assert not x0 < kx < x1


def test_choose_window_stays_inside_the_map_and_picks_the_heaviest_cluster():
    points = [((100, 100), 1.0), ((120, 130), 1.0), ((1500, 700), 5.0)]
    x, y = choose_window(points, 400, 300, (1600, 785))
    assert 0 <= x <= 1200 and 0 <= y <= 485
    assert x < 1500 < x + 400 and y < 700 < y + 300
    assert choose_window([], 400, 300, (1600, 785)) == (600, 242.5)


def test_a_plus_tag_is_the_net_gain_not_the_inflow():
    events = [{"type": "armies_placed", "seat": 0, "territory": "brazil", "count": 14, "source": "reinforcements"},
              {"type": "battle", "seat": 0, "from": "brazil", "to": "north_africa", "defender": 1,
               "attacker_dice": [1, 1, 1], "defender_dice": [6, 6], "attacker_losses": 12, "defender_losses": 0,
               "roll_index": 0, "rolls": 5}]
    assert net_change(events)["brazil"] == 2
    conquered = [*events[:1],
                 {"type": "territory_conquered", "seat": 0, "from": "brazil", "to": "north_africa", "defender": 1,
                  "min_move": 3},
                 {"type": "occupied", "seat": 0, "from": "brazil", "to": "north_africa", "count": 5}]
    change = net_change(conquered)
    assert change["north_africa"] == 5 and change["brazil"] == 9
    undone = [events[0], {"type": "placements_undone", "seat": 0, "placements": {"brazil": 14}, "armies": 14}]
    assert net_change(undone)["brazil"] == 0
    fortified = [{"type": "fortified", "seat": 0, "from": "peru", "to": "brazil", "count": 4}]
    assert net_change(fortified) == {"brazil": 4, "peru": -4}


def test_the_map_shows_the_net_gain_beside_a_territory():
    from render import render_map

    game = position(new_game(2), {"brazil": 0}, {"brazil": 3})
    battle = {"type": "battle", "seat": 0, "from": "brazil", "to": "north_africa", "defender": 1,
              "attacker_dice": [1, 1, 1], "defender_dice": [6, 6], "attacker_losses": 12, "defender_losses": 0,
              "roll_index": 0, "rolls": 5}
    placed = {"type": "armies_placed", "seat": 0, "territory": "brazil", "count": 14, "source": "reinforcements"}
    shown = render_map(game.state, highlight_events=[placed, battle])
    two = render_map(game.state, highlight_events=[{**placed, "count": 2}, {**battle, "attacker_losses": 0}])
    fourteen = render_map(game.state, highlight_events=[placed, {**battle, "attacker_losses": 0}])
    assert shown.tobytes() == two.tobytes()          # "+2", as the board changed
    assert shown.tobytes() != fourteen.tobytes()     # not "+14", the armies placed


def test_a_finished_game_is_drawn_whole_even_when_the_phone_view_is_asked():
    from engine.simulate import play_game
    from present.drawing import PHONE, WHOLE, prepare

    result = play_game(["easy", "easy"], "phone-end", {"max_rounds": 2})
    assert result.game.state.phase == "over"
    assert prepare(result.game.state, None, kind=PHONE).kind == WHOLE
    running = new_game(2)
    job = prepare(running.state, None, kind=PHONE)
    assert job.kind == PHONE and job.focus


@pytest.mark.parametrize("language", ["en", "nb", "es"])
def test_how_the_game_was_won_is_never_cut_off(language):
    from present.i18n import map_labels
    from render.panel import WINNER_WORDS, fit_lines

    words = map_labels(language).word
    # The status box's room for it on the 1600 px map, beside three columns of players and beside four.
    for width, template in [(w, t) for w in (466, 368) for t in [*WINNER_WORDS.values(), "{winner} rules the world"]]:
        text = words(template, winner="Alejandra la Conquistadora")
        size, lines = fit_lines(text, width)
        assert " ".join(lines) == text and len(lines) <= 2, lines      # every word, no "…"
        assert all(font(size, bold=True).getlength(line) <= width for line in lines)


def test_the_phone_view_carries_a_colour_key_of_the_players():
    """Each player still in the game, in turn order, with their badge shape in their colour and their name,
    along the bottom edge; the focus stays above it. A player knocked out is left off."""
    from render.geometry import load_geometry
    from render.phone import key_entries
    from render.seats import seat_colour

    game = new_game(5)
    game.state.eliminated.append(4)
    focus = focus_of_seat(game, 0)
    img, layout = render_phone(game.state, focus=focus)
    x0, y0, x1, y1 = layout.key
    assert (x0, x1, y1) == (0, img.width, img.height) and 40 <= y1 - y0 <= 100
    entries = key_entries(game.state, ENGLISH)
    assert [seat for seat, _ in entries] == [s for s in turn_order(game.state) if s != 4]
    band = img.crop(layout.key)
    colours = {c for _, c in band.getcolors(1 << 16)}
    for seat, _ in entries:
        assert seat_colour(seat, game.state) in colours, seat
    assert seat_colour(4, game.state) not in colours
    # The names' letters: light pixels in the key, right of each badge.
    assert sum(n for n, c in band.getcolors(1 << 16) if min(c) > 230) > 400
    geo = load_geometry()
    frame_y = [(geo.territories[t].anchor[1] - layout.crop[1]) * layout.scale for t, w in focus.items()
               if w >= 1 and layout.crop[0] < geo.territories[t].anchor[0] < layout.crop[2]
               and layout.crop[1] < geo.territories[t].anchor[1] < layout.crop[3]]
    assert frame_y and min(frame_y) < y0


def test_the_last_battles_arrow_is_drawn_over_names_and_never_a_stub():
    """Between the two nearest neighbours of the board the arrow is still long and thick enough to see, and it
    runs over the names (the scene's arrow passes behind them, and is hidden there)."""
    from render.geometry import load_geometry
    from render.phone import ARROW_HEAD, ARROW_WIDTH
    from render.style import ATTACK_ARROW

    geo = load_geometry()
    pairs = [(a, b) for a in game_board().territory_ids for b in game_board().neighbours(a)]
    a, b = min(pairs, key=lambda p: math.dist(geo.territories[p[0]].anchor, geo.territories[p[1]].anchor))
    game = position(new_game(2), {a: 0}, {a: 6, b: 2}, default_owner=1)
    ev = [{"type": "battle", "seat": 0, "from": a, "to": b, "defender": 1, "attacker_dice": [6, 5, 1],
           "defender_dice": [4, 2], "attacker_losses": 0, "defender_losses": 2}]
    img, layout = render_phone(game.state, focus={a: 8.0, b: 8.0}, highlight_events=ev)
    assert len(layout.arrows) == 1
    x0, y0, x1, y1 = layout.arrows[0]
    assert math.hypot(x1 - x0, y1 - y0) >= 2 * ARROW_HEAD
    # Its body in its own colour at the middle of its run, ARROW_WIDTH wide there.
    mx, my = round((x0 + x1) / 2), round((y0 + y1) / 2)
    cream = [(x, y) for x in range(mx - 8, mx + 9) for y in range(my - 8, my + 9)
             if sum(abs(u - v) for u, v in zip(img.getpixel((x, y)), ATTACK_ARROW, strict=True)) < 30]
    assert len(cream) >= ARROW_WIDTH * 6


def game_board():
    return new_game(2).board


def test_an_ai_turns_picture_holds_every_territory_that_changed_hands():
    """An AI took three territories far apart: the phone view of its turn widens to hold all three (legible or
    not: what changed hands is what its victims most need to see), and outlines each."""
    from engine.fog import EVERYBODY
    from present.drawing import PHONE, prepare
    from render.geometry import load_geometry

    taken = ("brazil", "kamchatka", "western_australia")
    game = position(new_game(3), dict.fromkeys(taken, 1), default_owner=0, seat=2)
    ev = [{"type": "territory_conquered", "seat": 1, "from": t, "to": t, "defender": 0, "min_move": 1}
          for t in taken]
    job = prepare(game.state, EVERYBODY, ev, kind=PHONE)
    img, layout = render_phone(job.view, focus=dict(job.focus), highlight_events=list(job.highlight))
    plain, _ = render_phone(job.view, focus=dict(job.focus))
    geo = load_geometry()
    x0, y0, x1, y1 = layout.crop
    for tid in taken:
        x, y = geo.territories[tid].anchor
        assert x0 < x < x1 and y0 < y < y1, (tid, layout.crop)
        ix, iy = round((x - x0) * layout.scale), round((y - y0) * layout.scale)
        box = (max(0, ix - 60), max(0, iy - 60), min(img.width, ix + 60), min(img.height, iy + 60))
        assert img.crop(box).tobytes() != plain.crop(box).tobytes(), tid   # its outline
    # One conquest alone keeps the legible window.
    one = prepare(game.state, EVERYBODY, ev[:1], kind=PHONE)
    _, small = render_phone(one.view, focus=dict(one.focus), highlight_events=list(one.highlight))
    assert_legible(small)
