"""The lines that tell a freestyle round's events in the channel (``turn_order: freestyle``, docs/rules.md)."""

from __future__ import annotations

from cogs.shared.i18n import _
from engine.events import HoldReleased, RoundClosed, RoundStarted


def round_line(e: RoundStarted | RoundClosed | HoldReleased, locale: object | None = None) -> str | None:
    """A round opened, or ran out of time; a hold released is not told (the round's message says who may go)."""
    if e["type"] == "round_started":
        return _("🔄 Round {round}: each player still in may take one turn, in any order, one at a time.", locale,
                 round=e["round"])
    if e["type"] == "round_closed":
        return _("⌛ Round {round} is over: its time ran out.", locale, round=e["round"])
    return None


__all__ = ["round_line"]
