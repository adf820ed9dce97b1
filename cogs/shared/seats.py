"""Substitutes, told to the channel: the host's offer of a seat the AI took over (with the button that claims
it), the claim, and an offer withdrawn; and the button beside the takeover's announcement that offers the seat.

Names only: an offer tells nothing of the board or of the seat's secrets (its cards and mission are the
substitute's once they hold the seat, through ``engine.fog`` like any player's).
"""

from __future__ import annotations

from typing import Any, Protocol

import discord

from cogs.play.panel import Green, Grey
from cogs.shared import components as verb
from cogs.shared.components import GameButton, view_of
from cogs.shared.guards import game_locale
from cogs.shared.i18n import _
from cogs.shared.postbox import PostOptions
from cogs.shared.text import safe_name, seat_name
from table import Outcome, Part
from table.outcome import OFFER_WITHDRAWN, SEAT_CLAIMED, SEAT_OFFERED, SEAT_TO_AI, TIMEOUT


class Channel(Protocol):
    """What telling an offer needs of the announcer."""

    async def publish(self, outcome: Outcome) -> None: ...

    async def told(self, outcome: Outcome) -> None: ...

    async def panel(self, record: Any, due: float | None = None) -> None: ...

    async def post(self, record: Any, content: str | None = None, *, view: discord.ui.View) -> object: ...


def with_offer_button(options: PostOptions, outcome: Outcome, part: Part, locale: object) -> PostOptions:
    """The message that tells the AI took a seat over gets the host's button to offer the seat to a substitute."""
    if part.by != TIMEOUT or part is not next((p for p in reversed(outcome.parts) if p.by == TIMEOUT
                                               and p.seat == part.seat), None):
        return options
    if not any(n.kind == SEAT_TO_AI and n.seat == part.seat for n in outcome.notes):
        return options
    button = GameButton(outcome.record.id, verb.OFFER, part.seat, label=_("Offer the seat to a substitute", locale),
                        style=Grey, emoji="🪑")
    return {**options, "view": view_of(button)}


async def announce_seat(announcer: Channel, outcome: Outcome) -> None:
    """Tell the channel of an offer (with its claim button), a claim or an offer withdrawn (``outcome.notes``).
    A claim is in the log (``seat_claimed``): noted as told first, so a restart does not tell it again."""
    record = outcome.record
    locale = game_locale(record)
    state = record.game().state
    if any(n.kind == SEAT_CLAIMED for n in outcome.notes):
        await announcer.told(outcome)
    for note in outcome.notes:
        player = seat_name(state, note.seat, locale)
        if note.kind == SEAT_OFFERED and outcome.offer is not None:
            lines = [_("🪑 The host offers {player}'s seat to a substitute: the AI plays it until a player not in "
                       "this game takes it over with the button below. Their record starts now: the game so far "
                       "stays with the player who left.", locale, player=player)]
            minimum = int(record.settings.get("min_reliability") or 0)
            if minimum:
                lines.append(_("This game asks for a reliability of at least {minimum}%.", locale, minimum=minimum))
            view = view_of(GameButton(record.id, verb.TAKE_SEAT, note.seat, outcome.offer,
                                      label=_("Take this seat", locale), style=Green, emoji="🪑"))
            await announcer.post(record, "\n".join(lines), view=view)
        elif note.kind == SEAT_CLAIMED:  # the seat bears the substitute's name now; the note, its player's before
            await announcer.post(record, _("🪑 {substitute} takes over {player}'s seat and plays it from turn {turn} "
                                           "on.", locale, substitute=player, player=safe_name(note.name),
                                           turn=note.count), view=view_of())
        elif note.kind == OFFER_WITHDRAWN:
            await announcer.post(record, _("🪑 The offer of {player}'s seat is withdrawn.", locale, player=player),
                                 view=view_of())
    claimed = next((n.seat for n in outcome.notes if n.kind == SEAT_CLAIMED), None)
    if claimed is not None:
        if outcome.parts:  # the AIs played on at once (the substitute's turn is called after them)
            outcome.notes = []
            await announcer.publish(outcome)
        elif outcome.waiting_on() == claimed:  # their turn now: their panel
            await announcer.panel(record, outcome.deadline)


__all__ = ["announce_seat", "with_offer_button"]
