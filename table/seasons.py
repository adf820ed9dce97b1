"""A server's seasons: started and ended by its managers, or ended by the scheduler when their time is up.

A season keeps its own time: it ends at its end time however late the bot notices (a restart after downtime, a
manager's late ``/season end``), and a game counts in the season whose time holds the moment it ended
(``store.seasons``), not in the one the bot thought was running.

The end is decided here (``ended``: a season past its end time ended by itself then, however late it is closed;
else now, by whoever ends it) and written by the store's one conditional update, so however many processes try
(the scheduler of each, a manager's ``/season end`` at the same moment), exactly one ends it and gets a
``SeasonOutcome`` to tell; the others get nothing. A season's end time lives in the database, so after a restart a
season whose end passed while the bot was down ends at once, once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ratings.ladders import LADDERS
from store import LeaderboardRow, Shards, Store
from store.seasons import Season

TOP = 3    # the players of each ladder an ending season names


@dataclass(frozen=True)
class SeasonOutcome:
    """A season started or ended, with the top of each ladder when it ended (``standings``)."""

    season: Season
    started: bool = False
    standings: dict[str, list[LeaderboardRow]] = field(default_factory=dict)
    closed: SeasonOutcome | None = None   # a start: the season before it, past its end time, closed first here

    @property
    def by_itself(self) -> bool:
        """It ended at its end time, not by a manager's command."""
        return not self.started and self.season.ended_by is None


def ended(season: Season, now: float, by: int | None) -> tuple[float, int | None]:
    """When a season closed ``now`` by ``by`` (None: the scheduler) ended, and by whom: one past its end time ended
    by itself at its end time (the bot was down, or a manager ends it late), else now by ``by``."""
    return (season.ends_at, None) if season.ends_at <= now else (now, by)


class Seasons:
    """Every change to a server's seasons."""

    def __init__(self, store: Store, clock: Callable[[], float], shards: Shards | None = None) -> None:
        self.store = store
        self.clock = clock
        self.shards = shards   # None: every server's seasons
        self.changed: Callable[[], None] = lambda: None   # the scheduler's poke: a season's end time changed

    async def start(self, guild_id: int, channel_id: int, days: int, by: int) -> SeasonOutcome:
        """Start a season; one whose end time has passed but that the scheduler has not closed yet (the bot was
        down) does not stand in the way: it is closed first, as ended by itself, and comes back as ``closed``
        (unless another process closed it first, and tells it)."""
        closed = await self.end_due([guild_id])
        season = await self.store.start_season(guild_id, channel_id, days, by, self.clock())
        self.changed()
        return SeasonOutcome(season, started=True, closed=closed[0] if closed else None)

    async def end(self, guild_id: int, by: int) -> SeasonOutcome | None:
        """End the server's running season (None: none runs). One already past its end time ended by itself then,
        and is told so."""
        now = self.clock()
        running = await self.store.current_season(guild_id)
        if running is None or not running.running:
            return None
        season = await self.store.close_season(running.id, *ended(running, now, by))
        if season is None:   # another process ended it first, and tells it
            return None
        self.changed()
        return await self._ended(season)

    async def next_end(self) -> float | None:
        """When the first running season of this process's servers ends."""
        ends = [s.ends_at for s in await self.store.running_seasons() if self._mine(s)]
        return min(ends, default=None)

    async def end_due(self, only: Sequence[int] | None = None) -> list[SeasonOutcome]:
        """End every season of this process's servers (of ``only``, if given) whose time is up: those this process
        ended, each at its end time."""
        now = self.clock()
        out = []
        for running in await self.store.running_seasons():
            if self._mine(running) and running.ends_at <= now and (only is None or running.guild_id in only):
                season = await self.store.close_season(running.id, *ended(running, now, None))
                if season is not None:
                    out.append(await self._ended(season))
        return out

    def _mine(self, season: Season) -> bool:
        return self.shards is None or self.shards.owns(season.guild_id)

    async def _ended(self, season: Season) -> SeasonOutcome:
        from ratings import MIN_GAMES

        standings = {ladder: (await self.store.ladder(season.guild_id, ladder, season.id, 0, TOP, MIN_GAMES))[0]
                     for ladder in LADDERS}
        return SeasonOutcome(season, standings=standings)


__all__ = ["TOP", "SeasonOutcome", "Seasons", "ended"]
