"""The map drawn for one audience: the only way the Discord layer and the live board render a board.

The state is first reduced to what the audience may know (``engine.fog.state_for``), so a map can never show
more than its reader may see, whatever the renderer does.

Drawing happens in a pool of worker processes (``workers``), never on the event loop and never in a
thread of the bot's process: a render holds the GIL for tens of milliseconds, and the event loop must stay
free to give Discord its first response within three seconds. ``pending()`` counts the maps asked for and not
yet drawn; the announcer uses it to draw fewer maps when the bot is busy (``busy()``).

A map is drawn whole (``WHOLE``: the board and its panel, as ``/map`` and the end of a game show it) or as the
phone view (``PHONE``: the part of the board that matters now, cropped so it reads at phone width; see
``render.phone``). ``prepare(..., kind=PHONE)`` chooses what matters (``focus``) from the audience's projection
only: the last action's territories, then the player's own and their neighbours.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import workers
from engine import GameState, load_map
from engine.events import View
from engine.fog import Audience, state_for, visible_to
from mapfiles.registry import use_database
from present.i18n import language_of, map_labels
from present.text import player_name
from render import Labels, draw_phone_png, draw_png, warm_up
from render.phone import MUST_SHOW

_pending = 0
MapKind = Literal["whole", "phone"]
WHOLE: MapKind = "whole"
PHONE: MapKind = "phone"
# How much each territory matters to the phone view's window.
LAST_ACTION, FRONT, OWN, NEIGHBOUR = 8.0, 2.0, 1.0, 0.5
CHANGED_HANDS = MUST_SHOW   # a territory conquered in what is shown: the window widens to hold them all


@dataclass(frozen=True)
class MapJob:
    """Everything one map needs, already reduced to its audience's knowledge (and picklable)."""

    view: GameState
    audience: Audience
    highlight: tuple[View, ...]
    labels: Labels
    visible: frozenset[str] | None
    kind: MapKind = WHOLE
    focus: tuple[tuple[str, float], ...] = ()   # the phone view's territories that matter, with their weight


def focus_of(view: GameState, audience: Audience, highlight: Sequence[View],
             visible: frozenset[str] | None) -> tuple[tuple[str, float], ...]:
    """What the phone view shows, from what the audience may know only (the projected ``view``, the projected
    ``highlight`` and the ``visible`` territories): the territories of the last action, then the player's own
    (those facing an enemy more) and their neighbours. The player is the reader, or for everybody the one
    whose turn it is."""
    board = load_map(view.settings.map)
    weights: dict[str, float] = {}
    seat = audience if audience is not None else view.current
    own = [t for t, owner in view.owners.items() if owner == seat]
    for tid in own:
        enemies = [n for n in board.neighbours(tid) if n in view.owners and view.owners[n] != seat]
        weights[tid] = FRONT if enemies else OWN
        for n in board.neighbours(tid):
            weights.setdefault(n, NEIGHBOUR)
    for e in highlight:
        for key in ("from", "to", "territory"):
            place = e.get(key)
            if isinstance(place, str) and place in board.territories:
                weights[place] = max(weights.get(place, 0.0), LAST_ACTION)
        taken = e.get("to") if e["type"] == "territory_conquered" else None
        if isinstance(taken, str) and taken in board.territories:
            weights[taken] = CHANGED_HANDS   # the window holds every territory that changed hands
    return tuple((t, w) for t, w in weights.items() if visible is None or t in visible)


def prepare(state: GameState, audience: Audience, seen: Sequence[View] = (), *,
            locale: object | None = None, kind: MapKind = WHOLE) -> MapJob:
    """The board as ``audience`` may see it, with ``seen`` (events already projected for that audience)
    marked: the last attack, placements, moves. ``kind``: the whole map, or the phone view (``PHONE``), which
    shows the part of the board that matters now; a finished game is always drawn whole."""
    view = state_for(state, audience)
    for player in view.players:  # an AI seat's default name in the reader's language
        player.name = player_name(player.name, player.kind == "ai", locale or state.settings.language or None)
    visible = visible_to(state, audience)
    # Marks need both ends of an attack or a move: one in the fog (named null) leaves the event unmarked.
    highlight = tuple(copy.copy(e) for e in seen if not e.get("hidden")
                      and all(e.get(key) for key in ("from", "to", "territory") if key in e))
    labels = map_labels(language_of(locale or state.settings.language or None), state.settings.map)
    seen_by = None if visible is None else frozenset(visible)
    if kind == PHONE and state.phase != "over":
        return MapJob(view, audience, highlight, labels, seen_by, PHONE, focus_of(view, audience, highlight, seen_by))
    return MapJob(view, audience, highlight, labels, seen_by)


async def draw(job: MapJob) -> bytes:
    """The PNG of a prepared map, drawn in a worker process."""
    global _pending
    _pending += 1
    try:
        if job.kind == PHONE:
            return await workers.run(draw_phone_png, job.view, list(job.highlight), job.labels, job.visible,
                                     dict(job.focus))
        return await workers.run(draw_png, job.view, list(job.highlight), job.audience, job.labels,
                                 None if job.visible is None else set(job.visible))
    finally:
        _pending -= 1


def stored_maps_in(database: str | None) -> None:
    """The database whose stored maps the workers draw (a SQLite file or a ``postgresql://`` URL): each worker
    finds a server's map there when a render first meets it (maps, reports, timelapses, sheets of maps alike)."""
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


async def map_png(state: GameState, audience: Audience, seen: Sequence[View] = (), *,
                  locale: object | None = None, kind: MapKind = WHOLE) -> bytes:
    """The map for ``audience`` as a PNG (``prepare`` then ``draw``)."""
    return await draw(prepare(state, audience, seen, locale=locale, kind=kind))


async def warm() -> None:
    """Start the workers and have each build the map's static layers, so the first maps come quickly."""
    await asyncio.gather(*(workers.run(warm_up) for _ in range(2 * workers.size())))


__all__ = ["PHONE", "WHOLE", "MapJob", "MapKind", "busy", "draw", "focus_of", "map_png", "pending",
           "prepare", "stored_maps_in", "warm"]
