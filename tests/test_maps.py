"""Custom maps: the format's loader and its refusals, the Domination importer, the rules on other maps, and
renders of them. Every map here is drawn by tests/mapdraw.py."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import mapdraw
import pytest
from PIL import Image

from engine import Game, MapError, Player, Settings, SettingsError, load_map
from engine.simulate import play_game
from engine.verify import verify_events
from mapfiles import MapFileError, install, load_package, read_package_dir, write_package_dir
from mapfiles.domination import import_domination
from mapfiles.images import MAX_IMAGE_BYTES, open_image
from mapfiles.package import load_json_file, reopen, sibling_files
from render import encode_png, render_map
from render.geometry import geometry_for
from render.seats import fill_colour

OUT = Path(__file__).resolve().parent.parent / "out" / "maps"


@pytest.fixture(scope="module")
def world() -> mapdraw.World:
    return mapdraw.draw_world()


@pytest.fixture(scope="module")
def package(world):
    blob, files = mapdraw.our_files(world)
    pkg = load_package(blob, files)
    install(pkg)
    return pkg


def refused(data: dict, files: dict) -> str:
    with pytest.raises(MapFileError) as info:
        load_package(data, files)
    return str(info.value)


def edited(world, change) -> tuple[dict, dict]:
    blob, files = mapdraw.our_files(world)
    data = json.loads(blob)
    change(data)
    return data, files


# -- the format ----------------------------------------------------------------------------------------------
def test_a_map_in_our_format_loads_scaled_to_the_drawn_width(package, world):
    assert package.regions.width == 1600
    assert package.board.title == "Drawn Islands"
    assert len(package.board.territory_ids) == world.count
    assert package.board.players == (2, 8)
    assert package.board.border_count() == len(world.borders) + len(world.sea_routes)
    assert load_map(package.id) is package.board
    # The id names the content: loading it again gives the same id, and it survives a round trip.
    assert reopen(package.files()).id == package.id


def test_names_in_other_languages_come_from_the_file(package):
    board = package.board
    assert board.territory_name_in("nb", "t1") == "Nordnes"
    assert board.territory_name_in("es", "t1", short=True) == "C. Norte"
    assert board.territory_name_in("nb", "t2") is None
    assert board.title_in("es") == "Islas dibujadas"
    assert board.continent_name_in("nb", "c1").endswith("øya")
    # A player may type a name in any of the languages.
    assert board.resolve("Cabo Norte") == "t1"
    assert board.resolve("nordnes") == "t1"


@pytest.mark.parametrize("change,words", [
    (lambda d: d["territories"][0]["neighbours"].append("t3"), "one-way border"),
    (lambda d: d["territories"][0]["neighbours"].append("nowhere"), "unknown territory"),
    (lambda d: d["continents"][0]["territories"].remove("t1"), "in no continent"),
    (lambda d: d["continents"][1]["territories"].append("t1"), "in two continents"),
    (lambda d: d.update(continents=[*d["continents"], {"id": "c9", "name": "X", "bonus": 1,
                                                       "territories": ["ghost"]}]), "unknown territory"),
])
def test_boards_that_break_the_rules_are_refused(world, change, words):
    data, files = edited(world, change)
    assert words in refused(data, files)


def test_a_disconnected_map_is_refused(world):
    def cut(data):
        # The one sea route is the only way between the two islands.
        a, b = data["sea_routes"][0]
        for t in data["territories"]:
            if t["id"] == a:
                t["neighbours"].remove(b)
            if t["id"] == b:
                t["neighbours"].remove(a)
        data["sea_routes"] = []
    data, files = edited(world, cut)
    assert "not connected" in refused(data, files)


def test_a_region_image_that_does_not_match_the_territories_is_refused(world):
    data, files = edited(world, lambda d: None)
    fewer = mapdraw.our_map(world)
    fewer_img = world.regions()
    fewer_img.paste(0, (0, 0, fewer_img.width, fewer_img.height), fewer_img.point(lambda v: 255 if v == 3 else 0))
    assert "Territory t3 has no region" in refused(fewer, {**files, "regions.png": mapdraw.png(fewer_img)})
    stray = world.regions()
    stray.paste(200, (0, 0, 20, 20))
    assert "value 200" in refused(data, {**files, "regions.png": mapdraw.png(stray)})
    assert "must be the same size" in refused(data, {**files, "picture.png": mapdraw.png(Image.new("RGB", (99, 99)))})
    assert "it was not given" in refused(data, {"picture.png": files["picture.png"]})


def test_coloured_region_images_match_colours_to_territories(world):
    data = mapdraw.our_map(world)
    colours = [(40 + i * 9, 200 - i * 7, 90 + i * 5) for i in range(world.count)]
    for t, colour in zip(data["territories"], colours, strict=True):
        t["colour"] = "#" + bytes(colour).hex()
    values = world.regions()
    coloured = Image.new("RGB", values.size, (0, 0, 0))
    for i, colour in enumerate(colours):
        coloured.paste(colour, (0, 0, *values.size), values.point(lambda v, i=i: 255 if v == i + 1 else 0))
    pkg = load_package(data, {"regions.png": mapdraw.png(coloured), "picture.png": mapdraw.png(world.picture())})
    blob, files = mapdraw.our_files(world)
    assert pkg.regions.tobytes() == load_package(blob, files).regions.tobytes()
    coloured.paste((1, 2, 3), (0, 0, 5, 5))
    assert "#010203" in refused(data, {"regions.png": mapdraw.png(coloured),
                                       "picture.png": mapdraw.png(world.picture())})


def test_sizes_over_the_limits_are_refused(world):
    data, files = edited(world, lambda d: None)
    assert "larger than" in refused(json.dumps(data).encode() + b" " * (1024 * 1024), files)
    assert "larger than 8 MB" in refused(data, {**files, "regions.png": b"\0" * (MAX_IMAGE_BYTES + 1)})
    huge = io.BytesIO()
    Image.new("L", (6000, 3000)).save(huge, "PNG")    # 18 million pixels, a few KB of PNG
    assert "million pixels" in refused(data, {**files, "regions.png": huge.getvalue()})
    assert "not a picture" in refused(data, {**files, "regions.png": b"\x89PNG\r\n\x1a\nnot really"})
    assert "not valid JSON" in refused(b"[" * 100_000, files)
    assert "not valid JSON" in refused(b"{\"id\": ", files)
    many = mapdraw.our_map(world)
    many["territories"] = many["territories"] * 30
    assert "2 to 200 territories" in refused(many, files)
    tall = Image.new("L", (200, 400))
    assert "pixels high" in refused(data, {**files, "regions.png": mapdraw.png(tall), "picture.png":
                                           mapdraw.png(Image.new("RGB", (200, 400)))})


def test_a_decompression_bomb_is_refused_before_it_is_decoded(monkeypatch):
    bomb = io.BytesIO()
    Image.new("L", (3000, 3000)).save(bomb, "PNG")
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1_000_000)   # Pillow's own check fires first
    with pytest.raises(MapFileError, match="million pixels"):
        open_image(bomb.getvalue(), "bomb.png")


def test_names_inside_a_file_are_never_used_as_paths(tmp_path, world):
    secret = tmp_path / "secret.png"
    secret.write_bytes(mapdraw.png(world.regions()))
    folder = tmp_path / "map"
    folder.mkdir()
    data = mapdraw.our_map(world)
    data["images"] = {"regions": "../secret.png", "background": str(secret)}
    (folder / "map.json").write_text(json.dumps(data))
    assert sibling_files(folder / "map.json", data["images"]) == {}
    with pytest.raises(MapFileError, match="it was not given"):
        load_json_file(folder / "map.json")


def test_a_package_written_to_a_folder_reads_back_the_same(tmp_path, package):
    folder = write_package_dir(package, tmp_path / "out")
    assert sorted(p.name for p in folder.iterdir()) == ["background.png", "map.json", "regions.png"]
    assert read_package_dir(folder).id == package.id


# -- importers -----------------------------------------------------------------------------------------------
def same_board(a, b) -> None:
    """Two boards that are the same map: names, continents with bonuses, borders, sea lines, missions."""
    def shape(board):
        name = board.name
        return ({name(t): (board.continent_of(t).name, board.continent_of(t).bonus,
                           frozenset(name(n) for n in board.neighbours(t))) for t in board.territory_ids},
                sorted(tuple(sorted((name(x), name(y)))) for x, y in board.sea_routes),
                [{k: v for k, v in m.items() if k not in ("id", "description")} for m in board.missions
                 if m["kind"] != "destroy"])
    assert shape(a) == shape(b)


def test_a_domination_map_imports_into_the_same_board(world, package):
    map_text, files = mapdraw.domination_files(world)
    imported = import_domination(map_text, files, "drawn.map")
    shape_a = {package.board.name(t): package.board.territories[t].card for t in package.board.territory_ids}
    shape_b = {imported.board.name(t): imported.board.territories[t].card for t in imported.board.territory_ids}
    assert shape_a == shape_b
    same_board(imported.board, package.board)
    # The cards file's missions keep their words, and its destroy card its player (seat 0 is PLAYER1).
    assert [m.get("description") for m in imported.board.missions] == [
        "Conquer the first two islands", f"Conquer {world.count * 3 // 5} territories", "Destroy the first player"]
    assert imported.board.missions[-1] == {"id": "destroy-0", "kind": "destroy", "seat": 0,
                                           "description": "Destroy the first player"}
    # The region images agree: Domination's 255 became our sea.
    assert imported.regions.tobytes() == package.regions.tobytes()


@pytest.mark.parametrize("text,words", [
    (b"[countries]\n1 A 1 5 5\n", r"no \[continents\] section"),
    (b"[continents]\nA 2 red\n[countries]\n1 A 7 5 5\n[borders]\n1\n", "no continent 7"),
    (b"[continents]\nA x red\n[countries]\n[borders]\n", "should be a whole number"),
    (b"[continents]\nA 2 red\n[countries]\n2 A 1 5 5\n[borders]\n", "numbered 1, 2, 3"),
    (b"[continents]\nA 2 red\n[countries]\n1 A 1 5 5\n[borders]\n1 9\n", "no country 9"),
])
def test_broken_domination_files_are_refused_with_the_line(text, words):
    with pytest.raises(MapFileError, match=words):
        import_domination(text, {}, "broken.map")


def test_a_domination_map_without_its_region_image_is_refused(world):
    map_text, files = mapdraw.domination_files(world)
    with pytest.raises(MapFileError, match="it was not given"):
        import_domination(map_text, {k: v for k, v in files.items() if not k.endswith(".gif")}, "drawn.map")


# -- the rules on other maps ---------------------------------------------------------------------------------
def test_continent_bonuses_and_missions_come_from_the_map(package, world):
    board = package.board
    assert {c.id: c.bonus for c in board.continents.values()} == {"c1": world.bonuses[0], "c2": world.bonuses[1]}
    _, events = Game.new(["a", "b", "c"], "seed", {"map": package.id, "mode": "missions"})
    dealt = next(e for e in events if e["type"] == "missions_dealt")["missions"]
    kinds = {m["kind"] for m in dealt.values()}
    assert kinds <= {"continents", "territories", "destroy"}
    for mission in dealt.values():
        if mission["kind"] == "continents":
            assert mission["continents"] == ["c1", "c2"]
        if mission["kind"] == "territories":
            assert mission["count"] == world.count * 3 // 5


def test_a_mission_game_on_a_map_without_missions_is_refused(world):
    blob, files = mapdraw.our_files(world, with_missions=False)
    bare = load_package(blob, files)
    install(bare)
    settings = Settings(map=bare.id, mode="missions")
    with pytest.raises(SettingsError, match="has no missions"):
        settings.check_map()
    with pytest.raises(SettingsError, match="has no missions"):
        Game.new(["a", "b", "c"], "seed", settings)


def test_players_from_two_to_the_number_the_map_declares():
    big = mapdraw.draw_world(blocks=(2, 2), cells=(5, 5), size=(1600, 1000), seed=5)
    blob, files = mapdraw.our_files(big)
    pkg = load_package(blob, files)
    install(pkg)
    for n in (7, 8):
        _, events = Game.new([f"p{i}" for i in range(n)], "seed", {"map": pkg.id})
        armies = events[0]["starting_armies"]
        # 100 territories: more than the table's 20 or 18, so each player can hold what they claim.
        assert armies["0"] == max({7: 20, 8: 18}[n], -(-100 // n) * 3 // 2)
    with pytest.raises(SettingsError, match="2 to 8 players"):
        Game.new([f"p{i}" for i in range(9)], "seed", {"map": pkg.id})
    with pytest.raises(SettingsError, match="2 to 6 players"):
        Game.new([f"p{i}" for i in range(7)], "seed", {"map": "classic"})


def test_starting_armies_for_seven_and_eight_come_from_the_table():
    from engine.settings import STARTING_ARMIES, starting_armies

    assert STARTING_ARMIES[7] == 20 and STARTING_ARMIES[8] == 18
    assert starting_armies(8, 42) == 18 and starting_armies(6, 42) == 20 and starting_armies(2, 42) == 40


def test_the_classic_map_keeps_its_missions():
    board = load_map()
    assert [m["id"] for m in board.missions] == [
        "north_america+africa", "north_america+australia", "asia+south_america", "asia+africa",
        "europe+south_america+any", "europe+australia+any", "territories-24", "territories-18x2"]
    assert board.mission_fallback == 24


@pytest.mark.parametrize("source", ["ours", "domination"])
def test_a_full_ai_game_on_an_imported_map_verifies(world, package, source):
    if source == "ours":
        map_id = package.id
    else:
        map_text, files = mapdraw.domination_files(world)
        imported = import_domination(map_text, files, "drawn.map")
        install(imported)
        map_id = imported.id
    for settings, levels in (({"map": map_id}, ["normal", "easy", "easy"]),
                             ({"map": map_id, "mode": "missions", "fog": "on"}, ["normal", "normal"])):
        result = play_game(levels, f"seed-{source}", settings)
        assert result.game.over
        verify_events(result.events)


def test_a_map_unknown_to_the_engine_is_refused_by_name():
    with pytest.raises(MapError, match="no map called"):
        load_map("../../etc/passwd")
    with pytest.raises(SettingsError, match="no map called"):
        Settings(map="nowhere").check_map()


# -- renders -------------------------------------------------------------------------------------------------
def test_any_map_renders_with_each_territory_in_its_owners_colour(package):
    game, _ = Game.new([Player(0, "Ann"), Player(1, "Bob"), Player(2, "Cy")], "seed",
                       {"map": package.id, "deployment": "auto"})
    img = render_map(game.state)
    geo = geometry_for(package.id)
    assert img.width == 1600
    for tid, shape in geo.territories.items():
        crop = img.crop(shape.bbox)
        mask = geo.label.crop(shape.bbox).point(lambda v, value=shape.value: 255 if v == value else 0)
        colours = colours_in(crop, mask)
        assert colours.most_common(1)[0][0] == fill_colour(game.state.owners[tid], game.state), tid
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "drawn-islands.png").write_bytes(encode_png(img))


def colours_in(img, mask):
    """How many pixels of each colour ``img`` has where ``mask`` is set."""
    from collections import Counter

    raw, keep = img.tobytes(), mask.tobytes()
    return Counter(tuple(raw[i * 3: i * 3 + 3]) for i, k in enumerate(keep) if k)


def test_fog_capitals_and_teams_render_on_any_map(package):
    from engine import visible_territories

    game, _ = Game.new(["a", "b", "c", "d"], "seed", {"map": package.id, "deployment": "auto", "fog": "on",
                                                       "teams": "2v2"})
    seen = visible_territories(game.state, 0)
    img = render_map(game.state, viewer=0, visible=seen)
    assert img.size[0] == 1600
    capitals, _ = Game.new(["a", "b", "c"], "seed", {"map": package.id, "mode": "capitals", "deployment": "auto"})
    assert render_map(capitals.state).size[0] == 1600


# -- Conquer Club XML ----------------------------------------------------------------------------------------
def cc_import(world, **options):
    from mapfiles.conquerclub import import_conquerclub

    return import_conquerclub(mapdraw.conquerclub_xml(world), mapdraw.png(mapdraw.conquerclub_picture(world)),
                              name="drawn", **options)


def test_a_conquer_club_map_imports_into_the_same_board_by_flooding_its_picture(world, package):
    imported = cc_import(world)
    same_board_but_missions(imported.board, package.board)
    # Each territory's region is where the picture shows it: at its coordinate, and about as large.
    for tid in package.board.territory_ids:
        name = package.board.name(tid)
        other = next(t for t in imported.board.territory_ids if imported.board.name(t) == name)
        ours, theirs = geometry_for(package.id), None
        install(imported)
        theirs = geometry_for(imported.id)
        assert theirs.label.getpixel(theirs.territories[other].anchor) == theirs.territories[other].value
        assert abs(theirs.territories[other].area - ours.territories[tid].area) < 0.08 * ours.territories[tid].area


def test_a_conquer_club_map_with_a_region_image_uses_its_colours(world, package):
    values = world.regions()
    coloured = Image.new("RGB", values.size, (250, 250, 250))
    for i in range(world.count):
        coloured.paste((i * 13 % 200 + 20, 90, i * 7 % 250), (0, 0, *values.size),
                       values.point(lambda v, i=i: 255 if v == i + 1 else 0))
    imported = cc_import(world, regions_blob=mapdraw.png(coloured))
    same_board_but_missions(imported.board, package.board)
    assert imported.regions.tobytes() == package.regions.tobytes()


def same_board_but_missions(a, b) -> None:
    def shape(board):
        name = board.name
        return ({name(t): (board.continent_of(t).name, board.continent_of(t).bonus,
                           frozenset(name(n) for n in board.neighbours(t))) for t in board.territory_ids},
                sorted(tuple(sorted((name(x), name(y)))) for x, y in board.sea_routes))
    assert shape(a) == shape(b)


def test_conquer_club_continents_of_continents_are_left_out_and_named():
    from mapfiles.conquerclub import ImportNotes

    small = mapdraw.draw_world()
    xml = mapdraw.conquerclub_xml(small).decode().replace(
        "</map>", f"<continent><name>Everything</name><bonus>5</bonus><components><continent>"
                  f"{small.continent_names[0]}</continent><continent>{small.continent_names[1]}</continent>"
                  f"</components></continent></map>")
    notes = ImportNotes()
    from mapfiles.conquerclub import import_conquerclub

    pkg = import_conquerclub(xml.encode(), mapdraw.png(mapdraw.conquerclub_picture(small)), notes=notes)
    assert notes.skipped == ["Everything"]
    assert len(pkg.board.continents) == 2


@pytest.mark.parametrize("xml,words", [
    (b"<?xml version='1.0'?><!DOCTYPE m [<!ENTITY a 'aaaa'><!ENTITY b '&a;&a;&a;&a;'>]><map>&b;</map>",
     "not XML this bot can read"),
    (b"<map><continent/></map>", "no <territory>"),
    (b"<map><territory><name>A</name><borders><border>Nowhere</border></borders><coordinates><largex>5"
     b"</largex><largey>5</largey></coordinates></territory></map>", "which is no territory"),
    (b"<map><territory><name>A</name><coordinates><largex>x</largex></coordinates></territory></map>",
     "has no number"),
])
def test_broken_conquer_club_files_are_refused(world, xml, words):
    from mapfiles.conquerclub import import_conquerclub

    with pytest.raises(MapFileError, match=words):
        import_conquerclub(xml, mapdraw.png(world.picture()))


def test_a_flood_that_runs_into_the_sea_is_refused(world):
    xml = mapdraw.conquerclub_xml(world).decode()
    x, y = world.anchors[0]
    xml = xml.replace(f"<largex>{x}</largex><largey>{y}</largey>", "<largex>3</largex><largey>3</largey>", 1)
    from mapfiles.conquerclub import import_conquerclub

    with pytest.raises(MapFileError, match="runs into the sea"):
        import_conquerclub(xml.encode(), mapdraw.png(mapdraw.conquerclub_picture(world)))


def test_a_full_ai_game_on_a_conquer_club_map_verifies(world):
    imported = cc_import(world)
    install(imported)
    result = play_game(["normal", "easy", "normal"], "seed-cc", {"map": imported.id})
    assert result.game.over
    verify_events(result.events)


# -- bot.py map import ---------------------------------------------------------------------------------------
def test_the_command_line_imports_each_format_and_writes_a_preview(tmp_path, world, capsys):
    from mapfiles.cli import main

    map_text, files = mapdraw.domination_files(world)
    (tmp_path / "drawn.map").write_bytes(map_text)
    for name, blob in files.items():
        (tmp_path / name).write_bytes(blob)
    (tmp_path / "drawn.xml").write_bytes(mapdraw.conquerclub_xml(world))
    (tmp_path / "picture.png").write_bytes(mapdraw.png(mapdraw.conquerclub_picture(world)))
    assert main(["map", "import", str(tmp_path / "drawn.map"), "--out", str(tmp_path / "a")]) == 0
    assert "12 territories, 2 continents" in capsys.readouterr().out
    assert main(["map", "import", str(tmp_path / "drawn.xml"), "--picture", str(tmp_path / "picture.png"),
                 "--out", str(tmp_path / "b")]) == 0
    # What was written is a map in our format: it imports again, to the same id.
    assert main(["map", "import", str(tmp_path / "a" / "map.json"), "--out", str(tmp_path / "c")]) == 0
    out = capsys.readouterr().out
    assert read_package_dir(tmp_path / "a").id == read_package_dir(tmp_path / "c").id
    assert "id drawn" in out
    preview = Image.open(tmp_path / "a" / "preview.png")
    assert preview.width == 1600
    assert main(["map", "import", str(tmp_path / "drawn.xml")]) == 1
    assert "needs its picture" in capsys.readouterr().err


# -- a map of 100 territories: legible on a phone ------------------------------------------------------------
@pytest.fixture(scope="module")
def hundred():
    big = mapdraw.draw_world(blocks=(2, 2), cells=(5, 5), size=(1600, 1000), seed=5)
    blob, files = mapdraw.our_files(big)
    pkg = load_package(blob, files)
    install(pkg)
    return pkg


@pytest.mark.parametrize("language", ["en", "nb", "es"])
def test_a_hundred_territories_keep_every_word_and_badge_clear_of_the_others(hundred, language):
    from present.i18n import map_labels
    from render.base import static_layers
    from render.layout import overlaps

    layers = static_layers(hundred.board, map_labels(language, hundred.id))
    boxes = layers.layout.boxes
    assert len([b for b in boxes if b.kind == "label"]) == 100
    clashes = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if overlaps(a.box, b.box)]
    assert clashes == []
    geo = layers.geometry
    for b in boxes:
        assert 0 <= b.box[0] < b.box[2] <= geo.width and 0 <= b.box[1] < b.box[3] <= geo.height, b
    # Badges stand on their own territory, at the classic map's size (34 px at 1,600 px wide).
    for shape in geo.territories.values():
        assert geo.label.getpixel(shape.anchor) == shape.value
    legend = layers.layout.legend
    assert sum(geo.label.crop(legend).histogram()[1:]) == 0   # the legend covers no land


def test_a_hundred_territory_game_of_eight_renders_small_enough_and_every_seat_differs(hundred):
    from render.seats import seat_colour, seat_shape

    game, _ = Game.new([f"P{i}" for i in range(8)], "seed", {"map": hundred.id, "deployment": "auto"})
    img = render_map(game.state)
    data = encode_png(img)
    assert len(data) < 300_000
    looks = {(seat_colour(s, game.state), seat_shape(s)) for s in range(8)}
    assert len({c for c, _ in looks}) == 8 and len({s for _, s in looks}) == 8
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "hundred-eight-players.png").write_bytes(data)


def test_a_timelapse_of_a_game_on_a_custom_map(package):
    from render.replay import timelapse

    result = play_game(["normal", "normal"], "lapse", {"map": package.id, "max_rounds": 3})
    data, kind = timelapse(result.events, width=400)
    assert kind == "webp"
    frames = Image.open(io.BytesIO(data))
    assert frames.n_frames >= 2 and frames.width == 400


def test_the_command_line_verifies_a_game_on_a_custom_map(tmp_path, package, monkeypatch, capsys):
    import engine.board
    from engine.verify import main as verify_main

    result = play_game(["normal", "normal", "easy"], "seed-cli", {"map": package.id})
    log = tmp_path / "game.jsonl"
    log.write_text("\n".join(json.dumps(e) for e in result.events) + "\n")
    folder = write_package_dir(package, tmp_path / "map")
    monkeypatch.setattr(engine.board, "_registered", {})   # a fresh process: the map is not known
    assert verify_main([str(log)]) == 2   # the map is unknown: said so, not a mismatch
    assert verify_main([str(log), "--map", str(folder / "map.json")]) == 0
    assert capsys.readouterr().out.strip().endswith("OK")


def test_badges_are_sized_to_the_maps_density():
    from render.regions import MIN_BADGE, badge_size
    from render.style import BADGE_SIZE

    assert badge_size([12_000] * 100) == BADGE_SIZE      # roomy territories: the classic size
    assert badge_size([6_400] * 160) == 27               # a third of a typical 80 px territory
    assert badge_size([900] * 200) == MIN_BADGE          # never too small to read
    dense = mapdraw.draw_world(blocks=(2, 2), cells=(8, 5), size=(1600, 1000), seed=8)
    blob, files = mapdraw.our_files(dense)
    pkg = load_package(blob, files)
    install(pkg)
    from render.base import static_layers
    from render.layout import overlaps

    geo = geometry_for(pkg.id)
    assert MIN_BADGE <= geo.badge_size < BADGE_SIZE
    boxes = static_layers(pkg.board).layout.boxes
    assert [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if overlaps(a.box, b.box)] == []
    game, _ = Game.new([f"P{i}" for i in range(8)], "seed", {"map": pkg.id, "deployment": "auto"})
    img = render_map(game.state)
    x, y = geo.territories["t1"].anchor
    # The badge is drawn at its size: its ring (the palest pixel round the count) is inside the small radius.
    assert img.getpixel((x + geo.badge_size // 2 + 3, y)) != img.getpixel((x + geo.badge_size // 2 - 3, y))


def test_messages_and_the_map_use_the_names_the_file_gives_in_the_readers_language(package):
    from present.i18n import continent_name, map_labels, territory_name

    board = package.board
    assert territory_name(board, "t1", "no") == "Nordnes"
    assert territory_name(board, "t1", "es-ES", short=True) == "C. Norte"
    assert territory_name(board, "t2", "es-ES") == board.name("t2")     # not given: the English name
    assert continent_name(board, "c1", "es-ES").startswith("Isla ")
    labels = map_labels("es", package.id)
    assert labels.short(board, "t1") == "C. Norte" and labels.continent(board, "c1").startswith("Isla ")
    img = render_map(Game.new(["a", "b", "c"], "seed", {"map": package.id})[0].state, labels=labels)
    assert img.width == 1600


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:3]):
            yield from _paths(v, (*path, i))


JUNK = (None, 7, -1, 2.5, True, "", "x", [], {}, [[]], {"a": [1]}, ["t1", ["t2"]], [None])


def test_any_broken_value_anywhere_in_a_map_file_is_a_clear_refusal(world):
    """Every value of the map file replaced in turn by junk of every kind: the map loads or is refused with a
    MapFileError, never another exception."""
    import copy

    full = mapdraw.our_map(world)
    _, files = mapdraw.our_files(world)
    # Bringing the picture to the drawn size is most of a load and reads no value of the file: every value is
    # tried on the map without its picture, and the entry that names the picture on the map with it.
    bare = copy.deepcopy(full)
    del bare["images"]["background"]
    tried = 0
    for path in list(_paths(full))[1:]:
        base = full if path[:2] == ("images", "background") else bare
        for junk in JUNK:
            data = copy.deepcopy(base)
            node = data
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = junk
            with contextlib.suppress(MapFileError):
                load_package(data, files)
            tried += 1
    assert tried > 500


@pytest.mark.slow  # every line of a file broken in turn: the slow suite
def test_any_line_of_a_domination_file_broken_is_a_clear_refusal(world):
    text, files = mapdraw.domination_files(world)
    lines = text.decode().splitlines()
    for i in range(len(lines)):
        for junk in ("", "x", "1 2", "999 999 999 999 999", "[countries]", "-1 A 1 5 5", "1 A 1 x y", "\x00"):
            broken = "\n".join([*lines[:i], junk, *lines[i + 1:]]).encode()
            with contextlib.suppress(MapFileError):
                import_domination(broken, files, "drawn.map")


@pytest.mark.slow  # every line of a file broken in turn: the slow suite
def test_any_value_of_a_conquer_club_file_broken_is_a_clear_refusal(world):
    import re

    from mapfiles.conquerclub import import_conquerclub

    xml = mapdraw.conquerclub_xml(world).decode()
    picture = mapdraw.png(mapdraw.conquerclub_picture(world))
    regions = mapdraw.png(world.regions().convert("RGB"))   # no flood: the XML is what is tried here
    values = list(re.finditer(r">([^<>\n]+)<", xml))
    for match in values[:: max(1, len(values) // 12)]:
        for junk in ("", "-5", "99999", "x", "&amp;"):
            broken = xml[: match.start(1)] + junk + xml[match.end(1):]
            with contextlib.suppress(MapFileError):
                import_conquerclub(broken.encode(), picture, regions)


# -- odd shapes: every loop ends ----------------------------------------------------------------------------
def strips_map(widths: tuple[int, ...], size: tuple[int, int] = (1600, 600), **extra) -> tuple[dict, dict]:
    """A map of plain rectangles side by side, filling the picture from edge to edge (no sea, no anchors)."""
    regions = Image.new("L", size, 0)
    x = 0
    for i, w in enumerate(widths):
        regions.paste(i + 1, (x, 0, x + w, size[1]))
        x += w
    n = len(widths)
    data = {"id": "strips", "name": "Strips", "players": {"min": 2, "max": 3},
            "continents": [{"id": "c1", "name": "All", "bonus": 2, "territories": [f"t{i + 1}" for i in range(n)]}],
            "territories": [{"id": f"t{i + 1}", "name": f"Strip {i + 1}", "continent": "c1",
                             "neighbours": [f"t{j + 1}" for j in (i - 1, i + 1) if 0 <= j < n]} for i in range(n)],
            "images": {"regions": "regions.png"}, **extra}
    return data, {"regions.png": mapdraw.png(regions)}


def test_the_deepest_point_of_any_shape_is_found_in_a_bounded_number_of_passes():
    from render.regions import interior_point

    full = Image.new("L", (40, 20), 255)                 # fills its whole box: Pillow's filter repeats its edge
    assert interior_point(full) in {(19, 9), (20, 10), (19, 10), (20, 9)}
    assert interior_point(Image.new("L", (1, 1), 255)) == (0, 0)
    assert interior_point(Image.new("L", (1, 300), 255)) == (0, 149) or \
        interior_point(Image.new("L", (1, 300), 255)) == (0, 150)   # a sliver a pixel wide
    ring = Image.new("L", (30, 30), 255)
    ring.paste(0, (10, 10, 20, 20))
    x, y = interior_point(ring)
    assert ring.getpixel((x, y)) == 255
    with pytest.raises(ValueError, match="empty"):
        interior_point(Image.new("L", (5, 5), 0))


def test_a_map_of_plain_rectangles_without_anchors_loads_and_draws(tmp_path, capsys):
    data, files = strips_map((700, 892, 8))              # the last one a sliver along the edge
    pkg = load_package(data, files)
    install(pkg)
    geometry = geometry_for(pkg.id)
    for tid, shape in geometry.territories.items():
        assert pkg.regions.getpixel(shape.anchor) == shape.value, tid
    game, _ = Game.new(["A", "B"], "strips", {"map": pkg.id})
    assert render_map(game.state).width == 1600
    # and from the command line, which used to wait for ever
    from mapfiles.cli import main

    (tmp_path / "strips.json").write_text(json.dumps(data))
    (tmp_path / "regions.png").write_bytes(files["regions.png"])
    assert main(["map", "import", str(tmp_path / "strips.json"), "--out", str(tmp_path / "out")]) == 0
    assert "3 territories" in capsys.readouterr().out


def test_a_sea_route_between_far_points_is_dashed_in_a_bounded_number_of_strokes():
    from PIL import ImageDraw

    from render.base import _dashed

    img = Image.new("L", (50, 50))
    draw = ImageDraw.Draw(img)
    for end in (float("inf"), float("nan"), 1e300):
        _dashed(draw, 0, 0, end, 10, 6, 4, 2)           # nothing drawn, and no endless loop
    _dashed(draw, 0, 0, 10, 10, 0, 0, 2)
    _dashed(draw, 0, 10, 40, 10, 6, 4, 2)
    assert img.getbbox() is not None


# -- refusals of a map's values ---------------------------------------------------------------------------
@pytest.mark.parametrize("anchor", [float("nan"), float("inf"), float("-inf")])
def test_an_anchor_that_is_not_a_finite_number_is_refused(anchor):
    data, files = strips_map((800, 800))
    data["territories"][0]["anchor"] = [anchor, 10]
    blob = json.dumps(data).encode()                     # JSON as Python writes it: NaN, Infinity
    with pytest.raises(MapFileError, match="must be two finite numbers"):
        load_package(blob, files)
    data["territories"][0].pop("anchor")
    data["continents"][0]["label"] = [5, anchor]
    with pytest.raises(MapFileError, match="must be two finite numbers"):
        load_package(data, files)


def test_a_map_with_fewer_territories_than_armies_is_refused():
    data, files = strips_map((800, 800))                 # two players and the neutral army need three
    with pytest.raises(MapFileError, match="2 territories, too few for 3 armies"):
        load_package(data, files)
    data, files = strips_map((400, 400, 400, 400), players={"min": 2, "max": 6})
    with pytest.raises(MapFileError, match="4 territories, too few for 6 armies"):
        load_package(data, files)
    data, files = strips_map((400, 400, 400, 400))       # no players given: as many as there are territories
    del data["players"]
    assert load_package(data, files).board.players == (2, 4)


def test_a_board_made_by_hand_with_too_few_territories_does_not_start_a_game():
    from engine.board import Board, Continent, Territory, register_map

    territories = [Territory(f"h{i}", f"H{i}", f"H{i}", "c", "infantry", (), frozenset({f"h{1 - i}"}))
                   for i in range(2)]
    board = Board("by-hand", "By hand", territories, [Continent("c", "C", 1, ("h0", "h1"))], [], players=(2, 4))
    register_map(board)
    with pytest.raises(SettingsError, match="too few for 4 armies"):
        Game.new(["A", "B", "C", "D"], "seed", {"map": "by-hand"})


# -- Domination's [files]: the rest of the line ------------------------------------------------------------
def test_domination_file_names_with_spaces_are_read_whole(world, package):
    map_text, files = mapdraw.domination_files(world)
    text = map_text.decode()
    renamed = {}
    for name, blob in files.items():
        spaced = name.replace("drawn_", "drawn islands; ")
        text = text.replace(name, spaced)
        renamed[spaced] = blob
    imported = import_domination(text.encode(), renamed, "drawn.map")
    same_board(imported.board, package.board)
    assert imported.background is not None
    assert imported.regions.tobytes() == package.regions.tobytes()


# -- names from a map are text, not markup ----------------------------------------------------------------
HOSTILE = ("[x](https://e.vil)", "||spoiler||", "# heading", "<@123>", "@everyone", "\u202eevil")


def hostile_map() -> tuple[dict, dict]:
    data, files = strips_map((400, 400, 400, 400))
    data["name"] = "\u202e" + "Evil\x07 map\n# big"
    for t, name in zip(data["territories"], HOSTILE, strict=False):
        t["name"] = t["short"] = name + "\u2066"
    data["continents"][0]["name"] = "||All||\u202e"
    return data, files


def test_control_characters_are_taken_out_of_every_name_when_a_map_is_loaded():
    data, files = hostile_map()
    board = load_package(data, files).board
    assert board.title == "Evil map # big"
    names = [board.name(t) for t in board.territory_ids]
    assert names == ["[x](https://e.vil)", "||spoiler||", "# heading", "<@123>"]
    assert board.continents["c1"].name == "||All||"
    every = json.dumps(load_package(data, files).data, ensure_ascii=False)
    assert not any(ch in every for ch in "\u202e\u2066\x07")


# -- an upload's check: in a process of its own, with a time limit --------------------------------------------
def spin_for_ever() -> None:
    while True:
        pass


def refuse_a_map() -> None:
    raise MapError("territory “{territory}” borders itself", territory="t1")


def test_an_upload_check_that_does_not_end_is_stopped_and_refused():
    from mapfiles.checking import run_bounded

    with pytest.raises(MapFileError, match="took longer than 1 seconds") as info:
        run_bounded(spin_for_ever, (), 1.0)
    assert info.value.template.startswith("Checking the map took longer")   # translated where it is read
    assert info.value.params == {"seconds": 1}


def test_an_upload_checks_refusal_comes_back_as_a_template_with_its_values():
    from mapfiles.checking import run_bounded

    with pytest.raises(MapFileError) as info:
        run_bounded(refuse_a_map, (), 60.0)
    assert info.value.template == "The map is not a valid board: {reason}."
    assert info.value.inner is not None and info.value.inner.params == {"territory": "t1"}


def test_the_whole_check_of_an_upload_gives_its_files_preview_and_thumbnail(world):
    from mapfiles.checking import check_upload_bounded

    map_text, files = mapdraw.domination_files(world)
    checked = check_upload_bounded({"drawn.map": map_text, **files})
    assert Image.open(io.BytesIO(checked.preview)).width == 1600
    assert Image.open(io.BytesIO(checked.thumbnail)).width == 240
    assert reopen(checked.files).id == checked.map_id


def test_a_thumbnail_drawn_from_the_stored_files_is_the_one_drawn_from_the_geometry(package):
    from mapfiles.upload import package_thumbnail, thumbnail

    from_files = package_thumbnail(package.data, package.regions)
    from_geometry = thumbnail(geometry_for(package.id), package.board)
    assert from_files.size == from_geometry.size == (240, round(package.regions.height * 240 / 1600))
    assert from_files.tobytes() == from_geometry.tobytes()
