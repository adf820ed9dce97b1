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


@pytest.fixture
async def store(tmp_path: Path):
    """A fresh SQLite store in a temporary folder."""
    from store import open_store

    s = await open_store(tmp_path / "risk.sqlite3")
    yield s
    await s.close()


@pytest.fixture
def game3() -> Game:
    return new_game(3)
