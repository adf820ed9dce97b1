"""Substitutes, told to the channel: the host's offer of a seat the AI took over (with the button that claims
it), the claim, and an offer withdrawn; and the button beside the takeover's announcement that offers the seat.

Names only: an offer tells nothing of the board or of the seat's secrets (its cards and mission are the
substitute's once they hold the seat, through ``engine.fog`` like any player's).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Any, Protocol, Unpack

import discord

from cogs.shared.components import GameButton, Green, Grey, view_of
from cogs.shared.guards import game_locale
from cogs.shared.postbox import Post, Postbox, PostOptions, Sent
from present import verbs as verb
from present.i18n import _
from present.names import safe_name
from present.text import seat_name
from store import GameRecord
from table import Outcome, Part, Table
from table.outcome import OFFER_WITHDRAWN, SEAT_CLAIMED, SEAT_OFFERED, SEAT_TO_AI, TIMEOUT

log = logging.getLogger(__name__)
NOBODY = discord.AllowedMentions.none()


class Channel(Protocol):
    """What telling an offer needs of the announcer: its queue (the channel's), and the table that notes which
    messages are the offer's and the takeover's."""

    box: Postbox
    table: Table

    async def publish(self, outcome: Outcome) -> None: ...

    async def told(self, outcome: Outcome) -> None: ...

    async def panel(self, record: Any, due: float | None = None) -> None: ...

    def queue(self, record: GameRecord, content: str | None = None, **options: Unpack[PostOptions]) -> Sent: ...

    async def post(self, record: Any, content: str | None = None, *, view: discord.ui.View) -> object: ...


def with_offer_button(options: PostOptions, outcome: Outcome, part: Part, locale: object) -> PostOptions:
    """The message that tells the AI took a seat over gets the host's button to offer the seat to a substitute."""
    if part.by != TIMEOUT or part is not next((p for p in reversed(outcome.parts) if p.by == TIMEOUT
                                               and p.seat == part.seat), None):
        return options
    if not any(n.kind == SEAT_TO_AI and n.seat == part.seat and n.offerable for n in outcome.notes):
        return options
    button = GameButton(outcome.record.id, verb.OFFER, part.seat, label=_("Offer the seat to a substitute", locale),
                        style=Grey, emoji="🪑")
    return {**options, "view": view_of(button)}


def queue_part(announcer: Channel, outcome: Outcome, part: Part, content: str, options: PostOptions,
               locale: object) -> Awaitable[object]:
    """Queue a part's message; one that tells of the AI's takeover carries the host's offer button, and the table
    notes which message it is (an offer takes the button away again)."""
    offering = with_offer_button(options, outcome, part, locale)
    sent = announcer.queue(outcome.record, content, **offering)
    if offering is options:
        return sent

    async def noted() -> object:
        message = await sent
        if isinstance(message, discord.Message):
            await announcer.table.seat_message_posted(outcome.record.id, part.seat, takeover_message=message.id)
        return message
    return noted()


async def _edit(announcer: Channel, record: Any, message_id: int | None, content: str | None = None) -> None:
    """The offer's or the takeover's message, through the channel's queue, without its button (``content``: its
    new words; None: its words stay). A message deleted meanwhile is left alone."""
    if message_id is None:
        return
    post = Post(content, kwargs={"allowed_mentions": NOBODY}, edit=message_id, buttons_only=content is None)
    try:
        await announcer.box.enqueue(record.channel_id, post)
    except discord.HTTPException as exc:
        log.warning("the message %s of game %s's seat offer could not be edited: %s", message_id, record.id, exc)


async def announce_seat(announcer: Channel, outcome: Outcome) -> None:
    """Tell the channel of an offer (with its claim button), a claim or an offer withdrawn (``outcome.notes``),
    and close the messages they make stale: an offer takes the takeover's button (and an older offer's) away; a
    claim or a withdrawal edits the offer to say so, without its button. A claim is in the log (``seat_claimed``):
    noted as told first, so a restart does not tell it again."""
    record = outcome.record
    locale = game_locale(record)
    state = record.game().state
    if any(n.kind == SEAT_CLAIMED for n in outcome.notes):
        await announcer.told(outcome)
    await _edit(announcer, record, outcome.takeover_message)
    for note in outcome.notes:
        player = seat_name(state, note.seat, locale)
        if note.kind == SEAT_OFFERED and outcome.offer is not None:
            await _edit(announcer, record, outcome.offer_message)   # offered again: the newest offer has the button
            lines = [_("🪑 The host offers {player}'s seat to a substitute: the AI plays it until a player not in "
                       "this game takes it over with the button below. Their record starts now: the game so far "
                       "stays with the player who left.", locale, player=player)]
            minimum = int(record.settings.get("min_reliability") or 0)
            if minimum:
                lines.append(_("This game asks for a reliability of at least {minimum}%.", locale, minimum=minimum))
            view = view_of(GameButton(record.id, verb.TAKE_SEAT, note.seat, outcome.offer,
                                      label=_("Take this seat", locale), style=Green, emoji="🪑"))
            message = await announcer.post(record, "\n".join(lines), view=view)
            if isinstance(message, discord.Message):
                await announcer.table.seat_message_posted(record.id, note.seat, offer_message=message.id)
        elif note.kind == SEAT_CLAIMED:  # the seat bears the substitute's name now; the note, its player's before
            former = safe_name(note.name)
            await _edit(announcer, record, outcome.offer_message, _(
                "🪑 The host offered {player}'s seat to a substitute: {substitute} took it over from turn {turn} on.",
                locale, player=former, substitute=player, turn=note.count))
            await announcer.post(record, _("🪑 {substitute} takes over {player}'s seat and plays it from turn {turn} "
                                           "on.", locale, substitute=player, player=former, turn=note.count),
                                 view=view_of())
        elif note.kind == OFFER_WITHDRAWN:
            await _edit(announcer, record, outcome.offer_message, _(
                "🪑 The host offered {player}'s seat to a substitute; the offer was withdrawn.", locale, player=player))
            await announcer.post(record, _("🪑 The offer of {player}'s seat is withdrawn.", locale, player=player),
                                 view=view_of())
    claimed = next((n.seat for n in outcome.notes if n.kind == SEAT_CLAIMED), None)
    if claimed is not None:
        if outcome.parts:  # the AIs played on at once (the substitute's turn is called after them)
            outcome.notes = []
            await announcer.publish(outcome)
        elif outcome.waiting_on() == claimed:  # their turn now: their panel
            await announcer.panel(record, outcome.deadline)


__all__ = ["announce_seat", "queue_part", "with_offer_button"]
