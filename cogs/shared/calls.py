"""Players called outside the channel: the direct messages a round's opening owes to those who chose them
(``/risk notify mode:dm``), besides the channel's mention. The announcer sends them (and a reminder's)."""

from __future__ import annotations

from cogs.shared.guards import game_locale
from engine import GameState
from present.i18n import _
from store import GameRecord, StoreReader
from table.clock import in_quiet_hours
from table.timers import waited_on


async def round_calls(store: StoreReader, record: GameRecord, state: GameState, due: float | None,
                      now: float) -> list[tuple[int, str]]:
    """A round opened (a freestyle round, or the set-up round): the direct message, as (user id, text), of each
    human it waits on who chose them; none in their quiet hours (the round's reminders, which wait for those to
    end, come to whoever has still not played)."""
    locale = game_locale(record)
    calls: list[tuple[int, str]] = []
    for seat in waited_on(state):
        player = record.player(seat)
        if player.is_ai or player.user_id is None:
            continue
        prefs = await store.get_user_prefs(player.user_id)
        if prefs.notify != "dm" or in_quiet_hours(prefs, now) is not None:
            continue
        if state.sealed is not None:
            text = _("🤫 Game #{id} in <#{channel}>: place all your starting armies before <t:{t}:R>.", locale,
                     id=record.id, channel=record.channel_id, t=int(due or now))
        else:
            text = _("🔄 Game #{id} in <#{channel}>: round {round} is open, take your turn before <t:{t}:R>.",
                     locale, id=record.id, channel=record.channel_id, round=state.round, t=int(due or now))
        calls.append((player.user_id, text))
    return calls


__all__ = ["round_calls"]
