"""The map's words on any map the loader accepts: no name overlaps another name, a badge, a continent name or
the legend; a name with no room is abbreviated or left off, never overlapped; every continent is named on the map
(at sea, or on a plate by its continent) or in the legend; every loop of the layout is bounded by construction
(the spots it tests are counted). Checked from the layout's own boxes, on crowded rectangles without anchors
(``crowdedmaps``) and on the islands of ``mapdraw``; then the legend's corner by what the map's picture prints."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import crowdedmaps
import mapdraw
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from engine import Board
from mapfiles import install, load_package
from render import layout
from render.geometry import Geometry
from render.layout import MapLayout, overlaps
from render.regions import build_geometry, legend_corner

LEGEND = ["armies just added", "dice that lost"]


def lay_out(blob: bytes, files: dict[str, bytes]) -> tuple[Board, Geometry, MapLayout]:
    """The map read by the loader, its geometry and its English layout, as ``render.base`` builds them."""
    pkg = load_package(blob, files)
    geo = build_geometry(pkg.id, pkg.data, pkg.regions, pkg.background)
    board = pkg.board
    texts = {c: layout.continent_text(board.continents[c].name, board.continents[c].bonus) for c in board.continents}

    def legend(cids: Sequence[str] = (), keyed: Sequence[tuple[str, str]] = ()) -> layout.Box:
        words = [*LEGEND, *(texts[c] for c in cids), *(name for _, name in keyed)]
        return layout.legend_rows(words, geo.height, geo.raw["legend"], geo.width, len(LEGEND))[0]

    placed = layout.localise_layout(
        geo.label, geo.raw, {t: board.territories[t].short for t in geo.territories}, texts, legend(),
        geo.badge_size, members={c: board.continents[c].territories for c in board.continents}, legend_naming=legend)
    return board, geo, placed


def assert_readable(board: Board, geo: Geometry, placed: MapLayout) -> None:
    assert placed.tries <= layout.max_tries(len(board.territory_ids), len(board.continents))
    boxes = list(placed.boxes)
    clashes = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:]
               if not a.kind == b.kind == "badge" and overlaps(a.box, b.box)]
    if placed.in_legend:
        # A legend that names more continents than the map's edge has room for may reach over a few badges
        # (drawn over it); never over a word.
        clashes = [(a, b) for a, b in clashes if {a.kind, b.kind} != {"badge", "legend"}]
    assert clashes == []
    for b in boxes:
        if b.kind != "badge":
            x0, y0, x1, y1 = b.box
            assert 0 <= x0 < x1 <= geo.width and 0 <= y0 < y1 <= geo.height, b
    # A name is the territory's, whole or shortened, or the number the legend names, by its territory.
    assert sorted(int(k.removeprefix("#")) for k in placed.keys.values()) == list(range(1, len(placed.keys) + 1))
    for tid, text in placed.texts.items():
        assert text in layout.abbreviations(board.territories[tid].short) or placed.keys.get(tid) == text
        x0, y0, x1, y1 = geo.raw["territories"][tid]["bbox"]
        assert overlaps(layout.label_box(text, placed.labels[tid]),
                        (x0 - layout.REACH, y0 - layout.REACH, x1 + layout.REACH, y1 + layout.REACH)), tid
    # Every continent is named once: on the map or in the legend; a plate over its own continent's box.
    assert set(placed.continents) | set(placed.in_legend) == set(board.continents)
    assert not set(placed.continents) & set(placed.in_legend)
    for b in placed.of_kind("continent"):
        if b.owner in placed.plates:
            values = {geo.territories[t].value for t in board.continents[b.owner].territories}
            mask = geo.label.point([255 if v in values else 0 for v in range(256)])
            assert mask.crop(b.box).getbbox() is not None, b
        else:   # at sea, by its own coast: the land nearest it is its continent's
            assert nearest_land_is_own(geo, board, b.owner, b.box), b


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(count=st.integers(4, 90), height=st.sampled_from([300, 420, 560]), gap=st.integers(0, 3),
       sea=st.sampled_from([0, 0, 30]), groups=st.integers(0, 12), seed=st.integers(0, 10_000),
       slivers=st.booleans(), long_names=st.booleans(), anchors=st.booleans())
def test_no_word_overlaps_another_or_a_badge_on_crowded_maps(count, height, gap, sea, groups, seed, slivers,
                                                              long_names, anchors):
    world = crowdedmaps.crowded(count, size=(1600, height), seed=seed, gap=gap, sea=sea,
                                continents=min(groups, count), slivers=slivers, long_names=long_names)
    assert_readable(*lay_out(*crowdedmaps.our_files(world, anchors=anchors)))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# At most 4 x 2 blocks of 6 x 4 cells: 192 territories, within a map's 200.
@given(blocks=st.tuples(st.integers(2, 4), st.integers(1, 2)), cells=st.tuples(st.integers(2, 6), st.integers(2, 4)),
       seed=st.integers(0, 10_000))
def test_no_word_overlaps_another_or_a_badge_on_islands(blocks, cells, seed):
    world = mapdraw.draw_world(blocks=blocks, cells=cells, size=(1600, 700), seed=seed)
    assert_readable(*lay_out(*mapdraw.our_files(world, players=2 if world.count < 24 else 6)))


def test_a_map_of_many_small_territories_keeps_nearly_every_name():
    board, geo, placed = lay_out(*crowdedmaps.our_files(crowdedmaps.crowded(180, size=(1600, 1000), seed=3, gap=3)))
    assert_readable(board, geo, placed)
    assert len(placed.texts) >= 175
    whole = sum(1 for t, text in placed.texts.items() if text == board.territories[t].short)
    assert whole >= 120


def test_a_name_with_no_room_in_any_form_is_a_number_the_legend_names():
    world = crowdedmaps.crowded(200, size=(1600, 600), seed=3, gap=2)
    board, geo, placed = lay_out(*crowdedmaps.our_files(world))
    assert_readable(board, geo, placed)
    assert placed.keys
    base = layout.legend_rows(LEGEND, geo.height, geo.raw["legend"], geo.width, len(LEGEND))[0]
    continents = [layout.continent_text(board.continents[c].name, board.continents[c].bonus) for c in placed.in_legend]
    keyed = [board.territories[t].short for t in placed.keys]
    assert placed.legend == layout.legend_rows([*LEGEND, *continents, *keyed], geo.height, geo.raw["legend"],
                                               geo.width, len(LEGEND))[0]
    assert placed.legend[1] == base[1] and placed.legend[2] > base[2]   # grown sideways, along the edge


def test_a_name_is_abbreviated_from_its_words():
    assert layout.abbreviations("North Yorkshire")[:2] == ["North Yorkshire", "N. Yorkshire"]
    forms = layout.abbreviations("Schleswig-Holstein")
    assert forms[0] == "Schleswig-Holstein" and forms[-1] == "Sch."
    widths = [layout.label_box(f, (0, 0))[2] for f in forms]
    assert widths == sorted(widths, reverse=True) and len(set(widths)) == len(widths)
    assert layout.abbreviations("Ur") == ["Ur"]


def test_continent_names_with_no_open_sea_near_go_on_a_plate_by_their_continent():
    world = crowdedmaps.crowded(60, size=(1600, 900), seed=11, gap=1, continents=6)
    board, geo, placed = lay_out(*crowdedmaps.our_files(world))
    assert_readable(board, geo, placed)
    assert placed.plates and set(placed.plates) <= set(placed.continents)
    for cid in placed.plates:   # no plate is over the sea: there is none near
        box = next(b.box for b in placed.of_kind("continent") if b.owner == cid)
        assert sum(geo.label.crop(box).histogram()[1:]) > 0


@pytest.mark.real_render
def test_a_plate_is_drawn_and_its_name_reads_over_land():
    from render.base import build_static_layers
    from render.style import PANEL_BG

    world = crowdedmaps.crowded(40, size=(1600, 700), seed=12, gap=1, continents=4)
    pkg = load_package(*crowdedmaps.our_files(world))
    install(pkg)
    layers = build_static_layers(pkg.board)
    assert layers.layout is not None and layers.layout.plates
    index = layers.index.copy()
    index.putpalette(list(layers.static_palette))
    img = index.convert("RGB")
    for b in layers.layout.of_kind("continent"):
        if b.owner in layers.layout.plates:
            colours = {c: n for n, c in img.crop(b.box).getcolors(1 << 16)}
            area = (b.box[2] - b.box[0]) * (b.box[3] - b.box[1])
            plate = sum(n for c, n in colours.items() if sum(abs(x - y) for x, y in zip(c, PANEL_BG, strict=True)) < 16)
            assert plate > area / 2, b          # the plate, whatever the owners' colours
            assert layers.geometry.tints is not None
            tint = layers.geometry.tints[b.owner]                   # and its letters in the continent's tint
            assert sum(n for c, n in colours.items() if sum(abs(x - y) for x, y in zip(c, tint, strict=True)) < 40) > 20


@pytest.mark.parametrize("title", ["upper left", "upper right", "lower left", "lower right"])
def test_the_legend_goes_where_the_maps_picture_prints_nothing(title):
    world = crowdedmaps.crowded(30, size=(1600, 900), seed=4, gap=2, sea=140)
    world = dataclasses.replace(world, title_corner=title)
    regions = crowdedmaps.regions(world)
    assert legend_corner(regions) == "lower left"        # no land in any corner: the usual corner
    assert legend_corner(regions, crowdedmaps.picture(world)) != title


def test_the_legend_takes_the_middle_of_an_edge_when_the_picture_prints_in_both_corners():
    from PIL import Image, ImageDraw

    regions = Image.new("L", (1600, 900), 1)
    regions.paste(0, (0, 740, 1600, 900))                 # land to every edge but a band of sea at the bottom
    picture = Image.new("RGB", regions.size, (40, 80, 120))
    draw = ImageDraw.Draw(picture)
    for x in (10, 1230):                                   # a title box and the picture's own legend
        draw.rectangle((x, 750, x + 360, 890), fill=(250, 245, 230), outline=(0, 0, 0), width=3)
        for k in range(10):
            draw.line((x + 12, 764 + k * 11, x + 300, 764 + k * 11), fill=(0, 0, 0), width=2)
    assert legend_corner(regions) == "lower left"
    assert legend_corner(regions, picture) == "lower middle"
    box, _ = layout.legend_rows(LEGEND, 900, "lower middle", 1600)
    assert box[0] > 400 and box[2] < 1200 and box[3] <= 900


def nearest_land_is_own(geo: Geometry, board: Board, cid: str, box: layout.Box, reach: int = 24) -> bool:
    """Whether the land nearest a continent name's box is mostly its own continent's: the first of the boxes
    grown by 4, 8 ... ``reach`` px that holds land holds mostly its own."""
    own = {geo.territories[t].value for t in board.continents[cid].territories}
    for d in range(4, reach + 1, 4):
        near = (box[0] - d, box[1] - d, box[2] + d, box[3] + d)
        counts = geo.label.crop(near).histogram()
        land = sum(counts[1:])
        if land:
            return 2 * sum(counts[v] for v in own) >= land
    return False


def axis_and_allies() -> crowdedmaps.Crowded:
    """Two continents as on the Axis and Allies map: a southern one whose box reaches far north along a
    narrow strip of land at the west edge, so that the sea above its box's middle lies beside the northern
    continent's coast, not its own."""
    rects = [(60, 200, 160, 558), (60, 560, 700, 860), (702, 560, 1300, 860),     # the south: a strip, a plain
             (162, 200, 560, 250), (562, 120, 900, 250), (902, 120, 1240, 250)]  # the north, by the south's box top
    return crowdedmaps.Crowded((1400, 900), rects, ["Strip", "Plainsa", "Plainsb", "Bridge", "Fjorda", "Fjordb"],
                               [0, 0, 0, 1, 1, 1], continents=2, gap=2, title_corner="upper right")


