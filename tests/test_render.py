"""The map renderer draws real game states: every badge in place and in its owner's colour, nothing
overlapping, fog hiding what it should, the same picture every time."""

from __future__ import annotations

import copy
import dataclasses
import io
import math
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
    # The log of the first six turns: a timelapse of a few frames is drawn as one of the whole game is.
    events = events[:next(i for i, e in enumerate(events) if e["type"] == "turn_started" and e["turn"] == 7)]
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


# -- every language: words never covered --------------------------------------------------------------
LANGUAGES = ["en", "nb", "es"]
# The legend's words as the catalogs will have them (longer than the English): the layout must make room.
LONG_LEGEND = {"armies just added": "ejércitos recién añadidos", "dice that lost": "dados que perdieron",
               "capital": "capital"}


def labels_for(language: str):
    from present.i18n import map_labels

    if language == "es-long":
        base = map_labels("es")
        return dataclasses.replace(base, key="es-long", words={**base.words, **LONG_LEGEND})
    return map_labels(language)


def word_boxes(language: str) -> list:
    layout = static_layers(BOARD, labels_for(language)).layout
    assert layout is not None
    return [b for b in layout.boxes if b.kind in ("label", "continent", "legend")]


@pytest.mark.parametrize("language", [*LANGUAGES, "es-long"])
def test_no_territory_name_touches_a_continent_name(language):
    layout = static_layers(BOARD, labels_for(language)).layout
    names = layout.of_kind("label")
    continents = layout.of_kind("continent")
    assert len(names) == 42 and len(continents) == 6
    clashes = [(n.owner, c.owner) for n in names for c in continents if overlaps(n.box, c.box)]
    assert clashes == []


@pytest.mark.parametrize("language", [*LANGUAGES, "es-long"])
def test_layout_of_each_language_has_no_overlaps(language):
    geo = load_geometry()
    layout = static_layers(BOARD, labels_for(language)).layout
    boxes = list(layout.boxes)
    assert [b.kind for b in boxes].count("legend") == 1
    for b in boxes:
        x0, y0, x1, y1 = b.box
        assert 0 <= x0 < x1 <= geo.width and 0 <= y0 < y1 <= geo.height, b
    clashes = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if overlaps(a.box, b.box)]
    assert clashes == []


def test_the_stored_layout_alone_would_let_spanish_names_collide():
    """The per-language layout is needed: with the stored (English) positions, a Spanish name runs into the
    continent name of North America."""
    from render import layout as lay

    labels = labels_for("es")
    geo = load_geometry()
    stored = [lay.label_box(labels.short(BOARD, t), info["label"]) for t, info in geo.raw["territories"].items()]
    continents = [lay.continent_box(lay.continent_text(labels.continent(BOARD, c), BOARD.continents[c].bonus), at)
                  for c, at in geo.raw["continent_labels"].items()]
    assert any(overlaps(a, b) for a in stored for b in continents)


@pytest.mark.parametrize("language", LANGUAGES)
def test_names_are_drawn_where_the_layout_says(language):
    img = render_map(Game.new([(n, "normal") for n in NAMES[:3]], "render-setup", {})[0].state,
                     labels=labels_for(language))
    for b in word_boxes(language):
        if b.kind == "label":
            light = sum(n for n, c in img.crop(b.box).getcolors(1 << 16) if min(c) > 225)
            assert light >= 15, f"{b.owner}: no letters in {b.box}"


def letter_pixels(img: Image.Image, boxes: list) -> set[tuple[int, int]]:
    """The light pixels (letters) inside word boxes."""
    out = set()
    for b in boxes:
        x0, y0, x1, y1 = b.box
        crop = img.crop(b.box)
        px = crop.load()
        for y in range(y1 - y0):
            for x in range(x1 - x0):
                if min(px[x, y]) > 200:
                    out.add((x0 + x, y0 + y))
    return out


