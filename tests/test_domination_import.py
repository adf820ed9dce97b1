"""The Domination importer on maps drawn the way community maps are (tests/mapdraw.py): land borders across
a gap or a corner, routes round the world, the header's name, names with spaces and hyphens, colours in every
notation, a colour region image, and names in our languages from the map's ``.properties`` files."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import mapdraw
import pytest
from PIL import Image, ImageDraw

from mapfiles import MapFileError
from mapfiles.domination import (
    colour_value,
    import_domination,
    parse_map_text,
    read_properties,
    read_properties_blob,
    region_values,
    touching_pairs,
)


@pytest.fixture(scope="module")
def world() -> mapdraw.World:
    return mapdraw.draw_world()


@pytest.fixture(scope="module")
def real(world):
    return mapdraw.domination_real_files(world)


@pytest.fixture(scope="module")
def imported(real):
    text, files, _ = real
    return import_domination(text, files, "real.map")


def pairs_of(package) -> list[tuple[int, int]]:
    index = {t: i for i, t in enumerate(package.board.territory_ids)}
    return sorted(tuple(sorted((index[r[0]], index[r[1]]))) for r in package.data["sea_routes"])


# -- land borders across a gap or a corner -------------------------------------------------------------------
def test_neighbours_drawn_with_a_line_of_no_territory_between_them_share_a_land_border(world, real, imported):
    _, _, expected = real
    # Only the routes the map draws across the sea are sea routes: every border across a 1-3 px line is land,
    # and so is the one between two territories that meet at a corner.
    assert pairs_of(imported) == expected["sea"]
    a, b = expected["corner"]
    assert imported.board.territory_ids[b] in imported.board.neighbours(imported.board.territory_ids[a])
    assert len(imported.board.sea_routes) == len(expected["sea"]) < imported.board.border_count()


def square_regions(gap: int, diagonal: bool = False) -> Image.Image:
    """Two squares of values 1 and 2, ``gap`` pixels of no territory apart, side by side or corner to corner."""
    img = Image.new("L", (60, 60), 0)
    draw = ImageDraw.Draw(img)
    draw.rectangle((5, 5, 24, 24), fill=1)
    start = 25 + gap
    draw.rectangle((start, start if diagonal else 5, start + 19, start + 19 if diagonal else 24), fill=2)
    return img


@pytest.mark.parametrize("gap", [0, 1, 2, 3])
def test_regions_a_few_pixels_apart_touch_across_or_at_a_corner(gap):
    assert touching_pairs(square_regions(gap)) == {(1, 2)}
    assert touching_pairs(square_regions(gap, diagonal=True)) == {(1, 2)}


@pytest.mark.parametrize("gap", [4, 8])
def test_regions_further_apart_do_not_touch(gap):
    assert touching_pairs(square_regions(gap)) == set()
    assert touching_pairs(square_regions(gap, diagonal=True)) == set()


def pairs_by_hand(regions: Image.Image, reach: int) -> set[tuple[int, int]]:
    """Every pixel against every pixel up to ``reach`` away: the pairs of values, smaller first."""
    w, h = regions.size
    px = regions.tobytes()
    out = set()
    for y in range(h):
        for x in range(w):
            a = px[y * w + x]
            for dy in range(-reach, reach + 1):
                for dx in range(-reach, reach + 1):
                    if a and 0 <= x + dx < w and 0 <= y + dy < h:
                        b = px[(y + dy) * w + x + dx]
                        if b and b != a:
                            out.add((min(a, b), max(a, b)))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_touching_pairs_are_the_pairs_found_pixel_by_pixel(seed):
    # Scattered blobs and specks of a few values on no territory, some at the image's edges.
    rng = random.Random(seed)
    img = Image.new("L", (48, 40), 0)
    draw = ImageDraw.Draw(img)
    for _ in range(14):
        x, y = rng.randrange(-4, 48), rng.randrange(-4, 40)
        size = rng.choice((0, 1, 3, 6))
        draw.rectangle((x, y, x + size, y + rng.choice((0, 2, 5))), fill=rng.randint(1, 9))
    for reach in (1, 2, 4):
        assert touching_pairs(img, reach) == pairs_by_hand(img, reach)


def test_a_border_whose_regions_meet_only_at_a_corner_is_a_land_border(world):
    # A chequerboard: territory 1 and 4 meet at one corner only, and the map says they border.
    text = ("[files]\nmap corner.png\n[continents]\nAll 3 red\n[countries]\n1 A 1 10 10\n2 B 1 30 10\n"
            "3 C 1 10 30\n4 D 1 30 30\n[borders]\n1 2 3 4\n2 1 4\n3 1 4\n4 1 2 3\n")
    img = Image.new("L", (80, 40), 255)
    draw = ImageDraw.Draw(img)
    for value, (x, y) in enumerate([(0, 0), (20, 0), (0, 20), (20, 20)], start=1):
        draw.rectangle((x, y, x + 19, y + 19), fill=value)
    # A line of no territory between the squares, crossing where all four meet.
    draw.line((0, 20, 40, 20), fill=255, width=1)
    draw.line((20, 0, 20, 40), fill=255, width=1)
    out = io.BytesIO()
    img.save(out, "PNG")
    package = import_domination(text.encode(), {"corner.png": out.getvalue()}, "corner.map")
    assert package.data["sea_routes"] == []


# -- routes round the world -----------------------------------------------------------------------------------
def test_a_sea_route_between_ends_more_than_half_the_map_apart_goes_round_the_world(real, imported):
    _, _, expected = real
    a, b = expected["wrap"]
    ids = imported.board.territory_ids
    wraps = [r for r in imported.data["sea_routes"] if len(r) == 3]
    assert wraps == [[ids[a], ids[b], "wrap"]]
    assert all(len(r) == 2 for r in imported.data["sea_routes"] if r[:2] != [ids[a], ids[b]])
    assert {ids[a], ids[b]} in [set(p[:2]) for p in imported.board.sea_routes]


# -- the header, names, comments ------------------------------------------------------------------------------
def test_the_header_name_is_the_map_title(imported):
    assert imported.board.title == "Drawn Islands of the North"
    assert imported.id.startswith("drawn-islands-of-the-")


def test_a_map_without_a_header_name_is_titled_after_its_file(world):
    text, files = mapdraw.domination_files(world)
    assert import_domination(text, files, "roman_empire.map").board.title == "Roman Empire"


def test_the_header_is_read_circle_and_ver_ignored(real):
    text, _, _ = real
    parsed = parse_map_text(text.decode(), "real.map")
    assert parsed.header == {"name": "Drawn Islands of the North", "ver": "1", "circle": "24"}
    assert parsed.files["prv"] == "real.jpg"


def test_an_underscore_is_a_space_and_a_hyphen_stays(real, imported):
    _, _, expected = real
    names = [imported.board.name(t) for t in imported.board.territory_ids]
    assert names == expected["names"]
    assert names[0].endswith(" Bay") and names[1].startswith("Nord-")


def test_the_classic_maps_hyphenated_names_are_shown_as_domination_shows_them():
    from present.i18n import continent_name, territory_name

    package = import_domination(*classic_like())
    board = package.board
    assert [board.name(t) for t in board.territory_ids] == ["Great Britain", "Northwest Territory", "Kreis-Wesel"]
    assert board.continents["c1"].name == "North America"
    # Our catalogs know the classic map's names: the Spanish and Norwegian come with them.
    assert territory_name(board, "t1", "es") == territory_name(board_of_classic(), "great_britain", "es")
    assert territory_name(board, "t1", "es") != "Great Britain"
    assert continent_name(board, "c1", "nb") == continent_name(board_of_classic(), "north_america", "nb")


def board_of_classic():
    from engine import load_map

    return load_map("classic")


def classic_like(properties: dict[str, bytes] | None = None) -> tuple[bytes, dict[str, bytes], str]:
    """A small map written with the classic map's words, and a hyphenated name of its own."""
    text = ("name Little Classic\n[files]\nmap little.png\n[continents]\nNorth-America 3 yellow\n"
            "Europe 2 0x7090e0\n[countries]\n1 Great-Britain 2 10 10\n2 North-West-Territory 1 30 10\n"
            "3 Kreis-Wesel 2 50 10\n[borders]\n1 2 3\n2 1 3\n3 1 2\n")
    img = Image.new("L", (60, 20), 255)
    draw = ImageDraw.Draw(img)
    for value in (1, 2, 3):
        draw.rectangle(((value - 1) * 20, 0, (value - 1) * 20 + 18, 19), fill=value)
    out = io.BytesIO()
    img.save(out, "PNG")
    return text.encode(), {"little.png": out.getvalue(), **(properties or {})}, "little.map"


