"""The command-line tools on a custom map: ``python -m engine.simulate --map``, ``python -m engine.verify --map`` and
``python -m render LOG --map`` take a map package (its map.json or its folder), a built-in map's id, and for the
renderer a map stored in the bot's database."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import mapdraw
import pytest
from PIL import Image

import engine.board
from engine.simulate import main as simulate
from engine.verify import main as verify
from mapfiles.package import load_package, write_package_dir
from render.__main__ import main as render

pytestmark = pytest.mark.real_render  # the renderer draws the custom map itself


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A map package as ``bot.py map import`` writes it, and its id."""
    blob, files = mapdraw.our_files(mapdraw.draw_world(seed=5))
    package = load_package(blob, files)
    return write_package_dir(package, tmp_path_factory.mktemp("maps") / "isles"), package.id


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that has met no custom map yet, as each command is."""
    monkeypatch.setattr(engine.board, "_registered", {})


def logs(out: Path) -> list[Path]:
    return sorted(out.glob("game-*.jsonl"))


def test_a_simulation_plays_on_a_map_package_and_its_log_verifies_and_renders(
        tmp_path: Path, folder: tuple[Path, str], fresh: None, capsys: pytest.CaptureFixture[str]):
    path, map_id = folder
    assert simulate(["--map", str(path / "map.json"), "--players", "3", "--games", "2", "--quiet",
                     "--out", str(tmp_path / "a")]) == 0
    assert simulate(["--map", str(path), "--players", "3", "--games", "2", "--quiet", "--out",
                     str(tmp_path / "b")]) == 0  # the package's folder is the same map
    first = logs(tmp_path / "a")[0]
    assert first.read_text() == logs(tmp_path / "b")[0].read_text()
    assert json.loads(first.read_text().splitlines()[0])["map"] == map_id
    engine.board._registered.clear()  # the log in a new process: the map is named again
    assert verify([str(first)]) == 2
    assert verify([str(first), "--map", str(path)]) == 0
    engine.board._registered.clear()
    assert render([str(first), "--out", str(tmp_path / "maps")]) == 2  # no map: said so
    assert "cannot use the map" in capsys.readouterr().err
    assert render([str(first), "--map", str(path), "--out", str(tmp_path / "maps"), "--turn", "2"]) == 0
    picture = Image.open(tmp_path / "maps" / "map-turn-002.png")
    assert picture.width == 1600


def test_a_built_in_id_is_a_map_too_and_a_wrong_map_is_refused_in_words(
        tmp_path: Path, folder: tuple[Path, str], fresh: None, capsys: pytest.CaptureFixture[str]):
    path, _map_id = folder
    assert simulate(["--map", "classic", "--players", "2", "--games", "1", "--quiet", "--out", str(tmp_path)]) == 0
    classic = logs(tmp_path)[0]
    assert verify([str(classic)]) == 0
    capsys.readouterr()
    assert verify([str(classic), "--map", str(path)]) == 2  # another map than the game's
    assert "was played on the map classic" in capsys.readouterr().err
    assert render([str(classic), "--map", str(path / "map.json"), "--out", str(tmp_path / "x")]) == 2
    assert "was played on the map classic" in capsys.readouterr().err
    assert simulate(["--map", "no-such-map", "--games", "1"]) == 2
    assert "cannot use the map no-such-map" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert simulate(["--map", str(empty), "--games", "1"]) == 2
    assert "no map file" in capsys.readouterr().err
    # A custom map with more seats than the classic one's six is played by as many as it allows.
    assert simulate(["--map", str(path), "--players", "7", "--games", "1", "--quiet"]) == 0


def test_the_renderer_draws_a_game_on_a_map_stored_in_the_bots_database(
        tmp_path: Path, folder: tuple[Path, str], fresh: None, capsys: pytest.CaptureFixture[str]):
    from mapfiles.package import read_package_dir
    from store import SQLiteStore

    path, map_id = folder
    package = read_package_dir(path)

    async def stored() -> Path:
        store = SQLiteStore(tmp_path / "risk.db")
        await store.open()
        try:
            await store.add_map(1, package.id, package.title, 2, package.files())
        finally:
            await store.close()
        return tmp_path / "risk.db"
    database = asyncio.run(stored())
    assert simulate(["--map", str(path), "--players", "2", "--games", "1", "--quiet", "--out", str(tmp_path)]) == 0
    engine.board._registered.clear()
    log = logs(tmp_path)[0]
    assert render([str(log), "--database", str(database), "--out", str(tmp_path / "m")]) == 0
    assert Image.open(tmp_path / "m" / "map-final.png").width == 1600
    engine.board._registered.clear()
    assert render([str(log), "--database", str(database), "--map", map_id, "--out", str(tmp_path / "n")]) == 0
    capsys.readouterr()
    assert render([str(log), "--database", str(database), "--map", "nothing", "--out", str(tmp_path / "o")]) == 2
    assert "there is no map nothing stored" in capsys.readouterr().err