def test_a_continent_name_at_sea_lies_by_its_own_coast():
    board, geo, placed = lay_out(*crowdedmaps.our_files(axis_and_allies()))
    assert_readable(board, geo, placed)
    south = next(c for c in board.continents if "t1" in board.continents[c].territories)
    assert south in placed.continents
    box = next(b.box for b in placed.of_kind("continent") if b.owner == south)
    assert nearest_land_is_own(geo, board, south, box), box
    # Where it used to be put (above the middle of its box) the nearest land is the other continent's.
    preferred = geo.continent_labels[south]
    text = layout.continent_text(board.continents[south].name, board.continents[south].bonus)
    assert not nearest_land_is_own(geo, board, south, layout.continent_box(text, preferred), reach=120)


def test_a_plate_covers_no_territory_name_where_its_continent_has_room():
    """A continent whose land fills its corner of the picture: its plate goes where no name is, and every
    name keeps its place (none becomes a number in the legend)."""
    world = crowdedmaps.crowded(24, size=(1600, 700), seed=12, gap=1, continents=3)
    board, geo, placed = lay_out(*crowdedmaps.our_files(world))
    assert_readable(board, geo, placed)
    assert placed.plates and not placed.keys
    # Where each name goes first (just under its badge): no plate there, so no name had to move for one.
    first = [layout.label_box(board.territories[t].short, tuple(geo.raw["territories"][t]["label"]))
             for t in geo.territories]
    for b in placed.of_kind("continent"):
        assert not any(overlaps(b.box, n) for n in first), b