def test_only_a_line_that_starts_with_a_semicolon_is_a_comment(world):
    text, files = mapdraw.domination_files(world)
    lines = text.decode().splitlines()
    first = lines.index("[countries]") + 1
    number, word, *rest = lines[first].split()
    lines[first] = " ".join([number, word + ";Isle", *rest])
    lines.insert(first, "; a comment of its own")
    lines.insert(0, "name Drawn; the islands")
    package = import_domination("\n".join(lines).encode(), files, "drawn.map")
    assert package.board.name("t1") == word + ";Isle"
    assert package.board.title == "Drawn; the islands"


@pytest.mark.parametrize("section,extra", [("[continents]", "; the first island"),
                                           ("[countries]", "; a note")])
def test_a_semicolon_after_a_line_is_a_word_too_many_as_domination_refuses_it(world, section, extra):
    text, files = mapdraw.domination_files(world)
    lines = text.decode().splitlines()
    first = lines.index(section) + 1
    lines[first] += " " + extra
    with pytest.raises(MapFileError, match=f"Line {first + 1} of drawn.map: “;” is one word too many"):
        import_domination("\n".join(lines).encode(), files, "drawn.map")


def test_a_semicolon_in_the_borders_is_not_a_number(world):
    text, files = mapdraw.domination_files(world)
    lines = text.decode().splitlines()
    first = lines.index("[borders]") + 1
    lines[first] += " ; sea"
    with pytest.raises(MapFileError, match="“;” should be a whole number"):
        import_domination("\n".join(lines).encode(), files, "drawn.map")


