"""A server's maps through the real command tree: /risk map add and remove, /risk map list, /risk new map:NAME."""

from __future__ import annotations

import io
import json
from pathlib import Path

import discord
import mapdraw
import pytest
from discord_helpers import OfflineDiscord, make_bot, record_worker_tasks
from PIL import Image

from render.phone import OUTPUT_WIDTH

pytestmark = [pytest.mark.asyncio, pytest.mark.real_render]  # what the maps of a server's map show


@pytest.fixture(scope="module")
def world() -> mapdraw.World:
    return mapdraw.draw_world(seed=21)


def domination(world) -> dict[str, tuple[str, bytes]]:
    text, files = mapdraw.domination_files(world, "isles")
    options = {"file": ("isles.map", text)}
    for key, (name, blob) in zip(("file2", "file3", "file4"), files.items(), strict=True):
        options[key] = (name, blob)
    return options


def record_upload_checks(monkeypatch) -> list[str]:
    """The names of the checks the bot runs in a process of their own from now on (they still run there)."""
    from mapfiles import checking

    names: list[str] = []
    run = checking.run_bounded

    def recording(work, args, seconds):
        names.append(work.__name__)
        return run(work, args, seconds)

    monkeypatch.setattr(checking, "run_bounded", recording)
    return names


async def add_map(d: OfflineDiscord, options) -> object:
    d.set_permissions("alice", manage_guild=True)
    return await d.send_command("alice", "general", "risk map add", options)


async def test_a_manager_adds_a_map_sees_a_preview_and_a_game_is_played_on_it(tmp_path: Path, world, monkeypatch):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        drawn = record_worker_tasks(monkeypatch)
        checks = record_upload_checks(monkeypatch)
        step = await add_map(d, domination(world))
        assert not step.problems, step.problems
        answer = step[-1]
        assert answer.ephemeral and "Added the map Isles: 12 territories, 2 continents, 2 to 4 players" \
            in answer.content
        preview = Image.open(io.BytesIO(answer.attachments[0].data))
        assert preview.width == 1600
        # Checked and drawn in a process of its own, not in the workers that draw the games' maps
        assert drawn == [] and checks == ["check_upload"]
        maps = await d.bot.store.list_maps(d.guild.id)
        assert [m.name for m in maps] == ["Isles"]
        # /risk new offers it, and a game on it starts and draws it.
        choices = await d.autocomplete("bob", "general", "risk new", {"map": "isl"}, focused="map")
        assert choices[0]["value"] == maps[0].map_id
        step = await d.send_command("bob", "general", "risk new", {"map": maps[0].map_id})
        assert not step.problems, step.problems
        assert "Isles" in json.dumps(step[0].embeds)
        assert "(1/4)" in json.dumps(step[0].embeds)
        for _ in range(2):
            await d.send_command("bob", "general", "risk addbot", {})
        step = await d.send_command("bob", "general", "risk start", {})
        assert not step.problems, step.problems
        images = [a for m in step for a in m.attachments if a.filename.endswith(".png")]
        assert images and Image.open(io.BytesIO(images[-1].data)).width == OUTPUT_WIDTH  # the panel's phone view
        await whole_map_is_drawn(d)
        record = (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]
        assert record.settings["map"] == maps[0].map_id and record.status == "running"


async def test_maps_lists_built_in_and_server_maps_with_thumbnails(tmp_path: Path, world, monkeypatch):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await add_map(d, domination(world))
        drawn = record_worker_tasks(monkeypatch)
        step = await d.send_command("bob", "general", "risk map list", {})
        assert not step.problems, step.problems
        text = json.dumps(step[-1].embeds)
        assert "Classic World Domination" in text and "Isles" in text and "built in" in text
        sheet = Image.open(io.BytesIO(step[-1].attachments[0].data))
        assert sheet.width > 480   # at least two thumbnails in a row
        assert drawn == ["sheet_png"]
        # Each thumbnail is drawn once and kept by map id: the next list draws none, and shows the same sheet.
        from cogs.maps import commands
        from cogs.shared.map_choice import server_maps
        from mapfiles import previews

        ids = [m for m, _board in await server_maps(d.bot.store, d.guild.id)]
        assert set(ids) <= set(commands._thumbnails)
        again = await d.send_command("bob", "general", "risk map list", {})
        assert again[-1].attachments[0].data == step[-1].attachments[0].data
        kept = [(m, m, commands._thumbnails[m]) for m in ids]
        assert previews.sheet_png(kept)[1] == {}