def test_a_plates_words_read_in_every_tint():
    """Dark tints (a map's own continent colours: "RHUN +2" in near black) are lightened on the plate until
    the words reach 4.5:1; light ones keep their colour."""
    from render.base import words_tint
    from render.regions import TINTS
    from render.seats import contrast
    from render.style import PANEL_BG, SEA

    dark = [(40, 20, 20), (0, 0, 0), (60, 0, 90), (20, 60, 20), (128, 0, 0), (0, 0, 128)]
    for tint in [*TINTS, *dark]:
        for ground in (PANEL_BG, SEA):
            assert contrast(words_tint(tint, ground), ground) >= 4.5, (tint, ground)
    assert all(contrast(t, PANEL_BG) < 4.5 for t in dark)     # as they were, they did not read
    assert words_tint(TINTS[0], PANEL_BG) == TINTS[0]


@pytest.mark.parametrize("gap", [1, 2, 3])
def test_a_seam_of_a_few_pixels_between_neighbours_is_drawn_as_one_border(gap):
    """A region image that leaves 1-3 px of no territory between neighbours (as most Domination maps do): the
    seam is closed, so the two meet in one border line, with no coast and no sea between them; a wider strait
    stays sea."""
    from render.regions import close_seams

    img = Image.new("L", (300, 200), 0)
    draw = ImageDraw.Draw(img)
    draw.rectangle((20, 20, 149, 179), fill=1)
    draw.rectangle((150 + gap, 20, 280, 179), fill=2)
    draw.rectangle((20, 185, 80, 199), fill=3)    # 5 px of sea above it: a strait, kept
    closed = close_seams(img)
    row = [closed.getpixel((x, 100)) for x in range(140, 165)]
    assert 0 not in row and set(row) == {1, 2}
    assert [closed.getpixel((50, y)) for y in range(180, 185)] == [0] * 5
    assert closed.getpixel((10, 100)) == 0 and closed.getpixel((290, 100)) == 0   # the outer coasts stay