# -- colours ----------------------------------------------------------------------------------------------------
def test_continent_colours_in_every_notation(real, imported):
    _, _, expected = real
    assert [c.get("colour") for c in imported.data["continents"]] == expected["colours"]


@pytest.mark.parametrize("word,colour", [
    ("red", "#e06060"), ("Red", "#e06060"), ("#FF8000", "#ff8000"), ("0xff8000", "#ff8000"),
    ("0X00FF00", "#00ff00"), ("16711680", "#ff0000"), ("255", "#0000ff"), ("0", "#000000"),
    ("-1", "#ffffff"), ("010", "#000008"), ("+0x10", "#000010"),
])
def test_a_colour_is_read_as_domination_reads_it(word, colour):
    assert colour_value(word) == colour


@pytest.mark.parametrize("word", ["0xffffffff", "2147483648", "bogus", "#ggg", "08", "1.5", ""])
def test_a_colour_domination_cannot_read_is_left_to_the_renderer(word):
    assert colour_value(word) is None


# -- the region image ------------------------------------------------------------------------------------------
def test_the_region_image_is_read_from_its_blue_channel(real):
    _, files, expected = real
    colour = Image.open(io.BytesIO(files["real_map.png"]))
    assert colour.mode == "RGB" and len(set(colour.getchannel("R").tobytes())) > 1
    want = expected["values"].point(lambda v: 0 if v == 255 else v)
    assert region_values(colour).tobytes() == want.tobytes()


def test_a_grey_or_palette_region_image_with_a_transparent_colour_reads_the_same():
    grey = square_regions(2).point(lambda v: v or 255)
    palette = grey.convert("P")
    for image in (grey, palette):
        out = io.BytesIO()
        image.save(out, "GIF", transparency=254)
        again = Image.open(io.BytesIO(out.getvalue()))
        assert region_values(again).tobytes() == square_regions(2).tobytes()


# -- names in our languages ------------------------------------------------------------------------------------
def test_a_maps_properties_files_give_its_names_in_norwegian_and_spanish(world, real):
    text, files, expected = real
    words = expected["words"]
    nb = f"{words[0]}=Vika_ved_{words[0][:4]}\n{words[1]} = Nord-by\n".encode()
    es = f"# nombres\n{words[0]}:Bah\\u00eda_{words[0][:4]}\nOstia=Ostia\n".encode()
    es += f"{world.continent_names[0]}=Isla_Grande\n".encode("latin-1")
    given = {**files, "real_no.properties": nb, "real_es.properties": es}
    board = import_domination(text, given, "real.map").board
    assert board.territory_name_in("nb", "t1") == f"Vika ved {words[0][:4]}"
    assert board.territory_name_in("nb", "t2") == "Nord-by"
    assert board.territory_name_in("es", "t1") == f"Bahía {words[0][:4]}"
    assert board.territory_name_in("es", "t2") is None
    assert board.continent_name_in("es", "c1") == "Isla Grande"
    assert board.name("t1") == expected["names"][0]     # the English stays the map's own