async def test_only_a_manager_adds_or_removes_maps(tmp_path: Path, world):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        step = await d.send_command("bob", "general", "risk map add", domination(world))
        assert step[0].ephemeral and "Only members who can manage the server" in step[0].content
        await add_map(d, domination(world))
        map_id = (await d.bot.store.list_maps(d.guild.id))[0].map_id
        step = await d.send_command("bob", "general", "risk map remove", {"name": map_id})
        assert step[0].ephemeral and "Only members who can manage the server" in step[0].content
        choices = await d.autocomplete("alice", "general", "risk map remove", {"name": "is"}, focused="name")
        assert [c["value"] for c in choices] == [map_id]
        step = await d.send_command("alice", "general", "risk map remove", {"name": map_id})
        assert "Removed the map Isles" in step[0].content
        assert await d.bot.store.list_maps(d.guild.id) == []
        step = await d.send_command("alice", "general", "risk map remove", {"name": map_id})
        assert step[0].ephemeral and "has no map" in step[0].content
        step = await d.send_command("bob", "general", "risk new", {"map": map_id})
        assert step[0].ephemeral and "There is no map" in step[0].content


async def test_broken_uploads_are_refused_in_the_players_words(tmp_path: Path, world):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        step = await add_map(d, {"file": ("isles.map", b"[countries]\n1 A 1 2 2\n")})
        assert step[-1].ephemeral and "isles.map has no [continents] section" in step[-1].content
        data, files = mapdraw.our_files(world)
        broken = json.loads(data)
        broken["territories"][0]["neighbours"].append(broken["territories"][5]["id"])
        step = await add_map(d, {"file": ("m.json", json.dumps(broken).encode()),
                                 "file2": ("regions.png", files["regions.png"]),
                                 "file3": ("picture.png", files["picture.png"])})
        assert step[-1].ephemeral and "one-way border" in step[-1].content
        d.set_permissions("bob", manage_guild=True)
        step = await d.send_command("bob", "general", "risk map add",
                                    {"file": ("m.json", json.dumps(broken).encode()),
                                     "file2": ("regions.png", files["regions.png"]),
                                     "file3": ("picture.png", files["picture.png"])}, locale="no")
        assert "Kartet er ikke et gyldig brett: enveisgrense" in step[-1].content   # the engine's words too
        step = await add_map(d, {"file": ("a.png", files["regions.png"])})
        assert step[-1].ephemeral and "Send one map file" in step[-1].content
        # In Norwegian: the refusal is translated.
        step = await d.send_command("alice", "general", "risk map add", {"file": ("a.png", files["regions.png"])},
                                    locale="no")
        assert "Send én kartfil" in step[-1].content
        assert await d.bot.store.list_maps(d.guild.id) == []


async def test_a_mission_game_on_a_map_without_missions_is_refused_at_new(tmp_path: Path, world):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        data, files = mapdraw.our_files(world, with_missions=False)
        step = await add_map(d, {"file": ("m.json", data), "file2": ("regions.png", files["regions.png"]),
                                 "file3": ("picture.png", files["picture.png"])})
        assert not step.problems, step.problems
        map_id = (await d.bot.store.list_maps(d.guild.id))[0].map_id
        step = await d.send_command("bob", "general", "risk new", {"map": map_id, "mode": "missions"})
        assert step[0].ephemeral and "has no missions" in step[0].content
        step = await d.send_command("bob", "general", "risk new", {"map": map_id, "mode": "missions"},
                                    locale="es-ES")
        assert "no tiene misiones" in step[0].content


async def test_after_a_restart_a_stored_map_is_drawn_from_the_database(tmp_path: Path, world, monkeypatch):
    import engine.board
    import render.geometry

    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await add_map(d, domination(world))
        map_id = (await d.bot.store.list_maps(d.guild.id))[0].map_id
    # A new process knows nothing of the map until the store opens and a render meets it.
    monkeypatch.setattr(engine.board, "_registered", {})
    monkeypatch.setattr(render.geometry, "_sources", {})
    monkeypatch.setattr(render.geometry, "_others", {})
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        await d.send_command("bob", "general", "risk new", {"map": map_id})
        await d.send_command("bob", "general", "risk addbot", {})
        step = await d.send_command("bob", "general", "risk start", {})
        assert not step.problems, step.problems
        images = [a for m in step for a in m.attachments if a.filename.endswith(".png")]
        assert images and Image.open(io.BytesIO(images[-1].data)).width == OUTPUT_WIDTH
        await whole_map_is_drawn(d)


