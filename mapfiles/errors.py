"""Refusals of a map file, as templates the Discord layer translates (like the engine's ``RuleError``)."""

from __future__ import annotations

from engine import MapError
from engine.errors import TemplateError


class MapFileError(TemplateError, ValueError):
    """A map file that cannot be used. ``template`` is the English message with ``{placeholders}`` filled
    from ``params``; a refusal of the board's shape carries the engine's words in ``reason``."""

    inner: MapError | None = None   # the engine's refusal of the board, translated on its own

    @classmethod
    def from_map_error(cls, exc: MapError) -> MapFileError:
        refusal = MapFileError("The map is not a valid board: {reason}.", reason=str(exc))
        refusal.inner = exc
        return refusal