def test_a_name_for_a_continent_the_map_leaves_out_is_left_out_too():
    text, files, name = classic_like({"little_es.properties": b"Asia=Asia\nEurope=Europa\n"})
    text = text.replace(b"Europe 2 0x7090e0\n", b"Europe 2 0x7090e0\nAsia 7 green\n")
    board = import_domination(text, files, name).board
    assert board.continent_name_in("es", "c2") == "Europa"
    assert "c3" not in board.continents and board.translations["es"]["continents"] == {"c2": "Europa"}


def test_properties_in_latin_1_or_utf_8_read_alike():
    assert read_properties_blob("a=Perú\n".encode("latin-1"), "x") == {"a": "Perú"}
    assert read_properties_blob("a=Perú\n".encode(), "x") == {"a": "Perú"}
    assert read_properties("a = b\\\n   c\n! no\nk\\ ey:v\n") == {"a": "bc", "k ey": "v"}


def test_a_properties_file_of_the_cards_missions_leaves_the_names_alone():
    text, files, name = classic_like({"little_es.properties": b"0-0-0-1-2-0=Conquistar\n"})
    board = import_domination(text, files, name).board
    assert board.translations == {}


def test_the_command_line_import_finds_the_properties_files_beside_the_map(tmp_path: Path):
    from mapfiles.cli import import_file

    text, files, name = classic_like({"little_nb.properties": b"Kreis-Wesel=Wesel_krets\n"})
    (tmp_path / name).write_bytes(text)
    for file_name, blob in files.items():
        (tmp_path / file_name).write_bytes(blob)
    board = import_file(tmp_path / name).board
    assert board.territory_name_in("nb", "t3") == "Wesel krets"


def test_an_upload_of_a_map_its_picture_region_image_cards_and_two_files_of_names(real):
    from mapfiles.upload import import_upload

    text, files, expected = real
    word = expected["words"][2]
    upload = {"real.map": text, **files, "real_nb.properties": f"{word}=Nb\n".encode(),
              "real_es.properties": f"{word}=Es\n".encode()}
    assert len(upload) == 6
    package = import_upload(upload)
    assert package.board.territory_name_in("nb", "t3") == "Nb"
    assert package.board.territory_name_in("es", "t3") == "Es"
    assert json.loads(json.dumps(package.data))["translations"]["es"]["territories"]["t3"]["name"] == "Es"


def test_an_upload_of_nine_files_is_refused(real):
    from mapfiles.upload import import_upload

    text, files, _ = real
    upload = {"real.map": text, **files, "real_nb.properties": b"", "real_es.properties": b"", "extra.png": b"",
              "extra2.png": b"", "extra3.png": b""}
    assert len(upload) == 9
    with pytest.raises(MapFileError, match="Send at most 8 files"):
        import_upload(upload)


MISSIONS_NB = ("# oppdrag\n0-0-0-1-2-0=Ta de to f\u00f8rste \u00f8yene\n"
               "1-0-0-0-0-0=Utslett {PLAYER1}\n").encode("latin-1")
MISSIONS_ES = b"0-0-0-1-2-0=Conquista las dos primeras islas\n1-0-0-0-0-0=Destruye a PLAYER1\n"


def test_the_cards_files_properties_give_the_missions_in_norwegian_and_spanish(world):
    """Domination's ``MapTranslator.setCards``: ``drawn.cards`` is translated by ``drawn_nb.properties`` (or
    ``_no``) and ``drawn_es.properties``, keyed by the mission's first six words; a mission without a key keeps
    only its English words."""
    text, files = mapdraw.domination_files(world)
    given = {**files, "drawn_no.properties": MISSIONS_NB, "drawn_es.properties": MISSIONS_ES}
    board = import_domination(text, given, "drawn.map").board
    first, territories, destroy = board.missions
    assert first["descriptions"] == {"es": "Conquista las dos primeras islas", "nb": "Ta de to første øyene"}
    assert "descriptions" not in territories
    assert destroy["descriptions"] == {"es": "Destruye a PLAYER1", "nb": "Utslett {PLAYER1}"}
    assert destroy["description"] == "Destroy the first player"


