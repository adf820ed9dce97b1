"""The map as an attachment, drawn for one audience: the only way the Discord layer renders a board.

The state is first reduced to what the audience may know (``engine.fog.state_for``), so a map can never show
more than its reader may see, whatever the renderer does.

Drawing happens in a pool of worker processes (``render.workers``), never on the event loop and never in a
thread of the bot's process: a render holds the GIL for tens of milliseconds, and the event loop must stay
free to give Discord its first response within three seconds. ``pending()`` counts the maps asked for and not
yet drawn; the announcer uses it to draw fewer maps when the bot is busy (``busy()``).
"""

from __future__ import annotations

import asyncio
import copy
import io
from collections.abc import Sequence
from dataclasses import dataclass

import discord

from cogs.shared.i18n import language_of, map_labels
from cogs.shared.text import player_name
from engine import GameState
from engine.events import View
from engine.fog import Audience, state_for, visible_to
from mapfiles.registry import use_database
from render import Labels, draw_png, warm_up, workers

_pending = 0


@dataclass(frozen=True)
class MapJob:
    """Everything one map needs, already reduced to its audience's knowledge (and picklable)."""

    view: GameState
    audience: Audience
    highlight: tuple[View, ...]
    labels: Labels
    visible: frozenset[str] | None


def prepare(state: GameState, audience: Audience, seen: Sequence[View] = (), *,
            locale: object | None = None) -> MapJob:
    """The board as ``audience`` may see it, with ``seen`` (events already projected for that audience)
    marked: the last attack, placements, moves."""
    view = state_for(state, audience)
    for player in view.players:  # an AI seat's default name in the reader's language
        player.name = player_name(player.name, player.kind == "ai", locale or state.settings.language or None)
    visible = visible_to(state, audience)
    # Marks need both ends of an attack or a move: one in the fog (named null) leaves the event unmarked.
    highlight = tuple(copy.copy(e) for e in seen if not e.get("hidden")
                      and all(e.get(key) for key in ("from", "to", "territory") if key in e))
    labels = map_labels(language_of(locale or state.settings.language or None), state.settings.map)
    return MapJob(view, audience, highlight, labels, None if visible is None else frozenset(visible))


async def draw(job: MapJob) -> bytes:
    """The PNG of a prepared map, drawn in a worker process."""
    global _pending
    _pending += 1
    try:
        return await workers.run(draw_png, job.view, list(job.highlight), job.audience, job.labels,
                                 None if job.visible is None else set(job.visible))
    finally:
        _pending -= 1


def stored_maps_in(database: str | None) -> None:
    """The database whose stored maps the workers draw (a SQLite file or a ``postgresql://`` URL): each worker
    finds a server's map there when a render first meets it (maps, reports, timelapses, previews alike)."""
    if database is None:
        workers.set_up(None)
    else:
        workers.set_up(use_database, database)


def pending() -> int:
    """Maps asked for and not yet drawn, over the whole bot."""
    return _pending


def busy() -> bool:
    """More maps are waiting than the workers can draw at once: the announcer sheds the ones it can spare."""
    return _pending >= 2 * workers.size()


def as_file(data: bytes) -> discord.File:
    return discord.File(io.BytesIO(data), filename="map.png")


async def map_file(state: GameState, audience: Audience, seen: Sequence[View] = (), *,
                   locale: object | None = None) -> discord.File:
    """The map for ``audience`` as an attachment (``prepare`` then ``draw``)."""
    return as_file(await draw(prepare(state, audience, seen, locale=locale)))


async def warm() -> None:
    """Start the workers and have each build the map's static layers, so the first maps come quickly."""
    await asyncio.gather(*(workers.run(warm_up) for _ in range(2 * workers.size())))


__all__ = ["MapJob", "as_file", "busy", "draw", "map_file", "pending", "prepare", "stored_maps_in", "warm"]