@pytest.mark.parametrize("language", LANGUAGES)
def test_conquest_outline_passes_behind_names(language, midgame):
    state = midgame[0].state
    labels = labels_for(language)
    plain = render_map(state, labels=labels)
    boxes = word_boxes(language)
    letters = letter_pixels(plain, boxes)
    covered = {}
    for tid in BOARD.territory_ids:
        ev = [{"type": "territory_conquered", "seat": state.owners[tid], "from": tid, "to": tid, "defender": 0}]
        img = render_map(state, highlight_events=ev, labels=labels)
        changed = [p for p in letters if img.getpixel(p) != plain.getpixel(p)]
        if changed:
            covered[tid] = len(changed)
    assert covered == {}


@pytest.mark.parametrize("language", LANGUAGES)
def test_arrows_pass_behind_names(language, midgame):
    """Arrows along every border of the board at once (fortifications draw one each): no letter of a name,
    a continent name or the legend changes."""
    state = midgame[0].state
    labels = labels_for(language)
    plain = render_map(state, labels=labels)
    letters = letter_pixels(plain, word_boxes(language))
    pairs = {tuple(sorted((t, n))) for t in BOARD.territory_ids for n in BOARD.neighbours(t)}
    ev = [{"type": "fortified", "seat": 0, "from": a, "to": b, "count": 0} for a, b in sorted(pairs)]
    img = render_map(state, highlight_events=ev, labels=labels)
    assert img.tobytes() != plain.tobytes()
    assert [p for p in letters if img.getpixel(p) != plain.getpixel(p)] == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_tags_and_capital_stars_cover_no_word(language, midgame):
    """A "+N" tag and a capital star on any territory: neither covers a name, a continent name or the
    legend (and the star and the tag do not cover each other)."""
    from render import layout as lay
    from render import sprites

    state = copy.deepcopy(midgame[0].state)
    labels = labels_for(language)
    boxes = word_boxes(language)
    state.capitals = {}
    plain = render_map(state, labels=labels)
    geo = load_geometry()
    for tid in BOARD.territory_ids:
        state.capitals = {state.owners[tid]: tid}
        ev = [{"type": "armies_placed", "seat": state.owners[tid], "territory": tid, "count": 3}]
        img = render_map(state, highlight_events=ev, labels=labels)
        diff = ImageChops.difference(img, plain).convert("L").point(lambda v: 255 if v else 0)
        changed = diff.getbbox()
        assert changed is not None, tid
        x, y = geo.territories[tid].anchor
        assert changed[0] > x - 70 and changed[2] < x + 70 and changed[1] > y - 60 and changed[3] < y + 60, tid
        for b in boxes:
            assert diff.crop(b.box).getbbox() is None, f"{tid}: a mark covers {b.kind} {b.owner}"
        taken = list(static_layers(BOARD, labels).marks_taken)
        star = lay.place_mark((x, y), sprites.tag("★").size, taken, geo.width, geo.height, "upper left")
        tag = lay.place_mark((x, y), sprites.tag("+3").size, [*taken, (star, 4.0)], geo.width, geo.height)
        assert not overlaps(star, tag), tid


# -- the legend ---------------------------------------------------------------------------------------
def test_legend_words_are_translatable():
    from present.i18n import map_labels
    from render.labels import LEGEND_WORDS, PANEL_WORDS

    assert set(LEGEND_WORDS) <= set(PANEL_WORDS)
    assert set(LEGEND_WORDS) <= set(map_labels("es").words)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("capitals", [True, False])
def test_legend_is_drawn_in_the_corner_over_the_sea(language, capitals, midgame):
    geo = load_geometry()
    layout = static_layers(BOARD, labels_for(language), capitals=capitals).layout
    rows = 3 if capitals else 2          # the capital star only in a game of capitals
    x0, y0, x1, y1 = layout.legend
    assert x0 < 40 and y1 > geo.height - 40                    # lower left corner
    assert 150 < x1 - x0 < 420 and 80 * rows / 3 < y1 - y0 < 130 * rows / 3   # small, but legible rows
    assert geo.label.crop(layout.legend).getbbox() is None       # all sea: it hides no land
    state = copy.deepcopy(midgame[0].state)
    state.settings = dataclasses.replace(state.settings, mode="capitals" if capitals else "classic")
    img = render_map(state, labels=labels_for(language))
    area = img.crop(layout.legend)
    colours = {c: n for n, c in area.getcolors(1 << 16)}
    assert sum(n for c, n in colours.items() if min(c) > 225) > 300 * rows / 3   # white symbols and letters
    assert colours.get(st.SEA, 0) < area.width * area.height / 50     # a box of its own (bare sea only
                                                                       # in its rounded corners)
    # Each row has words to the right of its symbol.
    row_h = (y1 - y0) // rows
    for k in range(rows):
        words = img.crop((x0 + st.LEGEND_PAD + st.LEGEND_ICON, y0 + k * row_h, x1, y0 + (k + 1) * row_h))
        assert sum(n for n, c in words.getcolors(1 << 16) if min(c) > 225) > 40, k


