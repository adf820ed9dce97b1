"""What the shared plumbing asks of the rooms: cogs/shared imports no room, so the turn panel's buttons (``play/``)
and the end-of-game report (``records/``) are handed to the announcer when the cog is assembled (``cogs/risk.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import discord

from engine import Game, GameState
from engine.state import Event
from store import GameRecord, StoreReader


class Controls(Protocol):
    """The buttons for the player whose move it is (``cogs/play/panel.py``'s ``controls``)."""

    def __call__(self, game_id: int, game: Game, locale: object, events: Sequence[Event] = (), *,
                 public: bool = False) -> discord.ui.View | None: ...


class ReportFiles(Protocol):
    """A finished game's report image and timelapse (``cogs/records/report.py``'s ``end_of_game_files``)."""

    async def __call__(self, store: StoreReader, record: GameRecord, state: GameState,
                      locale: object) -> list[discord.File]: ...


@dataclass(frozen=True)
class RoomParts:
    """The rooms' parts the announcer uses: the turn panel's buttons and the end-of-game files."""

    controls: Controls
    report_files: ReportFiles


__all__ = ["Controls", "ReportFiles", "RoomParts"]
