"""What an AI knows: only what its seat may know, as a player at the table would.

Every AI decides on ``seat_view``: the seat's projection of the game (``engine.fog.state_for``: other players'
cards face down, their number kept; no other mission; no deck order; no dice seed) and, under fog of war, the
board as the seat last saw it. Out of sight a territory it never saw has no owner and no armies, as in the
projection; one it saw keeps the owner and armies it had when last seen (``Memory``), even if they changed since,
and a capital it saw stays known.
Its own territories, and the ones next to them, are always exact, so its legal moves are the real ones.

The memory is a function of the log: ``Recollection`` follows the events one by one, and after each it notes
what each seat's projection shows of the board (the territories in sight before or after the event: those the
event was shown to it through, ``engine.fog.events_for``). Whoever drives the AI (``table/flow.py``,
``engine.simulate``) keeps one per fog game, or rebuilds it from the log (``recollect``): the same log gives the
same memory, so a game replays the same way.

A few legal choices are known to the seat without seeing the board, because its menus offer them: which
territories are still unclaimed, and in a two-player setup where the neutral armies may go. ``seat_view`` takes
those lists from the game itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from ..events import Event, GameStarted
from ..fog import fog_hides_board, friends_of, state_for, visible_territories, visible_to
from ..game import Game
from ..state import GameState, apply_event, initial_state


@dataclass
class Memory:
    """What one seat last saw of each territory it saw: ``seen[territory] = (owner, armies)``; and the capitals
    it saw (``capitals[seat] = territory``: a capital never moves)."""

    seat: int
    seen: dict[str, tuple[int, int]] = field(default_factory=dict)
    capitals: dict[int, str] = field(default_factory=dict)

    def note(self, state: GameState, territories: set[str]) -> None:
        """Remember ``territories`` as they are in ``state`` (an unowned one is forgotten: it is unclaimed)."""
        for t in territories:
            owner = state.owners.get(t)
            if owner is None:
                self.seen.pop(t, None)
            else:
                self.seen[t] = (owner, state.armies.get(t, 0))

    def note_capitals(self, state: GameState, territories: set[str]) -> None:
        """Remember the capitals among ``territories``."""
        for seat, t in state.capitals.items():
            if t in territories:
                self.capitals[seat] = t


class Recollection:
    """What every seat of one game has seen so far, followed event by event.

    It keeps its own copy of the game's state to follow the events on; the AI reads only a seat's ``Memory``."""

    def __init__(self, state: GameState) -> None:
        self.state = state.copy()
        self.fog = state.settings.fog == "on"
        self.memories = {p.seat: Memory(p.seat) for p in state.players}
        self._sight = {seat: self._visible(seat) for seat in self.memories}
        for seat, memory in self.memories.items():
            memory.note(self.state, self._sight[seat])
            memory.note_capitals(self.state, self._sight[seat])

    @classmethod
    def of_log(cls, events: Sequence[Event]) -> Recollection:
        """The recollection of a log that begins with ``game_started``."""
        recollection = cls(initial_state(cast(GameStarted, events[0])))
        recollection.follow(events[1:])
        return recollection

    @property
    def event_count(self) -> int:
        """The events followed so far (the game's own count: ``game_started`` is not counted)."""
        return self.state.event_count

    def _visible(self, seat: int) -> set[str]:
        return visible_territories(self.state, seat) if self.fog else set()

    def follow(self, events: Sequence[Event]) -> None:
        """Follow the events that came after the ones followed so far.

        After each event a seat notes the territories in its sight before or after it that the event changed,
        and those that came into sight; the others it already knows as they are (or as they were when it last
        saw them). Sight changes only with the owners."""
        for event in events:
            if not self.fog:
                apply_event(self.state, event)
                continue
            owners, armies = dict(self.state.owners), dict(self.state.armies)
            apply_event(self.state, event)
            now_owners, now_armies = self.state.owners, self.state.armies
            changed = {t for t in now_owners.keys() | owners.keys() | now_armies.keys() | armies.keys()
                       if now_owners.get(t) != owners.get(t) or now_armies.get(t) != armies.get(t)}
            chosen = event["type"] == "capital_chosen"
            if not changed and not chosen:
                continue
            moved = any(now_owners.get(t) != owners.get(t) for t in changed)
            for seat, memory in self.memories.items():
                before = self._sight[seat]
                if moved:
                    now = self._visible(seat)
                    self._sight[seat] = now
                    memory.note(self.state, (changed & (before | now)) | (now - before))
                    memory.note_capitals(self.state, now - before)
                else:
                    memory.note(self.state, changed & before)
                if chosen:
                    memory.note_capitals(self.state, before)

    def memory(self, seat: int) -> Memory:
        return self.memories.setdefault(seat, Memory(seat))


def recollect(events: list[Event]) -> Recollection:
    """The recollection of a whole log (run where the log is worked on: it grows with the game)."""
    return Recollection.of_log(events)


class SeatView(Game):
    """The game as one seat knows it: rules and legal choices as ``Game``'s, on the seat's view of the state."""

    def __init__(self, state: GameState, claimable: list[str], placeable: list[str]) -> None:
        super().__init__(state)
        self._claimable = claimable
        self._placeable = placeable

    def claimable(self) -> list[str]:
        return list(self._claimable)

    def placeable(self, seat: int) -> list[str]:
        if seat == self.state.current:
            return list(self._placeable)
        return super().placeable(seat)


def seat_view(game: Game, seat: int, memory: Memory | None = None) -> SeatView:
    """The game as ``seat`` may know it: its projection, and under fog the board out of sight as ``memory`` last
    saw it (never one of its own or its teammates' territories: those it sees as they are)."""
    real = game.state
    view = state_for(real, seat)
    if memory is not None and fog_hides_board(real):
        shown = visible_to(real, seat) or set()
        friends = friends_of(real, seat)
        for t, (owner, armies) in memory.seen.items():
            if t not in shown and owner not in friends:
                view.owners[t] = owner
                view.armies[t] = armies
        for s, t in memory.capitals.items():
            view.capitals.setdefault(s, t)
    placeable = game.placeable(seat) if real.current == seat else []
    return SeatView(view, game.claimable(), placeable)


__all__ = ["Memory", "Recollection", "SeatView", "recollect", "seat_view"]
