"""The map as an attachment, drawn for one audience: the only way the Discord layer renders a board.

The state is first reduced to what the audience may know (``engine.fog.state_for``), so a map can never show
more than its reader may see, whatever the renderer does. Rendering runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Sequence

import discord

from engine import Event, GameState
from engine.fog import Audience, state_for, visible_to
from render import encode_png, render_map

from .i18n import language_of, map_labels
from .text import player_name


async def map_file(state: GameState, audience: Audience, seen: Sequence[Event] = (), *,
                   locale: object | None = None) -> discord.File:
    """The board as ``audience`` may see it, with ``seen`` (events already projected for that audience)
    marked: the last attack, placements, moves."""
    view = state_for(state, audience)
    for player in view.players:  # an AI seat's default name in the reader's language
        player.name = player_name(player.name, player.kind == "ai", locale or state.settings.language or None)
    visible = visible_to(state, audience)
    # Marks need both ends of an attack or a move: one in the fog (named null) leaves the event unmarked.
    highlight = [dict(e) for e in seen if not e.get("hidden")
                 and all(e.get(key) for key in ("from", "to", "territory") if key in e)]
    labels = map_labels(language_of(locale or state.settings.language or None), state.settings.map)

    def work() -> bytes:
        return encode_png(render_map(view, highlight_events=highlight, viewer=audience, labels=labels,
                                     visible=visible))

    data = await asyncio.to_thread(work)
    return discord.File(io.BytesIO(data), filename="map.png")


__all__ = ["map_file"]
