"""The end of a game: its results and the ratings they give, written in the transaction that ends it."""

from __future__ import annotations

from store import GameRecord
from store.change import GameChange
from store.results import LogFacts, finish_steps


async def finish(change: GameChange, record: GameRecord, facts: LogFacts | None) -> None:
    """The results of the game ``record`` is (as it was before its ending action) and its ratings, written with
    the change that ends it (``facts``: what the results take from the whole log, if worked out before)."""
    await change.flush()  # the last turns' rows, which the results read
    change.write(*await finish_steps(change.db, record.id, record.guild_id, record.channel_id, record.players,
                                     change.now, facts))