def test_a_game_without_capitals_has_no_star_in_its_legend(midgame):
    from render.base import legend_words

    assert legend_words(False) == ("armies just added", "dice that lost")
    assert legend_words(True) == ("armies just added", "dice that lost", "capital")
    plain = static_layers(BOARD).layout.legend
    assert plain[3] - plain[1] == 2 * st.LEGEND_PAD + 2 * st.LEGEND_ROW - 4      # two rows: no "★ capital"
    state = midgame[0].state
    assert state.settings.mode == "classic"
    with_star = static_layers(BOARD, capitals=True)
    img = render_map(state)
    assert img.crop(with_star.layout.legend).tobytes() != render_map(
        dataclasses.replace(state, settings=dataclasses.replace(state.settings, mode="capitals"))
    ).crop(with_star.layout.legend).tobytes()


def test_legend_speaks_the_maps_language(midgame):
    state = midgame[0].state
    english = render_map(state)
    spanish = render_map(state, labels=labels_for("es-long"))
    legend = static_layers(BOARD, labels_for("es-long")).layout.legend
    assert legend[2] > static_layers(BOARD).layout.legend[2]      # longer words, wider box
    assert english.crop(legend).tobytes() != spanish.crop(legend).tobytes()


# -- teams ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("teams", ["2v2", "3v3", "2v2v2"])
def test_teammates_are_clearly_different_but_one_family(teams):
    from render import sprites
    from render.seats import colour_distance, contrast, lab, seat_shape

    size = {"2v2": 4, "3v3": 6, "2v2v2": 6}[teams]
    state = Game.new([(n, "normal") for n in NAMES[:size]], "team-look", {"teams": teams})[0].state
    colours = {s: seat_colour(s, state) for s in range(size)}
    by_team: dict[int, list[int]] = {}
    for seat, team in state.teams.items():
        by_team.setdefault(team, []).append(seat)
    for mates in by_team.values():
        for i, a in enumerate(mates):
            for b in mates[i + 1:]:
                assert colour_distance(colours[a], colours[b]) >= 25, (a, b)
                assert abs(lab(colours[a])[0] - lab(colours[b])[0]) >= 20, (a, b)   # lightness, too
                assert seat_shape(a) != seat_shape(b)

    def hue(seat: int) -> float:
        _, a, b = lab(colours[seat])
        return math.degrees(math.atan2(b, a))

    def hue_gap(s: int, t: int) -> float:
        d = abs(hue(s) - hue(t)) % 360
        return min(d, 360 - d)

    teams_of = list(by_team.values())
    # One family: every player's hue is nearer to each teammate's than to any other team's.
    for mates in teams_of:
        others = [s for s in colours if s not in mates]
        for a in mates:
            for b in mates:
                if a != b:
                    assert hue_gap(a, b) < min(hue_gap(a, o) for o in others), (a, b)
    for i, mates in enumerate(teams_of):
        for others in teams_of[i + 1:]:
            nearest = min(colour_distance(colours[a], colours[b]) for a in mates for b in others)
            assert nearest >= 30, (mates, others)
    for c in colours.values():
        assert contrast(c, sprites.text_colour_on(c)) >= 4.5, c          # the army numbers read


def test_army_numbers_read_on_every_seat_colour():
    from render import sprites
    from render.seats import contrast

    for c in (*st.PLAYER_COLOURS, st.NEUTRAL_COLOUR, *(s for shades in st.TEAM_SHADES for s in shades)):
        assert contrast(c, sprites.text_colour_on(c)) >= 4.5, c
