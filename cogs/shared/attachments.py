"""A map as a Discord attachment: drawn for its audience by ``present/drawing.py``, in a worker process."""

from __future__ import annotations

import io
from collections.abc import Sequence

import discord

from engine import GameState
from engine.events import View
from engine.fog import Audience
from present.drawing import WHOLE, MapKind, map_png


def as_file(data: bytes) -> discord.File:
    """A drawn map as the attachment a message carries."""
    return discord.File(io.BytesIO(data), filename="map.png")


async def map_file(state: GameState, audience: Audience, seen: Sequence[View] = (), *,
                   locale: object | None = None, kind: MapKind = WHOLE) -> discord.File:
    """The map for ``audience`` as an attachment (``present.drawing.prepare``, then drawn)."""
    return as_file(await map_png(state, audience, seen, locale=locale, kind=kind))


__all__ = ["as_file", "map_file"]
