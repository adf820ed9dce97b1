"""Shared helpers: games in a chosen position, built through the engine's own API."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine import Game, Player  # noqa: E402

# On CI the property tests replay the same examples every run (a landing never depends on luck); on a
# developer's machine they keep exploring new ones.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")
from engine.state import ATTACK, REINFORCE  # noqa: E402


def new_game(players: int = 3, seed: str = "test-seed", **settings: object) -> Game:
    settings.setdefault("deployment", "auto")
    game, _ = Game.new([Player(i, f"P{i + 1}") for i in range(players)], seed, settings)
    return game


def position(game: Game, owners: dict[str, int], armies: dict[str, int] | None = None, *, seat: int = 0,
             phase: str = ATTACK, default_owner: int = 1, default_armies: int = 1) -> Game:
    """Put the board in a position: the given owners/armies, everything else to ``default_owner``."""
    s = game.state
    for t in game.board.territory_ids:
        s.owners[t] = owners.get(t, default_owner)
        s.armies[t] = (armies or {}).get(t, default_armies)
    s.current = seat
    s.phase = phase
    s.reinforcements = 0 if phase != REINFORCE else s.reinforcements
    s.pending = None
    return game


@pytest.fixture(autouse=True)
def tiny_maps(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot draws maps of a few pixels (``tests/tinymaps.py``), in its worker processes as always, except
    in the tests marked ``real_render``: those about what a map or a timelapse shows."""
    if request.node.get_closest_marker("real_render") is not None:
        return
    from cogs.records import report
    from present import drawing
    from tests import tinymaps

    monkeypatch.setattr(drawing, "draw_png", tinymaps.draw_png)
    monkeypatch.setattr(drawing, "draw_phone_png", tinymaps.draw_phone_png)
    monkeypatch.setattr(report, "game_timelapse", tinymaps.game_timelapse)


@pytest.fixture(scope="session")
def postgres_server():
    """One PostgreSQL server for the session (see tests/postgres_helpers.py)."""
    from tests.postgres_helpers import postgres_server as server

    with server() as url:
        yield url


@pytest.fixture
async def postgres_url(postgres_server: str):
    """A fresh, empty PostgreSQL database for one test."""
    from tests.postgres_helpers import create_database, drop_database

    url = await create_database(postgres_server)
    yield url
    await drop_database(postgres_server, url)


@pytest.fixture
async def sqlite_store(tmp_path: Path):
    """A fresh SQLite store in a temporary folder (for tests about the SQLite file itself)."""
    from store import open_store

    s = await open_store(tmp_path / "risk.sqlite3")
    yield s
    await s.close()


@pytest.fixture(params=["sqlite", "postgres"])
async def store(request: pytest.FixtureRequest, tmp_path: Path):
    """A fresh store on each backend: SQLite in a temporary folder, PostgreSQL in a fresh database."""
    from store import open_store
    from store.postgres import open_postgres

    if request.param == "sqlite":
        s = await open_store(tmp_path / "risk.sqlite3")
        yield s
        await s.close()
        return
    from tests.postgres_helpers import create_database, drop_database

    server = request.getfixturevalue("postgres_server")
    url = await create_database(server)
    s = await open_postgres(url)
    try:
        yield s
    finally:
        await s.close()
        await drop_database(server, url)


@pytest.fixture
def game3() -> Game:
    return new_game(3)