def test_seams_closed_on_a_whole_map_leave_one_line_between_neighbours():
    world = crowdedmaps.crowded(12, size=(1600, 700), seed=5, gap=3, continents=2)
    pkg = load_package(*crowdedmaps.our_files(world))
    geo = build_geometry(pkg.id, pkg.data, pkg.regions, pkg.background)
    box = pkg.regions.point([0] + [255] * 255).getbbox()   # the land (the loader may add sea for the legend)
    assert box is not None
    inside = (box[0] + 2, box[1] + 2, box[2] - 2, box[3] - 2)
    before, after = pkg.regions.crop(inside).histogram()[0], geo.label.crop(inside).histogram()[0]
    assert before > 1000             # the region image's seams
    assert after < before / 100      # closed: a few pixels left where four regions meet or by the map's edge


def test_the_legend_keeps_clear_of_the_pictures_bonus_table():
    """As on Domination's classic picture: land in three corners and in the middle of both edges, and a table of
    bonuses ("Asia 7", "Oceania 2") printed over the sea in the lower left. The legend goes where there is
    neither land nor the picture's text (the open sea between South America and Australia), not over the
    table."""
    regions = Image.new("L", (1600, 900), 0)
    draw = ImageDraw.Draw(regions)
    draw.rectangle((0, 0, 420, 300), fill=1)          # Alaska, upper left
    draw.rectangle((1150, 0, 1599, 320), fill=2)      # Siberia, upper right
    draw.rectangle((1180, 600, 1599, 899), fill=3)    # Australia, lower right
    draw.rectangle((500, 0, 1100, 560), fill=4)       # Europe, Africa and Asia, to the top edge
    draw.rectangle((420, 600, 700, 899), fill=5)      # South America, to the lower edge
    picture = Image.new("RGB", regions.size, (40, 80, 120))
    art = ImageDraw.Draw(picture)
    for value, colour in ((1, (190, 180, 140)), (2, (170, 190, 140)), (3, (200, 170, 130)), (4, (180, 180, 150)),
                          (5, (185, 175, 145))):
        picture.paste(colour, mask=regions.point([255 if v == value else 0 for v in range(256)]))
    table = (12, 700, 330, 890)
    art.rectangle(table, fill=(230, 225, 200), outline=(0, 0, 0), width=2)
    for k in range(7):   # one line a continent: its name and its bonus
        art.text((24, 708 + 25 * k), f"Continent {k}", fill=(0, 0, 0))
        art.text((290, 708 + 25 * k), str(k + 2), fill=(0, 0, 0))
    place = legend_corner(regions, picture)
    box, _ = layout.legend_rows(LEGEND, 900, place, 1600)
    assert not overlaps(box, table), (place, box)
    assert regions.crop(box).getbbox() is None, (place, box)       # and over no land
    assert legend_corner(regions) == "lower left"                  # without the picture, the table's corner