async def whole_map_is_drawn(d: OfflineDiscord) -> None:
    """The player on turn taps Map on the live panel: the stored map, whole (1600 px wide)."""
    record = (await d.bot.store.list_games(channel_id=d.channel("general").id, limit=1))[0]
    panel = await d.bot.store.live_panel(record.id)
    assert panel is not None
    step = await d.click("bob", "Map", d.message(panel.message_id))
    assert not step.problems, step.problems
    assert step[-1].ephemeral and Image.open(io.BytesIO(step[-1].attachments[0].data)).width == 1600


async def test_a_conquer_club_map_is_added_with_its_picture_and_its_left_out_bonuses_named(tmp_path: Path, world):
    xml = mapdraw.conquerclub_xml(world).decode().replace(
        "</map>", f"<continent><name>Both Isles</name><bonus>9</bonus><components><continent>"
                  f"{world.continent_names[0]}</continent><continent>{world.continent_names[1]}</continent>"
                  f"</components></continent></map>")
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        step = await add_map(d, {"file": ("isles.xml", xml.encode()),
                                 "file2": ("isles.png", mapdraw.png(mapdraw.conquerclub_picture(world)))})
        assert not step.problems, step.problems
        assert "Added the map Isles: 12 territories, 2 continents" in step[-1].content
        assert "Left out, as bonuses our rules do not have: Both Isles." in step[-1].content


async def test_a_domination_map_is_added_with_its_files_of_names_in_six_attachments(tmp_path: Path, world):
    from engine import load_map

    options = domination(world)
    first = world.names[0]
    options["file5"] = ("isles_nb.properties", f"{first}=Nordnes\n".encode())
    options["file6"] = ("isles_es.properties", f"{first}=Cabo_Norte\n".encode("latin-1"))
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        step = await add_map(d, options)
        assert not step.problems, step.problems
        assert "Added the map Isles: 12 territories" in step[-1].content
        (stored,) = await d.bot.store.list_maps(d.guild.id)
        board = load_map(stored.map_id)
        assert board.territory_name_in("nb", "t1") == "Nordnes"
        assert board.territory_name_in("es", "t1") == "Cabo Norte"


