"""A vote to end a game, told to the channel (the announcer's ``vote``): called, its message with the two ballot
buttons, who votes and until when; closed, its tally, and if it passed the game's end as every end is told.

Names and counts only: a vote tells nothing of the board, under fog or not, and nobody's ballot (who voted how
is never told; the tally only once the vote is closed).
"""

from __future__ import annotations

from typing import Any, Protocol

import discord

from cogs.shared.components import GameButton, Green, Red, view_of
from cogs.shared.guards import game_locale
from present import verbs as verb
from present.i18n import _
from present.text import seat_name
from present.wording import clip, note_line
from table import Outcome
from table.outcome import VOTE_CALLED, VOTE_NOTES


class Channel(Protocol):
    """What telling a vote needs of the announcer."""

    async def publish(self, outcome: Outcome) -> None: ...

    async def post(self, record: Any, content: str | None = None, *, view: discord.ui.View) -> object: ...

YES, NO = "yes", "no"  # a ballot button's choice, after the vote's key


async def announce_vote(announcer: Channel, outcome: Outcome) -> None:
    """Tell the channel of a vote called or closed (``outcome.notes`` says which)."""
    note = next((n for n in outcome.notes if n.kind in VOTE_NOTES), None)
    vote, record = outcome.vote, outcome.record
    if note is None or vote is None:
        return
    if note.kind != VOTE_CALLED:
        if outcome.parts:  # it passed: the tally, then the end
            await announcer.publish(outcome)
        else:
            await announcer.post(record, note_line(note, record.game().state, game_locale(record)), view=view_of())
        return
    locale = game_locale(record)
    state = record.game().state
    names = ", ".join(seat_name(state, seat, locale) for seat in outcome.voters)
    text = "\n".join([note_line(note, state, locale), _(
        "The players still in the game vote: {players}. It passes if every one of them votes for; nobody is "
        "told the tally until everyone has voted or the vote closes, <t:{t}:R>.", locale, players=names,
        t=int(vote.closes_at))])
    view = view_of(GameButton(record.id, verb.BALLOT, vote.key, YES, label=_("Vote for", locale), style=Green,
                              emoji="✅"),
                   GameButton(record.id, verb.BALLOT, vote.key, NO, label=_("Vote against", locale), style=Red,
                              emoji="✖️"))
    await announcer.post(record, clip([text]), view=view)


__all__ = ["NO", "YES", "announce_vote"]