def test_a_legend_with_no_place_clear_of_land_and_the_pictures_text_goes_below_the_picture():
    """Risk Godstorm: land to every edge but the upper left corner, where the picture prints its title and its
    table of bonuses. The legend would cover one or the other: a strip is added below the picture for it. A
    map stored before this rule (no ``legend_strip`` in its file) reads as it was stored, its id the same."""
    import io
    import json

    from mapfiles.package import reopen

    blob, files = crowdedmaps.our_files(crowdedmaps.crowded(24, size=(1400, 800), seed=2, gap=2))
    regions = Image.open(io.BytesIO(files["regions.png"])).convert("L")
    picture = Image.open(io.BytesIO(files["picture.png"])).convert("RGB")
    land = regions.point(lambda v: 255 if v else 0).getbbox()
    assert land is not None
    regions = regions.crop(land).resize(regions.size, Image.Resampling.NEAREST)   # land to every edge
    regions.paste(0, (0, 0, 380, 170))                                            # but the title's corner
    art = ImageDraw.Draw(picture)
    art.rectangle((0, 0, 380, 170), fill=(230, 225, 200), outline=(0, 0, 0), width=3)
    for k in range(6):   # a row a continent, ruled: its name and its bonus
        art.text((14, 8 + 26 * k), f"Continent {k}", fill=(0, 0, 0), font_size=18)
        art.text((330, 8 + 26 * k), str(k + 2), fill=(0, 0, 0), font_size=18)
        art.line((8, 30 + 26 * k, 372, 30 + 26 * k), fill=(0, 0, 0), width=2)
    out = {"regions.png": crowdedmaps._png(regions), "picture.png": crowdedmaps._png(picture)}
    pkg = load_package(blob, out)
    assert pkg.data["legend_strip"] is True
    assert pkg.regions.height == round(800 * 1600 / 1400) + 124
    geo = build_geometry(pkg.id, pkg.data, pkg.regions, pkg.background)
    box, _ = layout.legend_rows(LEGEND, geo.height, geo.raw["legend"], geo.width)
    assert box[1] >= round(800 * 1600 / 1400), box                       # in the strip, below the picture
    assert reopen(pkg.files()).id == pkg.id                              # stored, it reads the same
    old = json.loads(pkg.files()["map.json"])
    del old["legend_strip"]
    assert "legend_strip" not in load_package(old, pkg.files(), clean=False).data