async def test_a_bot_that_cannot_post_maps_says_which_permission_it_lacks(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        d.server.bot_permissions = discord.Permissions(send_messages=True, embed_links=True)
        step = await d.send_command("alice", "general", "risk new", {})
        assert step[0].ephemeral and "I need these permissions in this channel: Attach Files." in step[0].content
        assert await d.bot.store.get_active_game(d.channel("general").id) is None


def strips(names: list[str], title: str) -> dict[str, tuple[str, bytes]]:
    """A map of plain rectangles filling the picture from edge to edge, with no anchors."""
    regions = Image.new("L", (1600, 600), 0)
    for i in range(len(names)):
        regions.paste(i + 1, (i * 400, 0, (i + 1) * 400, 600))
    n = len(names)
    data = {"id": "strips", "name": title, "players": {"min": 2, "max": 3},
            "continents": [{"id": "c1", "name": "||All||\u202e", "bonus": 2,
                            "territories": [f"t{i + 1}" for i in range(n)]}],
            "territories": [{"id": f"t{i + 1}", "name": name, "continent": "c1",
                             "neighbours": [f"t{j + 1}" for j in (i - 1, i + 1) if 0 <= j < n]}
                            for i, name in enumerate(names)],
            "images": {"regions": "regions.png"}}
    return {"file": ("strips.json", json.dumps(data).encode()), "file2": ("regions.png", mapdraw.png(regions))}


async def test_a_map_of_plain_rectangles_is_added(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        step = await add_map(d, strips(["West", "Middle", "East", "Far East"], "Strips"))
        assert not step.problems, step.problems
        assert "Added the map Strips: 4 territories" in step[-1].content
        assert [m.name for m in await d.bot.store.list_maps(d.guild.id)] == ["Strips"]


async def test_a_map_whose_check_takes_too_long_is_refused_and_not_stored(tmp_path: Path, monkeypatch):
    from cogs.maps import commands

    monkeypatch.setattr(commands, "UPLOAD_SECONDS", 0.001)
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        step = await add_map(d, strips(["West", "Middle", "East", "Far East"], "Strips"))
        assert step[-1].ephemeral and "took longer than 0 seconds, so it was not added" in step[-1].content
        d.set_permissions("alice", manage_guild=True)
        step = await d.send_command("alice", "general", "risk map add",
                                    strips(["West", "Middle", "East", "Far East"], "Strips"), locale="es-ES")
        assert "no se ha añadido" in step[-1].content
        assert await d.bot.store.list_maps(d.guild.id) == []


HOSTILE = ["[x](https://e.vil)", "||spoiler||", "# heading", "<@123> @everyone\u202e"]


async def test_names_from_a_map_reach_messages_as_plain_text(tmp_path: Path):
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        step = await add_map(d, strips(HOSTILE, "\u202e[Evil](https://e.vil) @everyone"))
        assert not step.problems, step.problems
        map_id = (await d.bot.store.list_maps(d.guild.id))[0].map_id
        step = await d.send_command("bob", "general", "risk map list", {})
        choices = await d.autocomplete("bob", "general", "risk new", {"map": "evil"}, focused="map")
        names = [c["name"] for c in choices]
        step_new = await d.send_command("bob", "general", "risk new", {"map": map_id})
        assert not step_new.problems, step_new.problems
        shown = json.dumps([[m.content, m.embeds] for m in (*step, *step_new)], ensure_ascii=False)
        assert "Evil" in shown
        for raw in ("](https", "\u202e"):
            assert raw not in shown, raw
        assert "@everyone" not in shown.replace("@\u200beveryone", "")
        assert "[Evil](https://e.vil) @everyone" in names   # a label shows no markdown: as written, controls out
        # The territories' and continent's names inside sentences: event lines, refusals, missions
        from engine import load_map
        from engine.errors import Territory
        from present.refusals import translate_template
        from present.text import continent_text, fog_name

        board = load_map(map_id)
        lines = [fog_name(board, t, "en-US") for t in board.territory_ids]
        lines += [translate_template("{territory} is not yours", {"territory": Territory(t, board.name(t))}, "nb")
                  for t in board.territory_ids]
        lines.append(continent_text(board, "c1", "es-ES"))
        text = "\n".join(lines)
        for raw in ("](https", "||spoiler||", "\n# heading", "<@123>", "\u202e", "||All||"):
            assert raw not in "\n" + text, raw
        assert "@everyone" not in text.replace("@\u200beveryone", "")
        assert lines[2] == "\\# heading"


async def test_an_import_error_names_the_file_and_the_line_in_the_managers_language(tmp_path: Path, world):
    """Our format, Domination's and Conquer Club's: the refusal says which file and which line (and column,
    where the file's syntax breaks), in the language of the manager who sent it."""
    _, files = mapdraw.our_files(world)
    broken_json = b'{\n  "id": "isles",\n  "name": "Isles",,\n}'
    broken_map = b"[files]\nmap isles_map.png\n[continents]\nNorth 3 red\n[countries]\n1 Ice 1 two 2\n[borders]\n1\n"
    broken_xml = b"<map>\n<territory>\n<name>A</name>\n</map>"
    pictures = {"file2": ("regions.png", files["regions.png"]), "file3": ("picture.png", files["picture.png"])}
    async with OfflineDiscord(make_bot(tmp_path / "g.db")) as d:
        d.set_permissions("alice", manage_guild=True)
        cases = [
            ({"file": ("isles.json", broken_json), **pictures},
             ("Line 3, column 19 of isles.json", "Linje 3, kolonne 19 i isles.json",
              "Línea 3, columna 19 de isles.json")),
            ({"file": ("isles.map", broken_map)},
             ("Line 6 of isles.map", "Linje 6 i isles.map", "Línea 6 de isles.map")),
            ({"file": ("isles.xml", broken_xml), "file2": ("isles.png", files["picture.png"])},
             ("Line 4, column 3 of isles.xml", "Linje 4, kolonne 3 i isles.xml",
              "Línea 4, columna 3 de isles.xml")),
        ]
        for options, words in cases:
            for locale, expected in zip(("en-US", "no", "es-ES"), words, strict=True):
                step = await d.send_command("alice", "general", "risk map add", options, locale=locale)
                assert step[-1].ephemeral and expected in step[-1].content, (locale, step[-1].content)
        assert await d.bot.store.list_maps(d.guild.id) == []