def test_a_mission_is_shown_in_the_readers_language_from_the_maps_own_words(world):
    from engine.settings import Settings
    from engine.state import GameState, Player
    from present.text import mission_line

    text, files = mapdraw.domination_files(world)
    given = {**files, "drawn_nb.properties": MISSIONS_NB, "drawn_es.properties": MISSIONS_ES}
    board = import_domination(text, given, "drawn.map").board
    state = GameState(settings=Settings(), players=[Player(0, "Ana *@everyone*", "human"), Player(1, "Bo", "human")])
    first, territories, destroy = board.missions
    assert mission_line(first, board, state, "nb") == "Ta de to første øyene"
    assert mission_line(first, board, state, "es-ES") == "Conquista las dos primeras islas"
    assert mission_line(first, board, state, "en-US") == "Conquer the first two islands"
    # A mission the file does not translate: our own words in the reader's language, not the map's English.
    assert mission_line(territories, board, state, "es-ES") != territories["description"]
    # The name put in is escaped, as every name is.
    shown = mission_line(destroy, board, state, "nb")
    assert shown.startswith("Utslett ") and "*@everyone*" not in shown and "@\u200beveryone" in shown


def test_a_mission_translation_in_a_map_file_is_checked(world):
    from engine.board import parse_map
    from engine.errors import MapError

    text, files = mapdraw.domination_files(world)
    data = import_domination(text, {**files, "drawn_es.properties": MISSIONS_ES}, "drawn.map").data
    data = json.loads(json.dumps(data))
    assert parse_map(data).missions[0]["descriptions"] == {"es": "Conquista las dos primeras islas"}
    for bad in ({"fr": "Conquérir"}, {"es": ""}, {"es": "x" * 2000}, ["es"], {"es": 3}):
        data["missions"][0]["descriptions"] = bad
        with pytest.raises(MapError, match="descriptions"):
            parse_map(data)


def test_a_long_route_between_coasts_that_do_not_reach_the_edge_is_drawn_across(world):
    """Minhiriath–Umbar: the two ends lie far apart, but neither land reaches the map's edge; going round is
    not what the map means."""
    text, files, expected = mapdraw.domination_real_files(world, reach_edges=False)
    package = import_domination(text, files, "real.map")
    a, b = expected["wrap"]
    ids = package.board.territory_ids
    assert [r for r in package.data["sea_routes"] if len(r) == 3] == []
    assert [ids[a], ids[b]] in package.data["sea_routes"]


def test_a_route_goes_round_only_where_that_is_clearly_shorter():
    from mapfiles.domination import wraps_round

    sides = ({1}, {2})
    assert wraps_round(20, 980, 1, 2, 1000, sides)           # 40 px round, 960 across
    assert not wraps_round(300, 700, 1, 2, 1000, sides)      # 600 round, 400 across
    assert not wraps_round(420, 990, 1, 2, 1000, sides)      # 430 round, 570 across: not clearly shorter
    assert not wraps_round(20, 980, 1, 3, 1000, sides)       # the east end does not reach the edge
    assert wraps_round(980, 20, 2, 1, 1000, sides)           # either way round


@pytest.mark.parametrize("gap", [4, 5])
def test_regions_4_or_5_pixels_apart_along_a_whole_border_touch(gap):
    """Eurasien's Tschad–Sudan: two regions 4 or 5 px apart along a border 100 px long share a land border;
    the same gap between two coasts that face each other over 20 px (a strait) does not."""
    img = Image.new("L", (200, 160), 0)
    draw = ImageDraw.Draw(img)
    draw.rectangle((10, 20, 79, 119), fill=1)
    draw.rectangle((80 + gap, 20, 150, 119), fill=2)
    assert touching_pairs(img) == {(1, 2)}
    assert touching_pairs(square_regions(gap)) == set()
    assert touching_pairs(square_regions(gap, diagonal=True)) == set()


