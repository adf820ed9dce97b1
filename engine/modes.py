"""Game modes: how a game is won, plugged into the rules at a few named hooks.

``Mode`` is the classic game: nothing before deployment, the first turn right after it, and no way to win
but the classic ones (last player or team standing, every territory held), which ``Game`` checks itself.
A mode overrides some of these hooks:

* ``opening(game)``: events right after the first player is known (missions are dealt here);
* ``begin_play(game, first)``: what follows deployment (the first turn, or choosing capitals first);
* ``player_out(game, seat, by)``: a seat was eliminated (``by`` the conqueror) or surrendered (``by`` None);
* ``victory(game, seat)``: does ``seat`` (with its team) win by this mode's goal in this position?
  Asked after each action for the player whose turn it is, before a turn passes, and on every conquest.

Modes are registered by setting value in ``MODES``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from . import dice
from .board import Board
from .missions import fallback_mission, mission_complete, mission_deck, playable
from .state import ATTACK, CAPITAL, FORTIFY, REINFORCE, Event, GameState


class Game(Protocol):
    """What a mode needs of the game it plugs into (``engine.game.Game``, which imports the modes)."""

    state: GameState
    board: Board

    def turn_started_event(self, seat: int, turn: int) -> Event: ...

    def begin_turns(self, first: int) -> Iterable[Event]: ...

    def friendly(self, seat: int, owner: int | None) -> bool: ...


@dataclass(frozen=True)
class Victory:
    """A mode's win: the ``reason`` of ``game_over`` and any fields it adds (e.g. the mission)."""

    reason: str
    details: dict[str, Any] = field(default_factory=dict)


class Mode:
    """The classic game (world domination)."""

    name: ClassVar[str] = "classic"

    def opening(self, game: Game) -> Iterable[Event]:
        return ()

    def begin_play(self, game: Game, first: int) -> Iterable[Event]:
        yield from game.begin_turns(first)

    def player_out(self, game: Game, seat: int, by: int | None) -> Iterable[Event]:
        return ()

    def victory(self, game: Game, seat: int) -> Victory | None:
        return None


class MissionsMode(Mode):
    """Secret missions: each player is dealt a mission and wins by completing it on their own turn."""

    name: ClassVar[str] = "missions"

    def opening(self, game: Game) -> Iterable[Event]:
        yield self.deal(game)

    @staticmethod
    def deal(game: Game) -> Event:
        """One mission per player, dealt in seat order from the shuffled mission deck."""
        s = game.state
        seats = [p.seat for p in s.players]
        deck = mission_deck(game.board, seats)
        used = dice.shuffle(s.seed, s.draw_index, deck)
        missions = {str(seat): playable(deck[i], seat, s, game.board) for i, seat in enumerate(seats)}
        return {"type": "missions_dealt", "missions": missions, "draws": used}

    def player_out(self, game: Game, seat: int, by: int | None) -> Iterable[Event]:
        # A destroy mission whose target someone else took out (or who surrendered) becomes 24 territories.
        s = game.state
        for holder, mission in sorted(s.missions.items()):
            if mission["kind"] == "destroy" and mission["seat"] == seat and holder != by \
                    and holder in s.active_seats():
                yield {"type": "mission_changed", "seat": holder, "from": copy.deepcopy(mission),
                       "to": fallback_mission(mission, game.board),
                       "reason": "surrendered" if by is None else "eliminated"}

    def victory(self, game: Game, seat: int) -> Victory | None:
        s = game.state
        # Only on your own turn, and only in a settled position (not while moving into a conquest).
        if seat != s.current or s.phase not in (REINFORCE, ATTACK, FORTIFY) or seat not in s.active_seats():
            return None
        mission = s.missions.get(seat)
        if mission is None or not mission_complete(mission, s, game.board, seat):
            return None
        return Victory("mission", {"mission": copy.deepcopy(mission)})


class CapitalsMode(Mode):
    """Capitals: after deployment each player chooses a capital; hold every capital to win."""

    name: ClassVar[str] = "capitals"

    def begin_play(self, game: Game, first: int) -> Iterable[Event]:
        yield {"type": "setup_turn", "seat": first, "phase": CAPITAL}

    def victory(self, game: Game, seat: int) -> Victory | None:
        s = game.state
        if not s.capitals or len(s.capitals) < len(s.players):
            return None
        if all(game.friendly(seat, s.owners.get(t)) for t in s.capitals.values()):
            return Victory("capitals", {"capitals": {str(k): v for k, v in sorted(s.capitals.items())}})
        return None


MODES: dict[str, Mode] = {m.name: m for m in (Mode(), MissionsMode(), CapitalsMode())}
