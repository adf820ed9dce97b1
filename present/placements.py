"""The line that tells armies placed (the channel's, a turn panel's, or in a set-up round only their player's)."""

from __future__ import annotations

from engine.events import ArmiesPlaced
from present.i18n import _, ngettext


def placed_line(e: ArmiesPlaced, player: str, territory: str, locale: object | None, *,
                include_setup: bool) -> str | None:
    """``player`` and ``territory``: their names, already escaped for a message (a territory out of sight is named
    as the fog's)."""
    match e.get("source"):
        case "random" if not include_setup:
            return None
        case "card_bonus":
            return _("+{count} card bonus on {territory}.", locale, count=e["count"], territory=territory)
        case "neutral":
            return ngettext("{player} placed {n} neutral army on {territory}.",
                            "{player} placed {n} neutral armies on {territory}.", e["count"], locale,
                            player=player, territory=territory)
        case "sealed":  # a set-up round's: only its player reads it, until every placement is revealed
            return _("🤫 {player} placed {count} on {territory}, in secret.", locale, player=player, count=e["count"],
                     territory=territory)
        case _:
            return _("{player} placed {count} on {territory}.", locale, player=player, count=e["count"],
                     territory=territory)


__all__ = ["placed_line"]