def gap_map(lines: bool) -> tuple[bytes, dict[str, bytes]]:
    """Five territories drawn as Eurasien and the classic picture have them: Syrien above Jordanien (a seam of
    2 px), Irak east of both, 5 px away (a short border, 20 px along Jordanien); Iberia and Maghreb below, 5 px
    apart over 20 px too: a strait. The picture draws the borders as black lines (``lines``) and the strait as
    sea, or (without ``lines``) is shaded like a satellite picture, land and gaps alike."""
    size = (300, 220)
    boxes = {1: (20, 20, 144, 57), 2: (20, 60, 144, 80), 3: (150, 20, 280, 120), 4: (20, 150, 144, 200),
             5: (150, 180, 280, 200)}
    regions = Image.new("L", size, 255)
    picture = Image.new("RGB", size, (40, 90, 200))
    draw, paint = ImageDraw.Draw(regions), ImageDraw.Draw(picture)
    for value, box in boxes.items():
        draw.rectangle(box, fill=value)
    land = (200, 170, 90)
    for value, (x0, y0, x1, y1) in boxes.items():
        paint.rectangle((x0, y0, x1, y1), fill=land if lines else (90 + 20 * value, 140, 70))
    if lines:   # the borders between lands: black across each gap; the strait's gap stays sea
        paint.rectangle((145, 20, 149, 120), fill=(0, 0, 0))
        paint.rectangle((20, 58, 144, 59), fill=(0, 0, 0))
    else:       # shaded: the gaps between lands in the land's changing colours, as the land beside them
        for y in range(20, 121):
            paint.line((145, y, 149, y), fill=(60 + 3 * (y % 40), 140, 70))
        for x in range(20, 145):
            paint.line((x, 58, x, 59), fill=(60 + 3 * (x % 40), 140, 70))
    # Iberia's corner reaches toward Maghreb: 5 px over 20 px, the classic board's Gibraltar.
    draw.rectangle((125, 180, 144, 200), fill=4)
    paint.rectangle((125, 180, 144, 200), fill=land if lines else (170, 140, 70))
    text = ("[files]\npic gaps_pic.png\nmap gaps_map.png\n[continents]\nAll 3 red\n[countries]\n"
            "1 Syrien 1 80 38\n2 Jordanien 1 80 70\n3 Irak 1 215 70\n4 Iberia 1 80 175\n5 Maghreb 1 215 190\n"
            "[borders]\n1 2 3\n2 1 3 4\n3 1 2\n4 2 5\n5 4\n")
    return text.encode(), {"gaps_pic.png": mapdraw.png(picture), "gaps_map.png": mapdraw.png(regions)}


def test_a_short_border_in_a_wide_line_is_land_and_a_strait_of_the_same_width_is_sea():
    """Eurasien's Irak–Jordanien: 5 px apart along a short border the picture draws as a black line, a land
    border; the classic board's straits (Gibraltar: as far apart, along as short) drawn as sea stay sea."""
    text, files = gap_map(lines=True)
    assert touching_pairs(region_values(Image.open(io.BytesIO(files["gaps_map.png"])))) == {(1, 2)}   # seam only
    package = import_domination(text, files, "gaps.map")
    assert package.data["sea_routes"] == [["t2", "t4"], ["t4", "t5"]]      # Jordanien–Iberia: far apart


def test_a_picture_without_border_lines_does_not_decide_a_gap():
    """A shaded picture (no border lines, as a satellite picture): the 5 px gap is not the picture's to decide,
    and a short gap that wide stays a sea line, as the region image alone says."""
    text, files = gap_map(lines=False)
    package = import_domination(text, files, "gaps.map")
    assert sorted(map(sorted, package.data["sea_routes"])) == [["t1", "t3"], ["t2", "t3"], ["t2", "t4"],
                                                                      ["t4", "t5"]]


def test_a_seam_of_the_map_makers_size_is_closed_after_the_import_enlarges_it():
    """Eurasien's lines of 2 to 4 px between neighbours, at 677 px wide, are 5 to 10 px once the map is drawn
    1,600 px wide: they are closed at that size (one border, not two coasts with the picture's black line
    between), as a stored map that does not say how it was enlarged keeps its 3 px; a sea route's water stays."""
    from render.regions import build_geometry

    text, files = gap_map(lines=True)
    package = import_domination(text, files, "gaps.map")
    scale = package.data["seam_scale"]
    assert scale == 4.0                                   # 300 px wide: enlarged more than 4 times, at most 4
    middle = (round(80 * 1600 / 300), round(58.5 * 1600 / 300))   # the middle of Syrien–Jordanien's 2 px seam
    geometry = build_geometry(package.id, package.data, package.regions, package.background)
    assert geometry.label.getpixel(middle) in (1, 2)
    plain = {k: v for k, v in package.data.items() if k != "seam_scale"}
    assert build_geometry(package.id, plain, package.regions, package.background).label.getpixel(middle) == 0
    strait = {**package.data, "sea_routes": [*package.data["sea_routes"], ["t1", "t2"]]}
    assert build_geometry(package.id, strait, package.regions, package.background).label.getpixel(middle) == 0
