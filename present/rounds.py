"""The lines that tell a freestyle round's events in the channel (``turn_order: freestyle``, docs/rules.md), and a
set-up round's (``setup: round``)."""

from __future__ import annotations

from engine.events import HoldReleased, PlacementsRevealed, RoundClosed, RoundStarted, SetupRound
from present.i18n import _


def round_line(e: RoundStarted | RoundClosed | HoldReleased | SetupRound | PlacementsRevealed,
               locale: object | None = None, names: str = "") -> str | None:
    """A round opened, or ran out of time; a hold released is not told (the round's message says who may go).
    A set-up round's lines: ``names``, the players whose armies its deadline placed at random (joined, escaped)."""
    if e["type"] in ("setup_round", "placements_revealed"):
        return setup_round_line(e, names, locale)
    if e["type"] == "round_started":
        return _("🔄 Round {round}: each player still in may take one turn, in any order, one at a time.", locale,
                 round=e["round"])
    if e["type"] == "round_closed":
        return _("⌛ Round {round} is over: its time ran out.", locale, round=e["round"])
    return None


def setup_round_line(e: SetupRound | PlacementsRevealed, names: str, locale: object | None = None) -> str:
    """A set-up round opened, or its placements were revealed (``names``: the players whose armies the deadline
    placed at random, already joined and escaped, or empty)."""
    if e["type"] == "setup_round":
        return _("🤫 Everyone places all their starting armies now, in secret: they are revealed together once all "
                 "have placed.", locale)
    if names:
        return _("📣 The starting armies are revealed. Time ran out for {players}: theirs were placed at random.",
                 locale, players=names)
    return _("📣 Everyone has placed: the starting armies are revealed.", locale)


__all__ = ["round_line", "setup_round_line"]
